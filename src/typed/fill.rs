//! Whether part of an array holds only the fill value, bit for bit: the test by which Zarr
//! writers skip a chunk. Each element is read once, in memory order where the layout has
//! one, and the test stops at the first block of elements that differs.

use ndarray::{ArrayView, Axis, IxDyn};

use crate::traverse::plan::memory_order;
use crate::{Element, Endian};

/// Bytes of the repeated fill value compared at a time: few enough to stay in the first
/// level cache beside what they are compared with, many enough that each comparison is long.
const PATTERN_BYTES: usize = 4096;

/// A fill value, one element or a raw element's bytes, repeated to [`PATTERN_BYTES`] in the
/// elements' memory form.
pub(crate) struct Fill {
    /// The fill value repeated, as the bytes of the elements in memory (native order).
    bytes: Vec<u8>,
}

impl Fill {
    /// The pattern of `one`: an element, or the elements of a raw element's bytes.
    pub(crate) fn new<A: Element>(one: &[A]) -> Fill {
        let repeats = (PATTERN_BYTES / (A::SIZE * one.len().max(1))).max(1);
        let elements: Vec<A> = one
            .iter()
            .copied()
            .cycle()
            .take(repeats * one.len())
            .collect();
        let mut bytes = vec![0u8; elements.len() * A::SIZE];
        A::write(&elements, Endian::NATIVE, &mut bytes);
        Fill { bytes }
    }

    /// Whether `elements`, whole repeats of the fill value in a row, are the fill value's.
    fn matches<A: Element>(&self, elements: &[A]) -> bool {
        if self.bytes.is_empty() {
            return elements.is_empty();
        }
        if let Some(memory) = A::as_bytes(elements) {
            return memory
                .chunks(self.bytes.len())
                .all(|c| c == &self.bytes[..c.len()]);
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
}
