//! Chunks written by zarr-python and tensorstore decode to the expected bit patterns, and
//! the expected arrays encode to exactly those bytes, in every layout.

use std::collections::BTreeMap;

use crate::common::{Bits, Case, manifest, round_trip_in_every_layout};
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;
use zarr_bytes::BytesDecode;

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
        let ctx = format!("{} from {writer}", case.name);
        round_trip_in_every_layout(expected.view(), &bytes, case.endian, 0x3c, &ctx);
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
    assert!(
        bits.iter()
            .any(|&b| b >> 51 == 0xfff && b & 0x7_ffff_ffff_ffff != 0)
    );
    let bytes =
        std::fs::read(crate::common::fixtures().join("float64_big_2x3.tensorstore.bin")).unwrap();
    assert_eq!(&bytes[..8], &case.bits[0][0].to_be_bytes());
}

/// Every data type of the table has chunks among the fixtures, which the tests of each
/// source decode and encode: written by a peer (zarr-python, tensorstore, zarrs), or
/// computed from the spec where no peer writes the type (`tests/data/extensions`). A type
/// added to the table needs its fixtures too.
#[test]
fn every_data_type_of_the_table_has_fixtures_from_a_writer() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let read = |path: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(data.join(path)).unwrap()).unwrap()
    };
    let mut names = std::collections::BTreeSet::new();
    for case in read("chunks/manifest.json")["cases"].as_array().unwrap() {
        names.insert(case["data_type"].as_str().unwrap().to_string());
    }
    for case in read("extensions/manifest.json")["cases"]
        .as_array()
        .unwrap()
    {
        let t: zarr_bytes::DataType = serde_json::from_value(case["data_type"].clone()).unwrap();
        names.insert(t.to_string());
    }
    for case in read("zarrs/manifest.json")["cases"].as_array().unwrap() {
        names.insert(case["data_type"].as_str().unwrap().to_string());
    }
    let missing: Vec<String> = zarr_bytes::DataType::FIXED
        .iter()
        .map(|t| t.to_string())
        .filter(|name| !names.contains(name))
        .collect();
    assert!(missing.is_empty(), "no fixture for {missing:?}");
}
