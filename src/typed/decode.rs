//! Decoding: C-order bytes to a new array, or into an existing array of any layout.

use std::io::{self, Read};

use ndarray::{Array, ArrayBase, ArrayViewMut, DataMut, Dimension, IntoDimension, IxDyn};

use crate::check::{check_invalid, checked_len, checked_length, into_array};
use crate::element::{Item, in_units};
use crate::parallel;
use crate::traverse::{self, Block, ColumnsMut, Lanes, Moves, Strided, Visitor};
use crate::{Element, Endian, Error};

/// Bytes `read_zarr_bytes` reads per call, and the most it allocates before data arrives.
pub(crate) const READ_BUFFER_SIZE: usize = 64 * 1024;

/// Decode a new array from bytes written by the `bytes` codec.
///
/// Implemented for owned arrays ([`Array`]) of every [`Element`] type, so that decoding
/// reads like a constructor: `Array2::<f64>::from_zarr_bytes(&bytes, (2, 3), Endian::Big)`.
/// Decoded arrays are in standard (C) layout.
pub trait BytesDecode: Sized {
    /// The dimension type of the decoded array.
    type Dim: Dimension;

    /// Decode `bytes`, C-order elements of `shape`.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeOverflow`] if the shape's size exceeds `isize::MAX` bytes,
    /// [`Error::LengthMismatch`] if `bytes` is not exactly the shape's size, and
    /// [`Error::InvalidBool`] for a `bool` byte other than 0 or 1. Nothing is allocated
    /// before these checks pass.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use zarr_bytes::{BytesDecode, Endian, Error};
    ///
    /// let bytes = [0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0];
    /// let a = Array2::<f64>::from_zarr_bytes(&bytes, (1, 2), Endian::Big)?;
    /// assert_eq!(a, array![[1.0, -2.0]]);
    /// assert!(matches!(
    ///     Array2::<f64>::from_zarr_bytes(&bytes, (2, 2), Endian::Big),
    ///     Err(Error::LengthMismatch { expected: 32, actual: 16 })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    fn from_zarr_bytes<Sh>(bytes: &[u8], shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = Self::Dim>;

    /// Decode exactly the shape's bytes from a reader.
    ///
    /// Memory grows as bytes arrive, through a read buffer of at most 64 KiB: a reader that
    /// claims a huge shape but ends early fails with little allocated. The reader is not
    /// read past the shape's bytes.
    ///
    /// # Errors
    ///
    /// As [`from_zarr_bytes`](Self::from_zarr_bytes), plus [`Error::UnexpectedEof`] when the
    /// reader ends early and [`Error::Io`] when it fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, ArrayD};
    /// use zarr_bytes::{BytesDecode, Endian, Error};
    ///
    /// let a = ArrayD::<i16>::read_zarr_bytes(&[0xff, 0xfe, 0, 7][..], vec![2], Endian::Big)?;
    /// assert_eq!(a, array![-2i16, 7].into_dyn());
    /// let short = ArrayD::<i16>::read_zarr_bytes(&[0, 7][..], vec![2], Endian::Big);
    /// assert!(matches!(short, Err(Error::UnexpectedEof { expected: 4, received: 2 })));
    /// # Ok::<(), Error>(())
    /// ```
    fn read_zarr_bytes<R, Sh>(reader: R, shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        R: Read,
        Sh: IntoDimension<Dim = Self::Dim>;
}

impl<A: Element, D: Dimension> BytesDecode for Array<A, D> {
    type Dim = D;

