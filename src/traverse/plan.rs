//! The traversal plan: which blocks of an array are converted, and in which order.

use ndarray::{ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Ix2, IxDyn};

use super::LINE_BYTES;

/// Axes the traversal plans on the stack; arrays with more are split first.
const MAX_AXES: usize = 32;

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

/// A view the traversal can take apart: shared for encoding, exclusive for decoding.
pub(crate) trait View: Split {
    /// The elements' memory: `&[A]` or `&mut [A]`.
    type Memory;
    /// All elements as one memory slice (lowest address first), when they are contiguous.
    fn into_memory(self) -> Result<Self::Memory, Self>;
    /// The byte address of `memory`'s first element.
    fn address(memory: &Self::Memory) -> usize;
    /// Ask for elements `start..start + len` of `memory` ([`prefetch`](super::prefetch)), to
    /// write when the traversal writes.
    fn request(memory: &Self::Memory, start: usize, len: usize);
    /// The view at each index of axis 0, in order.
    fn outer(self) -> impl Iterator<Item = Self>;
    /// A lane of the view, of one axis.
    type Lane;
    /// The lanes along axis `along` of a view of two axes, one per index of the other axis,
    /// in order: each as its memory slice, or as a view when it is none.
    fn lanes(self, along: usize) -> impl Iterator<Item = Result<Self::Memory, Self::Lane>>;
    /// The view with its axes in `order`.
    fn permuted(self, order: &[usize]) -> Self;
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

impl<'a, A> View for ArrayView<'a, A, IxDyn> {
    type Memory = &'a [A];
    fn into_memory(self) -> Result<&'a [A], Self> {
        self.to_slice_memory_order().ok_or(self)
    }
    fn address(memory: &&'a [A]) -> usize {
        memory.as_ptr() as usize
    }
    fn request(memory: &&'a [A], start: usize, len: usize) {
        super::prefetch(memory, start, len, false);
    }
    fn outer(self) -> impl Iterator<Item = Self> {
        self.into_outer_iter()
    }
    type Lane = ArrayView1<'a, A>;
    fn lanes(self, along: usize) -> impl Iterator<Item = Result<&'a [A], ArrayView1<'a, A>>> {
        let view = self
            .into_dimensionality::<Ix2>()
            .unwrap_or_else(|_| unreachable!("lanes of two axes"));
        view.into_axis_iter(Axis(1 - along))
            .map(|lane| lane.to_slice_memory_order().ok_or(lane))
    }
    fn permuted(self, order: &[usize]) -> Self {
        self.permuted_axes(order)
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

impl<'a, A> View for ArrayViewMut<'a, A, IxDyn> {
    type Memory = &'a mut [A];
    fn into_memory(mut self) -> Result<&'a mut [A], Self> {
        if self.as_slice_memory_order_mut().is_none() {
            return Err(self);
        }
        // Contiguous, as just checked: this conversion cannot come back empty-handed.
        self.into_slice_memory_order().ok_or_else(|| unreachable!())
    }
    fn address(memory: &&'a mut [A]) -> usize {
        memory.as_ptr() as usize
    }
    fn request(memory: &&'a mut [A], start: usize, len: usize) {
        super::prefetch(memory, start, len, true);
    }
    fn outer(self) -> impl Iterator<Item = Self> {
        self.into_outer_iter_mut()
    }
    type Lane = ArrayViewMut1<'a, A>;
    fn lanes(
        self,
        along: usize,
    ) -> impl Iterator<Item = Result<&'a mut [A], ArrayViewMut1<'a, A>>> {
        let view = self
            .into_dimensionality::<Ix2>()
            .unwrap_or_else(|_| unreachable!("lanes of two axes"));
        view.into_axis_iter_mut(Axis(1 - along)).map(|mut lane| {
            if lane.as_slice_memory_order_mut().is_none() {
                return Err(lane);
            }
            // A slice, as just checked.
            lane.into_slice_memory_order().ok_or_else(|| unreachable!())
        })
    }
    fn permuted(self, order: &[usize]) -> Self {
        self.permuted_axes(order)
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
    /// Bytes of an element.
    pub size: usize,
}

impl Tile {
    /// Elements of the scratch buffer.
    pub fn len(&self) -> usize {
        self.rows * self.pitch
    }
}

/// The tile of `A` for gathering (encoding), as measured fastest (`perf_table`, Fortran
/// and transposed layouts):
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
            size,
        };
    }
    let (bytes, cols) = (32 * 1024, 64.min(32 * 1024 / size).max(1));
    Tile {
        rows: (bytes / size / cols).max(1),
        cols,
        pitch: cols + LINE_BYTES / size,
        short_cols: short(cols),
        size,
    }
}

