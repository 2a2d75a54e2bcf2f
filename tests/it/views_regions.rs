//! Zero-copy views and partial chunk reads and writes.

use std::ops::Range;

use crate::common::{Bits, reference_bytes, standard};
use half::bf16;
use ndarray::{
    Array2, ArrayD, ArrayView, ArrayViewMut1, ArrayViewMut2, CowArray, Dimension, IxDyn, array,
};
use num_complex::Complex;
use zarr_bytes::{
    BytesCodec, BytesDecode, BytesEncode, BytesView, BytesViewMut, DataType, DynArray, Endian,
    Error, decode_region, encode_region_into, minifloat::Float4E2M1FN, region_byte_ranges,
};

const OTHER: Endian = match Endian::NATIVE {
    Endian::Little => Endian::Big,
    Endian::Big => Endian::Little,
};

/// Bytes at an 8-byte aligned address, and the same bytes one byte further on.
fn aligned_and_shifted(bytes: &[u8]) -> (Vec<u64>, Vec<u64>) {
    let words = bytes.len().div_ceil(8) + 1;
    let mut aligned = vec![0u64; words];
    bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()].copy_from_slice(bytes);
    let mut shifted = vec![0u64; words];
    bytemuck::cast_slice_mut::<u64, u8>(&mut shifted)[1..=bytes.len()].copy_from_slice(bytes);
    (aligned, shifted)
}

fn check_views<A: Bits>(shape: &[usize]) {
    let a = standard::<A>(shape);
    let native = a.to_zarr_bytes(Endian::NATIVE);
    let (aligned, shifted) = aligned_and_shifted(&native);
    let at = &bytemuck::cast_slice::<u64, u8>(&aligned)[..native.len()];
    let off = &bytemuck::cast_slice::<u64, u8>(&shifted)[1..=native.len()];
    let expected = ArrayD::<A>::from_zarr_bytes(at, shape, Endian::NATIVE).unwrap();

    let view = ArrayView::<A, _>::view_zarr_bytes(at, IxDyn(shape), Endian::NATIVE).unwrap();
    assert_eq!(view.as_ptr() as *const u8, at.as_ptr(), "the view borrows");
    assert_eq!(
        crate::common::bits_of(view.view()),
        crate::common::bits_of(expected.view())
    );
    let cow = CowArray::<A, _>::view_zarr_bytes(at, IxDyn(shape), Endian::NATIVE).unwrap();
    assert!(cow.is_view());

    if std::mem::align_of::<A>() > 1 && !native.is_empty() {
        let e = ArrayView::<A, _>::view_zarr_bytes(off, IxDyn(shape), Endian::NATIVE).unwrap_err();
        let align = std::mem::align_of::<A>();
        assert!(
            matches!(e, Error::Misaligned { offset: 1, align: a } if a == align),
            "{e:?}"
        );
        assert!(e.to_string().contains("misaligned by 1 bytes"), "{e}");
        let cow = CowArray::<A, _>::view_zarr_bytes(off, IxDyn(shape), Endian::NATIVE).unwrap();
        assert!(cow.is_owned());
        assert_eq!(
            crate::common::bits_of(cow.view()),
            crate::common::bits_of(expected.view())
        );
    }

    let swapped = a.to_zarr_bytes(OTHER);
    let decoded = ArrayD::<A>::from_zarr_bytes(&swapped, shape, OTHER).unwrap();
    let cow = CowArray::<A, _>::view_zarr_bytes(&swapped, IxDyn(shape), OTHER).unwrap();
    assert_eq!(
        crate::common::bits_of(cow.view()),
        crate::common::bits_of(decoded.view())
    );
    if A::DATA_TYPE.endian_applies() {
        let e = ArrayView::<A, _>::view_zarr_bytes(&swapped, IxDyn(shape), OTHER).unwrap_err();
        assert!(
            matches!(e, Error::NeedsConversion { endian, data_type } if endian == OTHER && data_type == A::DATA_TYPE)
        );
        assert!(cow.is_owned());
    } else {
        assert!(cow.is_view(), "no conversion for {}", A::DATA_TYPE);
    }
}

