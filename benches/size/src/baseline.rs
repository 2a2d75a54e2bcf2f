//! The same program as `encode.rs` without the crate: an array of `f32` written out as
//! big-endian bytes by hand. The difference in size between the two binaries is what
//! calling the crate for one type adds.

use std::io::Write;

use ndarray::Array2;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(64);
    let a = Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
    let bytes: Vec<u8> = a.t().iter().flat_map(|x| x.to_be_bytes()).collect();
    std::io::stdout().write_all(&bytes).expect("stdout takes the bytes");
}
