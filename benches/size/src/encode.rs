//! An array of `f32` written out as the Zarr `bytes` codec's big-endian bytes: the binary
//! that calls the crate for one type (`baseline.rs` is the same program without it).

use std::io::Write;

use ndarray::Array2;
use zarr_bytes::{BytesEncode, Endian};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(64);
    let a = Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
    let bytes = a.t().to_zarr_bytes(Endian::Big);
    std::io::stdout().write_all(&bytes).expect("stdout takes the bytes");
}