    fn from_zarr_bytes<Sh>(bytes: &[u8], shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = D>,
    {
        let dim = shape.into_dimension();
        let elements = decode_vec(bytes, dim.slice(), endian)?;
        into_array(dim, elements)
    }

    fn read_zarr_bytes<R, Sh>(mut reader: R, shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        R: Read,
        Sh: IntoDimension<Dim = D>,
    {
        let dim = shape.into_dimension();
        let len = checked_len(dim.slice(), A::SIZE)?;
        let expected = len * A::SIZE;
        let per_read = (READ_BUFFER_SIZE / A::SIZE).max(1).min(len);
        let mut buffer = vec![0u8; per_read * A::SIZE];
        let mut elements: Vec<A> = Vec::with_capacity(per_read);
        while elements.len() < len {
            let take = per_read.min(len - elements.len());
            let chunk = &mut buffer[..take * A::SIZE];
            let received = elements.len() * A::SIZE;
            fill(&mut reader, chunk, received, expected)?;
            check_invalid::<A::In>(chunk, received)?;
            let done = elements.len();
            if elements.capacity() < done + take {
                // Double as the data keeps coming, never past the shape.
                elements.reserve_exact(done.max(take).min(len - done));
            }
            elements.resize(done + take, A::zeroed());
            A::read(chunk, endian, &mut elements[done..]);
        }
        into_array(dim, elements)
    }
}

/// Decode into an existing array, whatever its memory layout.
pub trait BytesDecodeInto {
    /// Fill `self` from C-order bytes of its shape.
    ///
    /// Works for any layout: Fortran order, transposed and strided views, slices of bigger
    /// arrays. A wrong length is reported before anything is written. `bool` bytes are
    /// validated as they move, so after an invalid one some elements, before it or after
    /// it in C order, may have been written (each a valid `bool`); the error names the
    /// first invalid byte of the stream.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] if `bytes.len()` is not elements × element size, and
    /// [`Error::InvalidBool`] for a `bool` byte other than 0 or 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2, ShapeBuilder};
    /// use zarr_bytes::{BytesDecodeInto, Endian, Error};
    ///
    /// let mut a = Array2::<u8>::zeros((2, 3).f());
    /// a.decode_zarr_bytes_into(&[1, 2, 3, 4, 5, 6], Endian::Little)?;
    /// assert_eq!(a, array![[1, 2, 3], [4, 5, 6]]);
    /// # Ok::<(), Error>(())
    /// ```
    fn decode_zarr_bytes_into(&mut self, bytes: &[u8], endian: Endian) -> Result<(), Error>;
}

impl<A, S, D> BytesDecodeInto for ArrayBase<S, D>
where
    A: Element,
    S: DataMut<Elem = A>,
    D: Dimension,
{
    fn decode_zarr_bytes_into(&mut self, bytes: &[u8], endian: Endian) -> Result<(), Error> {
        checked_length::<A>(self.shape(), bytes)?;
        decode_elements(self.view_mut().into_dyn(), bytes, endian)
    }
}

/// Bytes converted per step of [`read_checked`], which stops at the first step holding an
/// invalid byte.
const CHECK_STEP: usize = 64 * 1024;

/// Decode `bytes`, which start at byte `at` of the stream, into `dst`, validating as it
/// converts: one pass over memory. After an invalid byte, the elements of its step and
/// those before may be written.
fn read_checked<A: Item>(
    bytes: &[u8],
    at: usize,
    endian: Endian,
    dst: &mut [A],
) -> Result<(), Error> {
    if !A::CHECKED {
        // Nothing to check: one conversion, whose requests for the bytes ahead then run
        // across the steps, which is faster (benches/NOTES.md, `src/typed/`).
        A::read(bytes, endian, dst);
        return Ok(());
    }
    let per = (CHECK_STEP / A::BYTES).max(1);
    for (i, (src, d)) in bytes
        .chunks(per * A::BYTES)
        .zip(dst.chunks_mut(per))
        .enumerate()
    {
        if !A::read_valid(src, endian, d) {
            check_invalid::<A::In>(src, at + i * per * A::BYTES)?;
        }
    }
    Ok(())
}

/// An array of `shape`, of the rank of `D`, of zeroed memory: the allocator's, which the
/// system hands over as zero pages rather than writing it.
pub(crate) fn zeroed<A: Item, D: Dimension>(shape: &[usize]) -> Result<Array<A, D>, Error> {
    let len = checked_len(shape, A::BYTES)?;
    let mut dim = D::zeros(shape.len());
    dim.slice_mut().copy_from_slice(shape);
    into_array(dim, bytemuck::allocation::zeroed_vec(len))
}

/// The checked elements of `bytes` in C order, in their only allocation.
pub(crate) fn decode_vec<A: Item>(
    bytes: &[u8],
    shape: &[usize],
    endian: Endian,
) -> Result<Vec<A>, Error> {
    // Validate, then allocate, then convert what is known valid, as units.
    let len = checked_length::<A>(shape, bytes)?;
    parallel::check::<A::In>(bytes)?;
    let mut elements = bytemuck::zeroed_vec::<A>(len);
    let swap = endian != Endian::NATIVE;
    parallel::read(bytes, A::ins(&mut elements), |s, d| A::In::read(s, swap, d));
    Ok(elements)
}

/// Fill `chunk` from the reader; `received` and `expected` describe the whole read.
fn fill(
    reader: &mut impl Read,
    chunk: &mut [u8],
    received: usize,
    expected: usize,
) -> Result<(), Error> {
    let mut filled = 0;
    while filled < chunk.len() {
        match reader.read(&mut chunk[filled..]) {
            Ok(0) => {
                return Err(Error::UnexpectedEof {
                    expected,
                    received: received + filled,
                });
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Decode `bytes`, of checked length, into `view`, of elements, as the units its elements
/// move as where its memory is one slice: the element types of one unit share the code
/// below ([`decode`]).
pub(crate) fn decode_elements<A: Element>(
    view: ArrayViewMut<'_, A, IxDyn>,
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    match in_units(view) {
        Ok(units) => decode(units, bytes, endian),
        Err(view) => decode(view, bytes, endian),
    }
}

/// Decode `bytes`, of checked length, into `view`: on the thread pool in parts when it is
/// large and the `rayon` feature is on.
pub(crate) fn decode<A: Item>(
    view: ArrayViewMut<'_, A, IxDyn>,
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    parallel::decode(
        view,
        bytes,
        |view, bytes| decode_sequential(view, bytes, endian),
        |part, stream, out| decode_part(part, stream, out, bytes, endian),
    )
}

/// Decode `bytes`, of checked length, into `view` on the calling thread.
fn decode_sequential<A: Item>(
    mut view: ArrayViewMut<'_, A, IxDyn>,
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    match view.as_slice_mut() {
        Some(slice) => read_checked(bytes, 0, endian, slice),
        None => {
            let mut decoder = Decoder::new(endian, bytes);
            traverse::walk(view, 0, &mut decoder);
            decoder.result()
        }
    }
}

/// Decode into `part`, one slice of memory placed at `out` in the stream with strides
/// `stream`, from `bytes`, validating them as they move: `false` if one of its bytes is
/// no valid encoding, and then the part may be partly written.
fn decode_part<A: Item>(
    mut part: ArrayViewMut<'_, A, IxDyn>,
    stream: &[usize],
    out: usize,
    bytes: &[u8],
    endian: Endian,
) -> bool {
    use ndarray::Dimension;
    let strided =
        traverse::Strided::of(part.shape(), part.strides()).map(|s| s.with_stream(stream));
    match (strided, part.as_slice_memory_order_mut()) {
        (Some(strided), Some(memory)) => {
            let mut decoder = Decoder::new(endian, bytes);
            decoder.planned(A::ins(memory), &strided, out);
            !decoder.invalid
        }
        // More axes than the plan holds, or (not expected of a half of one memory slice)
        // not one slice: correct, one element at a time.
        _ => part.indexed_iter_mut().all(|(index, x)| {
            let at = out
                + index
                    .slice()
                    .iter()
                    .zip(stream)
                    .map(|(i, s)| i * s)
                    .sum::<usize>();
            A::read_valid(
                &bytes[at * A::BYTES..(at + 1) * A::BYTES],
                endian,
                std::slice::from_mut(x),
            )
        }),
    }
}

/// Blocks from bytes to memory, of one unit (or one type that decodes as itself),
/// validating the bytes as they move (the tiles visit them out of stream order, so there
/// is no separate pass that could check them in order without reading them twice).
struct Decoder<'b, T> {
    /// Whether the stream is in the other byte order than this machine's.
    swap: bool,
    bytes: &'b [u8],
    /// Allocated on the first block that needs it: standard layouts never do.
    scratch: Vec<T>,
    /// The tiles of 1-byte types decoded from their encoded bytes (`Moves::FROM_BYTES`).
    encoded: Vec<u8>,
    /// Whether a byte that is no valid encoding was met; the blocks after it are skipped.
    invalid: bool,
    /// Bands of lanes that step through memory, copied out column by column
    /// ([`Visitor::staged`]).
    stepped: Vec<T>,
}

impl<'b, T: Moves> Decoder<'b, T> {
    fn new(endian: Endian, bytes: &'b [u8]) -> Self {
        Decoder {
            swap: endian != Endian::NATIVE,
            bytes,
            scratch: Vec::new(),
            encoded: Vec::new(),
            invalid: false,
            stepped: Vec::new(),
        }
    }

    /// The blocks of `strided`, whose elements are `memory`, placed at `out` in the stream.
    fn planned(&mut self, memory: &mut [T], strided: &Strided, out: usize) {
        let mut origin = traverse::Origin::of(memory, self.bytes);
        origin.stream += out * T::SIZE;
        traverse::plan(
            strided,
            traverse::scatter_tile::<T>(),
            origin,
            &mut |mut b| {
                b.out += out;
                self.convert(memory, b)
            },
        );
    }

    /// Decode stream elements `at..at + dst.len()` into `dst`, noting an invalid byte.
    fn read(&mut self, at: usize, dst: &mut [T]) {
        let bytes = &self.bytes[at * T::SIZE..(at + dst.len()) * T::SIZE];
        if !T::read_valid(bytes, self.swap, dst) {
            self.invalid = true;
        }
    }

    /// The outcome of the walk: the first invalid byte of the whole stream, in stream
    /// order whichever tile met one, so the error is the one a contiguous decode reports.
    fn result(&self) -> Result<(), Error> {
        if self.invalid {
            check_invalid::<T>(self.bytes, 0)?;
        }
        Ok(())
    }
}

/// Copy the stream rows of block `b` from `bytes` into the first tile of `scratch`, each
/// through `read`, asking for the row [`traverse::stream_ahead`] rows below it, and return
/// that tile.
fn staged<'s, P: Copy + bytemuck::Zeroable>(
    bytes: &[u8],
    b: &Block,
    scratch: &'s mut Vec<P>,
    read: impl Fn(&[u8], &mut [P]),
) -> &'s [P] {
    let size = std::mem::size_of::<P>();
    scratch.resize(traverse::scatter_tile::<P>().len(), P::zeroed());
    let tile = &mut scratch[..b.rows * b.pitch];
    let rows_ahead = traverse::stream_ahead::<P>();
    for (r, row) in tile.chunks_exact_mut(b.pitch).enumerate() {
        let ahead = b.stream_row(r + rows_ahead) * size;
        traverse::prefetch(bytes, ahead, b.cols * size, false);
        let at = b.stream_row(r) * size;
        read(&bytes[at..at + b.cols * size], &mut row[..b.cols]);
    }
    tile
}

impl<T: Moves> Decoder<'_, T> {
    /// Convert block `b` into `memory`.
    fn convert<M: ColumnsMut<T> + ?Sized>(&mut self, memory: &mut M, b: Block) {
        if self.invalid {
            return;
        }
        if let (1, Some(memory)) = (b.col_step, memory.whole_mut()) {
            for r in 0..b.rows {
                self.read(b.stream_row(r), &mut memory[b.row(r)..][..b.cols]);
            }
            return;
        }
        // Only byte tiles are checked: a type with invalid bytes must decode from them.
        const { assert!(!T::CHECKED || T::FROM_BYTES) };
        // A constant condition, so that each type instantiates one of the two paths.
        if const { T::FROM_BYTES } {
            // The stream's bytes move as they are and are checked as each becomes an
            // element and is stored. Checking each row as it was copied kept fewer rows'
            // cache misses in flight, and a pass over the whole tile once it was in read
            // it twice: both were slower (benches/NOTES.md, `src/typed/`).
            let tile = staged(self.bytes, &b, &mut self.encoded, |src, dst| {
                dst.copy_from_slice(src)
            });
            self.invalid = !T::scatter_encoded(tile, &b, memory);
        } else {
            // Plain copies: the scatter converts.
            let read = |src: &[u8], dst: &mut [T]| T::read(src, false, dst);
            let tile = staged(self.bytes, &b, &mut self.scratch, read);
            T::scatter(tile, &b, memory, self.swap);
        }
    }
}

impl<'a, T: Moves> Visitor<&'a mut [T], T> for Decoder<'_, T> {
    fn block(&mut self, memory: &mut &'a mut [T], b: Block) {
        self.convert(&mut **memory, b)
    }

    fn lanes(&mut self, lanes: &mut [&'a mut [T]], b: Block) {
        self.convert(&mut Lanes(lanes), b)
    }

    fn staged(&mut self, band: &mut [T], b: Block) -> bool {
        for tile in b.staged_bands(traverse::scatter_tile::<T>()) {
            self.convert(&mut *band, tile);
        }
        !self.invalid
    }

    fn take_band(&mut self) -> Vec<T> {
        std::mem::take(&mut self.stepped)
    }

    fn put_band(&mut self, band: Vec<T>) {
        self.stepped = band;
    }

    fn tile(&self) -> traverse::Tile {
        traverse::scatter_tile::<T>()
    }

    fn row_moves(&self) -> traverse::RowMoves {
        let copied = T::is_verbatim(self.swap) && !T::FROM_BYTES;
        traverse::RowMoves {
            piece: if copied {
                usize::MAX
            } else {
                traverse::ROW_PIECE_BYTES / T::SIZE
            },
            ask: !copied,
        }
    }

    fn stream(&self) -> usize {
        self.bytes.as_ptr() as usize
    }
}
