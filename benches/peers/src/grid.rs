//! The grid rows: one C-order `f32` array of `--grid-mib` MiB (8192 × 8192 for 256 MiB)
//! cut by a [`ChunkGrid`] into chunks of `--chunk-mib` MiB (1024 × 512 for 2 MiB), a whole
//! number of them along each axis (no edge chunks), big endian, element `i` of its C-order
//! stream the `f32` value of the whole arrays.
//!
//! Three layouts, each encoded and decoded by every impl:
//!
//! - `many chunks`: every chunk of the array. Encoding hands each chunk's bytes to a sink
//!   that keeps nothing (it reads the first byte and drops the `Vec`); decoding decodes
//!   every chunk, from a `Vec<Vec<u8>>` encoded before timing, into the existing array.
//! - `sparse`: the same array with 90 % of its chunks (all but every tenth in C order of
//!   the grid, positions 0, 10, 20, … holding data) only the fill value 0.0. Encoding
//!   leaves out the chunks of only the fill value; decoding makes a fresh array from the
//!   chunks stored, the others missing (filled with 0.0). GB/s counts the whole array.
//! - `subset`: a box of a quarter of the array (half of each axis, 4096 × 4096 of
//!   8192 × 8192) at half a chunk off the grid along each axis (origin 512, 256). Decoding
//!   reads the box from the stored chunks into an existing array; encoding writes another
//!   array of the box's shape into the stored chunks: the chunks it covers whole are
//!   encoded from it, the others read from the store (a clone of the stored `Vec`, as a
//!   store's read is a fresh buffer), updated and encoded; each handed to the sink. GB/s
//!   counts the box's bytes.
//!
//! The impls, per layout (see each function):
//!
//! - `zarr-bytes 1 core` and `zarr-bytes pool`: the crate's chunk calls
//!   (`encode_zarr_chunks`, `decode_zarr_chunks_into`, `encode_zarr_chunks_sparse`,
//!   `from_zarr_chunks`, `decode_zarr_subset_into`, `encode_zarr_subset`), on a pool of one thread
//!   and on the global pool;
//! - `naive byteorder` and `zarrs 0.23`: a loop over the chunks calling, per chunk, exactly
//!   the whole arrays' [`byteorder_encode`] / [`byteorder_decode`] and [`zarrs_encode`] /
//!   [`zarrs_decode`] on the chunk's view of the array, or into the chunk's region of it;
//! - `memcpy`: `copy_from_slice` of the same bytes (the row's `bytes`: the stored chunks'
//!   bytes one after the other) into a buffer allocated before.
//!
//! Every path is checked before timing: the chunks each encoding hands over must be the
//! crate's, byte for byte (every chunk once; for `sparse` the same chunks left out), and
//! every decoded array must equal the array it was encoded from.

use std::hint::black_box;
use std::ops::Range;
use std::sync::Mutex;
use std::time::Duration;

use ndarray::{Array2, ArrayD, ArrayViewD, ArrayViewMutD, Slice};
use zarr_bytes::{
    BytesDecode, ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, Endian, Error,
};

use crate::arrays::{self, chunk_position, touch, touch_lent, Gridded};
use crate::cold::Cold;
use crate::{
    byteorder_decode, byteorder_encode, report, time, zarrs_decode, zarrs_encode,
    zarrs_encode_sparse, Decode, Encode, Options, Peer, Pools, Row, Threads, Zarrs, BYTEORDER,
    MEMCPY, ONE_CORE, POOL, ZARRS,
};

/// The layouts of the grid rows, in output order.
const LAYOUTS: [&str; 3] = ["many chunks", "sparse", "subset"];

/// One chunk in this many holds data in the `sparse` array: positions 0, 10, 20, … of the
/// grid's C order; the others hold only the fill value.
const DATA_EVERY: usize = 10;

/// The fill value of every grid, the value of the `sparse` array's empty chunks.
const FILL: f32 = 0.0;

const E: Endian = Endian::Big;

/// Where the encoding paths hand each chunk: `Some(bytes)`, or `None` for a chunk of only
/// the fill value left out (`sparse` only).
trait Sink: Sync {
    /// A chunk in a `Vec` of its own.
    fn owned(&self, index: &[usize], bytes: Option<Vec<u8>>);
    /// A chunk lent for the call (the crate's `_sparse` and `_subset` sinks).
    fn lent(&self, index: &[usize], bytes: Option<&[u8]>);
}

