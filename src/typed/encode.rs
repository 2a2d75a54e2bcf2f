//! Encoding: any array, any layout, to C-order bytes.

use std::io::Write;

use ndarray::{ArrayBase, ArrayView, Data, Dimension, IxDyn};

use crate::check::checked_len;
use crate::element::{Item, out_units};
use crate::parallel;
use crate::traverse::{self, Block, Columns, Lanes, Moves, Strided, Visitor};
use crate::{Element, Endian, Error};

/// Bytes of the buffer `write_zarr_bytes` encodes through, at most, unless the array is
/// converted in tiles ([`TILED_WRITE_BUFFER_SIZE`]).
pub(crate) const WRITE_BUFFER_SIZE: usize = 256 * 1024;

/// Bytes of the buffer `write_zarr_bytes` encodes through, at most, for an array converted
/// in tiles (Fortran order, transposed views, permuted axes). The tiles of a window read
/// memory in runs only as deep as the window is along the axis with the shortest memory
/// step, so the window holds two tiles' depth of that axis, up to this size.
pub(crate) const TILED_WRITE_BUFFER_SIZE: usize = 4 * 1024 * 1024;

/// Encode an array with the `bytes` codec.
///
/// Implemented for every [`ArrayBase`] of an [`Element`] type, owned or viewed, in any
/// memory layout: the bytes always follow the logical C (row-major) order.
pub trait BytesEncode {
    /// Encode all elements in logical C order into a new `Vec`.
    ///
    /// # Panics
    ///
    /// Only if the encoded size exceeds `isize::MAX` bytes, which only a broadcast view can
    /// claim; [`encode_zarr_bytes_into`](Self::encode_zarr_bytes_into) reports that as an
    /// error instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::{BytesEncode, Endian};
    ///
    /// let a = array![[1u16, 2], [3, 4]];
    /// assert_eq!(a.to_zarr_bytes(Endian::Big), [0, 1, 0, 2, 0, 3, 0, 4]);
    /// // A transposed view is encoded in its own logical order.
    /// assert_eq!(a.t().to_zarr_bytes(Endian::Little), [1, 0, 3, 0, 2, 0, 4, 0]);
    /// ```
    #[must_use]
    fn to_zarr_bytes(&self, endian: Endian) -> Vec<u8>;

    /// Encode into a caller's buffer, which must have exactly the encoded length.
    ///
    /// Allocates nothing for standard layouts; other layouts use a scratch buffer of at
    /// most 72 KiB (or of one element, if bigger), and views whose lanes step through
    /// memory also a buffer of at most 256 KiB.
    ///
    /// # Errors
    ///
    /// [`Error::BufferSize`] if `out.len()` is not elements × element size, and
    /// [`Error::ShapeOverflow`] if that size exceeds `isize::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::{BytesEncode, Endian, Error};
    ///
    /// let a = array![1.5f32, -0.0];
    /// let mut out = [0u8; 8];
    /// a.encode_zarr_bytes_into(&mut out, Endian::Big)?;
    /// assert_eq!(out, [0x3f, 0xc0, 0, 0, 0x80, 0, 0, 0]);
    /// assert!(matches!(
    ///     a.encode_zarr_bytes_into(&mut [0u8; 7], Endian::Big),
    ///     Err(Error::BufferSize { expected: 8, actual: 7 })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    fn encode_zarr_bytes_into(&self, out: &mut [u8], endian: Endian) -> Result<(), Error>;

    /// Encode to a writer, through a buffer of at most 256 KiB, or of at most 4 MiB for
    /// layouts converted in tiles (Fortran order, transposed or permuted views).
    ///
    /// A standard-layout array whose bytes need no conversion is written straight from its
    /// memory, with no buffer at all. Layouts that are not standard also use a scratch
    /// buffer of at most 72 KiB (or of one element, if bigger), and views whose lanes step
    /// through memory a buffer of at most 256 KiB; nothing else grows with the array.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] for an error of the writer, and [`Error::ShapeOverflow`] for an
    /// encoded size over `isize::MAX` bytes (a broadcast view can claim one); nothing is
    /// written then.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::{BytesEncode, Endian};
    ///
    /// let mut file = Vec::new();
    /// array![[true, false]].write_zarr_bytes(&mut file, Endian::Little)?;
    /// assert_eq!(file, [1, 0]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    fn write_zarr_bytes<W: Write>(&self, writer: W, endian: Endian) -> Result<(), Error>;
}

