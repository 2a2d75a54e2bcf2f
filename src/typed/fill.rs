//! Whether part of an array holds only the fill value, bit for bit: the test by which Zarr
//! writers skip a chunk. Each element is read once, in memory order where the layout has
//! one, and the test stops at the first block of elements that differs.

use ndarray::{ArrayView, Axis, IxDyn};

use crate::traverse::plan::memory_order;
use crate::typed::chunk::fill_with;
use crate::{ChunkGrid, Element, Endian};

/// Bytes of the repeated fill value compared at a time: few enough to stay in the first
/// level cache beside what they are compared with, many enough that each comparison is long.
const PATTERN_BYTES: usize = 4096;

/// A fill value, one element or a raw element's bytes, repeated to [`PATTERN_BYTES`] in the
/// elements' memory form.
pub(crate) struct Fill {
    /// The fill value repeated, as the bytes of the elements in memory (native order).
    bytes: Vec<u8>,
    /// The first 32 bytes of `bytes` as words, when the fill value's bytes repeat within
    /// them (1, 2, 4, 8 or 16 bytes): compared a word at a time, one stream read.
    words: Option<[u64; 4]>,
}

impl Fill {
    /// The pattern of `one`: an element, or the elements of a raw element's bytes.
    pub(crate) fn new<A: Element>(one: &[A]) -> Fill {
        let unit = A::SIZE * one.len();
        let mut bytes = vec![0u8; (PATTERN_BYTES / unit.max(1)).max(1) * unit];
        if let Some(first) = bytes.get_mut(..unit) {
            A::write(one, Endian::NATIVE, first);
        }
        let first: Vec<u8> = bytes[..unit].to_vec();
        fill_with(&mut bytes, &first);
        let words = (unit > 0 && 32 % unit == 0 && bytes.len() >= 32)
            .then(|| bytemuck::pod_read_unaligned(&bytes[..32]));
        Fill { bytes, words }
    }

    /// Whether `elements`, whole repeats of the fill value in a row, are the fill value's.
    fn matches<A: Element>(&self, elements: &[A]) -> bool {
        if self.bytes.is_empty() {
            return elements.is_empty();
        }
        if let Some(memory) = A::as_bytes(elements) {
            return memory
                .chunks(self.bytes.len())
                .all(|block| self.same(block));
        }
        // Types whose memory has bytes that hold no value compare their encodings.
        let per = self.bytes.len() / A::SIZE;
        let mut encoded = vec![0u8; self.bytes.len()];
        elements.chunks(per).all(|c| {
            let encoded = &mut encoded[..c.len() * A::SIZE];
            A::write(c, Endian::NATIVE, encoded);
            *encoded == self.bytes[..encoded.len()]
        })
    }

    /// Whether `block`, at most the pattern's length and starting at a repeat, is the
    /// pattern's start.
    fn same(&self, block: &[u8]) -> bool {
        let Some(words) = self.words else {
            return *block == self.bytes[..block.len()];
        };
        let mut rows = block.chunks_exact(32);
        let mut differ = 0u64;
        for row in &mut rows {
            let w: [u64; 4] = bytemuck::pod_read_unaligned(row);
            differ |= (w[0] ^ words[0]) | (w[1] ^ words[1]) | (w[2] ^ words[2]) | (w[3] ^ words[3]);
        }
        let rest = rows.remainder();
        differ == 0 && *rest == self.bytes[..rest.len()]
    }

    /// Whether `lane`, which steps through memory, holds only the fill value, repeated.
    fn matches_stepped<'l, A: Element + 'l>(&self, lane: impl Iterator<Item = &'l A>) -> bool {
        let per = self.bytes.len() / A::SIZE;
        let mut run = Vec::with_capacity(per);
        let mut lane = lane.peekable();
        while lane.peek().is_some() {
            run.clear();
            run.extend(lane.by_ref().take(per).copied());
            if !self.matches(&run) {
                return false;
            }
        }
        true
    }

    /// Whether every element of `part` is the fill value, an element.
    pub(crate) fn fills<A: Element>(&self, part: ArrayView<'_, A, IxDyn>) -> bool {
        if let Some(memory) = part.as_slice_memory_order() {
            return self.matches(memory);
        }
        // Axes from the farthest in memory to the closest, merged where they are one run:
        // the lanes of the last axis are the longest runs the layout holds.
        let order = memory_order(part.shape(), part.strides());
        let mut part = part.permuted_axes(order);
        let last = part.ndim() - 1;
        for k in (0..last).rev() {
            if !part.merge_axes(Axis(k), Axis(last)) {
                break;
            }
        }
        part.lanes(Axis(last))
            .into_iter()
            .all(|lane| match lane.as_slice() {
                Some(run) => self.matches(run),
                None => self.matches_stepped(lane.iter()),
            })
    }

    /// Whether every raw element of `part`, whose last axis holds each element's bytes, is
    /// the fill value, a raw element.
    pub(crate) fn fills_records<A: Element>(&self, part: ArrayView<'_, A, IxDyn>) -> bool {
        if let Some(c_order) = part.as_slice() {
            return self.matches(c_order);
        }
        let last = part.ndim() - 1;
        part.lanes(Axis(last))
            .into_iter()
            .all(|record| self.matches_stepped(record.iter()))
    }

    /// Which chunks of `grid` (of `array`'s shape) hold an element other than the fill value,
    /// by their place in C order, found in one pass over `array`'s memory in order: each
    /// lane cut at the chunks' edges, a chunk's runs skipped once one of them differs.
    /// `None` unless the array is one memory slice of ascending strides.
    pub(crate) fn chunks_with_data<A: Element>(
        &self,
        array: ArrayView<'_, A, IxDyn>,
        grid: &ChunkGrid,
    ) -> Option<Vec<bool>> {
        let rank = array.ndim();
        if rank == 0 || array.is_empty() || array.strides().iter().any(|&s| s < 0) {
            return None;
        }
        let order = memory_order(array.shape(), array.strides());
        let array = array.permuted_axes(order.clone());
        let memory = array.as_slice()?;
        let shape = array.shape();
        let chunk: Vec<usize> = order.iter().map(|&k| grid.chunk_shape()[k]).collect();
        // The step in C-order chunk places of one chunk along each axis of `array`.
        let mut steps = vec![0; rank];
        let mut step = 1;
        for k in (0..rank).rev() {
            let axis = order.iter().position(|&o| o == k)?;
            steps[axis] = step;
            step *= grid.grid_shape()[k];
        }
        let mut data = vec![false; grid.len()];
        let mut left = grid.len();
        let (last, lane) = (rank - 1, shape[rank - 1]);
        let mut index = vec![0; last];
        for row in memory.chunks(lane) {
            let outer: usize = (0..last).map(|k| index[k] / chunk[k] * steps[k]).sum();
            for (s, run) in row.chunks(chunk[last]).enumerate() {
                let place = outer + s * steps[last];
                if !data[place] && !self.matches(run) {
                    data[place] = true;
                    left -= 1;
                }
            }
            if left == 0 {
                break;
            }
            // The next row: step the innermost outer axis, carrying.
            for k in (0..last).rev() {
                index[k] += 1;
                if index[k] < shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        Some(data)
    }
}
