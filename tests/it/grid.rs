//! Arrays of many chunks: every chunk of a grid against the naive reference (pad the part
//! with the fill value, encode the chunk whole), in every layout, both byte orders and every
//! element size; a missing chunk; padding that is never read; and every error by variant.
// One range per axis: a 1-d region is an array of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use crate::common::{Bits, LAYOUTS, bits_of, element, property, reference_bytes, slice_of};
use half::f16;
use ndarray::{Array2, ArrayD, ArrayViewD, IxDyn, ShapeBuilder};
use num_complex::Complex;
use proptest::prelude::*;
use zarr_bytes::{ChunkDecodeInto, ChunkEncode, ChunkGrid, Endian, Error, minifloat};

/// The naive chunk: the part of `a` in `region` in the corner, `fill` elsewhere, encoded.
pub fn reference_chunk<A: Bits>(
    a: ArrayViewD<'_, A>,
    region: &[Range<usize>],
    chunk_shape: &[usize],
    fill: A,
    endian: Endian,
) -> Vec<u8> {
    let mut chunk = ArrayD::from_elem(IxDyn(chunk_shape), fill);
    let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
    chunk
        .slice_mut(slice_of(&corner).as_slice())
        .assign(&a.slice(slice_of(region).as_slice()));
    reference_bytes(chunk.view(), endian)
}

/// Chunks by index, and the order they came in.
type Chunks = (BTreeMap<Vec<usize>, Vec<u8>>, Vec<Vec<usize>>);

/// Every chunk `encode_zarr_chunks` hands over, by index, in the order it came.
fn encode_all<A: Bits>(a: ArrayViewD<'_, A>, grid: &ChunkGrid, fill: A, endian: Endian) -> Chunks {
    let chunks = Mutex::new((BTreeMap::new(), Vec::new()));
    a.encode_zarr_chunks(grid, fill, endian, |index, bytes| {
        let mut c = chunks.lock().unwrap();
        assert!(
            c.0.insert(index.to_vec(), bytes).is_none(),
            "{index:?} twice"
        );
        c.1.push(index.to_vec());
        Ok::<(), Error>(())
    })
    .unwrap();
    chunks.into_inner().unwrap()
}

