//! `region_byte_ranges`, `decode_region`, `view_zarr_bytes` and `cow_zarr_bytes` with
//! arbitrary shapes, regions, element sizes and bytes; every `Ok` must agree with a full
//! decode.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/hostile.rs"]
mod hostile;

fuzz_target!(|data: &[u8]| {
    hostile::region(data);
});
