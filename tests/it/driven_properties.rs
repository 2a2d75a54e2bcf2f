//! Properties of the reader and writer the caller drives, and of the async calls on them,
//! against the blocking subset calls and a naive reference made element by element: random
//! grids of 0 to 3 axes with edge chunks, random subsets (empty ones too), every layout,
//! both byte orders, one element type per size and `bool`. Parts are put and chunks made
//! in random orders from two threads; stored chunks are missing, hold only the fill value,
//! or have padding that is no element (kept by `update`, never read by the reader); every
//! misuse is an error that leaves the output as it was.

// One range per axis: a 1-d subset is an array of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use ndarray::{ArrayD, ArrayView, Axis, Dimension, IxDyn, arr0};
use num_complex::Complex;
use proptest::prelude::*;
use zarr_bytes::{
    ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, ChunkPart, Endian, Error, SubsetReader,
    SubsetWriter,
};

use crate::common::{
    Bits, LAYOUTS, Layout, element, property, reference_bytes, same_bits, slice_of,
};

/// A small seeded generator (SplitMix64) for the choices a case makes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`, which is not 0.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// 0..n in a random order.
    fn shuffled(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            order.swap(k, self.below(k + 1));
        }
        order
    }
}

/// What a write leaves of each chunk it touches: its bytes, or `None` to erase it.
type Written = BTreeMap<Vec<usize>, Option<Vec<u8>>>;

/// One element's bytes, by the codec's definition.
fn bytes_of<A: Bits>(x: A, endian: Endian) -> Vec<u8> {
    reference_bytes(arr0(x).view(), endian)
}

/// A chunk's bytes as an array of the chunk's shape and one more axis: each element's bytes.
fn as_array(bytes: &[u8], chunk: &[usize], size: usize) -> ArrayD<u8> {
    let shape: Vec<usize> = chunk.iter().copied().chain([size]).collect();
    ArrayD::from_shape_vec(IxDyn(&shape), bytes.to_vec()).unwrap()
}

/// `part`'s elements written one by one into `chunk` (from [`as_array`]) from `start` on.
fn write_elements<A: Bits>(
    chunk: &mut ArrayD<u8>,
    start: &[usize],
    part: ArrayView<'_, A, IxDyn>,
    endian: Endian,
) {
    for (i, &x) in part.indexed_iter() {
        let mut at: Vec<usize> = i.slice().iter().zip(start).map(|(&i, &s)| i + s).collect();
        at.push(0);
        for (k, b) in bytes_of(x, endian).into_iter().enumerate() {
            *at.last_mut().unwrap() = k;
            chunk[IxDyn(&at)] = b;
        }
    }
}

/// Whether each element of `chunk` (from [`as_array`]) in its leading `inside`, the part
/// inside the array, is the fill value's `fill` bytes.
fn only_fill(chunk: &ArrayD<u8>, inside: &[usize], fill: &[u8]) -> bool {
    let corner: Vec<Range<usize>> = inside.iter().chain([&fill.len()]).map(|&n| 0..n).collect();
    chunk
        .slice(slice_of(&corner).as_slice())
        .lanes(Axis(inside.len()))
        .into_iter()
        .all(|lane| lane.iter().eq(fill))
}

/// The chunks the subset at `origin` of `lens` touches, by the definition: every chunk of
/// the grid whose region meets it, in C order, and where.
fn naive_parts(grid: &ChunkGrid, origin: &[usize], lens: &[usize]) -> Vec<ChunkPart> {
    grid.indices()
        .filter_map(|index| {
            let region = grid.region(&index).unwrap();
            let meet: Vec<Range<usize>> = region
                .iter()
                .zip(origin.iter().zip(lens))
                .map(|(r, (&o, &n))| r.start.max(o)..r.end.min(o + n))
                .collect();
            if meet.iter().any(|m| m.start >= m.end) {
                return None;
            }
            Some(ChunkPart {
                in_chunk: meet
                    .iter()
                    .zip(&region)
                    .map(|(m, r)| m.start - r.start..m.end - r.start)
                    .collect(),
                in_subset: meet
                    .iter()
                    .zip(origin)
                    .map(|(m, &o)| m.start - o..m.end - o)
                    .collect(),
                whole: meet == region,
                index,
            })
        })
        .collect()
}

