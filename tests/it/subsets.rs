//! Subsets of a grid's array, against the naive reference: the stored array materialised
//! element by element and sliced (reading); the chunks' stored bytes with the subset's
//! elements written in at their offsets, element by element (writing). Ranks 0 to 4,
//! every layout of the target and the source, both byte orders, every element size and
//! conversion; padding that is not the fill value, chunks that are missing, chunks that
//! end up holding only the fill value; which chunks the source and the store are asked
//! for, and how often.
// One range per axis: a 1-d subset is an array of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Mutex;

use half::f16;
use ndarray::{Array2, ArrayD, IxDyn, ShapeBuilder};
use num_complex::Complex;
use proptest::prelude::*;
use zarr_bytes::{ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, Endian, Error, minifloat};

use crate::common::{
    Bits, LAYOUTS, element, kept_outside, property, reference_bytes, same_bits, slice_of,
};

/// One element from its bytes, by the codec's definition: each component in turn.
fn from_bytes<A: Bits>(bytes: &[u8], endian: Endian) -> A {
    let parts = A::zeroed().to_bits().len();
    let width = A::SIZE / parts;
    let bits: Vec<u64> = bytes
        .chunks(width)
        .map(|part| {
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(part);
            if endian == Endian::Big {
                le[..width].reverse();
            }
            u64::from_le_bytes(le)
        })
        .collect();
    A::from_bits(&bits)
}

/// The position, in C order, of `index` in an array of `shape`.
fn offset(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |at, (&i, &n)| at * n + i)
}

/// Every index of a box, in C order.
fn indices(region: &[Range<usize>]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for r in region {
        all = all
            .into_iter()
            .flat_map(|head| {
                r.clone().map(move |i| {
                    let mut index = head.clone();
                    index.push(i);
                    index
                })
            })
            .collect();
    }
    all
}

/// What a write hands the sink: each chunk's bytes, or `None` for one to erase.
type Written = BTreeMap<Vec<usize>, Option<Vec<u8>>>;

/// A stored array: its grid and its chunks' bytes by index, as the naive codec writes them.
struct Stored<A> {
    grid: ChunkGrid,
    chunks: BTreeMap<Vec<usize>, Vec<u8>>,
    fill: A,
    endian: Endian,
}

impl<A: Bits> Stored<A> {
    /// Chunks of elements from `seed`: one in four missing, one in four holding only the
    /// fill value inside the array; padding that is no element (0xee is no `bool`) or the
    /// fill value.
    fn new(shape: &[usize], chunk: &[usize], endian: Endian, seed: usize) -> Stored<A> {
        let grid = ChunkGrid::new(shape, chunk).unwrap();
        let fill = element::<A>(seed + 7919);
        let fill_bytes = reference_bytes(ndarray::arr0(fill).view(), endian);
        let mut chunks = BTreeMap::new();
        for (k, index) in grid.indices().enumerate() {
            let kind = (seed + k * 7) % 4;
            if kind == 0 {
                continue;
            }
            let region = grid.region(&index).unwrap();
            let mut bytes = Vec::new();
            for at in indices(&chunk.iter().map(|&n| 0..n).collect::<Vec<_>>()) {
                let inside = at.iter().zip(&region).all(|(&i, r)| i < r.len());
                if inside && kind != 1 {
                    let value = element::<A>(seed + 31 * k + offset(&at, chunk));
                    bytes.extend(reference_bytes(ndarray::arr0(value).view(), endian));
                } else if inside || (seed + k) % 2 == 0 {
                    bytes.extend(&fill_bytes);
                } else {
                    bytes.extend(vec![0xee; A::SIZE]);
                }
            }
            chunks.insert(index, bytes);
        }
        Stored {
            grid,
            chunks,
            fill,
            endian,
        }
    }

    /// The whole array, element by element: a missing chunk's region is the fill value.
    fn materialise(&self) -> ArrayD<A> {
        let mut a = ArrayD::from_elem(IxDyn(self.grid.array_shape()), self.fill);
        let chunk = self.grid.chunk_shape();
        for (index, bytes) in &self.chunks {
            let region = self.grid.region(index).unwrap();
            for at in indices(&region) {
                let within: Vec<usize> =
                    at.iter().zip(&region).map(|(&i, r)| i - r.start).collect();
                let o = offset(&within, chunk) * A::SIZE;
                a[IxDyn(&at)] = from_bytes(&bytes[o..o + A::SIZE], self.endian);
            }
        }
        a
    }

