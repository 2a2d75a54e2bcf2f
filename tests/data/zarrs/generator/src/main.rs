//! Writes the zarrs fixtures in `tests/data/zarrs` (see README.md there).
//!
//! For every case it builds a Zarr v3 array with zarrs (one chunk, the only
//! codec `bytes`) in a temporary directory, writes elements through zarrs'
//! typed API (`microfloat` values and `num_complex::Complex` of them, made
//! from their codes), reads them back, and copies the chunk file and zarrs'
//! `zarr.json` byte for byte. `manifest.json` describes every case, zarrs'
//! reading and writing of fill values, and the NaN codes the registry pages
//! state.
//!
//! Run from this directory: `cargo run --locked --release`.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use num_complex::Complex;
use serde_json::{json, Value};
use zarrs::array::{Array, ArrayBuilder, ArrayBytes, FillValueMetadata};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{StoreKey, WritableStorageTraits};

type Store = FilesystemStore;
type StoreFn = fn(&Array<Store>, &[Range<u64>], &[u8]) -> Result<(), String>;

/// A data type as this program writes it.
struct Ty {
    /// The `data_type` name.
    name: &'static str,
    /// The component's minifloat type (the type itself for real types).
    component: &'static str,
    complex: bool,
    /// Bits of a component code.
    bits: u32,
    /// Whether the component type has a NaN.
    has_nan: bool,
    /// Store elements given as codes (one byte per component, C order)
    /// through zarrs' typed API.
    store: StoreFn,
    /// The component code of 1.0 (microfloat's conversion).
    one: u8,
    /// The value zarrs' element type (microfloat) gives a component byte.
    value: fn(u8) -> f64,
}

impl Ty {
    fn per_element(&self) -> usize {
        if self.complex {
            2
        } else {
            1
        }
    }
    fn mask(&self) -> u8 {
        (0xffu16 >> (8 - self.bits)) as u8
    }
}

macro_rules! real {
    ($name:literal, $t:ty, $bits:expr, $nan:expr) => {
        Ty {
            name: $name,
            component: $name,
            complex: false,
            bits: $bits,
            has_nan: $nan,
            store: |array, subset, codes| {
                let elements: Vec<$t> = codes.iter().map(|&c| <$t>::from_bits(c)).collect();
                array
                    .store_array_subset(&subset.to_vec(), elements)
                    .map_err(|e| e.to_string())
            },
            one: <$t>::from_f32(1.0).to_bits(),
            value: |b| <$t>::from_bits(b).to_f64(),
        }
    };
}

macro_rules! complex {
    ($name:literal, $component:literal, $t:ty, $bits:expr, $nan:expr) => {
        Ty {
            name: $name,
            component: $component,
            complex: true,
            bits: $bits,
            has_nan: $nan,
            store: |array, subset, codes| {
                let elements: Vec<Complex<$t>> = codes
                    .chunks_exact(2)
                    .map(|p| Complex::new(<$t>::from_bits(p[0]), <$t>::from_bits(p[1])))
                    .collect();
                array
                    .store_array_subset(&subset.to_vec(), elements)
                    .map_err(|e| e.to_string())
            },
            one: <$t>::from_f32(1.0).to_bits(),
            value: |b| <$t>::from_bits(b).to_f64(),
        }
    };
}

fn types() -> Vec<Ty> {
    use microfloat::*;
    vec![
        real!("float8_e3m4", f8e3m4, 8, true),
        real!("float8_e4m3", f8e4m3, 8, true),
        real!("float8_e4m3b11fnuz", f8e4m3b11fnuz, 8, true),
        real!("float8_e4m3fnuz", f8e4m3fnuz, 8, true),
        real!("float8_e5m2", f8e5m2, 8, true),
        real!("float8_e5m2fnuz", f8e5m2fnuz, 8, true),
        real!("float8_e8m0fnu", f8e8m0fnu, 8, true),
        real!("float6_e2m3fn", f6e2m3fn, 6, false),
        real!("float6_e3m2fn", f6e3m2fn, 6, false),
        real!("float4_e2m1fn", f4e2m1fn, 4, false),
        complex!("complex_float8_e3m4", "float8_e3m4", f8e3m4, 8, true),
        complex!("complex_float8_e4m3", "float8_e4m3", f8e4m3, 8, true),
        complex!("complex_float8_e4m3b11fnuz", "float8_e4m3b11fnuz", f8e4m3b11fnuz, 8, true),
        complex!("complex_float8_e4m3fnuz", "float8_e4m3fnuz", f8e4m3fnuz, 8, true),
        complex!("complex_float8_e5m2", "float8_e5m2", f8e5m2, 8, true),
        complex!("complex_float8_e5m2fnuz", "float8_e5m2fnuz", f8e5m2fnuz, 8, true),
        complex!("complex_float8_e8m0fnu", "float8_e8m0fnu", f8e8m0fnu, 8, true),
        complex!("complex_float6_e2m3fn", "float6_e2m3fn", f6e2m3fn, 6, false),
        complex!("complex_float6_e3m2fn", "float6_e3m2fn", f6e3m2fn, 6, false),
        complex!("complex_float4_e2m1fn", "float4_e2m1fn", f4e2m1fn, 4, false),
    ]
}

