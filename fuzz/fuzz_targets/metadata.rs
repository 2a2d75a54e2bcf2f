//! Codec, data type and endianness metadata parsed from arbitrary text; whatever parses
//! must write out and read back to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::metadata(data);
});
