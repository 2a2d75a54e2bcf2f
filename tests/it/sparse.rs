//! Chunks of only the fill value, and whole arrays from their chunks: the sparse encoder and
//! the fill test against the naive reference (encode every chunk, compare it with a chunk of
//! the fill value), the one-call decoders against filling then decoding, in every layout,
//! both byte orders and every element size; bit-exact equality (`-0.0`, NaN payloads,
//! complex parts, sub-byte values, padded text, struct fields); runtime-typed views.
// One range per axis: a 1-d region is an array of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::common::{Bits, LAYOUTS, bits_of, element, property, slice_of};
use crate::grid::reference_chunk;
use crate::grid_dyn::{data_types, fill_of, reference};
use half::f16;
use ndarray::{Array, Array1, Array2, Array3, ArrayD, ArrayViewD, IxDyn, ShapeBuilder, arr1};
use num_complex::Complex;
use proptest::prelude::*;
use zarr_bytes::{
    BytesCodec, ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, Endian, Error, minifloat,
};

/// What the sparse encoder hands over: each chunk's bytes or `None`, and the order.
type Sparse = (BTreeMap<Vec<usize>, Option<Vec<u8>>>, Vec<Vec<usize>>);

fn encode_sparse<A: Bits>(
    a: ArrayViewD<'_, A>,
    grid: &ChunkGrid,
    fill: A,
    endian: Endian,
) -> Sparse {
    let chunks = Mutex::new((BTreeMap::new(), Vec::new()));
    a.encode_zarr_chunks_sparse(grid, fill, endian, |index, bytes| {
        let mut c = chunks.lock().unwrap();
        let first = c.0.insert(index.to_vec(), bytes.map(<[u8]>::to_vec));
        assert!(first.is_none(), "{index:?} twice");
        c.1.push(index.to_vec());
        Ok::<(), Error>(())
    })
    .unwrap();
    chunks.into_inner().unwrap()
}

/// `fill` with one bit of its first component flipped: a value that differs from the fill
/// value only in its bits (`-0.0` beside `0.0`, another NaN payload).
fn near<A: Bits>(fill: A, bit: u32) -> A {
    let mut bits = fill.to_bits();
    let width = 8 * (A::SIZE / bits.len()) as u32;
    bits[0] ^= 1 << (bit % width);
    A::from_bits(&bits)
}

pub fn check<A: Bits>(shape: &[usize], chunk_shape: &[usize], layout: usize, big: bool, seed: u64) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let layout = LAYOUTS[layout];
    let n: usize = shape.iter().product();
    let fill = element::<A>(seed as usize + 7919);
    let grid = ChunkGrid::new(shape, chunk_shape).unwrap();
    // Chunk by chunk, by a hash of its number: all fill, fill but for one element a bit
    // away from it, or data.
    let mut a = ArrayD::from_shape_vec(
        IxDyn(shape),
        (0..n).map(|i| element::<A>(i + seed as usize)).collect(),
    )
    .unwrap();
    for (k, index) in grid.indices().enumerate() {
        let region = grid.region(&index).unwrap();
        let mut part = a.slice_mut(slice_of(&region).as_slice());
        match (seed as usize + k * 7) % 5 {
            0 | 1 => part.fill(fill),
            2 => {
                part.fill(fill);
                let at = k % part.len().max(1);
                if let Some(x) = part.iter_mut().nth(at) {
                    *x = near(fill, (seed >> 3) as u32 + k as u32);
                }
            }
            _ => {}
        }
    }
    let sentinel = element::<A>(seed as usize + 104729);
    let mut storage = layout.storage(shape, sentinel);
    layout.view(storage.view_mut()).assign(&a);
    let view = layout.view(storage.view_mut());
    let view = view.view();

    // Each chunk as the naive reference says: `None` exactly when its padded bytes are
    // a chunk of the fill value's, else those bytes.
    let fill_chunk = reference_bytes_of_fill(chunk_shape, fill, endian);
    let expected: Vec<(Vec<usize>, Option<Vec<u8>>)> = grid
        .indices()
        .map(|index| {
            let region = grid.region(&index).unwrap();
            let bytes = reference_chunk(a.view(), &region, chunk_shape, fill, endian);
            let stored = (bytes != fill_chunk).then_some(bytes);
            (index, stored)
        })
        .collect();
    let (chunks, order) = encode_sparse(view.view(), &grid, fill, endian);
    assert_eq!(chunks.len(), grid.len());
    for (index, want) in &expected {
        assert_eq!(
            &chunks[index], want,
            "chunk {index:?} of {shape:?} in {layout:?}"
        );
        // The fill test of the chunk's part alone says the same.
        let region = grid.region(index).unwrap();
        let part = view.slice(slice_of(&region).as_slice());
        assert_eq!(
            part.is_zarr_fill(fill),
            want.is_none(),
            "{index:?} {layout:?}"
        );
    }
    if !cfg!(feature = "rayon") {
        assert!(order.iter().eq(expected.iter().map(|(i, _)| i)));
    }
    let all_fill = expected.iter().all(|(_, c)| c.is_none());
    assert_eq!(view.is_zarr_fill(fill), all_fill);

    // Whole arrays from the stored chunks (the left-out ones missing, and one more): the
    // same as filling an array, then decoding into it.
    let dropped = (!grid.is_empty()).then(|| seed as usize % grid.len());
    let stored: BTreeMap<Vec<usize>, Vec<u8>> = expected
        .iter()
        .enumerate()
        .filter(|&(k, _)| Some(k) != dropped)
        .filter_map(|(_, (index, bytes))| Some((index.clone(), bytes.clone()?)))
        .collect();
    let source = |index: &[usize]| Ok::<_, Error>(stored.get(index).map(Vec::as_slice));
    let got = ArrayD::<A>::from_zarr_chunks(&grid, fill, endian, source).unwrap();
    let mut want = ArrayD::from_elem(IxDyn(shape), sentinel);
    want.decode_zarr_chunks_into(&grid, fill, endian, source)
        .unwrap();
    assert_eq!(got.shape(), shape);
    assert!(got.is_standard_layout());
    assert_eq!(bits_of(got.view()), bits_of(want.view()), "{shape:?}");
    if !matches!(dropped, Some(k) if expected[k].1.is_some()) {
        assert_eq!(bits_of(got.view()), bits_of(a.view()), "{shape:?}");
    }
}