/// The tile of `A` for scattering (decoding): [`tile`] with half as many rows again, so
/// a scratch buffer of at most 108 KiB for 1-, 2- and 4-byte elements and 54 KiB for
/// wider ones (or one element, if bigger). Scattering writes memory in runs down the
/// tile's columns, which then are half as long again; gathering reads those runs and
/// measured no faster with them. Measured with 64 MiB Fortran-order arrays, decoding `u8`
/// from 0.49–0.51 to 0.51–0.54 of memcpy, `u16` from 0.54–0.56 to 0.57–0.60, `f32` from
/// 0.59–0.60 to 0.63; 72 and 144 KiB were slower than 108.
pub(crate) fn scatter_tile<A>() -> Tile {
    let tile = tile::<A>();
    Tile {
        rows: tile.rows + tile.rows / 2,
        ..tile
    }
}

/// How many rows of the stream ahead of the one it copies into the scratch buffer decoding
/// asks for ([`prefetch`](super::prefetch)): 64 for 1-byte elements, 128 for wider ones,
/// whose scatter tiles hold 48 to 192 rows. Asking for the same row of the tile below, a
/// whole tile ahead, was slower. Measured with 64 MiB arrays, three alternated runs of
/// `perf_table`, in Fortran order, transposed and with swapped axes: `bool` decoding from
/// 5.7–6.1 GB/s to 5.8–6.4, `u8` from 6.4–6.9 to 6.7–7.4, `u16` from 6.2–7.4 to 6.2–7.9,
/// `f64` from 6.4–8.3 to 6.7–8.6; `f32` and `Complex<f64>` read the same (encoding,
/// unchanged, read the same too). 1-byte elements were slower 128 rows ahead (`u8` 6.9–7.3
/// GB/s against 7.1–7.7 at 32 or 64), wider ones no faster 32 or 64 rows ahead.
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

/// What encoding and decoding do with each block the traversal finds.
pub(crate) trait Visitor<V: View> {
    /// Convert one block (positions in elements: memory slice, C-order stream).
    fn block(&mut self, memory: &mut V::Memory, block: Block);
    /// Convert one block whose column c lies in `lanes[c]`, element (r, c) at index
    /// `block.start + r * block.row_step` of it (a tile of a part of a bigger array).
    fn lanes(&mut self, lanes: &mut [V::Memory], block: Block);
    /// Convert one block whose column c is `lanes[c]`, from index `block.start` of it with
    /// `block.row_step` 1 (a band of a strip of a part of a bigger array whose lanes step
    /// through memory, [`STEPPED_BYTES`] at most), through a buffer of its elements, in
    /// tiles ([`Block::staged_bands`]).
    fn stepped(&mut self, lanes: &mut [V::Lane], block: Block);
    /// Convert a one-axis view whose elements are not one memory slice, at `out`.
    fn strided(&mut self, view: V, out: usize);
    /// The tile of the visitor's element type: the geometry of its scratch buffer.
    fn tile(&self) -> Tile;
    /// How the rows of a part move ([`lane_rows`]).
    fn row_moves(&self) -> RowMoves;
    /// The byte address of stream position 0.
    fn stream(&self) -> usize;
}

/// Bytes of the blocks that [`reordered_parts`] cuts a part of a bigger array into, at
/// most, for the thread pool: deep enough along both the axis closest in memory and the
/// last axis ([`block_sizes`]) that the tiles read long runs and write long stream rows.
#[cfg(feature = "rayon")]
const PART_BYTES: usize = 1 << 22;

