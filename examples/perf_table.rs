//! Throughput of every encode and decode path against a memcpy of the same bytes, printed as
//! one markdown table.
//!
//! Run with `cargo run --release --example perf_table` (add `--features rayon` for a second
//! table of parallel speedups), optionally followed by
//! `-- --runs N` (timed runs per row, default 7), `--size-mib M` (bytes per array, default
//! 64), `--types f64,u8` (some element types only; default all of `f64`, `f32`, `u16`,
//! `complex128`, `u8`, `bool`), `--evict-mib M` (bytes read before each timed run; see
//! below), `--planes N` (planes of the 3-D layouts, default 4; 3 for an RGB image; each
//! array is then cut to a whole number of planes of whole 4096-element rows), `--layouts
//! fortran,fortran-chunk` (some layouts only; a chunk layout brings its whole layout) or
//! `--quick` (a 4 MiB smoke run).
//!
//! Each row is the median of N runs timed with [`Instant`](std::time::Instant); GB/s is
//! 10⁹ encoded bytes per second. The ratio divides a path's GB/s by its baseline's,
//! measured in the same process and in the same rounds:
//!
//! - `memcpy-prealloc`: `dst.copy_from_slice(src)` into a buffer allocated once; the
//!   baseline of the paths that write into existing memory or a sink.
//! - `memcpy-fresh`: `src.to_vec()`, allocating and freeing inside the timed run; the
//!   baseline of the paths that return a new `Vec` or array, page faults included.
//! - `tile-copy (bound)` and `tile-copy back (bound)`: the memory traffic of encoding and
//!   decoding a Fortran-order array in the library's tiles, with no transposition and no
//!   byte swap: not a path, the bound of the tiled paths on this machine.
//!
//! Rounds run every row once in turn, so drift of the machine hits paths and baselines
//! alike. Every timed run starts from cold caches, after an untimed read of twice the
//! largest cache (the `cold` module, shared with the benchmarks; `--evict-mib` to choose
//! the size, `0` for none); with the caches as the run before left them, ratios moved by
//! ±0.05 from run to run.
//!
//! Layouts: `standard` (C order), `fortran`, `transposed` (the `.t()` view of a C-order
//! array), `3d-swapped` (a 3-D C-order array with its last two axes swapped) and `3d-201`
//! (a 3-D C-order array with its axes permuted by `(2, 0, 1)`: planes of an interleaved
//! image, whose contiguous axis is 4 elements long), and `fortran-part` (the first rows of
//! a Fortran-order array 16 rows taller: a chunk of a taller array, no one memory slice,
//! whose columns are no multiple of 4 KiB apart), and the chunks of arrays twice as long
//! along each axis (`fortran-chunk`, `3d-swapped-chunk`, `standard-chunk`: see
//! `arrays::CHUNKS`). Endian `n/a` marks one-byte elements and the baselines, which have no
//! byte order. A second table sets each chunk row beside the row of the same-shaped whole
//! array, measured in the same rounds.
//!
//! `write_zarr_bytes` of a standard array whose bytes need no conversion hands its memory
//! to the sink in one call, so its row is call overhead and its ratio is huge.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Duration;

#[path = "../benches/arrays/mod.rs"]
mod arrays;
#[path = "../benches/cold/mod.rs"]
mod cold;

use arrays::{Arrays, Sink, CHUNKS, LAYOUTS};
use cold::Cold;

use ndarray::Array2;
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Element, Endian};

const USAGE: &str = "usage: perf_table [--runs N] [--size-mib M] [--types T,U] [--layouts L,M] \
                     [--evict-mib M] [--planes N] [--quick]";

/// Every element type the table measures, in its order.
const TYPES: [&str; 6] = ["f64", "f32", "u16", "complex128", "u8", "bool"];

const PREALLOC: &str = "memcpy-prealloc";
const TILE_COPY: &str = "tile-copy (bound)";
const TILE_COPY_BACK: &str = "tile-copy back (bound)";
const FRESH: &str = "memcpy-fresh";

