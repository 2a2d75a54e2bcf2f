//! The errors of the crate: [`Error`], and [`MetadataError`] for what `zarr.json` says.

use std::sync::Arc;
use std::{error, fmt, io};

use crate::{DataType, Endian};

/// Everything that can go wrong while encoding or decoding.
///
/// Every variant carries the numbers needed to understand it, and the message says them.
/// Errors are cheap to clone, can be compared, and can be kept or sent across threads: an
/// I/O error is shared ([`IoError`]), and shapes are boxed slices.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// A reader or writer failed.
    Io(IoError),
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
    /// A region, shape or grid with another number of axes than the chunk, array or array
    /// type it is for.
    RankMismatch {
        /// Axes expected: the chunk's, the array's, or the array type's.
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
        expected: Box<[usize]>,
        /// The array's shape.
        actual: Box<[usize]>,
    },
    /// A region whose list of byte ranges would not fit in memory.
    TooManyRanges {
        /// Ranges the region needs.
        count: usize,
    },
    /// The element type in hand is not the data type asked for.
    TypeMismatch {
        /// The data type asked for.
        expected: DataType,
        /// The data type in hand.
        found: DataType,
    },
    /// A struct field whose array does not have the struct's shape.
    FieldShapeMismatch {
        /// The field's name.
        name: Box<str>,
        /// The struct's shape (that of its first field).
        expected: Box<[usize]>,
        /// The field's shape.
        actual: Box<[usize]>,
    },
    /// Raw bits or raw bytes without a trailing axis of at least one byte per element.
    NoRecordBytes {
        /// The shape given, trailing axis included.
        shape: Box<[usize]>,
    },
    /// An axis order that is not a permutation of the array's axes.
    InvalidAxisOrder {
        /// The order given.
        order: Box<[usize]>,
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
    /// A string or byte string longer than its data type holds.
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
    /// A chunk shape with an extent of 0 on an axis.
    ZeroChunkExtent {
        /// The axis.
        axis: usize,
    },
    /// A chunk grid with more chunks than `usize` can count.
    TooManyChunks {
        /// Chunks along each axis.
        grid_shape: Box<[usize]>,
    },
    /// A chunk index past the end of its grid.
    ChunkIndexOutOfBounds {
        /// The axis.
        axis: usize,
        /// The index along it.
        index: usize,
        /// Chunks along it.
        len: usize,
    },
    /// The part of a chunk inside the array, larger than the chunk on an axis.
    PartTooLarge {
        /// The axis.
        axis: usize,
        /// The part's length along it.
        len: usize,
        /// The chunk's length along it.
        chunk: usize,
    },
    /// An array whose shape is not the shape its chunk grid cuts.
    GridShapeMismatch {
        /// The grid's array shape.
        expected: Box<[usize]>,
        /// The array's shape.
        actual: Box<[usize]>,
    },
    /// A subset of an array, given by its start and its length along each axis, whose end
    /// along an axis does not fit `usize`.
    SubsetOverflow {
        /// The axis.
        axis: usize,
        /// The subset's start along it.
        start: usize,
        /// Its length along it.
        len: usize,
    },
    /// A chunk put into a reader, or asked of a writer, that its subset does not touch.
    NotInSubset {
        /// The chunk's index in the grid.
        index: Box<[usize]>,
    },
    /// A chunk put into a reader a second time.
    PutTwice {
        /// The chunk's index in the grid.
        index: Box<[usize]>,
    },
    /// A reader finished before every chunk its subset touches was put.
    NotPut {
        /// The first such chunk in C order.
        index: Box<[usize]>,
    },
    /// Work that fetches chunks asked to keep no request in flight: it could never start.
    ZeroInFlight,
    /// An error of one chunk of a grid, which the message names.
    InChunk {
        /// The chunk's index in the grid.
        index: Box<[usize]>,
        /// What went wrong with it.
        error: Box<Error>,
    },
    /// What `zarr.json` says is not valid: a data type, a codec configuration, a fill value.
    Metadata(MetadataError),
}