#[test]
fn views_borrow_and_agree_with_decoding() {
    for shape in [&[][..], &[0], &[5], &[3, 4], &[2, 3, 5]] {
        check_views::<u8>(shape);
        check_views::<i16>(shape);
        check_views::<u32>(shape);
        check_views::<f64>(shape);
        check_views::<bf16>(shape);
        check_views::<Complex<f64>>(shape);
        check_views::<[u8; 3]>(shape);
    }
}

#[test]
fn view_errors() {
    let e = ArrayView::<bool, _>::view_zarr_bytes(&[1, 0, 5], 3, Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 5
        }
    ));
    let e = CowArray::<bool, _>::view_zarr_bytes(&[1, 0, 5], 3, Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 5
        }
    ));
    let e = ArrayView::<u16, _>::view_zarr_bytes(&[0; 5], 3, Endian::NATIVE).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 6,
            actual: 5
        }
    ));
    let e = CowArray::<u16, _>::view_zarr_bytes(&[0; 5], 3, Endian::NATIVE).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 6,
            actual: 5
        }
    ));
    let e = ArrayView::<u64, _>::view_zarr_bytes(&[], (usize::MAX, 2), Endian::NATIVE).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 8 }));
    let e = ArrayView::<f32, _>::view_zarr_bytes(&[0; 4], 1, OTHER).unwrap_err();
    assert!(matches!(
        e,
        Error::NeedsConversion {
            data_type: DataType::Float32,
            ..
        }
    ));
    assert!(e.to_string().contains("float32"), "{e}");
}

/// A mutable view is the chunk: what is written through it is the chunk's encoding, and it
/// is refused where a view is (another byte order, misaligned bytes, a `bool` byte 2, bits
/// to clear).
#[test]
fn mutable_views_edit_the_chunk_in_place() {
    let a = array![[1.5f32, -2.0, 3.25], [0.0, f32::NAN, -0.0]];
    // f32 memory holds the bytes, so they are aligned for f32.
    let mut memory = vec![0f32; 6];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut memory);
    a.encode_zarr_bytes_into(bytes, Endian::NATIVE).unwrap();
    let mut view =
        ArrayViewMut2::<f32>::view_zarr_bytes_mut(bytes, (2, 3), Endian::NATIVE).unwrap();
    assert_eq!(view.shape(), &[2, 3]);
    assert_eq!(view[[1, 0]], 0.0);
    view[[0, 1]] = 7.5;
    view.row_mut(1).fill(-1.0);
    let mut edited = a.clone();
    edited[[0, 1]] = 7.5;
    edited.row_mut(1).fill(-1.0);
    assert_eq!(bytes, &edited.to_zarr_bytes(Endian::NATIVE)[..]);

    // bool: checked first; a valid chunk edits in place.
    let mut flags = vec![1u8, 0, 2, 1];
    let e = ArrayViewMut1::<bool>::view_zarr_bytes_mut(&mut flags, 4, Endian::Little).unwrap_err();
    assert_eq!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 2
        }
    );
    assert_eq!(flags, [1, 0, 2, 1], "a refused view writes nothing");
    flags[2] = 0;
    let mut v = ArrayViewMut1::<bool>::view_zarr_bytes_mut(&mut flags, 4, Endian::Big).unwrap();
    v[1] = true;
    v[3] = false;
    assert_eq!(flags, [1, 1, 0, 0]);

    // The other byte order, misaligned bytes, a wrong length, bits to clear.
    let e = ArrayViewMut1::<u16>::view_zarr_bytes_mut(&mut [0; 4], 2, OTHER).unwrap_err();
    assert!(matches!(
        e,
        Error::NeedsConversion {
            data_type: DataType::UInt16,
            endian: OTHER
        }
    ));
    let mut wide = vec![0u64; 3];
    let wide: &mut [u8] = bytemuck::cast_slice_mut(&mut wide);
    let e =
        ArrayViewMut1::<u64>::view_zarr_bytes_mut(&mut wide[1..17], 2, Endian::NATIVE).unwrap_err();
    assert_eq!(
        e,
        Error::Misaligned {
            offset: 1,
            align: 8
        }
    );
    let e =
        ArrayViewMut1::<u64>::view_zarr_bytes_mut(&mut wide[..16], 3, Endian::NATIVE).unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            expected: 24,
            actual: 16
        }
    );
    let e = ArrayViewMut1::<Float4E2M1FN>::view_zarr_bytes_mut(&mut [1, 2], 2, Endian::Big)
        .unwrap_err();
    assert!(matches!(
        e,
        Error::NeedsConversion {
            data_type: DataType::Float4E2M1FN,
            ..
        }
    ));
    // Bytes that need no swap view in either byte order.
    let mut raw = [1u8, 2, 3, 4, 5, 6];
    let mut r = ArrayViewMut1::<[u8; 3]>::view_zarr_bytes_mut(&mut raw, 2, OTHER).unwrap();
    r[1] = [9, 9, 9];
    assert_eq!(raw, [1, 2, 3, 9, 9, 9]);
}

