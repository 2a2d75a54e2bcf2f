//! Zarr data types, as `zarr.json` names and configures them, and the table of the data
//! types of fixed name from which [`DataType`] and [`DynArray`](crate::DynArray) are made.

use std::fmt;
use std::str::FromStr;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::Error;

/// Every data type of fixed name, one line each: the variant of [`DataType`] and
/// [`DynArray`](crate::DynArray), the Zarr name, the Rust element (for the sub-byte integers
/// with the bits they keep, see [`Narrow`](crate::element::Narrow)), bytes per element,
/// whether the codec's `endian` applies, the `fill_value` form (a function of `fill.rs`),
/// and what the bytes are. Passes the table to the macro `$then`.
macro_rules! fixed_types {
    ($then:ident) => {
        $then! {
            // variant         name                  element                           size endian fill
            Bool              "bool"               (bool)                               1 no  boolean  "one byte, 0x00 or 0x01";
            Int8              "int8"               (i8)                                 1 no  integer  "two's complement";
            Int16             "int16"              (i16)                                2 yes integer  "two's complement";
            Int32             "int32"              (i32)                                4 yes integer  "two's complement";
            Int64             "int64"              (i64)                                8 yes integer  "two's complement";
            UInt8             "uint8"              (u8)                                 1 no  integer  "unsigned";
            UInt16            "uint16"             (u16)                                2 yes integer  "unsigned";
            UInt32            "uint32"             (u32)                                4 yes integer  "unsigned";
            UInt64            "uint64"             (u64)                                8 yes integer  "unsigned";
            Float16           "float16"            (half::f16)                          2 yes float    "IEEE 754 binary16";
            BFloat16          "bfloat16"           (half::bf16)                         2 yes float    "the upper half of a binary32 (extension)";
            Float32           "float32"            (f32)                                4 yes float    "IEEE 754 binary32";
            Float64           "float64"            (f64)                                8 yes float    "IEEE 754 binary64";
            Complex64         "complex64"          (num_complex::Complex<f32>)          8 yes complex  "two `float32`, real then imaginary";
            Complex128        "complex128"         (num_complex::Complex<f64>)         16 yes complex  "two `float64`, real then imaginary";
            ComplexFloat16    "complex_float16"    (num_complex::Complex<half::f16>)    4 yes complex  "two `float16`, real then imaginary (extension)";
            ComplexBFloat16   "complex_bfloat16"   (num_complex::Complex<half::bf16>)   4 yes complex  "two `bfloat16`, real then imaginary (extension)";
            Int2              "int2"               (i8; 2 bits)                         1 no  integer  "the low 2 bits of a byte, two's complement (extension)";
            Int4              "int4"               (i8; 4 bits)                         1 no  integer  "the low 4 bits of a byte, two's complement (extension)";
            UInt2             "uint2"              (u8; 2 bits)                         1 no  integer  "the low 2 bits of a byte (extension)";
            UInt4             "uint4"              (u8; 4 bits)                         1 no  integer  "the low 4 bits of a byte (extension)";
            Float4E2M1FN      "float4_e2m1fn"      (crate::minifloat::Float4E2M1FN)     1 no  minifloat "the low 4 bits of a byte (extension)";
            Float6E2M3FN      "float6_e2m3fn"      (crate::minifloat::Float6E2M3FN)     1 no  minifloat "the low 6 bits of a byte (extension)";
            Float6E3M2FN      "float6_e3m2fn"      (crate::minifloat::Float6E3M2FN)     1 no  minifloat "the low 6 bits of a byte (extension)";
            Float8E3M4        "float8_e3m4"        (crate::minifloat::Float8E3M4)       1 no  minifloat "one byte (extension)";
            Float8E4M3        "float8_e4m3"        (crate::minifloat::Float8E4M3)       1 no  minifloat "one byte (extension)";
            Float8E4M3B11FNUZ "float8_e4m3b11fnuz" (crate::minifloat::Float8E4M3B11FNUZ) 1 no minifloat "one byte (extension)";
            Float8E4M3FN      "float8_e4m3fn"      (crate::minifloat::Float8E4M3FN)     1 no  minifloat "one byte (extension)";
            Float8E4M3FNUZ    "float8_e4m3fnuz"    (crate::minifloat::Float8E4M3FNUZ)   1 no  minifloat "one byte (extension)";
            Float8E5M2        "float8_e5m2"        (crate::minifloat::Float8E5M2)       1 no  minifloat "one byte (extension)";
            Float8E5M2FNUZ    "float8_e5m2fnuz"    (crate::minifloat::Float8E5M2FNUZ)   1 no  minifloat "one byte (extension)";
            Float8E8M0FNU     "float8_e8m0fnu"     (crate::minifloat::Float8E8M0FNU)    1 no  minifloat "one byte (extension)";
        }
    };
}