/// The byte ranges of `region` of a chunk, by the definition: each element's bytes in C
/// order, runs that meet merged.
fn naive_ranges(chunk: &[usize], region: &[Range<usize>], size: usize) -> Vec<Range<usize>> {
    let lens: Vec<usize> = region.iter().map(Range::len).collect();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for i in ndarray::indices(IxDyn(&lens)) {
        let at = i
            .slice()
            .iter()
            .zip(region)
            .zip(chunk)
            .fold(0, |o, ((&i, r), &n)| o * n + r.start + i)
            * size;
        match ranges.last_mut() {
            Some(last) if last.end == at => last.end = at + size,
            _ => ranges.push(at..at + size),
        }
    }
    ranges
}

/// A stored array: its grid, its elements, and its chunks' bytes as the naive codec writes
/// them.
struct Stored<A> {
    grid: ChunkGrid,
    /// The array the chunks hold; a missing chunk's region is the fill value.
    whole: ArrayD<A>,
    chunks: BTreeMap<Vec<usize>, Vec<u8>>,
    fill: A,
    endian: Endian,
}

impl<A: Bits> Stored<A> {
    /// Chunks of random elements: one in four missing, one in four holding only the fill
    /// value inside the array; padding of 0xee (no `bool`) or of the fill value.
    fn new(shape: &[usize], chunk: &[usize], endian: Endian, rng: &mut Rng) -> Stored<A> {
        let grid = ChunkGrid::new(shape, chunk).unwrap();
        let fill = element::<A>(rng.next() as usize);
        let fill_bytes = bytes_of(fill, endian);
        let mut whole = ArrayD::from_elem(IxDyn(shape), fill);
        let mut chunks = BTreeMap::new();
        for index in grid.indices() {
            let kind = rng.below(4);
            if kind == 0 {
                continue;
            }
            let region = grid.region(&index).unwrap();
            let mut part = whole.slice_mut(slice_of(&region).as_slice());
            if kind > 1 {
                part.map_inplace(|x| *x = element::<A>(rng.next() as usize));
            }
            let padding = if rng.below(2) == 0 {
                vec![0xee; A::SIZE]
            } else {
                fill_bytes.clone()
            };
            let mut bytes = as_array(&padding.repeat(chunk.iter().product()), chunk, A::SIZE);
            write_elements(&mut bytes, &vec![0; shape.len()], part.view(), endian);
            chunks.insert(index, bytes.iter().copied().collect());
        }
        Stored {
            grid,
            whole,
            chunks,
            fill,
            endian,
        }
    }

    /// What writing `x` at `origin` leaves of each chunk it touches, element by element. A
    /// chunk the subset covers in part starts as stored where `from_store` (else, or where
    /// it is missing, as the fill value), one it covers whole as the fill value; `None` for
    /// one whose part inside the array then holds only the fill value.
    fn expected_write(&self, x: &ArrayD<A>, origin: &[usize], from_store: bool) -> Written {
        let chunk = self.grid.chunk_shape();
        let fill = bytes_of(self.fill, self.endian);
        let fill_chunk = fill.repeat(chunk.iter().product());
        naive_parts(&self.grid, origin, x.shape())
            .into_iter()
            .map(|part| {
                let stored = self.chunks.get(&part.index);
                let start = stored.filter(|_| from_store && !part.whole);
                let mut bytes = as_array(start.unwrap_or(&fill_chunk), chunk, A::SIZE);
                let at: Vec<usize> = part.in_chunk.iter().map(|r| r.start).collect();
                let values = x.slice(slice_of(&part.in_subset).as_slice());
                write_elements(&mut bytes, &at, values, self.endian);
                let region = self.grid.region(&part.index).unwrap();
                let inside: Vec<usize> = region.iter().map(Range::len).collect();
                let kept = !only_fill(&bytes, &inside, &fill);
                (part.index, kept.then(|| bytes.iter().copied().collect()))
            })
            .collect()
    }
}

/// One random case: a stored array, a subset of it, and the layout its arrays take.
struct Case<A> {
    stored: Stored<A>,
    subset: Vec<Range<usize>>,
    origin: Vec<usize>,
    lens: Vec<usize>,
    layout: Layout,
    /// What a target holds before it is written.
    sentinel: A,
}