struct Options {
    runs: usize,
    size_mib: usize,
    /// Planes of the 3-D layouts.
    planes: usize,
    types: Vec<String>,
    /// The layouts measured, in [`LAYOUTS`] order.
    layouts: Vec<&'static str>,
    /// MiB read before each timed run; `None` for twice the largest cache.
    evict_mib: Option<usize>,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        runs: 7,
        size_mib: 64,
        planes: 4,
        types: TYPES.iter().map(|t| t.to_string()).collect(),
        layouts: LAYOUTS.to_vec(),
        evict_mib: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str, least: usize| -> Result<usize, String> {
            let value = args.next().ok_or(format!("{name} needs a value"))?;
            match value.parse() {
                Ok(n) if n >= least => Ok(n),
                _ => Err(format!(
                    "{name} needs an integer of {least} or more, not {value:?}"
                )),
            }
        };
        match arg.as_str() {
            "--runs" => options.runs = number("--runs", 1)?,
            "--size-mib" => options.size_mib = number("--size-mib", 1)?,
            "--planes" => options.planes = number("--planes", 1)?,
            "--evict-mib" => options.evict_mib = Some(number("--evict-mib", 0)?),
            "--quick" => options.size_mib = 4,
            "--types" => {
                let list = args.next().ok_or("--types needs a value")?;
                options.types = list.split(',').map(str::to_string).collect();
                if let Some(t) = options.types.iter().find(|t| !TYPES.contains(&t.as_str())) {
                    return Err(format!("unknown type {t:?}; known: {}", TYPES.join(", ")));
                }
            }
            "--layouts" => {
                let list = args.next().ok_or("--layouts needs a value")?;
                let asked: Vec<&str> = list.split(',').collect();
                if let Some(l) = asked.iter().find(|l| !LAYOUTS.contains(l)) {
                    return Err(format!(
                        "unknown layout {l:?}; known: {}",
                        LAYOUTS.join(", ")
                    ));
                }
                // A chunk's row is read beside its whole array's.
                let whole = |l: &&str| CHUNKS.iter().any(|&(c, w)| w == *l && asked.contains(&c));
                options.layouts = LAYOUTS
                    .into_iter()
                    .filter(|l| asked.contains(l) || whole(l))
                    .collect();
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    // Every array, of 16-byte elements too, must hold whole planes of 4096 elements.
    let most = (options.size_mib << 20) / 16 / 4096;
    if options.planes > most {
        return Err(format!(
            "--planes {} needs more than --size-mib {} (at most {most} planes)",
            options.planes, options.size_mib
        ));
    }
    Ok(options)
}

/// The arrays of one element type and the buffers the paths convert them to and from.
struct Buffers<T> {
    arrays: Arrays<T>,
    /// The encoded bytes, little endian then big endian.
    encoded: [Vec<u8>; 2],
    /// The preallocated output of `encode_zarr_bytes_into` and of `memcpy-prealloc`.
    out: Vec<u8>,
    /// The memory and the stream of the `tile-copy` rows, which copy bytes between them.
    copies: [Vec<u8>; 2],
    /// Their tile buffer.
    scratch: Vec<u8>,
}

type Run<T> = Box<dyn Fn(&mut Buffers<T>)>;

struct Case<T> {
    path: &'static str,
    endian: &'static str,
    layout: &'static str,
    baseline: &'static str,
    run: Run<T>,
}

struct Row {
    path: &'static str,
    ty: &'static str,
    endian: &'static str,
    layout: &'static str,
    gbps: f64,
    ratio: f64,
    baseline: &'static str,
}

fn endian_index(endian: Endian) -> usize {
    match endian {
        Endian::Little => 0,
        Endian::Big => 1,
    }
}

fn buffers<T: Element>(size: &Size, layouts: &[&str], value: fn(usize) -> T) -> Buffers<T> {
    let n = size.elements(T::SIZE);
    let arrays = Arrays::new(n, size.planes, value);
    let b = Buffers {
        encoded: [
            arrays.standard.to_zarr_bytes(Endian::Little),
            arrays.standard.to_zarr_bytes(Endian::Big),
        ],
        arrays,
        out: vec![0; n * T::SIZE],
        copies: [vec![1; n * T::SIZE], vec![2; n * T::SIZE]],
        scratch: Vec::new(),
    };
    // Every layout must encode to the same bytes, or the rows would not be comparable.
    for endian in [Endian::Little, Endian::Big] {
        for &layout in layouts {
            let bytes = b.arrays.view(layout).to_zarr_bytes(endian);
            let expected = &b.encoded[endian_index(endian)];
            if let Some(at) =
                (0..bytes.len().max(expected.len())).find(|&i| bytes.get(i) != expected.get(i))
            {
                panic!("{layout} {endian}: encoded differently from standard at byte {at}");
            }
        }
    }
    b
}

fn cases<T: Element>(layouts: &[&'static str]) -> Vec<Case<T>> {
    let mut cases: Vec<Case<T>> = Vec::new();
    let mut add = |path, endian, layout, baseline, run: Run<T>| {
        cases.push(Case {
            path,
            endian,
            layout,
            baseline,
            run,
        })
    };
    add(
        PREALLOC,
        "n/a",
        "contiguous",
        PREALLOC,
        Box::new(|b| {
            b.out.copy_from_slice(black_box(&b.encoded[0]));
            black_box(&mut b.out);
        }),
    );
    add(
        FRESH,
        "n/a",
        "contiguous",
        FRESH,
        Box::new(|b| {
            black_box(black_box(&b.encoded[0]).to_vec());
        }),
    );
    for (path, back) in [(TILE_COPY, false), (TILE_COPY_BACK, true)] {
        add(
            path,
            "n/a",
            "fortran",
            PREALLOC,
            Box::new(move |b| {
                let (rows, cols) = b.arrays.fortran.dim();
                let [memory, stream] = &mut b.copies;
                tile_copy(memory, stream, (rows, cols, T::SIZE), back, &mut b.scratch);
                black_box(&mut b.copies);
            }),
        );
    }
    // One-byte elements have no byte order: measuring both endians would repeat a row.
    let endians: &[Endian] = if T::SIZE == 1 {
        &[Endian::NATIVE]
    } else {
        &[Endian::Little, Endian::Big]
    };
    for &e in endians {
        let i = endian_index(e);
        let name = if T::SIZE == 1 { "n/a" } else { e.as_str() };
        let mut add = |path, layout, baseline, run: Run<T>| add(path, name, layout, baseline, run);

        for &layout in layouts {
            add(
                "encode_zarr_bytes_into",
                layout,
                PREALLOC,
                Box::new(move |b| {
                    let view = black_box(b.arrays.view(layout));
                    let result = view.encode_zarr_bytes_into(&mut b.out, e);
                    black_box(&mut b.out);
                    result.unwrap();
                }),
            );
        }
        for &layout in layouts {
            add(
                "decode_zarr_bytes_into",
                layout,
                PREALLOC,
                Box::new(move |b| {
                    let mut view = b.arrays.view_mut(layout);
                    let result = view.decode_zarr_bytes_into(black_box(&b.encoded[i]), e);
                    black_box(&mut view);
                    result.unwrap();
                }),
            );
        }

        add(
            "to_zarr_bytes",
            "standard",
            FRESH,
            Box::new(move |b| {
                black_box(black_box(&b.arrays.standard).to_zarr_bytes(e));
            }),
        );
        add(
            "from_zarr_bytes",
            "standard",
            FRESH,
            Box::new(move |b| {
                let bytes = black_box(&b.encoded[i]);
                let a = Array2::<T>::from_zarr_bytes(bytes, b.arrays.standard.dim(), e);
                black_box(a.unwrap());
            }),
        );

        for &layout in layouts {
            add(
                "write_zarr_bytes (sink)",
                layout,
                PREALLOC,
                Box::new(move |b| {
                    let view = black_box(b.arrays.view(layout));
                    view.write_zarr_bytes(Sink, e).unwrap();
                }),
            );
        }

        add(
            "read_zarr_bytes (&[u8])",
            "standard",
            FRESH,
            Box::new(move |b| {
                let reader = black_box(&b.encoded[i][..]);
                let a = Array2::<T>::read_zarr_bytes(reader, b.arrays.standard.dim(), e);
                black_box(a.unwrap());
            }),
        );
    }
    cases
}

/// Ask for the cache line of `x` in the second-level cache (a hint; x86 only).
fn request<T>(x: &T) {
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse"
    ))]
    safe_arch::prefetch_t1(x);
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse"
    )))]
    let _ = x;
}

