//! The traversal plan: which blocks of an array are converted, and in which order.

use ndarray::{ArrayBase, ArrayView, ArrayViewMut, Axis, IxDyn, RawData};

use super::LINE_BYTES;

/// Axes the traversal plans on the stack; arrays with more are split first.
pub(crate) const MAX_AXES: usize = 32;

/// Something the traversal can cut along axis 0: a view, or a [`Strided`] description.
pub(crate) trait Split: Sized {
    fn shape(&self) -> &[usize];
    fn strides(&self) -> &[isize];
    /// Indices `..index` and `index..` of axis 0.
    fn split_at(self, index: usize) -> (Self, Self) {
        self.split_axis(0, index)
    }
    /// Indices `..index` and `index..` of `axis`.
    fn split_axis(self, axis: usize, index: usize) -> (Self, Self);
    /// Index 0 of axis 0, without that axis.
    fn into_first(self) -> Self;
}

/// Fill `strides` with the C-order strides of `shape`, in elements: 1 for the last axis,
/// and for each other the product of the lengths after it.
pub(crate) fn c_order(shape: &[usize], strides: &mut [usize]) {
    let mut step = 1;
    for (stride, &len) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step *= len;
    }
}

/// Where the elements of an array sit in one memory slice (shape, strides, the index of the
/// first element) and in the C-order stream (stream strides). Cutting it costs index
/// arithmetic only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strided {
    ndim: usize,
    shape: [usize; MAX_AXES],
    strides: [isize; MAX_AXES],
    first: usize,
    /// Stream positions per step along each axis: C order of `shape` unless this is a part
    /// of a bigger array cut along some other axis than the first.
    stream: [usize; MAX_AXES],
}