impl<A: Bits> Case<A> {
    fn new(
        shape: &[usize],
        chunk: &[usize],
        subset: Vec<Range<usize>>,
        layout: usize,
        big: bool,
        seed: u64,
    ) -> (Case<A>, Rng) {
        let endian = if big { Endian::Big } else { Endian::Little };
        let mut rng = Rng(seed);
        let stored = Stored::new(shape, chunk, endian, &mut rng);
        let case = Case {
            stored,
            origin: subset.iter().map(|r| r.start).collect(),
            lens: subset.iter().map(Range::len).collect(),
            subset,
            layout: LAYOUTS[layout],
            sentinel: element::<A>(rng.next() as usize),
        };
        (case, rng)
    }

    fn ctx(&self) -> String {
        let s = &self.stored;
        format!(
            "{} {:?} in {:?}, subset {:?}, {:?}, {:?}",
            std::any::type_name::<A>(),
            s.grid.array_shape(),
            s.grid.chunk_shape(),
            self.subset,
            self.layout,
            s.endian
        )
    }

    /// Storage in the case's layout for an array of the subset's shape: the sentinel.
    fn blank(&self) -> ArrayD<A> {
        self.layout.storage(&self.lens, self.sentinel)
    }

    /// Storage in the case's layout whose view holds `a`, the sentinel around it.
    fn held(&self, a: ArrayView<'_, A, IxDyn>) -> ArrayD<A> {
        let mut storage = self.blank();
        self.layout.view(storage.view_mut()).assign(&a);
        storage
    }

    /// The subset of the stored array.
    fn want(&self) -> ArrayView<'_, A, IxDyn> {
        self.stored.whole.slice(slice_of(&self.subset).as_slice())
    }

    /// The stored chunks, as a blocking call's source.
    fn source<'s>(&'s self) -> impl Fn(&[usize]) -> Result<Option<&'s [u8]>, Error> + Sync + 's {
        move |index| Ok(self.stored.chunks.get(index).map(Vec::as_slice))
    }

    /// An array of the subset's shape: only the fill value, values, or both.
    fn values(&self, rng: &mut Rng) -> ArrayD<A> {
        let fill = self.stored.fill;
        let mode = rng.below(3);
        ArrayD::from_shape_simple_fn(IxDyn(&self.lens), || match mode {
            0 => fill,
            1 => element::<A>(rng.next() as usize),
            _ if rng.below(3) == 0 => element::<A>(rng.next() as usize),
            _ => fill,
        })
    }

    /// What the blocking call hands its sink for a write of `x` (of the subset's shape, any
    /// layout), each chunk once.
    fn blocking_write(&self, x: ArrayView<'_, A, IxDyn>) -> Written {
        let s = &self.stored;
        let written = Mutex::new(Written::new());
        x.encode_zarr_subset(
            &s.grid,
            &self.origin,
            s.fill,
            s.endian,
            |index| Ok::<_, Error>(s.chunks.get(index).cloned()),
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
        written.into_inner().unwrap()
    }
}

/// Run `work` on each of `0..n` in a random order, shared between two threads.
fn on_two_threads(n: usize, rng: &mut Rng, work: impl Fn(usize) + Sync) {
    let order = rng.shuffled(n);
    let (first, second) = order.split_at(n / 2);
    let work = &work;
    std::thread::scope(|scope| {
        for share in [first, second] {
            scope.spawn(move || share.iter().for_each(|&k| work(k)));
        }
    });
}