/// Every region of `shape` whose ranges step through the axis in a few ways.
fn regions(shape: &[usize]) -> Vec<Vec<Range<usize>>> {
    let per_axis: Vec<Vec<Range<usize>>> = shape
        .iter()
        .map(|&len| {
            let mut r = vec![0..len, 0..0, len..len];
            if len > 1 {
                r.extend([1..len, 0..len - 1, 1..2]);
            }
            if len > 3 {
                r.push(1..len - 1);
            }
            r
        })
        .collect();
    let mut out = vec![vec![]];
    for options in per_axis {
        out = out
            .into_iter()
            .flat_map(|prefix: Vec<Range<usize>>| {
                options.iter().map(move |r| {
                    let mut p = prefix.clone();
                    p.push(r.clone());
                    p
                })
            })
            .collect();
    }
    out
}

fn check_regions<A: Bits>(shape: &[usize], endian: Endian) -> usize {
    let full = standard::<A>(shape);
    let bytes = full.to_zarr_bytes(endian);
    let mut checked = 0;
    for region in regions(shape) {
        let expected = full.slice(crate::common::slice_of(&region).as_slice());
        // decode_region is slicing the full decode.
        let got = decode_region::<A>(&bytes, shape, &region, endian).unwrap();
        assert_eq!(
            crate::common::bits_of(got.view()),
            crate::common::bits_of(expected.view()),
            "{shape:?} {region:?}"
        );
        // The concatenated ranges are the region's bytes, and ranges are as few as can be.
        let ranges = region_byte_ranges::<A>(shape, &region).unwrap();
        let joined: Vec<u8> = ranges
            .iter()
            .flat_map(|r| bytes[r.clone()].to_vec())
            .collect();
        assert_eq!(
            joined,
            reference_bytes(expected.view(), endian),
            "{shape:?} {region:?}"
        );
        for pair in ranges.windows(2) {
            assert!(
                pair[0].end < pair[1].start,
                "adjacent ranges not merged: {ranges:?}"
            );
        }
        assert!(ranges.iter().all(|r| !r.is_empty()));
        // encode_region_into then a full decode is assigning into the full array.
        let patch = ArrayD::from_shape_fn(expected.raw_dim(), |i| {
            crate::common::element::<A>(i.slice().iter().sum::<usize>() + 1000)
        });
        let mut chunk = bytes.clone();
        encode_region_into(&mut chunk, shape, &region, &patch.t().t(), endian).unwrap();
        let mut assigned = full.clone();
        assigned
            .slice_mut(crate::common::slice_of(&region).as_slice())
            .assign(&patch);
        assert_eq!(
            chunk,
            assigned.to_zarr_bytes(endian),
            "{shape:?} {region:?}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn regions_decode_encode_and_range() {
    let shapes: [&[usize]; 5] = [&[], &[6], &[4, 5], &[3, 1, 4], &[2, 3, 2, 5]];
    let mut checked = 0;
    for shape in shapes {
        checked += check_regions::<u8>(shape, Endian::Little);
        checked += check_regions::<i32>(shape, Endian::Big);
        checked += check_regions::<Complex<f32>>(shape, Endian::Big);
        checked += check_regions::<[u8; 3]>(shape, Endian::Little);
    }
    let regions_per_type: usize = shapes.iter().map(|s| regions(s).len()).sum();
    assert_eq!(checked, 4 * regions_per_type);
    assert!(regions_per_type > 1000, "{regions_per_type}");
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // one range is the point
fn whole_trailing_axes_are_one_range() {
    assert_eq!(
        region_byte_ranges::<u64>(&[4, 5, 6], &[1..3, 0..5, 0..6]).unwrap(),
        [240..720]
    );
    assert_eq!(
        region_byte_ranges::<u16>(&[4, 5, 6], &[0..4, 0..5, 0..6]).unwrap(),
        [0..240]
    );
    assert_eq!(
        region_byte_ranges::<u8>(&[4, 5, 6], &[2..3, 1..2, 0..6]).unwrap(),
        [66..72]
    );
    assert_eq!(
        region_byte_ranges::<u8>(&[4, 5, 6], &[1..3, 1..2, 0..6]).unwrap(),
        [36..42, 66..72]
    );
    assert_eq!(region_byte_ranges::<u32>(&[], &[]).unwrap(), [0..4]);
    assert!(
        region_byte_ranges::<u32>(&[4, 5], &[1..1, 0..5])
            .unwrap()
            .is_empty()
    );
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // a one-axis region for a two-axis chunk
fn region_errors() {
    let e = region_byte_ranges::<u8>(&[4, 5], &[0..1]).unwrap_err();
    assert!(matches!(
        e,
        Error::RankMismatch {
            expected: 2,
            actual: 1
        }
    ));
    let e = region_byte_ranges::<u8>(&[4, 5], &[0..1, 2..6]).unwrap_err();
    assert!(matches!(
        e,
        Error::RegionOutOfBounds {
            axis: 1,
            end: 6,
            len: 5
        }
    ));
    #[allow(clippy::reversed_empty_ranges)]
    let e = region_byte_ranges::<u8>(&[4, 5], &[3..1, 0..5]).unwrap_err();
    assert!(matches!(
        e,
        Error::ReversedRange {
            axis: 0,
            start: 3,
            end: 1
        }
    ));
    assert!(
        e.to_string().contains("start 3") && e.to_string().contains("end 1"),
        "{e}"
    );
    // Found by fuzzing: a chunk of 2^40 rows asks for 2^40 ranges, 16 TiB of them.
    let e = region_byte_ranges::<[u8; 3]>(&[1 << 40, 10], &[2..1 << 40, 9..10]).unwrap_err();
    assert!(
        matches!(e, Error::TooManyRanges { count } if count == (1 << 40) - 2),
        "{e:?}"
    );
    let e = region_byte_ranges::<u8>(&[usize::MAX, 3], &[0..1, 0..1]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }));
    let e = decode_region::<u16>(&[0; 7], &[2, 2], &[0..1, 0..1], Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 8,
            actual: 7
        }
    ));
    let e = decode_region::<bool>(&[0, 1, 2, 1], &[2, 2], &[1..2, 0..2], Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 2
        }
    ));
    // Outside the region, a bad bool byte is not read.
    assert!(decode_region::<bool>(&[0, 1, 2, 1], &[2, 2], &[0..1, 0..2], Endian::Big).is_ok());
    let mut chunk = vec![9u8; 8];
    let a = Array2::<u16>::zeros((1, 2));
    let e = encode_region_into(&mut chunk, &[2, 2], &[0..1, 0..1], &a, Endian::Big).unwrap_err();
    assert!(
        matches!(&e, Error::RegionShapeMismatch { expected, actual } if **expected == [1, 1] && **actual == [1, 2])
    );
    let e =
        encode_region_into(&mut chunk[..7], &[2, 2], &[0..1, 0..2], &a, Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 8,
            actual: 7
        }
    ));
    assert_eq!(chunk, [9; 8], "nothing written on error");
}

