//! Throughput of every encode and decode path against a memcpy of the same bytes, printed as
//! one markdown table.
//!
//! Run with `cargo bench --bench perf_table` (add `--features rayon` for a second
//! table of parallel speedups), optionally followed by
//! `-- --runs N` (timed runs per row, default 7), `--size-mib M` (bytes per array, default
//! 64), `--types f64,u8` (some element types only; default all of `f64`, `f32`, `u16`,
//! `complex128`, `u8`, `bool`), `--evict-mib M` (bytes read before each timed run; see
//! below), `--planes N` (planes of the 3-D layouts, default 4; 3 for an RGB image; each
//! array is then cut to a whole number of planes of whole 4096-element rows), `--layouts
//! fortran,fortran-chunk` (some layouts only; a chunk layout brings its whole layout; grid
//! layouts only skip every table but the grid and sparse tables), `--grid-mib M` (bytes per
//! array of the grid rows, default 4 × `--size-mib`: 256 MiB), `--chunk-mib M` (bytes per
//! chunk of the grid rows, default 2), `--sparse` (the sparse tables only, below),
//! `--driven` (the tables of the reader and writer the caller drives only, below) or
//! `--quick` (a 4 MiB smoke run, 16 MiB grid arrays).
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
//! A third table, "grid / whole", cuts an array of `--grid-mib` MiB into chunks of
//! `--chunk-mib` MiB with a [`ChunkGrid`](zarr_bytes::ChunkGrid), in the grid layouts
//! `fortran-grid` (Fortran order), `3d-swapped-grid` (a stack of `--planes` planes stored
//! (z, x, y), the memory of `3d-swapped`) and `standard-grid` (C order), for `f64` and
//! `u16` big endian and `u8` (those of `--types`). It times `encode_zarr_chunks` of every
//! chunk and `decode_zarr_chunks_into` of every chunk beside `encode_zarr_bytes_into` and
//! `decode_zarr_bytes_into` of the same array whole and `memcpy-prealloc` of its bytes (and,
//! for C order, `row-copy back (bound)`: each row of each chunk's part copied as bytes into
//! its row of the array, the memory traffic of decoding the grid without the codec), in
//! the same rounds, one layout and type at a time, each run from cold caches. The chunk
//! shapes are square-ish in the array's logical axes (2-D: 512 × 512 for 2 MiB of `f64`;
//! the stack: whole planes when a plane fits in a chunk, else a square-ish tile of one
//! plane), and the array's last axis with several chunks along it is cut a quarter chunk
//! short, so the last chunks along it are edge chunks (see `arrays::grid_shapes`; the table
//! prints every shape). The encoding sink keeps nothing: it reads each chunk's first byte
//! (the compiler must assume it reads all) and drops the chunk, whose `Vec` the library
//! allocates inside the timed run. The decoding source lends each chunk's bytes, encoded
//! once before timing and stored in a `Vec<Vec<u8>>` in `ChunkGrid::indices` order (no
//! hash map); the chunks decode into the array they came from. GB/s of every grid row
//! counts the array's bytes, not the edge chunks' padding. With the `rayon` feature the
//! parallel table adds the grid paths too, all chunks on the pool against one thread.
//!
//! The sparse tables take the same grid layouts, types and arrays, each type with a fill
//! value that is not zero (42.5, 0xa5a5, 0xff), and a second array of the same layout
//! holding only that value (written memory, not fresh zero pages). In the same rounds,
//! from cold caches, one thread: `memcpy-prealloc` and `memcpy-fresh` of the array's
//! bytes; `sum of bytes`, a wrapping `u8` sum of the fill-only array's memory (a read pass
//! and nothing else); `is_zarr_fill` of that array; `encode_zarr_chunks` and
//! `encode_zarr_chunks_sparse` of it (every chunk left out) and of the dense array (every
//! chunk lent to a sink that reads its first byte, as the grid rows' sink does); and the
//! array built in C order from the dense array's chunks with every tenth missing (the
//! chunks at positions 0, 10, 20, … of grid order), `Array::from_elem` of the fill value
//! then `decode_zarr_chunks_into`, against `from_zarr_chunks`, both allocating the array
//! inside the timed run (and freeing it), as `memcpy-fresh` does. Each row's ratio is to
//! the row it names as baseline; a second table gathers the sparse paths' ratios to the
//! plain ones. A third times `is_zarr_fill` against `sum of bytes` in cache: the
//! fill-only array of the same layout at 1 MiB and 256 KiB, batches of calls back to back
//! (about 32 MiB read per batch), warm, alternating, median of `4 × --runs` batches each.
//! Before timing, the rows are checked: the fill test tells the arrays apart, the sparse
//! encoding lends every chunk of the dense array with the bytes `encode_zarr_chunks`
//! makes and none of the other, and both ways of building the array agree.
//!
//! `--driven` times the reader and writer the caller drives. First, with the `async`
//! feature (without it a line says so), latency: an `f32` array in chunks of 256 × 256
//! (256 KiB) in a store in memory whose every request (a chunk read or written) waits
//! 20 ms, `tokio::time::sleep` in the async calls' futures (on a tokio multi-thread
//! runtime) and `std::thread::sleep` in the blocking calls' closures. A read of 16 × 16
//! chunks at a chunk boundary by `from_zarr_subset_async` with 64 requests in flight, by a
//! `SubsetReader` whose requests are tokio tasks, and by the blocking `from_zarr_subset`;
//! a write half a chunk off that touches 5 × 7 chunks, 20 of them in part (asked of the
//! store, which hands over owned copies made before each run), by `encode_zarr_subset_async`
//! and `encode_zarr_subset`; each call also with no latency. It prints the medians in ms and
//! each async call against its targets: within 1.25 × (the requests a chunk waits on in
//! turn × 20 ms) plus the blocking call with no latency, and 15 times as fast as the
//! blocking call with latency at least. Then, on the grid, chunks and subsets of the subset
//! rows (`--types` of the grid types, the subset's array in C and Fortran order, each run
//! from cold caches, one thread unless named): a `SubsetReader` of the half-off subset with
//! every chunk put in C order, or half of them from a second thread (`std::thread::scope`),
//! against `decode_zarr_subset_into` (targets: 0.9 of it, and 1.5 times the one thread),
//! beside `memcpy-prealloc` of the subset's bytes on one and on two threads, the bound of
//! what a second thread gains; a `SubsetWriter` asked to `encode` every chunk of the aligned
//! subset or to `encode_into` one buffer reused from chunk to chunk (targets: 0.9 of
//! `encode_zarr_subset`), beside a zeroed `Vec` of a chunk's length allocated, lent to the
//! sink and dropped per chunk (what `encode` allocates); and for the half-off subset to
//! `encode_into` one buffer the chunks it holds whole and `update` the others in the `Vec`s
//! they are stored in
//! (target: 0.85 of the aligned `encode_zarr_subset`), beside `encode_zarr_subset` of the
//! half-off subset with owned copies handed over, and the subset rows' `parts written into
//! the stored (bound)`. With the `rayon` feature every row runs in a pool of one thread.
//!
//! `--count encode:fortran:u8:big` (a direction, a layout of the main table, a type of
//! `--types` or `i8`, an endian) converts that one array once untimed, then once more
//! inside a function of its own, `counted`, and prints nothing else: an instruction
//! counter run on it counts that conversion alone, as `benches/instructions.sh` does with
//! callgrind (`--toggle-collect`) for the table of instructions per byte in
//! benches/NOTES.md. The array's size is `--size-mib` (2 in that table).
//!
//! `write_zarr_bytes` of a standard array whose bytes need no conversion hands its memory
//! to the sink in one call, so its row is call overhead and its ratio is huge.

use std::borrow::Cow;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Duration;

mod arrays;
mod cold;

use arrays::{
    Arrays, CHUNKS, GRIDS, Gridded, LAYOUTS, Sink, source, source_missing, touch, touch_lent,
};
use cold::Cold;

use std::sync::Mutex;

use ndarray::{Array2, ShapeBuilder};
use num_complex::Complex;
use zarr_bytes::{
    BytesDecode, BytesDecodeInto, BytesEncode, ChunkDecodeInto, ChunkEncode, ChunkGrid, ChunkPart,
    Element, Endian, SubsetReader, SubsetWriter,
};

const USAGE: &str = "usage: perf_table [--runs N] [--size-mib M] [--types T,U] [--layouts L,M] \
                     [--evict-mib M] [--planes N] [--grid-mib M] [--chunk-mib M] [--sparse] \
                     [--subsets] [--driven] [--quick] [--count DIRECTION:LAYOUT:TYPE:ENDIAN]";

/// The element types of the grid rows, in their order; the others of `--types` have none.
const GRID_TYPES: [&str; 3] = ["f64", "u16", "u8"];

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
    /// MiB per array of the grid rows; `None` for 4 × `size_mib`.
    grid_mib: Option<usize>,
    /// MiB per chunk of the grid rows.
    chunk_mib: usize,
    /// The grid layouts measured, in [`GRIDS`] order.
    grids: Vec<&'static str>,
    /// The sparse tables only.
    sparse: bool,
    /// The subset tables only.
    subsets: bool,
    /// The tables of the reader and writer the caller drives only.
    driven: bool,
    /// One conversion to count the instructions of, and nothing else.
    count: Option<Count>,
}

/// A conversion whose instructions are counted (`--count`).
struct Count {
    decode: bool,
    layout: &'static str,
    ty: String,
    endian: Endian,
}

impl std::str::FromStr for Count {
    type Err = String;

    fn from_str(s: &str) -> Result<Count, String> {
        let bad = || format!("--count needs DIRECTION:LAYOUT:TYPE:ENDIAN, not {s:?}");
        let [direction, layout, ty, endian] = s.split(':').collect::<Vec<_>>()[..] else {
            return Err(bad());
        };
        let decode = match direction {
            "encode" => false,
            "decode" => true,
            _ => {
                return Err(format!(
                    "--count: direction {direction:?} is encode or decode"
                ));
            }
        };
        let layout = LAYOUTS.into_iter().find(|&l| l == layout).ok_or_else(|| {
            format!(
                "--count: unknown layout {layout:?}; known: {}",
                LAYOUTS.join(", ")
            )
        })?;
        if !TYPES.contains(&ty) && ty != "i8" {
            return Err(format!(
                "--count: unknown type {ty:?}; known: {}, i8",
                TYPES.join(", ")
            ));
        }
        let endian = match endian {
            "little" => Endian::Little,
            "big" => Endian::Big,
            _ => return Err(format!("--count: endian {endian:?} is little or big")),
        };
        Ok(Count {
            decode,
            layout,
            ty: ty.to_string(),
            endian,
        })
    }
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        runs: 7,
        size_mib: 64,
        planes: 4,
        types: TYPES.iter().map(|t| t.to_string()).collect(),
        layouts: LAYOUTS.to_vec(),
        evict_mib: None,
        grid_mib: None,
        chunk_mib: 2,
        grids: GRIDS.iter().map(|&(g, _)| g).collect(),
        sparse: false,
        subsets: false,
        driven: false,
        count: None,
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
            "--grid-mib" => options.grid_mib = Some(number("--grid-mib", 1)?),
            "--chunk-mib" => options.chunk_mib = number("--chunk-mib", 1)?,
            "--quick" => options.size_mib = 4,
            "--sparse" => options.sparse = true,
            "--subsets" => options.subsets = true,
            "--driven" => options.driven = true,
            "--count" => {
                let value = args.next().ok_or("--count needs a value")?;
                options.count = Some(value.parse()?);
            }
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
                let grids = GRIDS.map(|(g, _)| g);
                if let Some(l) = asked
                    .iter()
                    .find(|l| !LAYOUTS.contains(l) && !grids.contains(l))
                {
                    return Err(format!(
                        "unknown layout {l:?}; known: {}, {}",
                        LAYOUTS.join(", "),
                        grids.join(", ")
                    ));
                }
                options.grids = grids.into_iter().filter(|g| asked.contains(g)).collect();
                // A chunk's row is read beside its whole array's.
                let whole = |l: &&str| CHUNKS.iter().any(|&(c, w)| w == *l && asked.contains(&c));
                options.layouts = LAYOUTS
                    .into_iter()
                    .filter(|l| asked.contains(l) || whole(l))
                    .collect();
            }
            "-h" | "--help" => return Err(String::new()),
            // What `cargo bench` passes to every bench target.
            "--bench" => {}
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
    let grid_mib = options.grid_mib();
    if options.grids.contains(&"3d-swapped-grid") && options.planes > (grid_mib << 20) / 16 / 4096 {
        return Err(format!(
            "--planes {} needs more than --grid-mib {grid_mib}",
            options.planes
        ));
    }
    Ok(options)
}

