//! Codec chains: array-to-array `transpose` codecs, one array-to-bytes codec (`bytes` or
//! `sharding_indexed`), then bytes-to-bytes `zstd`, `gzip` and `crc32c` codecs. Encoding
//! runs the chain forwards, decoding backwards.

use std::fmt;
use std::io::{Read, Write};

use serde_json::{Map, Value};

use crate::sharding::Sharding;
use crate::values::{self, BytesCodec, DataType, DynArray, Endian};

/// What a codec chain is parsed for: the data type it encodes, the fill value's record
/// (for a shard's empty inner chunks) and the array's rank.
pub struct Scope<'a> {
    pub data_type: &'a DataType,
    pub fill: &'a [u8],
    pub ndim: usize,
}

/// Counts of a sharded array's inner chunks, over all the shards read.
#[derive(Default)]
pub struct Stats {
    pub inner_read: usize,
    pub inner_empty: usize,
}

#[derive(Clone)]
pub struct Chain {
    transposes: Vec<Transpose>,
    serializer: Serializer,
    compressors: Vec<Compressor>,
}

/// The `transpose` codec: axis `i` of the encoded array is axis `order[i]` of the decoded one.
#[derive(Clone)]
struct Transpose {
    order: Vec<usize>,
    inverse: Vec<usize>,
    json: Value,
}

#[derive(Clone)]
enum Serializer {
    Bytes {
        codec: BytesCodec,
        data_type: DataType,
        json: Value,
    },
    Sharding(Box<Sharding>),
}

#[derive(Clone)]
struct Compressor {
    kind: Kind,
    json: Value,
}

#[derive(Clone, Copy)]
enum Kind {
    Zstd { level: i32, checksum: bool },
    Gzip { level: u32 },
    Crc32c,
}

const KNOWN: &str = "transpose, bytes, sharding_indexed, zstd, gzip and crc32c";

/// The `configuration` object of a codec entry, with no keys but `allowed`.
pub fn configuration(
    entry: &Value,
    name: &str,
    allowed: &[&str],
) -> Result<Map<String, Value>, String> {
    let config = match entry.get("configuration") {
        None => return Ok(Map::new()),
        Some(Value::Object(config)) => config,
        Some(other) => return Err(format!("{name}: configuration {other} is not an object")),
    };
    if let Some(key) = config.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{name}: unknown configuration key {key:?}"));
    }
    Ok(config.clone())
}

impl Chain {
    /// Parse a `codecs` list.
    pub fn parse(codecs: &Value, scope: &Scope<'_>) -> Result<Chain, String> {
        let entries = codecs.as_array().ok_or("not a list of codecs")?;
        let mut transposes = Vec::new();
        let mut serializer = None;
        let mut compressors = Vec::new();
        for entry in entries {
            let name = entry
                .get("name")
                .and_then(Value::as_str)
                .or(entry.as_str())
                .ok_or_else(|| format!("codec {entry} has no name"))?;
            let after = serializer.is_some();
            let misplaced = |kind: &str| {
                let place = if after { "after" } else { "before" };
                format!("{kind} codec {name:?} cannot come {place} the array-to-bytes codec")
            };
            match name {
                "transpose" if serializer.is_none() => {
                    transposes.push(Transpose::parse(entry, scope.ndim)?)
                }
                "transpose" => return Err(misplaced("the array-to-array")),
                "bytes" | "endian" | "sharding_indexed" if serializer.is_some() => {
                    return Err(format!(
                        "a second array-to-bytes codec {name:?}: a chain has exactly one"
                    ))
                }
                "bytes" | "endian" => {
                    let codec = values::parse_bytes_codec(entry, scope.data_type)
                        .map_err(|e| format!("{name}: {e}"))?;
                    serializer = Some(Serializer::Bytes {
                        codec,
                        data_type: scope.data_type.clone(),
                        json: entry.clone(),
                    });
                }
                "sharding_indexed" => {
                    let sharding =
                        Sharding::parse(entry, scope).map_err(|e| format!("{name}: {e}"))?;
                    serializer = Some(Serializer::Sharding(Box::new(sharding)));
                }
                "zstd" | "gzip" | "crc32c" if serializer.is_some() => {
                    compressors.push(Compressor::parse(entry, name)?)
                }
                "zstd" | "gzip" | "crc32c" => return Err(misplaced("the bytes-to-bytes")),
                other => {
                    return Err(format!(
                        "unsupported codec {other:?} (this example knows {KNOWN})"
                    ))
                }
            }
        }
        let serializer = serializer.ok_or("no array-to-bytes codec (bytes or sharding_indexed)")?;
        Ok(Chain {
            transposes,
            serializer,
            compressors,
        })
    }

    /// The codec list as `zarr.json` holds it.
    pub fn to_json(&self) -> Value {
        let serializer = match &self.serializer {
            Serializer::Bytes { json, .. } => json.clone(),
            Serializer::Sharding(s) => s.to_json(),
        };
        let transposes = self.transposes.iter().map(|t| t.json.clone());
        let compressors = self.compressors.iter().map(|c| c.json.clone());
        Value::Array(transposes.chain([serializer]).chain(compressors).collect())
    }

