//! Properties of every element type over random shapes (0 to 5 axes of 0 to 9), random
//! layouts, both byte orders and random regions; of one type per element size over
//! shapes at the edges of squares and tiles; and of chunks of bigger arrays, of every
//! element size and conversion.

use std::io::Read;
use std::ops::Range;

use crate::common::{Bits, LAYOUTS, bits_of, property, reference_bytes};
use half::{bf16, f16};
use ndarray::{ArrayD, ArrayView, CowArray, IxDyn};
use num_complex::Complex;
use proptest::prelude::*;
use zarr_bytes::{
    BytesDecode, BytesDecodeInto, BytesEncode, BytesView, Endian, Error, decode_region,
    encode_region_into, minifloat, region_byte_ranges,
};

/// A reader that gives one byte per call.
struct OneByte<'a>(&'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn shapes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..=9, 0..=5)
        .prop_filter("small enough", |s| s.iter().product::<usize>() <= 1000)
}

/// A region of `shape` drawn from `seed`.
fn region_of(shape: &[usize], mut seed: u64) -> Vec<Range<usize>> {
    shape
        .iter()
        .map(|&len| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (seed >> 33) as usize % (len + 1);
            let b = (seed >> 13) as usize % (len + 1);
            a.min(b)..a.max(b)
        })
        .collect()
}

fn check<A: Bits>(shape: &[usize], layout: usize, big: bool, seed: u64) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let other = if big { Endian::Little } else { Endian::Big };
    let layout = LAYOUTS[layout];
    let n: usize = shape.iter().product();
    let a = ArrayD::from_shape_vec(
        IxDyn(shape),
        (0..n)
            .map(|i| crate::common::element::<A>(i + seed as usize))
            .collect(),
    )
    .unwrap();
    let fill = A::from_bits(&vec![0x77; A::SIZE]);
    let mut storage = layout.storage(shape, fill);
    layout.view(storage.view_mut()).assign(&a);
    let view = layout.view(storage.view_mut());

    // Encoding any layout is encoding its standard copy, by the codec's definition.
    let bytes = view.to_zarr_bytes(endian);
    assert_eq!(bytes, reference_bytes(a.view(), endian));
    // Decoding gives every bit back.
    let decoded = ArrayD::<A>::from_zarr_bytes(&bytes, shape, endian).unwrap();
    assert_eq!(bits_of(decoded.view()), bits_of(a.view()));
    // Decoding into any layout is decoding.
    let mut target = layout.storage(shape, fill);
    layout
        .view(target.view_mut())
        .decode_zarr_bytes_into(&bytes, endian)
        .unwrap();
    assert_eq!(
        bits_of(layout.view(target.view_mut()).view()),
        bits_of(a.view())
    );
    // Writers and readers agree with the in-memory calls, one byte at a time too.
    let mut written = Vec::new();
    view.write_zarr_bytes(&mut written, endian).unwrap();
    assert_eq!(written, bytes);
    let read = ArrayD::<A>::read_zarr_bytes(&bytes[..], shape, endian).unwrap();
    assert_eq!(bits_of(read.view()), bits_of(a.view()));
    let read = ArrayD::<A>::read_zarr_bytes(OneByte(&bytes), shape, endian).unwrap();
    assert_eq!(bits_of(read.view()), bits_of(a.view()));
    // The other byte order reverses each component.
    let components = A::zeroed().to_bits().len();
    let width = A::SIZE / components;
    let width = if A::DATA_TYPE.endian_applies() {
        width
    } else {
        1
    };
    let reversed: Vec<u8> = bytes
        .chunks(width)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_eq!(view.to_zarr_bytes(other), reversed);
    // Views and copies on write agree with decoding. A view declines exactly the bytes
    // that need converting: the other byte order where it applies, or codes held in the
    // low bits of their bytes (whose `from_bits` drops the others; `bool`'s checks them);
    // from an aligned buffer, it never fails otherwise.
    let mut aligned = vec![0u128; bytes.len().div_ceil(16)];
    let aligned = &mut bytemuck::cast_slice_mut::<u128, u8>(&mut aligned)[..bytes.len()];
    aligned.copy_from_slice(&bytes);
    let swapped = A::DATA_TYPE.endian_applies() && endian != Endian::NATIVE;
    let ones = vec![0xff; A::SIZE];
    let low_bits = A::DATA_TYPE != zarr_bytes::DataType::Bool
        && A::from_bits(&ones).to_bits().iter().any(|&b| b != 0xff);
    match ArrayView::<A, _>::view_zarr_bytes(aligned, IxDyn(shape), endian) {
        Ok(v) => {
            assert!(!swapped && !low_bits);
            assert_eq!(bits_of(v), bits_of(decoded.view()));
        }
        Err(Error::NeedsConversion { .. }) => assert!(swapped || low_bits),
        Err(e) => panic!("{e}"),
    }
    let cow = CowArray::<A, _>::view_zarr_bytes(&bytes, IxDyn(shape), endian).unwrap();
    assert_eq!(bits_of(cow.view()), bits_of(decoded.view()));

    // A region: its decode is the slice, its ranges hold it, writing it is assigning it.
    let region = region_of(shape, seed);
    let slice = crate::common::slice_of(&region);
    let part = decode_region::<A>(&bytes, shape, &region, endian).unwrap();
    assert_eq!(
        bits_of(part.view()),
        bits_of(decoded.slice(slice.as_slice()))
    );
    let joined: Vec<u8> = region_byte_ranges::<A>(shape, &region)
        .unwrap()
        .into_iter()
        .flat_map(|r| bytes[r].to_vec())
        .collect();
    let again = ArrayD::<A>::from_zarr_bytes(&joined, part.shape(), endian).unwrap();
    assert_eq!(bits_of(again.view()), bits_of(part.view()));
    let patch = part.mapv(|x| crate::common::element::<A>(x.to_bits()[0] as usize));
    let mut chunk = bytes.clone();
    encode_region_into(&mut chunk, shape, &region, &patch, endian).unwrap();
    let mut assigned = decoded.clone();
    assigned.slice_mut(slice.as_slice()).assign(&patch);
    assert_eq!(chunk, assigned.to_zarr_bytes(endian));
}