/// The bytes of a chunk of `shape` that holds only `fill`.
fn reference_bytes_of_fill<A: Bits>(shape: &[usize], fill: A, endian: Endian) -> Vec<u8> {
    let chunk = ArrayD::from_elem(IxDyn(shape), fill);
    crate::common::reference_bytes(chunk.view(), endian)
}

fn shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (0usize..=4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0usize..=7, rank),
                prop::collection::vec(1usize..=5, rank),
            )
        })
        .prop_filter("small enough", |(s, c)| {
            s.iter().product::<usize>() <= 600 && c.iter().product::<usize>() <= 200
        })
}

macro_rules! properties {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let cases = (shapes(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 40, cases, &|((shape, chunk), layout, big, seed)| {
                    check::<$t>(&shape, &chunk, layout, big, seed >> 8)
                });
            }
        )*
    };
}

// One type per element size and per conversion that differs.
properties! {
    sparse_bool: bool,
    sparse_uint8: u8,
    sparse_float4_e2m1fn: minifloat::Float4E2M1FN,
    sparse_int16: i16,
    sparse_float16: f16,
    sparse_r24: [u8; 3],
    sparse_float32: f32,
    sparse_float64: f64,
    sparse_complex128: Complex<f64>,
}

/// Arrays large enough for the tiled paths and for fill tests of many runs.
#[test]
fn tiled_layouts_in_sparse_chunks_with_edges() {
    for &layout in &[1, 3, 4, 8, 11, 12] {
        check::<f64>(&[70, 130], &[64, 48], layout, true, 1);
        check::<u16>(&[9, 70, 75], &[4, 64, 32], layout, false, 2);
        check::<u8>(&[130, 200], &[100, 72], layout, false, 3);
        check::<Complex<f32>>(&[40, 90], &[33, 64], layout, true, 4);
    }
}

