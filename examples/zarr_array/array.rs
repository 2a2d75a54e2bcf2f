//! An array's chunks: a box of it read chunk by chunk straight into one array (the whole
//! array is the box of all of it), an array written chunk by chunk straight into a copy
//! through a chain of another byte order, or into a box of an existing array.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use zarr_bytes::{DynArray, Endian};

use crate::ahead::ReadAhead;
use crate::chain::{Chain, Counts};
use crate::compress::Decoded;
use crate::metadata::Metadata;
use crate::store::Store;

/// Decode the chunks `subset` touches into its array, and read no other; missing chunks
/// hold the fill value. The chunk files are read ahead of the decoding on a few threads.
/// An error names the chunk's file.
pub fn read(
    meta: &Metadata,
    store: &Store,
    subset: &[Range<usize>],
    counts: &Counts,
) -> Result<DynArray, String> {
    let grid = meta.grid()?;
    let order = meta.chain.chunk_order(&grid, subset)?;
    let ahead = ReadAhead::new(order, |index: &[usize]| store.read(&meta.chunk_key(index)));
    ahead.run(|ahead| {
        // Relaxed counting: the counts are read once every chunk is done.
        let fetch = |index: &[usize]| {
            let bytes = ahead.get(index)?;
            let count = if bytes.is_some() {
                &counts.read
            } else {
                &counts.missing
            };
            count.fetch_add(1, Ordering::Relaxed);
            Ok(bytes.map(Decoded::Owned))
        };
        let name = |index: &[usize]| store.path(&meta.chunk_key(index)).display().to_string();
        meta.chain
            .decode(&meta.data_type, &grid, subset, fetch, name, counts)
    })
}

/// What writing did to the chunk files.
#[derive(Default)]
pub struct Written {
    /// Chunk (or shard) files written.
    pub stored: AtomicUsize,
    /// Chunks (or shards) of only the fill value, not written.
    pub left_out: AtomicUsize,
    /// Files of such chunks that were there before, erased.
    pub erased: AtomicUsize,
    /// Chunks (or shards) covered in part, read to be updated.
    pub read: AtomicUsize,
    /// Chunks (or shards) covered in part and not stored: they started as the fill value.
    pub missing: AtomicUsize,
}

/// Write `array` to `out` with the source's codec chain, its `bytes` codecs in byte order
/// `endian`. Chunks that hold only the fill value are not written, and a file of one that
/// is there from before is erased, as zarr-python does by default; with `write_empty`
/// every chunk is written (its `write_empty_chunks=True`).
pub fn write(
    meta: &Metadata,
    array: &DynArray,
    out: &Store,
    endian: Endian,
    write_empty: bool,
) -> Result<Written, String> {
    let chain = meta.chain.with_endian(endian)?;
    let mut json = meta.json.clone();
    json["codecs"] = chain.to_json();
    json["data_type"] = serde_json::to_value(&meta.data_type).map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    out.write("zarr.json", text.as_bytes())?;
    // The whole array covers every chunk whole: none is read.
    let origin = vec![0; meta.shape.len()];
    encode(meta, &chain, array, out, &origin, write_empty)
}

/// Write `array` into the array `out` (whose metadata is `meta`) at `origin`, with its
/// codec chain, as `out[origin..origin + shape] = array` does in zarr-python: the chunks
/// covered in part are read and updated, those covered whole written from `array`, and
/// those left holding only the fill value erased (unless `write_empty`); no other chunk
/// is read or written, and `zarr.json` is kept.
pub fn write_into(
    meta: &Metadata,
    array: &DynArray,
    out: &Store,
    origin: &[usize],
    write_empty: bool,
) -> Result<Written, String> {
    if array.data_type() != meta.data_type {
        return Err(format!(
            "{}: data type {} differs from the source's {}",
            out.path("zarr.json").display(),
            meta.data_type,
            array.data_type()
        ));
    }
    let (shape, bounds) = (array.shape(), &meta.shape);
    let fits = origin.len() == bounds.len()
        && shape.len() == bounds.len()
        && (0..shape.len()).all(|k| {
            origin[k]
                .checked_add(shape[k])
                .is_some_and(|end| end <= bounds[k])
        });
    if !fits {
        return Err(format!(
            "--at {origin:?}: an array of shape {shape:?} there does not fit in {} of shape {bounds:?}",
            out.dir().display()
        ));
    }
    encode(meta, &meta.chain, array, out, origin, write_empty)
}

/// Encode `array` into `out` at `origin` through `chain`: the chunks covered in part are
/// read from `out`.
fn encode(
    meta: &Metadata,
    chain: &Chain,
    array: &DynArray,
    out: &Store,
    origin: &[usize],
    write_empty: bool,
) -> Result<Written, String> {
    let written = Written::default();
    let stored = |index: &[usize]| {
        let bytes = out.read(&meta.chunk_key(index))?;
        let count = if bytes.is_some() {
            &written.read
        } else {
            &written.missing
        };
        count.fetch_add(1, Ordering::Relaxed);
        Ok(bytes.map(Decoded::Owned))
    };
    let sink = |index: &[usize], bytes: Option<Cow<'_, [u8]>>| {
        let key = meta.chunk_key(index);
        let Some(bytes) = bytes else {
            written.left_out.fetch_add(1, Ordering::Relaxed);
            if out.remove(&key)? {
                written.erased.fetch_add(1, Ordering::Relaxed);
            }
            return Ok(());
        };
        out.write(&key, &bytes)?;
        written.stored.fetch_add(1, Ordering::Relaxed);
        Ok(())
    };
    let name = |index: &[usize]| out.path(&meta.chunk_key(index)).display().to_string();
    let grid = meta.grid()?;
    chain.encode(array.view(), &grid, origin, write_empty, stored, sink, name)?;
    Ok(written)
}