impl Options {
    /// MiB per array of the grid rows.
    fn grid_mib(&self) -> usize {
        self.grid_mib.unwrap_or(4 * self.size_mib)
    }

    /// The arrays of the grid rows.
    fn grid(&self) -> GridSize {
        GridSize {
            bytes: self.grid_mib() << 20,
            chunk_bytes: self.chunk_mib << 20,
            planes: self.planes,
            layouts: self.grids.clone(),
            types: GRID_TYPES
                .into_iter()
                .filter(|t| self.types.iter().any(|u| u == t))
                .collect(),
        }
    }
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

/// `--count`: the conversion once untimed (page faults, the library's buffers), then once
/// in [`counted`], then checked against the standard layout's bytes.
fn counted_path<T: Element + PartialEq>(size: &Size, count: &Count, value: fn(usize) -> T) {
    let (layout, endian) = (count.layout, count.endian);
    let mut arrays = Arrays::new(size.elements(T::SIZE), size.planes, value);
    let encoded = arrays.standard.to_zarr_bytes(endian);
    let mut out = vec![0u8; encoded.len()];
    let mut once = || {
        if count.decode {
            let mut view = arrays.view_mut(layout);
            view.decode_zarr_bytes_into(black_box(&encoded), endian)
        } else {
            let view = black_box(arrays.view(layout));
            view.encode_zarr_bytes_into(&mut out, endian)
        }
        .expect("the path converts");
        black_box(&mut out);
    };
    once();
    counted(&mut once);
    let right = if count.decode {
        arrays.view(layout).to_zarr_bytes(endian) == encoded
    } else {
        out == encoded
    };
    assert!(
        right,
        "--count: {layout} converted to other bytes than standard"
    );
}

/// The one conversion an instruction counter counts (`--count`), kept out of line so that
/// it can be named.
#[inline(never)]
fn counted(run: &mut dyn FnMut()) {
    run();
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
    println!(
        "| path | type | endian | chunk of | chunk GB/s | whole GB/s | chunk / whole | chunk / memcpy |"
    );
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

/// The arrays of the grid rows: about `bytes` bytes each, in chunks of `chunk_bytes`, the
/// stack of `planes` planes; the grid layouts and element types measured.
struct GridSize {
    bytes: usize,
    chunk_bytes: usize,
    planes: usize,
    layouts: Vec<&'static str>,
    types: Vec<&'static str>,
}

/// The grid rows of one element type and grid layout, from the same rounds.
struct GridRow {
    ty: &'static str,
    endian: &'static str,
    layout: &'static str,
    /// The array's, the chunks' and the grid's shapes, and where the edges are.
    shapes: String,
    /// GB/s of the array's bytes: `memcpy-prealloc`, then `encode_zarr_bytes_into`,
    /// `encode_zarr_chunks`, `decode_zarr_bytes_into`, `decode_zarr_chunks_into`, and for
    /// C order `row-copy back (bound)` (NaN for the other layouts).
    gbps: [f64; 6],
}

/// A grid layout's array and its chunks, and the buffers of the same array whole.
struct GridBuffers<T> {
    gridded: Gridded<T>,
    /// Every chunk encoded, in `ChunkGrid::indices` order.
    chunks: Vec<Vec<u8>>,
    /// The whole array encoded.
    encoded: Vec<u8>,
    /// The output of `encode_zarr_bytes_into` and of `memcpy-prealloc`.
    out: Vec<u8>,
}

/// `a × b × c`.
fn dims(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    dims.join(" × ")
}

/// The shapes of `gridded`'s array, chunks and grid, and its edge chunks: how many, along
/// which axes, how much of the last chunk along each is inside, and the padding they add.
fn describe<T: Element>(gridded: &Gridded<T>) -> String {
    let grid = &gridded.grid;
    let (shape, chunk) = (grid.array_shape(), grid.chunk_shape());
    let edges: Vec<String> = (0..shape.len())
        .filter(|&k| shape[k] % chunk[k] != 0)
        .map(|k| format!("axis {k}, {} of {}", shape[k] % chunk[k], chunk[k]))
        .collect();
    let inner: usize = (0..shape.len()).map(|k| shape[k] / chunk[k]).product();
    let array: usize = shape.iter().product::<usize>() * T::SIZE;
    let stored = grid.len() * chunk.iter().product::<usize>() * T::SIZE;
    let edges = if edges.is_empty() {
        "no edge chunks".to_string()
    } else {
        format!(
            "{} edge chunks ({}); padding {:.1} % of the array",
            grid.len() - inner,
            edges.join("; "),
            (stored - array) as f64 / array as f64 * 100.0
        )
    };
    format!(
        "array {} ({:.1} MiB), chunks {} ({:.2} MiB), grid {} ({} chunks); {edges}",
        dims(shape),
        array as f64 / (1 << 20) as f64,
        dims(chunk),
        (chunk.iter().product::<usize>() * T::SIZE) as f64 / (1 << 20) as f64,
        dims(grid.grid_shape()),
        grid.len(),
    )
}

/// Time the grid rows of one element type and grid layout, big endian: `memcpy-prealloc`,
/// the array whole, and every chunk of it, round-robin, each timed run from cold caches.
fn measure_grid<T: Element + PartialEq + bytemuck::Pod>(
    ty: &'static str,
    layout: &'static str,
    size: &GridSize,
    runs: usize,
    cold: &Cold,
    value: fn(usize) -> T,
) -> GridRow {
    let e = Endian::Big;
    let gridded = Gridded::new(layout, size.bytes, size.chunk_bytes, size.planes, value);
    let chunks = gridded.encode_chunks(e);
    gridded.check(&chunks, e);
    let encoded = gridded.array.to_zarr_bytes(e);
    let mut b = GridBuffers {
        out: vec![0; encoded.len()],
        encoded,
        chunks,
        gridded,
    };
    let bytes = b.out.len();
    let shapes = describe(&b.gridded);
    type GridRun<T> = Box<dyn Fn(&mut GridBuffers<T>)>;
    let c_order = b.gridded.array.is_standard_layout();
    let cases: [GridRun<T>; 6] = [
        Box::new(|b| {
            b.out.copy_from_slice(black_box(&b.encoded));
            black_box(&mut b.out);
        }),
        Box::new(move |b| {
            let view = black_box(&b.gridded.array).view();
            let result = view.encode_zarr_bytes_into(&mut b.out, e);
            black_box(&mut b.out);
            result.unwrap();
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = black_box(&b.gridded);
            array
                .encode_zarr_chunks(grid, T::zeroed(), e, touch)
                .unwrap();
        }),
        Box::new(move |b| {
            let array = &mut b.gridded.array;
            let result = array.decode_zarr_bytes_into(black_box(&b.encoded), e);
            black_box(array);
            result.unwrap();
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = &mut b.gridded;
            let chunks = source(grid, black_box(&b.chunks));
            let result = array.decode_zarr_chunks_into(grid, T::zeroed(), e, chunks);
            black_box(array);
            result.unwrap();
        }),
        // The memory traffic of decoding the chunks of a C-order array, without the codec:
        // each row of each chunk's part copied as bytes into its row of the array.
        Box::new(move |b| {
            let Gridded { array, grid } = &mut b.gridded;
            if !c_order {
                return;
            }
            let (cols, width) = (array.shape()[1], grid.chunk_shape()[1]);
            let memory = array.as_slice_mut().expect("C order");
            let memory: &mut [u8] = bytemuck::cast_slice_mut(memory);
            for (index, chunk) in grid.indices().zip(black_box(&b.chunks)) {
                let region = grid.region(&index).expect("an index of the grid");
                let n = region[1].len() * T::SIZE;
                for (k, r) in region[0].clone().enumerate() {
                    let at = (r * cols + region[1].start) * T::SIZE;
                    let from = k * width * T::SIZE;
                    memory[at..at + n].copy_from_slice(&chunk[from..from + n]);
                }
            }
            black_box(memory);
        }),
    ];
    // The untimed first round faults in every page and warms the allocator.
    for case in &cases {
        case(&mut b);
    }
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (case, times) in cases.iter().zip(&mut times) {
            times.push(cold.time(|| case(&mut b)));
        }
    }
    let mut gbps: Vec<f64> = times
        .into_iter()
        .map(|t| bytes as f64 / median(t).as_secs_f64().max(1e-12) / 1e9)
        .collect();
    if !c_order {
        gbps[5] = f64::NAN;
    }
    GridRow {
        ty,
        endian: if T::SIZE == 1 { "n/a" } else { e.as_str() },
        layout,
        shapes,
        gbps: gbps.try_into().expect("six cases"),
    }
}

/// The grid rows of every grid layout and type asked, one thread (the `rayon` feature's
/// pool is left to [`parallel_table`]).
fn grid_rows(size: &GridSize, runs: usize, cold: &Cold) -> Vec<GridRow> {
    let mut rows = Vec::new();
    for &ty in &size.types {
        for &layout in &size.layouts {
            rows.push(match ty {
                "f64" => measure_grid("f64", layout, size, runs, cold, |i| i as f64 * 0.5 - 1e6),
                "u16" => measure_grid("u16", layout, size, runs, cold, |i| i as u16),
                "u8" => measure_grid("u8", layout, size, runs, cold, |i| (i % 251) as u8),
                other => unreachable!("a type of GRID_TYPES, not {other}"),
            });
        }
    }
    rows
}

/// The grid rows: every chunk's path beside the same array whole, from the same rounds:
/// GB/s of both, the grid's over the whole array's, and the grid's ratio to memcpy.
fn grid_table(size: &GridSize, rows: &[GridRow]) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Every chunk of arrays of {} MiB in chunks of {} MiB (`encode_zarr_chunks`, \
         `decode_zarr_chunks_into`), beside the same array whole (`encode_zarr_bytes_into`, \
         `decode_zarr_bytes_into`), one thread, in the same rounds; GB/s of the array's bytes; \
         the sink reads one byte of each chunk and drops it, the source lends each chunk from \
         a `Vec` in grid order:",
        size.bytes >> 20,
        size.chunk_bytes >> 20
    );
    println!();
    for r in rows {
        println!("- {} {}: {}", r.layout, r.ty, r.shapes);
    }
    println!();
    println!(
        "| path | type | endian | layout | grid GB/s | whole GB/s | grid / whole | grid / memcpy |"
    );
    println!("|---|---|---|---|---:|---:|---:|---:|");
    for (path, grid, whole) in [
        ("encode_zarr_chunks", 2, 1),
        ("decode_zarr_chunks_into", 4, 3),
        ("row-copy back (bound)", 5, 3),
    ] {
        for r in rows.iter().filter(|r| !r.gbps[grid].is_nan()) {
            let (g, w, m) = (r.gbps[grid], r.gbps[whole], r.gbps[0]);
            println!(
                "| {path} | {} | {} | {} | {} | {} | {:.2} | {:.2} |",
                r.ty,
                r.endian,
                r.layout,
                rate(g),
                rate(w),
                g / w,
                g / m
            );
        }
    }
}