/// Names read as another data type's.
const ALIASES: [(&str, DataType); 2] = [
    ("complex_float32", DataType::Complex64),
    ("complex_float64", DataType::Complex128),
];

macro_rules! data_type {
    ($($variant:ident $name:literal ($($element:tt)*) $size:literal $endian:ident $fill:ident $doc:literal;)*) => {
        /// A Zarr v3 data type that the `bytes` codec can encode.
        ///
        /// Parses from and prints as `zarr.json` writes it: a name (`"int16"`, `"r24"`) or,
        /// for types with a configuration, an object with `name` and `configuration`,
        /// which [`Display`](fmt::Display) prints as compact JSON and
        /// [`FromStr`] reads back. Serde reads exactly the `data_type` value of `zarr.json`
        /// as zarr-python and tensorstore write it (a name, or an object with a name and
        /// maybe a configuration; the legacy `structured` form too) and writes the
        /// canonical form.
        ///
        /// # Examples
        ///
        /// ```
        /// use zarr_bytes::{DataType, TimeUnit};
        ///
        /// let t: DataType = "r24".parse()?;
        /// assert_eq!(t, DataType::RawBits(24));
        /// assert_eq!(t.size(), 3);
        /// assert!(!t.endian_applies());
        /// assert_eq!(DataType::Complex64.to_string(), "complex64");
        /// assert!("float128".parse::<DataType>().is_err());
        ///
        /// let json = r#"{"name":"numpy.datetime64","configuration":{"unit":"ms","scale_factor":1}}"#;
        /// let t: DataType = serde_json::from_str(json).unwrap();
        /// assert_eq!(t, DataType::DateTime64 { unit: TimeUnit::Milliseconds, scale_factor: 1 });
        /// assert_eq!(t.to_string(), json);
        /// # Ok::<(), zarr_bytes::Error>(())
        /// ```
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum DataType {
            $(
                #[doc = concat!("`", $name, "`: ", $doc, ".")]
                $variant,
            )*
            /// `r{bits}`: raw bits, a positive multiple of 8, copied as they are.
            RawBits(usize),
            /// `numpy.datetime64`: a signed 64-bit count of `scale_factor` × `unit` since the
            /// Unix epoch; NaT is `i64::MIN`.
            DateTime64 {
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step, from 1 to 2^31 - 1.
                scale_factor: u32,
            },
            /// `numpy.timedelta64`: a signed 64-bit count of `scale_factor` × `unit`; NaT is
            /// `i64::MIN`.
            TimeDelta64 {
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step, from 1 to 2^31 - 1.
                scale_factor: u32,
            },
            /// `fixed_length_utf32`: `length_bytes / 4` UTF-32 code units, each in the codec's
            /// byte order, zero units after the end of a shorter string.
            FixedLengthUtf32 {
                /// Bytes per element, a positive multiple of 4.
                length_bytes: usize,
            },
            /// `null_terminated_bytes`: `length_bytes` bytes, zero bytes after the end of a
            /// shorter value; never swapped.
            NullTerminatedBytes {
                /// Bytes per element.
                length_bytes: usize,
            },
            /// `raw_bytes`: `length_bytes` bytes, copied as they are.
            RawBytes {
                /// Bytes per element.
                length_bytes: usize,
            },
            /// `struct`: fields packed in order with no padding, each by its own rule.
            Struct(Vec<StructField>),
        }

        /// The name, size in bytes and endian rule of each data type of fixed name.
        const FIXED: &[(DataType, &str, usize, bool)] = &[
            $((DataType::$variant, $name, $size, endian_rule!($endian)),)*
        ];

        // The table's sizes are the elements' sizes.
        $(const _: () = assert!(<element_of!($($element)*) as crate::Element>::SIZE == $size);)*
    };
}

/// The table's endian column as a `bool`.
macro_rules! endian_rule {
    (yes) => {
        true
    };
    (no) => {
        false
    };
}