/// What is wrong with the `zarr.json` side: data type names and configurations, the
/// codec's `endian`, fill values. Held in [`Error::Metadata`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetadataError {
    /// An endian that is not exactly `"little"` or `"big"`.
    InvalidEndian {
        /// The value as given.
        value: Box<str>,
    },
    /// A multi-byte data type with a `bytes` codec that has no `endian`.
    EndianRequired {
        /// The data type that needs it.
        data_type: DataType,
    },
    /// A data type name that is not a Zarr data type this crate knows.
    UnknownDataType {
        /// The name as given.
        name: Box<str>,
    },
    /// A raw bits name whose number of bits is not a positive multiple of 8.
    InvalidRawBits {
        /// The name as given.
        name: Box<str>,
    },
    /// A data type whose JSON form is not one this crate reads: a missing, unknown or
    /// mistyped key of its `configuration`.
    InvalidConfiguration {
        /// The data type's name.
        name: Box<str>,
        /// What is wrong, in words.
        reason: Box<str>,
    },
    /// A datetime or timedelta unit that is none of `Y`, `M`, `W`, `D`, `h`, `m`, `s`,
    /// `ms`, `us`, `ns`, `ps`, `fs`, `as` and `generic`.
    UnknownTimeUnit {
        /// The unit as given.
        unit: Box<str>,
    },
    /// A datetime or timedelta scale factor outside `1..=2^31-1`.
    InvalidScaleFactor {
        /// The scale factor as given (its JSON text).
        value: Box<str>,
    },
    /// A `length_bytes` of zero, or one that is no multiple of 4 for `fixed_length_utf32`.
    InvalidLengthBytes {
        /// The data type's name.
        name: Box<str>,
        /// The length as given.
        length_bytes: u64,
    },
    /// A struct data type or array with no fields.
    EmptyStruct,
    /// A struct with two fields of one name.
    DuplicateField {
        /// The repeated name.
        name: Box<str>,
    },
    /// Structs nested deeper than [`DataType::MAX_DEPTH`] levels.
    NestingTooDeep {
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// A struct whose fields add up to more than `isize::MAX` bytes.
    StructTooLarge,
    /// A `fill_value` that is not of the form its data type takes.
    InvalidFillValue {
        /// The data type.
        data_type: DataType,
        /// The fill value, as JSON text.
        value: Box<str>,
        /// The forms accepted.
        expected: Box<str>,
    },
}

/// An I/O error in an [`Error`], shared so that the error can be cloned: clones refer to
/// the one [`io::Error`], which [`get_ref`](Self::get_ref) and `Deref` give.
///
/// Two are equal when they are clones of one another, or have the same kind and message.
#[derive(Clone, Debug)]
pub struct IoError(Arc<io::Error>);

impl IoError {
    /// The I/O error.
    #[must_use]
    pub fn get_ref(&self) -> &io::Error {
        &self.0
    }
}

impl std::ops::Deref for IoError {
    type Target = io::Error;

    fn deref(&self) -> &io::Error {
        &self.0
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &IoError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string())
    }
}

impl Eq for IoError {}

