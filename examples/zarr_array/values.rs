//! Every call into `zarr_bytes` the example makes, kept here so the rest of it does not
//! depend on the crate's API: parsing the data type and the `bytes` codec, decoding and
//! encoding with it, transposed views, fill values, and the conversions between a
//! [`DynArray`] and the little-endian records the rest of the example moves around.
//!
//! Records are an `ArrayD<u8>` of the array's shape plus a trailing axis of the element's
//! bytes: chunks and shards are cut and pasted in that form whatever their data type, so
//! only [`show`] looks at the variants of [`DynArray`], for text, bytes and structs.

use ndarray::{ArrayD, ArrayViewD, IxDyn};
use serde_json::Value;
pub use zarr_bytes::{BytesCodec, DataType, DynArray, Endian};

/// Little-endian elements: an array's shape plus a trailing axis of the element's bytes.
pub type Records = ArrayD<u8>;

/// The data type of `zarr.json`'s `data_type`.
pub fn parse_data_type(json: &Value) -> Result<DataType, String> {
    serde_json::from_value(json.clone()).map_err(|e| e.to_string())
}

/// The data type of a shard index: pairs of (offset, length).
pub fn index_data_type() -> DataType {
    DataType::UInt64
}

/// Bytes per element.
pub fn element_size(data_type: &DataType) -> usize {
    data_type.size()
}

/// `data_type` as `zarr.json` writes it.
pub fn data_type_json(data_type: &DataType) -> Result<Value, String> {
    serde_json::to_value(data_type).map_err(|e| e.to_string())
}

pub fn parse_endian(text: &str) -> Result<Endian, String> {
    text.parse().map_err(|e: zarr_bytes::Error| e.to_string())
}

/// A `bytes` codec entry of a codec chain, checked against the data type it encodes (a
/// legacy `structured` type without endian is little-endian).
pub fn parse_bytes_codec(json: &Value, data_type: &DataType) -> Result<BytesCodec, String> {
    let codec: BytesCodec = serde_json::from_value(json.clone()).map_err(|e| e.to_string())?;
    codec.validate(data_type).map_err(|e| e.to_string())?;
    Ok(codec)
}

/// The byte order of a bytes codec, as the summary prints it.
pub fn endian_name(codec: &BytesCodec) -> String {
    codec.endian.map_or("none".into(), |e| e.to_string())
}

/// A codec like `codec` with the byte order `endian` where one applies to `data_type`,
/// and its JSON patched to say so (the rest of the entry is kept as it was).
pub fn with_endian(
    codec: &BytesCodec,
    json: &Value,
    data_type: &DataType,
    endian: Endian,
) -> (BytesCodec, Value) {
    if !data_type.endian_applies() {
        return (*codec, json.clone());
    }
    let mut json = json.clone();
    if !json.is_object() {
        json = serde_json::json!({ "name": "bytes" });
    }
    json["configuration"]["endian"] = Value::from(endian.to_string());
    (BytesCodec::new(endian), json)
}

/// Decode a chunk's bytes with the `bytes` codec.
pub fn decode(
    codec: &BytesCodec,
    bytes: &[u8],
    data_type: &DataType,
    shape: &[usize],
) -> Result<DynArray, String> {
    codec
        .decode_dyn(bytes, data_type, shape)
        .map_err(|e| e.to_string())
}

/// Encode with the `bytes` codec, in the array's logical C order whatever its layout.
pub fn encode(codec: &BytesCodec, array: &DynArray) -> Result<Vec<u8>, String> {
    codec.encode_dyn(array).map_err(|e| e.to_string())
}

/// The `transpose` codec's view: axis `i` of the result is axis `order[i]`; no copy.
pub fn permute(array: DynArray, order: &[usize]) -> Result<DynArray, String> {
    array.permuted_axes(order).map_err(|e| e.to_string())
}

/// One little-endian record of the fill value.
pub fn fill_record(data_type: &DataType, fill_value: &Value) -> Result<Vec<u8>, String> {
    DynArray::full(data_type, &[], fill_value)
        .and_then(|f| BytesCodec::new(Endian::Little).encode_dyn(&f))
        .map_err(|e| e.to_string())
}

/// The array's elements as little-endian records.
pub fn to_records(array: &DynArray) -> Result<Records, String> {
    let bytes = BytesCodec::new(Endian::Little)
        .encode_dyn(array)
        .map_err(|e| e.to_string())?;
    let size = array.data_type().size();
    let shape: Vec<usize> = array.shape().iter().copied().chain([size]).collect();
    ArrayD::from_shape_vec(IxDyn(&shape), bytes).map_err(|e| e.to_string())
}

/// Records back to an array of `data_type`.
pub fn from_records(records: ArrayViewD<'_, u8>, data_type: &DataType) -> Result<DynArray, String> {
    let shape = &records.shape()[..records.ndim().saturating_sub(1)];
    let records = records.as_standard_layout();
    let bytes = records
        .as_slice()
        .ok_or("records in standard layout are contiguous")?;
    BytesCodec::new(Endian::Little)
        .decode_dyn(bytes, data_type, shape)
        .map_err(|e| e.to_string())
}

/// A decoded shard index as its numbers.
pub fn index_values(index: DynArray) -> Result<ArrayD<u64>, String> {
    ArrayD::<u64>::try_from(index).map_err(|e| e.to_string())
}

/// A shard index to encode.
pub fn index_array(index: ArrayD<u64>) -> DynArray {
    DynArray::from(index)
}

/// The values as real numbers, for the types that are real numbers.
pub fn reals(array: &DynArray) -> Option<Vec<f64>> {
    array.to_f64().map(|a| a.iter().copied().collect())
}

/// A small array, printed: numbers and text as ndarray prints them.
pub fn show(array: &DynArray) -> Option<String> {
    fn print<T: std::fmt::Display>(a: ArrayViewD<'_, T>) -> Option<String> {
        Some(a.to_string())
    }
    match array {
        DynArray::FixedLengthUtf32(s) => print(s.values().map(|s| format!("{s:?}")).view()),
        DynArray::NullTerminatedBytes(s) => print(
            s.values()
                .map(|b| format!("{:?}", String::from_utf8_lossy(b)))
                .view(),
        ),
        DynArray::Struct(s) => Some(
            s.fields()
                .map(|(name, field)| {
                    format!("{name}: {}", show(field).unwrap_or_else(|| "…".into()))
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        other => other.to_f64().and_then(|r| print(r.view())),
    }
}
