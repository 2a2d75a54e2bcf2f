//! The reader the caller drives: a subset's array cut into one part per chunk up front, so
//! that each chunk the caller puts, from any thread and in any order, is decoded straight
//! into its own part by the engine's per-part code ([`Decoder`]).

use std::borrow::Cow;
use std::convert::Infallible;
use std::marker::PhantomData;
use std::ops::Range;

use ndarray::{ArrayViewMut, Dimension, IxDyn};

use crate::element::{Item, in_units};
use crate::typed::grid::engine::{Before, Decoder};
use crate::typed::grid::part::{Kind, Spare};
use crate::typed::grid::parts::{ChunkPart, Plan, Slots};
use crate::typed::grid::subset::Subset;
use crate::typed::grid::walk;
use crate::{ChunkGrid, Element, Endian, Error};

/// Fills `view` (any layout) from the subset [origin, origin + view.shape()) of the array
/// of `grid`, chunk by chunk as the caller puts them.
///
/// The reader plans and decodes; the caller fetches, however and in whatever order it
/// likes: a thread pool, an async runtime ([`ChunkDecodeInto::decode_zarr_subset_into_async`](crate::ChunkDecodeInto)
/// drives one with the `async` feature), a cache. [`parts`](Self::parts) lists the chunks
/// the subset touches; [`put`](Self::put) takes a chunk's bytes (or `None` for a missing
/// chunk, whose part then holds `fill`), [`put_part`](Self::put_part) only the bytes of its
/// part (a range read of an uncompressed chunk), and [`finish`](Self::finish) checks that
/// every part came.
///
/// `put` and `put_part` take `&self`: the reader is `Sync`, and parts put from several
/// threads at once are decoded at once, each into its own part of `view`. A part put
/// twice, an index the subset does not touch, a chunk or part of the wrong length are
/// errors and leave `view` as it was; a part whose bytes fail to decode (an invalid
/// `bool`) may be partly written, and stays to be put. The memory the reader holds is in
/// proportion to the chunks the subset touches, not to the grid.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array2};
/// use zarr_bytes::{ChunkGrid, Endian, SubsetReader};
///
/// // A 4 × 4 array of u16 in chunks of 2 × 2: chunk [i, j] holds 10 i + j everywhere.
/// let grid = ChunkGrid::new(&[4, 4], &[2, 2])?;
/// let stored = |index: &[usize]| [(10 * index[0] + index[1]) as u8, 0].repeat(4);
/// let mut out = Array2::<u16>::zeros((2, 3));
/// let reader = SubsetReader::new(out.view_mut(), &grid, &[1, 1], 0, Endian::Little)?;
/// // Fetched in any order, on any thread: here the last first.
/// let parts: Vec<_> = reader.parts().collect();
/// for part in parts.iter().rev() {
///     reader.put(&part.index, Some(&stored(&part.index)))?;
/// }
/// reader.finish()?;
/// assert_eq!(out, array![[0, 1, 1], [10, 11, 11]]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub struct SubsetReader<'a, A, D> {
    reader: Reader<'a>,
    types: PhantomData<fn() -> (A, D)>,
}

impl<'a, A: Element, D: Dimension> SubsetReader<'a, A, D> {
    /// The reader of the subset of `grid`'s array that starts at `origin` and has `view`'s
    /// shape, into `view`.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an origin or view of another rank than the grid;
    /// [`Error::SubsetOverflow`] where the origin plus the view's length does not fit
    /// `usize`; [`Error::RegionOutOfBounds`] where the subset reaches past the array; and
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes.
    pub fn new(
        view: ArrayViewMut<'a, A, D>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill: A,
        endian: Endian,
    ) -> Result<Self, Error> {
        let subset = Subset::at(grid, origin, view.shape())?;
        Self::of(view.into_dyn(), &subset, fill, endian, Before::Anything)
    }

