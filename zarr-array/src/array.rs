//! An array's chunks in a store: a box of it read straight into one array (the whole array
//! is the box of all of it), an array written straight into a copy through a chain of
//! another byte order, or into a box of an existing array; up to `in_flight` requests to
//! the store under way at once.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use zarr_bytes::{DynArray, Endian};

use crate::chain::{Ask, Chain, Counts};
use crate::metadata::Metadata;
use crate::store::Store;

/// Decode the chunks `subset` touches into its array, and read no other; missing chunks
/// hold the fill value. An error names the chunk's key.
pub async fn read(
    meta: &Metadata,
    store: &Store,
    subset: &[Range<usize>],
    in_flight: usize,
    counts: &Counts,
) -> Result<DynArray, String> {
    // Relaxed counting: the counts are read once every chunk is done.
    let fetch = |index: Vec<usize>, ask: Ask| async move {
        let key = meta.chunk_key(&index);
        // A shard read in part is counted once, when its index is asked for.
        let (bytes, counted) = match ask {
            Ask::Whole => (store.get(&key).await?, true),
            Ask::Ranges(ranges) => (store.get_ranges(&key, &ranges).await?, true),
            Ask::Tail(n) => (store.get_tail(&key, n).await?, true),
            Ask::InShard(ranges) => (store.get_ranges(&key, &ranges).await?, false),
        };
        let count = match bytes {
            Some(_) => &counts.read,
            None => &counts.missing,
        };
        if counted {
            count.fetch_add(1, Ordering::Relaxed);
        }
        Ok(bytes)
    };
    let name = |index: &[usize]| store.name(&meta.chunk_key(index));
    let grid = meta.grid()?;
    let data_type = &meta.data_type;
    let before = store.bytes_read();
    let chain = &meta.chain;
    let array = chain.read(data_type, &grid, subset, in_flight, fetch, name, counts);
    let array = array.await?;
    let bytes = store.bytes_read() - before;
    counts.bytes.store(bytes, Ordering::Relaxed);
    Ok(array)
}

/// What writing did to the chunks in the store.
#[derive(Default)]
pub struct Written {
    /// Chunks (or shards) stored.
    pub stored: AtomicUsize,
    /// Chunks (or shards) of only the fill value, not stored.
    pub left_out: AtomicUsize,
    /// Such chunks that were stored before, erased.
    pub erased: AtomicUsize,
    /// Chunks (or shards) covered in part, read to be updated.
    pub read: AtomicUsize,
    /// Chunks (or shards) covered in part and not stored: they started as the fill value.
    pub missing: AtomicUsize,
}

/// Write `array` to `out` with the source's codec chain, its `bytes` codecs in byte order
/// `endian`. Chunks that hold only the fill value are not written, and one that is stored
/// from before is erased, as zarr-python does by default; with `write_empty` every chunk
/// is written (its `write_empty_chunks=True`).
pub async fn write(
    meta: &Metadata,
    array: &DynArray,
    out: &Store,
    endian: Endian,
    write_empty: bool,
    in_flight: usize,
) -> Result<Written, String> {
    let chain = meta.chain.with_endian(endian)?;
    let mut json = meta.json.clone();
    json["codecs"] = chain.to_json();
    json["data_type"] = serde_json::to_value(&meta.data_type).map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    // The whole array covers every chunk whole: none is read. `zarr.json` goes last: a
    // copy that fails on the way is not an array, rather than one with chunks missing.
    let origin = vec![0; meta.shape.len()];
    let written = encode(meta, &chain, array, out, &origin, write_empty, in_flight).await?;
    out.put("zarr.json", text.into_bytes()).await?;
    Ok(written)
}

