//! One chunk's part: the box of a chunk that lies in a subset, between the array and the
//! chunk's bytes. A chunk's whole part inside the array is encoded as its leading corner,
//! padded with the fill value; a smaller part is written into the chunk's stored bytes in
//! place, the rest of them left as they are. Decoding reads only the part's bytes.

use std::ops::Range;

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn, Slice};

use crate::typed::decode::decode;
use crate::typed::encode::encode;
use crate::typed::grid::fill::fill_with;
use crate::typed::region;
use crate::{traverse, DataType, Element, Endian, Error};

/// What sets the elements of an array apart from plain elements, for the chunk code: the
/// arrays of [`DynArray`](crate::DynArray) variants that hold more than an element each.
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

impl<A: Element> Kind<A> {
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
pub(crate) fn fill_elements<A: Element>(kind: &Kind<A>, fill: &[u8], endian: Endian) -> Vec<A> {
    let mut elements = vec![A::zeroed(); fill.len() / A::SIZE];
    A::read(fill, endian, &mut elements);
    if let Kind::Narrow { widen, .. } = kind {
        elements.iter_mut().for_each(|x| *x = widen(*x));
    }
    elements
}

/// Encode `part`, of checked shape, as the corner of a chunk of shape `chunk` into `out`
/// (the chunk's checked length), the rest of it `fill`, one element's bytes.
pub(crate) fn encode_part<A: Element>(
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
/// bytes (of checked length) are `bytes`, in place: only the region's bytes are written.
pub(crate) fn encode_region<A: Element>(
    part: ArrayView<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    region: &[Range<usize>],
    endian: Endian,
    bytes: &mut [u8],
) -> Result<(), Error> {
    kind.check_fits(&part)?;
    let Some(runs) = Runs::of(chunk, region, A::SIZE) else {
        encode(part, endian, bytes);
        kind.finish(bytes);
        return Ok(());
    };
    if runs.count == 1 {
        let bytes = &mut bytes[runs.first..runs.first + runs.len];
        encode(part, endian, bytes);
        kind.finish(bytes);
        return Ok(());
    }
    // A slab of indices of the first axis at a time, encoded whole through a buffer that
    // stays in cache, then its runs copied to their places.
    let per_index = runs.per_index(region);
    let mut scratch = vec![0u8; slab_indices(region, per_index) * per_index];
    for (rows, slab) in slabs(region, per_index) {
        let encoded = &mut scratch[..rows.len() * per_index];
        encode(part.slice_axis(Axis(0), Slice::from(rows)), endian, encoded);
        kind.finish(encoded);
        let mut at = 0;
        region::runs(chunk, &slab, |_, offset, len| {
            let (offset, len) = (offset * A::SIZE, len * A::SIZE);
            bytes[offset..offset + len].copy_from_slice(&encoded[at..at + len]);
            at += len;
        });
    }
    Ok(())
}

/// Decode `region` of a chunk of shape `chunk` from the chunk's `bytes` (of checked length)
/// into `part`, of the region's shape, reading only the region's bytes; sub-byte integers
/// take the value of their low bits. Offsets in errors are the chunk's.
pub(crate) fn decode_part<A: Element>(
    mut part: ArrayViewMut<'_, A, IxDyn>,
    kind: &Kind<A>,
    chunk: &[usize],
    region: &[Range<usize>],
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    decode_region(part.view_mut(), chunk, region, bytes, endian)?;
    if let Kind::Narrow { widen, .. } = kind {
        part.mapv_inplace(widen);
    }
    Ok(())
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

/// The runs of bytes that hold a region of a chunk, when they are not all of it: each spans
/// the region's range of the innermost axis it does not hold whole and the axes after it.
struct Runs {
    /// That axis.
    axis: usize,
    /// Bytes of each run.
    len: usize,
    /// How many runs there are: one per index of the region's axes before `axis`.
    count: usize,
    /// The byte where the first one starts.
    first: usize,
}

impl Runs {
    /// The runs of `region` (checked) of a chunk of shape `chunk`, `size` bytes an element;
    /// `None` for the whole chunk.
    fn of(chunk: &[usize], region: &[Range<usize>], size: usize) -> Option<Runs> {
        let axis = region::partial_axis(chunk, region)?;
        let len = region[axis].len() * chunk[axis + 1..].iter().product::<usize>() * size;
        let count = region[..axis].iter().map(|r| r.len()).product();
        let mut strides = vec![0; chunk.len()];
        traverse::c_order(chunk, &mut strides);
        let first = (0..=axis)
            .map(|k| region[k].start * strides[k])
            .sum::<usize>()
            * size;
        Some(Runs {
            axis,
            len,
            count,
            first,
        })
    }

    /// Bytes of the runs of one index of the region's first axis (of several runs).
    fn per_index(&self, region: &[Range<usize>]) -> usize {
        let between = region.get(1..self.axis).unwrap_or_default();
        self.len * between.iter().map(|r| r.len()).product::<usize>()
    }
}

/// Bytes of a part gathered (or encoded) at a time, at most, when its runs are not one:
/// few enough to stay in cache, unless one index of its first axis holds more.
pub(crate) const GATHER_BYTES: usize = 256 * 1024;

/// Indices of a region's first axis in a slab: [`GATHER_BYTES`] of them at most, or one.
fn slab_indices(region: &[Range<usize>], per_index: usize) -> usize {
    (GATHER_BYTES / per_index.max(1)).clamp(1, region[0].len().max(1))
}

/// The slabs of `region`, whose first axis holds `per_index` bytes an index: ranges of
/// indices of that axis, counted from the region's start, and each one's region of the
/// chunk.
fn slabs(
    region: &[Range<usize>],
    per_index: usize,
) -> impl Iterator<Item = (Range<usize>, Vec<Range<usize>>)> + '_ {
    let (first, per_slab) = (region[0].len(), slab_indices(region, per_index));
    (0..first).step_by(per_slab).map(move |start| {
        let end = (start + per_slab).min(first);
        let mut slab = region.to_vec();
        slab[0] = region[0].start + start..region[0].start + end;
        (start..end, slab)
    })
}

/// Encode `part`, of checked shape, as the corner of a chunk of `chunk` shape into `out`,
/// of the chunk's checked length; the rest of the chunk repeats `fill`, one element's bytes.
fn encode_padded<A: Element>(
    part: ArrayView<'_, A, IxDyn>,
    chunk: &[usize],
    fill: &[u8],
    endian: Endian,
    out: &mut [u8],
) {
    let shape = part.shape().to_vec();
    let Some(Runs {
        axis, len, count, ..
    }) = Runs::of(chunk, &corner(&shape), A::SIZE)
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
        let at = at * A::SIZE;
        out.copy_within(r * len..(r + 1) * len, at);
        fill_with(&mut out[at + len..end], fill);
        end = at;
    }
}

/// Decode `region` (checked), of `part`'s shape, of a chunk of `chunk` shape from the
/// chunk's `bytes`, of checked length: only the region's bytes are read.
fn decode_region<A: Element>(
    part: ArrayViewMut<'_, A, IxDyn>,
    chunk: &[usize],
    region: &[Range<usize>],
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    let Some(runs) = Runs::of(chunk, region, A::SIZE) else {
        return decode(part, bytes, endian);
    };
    if runs.len * runs.count == 0 {
        return Ok(());
    }
    if runs.count == 1 {
        let at = runs.first;
        return decode(part, &bytes[at..at + runs.len], endian)
            .map_err(|e| region::with_offset(e, |offset| at + offset));
    }
    // A slab of indices of the first axis at a time, its runs gathered through a buffer
    // small enough to stay in cache while it is decoded.
    let per_index = runs.per_index(region);
    let mut gathered = Vec::with_capacity(slab_indices(region, per_index) * per_index);
    let mut part = part;
    for (rows, slab) in slabs(region, per_index) {
        gathered.clear();
        region::runs(chunk, &slab, |_, offset, len| {
            gathered.extend_from_slice(&bytes[offset * A::SIZE..(offset + len) * A::SIZE])
        });
        let rows = part.view_mut().slice_axis_move(Axis(0), Slice::from(rows));
        decode(rows, &gathered, endian).map_err(|e| {
            region::with_offset(e, |at| region::offset_in_chunk(chunk, &slab, A::SIZE, at))
        })?;
    }
    Ok(())
}
