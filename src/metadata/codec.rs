//! The codec object of `zarr.json`, and encoding driven by it.

use std::borrow::Cow;
use std::fmt;

use std::ops::Range;

use ndarray::{Array, ArrayBase, Data, Dimension, IntoDimension};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::runtime::chunks;
use crate::typed::grid::engine::{Before, unstored};
use crate::typed::grid::sink::{Owned, Sparse};
use crate::typed::grid::subset::Subset;
use crate::{
    BytesDecode, ChunkGrid, DataType, DynArray, DynArrayView, DynArrayViewMut, DynSubsetReader,
    DynSubsetWriter, Element, Endian, Error, MetadataError,
};

/// The `bytes` codec as `zarr.json` describes it.
///
/// Serializes canonically as `{"name": "bytes", "configuration": {"endian": "little"}}`, or
/// `{"name": "bytes"}` when `endian` is `None`. Reads that, `{"name": "bytes",
/// "configuration": {}}`, the legacy name `"endian"`, and the short form `"bytes"`; rejects
/// unknown keys, any endian but `"little"` and `"big"`, and any other name.
///
/// # Examples
///
/// ```
/// use zarr_bytes::{BytesCodec, DataType, Endian, Error, MetadataError};
///
/// let codec: BytesCodec = serde_json::from_str(r#"{"name": "bytes", "configuration": {"endian": "big"}}"#).unwrap();
/// assert_eq!(codec, BytesCodec::new(Endian::Big));
/// let short: BytesCodec = serde_json::from_str(r#""bytes""#).unwrap();
/// assert_eq!(short.endian, None);
/// assert!(matches!(
///     short.validate(&DataType::Float64),
///     Err(Error::Metadata(MetadataError::EndianRequired { .. }))
/// ));
/// assert!(short.validate(&DataType::UInt8).is_ok());
/// assert_eq!(serde_json::to_string(&short).unwrap(), r#"{"name":"bytes"}"#);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BytesCodec {
    /// The byte order of multi-byte components; may be absent for single-byte types.
    pub endian: Option<Endian>,
}

impl BytesCodec {
    /// A codec with the given byte order.
    #[must_use]
    pub const fn new(endian: Endian) -> Self {
        BytesCodec {
            endian: Some(endian),
        }
    }

    /// Check that this codec can encode `data_type`.
    ///
    /// A legacy `structured` type needs no endian: without one it is little-endian, as the
    /// extension registry says (zarr-python 3.1 wrote such arrays).
    ///
    /// # Errors
    ///
    /// [`MetadataError::EndianRequired`] for a multi-byte type without an endian. An endian
    /// on a single-byte type or raw bits is accepted and has no effect.
    pub fn validate(&self, data_type: &DataType) -> Result<(), Error> {
        if self.endian.is_none() && data_type.endian_applies() && !data_type.little_by_default() {
            return Err(MetadataError::EndianRequired {
                data_type: data_type.clone(),
            }
            .into());
        }
        Ok(())
    }