macro_rules! properties {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let cases = (shapes(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 256, cases, &|(shape, layout, big, seed)| {
                    check::<$t>(&shape, layout, big, seed >> 8)
                });
            }
        )*
    };
}

properties! {
    bool_: bool,
    int8: i8,
    int16: i16,
    int32: i32,
    int64: i64,
    uint8: u8,
    uint16: u16,
    uint32: u32,
    uint64: u64,
    float16: f16,
    bfloat16: bf16,
    float32: f32,
    float64: f64,
    complex64: Complex<f32>,
    complex128: Complex<f64>,
    r16: [u8; 2],
    r24: [u8; 3],
    complex_float16: Complex<f16>,
    complex_bfloat16: Complex<bf16>,
    float4_e2m1fn: minifloat::Float4E2M1FN,
    float6_e2m3fn: minifloat::Float6E2M3FN,
    float6_e3m2fn: minifloat::Float6E3M2FN,
    float8_e3m4: minifloat::Float8E3M4,
    float8_e4m3: minifloat::Float8E4M3,
    float8_e4m3b11fnuz: minifloat::Float8E4M3B11FNUZ,
    float8_e4m3fn: minifloat::Float8E4M3FN,
    float8_e4m3fnuz: minifloat::Float8E4M3FNUZ,
    float8_e5m2: minifloat::Float8E5M2,
    float8_e5m2fnuz: minifloat::Float8E5M2FNUZ,
    float8_e8m0fnu: minifloat::Float8E8M0FNU,
}

/// Axis lengths around the edges of rectangles (4, 8 and 16 elements) and tiles (32 to 512
/// elements, the heights of encoding's and decoding's tiles among them), with empty axes:
/// two or three axes, up to 2^17 elements.
fn edge_shapes() -> impl Strategy<Value = Vec<usize>> {
    let edges = vec![
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 95, 96, 97, 127,
        128, 129, 191, 192, 193, 223, 224, 225, 255, 256, 257, 335, 336, 337, 511, 512, 513,
    ];
    prop::collection::vec(prop::sample::select(edges), 2..=3)
        .prop_filter("small enough", |s| s.iter().product::<usize>() <= 1 << 17)
}