impl From<io::Error> for IoError {
    fn from(e: io::Error) -> Self {
        IoError(Arc::new(e))
    }
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
            Error::Io(_) => f.write_str("I/O error"),
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
                write!(f, "rank mismatch: expected {expected} axes, got {actual}")
            }
            Error::RegionOutOfBounds { axis, end, len } => write!(
                f,
                "region out of bounds: axis {axis} ends at {end}, past its length {len}"
            ),
            Error::ReversedRange { axis, start, end } => {
                write!(
                    f,
                    "reversed region range on axis {axis}: start {start} is after end {end}"
                )
            }
            Error::RegionShapeMismatch { expected, actual } => {
                write!(
                    f,
                    "array shape {actual:?} is not the region's shape {expected:?}"
                )
            }
            Error::TooManyRanges { count } => {
                write!(
                    f,
                    "region needs {count} byte ranges, more than memory can hold"
                )
            }
            Error::TypeMismatch { expected, found } => {
                write!(f, "data type mismatch: expected {expected}, found {found}")
            }
            Error::FieldShapeMismatch {
                name,
                expected,
                actual,
            } => write!(
                f,
                "struct field {name:?} has shape {actual:?}, not the struct's shape {expected:?}"
            ),
            Error::NoRecordBytes { shape } => write!(
                f,
                "raw elements of shape {shape:?} have no trailing axis of at least one byte"
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
            Error::ZeroChunkExtent { axis } => {
                write!(f, "chunk shape has an extent of 0 on axis {axis}")
            }
            Error::TooManyChunks { grid_shape } => write!(
                f,
                "chunk grid of {grid_shape:?} chunks has more chunks than usize can count"
            ),
            Error::ChunkIndexOutOfBounds { axis, index, len } => write!(
                f,
                "chunk index out of bounds: axis {axis} is {index}, the grid has {len} chunks along it"
            ),
            Error::PartTooLarge { axis, len, chunk } => write!(
                f,
                "part larger than its chunk: axis {axis} is {len} long, the chunk {chunk}"
            ),
            Error::GridShapeMismatch { expected, actual } => write!(
                f,
                "array shape {actual:?} is not the chunk grid's array shape {expected:?}"
            ),
            Error::SubsetOverflow { axis, start, len } => write!(
                f,
                "subset overflows usize: axis {axis} starts at {start} and is {len} long"
            ),
            Error::NotInSubset { index } => {
                write!(f, "chunk {index:?} is not one that the subset touches")
            }
            Error::PutTwice { index } => write!(f, "chunk {index:?} was put already"),
            Error::NotPut { index } => write!(f, "chunk {index:?} was never put"),
            Error::ZeroInFlight => write!(f, "in_flight is 0: no request could ever start"),
            Error::InChunk { index, error } => write!(f, "chunk {index:?}: {error}"),
            Error::Metadata(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetadataError::InvalidEndian { value } => {
                write!(f, "invalid endian {value:?}: must be \"little\" or \"big\"")
            }
            MetadataError::EndianRequired { data_type } => write!(
                f,
                "the bytes codec needs an endian for the multi-byte data type {data_type}"
            ),
            MetadataError::UnknownDataType { name } => write!(f, "unknown data type {name:?}"),
            MetadataError::InvalidRawBits { name } => write!(
                f,
                "invalid raw bits data type {name:?}: the bits must be a positive multiple of 8"
            ),
            MetadataError::InvalidConfiguration { name, reason } => {
                write!(f, "invalid configuration of data type {name:?}: {reason}")
            }
            MetadataError::UnknownTimeUnit { unit } => write!(
                f,
                "unknown time unit {unit:?}: must be one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic"
            ),
            MetadataError::InvalidScaleFactor { value } => write!(
                f,
                "invalid scale factor {value}: must be an integer from 1 to 2147483647"
            ),
            MetadataError::InvalidLengthBytes { name, length_bytes } => {
                let rule = if &**name == "fixed_length_utf32" {
                    "a positive multiple of 4"
                } else {
                    "positive"
                };
                write!(
                    f,
                    "invalid length_bytes {length_bytes} of {name}: must be {rule}"
                )
            }
            MetadataError::EmptyStruct => f.write_str("a struct needs at least one field"),
            MetadataError::DuplicateField { name } => {
                write!(f, "struct field {name:?} appears more than once")
            }
            MetadataError::NestingTooDeep { limit } => {
                write!(f, "structs nested more than {limit} levels deep")
            }
            MetadataError::StructTooLarge => {
                f.write_str("struct too large: its fields add up to more than isize::MAX bytes")
            }
            MetadataError::InvalidFillValue {
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
            Error::Io(e) => Some(e.get_ref()),
            // The message already says the chunk's error; its cause, if any, is the source.
            Error::InChunk { error, .. } => error.source(),
            _ => None,
        }
    }
}