    /// What a write of `x` at `origin` leaves for each chunk it touches: the chunk's bytes,
    /// or `None` for one whose part inside the array holds only the fill value; and the
    /// chunks it must ask the store for (those it holds in part).
    fn expected_write(&self, x: &ArrayD<A>, origin: &[usize]) -> (Written, BTreeSet<Vec<usize>>) {
        let chunk = self.grid.chunk_shape();
        let fill_bytes = reference_bytes(ndarray::arr0(self.fill).view(), self.endian);
        let fill_chunk = fill_bytes.repeat(chunk.iter().product());
        let subset: Vec<Range<usize>> = origin
            .iter()
            .zip(x.shape())
            .map(|(&o, &n)| o..o + n)
            .collect();
        let mut chunks = BTreeMap::new();
        let mut asked = BTreeSet::new();
        for index in self.grid.chunks_in(&subset).unwrap() {
            let region = self.grid.region(&index).unwrap();
            let meet: Vec<Range<usize>> = region
                .iter()
                .zip(&subset)
                .map(|(r, s)| r.start.max(s.start)..r.end.min(s.end))
                .collect();
            let whole = meet == region;
            let mut bytes = if whole {
                fill_chunk.clone()
            } else {
                asked.insert(index.clone());
                self.chunks
                    .get(&index)
                    .cloned()
                    .unwrap_or(fill_chunk.clone())
            };
            for at in indices(&meet) {
                let in_chunk: Vec<usize> =
                    at.iter().zip(&region).map(|(&i, r)| i - r.start).collect();
                let in_x: Vec<usize> = at.iter().zip(origin).map(|(&i, &o)| i - o).collect();
                let o = offset(&in_chunk, chunk) * A::SIZE;
                let value = reference_bytes(ndarray::arr0(x[IxDyn(&in_x)]).view(), self.endian);
                bytes[o..o + A::SIZE].copy_from_slice(&value);
            }
            let fills = indices(&region).iter().all(|at| {
                let in_chunk: Vec<usize> =
                    at.iter().zip(&region).map(|(&i, r)| i - r.start).collect();
                let o = offset(&in_chunk, chunk) * A::SIZE;
                bytes[o..o + A::SIZE] == fill_bytes[..]
            });
            chunks.insert(index, (!fills).then_some(bytes));
        }
        (chunks, asked)
    }
}