    /// The same chain with the array's `bytes` codecs (inner chunks' too, not a shard
    /// index's) in byte order `endian` where one applies.
    pub fn with_endian(&self, endian: Endian) -> Chain {
        let serializer = match &self.serializer {
            Serializer::Bytes {
                codec,
                data_type,
                json,
            } => {
                let (codec, json) = values::with_endian(codec, json, data_type, endian);
                Serializer::Bytes {
                    codec,
                    data_type: data_type.clone(),
                    json,
                }
            }
            Serializer::Sharding(s) => Serializer::Sharding(Box::new(s.with_endian(endian))),
        };
        Chain {
            serializer,
            ..self.clone()
        }
    }

    /// The shape the array-to-bytes codec sees: `shape` after the transposes.
    fn encoded_shape(&self, shape: &[usize]) -> Vec<usize> {
        self.transposes.iter().fold(shape.to_vec(), |shape, t| {
            t.order.iter().map(|&k| shape[k]).collect()
        })
    }

    /// The most bytes an array of `shape` can encode to, saturating: a bound that keeps a
    /// corrupt compressed stream from inflating without end.
    pub fn max_encoded_len(&self, shape: &[usize]) -> usize {
        let encoded = self.encoded_shape(shape);
        let len = self.serializer.max_encoded_len(&encoded);
        self.compressors
            .iter()
            .fold(len, |len, c| c.kind.max_encoded_len(len))
    }

    /// The length every array of `shape` encodes to, if the chain has no compression.
    pub fn fixed_encoded_len(&self, shape: &[usize]) -> Option<usize> {
        let len = match &self.serializer {
            Serializer::Bytes { .. } => self.serializer.max_encoded_len(shape),
            Serializer::Sharding(_) => return None,
        };
        self.compressors
            .iter()
            .try_fold(len, |len, c| match c.kind {
                Kind::Crc32c => len.checked_add(4),
                Kind::Zstd { .. } | Kind::Gzip { .. } => None,
            })
    }

    /// Decode the encoded bytes of an array of `shape`.
    pub fn decode(
        &self,
        bytes: Vec<u8>,
        shape: &[usize],
        stats: &mut Stats,
    ) -> Result<DynArray, String> {
        let encoded = self.encoded_shape(shape);
        // What each bytes-to-bytes codec may decode to at most.
        let mut limits = vec![self.serializer.max_encoded_len(&encoded)];
        for c in &self.compressors {
            let last = limits[limits.len() - 1];
            limits.push(c.kind.max_encoded_len(last));
        }
        let mut bytes = bytes;
        for (c, limit) in self.compressors.iter().zip(limits).rev() {
            bytes = c.decode(&bytes, limit)?;
        }
        let mut array = self.serializer.decode(&bytes, &encoded, stats)?;
        for t in self.transposes.iter().rev() {
            array = values::permute(array, &t.inverse)?;
        }
        Ok(array)
    }

    /// Encode an array: the transposes hand the next codec a permuted view, not a copy.
    pub fn encode(&self, array: DynArray) -> Result<Vec<u8>, String> {
        let mut array = array;
        for t in &self.transposes {
            array = values::permute(array, &t.order)?;
        }
        let mut bytes = self.serializer.encode(&array)?;
        for c in &self.compressors {
            bytes = c.encode(&bytes)?;
        }
        Ok(bytes)
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .transposes
            .iter()
            .map(|t| format!("transpose {:?}", t.order))
            .collect();
        parts.push(match &self.serializer {
            Serializer::Bytes { codec, .. } => format!("bytes {}", values::endian_name(codec)),
            Serializer::Sharding(s) => s.to_string(),
        });
        parts.extend(self.compressors.iter().map(|c| match c.kind {
            Kind::Zstd { level, checksum } => {
                format!(
                    "zstd level {level}{}",
                    if checksum { " checksum" } else { "" }
                )
            }
            Kind::Gzip { level } => format!("gzip level {level}"),
            Kind::Crc32c => "crc32c".into(),
        }));
        write!(f, "[{}]", parts.join(", "))
    }
}

impl Transpose {
    fn parse(entry: &Value, ndim: usize) -> Result<Transpose, String> {
        let config = configuration(entry, "transpose", &["order"])?;
        let order = config.get("order").ok_or("transpose: no order")?;
        let order: Option<Vec<usize>> = order
            .as_array()
            .into_iter()
            .flatten()
            .map(|k| k.as_u64().and_then(|k| usize::try_from(k).ok()))
            .collect();
        let order = order
            .filter(|o| !o.is_empty() || ndim == 0)
            .ok_or("transpose: order must be a list of axes")?;
        let mut inverse = vec![usize::MAX; ndim];
        for (i, &k) in order.iter().enumerate() {
            match inverse.get_mut(k) {
                Some(slot) if *slot == usize::MAX => *slot = i,
                _ => break,
            }
        }
        if order.len() != ndim || inverse.contains(&usize::MAX) {
            return Err(format!(
                "transpose: order {order:?} is not a permutation of the array's {ndim} axes"
            ));
        }
        Ok(Transpose {
            order,
            inverse,
            json: entry.clone(),
        })
    }
}

