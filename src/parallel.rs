//! Large conversions split across the rayon thread pool (cargo feature `rayon`).
//!
//! Encoding and decoding call one hook each, [`encode`] and [`decode`], with their
//! sequential work as closures; without the feature, or for conversions too small to
//! share, the hook runs that work on the whole conversion on the calling thread. This
//! module imports neither encoding nor decoding: it only cuts the work and runs the parts.
//!
//! Parts never share what they write: standard layouts are cut into equal runs of
//! elements and bytes; encoding other layouts into consecutive windows of the byte stream,
//! which read the array's memory in common; decoding into other layouts into halves of the
//! array's memory along its outermost axis in memory, which read the bytes in common. Views
//! that are no one memory slice (a chunk of a bigger array) are cut along their first axis
//! into runs of the stream, of whole blocks for those that move in tiles. The results are
//! the same bytes and elements, and the same first error, as on one thread.

use ndarray::{ArrayView, ArrayViewMut, IxDyn};

use crate::Error;
use crate::check::check_invalid;
use crate::element::Item;
use crate::traverse::{Moves, Strided};

/// Encode `view` into `out`, whose length is checked: `whole(view, out)` runs the
/// sequential encoding of any view; `window(memory, window, out)` that of a window of the
/// stream of one memory slice. On the pool, each runs on its parts.
pub(crate) fn encode<A: Item>(
    view: ArrayView<'_, A, IxDyn>,
    out: &mut [u8],
    whole: impl Fn(ArrayView<'_, A, IxDyn>, &mut [u8]) + Sync,
    window: impl Fn(&[A], &Strided, &mut [u8]) + Sync,
) {
    #[cfg(feature = "rayon")]
    if pool::worth(out.len()) {
        return pool::encode(view, out, &whole, &window);
    }
    #[cfg(not(feature = "rayon"))]
    let _ = window;
    whole(view, out)
}

/// Decode `bytes`, of checked length, into `view`: `whole(view, bytes)` runs the
/// sequential decoding of any view; `part(part, stream, out)` that of a part of one memory
/// slice placed at `out` in a stream with strides `stream`, answering whether its bytes
/// were valid. The error is the first invalid byte of the stream, whichever part met it.
pub(crate) fn decode<A: Item>(
    view: ArrayViewMut<'_, A, IxDyn>,
    bytes: &[u8],
    whole: impl Fn(ArrayViewMut<'_, A, IxDyn>, &[u8]) -> Result<(), Error> + Sync,
    part: impl Fn(ArrayViewMut<'_, A, IxDyn>, &[usize], usize) -> bool + Sync,
) -> Result<(), Error> {
    #[cfg(feature = "rayon")]
    if pool::worth(bytes.len()) {
        return pool::decode(view, bytes, &whole, &part);
    }
    #[cfg(not(feature = "rayon"))]
    let _ = part;
    whole(view, bytes)
}

/// The first byte of `bytes` that is no valid encoding of `T` (a unit, or a type that
/// decodes as itself), as [`check_invalid`].
pub(crate) fn check<T: Moves>(bytes: &[u8]) -> Result<(), Error> {
    #[cfg(feature = "rayon")]
    if pool::worth(bytes.len()) {
        return pool::check::<T>(bytes);
    }
    check_invalid::<T>(bytes, 0)
}

/// `read(bytes, dst)` on the encoded `bytes` of the units `dst`, of checked length.
pub(crate) fn read<T: Moves>(bytes: &[u8], dst: &mut [T], read: impl Fn(&[u8], &mut [T]) + Sync) {
    #[cfg(feature = "rayon")]
    if pool::worth(bytes.len()) {
        let per = pool::per_task::<T>(dst.len());
        return pool::zip(bytes, per * T::SIZE, dst, per, read);
    }
    read(bytes, dst)
}

/// `a()` and `b()`, each called once: on two threads of the pool when it has them; else
/// `a()`, then `b()`. Behind `dyn`, so that rayon's join is made once, not once for each
/// caller's closures and element type.
pub(crate) fn join(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    #[cfg(feature = "rayon")]
    rayon::join(a, b);
    #[cfg(not(feature = "rayon"))]
    {
        a();
        b();
    }
}

/// `f()`, its conversions kept on the calling thread: the chunks of a grid share the pool
/// among themselves, and cutting each again would only add parts.
pub(crate) fn on_this_thread<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "rayon")]
    return pool::ON_THIS_THREAD.with(|flag| {
        let before = flag.replace(true);
        let result = f();
        flag.set(before);
        result
    });
    #[cfg(not(feature = "rayon"))]
    f()
}

