//! Extension data types written by zarr-python and tensorstore (`tests/data/extensions`):
//! every chunk decodes to the values the writer was given, re-encodes bit for bit, and
//! each big-endian chunk re-encoded little-endian is the little-endian chunk; every
//! `zarr.json` data type and fill value reads, and the fill value is what it says.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use ndarray::ArrayD;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use zarr_bytes::{BytesCodec, DataType, DynArray, Endian, Error, MetadataError};

#[derive(Deserialize)]
struct Manifest {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    writer: String,
    data_type: Value,
    fill_value: Value,
    fill: Value,
    shape: Vec<usize>,
    values: Value,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/extensions")
}

fn manifest() -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(dir().join("manifest.json")).unwrap()).unwrap()
}

fn base64(bytes: &[u8]) -> Value {
    Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Elements in the manifest's representation: numbers as they are, floats as their bits,
/// minifloats as their codes, bytes as base64, structs as a column per field.
fn column(d: &DynArray) -> Value {
    fn each<T: Copy>(a: &ArrayD<T>, f: impl Fn(T) -> Value) -> Value {
        Value::Array(a.iter().map(|&x| f(x)).collect())
    }
    fn bytes_of(a: &ArrayD<u8>) -> Value {
        let n = a.shape().last().copied().unwrap_or(1).max(1);
        let flat: Vec<u8> = a.iter().copied().collect();
        Value::Array(flat.chunks(n).map(base64).collect())
    }
    match d {
        DynArray::Bool(a) => each(a, |x| json!(x)),
        DynArray::Int8(a) | DynArray::Int2(a) | DynArray::Int4(a) => each(a, |x| json!(x)),
        DynArray::UInt8(a) | DynArray::UInt2(a) | DynArray::UInt4(a) => each(a, |x| json!(x)),
        DynArray::Int16(a) => each(a, |x| json!(x)),
        DynArray::UInt16(a) => each(a, |x| json!(x)),
        DynArray::Int32(a) => each(a, |x| json!(x)),
        DynArray::UInt32(a) => each(a, |x| json!(x)),
        DynArray::Int64(a) => each(a, |x| json!(x)),
        DynArray::UInt64(a) => each(a, |x| json!(x)),
        DynArray::Float16(a) => each(a, |x| json!(x.to_bits())),
        DynArray::BFloat16(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float32(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float64(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Complex64(a) => each(a, |x| json!([x.re.to_bits(), x.im.to_bits()])),
        DynArray::Complex128(a) => each(a, |x| json!([x.re.to_bits(), x.im.to_bits()])),
        DynArray::ComplexFloat16(a) => each(a, |x| json!([x.re.to_bits(), x.im.to_bits()])),
        DynArray::ComplexBFloat16(a) => each(a, |x| json!([x.re.to_bits(), x.im.to_bits()])),
        DynArray::Float4E2M1FN(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float6E2M3FN(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float6E3M2FN(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E3M4(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E4M3(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E4M3B11FNUZ(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E4M3FN(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E4M3FNUZ(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E5M2(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E5M2FNUZ(a) => each(a, |x| json!(x.to_bits())),
        DynArray::Float8E8M0FNU(a) => each(a, |x| json!(x.to_bits())),
        DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
            each(values, |x| json!(x))
        }
        DynArray::FixedLengthUtf32(s) => {
            Value::Array(s.values().iter().map(|s| json!(s)).collect())
        }
        DynArray::NullTerminatedBytes(s) => {
            Value::Array(s.values().iter().map(|b| base64(b)).collect())
        }
        DynArray::RawBits(a) | DynArray::RawBytes(a) => bytes_of(a.bytes()),
        DynArray::Struct(s) => Value::Object(
            s.fields()
                .map(|(name, field)| (name.to_string(), column(field)))
                .collect::<Map<String, Value>>(),
        ),
        other => panic!("no representation for {}", other.data_type()),
    }
}

/// One element in the manifest's representation, as a column of one.
fn as_column(element: &Value, data_type: &DataType) -> Value {
    match (data_type, element) {
        (DataType::Struct(t), Value::Object(map)) => Value::Object(
            t.fields()
                .iter()
                .map(|f| (f.name.clone(), as_column(&map[&f.name], &f.data_type)))
                .collect(),
        ),
        _ => json!([element]),
    }
}

/// The `bytes` codec of a chunk's `zarr.json`, as it is: the legacy `structured` arrays
/// zarr-python writes without an endian read little-endian by themselves.
fn codec_of(meta: &Value) -> BytesCodec {
    let codecs = meta["codecs"].as_array().unwrap();
    assert_eq!(codecs.len(), 1, "one codec");
    serde_json::from_value(codecs[0].clone()).unwrap()
}

/// The bits of each byte a top-level data type uses: tensorstore writes fill elements of
/// sub-byte types with the high bits set, and encoding writes them clear.
fn used_bits(data_type: &DataType) -> u8 {
    match data_type {
        DataType::Int2 | DataType::UInt2 => 0x03,
        DataType::Int4 | DataType::UInt4 | DataType::Float4E2M1FN => 0x0f,
        DataType::Float6E2M3FN | DataType::Float6E3M2FN => 0x3f,
        _ => 0xff,
    }
}

#[test]
fn every_extension_fixture_decodes_reencodes_and_fills() {
    let manifest = manifest();
    let mut decoded: BTreeMap<String, (DataType, Vec<usize>, DynArray)> = BTreeMap::new();
    let mut writers: BTreeMap<&str, usize> = BTreeMap::new();
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for case in &manifest.cases {
        let name = &case.name;
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("{name}.zarr.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            meta["data_type"], case.data_type,
            "{name}: manifest and zarr.json"
        );
        let data_type: DataType = serde_json::from_value(case.data_type.clone())
            .unwrap_or_else(|e| panic!("{name}: data type: {e}"));
        // Written back in the canonical form, which reads as the same type.
        let canonical = serde_json::to_value(&data_type).unwrap();
        if case.data_type.get("name") != Some(&json!("structured")) {
            assert_eq!(canonical, case.data_type, "{name}: canonical form");
        }
        assert_eq!(
            serde_json::from_value::<DataType>(canonical).unwrap(),
            data_type
        );

        let codec = codec_of(&meta);
        let bytes = std::fs::read(dir().join(format!("{name}.bin"))).unwrap();
        let array = codec
            .decode_dyn(&bytes, &data_type, &case.shape)
            .unwrap_or_else(|e| panic!("{name}: decode: {e}"));
        assert_eq!(array.data_type(), data_type, "{name}");
        assert_eq!(array.shape(), &case.shape[..], "{name}");
        assert_eq!(column(&array), case.values, "{name}: values");

        // Bit for bit again, the unused high bits written clear. A legacy array is written
        // back as a `struct`, which needs its byte order said: little-endian.
        let mask = used_bits(&data_type);
        let want: Vec<u8> = bytes.iter().map(|b| b & mask).collect();
        let legacy = matches!(&data_type, DataType::Struct(t) if t.is_legacy());
        let writer = match codec.endian {
            None if legacy => {
                let e = codec.encode_dyn(&array).unwrap_err();
                assert!(matches!(
                    e,
                    Error::Metadata(MetadataError::EndianRequired { .. })
                ));
                BytesCodec::new(Endian::Little)
            }
            _ => codec,
        };
        assert_eq!(
            writer.encode_dyn(&array).unwrap(),
            want,
            "{name}: re-encode"
        );

        // The fill value reads as what the writer meant.
        let fill = codec
            .full_dyn(&data_type, &[1], &case.fill_value)
            .unwrap_or_else(|e| panic!("{name}: fill value: {e}"));
        assert_eq!(
            column(&fill),
            as_column(&case.fill, &data_type),
            "{name}: fill"
        );

        *writers.entry(case.writer.as_str()).or_default() += 1;
        *types.entry(data_type.name_for_tests()).or_default() += 1;
        decoded.insert(name.clone(), (data_type, case.shape.clone(), array));
    }

    // Each big-endian chunk re-encoded little-endian is the little-endian chunk.
    let mut pairs = 0;
    for (name, (_, _, array)) in &decoded {
        let Some(stem) = name.strip_suffix("_big") else {
            continue;
        };
        let little = std::fs::read(dir().join(format!("{stem}_little.bin"))).unwrap();
        let again = BytesCodec::new(Endian::Little).encode_dyn(array).unwrap();
        assert_eq!(again, little, "{name} as little-endian");
        pairs += 1;
    }
    // The legacy struct forms hold the little-endian bytes of zarr-python's struct.
    let legacy = std::fs::read(dir().join("zp31_structured_rich.bin")).unwrap();
    let little = std::fs::read(dir().join("zp_struct_rich_little.bin")).unwrap();
    assert_eq!(legacy, little);
    assert_eq!(
        decoded["zp31_structured_rich"].0,
        decoded["zp_struct_rich_little"].0
    );

    assert!(pairs >= 15, "{pairs} big/little pairs");
    assert_eq!(manifest.cases.len(), 59, "{writers:?}");
    for writer in [
        "zarr-python",
        "zarr-python-3.1",
        "tensorstore",
        "generate.py",
    ] {
        assert!(writers.contains_key(writer), "{writer}: {writers:?}");
    }
    // Every extension type is covered by some fixture.
    for t in [
        "int2",
        "int4",
        "uint2",
        "uint4",
        "float4_e2m1fn",
        "float6_e2m3fn",
        "float6_e3m2fn",
        "float8_e3m4",
        "float8_e4m3",
        "float8_e4m3b11fnuz",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "complex_float16",
        "complex_bfloat16",
        "numpy.datetime64",
        "numpy.timedelta64",
        "fixed_length_utf32",
        "null_terminated_bytes",
        "raw_bytes",
        "struct",
    ] {
        assert!(types.contains_key(t), "{t}: {types:?}");
    }
}

/// The Zarr name of a data type, for counting.
trait NameForTests {
    fn name_for_tests(&self) -> String;
}

impl NameForTests for DataType {
    fn name_for_tests(&self) -> String {
        match serde_json::to_value(self).unwrap() {
            Value::String(name) => name,
            object => object["name"].as_str().unwrap().to_string(),
        }
    }
}
