//! The writer the caller drives: each chunk a subset touches made from the subset's array,
//! or updated in the caller's own buffer, on whatever thread asks, by the engine's
//! per-part code ([`Encoder`]).

use std::borrow::Cow;
use std::marker::PhantomData;

use ndarray::{ArrayView, CowArray, Dimension, IxDyn, Slice};

use crate::element::{Item, out_units};
use crate::typed::grid::engine::Encoder;
use crate::typed::grid::fill::fill_bytes;
use crate::typed::grid::part::{Kind, Spare};
use crate::typed::grid::parts::{ChunkPart, Plan};
use crate::typed::grid::sink::in_chunk;
use crate::typed::grid::subset::{Meet, Subset};
use crate::{ChunkGrid, Element, Endian, Error};

/// Writes `array` into the subset [origin, origin + array.shape()) of the array of `grid`.
///
/// The writer plans and encodes; the caller reads and stores chunks, however and in
/// whatever order it likes ([`ChunkEncode::encode_zarr_subset_async`](crate::ChunkEncode)
/// drives one with the `async` feature). For each of [`parts`](Self::parts): a part the
/// subset covers `whole`, or a chunk that is not stored, is made by
/// [`encode`](Self::encode); a chunk stored and covered in part is updated in the
/// caller's buffer by [`update`](Self::update), only the subset's elements written. Both
/// say when the chunk holds only the fill value, for the caller to erase it, as Zarr
/// writers do.
///
/// Both take `&self`: the writer is `Sync`, and chunks may be encoded from several threads
/// at once. Nothing is written anywhere but into the buffer `update` is lent, and that
/// only once every check has passed: a failed call leaves the caller's store as it was.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use ndarray::array;
/// use zarr_bytes::{ChunkGrid, Endian, SubsetWriter};
///
/// // A 4 × 4 array of u8 in chunks of 2 × 2, fill value 0, every chunk stored as 1s.
/// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
/// let mut store: HashMap<Vec<usize>, Vec<u8>> = grid.indices().map(|i| (i, vec![1; 4])).collect();
/// // Rows 1..4, columns 2..4: chunk [1, 1] whole, the second row of chunk [0, 1].
/// let x = array![[9u8, 9], [0, 0], [0, 0]];
/// let writer = SubsetWriter::new(x.view(), &grid, &[1, 2], 0, Endian::Little)?;
/// for part in writer.parts().collect::<Vec<_>>() {
///     let stored = if part.whole { None } else { store.get_mut(&part.index) };
///     match stored {
///         // Updated where it lies: no copy, and untouched if the call fails.
///         Some(bytes) => {
///             if writer.update(&part.index, bytes)? {
///                 store.remove(&part.index);
///             }
///         }
///         None => match writer.encode(&part.index)? {
///             Some(bytes) => { store.insert(part.index, bytes); }
///             None => { store.remove(&part.index); } // only the fill value: erased
///         },
///     }
/// }
/// assert_eq!(store[&vec![0, 1]], [1, 1, 9, 9]);
/// assert!(!store.contains_key(&vec![1, 1]));
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub struct SubsetWriter<'a, A, D> {
    writer: Writer<'a>,
    types: PhantomData<fn() -> (A, D)>,
}

impl<'a, A: Element, D: Dimension> SubsetWriter<'a, A, D> {
    /// The writer of `array` into the subset of `grid`'s array that starts at `origin` and
    /// has `array`'s shape. The array is read once now to find the chunks that hold only
    /// the fill value, where it is one memory slice.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an origin or array of another rank than the grid;
    /// [`Error::SubsetOverflow`] where the origin plus the array's length does not fit
    /// `usize`; [`Error::RegionOutOfBounds`] where the subset reaches past the array; and
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes.
    pub fn new(
        array: ArrayView<'a, A, D>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
    ) -> Result<Self, Error> {
        let subset = Subset::at(grid, origin, array.shape())?;
        let plan = Plan::new(&subset, A::SIZE);
        let subset = subset.into_owned();
        let fill = fill_bytes(fill, endian);
        let encodes: Box<dyn Encodes + 'a> = match out_units(array.into_dyn()) {
            Ok(units) => Box::new(Sources::new(
                units.into(),
                subset,
                Kind::Plain,
                &fill,
                endian,
            )?),
            Err(view) => Box::new(Sources::new(
                view.into(),
                subset,
                Kind::Plain,
                &fill,
                endian,
            )?),
        };
        Ok(SubsetWriter {
            writer: Writer { plan, encodes },
            types: PhantomData,
        })
    }
}