/// The Rust element of a line of the table: `i8; 4 bits` is held as `i8`.
macro_rules! element_of {
    ($t:ty; $bits:literal bits) => {
        $t
    };
    ($t:ty) => {
        $t
    };
}

fixed_types!(data_type);

/// The unit of a datetime or timedelta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeUnit {
    /// `Y`.
    Years,
    /// `M`.
    Months,
    /// `W`.
    Weeks,
    /// `D`.
    Days,
    /// `h`.
    Hours,
    /// `m`.
    Minutes,
    /// `s`.
    Seconds,
    /// `ms`.
    Milliseconds,
    /// `us`.
    Microseconds,
    /// `ns`.
    Nanoseconds,
    /// `ps`.
    Picoseconds,
    /// `fs`.
    Femtoseconds,
    /// `as`.
    Attoseconds,
    /// `generic`: no unit (numpy's unitless datetimes).
    Generic,
}

const UNITS: [(TimeUnit, &str); 14] = [
    (TimeUnit::Years, "Y"),
    (TimeUnit::Months, "M"),
    (TimeUnit::Weeks, "W"),
    (TimeUnit::Days, "D"),
    (TimeUnit::Hours, "h"),
    (TimeUnit::Minutes, "m"),
    (TimeUnit::Seconds, "s"),
    (TimeUnit::Milliseconds, "ms"),
    (TimeUnit::Microseconds, "us"),
    (TimeUnit::Nanoseconds, "ns"),
    (TimeUnit::Picoseconds, "ps"),
    (TimeUnit::Femtoseconds, "fs"),
    (TimeUnit::Attoseconds, "as"),
    (TimeUnit::Generic, "generic"),
];

impl TimeUnit {
    /// The unit as `zarr.json` and numpy write it: `"Y"`, …, `"as"`, `"generic"`.
    pub fn as_str(self) -> &'static str {
        UNITS
            .iter()
            .find(|(u, _)| *u == self)
            .map_or("generic", |(_, s)| s)
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for TimeUnit {
    type Err = Error;

    /// Parse a unit as numpy writes it; case matters (`M` is months, `m` minutes).
    fn from_str(unit: &str) -> Result<Self, Error> {
        UNITS
            .iter()
            .find(|(_, s)| *s == unit)
            .map(|(u, _)| *u)
            .ok_or_else(|| Error::UnknownTimeUnit { unit: unit.into() })
    }
}

/// One field of a [`DataType::Struct`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructField {
    /// The field's name, unique in its struct.
    pub name: String,
    /// The field's data type.
    pub data_type: DataType,
}

/// The largest scale factor of a datetime or timedelta: 2^31 - 1.
const MAX_SCALE_FACTOR: u64 = (1 << 31) - 1;

impl DataType {
    /// How deep structs may nest: a struct of plain fields is 1 level deep. JSON text
    /// nests four levels per struct, so this keeps well inside serde_json's own limit.
    pub const MAX_DEPTH: usize = 16;

    /// Bytes per element (`bits / 8` for raw bits, the sum of the fields for a struct,
    /// saturating at `usize::MAX`).
    pub fn size(&self) -> usize {
        match self {
            DataType::RawBits(bits) => bits / 8,
            DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => 8,
            DataType::FixedLengthUtf32 { length_bytes }
            | DataType::NullTerminatedBytes { length_bytes }
            | DataType::RawBytes { length_bytes } => *length_bytes,
            DataType::Struct(_) => self
                .leaves()
                .fold(0usize, |sum, t| sum.saturating_add(t.size())),
            fixed => FIXED
                .iter()
                .find(|(t, ..)| t == fixed)
                .map_or(0, |&(_, _, size, _)| size),
        }
    }

    /// Whether the codec's `endian` changes the bytes: true for multi-byte numbers, UTF-32
    /// text and structs with such a field; false for single-byte types, raw bits and bytes.
    pub fn endian_applies(&self) -> bool {
        match self {
            DataType::RawBits(_)
            | DataType::NullTerminatedBytes { .. }
            | DataType::RawBytes { .. } => false,
            DataType::DateTime64 { .. }
            | DataType::TimeDelta64 { .. }
            | DataType::FixedLengthUtf32 { .. } => true,
            DataType::Struct(_) => self.leaves().any(DataType::endian_applies),
            fixed => FIXED
                .iter()
                .find(|(t, ..)| t == fixed)
                .is_some_and(|&(.., endian)| endian),
        }
    }

