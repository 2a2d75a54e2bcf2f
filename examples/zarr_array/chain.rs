//! Codec chains: array-to-array `transpose` codecs, one array-to-bytes codec (`bytes` or
//! `sharding_indexed`), then bytes-to-bytes `zstd`, `gzip` and `crc32c` codecs.
//!
//! Decoding runs the bytes-to-bytes codecs backwards on a chunk's stored bytes, then hands
//! the decompressed bytes to the library, which decodes them straight into the chunk's
//! region of the array; encoding is the reverse. The transposes move nothing: the chunk
//! is stored with its axes permuted, so the array is viewed with its axes permuted the
//! same way (only the strides change), and the stored chunk is a plain region of that view.

use std::borrow::Cow;
use std::fmt;
use std::io::{Read, Write};
use std::ops::Range;
use std::sync::atomic::AtomicUsize;

use ndarray::{ArrayD, IxDyn};
use serde_json::{Map, Value};
use zarr_bytes::{BytesCodec, ChunkGrid, DataType, DynArray, Endian};

use crate::sharding::Sharding;

/// What a codec chain is parsed for: the data type it encodes, the fill value of
/// `zarr.json` (for missing chunks and a shard's empty inner chunks) and the array's rank.
pub struct Scope<'a> {
    pub data_type: &'a DataType,
    pub fill_value: &'a Value,
    pub ndim: usize,
}

/// What reading found. Atomics: with the crate's `rayon` feature the library asks for
/// chunks on several threads at once.
#[derive(Default)]
pub struct Counts {
    /// Chunks (or shards) found in the store.
    pub read: AtomicUsize,
    /// Chunks (or shards) not in the store: the fill value.
    pub missing: AtomicUsize,
    /// Inner chunks stored in the shards read.
    pub inner_read: AtomicUsize,
    /// Inner chunks not stored in the shards read (index entry empty): the fill value.
    pub inner_empty: AtomicUsize,
}

#[derive(Clone)]
pub struct Chain {
    transposes: Vec<Transpose>,
    /// The transposes composed: axis `i` of a stored chunk is axis `order[i]` of the
    /// array; the identity without transposes.
    order: Vec<usize>,
    /// Its inverse: axis `k` of the array is axis `inverse[k]` of a stored chunk.
    inverse: Vec<usize>,
    serializer: Serializer,
    compressors: Vec<Compressor>,
}

/// The `transpose` codec: axis `i` of the encoded array is axis `order[i]` of the decoded one.
#[derive(Clone)]
struct Transpose {
    order: Vec<usize>,
    json: Value,
}

#[derive(Clone)]
enum Serializer {
    Bytes(Box<Bytes>),
    Sharding(Box<Sharding>),
}

/// The `bytes` codec, with the fill value in the forms the chunk calls need.
#[derive(Clone)]
pub struct Bytes {
    pub codec: BytesCodec,
    data_type: DataType,
    json: Value,
    /// The fill value as `zarr.json` gives it, which the library's chunk calls take.
    pub fill_value: Value,
    /// The fill value as a 0-d array: what a missing chunk or an empty inner chunk holds.
    pub fill: DynArray,
    /// The fill value's encoded bytes: a chunk that holds only the fill value encodes to
    /// them over and over.
    fill_bytes: Vec<u8>,
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

/// What a walk over the chunks of a grid can fail with: the library's error (for a chunk
/// it could not decode or encode, [`zarr_bytes::Error::InChunk`] with the chunk's index in
/// the grid walked), or a message of the example's own, which already names its file.
enum Failure {
    Codec(zarr_bytes::Error),
    Message(String),
}

impl From<zarr_bytes::Error> for Failure {
    fn from(e: zarr_bytes::Error) -> Self {
        Failure::Codec(e)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Message(message)
    }
}

impl Failure {
    /// The message, a chunk's error naming the chunk by `name` of its index in the grid.
    fn message(self, name: impl Fn(&[usize]) -> String) -> String {
        match self {
            Failure::Codec(zarr_bytes::Error::InChunk { index, error }) => {
                format!("{}: bytes: {error}", name(&index))
            }
            Failure::Codec(e) => format!("bytes: {e}"),
            Failure::Message(message) => message,
        }
    }
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

/// `items` in the order `order`: item `i` of the result is item `order[i]`. Shapes,
/// regions and chunk indices follow an array's axes this way when they are permuted.
pub fn permute<T: Clone>(items: &[T], order: &[usize]) -> Vec<T> {
    order.iter().map(|&k| items[k].clone()).collect()
}

fn text(e: zarr_bytes::Error) -> String {
    e.to_string()
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
                    let bytes = Bytes::parse(entry, scope).map_err(|e| format!("{name}: {e}"))?;
                    serializer = Some(Serializer::Bytes(Box::new(bytes)));
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
        let order = transposes
            .iter()
            .fold((0..scope.ndim).collect(), |order: Vec<usize>, t| {
                permute(&order, &t.order)
            });
        let mut inverse = vec![0; order.len()];
        for (i, &k) in order.iter().enumerate() {
            inverse[k] = i;
        }
        Ok(Chain {
            transposes,
            order,
            inverse,
            serializer,
            compressors,
        })
    }