impl<A, D> SubsetWriter<'_, A, D> {
    /// The chunks the subset touches, in C order of their index.
    pub fn parts(&self) -> impl Iterator<Item = ChunkPart> + '_ {
        self.writer.plan.parts()
    }

    /// The new bytes of chunk `index`: for a part the subset covers whole, or a partly
    /// covered chunk that is not stored (the rest is the fill value). `None`: it holds only
    /// the fill value, bit for bit, and is not made.
    ///
    /// For a stored chunk the subset covers in part this is not what the store should
    /// hold: [`update`](Self::update) it.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`] for a chunk the subset does not touch, and
    /// [`Error::InChunk`] holding [`Error::OutOfRange`] for a sub-byte integer out of its
    /// range.
    pub fn encode(&self, index: &[usize]) -> Result<Option<Vec<u8>>, Error> {
        self.writer.encode(index)
    }

    /// As [`encode`](Self::encode), into the caller's `out` of a chunk's length: every
    /// byte written, padding included, so one buffer may serve chunk after chunk. `true`:
    /// the chunk holds only the fill value and nothing is written (erase it). On error
    /// `out` is as it was.
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode), and [`Error::InChunk`] holding
    /// [`Error::LengthMismatch`] for a buffer of another length than a chunk's.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::{ChunkGrid, Endian, SubsetWriter};
    ///
    /// let grid = ChunkGrid::new(&[3], &[2])?;
    /// let x = array![7u16, 0, 8];
    /// let writer = SubsetWriter::new(x.view(), &grid, &[0], 0, Endian::Big)?;
    /// let mut out = [0xee; 4];
    /// assert!(!writer.encode_into(&[0], &mut out)?);
    /// assert_eq!(out, [0, 7, 0, 0]);
    /// assert!(!writer.encode_into(&[1], &mut out)?);
    /// assert_eq!(out, [0, 8, 0, 0]); // the padding past the array's end is the fill value
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn encode_into(&self, index: &[usize], out: &mut [u8]) -> Result<bool, Error> {
        self.writer.encode_into(index, out)
    }

    /// A partly covered chunk as stored, updated in the caller's buffer: the covered
    /// elements only, every other byte (padding included) as stored. `true`: it now holds
    /// only the fill value (erase it). On error the buffer is as it was.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`] for a chunk the subset does not touch, and
    /// [`Error::InChunk`] holding [`Error::LengthMismatch`] for a buffer of another length
    /// than a chunk's, or [`Error::OutOfRange`].
    pub fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error> {
        self.writer.update(index, stored)
    }
}

impl<A, D> std::fmt::Debug for SubsetWriter<'_, A, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.writer.plan.describe("SubsetWriter", f)
    }
}

/// What a writer of any element type, or of a runtime-typed array, holds: the plan, and
/// what it encodes from.
pub(crate) struct Writer<'a> {
    pub(crate) plan: Plan,
    pub(crate) encodes: Box<dyn Encodes + 'a>,
}

