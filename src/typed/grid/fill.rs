//! The fill value: its bytes repeated, and whether part of an array (or of a chunk's bytes)
//! holds only it, bit for bit: the test by which Zarr writers skip a chunk. Each element is
//! read once, in memory order where the layout has one, and the test stops at the first
//! block of elements that differs.

use std::ops::Range;

use ndarray::{ArrayView, Axis, IxDyn};

use crate::Endian;
use crate::element::Item;
use crate::traverse::permuted;
use crate::traverse::plan::memory_order;
use crate::typed::grid::subset::Subset;
use crate::typed::region;

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
    pub(crate) fn new<A: Item>(one: &[A]) -> Fill {
        let mut memory = vec![0u8; A::BYTES * one.len()];
        A::write(one, Endian::NATIVE, &mut memory);
        Fill::of_bytes(&memory)
    }

    /// The pattern of `unit`, the bytes of one fill value: as the elements hold them in
    /// memory, or as a chunk stores them.
    pub(crate) fn of_bytes(unit: &[u8]) -> Fill {
        let n = unit.len();
        let mut bytes = vec![0u8; (PATTERN_BYTES / n.max(1)).max(1) * n];
        fill_with(&mut bytes, unit);
        let words = (n > 0 && 32 % n == 0 && bytes.len() >= 32)
            .then(|| bytemuck::pod_read_unaligned(&bytes[..32]));
        Fill { bytes, words }
    }

    /// Whether `elements`, whole repeats of the fill value in a row, are the fill value's.
    fn matches<A: Item>(&self, elements: &[A]) -> bool {
        if self.bytes.is_empty() {
            return elements.is_empty();
        }
        if let Some(memory) = A::as_bytes(elements) {
            return self.matches_bytes(memory);
        }
        // Types whose memory has bytes that hold no value compare their encodings.
        let per = self.bytes.len() / A::BYTES;
        let mut encoded = vec![0u8; self.bytes.len()];
        elements.chunks(per).all(|c| {
            let encoded = &mut encoded[..c.len() * A::BYTES];
            A::write(c, Endian::NATIVE, encoded);
            *encoded == self.bytes[..encoded.len()]
        })
    }

    /// Whether `bytes`, whole repeats of the pattern's unit in a row, are its repeats.
    fn matches_bytes(&self, bytes: &[u8]) -> bool {
        if self.bytes.is_empty() {
            return bytes.is_empty();
        }
        bytes.chunks(self.bytes.len()).all(|block| self.same(block))
    }

    /// Whether `region` of a chunk of shape `chunk` holds only this pattern, its unit being
    /// one element of the chunk's `size` bytes (or a raw element, the chunk's last axis
    /// whole): `bytes`, the chunk's, compared as they are stored.
    pub(crate) fn fills_region(
        &self,
        bytes: &[u8],
        chunk: &[usize],
        region: &[Range<usize>],
        size: usize,
    ) -> bool {
        let mut fills = true;
        region::runs(chunk, region, |_, offset, len| {
            fills = fills && self.matches_bytes(&bytes[offset * size..(offset + len) * size]);
        });
        fills
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
    fn matches_stepped<'l, A: Item + 'l>(&self, lane: impl Iterator<Item = &'l A>) -> bool {
        let per = self.bytes.len() / A::BYTES;
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
    pub(crate) fn fills<A: Item>(&self, part: ArrayView<'_, A, IxDyn>) -> bool {
        if let Some(memory) = part.as_slice_memory_order() {
            return self.matches(memory);
        }
        // Axes from the farthest in memory to the closest, merged where they are one run:
        // the lanes of the last axis are the longest runs the layout holds.
        let order = memory_order(part.shape(), part.strides());
        let mut part = permuted(part, &order);
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
    pub(crate) fn fills_records<A: Item>(&self, part: ArrayView<'_, A, IxDyn>) -> bool {
        if let Some(c_order) = part.as_slice() {
            return self.matches(c_order);
        }
        let last = part.ndim() - 1;
        part.lanes(Axis(last))
            .into_iter()
            .all(|record| self.matches_stepped(record.iter()))
    }

    /// Which chunks of those `subset` touches hold an element of `array` (the subset's
    /// array) other than the fill value, by their place among them in C order, found in one
    /// pass over `array`'s memory in order: each lane cut at the chunks' edges, a chunk's
    /// runs skipped once one of them differs. `None` unless the array is one memory slice
    /// of ascending strides.
    pub(crate) fn chunks_with_data<A: Item>(
        &self,
        array: ArrayView<'_, A, IxDyn>,
        subset: &Subset<'_>,
    ) -> Option<Vec<bool>> {
        let rank = array.ndim();
        if rank == 0 || array.is_empty() || array.strides().iter().any(|&s| s < 0) {
            return None;
        }
        let order = memory_order(array.shape(), array.strides());
        let array = permuted(array, &order);
        let memory = array.as_slice()?;
        let shape = array.shape();
        let chunk: Vec<usize> = order
            .iter()
            .map(|&k| subset.grid().chunk_shape()[k])
            .collect();
        let origin: Vec<usize> = order.iter().map(|&k| subset.origin()[k]).collect();
        // The step in C-order places of one chunk along each axis of `array`.
        let mut steps = vec![0; rank];
        let mut step = 1;
        for k in (0..rank).rev() {
            let axis = order.iter().position(|&o| o == k)?;
            steps[axis] = step;
            step *= subset.chunks()[k].len();
        }
        let mut data = vec![false; subset.len()];
        let mut left = subset.len();
        let (last, lane) = (rank - 1, shape[rank - 1]);
        // A lane's first run ends at the first chunk edge after the subset's start.
        let head = (chunk[last] - origin[last] % chunk[last]).min(lane);
        let mut index = vec![0; last];
        for row in memory.chunks(lane) {
            let outer: usize = (0..last)
                .map(|k| ((origin[k] + index[k]) / chunk[k] - origin[k] / chunk[k]) * steps[k])
                .sum();
            let (first, rest) = row.split_at(head);
            let runs = std::iter::once(first).chain(rest.chunks(chunk[last]));
            for (s, run) in runs.enumerate() {
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

/// The bytes of one element `fill` in `endian`: what the padding of a chunk repeats.
pub(crate) fn fill_bytes<A: Item>(fill: A, endian: Endian) -> Vec<u8> {
    let mut bytes = vec![0u8; A::BYTES];
    A::write(&[fill], endian, &mut bytes);
    bytes
}

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