    /// The byte order the chunks of `data_type` are in: this codec's `endian`, or where
    /// `zarr.json` may leave it out, the one that applies (any for one-byte types and raw
    /// bits, which are never swapped: the machine's; little for the legacy `structured`
    /// type). What the typed calls take as their `endian`.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    ///
    /// # Examples
    ///
    /// ```
    /// use zarr_bytes::{BytesCodec, DataType, Endian};
    ///
    /// let codec: BytesCodec = serde_json::from_str(r#"{"name": "bytes"}"#).unwrap();
    /// assert!(codec.endian_for(&DataType::UInt8).is_ok());
    /// assert!(codec.endian_for(&DataType::Float32).is_err()); // multi-byte: endian required
    /// let big = BytesCodec::new(Endian::Big);
    /// assert_eq!(big.endian_for(&DataType::Float32)?, Endian::Big);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn endian_for(&self, data_type: &DataType) -> Result<Endian, Error> {
        self.validate(data_type)?;
        Ok(self.order_of(data_type))
    }

    /// The fill value of `zarr.json`'s `fill_value` as one element of type `A`: what the
    /// typed chunk calls take as their `fill`, in any of the forms
    /// [`DynArray::full`](crate::DynArray::full) reads (numbers, `"NaN"`, `"0x7fc00001"`,
    /// `[re, im]`, base64 raw bits, ...).
    ///
    /// # Errors
    ///
    /// As [`full_dyn`](Self::full_dyn) for `A`'s data type.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// assert!(codec.fill_value::<f32>(&json!("NaN"))?.is_nan());
    /// assert_eq!(codec.fill_value::<f64>(&json!("0x3ff0000000000000"))?, 1.0);
    /// assert_eq!(codec.fill_value::<u16>(&json!(7))?, 7);
    /// assert!(codec.fill_value::<u8>(&json!(300)).is_err());
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn fill_value<A: Element>(&self, fill_value: &serde_json::Value) -> Result<A, Error> {
        let one = self.full_dyn(&A::DATA_TYPE, &[], fill_value)?;
        let bytes = one.encode(Endian::NATIVE)?;
        Ok(ndarray::Array0::<A>::from_zarr_bytes(&bytes, (), Endian::NATIVE)?.into_scalar())
    }

    /// The byte order to convert with, once validated (any will do when none applies).
    fn order(&self) -> Endian {
        self.endian.unwrap_or(Endian::NATIVE)
    }

    /// The byte order to convert `data_type` with, once validated.
    fn order_of(&self, data_type: &DataType) -> Endian {
        match self.endian {
            Some(endian) => endian,
            None if data_type.little_by_default() => Endian::Little,
            None => Endian::NATIVE,
        }
    }

    /// Encode a typed array after validating this codec for its data type.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate), and [`Error::ShapeOverflow`] for a broadcast view
    /// larger than `isize::MAX` bytes.
    pub fn encode<A, S, D>(&self, array: &ArrayBase<S, D>) -> Result<Vec<u8>, Error>
    where
        A: Element,
        S: Data<Elem = A>,
        D: Dimension,
    {
        self.validate(&A::DATA_TYPE)?;
        crate::typed::encode::encode_vec(array.view().into_dyn(), self.order())
    }

    /// Decode a typed array after validating this codec for its data type.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`BytesDecode::from_zarr_bytes`].
    pub fn decode<A, Sh>(&self, bytes: &[u8], shape: Sh) -> Result<Array<A, Sh::Dim>, Error>
    where
        A: Element,
        Sh: IntoDimension,
    {
        self.validate(&A::DATA_TYPE)?;
        Array::from_zarr_bytes(bytes, shape, self.order())
    }

    /// Decode an array whose data type is known only at run time.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`BytesDecode::from_zarr_bytes`]; nothing is
    /// allocated before the length and shape checks pass.
    ///
    /// # Examples
    ///
    /// ```
    /// use zarr_bytes::{BytesCodec, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// let d = codec.decode_dyn(&[1, 0, 2, 0, 3, 0], &DataType::Int16, &[3])?;
    /// assert_eq!(d, DynArray::Int16(ndarray::arr1(&[1i16, 2, 3]).into_dyn()));
    /// let raw = codec.decode_dyn(&[1, 2, 3, 4, 5, 6], &"r24".parse()?, &[2])?;
    /// assert_eq!(raw.shape(), &[2]);
    /// assert_eq!(codec.encode_dyn(&raw)?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn decode_dyn(
        &self,
        bytes: &[u8],
        data_type: &DataType,
        shape: &[usize],
    ) -> Result<DynArray, Error> {
        self.validate(data_type)?;
        DynArray::decode(bytes, data_type, shape, self.order_of(data_type))
    }

    /// Encode an array whose data type is known only at run time, in any layout: a
    /// `&DynArray` or a [`DynArrayView`] of one (a region, its axes permuted), read in place
    /// (text, byte strings and structs of a view that is not the whole array in order are
    /// copied first).
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) for the array's data type, [`Error::ShapeOverflow`]
    /// for an array larger than `isize::MAX` bytes, and [`Error::OutOfRange`] for a
    /// sub-byte integer that does not fit its bits.
    pub fn encode_dyn<'a>(&self, array: impl Into<DynArrayView<'a>>) -> Result<Vec<u8>, Error> {
        let array = array.into();
        let data_type = array.data_type();
        self.validate(&data_type)?;
        chunks::encode(&array, self.order_of(&data_type))
    }

    /// The array of `data_type` and `shape` a missing chunk reads as: [`DynArray::full`],
    /// with a struct's `fill_value` given as base64 text of one record (the legacy
    /// `structured` form) read in this codec's byte order, or little-endian when it has
    /// none.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`DynArray::full`].
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, DataType, Endian};
    ///
    /// let t: DataType = serde_json::from_value(json!({"name": "structured",
    ///     "configuration": {"fields": [["a", "int16"]]}})).unwrap();
    /// let big = BytesCodec::new(Endian::Big).full_dyn(&t, &[1], &json!("AAE="))?;
    /// let little = BytesCodec::default().full_dyn(&t, &[1], &json!("AQA="))?;
    /// assert_eq!(big, little); // a = 1 in either
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn full_dyn(
        &self,
        data_type: &DataType,
        shape: &[usize],
        fill_value: &serde_json::Value,
    ) -> Result<DynArray, Error> {
        self.validate(data_type)?;
        let records = self.endian.unwrap_or(Endian::Little);
        DynArray::full_in(data_type, shape, fill_value, records)
    }

    /// Encode the chunk of `chunk_shape` whose part inside `array` is `region` (as
    /// [`ChunkGrid::region`] gives it), edge chunks padded with `fill_value`, the value of
    /// `zarr.json`'s `fill_value`: [`ChunkEncode::encode_zarr_chunk`] for a data type known
    /// only at run time.
    ///
    /// The arrays of an element type (every variant but strings, byte strings and structs)
    /// encode straight from their region; strings, byte strings and structs are cut out and
    /// padded first.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`full_dyn`](Self::full_dyn) for the array's data
    /// type and `fill_value`; [`Error::RankMismatch`], [`Error::ReversedRange`] and
    /// [`Error::RegionOutOfBounds`] for a region that does not fit the array;
    /// [`Error::RankMismatch`] and [`Error::PartTooLarge`] for a region that does not fit the
    /// chunk; [`Error::ShapeOverflow`]; and [`Error::OutOfRange`] for a sub-byte integer that
    /// does not fit its bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let a = DynArray::from(array![[1i16, 2, 3], [4, 5, 6]].into_dyn());
    /// let grid = ChunkGrid::new(a.shape(), &[2, 2])?;
    /// let edge = codec.encode_chunk_dyn(&a, &grid.region(&[0, 1])?, grid.chunk_shape(), &json!(-1))?;
    /// assert_eq!(edge, [0, 3, 0xff, 0xff, 0, 6, 0xff, 0xff]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkGrid::region`]: crate::ChunkGrid::region
    /// [`ChunkEncode::encode_zarr_chunk`]: crate::ChunkEncode::encode_zarr_chunk
    pub fn encode_chunk_dyn<'a>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        region: &[Range<usize>],
        chunk_shape: &[usize],
        fill_value: &serde_json::Value,
    ) -> Result<Vec<u8>, Error> {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        chunks::encode_chunk(&array, region, chunk_shape, &fill, endian)
    }

    /// Decode a whole chunk of `chunk_shape` into its part inside `array`, `region`:
    /// [`ChunkDecodeInto::decode_zarr_chunk_into`] for a data type known only at run time.
    /// Only the bytes of the part are read; offsets in errors are the chunk's.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) for the array's data type, the region errors of
    /// [`encode_chunk_dyn`](Self::encode_chunk_dyn), [`Error::LengthMismatch`] for bytes of
    /// another length than the chunk's, and the invalid bytes [`decode_dyn`](Self::decode_dyn)
    /// finds.
    ///
    /// [`ChunkDecodeInto::decode_zarr_chunk_into`]: crate::ChunkDecodeInto::decode_zarr_chunk_into
    pub fn decode_chunk_into_dyn<'a>(
        &self,
        array: impl Into<DynArrayViewMut<'a>>,
        region: &[Range<usize>],
        bytes: &[u8],
        chunk_shape: &[usize],
    ) -> Result<(), Error> {
        let mut array = array.into();
        let data_type = array.data_type();
        self.validate(&data_type)?;
        let endian = self.order_of(&data_type);
        chunks::decode_chunk_into(&mut array, region, chunk_shape, bytes, endian)
    }

    /// Encode every chunk of `grid`, whose array shape is `array`'s, and hand each to `sink`
    /// with its index, edge chunks padded with `fill_value`: [`ChunkEncode::encode_zarr_chunks`]
    /// for a data type known only at run time, on the thread pool with the `rayon` feature.
    /// Strings, byte strings and structs go chunk by chunk, in C order.
    ///
    /// # Errors
    ///
    /// As [`encode_chunk_dyn`](Self::encode_chunk_dyn), a chunk's as [`Error::InChunk`];
    /// [`Error::GridShapeMismatch`] for a grid of another array shape; and the first error
    /// `sink` returns, as it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// let a = codec.full_dyn(&DataType::Float32, &[3], &json!(1.0))?;
    /// let grid = ChunkGrid::new(&[3], &[2])?;
    /// let chunks = Mutex::new(Vec::new());
    /// codec.encode_chunks_dyn(&a, &grid, &json!("NaN"), |index, bytes| {
    ///     chunks.lock().unwrap().push((index.to_vec(), bytes));
    ///     Ok::<(), zarr_bytes::Error>(())
    /// })?;
    /// let mut chunks = chunks.into_inner().unwrap();
    /// chunks.sort();
    /// assert_eq!(chunks[1], (vec![1], vec![0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f]));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkEncode::encode_zarr_chunks`]: crate::ChunkEncode::encode_zarr_chunks
    pub fn encode_chunks_dyn<'a, E, F>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        grid: &ChunkGrid,
        fill_value: &serde_json::Value,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Vec<u8>) -> Result<(), E> + Sync,
    {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        grid.check_array(array.shape())?;
        let subset = Subset::whole(grid);
        chunks::encode_subset(&array, &subset, &fill, endian, &Owned(&sink), &unstored)
    }

    /// Whether every element of `array` is `fill_value`, the value of `zarr.json`'s
    /// `fill_value`, bit for bit: [`ChunkEncode::is_zarr_fill`] for a data type known only at
    /// run time. Strings and byte strings compare their values without the zeros that pad
    /// them (their bytes), structs each field by its own rule.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`full_dyn`](Self::full_dyn) for the array's data
    /// type and `fill_value`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// let a = DynArray::from(array![[0.0f32, 0.0], [-0.0, 0.0]].into_dyn());
    /// assert!(!codec.is_fill_dyn(&a, &json!(0.0))?);
    /// assert!(codec.is_fill_dyn(a.view().slice_region(&[0..1, 0..2])?, &json!(0.0))?);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkEncode::is_zarr_fill`]: crate::ChunkEncode::is_zarr_fill
    pub fn is_fill_dyn<'a>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        fill_value: &serde_json::Value,
    ) -> Result<bool, Error> {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        chunks::is_fill(&array, &fill, endian)
    }

    /// [`encode_chunks_dyn`](Self::encode_chunks_dyn), leaving out the chunks of only the
    /// fill value as Zarr writers do by default: [`ChunkEncode::encode_zarr_chunks_sparse`]
    /// for a data type known only at run time. `sink` gets each chunk's index with
    /// `Some(bytes)`, lent for the call, or `None` for a chunk whose part inside the array
    /// [`is_fill_dyn`](Self::is_fill_dyn).
    ///
    /// # Errors
    ///
    /// As [`encode_chunks_dyn`](Self::encode_chunks_dyn).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let a = codec.full_dyn(&DataType::Int16, &[5], &json!(-1))?;
    /// let grid = ChunkGrid::new(&[5], &[2])?;
    /// let stored = Mutex::new(Vec::new());
    /// codec.encode_chunks_sparse_dyn(&a, &grid, &json!(-1), |index, bytes| {
    ///     stored.lock().unwrap().push((index.to_vec(), bytes.map(<[u8]>::to_vec)));
    ///     Ok::<(), zarr_bytes::Error>(())
    /// })?;
    /// let mut stored = stored.into_inner().unwrap();
    /// stored.sort();
    /// assert_eq!(stored, [(vec![0], None), (vec![1], None), (vec![2], None)]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkEncode::encode_zarr_chunks_sparse`]: crate::ChunkEncode::encode_zarr_chunks_sparse
    pub fn encode_chunks_sparse_dyn<'a, E, F>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        grid: &ChunkGrid,
        fill_value: &serde_json::Value,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        F: Fn(&[usize], Option<&[u8]>) -> Result<(), E> + Sync,
    {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        grid.check_array(array.shape())?;
        let subset = Subset::whole(grid);
        let lend = |index: &[usize], bytes: Option<Cow<'_, [u8]>>| sink(index, bytes.as_deref());
        let sink = Sparse::new(&lend);
        chunks::encode_subset(&array, &subset, &fill, endian, &sink, &unstored)
    }

    /// The array of `data_type` and `grid`'s array shape, chunk by chunk:
    /// [`ChunkDecode::from_zarr_chunks`] for a data type known only at run time.
    /// `source(index)` answers each chunk's bytes, or `None` for a missing chunk, whose
    /// region then holds `fill_value`.
    ///
    /// The arrays of an element type are allocated zeroed and each element is written
    /// once; strings, byte strings and structs start as the fill value and go chunk by
    /// chunk, in C order.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`full_dyn`](Self::full_dyn) for `data_type` and
    /// `fill_value`, [`Error::ShapeOverflow`] for an array larger than `isize::MAX` bytes
    /// (before anything is allocated), and the errors of
    /// [`decode_chunks_into_dyn`](Self::decode_chunks_into_dyn).
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[3], &[2])?;
    /// let a = codec.decode_chunks_dyn(&DataType::UInt16, &grid, &json!(7), |index| {
    ///     Ok::<_, zarr_bytes::Error>((index == [0]).then_some([0u8, 1, 0, 2]))
    /// })?;
    /// assert_eq!(a, DynArray::from(ndarray::arr1(&[1u16, 2, 7]).into_dyn()));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkDecode::from_zarr_chunks`]: crate::ChunkDecode::from_zarr_chunks
    pub fn decode_chunks_dyn<E, F, B>(
        &self,
        data_type: &DataType,
        grid: &ChunkGrid,
        fill_value: &serde_json::Value,
        source: F,
    ) -> Result<DynArray, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        self.decode_new(data_type, &Subset::whole(grid), fill_value, source)
    }

    /// Fill `array`, whose shape is `grid`'s array shape, chunk by chunk: `source(index)`
    /// answers each chunk's bytes, decoded straight into its region, or `None` for a missing
    /// chunk, whose region then holds `fill_value`: [`ChunkDecodeInto::decode_zarr_chunks_into`]
    /// for a data type known only at run time, on the thread pool with the `rayon` feature.
    /// Strings, byte strings and structs go chunk by chunk, in C order.
    ///
    /// # Errors
    ///
    /// As [`decode_chunk_into_dyn`](Self::decode_chunk_into_dyn), a chunk's as
    /// [`Error::InChunk`]; [`full_dyn`](Self::full_dyn)'s for `fill_value`;
    /// [`Error::GridShapeMismatch`] for a grid of another array shape; and the first error
    /// `source` returns, as it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[3], &[2])?;
    /// let mut a = codec.full_dyn(&DataType::UInt16, &[3], &json!(0))?;
    /// codec.decode_chunks_into_dyn(&mut a, &grid, &json!(7), |index| {
    ///     Ok::<_, zarr_bytes::Error>((index == [0]).then_some([0u8, 1, 0, 2]))
    /// })?;
    /// assert_eq!(a, DynArray::from(ndarray::arr1(&[1u16, 2, 7]).into_dyn()));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkDecodeInto::decode_zarr_chunks_into`]: crate::ChunkDecodeInto::decode_zarr_chunks_into
    pub fn decode_chunks_into_dyn<'a, E, F, B>(
        &self,
        array: impl Into<DynArrayViewMut<'a>>,
        grid: &ChunkGrid,
        fill_value: &serde_json::Value,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        grid.check_array(array.shape())?;
        chunks::decode_subset(
            array,
            &Subset::whole(grid),
            &fill,
            endian,
            &source,
            Before::Anything,
        )
    }

    /// The subset `subset` (one range per axis) of `grid`'s array, of `data_type`, chunk by
    /// chunk: [`ChunkDecode::from_zarr_subset`] for a data type known only at run time.
    /// `source(index)` answers the bytes of each chunk the subset touches, and of no
    /// other, or `None` for a missing chunk, whose part then holds `fill_value`.
    ///
    /// The arrays of an element type are allocated zeroed, each element written once, and
    /// read only the bytes of each chunk's part; strings, byte strings and structs start as
    /// the fill value and go chunk by chunk, in C order, each part decoded on its own.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`full_dyn`](Self::full_dyn) for `data_type` and
    /// `fill_value`; as [`ChunkDecode::from_zarr_subset`] for the subset; and the errors of
    /// [`decode_subset_into_dyn`](Self::decode_subset_into_dyn).
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[1 << 50], &[2])?;
    /// let a = codec.decode_subset_dyn(&DataType::UInt16, &grid, &[3..6], &json!(7), |index| {
    ///     Ok::<_, zarr_bytes::Error>((index == [1]).then_some([0u8, 1, 0, 2]))
    /// })?;
    /// assert_eq!(a, DynArray::from(ndarray::arr1(&[2u16, 7, 7]).into_dyn()));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkDecode::from_zarr_subset`]: crate::ChunkDecode::from_zarr_subset
    pub fn decode_subset_dyn<E, F, B>(
        &self,
        data_type: &DataType,
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill_value: &serde_json::Value,
        source: F,
    ) -> Result<DynArray, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        self.decode_new(data_type, &Subset::of(grid, subset)?, fill_value, source)
    }

    /// Fill `array` from the subset of `grid`'s array that starts at `origin` and has
    /// `array`'s shape: [`ChunkDecodeInto::decode_zarr_subset_into`] for a data type known
    /// only at run time. Strings, byte strings and structs go chunk by chunk, in C order.
    ///
    /// # Errors
    ///
    /// As [`decode_chunks_into_dyn`](Self::decode_chunks_into_dyn), and as
    /// [`ChunkDecodeInto::decode_zarr_subset_into`] for the subset.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// let t: DataType = r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":4}}"#.parse()?;
    /// let grid = ChunkGrid::new(&[4], &[2])?;
    /// let mut a = codec.full_dyn(&t, &[2], &json!(""))?;
    /// codec.decode_subset_into_dyn(&mut a, &grid, &[1], &json!("-"), |index| {
    ///     Ok::<_, zarr_bytes::Error>((index == [0]).then_some([b'a', 0, 0, 0, b'b', 0, 0, 0]))
    /// })?;
    /// assert_eq!(a, codec.decode_dyn(&[b'b', 0, 0, 0, b'-', 0, 0, 0], &t, &[2])?);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkDecodeInto::decode_zarr_subset_into`]: crate::ChunkDecodeInto::decode_zarr_subset_into
    pub fn decode_subset_into_dyn<'a, E, F, B>(
        &self,
        array: impl Into<DynArrayViewMut<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
        source: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        let subset = Subset::at(grid, origin, array.shape())?;
        chunks::decode_subset(array, &subset, &fill, endian, &source, Before::Anything)
    }

    /// Write `array` into the subset of `grid`'s array that starts at `origin` and has
    /// `array`'s shape, and hand each chunk the subset touches to `sink`:
    /// [`ChunkEncode::encode_zarr_subset`] for a data type known only at run time, with
    /// `zarr.json`'s fill value. A chunk the subset holds in part is asked of `stored` and
    /// updated in place; `sink` gets `None` for a chunk whose part inside the array then
    /// [`is_fill_dyn`](Self::is_fill_dyn). Strings, byte strings and structs go chunk by
    /// chunk, in C order, their parts pasted as their bytes.
    ///
    /// # Errors
    ///
    /// As [`encode_chunks_dyn`](Self::encode_chunks_dyn), and as
    /// [`ChunkEncode::encode_zarr_subset`] for the subset and the stored chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use ndarray::array;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[6], &[4])?;
    /// let x = DynArray::from(array![5i16, 6].into_dyn());
    /// let written = Mutex::new(Vec::new());
    /// codec.encode_subset_dyn(&x, &grid, &[3], &json!(-1), |index| {
    ///     // Chunk [0] as stored; chunk [1] was never written.
    ///     Ok::<_, zarr_bytes::Error>((index == [0]).then(|| vec![0, 1, 0, 2, 0, 3, 0, 4]))
    /// }, |index, bytes| {
    ///     written.lock().unwrap().push((index.to_vec(), bytes.map(|b| b.into_owned())));
    ///     Ok(())
    /// })?;
    /// let mut written = written.into_inner().unwrap();
    /// written.sort();
    /// assert_eq!(written[0], (vec![0], Some(vec![0, 1, 0, 2, 0, 3, 0, 5])));
    /// assert_eq!(written[1], (vec![1], Some(vec![0, 6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    ///
    /// [`ChunkEncode::encode_zarr_subset`]: crate::ChunkEncode::encode_zarr_subset
    pub fn encode_subset_dyn<'a, E, R, F>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
        stored: R,
        sink: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        R: Fn(&[usize]) -> Result<Option<Vec<u8>>, E> + Sync,
        F: Fn(&[usize], Option<Cow<'_, [u8]>>) -> Result<(), E> + Sync,
    {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        let subset = Subset::at(grid, origin, array.shape())?;
        chunks::encode_subset(&array, &subset, &fill, endian, &Sparse::new(&sink), &stored)
    }

    /// The array of `subset`, of `data_type`, from its chunks: allocated zeroed where the
    /// data type has elements, else as the fill value.
    fn decode_new<E, F, B>(
        &self,
        data_type: &DataType,
        subset: &Subset<'_>,
        fill_value: &serde_json::Value,
        source: F,
    ) -> Result<DynArray, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
    {
        let (fill, endian) = self.fill_of(data_type, fill_value)?;
        let shape = subset.shape();
        let (mut array, before) = match DynArray::zeroed(data_type, shape)? {
            Some(array) => (array, Before::Zeroed),
            None => (fill.filled(shape), Before::Anything),
        };
        chunks::decode_subset(array.view_mut(), subset, &fill, endian, &source, before)?;
        Ok(array)
    }

    /// The 0-d array of `fill_value` for `data_type`, and the byte order of its chunks.
    fn fill_of(
        &self,
        data_type: &DataType,
        fill_value: &serde_json::Value,
    ) -> Result<(DynArray, Endian), Error> {
        let fill = self.full_dyn(data_type, &[], fill_value)?;
        Ok((fill, self.order_of(data_type)))
    }

    /// Decode just `region` (one range per axis) of a whole chunk of a data type known only
    /// at run time, touching only the bytes of the region.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate), [`region_byte_ranges_dyn`](Self::region_byte_ranges_dyn)
    /// and [`decode_dyn`](Self::decode_dyn) (offsets are the chunk's), and
    /// [`Error::LengthMismatch`] for a chunk of the wrong length.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use zarr_bytes::{BytesCodec, DataType, DynArray, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let chunk = codec.encode_dyn(&DynArray::from(array![[1i16, 2, 3], [4, 5, 6]].into_dyn()))?;
    /// let corner = codec.decode_region_dyn(&chunk, &DataType::Int16, &[2, 3], &[1..2, 1..3])?;
    /// assert_eq!(corner, DynArray::from(array![[5i16, 6]].into_dyn()));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn decode_region_dyn(
        &self,
        bytes: &[u8],
        data_type: &DataType,
        chunk_shape: &[usize],
        region: &[Range<usize>],
    ) -> Result<DynArray, Error> {
        self.validate(data_type)?;
        let endian = self.order_of(data_type);
        crate::typed::region::decode_region_dyn(bytes, data_type, chunk_shape, region, endian)
    }

    /// The byte ranges of a chunk of `data_type` and `chunk_shape` that hold `region`, as
    /// [`region_byte_ranges`](crate::region_byte_ranges) plans them: their bytes, fetched
    /// and concatenated, are what [`decode_dyn`](Self::decode_dyn) reads as the region.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`region_byte_ranges`](crate::region_byte_ranges).
    ///
    /// # Examples
    ///
    /// ```
    /// use zarr_bytes::{BytesCodec, DataType, Endian};
    ///
    /// let codec = BytesCodec::new(Endian::Little);
    /// let t: DataType = r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#.parse()?;
    /// assert_eq!(codec.region_byte_ranges_dyn(&t, &[3, 4], &[1..3, 1..2])?, [40..48, 72..80]);
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn region_byte_ranges_dyn(
        &self,
        data_type: &DataType,
        chunk_shape: &[usize],
        region: &[Range<usize>],
    ) -> Result<Vec<Range<usize>>, Error> {
        self.validate(data_type)?;
        crate::typed::region::byte_ranges(chunk_shape, region, data_type.size())
    }

    /// The reader of the subset of `grid`'s array that starts at `origin` and has
    /// `array`'s shape, into `array`, with `zarr.json`'s fill value: a
    /// [`SubsetReader`](crate::SubsetReader) for a data type known only at run time, which
    /// the caller drives.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) and [`full_dyn`](Self::full_dyn) for the array's
    /// data type and `fill_value`, and as
    /// [`SubsetReader::new`](crate::SubsetReader::new) for the subset.
    ///
    /// # Examples
    ///
    /// [`DynSubsetReader`].
    pub fn subset_reader_dyn<'a>(
        &self,
        array: impl Into<DynArrayViewMut<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
    ) -> Result<DynSubsetReader<'a>, Error> {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        let subset = Subset::at(grid, origin, array.shape())?;
        DynSubsetReader::new(array, &subset, &fill, endian, Before::Anything)
    }

    /// The writer of `array` into the subset of `grid`'s array that starts at `origin` and
    /// has `array`'s shape, with `zarr.json`'s fill value: a
    /// [`SubsetWriter`](crate::SubsetWriter) for a data type known only at run time, which
    /// the caller drives.
    ///
    /// # Errors
    ///
    /// As [`subset_reader_dyn`](Self::subset_reader_dyn).
    ///
    /// # Examples
    ///
    /// [`DynSubsetWriter`].
    pub fn subset_writer_dyn<'a>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
    ) -> Result<DynSubsetWriter<'a>, Error> {
        let array = array.into();
        let (fill, endian) = self.fill_of(&array.data_type(), fill_value)?;
        let subset = Subset::at(grid, origin, array.shape())?;
        DynSubsetWriter::new(array, &subset, &fill, endian)
    }

    /// [`decode_subset_dyn`](Self::decode_subset_dyn) with up to `in_flight` requests
    /// pending at once (feature `async`): as
    /// [`ChunkDecode::from_zarr_subset_async`](crate::ChunkDecode::from_zarr_subset_async),
    /// for a data type known only at run time. `fetch(index)` answers a chunk's bytes, or
    /// `None` for a missing chunk.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroInFlight`] for `in_flight` 0, the errors of
    /// [`decode_subset_dyn`](Self::decode_subset_dyn), and the first error `fetch` returns,
    /// as it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian, Error};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[1 << 50], &[2])?;
    /// let fetch = |index: Vec<usize>| async move {
    ///     Ok::<_, Error>((index == [1]).then_some([0u8, 1, 0, 2]))
    /// };
    /// let a = futures_executor::block_on(
    ///     codec.decode_subset_dyn_async(&DataType::UInt16, &grid, &[3..6], &json!(7), 32, fetch),
    /// )?;
    /// assert_eq!(a, DynArray::from(ndarray::arr1(&[2u16, 7, 7]).into_dyn()));
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[allow(clippy::too_many_arguments)]
    pub async fn decode_subset_dyn_async<E, F, Fut, B>(
        &self,
        data_type: &DataType,
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        fill_value: &serde_json::Value,
        in_flight: usize,
        fetch: F,
    ) -> Result<DynArray, E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: std::future::Future<Output = Result<Option<B>, E>>,
    {
        let subset = Subset::of(grid, subset)?;
        let (fill, endian) = self.fill_of(data_type, fill_value)?;
        let shape = subset.shape();
        let (mut array, before) = match DynArray::zeroed(data_type, shape)? {
            Some(array) => (array, Before::Zeroed),
            None => (fill.filled(shape), Before::Anything),
        };
        let reader = DynSubsetReader::new(array.view_mut(), &subset, &fill, endian, before)?;
        reader.drive(in_flight, fetch).await?;
        Ok(array)
    }

    /// [`decode_subset_into_dyn`](Self::decode_subset_into_dyn) with up to `in_flight`
    /// requests pending at once (feature `async`): as
    /// [`ChunkDecodeInto::decode_zarr_subset_into_async`](crate::ChunkDecodeInto::decode_zarr_subset_into_async),
    /// for a data type known only at run time.
    ///
    /// # Errors
    ///
    /// As [`decode_subset_dyn_async`](Self::decode_subset_dyn_async), and as
    /// [`decode_subset_into_dyn`](Self::decode_subset_into_dyn) for the subset.
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[allow(clippy::too_many_arguments)]
    pub async fn decode_subset_into_dyn_async<'a, E, F, Fut, B>(
        &self,
        array: impl Into<DynArrayViewMut<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
        in_flight: usize,
        fetch: F,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: std::future::Future<Output = Result<Option<B>, E>>,
    {
        let reader = self.subset_reader_dyn(array, grid, origin, fill_value)?;
        reader.drive(in_flight, fetch).await
    }

    /// [`encode_subset_dyn`](Self::encode_subset_dyn) with up to `in_flight` requests
    /// pending at once (feature `async`): as
    /// [`ChunkEncode::encode_zarr_subset_async`](crate::ChunkEncode::encode_zarr_subset_async),
    /// for a data type known only at run time. `sink` gets each chunk's bytes owned, or
    /// `None` for a chunk whose part inside the array then
    /// [`is_fill_dyn`](Self::is_fill_dyn).
    ///
    /// # Errors
    ///
    /// [`Error::ZeroInFlight`] for `in_flight` 0, the errors of
    /// [`subset_writer_dyn`](Self::subset_writer_dyn) and of
    /// [`DynSubsetWriter::update`], and the first error `stored` or `sink` returns, as it
    /// is.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use ndarray::array;
    /// use serde_json::json;
    /// use zarr_bytes::{BytesCodec, ChunkGrid, DynArray, Endian, Error};
    ///
    /// let codec = BytesCodec::new(Endian::Big);
    /// let grid = ChunkGrid::new(&[6], &[4])?;
    /// let x = DynArray::from(array![5i16, 6].into_dyn());
    /// let written = Mutex::new(Vec::new());
    /// futures_executor::block_on(codec.encode_subset_dyn_async(&x, &grid, &[3], &json!(-1), 8,
    ///     |index| async move { Ok::<_, Error>((index == [0]).then(|| vec![0, 1, 0, 2, 0, 3, 0, 4])) },
    ///     |index, bytes| { written.lock().unwrap().push((index, bytes)); async { Ok(()) } }))?;
    /// let mut written = written.into_inner().unwrap();
    /// written.sort();
    /// assert_eq!(written[0], (vec![0], Some(vec![0, 1, 0, 2, 0, 3, 0, 5])));
    /// assert_eq!(written[1], (vec![1], Some(vec![0, 6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])));
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[allow(clippy::too_many_arguments)]
    pub async fn encode_subset_dyn_async<'a, E, R, RF, K, KF>(
        &self,
        array: impl Into<DynArrayView<'a>>,
        grid: &ChunkGrid,
        origin: &[usize],
        fill_value: &serde_json::Value,
        in_flight: usize,
        stored: R,
        sink: K,
    ) -> Result<(), E>
    where
        E: From<Error> + Send,
        R: Fn(Vec<usize>) -> RF,
        RF: std::future::Future<Output = Result<Option<Vec<u8>>, E>>,
        K: Fn(Vec<usize>, Option<Vec<u8>>) -> KF,
        KF: std::future::Future<Output = Result<(), E>>,
    {
        let writer = self.subset_writer_dyn(array, grid, origin, fill_value)?;
        writer.drive(in_flight, stored, sink).await
    }
}

