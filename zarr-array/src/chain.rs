//! Codec chains: array-to-array `transpose` codecs, one array-to-bytes codec (`bytes` or
//! `sharding_indexed`), then bytes-to-bytes `zstd`, `gzip` and `crc32c` codecs.
//!
//! Decoding runs the bytes-to-bytes codecs backwards on a chunk's stored bytes, then hands
//! the decompressed bytes to the library, which decodes them straight into the chunk's
//! region of the array; encoding is the reverse. The transposes move nothing: the chunk
//! is stored with its axes permuted, so the array is viewed with its axes permuted the
//! same way (a `DynArrayView` changes only its strides), and the stored chunk is a plain
//! region of that view. A shard is a region of it too, and its inner chunks regions of
//! the shard's: every level of a chain works on a view of the one array.
//!
//! The array's own chunks (or shards) come from a store: `read` and `write` keep up to
//! `in_flight` of them under way at once, through the library's async calls (or, for
//! shards, the same combinators), and run the bytes-to-bytes codecs on the runtime's
//! blocking threads. A shard's inner chunks are in its bytes: `decode_into` and `encode`
//! go through the library's blocking calls, on several threads with its `rayon` feature.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use ndarray::ArrayD;
use serde_json::{Map, Value};
use zarr_bytes::{
    BytesCodec, ChunkGrid, DataType, DynArray, DynArrayView, DynArrayViewMut, Endian,
};

use crate::compress::{Compressor, Decoded, Size};
use crate::sharding::Sharding;
use crate::subset::{box_at, lengths, meet, shift, starts};

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
    /// Bytes the store answered the chunks' gets with.
    pub bytes: AtomicU64,
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
    /// Shared with the blocking threads that run them.
    compressors: Arc<[Compressor]>,
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

/// The `bytes` codec, and the fill value as `zarr.json` gives it, which the library's
/// chunk calls take.
#[derive(Clone)]
pub struct Bytes {
    pub codec: BytesCodec,
    data_type: DataType,
    json: Value,
    pub fill_value: Value,
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

/// Run the bytes-to-bytes codecs `compressors` backwards on `bytes`, each decoding to its
/// size in `sizes` (the array-to-bytes codec's first).
fn backwards<'b>(
    compressors: &[Compressor],
    bytes: Decoded<'b>,
    sizes: &[Size],
) -> Result<Decoded<'b>, String> {
    let mut bytes = bytes;
    for (c, &size) in compressors.iter().zip(sizes).rev() {
        bytes = c.decode(bytes, size)?;
    }
    Ok(bytes)
}

/// Run the bytes-to-bytes codecs `compressors` forwards on `bytes`.
fn forwards<'b>(compressors: &[Compressor], bytes: &'b [u8]) -> Result<Cow<'b, [u8]>, String> {
    compressors
        .iter()
        .try_fold(Cow::Borrowed(bytes), |bytes, c| c.encode(bytes))
}

/// What a chunk's fetch asks the store for: the chunk whole, or the bytes of these ranges
/// of it, one after the other.
pub enum Ask {
    Whole,
    Ranges(Vec<Range<usize>>),
    /// The last bytes, this many: a shard's index at its end.
    Tail(usize),
    /// Ranges of a shard whose index has been read: the same object asked again.
    InShard(Vec<Range<usize>>),
}

/// A shard as read: whole, or its index and the byte ranges of the inner chunks a subset
/// touches (`pieces`, one after the other).
enum Shard<'b> {
    Whole(Decoded<'b>),
    Part {
        index: Vec<u8>,
        ranges: Vec<Range<usize>>,
        pieces: Vec<u8>,
    },
}

