//! Arrays written by zarrs (`tests/data/zarrs/`): the complex minifloats, their high bits,
//! and the codes of `"NaN"` fill values, against zarrs, ml_dtypes and the extension
//! registry's pages.

use std::path::{Path, PathBuf};

use serde_json::Value;
use zarr_bytes::{BytesCodec, DataType, DynArray, Endian};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/zarrs")
}

fn json(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The codes of a minifloat or complex minifloat array, in C order, real part first: its
/// little-endian bytes, which are the codes with their unused bits clear.
fn codes(d: &DynArray) -> Vec<u64> {
    let bytes = BytesCodec::new(Endian::Little).encode_dyn(d).unwrap();
    bytes.into_iter().map(u64::from).collect()
}

/// The codes of a manifest list: numbers, or `[re, im]` pairs.
fn listed(values: &Value) -> Vec<u64> {
    let mut out = Vec::new();
    for v in values.as_array().unwrap() {
        match v {
            Value::Array(pair) => out.extend(pair.iter().map(|c| c.as_u64().unwrap())),
            c => out.push(c.as_u64().unwrap()),
        }
    }
    out
}

/// The bits of each component code of a data type: 4, 6 or 8.
fn bits(case: &Value) -> u32 {
    case["bits"].as_u64().unwrap() as u32
}

#[test]
fn every_zarrs_array_decodes_reencodes_and_fills_as_zarrs_reads_it() {
    let manifest = json(dir().join("manifest.json"));
    let mut kinds = std::collections::BTreeMap::new();
    let mut complex_types = std::collections::BTreeSet::new();
    for case in manifest["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let meta = json(dir().join(case["zarr_json"].as_str().unwrap()));
        let data_type: DataType = serde_json::from_value(meta["data_type"].clone()).unwrap();
        assert_eq!(data_type.to_string(), case["data_type"].as_str().unwrap());
        let codec: BytesCodec = serde_json::from_value(meta["codecs"][0].clone()).unwrap();
        let shape: Vec<usize> = serde_json::from_value(case["shape"].clone()).unwrap();
        let bytes = std::fs::read(dir().join(case["file"].as_str().unwrap())).unwrap();

        // The values are the low bits of each byte: the high bits zarrs leaves are ignored.
        let d = codec.decode_dyn(&bytes, &data_type, &shape).unwrap();
        assert_eq!(d.data_type(), data_type, "{name}");
        assert_eq!(codes(&d), listed(&case["values"]), "{name}: values");
        // Written back with the high bits clear; a file without them, byte for byte.
        let mask = (0xffu16 >> (8 - bits(case))) as u8;
        let clear: Vec<u8> = bytes.iter().map(|b| b & mask).collect();
        assert_eq!(codec.encode_dyn(&d).unwrap(), clear, "{name}: re-encode");
        if case["high_bits_in_file"] == false {
            assert_eq!(clear, bytes, "{name}");
        }

        // The fill value of zarr.json reads as the codes zarrs stores for it.
        let n = shape.iter().product::<usize>();
        let fill = codec
            .full_dyn(&data_type, &[n], &meta["fill_value"])
            .unwrap();
        let one = listed(&Value::Array(vec![case["fill_code"].clone()]));
        let all: Vec<u64> = one.iter().copied().cycle().take(n * one.len()).collect();
        assert_eq!(codes(&fill), all, "{name}: fill {}", meta["fill_value"]);
        if let Some(missing) = case.get("missing_chunk") {
            assert_eq!(codes(&fill), listed(missing), "{name}: missing chunk");
        }
        *kinds
            .entry(case["kind"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
        if name.starts_with("complex") && case["kind"] == "values" {
            complex_types.insert(case["data_type"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(complex_types.len(), 10, "{complex_types:?}");
    assert_eq!(kinds["values"], 10);
    assert_eq!(kinds["high_bits"], 3);
    assert_eq!(kinds["fill_nan"], 14);
}

/// `"NaN"` is the code the registry's page of each type states, the NaN ml_dtypes makes,
/// and what zarrs reads; a type without NaN refuses it.
#[test]
fn nan_fill_values_are_the_registry_codes() {
    let manifest = json(dir().join("manifest.json"));
    let ml_dtypes = json(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/extensions/minifloat_extra.json"),
    );
    let mut checked = 0;
    for entry in manifest["registry"]["nan_codes"].as_array().unwrap() {
        let name = entry["data_type"].as_str().unwrap();
        let data_type: DataType = name.parse().unwrap();
        let fill = DynArray::full(&data_type, &[1], &Value::from("NaN"));
        match entry["nan"].as_u64() {
            Some(code) => {
                let page = entry["page_says"].as_str().unwrap();
                assert!(
                    page.to_lowercase().contains(&format!("{code:#04x}")),
                    "{page}"
                );
                assert_eq!(codes(&fill.unwrap()), [code], "{name}");
                assert_eq!(ml_dtypes["nan"][name]["nan"].as_u64(), Some(code), "{name}");
                assert_eq!(entry["zarrs"].as_u64(), Some(code), "{name}");
                // The complex kin takes the same code in each part.
                let complex: DataType = format!("complex_{name}").parse().unwrap();
                let nan = Value::from(vec!["NaN", "NaN"]);
                let pair = DynArray::full(&complex, &[1], &nan).unwrap();
                assert_eq!(codes(&pair), [code, code], "complex_{name}");
                checked += 1;
            }
            // No NaN in the type, or (float8_e4m3fn) no page: ml_dtypes' NaN.
            None => match ml_dtypes["nan"][name]["has_nan"].as_bool() {
                Some(true) => {
                    let code = ml_dtypes["nan"][name]["nan"].as_u64().unwrap();
                    assert_eq!(codes(&fill.unwrap()), [code], "{name}");
                }
                _ => assert!(fill.is_err(), "{name}"),
            },
        }
    }
    assert_eq!(checked, 7);
}

/// tensorstore's default `float8_e8m0fnu` array has fill value 0 and reads its unwritten
/// chunks as code 0x00, although the type holds no zero; any other number must be exact.
#[test]
fn float8_e8m0fnu_fill_zero_is_code_zero() {
    let t = DataType::Float8E8M0FNU;
    for zero in ["0", "0.0", "-0.0"] {
        let value: Value = serde_json::from_str(zero).unwrap();
        assert_eq!(
            codes(&DynArray::full(&t, &[2], &value).unwrap()),
            [0, 0],
            "{zero}"
        );
    }
    let half = DynArray::full(&t, &[1], &Value::from(0.5)).unwrap();
    assert_eq!(codes(&half), [126]);
    for inexact in [0.3, 3.0, -1.0] {
        assert!(
            DynArray::full(&t, &[1], &Value::from(inexact)).is_err(),
            "{inexact}"
        );
    }
    // Other types keep their exact zero: no other minifloat is read as 0x00 that way.
    let pair = Value::from(vec![0.0, 0.5]);
    let c = DynArray::full(&"complex_float8_e8m0fnu".parse().unwrap(), &[1], &pair).unwrap();
    assert_eq!(codes(&c), [0, 126]);
}