/// Encoding any layout and decoding into it, for arrays that cross the edges of rectangles
/// and tiles: the kernel moves of every element size, in every layout (negative strides
/// and steps too).
fn check_edges<A: Bits>(shape: &[usize], layout: usize, big: bool, seed: u64) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let layout = LAYOUTS[layout];
    let n: usize = shape.iter().product();
    let a = ArrayD::from_shape_vec(
        IxDyn(shape),
        (0..n)
            .map(|i| crate::common::element::<A>(i + seed as usize))
            .collect(),
    )
    .unwrap();
    let fill = A::from_bits(&vec![0x77; A::SIZE]);
    let mut storage = layout.storage(shape, fill);
    layout.view(storage.view_mut()).assign(&a);
    let view = layout.view(storage.view_mut());
    let ctx = format!("{layout:?} {shape:?} {endian:?}");

    let bytes = view.to_zarr_bytes(endian);
    assert!(bytes == reference_bytes(a.view(), endian), "encode {ctx}");
    let mut written = Vec::new();
    view.write_zarr_bytes(&mut written, endian).unwrap();
    assert!(written == bytes, "write {ctx}");
    let mut target = layout.storage(shape, fill);
    layout
        .view(target.view_mut())
        .decode_zarr_bytes_into(&bytes, endian)
        .unwrap();
    let decoded = bits_of(layout.view(target.view_mut()).view());
    assert!(decoded == bits_of(a.view()), "decode_into {ctx}");

    // The stream at any place in a cache line: tiles are cut where their runs start on one.
    let shift = (seed % 64) as usize;
    let mut buffer = vec![0x55; shift + bytes.len()];
    let stream = &mut buffer[shift..];
    view.encode_zarr_bytes_into(stream, endian).unwrap();
    assert!(
        stream == bytes,
        "encode_into {shift} bytes into a line, {ctx}"
    );
    let mut target = layout.storage(shape, fill);
    layout
        .view(target.view_mut())
        .decode_zarr_bytes_into(stream, endian)
        .unwrap();
    let decoded = bits_of(layout.view(target.view_mut()).view());
    assert!(
        decoded == bits_of(a.view()),
        "decode_into from {shift} bytes into a line, {ctx}"
    );
}

macro_rules! edges {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let cases = (edge_shapes(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 64, cases, &|(shape, layout, big, seed)| {
                    check_edges::<$t>(&shape, layout, big, seed >> 8)
                });
            }
        )*
    };
}

// One type per element size and kernel, and bool; the complex types of 4 and 8 bytes swap
// their parts apart, not the whole element.
edges! {
    edges_uint8: u8,
    edges_uint16: u16,
    edges_float32: f32,
    edges_complex_float16: Complex<f16>,
    edges_float64: f64,
    edges_complex64: Complex<f32>,
    edges_complex128: Complex<f64>,
    edges_bool: bool,
}

/// Chunk shapes: two or three axes of lengths around the edges of rectangles and of tiles
/// of up to 256 columns, up to 2^14 elements.
fn chunk_shapes() -> impl Strategy<Value = Vec<usize>> {
    let edges = vec![
        1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 97, 129, 225, 257,
    ];
    prop::collection::vec(prop::sample::select(edges), 2..=3)
        .prop_filter("small enough", |s| s.iter().product::<usize>() <= 1 << 14)
}

/// A chunk of a bigger array of `shape`: the storage's order, margins of 0 to 4 indices
/// along every axis, axes run backwards, at most one axis stepped by 2, and chunks of
/// chunks.
fn chunks_of(shape: Vec<usize>) -> impl Strategy<Value = (Vec<usize>, crate::common::Chunk)> {
    let n = shape.len();
    (
        prop::sample::select(crate::common::ORDERS.to_vec()),
        prop::collection::vec(0usize..=4, n),
        prop::collection::vec(0usize..=4, n),
        prop::collection::vec(any::<bool>(), n),
        prop::option::weighted(0.25, 0..n),
        any::<bool>(),
    )
        .prop_map(move |(order, before, after, reversed, stepped, nested)| {
            let chunk = crate::common::Chunk {
                order,
                before,
                after,
                reversed,
                stepped,
                nested,
            };
            (shape.clone(), chunk)
        })
}