/// Chunks missing in the `from_zarr_chunks` rows: every tenth, in grid order.
const MISSING: usize = 10;

/// The rows of the sparse table, in its order: path, data, and the row each is read against
/// (the baseline of its ratio).
const SPARSE: [(&str, &str, usize); 10] = [
    (PREALLOC, "n/a", 0),
    (FRESH, "n/a", 1),
    ("sum of bytes", "fill", 0),
    ("is_zarr_fill", "fill", 2),
    ("encode_zarr_chunks", "fill", 0),
    ("encode_zarr_chunks_sparse", "fill", 4),
    ("encode_zarr_chunks", "dense", 0),
    ("encode_zarr_chunks_sparse", "dense", 6),
    ("from_elem + decode_zarr_chunks_into", "1/10 missing", 1),
    ("from_zarr_chunks", "1/10 missing", 8),
];

/// The rows of [`SPARSE`] whose ratios are the sparse paths' own, with the summary's
/// headings.
const SPARSE_RATIOS: [(usize, &str); 4] = [
    (5, "sparse / plain encode, fill-only"),
    (7, "sparse / plain encode, dense"),
    (3, "is_zarr_fill / sum"),
    (9, "from_zarr_chunks / (from_elem + decode)"),
];

/// The sparse rows of one element type and grid layout, from the same rounds.
struct SparseRow {
    ty: &'static str,
    endian: &'static str,
    layout: &'static str,
    /// GB/s of the array's bytes, one per row of [`SPARSE`].
    gbps: [f64; SPARSE.len()],
    /// The same array of 1 MiB and 256 KiB, warm: GB/s of `sum of bytes` and of
    /// `is_zarr_fill`.
    in_cache: Vec<(usize, f64, f64)>,
}

/// A grid layout's array, dense and of only the fill value, and what the sparse rows
/// convert them to and from.
struct SparseBuffers<T> {
    dense: Gridded<T>,
    /// The array of `dense`'s shape and layout holding only `fill`.
    fills: Gridded<T>,
    fill: T,
    /// Every chunk of `dense` encoded (edges padded with `fill`), in grid order.
    chunks: Vec<Vec<u8>>,
    /// `dense` encoded whole, and the output of `memcpy-prealloc`.
    encoded: Vec<u8>,
    out: Vec<u8>,
}

/// A wrapping sum of the bytes of `array`'s memory: a read pass, nothing else.
fn byte_sum<T: bytemuck::Pod>(array: &ndarray::ArrayD<T>) -> u8 {
    let memory = array.as_slice_memory_order().expect("one memory slice");
    bytemuck::cast_slice::<T, u8>(memory)
        .iter()
        .fold(0u8, |sum, &x| sum.wrapping_add(x))
}

/// Time the sparse rows of one element type and grid layout, big endian, round-robin,
/// each timed run from cold caches; then the fill test against the sum in cache.
fn measure_sparse<T: Element + PartialEq + bytemuck::Pod>(
    ty: &'static str,
    layout: &'static str,
    size: &GridSize,
    runs: usize,
    cold: &Cold,
    (value, fill): (fn(usize) -> T, T),
) -> SparseRow {
    use ndarray::ArrayD;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use zarr_bytes::ChunkDecode;

    let e = Endian::Big;
    let dense = Gridded::new(layout, size.bytes, size.chunk_bytes, size.planes, value);
    let chunks = dense.encode_chunks_padded(fill, e);
    let fills = dense.only(fill);
    let encoded = dense.array.to_zarr_bytes(e);
    let mut b = SparseBuffers {
        out: vec![0; encoded.len()],
        encoded,
        chunks,
        fills,
        dense,
        fill,
    };
    // The rows must do what they claim: the fill test tells the arrays apart, the sparse
    // encoding leaves out every chunk of the one and none of the other, and the two ways
    // to build an array from the chunks agree.
    assert!(b.fills.array.is_zarr_fill(fill) && !b.dense.array.is_zarr_fill(fill));
    for (g, lent) in [(&b.fills, 0), (&b.dense, b.dense.grid.len())] {
        let count = AtomicUsize::new(0);
        g.array
            .encode_zarr_chunks_sparse(&g.grid, fill, e, |index, bytes| {
                if let Some(bytes) = bytes {
                    assert!(bytes == b.chunks[arrays::chunk_position(&g.grid, index)]);
                    count.fetch_add(1, Ordering::Relaxed);
                }
                Ok::<(), zarr_bytes::Error>(())
            })
            .unwrap();
        assert_eq!(
            count.into_inner(),
            lent,
            "chunks lent by the sparse encoding"
        );
    }
    {
        let grid = &b.dense.grid;
        let chunks = || source_missing(grid, &b.chunks, MISSING);
        let mut filled = ArrayD::from_elem(grid.array_shape(), fill);
        filled
            .decode_zarr_chunks_into(grid, fill, e, chunks())
            .unwrap();
        let built = ArrayD::<T>::from_zarr_chunks(grid, fill, e, chunks()).unwrap();
        assert!(
            built == filled,
            "from_zarr_chunks and from_elem + decode differ"
        );
    }
    let bytes = b.out.len();

    type SparseRun<T> = Box<dyn Fn(&mut SparseBuffers<T>)>;
    let cases: [SparseRun<T>; SPARSE.len()] = [
        Box::new(|b| {
            b.out.copy_from_slice(black_box(&b.encoded));
            black_box(&mut b.out);
        }),
        Box::new(|b| {
            black_box(black_box(&b.encoded).to_vec());
        }),
        Box::new(|b| {
            black_box(byte_sum(black_box(&b.fills.array)));
        }),
        Box::new(|b| {
            assert!(black_box(&b.fills.array).is_zarr_fill(b.fill));
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = black_box(&b.fills);
            array.encode_zarr_chunks(grid, b.fill, e, touch).unwrap();
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = black_box(&b.fills);
            array
                .encode_zarr_chunks_sparse(grid, b.fill, e, touch_lent)
                .unwrap();
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = black_box(&b.dense);
            array.encode_zarr_chunks(grid, b.fill, e, touch).unwrap();
        }),
        Box::new(move |b| {
            let Gridded { array, grid } = black_box(&b.dense);
            array
                .encode_zarr_chunks_sparse(grid, b.fill, e, touch_lent)
                .unwrap();
        }),
        Box::new(move |b| {
            let grid = &b.dense.grid;
            let chunks = source_missing(grid, black_box(&b.chunks), MISSING);
            let mut array = ArrayD::from_elem(grid.array_shape(), b.fill);
            array
                .decode_zarr_chunks_into(grid, b.fill, e, chunks)
                .unwrap();
            black_box(array);
        }),
        Box::new(move |b| {
            let grid = &b.dense.grid;
            let chunks = source_missing(grid, black_box(&b.chunks), MISSING);
            black_box(ArrayD::<T>::from_zarr_chunks(grid, b.fill, e, chunks).unwrap());
        }),
    ];
    // The untimed first round faults in every page and warms the allocator.
    for case in &cases {
        case(&mut b);
    }
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (case, times) in cases.iter().zip(&mut times) {
            times.push(cold.time(|| case(&mut b)));
        }
    }
    let gbps: Vec<f64> = times
        .into_iter()
        .map(|t| bytes as f64 / median(t).as_secs_f64().max(1e-12) / 1e9)
        .collect();
    drop(b);
    let in_cache = [1 << 20, 256 << 10]
        .into_iter()
        .map(|bytes| {
            let fills = Gridded::new(layout, bytes, bytes / 4, size.planes, value).only(fill);
            let (sum, test) = fill_in_cache(&fills.array, fill, runs);
            (bytes, sum, test)
        })
        .collect();
    SparseRow {
        ty,
        endian: if T::SIZE == 1 { "n/a" } else { e.as_str() },
        layout,
        gbps: gbps.try_into().expect("a time per row"),
        in_cache,
    }
}

/// GB/s of `sum of bytes` and of `is_zarr_fill` of `fills`, an array of only `fill` small
/// enough to stay in cache: alternating batches of calls back to back, warm, the median
/// batch of `4 × runs` of each.
fn fill_in_cache<T: Element + bytemuck::Pod>(
    fills: &ndarray::ArrayD<T>,
    fill: T,
    runs: usize,
) -> (f64, f64) {
    use std::time::Instant;

    // About a millisecond a batch at tens of GB/s.
    let bytes = fills.len() * T::SIZE;
    let calls = ((32 << 20) / bytes).max(1);
    let batch = |run: &dyn Fn()| {
        let start = Instant::now();
        (0..calls).for_each(|_| run());
        start.elapsed()
    };
    let sum = || {
        black_box(byte_sum(black_box(fills)));
    };
    let test = || assert!(black_box(fills).is_zarr_fill(fill));
    batch(&sum);
    batch(&test);
    let (mut sums, mut tests) = (Vec::new(), Vec::new());
    for _ in 0..4 * runs {
        sums.push(batch(&sum));
        tests.push(batch(&test));
    }
    let gbps = |t: Vec<Duration>| (calls * bytes) as f64 / median(t).as_secs_f64() / 1e9;
    (gbps(sums), gbps(tests))
}

/// The sparse rows of every grid layout and type asked, one thread, with each type's fill
/// value: not zero, so that the arrays built from it are written memory.
fn sparse_rows(size: &GridSize, runs: usize, cold: &Cold) -> Vec<SparseRow> {
    let mut rows = Vec::new();
    for &ty in &size.types {
        for &layout in &size.layouts {
            let measure = |ty| match ty {
                "f64" => measure_sparse(
                    ty,
                    layout,
                    size,
                    runs,
                    cold,
                    (|i| i as f64 * 0.5 - 1e6, 42.5),
                ),
                "u16" => measure_sparse(ty, layout, size, runs, cold, (|i| i as u16, 0xa5a5)),
                "u8" => measure_sparse(ty, layout, size, runs, cold, (|i| (i % 251) as u8, 0xff)),
                other => unreachable!("a type of GRID_TYPES, not {other}"),
            };
            rows.push(measure(ty));
        }
    }
    rows
}