/// The sink of the timed runs: it keeps nothing, reads the first byte of each chunk
/// (`arrays::touch`, `arrays::touch_lent`) and drops it.
struct Discard;

impl Sink for Discard {
    fn owned(&self, index: &[usize], bytes: Option<Vec<u8>>) {
        match bytes {
            Some(bytes) => touch(index, bytes).expect("touch keeps nothing"),
            None => touch_lent(index, None).expect("touch keeps nothing"),
        }
    }
    fn lent(&self, index: &[usize], bytes: Option<&[u8]>) {
        touch_lent(index, bytes).expect("touch keeps nothing");
    }
}

/// What a chunk's sink was handed, in the checks.
#[derive(Clone, PartialEq)]
enum Got {
    Nothing,
    LeftOut,
    Bytes(Vec<u8>),
    /// Handed over more than once.
    Again,
}

/// The sink of the checks: every chunk handed over, at its position in the grid's C order.
struct Keep<'g> {
    grid: &'g ChunkGrid,
    got: Mutex<Vec<Got>>,
}

impl<'g> Keep<'g> {
    fn new(grid: &'g ChunkGrid) -> Keep<'g> {
        Keep {
            grid,
            got: Mutex::new(vec![Got::Nothing; grid.len()]),
        }
    }

    fn put(&self, index: &[usize], got: Got) {
        let mut slots = self.got.lock().expect("no panic");
        let slot = &mut slots[chunk_position(self.grid, index)];
        *slot = if *slot == Got::Nothing {
            got
        } else {
            Got::Again
        };
    }

    fn into_inner(self) -> Vec<Got> {
        self.got.into_inner().expect("no panic")
    }
}

impl Sink for Keep<'_> {
    fn owned(&self, index: &[usize], bytes: Option<Vec<u8>>) {
        self.put(index, bytes.map_or(Got::LeftOut, Got::Bytes));
    }
    fn lent(&self, index: &[usize], bytes: Option<&[u8]>) {
        self.put(
            index,
            bytes.map_or(Got::LeftOut, |b| Got::Bytes(b.to_vec())),
        );
    }
}

/// The arrays and chunks of the grid rows.
struct GridState {
    grid: ChunkGrid,
    /// The dense array, C order: `many chunks` encodes it.
    array: ArrayD<f32>,
    /// `array` with all but every [`DATA_EVERY`]-th chunk set to [`FILL`].
    sparse: ArrayD<f32>,
    /// Where `many chunks` decodes: an array of the same shape, C order.
    target: ArrayD<f32>,
    /// The encoded chunks of `array`, in the grid's C order (from the crate): `many
    /// chunks` and `subset` decode them, `sparse` decodes every [`DATA_EVERY`]-th, and
    /// `subset` encodes into them.
    chunks: Vec<Vec<u8>>,
    /// The box of the `subset` rows, one range per axis.
    subset: Vec<Range<usize>>,
    /// Where `subset` decodes: an array of the box's shape, C order.
    box_target: ArrayD<f32>,
    /// What the `subset` rows write into the box: `-x` of the array's `x` at each place.
    patch: ArrayD<f32>,
    /// `memcpy`'s destination, allocated once: as long as the stored chunks.
    out: Vec<u8>,
    zarrs: Zarrs,
}

impl GridState {
    /// The origin of the box.
    fn origin(&self) -> Vec<usize> {
        self.subset.iter().map(|r| r.start).collect()
    }

    /// The stored chunk at `index`, as a store reads it: a `Vec` of its own.
    fn read(&self, index: &[usize]) -> Vec<u8> {
        self.chunks[chunk_position(&self.grid, index)].clone()
    }

    /// Whether chunk `index` holds data in the `sparse` array.
    fn has_data(&self, index: &[usize]) -> bool {
        chunk_position(&self.grid, index).is_multiple_of(DATA_EVERY)
    }
}

/// `array`'s view of `region`.
fn view<'a>(array: &'a ArrayD<f32>, region: &[Range<usize>]) -> ArrayViewD<'a, f32> {
    array.slice_each_axis(|axis| Slice::from(region[axis.axis.index()].clone()))
}