/// The pool's side of the hooks.
#[cfg(feature = "rayon")]
mod pool {
    use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};
    use rayon::prelude::*;

    use crate::Error;
    use crate::check::check_invalid;
    use crate::element::Item;
    use crate::traverse::plan::{MAX_AXES, Split, last_long_axis, memory_order};
    use crate::traverse::{self, Moves, Strided, reorders};

    /// [`super::encode`] on the pool.
    pub(super) fn encode<A: Item>(
        view: ArrayView<'_, A, IxDyn>,
        out: &mut [u8],
        whole: &(impl Fn(ArrayView<'_, A, IxDyn>, &mut [u8]) + Sync),
        window: &(impl Fn(&[A], &Strided, &mut [u8]) + Sync),
    ) {
        if let Some(slice) = view.to_slice() {
            let per = per_task::<A>(slice.len());
            return zip(slice, per, out, per * A::BYTES, |s, d| {
                whole(ArrayView::from(s).into_dyn(), d)
            });
        }
        match Strided::of(view.shape(), view.strides()).zip(view.to_slice_memory_order()) {
            Some((strided, memory)) if windows_keep_tiles::<A>(&strided) => {
                windows::<A>(strided, out, |w, part| window(memory, w, part))
            }
            // Windows that would cut the tiles: on one thread.
            Some(_) => whole(view, out),
            // Not one memory slice: in parts that are runs of the stream, of whole blocks where
            // the traversal moves it in tiles of its lanes.
            None => match parts(view, A::BYTES, per_task::<A>(out.len() / A::BYTES)) {
                Ok((parts, per)) => {
                    let pieces = out.chunks_mut(per * A::BYTES);
                    each(parts.into_iter().zip(pieces), &|(part, piece)| {
                        whole(part, piece);
                        true
                    });
                }
                Err(view) => whole(view, out),
            },
        }
    }

    /// [`super::decode`] on the pool.
    pub(super) fn decode<A: Item>(
        mut view: ArrayViewMut<'_, A, IxDyn>,
        bytes: &[u8],
        whole: &(impl Fn(ArrayViewMut<'_, A, IxDyn>, &[u8]) -> Result<(), Error> + Sync),
        part: &(impl Fn(ArrayViewMut<'_, A, IxDyn>, &[usize], usize) -> bool + Sync),
    ) -> Result<(), Error> {
        let valid = if let Some(slice) = view.as_slice_mut() {
            let per = per_task::<A>(slice.len());
            let pieces = slice
                .chunks_mut(per)
                .map(|d| ArrayViewMut::from(d).into_dyn());
            each(pieces.zip(bytes.chunks(per * A::BYTES)), &|(d, s)| {
                whole(d, s).is_ok()
            })
        } else if view.as_slice_memory_order_mut().is_some() {
            halves(view, part)
        } else {
            // Not one memory slice: in parts that are runs of the stream, of whole blocks where
            // the traversal moves it in tiles of its lanes.
            let least = per_task::<A>(view.len());
            match parts(view, A::BYTES, least) {
                Ok((parts, per)) => {
                    let pieces = bytes.chunks(per * A::BYTES);
                    each(parts.into_iter().zip(pieces), &|(part, piece)| {
                        whole(part, piece).is_ok()
                    })
                }
                Err(view) => return whole(view, bytes),
            }
        };
        if !valid {
            // Report the first invalid byte of the stream, whichever part met one.
            check::<A::In>(bytes)?;
        }
        Ok(())
    }

    /// [`super::check`] on the pool, in equal parts; where one holds an invalid byte, the
    /// stream's first is found from its start on this thread, so that the answer does not
    /// depend on timing.
    pub(super) fn check<T: Moves>(bytes: &[u8]) -> Result<(), Error> {
        let per = per_task::<T>(bytes.len() / T::SIZE) * T::SIZE;
        if each(bytes.chunks(per), &|part| {
            check_invalid::<T>(part, 0).is_ok()
        }) {
            return Ok(());
        }
        check_invalid::<T>(bytes, 0)
    }

    /// Bytes from which a conversion is split across threads; smaller ones stay on the calling
    /// thread, as the pool made them slower and larger ones faster
    /// (benches/NOTES.md, `src/parallel.rs`).
    const PARALLEL_THRESHOLD: usize = 2 << 20;

    /// Whether a conversion of `bytes` goes to the pool: it is large enough, and the pool has
    /// threads to share it. A pool of one thread gains nothing from parts and pays for them
    /// (benches/NOTES.md, `src/parallel.rs`).
    pub(super) fn worth(bytes: usize) -> bool {
        bytes >= PARALLEL_THRESHOLD
            && rayon::current_num_threads() > 1
            && !ON_THIS_THREAD.with(|flag| flag.get())
    }

    thread_local! {
        /// Set while [`super::on_this_thread`] runs its work on this thread.
        pub(super) static ON_THIS_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Bytes each task converts, at least.
    const TASK_BYTES: usize = 256 * 1024;

    /// Elements per task for a conversion of `len` elements: enough tasks to balance the pool.
    pub(super) fn per_task<T>(len: usize) -> usize {
        let tasks = 4 * rayon::current_num_threads();
        (len / tasks)
            .max(TASK_BYTES / std::mem::size_of::<T>().max(1))
            .max(1)
    }

    /// `f(item)` on each of `items` in the pool, every one run: whether `f` returned true for
    /// every one (for decoding, whether every part's bytes were valid). Every conversion on
    /// the pool comes here, its items parts of the array and their pieces of the stream.
    pub(super) fn each<'a, T: Send + 'a>(
        items: impl Iterator<Item = T>,
        f: &'a (dyn Fn(T) -> bool + Sync),
    ) -> bool {
        run(items
            .map(|item| -> Task<'a> { Box::new(move || f(item)) })
            .collect())
    }

    /// A part of a conversion for the pool, boxed: [`run`], the pool's code, is then made
    /// once, not once for each element type and closure. Parts are [`TASK_BYTES`] long at
    /// least, so a box each costs nothing beside their work.
    type Task<'a> = Box<dyn FnOnce() -> bool + Send + 'a>;

    /// `tasks` on the pool, every one run: whether every one returned true.
    fn run(tasks: Vec<Task<'_>>) -> bool {
        tasks
            .into_par_iter()
            .map(|task| task())
            .filter(|&ok| !ok)
            .count()
            == 0
    }

    /// `f(a part, b part)` on the parts of `a` and `b` that hold the same elements, `a_per` and
    /// `b_per` items long (the last ones shorter).
    pub(super) fn zip<X: Sync, Y: Send>(
        a: &[X],
        a_per: usize,
        b: &mut [Y],
        b_per: usize,
        f: impl Fn(&[X], &mut [Y]) + Sync,
    ) {
        each(a.chunks(a_per).zip(b.chunks_mut(b_per)), &|(x, y)| {
            f(x, y);
            true
        });
    }

    /// `f(window, its bytes)` on consecutive windows of the stream of `strided`, each with its
    /// own part of `out` (`A::BYTES` bytes per element).
    pub(super) fn windows<A: Item>(
        strided: Strided,
        out: &mut [u8],
        f: impl Fn(&Strided, &mut [u8]) + Sync,
    ) {
        let mut jobs = Vec::new();
        let mut rest = out;
        traverse::windows(
            strided,
            per_task::<A>(strided.len()),
            0,
            &mut |window, _| {
                let (part, tail) = std::mem::take(&mut rest).split_at_mut(window.len() * A::BYTES);
                jobs.push((window, part));
                rest = tail;
            },
        );
        each(jobs.into_iter(), &|(window, part)| {
            f(&window, part);
            true
        });
    }

    /// Whether the [`windows`] of `strided` keep the axis with the shortest memory step, along
    /// which the tiles read, at least 16 indices (or all of it) deep. A window that holds one
    /// index of it, as when that axis is outermost in the stream (the planes of a stack stored
    /// interleaved, viewed (2, 0, 1)), reads all of the memory of the planes for each plane,
    /// one element in four of it, slower on the pool than one thread in tiles
    /// (benches/NOTES.md, `src/parallel.rs`).
    pub(super) fn windows_keep_tiles<A: Item>(strided: &Strided) -> bool {
        traverse::tiled_window(strided, 16, usize::MAX) <= per_task::<A>(strided.len())
    }

    /// `f(part, stream, out)` on parts of `view`, one slice of memory: halves along its
    /// outermost axis in memory while both keep a task's elements ([`per_task`]), so no more
    /// parts than the pool needs. Each part keeps `stream`, the stream strides of the whole
    /// view, and is placed at `out` in the stream. Whether `f` returned true for every part
    /// (every part's bytes were valid), as for [`each`].
    ///
    /// A part of a Fortran-order array reads each stream row in a run as wide as the part, so
    /// parts are not cut finer than the pool needs: cut down to 256 KiB whatever the pool,
    /// the parts were narrow and decoded slower (benches/NOTES.md, `src/parallel.rs`).
    pub(super) fn halves<A: Item>(
        view: ArrayViewMut<'_, A, IxDyn>,
        f: impl Fn(ArrayViewMut<'_, A, IxDyn>, &[usize], usize) -> bool + Sync,
    ) -> bool {
        let mut stream = vec![0; view.ndim()];
        traverse::c_order(view.shape(), &mut stream);
        let least = per_task::<A>(view.len());
        let mut parts = Vec::new();
        split(view, &stream, 0, least, &mut parts);
        each(parts.into_iter(), &|(part, out)| f(part, &stream, out))
    }

    /// The recursion of [`halves`]: the parts of `view`, placed at `out` in the stream, in
    /// stream order.
    fn split<'a, A: Item>(
        view: ArrayViewMut<'a, A, IxDyn>,
        stream: &[usize],
        out: usize,
        least: usize,
        parts: &mut Vec<(ArrayViewMut<'a, A, IxDyn>, usize)>,
    ) {
        // The halves of one memory slice along its outermost axis are one slice each. The last
        // axis is halved only while it keeps whole tiles, however many tasks that leaves.
        let outer = (0..view.ndim())
            .filter(|&k| view.len_of(Axis(k)) >= 2)
            .max_by_key(|&k| view.strides()[k].unsigned_abs());
        let splittable = |k: usize| k + 1 < view.ndim() || view.len_of(Axis(k)) >= 256;
        if let Some(axis) = outer.filter(|&k| splittable(k) && view.len() >= 2 * least) {
            let mid = view.len_of(Axis(axis)) / 2;
            let (a, b) = view.split_at(Axis(axis), mid);
            split(a, stream, out, least, parts);
            split(b, stream, out + mid * stream[axis], least, parts);
            return;
        }
        parts.push((view, out));
    }

    /// Bytes of the blocks that [`reordered_parts`] cuts a part of a bigger array into, at
    /// most, for the thread pool: deep enough along both the axis closest in memory and the
    /// last axis ([`block_sizes`]) that the tiles read long runs and write long stream rows.
    const PART_BYTES: usize = 1 << 22;

    /// Indices along each axis of the blocks that [`reordered_parts`] cuts a view of `size`-byte
    /// elements into, [`PART_BYTES`] at most: as deep along the axis closest in memory as along
    /// the last (the square root of the block's elements, unless one of them is shorter), so
    /// that both the runs read from memory and the rows written to the stream are long; then,
    /// when those two axes are whole, as many indices of the other axes as fit, from the
    /// closest in memory.
    fn block_sizes(shape: &[usize], strides: &[isize], size: usize) -> Vec<usize> {
        let most = (PART_BYTES / size.max(1)).max(1);
        let order = memory_order(shape, strides);
        let closest = order.last().copied().unwrap_or(0);
        let last = last_long_axis(shape).unwrap_or(0);
        let mut sizes = vec![1; shape.len()];
        let side = ((most as f64).sqrt() as usize).max(most / shape[last]);
        sizes[closest] = shape[closest].min(side).max(1);
        sizes[last] = shape[last].min(most / sizes[closest]).max(1);
        let mut held = sizes[closest] * sizes[last];
        if sizes[closest] == shape[closest] && sizes[last] == shape[last] {
            for &k in order.iter().rev().filter(|&&k| k != closest && k != last) {
                sizes[k] = shape[k].min(most / held).max(1);
                held *= sizes[k];
                if sizes[k] < shape[k] {
                    break;
                }
            }
        }
        sizes
    }

    /// The parts of a view of `size`-byte elements, no one memory slice, that
    /// [`walk`](traverse::walk) moves in tiles of its lanes ([`reorders`]), for the thread
    /// pool: the view cut along its first axis longer than 1 into pieces as deep along it as
    /// the blocks of [`block_sizes`], so that each holds whole blocks and is a run of the
    /// stream, every one `per` stream positions long but the last. The view back when it is
    /// not walked so, or is one block deep along that axis.
    fn reordered_parts<V: Split>(view: V, size: usize) -> Result<(Vec<V>, usize), V> {
        let (shape, strides) = (view.shape(), view.strides());
        let first = shape.iter().position(|&len| len > 1);
        let Some(axis) = first.filter(|_| reorders(shape, strides) && shape.len() <= MAX_AXES)
        else {
            return Err(view);
        };
        let (len, depth) = (shape[axis], block_sizes(shape, strides, size)[axis]);
        if depth >= len {
            return Err(view);
        }
        let per = depth * shape[axis + 1..].iter().product::<usize>();
        let mut parts = Vec::with_capacity(len.div_ceil(depth));
        let mut rest = view;
        for start in (0..len).step_by(depth) {
            let (part, tail) = rest.split_axis(axis, depth.min(len - start));
            parts.push(part);
            rest = tail;
        }
        Ok((parts, per))
    }

    /// The parts of a view of `size`-byte elements, no one memory slice, for the thread pool:
    /// those of [`reordered_parts`] for a view that moves in tiles of its lanes; else (rows
    /// that are lanes) the view cut along its first axis longer than 1 into pieces of `least`
    /// elements at least, each a run of the stream, every one `per` stream positions long but
    /// the last. The view back when there would be one piece only.
    fn parts<V: Split>(view: V, size: usize, least: usize) -> Result<(Vec<V>, usize), V> {
        let view = match reordered_parts(view, size) {
            Err(view) if !reorders(view.shape(), view.strides()) => view,
            cut => return cut,
        };
        let shape = view.shape();
        let Some(axis) = shape.iter().position(|&len| len > 1) else {
            return Err(view);
        };
        let (len, inner) = (shape[axis], shape[axis + 1..].iter().product::<usize>());
        let depth = least.div_ceil(inner.max(1)).max(1);
        if depth >= len {
            return Err(view);
        }
        let mut parts = Vec::with_capacity(len.div_ceil(depth));
        let mut rest = view;
        for start in (0..len).step_by(depth) {
            let (part, tail) = rest.split_axis(axis, depth.min(len - start));
            parts.push(part);
            rest = tail;
        }
        Ok((parts, depth * inner))
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

        /// The parts the pool gets of a view walked in tiles of its lanes: whole blocks deep
        /// along the first long axis, in stream order; none for a view one block deep, or not
        /// walked so.
        #[test]
        fn reordered_parts_hold_whole_blocks() {
            use super::reordered_parts;
            use crate::traverse::{Strided, plan::Split};
            let parts = |shape: &[usize], strides: &[isize], size: usize| {
                let view = Strided::of(shape, strides).unwrap();
                let (parts, per) = reordered_parts(view, size).ok()?;
                let shapes: Vec<Vec<usize>> = parts.iter().map(|p| p.shape().to_vec()).collect();
                Some((shapes, per))
            };
            // The first 3000 rows of a `u8` array in Fortran order 3016 rows tall: blocks of
            // 2048 rows (the square root of 4 MiB), so a part of 2048 rows and one of 952.
            let fortran = parts(&[3000, 4096], &[1, 3016], 1).unwrap();
            assert_eq!(
                fortran,
                (vec![vec![2048, 4096], vec![952, 4096]], 2048 * 4096)
            );
            // 2-byte elements: blocks of 1448 rows.
            let (shapes, per) = parts(&[3000, 4096], &[1, 3016], 2).unwrap();
            assert_eq!(shapes, [[1448, 4096], [1448, 4096], [104, 4096]]);
            assert_eq!(per, 1448 * 4096);
            // Few columns make deeper blocks: 4 MiB / 1500 = 2796 rows.
            let (shapes, per) = parts(&[3000, 1500], &[1, 3016], 1).unwrap();
            assert_eq!(
                (shapes, per),
                (vec![vec![2796, 1500], vec![204, 1500]], 2796 * 1500)
            );
            // Leading axes of length 1 are passed over.
            let one = parts(&[1, 3000, 4096], &[7, 1, 3016], 1).unwrap();
            assert_eq!(one.0, [[1, 2048, 4096], [1, 952, 4096]]);
            // A part of a permuted stack, backwards along its planes, whose planes are whole
            // blocks of 8-byte elements: 4 planes a block.
            let stack = parts(&[8, 300, 400], &[-200_000, 1, 301], 8).unwrap();
            assert_eq!(stack, (vec![vec![4, 300, 400]; 2], 4 * 300 * 400));
            // One block deep, or rows that run along memory: not cut.
            assert!(parts(&[1000, 4096], &[1, 1016], 1).is_none());
            assert!(parts(&[3000, 4096], &[4100, 1], 1).is_none());
        }

        /// [`parts`](super::parts): the parts of [`reordered_parts`](super::reordered_parts)
        /// where it cuts; rows of a part of a C-order array in runs of the stream of whole rows,
        /// `least` elements at least; one part is none.
        #[test]
        fn parts_of_rows_are_runs_of_whole_rows() {
            use super::parts;
            use crate::traverse::{Strided, plan::Split};
            let cut = |shape: &[usize], strides: &[isize], least: usize| {
                let view = Strided::of(shape, strides).unwrap();
                let (parts, per) = parts(view, 1, least).ok()?;
                let shapes: Vec<Vec<usize>> = parts.iter().map(|p| p.shape().to_vec()).collect();
                Some((shapes, per))
            };
            assert_eq!(
                cut(&[3000, 4096], &[1, 3016], 1 << 20),
                Some((vec![vec![2048, 4096], vec![952, 4096]], 2048 * 4096))
            );
            assert_eq!(
                cut(&[3000, 4096], &[4100, 1], 1 << 20),
                Some((
                    vec![vec![256, 4096]; 11]
                        .into_iter()
                        .chain([vec![184, 4096]])
                        .collect(),
                    256 * 4096
                ))
            );
            assert_eq!(
                cut(&[1, 10, 300], &[0, 400, 1], 1000),
                Some((
                    vec![vec![1, 4, 300], vec![1, 4, 300], vec![1, 2, 300]],
                    1200
                ))
            );
            assert!(cut(&[3000, 4096], &[4100, 1], 1 << 24).is_none());
        }
    }
}