/// A reader fed each chunk, whole or its part's bytes alone (a missing one as `None`), in
/// a random order from two threads, into the case's layout: its parts and byte ranges are
/// the definition's, and it reads what the blocking calls read, the naive subset, leaving
/// all around the view as it was.
fn check_reader<A: Bits>(case: &Case<A>, rng: &mut Rng) {
    let s = &case.stored;
    let (grid, fill, endian) = (&s.grid, s.fill, s.endian);
    let ctx = case.ctx();
    let want = case.want();
    let expected = case.held(want.view());

    let blocking = ArrayD::<A>::from_zarr_subset(grid, &case.subset, fill, endian, case.source());
    let blocking = blocking.unwrap();
    assert!(same_bits(blocking.view(), want.view()), "blocking {ctx}");
    let mut into = case.blank();
    let mut view = case.layout.view(into.view_mut());
    view.decode_zarr_subset_into(grid, &case.origin, fill, endian, case.source())
        .unwrap();
    assert!(
        same_bits(into.view(), expected.view()),
        "blocking into {ctx}"
    );

    let mut out = case.blank();
    let view = case.layout.view(out.view_mut());
    let reader = SubsetReader::new(view, grid, &case.origin, fill, endian).unwrap();
    let parts: Vec<ChunkPart> = reader.parts().collect();
    assert_eq!(parts, naive_parts(grid, &case.origin, &case.lens), "{ctx}");
    for part in &parts {
        let ranges = reader.byte_ranges(&part.index).unwrap();
        let naive = naive_ranges(grid.chunk_shape(), &part.in_chunk, A::SIZE);
        assert_eq!(ranges, naive, "{:?} {ctx}", part.index);
    }
    let alone: Vec<bool> = parts.iter().map(|_| rng.below(2) == 0).collect();
    on_two_threads(parts.len(), rng, |k| {
        let index = &parts[k].index;
        let put = match s.chunks.get(index) {
            Some(chunk) if alone[k] => {
                let ranges = reader.byte_ranges(index).unwrap();
                let bytes: Vec<u8> = ranges
                    .into_iter()
                    .flat_map(|r| &chunk[r])
                    .copied()
                    .collect();
                reader.put_part(index, &bytes)
            }
            chunk => reader.put(index, chunk.map(Vec::as_slice)),
        };
        put.unwrap();
    });
    reader.finish().unwrap();
    assert!(same_bits(out.view(), expected.view()), "driven {ctx}");
}

/// A writer asked for each chunk in a random order from two threads, `x` in the case's
/// layout: a part covered whole or a missing chunk encoded, a stored chunk updated in a copy
/// of its bytes. It leaves what the blocking call hands its sink and the naive write: its
/// padding as stored, `None` (or `true`) exactly where only the fill value is left. Its
/// `encode` of any part is the chunk made from the part alone, and `encode_into` writes
/// those bytes over a used buffer, or nothing where `encode` gives `None`.
fn check_writer<A: Bits>(case: &Case<A>, rng: &mut Rng) {
    let s = &case.stored;
    let (grid, fill, endian) = (&s.grid, s.fill, s.endian);
    let ctx = case.ctx();
    let x = case.values(rng);
    let mut held = case.held(x.view());
    let view = case.layout.view(held.view_mut());
    let want = s.expected_write(&x, &case.origin, true);
    let made = s.expected_write(&x, &case.origin, false);
    assert_eq!(case.blocking_write(view.view()), want, "blocking {ctx}");

    let writer = SubsetWriter::new(view.view(), grid, &case.origin, fill, endian).unwrap();
    let parts: Vec<ChunkPart> = writer.parts().collect();
    assert_eq!(parts, naive_parts(grid, &case.origin, &case.lens), "{ctx}");
    let written = Mutex::new(Written::new());
    on_two_threads(parts.len(), rng, |k| {
        let part = &parts[k];
        let bytes = match s.chunks.get(&part.index) {
            Some(stored) if !part.whole => {
                let mut bytes = stored.clone();
                let fills = writer.update(&part.index, &mut bytes).unwrap();
                (!fills).then_some(bytes)
            }
            _ => writer.encode(&part.index).unwrap(),
        };
        let alone = writer.encode(&part.index).unwrap();
        assert_eq!(alone, made[&part.index], "encode {:?} {ctx}", part.index);
        let old_bytes = (k * 37 + 11) as u8;
        let mut into = vec![old_bytes; grid.chunk_shape().iter().product::<usize>() * A::SIZE];
        let fills = writer.encode_into(&part.index, &mut into).unwrap();
        match &alone {
            Some(bytes) => assert!(!fills && into == *bytes, "encode_into {ctx}"),
            None => assert!(fills && into.iter().all(|&b| b == old_bytes), "{ctx}"),
        }
        let old = written.lock().unwrap().insert(part.index.clone(), bytes);
        assert!(old.is_none());
    });
    assert_eq!(written.into_inner().unwrap(), want, "driven {ctx}");
}

/// Whether `e` is chunk `index`'s length mismatch, `expected` bytes but `actual`.
fn length_mismatch(e: &Error, index: &[usize], expected: usize, actual: usize) -> bool {
    matches!(e, Error::InChunk { index: i, error } if **i == *index
        && matches!(**error, Error::LengthMismatch { expected: x, actual: y } if x == expected && y == actual))
}

/// Whether `e` names `index` as a chunk the subset does not touch.
fn not_in_subset(e: &Error, index: &[usize]) -> bool {
    matches!(e, Error::NotInSubset { index: i } if **i == *index)
}