/// The sparse rows: every row of [`SPARSE`] with its ratio to its baseline, then the
/// sparse paths' ratios alone, then the fill test against the sum in cache.
fn sparse_table(size: &GridSize, rows: &[SparseRow]) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Chunks of only the fill value, from cold caches: the grid arrays ({} MiB in chunks \
         of {} MiB), dense and holding only a fill value (not zero); `from_*` rows build the \
         array (C order) from the dense array's chunks with every {MISSING}th missing. One \
         thread, in the same rounds; GB/s of the array's bytes; ratio: to the row named \
         as baseline:",
        size.bytes >> 20,
        size.chunk_bytes >> 20
    );
    println!();
    println!("| path | data | type | endian | layout | GB/s | ratio | baseline |");
    println!("|---|---|---|---|---|---:|---:|---|");
    let name = |k: usize| match SPARSE[k] {
        (path, "n/a", _) => path.to_string(),
        (path, data, _) => format!("{path} ({data})"),
    };
    for r in rows {
        for (k, &(path, data, base)) in SPARSE.iter().enumerate() {
            println!(
                "| {path} | {data} | {} | {} | {} | {} | {:.2} | {} |",
                r.ty,
                r.endian,
                r.layout,
                rate(r.gbps[k]),
                r.gbps[k] / r.gbps[base],
                name(base)
            );
        }
    }
    println!();
    println!("The sparse paths against the plain ones, from the rows above:");
    println!();
    let headings: Vec<&str> = SPARSE_RATIOS.iter().map(|&(_, h)| h).collect();
    println!("| type | layout | {} |", headings.join(" | "));
    println!("|---|---|{}", "---:|".repeat(headings.len()));
    for r in rows {
        let ratios: Vec<String> = SPARSE_RATIOS
            .iter()
            .map(|&(k, _)| format!("{:.2}", r.gbps[k] / r.gbps[SPARSE[k].2]))
            .collect();
        println!("| {} | {} | {} |", r.ty, r.layout, ratios.join(" | "));
    }
    println!();
    println!(
        "`is_zarr_fill` against `sum of bytes` in cache: the array of only the fill value \
         at 1 MiB and 256 KiB, calls back to back, warm:"
    );
    println!();
    println!("| type | layout | array | sum GB/s | is_zarr_fill GB/s | is_zarr_fill / sum |");
    println!("|---|---|---|---:|---:|---:|");
    for r in rows {
        for &(bytes, sum, test) in &r.in_cache {
            println!(
                "| {} | {} | {} KiB | {} | {} | {:.2} |",
                r.ty,
                r.layout,
                bytes >> 10,
                rate(sum),
                rate(test),
                test / sum
            );
        }
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
    use ndarray::{ShapeBuilder, s};

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

/// Encoding and decoding every chunk of a grid layout's array of `T` (big endian, see
/// [`measure_grid`]), the one array shared by both paths; with the array's bytes.
#[cfg(feature = "rayon")]
fn grid_paths<T: Element + PartialEq>(
    ty: &'static str,
    layout: &'static str,
    size: &GridSize,
    value: fn(usize) -> T,
) -> (usize, Vec<Path<'static>>) {
    use std::sync::{Arc, Mutex};

    let e = Endian::Big;
    let gridded = Gridded::new(layout, size.bytes, size.chunk_bytes, size.planes, value);
    let chunks = gridded.encode_chunks(e);
    gridded.check(&chunks, e);
    let bytes = gridded.array.len() * T::SIZE;
    let gridded = Arc::new(Mutex::new(gridded));
    let shared = Arc::clone(&gridded);
    let paths: Vec<Path<'static>> = vec![
        (
            "encode_zarr_chunks",
            ty,
            layout,
            Box::new(move || {
                let g = shared.lock().unwrap();
                drop(black_box(g.array.encode_zarr_chunks(
                    &g.grid,
                    T::zeroed(),
                    e,
                    touch,
                )))
            }),
        ),
        (
            "decode_zarr_chunks_into",
            ty,
            layout,
            Box::new(move || {
                let mut g = gridded.lock().unwrap();
                let Gridded { array, grid } = &mut *g;
                let chunks = source(grid, black_box(&chunks));
                drop(black_box(array.decode_zarr_chunks_into(
                    grid,
                    T::zeroed(),
                    e,
                    chunks,
                )))
            }),
        ),
    ];
    (bytes, paths)
}

/// With the `rayon` feature: each large path on a one-thread pool and on the global pool,
/// alternating in the same rounds as a memcpy of as many bytes into a preallocated buffer
/// (on the calling thread), each timed run from cold caches, with the speedup and the
/// pool's ratio to that memcpy. The paths of the main table unless `main` is false, then
/// the grid paths of `grid` ([`grid_paths`]).
#[cfg(feature = "rayon")]
fn parallel_table(bytes: usize, runs: usize, cold: &Cold, main: bool, grid: &GridSize) {
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
    // The memcpy of each row copies as many bytes as its path converts.
    let most = bytes.max(grid.bytes);
    let (from, mut copy) = (vec![1u8; most], vec![2u8; most]);
    let mut memcpy = |n: usize| {
        copy[..n].copy_from_slice(black_box(&from[..n]));
        black_box(&mut copy);
    };
    let mut paths: Vec<Path> = vec![
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
    // The paths of each type (or grid layout and type), with the bytes they convert, built
    // when their turn comes: the chunks' arrays are big.
    type Group<'g> = Box<dyn Fn() -> (usize, Vec<Path<'static>>) + 'g>;
    fn of<T: Element + Send + Sync>(
        ty: &'static str,
        bytes: usize,
        value: fn(usize) -> T,
    ) -> Vec<Path<'static>> {
        let mut paths = fortran_paths(ty, bytes, value);
        paths.extend(chunk_paths(ty, bytes, value));
        paths
    }
    let mut groups: Vec<Group<'_>> = vec![
        Box::new(|| (bytes, of("f64", bytes, |i| i as f64))),
        Box::new(|| (bytes, of("f32", bytes, |i| i as f32 * 0.25 - 1e3))),
        Box::new(|| (bytes, of("u16", bytes, |i| i as u16))),
        Box::new(|| (bytes, of("u8", bytes, |i| (i % 251) as u8))),
        Box::new(|| (bytes, of("bool", bytes, |i| i % 3 == 0))),
    ];
    if !main {
        paths.clear();
        groups.clear();
    }
    // The grid paths of each type and layout, one array at a time.
    for &ty in &grid.types {
        for &layout in &grid.layouts {
            groups.push(match ty {
                "f64" => {
                    Box::new(move || grid_paths("f64", layout, grid, |i| i as f64 * 0.5 - 1e6))
                }
                "u16" => Box::new(move || grid_paths("u16", layout, grid, |i| i as u16)),
                "u8" => Box::new(move || grid_paths("u8", layout, grid, |i| (i % 251) as u8)),
                other => unreachable!("a type of GRID_TYPES, not {other}"),
            });
        }
    }
    if groups.is_empty() && paths.is_empty() {
        return;
    }
    println!();
    println!(
        "Parallel conversion (feature `rayon`), big endian, {} threads vs 1; ratio: the \
         pool's GB/s over memcpy-prealloc's of as many bytes on one thread, in the same \
         rounds; the grid paths convert every chunk of the grid table's arrays ({} MiB in \
         chunks of {} MiB), each on one thread, the chunks spread over the pool:",
        rayon::current_num_threads(),
        grid.bytes >> 20,
        grid.chunk_bytes >> 20
    );
    println!();
    println!("| path | type | layout | 1 thread GB/s | pool GB/s | speedup | pool ratio |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut row = |bytes: usize, (path, ty, layout, mut run): Path| {
        let (mut single, mut pool, mut baseline) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            baseline.push(cold.time(|| memcpy(bytes)));
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
    paths.into_iter().for_each(|path| row(bytes, path));
    for group in groups {
        let (bytes, paths) = group();
        paths.into_iter().for_each(|path| row(bytes, path));
    }
}

/// Chunks per axis of the subsets of the subset rows: a subset of 8 × 8 chunks (128 MiB of
/// 2 MiB chunks), of a grid four times larger along each axis.
const SUBSET_CHUNKS: usize = 8;

/// The paths of the subset rows, in their order: the path, the subset, and the row each is
/// read against (the baseline of its ratio).
const SUBSET_PATHS: [(&str, &str, usize); 8] = [
    ("decode_zarr_chunks_into", "a grid of its own", 0),
    ("decode_zarr_subset_into", "aligned", 0),
    ("decode_zarr_subset_into", "half a chunk off", 1),
    ("encode_zarr_chunks_sparse", "a grid of its own", 3),
    ("encode_zarr_subset", "aligned", 3),
    ("encode_zarr_subset", "half a chunk off", 4),
    ("encode_zarr_subset", "half a chunk off, none stored", 4),
    (
        "parts written into the stored (bound)",
        "half a chunk off",
        5,
    ),
];

/// The rows of [`SUBSET_PATHS`] that write into chunks handed over by the store.
const STORED: [usize; 2] = [5, 7];

/// The subset rows of one element type and layout of the subset's array, from the same
/// rounds.
struct SubsetRow {
    ty: &'static str,
    endian: &'static str,
    layout: &'static str,
    /// Threads the chunks shared: 1, or the pool's.
    threads: usize,
    /// The grid's, the chunks' and the subsets' shapes.
    shapes: String,
    /// GB/s of the subset's bytes, in [`SUBSET_PATHS`] order.
    gbps: [f64; 8],
}

/// The grid, the chunks the subsets touch and the arrays of the subset rows.
struct SubsetBuffers<T> {
    /// The stored array's grid, four times the subset along each axis.
    grid: ChunkGrid,
    /// A grid of the subset's own shape, of the same chunks.
    own: ChunkGrid,
    /// The first chunk of the aligned subset along each axis.
    first: usize,
    /// The stored chunks from `first` along each axis, one more than the subset holds, in
    /// C order: what both subsets touch.
    chunks: Vec<Vec<u8>>,
    /// The arrays of the aligned subset and of the one half a chunk off: decoded into,
    /// then encoded from.
    aligned: Array2<T>,
    off: Array2<T>,
    /// The chunks the half-off subset holds in part, owned, made before each run: what a
    /// store hands over.
    owned: Mutex<Vec<Option<Vec<u8>>>>,
}

/// The place in [`SubsetBuffers::chunks`] of chunk `index` of the grid, of those from
/// `first` along each axis.
fn place(first: usize, index: &[usize]) -> usize {
    (index[0] - first) * (SUBSET_CHUNKS + 1) + (index[1] - first)
}

impl<T: Element> SubsetBuffers<T> {
    /// The place in `chunks` of chunk `index` of the grid.
    fn at(&self, index: &[usize]) -> usize {
        place(self.first, index)
    }

    /// Owned copies of the chunks the half-off subset holds in part, for the next run.
    fn refill(&self) {
        let last = self.first + SUBSET_CHUNKS;
        let mut owned = self.owned.lock().expect("no panic");
        for (k, slot) in owned.iter_mut().enumerate() {
            let (i, j) = (k / (SUBSET_CHUNKS + 1), k % (SUBSET_CHUNKS + 1));
            let edge = i == 0 || j == 0 || i + self.first == last || j + self.first == last;
            *slot = edge.then(|| self.chunks[k].clone());
        }
    }
}

