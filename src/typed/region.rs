//! Partial reads and writes: the bytes of a rectangular region of an encoded chunk.

use std::ops::Range;

use ndarray::{ArrayBase, ArrayD, ArrayView, ArrayViewMut, Axis, Data, Dimension, IxDyn, Slice};

use crate::check::{check_invalid, checked_len, checked_length, checked_size, into_array};
use crate::element::{Item, out_units};
use crate::traverse::{self, PlanAxis};
use crate::typed::decode::decode;
use crate::typed::encode::encode;
use crate::{DataType, DynArray, Element, Endian, Error};

/// Check `region` against `shape`: one in-bounds, non-reversed range per axis.
pub(crate) fn check(shape: &[usize], region: &[Range<usize>]) -> Result<(), Error> {
    if region.len() != shape.len() {
        return Err(Error::RankMismatch {
            expected: shape.len(),
            actual: region.len(),
        });
    }
    for (axis, (r, &len)) in region.iter().zip(shape).enumerate() {
        if r.start > r.end {
            return Err(Error::ReversedRange {
                axis,
                start: r.start,
                end: r.end,
            });
        }
        if r.end > len {
            return Err(Error::RegionOutOfBounds {
                axis,
                end: r.end,
                len,
            });
        }
    }
    Ok(())
}

/// The innermost axis the region does not cover whole, if any: runs span the axes after it.
pub(crate) fn partial_axis(shape: &[usize], region: &[Range<usize>]) -> Option<usize> {
    (0..shape.len()).rev().find(|&k| region[k] != (0..shape[k]))
}

/// How many runs [`runs`] visits: one per index of the axes before the innermost partial
/// one. Fits `usize`, since the checked chunk holds that many elements.
fn run_count(shape: &[usize], region: &[Range<usize>]) -> usize {
    if region.iter().any(|r| r.is_empty()) {
        return 0;
    }
    match partial_axis(shape, region) {
        Some(partial) => region[..partial].iter().map(|r| r.len()).product(),
        None => 1,
    }
}

/// Every maximal run of the region, in C order: `f(index, offset, len)` where `index` is the
/// run's position along the axes before the innermost partial one (relative to the region,
/// innermost first), and `offset` and `len` count elements of the chunk.
pub(crate) fn runs(
    shape: &[usize],
    region: &[Range<usize>],
    mut f: impl FnMut(&[usize], usize, usize),
) {
    if region.iter().any(|r| r.is_empty()) {
        return;
    }
    // Axes after `partial` are whole: each run spans them, and `partial`'s range.
    let Some(partial) = partial_axis(shape, region) else {
        let total: usize = shape.iter().product();
        return f(&[], 0, total);
    };
    let mut strides = vec![0; shape.len()];
    traverse::c_order(shape, &mut strides);
    let run = region[partial].len() * strides[partial];
    let first: usize = (0..=partial).map(|k| region[k].start * strides[k]).sum();
    // The axes before the partial one, innermost first, each stepping through the chunk.
    let axes: Vec<PlanAxis> = (0..partial)
        .rev()
        .map(|k| (region[k].len(), strides[k] as isize, 0))
        .collect();
    let mut index = vec![0; partial];
    traverse::odometer(
        &axes,
        first as isize,
        &mut index,
        &mut |offset, _, index| f(index, offset as usize, run),
    );
}