pub fn check<A: Bits>(shape: &[usize], chunk_shape: &[usize], layout: usize, big: bool, seed: u64) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let layout = LAYOUTS[layout];
    let n: usize = shape.iter().product();
    let a = ArrayD::from_shape_vec(
        IxDyn(shape),
        (0..n).map(|i| element::<A>(i + seed as usize)).collect(),
    )
    .unwrap();
    let fill = element::<A>(seed as usize + 7919);
    let sentinel = element::<A>(seed as usize + 104729);
    let mut storage = layout.storage(shape, sentinel);
    layout.view(storage.view_mut()).assign(&a);
    let view = layout.view(storage.view_mut());
    let view = view.view();
    let grid = ChunkGrid::new(shape, chunk_shape).unwrap();

    // Every chunk, exactly once, is the naive chunk; in C order on one thread.
    let (chunks, order) = encode_all(view.view(), &grid, fill, endian);
    assert_eq!(chunks.len(), grid.len());
    let expected: Vec<(Vec<usize>, Vec<u8>)> = grid
        .indices()
        .map(|index| {
            let region = grid.region(&index).unwrap();
            let bytes = reference_chunk(a.view(), &region, chunk_shape, fill, endian);
            (index, bytes)
        })
        .collect();
    for (index, bytes) in &expected {
        assert_eq!(
            &chunks[index], bytes,
            "chunk {index:?} of {shape:?} in {layout:?}"
        );
    }
    if !cfg!(feature = "rayon") {
        assert!(order.iter().eq(expected.iter().map(|(i, _)| i)));
    }

    // One chunk from its part, into a new Vec or a buffer.
    for (index, bytes) in &expected {
        let region = grid.region(index).unwrap();
        let part = view.slice(slice_of(&region).as_slice());
        assert_eq!(
            &part.encode_zarr_chunk(chunk_shape, fill, endian).unwrap(),
            bytes
        );
        let mut out = vec![0xa5; bytes.len()];
        part.encode_zarr_chunk_into(&mut out, chunk_shape, fill, endian)
            .unwrap();
        assert_eq!(&out, bytes);
    }

    // Decoding puts every chunk back; a missing chunk's region holds the fill value. The
    // padding of the chunks is not read: it holds bytes no element decodes from (0xee is
    // no bool).
    let missing = (!grid.is_empty()).then(|| seed as usize % grid.len());
    let stored: BTreeMap<Vec<usize>, Vec<u8>> = expected
        .iter()
        .enumerate()
        .filter(|&(k, _)| Some(k) != missing)
        .map(|(_, (index, bytes))| {
            let region = grid.region(index).unwrap();
            let mut padded = vec![0xee; bytes.len()];
            let part = a.slice(slice_of(&region).as_slice());
            let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
            zarr_bytes::encode_region_into(&mut padded, chunk_shape, &corner, &part, endian)
                .unwrap();
            (index.clone(), padded)
        })
        .collect();
    let mut target = layout.storage(shape, sentinel);
    layout
        .view(target.view_mut())
        .decode_zarr_chunks_into(&grid, fill, endian, |index| {
            Ok::<_, Error>(stored.get(index).map(Vec::as_slice))
        })
        .unwrap();
    let mut want = a.clone();
    if let Some(k) = missing {
        let region = grid.region(&expected[k].0).unwrap();
        want.slice_mut(slice_of(&region).as_slice()).fill(fill);
    }
    let got = layout.view(target.view_mut());
    assert_eq!(
        bits_of(got.view()),
        bits_of(want.view()),
        "{shape:?} {layout:?}"
    );

    // One chunk into its part of an array in the layout.
    let mut target = layout.storage(shape, sentinel);
    let mut into = layout.view(target.view_mut());
    for (index, bytes) in &stored {
        let region = grid.region(index).unwrap();
        into.slice_mut(slice_of(&region).as_slice())
            .decode_zarr_chunk_into(bytes, chunk_shape, endian)
            .unwrap();
        assert_eq!(
            bits_of(into.slice(slice_of(&region).as_slice())),
            bits_of(a.slice(slice_of(&region).as_slice()))
        );
    }
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
                property(file!(), 48, cases, &|((shape, chunk), layout, big, seed)| {
                    check::<$t>(&shape, &chunk, layout, big, seed >> 8)
                });
            }
        )*
    };
}

// One type per element size and per conversion that differs.
properties! {
    bool_: bool,
    uint8: u8,
    float4_e2m1fn: minifloat::Float4E2M1FN,
    int16: i16,
    float16: f16,
    r24: [u8; 3],
    float32: f32,
    float64: f64,
    complex128: Complex<f64>,
}

/// Arrays large enough for the tiled paths, cut in chunks that leave edges on every axis.
#[test]
fn tiled_layouts_in_chunks_with_edges() {
    for &layout in &[1, 3, 4, 11, 12] {
        check::<f64>(&[70, 130], &[64, 48], layout, true, 1);
        check::<u16>(&[9, 70, 75], &[4, 64, 32], layout, false, 2);
        check::<u8>(&[130, 200], &[100, 72], layout, false, 3);
        check::<Complex<f32>>(&[40, 90], &[33, 64], layout, true, 4);
    }
}