/// Where the subsets of the subset rows lie and what decoding them gives, for one element
/// type and layout of the subset's array.
struct SubsetAt<T> {
    /// The subsets' shape.
    side: [usize; 2],
    /// The aligned subset's origin, and that of the one half a chunk off.
    origin: [usize; 2],
    off_origin: [usize; 2],
    /// The arrays the two subsets decode to.
    want_aligned: Array2<T>,
    want_off: Array2<T>,
    /// The grid's, the chunks' and the subsets' shapes.
    shapes: String,
    /// The chunks the half-off subset holds in part, by place in
    /// [`SubsetBuffers::chunks`], and the byte ranges of its part of each.
    parts: Vec<(usize, Vec<std::ops::Range<usize>>)>,
}

/// The grid, stored chunks and arrays of the subset rows (big endian), with the subset's
/// array in Fortran order or C order, its elements `value` of their C-order place in the
/// grid's array; shared by `--subsets` and `--driven`.
fn subset_buffers<T: Element>(
    fortran: bool,
    size: &GridSize,
    value: fn(usize) -> T,
) -> (SubsetBuffers<T>, SubsetAt<T>) {
    let e = Endian::Big;
    let (c0, c1) = arrays::shape2(size.chunk_bytes / T::SIZE);
    let side = [SUBSET_CHUNKS * c0, SUBSET_CHUNKS * c1];
    let grid = ChunkGrid::new(&[4 * side[0], 4 * side[1]], &[c0, c1]).expect("a grid");
    let own = ChunkGrid::new(&side, &[c0, c1]).expect("a grid");
    let first = SUBSET_CHUNKS;
    let cols = grid.array_shape()[1];
    let at = |r: usize, c: usize| value(r * cols + c);
    let mut chunks = Vec::new();
    for i in first..=first + SUBSET_CHUNKS {
        for j in first..=first + SUBSET_CHUNKS {
            let chunk = Array2::from_shape_fn((c0, c1), |(r, c)| at(i * c0 + r, j * c1 + c));
            chunks.push(chunk.to_zarr_bytes(e));
        }
    }
    let origin = [first * c0, first * c1];
    let off_origin = [origin[0] + c0 / 2, origin[1] + c1 / 2];
    let array = |start: [usize; 2]| {
        let shape = (side[0], side[1]);
        let values = |(r, c)| at(start[0] + r, start[1] + c);
        if fortran {
            Array2::from_shape_fn(shape.f(), values)
        } else {
            Array2::from_shape_fn(shape, values)
        }
    };
    let b = SubsetBuffers {
        aligned: array([0, 0]),
        off: array([0, 0]),
        grid,
        own,
        first,
        chunks,
        owned: Mutex::new(vec![None; (SUBSET_CHUNKS + 1) * (SUBSET_CHUNKS + 1)]),
    };
    let shapes = format!(
        "grid {} in chunks {}; subsets {} ({} MiB) at {} and {}",
        dims(b.grid.array_shape()),
        dims(b.grid.chunk_shape()),
        dims(&side),
        (side[0] * side[1] * T::SIZE) >> 20,
        dims(&origin),
        dims(&off_origin),
    );
    let parts: Vec<(usize, Vec<std::ops::Range<usize>>)> = b
        .grid
        .chunks_in(&[
            off_origin[0]..off_origin[0] + side[0],
            off_origin[1]..off_origin[1] + side[1],
        ])
        .expect("a subset of the grid")
        .filter_map(|index| {
            let region = b.grid.region(&index).expect("a chunk");
            let start = |k: usize| off_origin[k].max(region[k].start) - region[k].start;
            let end = |k: usize| (off_origin[k] + side[k]).min(region[k].end) - region[k].start;
            let part = [start(0)..end(0), start(1)..end(1)];
            let whole = part.iter().zip(&region).all(|(p, r)| p.len() == r.len());
            let ranges = zarr_bytes::region_byte_ranges::<T>(&[c0, c1], &part).expect("a part");
            (!whole).then(|| (place(first, &index), ranges))
        })
        .collect();
    let at = SubsetAt {
        side,
        origin,
        off_origin,
        want_aligned: array(origin),
        want_off: array(off_origin),
        shapes,
        parts,
    };
    (b, at)
}

/// Time the subset rows of one element type, big endian, with the subset's array in
/// Fortran order or C order: a subset of [`SUBSET_CHUNKS`] chunks a side at a chunk
/// boundary and half a chunk off, decoded and encoded, beside the same chunks as the whole
/// grid of an array of the subset's shape, round-robin, each timed run from cold caches.
fn measure_subsets<T: Element + PartialEq + bytemuck::Pod>(
    ty: &'static str,
    fortran: bool,
    size: &GridSize,
    runs: usize,
    cold: &Cold,
    value: fn(usize) -> T,
) -> SubsetRow {
    let e = Endian::Big;
    let (mut b, at) = subset_buffers(fortran, size, value);
    let SubsetAt {
        side,
        origin,
        off_origin,
        want_aligned,
        want_off,
        shapes,
        parts,
    } = at;
    let fill = T::zeroed();
    type SubsetRun<T> = Box<dyn Fn(&mut SubsetBuffers<T>)>;
    let cases: [SubsetRun<T>; 8] = [
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let source = |i: &[usize]| {
                let index = [i[0] + first, i[1] + first];
                Ok::<_, zarr_bytes::Error>(Some(&chunks[place(first, &index)][..]))
            };
            let result = b.aligned.decode_zarr_chunks_into(&b.own, fill, e, source);
            black_box(&mut b.aligned);
            result.unwrap();
        }),
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let source =
                |i: &[usize]| Ok::<_, zarr_bytes::Error>(Some(&chunks[place(first, i)][..]));
            let result = b
                .aligned
                .decode_zarr_subset_into(&b.grid, &origin, fill, e, source);
            black_box(&mut b.aligned);
            result.unwrap();
        }),
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let source =
                |i: &[usize]| Ok::<_, zarr_bytes::Error>(Some(&chunks[place(first, i)][..]));
            let result = b
                .off
                .decode_zarr_subset_into(&b.grid, &off_origin, fill, e, source);
            black_box(&mut b.off);
            result.unwrap();
        }),
        Box::new(move |b| {
            let array = black_box(&b.aligned);
            array
                .encode_zarr_chunks_sparse(&b.own, fill, e, touch_lent)
                .unwrap();
        }),
        Box::new(move |b| {
            let array = black_box(&b.aligned);
            let stored = |_: &[usize]| -> Result<Option<Vec<u8>>, zarr_bytes::Error> {
                unreachable!("an aligned subset holds every chunk whole")
            };
            array
                .encode_zarr_subset(&b.grid, &origin, fill, e, stored, touch_owned)
                .unwrap();
        }),
        Box::new(move |b| {
            let array = black_box(&b.off);
            let stored = |i: &[usize]| {
                let mut owned = b.owned.lock().expect("no panic");
                Ok::<_, zarr_bytes::Error>(owned[b.at(i)].take())
            };
            array
                .encode_zarr_subset(&b.grid, &off_origin, fill, e, stored, touch_owned)
                .unwrap();
        }),
        Box::new(move |b| {
            let array = black_box(&b.off);
            let stored = |_: &[usize]| Ok::<Option<Vec<u8>>, zarr_bytes::Error>(None);
            array
                .encode_zarr_subset(&b.grid, &off_origin, fill, e, stored, touch_owned)
                .unwrap();
        }),
        // The memory traffic of the stored chunks' update by itself: their part's bytes
        // written, as bytes, into the buffers the store hands over; then dropped.
        Box::new(move |b| parts_written(&b.owned, &parts)),
    ];
    // The untimed first round faults in every page and warms the allocator; the arrays
    // decoded must be the subsets, and the chunks written those stored.
    for (k, case) in cases.iter().enumerate() {
        if STORED.contains(&k) {
            b.refill();
        }
        case(&mut b);
    }
    assert!(
        b.aligned == want_aligned && b.off == want_off,
        "{ty}: decoded wrong"
    );
    b.refill();
    let written = Mutex::new(0usize);
    let check = |i: &[usize], bytes: Option<Cow<'_, [u8]>>| {
        assert!(
            bytes.as_deref() == Some(&b.chunks[b.at(i)][..]),
            "{ty}: chunk {i:?} written wrong"
        );
        *written.lock().expect("no panic") += 1;
        Ok::<_, zarr_bytes::Error>(())
    };
    let stored =
        |i: &[usize]| Ok::<_, zarr_bytes::Error>(b.owned.lock().expect("no panic")[b.at(i)].take());
    b.off
        .encode_zarr_subset(&b.grid, &off_origin, fill, e, stored, check)
        .unwrap();
    assert_eq!(
        *written.lock().expect("no panic"),
        (SUBSET_CHUNKS + 1).pow(2)
    );
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (k, (case, times)) in cases.iter().zip(&mut times).enumerate() {
            if STORED.contains(&k) {
                b.refill();
            }
            times.push(cold.time(|| case(&mut b)));
        }
    }
    let bytes = side[0] * side[1] * T::SIZE;
    let gbps: Vec<f64> = times
        .into_iter()
        .map(|t| bytes as f64 / median(t).as_secs_f64().max(1e-12) / 1e9)
        .collect();
    SubsetRow {
        ty,
        endian: if T::SIZE == 1 { "n/a" } else { e.as_str() },
        layout: if fortran { "fortran" } else { "standard" },
        threads: 1,
        shapes,
        gbps: gbps.try_into().expect("eight cases"),
    }
}

/// The subset rows of every grid type asked, the subset's array in C and Fortran order, on
/// one thread, and with the `rayon` feature on the pool too.
fn subset_rows(size: &GridSize, runs: usize, cold: &Cold) -> Vec<SubsetRow> {
    let rows = || {
        let mut rows = Vec::new();
        for &ty in &size.types {
            for fortran in [false, true] {
                rows.push(match ty {
                    "f64" => {
                        measure_subsets("f64", fortran, size, runs, cold, |i| i as f64 * 0.5 - 1e6)
                    }
                    "u16" => measure_subsets("u16", fortran, size, runs, cold, |i| i as u16),
                    "u8" => measure_subsets("u8", fortran, size, runs, cold, |i| (i % 251) as u8),
                    other => unreachable!("a type of GRID_TYPES, not {other}"),
                });
            }
        }
        rows
    };
    #[cfg(feature = "rayon")]
    {
        let mut all = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool")
            .install(rows);
        let threads = rayon::current_num_threads();
        all.extend(rows().into_iter().map(|r| SubsetRow { threads, ..r }));
        all
    }
    #[cfg(not(feature = "rayon"))]
    rows()
}

