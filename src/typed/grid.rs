//! The regular chunk grid: an array's shape cut into chunks of one shape, and the walk that
//! hands each chunk its region of an array, on the pool or in C order.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};

use crate::typed::region;
use crate::{parallel, Error};

/// A regular chunk grid: an array's shape cut into chunks of one shape, in C order.
///
/// The chunks along an axis start at multiples of the chunk's extent; the last one along an
/// axis may reach past the array's edge (an *edge chunk*), and Zarr stores it at full size,
/// the part outside the array holding the fill value. A 0-d array is one chunk (index `[]`),
/// an array with an axis of length 0 has none, and a chunk larger than the array is one
/// chunk that is mostly padding.
///
/// # Examples
///
/// ```
/// use zarr_bytes::ChunkGrid;
///
/// let grid = ChunkGrid::new(&[5, 7], &[2, 3])?;
/// assert_eq!(grid.grid_shape(), &[3, 3]);
/// assert_eq!(grid.len(), 9);
/// assert_eq!(grid.region(&[2, 1])?, [4..5, 3..6]); // the last row of chunks is cut short
/// let touched: Vec<_> = grid.chunks_in(&[1..3, 2..4])?.collect();
/// assert_eq!(touched, [[0, 0], [0, 1], [1, 0], [1, 1]]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChunkGrid {
    array_shape: Vec<usize>,
    chunk_shape: Vec<usize>,
    grid_shape: Vec<usize>,
    len: usize,
}

impl ChunkGrid {
    /// The grid of an array of `array_shape` cut into chunks of `chunk_shape`.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for a chunk shape of another rank than the array,
    /// [`Error::ZeroChunkExtent`] for a chunk extent of 0, and [`Error::TooManyChunks`] when
    /// the number of chunks does not fit `usize`.
    pub fn new(array_shape: &[usize], chunk_shape: &[usize]) -> Result<ChunkGrid, Error> {
        if chunk_shape.len() != array_shape.len() {
            return Err(Error::RankMismatch {
                expected: array_shape.len(),
                actual: chunk_shape.len(),
            });
        }
        if let Some(axis) = chunk_shape.iter().position(|&c| c == 0) {
            return Err(Error::ZeroChunkExtent { axis });
        }
        let grid_shape: Vec<usize> = array_shape
            .iter()
            .zip(chunk_shape)
            .map(|(&a, &c)| a.div_ceil(c))
            .collect();
        let len = if grid_shape.contains(&0) {
            0
        } else {
            grid_shape
                .iter()
                .try_fold(1usize, |n, &g| n.checked_mul(g))
                .ok_or_else(|| Error::TooManyChunks {
                    grid_shape: grid_shape.as_slice().into(),
                })?
        };
        Ok(ChunkGrid {
            array_shape: array_shape.to_vec(),
            chunk_shape: chunk_shape.to_vec(),
            grid_shape,
            len,
        })
    }

    /// The shape of the whole array.
    pub fn array_shape(&self) -> &[usize] {
        &self.array_shape
    }

    /// The shape of every chunk, edge chunks included (they are stored at this size).
    pub fn chunk_shape(&self) -> &[usize] {
        &self.chunk_shape
    }

    /// Chunks along each axis; the last one along an axis may be partly outside the array.
    pub fn grid_shape(&self) -> &[usize] {
        &self.grid_shape
    }

    /// The number of chunks.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the grid has no chunk: the array has an axis of length 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every chunk's index, in C order.
    ///
    /// # Examples
    ///
    /// ```
    /// use zarr_bytes::ChunkGrid;
    ///
    /// let grid = ChunkGrid::new(&[3, 4], &[2, 4])?;
    /// assert_eq!(grid.indices().collect::<Vec<_>>(), [[0, 0], [1, 0]]);
    /// assert_eq!(ChunkGrid::new(&[], &[])?.indices().count(), 1);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn indices(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        let whole: Vec<Range<usize>> = self.grid_shape.iter().map(|&g| 0..g).collect();
        BoxIndices::new(whole)
    }

    /// The part of the array that chunk `index` covers: one range per axis, cut at the
    /// array's edge. Its lengths are the shape of the chunk's part inside the array, the
    /// part [`encode_zarr_chunk`](crate::ChunkEncode::encode_zarr_chunk) pads.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`] for an index of another rank, and
    /// [`Error::ChunkIndexOutOfBounds`] for an index past the grid.
    pub fn region(&self, index: &[usize]) -> Result<Vec<Range<usize>>, Error> {
        if index.len() != self.grid_shape.len() {
            return Err(Error::RankMismatch {
                expected: self.grid_shape.len(),
                actual: index.len(),
            });
        }
        if let Some(axis) = (0..index.len()).find(|&k| index[k] >= self.grid_shape[k]) {
            return Err(Error::ChunkIndexOutOfBounds {
                axis,
                index: index[axis],
                len: self.grid_shape[axis],
            });
        }
        Ok(self.region_unchecked(index))
    }

    /// [`region`](Self::region) of an index known to be in the grid.
    pub(crate) fn region_unchecked(&self, index: &[usize]) -> Vec<Range<usize>> {
        (0..index.len())
            .map(|k| {
                let start = index[k] * self.chunk_shape[k];
                start
                    ..start
                        .saturating_add(self.chunk_shape[k])
                        .min(self.array_shape[k])
            })
            .collect()
    }

    /// The chunks that `region` of the array (one range per axis) touches, in C order: the
    /// chunks a reader of that region needs. An empty region touches none.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`]
    /// for a region that does not fit the array.
    pub fn chunks_in(
        &self,
        region: &[Range<usize>],
    ) -> Result<impl Iterator<Item = Vec<usize>> + '_, Error> {
        region::check(&self.array_shape, region)?;
        let chunks: Vec<Range<usize>> = if region.iter().any(|r| r.is_empty()) {
            vec![0..0; region.len()]
        } else {
            region
                .iter()
                .zip(&self.chunk_shape)
                .map(|(r, &c)| r.start / c..r.end.div_ceil(c))
                .collect()
        };
        Ok(BoxIndices::new(chunks))
    }

    /// The place of chunk `index`, of the grid, in C order.
    pub(crate) fn position(&self, index: &[usize]) -> usize {
        index
            .iter()
            .zip(&self.grid_shape)
            .fold(0, |at, (&i, &g)| at * g + i)
    }

    /// Check that `shape`, an array's, is this grid's.
    pub(crate) fn check_array(&self, shape: &[usize]) -> Result<(), Error> {
        if shape != self.array_shape.as_slice() {
            return Err(Error::GridShapeMismatch {
                expected: self.array_shape.as_slice().into(),
                actual: shape.into(),
            });
        }
        Ok(())
    }

    /// `work(index, region)` on every chunk of this grid, given its region of `array` (whose
    /// shape is the grid's): on the pool when there is one, else in C order. The first error
    /// stops the work: chunks not yet started are skipped, and it is returned.
    pub(crate) fn each<V: Part, E: Send>(
        &self,
        array: V,
        work: &ChunkWork<'_, V, E>,
    ) -> Result<(), E> {
        if self.is_empty() {
            return Ok(());
        }
        let chunks: Vec<Range<usize>> = self.grid_shape.iter().map(|&g| 0..g).collect();
        let walk = Walk {
            grid: self,
            work,
            stopped: AtomicBool::new(false),
            shared: self.len > 1,
        };
        walk.bisect(array, chunks)
    }
}

