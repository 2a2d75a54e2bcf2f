//! The plan of a subset that the caller drives: the chunks it touches as [`ChunkPart`]s,
//! the check of an index the caller hands back, and which parts are still to come.

use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use crate::Error;
use crate::typed::grid::subset::Subset;
use crate::typed::region::byte_ranges;

/// One chunk a subset touches: its index, the box of it inside the chunk, the same box
/// inside the subset, and whether the subset covers the chunk's whole region of the array.
///
/// What [`SubsetReader::parts`](crate::SubsetReader::parts) and
/// [`SubsetWriter::parts`](crate::SubsetWriter::parts) list, in C order of `index`: what to
/// fetch, and where it goes. zarr-python calls the same thing a `ChunkProjection`
/// (`chunk_coords`, `chunk_selection`, `out_selection`, `is_complete_chunk`).
///
/// # Examples
///
/// ```
/// use ndarray::Array2;
/// use zarr_bytes::{ChunkGrid, ChunkPart, Endian, SubsetReader};
///
/// let grid = ChunkGrid::new(&[10, 10], &[4, 4])?;
/// let mut out = Array2::<u8>::zeros((2, 5));
/// let reader = SubsetReader::new(out.view_mut(), &grid, &[3, 0], 0, Endian::Little)?;
/// let parts: Vec<ChunkPart> = reader.parts().collect();
/// assert_eq!(parts[0], ChunkPart { index: vec![0, 0], in_chunk: vec![3..4, 0..4], in_subset: vec![0..1, 0..4], whole: false });
/// assert_eq!(parts.len(), 4);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChunkPart {
    /// The chunk's index in the grid.
    pub index: Vec<usize>,
    /// The part, in the chunk's coordinates: what to read of it
    /// ([`region_byte_ranges`](crate::region_byte_ranges) of it are its bytes).
    pub in_chunk: Vec<Range<usize>>,
    /// The part, in the subset's coordinates: where it goes in the subset's array.
    pub in_subset: Vec<Range<usize>>,
    /// Whether the subset covers all of the chunk that lies inside the array: a writer
    /// then makes the chunk from the subset alone, and asks nothing of the store.
    pub whole: bool,
}

/// A checked subset as the caller sees it: its chunks, an index checked against them.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    subset: Subset<'static>,
    /// Bytes per element: the unit of a part's byte ranges.
    size: usize,
}

impl Plan {
    /// The plan of `subset`, of elements of `size` bytes.
    pub(crate) fn new(subset: &Subset<'_>, size: usize) -> Plan {
        Plan {
            subset: subset.clone().into_owned(),
            size,
        }
    }

    /// A reader's or writer's `Debug`: its subset.
    pub(crate) fn describe(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(name)
            .field("origin", &self.subset.origin())
            .field("shape", &self.subset.shape())
            .field("chunks", &self.subset.chunks())
            .finish_non_exhaustive()
    }

    /// The parts, in C order of their index.
    pub(crate) fn parts(&self) -> impl Iterator<Item = ChunkPart> + '_ {
        self.subset.indices().map(|index| {
            let meet = self.subset.meet(&index);
            ChunkPart {
                index,
                in_chunk: meet.region,
                in_subset: meet.within,
                whole: meet.whole,
            }
        })
    }

    /// The place among the parts, in C order, of the chunk at `index`.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`] for an index of a chunk the subset does not touch, or of
    /// another rank than the grid.
    pub(crate) fn locate(&self, index: &[usize]) -> Result<usize, Error> {
        if !self.subset.touches(index) {
            return Err(Error::NotInSubset {
                index: index.into(),
            });
        }
        Ok(self.subset.position(index))
    }

    /// The index of the part at `position` in C order.
    pub(crate) fn index_at(&self, mut position: usize) -> Box<[usize]> {
        let chunks = self.subset.chunks();
        let mut index = vec![0; chunks.len()];
        for (k, r) in chunks.iter().enumerate().rev() {
            index[k] = r.start + position % r.len();
            position /= r.len();
        }
        index.into()
    }

    /// The byte ranges of the part of chunk `index` in the chunk's bytes, in order.
    ///
    /// # Errors
    ///
    /// [`Error::NotInSubset`], and [`Error::TooManyRanges`] for more ranges than memory
    /// holds.
    pub(crate) fn byte_ranges(&self, index: &[usize]) -> Result<Vec<Range<usize>>, Error> {
        self.locate(index)?;
        let region = self.subset.meet(index).region;
        byte_ranges(self.subset.grid().chunk_shape(), &region, self.size)
    }
}

/// What is still to be put of each part, by place: `None` once it is.
pub(crate) struct Slots<T>(Vec<Mutex<Option<T>>>);

impl<T> Slots<T> {
    /// `n` slots, each holding what `make` gives for its place.
    pub(crate) fn new(n: usize, make: impl FnMut(usize) -> Option<T>) -> Slots<T> {
        Slots((0..n).map(make).map(Mutex::new).collect())
    }

    /// Set slot `position`.
    pub(crate) fn set(&self, position: usize, value: T) {
        *lock(&self.0[position]) = Some(value);
    }

    /// `work` on what slot `position` holds, for chunk `index`; once it succeeds, the part
    /// is put. On error it stays to be put.
    ///
    /// # Errors
    ///
    /// [`Error::PutTwice`] for a part put already; `work`'s error.
    pub(crate) fn put(
        &self,
        position: usize,
        index: &[usize],
        work: impl FnOnce(&mut T) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut slot = lock(&self.0[position]);
        let Some(value) = slot.as_mut() else {
            return Err(Error::PutTwice {
                index: index.into(),
            });
        };
        work(value)?;
        *slot = None;
        Ok(())
    }

    /// The place of the first part not yet put.
    pub(crate) fn waiting(&self) -> Option<usize> {
        self.0.iter().position(|slot| lock(slot).is_some())
    }
}

/// A slot, whatever a panic elsewhere left it as.
fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}