/// Equality is of bits: -0.0 is data beside a 0.0 fill, a NaN is the fill value only with
/// its payload, both parts of a complex number count.
#[test]
fn the_fill_test_compares_bits() {
    let zeros = Array2::<f64>::zeros((4, 300).f());
    assert!(zeros.is_zarr_fill(0.0));
    assert!(zeros.t().is_zarr_fill(0.0));
    assert!(!zeros.is_zarr_fill(-0.0));
    let mut z = zeros.clone();
    z[[3, 299]] = -0.0;
    assert!(!z.is_zarr_fill(0.0));
    assert!(!z.slice(ndarray::s![.., 200..]).is_zarr_fill(0.0));
    assert!(z.slice(ndarray::s![.., ..299]).is_zarr_fill(0.0));
    let payload = f32::from_bits(0x7fc0_0001);
    let nans = Array1::from_elem(9, f32::NAN);
    assert!(nans.is_zarr_fill(f32::NAN));
    assert!(!nans.is_zarr_fill(payload));
    assert!(!arr1(&[f32::NAN, payload]).is_zarr_fill(f32::NAN));
    assert!(arr1(&[f16::from_bits(0x8000)]).is_zarr_fill(f16::NEG_ZERO));
    assert!(!arr1(&[f16::ZERO]).is_zarr_fill(f16::NEG_ZERO));
    let c = Complex::new(1.0f64, 0.0);
    assert!(!arr1(&[c, Complex::new(1.0, -0.0)]).is_zarr_fill(c));
    assert!(!arr1(&[c, Complex::new(2.0, 0.0)]).is_zarr_fill(c));
    assert!(arr1(&[c, c]).is_zarr_fill(c));
    // Stepped and reversed views are read where they are.
    let a = Array1::from_shape_fn(1000, |i| if i % 2 == 0 { 5u16 } else { 6 });
    assert!(a.slice(ndarray::s![..;2]).is_zarr_fill(5));
    assert!(a.slice(ndarray::s![1..;-2]).is_zarr_fill(6));
    assert!(!a.slice(ndarray::s![..;3]).is_zarr_fill(5));
    // An empty array holds nothing but the fill value; a 0-d array its one element.
    assert!(Array2::<u8>::zeros((0, 3)).is_zarr_fill(1));
    assert!(ndarray::arr0(true).is_zarr_fill(true));
    assert!(!ndarray::arr0(false).is_zarr_fill(true));
    // A broadcast view is its one element, many times.
    let b = arr1(&[7i64]);
    assert!(b.broadcast((50, 3)).unwrap().is_zarr_fill(7));
}

