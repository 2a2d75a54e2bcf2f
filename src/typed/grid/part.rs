//! One chunk's part: the box of a chunk that lies in a subset, between the array and the
//! chunk's bytes. A chunk's whole part inside the array is encoded as its leading corner,
//! padded with the fill value; a smaller part is written into the chunk's stored bytes in
//! place, the rest of them left as they are. Decoding reads only the part's bytes.

use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use ndarray::{ArrayView, ArrayViewMut, IxDyn};

use crate::element::Item;
use crate::typed::encode::encode;
use crate::typed::grid::fill::fill_with;
use crate::typed::region::{self, Runs};
use crate::{DataType, Endian, Error, traverse};

/// What sets the elements of an array apart from plain elements, for the chunk code: the
/// arrays of [`DynArray`](crate::DynArray) variants that hold more than an element each.
#[derive(Clone)]
pub(crate) enum Kind<A> {
    /// One element of the array is one of the data type.
    Plain,
    /// Sub-byte integers: the data type, the bits kept, the value of the low bits of a
    /// byte, and the value of an element that does not fit them.
    Narrow {
        data_type: DataType,
        bits: u32,
        widen: fn(A) -> A,
        misfit: fn(A) -> Option<i64>,
    },
    /// Raw elements: bytes, the array's last axis each element's, always whole.
    Records,
}

impl<A: Item> Kind<A> {
    /// Check that every element of `part` fits the data type: sub-byte integers their bits.
    fn check_fits(&self, part: &ArrayView<'_, A, IxDyn>) -> Result<(), Error> {
        if let Kind::Narrow {
            data_type, misfit, ..
        } = self
        {
            let mut misfits = part.iter().enumerate();
            if let Some((index, value)) = misfits.find_map(|(i, &x)| Some((i, misfit(x)?))) {
                return Err(Error::OutOfRange {
                    data_type: data_type.clone(),
                    index,
                    value,
                });
            }
        }
        Ok(())
    }

    /// Keep in `encoded`, bytes just encoded, only what the data type stores: the low bits
    /// of sub-byte integers.
    fn finish(&self, encoded: &mut [u8]) {
        if let Kind::Narrow { bits, .. } = self {
            let used = 0xff >> (8 - bits);
            encoded.iter_mut().for_each(|b| *b &= used);
        }
    }
}

/// The fill value as elements, from its bytes: one element, or a raw element's bytes;
/// sub-byte integers take the value of their low bits.
pub(crate) fn fill_elements<A: Item>(kind: &Kind<A>, fill: &[u8], endian: Endian) -> Vec<A> {
    let mut elements = vec![A::zeroed(); fill.len() / A::BYTES];
    A::read(fill, endian, &mut elements);
    if let Kind::Narrow { widen, .. } = kind {
        elements.iter_mut().for_each(|x| *x = widen(*x));
    }
    elements
}

/// Encode `part`, of checked shape, as the corner of a chunk of shape `chunk` into `out`
/// (the chunk's checked length), the rest of it `fill`, one element's bytes.
pub(crate) fn encode_part<A: Item>(
    part: ArrayView<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    fill: &[u8],
    endian: Endian,
    out: &mut [u8],
) -> Result<(), Error> {
    kind.check_fits(&part)?;
    encode_padded(part, chunk, fill, endian, out);
    kind.finish(out);
    Ok(())
}

/// Encode `part` into `region` (of its shape) of a chunk of shape `chunk` whose encoded
/// bytes (of checked length) are `bytes`, in place: only the region's bytes are written,
/// through `scratch` where they are not one run.
pub(crate) fn encode_region<A: Item>(
    part: ArrayView<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    region: &[Range<usize>],
    endian: Endian,
    bytes: &mut [u8],
    scratch: &mut Vec<u8>,
) -> Result<(), Error> {
    kind.check_fits(&part)?;
    region::encode_into(part, chunk, region, endian, bytes, scratch, |b| {
        kind.finish(b)
    });
    Ok(())
}