/// Write `array` into the array `out` (whose metadata is `meta`) at `origin`, with its
/// codec chain, as `out[origin..origin + shape] = array` does in zarr-python: the chunks
/// covered in part are read and updated, those covered whole written from `array`, and
/// those left holding only the fill value erased (unless `write_empty`); no other chunk
/// is read or written, and `zarr.json` is kept.
pub async fn write_into(
    meta: &Metadata,
    array: &DynArray,
    out: &Store,
    origin: &[usize],
    write_empty: bool,
    in_flight: usize,
) -> Result<Written, String> {
    if array.data_type() != meta.data_type {
        return Err(format!(
            "{}: data type {} differs from the source's {}",
            out.name("zarr.json"),
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
            out.location()
        ));
    }
    encode(
        meta,
        &meta.chain,
        array,
        out,
        origin,
        write_empty,
        in_flight,
    )
    .await
}

/// Encode `array` into `out` at `origin` through `chain`: the chunks covered in part are
/// read from `out`. Each chunk is stored whole once made, or erased.
async fn encode(
    meta: &Metadata,
    chain: &Chain,
    array: &DynArray,
    out: &Store,
    origin: &[usize],
    write_empty: bool,
    in_flight: usize,
) -> Result<Written, String> {
    let written = Written::default();
    let counts = &written;
    let stored = |index: Vec<usize>| async move {
        let bytes = out.get(&meta.chunk_key(&index)).await?;
        let count = match bytes {
            Some(_) => &counts.read,
            None => &counts.missing,
        };
        count.fetch_add(1, Ordering::Relaxed);
        Ok(bytes)
    };
    let sink = |index: Vec<usize>, bytes: Option<Vec<u8>>| async move {
        let key = meta.chunk_key(&index);
        let Some(bytes) = bytes else {
            counts.left_out.fetch_add(1, Ordering::Relaxed);
            if out.delete(&key).await? {
                counts.erased.fetch_add(1, Ordering::Relaxed);
            }
            return Ok(());
        };
        out.put(&key, bytes).await?;
        counts.stored.fetch_add(1, Ordering::Relaxed);
        Ok(())
    };
    let name = |index: &[usize]| out.name(&meta.chunk_key(index));
    let grid = meta.grid()?;
    let view = array.view();
    chain
        .write(
            view,
            &grid,
            origin,
            write_empty,
            in_flight,
            stored,
            sink,
            name,
        )
        .await?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use ndarray::Array2;
    use object_store::memory::InMemory;
    use object_store::path::Path;
    use object_store::throttle::{ThrottleConfig, ThrottledStore};
    use serde_json::json;

    use super::*;
    use crate::subset;

    /// What each get and put waits before it starts, as a request to a remote store does.
    const LATENCY: Duration = Duration::from_millis(20);
    /// Chunks (or shards) of the array: 64 × 64 in chunks of 8 × 8.
    const CHUNKS: u32 = 64;

    /// An array of 64 chunks, written to a store of `LATENCY` in `in_flight` requests at
    /// once and read back; how long the write and the read took.
    async fn round_trip(codecs: serde_json::Value, in_flight: usize) -> (Duration, Duration) {
        let config = ThrottleConfig {
            wait_get_per_call: LATENCY,
            wait_put_per_call: LATENCY,
            ..ThrottleConfig::default()
        };
        let objects = Arc::new(ThrottledStore::new(InMemory::new(), config));
        let store = Store::new(objects, Path::from("array.zarr"), "array.zarr");
        let meta = json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": [64, 64],
            "data_type": "uint16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 8]}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": 0,
            "codecs": codecs,
        });
        store
            .put("zarr.json", meta.to_string().into())
            .await
            .unwrap();
        let meta = Metadata::read(&store).await.unwrap();
        // No chunk of only the fill value: every one is stored.
        let array = Array2::from_shape_fn((64, 64), |(i, j)| (64 * i + j + 1) as u16);
        let array = DynArray::from(array.into_dyn());

        let start = Instant::now();
        let written = write_into(&meta, &array, &store, &[0, 0], false, in_flight).await;
        let write = start.elapsed();
        assert_eq!(written.unwrap().stored.into_inner(), CHUNKS as usize);

        let (counts, whole) = (Counts::default(), subset::whole(&meta.shape));
        let start = Instant::now();
        let back = read(&meta, &store, &whole, in_flight, &counts)
            .await
            .unwrap();
        let read = start.elapsed();
        assert_eq!(back, array);
        assert_eq!(counts.read.into_inner(), CHUNKS as usize);
        (write, read)
    }

    /// The bytes asked of the store for boxes of a 64 × 64 `uint16` array in chunks of 8 × 8
    /// (stored as they are, with a transpose, in shards of 16 × 16 with the index at either
    /// end, compressed): their values, and the bytes read.
    #[tokio::test]
    async fn boxes_of_uncompressed_chunks_read_only_their_bytes() {
        let array = Array2::from_shape_fn((64, 64), |(i, j)| (64 * i + j + 1) as u16);
        let array = DynArray::from(array.into_dyn());
        let bytes = json!({"name": "bytes", "configuration": {"endian": "big"}});
        let transpose = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
        let zstd = json!({"name": "zstd", "configuration": {"level": 1}});
        let sharded = |at: &str| {
            json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [8, 8],
                "codecs": [bytes],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": at,
            }}])
        };
        // A shard's index (4 entries of 16 bytes and a checksum), then the inner chunks
        // the box touches, whole (128 bytes each).
        let shards = |inner: u64| 68 + 128 * inner;
        // Inside one chunk; across four; one chunk whole and a column of the next.
        let boxes = [[3..5, 10..13], [6..10, 6..10], [8..16, 0..9]];
        for (codecs, chunk, asked) in [
            (json!([bytes]), 8, Some([12, 32, 144])),
            (json!([transpose, bytes]), 8, Some([12, 32, 144])),
            (sharded("end"), 16, Some([shards(1), shards(4), shards(2)])),
            (
                sharded("start"),
                16,
                Some([shards(1), shards(4), shards(2)]),
            ),
            (json!([bytes, zstd]), 8, None),
        ] {
            let store = Store::new(Arc::new(InMemory::new()), Path::from("a.zarr"), "a.zarr");
            let grid = json!({"name": "regular", "configuration": {"chunk_shape": [chunk, chunk]}});
            let meta = json!({
                "zarr_format": 3, "node_type": "array", "shape": [64, 64], "data_type": "uint16",
                "chunk_grid": grid, "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                "codecs": codecs,
            });
            let text = meta.to_string().into();
            store.put("zarr.json", text).await.unwrap();
            let meta = Metadata::read(&store).await.unwrap();
            let written = write_into(&meta, &array, &store, &[0, 0], false, 4).await;
            written.unwrap();
            for (k, boxed) in boxes.iter().enumerate() {
                let before = store.bytes_read();
                let counts = Counts::default();
                let part = read(&meta, &store, boxed, 4, &counts).await.unwrap();
                assert_eq!(
                    part,
                    array.slice_region(boxed).unwrap(),
                    "{codecs} {boxed:?}"
                );
                let read = store.bytes_read() - before;
                match asked {
                    Some(bytes) => assert_eq!(read, bytes[k], "{codecs} {boxed:?}"),
                    // Compressed: the chunks the box touches, whole.
                    None => assert!(read > 0 && read < 2 * 64 * 9, "{codecs} {boxed:?}: {read}"),
                }
                // A chunk or shard read in part counts once.
                let chunks = [1, 4, 2][k].min(if chunk == 16 { 1 } else { 4 });
                assert_eq!(counts.read.into_inner(), chunks, "{codecs} {boxed:?}");
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn requests_stay_in_flight() {
        let chunks = json!([{"name": "bytes", "configuration": {"endian": "little"}},
                            {"name": "zstd", "configuration": {"level": 1}}]);
        let shards = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 4],
            "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                             {"name": "crc32c"}],
        }}]);
        // 16 in flight: four rounds of requests where one at a time waits for 64.
        let bound = CHUNKS * LATENCY / 4;
        for codecs in [chunks.clone(), shards] {
            let (write, read) = round_trip(codecs, 16).await;
            assert!(write < bound, "writing took {write:?}");
            assert!(read < bound, "reading took {read:?}");
        }
        let (write, read) = round_trip(chunks, 1).await;
        assert!(write >= CHUNKS * LATENCY && read >= CHUNKS * LATENCY);
    }
}