/// A length near `right` but not it: 0 now and then.
fn wrong_len(right: usize, size: usize, rng: &mut Rng) -> usize {
    let delta = 1 + rng.below(2 * size + 1);
    if rng.below(2) == 0 || delta > right {
        right + delta
    } else {
        right - delta
    }
}

/// Indices of chunks a subset does not touch: a chunk of the grid it misses (where there is
/// one), one past the grid along an axis, one of an axis more, and one of an axis fewer.
fn strangers(grid: &ChunkGrid, parts: &[ChunkPart], rng: &mut Rng) -> Vec<Vec<usize>> {
    let rank = grid.array_shape().len();
    let missed: Vec<Vec<usize>> = grid
        .indices()
        .filter(|i| parts.iter().all(|p| p.index != *i))
        .collect();
    let mut out = Vec::new();
    if !missed.is_empty() {
        out.push(missed[rng.below(missed.len())].clone());
    }
    let near = parts.first().map_or(vec![0; rank], |p| p.index.clone());
    if rank > 0 {
        let axis = rng.below(rank);
        let mut past = near.clone();
        past[axis] = grid.grid_shape()[axis] + rng.below(3);
        out.push(past);
        out.push(near[1..].to_vec());
    }
    out.push(near.iter().copied().chain([0]).collect());
    out
}

