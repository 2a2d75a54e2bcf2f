//! Zarr data types, as `zarr.json` names and configures them, and the table of the data
//! types of fixed name from which [`DataType`] and [`DynArray`](crate::DynArray) are made.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{Error, MetadataError};

/// Every data type of fixed name, one line each: the variant of [`DataType`] and
/// [`DynArray`](crate::DynArray), the Zarr name, the Rust element (for the sub-byte integers
/// with the bits they keep, see [`Narrow`](crate::element::Narrow)), bytes per element,
/// whether the codec's `endian` applies, the `fill_value` form (a function of `fill.rs`),
/// the conversion (how `element.rs` makes its [`Element`](crate::Element): `word` and the
/// word type, `low_bits`, `complex_low_bits`; `bool` and `narrow` are written out there)
/// and what the bytes are. Passes the table to the macro `$then`.
macro_rules! fixed_types {
    ($then:ident) => {
        $then! {
            // variant               name                         element                                                     size endian fill         conversion         doc
            Bool                     "bool"                       (bool)                                                       1 no  boolean           [bool]             "one byte, 0x00 or 0x01";
            Int8                     "int8"                       (i8)                                                         1 no  integer           [word u8]          "two's complement";
            Int16                    "int16"                      (i16)                                                        2 yes integer           [word u16]         "two's complement";
            Int32                    "int32"                      (i32)                                                        4 yes integer           [word u32]         "two's complement";
            Int64                    "int64"                      (i64)                                                        8 yes integer           [word u64]         "two's complement";
            UInt8                    "uint8"                      (u8)                                                         1 no  integer           [word u8]          "unsigned";
            UInt16                   "uint16"                     (u16)                                                        2 yes integer           [word u16]         "unsigned";
            UInt32                   "uint32"                     (u32)                                                        4 yes integer           [word u32]         "unsigned";
            UInt64                   "uint64"                     (u64)                                                        8 yes integer           [word u64]         "unsigned";
            Float16                  "float16"                    (half::f16)                                                  2 yes float             [word u16]         "IEEE 754 binary16";
            BFloat16                 "bfloat16"                   (half::bf16)                                                 2 yes float             [word u16]         "the upper half of a binary32 (extension)";
            Float32                  "float32"                    (f32)                                                        4 yes float             [word u32]         "IEEE 754 binary32";
            Float64                  "float64"                    (f64)                                                        8 yes float             [word u64]         "IEEE 754 binary64";
            Complex64                "complex64"                  (num_complex::Complex<f32>)                                  8 yes complex           [word u32]         "two `float32`, real then imaginary";
            Complex128               "complex128"                 (num_complex::Complex<f64>)                                 16 yes complex           [word u64]         "two `float64`, real then imaginary";
            ComplexFloat16           "complex_float16"            (num_complex::Complex<half::f16>)                            4 yes complex           [word u16]         "two `float16`, real then imaginary (extension)";
            ComplexBFloat16          "complex_bfloat16"           (num_complex::Complex<half::bf16>)                           4 yes complex           [word u16]         "two `bfloat16`, real then imaginary (extension)";
            Int2                     "int2"                       (i8; 2 bits)                                                 1 no  integer           [narrow]           "the low 2 bits of a byte, two's complement (extension)";
            Int4                     "int4"                       (i8; 4 bits)                                                 1 no  integer           [narrow]           "the low 4 bits of a byte, two's complement (extension)";
            UInt2                    "uint2"                      (u8; 2 bits)                                                 1 no  integer           [narrow]           "the low 2 bits of a byte (extension)";
            UInt4                    "uint4"                      (u8; 4 bits)                                                 1 no  integer           [narrow]           "the low 4 bits of a byte (extension)";
            Float4E2M1FN             "float4_e2m1fn"              (crate::minifloat::Float4E2M1FN)                             1 no  minifloat         [low_bits]         "the low 4 bits of a byte (extension)";
            Float6E2M3FN             "float6_e2m3fn"              (crate::minifloat::Float6E2M3FN)                             1 no  minifloat         [low_bits]         "the low 6 bits of a byte (extension)";
            Float6E3M2FN             "float6_e3m2fn"              (crate::minifloat::Float6E3M2FN)                             1 no  minifloat         [low_bits]         "the low 6 bits of a byte (extension)";
            Float8E3M4               "float8_e3m4"                (crate::minifloat::Float8E3M4)                               1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E4M3               "float8_e4m3"                (crate::minifloat::Float8E4M3)                               1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E4M3B11FNUZ        "float8_e4m3b11fnuz"         (crate::minifloat::Float8E4M3B11FNUZ)                        1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E4M3FN             "float8_e4m3fn"              (crate::minifloat::Float8E4M3FN)                             1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E4M3FNUZ           "float8_e4m3fnuz"            (crate::minifloat::Float8E4M3FNUZ)                           1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E5M2               "float8_e5m2"                (crate::minifloat::Float8E5M2)                               1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E5M2FNUZ           "float8_e5m2fnuz"            (crate::minifloat::Float8E5M2FNUZ)                           1 no  minifloat         [word u8]          "one byte (extension)";
            Float8E8M0FNU            "float8_e8m0fnu"             (crate::minifloat::Float8E8M0FNU)                            1 no  minifloat         [word u8]          "one byte (extension)";
            ComplexFloat4E2M1FN      "complex_float4_e2m1fn"      (num_complex::Complex<crate::minifloat::Float4E2M1FN>)       2 no  complex_minifloat [complex_low_bits] "two `float4_e2m1fn`, real then imaginary, in the low 4 bits of a byte each (extension)";
            ComplexFloat6E2M3FN      "complex_float6_e2m3fn"      (num_complex::Complex<crate::minifloat::Float6E2M3FN>)       2 no  complex_minifloat [complex_low_bits] "two `float6_e2m3fn`, real then imaginary, in the low 6 bits of a byte each (extension)";
            ComplexFloat6E3M2FN      "complex_float6_e3m2fn"      (num_complex::Complex<crate::minifloat::Float6E3M2FN>)       2 no  complex_minifloat [complex_low_bits] "two `float6_e3m2fn`, real then imaginary, in the low 6 bits of a byte each (extension)";
            ComplexFloat8E3M4        "complex_float8_e3m4"        (num_complex::Complex<crate::minifloat::Float8E3M4>)         2 no  complex_minifloat [word u8]          "two `float8_e3m4`, real then imaginary (extension)";
            ComplexFloat8E4M3        "complex_float8_e4m3"        (num_complex::Complex<crate::minifloat::Float8E4M3>)         2 no  complex_minifloat [word u8]          "two `float8_e4m3`, real then imaginary (extension)";
            ComplexFloat8E4M3B11FNUZ "complex_float8_e4m3b11fnuz" (num_complex::Complex<crate::minifloat::Float8E4M3B11FNUZ>)  2 no  complex_minifloat [word u8]          "two `float8_e4m3b11fnuz`, real then imaginary (extension)";
            ComplexFloat8E4M3FNUZ    "complex_float8_e4m3fnuz"    (num_complex::Complex<crate::minifloat::Float8E4M3FNUZ>)     2 no  complex_minifloat [word u8]          "two `float8_e4m3fnuz`, real then imaginary (extension)";
            ComplexFloat8E5M2        "complex_float8_e5m2"        (num_complex::Complex<crate::minifloat::Float8E5M2>)         2 no  complex_minifloat [word u8]          "two `float8_e5m2`, real then imaginary (extension)";
            ComplexFloat8E5M2FNUZ    "complex_float8_e5m2fnuz"    (num_complex::Complex<crate::minifloat::Float8E5M2FNUZ>)     2 no  complex_minifloat [word u8]          "two `float8_e5m2fnuz`, real then imaginary (extension)";
            ComplexFloat8E8M0FNU     "complex_float8_e8m0fnu"     (num_complex::Complex<crate::minifloat::Float8E8M0FNU>)      2 no  complex_minifloat [word u8]          "two `float8_e8m0fnu`, real then imaginary (extension)";
        }
    };
}