/// The axes of a view from the farthest apart in memory to the closest, by the size of
/// their strides: the view permuted so has its elements in memory order, as far as they
/// are in any. Axes of length 1, whose strides say nothing, come first, then broadcast
/// axes (stride 0), which repeat the whole of what follows; ties keep axis order.
fn memory_order(shape: &[usize], strides: &[isize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..shape.len()).collect();
    order.sort_by_key(|&k| {
        let stride = strides[k].unsigned_abs();
        (shape[k] > 1, stride != 0, std::cmp::Reverse(stride))
    });
    order
}

/// Whether [`walk`] moves a view of two or more axes that is not one memory slice in tiles
/// whose columns are its lanes ([`lane_tiles`]): when it has elements and its last axis
/// longer than 1 is not the one closest in memory.
pub(crate) fn reorders(shape: &[usize], strides: &[isize]) -> bool {
    let rows = last_long_axis(shape);
    let closest = memory_order(shape, strides).last().copied();
    shape.len() > 1 && !shape.contains(&0) && rows.is_some() && closest != rows
}

/// The last axis longer than 1: the one along which a view's rows run in the stream.
fn last_long_axis(shape: &[usize]) -> Option<usize> {
    (0..shape.len()).rev().find(|&k| shape[k] > 1)
}

/// Visit every element of `view` once, telling the visitor where it goes in the stream.
pub(crate) fn walk<V: View, T: Visitor<V>>(view: V, out: usize, visitor: &mut T) {
    let ndim = view.shape().len();
    let mut view = view;
    let strided = Strided::of(view.shape(), view.strides());
    if let Some(strided) = &strided {
        match view.into_memory() {
            Ok(memory) => return planned(memory, strided, out, visitor),
            Err(v) => view = v,
        }
    }
    if ndim == 1 {
        visitor.strided(view, out);
        return;
    }
    let mut view = match part(view, out, visitor) {
        Ok(()) => return,
        Err(view) => view,
    };
    // Not one block of memory (a slice of a bigger array, a broadcast): split axis 0.
    let len = view.shape()[0];
    let inner: usize = view.shape()[1..].iter().product();
    for i in 0..len {
        let (first, rest) = view.split_at(1);
        walk(first.into_first(), out + i * inner, visitor);
        view = rest;
    }
}

/// Visit every element of `view`, of two axes or more and no one memory slice (a part of a
/// bigger array), straight from its memory: through its lanes along the axis closest in
/// memory, which are memory slices when that axis steps by one element. Lanes that hold the
/// last axis, with the axes that continue them in memory, are each one slice placed in the
/// stream ([`lane_rows`] for rows of one axis); other views move in tiles whose columns are
/// lanes ([`lane_tiles`]). `Err(view)` for rows that step through memory, or no lanes.
fn part<V: View, T: Visitor<V>>(view: V, out: usize, visitor: &mut T) -> Result<(), V> {
    let (shape, strides) = (view.shape(), view.strides());
    let ndim = shape.len();
    let long = |k: &usize| shape[*k] > 1;
    let closest = (0..ndim)
        .filter(|k| long(k) && strides[*k] != 0)
        .min_by_key(|&k| strides[k].unsigned_abs());
    let (Some(p), Some(last)) = (closest, last_long_axis(shape)) else {
        return Err(view);
    };
    // Lanes that step through memory are visited in tiles only, of lanes that are not rows.
    let stepped = strides[p].unsigned_abs() != 1;
    if ndim > MAX_AXES || shape.contains(&0) || (stepped && p == last) {
        return Err(view);
    }
    // The axes that continue the lanes in memory: one slice with them.
    let mut kept = [false; MAX_AXES];
    kept[p] = true;
    let mut run = shape[p];
    while let Some(k) =
        (0..ndim).find(|&k| !stepped && long(&k) && !kept[k] && strides[k].unsigned_abs() == run)
    {
        kept[k] = true;
        run *= shape[k];
    }
    let rows = kept[last];
    if !rows {
        kept = [false; MAX_AXES];
        kept[p] = true;
        kept[last] = true;
    }
    // The other axes first (those of one index before all), then the kept ones.
    let mut order: Vec<usize> = (0..ndim).filter(|k| !long(k) && !kept[*k]).collect();
    order.extend((0..ndim).filter(|k| long(k) && !kept[*k]));
    let fixed = order.len();
    order.extend((0..ndim).filter(|k| kept[*k]));
    let mut stream = vec![0; ndim];
    let mut step = 1;
    for k in (0..ndim).rev() {
        stream[k] = step;
        step *= shape[k];
    }
    let stream: Vec<usize> = order.iter().map(|&k| stream[k]).collect();
    let view = view.permuted(&order);
    let (outer, inner) = stream.split_at(fixed);
    match (rows, inner) {
        // Rows of one axis: the innermost other axis and the rows, two at a time.
        (true, &[_]) => fixing(view, &outer[..fixed - 1], out, &mut |rows, at| {
            lane_rows(rows, outer[fixed - 1], at, visitor)
        }),
        (true, _) => fixing(view, outer, out, &mut |lane, at| {
            let strided = Strided::of(lane.shape(), lane.strides());
            match (strided, lane.into_memory()) {
                (Some(s), Ok(memory)) => planned(memory, &s.with_stream(inner), at, visitor),
                _ => unreachable!("a lane holds the axes that continue it in memory"),
            }
        }),
        (false, _) => {
            let mut tables = (Vec::new(), Vec::new());
            fixing(view, outer, out, &mut |plane, at| {
                lane_tiles(plane, inner[0], at, visitor, &mut tables)
            })
        }
    }
    Ok(())
}