/// Read `subset` of a stored array into a new array and into every layout, and write an
/// array into it from every layout, against the naive reference.
fn check<A: Bits>(
    shape: &[usize],
    chunk: &[usize],
    subset: &[Range<usize>],
    big: bool,
    seed: usize,
) {
    let endian = if big { Endian::Big } else { Endian::Little };
    let stored = Stored::<A>::new(shape, chunk, endian, seed);
    let grid = &stored.grid;
    let whole = stored.materialise();
    let want = whole.slice(slice_of(subset).as_slice());
    let touched: BTreeSet<Vec<usize>> = grid.chunks_in(subset).unwrap().collect();
    let ctx = format!("{shape:?} in {chunk:?}, subset {subset:?}, {endian:?}");

    // Reading: each touched chunk asked once, no other; the elements bit for bit.
    let asked = Mutex::new(Vec::new());
    let source = |index: &[usize]| {
        asked.lock().unwrap().push(index.to_vec());
        Ok::<_, Error>(stored.chunks.get(index).map(Vec::as_slice))
    };
    let got = ArrayD::<A>::from_zarr_subset(grid, subset, stored.fill, endian, source).unwrap();
    assert!(same_bits(got.view(), want.view()), "from_zarr_subset {ctx}");
    let mut asked = std::mem::take(&mut *asked.lock().unwrap());
    asked.sort();
    assert!(asked.iter().eq(touched.iter()), "asked {asked:?}, {ctx}");
    let origin: Vec<usize> = subset.iter().map(|r| r.start).collect();
    let sentinel = element::<A>(seed + 104729);
    for layout in LAYOUTS {
        let mut storage = layout.storage(want.shape(), sentinel);
        let before = storage.clone();
        let mut view = layout.view(storage.view_mut());
        view.decode_zarr_subset_into(grid, &origin, stored.fill, endian, |index| {
            Ok::<_, Error>(stored.chunks.get(index).map(Vec::as_slice))
        })
        .unwrap();
        assert!(same_bits(view.view(), want.view()), "{layout:?} {ctx}");
        // Nothing outside the view is written.
        assert!(
            kept_outside(layout, want.shape(), &before, &storage),
            "wrote outside the view, {layout:?} {ctx}"
        );
    }

    // Writing: an array of the subset's shape, of values, of the fill value, or both.
    let n = want.len();
    let x = ArrayD::from_shape_vec(
        IxDyn(want.shape()),
        (0..n)
            .map(|i| match seed % 3 {
                0 => stored.fill,
                1 => element::<A>(seed * 3 + i),
                _ if (i + seed) % 3 == 0 => element::<A>(seed * 3 + i),
                _ => stored.fill,
            })
            .collect(),
    )
    .unwrap();
    let (want_chunks, want_asked) = stored.expected_write(&x, &origin);
    for layout in [LAYOUTS[seed % LAYOUTS.len()], LAYOUTS[0]] {
        let mut storage = layout.storage(x.shape(), sentinel);
        layout.view(storage.view_mut()).assign(&x);
        let view = layout.view(storage.view_mut());
        let asked = Mutex::new(Vec::new());
        let written = Mutex::new(BTreeMap::new());
        view.encode_zarr_subset(
            grid,
            &origin,
            stored.fill,
            endian,
            |index| {
                asked.lock().unwrap().push(index.to_vec());
                Ok::<_, Error>(stored.chunks.get(index).cloned())
            },
            |index, bytes| {
                let first = written
                    .lock()
                    .unwrap()
                    .insert(index.to_vec(), bytes.map(|b| b.into_owned()));
                assert!(first.is_none(), "chunk {index:?} twice");
                Ok(())
            },
        )
        .unwrap();
        let mut asked = asked.into_inner().unwrap();
        asked.sort();
        assert!(
            asked.iter().eq(want_asked.iter()),
            "stored asked {asked:?}, {layout:?} {ctx}"
        );
        let written = written.into_inner().unwrap();
        assert_eq!(written, want_chunks, "{layout:?} {ctx}");
    }
}

/// A shape, a chunk shape and a subset of the shape: empty ranges, single elements and
/// whole axes among them.
fn cases() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<Range<usize>>)> {
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
        .prop_flat_map(|(shape, chunk)| {
            let ranges: Vec<_> = shape
                .iter()
                .map(|&n| (0..=n).prop_flat_map(move |s| (Just(s), s..=n)))
                .collect();
            (Just(shape), Just(chunk), ranges)
        })
        .prop_map(|(shape, chunk, ranges)| {
            let subset = ranges.into_iter().map(|(s, e)| s..e).collect();
            (shape, chunk, subset)
        })
}