/// Names read as another data type's.
const ALIASES: [(&str, DataType); 2] = [
    ("complex_float32", DataType::Complex64),
    ("complex_float64", DataType::Complex128),
];

macro_rules! data_type {
    ($($variant:ident $name:literal ($($element:tt)*) $size:literal $endian:ident $fill:ident [$($conversion:tt)*] $doc:literal;)*) => {
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
        /// use zarr_bytes::{DataType, ScaleFactor, TimeUnit};
        ///
        /// let t: DataType = "r24".parse()?;
        /// assert_eq!(t, DataType::raw_bits(24)?);
        /// assert_eq!(t.size(), 3);
        /// assert!(!t.endian_applies());
        /// assert_eq!(DataType::Complex64.to_string(), "complex64");
        /// assert!("float128".parse::<DataType>().is_err());
        ///
        /// let json = r#"{"name":"numpy.datetime64","configuration":{"unit":"ms","scale_factor":1}}"#;
        /// let t: DataType = serde_json::from_str(json).unwrap();
        /// let ms = DataType::DateTime64 { unit: TimeUnit::Milliseconds, scale_factor: ScaleFactor::ONE };
        /// assert_eq!(t, ms);
        /// assert_eq!(t.to_string(), json);
        /// # Ok::<(), zarr_bytes::Error>(())
        /// ```
        ///
        /// # Data types of fixed name
        ///
        /// Made from the one table that defines them (`fixed_types!` in
        /// `src/metadata/data_type.rs`), as [`DynArray`](crate::DynArray)'s variants of the
        /// same names (whose arrays show the Rust element of each) and the fill values are.
        /// The sub-byte integers keep their value in the low bits of an `i8` or `u8`, whose
        /// others decoding ignores and encoding writes as zero.
        ///
        /// | name | variant | bytes | endian applies | the bytes |
        /// |---|---|---:|---|---|
        $(#[doc = concat!(
            "| `", $name, "` | [`", stringify!($variant), "`](DataType::", stringify!($variant),
            ") | ", $size, " | ", stringify!($endian), " | ", $doc, " |"
        )])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum DataType {
            $(
                #[doc = concat!("`", $name, "`: ", $doc, ".")]
                $variant,
            )*
            /// `r{8 × bytes}`: raw bits, whole bytes copied as they are.
            RawBits {
                /// Bytes per element.
                bytes: NonZeroUsize,
            },
            /// `numpy.datetime64`: a signed 64-bit count of `scale_factor` × `unit` since the
            /// Unix epoch; NaT is `i64::MIN`.
            DateTime64 {
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: ScaleFactor,
            },
            /// `numpy.timedelta64`: a signed 64-bit count of `scale_factor` × `unit`; NaT is
            /// `i64::MIN`.
            TimeDelta64 {
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: ScaleFactor,
            },
            /// `fixed_length_utf32`: `code_units` UTF-32 code units (`length_bytes` is 4 ×
            /// `code_units`), each in the codec's byte order, zero units after the end of a
            /// shorter string.
            FixedLengthUtf32 {
                /// Code units per element.
                code_units: NonZeroUsize,
            },
            /// `null_terminated_bytes`: `length_bytes` bytes, zero bytes after the end of a
            /// shorter value; never swapped.
            NullTerminatedBytes {
                /// Bytes per element.
                length_bytes: NonZeroUsize,
            },
            /// `raw_bytes`: `length_bytes` bytes, copied as they are.
            RawBytes {
                /// Bytes per element.
                length_bytes: NonZeroUsize,
            },
            /// `struct`: fields packed in order with no padding, each by its own rule.
            Struct(StructType),
        }

        /// The name, size in bytes and endian rule of each data type of fixed name.
        const TABLE: &[(DataType, &str, usize, bool)] = &[
            $((DataType::$variant, $name, $size, endian_rule!($endian)),)*
        ];

        impl DataType {
            /// Every data type of fixed name, the ones without a configuration, from `bool`
            /// on in the order of the crate's data type table.
            ///
            /// # Examples
            ///
            /// ```
            /// use zarr_bytes::DataType;
            ///
            /// assert_eq!(DataType::FIXED[0], DataType::Bool);
            /// assert!(DataType::FIXED.iter().all(|t| t.to_string().parse() == Ok(t.clone())));
            /// ```
            pub const FIXED: &'static [DataType] = &[$(DataType::$variant,)*];
        }

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
    #[must_use]
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
            .ok_or_else(|| MetadataError::UnknownTimeUnit { unit: unit.into() }.into())
    }
}