/// Encoding a chunk of a bigger array is encoding its standard copy; decoding into one,
/// from a stream at any place in a cache line, writes exactly its elements and nothing
/// around them; writers agree.
fn check_chunk<A: Bits>(shape: &[usize], chunk: &crate::common::Chunk, big: bool, seed: u64) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let n: usize = shape.iter().product();
    let a = ArrayD::from_shape_vec(
        IxDyn(shape),
        (0..n)
            .map(|i| crate::common::element::<A>(i + seed as usize))
            .collect(),
    )
    .unwrap();
    let fill = A::from_bits(&vec![0x77; A::SIZE]);
    let ctx = format!("{shape:?} {chunk:?} {endian:?}");
    let mut storage = chunk.storage(shape, fill);
    chunk.view(storage.view_mut()).assign(&a);
    let expected = storage.clone();
    let view = chunk.view(storage.view_mut());

    let bytes = view.to_zarr_bytes(endian);
    assert!(bytes == reference_bytes(a.view(), endian), "encode {ctx}");
    let mut written = Vec::new();
    view.write_zarr_bytes(&mut written, endian).unwrap();
    assert!(written == bytes, "write {ctx}");
    let shift = (seed % 64) as usize;
    let mut buffer = vec![0x55; shift + bytes.len()];
    let stream = &mut buffer[shift..];
    view.encode_zarr_bytes_into(stream, endian).unwrap();
    assert!(
        stream == bytes,
        "encode_into {shift} bytes into a line, {ctx}"
    );

    let mut target = chunk.storage(shape, fill);
    chunk
        .view(target.view_mut())
        .decode_zarr_bytes_into(stream, endian)
        .unwrap();
    assert!(
        bits_of(target.view()) == bits_of(expected.view()),
        "decode_into {ctx}"
    );
}

macro_rules! chunks {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let cases = (chunk_shapes().prop_flat_map(chunks_of), any::<bool>(), any::<u64>());
                property(file!(), 48, cases, &|((shape, chunk), big, seed)| {
                    check_chunk::<$t>(&shape, &chunk, big, seed >> 8)
                });
            }
        )*
    };
}

// Every element type: each size and conversion has its own kernels and lane moves.
chunks! {
    chunks_bool: bool,
    chunks_int8: i8,
    chunks_uint8: u8,
    chunks_uint16: u16,
    chunks_float16: f16,
    chunks_complex_float16: Complex<f16>,
    chunks_float32: f32,
    chunks_int32: i32,
    chunks_float64: f64,
    chunks_int64: i64,
    chunks_complex64: Complex<f32>,
    chunks_complex128: Complex<f64>,
    chunks_r24: [u8; 3],
    chunks_float4_e2m1fn: minifloat::Float4E2M1FN,
    chunks_float8_e4m3: minifloat::Float8E4M3,
}

/// Strings with astral characters, inner NULs and empties, as `fixed_length_utf32` holds
/// them (no trailing NUL), of at most `max` characters.
fn strings(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![Just('\0'), Just('😀'), Just('\u{10ffff}'), any::<char>()],
        0..=max,
    )
    .prop_map(|chars| {
        chars
            .into_iter()
            .collect::<String>()
            .trim_end_matches('\0')
            .to_string()
    })
}

