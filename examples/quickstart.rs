//! Encode a few arrays with the `bytes` codec, print their bytes, and decode them back.
//!
//! Run with `cargo run --example quickstart`.

use half::f16;
use ndarray::{Array2, Array3, ArrayD, ShapeBuilder, array};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Endian, Error};

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(8)
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> Result<(), Error> {
    // Integers: the same values in both byte orders.
    let counts = array![[1u16, 2, 3], [0x0a0b, 0xfffe, 0]];
    for endian in [Endian::Little, Endian::Big] {
        let bytes = counts.to_zarr_bytes(endian);
        let back = Array2::<u16>::from_zarr_bytes(&bytes, (2, 3), endian)?;
        println!(
            "uint16 {endian:<6} {}  round trip: {}",
            hex(&bytes),
            back == counts
        );
    }

    // A Fortran-order array is encoded in logical C order, like any other layout.
    let mut fortran = Array2::<f64>::zeros((2, 2).f());
    fortran.assign(&array![[1.0, -0.0], [f64::INFINITY, f64::NAN]]);
    let bytes = fortran.to_zarr_bytes(Endian::Big);
    println!("float64 big    {}  (Fortran order in memory)", hex(&bytes));
    let back = Array2::<f64>::from_zarr_bytes(&bytes, (2, 2), Endian::Big)?;
    let same_bits = back
        .iter()
        .zip(&fortran)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    println!("               round trip bit for bit: {same_bits}");

    // Complex numbers: real part then imaginary part, each in the chosen byte order.
    let z = array![Complex::new(1.5f32, -2.0)];
    println!("complex64 big  {}", hex(&z.to_zarr_bytes(Endian::Big)));

    // Half precision, and a transposed view decoded into place.
    let h = Array3::from_shape_fn((2, 2, 2), |(i, j, k)| {
        f16::from_f32((i * 4 + j * 2 + k) as f32)
    });
    let bytes = h.view().reversed_axes().to_zarr_bytes(Endian::Little);
    println!("float16 little {}  (transposed view)", hex(&bytes));
    let mut target = Array3::from_elem((2, 2, 2), f16::ZERO);
    target
        .view_mut()
        .reversed_axes()
        .decode_zarr_bytes_into(&bytes, Endian::Little)?;
    println!(
        "               decoded into a transposed view: {}",
        target == h
    );

    // Bad input is an error, never a panic.
    let bad = ArrayD::<bool>::from_zarr_bytes(&[1, 0, 2], vec![3], Endian::Little);
    println!("bool with a byte 2: {}", bad.unwrap_err());
    let short = ArrayD::<u32>::from_zarr_bytes(&[0; 10], vec![3], Endian::Big);
    println!("10 bytes for 3 uint32: {}", short.unwrap_err());
    Ok(())
}