/// Types asked of zarrs that it has no data type for.
const NOT_IN_ZARRS: [&str; 2] = ["float8_e4m3fn", "complex_float8_e4m3fn"];

/// What the zarr-extensions pages (data-types/<type>/README.md) say `"NaN"` is.
const REGISTRY_COMMIT: &str = "4da7b37a84f76e660902f6d3de3eaef0e0febae6";
const REGISTRY_NAN: [(&str, Option<u8>, &str); 11] = [
    ("float8_e3m4", Some(0x78), "The constant `\"NaN\"` corresponds to a representation of `\"0x78\"`."),
    ("float8_e4m3", Some(0x7c), "The constant `\"NaN\"` corresponds to a representation of `\"0x7c\"`."),
    ("float8_e4m3b11fnuz", Some(0x80), "The constant `\"NaN\"` corresponds to a representation of `\"0x80\"`."),
    ("float8_e4m3fnuz", Some(0x80), "The constant `\"NaN\"` corresponds to a representation of `\"0x80\"`."),
    ("float8_e5m2", Some(0x7e), "The constant `\"NaN\"` corresponds to a representation of `\"0x7e\"`."),
    ("float8_e5m2fnuz", Some(0x80), "The constant `\"NaN\"` corresponds to a representation of `\"0x80\"`."),
    ("float8_e8m0fnu", Some(0xff), "The constant `\"NaN\"` corresponds to a representation of `\"0xFF\"`."),
    ("float6_e2m3fn", None, "The constants `\"Infinity\"`, `\"-Infinity\"`, and `\"NaN\"` are not supported"),
    ("float6_e3m2fn", None, "The constants `\"Infinity\"`, `\"-Infinity\"`, and `\"NaN\"` are not supported"),
    ("float4_e2m1fn", None, "The constants `\"Infinity\"`, `\"-Infinity\"`, and `\"NaN\"` are not supported"),
    ("float8_e4m3fn", None, "no page: the type is not in the registry"),
];

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The version of a package in this program's Cargo.lock.
fn locked_version(package: &str) -> String {
    let lock = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{package}\"") {
            let v = lines.next().unwrap();
            return v.trim_start_matches("version = \"").trim_end_matches('"').to_string();
        }
    }
    panic!("{package} not in Cargo.lock");
}

fn fill_metadata(v: &Value) -> FillValueMetadata {
    serde_json::from_value(v.clone()).unwrap()
}

/// Codes in the values representation: an integer per real element,
/// `[re, im]` per complex element; only the component's low bits.
fn represent(ty: &Ty, bytes: &[u8]) -> Value {
    let m = ty.mask();
    if ty.complex {
        Value::from(bytes.chunks_exact(2).map(|p| json!([p[0] & m, p[1] & m])).collect::<Vec<_>>())
    } else {
        Value::from(bytes.iter().map(|&b| json!(b & m)).collect::<Vec<_>>())
    }
}

fn represent_one(ty: &Ty, bytes: &[u8]) -> Value {
    represent(ty, bytes).as_array().unwrap()[0].clone()
}