impl Serializer {
    fn max_encoded_len(&self, shape: &[usize]) -> usize {
        match self {
            Serializer::Bytes { data_type, .. } => shape
                .iter()
                .try_fold(values::element_size(data_type), |n, &s| n.checked_mul(s))
                .unwrap_or(usize::MAX),
            Serializer::Sharding(s) => s.max_encoded_len(shape),
        }
    }

    fn decode(&self, bytes: &[u8], shape: &[usize], stats: &mut Stats) -> Result<DynArray, String> {
        match self {
            Serializer::Bytes {
                codec, data_type, ..
            } => values::decode(codec, bytes, data_type, shape).map_err(|e| format!("bytes: {e}")),
            Serializer::Sharding(s) => s.decode(bytes, shape, stats),
        }
    }

    fn encode(&self, array: &DynArray) -> Result<Vec<u8>, String> {
        match self {
            Serializer::Bytes { codec, .. } => values::encode(codec, array),
            Serializer::Sharding(s) => s.encode(array),
        }
    }
}

impl Kind {
    /// Compressed data can be a little longer than the input: stored blocks and frame
    /// headers; this bound leaves ample room for both.
    fn max_encoded_len(self, len: usize) -> usize {
        match self {
            Kind::Crc32c => len.saturating_add(4),
            Kind::Zstd { .. } | Kind::Gzip { .. } => {
                len.saturating_add(len / 64).saturating_add(4096)
            }
        }
    }
}

impl Compressor {
    fn parse(entry: &Value, name: &str) -> Result<Compressor, String> {
        let kind = match name {
            "zstd" => {
                let config = configuration(entry, name, &["level", "checksum"])?;
                let level = match config.get("level") {
                    None => 0,
                    Some(v) => v
                        .as_i64()
                        .and_then(|l| i32::try_from(l).ok())
                        .ok_or_else(|| format!("zstd: level {v} is not an integer"))?,
                };
                let checksum = match config.get("checksum") {
                    None => false,
                    Some(v) => v
                        .as_bool()
                        .ok_or_else(|| format!("zstd: checksum {v} is not true or false"))?,
                };
                Kind::Zstd { level, checksum }
            }
            "gzip" => {
                let config = configuration(entry, name, &["level"])?;
                let level = config.get("level").ok_or("gzip: no level")?;
                let level = level
                    .as_u64()
                    .filter(|&l| l <= 9)
                    .ok_or_else(|| format!("gzip: level {level} is not an integer from 0 to 9"))?;
                Kind::Gzip {
                    level: level as u32,
                }
            }
            _ => {
                configuration(entry, name, &[])?;
                Kind::Crc32c
            }
        };
        Ok(Compressor {
            kind,
            json: entry.clone(),
        })
    }

    /// Decode `bytes`, to at most `limit` bytes.
    fn decode(&self, bytes: &[u8], limit: usize) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        match self.kind {
            Kind::Zstd { .. } => zstd::stream::read::Decoder::with_buffer(bytes)
                .and_then(|d| d.take(cap).read_to_end(&mut out))
                .map_err(|e| format!("zstd: {e}"))?,
            Kind::Gzip { .. } => flate2::read::GzDecoder::new(bytes)
                .take(cap)
                .read_to_end(&mut out)
                .map_err(|e| format!("gzip: {e}"))?,
            Kind::Crc32c => {
                let split = bytes.len().checked_sub(4).ok_or_else(|| {
                    format!("crc32c: {} bytes, too few to hold a checksum", bytes.len())
                })?;
                let (data, stored) = bytes.split_at(split);
                let stored = u32::from_le_bytes(stored.try_into().map_err(|_| "crc32c: 4 bytes")?);
                let computed = crc32c::crc32c(data);
                if stored != computed {
                    return Err(format!(
                        "crc32c: checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
                    ));
                }
                return Ok(data.to_vec());
            }
        };
        if out.len() > limit {
            return Err(format!(
                "{}: decodes to more than the {limit} bytes the chunk can hold",
                self.name()
            ));
        }
        Ok(out)
    }

    fn encode(&self, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let failed = |e: std::io::Error| format!("{}: {e}", self.name());
        match self.kind {
            Kind::Zstd { level, checksum } => {
                let mut compressor = zstd::bulk::Compressor::new(level).map_err(failed)?;
                compressor
                    .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(checksum))
                    .map_err(failed)?;
                compressor.compress(bytes).map_err(failed)
            }
            Kind::Gzip { level } => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
                encoder.write_all(bytes).map_err(failed)?;
                encoder.finish().map_err(failed)
            }
            Kind::Crc32c => {
                let mut out = bytes.to_vec();
                out.extend_from_slice(&crc32c::crc32c(bytes).to_le_bytes());
                Ok(out)
            }
        }
    }

    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Zstd { .. } => "zstd",
            Kind::Gzip { .. } => "gzip",
            Kind::Crc32c => "crc32c",
        }
    }
}