/// A struct of a sub-byte integer, a UTF-32 string, byte strings and a nested complex,
/// with `n` elements drawn from the strategies.
fn struct_of(
    ints: Vec<i8>,
    texts: Vec<String>,
    blobs: Vec<Vec<u8>>,
    parts: Vec<(f32, f32)>,
) -> zarr_bytes::DynArray {
    use std::num::NonZeroUsize;
    use zarr_bytes::{DynArray, FixedLength, StructArray};
    let length = |n| NonZeroUsize::new(n).unwrap();
    fn column<T>(v: Vec<T>) -> ArrayD<T> {
        let n = v.len();
        ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap()
    }
    let complex = parts
        .into_iter()
        .map(|(re, im)| Complex::new(re, im))
        .collect();
    let inner = StructArray::new(vec![("z".into(), DynArray::Complex64(column(complex)))]).unwrap();
    DynArray::Struct(
        StructArray::new(vec![
            ("i".into(), DynArray::Int4(column(ints))),
            (
                "t".into(),
                DynArray::FixedLengthUtf32(
                    FixedLength::<String>::new(column(texts), length(3)).unwrap(),
                ),
            ),
            (
                "b".into(),
                DynArray::NullTerminatedBytes(
                    FixedLength::<Vec<u8>>::new(column(blobs), length(3)).unwrap(),
                ),
            ),
            ("inner".into(), DynArray::Struct(inner)),
        ])
        .unwrap(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Structs of sub-byte integers, strings, byte strings and nested complex numbers
    /// round-trip in both byte orders, and the byte orders differ exactly by reversing
    /// each multi-byte component of each field.
    #[test]
    fn structs_of_extension_types_round_trip(
        rows in prop::collection::vec(
            (
                -8i8..=7,
                strings(3),
                prop::collection::vec(any::<u8>(), 0..=3)
                    .prop_map(|mut b| { while b.last() == Some(&0) { b.pop(); } b }),
                (any::<f32>(), any::<f32>()),
            ),
            0..20,
        )
    ) {
        use zarr_bytes::BytesCodec;
        let ints = rows.iter().map(|r| r.0).collect();
        let texts = rows.iter().map(|r| r.1.clone()).collect();
        let blobs = rows.iter().map(|r| r.2.clone()).collect();
        let parts = rows.iter().map(|r| r.3).collect();
        let array = struct_of(ints, texts, blobs, parts);
        let t = array.data_type();
        prop_assert_eq!(t.size(), 1 + 12 + 3 + 8);
        let n = rows.len();
        let big = BytesCodec::new(Endian::Big).encode_dyn(&array).unwrap();
        let little = BytesCodec::new(Endian::Little).encode_dyn(&array).unwrap();
        prop_assert_eq!(big.len(), n * t.size());
        // Per record: 1 byte, three 4-byte units, 3 bytes, two 4-byte parts.
        let widths = [1, 4, 4, 4, 1, 1, 1, 4, 4];
        let mut swapped: Vec<u8> = Vec::with_capacity(big.len());
        for record in big.chunks(t.size()) {
            let mut at = 0;
            for w in widths {
                swapped.extend(record[at..at + w].iter().rev().copied());
                at += w;
            }
        }
        prop_assert_eq!(&swapped, &little);
        for (codec, bytes) in [(BytesCodec::new(Endian::Big), &big), (BytesCodec::new(Endian::Little), &little)] {
            let back = codec.decode_dyn(bytes, &t, &[n]).unwrap();
            // Compared as bytes: NaN parts are not equal to themselves.
            prop_assert_eq!(&codec.encode_dyn(&back).unwrap(), bytes);
            prop_assert_eq!(back.data_type(), t.clone());
        }
    }
}

/// Every data type of the table through the runtime API, in a permuted layout: a chunk of
/// random valid bytes decodes, encodes back to its canonical bytes (unused bits clear), and
/// the array with its axes permuted, a view of another layout, encodes to those bytes'
/// records in the permuted order and decodes back from them.
fn check_table_type(index: usize, shape: &[usize], rotate: usize, big: bool, seed: u64) {
    use zarr_bytes::{BytesCodec, DataType, DynArray};
    let data_type = &DataType::FIXED[index];
    let endian = if big { Endian::Big } else { Endian::Little };
    let codec = BytesCodec::new(endian);
    let ctx = format!("{data_type} {shape:?} {endian}");
    let chunk = crate::common::valid_chunk(data_type, shape, endian, seed);
    let d = codec.decode_dyn(&chunk, data_type, shape).unwrap();
    let canonical = codec.encode_dyn(&d).unwrap();
    let bits = |d: &DynArray| codec.encode_dyn(d).unwrap();
    assert_eq!(
        bits(&codec.decode_dyn(&canonical, data_type, shape).unwrap()),
        canonical
    );

    let ndim = shape.len();
    let mut order: Vec<usize> = (0..ndim).collect();
    order.rotate_left(rotate % ndim.max(1));
    if ndim > 1 {
        order.swap(0, ndim - 1);
    }
    let permuted = d.permuted_axes(&order).unwrap();
    let size = data_type.size();
    let mut with_bytes = shape.to_vec();
    with_bytes.push(size);
    let records = ArrayD::from_shape_vec(IxDyn(&with_bytes), canonical).unwrap();
    let mut record_order = order.clone();
    record_order.push(ndim);
    let records = records.permuted_axes(record_order);
    let want: Vec<u8> = records.iter().copied().collect();
    assert_eq!(bits(&permuted), want, "encode {ctx} as {order:?}");
    let back = codec
        .decode_dyn(&want, data_type, permuted.shape())
        .unwrap();
    assert_eq!(bits(&back), want, "decode {ctx} as {order:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_type_of_the_table_in_a_permuted_layout(
        index in 0..zarr_bytes::DataType::FIXED.len(),
        shape in shapes(),
        rotate in 0usize..5,
        big: bool,
        seed: u64,
    ) {
        check_table_type(index, &shape, rotate, big, seed);
    }
}
