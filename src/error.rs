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
    /// Bytes that cannot be viewed without converting them: another byte order.
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
            Error::NeedsConversion { data_type, endian } => write!(
                f,
                "{endian}-endian {data_type} bytes need conversion on this {}-endian machine: they cannot be viewed",
                Endian::NATIVE
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