/// Every data type of the table and each configured kind, in both byte orders: a region
/// decoded from the whole chunk's bytes is the whole chunk decoded, then sliced; the
/// planner's ranges, fetched, decode to it too; and an invalid byte in the region is
/// reported at its offset in the chunk.
#[test]
fn decode_region_dyn_is_decode_dyn_then_slice_for_every_data_type() {
    let configured = [
        "r24",
        r#"{"name":"numpy.datetime64","configuration":{"unit":"ms","scale_factor":1}}"#,
        r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#,
        r#"{"name":"null_terminated_bytes","configuration":{"length_bytes":3}}"#,
        r#"{"name":"raw_bytes","configuration":{"length_bytes":5}}"#,
        r#"{"name":"struct","configuration":{"fields":[{"name":"a","data_type":"bool"},{"name":"b","data_type":"int16"},{"name":"c","data_type":{"name":"fixed_length_utf32","configuration":{"length_bytes":4}}}]}}"#,
    ];
    let types: Vec<DataType> = DataType::FIXED
        .iter()
        .cloned()
        .chain(configured.iter().map(|t| t.parse().unwrap()))
        .collect();
    let shape = [4, 5, 3];
    let regions: [&[Range<usize>]; 4] = [
        &[1..3, 2..5, 0..3],
        &[0..4, 0..5, 1..2],
        &[2..3, 0..5, 0..3],
        &[0..0, 1..2, 0..3],
    ];
    for (k, data_type) in types.iter().enumerate() {
        let size = data_type.size();
        for endian in [Endian::Little, Endian::Big] {
            let codec = BytesCodec::new(endian);
            let chunk = crate::common::valid_chunk(data_type, &shape, endian, k as u64 + 1);
            let whole = codec.decode_dyn(&chunk, data_type, &shape).unwrap();
            // The whole chunk as records of little-endian bytes, to slice whatever the type.
            let little = BytesCodec::new(Endian::Little);
            let records =
                ArrayD::from_shape_vec(IxDyn(&[4, 5, 3, size]), little.encode_dyn(&whole).unwrap())
                    .unwrap();
            for region in regions {
                let ctx = format!("{data_type} {endian} {region:?}");
                let got = codec
                    .decode_region_dyn(&chunk, data_type, &shape, region)
                    .unwrap();
                let region_shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
                let mut slice = crate::common::slice_of(region);
                slice.push(ndarray::SliceInfoElem::from(..));
                let sliced = records
                    .slice(slice.as_slice())
                    .as_standard_layout()
                    .into_owned();
                let want = little
                    .decode_dyn(sliced.as_slice().unwrap(), data_type, &region_shape)
                    .unwrap();
                // Compared bit for bit (NaN payloads too) through their little-endian bytes.
                let bits = |d: &DynArray| little.encode_dyn(d).unwrap();
                assert_eq!(got.shape(), &region_shape[..], "{ctx}");
                assert_eq!(got.data_type(), *data_type, "{ctx}");
                assert_eq!(bits(&got), bits(&want), "{ctx}");
                let ranges = codec
                    .region_byte_ranges_dyn(data_type, &shape, region)
                    .unwrap();
                let fetched: Vec<u8> = ranges
                    .iter()
                    .flat_map(|r| chunk[r.clone()].to_vec())
                    .collect();
                let from_ranges = codec
                    .decode_dyn(&fetched, data_type, &region_shape)
                    .unwrap();
                assert_eq!(bits(&from_ranges), bits(&want), "{ctx}");
            }
        }
    }
    // Offsets in errors are the chunk's, for a bool byte and a UTF-32 unit in the region.
    let codec = BytesCodec::new(Endian::Little);
    let mut flags = vec![0u8; 60];
    flags[2 * 15 + 3 * 3 + 1] = 9;
    let e = codec
        .decode_region_dyn(&flags, &DataType::Bool, &shape, &[1..3, 2..5, 0..3])
        .unwrap_err();
    assert_eq!(
        e,
        Error::InvalidBool {
            offset: 40,
            value: 9
        }
    );
    let t: DataType = configured[2].parse().unwrap();
    let mut text = vec![0u8; 60 * 8];
    text[(2 * 15 + 3 * 3 + 1) * 8 + 4..][..4].copy_from_slice(&0xd800u32.to_le_bytes());
    let e = codec
        .decode_region_dyn(&text, &t, &shape, &[1..3, 2..5, 0..3])
        .unwrap_err();
    assert_eq!(
        e,
        Error::InvalidCodeUnit {
            offset: 324,
            value: 0xd800
        }
    );
    // A region outside the chunk, and a chunk of the wrong length.
    assert!(matches!(
        codec.decode_region_dyn(&flags, &DataType::Bool, &shape, &[0..5, 0..5, 0..3]),
        Err(Error::RegionOutOfBounds {
            axis: 0,
            end: 5,
            len: 4
        })
    ));
    assert!(matches!(
        codec.decode_region_dyn(&flags[1..], &DataType::Bool, &shape, &[0..1, 0..1, 0..1]),
        Err(Error::LengthMismatch {
            expected: 60,
            actual: 59
        })
    ));
}