/// The byte ranges of a chunk of `shape` whose elements are `A` that hold `region` (one
/// range per axis), in C order, each as long as it can be: whole trailing axes and adjacent
/// rows merge into one.
///
/// Concatenating the bytes of these ranges gives exactly the region's C-order bytes, so a
/// reader can fetch just those ranges from a store and decode them with
/// [`from_zarr_bytes`](crate::BytesDecode::from_zarr_bytes).
/// [`BytesCodec::region_byte_ranges_dyn`](crate::BytesCodec::region_byte_ranges_dyn) plans
/// them for a data type known only at run time.
///
/// # Errors
///
/// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`] for a
/// region that does not fit the shape, [`Error::ShapeOverflow`] for a chunk larger than
/// `isize::MAX` bytes, and [`Error::TooManyRanges`] when the list of ranges would not fit in
/// memory (a hostile shape can ask for trillions).
///
/// # Examples
///
/// Read rows 1 and 2, columns 2..4, of a 4 × 5 chunk of `u16` from a store that serves byte
/// ranges, then decode what came back:
///
/// ```
/// use ndarray::{s, Array2};
/// use zarr_bytes::{region_byte_ranges, BytesDecode, BytesEncode, Endian};
///
/// let chunk = Array2::from_shape_fn((4, 5), |(i, j)| (10 * i + j) as u16);
/// let stored = chunk.to_zarr_bytes(Endian::Big); // what the store holds
///
/// let ranges = region_byte_ranges::<u16>(&[4, 5], &[1..3, 2..4])?;
/// assert_eq!(ranges, [14..18, 24..28]);
/// let fetched: Vec<u8> = ranges.iter().flat_map(|r| stored[r.clone()].to_vec()).collect();
/// let region = Array2::<u16>::from_zarr_bytes(&fetched, (2, 2), Endian::Big)?;
/// assert_eq!(region, chunk.slice(s![1..3, 2..4]));
///
/// // Whole trailing axes merge: rows 1..3 of every column are one range.
/// assert_eq!(region_byte_ranges::<u16>(&[4, 5], &[1..3, 0..5])?, [10..30]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub fn region_byte_ranges<A: Element>(
    shape: &[usize],
    region: &[Range<usize>],
) -> Result<Vec<Range<usize>>, Error> {
    byte_ranges(shape, region, A::SIZE)
}

/// [`region_byte_ranges`] for elements of `size` bytes, at least one.
pub(crate) fn byte_ranges(
    shape: &[usize],
    region: &[Range<usize>],
    size: usize,
) -> Result<Vec<Range<usize>>, Error> {
    check(shape, region)?;
    checked_len(shape, size)?;
    // The ranges are allocated up front, and a claim no memory can hold is an error.
    let count = run_count(shape, region);
    let mut ranges = Vec::new();
    ranges
        .try_reserve_exact(count)
        .map_err(|_| Error::TooManyRanges { count })?;
    runs(shape, region, |_, offset, len| {
        ranges.push(offset * size..(offset + len) * size)
    });
    Ok(ranges)
}

/// Decode `region` of a whole chunk of `data_type` and `shape` from its bytes, touching
/// only the bytes of the region: they are gathered, then decoded as a whole array of the
/// region's shape. Offsets in errors are the chunk's.
pub(crate) fn decode_region_dyn(
    bytes: &[u8],
    data_type: &DataType,
    shape: &[usize],
    region: &[Range<usize>],
    endian: Endian,
) -> Result<DynArray, Error> {
    let size = data_type.size();
    check(shape, region)?;
    checked_size(shape, size, bytes)?;
    let region_shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
    let len = checked_len(&region_shape, size)?;
    let mut gathered = Vec::with_capacity(len * size);
    runs(shape, region, |_, offset, len| {
        gathered.extend_from_slice(&bytes[offset * size..(offset + len) * size]);
    });
    DynArray::decode(&gathered, data_type, &region_shape, endian)
        .map_err(|e| with_offset(e, |at| offset_in_chunk(shape, region, size, at)))
}

/// The runs of bytes that hold a region of a chunk, when they are not all of it: each spans
/// the region's range of the innermost axis it does not hold whole and the axes after it.
pub(crate) struct Runs {
    /// That axis.
    pub axis: usize,
    /// Bytes of each run.
    pub len: usize,
    /// How many runs there are: one per index of the region's axes before `axis`.
    pub count: usize,
    /// The byte where the first one starts.
    pub first: usize,
}

