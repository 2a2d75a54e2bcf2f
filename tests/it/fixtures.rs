//! Chunks written by zarr-python and tensorstore decode to the expected bit patterns, and
//! the expected arrays encode to exactly those bytes, in every layout.

use std::collections::BTreeMap;

use crate::common::{manifest, Bits, Case, LAYOUTS};
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode};

/// Check one case; returns how many chunk files it compared.
fn check<A: Bits>(case: &Case) -> usize {
    let expected = ArrayD::from_shape_vec(
        IxDyn(&case.shape),
        case.bits.iter().map(|b| A::from_bits(b)).collect(),
    )
    .unwrap();
    let mut files = 0;
    let mut first: Option<Vec<u8>> = None;
    for writer in &case.writers {
        let path = crate::common::fixtures().join(format!("{}.{writer}.bin", case.name));
        let bytes = std::fs::read(&path).unwrap();
        // Every writer wrote the same bytes.
        if let Some(first) = &first {
            assert_eq!(&bytes, first, "{} differs between writers", case.name);
        }
        let decoded = ArrayD::<A>::from_zarr_bytes(&bytes, case.shape.clone(), case.endian)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            crate::common::bits_of(decoded.view()),
            case.bits,
            "decode {}",
            path.display()
        );
        for layout in LAYOUTS {
            let fill = A::from_bits(&vec![0x3c; A::SIZE]);
            let mut storage = layout.storage(&case.shape, fill);
            layout.view(storage.view_mut()).assign(&expected);
            let view = layout.view(storage.view_mut());
            assert_eq!(
                view.to_zarr_bytes(case.endian),
                bytes,
                "encode {} {layout:?}",
                case.name
            );
            let mut target = layout.storage(&case.shape, fill);
            let mut view = layout.view(target.view_mut());
            view.decode_zarr_bytes_into(&bytes, case.endian).unwrap();
            assert_eq!(
                crate::common::bits_of(view.view()),
                case.bits,
                "decode_into {} {layout:?}",
                case.name
            );
        }
        first = Some(bytes);
        files += 1;
    }
    files
}

#[test]
fn fixtures_from_zarr_python_and_tensorstore() {
    let manifest = manifest();
    let mut files_per_type: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_yet: Vec<&str> = Vec::new();
    for case in &manifest.cases {
        let files = match case.data_type.as_str() {
            "bool" => check::<bool>(case),
            "int8" => check::<i8>(case),
            "int16" => check::<i16>(case),
            "int32" => check::<i32>(case),
            "int64" => check::<i64>(case),
            "uint8" => check::<u8>(case),
            "uint16" => check::<u16>(case),
            "uint32" => check::<u32>(case),
            "uint64" => check::<u64>(case),
            "float16" => check::<f16>(case),
            "bfloat16" => check::<bf16>(case),
            "float32" => check::<f32>(case),
            "float64" => check::<f64>(case),
            "complex64" => check::<Complex<f32>>(case),
            "complex128" => check::<Complex<f64>>(case),
            "r16" => check::<[u8; 2]>(case),
            "r24" => check::<[u8; 3]>(case),
            other => {
                not_yet.push(other);
                continue;
            }
        };
        *files_per_type.entry(case.data_type.as_str()).or_default() += files;
    }
    assert!(not_yet.is_empty(), "unexpected data types {not_yet:?}");
    assert_eq!(files_per_type.len(), 17, "{files_per_type:?}");
    // Both writers for every non-empty case (5 shapes × 2 endians), zarr-python for the
    // empties; bfloat16 only from tensorstore, which writes no chunk for an empty array.
    for (data_type, files) in &files_per_type {
        let expected = if *data_type == "bfloat16" { 10 } else { 24 };
        assert_eq!(*files, expected, "{data_type}: {files_per_type:?}");
    }
}

#[test]
fn fixture_special_floats_are_there() {
    // The fixtures do carry what they claim: a signalling NaN, a NaN payload and -0.0.
    let manifest = manifest();
    let case = manifest
        .cases
        .iter()
        .find(|c| c.name == "float64_big_2x3")
        .unwrap();
    let bits: Vec<u64> = case.bits.iter().map(|b| b[0]).collect();
    assert!(bits.contains(&0x7ff0_0000_0000_0001));
    assert!(bits.contains(&0x8000_0000_0000_0000));
    assert!(bits
        .iter()
        .any(|&b| b >> 51 == 0xfff && b & 0x7_ffff_ffff_ffff != 0));
    let bytes =
        std::fs::read(crate::common::fixtures().join("float64_big_2x3.tensorstore.bin")).unwrap();
    assert_eq!(&bytes[..8], &case.bits[0][0].to_be_bytes());
}
