//! Byte patterns of each element type, by the spec, in both byte orders.

use half::f16;
use ndarray::{Array1, arr1};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesEncode, Endian};

fn both<A: zarr_bytes::Element>(values: Vec<A>, little: &[u8], big: &[u8]) -> [Array1<A>; 2] {
    let a = Array1::from(values);
    assert_eq!(a.to_zarr_bytes(Endian::Little), little);
    assert_eq!(a.to_zarr_bytes(Endian::Big), big);
    [
        Array1::<A>::from_zarr_bytes(little, a.len(), Endian::Little).unwrap(),
        Array1::<A>::from_zarr_bytes(big, a.len(), Endian::Big).unwrap(),
    ]
}

#[test]
fn integers_are_twos_complement() {
    let [l, b] = both(
        vec![-2i16, 0x0102],
        &[0xfe, 0xff, 0x02, 0x01],
        &[0xff, 0xfe, 0x01, 0x02],
    );
    assert_eq!(l, arr1(&[-2, 0x0102]));
    assert_eq!(b, l);
    let [l, _] = both(
        vec![i64::MIN],
        &[0, 0, 0, 0, 0, 0, 0, 0x80],
        &[0x80, 0, 0, 0, 0, 0, 0, 0],
    );
    assert_eq!(l[0], i64::MIN);
    both(vec![0x01020304u32], &[4, 3, 2, 1], &[1, 2, 3, 4]);
}

#[test]
fn single_byte_types_ignore_the_endian() {
    both(vec![-1i8, 5], &[0xff, 5], &[0xff, 5]);
    both(vec![200u8], &[200], &[200]);
    both(vec![true, false], &[1, 0], &[1, 0]);
}

#[test]
fn raw_bits_are_copied_as_they_are() {
    let [l, b] = both(vec![[1u8, 2], [3, 4]], &[1, 2, 3, 4], &[1, 2, 3, 4]);
    assert_eq!(l, b);
    let [l, b] = both(
        vec![[1u8, 2, 3], [4, 5, 6]],
        &[1, 2, 3, 4, 5, 6],
        &[1, 2, 3, 4, 5, 6],
    );
    assert_eq!(l, arr1(&[[1, 2, 3], [4, 5, 6]]));
    assert_eq!(b, l);
}

#[test]
fn floats_keep_every_bit() {
    // Signalling NaN, NaN with payload, -0.0, infinity, smallest subnormal.
    let patterns = [
        0x7ff0_0000_0000_0001u64,
        0xfff8_0000_0000_0123,
        1 << 63,
        0x7ff0 << 48,
        1,
    ];
    let values: Vec<f64> = patterns.iter().map(|&b| f64::from_bits(b)).collect();
    let big: Vec<u8> = patterns.iter().flat_map(|b| b.to_be_bytes()).collect();
    let little: Vec<u8> = patterns.iter().flat_map(|b| b.to_le_bytes()).collect();
    for back in both(values, &little, &big) {
        let bits: Vec<u64> = back.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, patterns);
    }
    let patterns32 = [0x7f80_0001u32, 0xffc0_1234, 0x8000_0000, 1];
    let values: Vec<f32> = patterns32.iter().map(|&b| f32::from_bits(b)).collect();
    let big: Vec<u8> = patterns32.iter().flat_map(|b| b.to_be_bytes()).collect();
    let little: Vec<u8> = patterns32.iter().flat_map(|b| b.to_le_bytes()).collect();
    for back in both(values, &little, &big) {
        let bits: Vec<u32> = back.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, patterns32);
    }
}

#[test]
fn float16_is_never_widened() {
    // A signalling NaN would be quieted by a round trip through f32.
    let patterns = [0x7c01u16, 0xfe01, 0x8000, 0x0001, 0x3c00];
    let values: Vec<f16> = patterns.iter().map(|&b| f16::from_bits(b)).collect();
    let big: Vec<u8> = patterns.iter().flat_map(|b| b.to_be_bytes()).collect();
    let little: Vec<u8> = patterns.iter().flat_map(|b| b.to_le_bytes()).collect();
    for back in both(values, &little, &big) {
        let bits: Vec<u16> = back.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, patterns);
    }
}

#[test]
fn complex_parts_are_swapped_one_by_one() {
    let z = Complex::new(1.0f64, -2.0);
    let mut big = 1.0f64.to_be_bytes().to_vec();
    big.extend((-2.0f64).to_be_bytes());
    let mut little = 1.0f64.to_le_bytes().to_vec();
    little.extend((-2.0f64).to_le_bytes());
    let [l, b] = both(vec![z], &little, &big);
    assert_eq!(l[0], z);
    assert_eq!(b[0], z);
    // Swapping the whole 16 bytes would put the imaginary part first.
    let mut whole = little.clone();
    whole.reverse();
    assert_ne!(whole, big);
    let w = Complex::new(f32::from_bits(0x7f80_0001), -0.0f32);
    let [_, b] = both(
        vec![w],
        &[1, 0, 0x80, 0x7f, 0, 0, 0, 0x80],
        &[0x7f, 0x80, 0, 1, 0x80, 0, 0, 0],
    );
    assert_eq!(
        (b[0].re.to_bits(), b[0].im.to_bits()),
        (0x7f80_0001, 0x8000_0000)
    );
}