/// Call `f` with the view at each index of the leading axes of `view` whose stream strides
/// are `stream`, and its stream position, from `out`.
fn fixing<V: View>(view: V, stream: &[usize], out: usize, f: &mut impl FnMut(V, usize)) {
    match stream.split_first() {
        None => f(view, out),
        Some((&step, rest)) => {
            for (i, sub) in view.outer().enumerate() {
                fixing(sub, rest, out + i * step, f);
            }
        }
    }
}

/// Bytes of the buffer that lanes stepping through memory are copied through, at most
/// ([`Visitor::stepped`]): as many tiles of a strip as fit, so that the copies are long.
const STEPPED_BYTES: usize = 256 * 1024;

impl Block {
    /// The blocks of at most `tile_rows` rows of this band of a strip, once copied into a
    /// buffer that holds its columns one after the other ([`Visitor::stepped`]).
    pub(crate) fn staged_bands(&self, tile: Tile) -> impl Iterator<Item = Block> + '_ {
        (0..self.rows).step_by(tile.rows).map(move |r0| {
            let rows = tile.rows.min(self.rows - r0);
            Block {
                start: r0,
                rows,
                row_step: 1,
                col_step: self.rows as isize,
                out: self.out + r0 * self.out_row,
                pitch: if rows > 1 { tile.pitch } else { self.cols },
                ..*self
            }
        })
    }
}

/// How far ahead of its conversion the memory of the rows of a part is asked for, in bytes:
/// the rows are runs spread over many pages, which the hardware does not follow.
const ROW_BYTES_AHEAD: usize = 16 * 1024;

/// Bytes of the pieces of a part's row that converts, rather than copies, its elements
/// ([`RowMoves::piece`]).
pub(crate) const ROW_PIECE_BYTES: usize = 1024;

/// How a visitor moves the rows of a part ([`lane_rows`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowMoves {
    /// Elements of a row converted at once, between the requests for the rows ahead: whole
    /// rows where the conversion is a plain copy, which copies long runs fastest; else
    /// [`ROW_PIECE_BYTES`], so that the requests keep pace.
    pub piece: usize,
    /// Whether the rows ahead are asked for: not when whole rows are copied into, as a
    /// request to write would read lines that the copy overwrites whole.
    pub ask: bool,
}