/// Ask for the lines of the first `len` bytes of `bytes` (those there are), one hint per 64
/// bytes and one for the last byte.
fn request_run(bytes: &[u8], len: usize) {
    let run = &bytes[..len.min(bytes.len())];
    run.iter().step_by(64).for_each(request);
    if let Some(last) = run.last() {
        request(last);
    }
}

/// The `tile-copy` rows: the memory traffic of converting a Fortran-order array of `rows` ×
/// `cols` elements of `size` bytes, with none of the work. They move the library's tiles
/// (256 columns and up to 72 KiB for elements of 4 bytes or less, 64 columns of 32 KiB
/// otherwise, and half as many rows again going `back`), cut on cache lines and asking 16
/// runs ahead, as the library does, between `memory` and `stream`: each memory run into the
/// tile buffer and each tile buffer row into the stream (encoding), or `back` the other way
/// (decoding), as the bytes are, with no transposition and no byte swap. The bytes they
/// write are no encoding; their ratios are what the tiled layouts can reach on this
/// machine.
fn tile_copy(
    memory: &mut [u8],
    stream: &mut [u8],
    (rows, cols, size): (usize, usize, usize),
    back: bool,
    scratch: &mut Vec<u8>,
) {
    let (tile_cols, tile_rows) = if size <= 4 {
        (256, 72 * 1024 / size / (256 + 64 / size) / 16 * 16)
    } else {
        (64, 32 * 1024 / size / 64)
    };
    let tile_rows = if back {
        tile_rows + tile_rows / 2
    } else {
        tile_rows
    };
    // Tile buffer rows a cache line apart, as in the library.
    let pitch = tile_cols * size + 64;
    scratch.resize(tile_rows * pitch, 0);
    let line = (64 / size).max(1);
    // Cuts of `0..len` into `width`, the first one shortened or lengthened so that the
    // others start `lead` elements past a line (when `width` is whole lines).
    let cuts = |len: usize, width: usize, address: usize| {
        let lead = address.wrapping_neg() % 64 / size;
        let first = if lead > 0 && width % line == 0 {
            lead + width - line
        } else {
            width
        };
        std::iter::once((0, first.min(len))).chain(
            (first..len)
                .step_by(width)
                .map(move |at| (at, width.min(len - at))),
        )
    };
    for (c0, width) in cuts(cols, tile_cols, stream.as_ptr() as usize) {
        for (r0, height) in cuts(rows, tile_rows, memory.as_ptr() as usize) {
            let (run, n) = (height * size, width * size);
            // Memory runs: column c0 + j from row r0, to or from tile column j.
            let column = |j: usize| ((c0 + j) * rows + r0) * size;
            let columns = |memory: &mut [u8], scratch: &mut [u8]| {
                let runs = (0..width).map(|j| (column(j), j * run, column(j + 16)));
                moved(memory, scratch, runs, run, back);
            };
            // Stream runs: row r0 + i from column c0, to or from tile row i.
            let row = |i: usize| ((r0 + i) * cols + c0) * size;
            let rows = |stream: &mut [u8], scratch: &mut [u8]| {
                let runs = (0..height).map(|i| (row(i), i * pitch, row(i + 16)));
                moved(stream, scratch, runs, n, !back);
            };
            if back {
                rows(stream, scratch);
                columns(memory, scratch);
            } else {
                columns(memory, scratch);
                rows(stream, scratch);
            }
        }
    }
}

