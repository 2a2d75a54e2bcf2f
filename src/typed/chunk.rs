//! Chunks of a grid: the part of one chunk inside an array to the whole chunk's bytes,
//! padded with the fill value, and back; and every chunk of an array at once.

use std::ops::Range;

use std::sync::Mutex;

use ndarray::{
    Array, ArrayBase, ArrayView, ArrayView1, ArrayViewMut, Axis, Data, DataMut, Dimension, IxDyn,
    Slice,
};

use crate::check::{checked_len, checked_size, into_array};
use crate::traverse;
use crate::typed::decode::decode;
use crate::typed::encode::encode;
use crate::typed::fill::Fill;
use crate::typed::region;
use crate::{ChunkGrid, DataType, Element, Endian, Error};

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
        encode_padded(
            self.view().into_dyn(),
            chunk_shape,
            &fill_bytes(fill, endian),
            endian,
            out,
        );
        Ok(())
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
        let fill = fill_bytes(fill, endian);
        let sink = Owned(sink);
        encode_grid(
            self.view().into_dyn(),
            grid,
            &Kind::Plain,
            &fill,
            endian,
            &sink,
        )
    }

    fn is_zarr_fill(&self, fill: A) -> bool {
        Fill::new(&[fill]).fills(self.view().into_dyn())
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
        let fill = fill_bytes(fill, endian);
        let sink = Sparse::new(sink);
        encode_grid(
            self.view().into_dyn(),
            grid,
            &Kind::Plain,
            &fill,
            endian,
            &sink,
        )
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
        let shape = grid.array_shape();
        if let Some(rank) = D::NDIM.filter(|&rank| rank != shape.len()) {
            return Err(Error::RankMismatch {
                expected: rank,
                actual: shape.len(),
            }
            .into());
        }
        checked_len(grid.chunk_shape(), A::SIZE)?;
        let mut array = zeroed::<A, D>(shape)?;
        decode_grid(
            array.view_mut().into_dyn(),
            grid,
            &Kind::Plain,
            &[fill],
            endian,
            &source,
        )?;
        Ok(array)
    }
}

/// An array of `shape`, of the rank of `D`, of zeroed memory: the allocator's, which the
/// system hands over as zero pages rather than writing it.
pub(crate) fn zeroed<A: Element, D: Dimension>(shape: &[usize]) -> Result<Array<A, D>, Error> {
    let len = checked_len(shape, A::SIZE)?;
    let mut dim = D::zeros(shape.len());
    dim.slice_mut().copy_from_slice(shape);
    into_array(dim, bytemuck::allocation::zeroed_vec(len))
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
        decode_corner(self.view_mut().into_dyn(), chunk_shape, bytes, endian)
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
        decode_grid(
            self.view_mut().into_dyn(),
            grid,
            &Kind::Plain,
            &[fill],
            endian,
            &source,
        )
    }
}

/// What sets the elements of an array apart from plain elements, for the chunk code: the
/// arrays of [`DynArray`](crate::DynArray) variants that hold more than an element each.
pub(crate) enum Kind<A> {
    /// One element of the array is one of the data type.
    Plain,
    /// Sub-byte integers: the data type, the bits kept, the value of the low bits of a
    /// byte, and the value of an element that does not fit them.
    Narrow {
        data_type: DataType,
        bits: u32,
        widen: fn(A) -> A,
        misfit: fn(A) -> Option<i64>,
    },
    /// Raw elements: bytes, the array's last axis each element's, always whole.
    Records,
}

/// Encode `part`, of checked shape, padded to `chunk` with `fill` into `out`; sub-byte
/// integers must fit their bits, and keep only those.
pub(crate) fn encode_part<A: Element>(
    part: ArrayView<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    fill: &[u8],
    endian: Endian,
    out: &mut [u8],
) -> Result<(), Error> {
    if let Kind::Narrow {
        data_type, misfit, ..
    } = kind
    {
        let mut misfits = part.iter().enumerate();
        if let Some((index, value)) = misfits.find_map(|(i, &x)| Some((i, misfit(x)?))) {
            return Err(Error::OutOfRange {
                data_type: data_type.clone(),
                index,
                value,
            });
        }
    }
    encode_padded(part, chunk, fill, endian, out);
    if let Kind::Narrow { bits, .. } = kind {
        let used = 0xff >> (8 - bits);
        out.iter_mut().for_each(|b| *b &= used);
    }
    Ok(())
}

