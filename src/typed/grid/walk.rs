//! The walk over the chunks a subset touches: the array that holds the subset is halved
//! along chunk boundaries down to one chunk's part, both halves on the pool, or the first
//! then the second (C order) without it. The whole grid is the subset of all of its array.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};

use crate::parallel;
use crate::typed::grid::subset::Subset;

/// The work on one chunk: its index, and its part of the array that holds the subset.
pub(crate) type ChunkWork<'w, V, E> = dyn Fn(&[usize], V) -> Result<(), E> + Sync + 'w;

/// An array view that can be cut in two along an axis: shared views, and mutable views whose
/// halves go to two threads.
pub(crate) trait Cut: Send + Sized {
    /// The view's halves before and after `index` along `axis`.
    fn cut(self, axis: usize, index: usize) -> (Self, Self);
}

impl<A: Sync> Cut for ArrayView<'_, A, IxDyn> {
    fn cut(self, axis: usize, index: usize) -> (Self, Self) {
        self.split_at(Axis(axis), index)
    }
}

impl<A: Send> Cut for ArrayViewMut<'_, A, IxDyn> {
    fn cut(self, axis: usize, index: usize) -> (Self, Self) {
        self.split_at(Axis(axis), index)
    }
}

/// `work(index, part)` on every chunk `subset` touches, given its part of `array` (whose
/// shape is the subset's): on the pool when there is one, else in C order. The first error
/// stops the work: chunks not yet started are skipped, and it is returned.
pub(crate) fn each<V: Cut, E: Send>(
    subset: &Subset<'_>,
    array: V,
    work: &ChunkWork<'_, V, E>,
) -> Result<(), E> {
    if subset.len() == 0 {
        return Ok(());
    }
    let walk = Walk {
        subset,
        work,
        stopped: AtomicBool::new(false),
        shared: subset.len() > 1,
    };
    walk.bisect(array, subset.chunks().to_vec())
}

/// One walk over a subset's chunks.
struct Walk<'s, 'w, V, E> {
    subset: &'s Subset<'s>,
    work: &'w ChunkWork<'w, V, E>,
    /// Set by the first error: the chunks not yet started are skipped.
    stopped: AtomicBool,
    /// Whether the chunks share the pool, so that each is converted on one thread.
    shared: bool,
}

impl<V: Cut, E: Send> Walk<'_, '_, V, E> {
    /// The chunks `chunks` (a range of indices per axis) of `view`, which holds their parts.
    /// Cutting the outermost axis that holds more than one chunk, the first half before the
    /// second, visits the chunks in C order on one thread.
    fn bisect(&self, view: V, mut chunks: Vec<Range<usize>>) -> Result<(), E> {
        if self.stopped.load(Ordering::Relaxed) {
            return Ok(());
        }
        let Some(axis) = chunks.iter().position(|r| r.len() > 1) else {
            let index: Vec<usize> = chunks.iter().map(|r| r.start).collect();
            let result = if self.shared {
                parallel::on_this_thread(|| (self.work)(&index, view))
            } else {
                (self.work)(&index, view)
            };
            if result.is_err() {
                self.stopped.store(true, Ordering::Relaxed);
            }
            return result;
        };
        let r = chunks[axis].clone();
        let middle = r.start + r.len() / 2;
        let at = self.subset.start(axis, middle) - self.subset.start(axis, r.start);
        let (first, second) = view.cut(axis, at);
        let mut rest = chunks.clone();
        chunks[axis] = r.start..middle;
        rest[axis] = middle..r.end;
        let (mut first, mut second) = (Some((first, chunks)), Some((second, rest)));
        let (mut a, mut b) = (Ok(()), Ok(()));
        parallel::join(
            &mut || {
                if let Some((view, chunks)) = first.take() {
                    a = self.bisect(view, chunks);
                }
            },
            &mut || {
                if let Some((view, chunks)) = second.take() {
                    b = self.bisect(view, chunks);
                }
            },
        );
        a.and(b)
    }
}