/// Copy `len` bytes at each `(at, slot, ahead)` of `runs` from `outer` into `tile` at
/// `slot`, or back from `tile` into `outer` with `back`, asking for `outer` at `ahead`.
fn moved(
    outer: &mut [u8],
    tile: &mut [u8],
    runs: impl Iterator<Item = (usize, usize, usize)>,
    len: usize,
    back: bool,
) {
    for (at, slot, ahead) in runs {
        let (outer_run, tile_run) = (&mut outer[at..][..len], &mut tile[slot..][..len]);
        if back {
            outer_run.copy_from_slice(tile_run);
        } else {
            tile_run.copy_from_slice(outer_run);
        }
        request_run(outer.get(ahead..).unwrap_or_default(), len);
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The size of each array: the bytes asked for, and the planes of the 3-D layouts; and
/// the layouts measured.
#[derive(Clone)]
struct Size {
    bytes: usize,
    planes: usize,
    layouts: Vec<&'static str>,
}

impl Size {
    /// Elements of `size` bytes per array: the bytes asked for, cut to a whole number of
    /// planes of whole 4096-element rows (no cut for 4 planes and a power-of-two size;
    /// `parse_args` makes sure there is one plane at least).
    fn elements(&self, size: usize) -> usize {
        let n = self.bytes / size;
        n - n % (self.planes * 4096)
    }
}

/// Time every path of one element type, round-robin so that slow drift of the machine
/// (clock frequency, neighbours) affects paths and baselines alike, each timed run from
/// cold caches.
fn measure<T: Element>(
    ty: &'static str,
    size: &Size,
    runs: usize,
    cold: &Cold,
    value: fn(usize) -> T,
) -> Vec<Row> {
    let mut b = buffers(size, &size.layouts, value);
    let bytes = b.out.len();
    let cases = cases::<T>(&size.layouts);
    // The untimed first round faults in every page and warms the allocator.
    for case in &cases {
        (case.run)(&mut b);
    }
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (case, times) in cases.iter().zip(&mut times) {
            times.push(cold.time(|| (case.run)(&mut b)));
        }
    }
    let gbps: Vec<f64> = times
        .into_iter()
        .map(|t| bytes as f64 / median(t).as_secs_f64().max(1e-12) / 1e9)
        .collect();
    let baseline = |name: &str| gbps[cases.iter().position(|c| c.path == name).unwrap()];
    cases
        .iter()
        .zip(&gbps)
        .map(|(case, &gbps)| Row {
            path: case.path,
            ty,
            endian: case.endian,
            layout: case.layout,
            gbps,
            ratio: gbps / baseline(case.baseline),
            baseline: case.baseline,
        })
        .collect()
}

/// "N CPUs, model" from the standard library and /proc/cpuinfo, with what is available.
fn machine() -> String {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name") || line.starts_with("Model"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!(
        "{cpus} CPUs, {model}, {} ({} endian)",
        std::env::consts::ARCH,
        Endian::NATIVE
    )
}