/// Misuse of a reader and a writer: a new one of another rank than the grid; an index the
/// subset does not touch; a chunk, a part or an `update` buffer of another length; a part
/// put twice; `finish` before every part is put. Each is an error that names what is wrong
/// and leaves the output, or the buffer, as it was: the parts put hold the subset, the
/// others and all around the view the sentinel, and `finish` names the first part in C
/// order not put. A writer answers right after its errors.
fn check_misuse<A: Bits>(case: &Case<A>, rng: &mut Rng) {
    let s = &case.stored;
    let (grid, fill, endian) = (&s.grid, s.fill, s.endian);
    let ctx = case.ctx();
    let rank = case.lens.len();
    let chunk_len = grid.chunk_shape().iter().product::<usize>() * A::SIZE;

    // Of another rank than the grid: the origin, or the array and the origin.
    let longer: Vec<usize> = case.origin.iter().copied().chain([0]).collect();
    let wider: Vec<usize> = case.lens.iter().copied().chain([1]).collect();
    let rank_mismatch = |e: Error| matches!(e, Error::RankMismatch { expected, actual } if expected == rank && actual == rank + 1);
    let mut out = case.blank();
    let view = case.layout.view(out.view_mut());
    let e = SubsetReader::new(view, grid, &longer, fill, endian).unwrap_err();
    assert!(rank_mismatch(e), "{ctx}");
    let mut out = ArrayD::from_elem(IxDyn(&wider), fill);
    let e = SubsetReader::new(out.view_mut(), grid, &case.origin, fill, endian).unwrap_err();
    assert!(rank_mismatch(e), "{ctx}");
    let e = SubsetWriter::new(out.view(), grid, &longer, fill, endian).unwrap_err();
    assert!(rank_mismatch(e), "{ctx}");

    // The reader.
    let want = case.want();
    let mut out = case.blank();
    let view = case.layout.view(out.view_mut());
    let reader = SubsetReader::new(view, grid, &case.origin, fill, endian).unwrap();
    let parts: Vec<ChunkPart> = reader.parts().collect();
    let strangers = strangers(grid, &parts, rng);
    for index in &strangers {
        let e = reader.put(index, None).unwrap_err();
        assert!(not_in_subset(&e, index), "{e:?} {ctx}");
        let e = reader.put_part(index, &[]).unwrap_err();
        assert!(not_in_subset(&e, index), "{e:?} {ctx}");
        let e = reader.byte_ranges(index).unwrap_err();
        assert!(not_in_subset(&e, index), "{e:?} {ctx}");
    }
    let put: Vec<bool> = parts.iter().map(|_| rng.below(3) != 0).collect();
    for k in rng.shuffled(parts.len()) {
        let index = &parts[k].index;
        let cells: usize = parts[k].in_chunk.iter().map(Range::len).product();
        let part_len = cells * A::SIZE;
        let wrong = wrong_len(chunk_len, A::SIZE, rng);
        let e = reader.put(index, Some(&vec![1; wrong][..])).unwrap_err();
        assert!(length_mismatch(&e, index, chunk_len, wrong), "{e:?} {ctx}");
        let wrong = wrong_len(part_len, A::SIZE, rng);
        let e = reader.put_part(index, &vec![1; wrong]).unwrap_err();
        assert!(length_mismatch(&e, index, part_len, wrong), "{e:?} {ctx}");
        if !put[k] {
            continue;
        }
        reader
            .put(index, s.chunks.get(index).map(Vec::as_slice))
            .unwrap();
        // Again, with bytes that decode (as `true` for `bool`).
        let e = reader
            .put(index, Some(&vec![1; chunk_len][..]))
            .unwrap_err();
        assert!(
            matches!(e, Error::PutTwice { index: ref i } if **i == index[..]),
            "{ctx}"
        );
        let e = reader.put_part(index, &vec![1; part_len]).unwrap_err();
        assert!(
            matches!(e, Error::PutTwice { index: ref i } if **i == index[..]),
            "{ctx}"
        );
        assert!(matches!(
            reader.put(index, None),
            Err(Error::PutTwice { .. })
        ));
    }
    let first = parts.iter().zip(&put).find(|&(_, &p)| !p);
    match (reader.finish(), first) {
        (Ok(()), None) => {}
        (Err(Error::NotPut { index }), Some((part, _))) => assert_eq!(*index, part.index[..]),
        (r, first) => panic!("finish: {r:?}, first not put {first:?}, {ctx}"),
    }
    let mut expected = case.blank();
    let mut view = case.layout.view(expected.view_mut());
    for (part, _) in parts.iter().zip(&put).filter(|&(_, &p)| p) {
        let at = slice_of(&part.in_subset);
        view.slice_mut(at.as_slice())
            .assign(&want.slice(at.as_slice()));
    }
    assert!(same_bits(out.view(), expected.view()), "{ctx}");

    // The writer.
    let x = case.values(rng);
    let writer = SubsetWriter::new(x.view(), grid, &case.origin, fill, endian).unwrap();
    let want = s.expected_write(&x, &case.origin, true);
    for index in &strangers {
        let e = writer.encode(index).unwrap_err();
        assert!(not_in_subset(&e, index), "{e:?} {ctx}");
        let mut bytes = vec![7; chunk_len];
        let e = writer.update(index, &mut bytes).unwrap_err();
        assert!(not_in_subset(&e, index), "{e:?} {ctx}");
        assert_eq!(bytes, vec![7; chunk_len], "{ctx}");
    }
    for part in parts.iter().filter(|p| !p.whole) {
        let stored = s.chunks.get(&part.index);
        let start = stored.cloned().unwrap_or_else(|| vec![0x3c; chunk_len]);
        let wrong = wrong_len(chunk_len, A::SIZE, rng);
        let mut bytes: Vec<u8> = start.iter().copied().cycle().take(wrong).collect();
        let kept = bytes.clone();
        let e = writer.update(&part.index, &mut bytes).unwrap_err();
        assert!(
            length_mismatch(&e, &part.index, chunk_len, wrong),
            "{e:?} {ctx}"
        );
        assert_eq!(bytes, kept, "{ctx}");
        if let Some(stored) = stored {
            let mut bytes = stored.clone();
            let fills = writer.update(&part.index, &mut bytes).unwrap();
            assert_eq!((!fills).then_some(bytes), want[&part.index], "{ctx}");
        }
    }
}

/// A shape of 0 to 3 axes (now and then of length 0), a chunk shape that leaves edge
/// chunks along most axes, and a subset of the shape: empty along an axis now and then.
fn cases() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<Range<usize>>)> {
    prop_oneof![1 => Just(0usize), 3 => 1usize..=3]
        .prop_flat_map(|rank| {
            let len = prop_oneof![1 => Just(0usize), 12 => 1usize..=9];
            (
                prop::collection::vec(len, rank),
                prop::collection::vec(1usize..=3, rank),
            )
        })
        .prop_flat_map(|(shape, chunk)| {
            let ranges: Vec<_> = shape
                .iter()
                .map(|&n| (0..=n, 0..=n, prop::bool::weighted(0.1)))
                .collect();
            (Just(shape), Just(chunk), ranges)
        })
        .prop_map(|(shape, chunk, ranges)| {
            let subset = ranges
                .into_iter()
                .zip(&shape)
                // Margins halved: most subsets span several chunks.
                .map(|((a, b, empty), &n)| match (empty, a.min(b), a.max(b)) {
                    (true, start, _) => start..start,
                    (false, start, end) => start / 2..n - (n - end) / 2,
                })
                .collect();
            (shape, chunk, subset)
        })
}

