//! A reader and a writer the caller drives, over subsets of chunk grids of arbitrary, even
//! huge, shapes at arbitrary origins: parts put and chunks made or updated with arbitrary
//! indices and bytes of arbitrary lengths, in an arbitrary order; every `Ok` checked
//! element by element, every `Err` leaving the output and the buffer as they were.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::driven(data);
});