/// A rate with three significant digits or so; a path that moves no bytes can be huge.
fn rate(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// Each chunk row beside the row of its same-shaped whole array, from the same rounds:
/// GB/s of both, the chunk's over the whole array's, and the chunk's ratio to memcpy.
fn chunk_table(rows: &[Row]) {
    let chunks: Vec<(&Row, &Row)> = rows
        .iter()
        .filter_map(|r| {
            let &(_, whole) = CHUNKS.iter().find(|&&(c, _)| c == r.layout)?;
            let w = rows
                .iter()
                .find(|w| (w.path, w.ty, w.endian, w.layout) == (r.path, r.ty, r.endian, whole))?;
            Some((r, w))
        })
        .collect();
    if chunks.is_empty() {
        return;
    }
    println!();
    println!(
        "Chunks of arrays twice as long along each axis, beside the same-shaped whole arrays:"
    );
    println!();
    println!("| path | type | endian | chunk of | chunk GB/s | whole GB/s | chunk / whole | chunk / memcpy |");
    println!("|---|---|---|---|---:|---:|---:|---:|");
    for (c, w) in chunks {
        // A whole array written straight from its memory measures a call, not a path.
        let against = if w.ratio < 10.0 {
            format!("{:.2}", c.gbps / w.gbps)
        } else {
            "n/a".into()
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {against} | {} |",
            c.path,
            c.ty,
            c.endian,
            w.layout,
            rate(c.gbps),
            rate(w.gbps),
            rate(c.ratio)
        );
    }
}

/// The paths of one table row of [`parallel_table`]: path, type, layout, the run.
#[cfg(feature = "rayon")]
type Path<'a> = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn FnMut() + Send + 'a>,
);