    /// The codec list as `zarr.json` holds it.
    pub fn to_json(&self) -> Value {
        let serializer = match &self.serializer {
            Serializer::Bytes(b) => b.json.clone(),
            Serializer::Sharding(s) => s.to_json(),
        };
        let transposes = self.transposes.iter().map(|t| t.json.clone());
        let compressors = self.compressors.iter().map(|c| c.json.clone());
        Value::Array(transposes.chain([serializer]).chain(compressors).collect())
    }

    /// The same chain with the array's `bytes` codecs (inner chunks' too, not a shard
    /// index's) in byte order `endian` where one applies.
    pub fn with_endian(&self, endian: Endian) -> Result<Chain, String> {
        let serializer = match &self.serializer {
            Serializer::Bytes(b) => Serializer::Bytes(Box::new(b.with_endian(endian)?)),
            Serializer::Sharding(s) => Serializer::Sharding(Box::new(s.with_endian(endian)?)),
        };
        Ok(Chain {
            serializer,
            ..self.clone()
        })
    }

    /// The `bytes` codec that encodes the array's elements, inside shards too.
    pub fn elements(&self) -> &Bytes {
        match &self.serializer {
            Serializer::Bytes(b) => b,
            Serializer::Sharding(s) => s.codecs().elements(),
        }
    }

    /// The most bytes an array of `shape` can encode to, saturating: a bound that keeps a
    /// corrupt compressed stream from inflating without end.
    pub fn max_encoded_len(&self, shape: &[usize]) -> usize {
        let len = self
            .serializer
            .max_encoded_len(&permute(shape, &self.order));
        self.compressors
            .iter()
            .fold(len, |len, c| c.kind.max_encoded_len(len))
    }

    /// The length every array of `shape` encodes to, if the chain has no compression.
    pub fn fixed_encoded_len(&self, shape: &[usize]) -> Option<usize> {
        let len = match &self.serializer {
            Serializer::Bytes(_) => self.serializer.max_encoded_len(shape),
            Serializer::Sharding(_) => return None,
        };
        self.compressors
            .iter()
            .try_fold(len, |len, c| match c.kind {
                Kind::Crc32c => len.checked_add(4),
                Kind::Zstd { .. } | Kind::Gzip { .. } => None,
            })
    }