impl<A, S, D> BytesEncode for ArrayBase<S, D>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    fn to_zarr_bytes(&self, endian: Endian) -> Vec<u8> {
        let len =
            checked_len(self.shape(), A::SIZE).expect("encoded size exceeds isize::MAX bytes");
        let mut out = vec![0u8; len * A::SIZE];
        encode_elements(self.view().into_dyn(), endian, &mut out);
        out
    }

    fn encode_zarr_bytes_into(&self, out: &mut [u8], endian: Endian) -> Result<(), Error> {
        let expected = checked_len(self.shape(), A::SIZE)? * A::SIZE;
        if out.len() != expected {
            return Err(Error::BufferSize {
                expected,
                actual: out.len(),
            });
        }
        encode_elements(self.view().into_dyn(), endian, out);
        Ok(())
    }

    fn write_zarr_bytes<W: Write>(&self, writer: W, endian: Endian) -> Result<(), Error> {
        let len = checked_len(self.shape(), A::SIZE)?;
        if A::is_verbatim(endian) {
            if let Some(bytes) = self.as_slice().and_then(A::as_bytes) {
                let mut writer = writer;
                return Ok(writer.write_all(bytes)?);
            }
        }
        match out_units(self.view().into_dyn()) {
            Ok(units) => write_items(units, len, writer, endian),
            Err(view) => write_items(view, len, writer, endian),
        }
    }
}

/// Encode `view`, of `len` items, to `writer` in windows of the stream.
fn write_items<A: Item, W: Write>(
    view: ArrayView<'_, A, IxDyn>,
    len: usize,
    mut writer: W,
    endian: Endian,
) -> Result<(), Error> {
    let one_slice = Strided::of(view.shape(), view.strides()).zip(view.to_slice_memory_order());
    let per_window = match &one_slice {
        Some((strided, _)) => write_window::<A>(Some(strided)),
        // Moved in tiles of its lanes, as deep as the window is.
        None if traverse::reorders(view.shape(), view.strides()) => {
            (TILED_WRITE_BUFFER_SIZE / A::BYTES).max(1)
        }
        None => write_window::<A>(None),
    };
    let mut buffer = vec![0u8; per_window.min(len) * A::BYTES];
    let mut result = Ok(());
    match one_slice {
        // One memory slice: windows are index arithmetic, and each keeps the tiling.
        Some((strided, memory)) => {
            let mut scratch = Scratch::default();
            traverse::windows(strided, per_window, 0, &mut |window, _| {
                if result.is_ok() {
                    let bytes = &mut buffer[..window.len() * A::BYTES];
                    encode_strided(memory, &window, endian, bytes, &mut scratch);
                    result = writer.write_all(bytes);
                }
            });
        }
        None => traverse::windows(view, per_window, 0, &mut |piece, _| {
            if result.is_ok() {
                let bytes = &mut buffer[..piece.len() * A::BYTES];
                encode(piece, endian, bytes);
                result = writer.write_all(bytes);
            }
        }),
    }
    Ok(result?)
}

/// Tiles deep that a window of `write_zarr_bytes` is cut along the axis the tiles read, in
/// a layout converted in tiles. The plan cuts the first band of each window short, so that
/// the others start on cache lines; a window one tile deep kept a short band in every
/// window, and was slower for every element size (benches/NOTES.md, `src/typed/`).
const TILES_PER_WINDOW: usize = 2;

/// Elements of each window of `write_zarr_bytes`: [`WRITE_BUFFER_SIZE`] bytes, or for a
/// layout converted in tiles (`strided`: an array in one memory slice, whose windows keep
/// the tiles), as many indices of the axis the tiles read along as [`TILES_PER_WINDOW`]
/// tiles hold, up to [`TILED_WRITE_BUFFER_SIZE`] bytes, when that is more.
fn write_window<A: Item>(strided: Option<&Strided>) -> usize {
    let tiled = strided.map_or(0, |s| {
        let most = TILED_WRITE_BUFFER_SIZE / A::BYTES;
        let depth = TILES_PER_WINDOW * traverse::tile::<A>().rows;
        traverse::tiled_window(s, depth, most)
    });
    tiled.max(WRITE_BUFFER_SIZE / A::BYTES).max(1)
}

/// Encode `view` into a new `Vec`, its only allocation.
pub(crate) fn encode_vec<A: Item>(
    view: ArrayView<'_, A, IxDyn>,
    endian: Endian,
) -> Result<Vec<u8>, Error> {
    let len = checked_len(view.shape(), A::BYTES)?;
    let mut out = vec![0u8; len * A::BYTES];
    encode(view, endian, &mut out);
    Ok(out)
}

/// Encode `view`, of elements, into `out`, whose length is already checked, as the units
/// its elements move as where its memory is one slice: the element types of one unit share
/// the code below ([`encode`]).
pub(crate) fn encode_elements<A: Element>(
    view: ArrayView<'_, A, IxDyn>,
    endian: Endian,
    out: &mut [u8],
) {
    match out_units(view) {
        Ok(units) => encode(units, endian, out),
        Err(view) => encode(view, endian, out),
    }
}

/// Encode `view` into `out`, whose length is already checked: on the thread pool in parts
/// when it is large and the `rayon` feature is on.
pub(crate) fn encode<A: Item>(view: ArrayView<'_, A, IxDyn>, endian: Endian, out: &mut [u8]) {
    parallel::encode(
        view,
        out,
        |view, out| encode_sequential(view, endian, out),
        |memory, window, out| encode_strided(memory, window, endian, out, &mut Scratch::default()),
    )
}