/// One field of a [`StructType`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructField {
    /// The field's name, unique in its struct.
    pub name: String,
    /// The field's data type.
    pub data_type: DataType,
}

/// The fields of a [`DataType::Struct`]: at least one, of distinct names, nested at most
/// [`DataType::MAX_DEPTH`] levels deep, and at most `isize::MAX` bytes in all.
///
/// # Examples
///
/// ```
/// use zarr_bytes::{DataType, Error, MetadataError, StructField, StructType};
///
/// let field = |name: &str, data_type| StructField { name: name.into(), data_type };
/// let t = StructType::new(vec![field("x", DataType::UInt16), field("ok", DataType::Bool)])?;
/// assert_eq!(DataType::Struct(t).size(), 3);
/// let twice = StructType::new(vec![field("x", DataType::Bool), field("x", DataType::Int8)]);
/// assert!(matches!(twice, Err(Error::Metadata(MetadataError::DuplicateField { .. }))));
/// # Ok::<(), Error>(())
/// ```
///
/// A struct type read from the legacy `structured` form remembers it, so that a `bytes`
/// codec without `endian` reads it little-endian, as the registry says; it is still equal
/// to the `struct` of the same fields, and written as one.
#[derive(Clone, Debug)]
pub struct StructType {
    fields: Vec<StructField>,
    /// Bytes of a record: the fields' sizes added up.
    size: usize,
    /// Levels of structs: 1 for a struct of plain fields.
    depth: usize,
    /// Whether some field's bytes depend on the codec's `endian`.
    endian_applies: bool,
    /// Whether it was read from the legacy `structured` form.
    legacy: bool,
}