/// `array`'s mutable view of `region`.
fn view_mut<'a>(array: &'a mut ArrayD<f32>, region: &[Range<usize>]) -> ArrayViewMutD<'a, f32> {
    array.slice_each_axis_mut(|axis| Slice::from(region[axis.axis.index()].clone()))
}

/// Where chunk `region` and the box `subset` meet: the ranges in the box's coordinates and
/// in the chunk's, and whether the box holds the chunk whole.
fn overlap(
    region: &[Range<usize>],
    subset: &[Range<usize>],
) -> (Vec<Range<usize>>, Vec<Range<usize>>, bool) {
    let mut in_box = Vec::new();
    let mut in_chunk = Vec::new();
    for (r, s) in region.iter().zip(subset) {
        let (start, end) = (r.start.max(s.start), r.end.min(s.end));
        in_box.push(start - s.start..end - s.start);
        in_chunk.push(start - r.start..end - r.start);
    }
    let whole = in_chunk.iter().zip(region).all(|(c, r)| c.len() == r.len());
    (in_box, in_chunk, whole)
}

/// An encoding path of the grid rows, handing its chunks to the sink.
type GridEncode = fn(&GridState, &dyn Sink);
/// A decoding path of the grid rows: a fresh array, or `None` when it decodes into
/// `target`.
type GridDecode = fn(&mut GridState) -> Option<ArrayD<f32>>;

// many chunks

/// The crate: `encode_zarr_chunks` of the array, every chunk to the sink.
fn crate_chunks_encode(g: &GridState, sink: &dyn Sink) {
    g.array
        .encode_zarr_chunks(&g.grid, FILL, E, |index, bytes| {
            sink.owned(index, Some(bytes));
            Ok::<(), Error>(())
        })
        .expect("every chunk encodes");
}

/// The crate: `decode_zarr_chunks_into` the existing `target`, every chunk answered from
/// the stored `Vec`s (`arrays::source`).
fn crate_chunks_decode(g: &mut GridState) -> Option<ArrayD<f32>> {
    let source = arrays::source(&g.grid, &g.chunks);
    g.target
        .decode_zarr_chunks_into(&g.grid, FILL, E, source)
        .expect("every chunk decodes");
    None
}

/// A peer: per chunk, in the grid's C order, `encode` of the chunk's view of the array
/// (`naive byteorder`: `as_standard_layout()` of the view, then `BigEndian::write_f32_into`;
/// zarrs: `IntoArrayBytes` of the view, which copies it to C order, and the codec).
fn peer_chunks_encode(g: &GridState, sink: &dyn Sink, encode: Encode<f32>) {
    for index in g.grid.indices() {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        sink.owned(&index, Some(encode(&g.zarrs, view(&g.array, &region))));
    }
}

/// A peer: per chunk, `decode` of its stored bytes into the chunk's region of `target`
/// (`naive byteorder`: `BigEndian::read_f32_into` into a `Vec`, then `assign`; zarrs: the
/// codec and `FromArrayBytes`, then `assign`).
fn peer_chunks_decode(g: &mut GridState, decode: Decode<f32>) -> Option<ArrayD<f32>> {
    let chunk = g.grid.chunk_shape().to_vec();
    for (index, bytes) in g.grid.indices().zip(&g.chunks) {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        decode(
            &g.zarrs,
            bytes,
            &chunk,
            Some(view_mut(&mut g.target, &region)),
        );
    }
    None
}

// sparse

/// The crate: `encode_zarr_chunks_sparse` of the sparse array: its own fill test, and the
/// chunks of data lent to the sink.
fn crate_sparse_encode(g: &GridState, sink: &dyn Sink) {
    g.sparse
        .encode_zarr_chunks_sparse(&g.grid, FILL, E, |index, bytes| {
            sink.lent(index, bytes);
            Ok::<(), Error>(())
        })
        .expect("every chunk encodes");
}

/// `naive byteorder`: per chunk, `iter().all(|x| x.to_bits() == 0)` of its view (the fill
/// value's bits); `None` if so, else [`byteorder_encode`] of the view.
fn byteorder_sparse_encode(g: &GridState, sink: &dyn Sink) {
    for index in g.grid.indices() {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        let part = view(&g.sparse, &region);
        let bytes = if part.iter().all(|x| x.to_bits() == FILL.to_bits()) {
            None
        } else {
            Some(byteorder_encode(&g.zarrs, part))
        };
        sink.owned(&index, bytes);
    }
}