/// Encode `view` into `out` on the calling thread.
fn encode_sequential<A: Item>(view: ArrayView<'_, A, IxDyn>, endian: Endian, out: &mut [u8]) {
    match view.as_slice() {
        Some(slice) => A::write(slice, endian, out),
        None => traverse::walk(view, 0, &mut Encoder::new(endian, out)),
    }
}

/// Encode the elements `strided` describes in `memory` into `out`, reusing `scratch`.
fn encode_strided<A: Item>(
    memory: &[A],
    strided: &Strided,
    endian: Endian,
    out: &mut [u8],
    scratch: &mut Scratch<A::Out>,
) {
    let mut encoder = Encoder::new(endian, out);
    encoder.scratch = std::mem::take(scratch);
    encoder.planned(A::outs(memory), strided);
    *scratch = encoder.scratch;
}

/// The scratch buffers of an encoder, allocated on the first block that needs one:
/// standard layouts never do.
struct Scratch<T> {
    /// Tiles of units, converted as they are gathered.
    elements: Vec<T>,
    /// Bands of lanes that step through memory, copied in column by column
    /// ([`Visitor::staged`]).
    stepped: Vec<T>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            elements: Vec::new(),
            stepped: Vec::new(),
        }
    }
}

/// Blocks from memory to bytes, of one unit: every element type that moves as it runs
/// this code.
struct Encoder<'o, T> {
    /// Whether the stream is in the other byte order than this machine's.
    swap: bool,
    out: &'o mut [u8],
    scratch: Scratch<T>,
}

impl<'o, T: Moves> Encoder<'o, T> {
    fn new(endian: Endian, out: &'o mut [u8]) -> Self {
        Encoder {
            swap: endian != Endian::NATIVE,
            out,
            scratch: Scratch::default(),
        }
    }

    /// The blocks of `strided`, whose elements are `memory`, from stream position 0.
    fn planned(&mut self, memory: &[T], strided: &Strided) {
        let origin = traverse::Origin::of(memory, self.out);
        traverse::plan(strided, traverse::tile::<T>(), origin, &mut |b| {
            self.convert(memory, b)
        });
    }
}

/// Gather block `b` into the first tile of `scratch` with `gather`, which converts, and
/// copy the tile's rows to their places in `out`.
fn gathered<P: Moves>(
    scratch: &mut Vec<P>,
    b: &Block,
    out: &mut [u8],
    gather: impl FnOnce(&mut [P]),
) {
    scratch.resize(traverse::tile::<P>().len(), P::zeroed());
    let tile = &mut scratch[..b.rows * b.pitch];
    gather(tile);
    let n = b.cols * P::SIZE;
    for (r, row) in tile.chunks_exact(b.pitch).enumerate() {
        let at = b.stream_row(r) * P::SIZE;
        traverse::prefetch(
            out,
            b.stream_row(r + traverse::ROWS_AHEAD) * P::SIZE,
            n,
            true,
        );
        P::write(&row[..b.cols], false, &mut out[at..at + n]);
    }
}

impl<T: Moves> Encoder<'_, T> {
    /// Convert block `b` of `memory`.
    fn convert<M: Columns<T> + ?Sized>(&mut self, memory: &M, b: Block) {
        let n = b.cols * T::SIZE;
        if let (1, Some(memory)) = (b.col_step, memory.whole()) {
            for r in 0..b.rows {
                let at = b.stream_row(r) * T::SIZE;
                T::write(
                    &memory[b.row(r)..][..b.cols],
                    self.swap,
                    &mut self.out[at..at + n],
                );
            }
            return;
        }
        // Converted while gathered, so the rows are plain copies.
        let gather = |tile: &mut [T]| T::gather(memory, &b, tile, self.swap);
        gathered(&mut self.scratch.elements, &b, self.out, gather);
    }
}

impl<'a, T: Moves> Visitor<&'a [T], T> for Encoder<'_, T> {
    fn block(&mut self, memory: &mut &'a [T], b: Block) {
        self.convert(*memory, b)
    }

    fn lanes(&mut self, lanes: &mut [&'a [T]], b: Block) {
        self.convert(&Lanes(lanes), b)
    }

    fn staged(&mut self, band: &mut [T], b: Block) -> bool {
        for tile in b.staged_bands(traverse::tile::<T>()) {
            self.convert(&*band, tile);
        }
        true
    }

    fn take_band(&mut self) -> Vec<T> {
        std::mem::take(&mut self.scratch.stepped)
    }

    fn put_band(&mut self, band: Vec<T>) {
        self.scratch.stepped = band;
    }

    fn tile(&self) -> traverse::Tile {
        traverse::tile::<T>()
    }

    fn row_moves(&self) -> traverse::RowMoves {
        let copied = T::is_verbatim(self.swap);
        traverse::RowMoves {
            piece: if copied {
                usize::MAX
            } else {
                traverse::ROW_PIECE_BYTES / T::SIZE
            },
            ask: true,
        }
    }

    fn stream(&self) -> usize {
        self.out.as_ptr() as usize
    }
}
