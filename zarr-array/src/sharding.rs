//! The `sharding_indexed` codec: a shard is its inner chunks, each encoded with the inner
//! codec chain and stored one after another, and an index of (offset, length) pairs of
//! `uint64`, one per inner chunk in C order, encoded with the index codecs and stored at
//! the end of the shard or at its start. Offsets count from the start of the shard; an
//! inner chunk not stored (all fill value) has offset and length 2^64 - 1.

use std::borrow::Cow;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use ndarray::{ArrayD, IxDyn};
use serde_json::Value;
use zarr_bytes::{ChunkGrid, DataType, DynArrayView, DynArrayViewMut, Endian};

use crate::chain::{Chain, Counts, Scope, configuration};
use crate::compress::Decoded;

/// The index entry of an inner chunk that is not stored.
const EMPTY: u64 = u64::MAX;

#[derive(Clone)]
pub struct Sharding {
    chunk_shape: Vec<usize>,
    codecs: Chain,
    index_codecs: Chain,
    index_at_start: bool,
    json: Value,
}

impl Sharding {
    pub fn parse(entry: &Value, scope: &Scope<'_>) -> Result<Sharding, String> {
        let config = configuration(
            entry,
            "configuration",
            &["chunk_shape", "codecs", "index_codecs", "index_location"],
        )?;
        let field = |name: &str| config.get(name).ok_or(format!("no {name}"));
        let chunk_shape: Option<Vec<usize>> = field("chunk_shape")?
            .as_array()
            .ok_or("chunk_shape is not a list")?
            .iter()
            .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()))
            .collect();
        let chunk_shape = chunk_shape
            .filter(|c| c.len() == scope.ndim && !c.contains(&0))
            .ok_or_else(|| {
                format!(
                    "chunk_shape {} is not {} positive lengths",
                    config["chunk_shape"], scope.ndim
                )
            })?;
        let codecs = Chain::parse(field("codecs")?, scope).map_err(|e| format!("codecs: {e}"))?;
        // An index is (offset, length) pairs of `uint64`; no entry is missing, so its fill
        // value is never used.
        let no_fill = Value::from(0);
        let index_scope = Scope {
            data_type: &DataType::UInt64,
            fill_value: &no_fill,
            ndim: scope.ndim + 1,
        };
        let index_codecs = Chain::parse(field("index_codecs")?, &index_scope)
            .map_err(|e| format!("index_codecs: {e}"))?;
        if index_codecs
            .fixed_encoded_len(&vec![1; scope.ndim + 1])
            .is_none()
        {
            return Err(format!(
                "index_codecs {index_codecs}: an index must encode to a fixed length (no compression)"
            ));
        }
        let index_at_start = match config.get("index_location") {
            None => false,
            Some(v) if v == "end" => false,
            Some(v) if v == "start" => true,
            Some(other) => {
                return Err(format!(
                    "index_location {other}: must be \"start\" or \"end\""
                ));
            }
        };
        Ok(Sharding {
            chunk_shape,
            codecs,
            index_codecs,
            index_at_start,
            json: entry.clone(),
        })
    }

    pub fn to_json(&self) -> Value {
        let mut json = self.json.clone();
        json["configuration"]["codecs"] = self.codecs.to_json();
        json
    }

    /// The inner chunks' `bytes` codecs in byte order `endian`; the index keeps its own.
    pub fn with_endian(&self, endian: Endian) -> Result<Sharding, String> {
        Ok(Sharding {
            codecs: self.codecs.with_endian(endian)?,
            ..self.clone()
        })
    }

    /// The inner chunks' codec chain.
    pub fn codecs(&self) -> &Chain {
        &self.codecs
    }

    /// Inner chunks along each axis of a shard of `shape`, which they must tile exactly.
    fn chunks_per_shard(&self, shape: &[usize]) -> Result<Vec<usize>, String> {
        if shape.len() != self.chunk_shape.len()
            || shape.iter().zip(&self.chunk_shape).any(|(s, c)| s % c != 0)
        {
            return Err(format!(
                "a shard of shape {shape:?} is not a whole number of inner chunks of shape {:?}",
                self.chunk_shape
            ));
        }
        Ok(shape
            .iter()
            .zip(&self.chunk_shape)
            .map(|(s, c)| s / c)
            .collect())
    }

    /// The index's shape and encoded length for a shard of `shape`.
    fn index_layout(&self, shape: &[usize]) -> Result<(Vec<usize>, Vec<usize>, usize), String> {
        let per_shard = self.chunks_per_shard(shape)?;
        let index_shape: Vec<usize> = per_shard.iter().copied().chain([2]).collect();
        let index_len = self
            .index_codecs
            .fixed_encoded_len(&index_shape)
            .filter(|&n| n != usize::MAX)
            .ok_or("the shard index is too large")?;
        Ok((per_shard, index_shape, index_len))
    }

    pub fn max_encoded_len(&self, shape: &[usize]) -> usize {
        let Ok((per_shard, _, index_len)) = self.index_layout(shape) else {
            return usize::MAX;
        };
        let inner = self.codecs.encoded_size(&self.chunk_shape).len;
        per_shard
            .iter()
            .try_fold(inner, |n, &k| n.checked_mul(k))
            .and_then(|n| n.checked_add(index_len))
            .unwrap_or(usize::MAX)
    }

    /// The index of a shard of `shape`, from its decompressed bytes.
    fn places<'s>(&self, shard: &'s [u8], shape: &[usize]) -> Result<Places<'s>, String> {
        let index_len = self.index_len(shape)?;
        let Some(body_len) = shard.len().checked_sub(index_len) else {
            return Err(format!(
                "shard index: the shard has {} bytes, fewer than its {index_len}-byte index",
                shard.len()
            ));
        };
        let index = if self.index_at_start {
            &shard[..index_len]
        } else {
            &shard[body_len..]
        };
        self.places_of(index, shard, shape)
    }

    /// The places of a shard of `shape` whose index is `index` (its bytes as stored) and
    /// whose bytes, from its start, are `shard` (all of them, or those the reader asked for).
    fn places_of<'s>(
        &self,
        index: &[u8],
        shard: &'s [u8],
        shape: &[usize],
    ) -> Result<Places<'s>, String> {
        let (per_shard, index_shape, _) = self.index_layout(shape)?;
        let index = self
            .index_codecs
            .decode_index(index, &index_shape)
            .map_err(|e| format!("shard index: {e}"))?;
        Ok(Places {
            shard,
            read: None,
            entries: index.iter().copied().collect(),
            per_shard,
        })
    }

    /// The encoded length of the index of a shard of `shape`.
    pub fn index_len(&self, shape: &[usize]) -> Result<usize, String> {
        Ok(self.index_layout(shape)?.2)
    }

    /// Whether a shard's index is at its start (else at its end).
    pub fn index_at_start(&self) -> bool {
        self.index_at_start
    }

    /// The byte ranges, from the shard's start, of the stored inner chunks that the part
    /// at `origin` of shape `part` (in the shard's coordinates) touches, the shard being of
    /// `shape` and `index` its index: what a reader of that part alone asks for.
    pub fn ranges_of(
        &self,
        index: &[u8],
        shape: &[usize],
        origin: &[usize],
        part: &[usize],
    ) -> Result<Vec<std::ops::Range<usize>>, String> {
        let places = self.places_of(index, &[], shape)?;
        let inner = ChunkGrid::new(shape, &self.chunk_shape).map_err(text)?;
        let wanted: Vec<_> = origin.iter().zip(part).map(|(&o, &n)| o..o + n).collect();
        let most = self.max_encoded_len(shape);
        let mut ranges = Vec::new();
        for at in inner.chunks_in(&wanted).map_err(text)? {
            if let Some(range) = places.range(&at, most)? {
                ranges.push(range);
            }
        }
        Ok(ranges)
    }

    /// Decode a shard of `shape` into `view`: the part of the shard at `origin` (in the
    /// shard's coordinates), whose part in the array has shape `extent` (cut at the array's
    /// edge). `shard` is its decompressed bytes; or, read in part (`read`: the byte ranges of
    /// it from [`ranges_of`](Self::ranges_of), read as their bytes one after the other), its
    /// index alone. The view holds the fill value. The inner chunks the part touches, and no
    /// other, go through the inner chain's grid call, on several threads with the crate's
    /// `rayon` feature; an empty one is left as the fill value.
    #[allow(clippy::too_many_arguments)]
    pub fn decode_shard(
        &self,
        shard: &[u8],
        read: Option<(&[std::ops::Range<usize>], &[u8])>,
        view: DynArrayViewMut<'_>,
        shape: &[usize],
        extent: &[usize],
        origin: &[usize],
        counts: &Counts,
    ) -> Result<(), String> {
        let mut places = match read {
            None => self.places(shard, shape)?,
            Some(_) => self.places_of(shard, &[], shape)?,
        };
        places.read = read;
        self.decode_places(&places, view, extent, origin, counts)
    }

    /// [`decode_shard`](Self::decode_shard) from the shard's index.
    fn decode_places(
        &self,
        places: &Places<'_>,
        view: DynArrayViewMut<'_>,
        extent: &[usize],
        origin: &[usize],
        counts: &Counts,
    ) -> Result<(), String> {
        // An inner chunk's bytes by its index in the shard: `None` for an empty entry.
        let fetch = |at: &[usize]| -> Result<Option<Decoded<'_>>, String> {
            let bytes = places.bytes(at)?;
            let count = match bytes {
                Some(_) => &counts.inner_read,
                None => &counts.inner_empty,
            };
            count.fetch_add(1, Ordering::Relaxed);
            Ok(bytes.map(Decoded::Borrowed))
        };
        let data_type = view.data_type();
        let whole = view.shape() == extent && origin.iter().all(|&o| o == 0);
        let grid = ChunkGrid::new(extent, &self.chunk_shape).map_err(text)?;
        self.codecs
            .decode_into(view, &grid, origin, fetch, inner_name, counts)?;
        // An inner chunk wholly past the array's edge is decoded all the same when the
        // shard is read whole, into a chunk of its own, so that its bytes are checked.
        let past = past_edge(&places.per_shard, grid.grid_shape());
        if whole && !past.is_empty() {
            let b = self.codecs.elements();
            let mut chunk = b
                .codec
                .full_dyn(&data_type, &self.chunk_shape, &b.fill_value)
                .map_err(text)?;
            let one = ChunkGrid::new(&self.chunk_shape, &self.chunk_shape).map_err(text)?;
            let corner = vec![0; self.chunk_shape.len()];
            for at in past {
                self.codecs.decode_into(
                    chunk.view_mut(),
                    &one,
                    &corner,
                    |_| fetch(&at),
                    |_| inner_name(&at),
                    counts,
                )?;
            }
        }
        Ok(())
    }

    /// Encode the shard of `shape` whose part in the array has shape `extent` (cut at the
    /// array's edge) with `view` written at `origin` (in the shard's coordinates); `None`
    /// if every inner chunk is left out. The inner chunks `view` touches are encoded from
    /// it, those it covers in part updated from `old`, the shard as stored (decompressed),
    /// if there is one; the others are kept as `old` stores them. Inner chunks that hold
    /// only the fill value are left out, as zarr-python and tensorstore do, unless
    /// `write_empty` (then they are stored as zarr-python's `write_empty_chunks=True`
    /// stores them); inner chunks wholly past the array's edge are never stored, as
    /// zarr-python does either way. A new shard is the case of no `old` and a whole `view`.
    pub fn encode_shard(
        &self,
        old: Option<&[u8]>,
        view: DynArrayView<'_>,
        shape: &[usize],
        extent: &[usize],
        origin: &[usize],
        write_empty: bool,
    ) -> Result<Option<Vec<u8>>, String> {
        let (per_shard, index_shape, index_len) = self.index_layout(shape)?;
        let old = old.map(|shard| self.places(shard, shape)).transpose()?;
        // An inner chunk as stored: `None` for an empty entry, or when there is no shard.
        let stored = |at: &[usize]| -> Result<Option<&[u8]>, String> {
            Ok(old.as_ref().map(|old| old.bytes(at)).transpose()?.flatten())
        };
        let count = per_shard.iter().product::<usize>();
        // The stored bytes of the inner chunks the view touches, in C order, as the inner
        // chain hands them over (`Some(None)`: left out); `None` for the others.
        let chunks: Mutex<Vec<Option<Option<Vec<u8>>>>> = Mutex::new(vec![None; count]);
        let keep = |at: &[usize], bytes: Option<Cow<'_, [u8]>>| {
            let mut chunks = chunks.lock().map_err(|_| "a thread failed".to_string())?;
            chunks[flat(at, &per_shard)] = Some(bytes.map(Cow::into_owned));
            Ok(())
        };
        let grid = ChunkGrid::new(extent, &self.chunk_shape).map_err(text)?;
        let lend = |at: &[usize]| Ok(stored(at)?.map(Decoded::Borrowed));
        self.codecs
            .encode(view, &grid, origin, write_empty, lend, keep, inner_name)?;
        let chunks = chunks
            .into_inner()
            .map_err(|_| "a thread failed".to_string())?;
        let all = ChunkGrid::new(&per_shard, &vec![1; per_shard.len()]).map_err(text)?;
        let mut kept = Vec::with_capacity(count);
        for (at, chunk) in all.indices().zip(&chunks) {
            kept.push(match chunk {
                Some(new) => new.as_deref(),
                None => stored(&at)?,
            });
        }
        if kept.iter().all(Option::is_none) {
            return Ok(None);
        }
        let start = if self.index_at_start { index_len } else { 0 };
        let mut body = Vec::new();
        let mut entries = Vec::with_capacity(2 * count);
        for chunk in kept {
            match chunk {
                None => entries.extend([EMPTY, EMPTY]),
                Some(bytes) => {
                    entries.extend([(start + body.len()) as u64, bytes.len() as u64]);
                    body.extend_from_slice(bytes);
                }
            }
        }
        let index =
            ArrayD::from_shape_vec(IxDyn(&index_shape), entries).map_err(|e| e.to_string())?;
        let index = self.index_codecs.encode_index(index)?;
        if index.len() != index_len {
            return Err(format!(
                "the shard index encoded to {} bytes, not {index_len}",
                index.len()
            ));
        }
        Ok(Some(if self.index_at_start {
            [index, body].concat()
        } else {
            [body, index].concat()
        }))
    }
}