/// Decode `region` of a chunk of shape `chunk` from the chunk's `bytes` (of checked length)
/// into `part`, of the region's shape, reading only the region's bytes (through `scratch`
/// where they are not one run); sub-byte integers take the value of their low bits.
/// Offsets in errors are the chunk's.
pub(crate) fn decode_part<A: Item>(
    mut part: ArrayViewMut<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    region: &[Range<usize>],
    bytes: &[u8],
    endian: Endian,
    scratch: &mut Vec<u8>,
) -> Result<(), Error> {
    region::decode_from(part.view_mut(), chunk, region, bytes, endian, scratch)?;
    if let Kind::Narrow { widen, .. } = kind {
        part.mapv_inplace(widen);
    }
    Ok(())
}

/// Buffers reused from chunk to chunk: a thread takes the one put back last, still in its
/// cache, so a walk holds one a thread rather than one a chunk.
#[derive(Default)]
pub(crate) struct Spare(Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// A buffer, empty or as the last user left it.
    pub(crate) fn take(&self) -> Vec<u8> {
        self.buffers().pop().unwrap_or_default()
    }

    /// Put `buffer` back for the next chunk.
    pub(crate) fn give(&self, buffer: Vec<u8>) {
        self.buffers().push(buffer);
    }

    /// The buffers, whatever a panic elsewhere left them as.
    fn buffers(&self) -> MutexGuard<'_, Vec<Vec<u8>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Fill the bytes of a chunk of shape `chunk`, `size` bytes an element, that are not those
/// of `region` with copies of `fill`: the padding of a chunk whose part is not its corner.
pub(crate) fn fill_around(
    chunk: &[usize],
    region: &[Range<usize>],
    size: usize,
    fill: &[u8],
    bytes: &mut [u8],
) {
    let mut end = 0;
    region::runs(chunk, region, |_, offset, len| {
        fill_with(&mut bytes[end..offset * size], fill);
        end = (offset + len) * size;
    });
    fill_with(&mut bytes[end..], fill);
}

/// Check that a part of shape `part` is a corner of a chunk of shape `chunk`: the same rank,
/// no longer on any axis.
pub(crate) fn check_part(part: &[usize], chunk: &[usize]) -> Result<(), Error> {
    if part.len() != chunk.len() {
        return Err(Error::RankMismatch {
            expected: chunk.len(),
            actual: part.len(),
        });
    }
    match (0..part.len()).find(|&k| part[k] > chunk[k]) {
        Some(axis) => Err(Error::PartTooLarge {
            axis,
            len: part[axis],
            chunk: chunk[axis],
        }),
        None => Ok(()),
    }
}

/// The encoded length of a chunk of `chunk` shape, `size` bytes an element, after checking
/// that `part` is a corner of it.
pub(crate) fn chunk_len(part: &[usize], chunk: &[usize], size: usize) -> Result<usize, Error> {
    check_part(part, chunk)?;
    Ok(crate::check::checked_len(chunk, size)? * size)
}

/// The corner of a chunk of shape `part`'s shape, as a region.
pub(crate) fn corner(part: &[usize]) -> Vec<Range<usize>> {
    part.iter().map(|&n| 0..n).collect()
}

/// Encode `part`, of checked shape, as the corner of a chunk of `chunk` shape into `out`,
/// of the chunk's checked length; the rest of the chunk repeats `fill`, one element's bytes.
fn encode_padded<A: Item>(
    part: ArrayView<'_, A, IxDyn>,
    chunk: &[usize],
    fill: &[u8],
    endian: Endian,
    out: &mut [u8],
) {
    let shape = part.shape().to_vec();
    let Some(Runs {
        axis, len, count, ..
    }) = Runs::of(chunk, &corner(&shape), A::BYTES)
    else {
        return encode(part, endian, out);
    };
    if len * count == 0 {
        return fill_with(out, fill);
    }
    // The part's C-order bytes at the start, then each run moved to its place, the last
    // first: no run lands on a run not yet moved, as each lands at or after where it was.
    encode(part, endian, &mut out[..len * count]);
    let mut strides = vec![0; chunk.len()];
    traverse::c_order(chunk, &mut strides);
    let mut end = out.len();
    for r in (0..count).rev() {
        let (mut q, mut at) = (r, 0);
        for k in (0..axis).rev() {
            at += (q % shape[k]) * strides[k];
            q /= shape[k];
        }
        let at = at * A::BYTES;
        out.copy_within(r * len..(r + 1) * len, at);
        fill_with(&mut out[at + len..end], fill);
        end = at;
    }
}
