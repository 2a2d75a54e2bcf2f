//! Logical C-order traversal of any ndarray layout, shared by encode and decode.
//!
//! The traversal cuts an array into *lanes*: runs of elements that are consecutive in the
//! C-order byte stream. A lane whose elements are also consecutive in memory is converted
//! in one bulk call; any other lane is gathered (or scattered) through a small stack buffer
//! of [`LANE`] elements. Arrays whose last axis is not the one contiguous in memory
//! (Fortran order, transposed views) are walked in tiles, so that both the memory side and
//! the stream side stay in cache.

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};

use crate::Error;

/// Elements per gathered lane: the size of the stack buffer of a non-contiguous lane.
pub(crate) const LANE: usize = 64;
/// Rows per tile of a transposed traversal; a tile is `TILE_ROWS` × [`LANE`] elements.
const TILE_ROWS: usize = 64;
/// Axes the traversal plans on the stack; arrays with more are split first.
const MAX_AXES: usize = 32;

/// The element count of `shape`, checked as ndarray checks it, and its byte count.
///
/// Both the product of the non-zero axis lengths and the byte count must fit in `isize`.
pub(crate) fn checked_len(shape: &[usize], element_size: usize) -> Result<usize, Error> {
    let nonzero = shape
        .iter()
        .filter(|&&len| len != 0)
        .try_fold(1usize, |acc, &len| acc.checked_mul(len));
    match nonzero.and_then(|n| n.checked_mul(element_size)) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(if shape.contains(&0) {
            0
        } else {
            bytes / element_size
        }),
        _ => Err(Error::ShapeOverflow { element_size }),
    }
}

/// A view the traversal can take apart: shared for encoding, exclusive for decoding.
pub(crate) trait View: Sized {
    /// The elements' memory: `&[A]` or `&mut [A]`.
    type Memory;
    fn shape(&self) -> &[usize];
    fn strides(&self) -> &[isize];
    /// All elements as one memory slice (lowest address first), when they are contiguous.
    fn into_memory(self) -> Result<Self::Memory, Self>;
    /// Indices `..index` and `index..` of axis 0.
    fn split_at(self, index: usize) -> (Self, Self);
    /// Index 0 of axis 0, without that axis.
    fn into_first(self) -> Self;
}