    /// Check that the type's parameters are valid: raw bits a positive multiple of 8, a
    /// scale factor from 1 to 2^31 - 1, a positive `length_bytes` (a multiple of 4 for
    /// UTF-32), structs with fields of distinct names, at most [`MAX_DEPTH`](Self::MAX_DEPTH)
    /// levels deep and at most `isize::MAX` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRawBits`], [`Error::InvalidScaleFactor`],
    /// [`Error::InvalidLengthBytes`], [`Error::EmptyStruct`], [`Error::DuplicateField`],
    /// [`Error::NestingTooDeep`] and [`Error::StructTooLarge`].
    pub fn check(&self) -> Result<(), Error> {
        self.check_at(1)
    }

    fn check_at(&self, depth: usize) -> Result<(), Error> {
        match self {
            DataType::RawBits(bits) if *bits == 0 || bits % 8 != 0 => Err(Error::InvalidRawBits {
                name: self.to_string(),
            }),
            DataType::DateTime64 { scale_factor, .. }
            | DataType::TimeDelta64 { scale_factor, .. }
                if *scale_factor == 0 || u64::from(*scale_factor) > MAX_SCALE_FACTOR =>
            {
                Err(Error::InvalidScaleFactor {
                    value: scale_factor.to_string(),
                })
            }
            DataType::FixedLengthUtf32 { length_bytes }
                if *length_bytes == 0 || length_bytes % 4 != 0 =>
            {
                Err(Error::InvalidLengthBytes {
                    name: self.name().into(),
                    length_bytes: *length_bytes,
                })
            }
            DataType::NullTerminatedBytes { length_bytes: 0 }
            | DataType::RawBytes { length_bytes: 0 } => Err(Error::InvalidLengthBytes {
                name: self.name().into(),
                length_bytes: 0,
            }),
            DataType::Struct(fields) => {
                if depth > Self::MAX_DEPTH {
                    return Err(Error::NestingTooDeep {
                        limit: Self::MAX_DEPTH,
                    });
                }
                if fields.is_empty() {
                    return Err(Error::EmptyStruct);
                }
                if self.size() > isize::MAX as usize {
                    return Err(Error::StructTooLarge);
                }
                for (i, field) in fields.iter().enumerate() {
                    if fields[..i].iter().any(|f| f.name == field.name) {
                        return Err(Error::DuplicateField {
                            name: field.name.clone(),
                        });
                    }
                    field.data_type.check_at(depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The data types of a struct's fields that are no structs, depth first; the type
    /// itself for any other. Walks with a stack of its own, however deep the nesting.
    pub(crate) fn leaves(&self) -> impl Iterator<Item = &DataType> {
        let mut stack: Vec<std::slice::Iter<'_, StructField>> = Vec::new();
        let mut first = Some(self);
        std::iter::from_fn(move || loop {
            let next = match first.take() {
                Some(t) => t,
                None => {
                    let top = stack.last_mut()?;
                    match top.next() {
                        Some(field) => &field.data_type,
                        None => {
                            stack.pop();
                            continue;
                        }
                    }
                }
            };
            match next {
                DataType::Struct(fields) => stack.push(fields.iter()),
                leaf => return Some(leaf),
            }
        })
    }

    /// The Zarr name; `r` for every raw bits type.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            DataType::RawBits(_) => "r",
            DataType::DateTime64 { .. } => "numpy.datetime64",
            DataType::TimeDelta64 { .. } => "numpy.timedelta64",
            DataType::FixedLengthUtf32 { .. } => "fixed_length_utf32",
            DataType::NullTerminatedBytes { .. } => "null_terminated_bytes",
            DataType::RawBytes { .. } => "raw_bytes",
            DataType::Struct(_) => "struct",
            fixed => FIXED
                .iter()
                .find(|(t, ..)| t == fixed)
                .map_or("", |&(_, name, ..)| name),
        }
    }

    /// Read the `data_type` value of `zarr.json`, `depth` levels into structs.
    pub(crate) fn from_json(value: &Value, depth: usize) -> Result<DataType, Error> {
        let (name, configuration) = match value {
            Value::String(name) => return parse_name(name),
            Value::Object(object) => {
                let mut name = None;
                let mut configuration = None;
                for (key, v) in object {
                    match (key.as_str(), v) {
                        ("name", Value::String(n)) => name = Some(n.as_str()),
                        ("configuration", Value::Object(c)) => configuration = Some(c),
                        ("must_understand", Value::Bool(false)) => {}
                        _ => {
                            return Err(invalid(
                                object.get("name").and_then(Value::as_str).unwrap_or(""),
                                format!("unexpected key {key:?} with value {v}"),
                            ))
                        }
                    }
                }
                let name = name.ok_or_else(|| {
                    invalid("", "a data type object needs a \"name\" string".into())
                })?;
                (name, configuration)
            }
            other => {
                return Err(invalid(
                    "",
                    format!("a data type is a name or an object, not {other}"),
                ))
            }
        };
        let empty = Map::new();
        let config = Config {
            name,
            map: configuration.unwrap_or(&empty),
        };
        let t = match name {
            "numpy.datetime64" | "numpy.timedelta64" => {
                config.expect_keys(&["unit", "scale_factor"])?;
                let unit: TimeUnit = config.string("unit")?.parse()?;
                let factor = config.get("scale_factor")?;
                let scale_factor = factor
                    .as_u64()
                    .filter(|f| (1..=MAX_SCALE_FACTOR).contains(f))
                    .ok_or_else(|| Error::InvalidScaleFactor {
                        value: factor.to_string(),
                    })? as u32;
                if name == "numpy.datetime64" {
                    DataType::DateTime64 { unit, scale_factor }
                } else {
                    DataType::TimeDelta64 { unit, scale_factor }
                }
            }
            "fixed_length_utf32" | "null_terminated_bytes" | "raw_bytes" => {
                config.expect_keys(&["length_bytes"])?;
                let length_bytes = config.count("length_bytes")?;
                match name {
                    "fixed_length_utf32" => DataType::FixedLengthUtf32 { length_bytes },
                    "null_terminated_bytes" => DataType::NullTerminatedBytes { length_bytes },
                    _ => DataType::RawBytes { length_bytes },
                }
            }
            "struct" | "structured" => {
                if depth > Self::MAX_DEPTH {
                    return Err(Error::NestingTooDeep {
                        limit: Self::MAX_DEPTH,
                    });
                }
                config.expect_keys(&["fields"])?;
                let Value::Array(items) = config.get("fields")? else {
                    return Err(invalid(name, "\"fields\" must be a list".into()));
                };
                let fields = items
                    .iter()
                    .map(|item| struct_field(name, item, depth))
                    .collect::<Result<Vec<_>, _>>()?;
                DataType::Struct(fields)
            }
            other => {
                if configuration.is_some_and(|c| !c.is_empty()) {
                    // A known name takes no configuration; an unknown one is unknown.
                    parse_name(other)?;
                    return Err(invalid(
                        other,
                        "this data type takes no configuration".into(),
                    ));
                }
                parse_name(other)?
            }
        };
        t.check_at(depth)?;
        Ok(t)
    }
}

/// One field of a struct: `{"name": …, "data_type": …}`, or `[name, data_type]` in the
/// legacy `structured` form.
fn struct_field(struct_name: &str, item: &Value, depth: usize) -> Result<StructField, Error> {
    let (name, data_type) = match item {
        Value::Object(field) if field.len() == 2 => (field.get("name"), field.get("data_type")),
        Value::Array(pair) if pair.len() == 2 => (pair.first(), pair.get(1)),
        _ => (None, None),
    };
    match (name, data_type) {
        (Some(Value::String(name)), Some(data_type)) => Ok(StructField {
            name: name.clone(),
            data_type: DataType::from_json(data_type, depth + 1)?,
        }),
        _ => Err(invalid(
            struct_name,
            format!(
                "a field is {{\"name\": …, \"data_type\": …}} or [name, data_type], not {item}"
            ),
        )),
    }
}

fn invalid(name: &str, reason: String) -> Error {
    Error::InvalidConfiguration {
        name: name.into(),
        reason,
    }
}

/// The `configuration` object of a data type named `name`.
struct Config<'a> {
    name: &'a str,
    map: &'a Map<String, Value>,
}

impl Config<'_> {
    fn expect_keys(&self, keys: &[&str]) -> Result<(), Error> {
        match self.map.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(invalid(
                self.name,
                format!("unknown configuration key {k:?}"),
            )),
            None => Ok(()),
        }
    }