impl error::Error for MetadataError {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e.into())
    }
}

impl From<MetadataError> for Error {
    fn from(e: MetadataError) -> Self {
        Error::Metadata(e)
    }
}

#[cfg(test)]
mod tests {
    use super::{Error, MetadataError};
    use crate::{DataType, Endian};

    /// One example of every variant of `$enum`, by name: the match has no wildcard, so a
    /// new variant does not compile until it has an example here.
    macro_rules! every_variant {
        ($enum:ident: $($variant:ident => $example:expr,)*) => {{
            let _exhaustive = |e: &$enum| match e {
                $($enum::$variant { .. } => (),)*
            };
            vec![$({
                let example = $example;
                assert!(matches!(example, $enum::$variant { .. }), stringify!($variant));
                (concat!(stringify!($enum), "::", stringify!($variant)), Error::from(example))
            },)*]
        }};
    }

    fn examples() -> Vec<(&'static str, Error)> {
        let mut all = every_variant! { Error:
            LengthMismatch => Error::LengthMismatch { expected: 24, actual: 23 },
            BufferSize => Error::BufferSize { expected: 8, actual: 7 },
            ShapeOverflow => Error::ShapeOverflow { element_size: 8 },
            InvalidBool => Error::InvalidBool { offset: 3, value: 2 },
            UnexpectedEof => Error::UnexpectedEof { expected: 32, received: 16 },
            Io => Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
            NeedsConversion => Error::NeedsConversion {
                data_type: DataType::Float64,
                endian: match Endian::NATIVE {
                    Endian::Little => Endian::Big,
                    Endian::Big => Endian::Little,
                },
            },
            Misaligned => Error::Misaligned { offset: 1, align: 8 },
            RankMismatch => Error::RankMismatch { expected: 2, actual: 1 },
            RegionOutOfBounds => Error::RegionOutOfBounds { axis: 1, end: 6, len: 5 },
            ReversedRange => Error::ReversedRange { axis: 0, start: 3, end: 1 },
            RegionShapeMismatch => Error::RegionShapeMismatch {
                expected: [1, 1].into(),
                actual: [1, 2].into(),
            },
            TooManyRanges => Error::TooManyRanges { count: 1099511627774 },
            TypeMismatch => Error::TypeMismatch {
                expected: DataType::Int16,
                found: DataType::Float32,
            },
            FieldShapeMismatch => Error::FieldShapeMismatch {
                name: "y".into(),
                expected: [2, 1].into(),
                actual: [3, 1].into(),
            },
            NoRecordBytes => Error::NoRecordBytes { shape: [2, 0].into() },
            InvalidAxisOrder => Error::InvalidAxisOrder { order: [0, 0].into(), ndim: 2 },
            InvalidCodeUnit => Error::InvalidCodeUnit { offset: 4, value: 0xd800 },
            OutOfRange => Error::OutOfRange { data_type: DataType::Int4, index: 0, value: 9 },
            TooLong => Error::TooLong {
                data_type: DataType::fixed_length_utf32(12).unwrap(),
                index: 1,
                len: 4,
                max: 3,
            },
            ZeroChunkExtent => Error::ZeroChunkExtent { axis: 1 },
            TooManyChunks => Error::TooManyChunks { grid_shape: [1 << 40, 1 << 40].into() },
            ChunkIndexOutOfBounds => Error::ChunkIndexOutOfBounds { axis: 1, index: 4, len: 3 },
            PartTooLarge => Error::PartTooLarge { axis: 0, len: 5, chunk: 4 },
            GridShapeMismatch => Error::GridShapeMismatch {
                expected: [10, 10].into(),
                actual: [10, 9].into(),
            },
            SubsetOverflow => Error::SubsetOverflow { axis: 0, start: usize::MAX, len: 2 },
            NotInSubset => Error::NotInSubset { index: [0, 3].into() },
            PutTwice => Error::PutTwice { index: [1, 2].into() },
            NotPut => Error::NotPut { index: [1, 0].into() },
            ZeroInFlight => Error::ZeroInFlight,
            InChunk => Error::InChunk {
                index: [2, 1].into(),
                error: Box::new(Error::LengthMismatch { expected: 800, actual: 799 }),
            },
            Metadata => Error::Metadata(MetadataError::EmptyStruct),
        };
        // The metadata rows stand for the errors of `zarr.json`; `Metadata` has no row.
        all.retain(|(name, _)| *name != "Error::Metadata");
        all.extend(every_variant! { MetadataError:
            InvalidEndian => MetadataError::InvalidEndian { value: "native".into() },
            EndianRequired => MetadataError::EndianRequired { data_type: DataType::Float64 },
            UnknownDataType => MetadataError::UnknownDataType { name: "float128".into() },
            InvalidRawBits => MetadataError::InvalidRawBits { name: "r7".into() },
            InvalidConfiguration => MetadataError::InvalidConfiguration {
                name: "raw_bytes".into(),
                reason: "missing configuration key \"length_bytes\"".into(),
            },
            UnknownTimeUnit => MetadataError::UnknownTimeUnit { unit: "sec".into() },
            InvalidScaleFactor => MetadataError::InvalidScaleFactor { value: "0".into() },
            InvalidLengthBytes => MetadataError::InvalidLengthBytes {
                name: "fixed_length_utf32".into(),
                length_bytes: 6,
            },
            EmptyStruct => MetadataError::EmptyStruct,
            DuplicateField => MetadataError::DuplicateField { name: "a".into() },
            NestingTooDeep => MetadataError::NestingTooDeep { limit: 16 },
            StructTooLarge => MetadataError::StructTooLarge,
            InvalidFillValue => MetadataError::InvalidFillValue {
                data_type: DataType::Int4,
                value: "9".into(),
                expected: "an integer that fits the data type's bits".into(),
            },
        });
        all
    }