    /// The reader of a checked `subset` into `view`, of its shape, which holds `before`.
    pub(crate) fn of(
        view: ArrayViewMut<'a, A, IxDyn>,
        subset: &Subset<'_>,
        fill: A,
        endian: Endian,
        before: Before,
    ) -> Result<Self, Error> {
        let plan = Plan::new(subset, A::SIZE);
        let subset = Cow::Owned(subset.clone().into_owned());
        let puts: Box<dyn Puts + 'a> = match in_units(view) {
            Ok(units) => {
                let fill = Cow::Owned(vec![fill.to_in()]);
                let decoder = Decoder::new(subset, Kind::Plain, fill, endian, before)?;
                Box::new(Parts::new(units, decoder))
            }
            Err(view) => {
                let fill = Cow::Owned(vec![fill]);
                let decoder = Decoder::new(subset, Kind::Plain, fill, endian, before)?;
                Box::new(Parts::new(view, decoder))
            }
        };
        Ok(SubsetReader {
            reader: Reader { plan, puts },
            types: PhantomData,
        })
    }
}

impl<A, D> SubsetReader<'_, A, D> {
    /// The chunks the subset touches, in C order of their index: each one to put once.
    pub fn parts(&self) -> impl Iterator<Item = ChunkPart> + '_ {
        self.reader.plan.parts()
    }

    /// The byte ranges of chunk `index`'s part in the chunk's bytes, in order: what
    /// [`put_part`](Self::put_part) takes, one after the other. As
    /// [`region_byte_ranges`](crate::region_byte_ranges) of the part's `in_chunk`.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`], and [`Error::TooManyRanges`] for more ranges than memory
    /// holds.
    pub fn byte_ranges(&self, index: &[usize]) -> Result<Vec<Range<usize>>, Error> {
        self.reader.plan.byte_ranges(index)
    }

    /// Decode chunk `index` into its part: `Some` of its bytes, the whole chunk's (only the
    /// part's bytes are read), or `None` for a missing chunk, whose part then holds the
    /// fill value.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`] for a chunk the subset does not touch; [`Error::PutTwice`]
    /// for a part put already; [`Error::InChunk`] holding [`Error::LengthMismatch`] for
    /// bytes of another length than a chunk's (all before anything is written), or
    /// [`Error::InvalidBool`].
    pub fn put(&self, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error> {
        self.reader.put(index, chunk)
    }

    /// Decode chunk `index`'s part from `bytes`, the bytes of its
    /// [`byte_ranges`](Self::byte_ranges) one after the other: the part's elements in C
    /// order. What a range read of an uncompressed chunk (or an inner chunk of a shard)
    /// fetches.
    ///
    /// # Errors
    ///
    /// As [`put`](Self::put), the length being the part's.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array1};
    /// use zarr_bytes::{ChunkGrid, Endian, SubsetReader};
    ///
    /// let grid = ChunkGrid::new(&[8], &[4])?;
    /// let stored: Vec<u8> = (0..8u8).collect(); // both chunks, one after the other
    /// let mut out = Array1::<u8>::zeros(3);
    /// let reader = SubsetReader::new(out.view_mut(), &grid, &[3], 0, Endian::Little)?;
    /// for part in reader.parts().collect::<Vec<_>>() {
    ///     let base = part.index[0] * 4;
    ///     let ranges = reader.byte_ranges(&part.index)?;
    ///     let bytes: Vec<u8> = ranges.iter().flat_map(|r| stored[base + r.start..base + r.end].to_vec()).collect();
    ///     reader.put_part(&part.index, &bytes)?;
    /// }
    /// reader.finish()?;
    /// assert_eq!(out, array![3, 4, 5]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn put_part(&self, index: &[usize], bytes: &[u8]) -> Result<(), Error> {
        self.reader.put_part(index, bytes)
    }

    /// Check that every part was put.
    ///
    /// # Errors
    ///
    /// [`Error::NotPut`] naming the first part, in C order, that was not.
    pub fn finish(self) -> Result<(), Error> {
        self.reader.finish()
    }
}