    fn get(&self, key: &str) -> Result<&Value, Error> {
        self.map
            .get(key)
            .ok_or_else(|| invalid(self.name, format!("missing configuration key {key:?}")))
    }

    fn string(&self, key: &str) -> Result<&str, Error> {
        self.get(key)?
            .as_str()
            .ok_or_else(|| invalid(self.name, format!("{key:?} must be a string")))
    }

    fn count(&self, key: &str) -> Result<usize, Error> {
        self.get(key)?
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| invalid(self.name, format!("{key:?} must be a non-negative integer")))
    }
}

/// A data type written as a name alone.
fn parse_name(name: &str) -> Result<DataType, Error> {
    if let Some((t, ..)) = FIXED.iter().find(|(_, n, ..)| *n == name) {
        return Ok(t.clone());
    }
    if let Some((_, t)) = ALIASES.iter().find(|(n, _)| *n == name) {
        return Ok(t.clone());
    }
    if let Some(digits) = name.strip_prefix('r') {
        if digits.is_empty()
            || digits.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
        {
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.starts_with('0');
            return match digits.parse::<usize>() {
                Ok(bits) if canonical && bits % 8 == 0 => Ok(DataType::RawBits(bits)),
                _ => Err(Error::InvalidRawBits { name: name.into() }),
            };
        }
    }
    match name {
        "numpy.datetime64"
        | "numpy.timedelta64"
        | "fixed_length_utf32"
        | "null_terminated_bytes"
        | "raw_bytes"
        | "struct"
        | "structured" => Err(invalid(name, "missing configuration".into())),
        _ => Err(Error::UnknownDataType { name: name.into() }),
    }
}

