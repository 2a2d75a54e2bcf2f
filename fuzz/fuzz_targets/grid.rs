//! `ChunkGrid` with arbitrary array and chunk shapes, its regions and the chunks a region
//! touches; for small arrays every chunk encoded and decoded back, and arbitrary bytes
//! decoded into a chunk's part and into every chunk.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::grid(data);
});