/// [`Chain::read`] of chunks stored as they are, with the crate's reader: a chunk the
/// subset covers whole is asked for whole, one it covers in part by the byte ranges of its
/// part, which go straight into their place.
async fn read_ranges<F, Fut>(
    b: &Bytes,
    data_type: &DataType,
    grid: &ChunkGrid,
    subset: &[Range<usize>],
    in_flight: usize,
    fetch: F,
) -> Result<DynArray, Failure>
where
    F: Fn(Vec<usize>, Ask) -> Fut,
    Fut: Future<Output = Result<Option<Vec<u8>>, String>>,
{
    // Every element is written by the reader: the fill value here is never read.
    let mut array = b
        .codec
        .full_dyn(data_type, &lengths(subset), &b.fill_value)?;
    let reader =
        b.codec
            .subset_reader_dyn(array.view_mut(), grid, &starts(subset), &b.fill_value)?;
    {
        let (r, fetch) = (&reader, &fetch);
        let asked = stream::iter(r.parts()).map(|part| async move {
            let ask = match part.whole {
                true => Ask::Whole,
                false => Ask::Ranges(r.byte_ranges(&part.index)?),
            };
            let whole = part.whole;
            Ok::<_, Failure>((part.index.clone(), whole, fetch(part.index, ask).await?))
        });
        let mut arrived = asked.buffer_unordered(in_flight);
        while let Some(chunk) = arrived.next().await {
            match chunk? {
                (index, false, Some(bytes)) => r.put_part(&index, &bytes)?,
                (index, _, bytes) => r.put(&index, bytes.as_deref())?,
            }
        }
    }
    reader.finish()?;
    Ok(array)
}

/// `work` on one of the runtime's blocking threads: decompressing or compressing a chunk is
/// work for a core, which would hold up the requests in flight if done where they are
/// polled.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(out) => out,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Decode `shard`, the bytes (decompressed) of the shard at `at` of `grid`, into its part
/// of `view`, which holds the part of `grid`'s array at `origin`.
fn decode_shard_at(
    sharding: &Sharding,
    view: &mut DynArrayViewMut<'_>,
    origin: &[usize],
    grid: &ChunkGrid,
    at: &[usize],
    shard: &Shard<'_>,
    counts: &Counts,
) -> Result<(), String> {
    let (region, part, within) = shard_part(grid, at, &box_at(origin, view.shape()))?;
    let into = view.slice_region_mut(&shift(&part, origin)).map_err(text)?;
    let (shape, extent) = (grid.chunk_shape(), lengths(&region));
    let (bytes, read) = match shard {
        Shard::Whole(shard) => (&shard[..], None),
        Shard::Part {
            index,
            ranges,
            pieces,
        } => (&index[..], Some((&ranges[..], &pieces[..]))),
    };
    sharding.decode_shard(bytes, read, into, shape, &extent, &within, counts)
}

/// A shard's region of the array, the part of it in a box, and where that part starts in
/// the shard.
type ShardPlace = (Vec<Range<usize>>, Vec<Range<usize>>, Vec<usize>);

/// Where the shard at `at` of `grid` meets the box `wanted`.
fn shard_part(
    grid: &ChunkGrid,
    at: &[usize],
    wanted: &[Range<usize>],
) -> Result<ShardPlace, String> {
    let region = grid.region(at).map_err(text)?;
    let part = meet(&region, wanted);
    let within = starts(&shift(&part, &starts(&region)));
    Ok((region, part, within))
}

/// The part of a view that goes into one shard.
struct ShardPart<'a> {
    /// The shard's region of the grid's array.
    region: Vec<Range<usize>>,
    /// Where the part starts in the shard.
    within: Vec<usize>,
    from: DynArrayView<'a>,
    /// The part is all of the shard's region: the shard is made anew.
    whole: bool,
}

impl<'a> ShardPart<'a> {
    /// The part of `source` in the shard at `at` of `grid`, `source` being the part of
    /// `grid`'s array at `origin`.
    fn new(
        grid: &ChunkGrid,
        at: &[usize],
        source: &DynArrayView<'a>,
        origin: &[usize],
    ) -> Result<Self, String> {
        let region = grid.region(at).map_err(text)?;
        let part = meet(&region, &box_at(origin, source.shape()));
        let from = source.slice_region(&shift(&part, origin)).map_err(text)?;
        let within = starts(&shift(&part, &starts(&region)));
        Ok(ShardPart {
            whole: part == region,
            region,
            within,
            from,
        })
    }