/// zarrs: per chunk, [`zarrs_encode_sparse`] of its view, what `store_chunk` does: zarrs'
/// own fill test (`ArrayBytes::is_fill_value`, public in 0.23) on the bytes of its
/// `IntoArrayBytes`, then the codec for the chunks of data.
fn zarrs_sparse_encode(g: &GridState, sink: &dyn Sink) {
    for index in g.grid.indices() {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        sink.owned(
            &index,
            zarrs_encode_sparse(&g.zarrs, view(&g.sparse, &region)),
        );
    }
}

/// The crate: `from_zarr_chunks`, the chunks without data answered `None` (missing, so
/// filled with 0.0), the others from the stored `Vec`s.
fn crate_sparse_decode(g: &mut GridState) -> Option<ArrayD<f32>> {
    let g = &*g;
    let source = |index: &[usize]| {
        let bytes = &g.chunks[chunk_position(&g.grid, index)];
        Ok::<_, Error>(g.has_data(index).then_some(&bytes[..]))
    };
    let array = ArrayD::<f32>::from_zarr_chunks(&g.grid, FILL, E, source);
    Some(array.expect("every chunk decodes"))
}

/// A peer: a fresh `ArrayD::zeros` of the array's shape (the fill value; fresh memory the
/// system hands over as zero pages), then `decode` of each chunk of data into its region.
fn peer_sparse_decode(g: &mut GridState, decode: Decode<f32>) -> Option<ArrayD<f32>> {
    let mut array = ArrayD::<f32>::zeros(g.grid.array_shape());
    let chunk = g.grid.chunk_shape();
    for (index, bytes) in g.grid.indices().zip(&g.chunks) {
        if g.has_data(&index) {
            let region = g.grid.region(&index).expect("a chunk of the grid");
            decode(&g.zarrs, bytes, chunk, Some(view_mut(&mut array, &region)));
        }
    }
    Some(array)
}

// subset

/// The crate: `encode_zarr_subset` of the patch at the box's origin: `stored` answers a
/// clone of each stored chunk the box holds in part (as a store's read would), the sink
/// is lent every chunk the box touches.
fn crate_subset_encode(g: &GridState, sink: &dyn Sink) {
    let stored = |index: &[usize]| Ok::<_, Error>(Some(g.read(index)));
    let sink = |index: &[usize], bytes: Option<std::borrow::Cow<'_, [u8]>>| {
        sink.lent(index, bytes.as_deref());
        Ok::<(), Error>(())
    };
    g.patch
        .encode_zarr_subset(&g.grid, &g.origin(), FILL, E, stored, sink)
        .expect("every chunk encodes");
}

/// A peer: per chunk the box touches, in C order: a chunk the box holds whole is `encode`d
/// from the patch's view of it; another is read from the store (a clone of the stored
/// `Vec`, as for the crate), `decode`d whole to a C-order array, the overlap `assign`ed
/// from the patch, and the chunk `encode`d; each handed to the sink.
fn peer_subset_encode(g: &GridState, sink: &dyn Sink, encode: Encode<f32>, decode: Decode<f32>) {
    let chunk = g.grid.chunk_shape();
    for index in g.grid.chunks_in(&g.subset).expect("a box of the array") {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        let (in_box, in_chunk, whole) = overlap(&region, &g.subset);
        let part = view(&g.patch, &in_box);
        let bytes = if whole {
            encode(&g.zarrs, part)
        } else {
            let stored = g.read(&index);
            let mut decoded = decode(&g.zarrs, &stored, chunk, None).expect("a fresh array");
            view_mut(&mut decoded, &in_chunk).assign(&part);
            encode(&g.zarrs, decoded.view())
        };
        sink.owned(&index, Some(bytes));
    }
}

/// The crate: `decode_zarr_subset_into` the existing `box_target`, each chunk the box
/// touches answered from the stored `Vec`s. Into an existing array, as `many chunks`
/// decodes: a fresh one costs every path the same page faults, which would hide the rest.
fn crate_subset_decode(g: &mut GridState) -> Option<ArrayD<f32>> {
    let source = arrays::source(&g.grid, &g.chunks);
    let origin = g.origin();
    g.box_target
        .decode_zarr_subset_into(&g.grid, &origin, FILL, E, source)
        .expect("every chunk decodes");
    None
}