/// Decode the corner `part` of a chunk from its `bytes` (both checked); sub-byte integers
/// take the value of their low bits.
pub(crate) fn decode_part<A: Element>(
    mut part: ArrayViewMut<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    decode_corner(part.view_mut(), chunk, bytes, endian)?;
    if let Kind::Narrow { widen, .. } = kind {
        part.mapv_inplace(widen);
    }
    Ok(())
}

/// Every chunk of `grid` (whose array shape is `array`'s, raw elements' byte axis
/// included) encoded and handed to `sink` with its index (without that axis); edge chunks
/// padded with `fill`, one element's bytes.
pub(crate) fn encode_grid<A, E, S>(
    array: ArrayView<'_, A, IxDyn>,
    grid: &ChunkGrid,
    kind: &Kind<A>,
    fill: &[u8],
    endian: Endian,
    sink: &S,
) -> Result<(), E>
where
    A: Element,
    E: From<Error> + Send,
    S: Sink<E>,
{
    let len = checked_len(grid.chunk_shape(), A::SIZE)? * A::SIZE;
    let rank = logical_rank(kind, grid);
    let pattern = Fill::new(&fill_elements(kind, fill, endian));
    // One pass over the memory in order finds the chunks of data at once, where the array
    // is one memory slice: reading it chunk by chunk would wait on the memory.
    let data = match kind {
        Kind::Plain | Kind::Narrow { .. } if sink.skips_fill() => {
            pattern.chunks_with_data(array.view(), grid)
        }
        _ => None,
    };
    grid.each(array, &|index, part: ArrayView<'_, A, IxDyn>| {
        let index = &index[..rank];
        let whole = part.clone();
        let fills = || match (&data, kind) {
            (Some(data), _) => !data[grid.position(index)],
            (None, Kind::Records) => pattern.fills_records(whole),
            (None, _) => pattern.fills(whole),
        };
        sink.chunk(index, len, fills, |out| {
            encode_part(part, kind, grid.chunk_shape(), fill, endian, out)
        })
    })
}

/// Where [`encode_grid`] hands the chunks: owned, or lent with chunks of only the fill value
/// left out.
pub(crate) trait Sink<E>: Sync {
    /// Whether this sink leaves out the chunks of only the fill value.
    fn skips_fill(&self) -> bool;

    /// Hand over chunk `index`, of `len` bytes that `encode` writes, unless this sink leaves
    /// out chunks of only the fill value and `fills()` says it is one.
    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        fills: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E>;
}

/// A sink of every chunk, each in a `Vec` of its own.
pub(crate) struct Owned<F>(pub F);

impl<E, F> Sink<E> for Owned<F>
where
    E: From<Error>,
    F: Fn(&[usize], Vec<u8>) -> Result<(), E> + Sync,
{
    fn skips_fill(&self) -> bool {
        false
    }

    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        _: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E> {
        let mut out = vec![0u8; len];
        encode(&mut out).map_err(|e| in_chunk(index, e))?;
        (self.0)(index, out)
    }
}

/// A sink of the chunks that hold more than the fill value, lent from buffers that are
/// reused: a thread takes the one put back last, still in its cache.
pub(crate) struct Sparse<F> {
    sink: F,
    spare: Mutex<Vec<Vec<u8>>>,
}

impl<F> Sparse<F> {
    pub(crate) fn new(sink: F) -> Sparse<F> {
        Sparse {
            sink,
            spare: Mutex::new(Vec::new()),
        }
    }