    /// The rows of the error table in the crate docs: the variant each links to, and the
    /// message it shows.
    fn table() -> Vec<(String, String)> {
        include_str!("lib.rs")
            .lines()
            .filter_map(|line| line.strip_prefix("//! | [`"))
            .filter_map(|row| {
                let target = row.split("](").nth(1)?.split(')').next()?;
                let message = row.split(" | ").nth(1)?;
                Some((target.to_string(), message.to_string()))
            })
            .filter(|(target, _)| target.contains("Error::"))
            .collect()
    }

    #[test]
    fn the_docs_error_table_has_every_variant_with_its_message() {
        let examples = examples();
        let table = table();
        for (name, example) in &examples {
            if cfg!(target_endian = "big") && *name == "Error::NeedsConversion" {
                // The example row is a little-endian machine's.
                continue;
            }
            let row = table.iter().find(|(target, _)| target == name);
            let (_, message) = row.unwrap_or_else(|| panic!("no row for {name}"));
            assert_eq!(message, &example.to_string(), "{name}");
        }
        assert_eq!(table.len(), examples.len(), "{table:?}");
    }

    #[test]
    fn errors_clone_compare_and_travel() {
        fn shareable<T: Clone + PartialEq + Send + Sync + 'static>() {}
        shareable::<Error>();
        for (name, e) in examples() {
            assert_eq!(e.clone(), e, "{name}");
        }
        let io = Error::from(std::io::Error::other("disk gone"));
        let clone = io.clone();
        assert_eq!(io, clone);
        let Error::Io(inner) = &clone else {
            unreachable!()
        };
        assert_eq!(inner.kind(), std::io::ErrorKind::Other);
        let source = std::error::Error::source(&clone).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("disk gone"));
        assert_ne!(io, Error::from(std::io::Error::other("disk full")));
    }
}
