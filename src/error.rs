//! The one error type of the crate.

use std::{error, fmt, io};

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