/// The work on one chunk: its index, and its region of the array.
pub(crate) type ChunkWork<'w, V, E> = dyn Fn(&[usize], V) -> Result<(), E> + Sync + 'w;

/// An array view that can be cut in two along an axis: shared views, and mutable views whose
/// halves go to two threads.
pub(crate) trait Part: Send + Sized {
    /// The view's halves before and after `index` along `axis`.
    fn split(self, axis: usize, index: usize) -> (Self, Self);
}

impl<A: Sync> Part for ArrayView<'_, A, IxDyn> {
    fn split(self, axis: usize, index: usize) -> (Self, Self) {
        self.split_at(Axis(axis), index)
    }
}

impl<A: Send> Part for ArrayViewMut<'_, A, IxDyn> {
    fn split(self, axis: usize, index: usize) -> (Self, Self) {
        self.split_at(Axis(axis), index)
    }
}

/// One walk over a grid's chunks.
struct Walk<'g, 'w, V, E> {
    grid: &'g ChunkGrid,
    work: &'w ChunkWork<'w, V, E>,
    /// Set by the first error: the chunks not yet started are skipped.
    stopped: AtomicBool,
    /// Whether the chunks share the pool, so that each is converted on one thread.
    shared: bool,
}

impl<V: Part, E: Send> Walk<'_, '_, V, E> {
    /// The chunks `chunks` (a range of indices per axis) of `view`, which is their region.
    /// Cutting the outermost axis that holds more than one chunk, the first half before the
    /// second, visits the chunks in C order on one thread.
    fn bisect(&self, view: V, mut chunks: Vec<Range<usize>>) -> Result<(), E> {
        if self.stopped.load(Ordering::Relaxed) {
            return Ok(());
        }
        let Some(axis) = chunks.iter().position(|r| r.len() > 1) else {
            let index: Vec<usize> = chunks.iter().map(|r| r.start).collect();
            let result = if self.shared {
                parallel::on_this_thread(|| (self.work)(&index, view))
            } else {
                (self.work)(&index, view)
            };
            if result.is_err() {
                self.stopped.store(true, Ordering::Relaxed);
            }
            return result;
        };
        let r = chunks[axis].clone();
        let middle = r.start + r.len() / 2;
        let at = (middle - r.start) * self.grid.chunk_shape[axis];
        let (first, second) = view.split(axis, at);
        let mut rest = chunks.clone();
        chunks[axis] = r.start..middle;
        rest[axis] = middle..r.end;
        let (a, b) = parallel::join(|| self.bisect(first, chunks), || self.bisect(second, rest));
        a.and(b)
    }
}

/// The indices of a box of chunks, one range per axis, in C order.
struct BoxIndices {
    ranges: Vec<Range<usize>>,
    next: Option<Vec<usize>>,
}

impl BoxIndices {
    fn new(ranges: Vec<Range<usize>>) -> BoxIndices {
        let next = if ranges.iter().any(|r| r.is_empty()) {
            None
        } else {
            Some(ranges.iter().map(|r| r.start).collect())
        };
        BoxIndices { ranges, next }
    }
}

impl Iterator for BoxIndices {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        // Step the innermost axis; an axis at its end starts over and carries.
        for k in (0..following.len()).rev() {
            following[k] += 1;
            if following[k] < self.ranges[k].end {
                self.next = Some(following);
                break;
            }
            following[k] = self.ranges[k].start;
        }
        Some(current)
    }
}
