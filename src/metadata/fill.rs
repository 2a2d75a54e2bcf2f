//! The `fill_value` forms of `zarr.json`: one function per form, named in the data type
//! table, each giving one element or the forms it accepts.

use base64::Engine;
use half::{bf16, f16};
use num_complex::Complex;
use serde_json::Value;

use crate::minifloat::Minifloat;

/// What went wrong: the forms a fill value of this kind may take.
pub(crate) type Expected = &'static str;

/// `true` or `false`.
pub(crate) fn boolean(value: &Value) -> Result<bool, Expected> {
    value.as_bool().ok_or("true or false")
}

/// An integer in the element's range.
pub(crate) fn integer<T: TryFrom<i64> + TryFrom<u64>>(value: &Value) -> Result<T, Expected> {
    const EXPECTED: Expected = "an integer in the data type's range";
    match value {
        Value::Number(n) => n
            .as_i64()
            .and_then(|v| T::try_from(v).ok())
            .or_else(|| n.as_u64().and_then(|v| T::try_from(v).ok()))
            .ok_or(EXPECTED),
        _ => Err(EXPECTED),
    }
}

/// The float types whose fill values are numbers, names of specials or bit patterns.
pub(crate) trait Float: Copy {
    fn from_f64(v: f64) -> Self;
    fn from_bits(bits: u64) -> Option<Self>;
}

macro_rules! float {
    ($($t:ty => $bits:ty, $from_f64:expr;)*) => {$(
        impl Float for $t {
            fn from_f64(v: f64) -> Self {
                $from_f64(v)
            }
            fn from_bits(bits: u64) -> Option<Self> {
                <$bits>::try_from(bits).ok().map(<$t>::from_bits)
            }
        }
    )*};
}

float! {
    f16 => u16, f16::from_f64;
    bf16 => u16, bf16::from_f64;
    f32 => u32, |v| v as f32;
    f64 => u64, |v| v;
}

const FLOAT: Expected =
    "a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" and the bits in hex";

/// The special value a string names, or the bits it gives in hex.
enum Special {
    Value(f64),
    Bits(u64),
}

fn special(name: &str) -> Option<Special> {
    match name {
        "NaN" => Some(Special::Value(f64::NAN)),
        "Infinity" => Some(Special::Value(f64::INFINITY)),
        "-Infinity" => Some(Special::Value(f64::NEG_INFINITY)),
        _ => {
            let hex = name.strip_prefix("0x")?;
            if hex.is_empty() || hex.len() > 16 {
                return None;
            }
            u64::from_str_radix(hex, 16).ok().map(Special::Bits)
        }
    }
}

/// A number (rounded to the type), `"NaN"`, `"Infinity"`, `"-Infinity"`, or `"0x…"`: the
/// bit pattern in hex.
pub(crate) fn float<T: Float>(value: &Value) -> Result<T, Expected> {
    match value {
        Value::Number(n) => n.as_f64().map(T::from_f64).ok_or(FLOAT),
        Value::String(s) => match special(s) {
            Some(Special::Value(v)) => Ok(T::from_f64(v)),
            Some(Special::Bits(bits)) => T::from_bits(bits).ok_or(FLOAT),
            None => Err(FLOAT),
        },
        _ => Err(FLOAT),
    }
}

/// `[real, imaginary]`, each part a float fill value.
pub(crate) fn complex<T: Float>(value: &Value) -> Result<Complex<T>, Expected> {
    pair(
        value,
        float,
        "[real, imaginary], each part a float fill value",
    )
}

/// `[real, imaginary]`, each part a minifloat fill value.
pub(crate) fn complex_minifloat<T: Minifloat>(value: &Value) -> Result<Complex<T>, Expected> {
    pair(
        value,
        minifloat,
        "[real, imaginary], each part a fill value of the part's type",
    )
}

/// `[real, imaginary]`, each part read by `part`.
fn pair<T>(
    value: &Value,
    part: impl Fn(&Value) -> Result<T, Expected>,
    expected: Expected,
) -> Result<Complex<T>, Expected> {
    match value.as_array().map(Vec::as_slice) {
        Some([re, im]) => Ok(Complex::new(
            part(re).map_err(|_| expected)?,
            part(im).map_err(|_| expected)?,
        )),
        _ => Err(expected),
    }
}

/// A number the type holds exactly, `"NaN"` (the registry's code) or
/// `"Infinity"`/`"-Infinity"` where the type has them, or `"0x…"`: the code in hex. A
/// type without zero reads 0 as the code tensorstore gives it.
pub(crate) fn minifloat<T: Minifloat>(value: &Value) -> Result<T, Expected> {
    const EXPECTED: Expected = "a number the type holds exactly, \"NaN\" or \"Infinity\" where it has them, or \"0x\" and the code in hex";
    let codes = || (0..T::CODES).map(|c| T::from_code(c as u8));
    let exact = |v: f64| {
        // The same bits first, so that -0.0 finds negative zero where there is one.
        codes()
            .find(|x| f64::from(x.value()).to_bits() == v.to_bits())
            .or_else(|| codes().find(|x| f64::from(x.value()) == v))
    };
    let zero = |v: f64| (v == 0.0).then(T::zero_fill).flatten();
    match value {
        Value::Number(n) => n
            .as_f64()
            .and_then(|v| exact(v).or_else(|| zero(v)))
            .ok_or(EXPECTED),
        Value::String(s) => match special(s) {
            Some(Special::Value(v)) if v.is_nan() => T::nan().ok_or(EXPECTED),
            Some(Special::Value(v)) => exact(v).ok_or(EXPECTED),
            Some(Special::Bits(bits)) => u8::try_from(bits)
                .ok()
                .filter(|&b| u16::from(b) < T::CODES)
                .map(T::from_code)
                .ok_or(EXPECTED),
            None => Err(EXPECTED),
        },
        _ => Err(EXPECTED),
    }
}

/// An integer, or `"NaT"` (`i64::MIN`).
pub(crate) fn datetime(value: &Value) -> Result<i64, Expected> {
    match value {
        Value::String(s) if s == "NaT" => Ok(i64::MIN),
        Value::Number(n) => n.as_i64().ok_or("an integer or \"NaT\""),
        _ => Err("an integer or \"NaT\""),
    }
}

/// A string.
pub(crate) fn string(value: &Value) -> Result<&str, Expected> {
    value.as_str().ok_or("a string")
}

/// Bytes: base64 text, or a list of byte values.
pub(crate) fn bytes(value: &Value) -> Result<Vec<u8>, Expected> {
    const EXPECTED: Expected = "base64 text or a list of byte values";
    match value {
        Value::String(text) => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|_| EXPECTED),
        Value::Array(items) => items
            .iter()
            .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or(EXPECTED),
        _ => Err(EXPECTED),
    }
}