/// An array of u8 whose chunks are all fill value but one element: the one chunk that
/// holds it is written; a C-order array with the element in an edge chunk's part.
#[test]
fn one_element_makes_its_chunk_data() {
    let mut a = Array3::<u8>::from_elem((5, 6, 7), 9);
    a[[4, 5, 6]] = 8;
    let grid = ChunkGrid::new(a.shape(), &[2, 4, 3]).unwrap();
    let (chunks, _) = encode_sparse(a.view().into_dyn(), &grid, 9, Endian::Little);
    let written: Vec<&Vec<usize>> = chunks
        .iter()
        .filter(|(_, c)| c.is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(written, [&vec![2, 1, 2]]);
    let bytes = chunks[&vec![2, 1, 2]].clone().unwrap();
    // The part [4..5, 4..6, 6..7] of a [2, 4, 3] chunk: element [0, 1, 0] is the 8.
    let mut want = vec![9u8; 24];
    want[3] = 8;
    assert_eq!(bytes, want);
}

/// The caller's own error type.
#[derive(Debug, PartialEq)]
enum Store {
    Gone(Vec<usize>),
    Codec(Error),
}

impl From<Error> for Store {
    fn from(e: Error) -> Self {
        Store::Codec(e)
    }
}

#[test]
fn sparse_errors_and_rank_checks() {
    let a = Array2::<u16>::zeros((3, 4));
    let grid = ChunkGrid::new(&[3, 5], &[2, 2]).unwrap();
    let never =
        |_: &[usize], _: Option<&[u8]>| -> Result<(), Error> { panic!("no chunk expected") };
    assert!(matches!(
        a.encode_zarr_chunks_sparse(&grid, 0, Endian::Big, never),
        Err(Error::GridShapeMismatch { .. })
    ));
    let huge = ChunkGrid::new(&[3, 4], &[usize::MAX / 2, 4]).unwrap();
    assert!(matches!(
        a.encode_zarr_chunks_sparse(&huge, 0, Endian::Big, never),
        Err(Error::ShapeOverflow { element_size: 2 })
    ));
    // The sink's error, for a chunk of data or one left out, comes back as it is.
    let grid = ChunkGrid::new(&[3, 4], &[2, 2]).unwrap();
    let mut b = a.clone();
    b[[2, 3]] = 1;
    for gone in [[0, 0], [1, 1]] {
        let r = b.encode_zarr_chunks_sparse(&grid, 0, Endian::Big, |index, _| {
            if index == gone {
                return Err(Store::Gone(index.to_vec()));
            }
            Ok(())
        });
        assert_eq!(r, Err(Store::Gone(gone.to_vec())));
    }
    // A grid of another rank than the array type, or too large: before any chunk is read.
    let none = |_: &[usize]| -> Result<Option<Vec<u8>>, Error> { panic!("no chunk expected") };
    let r =
        Array2::<u16>::from_zarr_chunks(&ChunkGrid::new(&[3], &[2]).unwrap(), 0, Endian::Big, none);
    assert!(
        matches!(
            r,
            Err(Error::RankMismatch {
                expected: 2,
                actual: 1
            })
        ),
        "{r:?}"
    );
    let r = Array2::<u16>::from_zarr_chunks(&huge, 0, Endian::Big, none);
    assert!(
        matches!(r, Err(Error::ShapeOverflow { element_size: 2 })),
        "{r:?}"
    );
    let far = ChunkGrid::new(&[usize::MAX / 2, 2], &[4, 2]).unwrap();
    let r = Array2::<u16>::from_zarr_chunks(&far, 0, Endian::Big, none);
    assert!(
        matches!(r, Err(Error::ShapeOverflow { element_size: 2 })),
        "{r:?}"
    );
    // A chunk's error names the chunk; the source's comes back as it is.
    let r = Array2::<bool>::from_zarr_chunks(&grid, false, Endian::Big, |index| {
        Ok::<_, Error>(Some(if index == [1, 0] {
            vec![1, 2, 0, 0]
        } else {
            vec![0; 4]
        }))
    });
    assert!(
        matches!(&r, Err(Error::InChunk { index, error })
        if **index == [1, 0] && matches!(**error, Error::InvalidBool { offset: 1, value: 2 })),
        "{r:?}"
    );
    let r = ArrayD::<u16>::from_zarr_chunks(&grid, 0, Endian::Big, |index| {
        if index == [0, 1] {
            return Err(Store::Gone(index.to_vec()));
        }
        Ok(None::<Vec<u8>>)
    });
    assert_eq!(r, Err(Store::Gone(vec![0, 1])));
    // Every rank of array type reads its own rank, 0-d too.
    let scalar = ChunkGrid::new(&[], &[]).unwrap();
    let s = Array::<u16, ndarray::Ix0>::from_zarr_chunks(&scalar, 3, Endian::Little, |_| {
        Ok::<_, Error>(Some([1u8, 2]))
    })
    .unwrap();
    assert_eq!(s[()], 0x0201);
    let empty = ChunkGrid::new(&[0, 4], &[2, 2]).unwrap();
    let e = Array2::<u16>::from_zarr_chunks(&empty, 3, Endian::Little, none).unwrap();
    assert_eq!(e.shape(), &[0, 4]);
}

/// Every data type, known at run time, through views of a region with its axes permuted:
/// the sparse encoder and the fill test against the naive reference, the one-call decoder
/// against filling then decoding.
#[test]
fn every_data_type_sparse_through_views() {
    let shape = [5usize, 6, 4];
    let region = [1..5, 0..5, 1..4]; // 4 × 5 × 3 of the array
    let order = [2usize, 0, 1]; // viewed as 3 × 4 × 5
    let chunk = [2usize, 3, 2];
    for t in data_types() {
        for endian in [Endian::Little, Endian::Big] {
            let codec = BytesCodec::new(endian);
            let fill = fill_of(&t);
            let ctx = format!("{t} {endian}");
            // An owner of data, with the viewed part mostly the fill value.
            let bytes = crate::common::valid_chunk(&t, &shape, endian, 11);
            let mut owner = codec.decode_dyn(&bytes, &t, &shape).unwrap();
            let viewed: Vec<usize> = order.iter().map(|&k| region[k].len()).collect();
            let filled = codec.full_dyn(&t, &viewed, &fill).unwrap();
            {
                // Pasted through the view: its first two chunks along axis 2 stay data.
                let part = owner
                    .view()
                    .slice_region(&region)
                    .unwrap()
                    .permuted_axes(&order)
                    .unwrap();
                assert_eq!(part.shape(), viewed);
                let keep = part.slice_region(&[0..3, 0..4, 0..3]).unwrap().to_owned();
                let mut whole = filled.clone();
                whole.assign_region(&[0..3, 0..4, 0..3], &keep).unwrap();
                let mut view = owner.view_mut();
                let part = view
                    .slice_region_mut(&region)
                    .unwrap()
                    .permuted_axes(&order)
                    .unwrap();
                let all = ChunkGrid::new(&viewed, &viewed).unwrap();
                let whole_bytes = codec.encode_dyn(&whole).unwrap();
                codec
                    .decode_chunks_into_dyn(part, &all, &fill, |_| {
                        Ok::<_, Error>(Some(&whole_bytes[..]))
                    })
                    .unwrap();
            }
            let part = owner
                .view()
                .slice_region(&region)
                .unwrap()
                .permuted_axes(&order)
                .unwrap();
            let copy = part.to_owned();
            assert_eq!(copy.shape(), viewed);
            let grid = ChunkGrid::new(&viewed, &chunk).unwrap();
            let fill_chunk = codec
                .encode_dyn(&codec.full_dyn(&t, &chunk, &fill).unwrap())
                .unwrap();
            let chunks = Mutex::new(BTreeMap::new());
            codec
                .encode_chunks_sparse_dyn(&part, &grid, &fill, |index, bytes| {
                    chunks
                        .lock()
                        .unwrap()
                        .insert(index.to_vec(), bytes.map(<[u8]>::to_vec));
                    Ok::<(), Error>(())
                })
                .unwrap();
            let chunks = chunks.into_inner().unwrap();
            assert_eq!(chunks.len(), grid.len(), "{ctx}");
            let mut left_out = 0;
            for index in grid.indices() {
                let r = grid.region(&index).unwrap();
                let want = reference(&codec, &copy, &r, &chunk, &fill);
                let want = (want != fill_chunk).then_some(want);
                left_out += usize::from(want.is_none());
                assert_eq!(chunks[&index], want, "{ctx} chunk {index:?}");
                let fills = codec
                    .is_fill_dyn(part.slice_region(&r).unwrap(), &fill)
                    .unwrap();
                assert_eq!(fills, want.is_none(), "{ctx} chunk {index:?}");
            }
            assert!(left_out > 0 && left_out < grid.len(), "{ctx}: {left_out}");
            assert!(!codec.is_fill_dyn(&part, &fill).unwrap(), "{ctx}");
            assert!(codec.is_fill_dyn(&filled, &fill).unwrap(), "{ctx}");

            // Back in one call, the left-out chunks missing.
            let source = |index: &[usize]| Ok::<_, Error>(chunks[index].clone());
            let back = codec.decode_chunks_dyn(&t, &grid, &fill, source).unwrap();
            assert_eq!(
                codec.encode_dyn(&back).unwrap(),
                codec.encode_dyn(&part).unwrap(),
                "{ctx}"
            );
            let start = crate::common::valid_chunk(&t, &viewed, endian, 12);
            let mut want = codec.decode_dyn(&start, &t, &viewed).unwrap();
            codec
                .decode_chunks_into_dyn(&mut want, &grid, &fill, source)
                .unwrap();
            assert_eq!(
                codec.encode_dyn(&back).unwrap(),
                codec.encode_dyn(&want).unwrap(),
                "{ctx}"
            );
        }
    }
}

/// A mutable view assigns through its window, checks like `DynArray::assign_region`, and
/// lends itself again.
#[test]
fn mutable_views_assign_through_their_window() {
    use zarr_bytes::{DataType, DynArray};
    let mut d = DynArray::from(ndarray::ArrayD::<u8>::zeros(IxDyn(&[3, 4])));
    let mut v = d.view_mut().permuted_axes(&[1, 0]).unwrap(); // 4 × 3
    let mut part = v.slice_region_mut(&[1..4, 2..3]).unwrap(); // column 2 of the array, rows 1..4 of the view
    let from = DynArray::from(ndarray::array![[7u8], [8], [9]].into_dyn());
    part.assign_region(&[0..3, 0..1], &from).unwrap();
    let e = part.assign_region(&[0..2, 0..1], &from).unwrap_err();
    assert!(matches!(e, Error::RegionShapeMismatch { .. }), "{e:?}");
    let other = DynArray::from(ndarray::array![[7i8]].into_dyn());
    let e = part.assign_region(&[0..1, 0..1], &other).unwrap_err();
    assert!(
        matches!(
            e,
            Error::TypeMismatch {
                expected: DataType::UInt8,
                found: DataType::Int8
            }
        ),
        "{e:?}"
    );
    let e = part.assign_region(&[0..4, 0..1], &from).unwrap_err();
    assert!(
        matches!(
            e,
            Error::RegionOutOfBounds {
                axis: 0,
                end: 4,
                len: 3
            }
        ),
        "{e:?}"
    );
    for order in [&[0, 0][..], &[0, 2], &[1], &[1, 0, 2]] {
        let e = v.view_mut().permuted_axes(order).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidAxisOrder { order: o, ndim: 2 } if **o == *order),
            "{e:?}"
        );
        let e = v.view().permuted_axes(order).unwrap_err();
        assert!(
            matches!(e, Error::InvalidAxisOrder { ndim: 2, .. }),
            "{e:?}"
        );
    }
    let codec = BytesCodec::new(Endian::Little);
    let grid = ChunkGrid::new(&[4, 3], &[4, 3]).unwrap();
    codec
        .decode_chunks_into_dyn(v.view_mut(), &grid, &serde_json::json!(0), |_| {
            Ok::<_, Error>(None::<&[u8]>)
        })
        .unwrap();
    v.assign_region(
        &[0..1, 0..1],
        &DynArray::from(ndarray::arr0(5u8).into_dyn()),
    )
    .unwrap();
    assert_eq!(v.shape(), &[4, 3]);
    assert_eq!(
        d,
        DynArray::from(ndarray::array![[5u8, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]].into_dyn())
    );
    // Before the fill, the column held 7, 8, 9 below row 0: checked through a fresh view.
    let mut e2 = DynArray::from(ndarray::ArrayD::<u8>::zeros(IxDyn(&[3, 4])));
    let mut w = e2.view_mut().permuted_axes(&[1, 0]).unwrap();
    w.slice_region_mut(&[1..4, 2..3])
        .unwrap()
        .assign_region(&[0..3, 0..1], &from)
        .unwrap();
    assert_eq!(
        e2,
        DynArray::from(ndarray::array![[0u8, 0, 0, 0], [0, 0, 0, 0], [0, 7, 8, 9]].into_dyn())
    );
}