#[test]
fn grid_shapes_regions_and_chunks_in_a_region() {
    let g = ChunkGrid::new(&[5, 7], &[2, 3]).unwrap();
    assert_eq!(g.array_shape(), &[5, 7]);
    assert_eq!(g.chunk_shape(), &[2, 3]);
    assert_eq!(g.grid_shape(), &[3, 3]);
    assert_eq!((g.len(), g.is_empty()), (9, false));
    let all: Vec<Vec<usize>> = g.indices().collect();
    assert_eq!(all.len(), 9);
    assert_eq!(
        (all[0].clone(), all[1].clone(), all[8].clone()),
        (vec![0, 0], vec![0, 1], vec![2, 2])
    );
    assert_eq!(g.region(&[2, 2]).unwrap(), [4..5, 6..7]);
    assert_eq!(g.region(&[1, 0]).unwrap(), [2..4, 0..3]);
    let touched: Vec<Vec<usize>> = g.chunks_in(&[3..5, 2..4]).unwrap().collect();
    assert_eq!(touched, [[1, 0], [1, 1], [2, 0], [2, 1]]);
    assert_eq!(g.chunks_in(&[3..3, 0..7]).unwrap().count(), 0);
    assert_eq!(g.chunks_in(&[0..5, 0..7]).unwrap().count(), 9);

    // A 0-d array is one chunk; an empty axis leaves none; a big chunk is one padded chunk.
    let scalar = ChunkGrid::new(&[], &[]).unwrap();
    assert_eq!(scalar.len(), 1);
    assert_eq!(scalar.indices().collect::<Vec<_>>(), [Vec::<usize>::new()]);
    assert_eq!(scalar.region(&[]).unwrap(), []);
    let empty = ChunkGrid::new(&[4, 0], &[2, 2]).unwrap();
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
    assert_eq!(empty.grid_shape(), &[2, 0]);
    assert_eq!(empty.indices().count(), 0);
    // A last chunk whose extent would reach past usize::MAX ends at the array's edge.
    let half = usize::MAX / 2 + 1;
    let far = ChunkGrid::new(&[usize::MAX], &[half]).unwrap();
    assert_eq!(far.region(&[1]).unwrap(), [half..usize::MAX]);
    let big = ChunkGrid::new(&[3, 2], &[10, 10]).unwrap();
    assert_eq!(big.grid_shape(), &[1, 1]);
    assert_eq!(big.region(&[0, 0]).unwrap(), [0..3, 0..2]);
}

