//! The chunk calls users read: one chunk, every chunk of a grid, or the chunks a subset of
//! a grid's array touches, as extension traits of ndarray's arrays. Each checks what it is
//! given and hands the work to the engine in `typed::grid`.

use std::borrow::Cow;
#[cfg(feature = "async")]
use std::future::Future;
use std::ops::Range;

use ndarray::{Array, ArrayBase, ArrayViewMut, Data, DataMut, Dimension, IxDyn};

use crate::check::{checked_len, checked_size};
use crate::element::{in_units, out_units};
use crate::typed::decode::zeroed;
use crate::typed::grid::engine::{self, Before, Source, Stored, unstored};
use crate::typed::grid::fill::{Fill, fill_bytes};
use crate::typed::grid::part::{Kind, check_part, chunk_len, corner, decode_part, encode_part};
use crate::typed::grid::sink::{Owned, Sink, Sparse};
use crate::typed::grid::subset::Subset;
#[cfg(feature = "async")]
use crate::typed::grid::{SubsetReader, SubsetWriter, concurrent};
use crate::{ChunkGrid, Element, Endian, Error};

/// Encode the chunks of a Zarr chunk grid: one chunk from the part of it inside the array,
/// or every chunk of an array.
///
/// Implemented for every [`ArrayBase`] of an [`Element`] type, owned or viewed, in any
/// memory layout. Edge chunks are stored at full size, as zarr-python and tensorstore store
/// them: the part inside the array fills the chunk's leading corner, and the fill value
/// the rest.
///
/// # Examples
///
/// ```
/// use ndarray::{s, Array2};
/// use zarr_bytes::{ChunkEncode, ChunkGrid, Endian};
///
/// let a = Array2::from_shape_fn((3, 5), |(i, j)| (10 * i + j) as u8);
/// let grid = ChunkGrid::new(a.shape(), &[2, 4])?;
/// // Chunk [1, 1] holds row 2, columns 4..5 of the array; the fill value the rest.
/// let region = grid.region(&[1, 1])?;
/// assert_eq!(region, [2..3, 4..5]);
/// let part = a.slice(s![2..3, 4..5]);
/// assert_eq!(part.encode_zarr_chunk(&[2, 4], 0xff, Endian::Little)?, [24, 255, 255, 255, 255, 255, 255, 255]);
///
/// // Every chunk at once, each handed to the sink with its index.
/// let stored = std::sync::Mutex::new(Vec::new());
/// a.encode_zarr_chunks(&grid, 0xff, Endian::Little, |index, bytes| {
///     stored.lock().unwrap().push((index.to_vec(), bytes));
///     Ok::<(), zarr_bytes::Error>(())
/// })?;
/// assert_eq!(stored.lock().unwrap().len(), 4);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub trait ChunkEncode {
    /// The element type.
    type Elem: Element;

    /// Encode `self`, the leading corner of a chunk of `chunk_shape` (the part of the chunk
    /// inside the array, [`ChunkGrid::region`]), as the whole chunk: `self`'s elements in
    /// their places, `fill` everywhere else.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for a chunk shape of another rank, [`Error::PartTooLarge`]
    /// where `self` is longer than the chunk, and [`Error::ShapeOverflow`] for a chunk
    /// larger than `isize::MAX` bytes.
    fn encode_zarr_chunk(
        &self,
        chunk_shape: &[usize],
        fill: Self::Elem,
        endian: Endian,
    ) -> Result<Vec<u8>, Error>;

    /// [`encode_zarr_chunk`](Self::encode_zarr_chunk) into a caller's buffer of exactly the
    /// chunk's encoded length.
    ///
    /// An edge chunk is encoded into the start of `out`, then its rows move to their places
    /// in the chunk, the last first, with the fill value between them: no memory beyond
    /// `out` and the scratch of [`encode_zarr_bytes_into`](crate::BytesEncode::encode_zarr_bytes_into).
    ///
    /// # Errors
    ///
    /// As [`encode_zarr_chunk`](Self::encode_zarr_chunk), and [`Error::BufferSize`] if
    /// `out` is not the chunk's length.
    fn encode_zarr_chunk_into(
        &self,
        out: &mut [u8],
        chunk_shape: &[usize],
        fill: Self::Elem,
        endian: Endian,
    ) -> Result<(), Error>;

    /// Encode every chunk of `grid`, whose array shape is `self`'s, and hand each to
    /// `sink` with its index: edge chunks padded with `fill`.
    ///
    /// With the `rayon` feature the chunks are encoded on the thread pool, so `sink` may be
    /// called from several threads at once, in any order; without it, in C order on the
    /// calling thread. Each chunk moves once, from its region of `self` into the `Vec`
    /// handed to `sink`. The first error stops the work (chunks not started are skipped)
    /// and is returned: `sink`'s own as it is.
    ///
    /// # Errors
    ///
    /// [`Error::GridShapeMismatch`] unless the grid's array shape is `self`'s,
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes (both before any
    /// chunk is encoded), and the first error `sink` returns.
    fn encode_zarr_chunks<E, F>(
        &self,
        grid: &ChunkGrid,
        fill: Self::Elem,
        endian: Endian,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Vec<u8>) -> Result<(), E> + Sync;

    /// Whether every element of `self` is `fill`, bit for bit: the test by which Zarr
    /// writers leave out a chunk.
    ///
    /// Elements compare by their bits, as zarrs and tensorstore compare them: `-0.0` is not
    /// the fill value `0.0`, a NaN is the fill value only with the same payload, and both
    /// parts of a complex number count. (zarr-python 3 takes every NaN for a NaN fill
    /// value, so it leaves out a chunk of NaNs of another payload, which then reads back as
    /// its fill value's NaN; this test keeps every bit.) Each element is read once, in
    /// memory order, and the test stops at the first that differs; an empty array is
    /// all fill.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::ChunkEncode;
    ///
    /// assert!(array![[0.0f64, 0.0], [0.0, 0.0]].t().is_zarr_fill(0.0));
    /// assert!(!array![0.0f64, -0.0].is_zarr_fill(0.0));
    /// let nan = f32::from_bits(0x7fc0_0001);
    /// assert!(!array![nan].is_zarr_fill(f32::NAN));
    /// ```
    #[must_use]
    fn is_zarr_fill(&self, fill: Self::Elem) -> bool;

    /// [`encode_zarr_chunks`](Self::encode_zarr_chunks), leaving out the chunks of only the
    /// fill value, as Zarr writers do by default: `sink` gets each chunk's index with
    /// `Some(bytes)`, or `None` when every element of the chunk's part inside the array is
    /// `fill` ([`is_zarr_fill`](Self::is_zarr_fill); an edge chunk's padding is the fill
    /// value by definition), for the caller to skip or erase.
    ///
    /// No bytes are made for a chunk left out. The bytes are lent for the call: each chunk
    /// is encoded into a buffer that the next chunk on the same thread reuses, so nothing
    /// is allocated or zeroed per chunk and the bytes are still in cache when the sink
    /// compresses them. Otherwise as `encode_zarr_chunks`: the pool, the order, the errors.
    ///
    /// # Errors
    ///
    /// As [`encode_zarr_chunks`](Self::encode_zarr_chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use ndarray::Array2;
    /// use zarr_bytes::{ChunkEncode, ChunkGrid, Endian};
    ///
    /// let mut a = Array2::<u16>::from_elem((4, 6), 7);
    /// a[[3, 5]] = 1;
    /// let grid = ChunkGrid::new(a.shape(), &[2, 4])?;
    /// let written = Mutex::new(Vec::new());
    /// a.encode_zarr_chunks_sparse(&grid, 7, Endian::Little, |index, bytes| {
    ///     if let Some(bytes) = bytes {
    ///         written.lock().unwrap().push((index.to_vec(), bytes.to_vec()));
    ///     }
    ///     Ok::<(), zarr_bytes::Error>(())
    /// })?;
    /// // Only the edge chunk [1, 1] holds data: columns 4..6, padded with the fill value.
    /// let written = written.into_inner().unwrap();
    /// assert_eq!(written, [(vec![1, 1], vec![7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 1, 0, 7, 0, 7, 0])]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    fn encode_zarr_chunks_sparse<E, F>(
        &self,
        grid: &ChunkGrid,
        fill: Self::Elem,
        endian: Endian,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Option<&[u8]>) -> Result<(), E> + Sync;

    /// Write `self` into the subset of `grid`'s array that starts at `origin` and has
    /// `self`'s shape, and hand each chunk the subset touches to `sink`: what Zarr writers
    /// store for an assignment to part of an array (zarr-python's `arr[1:3, 2:] = x`), the
    /// grid being the stored array's, of any size.
    ///
    /// A chunk whose part inside the array the subset holds whole is encoded straight from
    /// `self`, its padding `fill`, and `stored` is not asked for it. A chunk the subset
    /// holds in part is asked of `stored`: `Some(bytes)` is the chunk as stored
    /// (decompressed, owned), updated in place (the subset's elements are written, every
    /// other byte, padding included, stays as stored) and handed on; `None`, a missing
    /// chunk, starts as `fill`. `sink` gets each touched chunk once: `None` when its part
    /// inside the array then holds only `fill`, bit for bit ([`is_zarr_fill`](Self::is_zarr_fill)),
    /// for the caller to erase, else the chunk's bytes: a stored chunk updated in place as
    /// [`Cow::Owned`], the very `Vec` that `stored` answered (`into_owned` takes it without
    /// a copy), a chunk made from `self` as [`Cow::Borrowed`], lent from a buffer the next
    /// chunk reuses. Chunks the subset does not touch are neither asked for nor handed
    /// over. A caller that keeps every chunk (zarr-python's `write_empty_chunks=True`)
    /// stores a chunk of `fill` on `None`.
    ///
    /// Nothing is lost on an error: `stored` hands over its own copy of a chunk, and a
    /// chunk whose update fails is never handed to `sink`, so the caller's store then holds
    /// each chunk as it was or whole as written. Chunks handed over before the error stay
    /// written. To update chunks where the store keeps them, with no copy at all, drive a
    /// [`SubsetWriter`](crate::SubsetWriter).
    ///
    /// With the `rayon` feature the chunks go to the thread pool, a chunk's read, update
    /// and hand-over on one thread, so `stored` and `sink` may be called from several
    /// threads at once; without it, in C order on the calling thread. The first error stops
    /// the work (chunks not started are skipped) and is returned: `stored`'s and `sink`'s
    /// own as they are, the crate's as [`Error::InChunk`], which names the chunk.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an origin of another rank than the grid, or a grid of
    /// another rank than `self`; [`Error::SubsetOverflow`] where the origin plus `self`'s
    /// length does not fit `usize`; [`Error::RegionOutOfBounds`] where the subset reaches
    /// past the array; [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes
    /// (all before any chunk is asked for or encoded); [`Error::InChunk`] holding
    /// [`Error::LengthMismatch`] for a stored chunk of another length than a chunk's; and
    /// the first error `stored` or `sink` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::{collections::HashMap, sync::Mutex};
    /// use ndarray::array;
    /// use zarr_bytes::{ChunkEncode, ChunkGrid, Endian, Error};
    ///
    /// // A 4 × 4 array of u8 in chunks of 2 × 2, fill value 0, every chunk stored as 1s.
    /// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
    /// let store = Mutex::new(HashMap::new());
    /// for index in grid.indices() {
    ///     store.lock().unwrap().insert(index, vec![1u8; 4]);
    /// }
    /// let asked = Mutex::new(Vec::new());
    /// // Rows 1..4, columns 2..4: chunk [1, 1] whole, the second row of chunk [0, 1].
    /// let x = array![[9u8, 9], [0, 0], [0, 0]];
    /// x.encode_zarr_subset(&grid, &[1, 2], 0, Endian::Little, |index| {
    ///     asked.lock().unwrap().push(index.to_vec());
    ///     Ok::<_, Error>(store.lock().unwrap().get(index).cloned())
    /// }, |index, bytes| {
    ///     match bytes {
    ///         // An updated chunk comes back owned: no second copy.
    ///         Some(bytes) => store.lock().unwrap().insert(index.to_vec(), bytes.into_owned()),
    ///         None => store.lock().unwrap().remove(index), // only the fill value: erased
    ///     };
    ///     Ok(())
    /// })?;
    /// assert_eq!(asked.into_inner().unwrap(), [[0, 1]]);
    /// let store = store.into_inner().unwrap();
    /// assert_eq!(store[&vec![0, 1]], [1, 1, 9, 9]);
    /// assert!(!store.contains_key(&vec![1, 1]));
    /// # Ok::<(), Error>(())
    /// ```
    fn encode_zarr_subset<E, R, F>(
        &self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: Self::Elem,
        endian: Endian,
        stored: R,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        R: Fn(&[usize]) -> Result<Option<Vec<u8>>, E> + Sync,
        F: Fn(&[usize], Option<Cow<'_, [u8]>>) -> Result<(), E> + Sync;

    /// [`encode_zarr_subset`](Self::encode_zarr_subset) with up to `in_flight` requests
    /// pending at once, as object stores serve them (feature `async`).
    ///
    /// For each chunk the subset touches: one covered whole is encoded from `self`; any
    /// other is asked of `stored` (its bytes as stored, decompressed), updated in place,
    /// or made of the fill value where it is missing. Then `sink` gets it, owned, no copy
    /// made: `Some(bytes)`, or `None` for a chunk of only the fill value, to erase. Each
    /// chunk's `sink` follows its own update; chunks are under way in any order, at most
    /// `in_flight` at once, so at most about that many chunks are in memory. No runtime is
    /// named: the future runs on any executor, and is `Send` when the closures' futures
    /// are. The encoding runs on the thread that polls the future (with `rayon`, a large
    /// chunk's conversion may still be split across the pool).
    ///
    /// A chunk is handed to `sink` whole or not at all: the first error stops the work,
    /// pending requests are dropped, and a chunk whose `stored` or update failed is never
    /// handed over. Chunks handed over before the error stay written.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroInFlight`] for `in_flight` 0, the errors of
    /// [`SubsetWriter::new`](crate::SubsetWriter::new) and
    /// [`SubsetWriter::update`](crate::SubsetWriter::update), and the first error `stored`
    /// or `sink` returns, as it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::{collections::HashMap, sync::Mutex};
    /// use ndarray::Array2;
    /// use zarr_bytes::{ChunkEncode, ChunkGrid, Endian, Error};
    ///
    /// let grid = ChunkGrid::new(&[100, 100], &[10, 10])?;
    /// let store = Mutex::new(HashMap::<Vec<usize>, Vec<u8>>::new());
    /// let x = Array2::<u16>::from_elem((20, 15), 3);
    /// let write = x.encode_zarr_subset_async(&grid, &[5, 0], 0, Endian::Little, 32,
    ///     |index| { let was = store.lock().unwrap().get(&index).cloned(); async move { Ok::<_, Error>(was) } },
    ///     |index, bytes| {
    ///         match bytes {
    ///             Some(bytes) => store.lock().unwrap().insert(index, bytes),
    ///             None => store.lock().unwrap().remove(&index),
    ///         };
    ///         async { Ok(()) }
    ///     });
    /// futures_executor::block_on(write)?;
    /// assert_eq!(store.lock().unwrap().len(), 6); // rows 5..25, columns 0..15: 3 × 2 chunks
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[allow(clippy::too_many_arguments)]
    fn encode_zarr_subset_async<E, R, RF, K, KF>(
        &self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: Self::Elem,
        endian: Endian,
        in_flight: usize,
        stored: R,
        sink: K,
    ) -> impl Future<Output = Result<(), E>>
    where
        E: From<Error> + Send,
        R: Fn(Vec<usize>) -> RF,
        RF: Future<Output = Result<Option<Vec<u8>>, E>>,
        K: Fn(Vec<usize>, Option<Vec<u8>>) -> KF,
        KF: Future<Output = Result<(), E>>;
}

/// Decode a whole array from the chunks of a Zarr chunk grid: a constructor, as
/// [`BytesDecode`](crate::BytesDecode) is for one chunk.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array2};
/// use zarr_bytes::{ChunkDecode, ChunkGrid, Endian};
///
/// // A 3 × 3 array of u16 in chunks of 2 × 2; chunks [1, 0] and [1, 1] are missing.
/// let grid = ChunkGrid::new(&[3, 3], &[2, 2])?;
/// let a = Array2::<u16>::from_zarr_chunks(&grid, 7, Endian::Big, |index: &[usize]| {
///     Ok::<_, zarr_bytes::Error>(match index {
///         [0, 0] => Some([0, 1, 0, 2, 0, 4, 0, 5]),
///         [0, 1] => Some([0, 3, 0, 0, 0, 6, 0, 0]),
///         _ => None,
///     })
/// })?;
/// assert_eq!(a, array![[1, 2, 3], [4, 5, 6], [7, 7, 7]]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub trait ChunkDecode: Sized {
    /// The element type.
    type Elem: Element;

    /// The array of `grid`'s array shape, chunk by chunk: `source(index)` answers each
    /// chunk's bytes, decoded straight into the chunk's region, or `None` for a missing
    /// chunk, whose region then holds `fill`.
    ///
    /// The array is allocated zeroed (memory the system hands over as zero pages, not
    /// written by the allocator), and each element is written once: from its chunk's
    /// bytes, or as `fill`. The pool, the order of the calls and the errors are those of
    /// [`decode_zarr_chunks_into`](ChunkDecodeInto::decode_zarr_chunks_into).
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for a grid of another rank than the array type,
    /// [`Error::ShapeOverflow`] for an array or chunk larger than `isize::MAX` bytes (both
    /// before anything is allocated or read), and the errors of
    /// [`decode_zarr_chunks_into`](ChunkDecodeInto::decode_zarr_chunks_into).
    fn from_zarr_chunks<E, F, B>(
        grid: &ChunkGrid,
        fill: Self::Elem,
        endian: Endian,
        source: F,
    ) -> Result<Self, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync;

    /// The subset `subset` (one range per axis) of `grid`'s array, chunk by chunk:
    /// `source(index)` answers the bytes of each chunk the subset touches, and of no other,
    /// or `None` for a missing chunk, whose part then holds `fill`. What Zarr readers return
    /// for part of an array (zarr-python's `arr[1:3, 2:]`), the grid being the stored
    /// array's, of any size.
    ///
    /// Of each chunk only the bytes of its part in the subset are read, decoded straight
    /// into their place in the result; the stored bytes must be the whole chunk's length.
    /// The result is allocated zeroed and each element is written once. The pool, the
    /// order of the calls and the errors are those of
    /// [`decode_zarr_subset_into`](ChunkDecodeInto::decode_zarr_subset_into).
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for a subset of another rank than the grid or the array
    /// type; [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`] for ranges that are
    /// no box of the array; [`Error::ShapeOverflow`] for a subset or chunk larger than
    /// `isize::MAX` bytes (all before anything is allocated or read); and the errors of
    /// [`decode_zarr_subset_into`](ChunkDecodeInto::decode_zarr_subset_into).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use zarr_bytes::{ChunkDecode, ChunkGrid, Endian, Error};
    ///
    /// // A 2^40 × 2^40 array in chunks of 1000 × 1000 `u16`, each element 7 but chunk [0, 1].
    /// let grid = ChunkGrid::new(&[1 << 40, 1 << 40], &[1000, 1000])?;
    /// let chunk = |index: &[usize]| -> Result<Option<Vec<u8>>, Error> {
    ///     Ok((index != [0, 1]).then(|| [7u8, 0].repeat(1000 * 1000)))
    /// };
    /// // Rows 999..1001, columns 998..1001: four chunks, one of them missing.
    /// let a = Array2::<u16>::from_zarr_subset(&grid, &[999..1001, 998..1001], 0, Endian::Little, chunk)?;
    /// assert_eq!(a, array![[7, 7, 0], [7, 7, 7]]);
    /// # Ok::<(), Error>(())
    /// ```
    fn from_zarr_subset<E, F, B>(
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill: Self::Elem,
        endian: Endian,
        source: F,
    ) -> Result<Self, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync;

    /// [`from_zarr_subset`](Self::from_zarr_subset) with up to `in_flight` requests pending
    /// at once, as object stores serve them (feature `async`): S3, GCS and HTTP answer
    /// each request after tens of milliseconds, so throughput comes from many in flight.
    ///
    /// `fetch(index)` answers a chunk's bytes, or `None` for a missing chunk. Requests
    /// start in C order of the chunks, a new one as soon as one finishes, never more than
    /// `in_flight` pending; each chunk is decoded into its part of the result as it
    /// arrives, and dropped, so at most about `in_flight` fetched chunks are alive at once.
    /// No runtime is named: the future runs on any executor, and is `Send` when `fetch`'s
    /// futures and `B` are. Decoding runs on the thread that polls the future (with
    /// `rayon`, a large chunk's conversion may still be split across the pool); to decode
    /// on many threads, drive a [`SubsetReader`](crate::SubsetReader) yourself.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroInFlight`] for `in_flight` 0; the errors of
    /// [`from_zarr_subset`](Self::from_zarr_subset); and the first error `fetch` returns,
    /// as it is. The first error stops the work and drops the pending requests.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use zarr_bytes::{ChunkDecode, ChunkGrid, Endian, Error};
    ///
    /// // An object store's `get`, as `object_store` or an HTTP client answers it.
    /// async fn get(key: String) -> Result<Option<Vec<u8>>, Error> {
    ///     Ok((key != "c/1/1").then(|| [7u8, 0].repeat(4)))
    /// }
    /// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
    /// let read = Array2::<u16>::from_zarr_subset_async(&grid, &[1..3, 1..4], 0, Endian::Little, 64, |index| {
    ///     get(format!("c/{}/{}", index[0], index[1]))
    /// });
    /// let a = futures_executor::block_on(read)?;
    /// assert_eq!(a, array![[7, 7, 7], [7, 0, 0]]);
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    fn from_zarr_subset_async<E, F, Fut, B>(
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill: Self::Elem,
        endian: Endian,
        in_flight: usize,
        fetch: F,
    ) -> impl Future<Output = Result<Self, E>>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: Future<Output = Result<Option<B>, E>>;
}

