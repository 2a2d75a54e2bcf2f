//! The `sharding_indexed` codec: a shard is its inner chunks, each encoded with the inner
//! codec chain and stored one after another, and an index of (offset, length) pairs of
//! `uint64`, one per inner chunk in C order, encoded with the index codecs and stored at
//! the end of the shard or at its start. Offsets count from the start of the shard; an
//! inner chunk not stored (all fill value) has offset and length 2^64 - 1.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::Ordering;

use ndarray::{ArrayD, IxDyn};
use serde_json::Value;
use zarr_bytes::{ChunkGrid, DataType, DynArray, Endian};

use crate::chain::{configuration, Chain, Counts, Scope};

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
                ))
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
        let inner = self.codecs.max_encoded_len(&self.chunk_shape);
        per_shard
            .iter()
            .try_fold(inner, |n, &k| n.checked_mul(k))
            .and_then(|n| n.checked_add(index_len))
            .unwrap_or(usize::MAX)
    }

    /// Decode a shard of `shape` from its decompressed bytes into its part `region` of
    /// `array`: each inner chunk straight into its own part (the shard's place in the
    /// array plus the inner chunk's place in the shard, cut at the array's edge); an empty
    /// one's part gets the fill value.
    pub fn decode_into(
        &self,
        shard: &[u8],
        array: &mut DynArray,
        region: &[Range<usize>],
        shape: &[usize],
        counts: &Counts,
    ) -> Result<(), String> {
        let (_, index_shape, index_len) = self.index_layout(shape)?;
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
        let index = self
            .index_codecs
            .decode_index(index, &index_shape)
            .map_err(|e| format!("shard index: {e}"))?;
        let index = index.as_standard_layout();
        let entries = index
            .as_slice()
            .ok_or("an index in standard layout is contiguous")?;

        let inner = ChunkGrid::new(shape, &self.chunk_shape).map_err(|e| e.to_string())?;
        for (at, entry) in inner.indices().zip(entries.chunks_exact(2)) {
            let part = place(region, &inner.region(&at).map_err(|e| e.to_string())?);
            let (offset, length) = (entry[0], entry[1]);
            if (offset, length) == (EMPTY, EMPTY) {
                counts.inner_empty.fetch_add(1, Ordering::Relaxed);
                let fill = &self.codecs.elements().fill;
                array
                    .assign_region(&part, fill)
                    .map_err(|e| e.to_string())?;
                continue;
            }
            let within = |e: String| format!("inner chunk {at:?}: {e}");
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(length).ok())
                .and_then(|(start, n)| Some(start..start.checked_add(n)?))
                .filter(|r| r.end <= shard.len())
                .ok_or_else(|| {
                    within(format!(
                        "offset {offset} and length {length} reach past the shard's {} bytes",
                        shard.len()
                    ))
                })?;
            // An inner chunk wholly past the array's edge has an empty part: it is still
            // decoded, so that its bytes are checked.
            self.codecs
                .decode_into(&shard[range], array, &part, &self.chunk_shape, counts)
                .map_err(within)?;
            counts.inner_read.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Encode the shard of `shape` whose part in `array` is `region`; `None` if it holds
    /// only the fill value. Inner chunks that hold only the fill value are not stored, as
    /// zarr-python and tensorstore do.
    pub fn encode_region(
        &self,
        array: &mut DynArray,
        region: &[Range<usize>],
        shape: &[usize],
    ) -> Result<Option<Vec<u8>>, String> {
        let (_, index_shape, index_len) = self.index_layout(shape)?;
        let start = if self.index_at_start { index_len } else { 0 };
        let inner = ChunkGrid::new(shape, &self.chunk_shape).map_err(|e| e.to_string())?;
        let mut body = Vec::new();
        let mut entries = Vec::new();
        for at in inner.indices() {
            let part = place(region, &inner.region(&at).map_err(|e| e.to_string())?);
            // An inner chunk wholly past the array's edge holds only the fill value.
            let encoded = if part.iter().any(|r| r.is_empty()) {
                None
            } else {
                self.codecs
                    .encode_region(array, &part, &self.chunk_shape)
                    .map_err(|e| format!("inner chunk {at:?}: {e}"))?
            };
            match encoded {
                None => entries.extend([EMPTY, EMPTY]),
                Some(bytes) => {
                    entries.extend([(start + body.len()) as u64, bytes.len() as u64]);
                    body.extend_from_slice(&bytes);
                }
            }
        }
        if entries.iter().all(|&e| e == EMPTY) {
            return Ok(None);
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

/// The part of the array an inner chunk covers: `inner`, its region in the shard, moved
/// to `shard`, the shard's part of the array, and cut at the array's edge (where the
/// shard's part ends). Empty along an axis where the inner chunk lies past the edge.
fn place(shard: &[Range<usize>], inner: &[Range<usize>]) -> Vec<Range<usize>> {
    shard
        .iter()
        .zip(inner)
        .map(|(s, r)| {
            let at = |offset: usize| s.start.saturating_add(offset).min(s.end);
            at(r.start)..at(r.end)
        })
        .collect()
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