/// A component byte's value as zarrs' element type gives it, in fill value JSON form.
fn number(ty: &Ty, byte: u8) -> Value {
    let x = (ty.value)(byte);
    if x.is_nan() {
        json!("NaN")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

/// The bytes of a fill value given as hex strings.
fn fill_bytes_given(fill: &Value) -> String {
    let parts: Vec<&Value> = match fill {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    parts
        .iter()
        .map(|v| v.as_str().and_then(|s| s.strip_prefix("0x")).expect("hex fill value"))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn retrieve_bytes(array: &Array<Store>, chunk: &[u64]) -> Vec<u8> {
    let bytes: ArrayBytes<'static> = array.retrieve_chunk(chunk).unwrap();
    bytes.into_fixed().unwrap().into_owned()
}

struct Case<'t> {
    name: String,
    kind: &'static str,
    ty: &'t Ty,
    shape: Vec<u64>,
    fill: Value,
    /// Elements to store: (subset, codes).
    writes: Vec<(Vec<Range<u64>>, Vec<u8>)>,
    note: Option<String>,
}

/// Write one case, copy its files to `out`, and return its manifest record.
fn run_case(case: &Case, tmp: &Path, out: &Path) -> Value {
    let ty = case.ty;
    let dir = tmp.join(&case.name);
    let store = Arc::new(Store::new(&dir).unwrap());
    let array = ArrayBuilder::new(
        case.shape.clone(),
        case.shape.clone(),
        ty.name,
        fill_metadata(&case.fill),
    )
    .build(store, "/")
    .unwrap();
    array.store_metadata().unwrap();
    let chunk = vec![0u64; case.shape.len()];
    let fill_bytes = array.fill_value().as_ne_bytes().to_vec();
    let n: u64 = case.shape.iter().product();

    // A chunk not yet written reads as the fill value.
    let missing = retrieve_bytes(&array, &chunk);
    assert_eq!(missing, fill_bytes.repeat(n as usize), "{}: missing chunk", case.name);

    let mut expected = missing.clone();
    for (subset, codes) in &case.writes {
        (ty.store)(&array, subset, codes).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        // one-dimensional subsets of the flat element order (or the whole array)
        let start = if subset.len() == 1 { subset[0].start as usize } else { 0 };
        let at = start * ty.per_element();
        expected[at..at + codes.len()].copy_from_slice(codes);
    }

    let key = array.chunk_key(&chunk);
    let stored = fs::read(dir.join(key.as_str())).unwrap();
    let zarr_json = fs::read(dir.join("zarr.json")).unwrap();
    assert_eq!(stored, expected, "{}: stored chunk", case.name);
    // zarrs reads its own chunk back unchanged, and reopens the array the same
    assert_eq!(retrieve_bytes(&array, &chunk), expected, "{}: read back", case.name);
    let reopened = Array::open(Arc::new(Store::new(&dir).unwrap()), "/").unwrap();
    assert_eq!(reopened.fill_value().as_ne_bytes(), fill_bytes, "{}: reopened fill", case.name);
    assert_eq!(retrieve_bytes(&reopened, &chunk), expected, "{}: reopened", case.name);

    fs::write(out.join(format!("{}.bin", case.name)), &stored).unwrap();
    fs::write(out.join(format!("{}.zarr.json", case.name)), &zarr_json).unwrap();

    let meta: Value = serde_json::from_slice(&zarr_json).unwrap();
    let high_bits_kept = stored.iter().any(|&b| b & !ty.mask() != 0);
    let mut record = json!({
        "name": case.name,
        "kind": case.kind,
        "data_type": meta["data_type"],
        "component": ty.component,
        "bits": ty.bits,
        "fill_value_given": case.fill,
        "fill_value": meta["fill_value"],
        "fill_code": represent_one(ty, &fill_bytes),
        "fill_bytes": hex(&fill_bytes),
        "codecs": meta["codecs"],
        "shape": meta["shape"],
        "chunk_key": key.as_str(),
        "file": format!("{}.bin", case.name),
        "zarr_json": format!("{}.zarr.json", case.name),
        "values": represent(ty, &stored),
        "high_bits_in_file": high_bits_kept,
    });
    if case.kind != "values" {
        record["missing_chunk"] = represent(ty, &missing);
    }
    if case.kind == "high_bits" {
        let values: Vec<Value> = stored.iter().map(|&b| number(ty, b)).collect();
        let values: Vec<Value> = values.chunks_exact(2).map(|p| json!(p)).collect();
        record["zarrs_values"] = json!(values);
        record["fill_value_bytes_given"] = json!(fill_bytes_given(&case.fill));
    }
    if let Some(note) = &case.note {
        record["note"] = json!(note);
    }
    record
}

/// Every code of the component, `re` ascending and `im` descending.
fn all_codes(ty: &Ty) -> (Vec<u64>, Vec<u8>) {
    let n = 1usize << ty.bits;
    let side = (n as f64).sqrt() as u64;
    let shape = if side * side == n as u64 { vec![side, side] } else { vec![n as u64 / 8, 8] };
    let mut codes = Vec::with_capacity(2 * n);
    for i in 0..n {
        codes.push(i as u8);
        codes.push((n - 1 - i) as u8);
    }
    (shape, codes)
}

/// A non-default fill value for each complex type's values case.
fn values_fill(name: &str) -> Value {
    match name {
        "complex_float8_e3m4" => json!(["NaN", 1.5]),
        "complex_float8_e4m3" => json!(["Infinity", -2.0]),
        "complex_float8_e4m3b11fnuz" => json!([1.5, "NaN"]),
        "complex_float8_e4m3fnuz" => json!(["NaN", -0.25]),
        "complex_float8_e5m2" => json!(["NaN", "-Infinity"]),
        "complex_float8_e5m2fnuz" => json!(["NaN", 3.0]),
        "complex_float8_e8m0fnu" => json!(["NaN", 0.5]),
        "complex_float6_e2m3fn" => json!([0.5, -7.5]),
        "complex_float6_e3m2fn" => json!([-28.0, 0.0625]),
        "complex_float4_e2m1fn" => json!([-6.0, 0.5]),
        _ => unreachable!("{name}"),
    }
}

fn cases(types: &[Ty]) -> Vec<Case<'_>> {
    let mut out = Vec::new();
    // 1. every component code of each complex type, in both parts
    for ty in types.iter().filter(|t| t.complex) {
        let (shape, codes) = all_codes(ty);
        let whole: Vec<Range<u64>> = shape.iter().map(|&s| 0..s).collect();
        out.push(Case {
            name: ty.name.to_string(),
            kind: "values",
            ty,
            shape,
            fill: values_fill(ty.name),
            writes: vec![(whole, codes)],
            note: None,
        });
    }
    // 2. elements whose bytes have bits above the code set (4- and 6-bit
    //    complex types), and a hex fill value with such bits: 2 elements
    //    written, 2 left to the fill value
    for ty in types.iter().filter(|t| t.complex && t.bits < 8) {
        let codes: Vec<u8> = if ty.bits == 4 { vec![0xf2, 0x1a, 0x80, 0x47] } else { vec![0xc8, 0x7f, 0x40, 0xa1] };
        let fill = if ty.bits == 4 { json!(["0xf3", "0x09"]) } else { json!(["0xc9", "0x21"]) };
        out.push(Case {
            name: format!("{}_high_bits", ty.name),
            kind: "high_bits",
            ty,
            shape: vec![4],
            fill,
            writes: vec![(vec![0..2], codes)],
            note: Some(
                "elements 0-1 written from microfloat values whose bytes have bits above the code set \
                 (from_bits keeps all 8 bits); elements 2-3 are the fill value; `values` and `fill_code` \
                 are the low bits, the file and `fill_bytes` the bytes as stored"
                    .into(),
            ),
        });
    }
    // 3. fill value "NaN": the code zarrs uses, in a chunk with one written element
    for ty in types.iter().filter(|t| t.has_nan) {
        let fill = if ty.complex { json!(["NaN", "NaN"]) } else { json!("NaN") };
        let one = if ty.complex { vec![ty.one, ty.one] } else { vec![ty.one] };
        out.push(Case {
            name: format!("fill_nan_{}", ty.name),
            kind: "fill_nan",
            ty,
            shape: vec![4],
            fill,
            writes: vec![(vec![1..2], one)],
            note: Some("element 1 written (1.0); elements 0, 2, 3 are the fill value".into()),
        });
    }
    out
}

/// A `zarr.json` as another writer might have written it.
fn foreign_zarr_json(name: &str, fill: &Value) -> String {
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": [1],
        "data_type": name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": [{"name": "bytes"}],
    })
    .to_string()
}