impl Writer<'_> {
    /// [`SubsetWriter::encode`].
    pub(crate) fn encode(&self, index: &[usize]) -> Result<Option<Vec<u8>>, Error> {
        self.plan.locate(index)?;
        if self.encodes.fills(index)? {
            return Ok(None);
        }
        let mut out = vec![0u8; self.encodes.len()];
        self.encodes.make(index, &mut out)?;
        Ok(Some(out))
    }

    /// [`SubsetWriter::encode_into`].
    pub(crate) fn encode_into(&self, index: &[usize], out: &mut [u8]) -> Result<bool, Error> {
        self.plan.locate(index)?;
        let expected = self.encodes.len();
        if out.len() != expected {
            let actual = out.len();
            return Err(in_chunk(index, Error::LengthMismatch { expected, actual }));
        }
        if self.encodes.fills(index)? {
            return Ok(true);
        }
        self.encodes.make(index, out)?;
        Ok(false)
    }

    /// [`SubsetWriter::update`].
    pub(crate) fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error> {
        self.plan.locate(index)?;
        self.encodes.update(index, stored)
    }
}

/// What a writer encodes from: an array of items, or, for data types whose parts are
/// pasted, a runtime-typed view.
pub(crate) trait Encodes: Send + Sync {
    /// The length of a chunk's bytes.
    fn len(&self) -> usize;
    /// Whether chunk `index`'s part holds only the fill value.
    fn fills(&self, index: &[usize]) -> Result<bool, Error>;
    /// Chunk `index` made from its part alone into `out`, of a chunk's length: every byte
    /// written, and none where it fails.
    fn make(&self, index: &[usize], out: &mut [u8]) -> Result<(), Error>;
    /// Chunk `index` as stored, its part written in place: whether it then holds only the
    /// fill value.
    fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error>;
}

/// An array of items and the encoder of its subset: what a writer of an element type
/// holds.
pub(crate) struct Sources<'a, A> {
    encoder: Encoder<'static, A>,
    array: CowArray<'a, A, IxDyn>,
    spare: Spare,
}

impl<'a, A: Item> Sources<'a, A> {
    /// The encoder of `array` (of `subset`'s shape) into `subset`.
    pub(crate) fn new(
        array: CowArray<'a, A, IxDyn>,
        subset: Subset<'static>,
        kind: Kind<A>,
        fill: &[u8],
        endian: Endian,
    ) -> Result<Self, Error> {
        let subset = Cow::Owned(subset);
        let encoder = Encoder::new(subset, kind, fill, endian, Some(array.view()))?;
        Ok(Sources {
            encoder,
            array,
            spare: Spare::default(),
        })
    }

    /// `work` on chunk `index`'s place, its meeting with the subset and its part of the
    /// array, with a scratch buffer; errors name the chunk.
    fn with<T>(
        &self,
        index: &[usize],
        work: impl FnOnce(&[usize], &Meet, ArrayView<'_, A, IxDyn>, &mut Vec<u8>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let at = self.encoder.at(index);
        let meet = self.encoder.subset.meet(&at);
        let part = within(self.array.view(), &meet);
        let mut scratch = self.spare.take();
        let result = work(&at, &meet, part, &mut scratch);
        self.spare.give(scratch);
        result.map_err(|e| in_chunk(index, e))
    }
}

impl<A: Item> Encodes for Sources<'_, A> {
    fn len(&self) -> usize {
        self.encoder.len()
    }

    fn fills(&self, index: &[usize]) -> Result<bool, Error> {
        self.with(index, |at, _, part, _| Ok(self.encoder.fills(at, part)))
    }

    fn make(&self, index: &[usize], out: &mut [u8]) -> Result<(), Error> {
        self.with(index, |_, meet, part, scratch| {
            self.encoder.make(meet, part, out, scratch)
        })
    }

    fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error> {
        self.with(index, |at, meet, part, scratch| {
            self.encoder.update(at, meet, part, stored, scratch)
        })
    }
}

/// The part of `view`, the subset's array, where a chunk meets the subset.
fn within<'v, A>(mut view: ArrayView<'v, A, IxDyn>, meet: &Meet) -> ArrayView<'v, A, IxDyn> {
    view.slice_each_axis_inplace(|ax| Slice::from(meet.within[ax.axis.index()].clone()));
    view
}