/// Decode the chunks of a Zarr chunk grid into an existing array of any layout: one chunk
/// into the part of it inside the array, or every chunk of an array.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array2, ShapeBuilder};
/// use zarr_bytes::{ChunkDecodeInto, ChunkGrid, Endian};
///
/// // A 3 × 3 array of u16 in chunks of 2 × 2; chunk [1, 0] is missing.
/// let grid = ChunkGrid::new(&[3, 3], &[2, 2])?;
/// let chunks = |index: &[usize]| -> Result<Option<Vec<u8>>, zarr_bytes::Error> {
///     Ok(match index {
///         [0, 0] => Some(vec![0, 1, 0, 2, 0, 4, 0, 5]),
///         [0, 1] => Some(vec![0, 3, 0, 0, 0, 6, 0, 0]), // an edge chunk: its padding is not read
///         [1, 1] => Some(vec![0, 9, 0, 0, 0, 0, 0, 0]),
///         _ => None,
///     })
/// };
/// let mut a = Array2::<u16>::zeros((3, 3).f());
/// a.decode_zarr_chunks_into(&grid, 7, Endian::Big, chunks)?;
/// assert_eq!(a, array![[1, 2, 3], [4, 5, 6], [7, 7, 9]]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub trait ChunkDecodeInto {
    /// The element type.
    type Elem: Element;

    /// Fill `self`, the leading corner of a chunk of `chunk_shape` (the part of the chunk
    /// inside the array), from the whole chunk's `bytes`, reading only the bytes of that
    /// corner: the padding of an edge chunk is neither read nor checked.
    ///
    /// An edge chunk whose corner is not one run of the bytes is gathered through a buffer
    /// of at most 256 KiB (or one index of its first axis, if more), then decoded as [`decode_zarr_bytes_into`](crate::BytesDecodeInto::decode_zarr_bytes_into)
    /// does; offsets in errors are the chunk's.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] and [`Error::PartTooLarge`] for a `self` that is no corner of
    /// the chunk, [`Error::LengthMismatch`] for bytes of another length than the chunk's
    /// (before anything is written), and [`Error::InvalidBool`] for an invalid `bool` byte
    /// of the corner.
    fn decode_zarr_chunk_into(
        &mut self,
        bytes: &[u8],
        chunk_shape: &[usize],
        endian: Endian,
    ) -> Result<(), Error>;

    /// Fill `self`, whose shape is `grid`'s array shape, chunk by chunk: `source(index)`
    /// answers each chunk's bytes, decoded straight into the chunk's region of `self`, or
    /// `None` for a chunk that is missing, whose region then holds `fill`.
    ///
    /// With the `rayon` feature the chunks are decoded on the thread pool, so `source` may
    /// be called from several threads at once, in any order; without it, in C order on the
    /// calling thread. The first error stops the work (chunks not started are skipped) and
    /// is returned: `source`'s own as it is, the crate's as [`Error::InChunk`], which names
    /// the chunk. Regions of chunks not reached keep what they held.
    ///
    /// # Errors
    ///
    /// [`Error::GridShapeMismatch`] unless the grid's array shape is `self`'s and
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes (both before any
    /// chunk is read); [`Error::InChunk`] holding a chunk's [`Error::LengthMismatch`] or
    /// [`Error::InvalidBool`]; and the first error `source` returns.
    fn decode_zarr_chunks_into<E, F, B>(
        &mut self,
        grid: &ChunkGrid,
        fill: Self::Elem,
        endian: Endian,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync;

    /// Fill `self` from the subset of `grid`'s array that starts at `origin` and has
    /// `self`'s shape, chunk by chunk: `source(index)` answers the bytes of each chunk the
    /// subset touches, and of no other, or `None` for a missing chunk, whose part then
    /// holds `fill`.
    ///
    /// Of each chunk only the bytes of its part in the subset are read (the stored bytes
    /// must be the whole chunk's length), decoded straight into their place in `self`, of
    /// any layout; each element of `self` is written once. The pool, the order and the
    /// errors are those of [`decode_zarr_chunks_into`](Self::decode_zarr_chunks_into), of
    /// which this is the general case: that is `origin` 0 and `self` the whole array.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an origin of another rank than the grid, or a grid of
    /// another rank than `self`; [`Error::SubsetOverflow`] where the origin plus `self`'s
    /// length does not fit `usize`; [`Error::RegionOutOfBounds`] where the subset reaches
    /// past the array; [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes
    /// (all before any chunk is read); [`Error::InChunk`] holding a chunk's
    /// [`Error::LengthMismatch`] or [`Error::InvalidBool`]; and the first error `source`
    /// returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2, ShapeBuilder};
    /// use zarr_bytes::{ChunkDecodeInto, ChunkGrid, Endian, Error};
    ///
    /// // A 4 × 4 array of u8 in chunks of 2 × 2: chunk [i, j] holds 10 i + j everywhere.
    /// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
    /// let mut a = Array2::<u8>::zeros((2, 3).f());
    /// a.decode_zarr_subset_into(&grid, &[1, 1], 0, Endian::Little, |index: &[usize]| {
    ///     Ok::<_, Error>(Some([(10 * index[0] + index[1]) as u8; 4]))
    /// })?;
    /// assert_eq!(a, array![[0, 1, 1], [10, 11, 11]]);
    /// # Ok::<(), Error>(())
    /// ```
    fn decode_zarr_subset_into<E, F, B>(
        &mut self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: Self::Elem,
        endian: Endian,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync;

    /// [`decode_zarr_subset_into`](Self::decode_zarr_subset_into) with up to `in_flight`
    /// requests pending at once (feature `async`), each chunk decoded into its part of
    /// `self` as it arrives: as
    /// [`from_zarr_subset_async`](crate::ChunkDecode::from_zarr_subset_async), into an
    /// array of any layout. Parts of chunks not reached before an error keep what they
    /// held.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroInFlight`] for `in_flight` 0; the errors of
    /// [`decode_zarr_subset_into`](Self::decode_zarr_subset_into); and the first error
    /// `fetch` returns, as it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2, ShapeBuilder};
    /// use zarr_bytes::{ChunkDecodeInto, ChunkGrid, Endian, Error};
    ///
    /// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
    /// let mut a = Array2::<u8>::zeros((2, 3).f());
    /// let read = a.decode_zarr_subset_into_async(&grid, &[1, 1], 0, Endian::Little, 8, |index| async move {
    ///     Ok::<_, Error>(Some([(10 * index[0] + index[1]) as u8; 4]))
    /// });
    /// futures_executor::block_on(read)?;
    /// assert_eq!(a, array![[0, 1, 1], [10, 11, 11]]);
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[allow(clippy::too_many_arguments)]
    fn decode_zarr_subset_into_async<E, F, Fut, B>(
        &mut self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: Self::Elem,
        endian: Endian,
        in_flight: usize,
        fetch: F,
    ) -> impl Future<Output = Result<(), E>>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: Future<Output = Result<Option<B>, E>>;
}

impl<A, S, D> ChunkEncode for ArrayBase<S, D>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    type Elem = A;

    fn encode_zarr_chunk(
        &self,
        chunk_shape: &[usize],
        fill: A,
        endian: Endian,
    ) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; chunk_len(self.shape(), chunk_shape, A::SIZE)?];
        self.encode_zarr_chunk_into(&mut out, chunk_shape, fill, endian)?;
        Ok(out)
    }

    fn encode_zarr_chunk_into(
        &self,
        out: &mut [u8],
        chunk_shape: &[usize],
        fill: A,
        endian: Endian,
    ) -> Result<(), Error> {
        let expected = chunk_len(self.shape(), chunk_shape, A::SIZE)?;
        if out.len() != expected {
            return Err(Error::BufferSize {
                expected,
                actual: out.len(),
            });
        }
        let fill = fill_bytes(fill, endian);
        match out_units(self.view().into_dyn()) {
            Ok(units) => encode_part(units, &Kind::Plain, chunk_shape, &fill, endian, out),
            Err(part) => encode_part(part, &Kind::Plain, chunk_shape, &fill, endian, out),
        }
    }

    fn encode_zarr_chunks<E, F>(
        &self,
        grid: &ChunkGrid,
        fill: A,
        endian: Endian,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Vec<u8>) -> Result<(), E> + Sync,
    {
        grid.check_array(self.shape())?;
        let subset = Subset::whole(grid);
        encode_plain(self, &subset, fill, endian, &Owned(&sink), &unstored)
    }

    fn is_zarr_fill(&self, fill: A) -> bool {
        match out_units(self.view().into_dyn()) {
            Ok(units) => Fill::new(&[fill.out()]).fills(units),
            Err(view) => Fill::new(&[fill]).fills(view),
        }
    }

    fn encode_zarr_chunks_sparse<E, F>(
        &self,
        grid: &ChunkGrid,
        fill: A,
        endian: Endian,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Option<&[u8]>) -> Result<(), E> + Sync,
    {
        grid.check_array(self.shape())?;
        let subset = Subset::whole(grid);
        let lend = |index: &[usize], bytes: Option<Cow<'_, [u8]>>| sink(index, bytes.as_deref());
        let sink = Sparse::new(&lend);
        encode_plain(self, &subset, fill, endian, &sink, &unstored)
    }

    fn encode_zarr_subset<E, R, F>(
        &self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
        stored: R,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        R: Fn(&[usize]) -> Result<Option<Vec<u8>>, E> + Sync,
        F: Fn(&[usize], Option<Cow<'_, [u8]>>) -> Result<(), E> + Sync,
    {
        let subset = Subset::at(grid, origin, self.shape())?;
        encode_plain(self, &subset, fill, endian, &Sparse::new(&sink), &stored)
    }

    #[cfg(feature = "async")]
    fn encode_zarr_subset_async<E, R, RF, K, KF>(
        &self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
        in_flight: usize,
        stored: R,
        sink: K,
    ) -> impl Future<Output = Result<(), E>>
    where
        E: From<Error> + Send,
        R: Fn(Vec<usize>) -> RF,
        RF: Future<Output = Result<Option<Vec<u8>>, E>>,
        K: Fn(Vec<usize>, Option<Vec<u8>>) -> KF,
        KF: Future<Output = Result<(), E>>,
    {
        let writer = SubsetWriter::new(self.view(), grid, origin, fill, endian);
        async move {
            let writer = writer?;
            let (encode, update) = (
                |i: &[usize]| writer.encode(i),
                |i: &[usize], b: &mut [u8]| writer.update(i, b),
            );
            concurrent::write(writer.parts(), in_flight, stored, sink, encode, update).await
        }
    }
}

/// `array`, of `subset`'s shape, encoded into the chunks it touches.
fn encode_plain<A, S, D, E, K>(
    array: &ArrayBase<S, D>,
    subset: &Subset<'_>,
    fill: A,
    endian: Endian,
    sink: &K,
    stored: &Stored<'_, E>,
) -> Result<(), E>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
    E: From<Error> + Send,
    K: Sink<E>,
{
    let fill = fill_bytes(fill, endian);
    match out_units(array.view().into_dyn()) {
        Ok(units) => engine::encode(units, subset, &Kind::Plain, &fill, endian, sink, stored),
        Err(view) => engine::encode(view, subset, &Kind::Plain, &fill, endian, sink, stored),
    }
}

impl<A, D> ChunkDecode for Array<A, D>
where
    A: Element,
    D: Dimension,
{
    type Elem = A;

    fn from_zarr_chunks<E, F, B>(
        grid: &ChunkGrid,
        fill: A,
        endian: Endian,
        source: F,
    ) -> Result<Self, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        decode_new(&Subset::whole(grid), fill, endian, &source)
    }

    fn from_zarr_subset<E, F, B>(
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill: A,
        endian: Endian,
        source: F,
    ) -> Result<Self, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        decode_new(&Subset::of(grid, subset)?, fill, endian, &source)
    }

    #[cfg(feature = "async")]
    fn from_zarr_subset_async<E, F, Fut, B>(
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill: A,
        endian: Endian,
        in_flight: usize,
        fetch: F,
    ) -> impl Future<Output = Result<Self, E>>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: Future<Output = Result<Option<B>, E>>,
    {
        let subset = Subset::of(grid, subset).map(Subset::into_owned);
        async move {
            let subset = subset?;
            let mut array = zeroed_of::<A, D>(&subset)?;
            let view = array.view_mut().into_dyn();
            let reader = SubsetReader::<A, IxDyn>::of(view, &subset, fill, endian, Before::Zeroed)?;
            let put = |index: &[usize], chunk: Option<&[u8]>| reader.put(index, chunk);
            concurrent::read(reader.parts(), in_flight, fetch, put).await?;
            reader.finish()?;
            Ok(array)
        }
    }
}