/// Visit the rows of `rows`, of two axes whose rows are memory slices, in pieces of a row,
/// asking for the memory [`ROW_BYTES_AHEAD`] ahead as it goes; `stream`: the stream stride
/// of its first axis.
fn lane_rows<V: View, T: Visitor<V>>(rows: V, stream: usize, out: usize, visitor: &mut T) {
    const HELD: usize = 16;
    let (cols, col_step) = (rows.shape()[1], rows.strides()[1]);
    let size = visitor.tile().size;
    let moves = visitor.row_moves();
    let piece = moves.piece.clamp(1, cols);
    let reach = (ROW_BYTES_AHEAD / size).min(cols * (HELD - 1));
    let mut lanes = rows
        .lanes(1)
        .map(|lane| lane.unwrap_or_else(|_| unreachable!("rows along a unit stride are slices")));
    // The rows ahead, which the requests reach into.
    let mut ahead: [Option<V::Memory>; HELD] = std::array::from_fn(|_| lanes.next());
    // Elements of the rows, as one run, asked for so far.
    let mut requested = 0;
    for r in 0.. {
        let Some(mut lane) = std::mem::replace(&mut ahead[r % HELD], lanes.next()) else {
            return;
        };
        for x in (0..cols).step_by(piece) {
            let n = piece.min(cols - x);
            let target = r * cols + x + n + reach;
            while moves.ask && requested < target {
                let (j, at) = (requested / cols, requested % cols);
                let len = (cols - at).min(target - requested);
                let first = if col_step < 0 { cols - at - len } else { at };
                match &ahead[j % HELD] {
                    _ if j == r => V::request(&lane, first, len),
                    Some(row) => V::request(row, first, len),
                    None => {}
                }
                requested += len;
            }
            let block = Block {
                start: if col_step < 0 { cols - 1 - x } else { x },
                rows: 1,
                row_step: 0,
                cols: n,
                col_step: col_step.signum(),
                out: out + r * stream + x,
                out_row: 0,
                pitch: n,
            };
            visitor.block(&mut lane, block);
        }
    }
}

/// Visit `plane`, of two axes (the one closest in memory and the last), in the tiles of
/// [`plan`], whose columns are the plane's lanes, from stream position `out`; `stream`: the
/// stream stride of its first axis. The tiles down a strip of columns read from a table of
/// the strip's lanes (`tables`, kept for the next plane): their memory slices
/// ([`Visitor::lanes`]), the only memory beyond the tile's scratch buffer; or, for lanes
/// that step through memory, their views ([`Visitor::stepped`]).
fn lane_tiles<V: View, T: Visitor<V>>(
    plane: V,
    stream: usize,
    out: usize,
    visitor: &mut T,
    tables: &mut (Vec<V::Memory>, Vec<V::Lane>),
) {
    let tile = visitor.tile();
    let (rows, cols) = (plane.shape()[0], plane.shape()[1]);
    let (row_step, col_step) = (plane.strides()[0], plane.strides()[1]);
    let size = tile.size;
    let width = if rows < tile.rows {
        tile.short_cols
    } else {
        tile.cols
    };
    // Columns start on lines of the stream, rows on lines of memory.
    let strips = lead(
        visitor.stream().wrapping_add(out * size),
        size,
        stream as isize,
    );
    let mut lanes = plane.lanes(0).peekable();
    let mut bands = None;
    let slices = match lanes.peek() {
        Some(Ok(first)) => {
            bands = lead(V::address(first), size, col_step).filter(|_| row_step == 1);
            true
        }
        _ => false,
    };
    // Lanes copied in through a buffer: bands of several tiles, whose columns are long runs.
    let band = if slices {
        tile.rows
    } else {
        (STEPPED_BYTES / (width * size)).max(tile.rows) / tile.rows * tile.rows
    };
    for (c0, w) in cuts(cols, width, strips, size) {
        let strip = lanes.by_ref().take(w);
        if slices {
            tables.0.clear();
            let unstepped = "lanes along a unit stride are slices";
            tables
                .0
                .extend(strip.map(|l| l.unwrap_or_else(|_| unreachable!("{unstepped}"))));
        } else {
            tables.1.clear();
            tables
                .1
                .extend(strip.map(|l| l.err().unwrap_or_else(|| unreachable!("stepped"))));
        }
        for (r0, height) in cuts(rows, band, bands, size) {
            let mut block = Block {
                start: if row_step < 0 { rows - 1 - r0 } else { r0 },
                rows: height,
                row_step,
                cols: w,
                col_step,
                out: out + r0 * stream + c0,
                out_row: stream,
                pitch: if height > 1 && slices { tile.pitch } else { w },
            };
            if slices {
                visitor.lanes(&mut tables.0, block);
            } else {
                // Views are indexed in their own order.
                (block.start, block.row_step) = (r0, 1);
                visitor.stepped(&mut tables.1, block);
            }
        }
    }
}