impl fmt::Display for DataType {
    /// The name, or for a type with a configuration its JSON object, compact, in the order
    /// zarr-python writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::RawBits(bits) => f.pad(&format!("r{bits}")),
            DataType::DateTime64 { .. }
            | DataType::TimeDelta64 { .. }
            | DataType::FixedLengthUtf32 { .. }
            | DataType::NullTerminatedBytes { .. }
            | DataType::RawBytes { .. }
            | DataType::Struct(_) => {
                let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
                f.pad(&text)
            }
            fixed => f.pad(fixed.name()),
        }
    }
}

impl FromStr for DataType {
    type Err = Error;

    /// Parse a Zarr data type name, or JSON text (an object as [`Display`](fmt::Display)
    /// prints it); raw bits are `r` and a positive multiple of 8 written without sign or
    /// leading zeros.
    fn from_str(text: &str) -> Result<Self, Error> {
        if text.starts_with(['{', '[', '"']) {
            let value: Value = serde_json::from_str(text)
                .map_err(|e| invalid("", format!("malformed JSON: {e}")))?;
            return DataType::from_json(&value, 1);
        }
        parse_name(text)
    }
}

impl Serialize for DataType {
    /// The canonical `data_type` value: the name, or `{"name": …, "configuration": {…}}`
    /// with the keys in the order zarr-python writes them.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let configuration = match self {
            DataType::RawBits(bits) => return serializer.collect_str(&format_args!("r{bits}")),
            DataType::DateTime64 { unit, scale_factor }
            | DataType::TimeDelta64 { unit, scale_factor } => {
                Configuration::Time(*unit, *scale_factor)
            }
            DataType::FixedLengthUtf32 { length_bytes }
            | DataType::NullTerminatedBytes { length_bytes }
            | DataType::RawBytes { length_bytes } => Configuration::Length(*length_bytes),
            DataType::Struct(fields) => Configuration::Fields(fields),
            fixed => return serializer.serialize_str(fixed.name()),
        };
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("name", self.name())?;
        map.serialize_entry("configuration", &configuration)?;
        map.end()
    }
}

/// The `configuration` object of a data type, for writing.
enum Configuration<'a> {
    Time(TimeUnit, u32),
    Length(usize),
    Fields(&'a [StructField]),
}

impl Serialize for Configuration<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Configuration::Time(unit, scale_factor) => {
                map.serialize_entry("unit", unit.as_str())?;
                map.serialize_entry("scale_factor", scale_factor)?;
            }
            Configuration::Length(length_bytes) => {
                map.serialize_entry("length_bytes", length_bytes)?
            }
            Configuration::Fields(fields) => map.serialize_entry("fields", fields)?,
        }
        map.end()
    }
}

impl Serialize for StructField {
    /// `{"name": …, "data_type": …}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("data_type", &self.data_type)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        DataType::from_json(&value, 1).map_err(serde::de::Error::custom)
    }
}
