//! Zero-copy views and partial chunk reads and writes.

mod common;

use std::ops::Range;

use common::{reference_bytes, standard, Bits};
use half::bf16;
use ndarray::{Array2, ArrayD, Dimension, IxDyn};
use num_complex::Complex;
use zarr_bytes::{
    cow_zarr_bytes, decode_region, encode_region_into, region_byte_ranges, view_zarr_bytes,
    BytesDecode, BytesEncode, DataType, Endian, Error,
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

    let view = view_zarr_bytes::<A, _>(at, IxDyn(shape), Endian::NATIVE).unwrap();
    assert_eq!(view.as_ptr() as *const u8, at.as_ptr(), "the view borrows");
    assert_eq!(
        common::bits_of(view.view()),
        common::bits_of(expected.view())
    );
    let cow = cow_zarr_bytes::<A, _>(at, IxDyn(shape), Endian::NATIVE).unwrap();
    assert!(cow.is_view());

    if std::mem::align_of::<A>() > 1 && !native.is_empty() {
        let e = view_zarr_bytes::<A, _>(off, IxDyn(shape), Endian::NATIVE).unwrap_err();
        let align = std::mem::align_of::<A>();
        assert!(
            matches!(e, Error::Misaligned { offset: 1, align: a } if a == align),
            "{e:?}"
        );
        assert!(e.to_string().contains("misaligned by 1 bytes"), "{e}");
        let cow = cow_zarr_bytes::<A, _>(off, IxDyn(shape), Endian::NATIVE).unwrap();
        assert!(cow.is_owned());
        assert_eq!(
            common::bits_of(cow.view()),
            common::bits_of(expected.view())
        );
    }

    let swapped = a.to_zarr_bytes(OTHER);
    let decoded = ArrayD::<A>::from_zarr_bytes(&swapped, shape, OTHER).unwrap();
    let cow = cow_zarr_bytes::<A, _>(&swapped, IxDyn(shape), OTHER).unwrap();
    assert_eq!(common::bits_of(cow.view()), common::bits_of(decoded.view()));
    if A::DATA_TYPE.endian_applies() {
        let e = view_zarr_bytes::<A, _>(&swapped, IxDyn(shape), OTHER).unwrap_err();
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
    let e = view_zarr_bytes::<bool, _>(&[1, 0, 5], 3, Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 5
        }
    ));
    let e = cow_zarr_bytes::<bool, _>(&[1, 0, 5], 3, Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 2,
            value: 5
        }
    ));
    let e = view_zarr_bytes::<u16, _>(&[0; 5], 3, Endian::NATIVE).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 6,
            actual: 5
        }
    ));
    let e = cow_zarr_bytes::<u16, _>(&[0; 5], 3, Endian::NATIVE).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 6,
            actual: 5
        }
    ));
    let e = view_zarr_bytes::<u64, _>(&[], (usize::MAX, 2), Endian::NATIVE).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 8 }));
    let e = view_zarr_bytes::<f32, _>(&[0; 4], 1, OTHER).unwrap_err();
    assert!(matches!(
        e,
        Error::NeedsConversion {
            data_type: DataType::Float32,
            ..
        }
    ));
    assert!(e.to_string().contains("float32"), "{e}");
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
        let expected = full.slice(common::slice_of(&region).as_slice());
        // decode_region is slicing the full decode.
        let got = decode_region::<A>(&bytes, shape, &region, endian).unwrap();
        assert_eq!(
            common::bits_of(got.view()),
            common::bits_of(expected.view()),
            "{shape:?} {region:?}"
        );
        // The concatenated ranges are the region's bytes, and ranges are as few as can be.
        let ranges = region_byte_ranges(shape, &region, A::SIZE).unwrap();
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
            common::element::<A>(i.slice().iter().sum::<usize>() + 1000)
        });
        let mut chunk = bytes.clone();
        encode_region_into(&mut chunk, shape, &region, &patch.t().t(), endian).unwrap();
        let mut assigned = full.clone();
        assigned
            .slice_mut(common::slice_of(&region).as_slice())
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
        region_byte_ranges(&[4, 5, 6], &[1..3, 0..5, 0..6], 8).unwrap(),
        [240..720]
    );
    assert_eq!(
        region_byte_ranges(&[4, 5, 6], &[0..4, 0..5, 0..6], 2).unwrap(),
        [0..240]
    );
    assert_eq!(
        region_byte_ranges(&[4, 5, 6], &[2..3, 1..2, 0..6], 1).unwrap(),
        [66..72]
    );
    assert_eq!(
        region_byte_ranges(&[4, 5, 6], &[1..3, 1..2, 0..6], 1).unwrap(),
        [36..42, 66..72]
    );
    assert_eq!(region_byte_ranges(&[], &[], 4).unwrap(), [0..4]);
    assert!(region_byte_ranges(&[4, 5], &[1..1, 0..5], 4)
        .unwrap()
        .is_empty());
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // a one-axis region for a two-axis chunk
fn region_errors() {
    let e = region_byte_ranges(&[4, 5], &[0..1], 1).unwrap_err();
    assert!(matches!(
        e,
        Error::RankMismatch {
            expected: 2,
            actual: 1
        }
    ));
    let e = region_byte_ranges(&[4, 5], &[0..1, 2..6], 1).unwrap_err();
    assert!(matches!(
        e,
        Error::RegionOutOfBounds {
            axis: 1,
            end: 6,
            len: 5
        }
    ));
    #[allow(clippy::reversed_empty_ranges)]
    let e = region_byte_ranges(&[4, 5], &[3..1, 0..5], 1).unwrap_err();
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
    let e = region_byte_ranges(&[1 << 40, 10], &[2..1 << 40, 9..10], 3).unwrap_err();
    assert!(
        matches!(e, Error::TooManyRanges { count } if count == (1 << 40) - 2),
        "{e:?}"
    );
    let e = region_byte_ranges(&[usize::MAX, 3], &[0..1, 0..1], 1).unwrap_err();
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
        matches!(&e, Error::RegionShapeMismatch { expected, actual } if expected == &[1, 1] && actual == &[1, 2])
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