/// Visit the blocks of `strided`, whose elements are `memory`, from stream position `out`.
fn planned<V: View, T: Visitor<V>>(
    mut memory: V::Memory,
    strided: &Strided,
    out: usize,
    visitor: &mut T,
) {
    let tile = visitor.tile();
    let origin = Origin {
        memory: V::address(&memory),
        stream: visitor.stream().wrapping_add(out * tile.size),
    };
    plan(strided, tile, origin, |mut block| {
        block.out += out;
        visitor.block(&mut memory, block)
    });
}

/// Indices along each axis of the blocks that [`reordered_parts`] cuts a view of `size`-byte
/// elements into, [`PART_BYTES`] at most: as deep along the axis closest in memory as along
/// the last (the square root of the block's elements, unless one of them is shorter), so
/// that both the runs read from memory and the rows written to the stream are long; then,
/// when those two axes are whole, as many indices of the other axes as fit, from the
/// closest in memory.
#[cfg(feature = "rayon")]
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

/// The parts of a view of `size`-byte elements, no one memory slice, that [`walk`] moves
/// in tiles of its lanes ([`reorders`]), for the thread pool: the view cut along its first
/// axis longer than 1 into pieces as deep along it as the blocks of [`block_sizes`], so
/// that each holds whole blocks and is a run of the stream, every one `per` stream
/// positions long but the last. The view back when it is not walked so, or is one block
/// deep along that axis.
#[cfg(feature = "rayon")]
pub(crate) fn reordered_parts<V: Split>(view: V, size: usize) -> Result<(Vec<V>, usize), V> {
    let (shape, strides) = (view.shape(), view.strides());
    let first = shape.iter().position(|&len| len > 1);
    let Some(axis) = first.filter(|_| reorders(shape, strides) && shape.len() <= MAX_AXES) else {
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
#[cfg(feature = "rayon")]
pub(crate) fn parts<V: Split>(view: V, size: usize, least: usize) -> Result<(Vec<V>, usize), V> {
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
/// read (and for a store, written) twice (measured with 64 MiB Fortran arrays, whose
/// buffers start 16 bytes into a line as the allocator hands them out: encoding `u8`
/// from 0.45 to 0.48 of memcpy, `f64` from 0.53 to 0.58, `complex128` from 0.57 to 0.59).
fn cuts(
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
fn lead(address: usize, size: usize, stride: isize) -> Option<usize> {
    let gap = address.wrapping_neg() % LINE_BYTES;
    let aligned =
        size < LINE_BYTES && gap % size == 0 && (stride.unsigned_abs() * size) % LINE_BYTES == 0;
    aligned.then_some(gap / size)
}

/// One axis as the plan sees it: length, memory stride, stream stride (in elements).
type PlanAxis = (usize, isize, usize);

/// Blocks of an array held in one memory slice, none bigger than `tile` unless its columns
/// are consecutive in memory. Tiles are cut where their runs start on cache lines, for the
/// memory and the stream at `origin`, where they can be.
pub(crate) fn plan(strided: &Strided, tile: Tile, origin: Origin, mut f: impl FnMut(Block)) {
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
            let size = tile.size;
            odometer(&others[..k], base, |m, o| {
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

#[cfg(test)]
mod tests {
    use super::{cuts, lead, LINE_BYTES};

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

    /// The parts the pool gets of a view walked in tiles of its lanes: whole blocks deep
    /// along the first long axis, in stream order; none for a view one block deep, or not
    /// walked so.
    #[cfg(feature = "rayon")]
    #[test]
    fn reordered_parts_hold_whole_blocks() {
        use super::{reordered_parts, Split, Strided};
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
    #[cfg(feature = "rayon")]
    #[test]
    fn parts_of_rows_are_runs_of_whole_rows() {
        use super::{parts, Split, Strided};
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