    /// The spare buffers, whatever a panic elsewhere left them as.
    fn spare(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        self.spare.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<E, F> Sink<E> for Sparse<F>
where
    E: From<Error>,
    F: Fn(&[usize], Option<&[u8]>) -> Result<(), E> + Sync,
{
    fn skips_fill(&self) -> bool {
        true
    }

    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        fills: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E> {
        if fills() {
            return (self.sink)(index, None);
        }
        // Every byte of the buffer is written by `encode`: it need not be zeroed.
        let mut out = self.spare().pop().unwrap_or_default();
        out.resize(len, 0);
        let result = match encode(&mut out) {
            Ok(()) => (self.sink)(index, Some(&out)),
            Err(e) => Err(in_chunk(index, e).into()),
        };
        self.spare().push(out);
        result
    }
}

/// The fill value as elements, from its bytes: one element, or a raw element's bytes;
/// sub-byte integers take the value of their low bits.
pub(crate) fn fill_elements<A: Element>(kind: &Kind<A>, fill: &[u8], endian: Endian) -> Vec<A> {
    let mut elements = vec![A::zeroed(); fill.len() / A::SIZE];
    A::read(fill, endian, &mut elements);
    if let Kind::Narrow { widen, .. } = kind {
        elements.iter_mut().for_each(|x| *x = widen(*x));
    }
    elements
}

/// Every chunk of `grid` (as [`encode_grid`]'s) asked of `source` and decoded into its
/// region of `array`; the region of a missing chunk holds `fill`: one element, or a raw
/// element's bytes.
pub(crate) fn decode_grid<A, E, F, B>(
    array: ArrayViewMut<'_, A, IxDyn>,
    grid: &ChunkGrid,
    kind: &Kind<A>,
    fill: &[A],
    endian: Endian,
    source: &F,
) -> Result<(), E>
where
    A: Element,
    E: From<Error> + Send,
    B: AsRef<[u8]>,
    F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
{
    checked_len(grid.chunk_shape(), A::SIZE)?;
    let rank = logical_rank(kind, grid);
    let chunk = grid.chunk_shape();
    grid.each(array, &|index, mut part: ArrayViewMut<'_, A, IxDyn>| {
        let index = &index[..rank];
        match source(index)? {
            Some(bytes) => {
                let bytes = bytes.as_ref();
                checked_size(chunk, A::SIZE, bytes)
                    .and_then(|_| decode_part(part, kind, chunk, bytes, endian))
                    .map_err(|e| in_chunk(index, e).into())
            }
            None => {
                match kind {
                    Kind::Records => part.assign(&ArrayView1::from(fill)),
                    Kind::Narrow { widen, .. } => part.fill(widen(fill[0])),
                    Kind::Plain => part.fill(fill[0]),
                }
                Ok(())
            }
        }
    })
}

/// The rank of a chunk's index in `grid`: without the axis of raw elements' bytes.
fn logical_rank<A>(kind: &Kind<A>, grid: &ChunkGrid) -> usize {
    let rank = grid.array_shape().len();
    match kind {
        Kind::Records => rank - 1,
        _ => rank,
    }
}

/// `error`, of the chunk at `index` of a grid.
pub(crate) fn in_chunk(index: &[usize], error: Error) -> Error {
    Error::InChunk {
        index: index.into(),
        error: Box::new(error),
    }
}

/// The bytes of one element `fill` in `endian`: what the padding of a chunk repeats.
pub(crate) fn fill_bytes<A: Element>(fill: A, endian: Endian) -> Vec<u8> {
    let mut bytes = vec![0u8; A::SIZE];
    A::write(&[fill], endian, &mut bytes);
    bytes
}

/// Check that a part of shape `part` is a corner of a chunk of shape `chunk`: the same rank,
/// no longer on any axis.
pub(crate) fn check_part(part: &[usize], chunk: &[usize]) -> Result<(), Error> {
    if part.len() != chunk.len() {
        return Err(Error::RankMismatch {
            expected: chunk.len(),
            actual: part.len(),
        });
    }
    match (0..part.len()).find(|&k| part[k] > chunk[k]) {
        Some(axis) => Err(Error::PartTooLarge {
            axis,
            len: part[axis],
            chunk: chunk[axis],
        }),
        None => Ok(()),
    }
}

/// The encoded length of a chunk of `chunk` shape, `size` bytes an element, after checking
/// that `part` is a corner of it.
pub(crate) fn chunk_len(part: &[usize], chunk: &[usize], size: usize) -> Result<usize, Error> {
    check_part(part, chunk)?;
    Ok(checked_len(chunk, size)? * size)
}

/// The runs of the corner `part` of a chunk: the innermost axis where the part is shorter
/// than the chunk, the bytes of each run (which spans that axis's part and the whole axes
/// after it), and how many runs there are. `None` for a part that is the whole chunk.
fn corner_runs(part: &[usize], chunk: &[usize], size: usize) -> Option<(usize, usize, usize)> {
    let axis = (0..part.len()).rev().find(|&k| part[k] != chunk[k])?;
    let run = part[axis..].iter().product::<usize>() * size;
    let count = part[..axis].iter().product();
    Some((axis, run, count))
}

/// Encode `part`, of checked shape, as the corner of a chunk of `chunk` shape into `out`,
/// of the chunk's checked length; the rest of the chunk repeats `fill`, one element's bytes.
pub(crate) fn encode_padded<A: Element>(
    part: ArrayView<'_, A, IxDyn>,
    chunk: &[usize],
    fill: &[u8],
    endian: Endian,
    out: &mut [u8],
) {
    let Some((axis, run, count)) = corner_runs(part.shape(), chunk, A::SIZE) else {
        return encode(part, endian, out);
    };
    if run * count == 0 {
        return fill_with(out, fill);
    }
    // The part's C-order bytes at the start, then each run moved to its place, the last
    // first: no run lands on a run not yet moved, as each lands at or after where it was.
    let shape = part.shape().to_vec();
    encode(part, endian, &mut out[..run * count]);
    let mut strides = vec![0; chunk.len()];
    traverse::c_order(chunk, &mut strides);
    let mut end = out.len();
    for r in (0..count).rev() {
        let (mut q, mut at) = (r, 0);
        for k in (0..axis).rev() {
            at += (q % shape[k]) * strides[k];
            q /= shape[k];
        }
        let at = at * A::SIZE;
        out.copy_within(r * run..(r + 1) * run, at);
        fill_with(&mut out[at + run..end], fill);
        end = at;
    }
}

/// Decode the corner `part`, of checked shape, of a chunk of `chunk` shape from the chunk's
/// `bytes`, of checked length: only the corner's bytes are read.
pub(crate) fn decode_corner<A: Element>(
    part: ArrayViewMut<'_, A, IxDyn>,
    chunk: &[usize],
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    let Some((_, run, count)) = corner_runs(part.shape(), chunk, A::SIZE) else {
        return decode(part, bytes, endian);
    };
    if run * count == 0 {
        return Ok(());
    }
    if count == 1 {
        // One run: the corner's bytes lead the chunk's.
        return decode(part, &bytes[..run], endian);
    }
    // The runs of a slab of whole indices along the first axis at a time, gathered through
    // a buffer small enough to stay in cache while it is decoded.
    let first = part.shape()[0];
    let per_index = run * (count / first);
    let per_slab = (GATHER_BYTES / per_index).clamp(1, first);
    let mut gathered = Vec::with_capacity(per_slab * per_index);
    let mut part = part;
    for start in (0..first).step_by(per_slab) {
        let end = (start + per_slab).min(first);
        let mut slab: Vec<Range<usize>> = part.shape().iter().map(|&p| 0..p).collect();
        slab[0] = start..end;
        gathered.clear();
        region::runs(chunk, &slab, |_, offset, len| {
            gathered.extend_from_slice(&bytes[offset * A::SIZE..(offset + len) * A::SIZE])
        });
        let rows = part
            .view_mut()
            .slice_axis_move(Axis(0), Slice::from(start..end));
        decode(rows, &gathered, endian).map_err(|e| {
            region::with_offset(e, |at| region::offset_in_chunk(chunk, &slab, A::SIZE, at))
        })?;
    }
    Ok(())
}

/// Bytes of an edge chunk's part gathered at a time to be decoded, at most (unless one index
/// of its first axis holds more).
pub(crate) const GATHER_BYTES: usize = 256 * 1024;

/// Fill `out` with copies of `pattern`, whose length divides `out`'s; an empty pattern
/// fills nothing.
pub(crate) fn fill_with(out: &mut [u8], pattern: &[u8]) {
    let Some(&first) = pattern.first() else {
        return;
    };
    if pattern.iter().all(|&b| b == first) {
        return out.fill(first);
    }
    let Some(head) = out.get_mut(..pattern.len()) else {
        return;
    };
    head.copy_from_slice(pattern);
    // Double what is filled: a few large copies rather than one per element.
    let mut filled = pattern.len();
    while filled < out.len() {
        let n = filled.min(out.len() - filled);
        out.copy_within(..n, filled);
        filled += n;
    }
}