impl PartialEq for StructType {
    fn eq(&self, other: &StructType) -> bool {
        self.fields == other.fields
    }
}

impl Eq for StructType {}

impl std::hash::Hash for StructType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.fields.hash(state);
    }
}

impl StructType {
    /// A struct of these fields, in this order.
    ///
    /// # Errors
    ///
    /// [`MetadataError::EmptyStruct`], [`MetadataError::DuplicateField`],
    /// [`MetadataError::NestingTooDeep`] and [`MetadataError::StructTooLarge`], in
    /// [`Error::Metadata`].
    pub fn new(fields: Vec<StructField>) -> Result<StructType, Error> {
        if fields.is_empty() {
            return Err(MetadataError::EmptyStruct.into());
        }
        for (i, field) in fields.iter().enumerate() {
            if fields[..i].iter().any(|f| f.name == field.name) {
                let name = field.name.as_str().into();
                return Err(MetadataError::DuplicateField { name }.into());
            }
        }
        let depth = 1 + fields
            .iter()
            .map(|f| f.data_type.depth())
            .max()
            .unwrap_or(0);
        if depth > DataType::MAX_DEPTH {
            let limit = DataType::MAX_DEPTH;
            return Err(MetadataError::NestingTooDeep { limit }.into());
        }
        let size = fields
            .iter()
            .try_fold(0usize, |sum, f| sum.checked_add(f.data_type.size()))
            .filter(|&size| size <= isize::MAX as usize)
            .ok_or(MetadataError::StructTooLarge)?;
        let endian_applies = fields.iter().any(|f| f.data_type.endian_applies());
        Ok(StructType {
            fields,
            size,
            depth,
            endian_applies,
            legacy: false,
        })
    }

    /// Whether this was read from the legacy `structured` form, which a `bytes` codec
    /// without `endian` reads little-endian.
    #[must_use]
    pub fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// The fields, in order.
    #[must_use]
    pub fn fields(&self) -> &[StructField] {
        &self.fields
    }

    /// Bytes of a record: the fields' sizes added up.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }
}

/// The scale factor of a datetime or timedelta: an integer from 1 to 2^31 - 1.
///
/// # Examples
///
/// ```
/// use zarr_bytes::{Error, MetadataError, ScaleFactor};
///
/// assert_eq!(ScaleFactor::new(10)?.get(), 10);
/// assert!(matches!(
///     ScaleFactor::new(0),
///     Err(Error::Metadata(MetadataError::InvalidScaleFactor { .. }))
/// ));
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScaleFactor(u32);

impl ScaleFactor {
    /// A scale factor of one unit per step.
    pub const ONE: ScaleFactor = ScaleFactor(1);

    /// The largest scale factor: 2^31 - 1.
    pub const MAX: ScaleFactor = ScaleFactor((1 << 31) - 1);

    /// The scale factor `n`.
    ///
    /// # Errors
    ///
    /// [`MetadataError::InvalidScaleFactor`] for 0 and for more than 2^31 - 1.
    pub fn new(n: u64) -> Result<ScaleFactor, Error> {
        match u32::try_from(n) {
            Ok(n) if (1..=Self::MAX.0).contains(&n) => Ok(ScaleFactor(n)),
            _ => Err(MetadataError::InvalidScaleFactor {
                value: n.to_string().into(),
            }
            .into()),
        }
    }

    /// The scale factor as an integer.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for ScaleFactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl DataType {
    /// How deep structs may nest: a struct of plain fields is 1 level deep. JSON text
    /// nests four levels per struct, so this keeps well inside serde_json's own limit.
    pub const MAX_DEPTH: usize = 16;