    /// Run the bytes-to-bytes codecs backwards on the stored bytes of a chunk whose
    /// array-to-bytes codec sees `shape` (after the transposes). Without compression the
    /// result borrows from `bytes`: a checksum is checked and cut off, nothing is copied.
    fn decompress<'b>(
        &self,
        bytes: Cow<'b, [u8]>,
        shape: &[usize],
    ) -> Result<Cow<'b, [u8]>, String> {
        // What each bytes-to-bytes codec may decode to at most.
        let mut limits = vec![self.serializer.max_encoded_len(shape)];
        for c in &self.compressors {
            let last = limits[limits.len() - 1];
            limits.push(c.kind.max_encoded_len(last));
        }
        let mut bytes = bytes;
        for (c, limit) in self.compressors.iter().zip(limits).rev() {
            bytes = c.decode(bytes, limit)?;
        }
        Ok(bytes)
    }

    /// Run the bytes-to-bytes codecs forwards.
    fn compress(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
        self.compressors
            .iter()
            .try_fold(bytes, |bytes, c| c.encode(bytes))
    }

    /// The array and its grid with their axes in the stored order: each stored chunk is
    /// then the chunk at the same index of the permuted grid, a region of the permuted
    /// array. No element moves.
    fn stored_order(
        &self,
        array: DynArray,
        grid: &ChunkGrid,
    ) -> Result<(DynArray, ChunkGrid), String> {
        let array = array.permuted_axes(&self.order).map_err(text)?;
        let grid = ChunkGrid::new(
            &permute(grid.array_shape(), &self.order),
            &permute(grid.chunk_shape(), &self.order),
        )
        .map_err(text)?;
        Ok((array, grid))
    }

    /// `work` on `array` viewed with its axes in the stored order, its axes put back after.
    fn in_stored_order<T>(
        &self,
        array: &mut DynArray,
        work: impl FnOnce(&mut DynArray) -> Result<T, String>,
    ) -> Result<T, String> {
        // `permuted_axes` takes the array by value: a 0-d stand-in holds its place meanwhile.
        let stand_in = DynArray::from(ArrayD::<u8>::zeros(IxDyn(&[])));
        let whole = std::mem::replace(array, stand_in);
        let mut stored = whole.permuted_axes(&self.order).map_err(text)?;
        let result = work(&mut stored);
        *array = stored.permuted_axes(&self.inverse).map_err(text)?;
        result
    }

    /// Decode every chunk of `grid` into `array`, whose shape is the grid's, and return
    /// it. `fetch(index)` answers a chunk's stored bytes, or `None` for a missing chunk,
    /// which then holds the fill value; `name(index)` names a chunk in errors.
    pub fn decode_grid<F, N>(
        &self,
        array: DynArray,
        grid: &ChunkGrid,
        fetch: F,
        name: N,
        counts: &Counts,
    ) -> Result<DynArray, String>
    where
        F: Fn(&[usize]) -> Result<Option<Vec<u8>>, String> + Sync,
        N: Fn(&[usize]) -> String + Sync,
    {
        let (mut stored, grid) = self.stored_order(array, grid)?;
        // A chunk's index in the array's grid, from its index in the permuted one.
        let index_of = |at: &[usize]| permute(at, &self.inverse);
        let name_at = |at: &[usize]| name(&index_of(at));
        // A chunk's decompressed bytes: what the array-to-bytes codec decodes.
        let source = |at: &[usize]| -> Result<Option<Cow<'static, [u8]>>, Failure> {
            let Some(bytes) = fetch(&index_of(at))? else {
                return Ok(None);
            };
            let bytes = self
                .decompress(Cow::Owned(bytes), grid.chunk_shape())
                .map_err(|e| format!("{}: {e}", name_at(at)))?;
            Ok(Some(bytes))
        };
        match &self.serializer {
            // The library walks the chunks, on several threads with its `rayon` feature.
            Serializer::Bytes(b) => b
                .codec
                .decode_chunks_into_dyn(&mut stored, &grid, &b.fill_value, source)
                .map_err(|e| e.message(name_at))?,
            // A shard's inner chunks go one by one into their regions of the array.
            Serializer::Sharding(s) => {
                let fill = &self.elements().fill;
                for at in grid.indices() {
                    let region = grid.region(&at).map_err(text)?;
                    match source(&at).map_err(|e| e.message(name_at))? {
                        None => stored.assign_region(&region, fill).map_err(text)?,
                        Some(shard) => s
                            .decode_into(&shard, &mut stored, &region, grid.chunk_shape(), counts)
                            .map_err(|e| format!("{}: {e}", name_at(&at)))?,
                    }
                }
            }
        }
        stored.permuted_axes(&self.inverse).map_err(text)
    }

    /// Encode every chunk of `grid` from `array`, whose shape is the grid's, and hand each
    /// one's stored bytes to `store` with its index. Chunks that hold only the fill value
    /// are not stored, as zarr-python does by default. `name(index)` names a chunk in
    /// errors.
    pub fn encode_grid<S, N>(
        &self,
        array: DynArray,
        grid: &ChunkGrid,
        store: S,
        name: N,
    ) -> Result<(), String>
    where
        S: Fn(&[usize], Vec<u8>) -> Result<(), String> + Sync,
        N: Fn(&[usize]) -> String + Sync,
    {
        let (mut stored, grid) = self.stored_order(array, grid)?;
        let index_of = |at: &[usize]| permute(at, &self.inverse);
        let name_at = |at: &[usize]| name(&index_of(at));
        let sink = |at: &[usize], bytes: Vec<u8>| -> Result<(), Failure> {
            let bytes = self
                .compress(bytes)
                .map_err(|e| format!("{}: {e}", name_at(at)))?;
            Ok(store(&index_of(at), bytes)?)
        };
        match &self.serializer {
            Serializer::Bytes(b) => b
                .codec
                .encode_chunks_dyn(&stored, &grid, &b.fill_value, |at, bytes| {
                    if b.only_fill(&bytes) {
                        return Ok(());
                    }
                    sink(at, bytes)
                })
                .map_err(|e| e.message(name_at)),
            Serializer::Sharding(s) => {
                for at in grid.indices() {
                    let region = grid.region(&at).map_err(text)?;
                    let shard = s
                        .encode_region(&mut stored, &region, grid.chunk_shape())
                        .map_err(|e| format!("{}: {e}", name_at(&at)))?;
                    if let Some(shard) = shard {
                        sink(&at, shard).map_err(|e| e.message(name_at))?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Decode one chunk of `chunk_shape` from its stored `bytes` into its part `region` of
    /// `array` (a shard's inner chunk).
    pub fn decode_into(
        &self,
        bytes: &[u8],
        array: &mut DynArray,
        region: &[Range<usize>],
        chunk_shape: &[usize],
        counts: &Counts,
    ) -> Result<(), String> {
        let chunk_shape = permute(chunk_shape, &self.order);
        let region = permute(region, &self.order);
        let bytes = self.decompress(Cow::Borrowed(bytes), &chunk_shape)?;
        self.in_stored_order(array, |stored| match &self.serializer {
            Serializer::Bytes(b) => b
                .codec
                .decode_chunk_into_dyn(stored, &region, &bytes, &chunk_shape)
                .map_err(|e| format!("bytes: {e}")),
            Serializer::Sharding(s) => s.decode_into(&bytes, stored, &region, &chunk_shape, counts),
        })
    }

    /// Encode the chunk of `chunk_shape` whose part in `array` is `region` (a shard's
    /// inner chunk), padded with the fill value; `None` if it holds only the fill value.
    /// `array` is only viewed with its axes permuted, and put back.
    pub fn encode_region(
        &self,
        array: &mut DynArray,
        region: &[Range<usize>],
        chunk_shape: &[usize],
    ) -> Result<Option<Vec<u8>>, String> {
        let chunk_shape = permute(chunk_shape, &self.order);
        let region = permute(region, &self.order);
        let encoded = self.in_stored_order(array, |stored| match &self.serializer {
            Serializer::Bytes(b) => {
                let bytes = b
                    .codec
                    .encode_chunk_dyn(stored, &region, &chunk_shape, &b.fill_value)
                    .map_err(|e| format!("bytes: {e}"))?;
                Ok((!b.only_fill(&bytes)).then_some(bytes))
            }
            Serializer::Sharding(s) => s.encode_region(stored, &region, &chunk_shape),
        })?;
        encoded.map(|bytes| self.compress(bytes)).transpose()
    }

    /// Decode a shard index of `shape` whole: it is an array of its own, not chunks of
    /// the array. Index chains hold a `bytes` codec (parsing checks they have a fixed
    /// length, which a sharding codec has not).
    pub fn decode_index(&self, bytes: &[u8], shape: &[usize]) -> Result<ArrayD<u64>, String> {
        let Serializer::Bytes(b) = &self.serializer else {
            return Err("an index chain needs a bytes codec".into());
        };
        let encoded = permute(shape, &self.order);
        let bytes = self.decompress(Cow::Borrowed(bytes), &encoded)?;
        let index = b
            .codec
            .decode_dyn(&bytes, &DataType::UInt64, &encoded)
            .and_then(|index| index.permuted_axes(&self.inverse))
            .map_err(|e| format!("bytes: {e}"))?;
        ArrayD::<u64>::try_from(index).map_err(text)
    }

    /// Encode a shard index whole.
    pub fn encode_index(&self, index: ArrayD<u64>) -> Result<Vec<u8>, String> {
        let Serializer::Bytes(b) = &self.serializer else {
            return Err("an index chain needs a bytes codec".into());
        };
        let bytes = DynArray::from(index)
            .permuted_axes(&self.order)
            .and_then(|index| b.codec.encode_dyn(&index))
            .map_err(|e| format!("bytes: {e}"))?;
        self.compress(bytes)
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
            Serializer::Bytes(b) => {
                let endian = b.codec.endian.map_or("none".into(), |e| e.to_string());
                format!("bytes {endian}")
            }
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
        let mut seen = vec![false; ndim];
        let permutation = order.len() == ndim
            && order
                .iter()
                .all(|&k| k < ndim && !std::mem::replace(&mut seen[k], true));
        if !permutation {
            return Err(format!(
                "transpose: order {order:?} is not a permutation of the array's {ndim} axes"
            ));
        }
        Ok(Transpose {
            order,
            json: entry.clone(),
        })
    }
}

impl Bytes {
    /// A `bytes` codec entry, checked against the data type it encodes (a legacy
    /// `structured` type without endian is little-endian).
    fn parse(entry: &Value, scope: &Scope<'_>) -> Result<Bytes, String> {
        let codec: BytesCodec = serde_json::from_value(entry.clone()).map_err(|e| e.to_string())?;
        Bytes::new(codec, entry.clone(), scope.data_type, scope.fill_value)
    }

    fn new(
        codec: BytesCodec,
        json: Value,
        data_type: &DataType,
        fill_value: &Value,
    ) -> Result<Bytes, String> {
        codec.validate(data_type).map_err(text)?;
        let fill = codec
            .full_dyn(data_type, &[], fill_value)
            .map_err(|e| format!("fill value: {e}"))?;
        let fill_bytes = codec.encode_dyn(&fill).map_err(text)?;
        Ok(Bytes {
            codec,
            data_type: data_type.clone(),
            json,
            fill_value: fill_value.clone(),
            fill,
            fill_bytes,
        })
    }

    /// The codec in byte order `endian` where one applies to the data type, its JSON
    /// patched to say so (the rest of the entry is kept as it was).
    fn with_endian(&self, endian: Endian) -> Result<Bytes, String> {
        if !self.data_type.endian_applies() {
            return Ok(self.clone());
        }
        let mut json = self.json.clone();
        if !json.is_object() {
            json = serde_json::json!({ "name": "bytes" });
        }
        json["configuration"]["endian"] = Value::from(endian.to_string());
        Bytes::new(
            BytesCodec::new(endian),
            json,
            &self.data_type,
            &self.fill_value,
        )
    }

    /// Whether a chunk's encoded bytes hold only the fill value.
    fn only_fill(&self, chunk: &[u8]) -> bool {
        let n = self.fill_bytes.len();
        n > 0 && chunk.chunks(n).all(|element| element == self.fill_bytes)
    }
}

impl Serializer {
    fn max_encoded_len(&self, shape: &[usize]) -> usize {
        match self {
            Serializer::Bytes(b) => shape
                .iter()
                .try_fold(b.data_type.size(), |n, &s| n.checked_mul(s))
                .unwrap_or(usize::MAX),
            Serializer::Sharding(s) => s.max_encoded_len(shape),
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

    /// Decode `bytes`, to at most `limit` bytes. A checksum is cut off in place.
    fn decode<'b>(&self, bytes: Cow<'b, [u8]>, limit: usize) -> Result<Cow<'b, [u8]>, String> {
        let mut out = Vec::new();
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        match self.kind {
            Kind::Zstd { .. } => zstd::stream::read::Decoder::with_buffer(&bytes[..])
                .and_then(|d| d.take(cap).read_to_end(&mut out))
                .map_err(|e| format!("zstd: {e}"))?,
            Kind::Gzip { .. } => flate2::read::GzDecoder::new(&bytes[..])
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
                return Ok(match bytes {
                    Cow::Borrowed(bytes) => Cow::Borrowed(&bytes[..split]),
                    Cow::Owned(mut bytes) => {
                        bytes.truncate(split);
                        Cow::Owned(bytes)
                    }
                });
            }
        };
        if out.len() > limit {
            return Err(format!(
                "{}: decodes to more than the {limit} bytes the chunk can hold",
                self.name()
            ));
        }
        Ok(Cow::Owned(out))
    }

    fn encode(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
        let failed = |e: std::io::Error| format!("{}: {e}", self.name());
        match self.kind {
            Kind::Zstd { level, checksum } => {
                let mut compressor = zstd::bulk::Compressor::new(level).map_err(failed)?;
                compressor
                    .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(checksum))
                    .map_err(failed)?;
                compressor.compress(&bytes).map_err(failed)
            }
            Kind::Gzip { level } => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
                encoder.write_all(&bytes).map_err(failed)?;
                encoder.finish().map_err(failed)
            }
            Kind::Crc32c => {
                let checksum = crc32c::crc32c(&bytes);
                let mut out = bytes;
                out.extend_from_slice(&checksum.to_le_bytes());
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
