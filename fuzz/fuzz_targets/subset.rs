//! Subsets of chunk grids of arbitrary, even huge, shapes at arbitrary origins: read from
//! arbitrary chunk bytes into new arrays, arrays of any rank and runtime-typed arrays, and
//! written into arbitrary stored chunks; every `Ok` checked element by element.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::subset(data);
});
