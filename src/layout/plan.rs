//! The traversal plan: which blocks of an array are converted, and in which order.

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};

use super::LINE_BYTES;

/// Axes the traversal plans on the stack; arrays with more are split first.
const MAX_AXES: usize = 32;

/// Something the traversal can cut along axis 0: a view, or a [`Strided`] description.
pub(crate) trait Split: Sized {
    fn shape(&self) -> &[usize];
    fn strides(&self) -> &[isize];
    /// Indices `..index` and `index..` of axis 0.
    fn split_at(self, index: usize) -> (Self, Self);
    /// Index 0 of axis 0, without that axis.
    fn into_first(self) -> Self;
}

/// A view the traversal can take apart: shared for encoding, exclusive for decoding.
pub(crate) trait View: Split {
    /// The elements' memory: `&[A]` or `&mut [A]`.
    type Memory;
    /// All elements as one memory slice (lowest address first), when they are contiguous.
    fn into_memory(self) -> Result<Self::Memory, Self>;
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
        let mut step = 1;
        for k in (0..ndim).rev() {
            s.stream[k] = step;
            step *= shape[k];
        }
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

    /// The same elements placed in the stream with the given strides.
    #[cfg(feature = "rayon")]
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
    fn split_at(self, index: usize) -> (Self, Self) {
        let (mut head, mut tail) = (self, self);
        head.shape[0] = index;
        tail.shape[0] -= index;
        if index < self.shape[0] {
            tail.first = (self.first as isize + index as isize * self.strides[0]) as usize;
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
    fn split_at(self, index: usize) -> (Self, Self) {
        ArrayView::split_at(self, Axis(0), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

impl<'a, A> View for ArrayView<'a, A, IxDyn> {
    type Memory = &'a [A];
    fn into_memory(self) -> Result<&'a [A], Self> {
        self.to_slice_memory_order().ok_or(self)
    }
}

impl<A> Split for ArrayViewMut<'_, A, IxDyn> {
    fn shape(&self) -> &[usize] {
        ArrayViewMut::shape(self)
    }
    fn strides(&self) -> &[isize] {
        ArrayViewMut::strides(self)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        ArrayViewMut::split_at(self, Axis(0), index)
    }
    fn into_first(self) -> Self {
        self.index_axis_move(Axis(0), 0)
    }
}

impl<'a, A> View for ArrayViewMut<'a, A, IxDyn> {
    type Memory = &'a mut [A];
    fn into_memory(mut self) -> Result<&'a mut [A], Self> {
        if self.as_slice_memory_order_mut().is_none() {
            return Err(self);
        }
        // Contiguous, as just checked: this conversion cannot come back empty-handed.
        self.into_slice_memory_order().ok_or_else(|| unreachable!())
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
    /// stream in longer ones too, and measured slower: encoding the (2, 0, 1) view of 64 MiB
    /// stacks, 0.63–0.72 of memcpy for every element size at 256 bytes, 0.55–0.64 at 1 KiB.
    pub short_cols: usize,
}

impl Tile {
    /// Elements of the scratch buffer.
    pub fn len(&self) -> usize {
        self.rows * self.pitch
    }
}

/// The tile of `A`, as measured fastest (`perf_table`, Fortran and transposed layouts):
/// 32 KiB of elements in 64 columns for elements of 8 bytes and more; for 1-, 2- and 4-byte
/// elements, which move in rectangles, 256 columns (256- to 1024-byte stream runs) and as
/// many rows, a multiple of 16, as fit 72 KiB (Fortran `f32` encoding from 0.46 to
/// 0.52–0.57 of memcpy; 128 or 512 columns are slower for every size). Rows are a cache
/// line longer in the scratch buffer (a gain of 0.03–0.08 of memcpy for 2-byte elements,
/// none lost elsewhere).
pub(crate) fn tile<A>() -> Tile {
    let size = std::mem::size_of::<A>().max(1);
    let short = |cols: usize| (256 / size).clamp(1, cols);
    if size <= 4 {
        let cols = 256;
        let pitch = cols + LINE_BYTES / size;
        let rows = 72 * 1024 / size / pitch / 16 * 16;
        return Tile {
            rows,
            cols,
            pitch,
            short_cols: short(cols),
        };
    }
    let (bytes, cols) = (32 * 1024, 64.min(32 * 1024 / size).max(1));
    Tile {
        rows: (bytes / size / cols).max(1),
        cols,
        pitch: cols + LINE_BYTES / size,
        short_cols: short(cols),
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

/// What encoding and decoding do with each block the traversal finds.
pub(crate) trait Visitor<V: View> {
    /// Convert one block (positions in elements: memory slice, C-order stream).
    fn block(&mut self, memory: &mut V::Memory, block: Block);
    /// Convert a one-axis view whose elements are not one memory slice, at `out`.
    fn strided(&mut self, view: V, out: usize);
    /// The tile of the visitor's element type: the geometry of its scratch buffer.
    fn tile(&self) -> Tile;
}

/// Visit every element of `view` once, telling the visitor where it goes in the stream.
pub(crate) fn walk<V: View, T: Visitor<V>>(view: V, out: usize, visitor: &mut T) {
    let ndim = view.shape().len();
    let mut view = view;
    if let Some(strided) = Strided::of(view.shape(), view.strides()) {
        match view.into_memory() {
            Ok(mut memory) => {
                let tile = visitor.tile();
                plan(&strided, tile, |mut block| {
                    block.out += out;
                    visitor.block(&mut memory, block)
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

/// One axis as the plan sees it: length, memory stride, stream stride (in elements).
type PlanAxis = (usize, isize, usize);

/// Blocks of an array held in one memory slice, none bigger than `tile` unless its columns
/// are consecutive in memory.
pub(crate) fn plan(strided: &Strided, tile: Tile, mut f: impl FnMut(Block)) {
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
        return odometer(axes, base, |m, o| f(block(m, one, (1, 1, 1), o)));
    }
    if last.1 == 1 {
        // Rows contiguous in memory: blocks of whole rows, converted in bulk.
        let (rows, outer) = match axes.get(1) {
            Some(&rows) => (rows, &axes[2..]),
            None => (one, &axes[1..]),
        };
        return odometer(outer, base, |m, o| f(block(m, rows, last, o)));
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
            odometer(&others[..k], base, |m, o| {
                // Down each strip of columns first: a tile's rows below are its successor.
                for c0 in (0..last.0).step_by(cols) {
                    let width = (cols.min(last.0 - c0), last.1, 1);
                    for r0 in (0..len).step_by(tile_rows) {
                        let rows = (tile_rows.min(len - r0), step, out_step);
                        let start = m + r0 as isize * step + c0 as isize * last.1;
                        f(block(start, rows, width, o + r0 * out_step + c0));
                    }
                }
            });
        }
        _ => odometer(&axes[1..], base, |m, o| {
            for c0 in (0..last.0).step_by(capacity) {
                let width = (capacity.min(last.0 - c0), last.1, 1);
                f(block(m + c0 as isize * last.1, one, width, o + c0));
            }
        }),
    }
}

/// Every index of `axes` (innermost first): `f(memory offset, stream offset)`.
fn odometer(axes: &[PlanAxis], base: isize, mut f: impl FnMut(isize, usize)) {
    let mut index = [0usize; MAX_AXES];
    let (mut m, mut o) = (base, 0usize);
    loop {
        f(m, o);
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