/// The subset rows: GB/s of each path, and its ratio to the row it is read against.
fn subset_table(size: &GridSize, rows: &[SubsetRow]) {
    println!();
    println!(
        "Subsets of {SUBSET_CHUNKS} × {SUBSET_CHUNKS} chunks of {} MiB, of a grid four times \
         larger along each axis, at a chunk boundary and half a chunk off on both axes \
         ({} chunks touched, {} of them in part), decoded into an array and encoded from it, \
         beside the same chunks as every chunk of a grid of the subset's own shape; GB/s of \
         the subset's bytes; the sink reads one byte of each chunk, the source lends each \
         chunk from a `Vec`, the store of the half-off write hands over owned copies of the \
         chunks it holds in part, made before each run (so from memory, not cache), or has \
         none of them:",
        size.chunk_bytes >> 20,
        (SUBSET_CHUNKS + 1).pow(2),
        (SUBSET_CHUNKS + 1).pow(2) - (SUBSET_CHUNKS - 1).pow(2),
    );
    println!();
    let mut seen = Vec::new();
    for r in rows {
        if !seen.contains(&r.ty) {
            seen.push(r.ty);
            println!("- {}: {}", r.ty, r.shapes);
        }
    }
    println!();
    println!("| path | subset | type | endian | array | threads | GB/s | ratio | against |");
    println!("|---|---|---|---|---|---:|---:|---:|---|");
    for r in rows {
        for (k, &(path, subset, against)) in SUBSET_PATHS.iter().enumerate() {
            let ratio = if against == k {
                "".to_string()
            } else {
                format!("{:.2}", r.gbps[k] / r.gbps[against])
            };
            let (against_path, against_subset, _) = SUBSET_PATHS[against];
            println!(
                "| {path} | {subset} | {} | {} | {} | {} | {} | {ratio} | {} |",
                r.ty,
                r.endian,
                r.layout,
                r.threads,
                rate(r.gbps[k]),
                if against == k {
                    "".to_string()
                } else {
                    format!("{against_path}, {against_subset}")
                },
            );
        }
    }
    let pool: Vec<&SubsetRow> = rows.iter().filter(|r| r.threads > 1).collect();
    if pool.is_empty() {
        return;
    }
    println!();
    println!("The pool against one thread, the same rows:");
    println!();
    println!("| path | subset | type | array | pool / one thread |");
    println!("|---|---|---|---|---:|");
    for p in pool {
        let one = rows
            .iter()
            .find(|r| r.threads == 1 && r.ty == p.ty && r.layout == p.layout)
            .expect("a row on one thread");
        for (k, &(path, subset, _)) in SUBSET_PATHS.iter().enumerate() {
            println!(
                "| {path} | {subset} | {} | {} | {:.2} |",
                p.ty,
                p.layout,
                p.gbps[k] / one.gbps[k]
            );
        }
    }
}

/// The paths of the driven rows, in their order: the path, the subset, the row each is
/// read against (the baseline of its ratio), and the target of that ratio (0: none).
const DRIVEN_PATHS: [(&str, &str, usize, f64); 12] = [
    ("decode_zarr_subset_into", "half a chunk off", 0, 0.0),
    (
        "SubsetReader, every chunk put in C order",
        "half a chunk off",
        0,
        0.9,
    ),
    (
        "SubsetReader, parts put from 2 threads",
        "half a chunk off",
        1,
        1.5,
    ),
    ("memcpy-prealloc of the subset's bytes (bound)", "", 3, 0.0),
    ("memcpy-prealloc, 2 threads (bound)", "", 3, 0.0),
    ("encode_zarr_subset", "aligned", 5, 0.0),
    ("SubsetWriter, every chunk encoded", "aligned", 5, 0.9),
    (
        "SubsetWriter, every chunk encoded into one reused buffer",
        "aligned",
        5,
        0.9,
    ),
    (
        "a zeroed `Vec` a chunk long per chunk (bound)",
        "aligned",
        6,
        0.0,
    ),
    (
        "SubsetWriter, encoded or updated in the caller's buffers",
        "half a chunk off",
        5,
        0.85,
    ),
    (
        "encode_zarr_subset, stored chunks handed over",
        "half a chunk off",
        5,
        0.0,
    ),
    (
        "parts written into the stored (bound)",
        "half a chunk off",
        9,
        0.0,
    ),
];

/// The rows of [`DRIVEN_PATHS`] whose store hands over owned chunks, made before each run.
const DRIVEN_STORED: [usize; 2] = [10, 11];

/// The driven rows of one element type and layout of the subset's array, from the same
/// rounds.
struct DrivenRow {
    ty: &'static str,
    endian: &'static str,
    layout: &'static str,
    /// The grid's, the chunks' and the subsets' shapes.
    shapes: String,
    /// GB/s of the subset's bytes, in [`DRIVEN_PATHS`] order.
    gbps: [f64; 12],
}

/// Time the driven rows of one element type, big endian, on the subsets, grid and chunks
/// of the subset rows ([`subset_buffers`]): a [`SubsetReader`] every chunk of the half-off
/// subset is put into, in C order on this thread, or half of them from a second thread,
/// against `decode_zarr_subset_into`; a [`SubsetWriter`] asked for every chunk of the
/// aligned subset, and for the half-off subset's, the chunks it holds in part updated in
/// the buffers they are stored in, against `encode_zarr_subset` of the aligned subset;
/// round-robin, each timed run from cold caches.
fn measure_driven<T: Element + PartialEq + bytemuck::Pod>(
    ty: &'static str,
    fortran: bool,
    size: &GridSize,
    runs: usize,
    cold: &Cold,
    value: fn(usize) -> T,
) -> DrivenRow {
    let e = Endian::Big;
    let (mut b, at) = subset_buffers(fortran, size, value);
    let SubsetAt {
        side,
        origin,
        off_origin,
        want_aligned,
        want_off,
        shapes,
        parts,
    } = at;
    b.aligned.assign(&want_aligned);
    let bytes = side[0] * side[1] * T::SIZE;
    // The memcpy rows' source (the aligned subset's memory) and destination.
    let copy = Mutex::new(vec![0u8; bytes]);
    let memcpy = move |b: &SubsetBuffers<T>, threads: usize| {
        let src: &[u8] =
            bytemuck::cast_slice(b.aligned.as_slice_memory_order().expect("one slice"));
        let mut dst = copy.lock().expect("no panic");
        let half = bytes.div_ceil(threads);
        std::thread::scope(|s| {
            let mut halves = src.chunks(half).zip(dst.chunks_mut(half));
            let (src, dst) = halves.next().expect("a half");
            for (src, dst) in halves {
                s.spawn(move || dst.copy_from_slice(src));
            }
            dst.copy_from_slice(src);
        });
        black_box(&mut dst[..]);
    };
    let fill = T::zeroed();
    type DrivenRun<T> = Box<dyn Fn(&mut SubsetBuffers<T>)>;
    let memcpy = std::sync::Arc::new(memcpy);
    let memcpy_two = memcpy.clone();
    let cases: [DrivenRun<T>; 12] = [
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let source =
                |i: &[usize]| Ok::<_, zarr_bytes::Error>(Some(&chunks[place(first, i)][..]));
            let result = b
                .off
                .decode_zarr_subset_into(&b.grid, &off_origin, fill, e, source);
            black_box(&mut b.off);
            result.unwrap();
        }),
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let reader = SubsetReader::new(b.off.view_mut(), &b.grid, &off_origin, fill, e);
            let reader = reader.unwrap();
            for part in reader.parts() {
                let chunk = &chunks[place(first, &part.index)];
                reader.put(&part.index, Some(chunk)).unwrap();
            }
            reader.finish().unwrap();
            black_box(&mut b.off);
        }),
        Box::new(move |b| {
            let (chunks, first) = (&b.chunks, b.first);
            let reader = SubsetReader::new(b.off.view_mut(), &b.grid, &off_origin, fill, e);
            let reader = reader.unwrap();
            let parts: Vec<ChunkPart> = reader.parts().collect();
            // Each thread a half in C order: its own rows of the subset.
            let (one, other) = parts.split_at(parts.len() / 2);
            let put = |parts: &[ChunkPart]| {
                for part in parts {
                    let chunk = &chunks[place(first, &part.index)];
                    reader.put(&part.index, Some(chunk)).unwrap();
                }
            };
            std::thread::scope(|s| {
                s.spawn(|| put(one));
                put(other);
            });
            reader.finish().unwrap();
            black_box(&mut b.off);
        }),
        Box::new(move |b| memcpy(b, 1)),
        Box::new(move |b| memcpy_two(b, 2)),
        Box::new(move |b| {
            let array = black_box(&b.aligned);
            let stored = |_: &[usize]| -> Result<Option<Vec<u8>>, zarr_bytes::Error> {
                unreachable!("an aligned subset holds every chunk whole")
            };
            array
                .encode_zarr_subset(&b.grid, &origin, fill, e, stored, touch_owned)
                .unwrap();
        }),
        Box::new(move |b| {
            let array = black_box(&b.aligned);
            let writer = SubsetWriter::new(array.view(), &b.grid, &origin, fill, e).unwrap();
            for part in writer.parts() {
                let bytes = writer.encode(&part.index).unwrap();
                touch_lent(&part.index, bytes.as_deref()).unwrap();
            }
        }),
        // The writer with the caller's own buffer for every chunk, as the blocking call
        // lends one.
        Box::new(move |b| {
            let array = black_box(&b.aligned);
            let writer = SubsetWriter::new(array.view(), &b.grid, &origin, fill, e).unwrap();
            let mut out = vec![0u8; b.chunks[0].len()];
            for part in writer.parts() {
                let fills = writer.encode_into(&part.index, &mut out).unwrap();
                touch_lent(&part.index, (!fills).then_some(&out[..])).unwrap();
            }
        }),
        // What `encode` allocates for each chunk, and nothing else: a `Vec` of zeros,
        // lent to the sink, dropped.
        Box::new(move |b| {
            for chunk in 0..SUBSET_CHUNKS * SUBSET_CHUNKS {
                let bytes = vec![0u8; b.chunks[chunk].len()];
                touch_lent(&[], Some(&bytes)).unwrap();
            }
        }),
        // The chunks held in part are updated where they are stored, with the values they
        // hold: the next run finds them as they were.
        Box::new(move |b| {
            let SubsetBuffers {
                grid,
                chunks,
                off,
                first,
                ..
            } = b;
            let array = black_box(&*off);
            let writer = SubsetWriter::new(array.view(), grid, &off_origin, fill, e).unwrap();
            let mut out = vec![0u8; chunks[0].len()];
            for part in writer.parts() {
                if part.whole {
                    let fills = writer.encode_into(&part.index, &mut out).unwrap();
                    touch_lent(&part.index, (!fills).then_some(&out[..])).unwrap();
                } else {
                    let chunk = &mut chunks[place(*first, &part.index)];
                    let fills = writer.update(&part.index, chunk).unwrap();
                    touch_lent(&part.index, (!fills).then_some(&chunk[..])).unwrap();
                }
            }
        }),
        Box::new(move |b| {
            let array = black_box(&b.off);
            let stored = |i: &[usize]| {
                let mut owned = b.owned.lock().expect("no panic");
                Ok::<_, zarr_bytes::Error>(owned[b.at(i)].take())
            };
            array
                .encode_zarr_subset(&b.grid, &off_origin, fill, e, stored, touch_owned)
                .unwrap();
        }),
        // The memory traffic of the stored chunks' update by itself: their part's bytes
        // written, as bytes, into buffers made before the run, as in the subset rows.
        Box::new(move |b| parts_written(&b.owned, &parts)),
    ];
    // The untimed first round faults in every page and warms the allocator; each reader
    // must fill the subset, from an array of zeros.
    for (k, case) in cases.iter().enumerate() {
        if DRIVEN_STORED.contains(&k) {
            b.refill();
        }
        if k < 3 {
            b.off.fill(T::zeroed());
        }
        case(&mut b);
        if k < 3 {
            assert!(
                b.off == want_off,
                "{ty}: {} decoded wrong",
                DRIVEN_PATHS[k].0
            );
        }
    }
    // The writers must make the chunks stored, and update a stored chunk's part alone:
    // here a copy whose part is scrambled first.
    let (c0, c1) = (b.grid.chunk_shape()[0], b.grid.chunk_shape()[1]);
    for (array, at) in [(&b.aligned, origin), (&b.off, off_origin)] {
        let writer = SubsetWriter::new(array.view(), &b.grid, &at, fill, e).unwrap();
        for part in writer.parts() {
            let stored = &b.chunks[b.at(&part.index)];
            let made = if part.whole {
                let mut chunk = vec![0xa5; stored.len()];
                assert!(!writer.encode_into(&part.index, &mut chunk).unwrap());
                assert!(
                    chunk == *stored,
                    "{ty}: chunk {:?} updated wrong",
                    part.index
                );
                writer.encode(&part.index).unwrap()
            } else {
                let mut chunk = stored.clone();
                let ranges = zarr_bytes::region_byte_ranges::<T>(&[c0, c1], &part.in_chunk);
                for r in ranges.expect("a part") {
                    chunk[r].fill(0xa5);
                }
                assert!(!writer.update(&part.index, &mut chunk).unwrap());
                Some(chunk)
            };
            assert!(
                made.as_deref() == Some(&stored[..]),
                "{ty}: chunk {:?} written wrong",
                part.index
            );
        }
    }
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (k, (case, times)) in cases.iter().zip(&mut times).enumerate() {
            if DRIVEN_STORED.contains(&k) {
                b.refill();
            }
            times.push(cold.time(|| case(&mut b)));
        }
    }
    let gbps: Vec<f64> = times
        .into_iter()
        .map(|t| bytes as f64 / median(t).as_secs_f64().max(1e-12) / 1e9)
        .collect();
    DrivenRow {
        ty,
        endian: if T::SIZE == 1 { "n/a" } else { e.as_str() },
        layout: if fortran { "fortran" } else { "standard" },
        shapes,
        gbps: gbps.try_into().expect("twelve cases"),
    }
}