impl<'a, A> View for ArrayView<'a, A, IxDyn> {
    type Memory = &'a [A];
    fn shape(&self) -> &[usize] {
        ArrayView::shape(self)
    }
    fn strides(&self) -> &[isize] {
        ArrayView::strides(self)
    }
    fn into_memory(self) -> Result<&'a [A], Self> {
        self.to_slice_memory_order().ok_or(self)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        ArrayView::split_at(self, Axis(0), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

impl<'a, A> View for ArrayViewMut<'a, A, IxDyn> {
    type Memory = &'a mut [A];
    fn shape(&self) -> &[usize] {
        ArrayViewMut::shape(self)
    }
    fn strides(&self) -> &[isize] {
        ArrayViewMut::strides(self)
    }
    fn into_memory(mut self) -> Result<&'a mut [A], Self> {
        if self.as_slice_memory_order_mut().is_none() {
            return Err(self);
        }
        // Contiguous, as just checked: this conversion cannot come back empty-handed.
        self.into_slice_memory_order().ok_or_else(|| unreachable!())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        ArrayViewMut::split_at(self, Axis(0), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

/// What encoding and decoding do with each lane the traversal finds.
///
/// Positions are in elements: `start` indexes the memory slice, `out` the C-order stream.
pub(crate) trait Visitor<V: View> {
    /// Convert `len` elements `memory[start + i * step]` at stream position `out + i`.
    /// `len <= LANE` whenever `step != 1`.
    fn lane(&mut self, memory: &mut V::Memory, start: usize, step: isize, len: usize, out: usize);
    /// Convert a one-axis view whose elements are not one memory slice, at `out`.
    fn strided(&mut self, view: V, out: usize);
}

/// Visit every element of `view` once, telling the visitor where it goes in the stream.
pub(crate) fn walk<V: View, T: Visitor<V>>(view: V, out: usize, visitor: &mut T) {
    let ndim = view.shape().len();
    let mut view = view;
    if ndim <= MAX_AXES {
        let mut shape = [0usize; MAX_AXES];
        let mut strides = [0isize; MAX_AXES];
        shape[..ndim].copy_from_slice(view.shape());
        strides[..ndim].copy_from_slice(view.strides());
        match view.into_memory() {
            Ok(mut memory) => {
                plan(&shape[..ndim], &strides[..ndim], |start, step, len, at| {
                    visitor.lane(&mut memory, start, step, len, out + at)
                });
                return;
            }
            Err(v) => view = v,
        }
    }
    if ndim == 1 {
        visitor.strided(view, out);
        return;
    }
    // Not one block of memory (a slice of a bigger array, a broadcast): split axis 0.
    let len = view.shape()[0];
    let inner: usize = view.shape()[1..].iter().product();
    for i in 0..len {
        let (first, rest) = view.split_at(1);
        walk(first.into_first(), out + i * inner, visitor);
        view = rest;
    }
}

/// Cut `view` into C-order pieces of at most `max_len` elements (at least one element
/// each), calling `f` with each piece and its stream position, in stream order.
pub(crate) fn windows<V: View>(view: V, max_len: usize, out: usize, f: &mut impl FnMut(V, usize)) {
    let shape = view.shape();
    let total: usize = shape.iter().product();
    if total <= max_len || shape.is_empty() {
        f(view, out);
        return;
    }
    let (len, inner) = (shape[0], total / shape[0]);
    let mut rest = view;
    if inner <= max_len {
        let per = max_len / inner;
        let mut done = 0;
        while done < len {
            let take = per.min(len - done);
            let (piece, tail) = rest.split_at(take);
            f(piece, out + done * inner);
            rest = tail;
            done += take;
        }
    } else {
        for i in 0..len {
            let (first, tail) = rest.split_at(1);
            windows(first.into_first(), max_len, out + i * inner, f);
            rest = tail;
        }
    }
}

/// One axis as the plan sees it: length, memory stride, stream stride (in elements).
type PlanAxis = (usize, isize, usize);

/// Lanes of an array held in one memory slice, as `f(start, step, len, out)` calls.
fn plan(shape: &[usize], strides: &[isize], mut f: impl FnMut(usize, isize, usize, usize)) {
    if shape.contains(&0) {
        return;
    }
    // The slice starts at the lowest address; the first element sits past every
    // negatively strided axis.
    let base: isize = shape
        .iter()
        .zip(strides)
        .filter(|&(_, &s)| s < 0)
        .map(|(&len, &s)| (len as isize - 1) * -s)
        .sum();
    // Axes that matter, innermost first, with neighbours merged when memory allows.
    let mut axes = [(0, 0, 0); MAX_AXES];
    let mut n = 0;
    let mut stream_stride = 1usize;
    for (&len, &stride) in shape.iter().zip(strides).rev() {
        if len == 1 {
            continue;
        }
        if n > 0 && axes[n - 1].1 * axes[n - 1].0 as isize == stride {
            axes[n - 1].0 *= len;
        } else {
            axes[n] = (len, stride, stream_stride);
            n += 1;
        }
        stream_stride *= len;
    }
    let axes = &axes[..n];
    let Some(&(len0, step0, _)) = axes.first() else {
        f(base as usize, 1, 1, 0);
        return;
    };
    if step0 == 1 {
        odometer(&axes[1..], base, |m, o| f(m, 1, len0, o));
        return;
    }
    // Read along the axis with the smallest memory stride, in tiles, when it beats the last.
    let p = (1..n).min_by_key(|&k| axes[k].1.unsigned_abs());
    match p {
        Some(p) if axes[p].1.unsigned_abs() < step0.unsigned_abs() => {
            let (rows, row_step, row_out) = axes[p];
            let mut others = [(0, 0, 0); MAX_AXES];
            let k = n - 2;
            others[..p - 1].copy_from_slice(&axes[1..p]);
            others[p - 1..k].copy_from_slice(&axes[p + 1..]);
            odometer(&others[..k], base, |m, o| {
                for r0 in (0..rows).step_by(TILE_ROWS) {
                    for c0 in (0..len0).step_by(LANE) {
                        let cols = LANE.min(len0 - c0);
                        let start = m as isize + c0 as isize * step0;
                        for r in r0..rows.min(r0 + TILE_ROWS) {
                            let s = (start + r as isize * row_step) as usize;
                            f(s, step0, cols, o + r * row_out + c0);
                        }
                    }
                }
            });
        }
        _ => odometer(&axes[1..], base, |m, o| {
            for c0 in (0..len0).step_by(LANE) {
                let start = (m as isize + c0 as isize * step0) as usize;
                f(start, step0, LANE.min(len0 - c0), o + c0);
            }
        }),
    }
}

/// Every index of `axes` (innermost first): `f(memory offset, stream offset)`.
fn odometer(axes: &[PlanAxis], base: isize, mut f: impl FnMut(usize, usize)) {
    let mut index = [0usize; MAX_AXES];
    let (mut m, mut o) = (base, 0usize);
    loop {
        f(m as usize, o);
        let mut k = 0;
        loop {
            let Some(&(len, step, out_step)) = axes.get(k) else {
                return;
            };
            index[k] += 1;
            m += step;
            o += out_step;
            if index[k] < len {
                break;
            }
            m -= step * len as isize;
            o -= out_step * len;
            index[k] = 0;
            k += 1;
        }
    }
}