impl Strided {
    /// The description of an array whose memory slice starts at its lowest address; `None`
    /// for more axes than the traversal plans on the stack.
    pub fn of(shape: &[usize], strides: &[isize]) -> Option<Strided> {
        let ndim = shape.len();
        if ndim > MAX_AXES {
            return None;
        }
        let mut s = Strided {
            ndim,
            shape: [0; MAX_AXES],
            strides: [0; MAX_AXES],
            first: 0,
            stream: [0; MAX_AXES],
        };
        s.shape[..ndim].copy_from_slice(shape);
        s.strides[..ndim].copy_from_slice(strides);
        c_order(shape, &mut s.stream[..ndim]);
        // The first element sits past every negatively strided axis.
        if !shape.contains(&0) {
            s.first = shape
                .iter()
                .zip(strides)
                .filter(|&(_, &st)| st < 0)
                .map(|(&len, &st)| (len - 1) * st.unsigned_abs())
                .sum();
        }
        Some(s)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// The axis the tiles read along, the one with the shortest memory step of those longer
    /// than one index that move in memory: its length and its step in the stream. `None`
    /// when no axis is.
    fn read_axis(&self) -> Option<(usize, usize)> {
        (0..self.ndim)
            .filter(|&k| self.shape[k] > 1 && self.strides[k] != 0)
            .min_by_key(|&k| self.strides[k].unsigned_abs())
            .map(|k| (self.shape[k], self.stream[k]))
    }

    /// The same elements placed in the stream with the given strides.
    pub fn with_stream(mut self, stream: &[usize]) -> Self {
        self.stream[..self.ndim].copy_from_slice(stream);
        self
    }
}

impl Split for Strided {
    fn shape(&self) -> &[usize] {
        &self.shape[..self.ndim]
    }
    fn strides(&self) -> &[isize] {
        &self.strides[..self.ndim]
    }
    fn split_axis(self, axis: usize, index: usize) -> (Self, Self) {
        let (mut head, mut tail) = (self, self);
        head.shape[axis] = index;
        tail.shape[axis] -= index;
        if index < self.shape[axis] {
            tail.first = (self.first as isize + index as isize * self.strides[axis]) as usize;
        }
        (head, tail)
    }
    fn into_first(mut self) -> Self {
        self.shape.copy_within(1..self.ndim, 0);
        self.strides.copy_within(1..self.ndim, 0);
        self.stream.copy_within(1..self.ndim, 0);
        self.ndim -= 1;
        self
    }
}

impl<A> Split for ArrayView<'_, A, IxDyn> {
    fn shape(&self) -> &[usize] {
        ArrayView::shape(self)
    }
    fn strides(&self) -> &[isize] {
        ArrayView::strides(self)
    }
    fn split_axis(self, axis: usize, index: usize) -> (Self, Self) {
        ArrayView::split_at(self, Axis(axis), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

impl<A> Split for ArrayViewMut<'_, A, IxDyn> {
    fn shape(&self) -> &[usize] {
        ArrayViewMut::shape(self)
    }
    fn strides(&self) -> &[isize] {
        ArrayViewMut::strides(self)
    }
    fn split_axis(self, axis: usize, index: usize) -> (Self, Self) {
        ArrayViewMut::split_at(self, Axis(axis), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

/// The tile of one element type: how many rows and columns of a transposed traversal
/// pass through the scratch buffer at once, in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tile {
    /// Rows of a tile: at least one.
    pub rows: usize,
    /// Columns of a tile, at least one: one stream row segment of a transposed traversal.
    pub cols: usize,
    /// Elements from one row of the scratch buffer to the next: the columns and a cache
    /// line more, so that the rows of a tile do not all fall into the same cache sets.
    pub pitch: usize,
    /// Columns of a tile whose axis along memory is shorter than `rows`, so that its tiles
    /// are all one band (a stack of 4 planes stored interleaved), at most `cols`: 256 bytes
    /// of each stream row. Wider tiles there read memory in longer runs but write the
    /// stream in longer ones too, and were slower
    /// (benches/NOTES.md, `src/traverse/plan.rs`).
    pub short_cols: usize,
    /// Bytes of an element.
    pub size: usize,
}

impl Tile {
    /// Elements of the scratch buffer.
    pub fn len(&self) -> usize {
        self.rows * self.pitch
    }
}

/// Bytes of the scratch buffer of a tile of 1-, 2- and 4-byte elements ([`tile`]), at most.
const NARROW_TILE_BYTES: usize = 72 * 1024;

/// Bytes of the elements of a tile of wider elements ([`tile`]), before the rows' padding.
const WIDE_TILE_BYTES: usize = 32 * 1024;

/// The tile of `A` for gathering (encoding), the fastest tried in Fortran and transposed
/// layouts (benches/NOTES.md, `src/traverse/plan.rs`): 32 KiB of elements in 64 columns for
/// elements of 5 bytes and more; for 1-, 2- and 4-byte elements, which move in rectangles,
/// 256 columns (256- to 1024-byte stream runs; 128 or 512 columns are slower for every
/// size) and as many rows, a multiple of 16, as fit 72 KiB. Rows are a cache line longer
/// in the scratch buffer, which gains for 2-byte elements and loses nothing elsewhere.
pub(crate) fn tile<A>() -> Tile {
    tile_of(std::mem::size_of::<A>().max(1))
}

/// [`tile`] of elements of `size` bytes, at least one.
#[inline]
fn tile_of(size: usize) -> Tile {
    let short = |cols: usize| (256 / size).clamp(1, cols);
    if size <= 4 {
        let cols = 256;
        let pitch = cols + LINE_BYTES / size;
        let rows = NARROW_TILE_BYTES / size / pitch / 16 * 16;
        return Tile {
            rows,
            cols,
            pitch,
            short_cols: short(cols),
            size,
        };
    }
    let cols = 64.min(WIDE_TILE_BYTES / size).max(1);
    Tile {
        rows: (WIDE_TILE_BYTES / size / cols).max(1),
        cols,
        pitch: cols + LINE_BYTES / size,
        short_cols: short(cols),
        size,
    }
}

/// The tile of `A` for scattering (decoding): [`tile`] with half as many rows again, so
/// a scratch buffer of at most 108 KiB for 1- to 4-byte elements and 57 KiB for wider
/// ones (or one element, if bigger). Scattering writes memory in runs down the tile's
/// columns, which then are half as long again and decode faster; gathering reads those
/// runs and was no faster with them, and 72 and 144 KiB were slower than 108
/// (benches/NOTES.md, `src/traverse/plan.rs`).
pub(crate) fn scatter_tile<A>() -> Tile {
    taller(tile::<A>())
}

/// `tile` with half as many rows again: [`scatter_tile`] of [`tile`].
#[inline]
fn taller(tile: Tile) -> Tile {
    Tile {
        rows: tile.rows + tile.rows / 2,
        ..tile
    }
}

/// How many rows of the stream ahead of the one it copies into the scratch buffer decoding
/// asks for ([`prefetch`](super::prefetch)): 64 for 1-byte elements, 128 for wider ones,
/// whose scatter tiles hold 48 to 192 rows. Asking for the same row of the tile below, a
/// whole tile ahead, was slower; 1-byte elements were slower 128 rows ahead, wider ones
/// no faster 32 or 64 rows ahead (benches/NOTES.md, `src/traverse/plan.rs`).
pub(crate) fn stream_ahead<A>() -> usize {
    if std::mem::size_of::<A>() == 1 {
        64
    } else {
        128
    }
}

/// `rows` × `cols` elements: element (r, c) sits at memory index
/// `start + r * row_step + c * col_step`, at stream position `out + r * out_row + c` and,
/// unless `col_step == 1`, at `r * pitch + c` of the scratch buffer, which that fits.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    pub start: usize,
    pub rows: usize,
    pub row_step: isize,
    pub cols: usize,
    pub col_step: isize,
    pub out: usize,
    pub out_row: usize,
    pub pitch: usize,
}

impl Block {
    /// Memory offset of element (r, c), which is negative only past the block's edge.
    pub(super) fn offset(&self, r: usize, c: usize) -> isize {
        self.start as isize + r as isize * self.row_step + c as isize * self.col_step
    }

    /// Memory index of element (r, c).
    pub(super) fn at(&self, r: usize, c: usize) -> usize {
        self.offset(r, c) as usize
    }

    /// Memory index of the first element of row `r`.
    pub fn row(&self, r: usize) -> usize {
        self.at(r, 0)
    }

    /// Stream position of the first element of row `r`.
    pub fn stream_row(&self, r: usize) -> usize {
        self.out + r * self.out_row
    }
}

/// `a` with its axes in `order`: axis `i` of the result is axis `order[i]` of `a`, and
/// `order` holds each of its axes once. Made of swaps of two axes, a few instructions per
/// element type, where ndarray's `permuted_axes` is made whole for each one.
pub(crate) fn permuted<S: RawData>(
    mut a: ArrayBase<S, IxDyn>,
    order: &[usize],
) -> ArrayBase<S, IxDyn> {
    each_swap(order, &mut |i, j| a.swap_axes(i, j));
    a
}

/// Call `swap` with each swap of two axes that puts axes in `order` ([`permuted`]), in
/// turn; up to [`MAX_AXES`] axes without allocating.
fn each_swap(order: &[usize], swap: &mut dyn FnMut(usize, usize)) {
    let n = order.len();
    let (mut small, mut large) = ([0; 2 * MAX_AXES], Vec::new());
    let places = if n <= MAX_AXES {
        &mut small[..2 * n]
    } else {
        large.resize(2 * n, 0);
        &mut large[..]
    };
    // `at[k]`: where axis k is now; `held[p]`: which axis is now at p.
    let (at, held) = places.split_at_mut(n);
    for k in 0..n {
        (at[k], held[k]) = (k, k);
    }
    for (i, &k) in order.iter().enumerate() {
        let j = at[k];
        if j != i {
            swap(i, j);
            let other = held[i];
            held.swap(i, j);
            (at[k], at[other]) = (i, j);
        }
    }
}

/// The axes of a view from the farthest apart in memory to the closest, by the size of
/// their strides: the view permuted so has its elements in memory order, as far as they
/// are in any. Axes of length 1, whose strides say nothing, come first, then broadcast
/// axes (stride 0), which repeat the whole of what follows; ties keep axis order.
pub(crate) fn memory_order(shape: &[usize], strides: &[isize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..shape.len()).collect();
    order.sort_by_key(|&k| {
        let stride = strides[k].unsigned_abs();
        (shape[k] > 1, stride != 0, std::cmp::Reverse(stride))
    });
    order
}

/// Whether [`walk()`](super::walk()) moves a view of two or more axes that is not one memory
/// slice in tiles whose columns are its lanes (`lane_tiles` in [`walk`](mod@super::walk)):
/// when it has elements and its last axis longer than 1 is not the one closest in memory.
pub(crate) fn reorders(shape: &[usize], strides: &[isize]) -> bool {
    let rows = last_long_axis(shape);
    let closest = memory_order(shape, strides).last().copied();
    shape.len() > 1 && !shape.contains(&0) && rows.is_some() && closest != rows
}

/// The last axis longer than 1: the one along which a view's rows run in the stream.
pub(crate) fn last_long_axis(shape: &[usize]) -> Option<usize> {
    (0..shape.len()).rev().find(|&k| shape[k] > 1)
}

/// Cut `view` into C-order pieces of at most `max_len` elements (at least one element
/// each), calling `f` with each piece and its stream position, in stream order.
pub(crate) fn windows<V: Split>(view: V, max_len: usize, out: usize, f: &mut impl FnMut(V, usize)) {
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

/// Elements of the shortest window of [`windows`] that holds `depth` indices (all of them,
/// if fewer) of the axis the tiles of `strided` read along, or, if that is longer than
/// `most`, of the longest that holds whole indices of it and fits `most`; 0 when none does,
/// and for an empty array.
///
/// A window cuts the tiles to the indices of that axis it holds, and the tiles read memory
/// in runs of those indices; one index is one element per run.
pub(crate) fn tiled_window(strided: &Strided, depth: usize, most: usize) -> usize {
    match strided.read_axis() {
        Some((len, step)) if step > 0 => len.min(depth).min(most / step) * step,
        _ => 0,
    }
}

/// Where a traversal's memory slice and stream start: the byte addresses of memory index 0
/// and of stream position 0, of which only their places in a cache line matter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin {
    pub memory: usize,
    pub stream: usize,
}

impl Origin {
    /// The origin of `memory` and `stream`.
    pub fn of<A, B>(memory: &[A], stream: &[B]) -> Origin {
        Origin {
            memory: memory.as_ptr() as usize,
            stream: stream.as_ptr() as usize,
        }
    }
}

/// Cut `0..len` into pieces of `width` (the last one shorter), except that the first is
/// shorter or longer by less than a cache line so that the others start on one: `lead` is
/// the count of `size`-byte elements from the start to the first line boundary, or `None`
/// when the pieces cannot all start on one. A run of a tile that straddles a line shares
/// it with a tile visited much later, by which time the line has left the cache and is
/// read (and for a store, written) twice (benches/NOTES.md, `src/traverse/plan.rs`).
pub(super) fn cuts(
    len: usize,
    width: usize,
    lead: Option<usize>,
    size: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let line = LINE_BYTES / size;
    let first = match lead {
        Some(lead) if lead > 0 && width >= line && width % line == 0 => lead + width - line,
        _ => width,
    };
    std::iter::once(0)
        .chain((first..len).step_by(width))
        .map(move |at| {
            let end = if at == 0 { first } else { at + width };
            (at, end.min(len) - at)
        })
}

/// Elements of `size` bytes from byte `address` to the next cache line boundary, when runs
/// `stride` elements apart all share its place in a line and whole elements reach the
/// boundary; `None` otherwise.
pub(super) fn lead(address: usize, size: usize, stride: isize) -> Option<usize> {
    let gap = address.wrapping_neg() % LINE_BYTES;
    let aligned =
        size < LINE_BYTES && gap % size == 0 && (stride.unsigned_abs() * size) % LINE_BYTES == 0;
    aligned.then_some(gap / size)
}

/// One axis as the plan sees it: length, memory stride, stream stride (in elements).
pub(crate) type PlanAxis = (usize, isize, usize);

/// Blocks of an array held in one memory slice, none bigger than `tile` unless its columns
/// are consecutive in memory. Tiles are cut where their runs start on cache lines, for the
/// memory and the stream at `origin`, where they can be. `f` is called through a pointer,
/// once a block: one plan for every element type and direction.
pub(crate) fn plan(strided: &Strided, tile: Tile, origin: Origin, f: &mut dyn FnMut(Block)) {
    let capacity = tile.len();
    let (shape, strides) = (strided.shape(), strided.strides());
    if shape.contains(&0) {
        return;
    }
    let base = strided.first as isize;
    // Axes that matter, innermost first, with neighbours merged when memory and stream
    // both allow.
    let mut axes = [(0, 0, 0); MAX_AXES];
    let mut n = 0;
    for ((&len, &stride), &stream) in shape.iter().zip(strides).zip(&strided.stream).rev() {
        if len == 1 {
            continue;
        }
        let (inner_len, inner_stride, inner_stream) = if n > 0 { axes[n - 1] } else { (0, 0, 0) };
        if n > 0
            && inner_stride * inner_len as isize == stride
            && inner_stream * inner_len == stream
        {
            axes[n - 1].0 *= len;
        } else {
            axes[n] = (len, stride, stream);
            n += 1;
        }
    }
    let axes = &axes[..n];
    let block = |start: isize, rows: PlanAxis, cols: PlanAxis, out: usize| Block {
        start: start as usize,
        rows: rows.0,
        row_step: rows.1,
        cols: cols.0,
        col_step: cols.1,
        out,
        out_row: rows.2,
        pitch: if rows.0 > 1 { tile.pitch } else { cols.0 },
    };
    let one = (1, 0, 0);
    let Some(&last) = axes.first() else {
        return f(block(base, one, (1, 1, 1), 0));
    };
    if last.2 != 1 {
        // A part whose innermost axis is not consecutive in the stream: element by element.
        let index = &mut [0; MAX_AXES][..axes.len()];
        return odometer(axes, base, index, &mut |m, o, _| {
            f(block(m, one, (1, 1, 1), o))
        });
    }
    if last.1 == 1 {
        // Rows contiguous in memory: blocks of whole rows, converted in bulk.
        let (rows, outer) = match axes.get(1) {
            Some(&rows) => (rows, &axes[2..]),
            None => (one, &axes[1..]),
        };
        let index = &mut [0; MAX_AXES][..outer.len()];
        return odometer(outer, base, index, &mut |m, o, _| {
            f(block(m, rows, last, o))
        });
    }
    // Read along the axis with the smallest memory stride, in tiles, when it beats the last.
    let tile_rows = tile.rows;
    let p = (1..n).min_by_key(|&k| axes[k].1.unsigned_abs());
    match p {
        Some(p) if axes[p].1.unsigned_abs() < last.1.unsigned_abs() => {
            let mut others = [(0, 0, 0); MAX_AXES];
            let k = n - 2;
            others[..p - 1].copy_from_slice(&axes[1..p]);
            others[p - 1..k].copy_from_slice(&axes[p + 1..]);
            let (len, step, out_step) = axes[p];
            let cols = if len < tile_rows {
                tile.short_cols
            } else {
                tile.cols
            };
            let size = tile.size;
            let index = &mut [0; MAX_AXES][..k];
            odometer(&others[..k], base, index, &mut |m, o, _| {
                // Columns start on lines of the stream, rows on lines of memory.
                let stream = origin.stream.wrapping_add(o * size);
                let strips = lead(stream, size, out_step as isize);
                let memory = origin.memory.wrapping_add(m as usize * size);
                let bands = lead(memory, size, last.1).filter(|_| step == 1);
                // Down each strip of columns first: a tile's rows below are its successor.
                for (c0, width) in cuts(last.0, cols, strips, size) {
                    let width = (width, last.1, 1);
                    for (r0, height) in cuts(len, tile_rows, bands, size) {
                        let rows = (height, step, out_step);
                        let start = m + r0 as isize * step + c0 as isize * last.1;
                        f(block(start, rows, width, o + r0 * out_step + c0));
                    }
                }
            });
        }
        _ => odometer(
            &axes[1..],
            base,
            &mut [0; MAX_AXES][..n - 1],
            &mut |m, o, _| {
                for c0 in (0..last.0).step_by(capacity) {
                    let width = (capacity.min(last.0 - c0), last.1, 1);
                    f(block(m + c0 as isize * last.1, one, width, o + c0));
                }
            },
        ),
    }
}

/// Every index of `axes` (innermost first; each a length, a memory step and a stream step),
/// in C order: `f(memory offset, stream offset, index)`, counting in `index` (as long as
/// `axes`, zero, innermost first too). `f` is called through a pointer: one odometer for
/// every caller.
pub(crate) fn odometer(
    axes: &[PlanAxis],
    base: isize,
    index: &mut [usize],
    f: &mut dyn FnMut(isize, usize, &[usize]),
) {
    let (mut m, mut o) = (base, 0usize);
    loop {
        f(m, o, index);
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

#[cfg(test)]
mod tests {
    use ndarray::{ArrayD, IxDyn};

    use super::{LINE_BYTES, MAX_AXES, cuts, lead, permuted, taller, tile_of};

    /// Axes put in order by swaps are ndarray's own permutation: every order of four axes,
    /// and orders of more axes than fit the stack, reversed and rotated.
    #[test]
    fn permuted_is_permuted_axes() {
        let check = |a: &ArrayD<u32>, order: &[usize]| {
            let want = a.view().permuted_axes(order);
            let got = permuted(a.view(), order);
            assert_eq!(got.shape(), want.shape(), "{order:?}");
            assert_eq!(got.strides(), want.strides(), "{order:?}");
            assert_eq!(got, want, "{order:?}");
        };
        let a = ArrayD::from_shape_fn(IxDyn(&[2, 3, 4, 5]), |i| {
            (i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3]) as u32
        });
        for n in 0..4 * 4 * 4 * 4 {
            let order = [n % 4, n / 4 % 4, n / 16 % 4, n / 64];
            if (0..4).all(|k| order.contains(&k)) {
                check(&a, &order);
            }
        }
        let mut shape = vec![1; MAX_AXES + 3];
        (shape[0], shape[MAX_AXES + 1]) = (2, 3);
        let wide = ArrayD::from_shape_fn(IxDyn(&shape), |i| (i[0] * 10 + i[MAX_AXES + 1]) as u32);
        let reversed: Vec<usize> = (0..shape.len()).rev().collect();
        let rotated: Vec<usize> = (1..shape.len()).chain([0]).collect();
        check(&wide, &reversed);
        check(&wide, &rotated);
    }

    /// The pieces cover `0..len` in order without gaps, none is empty, and every piece but
    /// the first starts on a line (`lead` elements in, then every line) when it can.
    #[test]
    fn cuts_start_on_lines() {
        for size in [1, 2, 4, 8, 16] {
            let line = LINE_BYTES / size;
            for width in [line, 4 * line, 256 / size.min(4) + 3] {
                for len in [0, 1, line - 1, line, width, width + 1, 5 * width + 7] {
                    for lead in (0..line).map(Some).chain([None]) {
                        let pieces: Vec<_> = cuts(len, width, lead, size).collect();
                        let ctx = format!("{size}-byte, width {width}, len {len}, lead {lead:?}");
                        let mut next = 0;
                        for &(at, n) in &pieces {
                            assert_eq!(at, next, "{ctx}: {pieces:?}");
                            assert!(n > 0 || len == 0, "{ctx}: {pieces:?}");
                            assert!(n <= width + line, "{ctx}: {pieces:?}");
                            next = at + n;
                        }
                        assert_eq!(next, len, "{ctx}: {pieces:?}");
                        if let (Some(lead), true) = (lead, width % line == 0) {
                            for &(at, _) in &pieces[1..] {
                                assert_eq!((at + line - lead) % line, 0, "{ctx}: {pieces:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The elements to a line boundary, only where whole elements reach it and every run
    /// shares the place in a line.
    #[test]
    fn lead_to_a_line() {
        assert_eq!(lead(0x1000, 1, 4096), Some(0));
        assert_eq!(lead(0x1010, 1, 4096), Some(48));
        assert_eq!(lead(0x1010, 8, 512), Some(6));
        assert_eq!(lead(0x1012, 8, 512), None, "no whole elements");
        assert_eq!(lead(0x1010, 1, 4097), None, "runs in other places");
        assert_eq!(lead(0x1010, 2, -64), Some(24), "a reversed stride");
        assert_eq!(lead(0x1010, 64, 1), None, "elements of a line or more");
    }

    /// The text of the doc comments of a source file, in single spaces.
    fn docs(source: &str) -> String {
        let lines = source.lines().map(str::trim_start);
        let docs = lines.filter_map(|l| l.strip_prefix("//!").or_else(|| l.strip_prefix("///")));
        let words: Vec<&str> = docs.flat_map(str::split_whitespace).collect();
        words.join(" ")
    }

    /// The bytes of every "N KiB" that `docs` states right after `before`, one at least.
    fn stated(docs: &str, before: &str) -> Vec<usize> {
        let figures: Vec<usize> = docs
            .match_indices(before)
            .map(|(at, _)| {
                let rest = &docs[at + before.len()..];
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                assert!(rest[digits..].starts_with(" KiB"), "{before:?}{rest:.40}");
                rest[..digits].parse::<usize>().unwrap() * 1024
            })
            .collect();
        assert!(!figures.is_empty(), "no {before:?} in the docs");
        figures
    }

    /// The scratch buffer sizes the docs state are those the tiles take: the largest over
    /// every element size whose tile holds more than one element (a tile of one element
    /// is the element's size), so that the figures cannot drift from the code again.
    #[test]
    fn the_docs_state_the_scratch_buffers_of_the_tiles() {
        // Gathering's and scattering's scratch bytes: narrow elements, then wider ones.
        let (mut narrow, mut wide) = ((0, 0), (0, 0));
        for size in 1..=256 * 1024 {
            let (gather, scatter) = (tile_of(size), taller(tile_of(size)));
            let bytes = (gather.len() * size, scatter.len() * size);
            if gather.len() == 1 {
                assert_eq!(bytes, (size, size), "{size}-byte elements");
                continue;
            }
            let most = if size <= 4 { &mut narrow } else { &mut wide };
            *most = (most.0.max(bytes.0), most.1.max(bytes.1));
        }
        let (gather, scatter) = (narrow.0.max(wide.0), narrow.1.max(wide.1));
        for (file, source) in [
            ("lib.rs", include_str!("../lib.rs")),
            ("traverse/mod.rs", include_str!("mod.rs")),
        ] {
            let docs = docs(source);
            assert_eq!(
                stated(&docs, "scratch buffer of at most "),
                [gather],
                "{file}"
            );
            assert_eq!(stated(&docs, "KiB when encoding and "), [scatter], "{file}");
        }
        let encode = docs(include_str!("../typed/encode.rs"));
        for figure in stated(&encode, "scratch buffer of at most ") {
            assert_eq!(figure, gather, "typed/encode.rs");
        }
        let plan = docs(include_str!("plan.rs"));
        assert_eq!(stated(&plan, "a scratch buffer of at most "), [narrow.1]);
        // The wider elements' figure is rounded up to whole KiB.
        let wider = stated(&plan, "KiB for 1- to 4-byte elements and ");
        assert_eq!(wider, [wide.1.div_ceil(1024) * 1024]);
    }
}