/// The driven rows of every grid type asked, the subset's array in C and Fortran order.
fn driven_rows(size: &GridSize, runs: usize, cold: &Cold) -> Vec<DrivenRow> {
    let mut rows = Vec::new();
    for &ty in &size.types {
        for fortran in [false, true] {
            rows.push(match ty {
                "f64" => measure_driven("f64", fortran, size, runs, cold, |i| i as f64 * 0.5 - 1e6),
                "u16" => measure_driven("u16", fortran, size, runs, cold, |i| i as u16),
                "u8" => measure_driven("u8", fortran, size, runs, cold, |i| (i % 251) as u8),
                other => unreachable!("a type of GRID_TYPES, not {other}"),
            });
        }
    }
    rows
}

/// The driven rows: GB/s of each path, its ratio to the row it is read against, and that
/// ratio against its target.
fn driven_table(size: &GridSize, rows: &[DrivenRow]) {
    println!();
    println!(
        "The reader and writer the caller drives, on the subsets of the subset rows \
         ({SUBSET_CHUNKS} × {SUBSET_CHUNKS} chunks of {} MiB at a chunk boundary and half a \
         chunk off), on one thread unless named: the reader's chunks lent from a `Vec`, put in \
         C order, or half of them (in C order) from a second thread; the writer's chunks made \
         by `encode` lent to the sink (which reads one byte) and dropped, or, held in part, \
         updated by `update` in the `Vec` they are stored in, as they are, from memory; each \
         run from cold caches. The bounds: the subset's bytes copied on one thread and on \
         two; a zeroed `Vec` of a chunk's length allocated, lent and dropped for each chunk \
         of the aligned subset (the one reused buffer is lent the same way); the half-off \
         subset's parts of the chunks it holds in part \
         written as bytes into owned copies made before the run. GB/s of the subset's \
         bytes:",
        size.chunk_bytes >> 20,
    );
    println!();
    let mut seen = Vec::new();
    for r in rows {
        if !seen.contains(&r.ty) {
            seen.push(r.ty);
            println!("- {}: {}", r.ty, r.shapes);
        }
    }
    println!();
    println!("| path | subset | type | endian | array | GB/s | ratio | against | target |");
    println!("|---|---|---|---|---|---:|---:|---|---|");
    for r in rows {
        for (k, &(path, subset, against, target)) in DRIVEN_PATHS.iter().enumerate() {
            let ratio = r.gbps[k] / r.gbps[against];
            let (against_path, against_subset, _, _) = DRIVEN_PATHS[against];
            let (ratio, against, target) = if against == k {
                (String::new(), String::new(), String::new())
            } else {
                (
                    format!("{ratio:.2}"),
                    [against_path, against_subset]
                        .iter()
                        .filter(|s| !s.is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", "),
                    if target > 0.0 {
                        verdict(ratio >= target, format!("≥ {target:.2}"))
                    } else {
                        String::new()
                    },
                )
            };
            println!(
                "| {path} | {subset} | {} | {} | {} | {} | {ratio} | {against} | {target} |",
                r.ty,
                r.endian,
                r.layout,
                rate(r.gbps[k]),
            );
        }
    }
}

/// `target`, and whether it is met.
fn verdict(met: bool, target: String) -> String {
    format!("{target}: {}", if met { "met" } else { "missed" })
}

/// What every request of the latency rows' store waits, as an object store answers after
/// tens of milliseconds.
#[cfg(feature = "async")]
const LATENCY: Duration = Duration::from_millis(20);

/// Requests in flight in the async latency rows.
#[cfg(feature = "async")]
const IN_FLIGHT: usize = 64;

/// The chunks of the latency rows: 256 × 256 `f32`, 256 KiB.
#[cfg(feature = "async")]
const LATENCY_CHUNK: usize = 256;

/// Chunks per axis of the latency rows' read: 16 × 16 chunks (64 MiB) at a chunk boundary.
#[cfg(feature = "async")]
const READ_CHUNKS: usize = 16;

/// Chunks per axis the latency rows' write touches, half a chunk off on both axes: 5 × 7,
/// the 20 on its border in part.
#[cfg(feature = "async")]
const WRITE_CHUNKS: [usize; 2] = [5, 7];