/// Encoding and decoding a Fortran-order array of `T` (big endian), and the first rows of
/// one [`arrays::PART_ROWS`] rows taller (the `fortran-part` layout), each run owning its
/// arrays.
#[cfg(feature = "rayon")]
fn fortran_paths<T: Element + Send + Sync>(
    ty: &'static str,
    bytes: usize,
    value: fn(usize) -> T,
) -> Vec<Path<'static>> {
    use ndarray::{s, ShapeBuilder};

    let n = bytes / T::SIZE;
    let (rows, cols) = arrays::shape2(n);
    let mut paths: Vec<Path<'static>> = Vec::new();
    for (layout, extra) in [("fortran", 0), ("fortran-part", arrays::PART_ROWS)] {
        let array = Array2::from_shape_fn((rows + extra, cols).f(), |(i, j)| value(i * cols + j));
        let encoded = array.slice(s![..rows, ..]).to_zarr_bytes(Endian::Big);
        let mut out = vec![0u8; encoded.len()];
        let mut target = array.clone();
        paths.push((
            "encode_zarr_bytes_into",
            ty,
            layout,
            Box::new(move || {
                let view = array.slice(s![..rows, ..]);
                drop(black_box(
                    view.encode_zarr_bytes_into(&mut out, Endian::Big),
                ))
            }),
        ));
        paths.push((
            "decode_zarr_bytes_into",
            ty,
            layout,
            Box::new(move || {
                let mut view = target.slice_mut(s![..rows, ..]);
                drop(black_box(
                    view.decode_zarr_bytes_into(&encoded, Endian::Big),
                ))
            }),
        ));
    }
    paths
}

/// A chunk layout's whole array and where its chunk (1, 1) starts along the last two axes.
#[cfg(feature = "rayon")]
enum Big<T> {
    Two(Array2<T>, (usize, usize)),
    Three(ndarray::Array3<T>, (usize, usize)),
}

#[cfg(feature = "rayon")]
impl<T> Big<T> {
    /// The chunk, in its logical axis order.
    fn chunk(&mut self) -> ndarray::ArrayViewMutD<'_, T> {
        use ndarray::s;
        match self {
            Big::Two(a, (r, c)) => a.slice_mut(s![*r.., *c..]).into_dyn(),
            Big::Three(a, (r, c)) => a
                .view_mut()
                .permuted_axes([0, 2, 1])
                .slice_move(s![.., *r.., *c..])
                .into_dyn(),
        }
    }
}