    /// Raw bits `r{bits}`.
    ///
    /// # Errors
    ///
    /// [`MetadataError::InvalidRawBits`] unless `bits` is a positive multiple of 8.
    ///
    /// # Examples
    ///
    /// ```
    /// use zarr_bytes::DataType;
    ///
    /// assert_eq!(DataType::raw_bits(24)?.size(), 3);
    /// assert!(DataType::raw_bits(7).is_err());
    /// assert!(DataType::raw_bits(0).is_err());
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn raw_bits(bits: usize) -> Result<DataType, Error> {
        match NonZeroUsize::new(bits / 8) {
            Some(bytes) if bits % 8 == 0 => Ok(DataType::RawBits { bytes }),
            _ => Err(MetadataError::InvalidRawBits {
                name: format!("r{bits}").into(),
            }
            .into()),
        }
    }

    /// `fixed_length_utf32` of `length_bytes` bytes per element.
    ///
    /// # Errors
    ///
    /// [`MetadataError::InvalidLengthBytes`] unless `length_bytes` is a positive multiple
    /// of 4.
    pub fn fixed_length_utf32(length_bytes: usize) -> Result<DataType, Error> {
        match NonZeroUsize::new(length_bytes / 4) {
            Some(code_units) if length_bytes % 4 == 0 => {
                Ok(DataType::FixedLengthUtf32 { code_units })
            }
            _ => Err(invalid_length("fixed_length_utf32", length_bytes as u64)),
        }
    }

    /// `null_terminated_bytes` of `length_bytes` bytes per element.
    ///
    /// # Errors
    ///
    /// [`MetadataError::InvalidLengthBytes`] for 0.
    pub fn null_terminated_bytes(length_bytes: usize) -> Result<DataType, Error> {
        let length_bytes = NonZeroUsize::new(length_bytes)
            .ok_or_else(|| invalid_length("null_terminated_bytes", 0))?;
        Ok(DataType::NullTerminatedBytes { length_bytes })
    }

    /// `raw_bytes` of `length_bytes` bytes per element.
    ///
    /// # Errors
    ///
    /// [`MetadataError::InvalidLengthBytes`] for 0.
    pub fn raw_bytes(length_bytes: usize) -> Result<DataType, Error> {
        let length_bytes =
            NonZeroUsize::new(length_bytes).ok_or_else(|| invalid_length("raw_bytes", 0))?;
        Ok(DataType::RawBytes { length_bytes })
    }

    /// Bytes per element (for `fixed_length_utf32`, 4 × `code_units`, saturating at
    /// `usize::MAX`: no array of such elements fits in memory).
    #[must_use]
    pub fn size(&self) -> usize {
        match self {
            DataType::RawBits { bytes } => bytes.get(),
            DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => 8,
            DataType::FixedLengthUtf32 { code_units } => code_units.get().saturating_mul(4),
            DataType::NullTerminatedBytes { length_bytes }
            | DataType::RawBytes { length_bytes } => length_bytes.get(),
            DataType::Struct(t) => t.size,
            fixed => TABLE
                .iter()
                .find(|(t, ..)| t == fixed)
                .map_or(0, |&(_, _, size, _)| size),
        }
    }

    /// Whether the codec's `endian` changes the bytes: true for multi-byte numbers, UTF-32
    /// text and structs with such a field; false for single-byte types, raw bits and bytes.
    #[must_use]
    pub fn endian_applies(&self) -> bool {
        match self {
            DataType::RawBits { .. }
            | DataType::NullTerminatedBytes { .. }
            | DataType::RawBytes { .. } => false,
            DataType::DateTime64 { .. }
            | DataType::TimeDelta64 { .. }
            | DataType::FixedLengthUtf32 { .. } => true,
            DataType::Struct(t) => t.endian_applies,
            fixed => TABLE
                .iter()
                .find(|(t, ..)| t == fixed)
                .is_some_and(|&(.., endian)| endian),
        }
    }

    /// Whether a `bytes` codec without `endian` reads this type little-endian: the legacy
    /// `structured` form, which zarr-python wrote so.
    pub(crate) fn little_by_default(&self) -> bool {
        matches!(self, DataType::Struct(t) if t.legacy)
    }

    /// Levels of structs: 0 for any other type.
    fn depth(&self) -> usize {
        match self {
            DataType::Struct(t) => t.depth,
            _ => 0,
        }
    }