/// Raw elements compare record by record whatever the layout of their bytes; byte strings
/// compare their values without the zeros that pad them, to the last byte.
#[test]
fn raw_and_text_fill_tests_by_their_bytes() {
    use ndarray::ArrayD;
    use serde_json::json;
    use zarr_bytes::{DataType, DynArray, RawArray};
    let codec = BytesCodec::new(Endian::Little);
    // r24 records of [1, 2, 3], their bytes in Fortran order: byte k of every record, then
    // byte k + 1.
    let records = ArrayD::from_shape_fn(IxDyn(&[4, 5, 3]).f(), |i| i[2] as u8 + 1);
    let raw = DynArray::RawBits(RawArray::new(records).unwrap());
    assert!(codec.is_fill_dyn(&raw, &json!([1, 2, 3])).unwrap());
    assert!(!codec.is_fill_dyn(&raw, &json!([1, 2, 4])).unwrap());
    let part = raw.view().slice_region(&[1..3, 2..5]).unwrap();
    assert!(
        codec
            .is_fill_dyn(part.permuted_axes(&[1, 0]).unwrap(), &json!([1, 2, 3]))
            .unwrap()
    );
    // The same records in chunks: all left out, or all written.
    let grid = ChunkGrid::new(&[4, 5], &[2, 2]).unwrap();
    for (fill, stored) in [(json!([1, 2, 3]), 0), (json!([1, 2, 4]), grid.len())] {
        let written = Mutex::new(0);
        codec
            .encode_chunks_sparse_dyn(&raw, &grid, &fill, |_, bytes| {
                *written.lock().unwrap() += usize::from(bytes.is_some());
                Ok::<(), Error>(())
            })
            .unwrap();
        assert_eq!(written.into_inner().unwrap(), stored, "{fill}");
    }
    // null_terminated_bytes of 4: trailing zeros pad, the last byte of a value counts.
    let t: DataType = r#"{"name":"null_terminated_bytes","configuration":{"length_bytes":4}}"#
        .parse()
        .unwrap();
    let fill = json!([1, 2, 3]);
    let a = codec.full_dyn(&t, &[3], &fill).unwrap();
    assert!(codec.is_fill_dyn(&a, &fill).unwrap());
    assert!(codec.is_fill_dyn(&a, &json!([1, 2, 3, 0])).unwrap());
    assert!(!codec.is_fill_dyn(&a, &json!([1, 2, 4])).unwrap());
    assert!(!codec.is_fill_dyn(&a, &json!([1, 2])).unwrap());
    assert!(!codec.is_fill_dyn(&a, &json!([1, 2, 3, 4])).unwrap());
    let u: DataType = r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#
        .parse()
        .unwrap();
    let s = codec.full_dyn(&u, &[2, 2], &json!("ab")).unwrap();
    assert!(codec.is_fill_dyn(&s, &json!("ab")).unwrap());
    assert!(!codec.is_fill_dyn(&s, &json!("a")).unwrap());
    assert!(!codec.is_fill_dyn(&s, &json!("ac")).unwrap());
}