/// Encoding and decoding the chunk layouts of `T` (big endian): each chunk (1, 1) of an
/// array twice as long along its last two axes ([`arrays::CHUNKS`]), the one array of a
/// layout shared by both paths.
#[cfg(feature = "rayon")]
fn chunk_paths<T: Element + Send + Sync>(
    ty: &'static str,
    bytes: usize,
    value: fn(usize) -> T,
) -> Vec<Path<'static>> {
    use ndarray::{Array3, ShapeBuilder};
    use std::sync::{Arc, Mutex};

    let n = bytes / T::SIZE;
    let (rows, cols) = arrays::shape2(n);
    let (d0, d1, d2) = arrays::shape3(n, 4);
    let two = |i: usize, j: usize| value(i % rows * cols + j % cols);
    let bigs = [
        (
            "fortran-chunk",
            Big::Two(
                Array2::from_shape_fn((2 * rows, 2 * cols).f(), |(i, j)| two(i, j)),
                (rows, cols),
            ),
        ),
        (
            "3d-swapped-chunk",
            Big::Three(
                Array3::from_shape_fn((d0, 2 * d2, 2 * d1), |(a, k, j)| {
                    value((a * d1 + j % d1) * d2 + k % d2)
                }),
                (d1, d2),
            ),
        ),
        (
            "standard-chunk",
            Big::Two(
                Array2::from_shape_fn((2 * rows, 2 * cols), |(i, j)| two(i, j)),
                (rows, cols),
            ),
        ),
    ];
    let mut paths: Vec<Path<'static>> = Vec::new();
    for (layout, big) in bigs {
        let big = Arc::new(Mutex::new(big));
        let encoded = big.lock().unwrap().chunk().to_zarr_bytes(Endian::Big);
        let mut out = vec![0u8; encoded.len()];
        let shared = Arc::clone(&big);
        paths.push((
            "encode_zarr_bytes_into",
            ty,
            layout,
            Box::new(move || {
                let mut big = shared.lock().unwrap();
                let view = big.chunk();
                drop(black_box(
                    view.view().encode_zarr_bytes_into(&mut out, Endian::Big),
                ))
            }),
        ));
        paths.push((
            "decode_zarr_bytes_into",
            ty,
            layout,
            Box::new(move || {
                let mut big = big.lock().unwrap();
                let mut view = big.chunk();
                drop(black_box(
                    view.decode_zarr_bytes_into(&encoded, Endian::Big),
                ))
            }),
        ));
    }
    paths
}

