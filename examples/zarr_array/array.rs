//! A whole array: read chunk by chunk straight into one array, and written chunk by chunk
//! straight from it through a chain of another byte order.

use std::sync::atomic::{AtomicUsize, Ordering};

use zarr_bytes::{DynArray, Endian};

use crate::chain::Counts;
use crate::metadata::Metadata;
use crate::store::Store;

/// Decode every chunk into its region of the array; missing chunks hold the fill value.
/// An error names the chunk's file.
pub fn read(meta: &Metadata, store: &Store, counts: &Counts) -> Result<DynArray, String> {
    let elements = meta.chain.elements();
    // Every element is written again by its chunk, or as the fill value of a missing one;
    // starting from the fill value keeps the allocation safe code.
    let array = elements
        .codec
        .full_dyn(&meta.data_type, &meta.shape, meta.fill_value())
        .map_err(|e| e.to_string())?;
    // Relaxed counting: the counts are read once every chunk is done.
    let fetch = |index: &[usize]| {
        let bytes = store.read(&meta.chunk_key(index))?;
        let count = if bytes.is_some() {
            &counts.read
        } else {
            &counts.missing
        };
        count.fetch_add(1, Ordering::Relaxed);
        Ok(bytes)
    };
    let name = |index: &[usize]| store.path(&meta.chunk_key(index)).display().to_string();
    meta.chain
        .decode_grid(array, &meta.grid()?, fetch, name, counts)
}

/// Write `array` to `out` with the source's codec chain, its `bytes` codecs in byte order
/// `endian`. Chunks that hold only the fill value are not written, as zarr-python does by
/// default. Returns the number of chunk files written.
pub fn write(
    meta: &Metadata,
    array: DynArray,
    out: &Store,
    endian: Endian,
) -> Result<usize, String> {
    let chain = meta.chain.with_endian(endian)?;
    let mut json = meta.json.clone();
    json["codecs"] = chain.to_json();
    json["data_type"] = serde_json::to_value(&meta.data_type).map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    out.write("zarr.json", text.as_bytes())?;

    let written = AtomicUsize::new(0);
    let store = |index: &[usize], bytes: Vec<u8>| {
        out.write(&meta.chunk_key(index), &bytes)?;
        written.fetch_add(1, Ordering::Relaxed);
        Ok(())
    };
    let name = |index: &[usize]| out.path(&meta.chunk_key(index)).display().to_string();
    chain.encode_grid(array, &meta.grid()?, store, name)?;
    Ok(written.into_inner())
}