/// A shard's index, decoded: where each inner chunk's bytes are in the shard.
struct Places<'s> {
    shard: &'s [u8],
    /// For a shard read in part: the ranges of it read, and their bytes one after the
    /// other, where the inner chunks are looked up instead of in `shard`.
    read: Option<(&'s [std::ops::Range<usize>], &'s [u8])>,
    /// (offset, length) pairs, one per inner chunk in C order.
    entries: Vec<u64>,
    /// Inner chunks along each axis of the shard.
    per_shard: Vec<usize>,
}

impl<'s> Places<'s> {
    /// The stored bytes of the inner chunk at `at` in the shard: `None` for an empty entry.
    fn bytes(&self, at: &[usize]) -> Result<Option<&'s [u8]>, String> {
        let Some((ranges, pieces)) = self.read else {
            let range = self.range(at, self.shard.len())?;
            return Ok(range.map(|r| &self.shard[r]));
        };
        let Some(range) = self.range(at, usize::MAX)? else {
            return Ok(None);
        };
        let k = ranges.iter().position(|r| *r == range);
        let k = k.ok_or_else(|| format!("{}: not among the ranges read", inner_name(at)))?;
        let start: usize = ranges[..k].iter().map(|r| r.len()).sum();
        let piece = pieces.get(start..start + range.len());
        Ok(Some(piece.ok_or("the store answered short")?))
    }

    /// Where the inner chunk at `at` is in the shard, which has `len` bytes (or at most
    /// that many): `None` for an empty entry.
    fn range(&self, at: &[usize], len: usize) -> Result<Option<std::ops::Range<usize>>, String> {
        let entry = 2 * flat(at, &self.per_shard);
        let (offset, length) = (self.entries[entry], self.entries[entry + 1]);
        if (offset, length) == (EMPTY, EMPTY) {
            return Ok(None);
        }
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(length).ok())
            .and_then(|(start, n)| Some(start..start.checked_add(n)?))
            .filter(|r| r.end <= len)
            .ok_or_else(|| {
                format!(
                    "{}: offset {offset} and length {length} reach past the shard's {len} bytes",
                    inner_name(at),
                )
            })?;
        Ok(Some(range))
    }
}

/// How an error names an inner chunk: by its index in the shard.
fn inner_name(at: &[usize]) -> String {
    format!("inner chunk {at:?}")
}

/// The place of the inner chunk at `at` in the index: C order over `per_shard`.
fn flat(at: &[usize], per_shard: &[usize]) -> usize {
    at.iter().zip(per_shard).fold(0, |n, (&i, &k)| n * k + i)
}

/// The inner chunks of a shard of `per_shard` inner chunks that lie wholly past the
/// array's edge, where only `within` of them reach into the array.
fn past_edge(per_shard: &[usize], within: &[usize]) -> Vec<Vec<usize>> {
    if per_shard == within {
        return Vec::new();
    }
    ChunkGrid::new(per_shard, &vec![1; per_shard.len()])
        .map(|all| {
            all.indices()
                .filter(|at| at.iter().zip(within).any(|(i, n)| i >= n))
                .collect()
        })
        .unwrap_or_default()
}

fn text(e: zarr_bytes::Error) -> String {
    e.to_string()
}

impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sharding_indexed (inner chunks {:?}: {}; index at {}: {})",
            self.chunk_shape,
            self.codecs,
            if self.index_at_start { "start" } else { "end" },
            self.index_codecs
        )
    }
}