/// A `DynArray` whose array has gaps and a backwards axis (part of another, moved out)
/// encodes, slices, is assigned into, and has chunks decoded into it as its C-order copy
/// does, for a type of each way elements move: a unit of words, checked bytes, low bits,
/// a pair of words; and from a 0-d fill and from another array with gaps.
#[test]
fn dyn_arrays_with_gaps_behave_as_their_c_order_copies() {
    fn gapped<A: Bits>(offset: usize) -> ArrayD<A> {
        let whole = ArrayD::from_shape_fn(IxDyn(&[6, 7, 5]), |i| {
            crate::common::element::<A>(offset + i[0] * 35 + i[1] * 5 + i[2])
        });
        let step = |start, end, step| ndarray::SliceInfoElem::Slice {
            start,
            end: Some(end),
            step,
        };
        let mut a = whole.slice_move(&[step(1, 5, 1), step(0, 7, 2), step(1, 4, 1)][..]);
        a.invert_axis(ndarray::Axis(2));
        assert!(a.as_slice_memory_order().is_none(), "gaps");
        a
    }
    fn check<A: Bits>(fill: serde_json::Value)
    where
        DynArray: From<ArrayD<A>>,
    {
        let name = std::any::type_name::<A>();
        let little = BytesCodec::new(Endian::Little);
        let bits = |d: &DynArray| little.encode_dyn(d).unwrap();
        let a = gapped::<A>(0);
        let d = DynArray::from(a.clone());
        let region = [1..3, 0..4, 1..3];
        let region_shape = [2, 4, 2];
        for endian in [Endian::Little, Endian::Big] {
            let codec = BytesCodec::new(endian);
            assert_eq!(
                codec.encode_dyn(&d).unwrap(),
                reference_bytes(a.view(), endian),
                "{name} {endian}"
            );
        }
        let part = a.slice(crate::common::slice_of(&region).as_slice());
        assert_eq!(
            bits(&d.slice_region(&region).unwrap()),
            reference_bytes(part, Endian::Little),
            "{name} slice"
        );
        // A chunk of the region encoded, its part alone copied.
        assert_eq!(
            little
                .encode_chunk_dyn(&d, &region, &region_shape, &fill)
                .unwrap(),
            reference_bytes(
                a.slice(crate::common::slice_of(&region).as_slice()),
                Endian::Little
            ),
            "{name} chunk"
        );
        // Assigned from another array with gaps, of the region's shape.
        let from = gapped::<A>(1000).slice_move(&crate::common::slice_of(&region)[..]);
        assert!(from.as_slice_memory_order().is_none());
        let mut want = a.clone();
        want.slice_mut(crate::common::slice_of(&region).as_slice())
            .assign(&from);
        let mut got = d.clone();
        got.assign_region(&region, &DynArray::from(from.clone()))
            .unwrap();
        assert_eq!(
            bits(&got),
            reference_bytes(want.view(), Endian::Little),
            "{name} assign"
        );
        // From one element, 0-d.
        let x = crate::common::element::<A>(7);
        want.slice_mut(crate::common::slice_of(&region).as_slice())
            .fill(x);
        let one = DynArray::from(ndarray::arr0(x).into_dyn());
        got.assign_region(&region, &one).unwrap();
        assert_eq!(
            bits(&got),
            reference_bytes(want.view(), Endian::Little),
            "{name} fill"
        );
        // A chunk decoded into the region, in the other byte order than this machine's.
        let codec = BytesCodec::new(OTHER);
        let chunk = reference_bytes(from.view(), OTHER);
        let mut got = d.clone();
        codec
            .decode_chunk_into_dyn(&mut got, &region, &chunk, &region_shape)
            .unwrap();
        let mut want = a.clone();
        want.slice_mut(crate::common::slice_of(&region).as_slice())
            .assign(&from);
        assert_eq!(
            bits(&got),
            reference_bytes(want.view(), Endian::Little),
            "{name} decode"
        );
    }
    check::<f32>(serde_json::json!(0));
    check::<bool>(serde_json::json!(false));
    check::<Float4E2M1FN>(serde_json::json!(0));
    check::<Complex<f64>>(serde_json::json!([0, 0]));
    check::<u8>(serde_json::json!(0));
}
