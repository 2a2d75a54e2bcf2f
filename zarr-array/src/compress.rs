//! The bytes-to-bytes codecs `zstd`, `gzip` and `crc32c`, and the buffers a chunk's bytes
//! go through them in.
//!
//! zstd decompresses a frame that states its size (zarr-python, tensorstore and zarrs
//! write frames that do) in one call, into a buffer of that size: the size is checked
//! against the chunk's before anything is allocated. The buffer goes back to a pool for the
//! next frame once the chunk is decoded (on another thread than the one that decompressed
//! it), and the decompression context is kept by the thread. A frame that states no size,
//! or several frames, are streamed up to the chunk's size instead. Compression contexts are
//! kept by the thread too.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::{Read, Write};
use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use zstd::zstd_safe;

use crate::chain::configuration;

/// What decoding a chunk's stored bytes must give: exactly `len` bytes, or at most `len`
/// when not `exact` (what a compressor or a shard holds varies).
#[derive(Clone, Copy)]
pub struct Size {
    pub len: usize,
    pub exact: bool,
}

/// A chunk's bytes on their way through the codecs: borrowed from the bytes read (a shard's
/// inner chunk, or a chunk whose checksum is cut off), owned, or a zstd frame decompressed
/// into a buffer of the pool.
pub enum Decoded<'b> {
    Borrowed(&'b [u8]),
    Owned(Vec<u8>),
    Frame(Frame),
}

/// A buffer zstd decompressed into: when dropped it goes back to `SPARE`.
pub struct Frame(Vec<u8>);

/// Buffers for the next frames: about as many as chunks are in flight at once.
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
/// Buffers `SPARE` keeps at most.
const SPARE_MAX: usize = 64;

thread_local! {
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
    /// The compressor, with the level and checksum flag it was made for.
    static COMPRESSOR: RefCell<Option<(i32, bool, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

impl Drop for Frame {
    fn drop(&mut self) {
        let buffer = std::mem::take(&mut self.0);
        let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
        if buffer.capacity() > 0 && spare.len() < SPARE_MAX {
            spare.push(buffer);
        }
    }
}

impl Deref for Decoded<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Decoded::Borrowed(bytes) => bytes,
            Decoded::Owned(bytes) => bytes,
            Decoded::Frame(frame) => &frame.0,
        }
    }
}

impl AsRef<[u8]> for Decoded<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Decoded<'_> {
    /// The bytes, owned: moved where they are owned (a frame's buffer leaves the pool),
    /// copied where they are lent.
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            Decoded::Owned(bytes) => bytes,
            Decoded::Frame(mut frame) => std::mem::take(&mut frame.0),
            Decoded::Borrowed(bytes) => bytes.to_vec(),
        }
    }

    /// Keep the first `len` bytes, in place.
    fn truncate(&mut self, len: usize) {
        match self {
            Decoded::Borrowed(bytes) => *bytes = &bytes[..len.min(bytes.len())],
            Decoded::Owned(bytes) | Decoded::Frame(Frame(bytes)) => bytes.truncate(len),
        }
    }
}

#[derive(Clone)]
pub struct Compressor {
    kind: Kind,
    pub json: Value,
}

#[derive(Clone, Copy)]
enum Kind {
    Zstd { level: i32, checksum: bool },
    Gzip { level: u32 },
    Crc32c,
}

