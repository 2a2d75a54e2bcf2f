//! Zarr data types, named as `zarr.json` names them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;

/// A Zarr v3 data type that the `bytes` codec can encode.
///
/// Parses from and prints as the Zarr names (`"bool"`, `"int8"`, …, `"complex128"`,
/// `"r8"`, `"r16"`, …), and serializes as those strings.
///
/// # Examples
///
/// ```
/// use zarr_bytes::DataType;
///
/// let t: DataType = "r24".parse()?;
/// assert_eq!(t, DataType::RawBits(24));
/// assert_eq!(t.size(), 3);
/// assert!(!t.endian_applies());
/// assert_eq!(DataType::Complex64.to_string(), "complex64");
/// assert!("float128".parse::<DataType>().is_err());
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// `bool`: one byte, 0x00 or 0x01.
    Bool,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `uint8`.
    UInt8,
    /// `uint16`.
    UInt16,
    /// `uint32`.
    UInt32,
    /// `uint64`.
    UInt64,
    /// `float16`: IEEE 754 binary16.
    Float16,
    /// `bfloat16`: the upper half of a binary32 (a Zarr extension data type).
    BFloat16,
    /// `float32`: IEEE 754 binary32.
    Float32,
    /// `float64`: IEEE 754 binary64.
    Float64,
    /// `complex64`: two `float32`, real then imaginary.
    Complex64,
    /// `complex128`: two `float64`, real then imaginary.
    Complex128,
    /// `r{bits}`: raw bits, a positive multiple of 8, copied as they are.
    RawBits(usize),
}

/// Every data type with a fixed name: the Zarr spec's core types, then extensions.
const NAMED: [(DataType, &str); 15] = [
    (DataType::Bool, "bool"),
    (DataType::Int8, "int8"),
    (DataType::Int16, "int16"),
    (DataType::Int32, "int32"),
    (DataType::Int64, "int64"),
    (DataType::UInt8, "uint8"),
    (DataType::UInt16, "uint16"),
    (DataType::UInt32, "uint32"),
    (DataType::UInt64, "uint64"),
    (DataType::Float16, "float16"),
    (DataType::BFloat16, "bfloat16"),
    (DataType::Float32, "float32"),
    (DataType::Float64, "float64"),
    (DataType::Complex64, "complex64"),
    (DataType::Complex128, "complex128"),
];

impl DataType {
    /// Bytes per element (`bits / 8` for raw bits).
    pub const fn size(&self) -> usize {
        match self {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 | DataType::BFloat16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64 | DataType::UInt64 | DataType::Float64 | DataType::Complex64 => 8,
            DataType::Complex128 => 16,
            DataType::RawBits(bits) => *bits / 8,
        }
    }

    /// Whether the codec's `endian` changes the bytes: true for multi-byte numbers, false
    /// for single-byte types and raw bits.
    pub const fn endian_applies(&self) -> bool {
        !matches!(self, DataType::RawBits(_)) && self.size() > 1
    }

    /// Check that a raw bits type has a positive multiple of 8 bits.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRawBits`] for `RawBits(0)`, `RawBits(7)` and the like.
    pub fn check(&self) -> Result<(), Error> {
        match self {
            DataType::RawBits(bits) if *bits == 0 || bits % 8 != 0 => Err(Error::InvalidRawBits {
                name: self.to_string(),
            }),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::RawBits(bits) => write!(f, "r{bits}"),
            named => {
                let name = NAMED
                    .iter()
                    .find(|(t, _)| t == named)
                    .map_or("", |(_, n)| *n);
                f.pad(name)
            }
        }
    }
}

impl FromStr for DataType {
    type Err = Error;

    /// Parse a Zarr data type name; raw bits are `r` and a positive multiple of 8 written
    /// without sign or leading zeros.
    fn from_str(name: &str) -> Result<Self, Error> {
        if let Some((t, _)) = NAMED.iter().find(|(_, n)| *n == name) {
            return Ok(*t);
        }
        let digits = match name.strip_prefix('r') {
            Some(d)
                if d.is_empty()
                    || d.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') =>
            {
                d
            }
            _ => return Err(Error::UnknownDataType { name: name.into() }),
        };
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        match digits.parse::<usize>() {
            Ok(bits) if canonical && bits % 8 == 0 => Ok(DataType::RawBits(bits)),
            _ => Err(Error::InvalidRawBits { name: name.into() }),
        }
    }
}

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