/// What zarrs makes of fill values: the bytes it uses when it opens a
/// `zarr.json` holding one, the JSON it writes when it creates an array with
/// one, and the bytes of that array.
fn fill_forms(types: &[Ty]) -> Vec<(String, Vec<Value>)> {
    let reals = [
        json!("NaN"),
        json!("Infinity"),
        json!("-Infinity"),
        json!(0.0),
        json!(-0.0),
        json!(1.5),
        json!(-1.5),
        json!(0.3),
        json!(1.0e6),
        json!(-1.0e6),
        json!(1.0e-9),
        json!(2),
        json!("0x7f"),
        json!("0xff"),
        json!("0x3f"),
        json!("0x0f"),
        json!("0x100"),
        json!("nan"),
        json!([1.0, 0.0]),
    ];
    let complexes = [
        json!(["NaN", "Infinity"]),
        json!(["-Infinity", -0.0]),
        json!([0.3, 1.0e6]),
        json!([-1.5, 2]),
        json!(["0x7f", "0xff"]),
        json!(["0x3f", "0x0f"]),
        json!(["0x100", 1.0]),
        json!(["nan", 1.0]),
        json!([1.0]),
        json!([1.0, 1.0, 1.0]),
        json!(1.0),
        json!("NaN"),
    ];
    let mut out = Vec::new();
    for ty in types {
        let inputs: &[Value] = if ty.complex { &complexes } else { &reals };
        let rows: Vec<Value> = inputs
            .iter()
            .map(|input| {
                let mut row = json!({"input": input});
                let store = Arc::new(MemoryStore::new());
                let key = StoreKey::new("zarr.json").unwrap();
                store.set(&key, foreign_zarr_json(ty.name, input).into_bytes().into()).unwrap();
                let opened = Array::open(store, "/").map_err(|e| e.to_string());
                let store = Arc::new(MemoryStore::new());
                let created = ArrayBuilder::new(vec![1u64], vec![1u64], ty.name, fill_metadata(input))
                    .build(store, "/")
                    .map_err(|e| e.to_string());
                match (opened, created) {
                    (Ok(opened), Ok(created)) => {
                        let meta = serde_json::to_value(created.metadata()).unwrap();
                        row["opened"] = json!(hex(opened.fill_value().as_ne_bytes()));
                        row["written"] = meta["fill_value"].clone();
                        row["created"] = json!(hex(created.fill_value().as_ne_bytes()));
                    }
                    (Err(a), Err(b)) if a == b => row["error"] = json!(a),
                    (a, b) => panic!("{}: {input}: opened {:?}, created {:?}", ty.name, a.err(), b.err()),
                }
                row
            })
            .collect();
        out.push((ty.name.to_string(), rows));
    }
    out
}

