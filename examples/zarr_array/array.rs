//! A whole array: every chunk decoded through the codec chain and pasted in place, and
//! written back chunk by chunk through a chain of another byte order.

use crate::chain::Stats;
use crate::grid;
use crate::metadata::Metadata;
use crate::store::Store;
use crate::values::{self, DynArray, Endian, Records};

/// A decoded array and what reading it found.
pub struct Assembled {
    pub array: DynArray,
    /// The array's little-endian bytes as records.
    pub records: Records,
    pub read: usize,
    pub missing: usize,
    pub stats: Stats,
}

/// Decode every chunk and paste it in place; missing chunks hold the fill value. An error
/// names the chunk's file.
pub fn read(meta: &Metadata, store: &Store) -> Result<Assembled, String> {
    let mut records = grid::filled(&meta.fill, &meta.shape)?;
    let (mut read, mut missing) = (0, 0);
    let mut stats = Stats::default();
    for index in grid::indices(&meta.grid()) {
        let key = meta.chunk_key(&index);
        let Some(bytes) = store.read(&key)? else {
            missing += 1;
            continue;
        };
        let chunk = meta
            .chain
            .decode(bytes, &meta.chunk_shape, &mut stats)
            .and_then(|chunk| values::to_records(&chunk))
            .map_err(|e| format!("{}: {e}", store.path(&key).display()))?;
        let region = grid::region(&index, &meta.chunk_shape, &meta.shape);
        grid::paste(&mut records, &region, &chunk);
        read += 1;
    }
    let array = values::from_records(records.view(), &meta.data_type)?;
    Ok(Assembled {
        array,
        records,
        read,
        missing,
        stats,
    })
}

/// Write `assembled` to `out` with the source's codec chain, its `bytes` codecs in byte
/// order `endian`. Chunks that hold only the fill value are not written, as zarr-python
/// does by default. Returns the number of chunk files written.
pub fn write(
    meta: &Metadata,
    assembled: &Assembled,
    out: &Store,
    endian: Endian,
) -> Result<usize, String> {
    let chain = meta.chain.with_endian(endian);
    let mut json = meta.json.clone();
    json["codecs"] = chain.to_json();
    json["data_type"] = values::data_type_json(&meta.data_type)?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    out.write("zarr.json", text.as_bytes())?;

    let empty = grid::filled(&meta.fill, &meta.chunk_shape)?;
    let mut written = 0;
    for index in grid::indices(&meta.grid()) {
        let region = grid::region(&index, &meta.chunk_shape, &meta.shape);
        let chunk = grid::cut(&assembled.records, &region, &meta.chunk_shape, &meta.fill)?;
        if chunk == empty {
            continue;
        }
        let key = meta.chunk_key(&index);
        let bytes = values::from_records(chunk.view(), &meta.data_type)
            .and_then(|chunk| chain.encode(chunk))
            .map_err(|e| format!("{}: {e}", out.path(&key).display()))?;
        out.write(&key, &bytes)?;
        written += 1;
    }
    Ok(written)
}
