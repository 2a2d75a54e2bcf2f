//! The one error type of the crate.

use std::{error, fmt, io};

use crate::{DataType, Endian};

/// Everything that can go wrong while encoding or decoding.
///
/// Every variant carries the numbers needed to understand it, and the message says them.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not have the length the shape and element size call for.
    LengthMismatch {
        /// Bytes the shape needs: elements × element size.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// The output buffer given to an `_into` encoder has the wrong length.
    BufferSize {
        /// Bytes the array encodes to.
        expected: usize,
        /// Bytes in the buffer.
        actual: usize,
    },
    /// The shape's element count, or its byte count, exceeds `isize::MAX`.
    ShapeOverflow {
        /// Bytes per element.
        element_size: usize,
    },
    /// A `bool` element byte that is neither 0x00 nor 0x01.
    InvalidBool {
        /// Offset of the byte in the encoded bytes.
        offset: usize,
        /// The byte found there.
        value: u8,
    },
    /// A reader ended before the shape's bytes were read.
    UnexpectedEof {
        /// Bytes the shape needs.
        expected: usize,
        /// Bytes the reader gave before it ended.
        received: usize,
    },
    /// A reader failed.
    Io(io::Error),
    /// An endian that is not exactly `"little"` or `"big"`.
    InvalidEndian {
        /// The value as given.
        value: String,
    },
    /// Bytes that cannot be viewed without converting them: another byte order, or a type
    /// held in the low bits of a byte, whose high bits decoding clears.
    NeedsConversion {
        /// The element's data type.
        data_type: DataType,
        /// The byte order of the bytes.
        endian: Endian,
    },
    /// Bytes that cannot be viewed as elements: they do not start on an element boundary.
    Misaligned {
        /// Bytes past the last `align`-byte boundary.
        offset: usize,
        /// The element's alignment in bytes.
        align: usize,
    },
    /// A region or shape with another number of axes than the chunk.
    RankMismatch {
        /// Axes of the chunk.
        expected: usize,
        /// Axes given.
        actual: usize,
    },
    /// A region range whose end is past the end of its axis.
    RegionOutOfBounds {
        /// The axis.
        axis: usize,
        /// The range's end.
        end: usize,
        /// The axis length.
        len: usize,
    },
    /// A region range whose start is after its end.
    ReversedRange {
        /// The axis.
        axis: usize,
        /// The range's start.
        start: usize,
        /// The range's end.
        end: usize,
    },
    /// An array whose shape is not the region's.
    RegionShapeMismatch {
        /// The region's shape.
        expected: Vec<usize>,
        /// The array's shape.
        actual: Vec<usize>,
    },
    /// A region whose list of byte ranges would not fit in memory.
    TooManyRanges {
        /// Ranges the region needs.
        count: usize,
    },
    /// A data type name that is not a Zarr data type this crate knows.
    UnknownDataType {
        /// The name as given.
        name: String,
    },
    /// A raw bits type whose number of bits is not a positive multiple of 8.
    InvalidRawBits {
        /// The name as given, or as printed for a constructed `RawBits`.
        name: String,
    },
    /// A multi-byte data type with a `bytes` codec that has no `endian`.
    EndianRequired {
        /// The data type that needs it.
        data_type: DataType,
    },
    /// The element type in hand is not the data type asked for.
    TypeMismatch {
        /// The data type asked for.
        expected: DataType,
        /// The data type in hand.
        found: DataType,
    },
    /// A data type whose JSON form is not one this crate reads: a missing, unknown or
    /// mistyped key of its `configuration`.
    InvalidConfiguration {
        /// The data type's name.
        name: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// A datetime or timedelta unit that is none of `Y`, `M`, `W`, `D`, `h`, `m`, `s`,
    /// `ms`, `us`, `ns`, `ps`, `fs`, `as` and `generic`.
    UnknownTimeUnit {
        /// The unit as given.
        unit: String,
    },
    /// A datetime or timedelta scale factor outside `1..=2^31-1`.
    InvalidScaleFactor {
        /// The scale factor as given (its JSON text).
        value: String,
    },
    /// A `length_bytes` of zero, or one that is no multiple of 4 for `fixed_length_utf32`.
    InvalidLengthBytes {
        /// The data type's name.
        name: String,
        /// The length as given.
        length_bytes: usize,
    },
    /// A struct data type or array with no fields.
    EmptyStruct,
    /// A struct with two fields of one name.
    DuplicateField {
        /// The repeated name.
        name: String,
    },
    /// Structs nested deeper than [`DataType::MAX_DEPTH`] levels.
    NestingTooDeep {
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// A struct whose fields add up to more than `isize::MAX` bytes.
    StructTooLarge,
    /// A struct field whose array does not have the struct's shape.
    FieldShapeMismatch {
        /// The field's name.
        name: String,
        /// The struct's shape (that of its first field).
        expected: Vec<usize>,
        /// The field's shape.
        actual: Vec<usize>,
    },
    /// An axis order that is not a permutation of the array's axes.
    InvalidAxisOrder {
        /// The order given.
        order: Vec<usize>,
        /// The array's axes.
        ndim: usize,
    },
    /// A UTF-32 code unit that is no Unicode scalar value (a surrogate, or past U+10FFFF).
    InvalidCodeUnit {
        /// Offset of the code unit's first byte in the encoded bytes.
        offset: usize,
        /// The code unit.
        value: u32,
    },
    /// An integer that does not fit its data type on encode (`int4` 9).
    OutOfRange {
        /// The data type.
        data_type: DataType,
        /// The element's index in logical C order.
        index: usize,
        /// The value.
        value: i64,
    },
    /// A string or byte string longer than its data type holds on encode.
    TooLong {
        /// The data type.
        data_type: DataType,
        /// The element's index in logical C order.
        index: usize,
        /// Its length: code units for strings, bytes for byte strings.
        len: usize,
        /// The most the data type holds, in the same units.
        max: usize,
    },
    /// A `fill_value` that is not of the form its data type takes.
    InvalidFillValue {
        /// The data type.
        data_type: DataType,
        /// The fill value, as JSON text.
        value: String,
        /// The forms accepted.
        expected: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LengthMismatch { expected, actual } => write!(
                f,
                "byte length mismatch: the shape needs {expected} bytes, got {actual}"
            ),
            Error::BufferSize { expected, actual } => write!(
                f,
                "output buffer has {actual} bytes, the array encodes to {expected}"
            ),
            Error::ShapeOverflow { element_size } => write!(
                f,
                "shape too large: its size in {element_size}-byte elements exceeds isize::MAX bytes"
            ),
            Error::InvalidBool { offset, value } => write!(
                f,
                "invalid bool byte {value:#04x} at offset {offset}: must be 0x00 or 0x01"
            ),
            Error::UnexpectedEof { expected, received } => write!(
                f,
                "reader ended early: the shape needs {expected} bytes, received {received}"
            ),
            Error::Io(_) => f.write_str("failed to read the encoded bytes"),
            Error::InvalidEndian { value } => {
                write!(f, "invalid endian {value:?}: must be \"little\" or \"big\"")
            }
            Error::NeedsConversion { data_type, endian } if data_type.endian_applies() => write!(
                f,
                "{endian}-endian {data_type} bytes need conversion on this {}-endian machine: they cannot be viewed",
                Endian::NATIVE
            ),
            Error::NeedsConversion { data_type, .. } => write!(
                f,
                "{data_type} bytes need conversion (their unused high bits are ignored): they cannot be viewed"
            ),
            Error::Misaligned { offset, align } => write!(
                f,
                "bytes misaligned by {offset} bytes for {align}-byte elements: they cannot be viewed"
            ),
            Error::RankMismatch { expected, actual } => {
                write!(f, "rank mismatch: the chunk has {expected} axes, got {actual}")
            }
            Error::RegionOutOfBounds { axis, end, len } => write!(
                f,
                "region out of bounds: axis {axis} ends at {end}, past its length {len}"
            ),
            Error::ReversedRange { axis, start, end } => {
                write!(f, "reversed region range on axis {axis}: start {start} is after end {end}")
            }
            Error::RegionShapeMismatch { expected, actual } => {
                write!(f, "array shape {actual:?} is not the region's shape {expected:?}")
            }
            Error::TooManyRanges { count } => {
                write!(f, "region needs {count} byte ranges, more than memory can hold")
            }
            Error::UnknownDataType { name } => write!(f, "unknown data type {name:?}"),
            Error::InvalidRawBits { name } => write!(
                f,
                "invalid raw bits data type {name:?}: the bits must be a positive multiple of 8"
            ),
            Error::EndianRequired { data_type } => write!(
                f,
                "the bytes codec needs an endian for the multi-byte data type {data_type}"
            ),
            Error::TypeMismatch { expected, found } => {
                write!(f, "data type mismatch: expected {expected}, found {found}")
            }
            Error::InvalidConfiguration { name, reason } => {
                write!(f, "invalid configuration of data type {name:?}: {reason}")
            }
            Error::UnknownTimeUnit { unit } => write!(
                f,
                "unknown time unit {unit:?}: must be one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic"
            ),
            Error::InvalidScaleFactor { value } => write!(
                f,
                "invalid scale factor {value}: must be an integer from 1 to 2147483647"
            ),
            Error::InvalidLengthBytes { name, length_bytes } => {
                let rule = if name == "fixed_length_utf32" {
                    "a positive multiple of 4"
                } else {
                    "positive"
                };
                write!(f, "invalid length_bytes {length_bytes} of {name}: must be {rule}")
            }
            Error::EmptyStruct => f.write_str("a struct needs at least one field"),
            Error::DuplicateField { name } => {
                write!(f, "struct field {name:?} appears more than once")
            }
            Error::NestingTooDeep { limit } => {
                write!(f, "structs nested more than {limit} levels deep")
            }
            Error::StructTooLarge => {
                f.write_str("struct too large: its fields add up to more than isize::MAX bytes")
            }
            Error::FieldShapeMismatch {
                name,
                expected,
                actual,
            } => write!(
                f,
                "struct field {name:?} has shape {actual:?}, not the struct's shape {expected:?}"
            ),
            Error::InvalidAxisOrder { order, ndim } => write!(
                f,
                "axis order {order:?} is not a permutation of the array's {ndim} axes"
            ),
            Error::InvalidCodeUnit { offset, value } => write!(
                f,
                "invalid UTF-32 code unit {value:#x} at offset {offset}: not a Unicode scalar value"
            ),
            Error::OutOfRange {
                data_type,
                index,
                value,
            } => write!(f, "value {value} at index {index} does not fit {data_type}"),
            Error::TooLong {
                data_type,
                index,
                len,
                max,
            } => write!(
                f,
                "element {index} is {len} long, more than {data_type} holds ({max})"
            ),
            Error::InvalidFillValue {
                data_type,
                value,
                expected,
            } => write!(
                f,
                "invalid fill value {value} for {data_type}: expected {expected}"
            ),
        }
    }
}

impl error::Error for Error {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}
