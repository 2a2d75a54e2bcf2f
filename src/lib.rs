//! The Zarr v3 [`bytes` codec] for [`ndarray`]: arrays of fixed-size elements to bytes in
//! logical C (row-major) order and back, bit-exact with zarr-python and tensorstore.
//!
//! - [`BytesEncode`]: `array.to_zarr_bytes(endian)`, `encode_zarr_bytes_into(&mut out,
//!   endian)` and `write_zarr_bytes(writer, endian)`, for any array or view in any memory
//!   layout.
//! - [`BytesDecode`]: `Array2::<f64>::from_zarr_bytes(&bytes, shape, endian)`, or
//!   `read_zarr_bytes(reader, shape, endian)`; [`BytesDecodeInto`]: decode into an existing
//!   array of any layout.
//! - [`BytesView`] and [`BytesViewMut`]: `ArrayView2::<u16>::view_zarr_bytes(&bytes, shape,
//!   endian)` borrows the bytes when they need no conversion, `CowArray` borrows or decodes,
//!   `ArrayViewMut2::<f32>::view_zarr_bytes_mut(&mut bytes, shape, endian)` edits a chunk in
//!   place.
//! - [`region_byte_ranges`], [`decode_region`] and [`encode_region_into`]: read or write
//!   part of a chunk, touching only its bytes.
//! - [`ChunkGrid`], [`ChunkEncode`], [`ChunkDecode`] and [`ChunkDecodeInto`]: arrays of
//!   many chunks. `array.encode_zarr_chunks_sparse(&grid, fill, endian, sink)` hands each
//!   chunk's bytes to a sink, edge chunks padded with the fill value, and `None` for a chunk
//!   of only the fill value ([`is_zarr_fill`](ChunkEncode::is_zarr_fill), bit for bit), as
//!   Zarr writers leave those out; `Array2::<f32>::from_zarr_chunks(&grid, fill, endian,
//!   source)` reads a whole array, missing chunks as the fill value, each element written
//!   once; `encode_zarr_chunks` and `decode_zarr_chunks_into` hand over every chunk as a
//!   `Vec` and fill an existing array. Each chunk moves once, straight between its bytes
//!   and its region of the array. Subsets of arrays far larger than memory:
//!   `Array2::<f32>::from_zarr_subset(&grid, &[100..300, 50..90], fill, endian, source)`
//!   reads a box of the stored array, asking only for the chunks it touches and reading
//!   only their part's bytes; `x.encode_zarr_subset(&grid, origin, fill, endian, stored,
//!   sink)` writes into one, the chunks it covers in part asked of the store and updated
//!   in place. `encode_zarr_chunk` and `decode_zarr_chunk_into` do one chunk; [`BytesCodec::encode_chunks_sparse_dyn`], [`BytesCodec::decode_chunks_dyn`] and
//!   their kin do it for a [`DynArray`] or a [`DynArrayView`] of one (a region, its axes
//!   permuted, no copy; [`DynArrayViewMut`] to decode into), whose
//!   [`slice_region`](DynArray::slice_region) and [`assign_region`](DynArray::assign_region)
//!   cut and paste regions of any data type.
//! - [`BytesCodec`], [`DataType`] and [`DynArray`]: what `zarr.json` says, and arrays whose
//!   data type is known only at run time, of every data type the Zarr ecosystem writes
//!   through the codec ([`StructArray`], [`FixedLength`], [`RawArray`], [`minifloat`]), with
//!   [`DynArray::full`] for the `fill_value` of a missing chunk and
//!   [`BytesCodec::decode_region_dyn`] for part of one; [`BytesCodec::endian_for`] and
//!   [`BytesCodec::fill_value`] turn `zarr.json`'s terms into the typed calls' arguments.
//! - [`SubsetReader`] and [`SubsetWriter`] (and [`DynSubsetReader`], [`DynSubsetWriter`]):
//!   a subset's chunks, each a [`ChunkPart`], planned by the crate and fetched or stored by
//!   the caller, as object stores want: many requests in flight, in any order, each chunk
//!   decoded into its own part as it arrives. With the `async` feature one call drives them.
//! - [`Element`]: the element types; [`Endian`]: the byte order; [`Error`]: what can go
//!   wrong.
//! - [`prelude`]: every extension trait above, [`Element`], [`Endian`] and [`ChunkGrid`]
//!   in one `use zarr_bytes::prelude::*;`.
//!
//! Every call that encodes or decodes takes the array first (`self`, for a method) where it
//! has one, else the bytes, else what describes them (a grid, data type or shape), and the
//! byte order last, followed only by the number of requests in flight and the closures
//! that fetch or take chunks (`source`, `fetch`, `stored`, `sink`); the one exception is [`encode_region_into`], which takes the chunk's
//! bytes it writes into first and the array fourth. [`BytesCodec`]'s conversions take no
//! byte order: the codec holds it.
//!
//! # Quick start
//!
//! ```
//! use ndarray::{array, Array2};
//! use zarr_bytes::prelude::*;
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
//! # Views and regions
//!
//! ```rust
//! use ndarray::{array, Array2, ArrayView2, ArrayViewMut2, CowArray, Ix2};
//! use zarr_bytes::{decode_region, prelude::*, region_byte_ranges};
//!
//! let chunk = Array2::from_shape_fn((4, 5), |(i, j)| (10 * i + j) as u8);
//! let mut bytes = chunk.to_zarr_bytes(Endian::Little);
//!
//! // Borrow the bytes when they need no conversion; CowArray decodes when it must.
//! let view = ArrayView2::<u8>::view_zarr_bytes(&bytes, (4, 5), Endian::Little).unwrap();
//! assert_eq!(view.as_ptr(), bytes.as_ptr());
//! assert!(CowArray::<u8, Ix2>::view_zarr_bytes(&bytes, (4, 5), Endian::Big).unwrap().is_view());
//!
//! ArrayViewMut2::<u8>::view_zarr_bytes_mut(&mut bytes, (4, 5), Endian::Little).unwrap()[[0, 0]] = 99;
//! // Only the bytes of rows 1..3, columns 2..4: two ranges a store can serve.
//! assert_eq!(region_byte_ranges::<u8>(&[4, 5], &[1..3, 2..4]).unwrap(), [7..9, 12..14]);
//! let part = decode_region::<u8>(&bytes, &[4, 5], &[1..3, 2..4], Endian::Little).unwrap();
//! assert_eq!(part, array![[12u8, 13], [22, 23]].into_dyn());
//! ```
//!
//! # Arrays of many chunks
//!
//! ```rust
//! use std::{collections::HashMap, sync::Mutex};
//! use ndarray::{Array2, ShapeBuilder};
//! use zarr_bytes::{prelude::*, Error};
//!
//! // 5 × 7 in Fortran order, in chunks of 2 × 3: the last row and column of chunks are edges.
//! let mut a = Array2::from_elem((5, 7).f(), f32::NAN);
//! a[[4, 6]] = 46.0;
//! let grid = ChunkGrid::new(a.shape(), &[2, 3]).unwrap();
//! let store = Mutex::new(HashMap::new());
//! // A chunk of only the fill value, bit for bit, is left out (or erased), as Zarr writers do.
//! let put = |index: &[usize], bytes: Option<&[u8]>| {
//!     let mut store = store.lock().unwrap();
//!     let _ = match bytes { Some(b) => store.insert(index.to_vec(), b.to_vec()), None => store.remove(index) };
//!     Ok::<_, Error>(())
//! };
//! let get = |index: &[usize]| Ok::<_, Error>(store.lock().unwrap().get(index).cloned());
//! // Each chunk straight from its region, edge chunks padded with the fill value.
//! a.encode_zarr_chunks_sparse(&grid, f32::NAN, Endian::Little, put).unwrap();
//! assert_eq!(store.lock().unwrap().len(), 1); // chunk [2, 2] alone
//! // The whole array in one call, each element written once: missing chunks are the fill.
//! let b = Array2::<f32>::from_zarr_chunks(&grid, f32::NAN, Endian::Little, get).unwrap();
//! assert!(b[[4, 6]] == 46.0 && b[[0, 0]].is_nan());
//!
//! // Subsets of an array far larger than memory: only the chunks they touch move.
//! store.lock().unwrap().clear();
//! let huge = ChunkGrid::new(&[1 << 40, 1 << 40], &[1000, 1000]).unwrap();
//! let tile = Array2::from_elem((20, 3), 9.0f32);
//! // The chunks it covers in part are read (a copy: the store keeps its own until the new
//! // one is whole), updated in place and handed back owned.
//! let keep = |index: &[usize], bytes: Option<std::borrow::Cow<'_, [u8]>>| {
//!     let mut store = store.lock().unwrap();
//!     let _ = match bytes { Some(b) => store.insert(index.to_vec(), b.into_owned()), None => store.remove(index) };
//!     Ok::<_, Error>(())
//! };
//! tile.encode_zarr_subset(&huge, &[990, 5], f32::NAN, Endian::Little, get, keep).unwrap();
//! let part = Array2::<f32>::from_zarr_subset(&huge, &[985..995, 4..6], f32::NAN, Endian::Little, get);
//! assert!(part.unwrap()[[5, 1]] == 9.0 && store.lock().unwrap().len() == 2);
//! ```
//!
//! With `rayon` the chunks share the pool, the closures called from several threads.
//! `BytesCodec`'s `_dyn` calls do the same for a `DynArray` or a view of one (no copy). Fill
//! values compare by their bits, as in zarrs and tensorstore (zarr-python 3: any NaN).
//!
//! # Reading from an object store
//!
//! A request to S3, GCS or HTTP waits tens of milliseconds, so reads need many in flight. The
//! crate plans and decodes; you fetch, with any client and runtime, and each chunk is decoded
//! into its part of the result as it arrives (`put_part` takes a range read's bytes):
//!
//! ```rust
//! use futures_util::{stream, StreamExt};
//! use ndarray::Array2;
//! use zarr_bytes::{ChunkGrid, Endian, Error, SubsetReader};
//!
//! // object_store: `store.get(&Path::from(key)).await?.bytes().await`.
//! async fn get(key: String) -> Result<Option<Vec<u8>>, Error> { Ok(Some(vec![0; 4 * 256 * 256])) }
//!
//! let grid = ChunkGrid::new(&[1 << 20, 1 << 20], &[256, 256]).unwrap();
//! let mut out = Array2::<f32>::zeros((1000, 700));
//! let reader = SubsetReader::new(out.view_mut(), &grid, &[5000, 300], 0.0, Endian::Little).unwrap();
//! let parts: Vec<_> = reader.parts().collect();
//! let fetches = stream::iter(parts).map(|p| async move {
//!     let key = format!("c/{}/{}", p.index[0], p.index[1]);
//!     Ok::<_, Error>((p.index, get(key).await?))
//! });
//! let mut arrived = fetches.buffer_unordered(64); // 64 requests in flight
//! futures_executor::block_on(async {
//!     while let Some(chunk) = arrived.next().await {
//!         let (index, bytes) = chunk?;
//!         reader.put(&index, bytes.as_deref())?;
//!     }
//!     reader.finish()
//! }).unwrap();
//! ```
//!
//! With the feature `async` that loop is one call, on any executor:
//! `Array2::<f32>::from_zarr_subset_async(&grid, &subset, fill, endian, 64, |index| get(key(index)))`;
//! `encode_zarr_subset_async` writes, asking the store only for the chunks a subset covers in part.
//!
//! # Runtime types, from `zarr.json`
//!
//! ```rust
//! use serde_json::json;
//! use zarr_bytes::{BytesCodec, DataType, DynArray};
//!
//! let codec: BytesCodec = serde_json::from_value(json!({"name": "bytes", "configuration": {"endian": "big"}})).unwrap();
//! let data_type: DataType = serde_json::from_value(json!("uint16")).unwrap();
//! let chunk = codec.decode_dyn(&[0, 1, 0, 2, 0, 3], &data_type, &[3]).unwrap();
//! assert_eq!(codec.encode_dyn(&chunk).unwrap(), [0, 1, 0, 2, 0, 3]);
//!
//! // A missing chunk reads as its fill value.
//! let missing = DynArray::full(&data_type, &[3], &json!(7)).unwrap();
//! assert_eq!(codec.encode_dyn(&missing).unwrap(), [0, 7, 0, 7, 0, 7]);
//! // The transpose codec's reordering, viewed with no copy.
//! let d = DynArray::from(ndarray::array![[1u16, 2], [3, 4]].into_dyn());
//! assert_eq!(codec.encode_dyn(d.view().permuted_axes(&[1, 0]).unwrap()).unwrap(), [0, 1, 0, 3, 0, 2, 0, 4]);
//! ```
//!
//! # Data types
//!
//! Every data type of fixed name, as the one table that defines them makes it, is listed
//! in [`DataType`'s docs](DataType#data-types-of-fixed-name). By kind:
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
//! | `r8`, `r16`, … `r{8N}` | `[u8; N]`; [`RawArray`] in [`DynArray::RawBits`] | N, copied as they are | no |
//! | `int2`, `int4` (extension) | `i8` in [`DynArray::Int2`], [`DynArray::Int4`] | 1: the low bits, sign-extended | no |
//! | `uint2`, `uint4` (extension) | `u8` in [`DynArray::UInt2`], [`DynArray::UInt4`] | 1: the low bits | no |
//! | `float8_*` (extension) | [`minifloat::Float8E4M3FN`] and its kin | 1 | no |
//! | `float6_e2m3fn`, `float6_e3m2fn`, `float4_e2m1fn` (extension) | [`minifloat::Float6E2M3FN`], … | 1: the low bits | no |
//! | `complex_float8_*`, `complex_float6_*`, `complex_float4_e2m1fn` (extension) | `Complex<minifloat::Float8E4M3>` and its kin | 2: real, then imaginary, a code each (the low bits of the 4- and 6-bit kinds) | no |
//! | `numpy.datetime64`, `numpy.timedelta64` (extension) | `i64` in [`DynArray::DateTime64`], … | 8 | yes |
//! | `fixed_length_utf32` (extension) | `String` in [`FixedLength`] | `length_bytes` | yes, per code unit |
//! | `null_terminated_bytes` (extension) | `Vec<u8>` in [`FixedLength`] | `length_bytes` | no |
//! | `raw_bytes` (extension) | [`RawArray`] in [`DynArray::RawBytes`] | `length_bytes` | no |
//! | `struct` (extension; legacy `structured` read, little-endian without `endian`) | [`StructArray`] | the fields', packed | per field |
//!
//! Integers are two's complement, floats IEEE 754; every bit survives a round trip,
//! including NaN payloads, signalling NaNs and -0.0. Sub-byte integers and the 6- and 4-bit
//! minifloats keep their value in the low bits of a byte: decoding ignores the others and
//! encoding writes them as zero. Minifloats mean what ml_dtypes says. Strings and byte
//! strings are padded with zeros, which are not part of the value (numpy's `U` and `S`).
//! [`DynArray::full`] makes the array of a `fill_value`, in every form the spec, the
//! extension registry, zarr-python, tensorstore and zarrs use: `"NaN"` of a minifloat is
//! the code its registry page states (ml_dtypes' NaN), a complex minifloat takes `[re, im]`
//! in its parts' forms, and `float8_e8m0fnu`, which holds no zero, reads 0 as code 0x00, as
//! tensorstore does. A legacy `structured` array whose codec has no `endian` is
//! little-endian, as the registry says; arrays are written as `struct`. A [`DataType`] or
//! [`DynArray`] that exists is valid: raw bits of whole bytes, scale factors in range,
//! strings that fit.
//!
//! # Errors
//!
//! Bad input is an [`Error`], never a panic (see [Panics](#panics)). Lengths and shapes
//! are checked before anything is allocated or written, and `from_zarr_bytes` checks `bool`
//! bytes before it allocates too. Errors are `Clone`, `PartialEq`, `Send` and `Sync`. What
//! `zarr.json` says wrongly is an [`Error::Metadata`] holding a [`MetadataError`]. Every
//! error, as its message reads, and what to do:
//!
//! | variant | message (example) | what to do |
//! |---|---|---|
//! | [`LengthMismatch`](Error::LengthMismatch) | byte length mismatch: the shape needs 24 bytes, got 23 | check shape, data type and the chunk: it is truncated or of another type |
//! | [`BufferSize`](Error::BufferSize) | output buffer has 7 bytes, the array encodes to 8 | size the buffer as `len() * Element::SIZE` |
//! | [`ShapeOverflow`](Error::ShapeOverflow) | shape too large: its size in 8-byte elements exceeds isize::MAX bytes | the shape is corrupt or hostile |
//! | [`InvalidBool`](Error::InvalidBool) | invalid bool byte 0x02 at offset 3: must be 0x00 or 0x01 | the chunk is not `bool` data, or is corrupt |
//! | [`UnexpectedEof`](Error::UnexpectedEof) | reader ended early: the shape needs 32 bytes, received 16 | the stream or file is truncated |
//! | [`Io`](Error::Io) | I/O error | the reader or writer failed: see [`source()`](std::error::Error::source) |
//! | [`NeedsConversion`](Error::NeedsConversion) | big-endian float64 bytes need conversion on this little-endian machine: they cannot be viewed | view as a `CowArray`, or decode |
//! | [`Misaligned`](Error::Misaligned) | bytes misaligned by 1 bytes for 8-byte elements: they cannot be viewed | view as a `CowArray`, or use an aligned buffer |
//! | [`RankMismatch`](Error::RankMismatch) | rank mismatch: expected 2 axes, got 1 | one range per axis; a grid, chunk or array type of the array's rank |
//! | [`RegionOutOfBounds`](Error::RegionOutOfBounds) | region out of bounds: axis 1 ends at 6, past its length 5 | clamp the range to the chunk |
//! | [`ReversedRange`](Error::ReversedRange) | reversed region range on axis 0: start 3 is after end 1 | fix the range |
//! | [`RegionShapeMismatch`](Error::RegionShapeMismatch) | array shape [1, 2] is not the region's shape [1, 1] | pass an array of the region's shape |
//! | [`TooManyRanges`](Error::TooManyRanges) | region needs 1099511627774 byte ranges, more than memory can hold | read the region in parts; the shape may be hostile |
//! | [`TypeMismatch`](Error::TypeMismatch) | data type mismatch: expected int16, found float32 | decode with the array's own element type |
//! | [`FieldShapeMismatch`](Error::FieldShapeMismatch) | struct field "y" has shape [3, 1], not the struct's shape [2, 1] | give every field the struct's shape |
//! | [`NoRecordBytes`](Error::NoRecordBytes) | raw elements of shape [2, 0] have no trailing axis of at least one byte | add the axis of each element's bytes |
//! | [`InvalidAxisOrder`](Error::InvalidAxisOrder) | axis order [0, 0] is not a permutation of the array's 2 axes | name each axis once |
//! | [`InvalidCodeUnit`](Error::InvalidCodeUnit) | invalid UTF-32 code unit 0xd800 at offset 4: not a Unicode scalar value | the chunk is not UTF-32, or is corrupt |
//! | [`OutOfRange`](Error::OutOfRange) | value 9 at index 0 does not fit int4 | keep values in the type's range |
//! | [`TooLong`](Error::TooLong) | element 1 is 4 long, more than {"name":"fixed_length_utf32","configuration":{"length_bytes":12}} holds (3) | shorten it, or use a longer type |
//! | [`ZeroChunkExtent`](Error::ZeroChunkExtent) | chunk shape has an extent of 0 on axis 1 | chunk extents are at least 1 |
//! | [`TooManyChunks`](Error::TooManyChunks) | chunk grid of [1099511627776, 1099511627776] chunks has more chunks than usize can count | use bigger chunks; the shape may be hostile |
//! | [`ChunkIndexOutOfBounds`](Error::ChunkIndexOutOfBounds) | chunk index out of bounds: axis 1 is 4, the grid has 3 chunks along it | index chunks by [`ChunkGrid::indices`] |
//! | [`PartTooLarge`](Error::PartTooLarge) | part larger than its chunk: axis 0 is 5 long, the chunk 4 | pass the chunk's part inside the array ([`ChunkGrid::region`]) |
//! | [`GridShapeMismatch`](Error::GridShapeMismatch) | array shape [10, 9] is not the chunk grid's array shape [10, 10] | make the grid of the array's shape |
//! | [`SubsetOverflow`](Error::SubsetOverflow) | subset overflows usize: axis 0 starts at 18446744073709551615 and is 2 long | the origin is corrupt or hostile |
//! | [`NotInSubset`](Error::NotInSubset) | chunk [0, 3] is not one that the subset touches | put or ask only the chunks of [`SubsetReader::parts`] |
//! | [`PutTwice`](Error::PutTwice) | chunk [1, 2] was put already | put each part once |
//! | [`NotPut`](Error::NotPut) | chunk [1, 0] was never put | put every part before [`SubsetReader::finish`] |
//! | [`ZeroInFlight`](Error::ZeroInFlight) | in_flight is 0: no request could ever start | keep at least one request in flight |
//! | [`InChunk`](Error::InChunk) | chunk [2, 1]: byte length mismatch: the shape needs 800 bytes, got 799 | see the chunk's error; its index names the chunk |
//! | [`InvalidEndian`](MetadataError::InvalidEndian) | invalid endian "native": must be "little" or "big" | fix the codec metadata |
//! | [`EndianRequired`](MetadataError::EndianRequired) | the bytes codec needs an endian for the multi-byte data type float64 | add `"configuration": {"endian": ...}` |
//! | [`UnknownDataType`](MetadataError::UnknownDataType) | unknown data type "float128" | names are lowercase Zarr names; the type may be unsupported |
//! | [`InvalidRawBits`](MetadataError::InvalidRawBits) | invalid raw bits data type "r7": the bits must be a positive multiple of 8 | use `r8`, `r16`, … |
//! | [`InvalidConfiguration`](MetadataError::InvalidConfiguration) | invalid configuration of data type "raw_bytes": missing configuration key "length_bytes" | fix the `data_type` of `zarr.json` |
//! | [`UnknownTimeUnit`](MetadataError::UnknownTimeUnit) | unknown time unit "sec": must be one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic | fix the unit |
//! | [`InvalidScaleFactor`](MetadataError::InvalidScaleFactor) | invalid scale factor 0: must be an integer from 1 to 2147483647 | fix the scale factor |
//! | [`InvalidLengthBytes`](MetadataError::InvalidLengthBytes) | invalid length_bytes 6 of fixed_length_utf32: must be a positive multiple of 4 | fix the length |
//! | [`EmptyStruct`](MetadataError::EmptyStruct) | a struct needs at least one field | give it fields |
//! | [`DuplicateField`](MetadataError::DuplicateField) | struct field "a" appears more than once | rename one |
//! | [`NestingTooDeep`](MetadataError::NestingTooDeep) | structs nested more than 16 levels deep | the metadata is hostile or broken |
//! | [`StructTooLarge`](MetadataError::StructTooLarge) | struct too large: its fields add up to more than isize::MAX bytes | the metadata is hostile or broken |
//! | [`InvalidFillValue`](MetadataError::InvalidFillValue) | invalid fill value 9 for int4: expected an integer that fits the data type's bits | see `expected` |
//!
//! Codec JSON that does not parse is a `serde_json::Error` naming the key or value (an
//! unknown key, an endian other than `"little"`/`"big"`, a name other than `"bytes"`).
//!
//! # Panics
//!
//! Only where a `Vec` itself would: [`BytesEncode::to_zarr_bytes`] panics when the
//! encoded size exceeds `isize::MAX` bytes, which only a broadcast view can claim (the other
//! encoders return [`Error::ShapeOverflow`] for it), and a failed allocation aborts as it
//! does for any `Vec`. Every other call returns an [`Error`] for bad input; the hostile
//! input tests feed every entry point random shapes, bytes and metadata to hold it so.
//!
//! # Memory
//!
//! Decoding into a new array allocates the array and nothing else; converting a standard
//! layout allocates nothing beyond its output. Other layouts move through a scratch buffer
//! of at most 72 KiB when encoding and 108 KiB when decoding (or of one element, if
//! bigger), and parts of bigger arrays whose lanes step through memory (sliced with a step
//! along the axis closest in memory) also through a buffer of at most 256 KiB.
//! `write_zarr_bytes` writes through at most 4 MiB, `read_zarr_bytes` reads through at most
//! 64 KiB. `encode_zarr_chunks` allocates each chunk's `Vec`, which it hands to the sink;
//! `encode_zarr_chunks_sparse` lends each chunk from a buffer the next chunk reuses (one
//! per thread, at most), and makes none for a chunk of the fill value; an edge chunk is
//! padded in place. `from_zarr_chunks` allocates the array alone, zeroed by the system
//! rather than written; decoding an edge chunk whose part is not one run of its bytes
//! gathers the part through a buffer of at most 256 KiB (or of one index of its first axis,
//! if that is more). `from_zarr_subset` allocates the subset's array and such a buffer per
//! thread; `encode_zarr_subset` a chunk's buffer and such a buffer per thread, the chunks
//! it updates being the store's own.
//!
//! # The closures that fetch and store chunks
//!
//! `source`, `stored`, `sink` and `fetch` return the caller's own error type `E`, handed
//! back as it is; the crate's errors reach it through `E: From<Error>`, so
//! [`Error`] itself, `anyhow::Error`, `Box<dyn std::error::Error + Send + Sync>` or an enum
//! of your own with a `From<zarr_bytes::Error>` all work, and [`Error`] converts from
//! `std::io::Error` for a store of files. A closure passed inline needs no annotation; one
//! bound with `let` first needs its argument typed, `|index: &[usize]| ...`, as Rust then
//! infers one lifetime for the reference instead of any, and the call would not accept it.
//! [`SubsetReader`] and [`SubsetWriter`] take no closure at all: the caller fetches and
//! puts, in any order, from any thread or task.
//!
//! # Cargo Features
//!
//! - `rayon` (off by default): conversions of 2 MiB and more are split across the rayon
//!   thread pool when it has more than one thread. The bytes, the elements and the first
//!   invalid `bool` byte reported are the same as on one thread. The chunks of a
//!   [`ChunkGrid`] are shared across the pool, each converted on one thread; the sink and
//!   the source are then called from several threads, in any order.
//! - `async` (off by default; `futures-util` only, no runtime): `from_zarr_subset_async`,
//!   `decode_zarr_subset_into_async`, `encode_zarr_subset_async` and the `_dyn_async`
//!   calls of [`BytesCodec`] keep up to `in_flight` chunk requests pending, as object
//!   stores need, on any executor. The fetching futures and the decoding of each chunk run
//!   on the thread that polls the call's future; with `rayon`, one large chunk's
//!   conversion may still be split across the pool.
//!
//! # Limitations
//!
//! - A codec without `endian` on a `struct` with a multi-byte field is
//!   [`MetadataError::EndianRequired`], as the spec says (only the legacy `structured`
//!   form has a default).
//! - Strings, byte strings and structs are [`DynArray`] variants, not [`Element`]s; a
//!   [`DynArrayView`] of them that is not the whole array in order is copied to be encoded.
//! - The byte stream is always C order; the codec has no Fortran-order option (the v2
//!   `order` setting is the `transpose` codec's business in v3).
//!
//! [`bytes` codec]: https://zarr-specs.readthedocs.io/en/latest/v3/codecs/bytes/index.html
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The data type table first: its macro makes the types of every module below.
#[macro_use]
mod metadata;
mod arch;
mod check;
mod element;
mod endian;
mod error;
pub mod minifloat;
mod parallel;
pub mod prelude;
mod runtime;
mod traverse;
mod typed;