fn unsupported() -> Value {
    let mut out = serde_json::Map::new();
    for name in NOT_IN_ZARRS {
        let store = Arc::new(MemoryStore::new());
        let fill = if name.starts_with("complex") { json!([0.0, 0.0]) } else { json!(0.0) };
        let err = match ArrayBuilder::new(vec![1u64], vec![1u64], name, fill_metadata(&fill)).build(store, "/") {
            Ok(_) => panic!("zarrs now has {name}: add it to the cases"),
            Err(e) => e.to_string(),
        };
        out.insert(name.to_string(), json!(err));
    }
    Value::Object(out)
}

fn registry(records: &[Value]) -> Value {
    let rows: Vec<Value> = REGISTRY_NAN
        .iter()
        .map(|&(name, code, text)| {
            let page = format!("data-types/{name}/README.md");
            let zarrs = records
                .iter()
                .find(|r| r["kind"] == "fill_nan" && r["data_type"] == name)
                .map(|r| r["fill_code"].clone());
            let mut row = json!({"data_type": name, "page": page, "nan": code, "page_says": text, "zarrs": zarrs});
            if let (Some(c), Some(z)) = (code, &zarrs) {
                row["agrees"] = json!(z == &json!(c));
            }
            row
        })
        .collect();
    json!({"repository": "zarr-developers/zarr-extensions", "commit": REGISTRY_COMMIT, "nan_codes": rows})
}

fn main() {
    let out = out_dir();
    for entry in fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".bin") || name.ends_with(".zarr.json") || name == "manifest.json" {
            fs::remove_file(path).unwrap();
        }
    }
    let tmp = std::env::temp_dir().join(format!("zarrs-fixtures-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).unwrap();

    let types = types();
    let mut records = Vec::new();
    for case in cases(&types) {
        let record = run_case(&case, &tmp, &out);
        println!(
            "{:40} {:10} fill {:>14} -> {}",
            case.name,
            case.kind,
            case.fill.to_string(),
            record["fill_code"]
        );
        records.push(record);
    }
    fs::remove_dir_all(&tmp).unwrap();

    let generator = json!({
        "zarrs": locked_version("zarrs"),
        "zarrs_features": ["filesystem", "microfloat"],
        "microfloat": locked_version("microfloat"),
    });
    let mut text = String::from("{\n");
    text += &format!("\"generator\": {generator},\n");
    text += &format!("\"unsupported\": {},\n", unsupported());
    text += &format!("\"registry\": {},\n", registry(&records));
    let forms: Vec<String> = fill_forms(&types)
        .into_iter()
        .map(|(name, rows)| {
            let rows: Vec<String> = rows.iter().map(|r| format!("   {r}")).collect();
            format!("  {}: [\n{}\n  ]", json!(name), rows.join(",\n"))
        })
        .collect();
    text += &format!("\"fill_value_forms\": {{\n{}\n}},\n", forms.join(",\n"));
    let lines: Vec<String> = records.iter().map(|r| format!("  {r}")).collect();
    text += &format!("\"cases\": [\n{}\n]}}\n", lines.join(",\n"));
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["cases"].as_array().unwrap().len(), records.len());
    fs::write(out.join("manifest.json"), text).unwrap();
    println!("{} cases written to {}", records.len(), out.display());
}