/// A peer: per chunk the box touches, `decode` of the whole chunk to a C-order array, then
/// its overlap with the box `assign`ed into `box_target`.
fn peer_subset_decode(g: &mut GridState, decode: Decode<f32>) -> Option<ArrayD<f32>> {
    let array = &mut g.box_target;
    let chunk = g.grid.chunk_shape();
    for index in g.grid.chunks_in(&g.subset).expect("a box of the array") {
        let region = g.grid.region(&index).expect("a chunk of the grid");
        let (in_box, in_chunk, _) = overlap(&region, &g.subset);
        let bytes = &g.chunks[chunk_position(&g.grid, &index)];
        let decoded = decode(&g.zarrs, bytes, chunk, None).expect("a fresh array");
        view_mut(array, &in_box).assign(&view(&decoded, &in_chunk));
    }
    None
}

/// A path of the grid rows: its name, where it runs, its encoding and decoding.
type GridPath = (&'static str, Threads, GridEncode, GridDecode);

/// The paths of `layout`, in output order.
fn paths(layout: &str) -> [GridPath; 4] {
    let (crate_encode, crate_decode, byteorder, zarrs): (
        GridEncode,
        GridDecode,
        (GridEncode, GridDecode),
        (GridEncode, GridDecode),
    ) = match layout {
        "many chunks" => (
            crate_chunks_encode,
            crate_chunks_decode,
            (
                |g, sink| peer_chunks_encode(g, sink, byteorder_encode::<f32>),
                |g| peer_chunks_decode(g, byteorder_decode::<f32>),
            ),
            (
                |g, sink| peer_chunks_encode(g, sink, zarrs_encode::<f32>),
                |g| peer_chunks_decode(g, zarrs_decode::<f32>),
            ),
        ),
        "sparse" => (
            crate_sparse_encode,
            crate_sparse_decode,
            (byteorder_sparse_encode, |g| {
                peer_sparse_decode(g, byteorder_decode::<f32>)
            }),
            (zarrs_sparse_encode, |g| {
                peer_sparse_decode(g, zarrs_decode::<f32>)
            }),
        ),
        "subset" => (
            crate_subset_encode,
            crate_subset_decode,
            (
                |g, sink| {
                    peer_subset_encode(g, sink, byteorder_encode::<f32>, byteorder_decode::<f32>)
                },
                |g| peer_subset_decode(g, byteorder_decode::<f32>),
            ),
            (
                |g, sink| peer_subset_encode(g, sink, zarrs_encode::<f32>, zarrs_decode::<f32>),
                |g| peer_subset_decode(g, zarrs_decode::<f32>),
            ),
        ),
        _ => unreachable!("a layout of LAYOUTS"),
    };
    [
        (ONE_CORE, Threads::One, crate_encode, crate_decode),
        (POOL, Threads::Global, crate_encode, crate_decode),
        (BYTEORDER, Threads::Caller, byteorder.0, byteorder.1),
        (ZARRS, Threads::Caller, zarrs.0, zarrs.1),
    ]
}

/// The bytes a row of `layout` counts: the array's, or the box's.
fn row_bytes(g: &GridState, layout: &str) -> usize {
    let elements: usize = match layout {
        "subset" => g.subset.iter().map(|r| r.len()).product(),
        _ => g.grid.array_shape().iter().product(),
    };
    elements * size_of::<f32>()
}

/// `memcpy` of `n` bytes: the stored chunks, one after the other, copied into `out`.
fn memcpy(g: &mut GridState, n: usize) {
    let mut at = 0;
    for chunk in black_box(&g.chunks) {
        if at == n {
            break;
        }
        let k = chunk.len().min(n - at);
        g.out[at..at + k].copy_from_slice(&chunk[..k]);
        at += k;
    }
    black_box(&mut g.out);
}

/// The arrays, their chunks and the box, from the options' sizes.
fn state(options: &Options) -> Result<GridState, String> {
    let value = <f32 as Peer>::value;
    let (c0, c1) = arrays::shape2((options.chunk_mib << 20) / size_of::<f32>());
    let (rows, cols) = arrays::shape2((options.grid_mib << 20) / size_of::<f32>());
    // A whole number of chunks along each axis: no edge chunks.
    let (rows, cols) = (rows - rows % c0, cols - cols % c1);
    if rows == 0 || cols == 0 {
        return Err(format!(
            "--grid-mib {} holds no whole chunk of {c0} × {c1} (--chunk-mib {})",
            options.grid_mib, options.chunk_mib
        ));
    }
    let grid = ChunkGrid::new(&[rows, cols], &[c0, c1]).map_err(|e| e.to_string())?;
    let array = Array2::from_shape_fn((rows, cols), |(i, j)| value(i * cols + j)).into_dyn();
    let mut sparse = array.clone();
    for (at, index) in grid.indices().enumerate() {
        if !at.is_multiple_of(DATA_EVERY) {
            let region = grid.region(&index).expect("a chunk of the grid");
            view_mut(&mut sparse, &region).fill(FILL);
        }
    }
    // The crate's chunks of the array, checked to decode back to it (`arrays::Gridded`).
    let gridded = Gridded { array, grid };
    let chunks = gridded.encode_chunks(E);
    gridded.check(&chunks, E);
    let Gridded { array, grid } = gridded;
    // Half of each axis, half a chunk off the grid along each.
    let subset = vec![c0 / 2..c0 / 2 + rows / 2, c1 / 2..c1 / 2 + cols / 2];
    let patch = Array2::from_shape_fn((rows / 2, cols / 2), |(i, j)| {
        -array[[subset[0].start + i, subset[1].start + j]]
    })
    .into_dyn();
    Ok(GridState {
        target: ArrayD::zeros(array.shape()),
        box_target: ArrayD::zeros(subset.iter().map(|r| r.len()).collect::<Vec<_>>()),
        out: vec![0; chunks.iter().map(Vec::len).sum()],
        grid,
        array,
        sparse,
        chunks,
        subset,
        patch,
        zarrs: Zarrs::new::<f32>(),
    })
}

/// The chunks `layout`'s encoding must hand over, by position in the grid's C order, or
/// `None` where they are the crate's own (`subset`: the `zarr-bytes 1 core` path's).
fn expected(g: &GridState, layout: &str) -> Option<Vec<Got>> {
    let got = |at: usize, bytes: &Vec<u8>| match layout {
        "sparse" if !at.is_multiple_of(DATA_EVERY) => Got::LeftOut,
        _ => Got::Bytes(bytes.clone()),
    };
    (layout != "subset").then(|| {
        g.chunks
            .iter()
            .enumerate()
            .map(|(at, b)| got(at, b))
            .collect()
    })
}

/// Check the chunks the crate's `subset` encoding handed over, from which the other paths'
/// are checked: each chunk the box touches once, no other, each decoding to the array
/// with the patch in the box.
fn check_subset_write(g: &GridState, got: &[Got]) -> Result<(), String> {
    let touched: Vec<Vec<usize>> = g.grid.chunks_in(&g.subset).expect("a box").collect();
    for (index, got) in g.grid.indices().zip(got) {
        let what = format!("grid {ONE_CORE} subset: chunk {index:?}");
        let bytes = match got {
            Got::Bytes(bytes) if touched.contains(&index) => bytes,
            Got::Nothing if !touched.contains(&index) => continue,
            _ => return Err(format!("{what} handed over wrong")),
        };
        let region = g.grid.region(&index).expect("a chunk of the grid");
        let (in_box, in_chunk, _) = overlap(&region, &g.subset);
        let mut want = view(&g.array, &region).to_owned();
        view_mut(&mut want, &in_chunk).assign(&view(&g.patch, &in_box));
        let chunk = g.grid.chunk_shape();
        let decoded = ArrayD::<f32>::from_zarr_bytes(bytes, chunk, E);
        if !decoded.is_ok_and(|d| d == want) {
            return Err(format!("{what} holds other values than written"));
        }
    }
    Ok(())
}

/// Check every path of every layout (which also runs each once, untimed, where it is
/// timed): the chunks each encoding hands over must be the crate's, and every decoded
/// array the array encoded.
fn check(g: &mut GridState, pools: &Pools) -> Result<(), String> {
    for layout in LAYOUTS {
        let mut want = expected(g, layout);
        for (name, threads, encode, decode) in paths(layout) {
            let what = format!("grid {name} {layout}");
            let keep = Keep::new(&g.grid);
            pools.run(threads, || encode(g, &keep));
            let got = keep.into_inner();
            if want.is_none() {
                check_subset_write(g, &got)?;
            }
            let want = want.get_or_insert_with(|| got.clone());
            if let Some(at) = (0..want.len()).find(|&at| got[at] != want[at]) {
                let index = g.grid.indices().nth(at).expect("a position of the grid");
                return Err(format!(
                    "{what}: encoded chunk {index:?} unlike zarr_bytes{}",
                    match &got[at] {
                        Got::Nothing => " (not handed over)",
                        Got::LeftOut => " (left out)",
                        Got::Again => " (handed over twice)",
                        Got::Bytes(_) => "",
                    }
                ));
            }
            // Another value first, so that a path that writes nothing fails.
            g.target.fill(-1.0);
            g.box_target.fill(-1.0);
            let decoded = pools.run(threads, || decode(g));
            // Compared with `==`, not `assert_eq!`, so that a failure prints no megabytes.
            let same = match (layout, decoded) {
                ("many chunks", None) => g.target == g.array,
                ("sparse", Some(a)) => a == g.sparse,
                ("subset", None) => g.box_target == view(&g.array, &g.subset),
                _ => false,
            };
            if !same {
                return Err(format!("{what}: decoded to another array than was encoded"));
            }
        }
        let n = row_bytes(g, layout);
        memcpy(g, n);
        let mut at = 0;
        for chunk in &g.chunks {
            let k = chunk.len().min(n - at);
            if g.out[at..at + k] != chunk[..k] {
                return Err(format!("grid {MEMCPY} {layout}: copied other bytes"));
            }
            at += k;
        }
    }
    Ok(())
}

/// One timed case of the grid rows.
struct GridCase {
    name: &'static str,
    threads: Threads,
    direction: &'static str,
    layout: &'static str,
    run: Box<dyn Fn(&mut GridState) + Sync>,
}

/// Every timed case: per layout, `memcpy`, then each path encoding and decoding.
fn cases() -> Vec<GridCase> {
    let mut cases = Vec::new();
    for layout in LAYOUTS {
        cases.push(GridCase {
            name: MEMCPY,
            threads: Threads::Caller,
            direction: "n/a",
            layout,
            run: Box::new(move |g: &mut GridState| {
                let n = row_bytes(g, layout);
                memcpy(g, n);
            }),
        });
        for (name, threads, encode, decode) in paths(layout) {
            cases.push(GridCase {
                name,
                threads,
                direction: "encode",
                layout,
                run: Box::new(move |g: &mut GridState| encode(black_box(g), &Discard)),
            });
            cases.push(GridCase {
                name,
                threads,
                direction: "decode",
                layout,
                run: Box::new(move |g: &mut GridState| {
                    black_box(decode(black_box(g)));
                    black_box(&mut g.target);
                    black_box(&mut g.box_target);
                }),
            });
        }
    }
    cases
}

/// Check, then time the grid rows, round-robin, each run from cold caches, and print one
/// JSON line per case.
pub fn measure(options: &Options, cold: &Cold, pools: &Pools) -> Result<(), String> {
    eprintln!(
        "grid: building the f32 array of {} MiB in chunks of {} MiB",
        options.grid_mib, options.chunk_mib
    );
    let mut g = state(options)?;
    eprintln!(
        "grid: array {:?} in chunks {:?} ({} chunks), box {:?}; checking every path",
        g.grid.array_shape(),
        g.grid.chunk_shape(),
        g.grid.len(),
        g.subset
    );
    check(&mut g, pools)?;
    let cases = cases();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(options.runs); cases.len()];
    for run in 1..=options.runs {
        eprintln!("grid: run {run} of {}", options.runs);
        for (case, times) in cases.iter().zip(&mut times) {
            times.push(time(cold, pools, case.threads, &case.run, &mut g));
        }
    }
    for (case, times) in cases.iter().zip(times) {
        let row = Row {
            name: case.name,
            direction: case.direction,
            ty: "f32",
            layout: case.layout,
            threads: case.threads,
        };
        report(row, row_bytes(&g, case.layout), times);
    }
    Ok(())
}