pub use element::Element;
pub use endian::Endian;
pub use error::{Error, IoError, MetadataError};
pub use metadata::{BytesCodec, DataType, ScaleFactor, StructField, StructType, TimeUnit};
pub use runtime::{
    DynArray, DynArrayView, DynArrayViewMut, DynSubsetReader, DynSubsetWriter, FixedLength,
    RawArray, StructArray,
};
pub use typed::{
    BytesDecode, BytesDecodeInto, BytesEncode, BytesView, BytesViewMut, ChunkDecode,
    ChunkDecodeInto, ChunkEncode, ChunkGrid, ChunkPart, SubsetReader, SubsetWriter, decode_region,
    encode_region_into, region_byte_ranges,
};

/// Values that are not valid cannot be built: each of these fails to compile.
///
/// Raw bits of no bytes (bits that are no whole bytes have no spelling at all):
///
/// ```compile_fail
/// let t = zarr_bytes::DataType::RawBits { bytes: 0 };
/// ```
///
/// A scale factor not made by [`ScaleFactor::new`], which refuses 0:
///
/// ```compile_fail
/// let s = zarr_bytes::ScaleFactor(0);
/// ```
///
/// `fixed_length_utf32` of 3 bytes, or strings not checked against their length:
///
/// ```compile_fail
/// let t = zarr_bytes::DataType::FixedLengthUtf32 { length_bytes: 3 };
/// ```
///
/// ```compile_fail
/// use zarr_bytes::{DynArray, FixedLength};
/// let values = ndarray::arr1(&["too long".to_string()]).into_dyn();
/// let d = DynArray::FixedLengthUtf32(FixedLength { values, length: 1 });
/// ```
///
/// Raw elements without their byte axis:
///
/// ```compile_fail
/// let r = zarr_bytes::RawArray { bytes: ndarray::ArrayD::<u8>::zeros(vec![2, 0]) };
/// ```
#[cfg(doctest)]
struct InvalidValues;

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