macro_rules! properties {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[test]
            fn a_reader_fed_in_any_order_reads_what_the_blocking_calls_read() {
                let cases = (cases(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 64, cases, &|((shape, chunk, subset), layout, big, seed)| {
                    let (case, mut rng) = Case::<$t>::new(&shape, &chunk, subset, layout, big, seed);
                    check_reader(&case, &mut rng)
                });
            }

            #[test]
            fn a_writer_asked_in_any_order_writes_what_the_blocking_call_writes() {
                let cases = (cases(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 64, cases, &|((shape, chunk, subset), layout, big, seed)| {
                    let (case, mut rng) = Case::<$t>::new(&shape, &chunk, subset, layout, big, seed);
                    check_writer(&case, &mut rng)
                });
            }

            #[test]
            fn misuse_is_an_error_that_leaves_the_output_as_it_was() {
                let cases = (cases(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>());
                property(file!(), 64, cases, &|((shape, chunk, subset), layout, big, seed)| {
                    let (case, mut rng) = Case::<$t>::new(&shape, &chunk, subset, layout, big, seed);
                    check_misuse(&case, &mut rng)
                });
            }
        }
    )*};
}

// One type per element size, and `bool`, whose bytes are checked.
properties! {
    bool_: bool,
    uint8: u8,
    int16: i16,
    float32: f32,
    float64: f64,
    complex128: Complex<f64>,
}

#[cfg(feature = "async")]
mod asynchronous {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use futures_executor::block_on;

    use super::*;

    /// Pending as many more times as it holds, waking its task each time, then ready: with many in flight,
    /// the requests of fewer turns finish first.
    struct Turns(usize);

