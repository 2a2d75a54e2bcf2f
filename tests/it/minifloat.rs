//! Every minifloat code against ml_dtypes: `to_f32` bit for bit for every code, and
//! `from_f32` for every representable value, midpoint, neighbour of a midpoint, overflow,
//! tiny value, zero, infinity and NaN in `tests/data/extensions/minifloat.json`.

use std::collections::BTreeMap;

use serde::Deserialize;
use zarr_bytes::minifloat::*;

#[derive(Deserialize)]
struct Table {
    bits: u32,
    to_f32: Vec<u32>,
    from_f32: Vec<(u32, u8)>,
}

fn tables() -> BTreeMap<String, Table> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/extensions/minifloat.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Check one type against its table; returns the number of conversions checked.
fn check<T: Copy>(
    table: &Table,
    bits: u32,
    from_bits: fn(u8) -> T,
    to_bits: fn(T) -> u8,
    to_f32: fn(T) -> f32,
    from_f32: fn(f32) -> T,
) -> usize {
    assert_eq!(table.bits, bits);
    assert_eq!(table.to_f32.len(), 1 << bits);
    for (code, &want) in table.to_f32.iter().enumerate() {
        let got = to_f32(from_bits(code as u8)).to_bits();
        assert_eq!(
            got, want,
            "code {code:#04x}: {got:#010x}, ml_dtypes {want:#010x}"
        );
    }
    for &(input, want) in &table.from_f32 {
        let x = f32::from_bits(input);
        let got = to_bits(from_f32(x));
        // ml_dtypes may keep bits above the code in the byte; the code is the low bits.
        let want = want & (0xff >> (8 - bits));
        assert_eq!(
            got, want,
            "from_f32({x:e} = {input:#010x}): {got:#04x}, ml_dtypes {want:#04x}"
        );
    }
    table.to_f32.len() + table.from_f32.len()
}

macro_rules! check_all {
    ($tables:expr, $($name:literal => $t:ident),* $(,)?) => {{
        let tables = $tables;
        let mut checked = BTreeMap::new();
        $(
            let table = &tables[$name];
            let n = check::<$t>(table, $t::BITS, $t::from_bits, $t::to_bits, $t::to_f32, $t::from_f32);
            checked.insert($name, n);
        )*
        assert_eq!(checked.len(), tables.len(), "every table is checked");
        checked
    }};
}

#[test]
fn every_code_matches_ml_dtypes() {
    let checked = check_all!(tables(),
        "float8_e3m4" => Float8E3M4,
        "float8_e4m3" => Float8E4M3,
        "float8_e4m3fn" => Float8E4M3FN,
        "float8_e4m3fnuz" => Float8E4M3FNUZ,
        "float8_e4m3b11fnuz" => Float8E4M3B11FNUZ,
        "float8_e5m2" => Float8E5M2,
        "float8_e5m2fnuz" => Float8E5M2FNUZ,
        "float8_e8m0fnu" => Float8E8M0FNU,
        "float6_e2m3fn" => Float6E2M3FN,
        "float6_e3m2fn" => Float6E3M2FN,
        "float4_e2m1fn" => Float4E2M1FN,
    );
    // Hundreds of conversions per 8-bit type: the tables are not empty or cut short.
    assert!(checked.values().all(|&n| n > 100), "{checked:?}");
}

#[test]
fn the_tables_hold_what_they_claim() {
    let tables = tables();
    // Spot values from the formats' definitions, independent of the tables.
    let e4m3fn = &tables["float8_e4m3fn"].to_f32;
    assert_eq!(f32::from_bits(e4m3fn[0x7e]), 448.0);
    assert_eq!(f32::from_bits(e4m3fn[0x01]), 2f32.powi(-9));
    assert!(f32::from_bits(e4m3fn[0x7f]).is_nan());
    let e8m0 = &tables["float8_e8m0fnu"].to_f32;
    assert_eq!(f32::from_bits(e8m0[127]), 1.0);
    assert_eq!(f32::from_bits(e8m0[0]), 2f32.powi(-127));
    let e2m1 = &tables["float4_e2m1fn"].to_f32;
    assert_eq!(f32::from_bits(e2m1[0x7]), 6.0);
    assert_eq!(f32::from_bits(e2m1[0x8]).to_bits(), (-0.0f32).to_bits());
}

/// Each complex minifloat holds two codes of its component type, which
/// `tests/data/extensions/minifloat_extra.json` names (ml_dtypes has no complex
/// minifloats): every pair of codes decodes to parts whose values are the component's
/// table, bit for bit, real part first.
#[test]
fn complex_minifloat_parts_are_their_components() {
    use ndarray::ArrayD;
    use num_complex::Complex;
    use zarr_bytes::{BytesCodec, DataType, Endian};

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/extensions/minifloat_extra.json"
    );
    let extra: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tables = tables();
    let codec = BytesCodec::new(Endian::Little);

    /// The f32 bits of the parts of every element of `bytes` decoded as `name`.
    fn parts<T: Copy + Into<f32>>(codec: &BytesCodec, name: &str, bytes: &[u8]) -> Vec<u32>
    where
        ArrayD<Complex<T>>: TryFrom<zarr_bytes::DynArray, Error = zarr_bytes::Error>,
    {
        let t: DataType = name.parse().unwrap();
        let d = codec.decode_dyn(bytes, &t, &[bytes.len() / 2]).unwrap();
        let a = ArrayD::<Complex<T>>::try_from(d).unwrap();
        a.iter()
            .flat_map(|c| [c.re.into().to_bits(), c.im.into().to_bits()])
            .collect()
    }
    macro_rules! decode_as {
        ($name:expr, $bytes:expr, $($n:literal => $t:ident),* $(,)?) => {
            match $name {
                $($n => parts::<$t>(&codec, $n, $bytes),)*
                other => panic!("no element type for {other}"),
            }
        };
    }
    let complex = extra["complex"].as_object().unwrap();
    assert_eq!(complex.len(), 10);
    for (name, entry) in complex {
        let component = entry["component"].as_str().unwrap();
        let table = &tables[component];
        let n = 1usize << table.bits;
        // Element i is the pair (i, n - 1 - i): every code in each part.
        let bytes: Vec<u8> = (0..n).flat_map(|i| [i as u8, (n - 1 - i) as u8]).collect();
        let got = decode_as!(name.as_str(), &bytes,
            "complex_float8_e3m4" => Float8E3M4,
            "complex_float8_e4m3" => Float8E4M3,
            "complex_float8_e4m3fnuz" => Float8E4M3FNUZ,
            "complex_float8_e4m3b11fnuz" => Float8E4M3B11FNUZ,
            "complex_float8_e5m2" => Float8E5M2,
            "complex_float8_e5m2fnuz" => Float8E5M2FNUZ,
            "complex_float8_e8m0fnu" => Float8E8M0FNU,
            "complex_float6_e2m3fn" => Float6E2M3FN,
            "complex_float6_e3m2fn" => Float6E3M2FN,
            "complex_float4_e2m1fn" => Float4E2M1FN,
        );
        let want: Vec<u32> = (0..n)
            .flat_map(|i| [table.to_f32[i], table.to_f32[n - 1 - i]])
            .collect();
        assert_eq!(got, want, "{name}");
    }
}