/// With the `rayon` feature: each large path on a one-thread pool and on the global pool,
/// alternating in the same rounds as a memcpy into a preallocated buffer (on the calling
/// thread), each timed run from cold caches, with the speedup and the pool's ratio to that
/// memcpy.
#[cfg(feature = "rayon")]
fn parallel_table(bytes: usize, runs: usize, cold: &Cold) {
    use ndarray::ArrayD;

    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let n = bytes / 8;
    let (rows, cols) = arrays::shape2(n);
    let standard = Array2::from_shape_fn((rows, cols), |(i, j)| (i * cols + j) as f64);
    let big = standard.to_zarr_bytes(Endian::Big);
    let mut out = vec![0u8; big.len()];
    let mut copy = vec![0u8; big.len()];
    let mut memcpy = || {
        copy.copy_from_slice(black_box(&big));
        black_box(&mut copy);
    };
    let paths: Vec<Path> = vec![
        (
            "to_zarr_bytes",
            "f64",
            "standard",
            Box::new(|| drop(black_box(standard.to_zarr_bytes(Endian::Big)))),
        ),
        (
            "from_zarr_bytes",
            "f64",
            "standard",
            Box::new(|| {
                drop(black_box(ArrayD::<f64>::from_zarr_bytes(
                    &big,
                    vec![rows, cols],
                    Endian::Big,
                )))
            }),
        ),
        (
            "encode_zarr_bytes_into",
            "f64",
            "standard",
            Box::new(|| {
                drop(black_box(
                    standard.encode_zarr_bytes_into(&mut out, Endian::Big),
                ))
            }),
        ),
    ];
    // The paths of each type, built when their turn comes: the chunks' arrays are big.
    fn of<T: Element + Send + Sync>(
        ty: &'static str,
        bytes: usize,
        value: fn(usize) -> T,
    ) -> Vec<Path<'static>> {
        let mut paths = fortran_paths(ty, bytes, value);
        paths.extend(chunk_paths(ty, bytes, value));
        paths
    }
    let groups: [&dyn Fn() -> Vec<Path<'static>>; 5] = [
        &|| of("f64", bytes, |i| i as f64),
        &|| of("f32", bytes, |i| i as f32 * 0.25 - 1e3),
        &|| of("u16", bytes, |i| i as u16),
        &|| of("u8", bytes, |i| (i % 251) as u8),
        &|| of("bool", bytes, |i| i % 3 == 0),
    ];
    println!();
    println!(
        "Parallel conversion (feature `rayon`), big endian, {} threads vs 1; ratio: the \
         pool's GB/s over memcpy-prealloc's on one thread, in the same rounds:",
        rayon::current_num_threads()
    );
    println!();
    println!("| path | type | layout | 1 thread GB/s | pool GB/s | speedup | pool ratio |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut row = |(path, ty, layout, mut run): Path| {
        let (mut single, mut pool, mut baseline) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            baseline.push(cold.time(&mut memcpy));
            single.push(cold.time(|| one.install(&mut run)));
            pool.push(cold.time(&mut run));
        }
        let gbps = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
        let (s, p) = (gbps(median(single)), gbps(median(pool)));
        let m = gbps(median(baseline));
        println!(
            "| {path} | {ty} | {layout} | {} | {} | {:.2} | {:.2} |",
            rate(s),
            rate(p),
            p / s,
            p / m
        );
    };
    paths.into_iter().for_each(&mut row);
    for group in groups {
        group().into_iter().for_each(&mut row);
    }
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("perf_table: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let bytes = options.size_mib << 20;
    let cold = Cold::new(options.evict_mib);
    let start = match cold.mib() {
        0 => "in the caches the run before left".to_string(),
        mib => format!("after reading {mib} MiB to evict the caches"),
    };
    println!(
        "machine: {}; {} MiB per array, {} planes in the 3-D layouts; median of {} runs, each \
         {start}; GB/s = 10^9 bytes/s",
        machine(),
        options.size_mib,
        options.planes,
        options.runs,
    );
    println!();

    let runs = options.runs;
    let types = &options.types;
    let size = Size {
        bytes,
        planes: options.planes,
        layouts: options.layouts.clone(),
    };
    let size = &size;
    let table = || {
        let mut rows = Vec::new();
        for ty in types {
            rows.extend(match ty.as_str() {
                "f64" => measure("f64", size, runs, &cold, |i| i as f64 * 0.5 - 1e6),
                "f32" => measure("f32", size, runs, &cold, |i| i as f32 * 0.25 - 1e3),
                "u16" => measure("u16", size, runs, &cold, |i| i as u16),
                "complex128" => measure("complex128", size, runs, &cold, |i| {
                    Complex::new(i as f64, -(i as f64) * 0.25)
                }),
                "u8" => measure("u8", size, runs, &cold, |i| (i % 251) as u8),
                "bool" => measure("bool", size, runs, &cold, |i| i % 3 == 0),
                other => unreachable!("checked type {other}"),
            });
        }
        rows
    };
    // The main table is single-threaded; the `rayon` feature adds a table of its own.
    #[cfg(feature = "rayon")]
    let rows = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
        .install(table);
    #[cfg(not(feature = "rayon"))]
    let rows = table();

    #[cfg(feature = "rayon")]
    let parallel = || parallel_table(bytes, runs, &cold);
    #[cfg(not(feature = "rayon"))]
    let parallel = || ();
    println!("| path | type | endian | layout | GB/s | ratio | baseline |");
    println!("|---|---|---|---|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.path,
            r.ty,
            r.endian,
            r.layout,
            rate(r.gbps),
            rate(r.ratio),
            r.baseline
        );
    }
    chunk_table(&rows);
    parallel();
    ExitCode::SUCCESS
}
