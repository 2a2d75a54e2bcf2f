//! Large conversions split across the rayon thread pool (cargo feature `rayon`).
//!
//! Encoding and decoding hand their work here together with the sequential code to run on
//! each part; this module only cuts the work and runs the parts in the pool. Parts never
//! share what they write: standard layouts are cut into equal runs of elements and bytes;
//! encoding other layouts into consecutive windows of the byte stream, which read the
//! array's memory in common; decoding into other layouts into halves of the array's memory
//! along its outermost axis in memory, which read the bytes in common. Views that are no
//! one memory slice (a chunk of a bigger array) are cut along their first axis into runs
//! of the stream, of whole blocks for those that move in tiles ([`each`]). The results
//! are the same bytes and elements as on one thread.

use ndarray::{ArrayViewMut, Axis, IxDyn};
use rayon::prelude::*;

use crate::traverse::{self, Strided};
use crate::{Element, Error};

/// Bytes from which a conversion is split across threads; smaller ones stay on the calling
/// thread. Measured on 2 vCPUs (`perf_table --features rayon --size-mib M`): at 1 MiB the
/// pool made standard-layout conversions slower (0.6–0.8×), from 2 MiB on they gain
/// (1.3–1.5×).
const PARALLEL_THRESHOLD: usize = 2 << 20;

/// Whether a conversion of `bytes` goes to the pool: it is large enough, and the pool has
/// threads to share it. A pool of one thread gains nothing from parts and pays for them:
/// at 64 MiB it decoded 2-byte elements into Fortran order at 0.58–0.59 of memcpy in
/// parts, against 0.61–0.63 in one traversal.
pub(crate) fn worth(bytes: usize) -> bool {
    bytes >= PARALLEL_THRESHOLD && rayon::current_num_threads() > 1
}

/// Bytes each task converts, at least.
const TASK_BYTES: usize = 256 * 1024;

/// Elements per task for a conversion of `len` elements: enough tasks to balance the pool.
pub(crate) fn per_task<A: Element>(len: usize) -> usize {
    let tasks = 4 * rayon::current_num_threads();
    (len / tasks).max(TASK_BYTES / A::SIZE).max(1)
}

