//! `ChunkGrid` with arbitrary array and chunk shapes, its regions and the chunks a region
//! touches; for small arrays every chunk encoded and decoded back, densely and with chunks
//! of only the fill value left out, arbitrary bytes decoded into a chunk's part and into
//! every chunk, and runtime-typed views of arbitrary regions and axis orders through the
//! chunk calls.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::grid(data);
});