impl Runs {
    /// The runs of `region` (checked) of a chunk of shape `chunk`, `size` bytes an element;
    /// `None` for the whole chunk.
    pub(crate) fn of(chunk: &[usize], region: &[Range<usize>], size: usize) -> Option<Runs> {
        let axis = partial_axis(chunk, region)?;
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

/// Bytes of a region gathered (or encoded) at a time, at most, when its runs are not one:
/// few enough to stay in cache, unless one index of its first axis holds more.
const GATHER_BYTES: usize = 256 * 1024;

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

/// Encode `part` into `region` (checked, of its shape) of a chunk of shape `chunk` whose
/// encoded bytes (of checked length) are `bytes`, in place: only the region's bytes are
/// written. `finish` sees each stretch of them once encoded. Runs that are not one are
/// encoded a slab at a time into `scratch`, in tiles whatever `part`'s layout, then copied
/// to their places.
pub(crate) fn encode_into<A: Item>(
    part: ArrayView<'_, A, IxDyn>,
    chunk: &[usize],
    region: &[Range<usize>],
    endian: Endian,
    bytes: &mut [u8],
    scratch: &mut Vec<u8>,
    finish: impl Fn(&mut [u8]),
) {
    let Some(layout) = Runs::of(chunk, region, A::BYTES) else {
        encode(part, endian, bytes);
        return finish(bytes);
    };
    if layout.count == 1 {
        let bytes = &mut bytes[layout.first..layout.first + layout.len];
        encode(part, endian, bytes);
        return finish(bytes);
    }
    let per_index = layout.per_index(region);
    let most = slab_indices(region, per_index) * per_index;
    if scratch.len() < most {
        scratch.resize(most, 0);
    }
    for (rows, slab) in slabs(region, per_index) {
        let encoded = &mut scratch[..rows.len() * per_index];
        encode(part.slice_axis(Axis(0), Slice::from(rows)), endian, encoded);
        finish(encoded);
        let mut at = 0;
        runs(chunk, &slab, |_, offset, len| {
            let (offset, len) = (offset * A::BYTES, len * A::BYTES);
            bytes[offset..offset + len].copy_from_slice(&encoded[at..at + len]);
            at += len;
        });
    }
}

/// Decode `region` (checked, of `part`'s shape) of a chunk of shape `chunk` from the
/// chunk's `bytes`, of checked length, into `part`: only the region's bytes are read, a
/// slab at a time gathered into `scratch` where they are not one run. Offsets in errors
/// are the chunk's.
pub(crate) fn decode_from<A: Item>(
    part: ArrayViewMut<'_, A, IxDyn>,
    chunk: &[usize],
    region: &[Range<usize>],
    bytes: &[u8],
    endian: Endian,
    scratch: &mut Vec<u8>,
) -> Result<(), Error> {
    let Some(layout) = Runs::of(chunk, region, A::BYTES) else {
        return decode(part, bytes, endian);
    };
    if layout.len * layout.count == 0 {
        return Ok(());
    }
    if layout.count == 1 {
        let at = layout.first;
        return decode(part, &bytes[at..at + layout.len], endian)
            .map_err(|e| with_offset(e, |offset| at + offset));
    }
    let per_index = layout.per_index(region);
    scratch.clear();
    scratch.reserve(slab_indices(region, per_index) * per_index);
    let mut part = part;
    for (rows, slab) in slabs(region, per_index) {
        scratch.clear();
        runs(chunk, &slab, |_, offset, len| {
            scratch.extend_from_slice(&bytes[offset * A::BYTES..(offset + len) * A::BYTES])
        });
        let rows = part.view_mut().slice_axis_move(Axis(0), Slice::from(rows));
        decode(rows, scratch, endian)
            .map_err(|e| with_offset(e, |at| offset_in_chunk(chunk, &slab, A::BYTES, at)))?;
    }
    Ok(())
}

/// `e` with the offset it names moved by `offset`: from the region's gathered bytes to the
/// chunk's.
pub(crate) fn with_offset(e: Error, offset: impl Fn(usize) -> usize) -> Error {
    match e {
        Error::InvalidBool { offset: at, value } => Error::InvalidBool {
            offset: offset(at),
            value,
        },
        Error::InvalidCodeUnit { offset: at, value } => Error::InvalidCodeUnit {
            offset: offset(at),
            value,
        },
        other => other,
    }
}

/// The offset in a chunk of `shape` of byte `at` of the bytes of `region` gathered run after
/// run, for elements of `size` bytes.
pub(crate) fn offset_in_chunk(
    shape: &[usize],
    region: &[Range<usize>],
    size: usize,
    at: usize,
) -> usize {
    let Some(partial) = partial_axis(shape, region) else {
        return at;
    };
    let mut strides = vec![0; shape.len()];
    traverse::c_order(shape, &mut strides);
    let run = region[partial].len() * strides[partial] * size;
    if run == 0 {
        return at;
    }
    let (mut q, within) = (at / run, at % run);
    let mut offset = region[partial].start * strides[partial];
    for k in (0..partial).rev() {
        let n = region[k].len();
        offset += (region[k].start + q % n) * strides[k];
        q /= n;
    }
    offset * size + within
}

/// Decode just `region` of a whole chunk's bytes, touching only the bytes of its ranges.
///
/// # Errors
///
/// As [`region_byte_ranges`], plus [`Error::LengthMismatch`] for a chunk of the wrong
/// length and [`Error::InvalidBool`] for an invalid `bool` byte in the region.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array2};
/// use zarr_bytes::{decode_region, BytesEncode, Endian};
///
/// let chunk = array![[1i32, 2, 3], [4, 5, 6]];
/// let bytes = chunk.to_zarr_bytes(Endian::Little);
/// let corner = decode_region::<i32>(&bytes, &[2, 3], &[1..2, 1..3], Endian::Little)?;
/// assert_eq!(corner, array![[5, 6]].into_dyn());
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub fn decode_region<A: Element>(
    bytes: &[u8],
    shape: &[usize],
    region: &[Range<usize>],
    endian: Endian,
) -> Result<ArrayD<A>, Error> {
    check(shape, region)?;
    checked_length::<A>(shape, bytes)?;
    let region_shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
    let mut elements = bytemuck::zeroed_vec::<A>(region_shape.iter().product());
    let mut at = 0;
    let mut result = Ok(());
    runs(shape, region, |_, offset, len| {
        if result.is_ok() {
            let src = &bytes[offset * A::SIZE..(offset + len) * A::SIZE];
            result = check_invalid::<A::In>(src, offset * A::SIZE);
            if result.is_ok() {
                A::read(src, endian, &mut elements[at..at + len]);
                at += len;
            }
        }
    });
    result?;
    into_array(IxDyn(&region_shape), elements)
}

/// Overwrite `region` of an encoded chunk in place with `array`, whose shape is the
/// region's; the rest of the chunk is untouched.
///
/// # Errors
///
/// As [`region_byte_ranges`], plus [`Error::LengthMismatch`] for a chunk of the wrong length
/// and [`Error::RegionShapeMismatch`] for an array of another shape. Nothing is written then.
///
/// # Examples
///
/// ```
/// use ndarray::array;
/// use zarr_bytes::{encode_region_into, Endian};
///
/// let mut chunk = vec![0u8; 6]; // a 2 × 3 chunk of u8
/// encode_region_into(&mut chunk, &[2, 3], &[0..2, 1..2], &array![[7u8], [9]], Endian::Big)?;
/// assert_eq!(chunk, [0, 7, 0, 0, 9, 0]);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub fn encode_region_into<A, S, D>(
    chunk: &mut [u8],
    shape: &[usize],
    region: &[Range<usize>],
    array: &ArrayBase<S, D>,
    endian: Endian,
) -> Result<(), Error>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    check(shape, region)?;
    checked_length::<A>(shape, chunk)?;
    let region_shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
    if array.shape() != region_shape.as_slice() {
        return Err(Error::RegionShapeMismatch {
            expected: region_shape.into(),
            actual: array.shape().into(),
        });
    }
    let scratch = &mut Vec::new();
    match out_units(array.view().into_dyn()) {
        Ok(units) => encode_into(units, shape, region, endian, chunk, scratch, |_| ()),
        Err(part) => encode_into(part, shape, region, endian, chunk, scratch, |_| ()),
    }
    Ok(())
}