macro_rules! properties {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let cases = (cases(), any::<bool>(), 0usize..1 << 20);
                property(file!(), 40, cases, &|((shape, chunk, subset), big, seed)| {
                    check::<$t>(&shape, &chunk, &subset, big, seed)
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

/// Subsets large enough for the tiled paths and the slabs of a chunk's part, half a chunk
/// off on every axis, in the layouts that tile.
#[test]
fn tiled_subsets_half_a_chunk_off() {
    check::<f64>(&[130, 150], &[64, 48], &[32..130, 24..140], true, 1);
    check::<u16>(&[9, 70, 75], &[4, 64, 32], &[2..9, 3..70, 16..75], false, 2);
    check::<u8>(&[400, 700], &[300, 600], &[150..400, 300..700], false, 4);
    check::<Complex<f32>>(&[40, 90], &[33, 64], &[16..40, 32..90], true, 5);
}

/// A grid of 2^40 × 2^40 elements in chunks of 1000 × 1000: a 20 × 3 subset across two
/// chunks asks for those two, read and written, and allocates in proportion to them.
#[test]
fn a_grid_far_larger_than_memory() {
    let side = 1usize << 40;
    let grid = ChunkGrid::new(&[side, side], &[1000, 1000]).unwrap();
    // Ten rows either side of a boundary between two rows of chunks.
    let row = side / 2000;
    let at = [(row + 1) * 1000 - 10, 5000];
    let subset = [at[0]..at[0] + 20, at[1]..at[1] + 3];
    let chunk_of = |index: &[usize]| -> Vec<u8> {
        let value = (index[0] % 251) as u8;
        vec![value; 1000 * 1000]
    };
    let asked = Mutex::new(Vec::new());
    let a = Array2::<u8>::from_zarr_subset(&grid, &subset, 0, Endian::Little, |index| {
        asked.lock().unwrap().push(index.to_vec());
        Ok::<_, Error>(Some(chunk_of(index)))
    })
    .unwrap();
    let mut asked = asked.into_inner().unwrap();
    asked.sort();
    assert_eq!(asked, [[row, 5], [row + 1, 5]]);
    assert_eq!(a.shape(), &[20, 3]);
    assert!(
        a.rows()
            .into_iter()
            .take(10)
            .all(|r| r.iter().all(|&x| x == (row % 251) as u8))
    );
    assert!(
        a.rows()
            .into_iter()
            .skip(10)
            .all(|r| r.iter().all(|&x| x == ((row + 1) % 251) as u8))
    );

    // Writing the same subset updates the two chunks in place.
    let x = Array2::<u8>::from_elem((20, 3).f(), 9);
    let written = Mutex::new(BTreeMap::new());
    x.encode_zarr_subset(
        &grid,
        &at,
        0,
        Endian::Little,
        |index| Ok::<_, Error>(Some(chunk_of(index))),
        |index, bytes| {
            written
                .lock()
                .unwrap()
                .insert(index.to_vec(), bytes.map(|b| b.into_owned()));
            Ok(())
        },
    )
    .unwrap();
    let written = written.into_inner().unwrap();
    assert_eq!(
        written.keys().cloned().collect::<Vec<_>>(),
        [[row, 5], [row + 1, 5]]
    );
    let first = written[&vec![row, 5]].as_ref().unwrap();
    // Rows 990..1000 of the first chunk, columns 0..3: the rest as stored.
    assert_eq!(
        first[990 * 1000..990 * 1000 + 4],
        [9, 9, 9, (row % 251) as u8]
    );
    assert_eq!(first[989 * 1000], (row % 251) as u8);
    let second = written[&vec![row + 1, 5]].as_ref().unwrap();
    assert_eq!(second[9 * 1000 + 2], 9);
    assert_eq!(second[10 * 1000], ((row + 1) % 251) as u8);
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
fn subset_errors_name_what_is_wrong_before_any_chunk_is_asked_for() {
    let grid = ChunkGrid::new(&[10, 8], &[4, 4]).unwrap();
    let e = Endian::Little;
    let never = |_: &[usize]| -> Result<Option<Vec<u8>>, Error> { panic!("no chunk expected") };
    let no_sink =
        |_: &[usize], _: Option<Cow<'_, [u8]>>| -> Result<(), Error> { panic!("no chunk") };
    // Reading into a new array: the subset against the grid and the array type.
    assert!(matches!(
        Array2::<u16>::from_zarr_subset(&grid, &[0..2], 0, e, never),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(matches!(
        ndarray::Array1::<u16>::from_zarr_subset(&grid, &[0..2, 0..2], 0, e, never),
        Err(Error::RankMismatch {
            expected: 1,
            actual: 2
        })
    ));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = [3..1, 0..2];
    assert!(matches!(
        Array2::<u16>::from_zarr_subset(&grid, &reversed, 0, e, never),
        Err(Error::ReversedRange {
            axis: 0,
            start: 3,
            end: 1
        })
    ));
    assert!(matches!(
        Array2::<u16>::from_zarr_subset(&grid, &[0..2, 5..9], 0, e, never),
        Err(Error::RegionOutOfBounds {
            axis: 1,
            end: 9,
            len: 8
        })
    ));
    // Reading into an array and writing from one: the origin and the array's shape.
    let mut a = Array2::<u16>::zeros((2, 3));
    assert!(matches!(
        a.decode_zarr_subset_into(&grid, &[0], 0, e, never),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(matches!(
        a.decode_zarr_subset_into(&grid, &[8, 6], 0, e, never),
        Err(Error::RegionOutOfBounds {
            axis: 1,
            end: 9,
            len: 8
        })
    ));
    assert!(matches!(
        a.decode_zarr_subset_into(&grid, &[usize::MAX, 0], 0, e, never),
        Err(Error::SubsetOverflow {
            axis: 0,
            start: usize::MAX,
            len: 2
        })
    ));
    let mut flat = ndarray::Array1::<u16>::zeros(3);
    assert!(matches!(
        flat.decode_zarr_subset_into(&grid, &[0, 0], 0, e, never),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(matches!(
        a.encode_zarr_subset(&grid, &[0, usize::MAX - 1], 0, e, never, no_sink),
        Err(Error::SubsetOverflow { axis: 1, start, len: 3 }) if start == usize::MAX - 1
    ));
    assert!(matches!(
        a.encode_zarr_subset(&grid, &[9, 0], 0, e, never, no_sink),
        Err(Error::RegionOutOfBounds {
            axis: 0,
            end: 11,
            len: 10
        })
    ));
    assert!(matches!(
        a.encode_zarr_subset(&grid, &[0, 0, 0], 0, e, never, no_sink),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 3
        })
    ));
    // Chunks larger than memory can hold.
    let huge = ChunkGrid::new(&[10, 8], &[usize::MAX / 2, 4]).unwrap();
    assert!(matches!(
        a.decode_zarr_subset_into(&huge, &[0, 0], 0, e, never),
        Err(Error::ShapeOverflow { element_size: 2 })
    ));
    assert!(matches!(
        a.encode_zarr_subset(&huge, &[0, 0], 0, e, never, no_sink),
        Err(Error::ShapeOverflow { element_size: 2 })
    ));
}

#[test]
fn a_chunk_of_the_wrong_length_is_named_and_the_callers_errors_come_back() {
    let grid = ChunkGrid::new(&[10, 8], &[4, 4]).unwrap();
    let e = Endian::Big;
    // Reading: a stored chunk shorter than a chunk, naming it.
    let r = Array2::<u16>::from_zarr_subset(&grid, &[2..6, 1..3], 0, e, |index| {
        Ok::<_, Error>(Some(vec![0u8; if index == [1, 0] { 31 } else { 32 }]))
    });
    assert!(matches!(&r, Err(Error::InChunk { index, error })
        if **index == [1, 0] && matches!(**error, Error::LengthMismatch { expected: 32, actual: 31 })));
    // Writing: a stored chunk the write updates, of the wrong length.
    let a = Array2::<u16>::from_elem((3, 3), 5);
    let r = a.encode_zarr_subset(
        &grid,
        &[1, 1],
        0,
        e,
        |_| Ok::<_, Error>(Some(vec![0u8; 30])),
        |_, _| Ok(()),
    );
    assert!(matches!(&r, Err(Error::InChunk { index, error })
        if **index == [0, 0] && matches!(**error, Error::LengthMismatch { expected: 32, actual: 30 })));
    // The store's and the sink's own errors, as they are.
    let r = a.encode_zarr_subset(
        &grid,
        &[1, 1],
        0,
        e,
        |index| Err(Store::Gone(index.to_vec())),
        |_, _| Ok(()),
    );
    assert_eq!(r, Err(Store::Gone(vec![0, 0])));
    let b = Array2::<u16>::from_elem((4, 4), 5);
    let r = b.encode_zarr_subset(
        &grid,
        &[4, 4],
        0,
        e,
        |_| -> Result<Option<Vec<u8>>, Store> { panic!("a whole chunk is not asked for") },
        |index, _| Err(Store::Gone(index.to_vec())),
    );
    assert_eq!(r, Err(Store::Gone(vec![1, 1])));
    let r = Array2::<u16>::from_zarr_subset(&grid, &[0..1, 0..1], 0, e, |index| {
        Err::<Option<Vec<u8>>, _>(Store::Gone(index.to_vec()))
    });
    assert_eq!(r, Err(Store::Gone(vec![0, 0])));
    // An invalid bool in the part read is named at its offset in the chunk; one outside it
    // is not read.
    let mut bytes = vec![0u8; 16];
    bytes[5] = 7;
    bytes[15] = 9;
    let r = ndarray::Array1::<bool>::from_zarr_subset(
        &ChunkGrid::new(&[32], &[16]).unwrap(),
        &[3..8],
        false,
        e,
        |_| Ok::<_, Error>(Some(bytes.clone())),
    );
    assert!(matches!(&r, Err(Error::InChunk { index, error })
        if **index == [0] && matches!(**error, Error::InvalidBool { offset: 5, value: 7 })));
}

/// Every data type through the runtime calls, against the naive reference of
/// [`zarr_bytes::DynArray`]'s own cutting and pasting: subsets read into a new array, into
/// a permuted array and into a region of a bigger one; written from a permuted view.
#[test]
fn every_data_type_through_the_runtime_calls() {
    use crate::grid_dyn::{data_types, fill_of};
    use zarr_bytes::{BytesCodec, DynArray};
    type Case<'c> = (&'c [usize], &'c [usize], &'c [Range<usize>]);
    let cases: [Case<'_>; 4] = [
        (&[5, 7], &[2, 3], &[1..5, 2..6]),
        (&[3, 4, 5], &[2, 3, 2], &[0..3, 1..2, 1..5]),
        (&[9], &[4], &[3..9]),
        (&[4, 4], &[2, 2], &[2..4, 0..4]),
    ];
    for t in data_types() {
        for (seed, &(shape, chunk, subset)) in cases.iter().enumerate() {
            for endian in [Endian::Little, Endian::Big] {
                let codec = BytesCodec::new(endian);
                let fill = fill_of(&t);
                let fill0 = codec.full_dyn(&t, &[], &fill).unwrap();
                let fill_bytes = codec.encode_dyn(&fill0).unwrap();
                let fill_chunk = fill_bytes.repeat(chunk.iter().product());
                let grid = ChunkGrid::new(shape, chunk).unwrap();
                let bits = |d: &DynArray| codec.encode_dyn(d).unwrap();
                let ctx = format!("{t} {shape:?} in {chunk:?}, {subset:?}, {endian}");
                let mut stored = BTreeMap::new();
                for (k, index) in grid.indices().enumerate() {
                    match (k + seed) % 4 {
                        0 => {}
                        1 => drop(stored.insert(index, fill_chunk.clone())),
                        _ => {
                            let bytes = crate::common::valid_chunk(&t, chunk, endian, k as u64);
                            stored.insert(index, bytes);
                        }
                    }
                }
                // The reference: the whole array pasted together, then sliced.
                let mut whole = codec.full_dyn(&t, shape, &fill).unwrap();
                for (index, bytes) in &stored {
                    let region = grid.region(index).unwrap();
                    let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
                    let decoded = codec.decode_dyn(bytes, &t, chunk).unwrap();
                    let part = decoded.slice_region(&corner).unwrap();
                    whole.assign_region(&region, &part).unwrap();
                }
                let want = whole.slice_region(subset).unwrap();
                let touched: BTreeSet<Vec<usize>> = grid.chunks_in(subset).unwrap().collect();
                let asked = Mutex::new(BTreeSet::new());
                let source = |index: &[usize]| {
                    assert!(asked.lock().unwrap().insert(index.to_vec()), "{ctx}");
                    Ok::<_, Error>(stored.get(index).map(Vec::as_slice))
                };
                let got = codec
                    .decode_subset_dyn(&t, &grid, subset, &fill, source)
                    .unwrap();
                assert_eq!(bits(&got), bits(&want), "decode_subset_dyn {ctx}");
                assert_eq!(asked.into_inner().unwrap(), touched, "{ctx}");

                // Into a permuted array, and into a region of a bigger one.
                let origin: Vec<usize> = subset.iter().map(|r| r.start).collect();
                let rank = shape.len();
                let order: Vec<usize> = (0..rank).rev().collect();
                let sub_shape: Vec<usize> = subset.iter().map(|r| r.len()).collect();
                let reversed: Vec<usize> = order.iter().map(|&k| sub_shape[k]).collect();
                let source = |index: &[usize]| Ok::<_, Error>(stored.get(index).map(Vec::as_slice));
                let mut permuted = codec
                    .full_dyn(&t, &reversed, &fill)
                    .unwrap()
                    .permuted_axes(&order)
                    .unwrap();
                codec
                    .decode_subset_into_dyn(&mut permuted, &grid, &origin, &fill, source)
                    .unwrap();
                assert_eq!(bits(&permuted), bits(&want), "permuted {ctx}");
                let bigger: Vec<usize> = sub_shape.iter().map(|n| n + 2).collect();
                let noise = crate::common::valid_chunk(&t, &bigger, endian, 7);
                let mut big = codec.decode_dyn(&noise, &t, &bigger).unwrap();
                let before = big.clone();
                let inner: Vec<Range<usize>> = sub_shape.iter().map(|&n| 1..n + 1).collect();
                let mut all = big.view_mut();
                let region = all.slice_region_mut(&inner).unwrap();
                codec
                    .decode_subset_into_dyn(region, &grid, &origin, &fill, source)
                    .unwrap();
                assert_eq!(
                    bits(&big.slice_region(&inner).unwrap()),
                    bits(&want),
                    "{ctx}"
                );
                let mut restored = big.clone();
                restored
                    .assign_region(&inner, &before.slice_region(&inner).unwrap())
                    .unwrap();
                assert_eq!(bits(&restored), bits(&before), "outside the region {ctx}");

                // Writing from a permuted view: values, or only the fill value.
                let x = if seed % 2 == 0 {
                    let bytes = crate::common::valid_chunk(&t, &reversed, endian, 99);
                    codec.decode_dyn(&bytes, &t, &reversed).unwrap()
                } else {
                    codec.full_dyn(&t, &reversed, &fill).unwrap()
                };
                let x_view = x.view().permuted_axes(&order).unwrap();
                let x_logical = x_view.to_owned();
                let mut want_chunks = BTreeMap::new();
                let mut want_asked = BTreeSet::new();
                for index in &touched {
                    let region = grid.region(index).unwrap();
                    let meet: Vec<Range<usize>> = region
                        .iter()
                        .zip(subset)
                        .map(|(r, s)| r.start.max(s.start)..r.end.min(s.end))
                        .collect();
                    let in_chunk: Vec<Range<usize>> = meet
                        .iter()
                        .zip(&region)
                        .map(|(m, r)| m.start - r.start..m.end - r.start)
                        .collect();
                    let within: Vec<Range<usize>> = meet
                        .iter()
                        .zip(subset)
                        .map(|(m, s)| m.start - s.start..m.end - s.start)
                        .collect();
                    let mut bytes = if meet == region {
                        fill_chunk.clone()
                    } else {
                        want_asked.insert(index.clone());
                        stored.get(index).cloned().unwrap_or(fill_chunk.clone())
                    };
                    let part = codec
                        .encode_dyn(&x_logical.slice_region(&within).unwrap())
                        .unwrap();
                    let mut at = 0;
                    for r in codec.region_byte_ranges_dyn(&t, chunk, &in_chunk).unwrap() {
                        bytes[r.clone()].copy_from_slice(&part[at..at + r.len()]);
                        at += r.len();
                    }
                    let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
                    let inside = codec.region_byte_ranges_dyn(&t, chunk, &corner).unwrap();
                    let fills = inside
                        .iter()
                        .all(|r| bytes[r.clone()] == fill_bytes.repeat(r.len() / fill_bytes.len()));
                    want_chunks.insert(index.clone(), (!fills).then_some(bytes));
                }
                let asked = Mutex::new(BTreeSet::new());
                let written = Mutex::new(BTreeMap::new());
                codec
                    .encode_subset_dyn(
                        x_view,
                        &grid,
                        &origin,
                        &fill,
                        |index| {
                            asked.lock().unwrap().insert(index.to_vec());
                            Ok::<_, Error>(stored.get(index).cloned())
                        },
                        |index, bytes| {
                            let old = written
                                .lock()
                                .unwrap()
                                .insert(index.to_vec(), bytes.map(|b| b.into_owned()));
                            assert!(old.is_none(), "{index:?} twice");
                            Ok(())
                        },
                    )
                    .unwrap();
                assert_eq!(asked.into_inner().unwrap(), want_asked, "{ctx}");
                assert_eq!(written.into_inner().unwrap(), want_chunks, "{ctx}");
            }
        }
    }
}