/// Complex minifloats of the low-bit kinds, whose memory holds bytes of no value, compare
/// their encodings, block after block: a last element that differs is found.
#[test]
fn low_bit_complex_minifloats_compare_their_codes() {
    use serde_json::json;
    use zarr_bytes::DataType;
    let codec = BytesCodec::new(Endian::Little);
    let t = DataType::ComplexFloat4E2M1FN;
    let n = 5000; // more than one block of the fill value's pattern
    let fill = json!([1.0, -0.5]);
    let a = codec.full_dyn(&t, &[n], &fill).unwrap();
    assert!(codec.is_fill_dyn(&a, &fill).unwrap());
    let mut bytes = codec.encode_dyn(&a).unwrap();
    bytes[2 * n - 1] ^= 1; // the imaginary part of the last element
    let b = codec.decode_dyn(&bytes, &t, &[n]).unwrap();
    assert!(!codec.is_fill_dyn(&b, &fill).unwrap());
    let head = 0..n - 1;
    let head = b.view().slice_region(std::slice::from_ref(&head)).unwrap();
    assert!(codec.is_fill_dyn(head, &fill).unwrap());
}

/// Missing chunks read as the fill value whatever its bits: zero bits (which an array the
/// call allocates already holds) and others (`-0.0`, NaN, a number), typed and at run time,
/// whole arrays and subsets.
#[test]
fn missing_chunks_read_as_the_fill_value_of_any_bits() {
    use zarr_bytes::{DataType, DynArray};
    let grid = ChunkGrid::new(&[5, 7], &[2, 3]).unwrap();
    let stored = [0x3fu8; 2 * 3 * 8];
    let source = |index: &[usize]| Ok::<_, Error>((index == [1, 1]).then_some(&stored[..]));
    let inside = |r: usize, c: usize| (2..4).contains(&r) && (3..6).contains(&c);
    let codec = BytesCodec::new(Endian::Big);
    let fills = [
        (0.0f64, serde_json::json!(0.0)),
        (-0.0, serde_json::json!("0x8000000000000000")),
        (f64::NAN, serde_json::json!("NaN")),
        (1.5, serde_json::json!(1.5)),
    ];
    for (fill, json) in fills {
        let want = |r: usize, c: usize| {
            if inside(r, c) {
                f64::from_be_bytes([0x3f; 8]).to_bits()
            } else {
                fill.to_bits()
            }
        };
        let whole = Array2::<f64>::from_zarr_chunks(&grid, fill, Endian::Big, source).unwrap();
        let subset = &[1..5, 2..7];
        let part =
            Array2::<f64>::from_zarr_subset(&grid, subset, fill, Endian::Big, source).unwrap();
        let dyn_whole = codec
            .decode_chunks_dyn(&DataType::Float64, &grid, &json, source)
            .unwrap();
        let DynArray::Float64(dyn_whole) = dyn_whole else {
            panic!("float64 decodes to Float64")
        };
        for ((r, c), x) in whole.indexed_iter() {
            assert_eq!(x.to_bits(), want(r, c), "{fill} whole [{r}, {c}]");
            assert_eq!(
                dyn_whole[[r, c]].to_bits(),
                want(r, c),
                "{fill} dyn [{r}, {c}]"
            );
        }
        for ((r, c), x) in part.indexed_iter() {
            assert_eq!(x.to_bits(), want(r + 1, c + 2), "{fill} subset [{r}, {c}]");
        }
    }
}
