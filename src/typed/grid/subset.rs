//! A subset of a grid's array: a box, one range per axis, checked against the array; the
//! chunks it touches, and the part of each that lies in it. Nothing here is in proportion
//! to the grid: only to the subset's rank and the chunks it touches.

use std::borrow::Cow;
use std::ops::Range;

use crate::Error;
use crate::typed::grid::ChunkGrid;
use crate::typed::grid::chunk_grid::BoxIndices;
use crate::typed::region;

/// A checked box of `grid`'s array, and the box of chunks it touches.
#[derive(Clone, Debug)]
pub(crate) struct Subset<'g> {
    /// Borrowed by the calls that walk it; owned by a reader or writer that outlives them.
    grid: Cow<'g, ChunkGrid>,
    /// The subset's first element along each axis.
    origin: Vec<usize>,
    /// Its length along each axis.
    shape: Vec<usize>,
    /// The chunks it touches along each axis: all empty for an empty subset.
    chunks: Vec<Range<usize>>,
}

/// Where a chunk meets a subset.
pub(crate) struct Meet {
    /// The part in the subset, in the chunk's coordinates.
    pub region: Vec<Range<usize>>,
    /// The same part in the subset's coordinates: its place in the subset's array.
    pub within: Vec<Range<usize>>,
    /// The chunk's part inside the array, in the chunk's coordinates: its leading corner.
    pub inside: Vec<usize>,
    /// Whether the subset holds all of the chunk's part inside the array.
    pub whole: bool,
}

impl<'g> Subset<'g> {
    /// The whole array of `grid`.
    pub(crate) fn whole(grid: &'g ChunkGrid) -> Subset<'g> {
        let origin = vec![0; grid.array_shape().len()];
        Subset::new(grid, origin, grid.array_shape().to_vec())
    }

    /// The subset of `grid`'s array that starts at `origin` and has `shape`.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an origin or shape of another rank than the grid,
    /// [`Error::SubsetOverflow`] where the subset's end does not fit `usize`, and
    /// [`Error::RegionOutOfBounds`] where it reaches past the array.
    pub(crate) fn at(
        grid: &'g ChunkGrid,
        origin: &[usize],
        shape: &[usize],
    ) -> Result<Subset<'g>, Error> {
        let rank = grid.array_shape().len();
        for actual in [origin.len(), shape.len()] {
            if actual != rank {
                return Err(Error::RankMismatch {
                    expected: rank,
                    actual,
                });
            }
        }
        for (axis, (&start, &len)) in origin.iter().zip(shape).enumerate() {
            let end = start
                .checked_add(len)
                .ok_or(Error::SubsetOverflow { axis, start, len })?;
            let array = grid.array_shape()[axis];
            if end > array {
                return Err(Error::RegionOutOfBounds {
                    axis,
                    end,
                    len: array,
                });
            }
        }
        Ok(Subset::new(grid, origin.to_vec(), shape.to_vec()))
    }

    /// The subset `ranges` of `grid`'s array, one range per axis.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`]
    /// for ranges that are no box of the array.
    pub(crate) fn of(grid: &'g ChunkGrid, ranges: &[Range<usize>]) -> Result<Subset<'g>, Error> {
        region::check(grid.array_shape(), ranges)?;
        let origin = ranges.iter().map(|r| r.start).collect();
        let shape = ranges.iter().map(|r| r.len()).collect();
        Ok(Subset::new(grid, origin, shape))
    }

    /// The subset of a checked `origin` and `shape`.
    fn new(grid: &'g ChunkGrid, origin: Vec<usize>, shape: Vec<usize>) -> Subset<'g> {
        let chunks = grid.touched(&origin, &shape);
        Subset {
            grid: Cow::Borrowed(grid),
            origin,
            shape,
            chunks,
        }
    }

    /// The grid.
    pub(crate) fn grid(&self) -> &ChunkGrid {
        &self.grid
    }

    /// The same subset, holding its own copy of the grid.
    pub(crate) fn into_owned(self) -> Subset<'static> {
        Subset {
            grid: Cow::Owned(self.grid.into_owned()),
            origin: self.origin,
            shape: self.shape,
            chunks: self.chunks,
        }
    }

    /// Whether chunk `index` (of the grid's rank) is one the subset touches.
    pub(crate) fn touches(&self, index: &[usize]) -> bool {
        index.len() == self.chunks.len()
            && index.iter().zip(&self.chunks).all(|(i, r)| r.contains(i))
    }

    /// The subset's first element along each axis.
    pub(crate) fn origin(&self) -> &[usize] {
        &self.origin
    }

    /// The subset's shape: the shape of the array that holds it.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The chunks it touches, a range of indices per axis.
    pub(crate) fn chunks(&self) -> &[Range<usize>] {
        &self.chunks
    }

    /// The indices of the chunks it touches, in C order.
    pub(crate) fn indices(&self) -> BoxIndices {
        BoxIndices::new(self.chunks.clone())
    }

    /// How many chunks it touches: at most its elements, as each holds one of them.
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(|r| r.len()).product()
    }

    /// The place of chunk `index`, one it touches, among them in C order.
    pub(crate) fn position(&self, index: &[usize]) -> usize {
        index
            .iter()
            .zip(&self.chunks)
            .fold(0, |at, (&i, r)| at * r.len() + (i - r.start))
    }

    /// Where along `axis` the part of chunk `index` (one it touches) starts in the subset.
    pub(crate) fn start(&self, axis: usize, index: usize) -> usize {
        let first = index * self.grid.chunk_shape()[axis];
        first.max(self.origin[axis]) - self.origin[axis]
    }

    /// Where chunk `index`, one the subset touches, meets it.
    pub(crate) fn meet(&self, index: &[usize]) -> Meet {
        let (array, chunk) = (self.grid.array_shape(), self.grid.chunk_shape());
        let mut whole = true;
        let mut region = Vec::with_capacity(index.len());
        let mut within = Vec::with_capacity(index.len());
        let mut inside = Vec::with_capacity(index.len());
        for k in 0..index.len() {
            let first = index[k] * chunk[k];
            let end = first.saturating_add(chunk[k]).min(array[k]);
            let start = first.max(self.origin[k]);
            let stop = end.min(self.origin[k] + self.shape[k]);
            whole &= start == first && stop == end;
            region.push(start - first..stop - first);
            within.push(start - self.origin[k]..stop - self.origin[k]);
            inside.push(end - first);
        }
        Meet {
            region,
            within,
            inside,
            whole,
        }
    }

    /// This subset of `grid`, the same grid with one more axis of `len`, held whole by one
    /// chunk and the subset: the bytes of raw elements.
    pub(crate) fn with_axis<'h>(&self, grid: &'h ChunkGrid, len: usize) -> Subset<'h> {
        let mut origin = self.origin.clone();
        let mut shape = self.shape.clone();
        origin.push(0);
        shape.push(len);
        Subset::new(grid, origin, shape)
    }
}