/// The error with the lowest byte offset, so that the answer does not depend on timing.
fn first(errors: impl ParallelIterator<Item = Error>) -> Result<(), Error> {
    let offset = |e: &Error| match e {
        Error::InvalidBool { offset, .. } => *offset,
        _ => 0,
    };
    match errors.min_by_key(offset) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `f(a part, b part)` on the parts of `a` and `b` that hold the same elements, `a_per` and
/// `b_per` items long (the last ones shorter).
pub(crate) fn zip<X: Sync, Y: Send>(
    a: &[X],
    a_per: usize,
    b: &mut [Y],
    b_per: usize,
    f: impl Fn(&[X], &mut [Y]) + Sync + Send,
) {
    a.par_chunks(a_per)
        .zip(b.par_chunks_mut(b_per))
        .for_each(|(x, y)| f(x, y));
}

/// [`zip`] for a fallible `f`, which is also told the index of its part: of the errors, the
/// one at the lowest byte offset.
pub(crate) fn try_zip<X: Sync, Y: Send>(
    a: &[X],
    a_per: usize,
    b: &mut [Y],
    b_per: usize,
    f: impl Fn(usize, &[X], &mut [Y]) -> Result<(), Error> + Sync + Send,
) -> Result<(), Error> {
    first(
        a.par_chunks(a_per)
            .zip(b.par_chunks_mut(b_per))
            .enumerate()
            .filter_map(|(i, (x, y))| f(i, x, y).err()),
    )
}

/// `f(index, part)` on the parts of `a`, `per` items long: of the errors, the one at the
/// lowest byte offset.
pub(crate) fn try_chunks<X: Sync>(
    a: &[X],
    per: usize,
    f: impl Fn(usize, &[X]) -> Result<(), Error> + Sync + Send,
) -> Result<(), Error> {
    first(
        a.par_chunks(per)
            .enumerate()
            .filter_map(|(i, part)| f(i, part).err()),
    )
}

/// `f(window, its bytes)` on consecutive windows of the stream of `strided`, each with its
/// own part of `out` (`A::SIZE` bytes per element).
pub(crate) fn windows<A: Element>(
    strided: Strided,
    out: &mut [u8],
    f: impl Fn(&Strided, &mut [u8]) + Sync + Send,
) {
    let mut jobs = Vec::new();
    let mut rest = out;
    traverse::windows(
        strided,
        per_task::<A>(strided.len()),
        0,
        &mut |window, _| {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(window.len() * A::SIZE);
            jobs.push((window, part));
            rest = tail;
        },
    );
    jobs.into_par_iter()
        .for_each(|(window, part)| f(&window, part));
}

/// `f(part, its piece of the stream)` on each of `parts` in the pool, the pieces being the
/// items of `pieces` in the same order: whether `f` returned true for every part (for
/// decoding, whether every part's bytes were valid). The parts of a view that is no one
/// memory slice ([`traverse::parts`]) go here, each to the sequential traversal.
pub(crate) fn each<V: Send, B: Send>(
    parts: Vec<V>,
    pieces: impl IndexedParallelIterator<Item = B>,
    f: impl Fn(V, B) -> bool + Sync + Send,
) -> bool {
    let failed = parts
        .into_par_iter()
        .zip(pieces)
        .map(|(part, piece)| f(part, piece))
        .filter(|&valid| !valid)
        .count();
    failed == 0
}

/// Whether the [`windows`] of `strided` keep the axis with the shortest memory step, along
/// which the tiles read, at least 16 indices (or all of it) deep. A window that holds one
/// index of it, as when that axis is outermost in the stream (the planes of a stack stored
/// interleaved, viewed (2, 0, 1)), reads all of the memory of the planes for each plane,
/// one element in four of it: measured at 64 MiB, `u8` encoding at 0.3 of memcpy on the
/// pool against 0.7 on one thread in tiles, when those windows moved element by element;
/// in the 4-row rectangles since, one thread writes such windows at 0.39.
pub(crate) fn windows_keep_tiles<A: Element>(strided: &Strided) -> bool {
    traverse::tiled_window(strided, 16, usize::MAX) <= per_task::<A>(strided.len())
}

/// `f(part, stream, out)` on parts of `view`, one slice of memory: halves along its
/// outermost axis in memory while both keep a task's elements ([`per_task`]), so no more
/// parts than the pool needs. Each part keeps `stream`, the stream strides of the whole
/// view, and is placed at `out` in the stream. Whether `f` returned true for every part
/// (every part's bytes were valid), as for [`each`].
///
/// A part of a Fortran-order array reads each stream row in a run as wide as the part, so
/// parts are not cut finer than the pool needs. Cut down to 256 KiB whatever the pool,
/// 64 MiB of `u8` became parts 128 columns wide, which decoded at 0.34–0.41 of memcpy on
/// one thread, against 0.52–0.57 in parts of 1024 columns (`perf_table --features
/// rayon`).
pub(crate) fn halves<A: Element>(
    view: ArrayViewMut<'_, A, IxDyn>,
    f: impl Fn(ArrayViewMut<'_, A, IxDyn>, &[usize], usize) -> bool + Sync + Send,
) -> bool {
    let mut stream = vec![0; view.ndim()];
    let mut step = 1;
    for k in (0..view.ndim()).rev() {
        stream[k] = step;
        step *= view.shape()[k];
    }
    let least = per_task::<A>(view.len());
    split(view, &stream, 0, least, &f)
}

/// The recursion of [`halves`].
fn split<A: Element, F>(
    view: ArrayViewMut<'_, A, IxDyn>,
    stream: &[usize],
    out: usize,
    least: usize,
    f: &F,
) -> bool
where
    F: Fn(ArrayViewMut<'_, A, IxDyn>, &[usize], usize) -> bool + Sync + Send,
{
    // The halves of one memory slice along its outermost axis are one slice each. The last
    // axis is halved only while it keeps whole tiles, however many tasks that leaves.
    let outer = (0..view.ndim())
        .filter(|&k| view.len_of(Axis(k)) >= 2)
        .max_by_key(|&k| view.strides()[k].unsigned_abs());
    let splittable = |k: usize| k + 1 < view.ndim() || view.len_of(Axis(k)) >= 256;
    if let Some(axis) = outer.filter(|&k| splittable(k) && view.len() >= 2 * least) {
        let mid = view.len_of(Axis(axis)) / 2;
        let (a, b) = view.split_at(Axis(axis), mid);
        let at = out + mid * stream[axis];
        let (a, b) = rayon::join(
            || split(a, stream, out, least, f),
            || split(b, stream, at, least, f),
        );
        return a && b;
    }
    f(view, stream, out)
}

#[cfg(test)]
mod tests {
    use super::{halves, windows_keep_tiles};
    use crate::traverse::Strided;
    use ndarray::{Array2, IxDyn, ShapeBuilder};
    use std::sync::Mutex;

    /// The shapes and stream places of the parts [`halves`] cuts a 4 MiB Fortran-order
    /// array of `u8` into, on a pool of `threads` threads.
    fn parts(threads: usize) -> Vec<(Vec<usize>, usize)> {
        let mut array = Array2::<u8>::zeros((4096, 1024).f());
        let seen = Mutex::new(Vec::new());
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                halves(
                    array.view_mut().into_dimensionality::<IxDyn>().unwrap(),
                    |part, _, out| {
                        seen.lock().unwrap().push((part.shape().to_vec(), out));
                        true
                    },
                )
            });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|&(_, out)| out);
        seen
    }

    /// One thread gets four parts of 256 columns, where parts of 256 KiB to 512 KiB would
    /// be eight of 128; every part is whole columns at its place in the stream. Two
    /// threads get eight parts, as many as their tasks.
    #[test]
    fn halves_cut_as_many_parts_as_the_pool_needs() {
        let one: Vec<_> = (0..4).map(|i| (vec![4096, 256], i * 256)).collect();
        assert_eq!(parts(1), one);
        let two: Vec<_> = (0..8).map(|i| (vec![4096, 128], i * 128)).collect();
        assert_eq!(parts(2), two);
    }

    /// 64 MiB of `u8`: a stack of 4 planes viewed (2, 0, 1) would be cut into windows of
    /// one plane, read element by element; Fortran order and swapped axes keep their tiles.
    #[test]
    fn windows_that_would_cut_the_tiles_are_refused() {
        let planes = Strided::of(&[4, 4096, 4096], &[1, 4 * 4096, 4]).unwrap();
        assert!(!windows_keep_tiles::<u8>(&planes));
        let fortran = Strided::of(&[8192, 8192], &[1, 8192]).unwrap();
        assert!(windows_keep_tiles::<u8>(&fortran));
        let swapped = Strided::of(&[4, 4096, 4096], &[4096 * 4096, 1, 4096]).unwrap();
        assert!(windows_keep_tiles::<u8>(&swapped));
        // An axis of 2 along memory is kept whole whenever a window holds both indices.
        let pairs = Strided::of(&[1024, 2], &[2, 1]).unwrap();
        assert!(windows_keep_tiles::<u8>(&pairs));
    }
}