/// Time a read and a write of an `f32` array (big endian) through a store in memory whose
/// every request (a chunk read, a chunk written) waits [`LATENCY`] or nothing: the async
/// calls with [`IN_FLIGHT`] requests pending on a tokio runtime, against the blocking calls
/// (the source and sink `std::thread::sleep`), and the target of each; round-robin, each
/// timed run from cold caches.
#[cfg(feature = "async")]
fn latency_table(runs: usize, cold: &Cold) {
    use zarr_bytes::{ChunkDecode, Error};

    let e = Endian::Big;
    let c = LATENCY_CHUNK;
    let first = READ_CHUNKS;
    let grid = ChunkGrid::new(&[3 * READ_CHUNKS * c; 2], &[c, c]).expect("a grid");
    let cols = grid.array_shape()[1];
    let value = move |r: usize, k: usize| (r * cols + k) as f32 * 0.25 - 1e3;
    // The store: the chunks of the read, which holds those of the write, in C order.
    let mut store = Vec::with_capacity(READ_CHUNKS * READ_CHUNKS);
    for i in first..first + READ_CHUNKS {
        for j in first..first + READ_CHUNKS {
            let chunk = Array2::from_shape_fn((c, c), |(r, k)| value(i * c + r, j * c + k));
            store.push(chunk.to_zarr_bytes(e));
        }
    }
    let store = &store;
    let at = move |index: &[usize]| (index[0] - first) * READ_CHUNKS + (index[1] - first);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let runtime = &runtime;

    // The read.
    let read = [
        first * c..(first + READ_CHUNKS) * c,
        first * c..(first + READ_CHUNKS) * c,
    ];
    let source = move |wait: bool| {
        move |index: &[usize]| {
            if wait {
                std::thread::sleep(LATENCY);
            }
            Ok::<_, Error>(Some(&store[at(index)][..]))
        }
    };
    let fetch = move |wait: bool| {
        move |index: Vec<usize>| {
            let bytes = &store[at(&index)][..];
            async move {
                if wait {
                    tokio::time::sleep(LATENCY).await;
                }
                Ok::<_, Error>(Some(bytes))
            }
        }
    };
    let (grid, read) = (&grid, &read);
    let blocking = move |wait: bool| {
        move || Array2::<f32>::from_zarr_subset(grid, read, 0.0, e, source(wait)).unwrap()
    };
    let driven = move |wait: bool| {
        move || {
            let read =
                Array2::<f32>::from_zarr_subset_async(grid, read, 0.0, e, IN_FLIGHT, fetch(wait));
            runtime.block_on(read).unwrap()
        }
    };
    // A `SubsetReader` driven by hand: each request a tokio task, under way as soon as it
    // is spawned, a new one spawned as each arrives, IN_FLIGHT pending; this thread puts
    // each chunk as it arrives, into an array allocated zeroed as `from_zarr_subset`'s.
    let tasks = move || {
        let side = READ_CHUNKS * c;
        let mut out = Array2::<f32>::zeros((side, side));
        let reader = SubsetReader::new(out.view_mut(), grid, &[first * c; 2], 0.0, e).unwrap();
        let mut parts = reader.parts().map(|part| part.index);
        let (sent, arrived) = std::sync::mpsc::channel();
        let request = |index: Vec<usize>| {
            let sent = sent.clone();
            runtime.spawn(async move {
                tokio::time::sleep(LATENCY).await;
                sent.send(index).expect("a receiver");
            });
        };
        let mut pending = 0;
        for index in parts.by_ref().take(IN_FLIGHT) {
            request(index);
            pending += 1;
        }
        while pending > 0 {
            let index = arrived.recv().expect("a sender");
            pending -= 1;
            if let Some(next) = parts.next() {
                request(next);
                pending += 1;
            }
            reader.put(&index, Some(&store[at(&index)])).unwrap();
        }
        drop(parts);
        reader.finish().unwrap();
        out
    };
    type Read<'a> = Box<dyn Fn() -> Array2<f32> + 'a>;
    let reads: [(&str, Read); 5] = [
        ("from_zarr_subset, no latency", Box::new(blocking(false))),
        (
            "from_zarr_subset_async, no latency",
            Box::new(driven(false)),
        ),
        (
            "from_zarr_subset_async, 20 ms a request",
            Box::new(driven(true)),
        ),
        (
            "SubsetReader, each request a tokio task, 20 ms a request",
            Box::new(tasks),
        ),
        (
            "from_zarr_subset, 20 ms a request",
            Box::new(blocking(true)),
        ),
    ];
    let want = Array2::from_shape_fn((READ_CHUNKS * c, READ_CHUNKS * c), |(r, k)| {
        value(first * c + r, first * c + k)
    });
    for (path, read) in &reads {
        assert!(read() == want, "{path}: decoded wrong");
    }

    // The write, half a chunk off: its values those stored, so that each chunk it makes
    // or updates is the one stored.
    let origin = [first * c + c / 2; 2];
    let shape = ((WRITE_CHUNKS[0] - 1) * c, (WRITE_CHUNKS[1] - 1) * c);
    let x = Array2::from_shape_fn(shape, |(r, k)| value(origin[0] + r, origin[1] + k));
    let writer = SubsetWriter::new(x.view(), grid, &origin, 0.0, e).expect("a writer");
    let parts: Vec<ChunkPart> = writer.parts().collect();
    let partial: Vec<usize> = parts
        .iter()
        .filter(|p| !p.whole)
        .map(|p| at(&p.index))
        .collect();
    drop(writer);
    // The chunks held in part as the store answers them: owned copies, made before each
    // run.
    let owned = Mutex::new(vec![None; store.len()]);
    let refill = || {
        let mut owned = owned.lock().expect("no panic");
        for &p in &partial {
            owned[p] = Some(store[p].clone());
        }
    };
    let (owned, x, origin) = (&owned, &x, &origin);
    let stored = move |wait: bool| {
        move |index: &[usize]| {
            if wait {
                std::thread::sleep(LATENCY);
            }
            Ok::<_, Error>(owned.lock().expect("no panic")[at(index)].take())
        }
    };
    let sink = move |wait: bool| {
        move |index: &[usize], bytes: Option<Cow<'_, [u8]>>| {
            if wait {
                std::thread::sleep(LATENCY);
            }
            touch_owned(index, bytes)
        }
    };
    let stored_async = move |wait: bool| {
        move |index: Vec<usize>| {
            let was = owned.lock().expect("no panic")[at(&index)].take();
            async move {
                if wait {
                    tokio::time::sleep(LATENCY).await;
                }
                Ok::<_, Error>(was)
            }
        }
    };
    let sink_async = move |wait: bool| {
        move |index: Vec<usize>, bytes: Option<Vec<u8>>| async move {
            if wait {
                tokio::time::sleep(LATENCY).await;
            }
            touch_lent(&index, bytes.as_deref())
        }
    };
    let blocking = move |wait: bool| {
        move || {
            x.encode_zarr_subset(grid, origin, 0.0, e, stored(wait), sink(wait))
                .unwrap()
        }
    };
    let driven = move |wait: bool| {
        move || {
            let write = x.encode_zarr_subset_async(
                grid,
                origin,
                0.0,
                e,
                IN_FLIGHT,
                stored_async(wait),
                sink_async(wait),
            );
            runtime.block_on(write).unwrap()
        }
    };
    type Write<'a> = Box<dyn Fn() + 'a>;
    let writes: [(&str, Write); 4] = [
        ("encode_zarr_subset, no latency", Box::new(blocking(false))),
        (
            "encode_zarr_subset_async, no latency",
            Box::new(driven(false)),
        ),
        (
            "encode_zarr_subset_async, 20 ms a request",
            Box::new(driven(true)),
        ),
        (
            "encode_zarr_subset, 20 ms a request",
            Box::new(blocking(true)),
        ),
    ];
    // The async write must ask for the chunks held in part and hand over the chunks
    // stored.
    refill();
    let written = Mutex::new(0);
    let check = |index: Vec<usize>, bytes: Option<Vec<u8>>| {
        assert!(
            bytes.as_deref() == Some(&store[at(&index)][..]),
            "chunk {index:?} written wrong"
        );
        *written.lock().expect("no panic") += 1;
        std::future::ready(Ok::<_, Error>(()))
    };
    let write =
        x.encode_zarr_subset_async(grid, origin, 0.0, e, IN_FLIGHT, stored_async(false), check);
    runtime.block_on(write).unwrap();
    assert_eq!(*written.lock().expect("no panic"), parts.len());
    assert!(owned.lock().expect("no panic").iter().all(Option::is_none));

    let mut read_times = vec![Vec::with_capacity(runs); reads.len()];
    let mut write_times = vec![Vec::with_capacity(runs); writes.len()];
    for _ in 0..runs {
        for ((_, read), times) in reads.iter().zip(&mut read_times) {
            times.push(cold.time(read));
        }
        for ((_, write), times) in writes.iter().zip(&mut write_times) {
            refill();
            times.push(cold.time(write));
        }
    }
    // Each path and the median of its runs, in ms.
    let medians = |paths: Vec<&'static str>, times: Vec<Vec<Duration>>| -> Vec<(&str, f64)> {
        let ms = times.into_iter().map(|t| median(t).as_secs_f64() * 1e3);
        paths.into_iter().zip(ms).collect()
    };
    let reads = medians(reads.iter().map(|r| r.0).collect(), read_times);
    let writes = medians(writes.iter().map(|w| w.0).collect(), write_times);

    let waves = (READ_CHUNKS * READ_CHUNKS).div_ceil(IN_FLIGHT);
    // A chunk held in part waits on two requests, one after the other: its read and its
    // write; every chunk of the write is in flight at once.
    let in_turn = 2 * parts.len().div_ceil(IN_FLIGHT);
    let latency = LATENCY.as_millis();
    println!();
    println!(
        "Latency: an `f32` array in chunks of {c} × {c} (256 KiB) in a store in memory whose \
         every request (a chunk read, a chunk written) waits {latency} ms (`tokio::time::sleep` \
         in the async calls' futures, {IN_FLIGHT} in flight, on a tokio multi-thread runtime; \
         `std::thread::sleep` in the blocking calls' closures), or nothing; one thread \
         decodes and encodes. Read: a subset of {READ_CHUNKS} × {READ_CHUNKS} chunks \
         (64 MiB) at a chunk boundary, {waves} waves of {IN_FLIGHT} requests. Write: a \
         subset of {} × {} ({} MiB) half a chunk off, {} chunks touched, {} of them in part \
         (read from the store, which hands over owned copies made before each run, and \
         updated). Medians of {runs} runs, in ms:",
        shape.0,
        shape.1,
        (shape.0 * shape.1 * 4) >> 20,
        parts.len(),
        partial.len(),
    );
    println!();
    println!("| path | ms |");
    println!("|---|---:|");
    for (path, ms) in reads.iter().chain(&writes) {
        println!("| {path} | {ms:.1} |");
    }
    println!();
    println!("| target | measured | bound | |");
    println!("|---|---:|---:|---|");
    within("read", waves, &reads, 2, 4);
    within("read", waves, &reads, 3, 4);
    within("write", in_turn, &writes, 2, 3);
}

/// The targets of the async call of row `driven` of the latency rows, for the `turns`
/// requests each chunk waits on in turn: within 1.25 × `turns` × [`LATENCY`] plus the
/// blocking call with no latency (row 0), and 15 times as fast as the blocking call with
/// latency (row `blocking`) at least.
#[cfg(feature = "async")]
fn within(what: &str, turns: usize, rows: &[(&str, f64)], driven: usize, blocking: usize) {
    let latency = LATENCY.as_secs_f64() * 1e3;
    let ((path, ms), base, slow) = (rows[driven], rows[0].1, rows[blocking].1);
    let bound = 1.25 * turns as f64 * latency + base;
    let within = verdict(ms <= bound, format!("{:.2} of the bound", ms / bound));
    println!(
        "| {what}: {path}, within 1.25 × {turns} × {latency} ms + the blocking call with no \
         latency | {ms:.1} ms | {bound:.1} ms | {within} |"
    );
    let faster = verdict(slow / ms >= 15.0, "≥ 15".into());
    println!(
        "| {what}: the blocking call at {latency} ms / {path} | {:.1} | 15 | {faster} |",
        slow / ms
    );
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
    if let Some(count) = &options.count {
        let size = Size {
            bytes,
            planes: options.planes,
            layouts: vec![count.layout],
        };
        match count.ty.as_str() {
            "f64" => counted_path(&size, count, |i| i as f64 * 0.5 - 1e6),
            "f32" => counted_path(&size, count, |i| i as f32 * 0.25 - 1e3),
            "u16" => counted_path(&size, count, |i| i as u16),
            "complex128" => {
                counted_path(&size, count, |i| Complex::new(i as f64, -(i as f64) * 0.25))
            }
            "u8" => counted_path(&size, count, |i| (i % 251) as u8),
            "i8" => counted_path(&size, count, |i| (i % 251) as i8),
            "bool" => counted_path(&size, count, |i| i % 3 == 0),
            other => unreachable!("checked type {other}"),
        }
        return ExitCode::SUCCESS;
    }
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

    let runs = options.runs;
    if options.subsets {
        let rows = subset_rows(&options.grid(), runs, &cold);
        subset_table(&options.grid(), &rows);
        return ExitCode::SUCCESS;
    }
    if options.driven {
        let grid = &options.grid();
        one_thread(|| {
            #[cfg(feature = "async")]
            latency_table(runs, &cold);
            #[cfg(not(feature = "async"))]
            {
                println!();
                println!("The latency rows need `--features async`.");
            }
            let rows = driven_rows(grid, runs, &cold);
            driven_table(grid, &rows);
        });
        return ExitCode::SUCCESS;
    }
    // Grid layouts only: the grid tables only; `--sparse`: the sparse tables only.
    let main = !options.layouts.is_empty() && !options.sparse;
    let grid = &options.grid();
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
    // The main and grid tables are single-threaded; the `rayon` feature adds a table of
    // its own.
    #[cfg(feature = "rayon")]
    fn one_thread<R: Send>(run: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool")
            .install(run)
    }
    #[cfg(not(feature = "rayon"))]
    fn one_thread<R>(run: impl FnOnce() -> R) -> R {
        run()
    }

    #[cfg(feature = "rayon")]
    let parallel = || parallel_table(bytes, runs, &cold, main, grid);
    #[cfg(not(feature = "rayon"))]
    let parallel = || ();
    if main {
        let rows = one_thread(table);
        println!();
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
    }
    if !options.sparse {
        let rows = one_thread(|| grid_rows(grid, runs, &cold));
        grid_table(grid, &rows);
    }
    let rows = one_thread(|| sparse_rows(grid, runs, &cold));
    sparse_table(grid, &rows);
    if !options.sparse {
        parallel();
    }
    ExitCode::SUCCESS
}

/// The memory traffic of the stored chunks' update by itself: each chunk's part, `ranges`
/// of the chunk at `at`, written as bytes into the buffer the store holds, then dropped.
fn parts_written(
    owned: &Mutex<Vec<Option<Vec<u8>>>>,
    parts: &[(usize, Vec<std::ops::Range<usize>>)],
) {
    let mut owned = owned.lock().expect("no panic");
    for (at, ranges) in parts {
        let mut chunk = owned[*at].take().expect("a stored chunk");
        for r in ranges {
            chunk[r.clone()].fill(0xa5);
        }
        black_box(&chunk);
    }
}

/// [`touch_lent`] for the subset rows (`encode_zarr_subset`), whose sink may be handed an
/// updated chunk owned: it is dropped there, as a store that takes it would free it later.
fn touch_owned(index: &[usize], bytes: Option<Cow<'_, [u8]>>) -> Result<(), zarr_bytes::Error> {
    touch_lent(index, bytes.as_deref())
}
