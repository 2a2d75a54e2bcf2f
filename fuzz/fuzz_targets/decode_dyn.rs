//! `BytesCodec::decode_dyn` with an arbitrary data type name, shape, codec endianness and
//! payload; every `Ok` must re-encode to the input bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::decode_dyn(data);
});