#[test]
fn grid_errors_name_what_is_wrong() {
    assert!(matches!(
        ChunkGrid::new(&[4, 4], &[2]),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(matches!(
        ChunkGrid::new(&[4, 4], &[2, 0]),
        Err(Error::ZeroChunkExtent { axis: 1 })
    ));
    let huge = usize::MAX;
    let e = ChunkGrid::new(&[huge, huge], &[1, 1]).unwrap_err();
    assert!(matches!(&e, Error::TooManyChunks { grid_shape } if **grid_shape == [huge, huge]));
    // A count that overflows along the way but has an empty axis is no overflow: no chunks.
    assert_eq!(
        ChunkGrid::new(&[huge, huge, 0], &[1, 1, 1]).unwrap().len(),
        0
    );
    let g = ChunkGrid::new(&[5, 7], &[2, 3]).unwrap();
    assert!(matches!(
        g.region(&[0]),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(matches!(
        g.region(&[1, 3]),
        Err(Error::ChunkIndexOutOfBounds {
            axis: 1,
            index: 3,
            len: 3
        })
    ));
    assert!(matches!(
        g.chunks_in(&[0..6, 0..1]).map(|_| ()),
        Err(Error::RegionOutOfBounds {
            axis: 0,
            end: 6,
            len: 5
        })
    ));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = [0..1, 3..2];
    assert!(matches!(
        g.chunks_in(&reversed).map(|_| ()),
        Err(Error::ReversedRange {
            axis: 1,
            start: 3,
            end: 2
        })
    ));
    assert!(matches!(
        g.chunks_in(&[0..1]).map(|_| ()),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
}

#[test]
fn chunk_errors_name_what_is_wrong() {
    let a = Array2::<u16>::zeros((3, 4));
    let e = Endian::Little;
    assert!(matches!(
        a.encode_zarr_chunk(&[4], 0, e),
        Err(Error::RankMismatch {
            expected: 1,
            actual: 2
        })
    ));
    assert!(matches!(
        a.encode_zarr_chunk(&[4, 3], 0, e),
        Err(Error::PartTooLarge {
            axis: 1,
            len: 4,
            chunk: 3
        })
    ));
    assert!(matches!(
        a.encode_zarr_chunk(&[usize::MAX, 4], 0, e),
        Err(Error::ShapeOverflow { element_size: 2 })
    ));
    assert!(matches!(
        a.encode_zarr_chunk_into(&mut [0; 39], &[4, 5], 0, e),
        Err(Error::BufferSize {
            expected: 40,
            actual: 39
        })
    ));
    let mut b = a.clone();
    assert!(matches!(
        b.decode_zarr_chunk_into(&[0; 38], &[4, 5], e),
        Err(Error::LengthMismatch {
            expected: 40,
            actual: 38
        })
    ));
    assert!(matches!(
        b.decode_zarr_chunk_into(&[0; 24], &[3, 3], e),
        Err(Error::PartTooLarge {
            axis: 1,
            len: 4,
            chunk: 3
        })
    ));
    assert!(matches!(
        b.decode_zarr_chunk_into(&[0; 24], &[3, 4, 1], e),
        Err(Error::RankMismatch {
            expected: 3,
            actual: 2
        })
    ));

    // A grid of another array's shape, before any chunk is touched.
    let grid = ChunkGrid::new(&[3, 5], &[2, 2]).unwrap();
    let never = |_: &[usize], _: Vec<u8>| -> Result<(), Error> { panic!("no chunk expected") };
    assert!(matches!(
        a.encode_zarr_chunks(&grid, 0, e, never),
        Err(Error::GridShapeMismatch { .. })
    ));
    let none = |_: &[usize]| -> Result<Option<Vec<u8>>, Error> { panic!("no chunk expected") };
    let r = b.decode_zarr_chunks_into(&grid, 0, e, none);
    assert!(
        matches!(&r, Err(Error::GridShapeMismatch { expected, actual })
        if **expected == [3, 5] && **actual == [3, 4])
    );
    let huge = ChunkGrid::new(&[3, 4], &[usize::MAX / 2, 4]).unwrap();
    assert!(matches!(
        b.decode_zarr_chunks_into(&huge, 0, e, none),
        Err(Error::ShapeOverflow { element_size: 2 })
    ));
}

/// The caller's own error type: the crate's errors convert into it.
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
fn the_first_error_stops_the_work_and_names_the_chunk() {
    let grid = ChunkGrid::new(&[6, 5], &[2, 2]).unwrap();
    let mut a = Array2::<bool>::from_elem((6, 5).f(), false);
    let calls = Mutex::new(0);
    // A chunk of the wrong length: the crate's error, naming the chunk, as the caller's type.
    let r = a.decode_zarr_chunks_into(&grid, true, Endian::Little, |index| {
        *calls.lock().unwrap() += 1;
        Ok::<_, Store>(Some(if index == [1, 2] {
            vec![1; 3]
        } else {
            vec![1; 4]
        }))
    });
    let Err(Store::Codec(e)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        e.to_string(),
        "chunk [1, 2]: byte length mismatch: the shape needs 4 bytes, got 3"
    );
    assert!(matches!(&e, Error::InChunk { index, error }
        if **index == [1, 2] && matches!(**error, Error::LengthMismatch { expected: 4, actual: 3 })));
    if !cfg!(feature = "rayon") {
        // In C order, chunk [1, 2] is the sixth: the three after it are never asked for.
        assert_eq!(*calls.lock().unwrap(), 6);
    }
    // An invalid bool byte inside the part is found, at its offset in the chunk; the same
    // byte in the padding of an edge chunk is not read.
    let r = a.decode_zarr_chunks_into(&grid, true, Endian::Little, |index| {
        let bytes = match index {
            [2, 2] => vec![1, 2, 1, 2], // part [4..6, 4..5]: bytes 0 and 2; 1 and 3 pad
            [0, 1] => vec![1, 1, 1, 7],
            _ => vec![0; 4],
        };
        Ok::<_, Error>(Some(bytes))
    });
    assert!(matches!(&r, Err(Error::InChunk { index, error })
        if **index == [0, 1] && matches!(**error, Error::InvalidBool { offset: 3, value: 7 })));
    let mut b = ndarray::Array1::<bool>::from_elem(3, false);
    let r = b.decode_zarr_chunk_into(&[1, 0, 2, 9], &[4], Endian::Big);
    assert!(
        matches!(
            r,
            Err(Error::InvalidBool {
                offset: 2,
                value: 2
            })
        ),
        "{r:?}"
    );
    let mut c = Array2::<bool>::from_elem((2, 1).f(), false);
    c.decode_zarr_chunk_into(&[1, 9, 0, 2], &[2, 2], Endian::Big)
        .unwrap();
    assert_eq!(c, ndarray::array![[true], [false]]);
    let r = c.decode_zarr_chunk_into(&[1, 9, 5, 2], &[2, 2], Endian::Big);
    assert!(
        matches!(
            r,
            Err(Error::InvalidBool {
                offset: 2,
                value: 5
            })
        ),
        "{r:?}"
    );

    // The sink's own error comes back as it is, and stops the work.
    let calls = Mutex::new(0);
    let r = a.encode_zarr_chunks(&grid, false, Endian::Little, |index, _| {
        *calls.lock().unwrap() += 1;
        if index == [0, 1] {
            return Err(Store::Gone(index.to_vec()));
        }
        Ok(())
    });
    assert_eq!(r, Err(Store::Gone(vec![0, 1])));
    if !cfg!(feature = "rayon") {
        assert_eq!(*calls.lock().unwrap(), 2);
    }
    // A missing chunk fills its region; the source's own error comes back as it is.
    let r = a.decode_zarr_chunks_into(&grid, true, Endian::Little, |index| {
        if index == [2, 0] {
            Err(Store::Gone(index.to_vec()))
        } else {
            Ok(None::<Vec<u8>>)
        }
    });
    assert_eq!(r, Err(Store::Gone(vec![2, 0])));
}

#[test]
fn empty_and_scalar_arrays() {
    // An empty array has no chunk: the sink and source are never called.
    let a = ArrayD::<f32>::zeros(IxDyn(&[3, 0, 2]));
    let grid = ChunkGrid::new(&[3, 0, 2], &[2, 2, 2]).unwrap();
    a.encode_zarr_chunks(&grid, 1.0, Endian::Big, |_, _| -> Result<(), Error> {
        panic!("no chunk")
    })
    .unwrap();
    // An empty part pads a whole chunk.
    assert_eq!(
        a.slice(ndarray::s![0..1, .., 0..1])
            .encode_zarr_chunk(&[1, 1, 1], -2.0, Endian::Big)
            .unwrap(),
        [0xc0, 0, 0, 0]
    );
    // A 0-d array is one chunk of one element.
    let s = ndarray::arr0(0x0102u16);
    let grid = ChunkGrid::new(&[], &[]).unwrap();
    let (chunks, _) = encode_all(s.view().into_dyn(), &grid, 0, Endian::Big);
    assert_eq!(chunks[&vec![]], [1, 2]);
    let mut t = ndarray::arr0(0u16);
    t.decode_zarr_chunks_into(&grid, 9, Endian::Little, |_| Ok::<_, Error>(Some([3u8, 4])))
        .unwrap();
    assert_eq!(t[()], 0x0403);
    t.decode_zarr_chunks_into(&grid, 9, Endian::Little, |_| Ok::<_, Error>(None::<&[u8]>))
        .unwrap();
    assert_eq!(t[()], 9);
}

/// An edge chunk's part gathered in slabs: every slab decodes into place, and an invalid
/// byte in a later slab is named at its offset in the chunk.
#[test]
fn edge_chunks_gathered_in_slabs() {
    let chunk = [1000, 1000];
    let mut bytes: Vec<u8> = (0..1_000_000)
        .map(|i| ((i / 1000 + i % 1000) % 2) as u8)
        .collect();
    let mut part = Array2::<bool>::from_elem((1000, 500).f(), false);
    part.decode_zarr_chunk_into(&bytes, &chunk, Endian::Little)
        .unwrap();
    assert!(
        part.indexed_iter()
            .all(|((i, j), &x)| x == ((i + j) % 2 == 1))
    );
    let mut wide = ndarray::Array3::<u16>::zeros((3, 700, 90));
    let words: Vec<u8> = (0..3 * 700 * 100u32)
        .flat_map(|i| (i as u16).to_be_bytes())
        .collect();
    wide.decode_zarr_chunk_into(&words, &[3, 700, 100], Endian::Big)
        .unwrap();
    assert!(
        wide.indexed_iter()
            .all(|((i, j, k), &x)| x == ((i * 70_000 + j * 100 + k) as u16))
    );
    bytes[900 * 1000 + 3] = 4;
    let r = part.decode_zarr_chunk_into(&bytes, &chunk, Endian::Little);
    assert!(
        matches!(
            r,
            Err(Error::InvalidBool {
                offset: 900_003,
                value: 4
            })
        ),
        "{r:?}"
    );
}