    impl Future for Turns {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 == 0 {
                return Poll::Ready(());
            }
            self.0 -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// The turns a request for chunk `index` takes, 0 to 3, from a hash of it and `seed`.
    fn turns(index: &[usize], seed: u64) -> usize {
        let h = index.iter().fold(seed, |h, &i| {
            (h ^ i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        });
        (h >> 62) as usize
    }

    /// The async calls, up to `in_flight` requests pending, each taking its turns: they read
    /// what the blocking calls read, into a new array and into the case's layout, and write
    /// what the blocking call writes, asking the store for exactly the chunks covered in
    /// part and handing each chunk to the sink once.
    fn check_async<A: Bits>(case: &Case<A>, rng: &mut Rng, in_flight: usize) {
        let s = &case.stored;
        let (grid, fill, endian) = (&s.grid, s.fill, s.endian);
        let ctx = format!("{}, {in_flight} in flight", case.ctx());
        let seed = rng.next();
        let want = case.want();
        let fetch = |index: Vec<usize>| {
            let wait = Turns(turns(&index, seed));
            let bytes = s.chunks.get(&index).cloned();
            async move {
                wait.await;
                Ok::<_, Error>(bytes)
            }
        };

        let blocking =
            ArrayD::<A>::from_zarr_subset(grid, &case.subset, fill, endian, case.source());
        let read =
            ArrayD::<A>::from_zarr_subset_async(grid, &case.subset, fill, endian, in_flight, fetch);
        let got = block_on(read).unwrap();
        assert!(same_bits(got.view(), blocking.unwrap().view()), "{ctx}");
        assert!(same_bits(got.view(), want.view()), "{ctx}");
        let mut out = case.blank();
        let mut view = case.layout.view(out.view_mut());
        let read =
            view.decode_zarr_subset_into_async(grid, &case.origin, fill, endian, in_flight, fetch);
        block_on(read).unwrap();
        assert!(same_bits(out.view(), case.held(want).view()), "into {ctx}");

        let x = case.values(rng);
        let mut held = case.held(x.view());
        let view = case.layout.view(held.view_mut());
        let asked = Mutex::new(Vec::new());
        let written = Mutex::new(Written::new());
        let (asked_ref, written_ref) = (&asked, &written);
        let write = view.encode_zarr_subset_async(
            grid,
            &case.origin,
            fill,
            endian,
            in_flight,
            |index| {
                let wait = Turns(turns(&index, seed));
                let was = s.chunks.get(&index).cloned();
                async move {
                    wait.await;
                    asked_ref.lock().unwrap().push(index);
                    Ok::<_, Error>(was)
                }
            },
            |index, bytes| {
                let wait = Turns(turns(&index, !seed));
                async move {
                    wait.await;
                    let old = written_ref.lock().unwrap().insert(index, bytes);
                    assert!(old.is_none());
                    Ok(())
                }
            },
        );
        block_on(write).unwrap();
        let written = written.into_inner().unwrap();
        assert_eq!(written, case.blocking_write(view.view()), "{ctx}");
        assert_eq!(written, s.expected_write(&x, &case.origin, true), "{ctx}");
        let mut asked = asked.into_inner().unwrap();
        asked.sort();
        let partly: Vec<Vec<usize>> = naive_parts(grid, &case.origin, &case.lens)
            .into_iter()
            .filter(|p| !p.whole)
            .map(|p| p.index)
            .collect();
        assert_eq!(asked, partly, "{ctx}");
    }

    macro_rules! async_properties {
        ($($name:ident: $t:ty),* $(,)?) => {$(
            mod $name {
                use super::*;

                #[test]
                fn the_async_calls_read_and_write_what_the_blocking_calls_do() {
                    let cases = (cases(), 0..LAYOUTS.len(), any::<bool>(), any::<u64>(), 1usize..8);
                    property(file!(), 64, cases, &|((shape, chunk, subset), layout, big, seed, in_flight)| {
                        let (case, mut rng) = Case::<$t>::new(&shape, &chunk, subset, layout, big, seed);
                        check_async(&case, &mut rng, in_flight)
                    });
                }
            }
        )*};
    }

    async_properties! {
        bool_: bool,
        uint8: u8,
        int16: i16,
        float32: f32,
        float64: f64,
        complex128: Complex<f64>,
    }

    /// Requests that finish in the reverse of the order they start in: each chunk is read
    /// and written as by the blocking calls. The writer starts one request per poll, so
    /// the first ones get a head start of up to `n` turns; `n` more per place outrun it.
    #[test]
    fn chunks_that_arrive_last_first_read_and_write_as_the_blocking_calls() {
        let (case, mut rng) = Case::<u16>::new(&[10, 9], &[3, 4], vec![1..10, 2..9], 1, true, 5);
        let s = &case.stored;
        let parts = naive_parts(&s.grid, &case.origin, &case.lens);
        let n = parts.len();
        let position = |index: &[usize]| parts.iter().position(|p| p.index == index).unwrap();
        let arrived = Mutex::new(Vec::new());
        let fetch = |index: Vec<usize>| {
            let wait = Turns(n * (n - position(&index)));
            let (arrived, bytes) = (&arrived, s.chunks.get(&index).cloned());
            async move {
                wait.await;
                arrived.lock().unwrap().push(index);
                Ok::<_, Error>(bytes)
            }
        };
        let read = ArrayD::<u16>::from_zarr_subset_async(
            &s.grid,
            &case.subset,
            s.fill,
            s.endian,
            n,
            fetch,
        );
        let got = block_on(read).unwrap();
        let last_first: Vec<Vec<usize>> = parts.iter().rev().map(|p| p.index.clone()).collect();
        assert_eq!(arrived.into_inner().unwrap(), last_first);
        let blocking =
            ArrayD::<u16>::from_zarr_subset(&s.grid, &case.subset, s.fill, s.endian, case.source());
        assert_eq!(got, blocking.unwrap());
        assert_eq!(got, case.want());

        let x = case.values(&mut rng);
        let written = Mutex::new(Vec::new());
        let write = x.encode_zarr_subset_async(
            &s.grid,
            &case.origin,
            s.fill,
            s.endian,
            n,
            |index| {
                let was = s.chunks.get(&index).cloned();
                async move { Ok::<_, Error>(was) }
            },
            |index, bytes| {
                let wait = Turns(n * (n - position(&index)));
                let written = &written;
                async move {
                    wait.await;
                    written.lock().unwrap().push((index, bytes));
                    Ok(())
                }
            },
        );
        block_on(write).unwrap();
        let written = written.into_inner().unwrap();
        let order: Vec<&Vec<usize>> = written.iter().map(|(i, _)| i).collect();
        assert_eq!(order, last_first.iter().collect::<Vec<_>>());
        let written: Written = written.into_iter().collect();
        assert_eq!(written, case.blocking_write(x.view()));
    }
}
