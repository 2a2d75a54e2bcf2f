//! The codec object of `zarr.json`, and encoding driven by it.

use std::fmt;

use std::ops::Range;

use ndarray::{Array, ArrayBase, Data, Dimension, IntoDimension};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{BytesDecode, DataType, DynArray, Element, Endian, Error, MetadataError};

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

    /// Encode an array whose data type is known only at run time, in any layout.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate) for the array's data type, [`Error::ShapeOverflow`]
    /// for an array larger than `isize::MAX` bytes, and [`Error::OutOfRange`] for a
    /// sub-byte integer that does not fit its bits.
    pub fn encode_dyn(&self, array: &DynArray) -> Result<Vec<u8>, Error> {
        let data_type = array.data_type();
        self.validate(&data_type)?;
        array.encode(self.order_of(&data_type))
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
                    return Err(de::Error::duplicate_field("name or configuration"))
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