    /// The shard's new bytes, from the part and `old`, the shard as stored (decompressed);
    /// `None` if it holds no inner chunk.
    fn encode(
        self,
        sharding: &Sharding,
        old: Option<&[u8]>,
        shape: &[usize],
        write_empty: bool,
    ) -> Result<Option<Vec<u8>>, String> {
        let extent = lengths(&self.region);
        sharding.encode_shard(old, self.from, shape, &extent, &self.within, write_empty)
    }
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
                    ));
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
                    ));
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
            compressors: compressors.into(),
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

    /// What a chunk of `shape` encodes to, through the whole chain: a bound (saturating)
    /// that keeps a corrupt compressed stream from inflating without end, exact without
    /// compression or sharding.
    pub fn encoded_size(&self, shape: &[usize]) -> Size {
        let size = self.serializer.encoded_size(&permute(shape, &self.order));
        self.compressors
            .iter()
            .fold(size, |size, c| c.encoded_size(size))
    }

    /// The length every array of `shape` encodes to, if the chain has no compression.
    pub fn fixed_encoded_len(&self, shape: &[usize]) -> Option<usize> {
        let size = self.encoded_size(shape);
        size.exact.then_some(size.len)
    }

    /// Run the bytes-to-bytes codecs backwards on the stored bytes of a chunk whose
    /// array-to-bytes codec sees `shape` (after the transposes). Without compression the
    /// result borrows from `bytes`: a checksum is checked and cut off, nothing is copied.
    fn decompress<'b>(&self, bytes: Decoded<'b>, shape: &[usize]) -> Result<Decoded<'b>, String> {
        backwards(&self.compressors, bytes, &self.sizes(shape))
    }

    /// [`decompress`](Self::decompress) on one of the runtime's blocking threads.
    async fn decompress_owned(
        &self,
        bytes: Vec<u8>,
        shape: &[usize],
    ) -> Result<Decoded<'static>, String> {
        if self.compressors.is_empty() {
            return Ok(Decoded::Owned(bytes));
        }
        let (compressors, sizes) = (Arc::clone(&self.compressors), self.sizes(shape));
        blocking(move || backwards(&compressors, Decoded::Owned(bytes), &sizes)).await
    }

    /// What each bytes-to-bytes codec decodes to, for a chunk of `shape` (after the
    /// transposes): the array-to-bytes codec's size first.
    fn sizes(&self, shape: &[usize]) -> Vec<Size> {
        let mut sizes = vec![self.serializer.encoded_size(shape)];
        for c in self.compressors.iter() {
            let last = sizes[sizes.len() - 1];
            sizes.push(c.encoded_size(last));
        }
        sizes
    }

    /// Run the bytes-to-bytes codecs forwards.
    fn compress<'b>(&self, bytes: &'b [u8]) -> Result<Cow<'b, [u8]>, String> {
        forwards(&self.compressors, bytes)
    }

    /// [`compress`](Self::compress) on one of the runtime's blocking threads.
    async fn compress_owned(&self, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
        if self.compressors.is_empty() {
            return Ok(bytes);
        }
        let compressors = Arc::clone(&self.compressors);
        blocking(move || forwards(&compressors, &bytes).map(Cow::into_owned)).await
    }

    /// `grid`, of an array with the axes of the array, with its axes in the stored order:
    /// each stored chunk is the chunk at the same index of it, a region of the array viewed
    /// with its axes permuted by `order`.
    fn stored_grid(&self, grid: &ChunkGrid) -> Result<ChunkGrid, String> {
        ChunkGrid::new(
            &permute(grid.array_shape(), &self.order),
            &permute(grid.chunk_shape(), &self.order),
        )
        .map_err(text)
    }

    /// The stored bytes of the chunk at `at` in the stored-order grid, whose chunks have
    /// `shape`, decompressed: `fetch` answers them by the chunk's index in the array's grid,
    /// and `name` names the chunk by it.
    fn fetch_decompressed<'b>(
        &self,
        at: &[usize],
        shape: &[usize],
        fetch: impl Fn(&[usize]) -> Result<Option<Decoded<'b>>, String>,
        name: impl Fn(&[usize]) -> String,
    ) -> Result<Option<Decoded<'b>>, Failure> {
        let index = permute(at, &self.inverse);
        let Some(bytes) = fetch(&index)? else {
            return Ok(None);
        };
        let bytes = self
            .decompress(bytes, shape)
            .map_err(|e| format!("{}: {e}", name(&index)))?;
        Ok(Some(bytes))
    }

    /// [`fetch_decompressed`](Self::fetch_decompressed) from a store: `fetch` answers a
    /// chunk's stored bytes by its index in the array's grid, and they are decompressed on
    /// one of the runtime's blocking threads.
    async fn fetched<F, Fut, N>(
        &self,
        at: &[usize],
        shape: &[usize],
        fetch: &F,
        name: &N,
    ) -> Result<Option<Decoded<'static>>, Failure>
    where
        F: Fn(Vec<usize>) -> Fut,
        Fut: Future<Output = Result<Option<Vec<u8>>, String>>,
        N: Fn(&[usize]) -> String,
    {
        let index = permute(at, &self.inverse);
        let Some(bytes) = fetch(index.clone()).await? else {
            return Ok(None);
        };
        let bytes = self.decompress_owned(bytes, shape).await;
        Ok(Some(bytes.map_err(|e| format!("{}: {e}", name(&index)))?))
    }

    /// The part `subset` (one range per axis) of the array of `data_type` and `grid`'s
    /// shape, each chunk it touches decoded into its place: `fetch(index, ask)` answers a
    /// chunk's stored bytes (those of the byte ranges `ask` names, one after the other), or
    /// `None` for a missing chunk, whose part then holds the fill value, with up to
    /// `in_flight` fetches under way at once; `name(index)` names a chunk in errors. No
    /// other chunk is asked for; the whole array is the subset of all of it.
    ///
    /// Without sharding the library allocates the array and puts each chunk in as it
    /// arrives; stored as they are (no bytes-to-bytes codec), the chunks a subset covers
    /// in part are asked for by the byte ranges of their part alone. With sharding the
    /// array starts as the fill value and each shard, as it arrives, decodes its inner
    /// chunks into its part of it; a shard the subset covers in part, stored as it is, is
    /// asked for its index, then for the byte ranges of the inner chunks the subset touches.
    // The chunks' source and names are two closures, beside the read's terms.
    #[allow(clippy::too_many_arguments)]
    pub async fn read<F, Fut, N>(
        &self,
        data_type: &DataType,
        grid: &ChunkGrid,
        subset: &[Range<usize>],
        in_flight: usize,
        fetch: F,
        name: N,
        counts: &Counts,
    ) -> Result<DynArray, String>
    where
        F: Fn(Vec<usize>, Ask) -> Fut,
        Fut: Future<Output = Result<Option<Vec<u8>>, String>>,
        N: Fn(&[usize]) -> String,
    {
        let grid = self.stored_grid(grid)?;
        let shape = grid.chunk_shape();
        let name_at = |at: &[usize]| name(&permute(at, &self.inverse));
        let whole = |index: Vec<usize>| fetch(index, Ask::Whole);
        let (whole, name) = (&whole, &name);
        let source = |at: Vec<usize>| async move { self.fetched(&at, shape, whole, name).await };
        let subset = permute(subset, &self.order);
        let array = match &self.serializer {
            Serializer::Bytes(b) if self.compressors.is_empty() => {
                let at = |index: &[usize]| permute(index, &self.inverse);
                read_ranges(b, data_type, &grid, &subset, in_flight, |i, ask| {
                    fetch(at(&i), ask)
                })
                .await
                .map_err(|e| e.message(name_at))?
            }
            Serializer::Bytes(b) => b
                .codec
                .decode_subset_dyn_async(
                    data_type,
                    &grid,
                    &subset,
                    &b.fill_value,
                    in_flight,
                    source,
                )
                .await
                .map_err(|e| e.message(name_at))?,
            Serializer::Sharding(s) => {
                let b = self.elements();
                let mut array = b
                    .codec
                    .full_dyn(data_type, &lengths(&subset), &b.fill_value)
                    .map_err(text)?;
                let mut view = array.view_mut();
                let origin = starts(&subset);
                let (grid, subset, fetch) = (&grid, &subset, &fetch);
                // A shard the subset covers in part, stored as it is: its index, then the
                // inner chunks the subset touches, by byte range.
                let read = |at: Vec<usize>| async move {
                    let (region, part, within) = shard_part(grid, &at, subset)?;
                    if part == region || !self.compressors.is_empty() {
                        let shard = self.fetched(&at, shape, whole, name).await?;
                        return Ok::<_, Failure>(shard.map(Shard::Whole));
                    }
                    let index = permute(&at, &self.inverse);
                    let index_len = s.index_len(shape)?;
                    let ask = match s.index_at_start() {
                        true => Ask::Ranges(std::iter::once(0..index_len).collect()),
                        false => Ask::Tail(index_len),
                    };
                    let Some(stored) = fetch(index.clone(), ask).await? else {
                        return Ok(None);
                    };
                    let ranges = s.ranges_of(&stored, shape, &within, &lengths(&part));
                    let ranges = ranges.map_err(|e| format!("{}: {e}", name(&index)))?;
                    let pieces = match ranges.is_empty() {
                        true => Vec::new(),
                        false => fetch(index.clone(), Ask::InShard(ranges.clone()))
                            .await?
                            .ok_or_else(|| format!("{}: gone while read", name(&index)))?,
                    };
                    Ok(Some(Shard::Part {
                        index: stored,
                        ranges,
                        pieces,
                    }))
                };
                let mut arrived = stream::iter(grid.chunks_in(subset).map_err(text)?)
                    .map(|at| async move { (read(at.clone()).await, at) })
                    .buffer_unordered(in_flight);
                while let Some((shard, at)) = arrived.next().await {
                    if let Some(shard) = shard.map_err(|e| e.message(name_at))? {
                        decode_shard_at(s, &mut view, &origin, grid, &at, &shard, counts)
                            .map_err(|e| format!("{}: {e}", name_at(&at)))?;
                    }
                }
                array
            }
        };
        array.permuted_axes(&self.inverse).map_err(text)
    }

    /// Decode the part of `grid`'s array (in the axes of the array `view` is part of) that
    /// starts at `origin` and has `view`'s shape into `view`, from the chunks it touches.
    /// `fetch(index)` answers a chunk's stored bytes, or `None` for a chunk not stored: its
    /// part holds the fill value (the view starts as it), which the `bytes` codec writes
    /// again and a shard leaves as it is.
    pub fn decode_into<'b, F, N>(
        &self,
        view: DynArrayViewMut<'_>,
        grid: &ChunkGrid,
        origin: &[usize],
        fetch: F,
        name: N,
        counts: &Counts,
    ) -> Result<(), String>
    where
        F: Fn(&[usize]) -> Result<Option<Decoded<'b>>, String> + Sync,
        N: Fn(&[usize]) -> String + Sync,
    {
        let mut stored = view.permuted_axes(&self.order).map_err(text)?;
        let grid = self.stored_grid(grid)?;
        let origin = permute(origin, &self.order);
        let shape = grid.chunk_shape();
        let name_at = |at: &[usize]| name(&permute(at, &self.inverse));
        let source = |at: &[usize]| self.fetch_decompressed(at, shape, &fetch, &name);
        match &self.serializer {
            // The library walks the chunks, on several threads with its `rayon` feature.
            Serializer::Bytes(b) => b
                .codec
                .decode_subset_into_dyn(stored, &grid, &origin, &b.fill_value, source)
                .map_err(|e| e.message(name_at)),
            // Shards one after another, each into its part of the view: the part of its
            // inner grid that the view holds.
            Serializer::Sharding(s) => {
                let wanted = box_at(&origin, stored.shape());
                for at in grid.chunks_in(&wanted).map_err(text)? {
                    if let Some(shard) = source(&at).map_err(|e| e.message(name_at))? {
                        let shard = Shard::Whole(shard);
                        decode_shard_at(s, &mut stored, &origin, &grid, &at, &shard, counts)
                            .map_err(|e| format!("{}: {e}", name_at(&at)))?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Encode `view` into the part of `grid`'s array (in the axes of the array `view` is
    /// part of) that starts at `origin` and has `view`'s shape, and hand the stored bytes of
    /// each chunk it touches to `sink` with its index; no other chunk is asked for or
    /// handed over. A chunk the view covers in part is asked of `stored` (its stored bytes,
    /// or `None` for a chunk not stored, which starts as the fill value) and updated. A
    /// chunk that then holds only the fill value gets `None`, as zarr-python leaves it out
    /// by default, unless `write_empty` (its `write_empty_chunks=True`). `name(index)` names
    /// a chunk in errors. The whole array is the part of all of it, at the origin, which
    /// asks `stored` for nothing.
    // The chunks' two ends (asked for, handed over) and their names are three closures.
    #[allow(clippy::too_many_arguments)]
    pub fn encode<'b, R, S, N>(
        &self,
        view: DynArrayView<'_>,
        grid: &ChunkGrid,
        origin: &[usize],
        write_empty: bool,
        stored: R,
        sink: S,
        name: N,
    ) -> Result<(), String>
    where
        R: Fn(&[usize]) -> Result<Option<Decoded<'b>>, String> + Sync,
        S: Fn(&[usize], Option<Cow<'_, [u8]>>) -> Result<(), String> + Sync,
        N: Fn(&[usize]) -> String + Sync,
    {
        let source = view.permuted_axes(&self.order).map_err(text)?;
        let grid = self.stored_grid(grid)?;
        let origin = permute(origin, &self.order);
        let shape = grid.chunk_shape();
        let index_of = |at: &[usize]| permute(at, &self.inverse);
        let name_at = |at: &[usize]| name(&index_of(at));
        let store = |at: &[usize], bytes: Option<&[u8]>| -> Result<(), Failure> {
            let bytes = bytes
                .map(|bytes| self.compress(bytes))
                .transpose()
                .map_err(|e| format!("{}: {e}", name_at(at)))?;
            Ok(sink(&index_of(at), bytes)?)
        };
        // A chunk as stored, decompressed.
        let stored_at = |at: &[usize]| self.fetch_decompressed(at, shape, &stored, &name);
        match &self.serializer {
            // The library walks the chunks, on several threads with its `rayon` feature.
            Serializer::Bytes(b) => {
                let fill = b.fill_chunk(&source, shape, write_empty)?;
                let keep = |at: &[usize], bytes: Option<Cow<'_, [u8]>>| {
                    store(at, bytes.as_deref().or(fill.as_deref()))
                };
                let stored = |at: &[usize]| Ok(stored_at(at)?.map(Decoded::into_vec));
                b.codec
                    .encode_subset_dyn(source, &grid, &origin, &b.fill_value, stored, keep)
                    .map_err(|e| e.message(name_at))
            }
            // Shards one after another, each from its part of the view: a shard covered
            // whole is made anew, another updated from the shard as stored.
            Serializer::Sharding(s) => {
                let wanted = box_at(&origin, source.shape());
                for at in grid.chunks_in(&wanted).map_err(text)? {
                    let shard = ShardPart::new(&grid, &at, &source, &origin)?;
                    let old = if shard.whole {
                        None
                    } else {
                        stored_at(&at).map_err(|e| e.message(name_at))?
                    };
                    let bytes = shard
                        .encode(s, old.as_deref(), shape, write_empty)
                        .map_err(|e| format!("{}: {e}", name_at(&at)))?;
                    store(&at, bytes.as_deref()).map_err(|e| e.message(name_at))?;
                }
                Ok(())
            }
        }
    }

    /// [`encode`](Self::encode) into a store: `stored(index)` answers a chunk's stored
    /// bytes, `sink(index, bytes)` stores them (compressed) or, given `None`, erases the
    /// chunk, with up to `in_flight` chunks under way at once, each handed to `sink` whole
    /// once made.
    ///
    /// Without sharding the library encodes each chunk, or updates it in the stored
    /// bytes, as they arrive; with it, each shard is made from its part of the view and
    /// the shard as stored, as it arrives.
    // The chunks' two ends (asked for, handed over) and their names are three closures.
    #[allow(clippy::too_many_arguments)]
    pub async fn write<R, RF, S, SF, N>(
        &self,
        view: DynArrayView<'_>,
        grid: &ChunkGrid,
        origin: &[usize],
        write_empty: bool,
        in_flight: usize,
        stored: R,
        sink: S,
        name: N,
    ) -> Result<(), String>
    where
        R: Fn(Vec<usize>) -> RF,
        RF: Future<Output = Result<Option<Vec<u8>>, String>>,
        S: Fn(Vec<usize>, Option<Vec<u8>>) -> SF,
        SF: Future<Output = Result<(), String>>,
        N: Fn(&[usize]) -> String,
    {
        let source = view.permuted_axes(&self.order).map_err(text)?;
        let grid = self.stored_grid(grid)?;
        let origin = permute(origin, &self.order);
        let shape = grid.chunk_shape();
        let name_at = |at: &[usize]| name(&permute(at, &self.inverse));
        let (stored, sink, name) = (&stored, &sink, &name);
        // A chunk's bytes compressed and handed to the sink by the chunk's index.
        let store = |at: Vec<usize>, bytes: Option<Vec<u8>>| async move {
            let index = permute(&at, &self.inverse);
            let bytes = match bytes {
                Some(bytes) => {
                    let compressed = self.compress_owned(bytes).await;
                    Some(compressed.map_err(|e| format!("{}: {e}", name(&index)))?)
                }
                None => None,
            };
            Ok::<_, Failure>(sink(index, bytes).await?)
        };
        let stored_at = |at: Vec<usize>| async move {
            let bytes = self.fetched(&at, shape, stored, name).await?;
            Ok::<_, Failure>(bytes.map(Decoded::into_vec))
        };
        match &self.serializer {
            Serializer::Bytes(b) => {
                let fill = b.fill_chunk(&source, shape, write_empty)?;
                let fill = &fill;
                let keep = |at, bytes: Option<Vec<u8>>| store(at, bytes.or_else(|| fill.clone()));
                b.codec
                    .encode_subset_dyn_async(
                        source,
                        &grid,
                        &origin,
                        &b.fill_value,
                        in_flight,
                        stored_at,
                        keep,
                    )
                    .await
                    .map_err(|e| e.message(name_at))
            }
            Serializer::Sharding(s) => {
                let wanted = box_at(&origin, source.shape());
                let (grid, source, origin) = (&grid, &source, &origin);
                let shards = grid.chunks_in(&wanted).map_err(text)?;
                stream::iter(shards.map(Ok))
                    .try_for_each_concurrent(in_flight, |at| async move {
                        let shard = ShardPart::new(grid, &at, source, origin)?;
                        let old = if shard.whole {
                            None
                        } else {
                            stored_at(at.clone()).await?
                        };
                        let bytes = shard
                            .encode(s, old.as_deref(), shape, write_empty)
                            .map_err(|e| format!("{}: {e}", name_at(&at)))?;
                        store(at, bytes).await
                    })
                    .await
                    .map_err(|e| e.message(name_at))
            }
        }
    }

    /// Decode a shard index of `shape` whole: it is an array of its own, not chunks of
    /// the array. Index chains hold a `bytes` codec (parsing checks they have a fixed
    /// length, which a sharding codec has not).
    pub fn decode_index(&self, bytes: &[u8], shape: &[usize]) -> Result<ArrayD<u64>, String> {
        let Serializer::Bytes(b) = &self.serializer else {
            return Err("an index chain needs a bytes codec".into());
        };
        let encoded = permute(shape, &self.order);
        let bytes = self.decompress(Decoded::Borrowed(bytes), &encoded)?;
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
        let index = DynArray::from(index);
        let bytes = index
            .view()
            .permuted_axes(&self.order)
            .and_then(|index| b.codec.encode_dyn(index))
            .map_err(|e| format!("bytes: {e}"))?;
        Ok(self.compress(&bytes)?.into_owned())
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
        parts.extend(self.compressors.iter().map(Compressor::to_string));
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
        codec
            .full_dyn(data_type, &[], fill_value)
            .map_err(|e| format!("fill value: {e}"))?;
        Ok(Bytes {
            codec,
            data_type: data_type.clone(),
            json,
            fill_value: fill_value.clone(),
        })
    }

    /// What a chunk of `shape` of only the fill value is stored as (before compression), if
    /// `write_empty` keeps such chunks; `source` is the array written.
    fn fill_chunk(
        &self,
        source: &DynArrayView<'_>,
        shape: &[usize],
        write_empty: bool,
    ) -> Result<Option<Vec<u8>>, String> {
        if !write_empty {
            return Ok(None);
        }
        let chunk = self
            .codec
            .full_dyn(&source.data_type(), shape, &self.fill_value);
        chunk
            .and_then(|c| self.codec.encode_dyn(&c))
            .map(Some)
            .map_err(text)
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
}

impl Serializer {
    /// What a chunk of `shape` (after the transposes) encodes to: exactly its elements'
    /// bytes, or at most a shard's bound (saturating).
    fn encoded_size(&self, shape: &[usize]) -> Size {
        match self {
            Serializer::Bytes(b) => Size {
                len: shape
                    .iter()
                    .try_fold(b.data_type.size(), |n, &s| n.checked_mul(s))
                    .unwrap_or(usize::MAX),
                exact: true,
            },
            Serializer::Sharding(s) => Size {
                len: s.max_encoded_len(shape),
                exact: false,
            },
        }
    }
}