    /// The Zarr name; `r` for every raw bits type.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            DataType::RawBits { .. } => "r",
            DataType::DateTime64 { .. } => "numpy.datetime64",
            DataType::TimeDelta64 { .. } => "numpy.timedelta64",
            DataType::FixedLengthUtf32 { .. } => "fixed_length_utf32",
            DataType::NullTerminatedBytes { .. } => "null_terminated_bytes",
            DataType::RawBytes { .. } => "raw_bytes",
            DataType::Struct(_) => "struct",
            fixed => TABLE
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
                            ));
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
                ));
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
                    .and_then(|f| ScaleFactor::new(f).ok())
                    .ok_or_else(|| MetadataError::InvalidScaleFactor {
                        value: factor.to_string().into(),
                    })?;
                if name == "numpy.datetime64" {
                    DataType::DateTime64 { unit, scale_factor }
                } else {
                    DataType::TimeDelta64 { unit, scale_factor }
                }
            }
            "fixed_length_utf32" | "null_terminated_bytes" | "raw_bytes" => {
                config.expect_keys(&["length_bytes"])?;
                let length_bytes = config.count("length_bytes")?;
                let length_bytes = usize::try_from(length_bytes)
                    .map_err(|_| invalid_length(name, length_bytes))?;
                match name {
                    "fixed_length_utf32" => DataType::fixed_length_utf32(length_bytes)?,
                    "null_terminated_bytes" => DataType::null_terminated_bytes(length_bytes)?,
                    _ => DataType::raw_bytes(length_bytes)?,
                }
            }
            "struct" | "structured" => {
                if depth > Self::MAX_DEPTH {
                    let limit = Self::MAX_DEPTH;
                    return Err(MetadataError::NestingTooDeep { limit }.into());
                }
                config.expect_keys(&["fields"])?;
                let Value::Array(items) = config.get("fields")? else {
                    return Err(invalid(name, "\"fields\" must be a list".into()));
                };
                let fields = items
                    .iter()
                    .map(|item| struct_field(name, item, depth))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut t = StructType::new(fields)?;
                t.legacy = name == "structured";
                DataType::Struct(t)
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
    MetadataError::InvalidConfiguration {
        name: name.into(),
        reason: reason.into(),
    }
    .into()
}

fn invalid_length(name: &str, length_bytes: u64) -> Error {
    MetadataError::InvalidLengthBytes {
        name: name.into(),
        length_bytes,
    }
    .into()
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

    fn count(&self, key: &str) -> Result<u64, Error> {
        self.get(key)?
            .as_u64()
            .ok_or_else(|| invalid(self.name, format!("{key:?} must be a non-negative integer")))
    }
}

/// A data type written as a name alone.
fn parse_name(name: &str) -> Result<DataType, Error> {
    if let Some((t, ..)) = TABLE.iter().find(|(_, n, ..)| *n == name) {
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
            // Bits as wide as 8 × usize::MAX, so that every raw bits type prints and parses.
            let bytes = digits
                .parse::<u128>()
                .ok()
                .filter(|bits| canonical && bits % 8 == 0)
                .and_then(|bits| usize::try_from(bits / 8).ok())
                .and_then(NonZeroUsize::new);
            return bytes
                .map(|bytes| DataType::RawBits { bytes })
                .ok_or_else(|| MetadataError::InvalidRawBits { name: name.into() }.into());
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
        _ => Err(MetadataError::UnknownDataType { name: name.into() }.into()),
    }
}

impl fmt::Display for DataType {
    /// The name, or for a type with a configuration its JSON object, compact, in the order
    /// zarr-python writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::RawBits { bytes } => f.pad(&format!("r{}", 8 * bytes.get() as u128)),
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
            DataType::RawBits { bytes } => {
                return serializer.collect_str(&format_args!("r{}", 8 * bytes.get() as u128));
            }
            DataType::DateTime64 { unit, scale_factor }
            | DataType::TimeDelta64 { unit, scale_factor } => {
                Configuration::Time(*unit, *scale_factor)
            }
            DataType::FixedLengthUtf32 { code_units } => {
                Configuration::Length(4 * code_units.get() as u128)
            }
            DataType::NullTerminatedBytes { length_bytes }
            | DataType::RawBytes { length_bytes } => {
                Configuration::Length(length_bytes.get() as u128)
            }
            DataType::Struct(t) => Configuration::Fields(t.fields()),
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
    Time(TimeUnit, ScaleFactor),
    Length(u128),
    Fields(&'a [StructField]),
}

impl Serialize for Configuration<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Configuration::Time(unit, scale_factor) => {
                map.serialize_entry("unit", unit.as_str())?;
                map.serialize_entry("scale_factor", &scale_factor.get())?;
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