/// The array of `subset`, its memory zeroed, each element then written once.
fn decode_new<A, D, E, B>(
    subset: &Subset<'_>,
    fill: A,
    endian: Endian,
    source: &Source<'_, B, E>,
) -> Result<Array<A, D>, E>
where
    A: Element,
    D: Dimension,
    E: From<Error> + Send,
    B: AsRef<[u8]>,
{
    let mut array = zeroed_of::<A, D>(subset)?;
    let view = array.view_mut().into_dyn();
    decode_plain(view, subset, fill, endian, source, Before::Zeroed)?;
    Ok(array)
}

/// The array of `subset`'s shape, its memory zeroed, once the rank and the chunk's size are
/// checked.
fn zeroed_of<A: Element, D: Dimension>(subset: &Subset<'_>) -> Result<Array<A, D>, Error> {
    let shape = subset.shape();
    if let Some(rank) = D::NDIM.filter(|&rank| rank != shape.len()) {
        return Err(Error::RankMismatch {
            expected: rank,
            actual: shape.len(),
        });
    }
    checked_len(subset.grid().chunk_shape(), A::SIZE)?;
    zeroed::<A, D>(shape)
}

/// Decode the chunks `subset` touches into `view`, of elements, as the units they move as
/// where its memory is one slice.
fn decode_plain<A, E, B>(
    view: ArrayViewMut<'_, A, IxDyn>,
    subset: &Subset<'_>,
    fill: A,
    endian: Endian,
    source: &Source<'_, B, E>,
    before: Before,
) -> Result<(), E>
where
    A: Element,
    E: From<Error> + Send,
    B: AsRef<[u8]>,
{
    match in_units(view) {
        Ok(units) => {
            let fill = [fill.to_in()];
            engine::decode(units, subset, &Kind::Plain, &fill, endian, source, before)
        }
        Err(view) => engine::decode(view, subset, &Kind::Plain, &[fill], endian, source, before),
    }
}

