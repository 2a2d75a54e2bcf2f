//! `DynArray::full` with an arbitrary data type, shape and fill value text; every `Ok` must
//! hold the shape and encode to one repeated record.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::fill(data);
});