impl Compressor {
    pub fn parse(entry: &Value, name: &str) -> Result<Compressor, String> {
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

    /// What this codec's encoding of bytes of `decoded` size is: a checksum adds 4 bytes;
    /// compressed data can be a little longer than its input (stored blocks and frame
    /// headers), and this bound leaves ample room for both.
    pub fn encoded_size(&self, decoded: Size) -> Size {
        let len = decoded.len;
        match self.kind {
            Kind::Crc32c => Size {
                len: len.saturating_add(4),
                exact: decoded.exact,
            },
            Kind::Zstd { .. } | Kind::Gzip { .. } => Size {
                len: len.saturating_add(len / 64).saturating_add(4096),
                exact: false,
            },
        }
    }

    /// Decode `bytes` to `size`, or at most its length when not exact (a size found wrong
    /// after decoding is left to the `bytes` codec to report). A checksum is cut off in
    /// place.
    pub fn decode<'b>(&self, bytes: Decoded<'b>, size: Size) -> Result<Decoded<'b>, String> {
        let mut out = Vec::new();
        let cap = u64::try_from(size.len)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        match self.kind {
            Kind::Zstd { .. } => return zstd_decode(&bytes, size),
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
                let mut bytes = bytes;
                bytes.truncate(split);
                return Ok(bytes);
            }
        };
        if out.len() > size.len {
            return Err(too_long(self.name(), size.len));
        }
        Ok(Decoded::Owned(out))
    }

    /// Encode `bytes`.
    pub fn encode<'b>(&self, bytes: Cow<'b, [u8]>) -> Result<Cow<'b, [u8]>, String> {
        let failed = |e: std::io::Error| format!("{}: {e}", self.name());
        match self.kind {
            Kind::Zstd { level, checksum } => COMPRESSOR.with(|slot| {
                let mut slot = slot.borrow_mut();
                if !matches!(&*slot, Some((l, c, _)) if (*l, *c) == (level, checksum)) {
                    let mut compressor = zstd::bulk::Compressor::new(level).map_err(failed)?;
                    compressor
                        .set_parameter(zstd_safe::CParameter::ChecksumFlag(checksum))
                        .map_err(failed)?;
                    *slot = Some((level, checksum, compressor));
                }
                let Some((_, _, compressor)) = slot.as_mut() else {
                    unreachable!("made above")
                };
                compressor.compress(&bytes).map(Cow::Owned).map_err(failed)
            }),
            Kind::Gzip { level } => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
                encoder.write_all(&bytes).map_err(failed)?;
                encoder.finish().map(Cow::Owned).map_err(failed)
            }
            Kind::Crc32c => {
                let checksum = crc32c::crc32c(&bytes);
                let mut out = bytes.into_owned();
                out.extend_from_slice(&checksum.to_le_bytes());
                Ok(Cow::Owned(out))
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

impl fmt::Display for Compressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Zstd { level, checksum } => {
                let checksum = if checksum { " checksum" } else { "" };
                write!(f, "zstd level {level}{checksum}")
            }
            Kind::Gzip { level } => write!(f, "gzip level {level}"),
            Kind::Crc32c => f.write_str("crc32c"),
        }
    }
}

fn too_long(name: &str, limit: usize) -> String {
    format!("{name}: decodes to more than the {limit} bytes the chunk can hold")
}

/// Decompress zstd `data` to `size`: one frame stating its size in one call into a buffer
/// of the pool; anything else streamed.
fn zstd_decode(data: &[u8], size: Size) -> Result<Decoded<'static>, String> {
    let whole = zstd_safe::find_frame_compressed_size(data).is_ok_and(|n| n == data.len());
    let stated = match zstd_safe::get_frame_content_size(data) {
        Ok(Some(stated)) if whole => stated,
        _ => return zstd_stream(data, size.len),
    };
    let stated = usize::try_from(stated)
        .ok()
        .filter(|&n| n <= size.len)
        .ok_or_else(|| too_long(&format!("zstd: the frame states {stated} bytes"), size.len))?;
    if size.exact && stated != size.len {
        return Err(format!(
            "zstd: byte length mismatch: the chunk needs {} bytes, the frame states {stated}",
            size.len
        ));
    }
    let spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner).pop();
    let mut out = spare.unwrap_or_default();
    out.clear();
    out.reserve_exact(stated);
    let written = DECOMPRESSOR.with(|slot| {
        let mut slot = slot.borrow_mut();
        let decompressor = slot.get_or_insert_with(zstd::bulk::Decompressor::default);
        decompressor.decompress_to_buffer(data, &mut out)
    });
    // The buffer goes back to the pool whatever happened.
    let frame = Frame(out);
    match written {
        Ok(n) if n == stated => Ok(Decoded::Frame(frame)),
        Ok(n) => Err(format!(
            "zstd: the frame states {stated} bytes but holds {n}"
        )),
        Err(e) => Err(format!("zstd: {e}")),
    }
}

/// Decompress zstd `data` of no stated size as a stream, to at most `limit` bytes.
fn zstd_stream(data: &[u8], limit: usize) -> Result<Decoded<'static>, String> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut out = Vec::new();
    zstd::stream::read::Decoder::with_buffer(data)
        .and_then(|d| d.take(cap).read_to_end(&mut out))
        .map_err(|e| format!("zstd: {e}"))?;
    if out.len() > limit {
        return Err(too_long("zstd", limit));
    }
    Ok(Decoded::Owned(out))
}
