//! The regular chunk grid: an array's shape cut into chunks of one shape.

use std::ops::Range;

use crate::Error;
use crate::typed::region;

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
    #[must_use]
    pub fn array_shape(&self) -> &[usize] {
        &self.array_shape
    }

    /// The shape of every chunk, edge chunks included (they are stored at this size).
    #[must_use]
    pub fn chunk_shape(&self) -> &[usize] {
        &self.chunk_shape
    }

    /// Chunks along each axis; the last one along an axis may be partly outside the array.
    #[must_use]
    pub fn grid_shape(&self) -> &[usize] {
        &self.grid_shape
    }

    /// The number of chunks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the grid has no chunk: the array has an axis of length 0.
    #[must_use]
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
    ) -> Result<impl Iterator<Item = Vec<usize>> + use<'_>, Error> {
        region::check(&self.array_shape, region)?;
        let origin: Vec<usize> = region.iter().map(|r| r.start).collect();
        let shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
        Ok(BoxIndices::new(self.touched(&origin, &shape)))
    }

    /// The chunks that the box of the array at `origin` of `shape` (checked) touches, a
    /// range of indices per axis: all empty for an empty box.
    pub(crate) fn touched(&self, origin: &[usize], shape: &[usize]) -> Vec<Range<usize>> {
        if shape.contains(&0) {
            return vec![0..0; shape.len()];
        }
        (0..shape.len())
            .map(|k| {
                let c = self.chunk_shape[k];
                origin[k] / c..(origin[k] + shape[k]).div_ceil(c)
            })
            .collect()
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
}

/// The indices of a box of chunks, one range per axis, in C order.
pub(crate) struct BoxIndices {
    ranges: Vec<Range<usize>>,
    next: Option<Vec<usize>>,
}

impl BoxIndices {
    pub(crate) fn new(ranges: Vec<Range<usize>>) -> BoxIndices {
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
