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
//!   data type is known only at run time.
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
//! | `complex64` | `Complex<f32>` | 8: real, then imaginary | yes, per part |
//! | `complex128` | `Complex<f64>` | 16: real, then imaginary | yes, per part |
//! | `r8`, `r16`, … `r{8N}` | `[u8; N]` | N, copied as they are | no |
//!
//! Integers are two's complement, floats IEEE 754; every bit survives a round trip,
//! including NaN payloads, signalling NaNs and -0.0.
//!
//! # Errors
//!
//! Decoding never panics on bad input: a wrong byte length, a shape too large for memory,
//! a `bool` byte other than 0 or 1 and a reader that ends early are each an [`Error`]
//! variant. Lengths and shapes are checked before anything is allocated or written, and
//! `from_zarr_bytes` checks `bool` bytes before it allocates too.
//!
//! # Cargo Features
//!
//! - `rayon` (off by default): conversions of 2 MiB and more are split across the rayon
//!   thread pool: standard layouts in equal parts, encoding of other layouts in windows of
//!   the byte stream, decoding into other layouts in halves of the array's memory. The
//!   bytes and elements are the same as on one thread, and so is the first invalid `bool`
//!   byte reported. On 2 vCPUs, 64 MiB `to_zarr_bytes` and `from_zarr_bytes` run 1.5×
//!   faster (page faults on fresh memory parallelise); a copy between existing buffers is
//!   bound by memory bandwidth and gains little.
//!
//! # Limitations
//!
//! - The byte stream is always C order; the codec has no Fortran-order option (the v2
//!   `order` setting is the `transpose` codec's business in v3).
//! - [`BytesEncode::to_zarr_bytes`] panics only if a broadcast view claims more than
//!   `isize::MAX` bytes; the other encoders return an error for it.
//!
//! [`bytes` codec]: https://zarr-specs.readthedocs.io/en/latest/v3/codecs/bytes/index.html
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod codec;
mod data_type;
mod decode;
mod dyn_array;
mod element;
mod encode;
mod endian;
mod error;
mod layout;
#[cfg(feature = "rayon")]
mod parallel;
mod region;
mod view;

pub use codec::BytesCodec;
pub use data_type::DataType;
pub use decode::{BytesDecode, BytesDecodeInto, READ_BUFFER_SIZE};
pub use dyn_array::DynArray;
pub use element::Element;
pub use encode::{BytesEncode, WRITE_BUFFER_SIZE};
pub use endian::Endian;
pub use error::Error;
pub use region::{decode_region, encode_region_into, region_byte_ranges};
pub use view::{cow_zarr_bytes, view_zarr_bytes};

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