/// The codec names this crate reads; only the first is written.
const NAMES: [&str; 2] = ["bytes", "endian"];

impl Serialize for BytesCodec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", NAMES[0])?;
        if let Some(endian) = self.endian {
            map.serialize_entry(
                "configuration",
                &Configuration {
                    endian: Some(endian),
                },
            )?;
        }
        map.end()
    }
}

/// The `configuration` object: a map whose only key is `endian`.
struct Configuration {
    endian: Option<Endian>,
}

impl Serialize for Configuration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(endian) = self.endian {
            map.serialize_entry("endian", &endian)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Configuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ConfigurationVisitor)
    }
}

struct ConfigurationVisitor;

impl<'de> Visitor<'de> for ConfigurationVisitor {
    type Value = Configuration;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a configuration object such as {"endian": "little"}"#)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Configuration, M::Error> {
        let mut endian = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "endian" if endian.is_none() => endian = Some(map.next_value::<Endian>()?),
                "endian" => return Err(de::Error::duplicate_field("endian")),
                other => return Err(de::Error::unknown_field(other, &["endian"])),
            }
        }
        Ok(Configuration { endian })
    }
}

fn check_name<E: de::Error>(name: &str) -> Result<(), E> {
    if NAMES.contains(&name) {
        Ok(())
    } else {
        Err(E::custom(format_args!(
            "codec name {name:?} is not \"bytes\" (or its old name \"endian\")"
        )))
    }
}

impl<'de> Deserialize<'de> for BytesCodec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CodecVisitor)
    }
}

struct CodecVisitor;

impl<'de> Visitor<'de> for CodecVisitor {
    type Value = BytesCodec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a bytes codec: "bytes" or {"name": "bytes", "configuration": {"endian": "little" | "big"}}"#)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<BytesCodec, E> {
        check_name(name)?;
        Ok(BytesCodec::default())
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<BytesCodec, M::Error> {
        let mut name: Option<String> = None;
        let mut configuration: Option<Configuration> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" if name.is_none() => name = Some(map.next_value()?),
                "configuration" if configuration.is_none() => {
                    configuration = Some(map.next_value()?)
                }
                "name" | "configuration" => {
                    return Err(de::Error::duplicate_field("name or configuration"));
                }
                other => return Err(de::Error::unknown_field(other, &["name", "configuration"])),
            }
        }
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        check_name(&name)?;
        Ok(BytesCodec {
            endian: configuration.and_then(|c| c.endian),
        })
    }
}