impl<A, S, D> ChunkDecodeInto for ArrayBase<S, D>
where
    A: Element,
    S: DataMut<Elem = A>,
    D: Dimension,
{
    type Elem = A;

    fn decode_zarr_chunk_into(
        &mut self,
        bytes: &[u8],
        chunk_shape: &[usize],
        endian: Endian,
    ) -> Result<(), Error> {
        check_part(self.shape(), chunk_shape)?;
        checked_size(chunk_shape, A::SIZE, bytes)?;
        let region = corner(self.shape());
        let scratch = &mut Vec::new();
        match in_units(self.view_mut().into_dyn()) {
            Ok(units) => decode_part(
                units,
                &Kind::Plain,
                chunk_shape,
                &region,
                bytes,
                endian,
                scratch,
            ),
            Err(part) => decode_part(
                part,
                &Kind::Plain,
                chunk_shape,
                &region,
                bytes,
                endian,
                scratch,
            ),
        }
    }

    fn decode_zarr_chunks_into<E, F, B>(
        &mut self,
        grid: &ChunkGrid,
        fill: A,
        endian: Endian,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        grid.check_array(self.shape())?;
        let subset = Subset::whole(grid);
        decode_plain(
            self.view_mut().into_dyn(),
            &subset,
            fill,
            endian,
            &source,
            Before::Anything,
        )
    }

    fn decode_zarr_subset_into<E, F, B>(
        &mut self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        let subset = Subset::at(grid, origin, self.shape())?;
        decode_plain(
            self.view_mut().into_dyn(),
            &subset,
            fill,
            endian,
            &source,
            Before::Anything,
        )
    }

    #[cfg(feature = "async")]
    fn decode_zarr_subset_into_async<E, F, Fut, B>(
        &mut self,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
        in_flight: usize,
        fetch: F,
    ) -> impl Future<Output = Result<(), E>>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: Future<Output = Result<Option<B>, E>>,
    {
        let reader = SubsetReader::new(self.view_mut(), grid, origin, fill, endian);
        async move {
            let reader = reader?;
            let put = |index: &[usize], chunk: Option<&[u8]>| reader.put(index, chunk);
            concurrent::read(reader.parts(), in_flight, fetch, put).await?;
            Ok(reader.finish()?)
        }
    }
}
