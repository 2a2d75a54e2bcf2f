//! The Zarr v3 [`bytes` codec] for [`ndarray`]: arrays of fixed-size elements to bytes in
//! logical C (row-major) order and back, bit-exact with zarr-python and tensorstore.
//!
//! - [`BytesEncode`]: `array.to_zarr_bytes(endian)`, into a buffer, or to a writer, for any
//!   array or view in any memory layout.
//! - [`BytesDecode`]: `Array::<T, _>::from_zarr_bytes(&bytes, shape, endian)`, or from a
//!   reader.
//! - [`BytesDecodeInto`]: decode into an existing array of any layout.
//! - [`view_zarr_bytes`] and [`cow_zarr_bytes`]: borrow the bytes as an array when they
//!   need no conversion.
//! - [`region_byte_ranges`], [`decode_region`] and [`encode_region_into`]: read or write
//!   part of a chunk, touching only its bytes.
//! - [`BytesCodec`], [`DataType`] and [`DynArray`]: what `zarr.json` says, and arrays whose
//!   data type is known only at run time, of every data type the Zarr ecosystem writes
//!   through the codec ([`StructArray`], [`minifloat`], [`TimeUnit`]), and
//!   [`DynArray::full`] for the `fill_value` of a missing chunk.
//! - [`Element`]: the element types; [`Endian`]: the byte order; [`Error`]: what can go
//!   wrong.
//!
//! # Quick start
//!
//! ```
//! use ndarray::{array, Array2};
//! use zarr_bytes::{BytesDecode, BytesEncode, Endian};
//!
//! let a = array![[1.0f32, 2.0], [3.0, 4.0]];
//! let bytes = a.to_zarr_bytes(Endian::Big);
//! assert_eq!(bytes[..4], [0x3f, 0x80, 0, 0]);
//! let b = Array2::<f32>::from_zarr_bytes(&bytes, (2, 2), Endian::Big)?;
//! assert_eq!(a, b);
//! // Any layout encodes in logical order: the transpose's bytes are the transpose's.
//! assert_eq!(a.t().to_zarr_bytes(Endian::Big)[4..8], [0x40, 0x40, 0, 0]);
//! # Ok::<(), zarr_bytes::Error>(())
//! ```
//!
//! # Data types
//!
//! | Zarr data type | Rust element | bytes per element | endian applies |
//! |---|---|---|---|
//! | `bool` | `bool` | 1 (0x00 or 0x01) | no |
//! | `int8`, `uint8` | `i8`, `u8` | 1 | no |
//! | `int16`, `uint16` | `i16`, `u16` | 2 | yes |
//! | `int32`, `uint32` | `i32`, `u32` | 4 | yes |
//! | `int64`, `uint64` | `i64`, `u64` | 8 | yes |
//! | `float16` | [`half::f16`] | 2 | yes |
//! | `bfloat16` (extension) | [`half::bf16`] | 2 | yes |
//! | `float32`, `float64` | `f32`, `f64` | 4, 8 | yes |
//! | `complex64` (also `complex_float32`) | `Complex<f32>` | 8: real, then imaginary | yes, per part |
//! | `complex128` (also `complex_float64`) | `Complex<f64>` | 16: real, then imaginary | yes, per part |
//! | `complex_float16`, `complex_bfloat16` (extension) | `Complex<f16>`, `Complex<bf16>` | 4: real, then imaginary | yes, per part |
//! | `r8`, `r16`, … `r{8N}` | `[u8; N]` | N, copied as they are | no |
//! | `int2`, `int4` (extension) | `i8` in [`DynArray::Int2`], [`DynArray::Int4`] | 1: the low bits, sign-extended | no |
//! | `uint2`, `uint4` (extension) | `u8` in [`DynArray::UInt2`], [`DynArray::UInt4`] | 1: the low bits | no |
//! | `float8_*` (8 kinds, extension) | [`minifloat::Float8E4M3FN`] and its kin | 1 | no |
//! | `float6_e2m3fn`, `float6_e3m2fn`, `float4_e2m1fn` (extension) | [`minifloat::Float6E2M3FN`], … | 1: the low bits | no |
//! | `numpy.datetime64`, `numpy.timedelta64` (extension) | `i64` in [`DynArray::DateTime64`], … | 8 | yes |
//! | `fixed_length_utf32` (extension) | `String` in [`DynArray::FixedLengthUtf32`] | `length_bytes` | yes, per code unit |
//! | `null_terminated_bytes` (extension) | `Vec<u8>` in [`DynArray::NullTerminatedBytes`] | `length_bytes` | no |
//! | `raw_bytes` (extension) | `u8` with a byte axis in [`DynArray::RawBytes`] | `length_bytes` | no |
//! | `struct` (extension; legacy `structured` read) | [`StructArray`] | the fields', packed | per field |
//!
//! Integers are two's complement, floats IEEE 754; every bit survives a round trip,
//! including NaN payloads, signalling NaNs and -0.0. Sub-byte integers and the 6- and 4-bit
//! minifloats keep their value in the low bits of a byte: decoding ignores the others and
//! encoding writes them as zero. Minifloats mean what ml_dtypes says. Strings and byte
//! strings are padded with zeros, which are not part of the value (numpy's `U` and `S`).
//! [`DynArray::full`] makes the array of a `fill_value`, in every form the spec, the
//! extension registry, zarr-python and tensorstore use.
//!
//! # Errors
//!
//! No input makes the crate panic: bad input is an [`Error`] variant. Lengths and shapes
//! are checked before anything is allocated or written, and `from_zarr_bytes` checks `bool`
//! bytes before it allocates too. Every error, as its message reads, and what to do:
//!
//! | variant | message (example) | what to do |
//! |---|---|---|
//! | [`LengthMismatch`](Error::LengthMismatch) | byte length mismatch: the shape needs 24 bytes, got 23 | check shape, data type and the chunk: it is truncated or of another type |
//! | [`BufferSize`](Error::BufferSize) | output buffer has 7 bytes, the array encodes to 8 | size the buffer as `len() * Element::SIZE` |
//! | [`ShapeOverflow`](Error::ShapeOverflow) | shape too large: its size in 8-byte elements exceeds isize::MAX bytes | the shape is corrupt or hostile |
//! | [`InvalidBool`](Error::InvalidBool) | invalid bool byte 0x02 at offset 3: must be 0x00 or 0x01 | the chunk is not `bool` data, or is corrupt |
//! | [`UnexpectedEof`](Error::UnexpectedEof) | reader ended early: the shape needs 32 bytes, received 16 | the stream or file is truncated |
//! | [`Io`](Error::Io) | failed to read the encoded bytes | see [`source()`](std::error::Error::source) |
//! | [`InvalidEndian`](Error::InvalidEndian) | invalid endian "native": must be "little" or "big" | fix the codec metadata |
//! | [`UnknownDataType`](Error::UnknownDataType) | unknown data type "float128" | names are lowercase Zarr names; the type may be unsupported |
//! | [`InvalidRawBits`](Error::InvalidRawBits) | invalid raw bits data type "r7": the bits must be a positive multiple of 8 | use `r8`, `r16`, … |
//! | [`EndianRequired`](Error::EndianRequired) | the bytes codec needs an endian for the multi-byte data type float64 | add `"configuration": {"endian": ...}` |
//! | [`TypeMismatch`](Error::TypeMismatch) | data type mismatch: expected int16, found float32 | decode with the array's own element type |
//! | [`NeedsConversion`](Error::NeedsConversion) | big-endian float64 bytes need conversion on this little-endian machine: they cannot be viewed | use [`cow_zarr_bytes`] or decode |
//! | [`Misaligned`](Error::Misaligned) | bytes misaligned by 1 bytes for 8-byte elements: they cannot be viewed | use [`cow_zarr_bytes`], or an aligned buffer |
//! | [`RankMismatch`](Error::RankMismatch) | rank mismatch: the chunk has 2 axes, got 1 | one range per axis |
//! | [`RegionOutOfBounds`](Error::RegionOutOfBounds) | region out of bounds: axis 1 ends at 6, past its length 5 | clamp the range to the chunk |
//! | [`ReversedRange`](Error::ReversedRange) | reversed region range on axis 0: start 3 is after end 1 | fix the range |
//! | [`TooManyRanges`](Error::TooManyRanges) | region needs 1099511627774 byte ranges, more than memory can hold | read the region in parts; the shape may be hostile |
//! | [`RegionShapeMismatch`](Error::RegionShapeMismatch) | array shape [1, 2] is not the region's shape [1, 1] | pass an array of the region's shape |
//! | [`InvalidConfiguration`](Error::InvalidConfiguration) | invalid configuration of data type "raw_bytes": missing configuration key "length_bytes" | fix the `data_type` of `zarr.json` |
//! | [`UnknownTimeUnit`](Error::UnknownTimeUnit) | unknown time unit "sec": must be one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic | fix the unit |
//! | [`InvalidScaleFactor`](Error::InvalidScaleFactor) | invalid scale factor 0: must be an integer from 1 to 2147483647 | fix the scale factor |
//! | [`InvalidLengthBytes`](Error::InvalidLengthBytes) | invalid length_bytes 6 of fixed_length_utf32: must be a positive multiple of 4 | fix the length |
//! | [`EmptyStruct`](Error::EmptyStruct) | a struct needs at least one field | give it fields |
//! | [`DuplicateField`](Error::DuplicateField) | struct field "a" appears more than once | rename one |
//! | [`NestingTooDeep`](Error::NestingTooDeep) | structs nested more than 16 levels deep | the metadata is hostile or broken |
//! | [`StructTooLarge`](Error::StructTooLarge) | struct too large: its fields add up to more than isize::MAX bytes | the metadata is hostile or broken |
//! | [`FieldShapeMismatch`](Error::FieldShapeMismatch) | struct field "y" has shape [3, 1], not the struct's shape [2, 1] | give every field the struct's shape |
//! | [`InvalidAxisOrder`](Error::InvalidAxisOrder) | axis order [0, 0] is not a permutation of the array's 2 axes | name each axis once |
//! | [`InvalidCodeUnit`](Error::InvalidCodeUnit) | invalid UTF-32 code unit 0xd800 at offset 4: not a Unicode scalar value | the chunk is not UTF-32, or is corrupt |
//! | [`OutOfRange`](Error::OutOfRange) | value 9 at index 0 does not fit int4 | keep values in the type's range |
//! | [`TooLong`](Error::TooLong) | element 1 is 4 long, more than {"name":"fixed_length_utf32",…} holds (3) | shorten it, or use a longer type |
//! | [`InvalidFillValue`](Error::InvalidFillValue) | invalid fill value 9 for int4: expected an integer that fits the data type's bits | see `expected` |
//!
//! Codec JSON that does not parse is a `serde_json::Error` naming the key or value (an
//! unknown key, an endian other than `"little"`/`"big"`, a name other than `"bytes"`).
//!
//! # Cargo Features
//!
//! - `rayon` (off by default): conversions of 2 MiB and more are split across the rayon
//!   thread pool when it has more than one thread: standard layouts in equal parts,
//!   encoding of other layouts in windows of the byte stream, decoding into other layouts
//!   in parts of the array's memory, four per thread, and parts of bigger arrays that are
//!   no one memory slice (a chunk) in runs of the stream: one 4 MiB block deep for chunks
//!   that move in tiles (of an array in Fortran order), four per thread for chunks of
//!   C-order arrays. The bytes and elements are the same
//!   as on one thread, and so is the first invalid `bool` byte reported. On 2 vCPUs,
//!   64 MiB `to_zarr_bytes` and `from_zarr_bytes` run 1.5× faster (page faults on fresh
//!   memory parallelise); a copy between existing buffers is bound by memory bandwidth
//!   and gains little.
//!
//! # Limitations
//!
//! - A codec without `endian` on a struct with a multi-byte field is
//!   [`Error::EndianRequired`]; zarr-python's legacy `structured` arrays have none and are
//!   little-endian: decode them with `BytesCodec::new(Endian::Little)`.
//! - Strings, byte strings and structs are [`DynArray`] variants, not [`Element`]s.
//! - The byte stream is always C order; the codec has no Fortran-order option (the v2
//!   `order` setting is the `transpose` codec's business in v3).
//! - [`BytesEncode::to_zarr_bytes`] panics only if a broadcast view claims more than
//!   `isize::MAX` bytes; the other encoders return an error for it.
//!
//! [`bytes` codec]: https://zarr-specs.readthedocs.io/en/latest/v3/codecs/bytes/index.html
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[macro_use]
mod data_type;
mod codec;
mod decode;
mod dyn_array;
mod element;
mod encode;
mod endian;
mod error;
mod fill;
mod layout;
pub mod minifloat;
#[cfg(feature = "rayon")]
mod parallel;
mod region;
mod struct_array;
mod text;
mod view;

pub use codec::BytesCodec;
pub use data_type::{DataType, StructField, TimeUnit};
pub use decode::{BytesDecode, BytesDecodeInto, READ_BUFFER_SIZE};
pub use dyn_array::DynArray;
pub use element::Element;
pub use encode::{BytesEncode, TILED_WRITE_BUFFER_SIZE, WRITE_BUFFER_SIZE};
pub use endian::Endian;
pub use error::Error;
pub use region::{decode_region, encode_region_into, region_byte_ranges};
pub use struct_array::StructArray;
pub use view::{cow_zarr_bytes, view_zarr_bytes};

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