impl<A, D> std::fmt::Debug for SubsetReader<'_, A, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reader.plan.describe("SubsetReader", f)
    }
}

/// What a reader of any element type, or of a runtime-typed array, holds: the plan, and
/// where its parts go.
pub(crate) struct Reader<'a> {
    pub(crate) plan: Plan,
    pub(crate) puts: Box<dyn Puts + 'a>,
}

impl Reader<'_> {
    /// [`SubsetReader::put`].
    pub(crate) fn put(&self, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error> {
        let position = self.plan.locate(index)?;
        self.puts.put(position, index, chunk)
    }

    /// [`SubsetReader::put_part`].
    pub(crate) fn put_part(&self, index: &[usize], bytes: &[u8]) -> Result<(), Error> {
        let position = self.plan.locate(index)?;
        self.puts.put_part(position, index, bytes)
    }

    /// [`SubsetReader::finish`].
    pub(crate) fn finish(self) -> Result<(), Error> {
        match self.puts.waiting() {
            Some(position) => Err(Error::NotPut {
                index: self.plan.index_at(position),
            }),
            None => Ok(()),
        }
    }
}

/// Where the parts a reader is put go: each chunk's part of an array, or, for data types
/// whose parts are pasted, one array behind a lock.
pub(crate) trait Puts: Send + Sync {
    /// Chunk `index`, at `position` among the parts, whole or missing.
    fn put(&self, position: usize, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error>;
    /// The bytes of chunk `index`'s part alone.
    fn put_part(&self, position: usize, index: &[usize], bytes: &[u8]) -> Result<(), Error>;
    /// The place of the first part not yet put.
    fn waiting(&self) -> Option<usize>;
}

/// An array of items cut into one part per chunk: what a reader of an element type holds.
pub(crate) struct Parts<'a, A: Item> {
    decoder: Decoder<'static, A>,
    slots: Slots<ArrayViewMut<'a, A, IxDyn>>,
    spare: Spare,
}

impl<'a, A: Item> Parts<'a, A> {
    /// `view`, of the decoder's subset's shape, cut along the chunks' edges.
    pub(crate) fn new(view: ArrayViewMut<'a, A, IxDyn>, decoder: Decoder<'static, A>) -> Self {
        let subset = &decoder.subset;
        let slots = Slots::new(subset.len(), |_| None);
        let cut = walk::each::<_, Infallible>(subset, view, &|at, part| {
            slots.set(subset.position(at), part);
            Ok(())
        });
        let Ok(()) = cut;
        Parts {
            decoder,
            slots,
            spare: Spare::default(),
        }
    }

    /// `work` on chunk `index`'s part with a scratch buffer, then the part is put.
    fn with(
        &self,
        position: usize,
        index: &[usize],
        work: impl FnOnce(&[usize], ArrayViewMut<'_, A, IxDyn>, &mut Vec<u8>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let at = self.decoder.at(index);
        self.slots.put(position, index, |part| {
            let mut scratch = self.spare.take();
            let result = work(&at, part.view_mut(), &mut scratch);
            self.spare.give(scratch);
            result
        })
    }
}

impl<A: Item> Puts for Parts<'_, A> {
    fn put(&self, position: usize, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error> {
        self.with(position, index, |at, part, scratch| match chunk {
            Some(bytes) => self.decoder.chunk(at, part, bytes, scratch),
            None => {
                self.decoder.missing(part);
                Ok(())
            }
        })
    }

    fn put_part(&self, position: usize, index: &[usize], bytes: &[u8]) -> Result<(), Error> {
        self.with(position, index, |at, part, scratch| {
            self.decoder.ranges(at, part, bytes, scratch)
        })
    }

    fn waiting(&self) -> Option<usize> {
        self.slots.waiting()
    }
}
