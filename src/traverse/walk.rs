//! The walk: how a view of any layout is taken apart into what the plan cuts into blocks
//! (one memory slice, the lanes of a part of a bigger array, or single axes), and handed to
//! a [`Visitor`], encoding's or decoding's, block by block.

use std::ops::Range;

use ndarray::{ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Ix1, Ix2, IxDyn, Slice};

use super::plan::{
    Block, MAX_AXES, Origin, Split, Strided, Tile, cuts, last_long_axis, lead, plan,
};
use super::units::{AsUnits, Moves};

/// A view the traversal can take apart: shared for encoding, exclusive for decoding. Its
/// memory is handed on as the unit the elements move as ([`AsUnits`]), so that everything
/// past the view's own axes is made once per unit.
pub(crate) trait View: Split {
    /// What the elements move as.
    type Unit: Moves;
    /// The elements' memory as units: `&[Unit]` or `&mut [Unit]`.
    type Memory: Run;
    /// All elements as one memory slice (lowest address first), when they are contiguous.
    fn into_memory(self) -> Result<Self::Memory, Self>;
    /// The view at each index of axis 0, in order.
    fn outer(self) -> impl Iterator<Item = Self>;
    /// A lane of the view, of one axis.
    type Lane;
    /// The lanes along axis `along` of a view of two axes, one per index of the other axis,
    /// in order: each as its memory slice, or as a view when it is none.
    fn lanes(self, along: usize) -> impl Iterator<Item = Result<Self::Memory, Self::Lane>>;
    /// The view with its axes in `order`.
    fn permuted(self, order: &[usize]) -> Self;
    /// Axis `take` made part of axis `into` when it continues it in memory (its stride is
    /// `into`'s times `into`'s length), `take` left of length 1: whether it did.
    fn merge(&mut self, take: usize, into: usize) -> bool;
    /// Move rows `rows` of `lanes`, which step through memory, through `band`, one lane's
    /// rows after another: copied into it before `visit` converts it (encoding), or out of
    /// it after, unless `visit` answers `false` (decoding).
    fn staged(
        lanes: &mut [Self::Lane],
        rows: Range<usize>,
        band: &mut [Self::Unit],
        visit: impl FnOnce(&mut [Self::Unit]) -> bool,
    );
    /// Move the elements of a one-axis view that is no one memory slice through `buffer`,
    /// a piece at a time, as [`View::staged`]: `visit(piece, at)`, `at` the piece's first
    /// element.
    fn strided(
        self,
        buffer: &mut [Self::Unit],
        visit: impl FnMut(&mut [Self::Unit], usize) -> bool,
    );
}

impl<'a, A: AsUnits + Copy> View for ArrayView<'a, A, IxDyn> {
    type Unit = A::Out;
    type Memory = &'a [A::Out];
    fn into_memory(self) -> Result<&'a [A::Out], Self> {
        self.to_slice_memory_order().map(A::outs).ok_or(self)
    }
    fn outer(self) -> impl Iterator<Item = Self> {
        self.into_outer_iter()
    }
    type Lane = ArrayView1<'a, A>;
    fn lanes(self, along: usize) -> impl Iterator<Item = Result<&'a [A::Out], ArrayView1<'a, A>>> {
        let view = self
            .into_dimensionality::<Ix2>()
            .unwrap_or_else(|_| unreachable!("lanes of two axes"));
        view.into_axis_iter(Axis(1 - along))
            .map(|lane| lane.to_slice_memory_order().map(A::outs).ok_or(lane))
    }
    fn permuted(self, order: &[usize]) -> Self {
        super::permuted(self, order)
    }
    fn merge(&mut self, take: usize, into: usize) -> bool {
        self.merge_axes(Axis(take), Axis(into))
    }
    fn staged(
        lanes: &mut [ArrayView1<'a, A>],
        rows: Range<usize>,
        band: &mut [A::Out],
        visit: impl FnOnce(&mut [A::Out]) -> bool,
    ) {
        let rows = Slice::from(rows);
        let per = band.len() / lanes.len().max(1);
        for (c, run) in band.chunks_exact_mut(per.max(1)).enumerate() {
            if let Some(next) = lanes.get(c + super::ROWS_AHEAD) {
                super::prefetch_lane(next.slice_axis(Axis(0), rows), false);
            }
            let lane = lanes[c].slice_axis(Axis(0), rows);
            run.iter_mut().zip(lane).for_each(|(u, &x)| *u = x.out());
        }
        visit(band);
    }
    fn strided(self, buffer: &mut [A::Out], mut visit: impl FnMut(&mut [A::Out], usize) -> bool) {
        // As one axis: ndarray steps an `Ix1` iterator by its stride, an `IxDyn` one through
        // an index on the heap.
        let view = self
            .into_dimensionality::<Ix1>()
            .unwrap_or_else(|_| unreachable!("a view of one axis"));
        let mut elements = view.iter();
        let mut at = 0;
        loop {
            let mut len = 0;
            for (slot, x) in buffer.iter_mut().zip(&mut elements) {
                *slot = x.out();
                len += 1;
            }
            if len == 0 || !visit(&mut buffer[..len], at) {
                return;
            }
            at += len;
        }
    }
}

impl<'a, A: AsUnits> View for ArrayViewMut<'a, A, IxDyn> {
    type Unit = A::In;
    type Memory = &'a mut [A::In];
    fn into_memory(mut self) -> Result<&'a mut [A::In], Self> {
        if self.as_slice_memory_order_mut().is_none() {
            return Err(self);
        }
        // Contiguous, as just checked: this conversion cannot come back empty-handed.
        let memory = self.into_slice_memory_order();
        Ok(A::ins(memory.unwrap_or_else(|| unreachable!())))
    }
    fn outer(self) -> impl Iterator<Item = Self> {
        self.into_outer_iter_mut()
    }
    type Lane = ArrayViewMut1<'a, A>;
    fn lanes(
        self,
        along: usize,
    ) -> impl Iterator<Item = Result<&'a mut [A::In], ArrayViewMut1<'a, A>>> {
        let view = self
            .into_dimensionality::<Ix2>()
            .unwrap_or_else(|_| unreachable!("lanes of two axes"));
        view.into_axis_iter_mut(Axis(1 - along)).map(|mut lane| {
            if lane.as_slice_memory_order_mut().is_none() {
                return Err(lane);
            }
            // A slice, as just checked.
            let memory = lane.into_slice_memory_order();
            Ok(A::ins(memory.unwrap_or_else(|| unreachable!())))
        })
    }
    fn permuted(self, order: &[usize]) -> Self {
        super::permuted(self, order)
    }
    fn merge(&mut self, take: usize, into: usize) -> bool {
        self.merge_axes(Axis(take), Axis(into))
    }
    fn staged(
        lanes: &mut [ArrayViewMut1<'a, A>],
        rows: Range<usize>,
        band: &mut [A::In],
        visit: impl FnOnce(&mut [A::In]) -> bool,
    ) {
        if !visit(band) {
            return;
        }
        let rows = Slice::from(rows);
        let per = band.len() / lanes.len().max(1);
        for (c, run) in band.chunks_exact(per.max(1)).enumerate() {
            if let Some(next) = lanes.get(c + super::ROWS_AHEAD) {
                super::prefetch_lane(next.slice_axis(Axis(0), rows), true);
            }
            let lane = lanes[c].slice_axis_mut(Axis(0), rows);
            lane.into_iter()
                .zip(run)
                .for_each(|(x, &u)| *x = A::from_in(u));
        }
    }
    fn strided(self, buffer: &mut [A::In], mut visit: impl FnMut(&mut [A::In], usize) -> bool) {
        // As one axis, as for reading.
        let mut view = self
            .into_dimensionality::<Ix1>()
            .unwrap_or_else(|_| unreachable!("a view of one axis"));
        let mut elements = view.iter_mut();
        let total = elements.len();
        let mut at = 0;
        while at < total {
            let len = buffer.len().min(total - at);
            if !visit(&mut buffer[..len], at) {
                return;
            }
            // The buffer goes first in the zip, so no element is drawn and dropped.
            for (&u, x) in buffer[..len].iter().zip(&mut elements) {
                *x = A::from_in(u);
            }
            at += len;
        }
    }
}

/// A slice of units the traversal reads or writes: `&[U]` or `&mut [U]`.
pub(crate) trait Run {
    /// The byte address of the first element.
    fn address(&self) -> usize;
    /// Ask for elements `start..start + len` ([`prefetch`](super::prefetch)), to write when
    /// the traversal writes.
    fn request(&self, start: usize, len: usize);
}

impl<U> Run for &[U] {
    fn address(&self) -> usize {
        self.as_ptr() as usize
    }
    fn request(&self, start: usize, len: usize) {
        super::prefetch(self, start, len, false);
    }
}

impl<U> Run for &mut [U] {
    fn address(&self) -> usize {
        self.as_ptr() as usize
    }
    fn request(&self, start: usize, len: usize) {
        super::prefetch(self, start, len, true);
    }
}

/// What encoding and decoding do with each block the traversal finds, in memory `M` of
/// units `U`: one visitor per unit, whatever the element type.
pub(crate) trait Visitor<M, U> {
    /// Convert one block (positions in elements: memory slice, C-order stream).
    fn block(&mut self, memory: &mut M, block: Block);
    /// Convert one block whose column c lies in `lanes[c]`, element (r, c) at index
    /// `block.start + r * block.row_step` of it (a tile of a part of a bigger array).
    fn lanes(&mut self, lanes: &mut [M], block: Block);
    /// Convert one block held in `band`, column after column, from index `block.start`
    /// of each with `block.row_step` 1: a band of a strip of lanes that step through
    /// memory ([`STEPPED_BYTES`] at most), or a piece of a one-axis view, copied through
    /// the buffer ([`View::staged`]), in tiles ([`Block::staged_bands`]). `false` once a
    /// byte was no valid encoding (decoding).
    fn staged(&mut self, band: &mut [U], block: Block) -> bool;
    /// The buffer that [`Visitor::staged`] converts, taken for a while (kept by the
    /// visitor between uses).
    fn take_band(&mut self) -> Vec<U>;
    /// Give back the buffer of [`Visitor::take_band`].
    fn put_band(&mut self, band: Vec<U>);
    /// The tile of the visitor's unit: the geometry of its scratch buffer.
    fn tile(&self) -> Tile;
    /// How the rows of a part move ([`lane_rows`]).
    fn row_moves(&self) -> RowMoves;
    /// The byte address of stream position 0.
    fn stream(&self) -> usize;
}

/// Visit every element of `view` once, telling the visitor where it goes in the stream.
pub(crate) fn walk<V: View, T: Visitor<V::Memory, V::Unit>>(view: V, out: usize, visitor: &mut T) {
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
        // A piece at a time through the visitor's buffer, each piece one row of the stream.
        let mut buffer = visitor.take_band();
        super::grow(&mut buffer, visitor.tile().len());
        view.strided(&mut buffer, |piece, at| {
            let cols = piece.len();
            let block = Block {
                start: 0,
                rows: 1,
                row_step: 0,
                cols,
                col_step: 1,
                out: out + at,
                out_row: 0,
                pitch: cols,
            };
            visitor.staged(piece, block)
        });
        visitor.put_band(buffer);
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
fn part<V: View, T: Visitor<V::Memory, V::Unit>>(
    mut view: V,
    out: usize,
    visitor: &mut T,
) -> Result<(), V> {
    coalesce(&mut view);
    let Some(cut) = Parts::of(view.shape(), view.strides()) else {
        return Err(view);
    };
    let view = view.permuted(&cut.order);
    let (outer, inner) = cut.stream.split_at(cut.fixed);
    match (cut.rows, inner) {
        // Rows of one axis: the innermost other axis and the rows, two at a time.
        (true, &[_]) => fixing(view, &outer[..cut.fixed - 1], out, &mut |rows, at| {
            let (cols, col_step) = (rows.shape()[1], rows.strides()[1]);
            let unstepped = "rows along a unit stride are slices";
            let mut lanes = rows
                .lanes(1)
                .map(|lane| lane.unwrap_or_else(|_| unreachable!("{unstepped}")));
            let row = (cols, col_step, outer[cut.fixed - 1]);
            lane_rows(&mut lanes, row, at, visitor)
        }),
        (true, _) => fixing(view, outer, out, &mut |lane, at| {
            let strided = Strided::of(lane.shape(), lane.strides());
            match (strided, lane.into_memory()) {
                (Some(s), Ok(memory)) => planned(memory, &s.with_stream(inner), at, visitor),
                _ => unreachable!("a lane holds the axes that continue it in memory"),
            }
        }),
        (false, _) => {
            let (mut table, mut stepped) = (Vec::new(), Vec::new());
            fixing(view, outer, out, &mut |plane, at| {
                let geometry = Plane {
                    rows: plane.shape()[0],
                    cols: plane.shape()[1],
                    row_step: plane.strides()[0],
                    col_step: plane.strides()[1],
                    stream: inner[0],
                };
                let mut lanes = plane.lanes(0).peekable();
                if let Some(Ok(_)) = lanes.peek() {
                    let unstepped = "lanes along a unit stride are slices";
                    let mut slices =
                        lanes.map(|l| l.unwrap_or_else(|_| unreachable!("{unstepped}")));
                    let lanes = PlaneLanes::Slices(&mut slices, &mut table);
                    return lane_tiles(lanes, &geometry, at, visitor);
                }
                // Lanes that step through memory: a strip's views at a time, staged through
                // the visitor's band.
                let mut lanes = lanes.map(|l| l.err().unwrap_or_else(|| unreachable!("stepped")));
                let mut strip = None;
                let mut stage =
                    |visitor: &mut T, c0: usize, w: usize, rows: Range<usize>, block| {
                        if strip != Some(c0) {
                            stepped.clear();
                            stepped.extend(lanes.by_ref().take(w));
                            strip = Some(c0);
                        }
                        let mut band = visitor.take_band();
                        let held = rows.len() * w;
                        super::grow(&mut band, held);
                        V::staged(&mut stepped, rows, &mut band[..held], |band| {
                            visitor.staged(band, block)
                        });
                        visitor.put_band(band);
                    };
                lane_tiles(PlaneLanes::Stepped(&mut stage), &geometry, at, visitor)
            })
        }
    }
    Ok(())
}

/// Merge each axis into the next longer one when it continues it in memory as it does in
/// the stream (an array's trailing axis of each element's words or bytes, axes a part of an
/// array holds whole): their lanes are one run of both, which the rows of [`lane_rows`]
/// move whole, rather than one short lane at a time.
fn coalesce<V: View>(view: &mut V) {
    let shape = view.shape();
    let Some(mut into) = (0..shape.len()).rev().find(|&k| shape[k] > 1) else {
        return;
    };
    for take in (0..into).rev() {
        if view.shape()[take] > 1 && !view.merge(take, into) {
            into = take;
        }
    }
}

/// How [`part`] takes a view apart, from its shape and strides alone: its axes in the
/// order visited (the other axes, those of one index first, then the kept ones, which hold
/// the lanes), how many are fixed one index at a time, the stream strides in that order,
/// and whether the kept axes hold the rows (the last axis).
struct Parts {
    order: Vec<usize>,
    fixed: usize,
    stream: Vec<usize>,
    rows: bool,
}

impl Parts {
    /// The parts of a view of `shape` and `strides`; `None` for rows that step through
    /// memory, or no lanes.
    fn of(shape: &[usize], strides: &[isize]) -> Option<Parts> {
        let ndim = shape.len();
        let long = |k: &usize| shape[*k] > 1;
        let closest = (0..ndim)
            .filter(|k| long(k) && strides[*k] != 0)
            .min_by_key(|&k| strides[k].unsigned_abs());
        let (p, last) = (closest?, last_long_axis(shape)?);
        // Lanes that step through memory are visited in tiles only, of lanes that are not
        // rows.
        let stepped = strides[p].unsigned_abs() != 1;
        if ndim > MAX_AXES || shape.contains(&0) || (stepped && p == last) {
            return None;
        }
        // The axes that continue the lanes in memory: one slice with them.
        let mut kept = [false; MAX_AXES];
        kept[p] = true;
        let mut run = shape[p];
        while let Some(k) = (0..ndim)
            .find(|&k| !stepped && long(&k) && !kept[k] && strides[k].unsigned_abs() == run)
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
        let stream = order.iter().map(|&k| stream[k]).collect();
        Some(Parts {
            order,
            fixed,
            stream,
            rows,
        })
    }
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
/// ([`Visitor::staged`]): as many tiles of a strip as fit, so that the copies are long.
const STEPPED_BYTES: usize = 256 * 1024;

impl Block {
    /// The blocks of at most `tile_rows` rows of this band of a strip, once copied into a
    /// buffer that holds its columns one after the other ([`Visitor::staged`]).
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

/// Visit `lanes`, rows of `cols` elements `col_step` apart in memory and `stream` apart in
/// the stream, each a memory slice, in pieces of a row, asking for the memory
/// [`ROW_BYTES_AHEAD`] ahead as it goes.
fn lane_rows<M: Run, U, T: Visitor<M, U>>(
    lanes: &mut dyn Iterator<Item = M>,
    (cols, col_step, stream): (usize, isize, usize),
    out: usize,
    visitor: &mut T,
) {
    const HELD: usize = 16;
    let size = visitor.tile().size;
    let moves = visitor.row_moves();
    let piece = moves.piece.clamp(1, cols);
    let reach = (ROW_BYTES_AHEAD / size).min(cols * (HELD - 1));
    // The rows ahead, which the requests reach into.
    let mut ahead: [Option<M>; HELD] = std::array::from_fn(|_| lanes.next());
    // Where the next element to ask for is: its row and its index in the row.
    let (mut j, mut at) = (0, 0);
    for r in 0.. {
        let Some(mut lane) = std::mem::replace(&mut ahead[r % HELD], lanes.next()) else {
            return;
        };
        for x in (0..cols).step_by(piece) {
            let n = piece.min(cols - x);
            let target = r * cols + x + n + reach;
            while moves.ask && j * cols + at < target {
                let len = (cols - at).min(target - (j * cols + at));
                let first = if col_step < 0 { cols - at - len } else { at };
                match &ahead[j % HELD] {
                    _ if j == r => lane.request(first, len),
                    Some(row) => row.request(first, len),
                    None => {}
                }
                at += len;
                if at == cols {
                    (j, at) = (j + 1, 0);
                }
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

/// A plane of two axes (the one closest in memory and the last), whose lanes along the
/// first are the columns of its tiles.
struct Plane {
    rows: usize,
    cols: usize,
    row_step: isize,
    col_step: isize,
    /// The stream stride of the first axis.
    stream: usize,
}

/// The lanes of a [`Plane`]: memory slices (the iterator, held a strip at a time in the
/// table, the only memory beyond the tile's scratch buffer), or views that step through
/// memory, which a stage copies a strip and band at a time through the visitor's band:
/// `stage(visitor, c0, width, rows, block)`.
enum PlaneLanes<'l, M, T> {
    Slices(&'l mut dyn Iterator<Item = M>, &'l mut Vec<M>),
    Stepped(&'l mut Stage<'l, T>),
}

/// Copies the band of lanes `rows` of the strip of `width` lanes from column `c0` through
/// the visitor's band: `stage(visitor, c0, width, rows, block)`.
type Stage<'s, T> = dyn FnMut(&mut T, usize, usize, Range<usize>, Block) + 's;

/// Visit `plane` in the tiles of [`plan`], whose columns are its lanes, from stream
/// position `out`: strips of columns down which the tiles go; the lanes that step through
/// memory in bands of several tiles, whose columns are long runs.
fn lane_tiles<M: Run, U, T: Visitor<M, U>>(
    lanes: PlaneLanes<'_, M, T>,
    plane: &Plane,
    out: usize,
    visitor: &mut T,
) {
    let tile = visitor.tile();
    let &Plane {
        rows,
        cols,
        row_step,
        col_step,
        stream,
    } = plane;
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
    match lanes {
        PlaneLanes::Slices(lanes, table) => {
            let mut lanes = lanes.peekable();
            let first = lanes.peek().map(Run::address);
            let bands = first.and_then(|a| lead(a, size, col_step).filter(|_| row_step == 1));
            for (c0, w) in cuts(cols, width, strips, size) {
                table.clear();
                table.extend(lanes.by_ref().take(w));
                for (r0, height) in cuts(rows, tile.rows, bands, size) {
                    let block = Block {
                        start: if row_step < 0 { rows - 1 - r0 } else { r0 },
                        rows: height,
                        row_step,
                        cols: w,
                        col_step,
                        out: out + r0 * stream + c0,
                        out_row: stream,
                        pitch: if height > 1 { tile.pitch } else { w },
                    };
                    visitor.lanes(table, block);
                }
            }
        }
        PlaneLanes::Stepped(stage) => {
            let band = (STEPPED_BYTES / (width * size)).max(tile.rows) / tile.rows * tile.rows;
            for (c0, w) in cuts(cols, width, strips, size) {
                for (r0, height) in cuts(rows, band, None, size) {
                    // Views are indexed in their own order; the band holds their rows.
                    let block = Block {
                        start: 0,
                        rows: height,
                        row_step: 1,
                        cols: w,
                        col_step,
                        out: out + r0 * stream + c0,
                        out_row: stream,
                        pitch: w,
                    };
                    stage(visitor, c0, w, r0..r0 + height, block);
                }
            }
        }
    }
}

/// Visit the blocks of `strided`, whose elements are `memory`, from stream position `out`.
fn planned<M: Run, U, T: Visitor<M, U>>(
    mut memory: M,
    strided: &Strided,
    out: usize,
    visitor: &mut T,
) {
    let tile = visitor.tile();
    let origin = Origin {
        memory: memory.address(),
        stream: visitor.stream().wrapping_add(out * tile.size),
    };
    plan(strided, tile, origin, &mut |mut block| {
        block.out += out;
        visitor.block(&mut memory, block)
    });
}

#[cfg(test)]
mod tests {
    use ndarray::{ArrayD, Axis, IxDyn, Slice};

    use super::{Split, coalesce};

    /// Axes that continue each other in memory as in the stream become one, the others stay
    /// as they are, and the view keeps its elements in C order.
    #[test]
    fn coalesce_merges_axes_that_continue_each_other() {
        let a = ArrayD::from_shape_fn(IxDyn(&[4, 8, 2]), |i| {
            (i[0] * 100 + i[1] * 10 + i[2]) as u32
        });
        let check = |view: ndarray::ArrayViewD<'_, u32>, shape: &[usize], strides: &[isize]| {
            let before: Vec<u32> = view.iter().copied().collect();
            let mut merged = view.clone();
            coalesce(&mut merged);
            assert_eq!(Split::shape(&merged), shape, "{:?}", view.shape());
            // The strides of the axes of more than one element (ndarray may keep any other).
            let long = |shape: &[usize], strides: &[isize]| -> Vec<isize> {
                shape
                    .iter()
                    .zip(strides)
                    .filter(|&(&n, _)| n > 1)
                    .map(|(_, &s)| s)
                    .collect()
            };
            let got = long(Split::shape(&merged), Split::strides(&merged));
            assert_eq!(got, long(shape, strides), "{:?}", view.shape());
            assert_eq!(merged.iter().copied().collect::<Vec<u32>>(), before);
        };
        // Rows of a part whose trailing axes are whole: one axis of each row's 12 elements.
        let part = a.slice_axis(Axis(1), Slice::from(2..8));
        check(part.view(), &[4, 1, 12], &[16, 2, 1]);
        // The whole array: one axis.
        check(a.view(), &[1, 1, 64], &[16, 2, 1]);
        // Reversed rows continue each other backwards.
        let mut back = a.view();
        back.invert_axis(Axis(0));
        back.invert_axis(Axis(1));
        back.invert_axis(Axis(2));
        check(back.clone(), &[1, 1, 64], &[-16, -2, -1]);
        // Axes in another order than memory's: nothing to merge.
        let swapped = a.view().permuted_axes(IxDyn(&[1, 0, 2]));
        check(swapped, &[8, 4, 2], &[2, 16, 1]);
        // Rows that step through memory continue each other all the same; an axis of one
        // element between two is passed over.
        let stepped = a.slice_axis(Axis(2), Slice::from(0..1));
        check(stepped.view(), &[1, 32, 1], &[16, 2, 1]);
        let b = a.view().into_shape_with_order(IxDyn(&[4, 1, 16])).unwrap();
        check(b, &[1, 1, 64], &[16, 16, 1]);
        // A gap: the axis before it stays.
        let mut gap = a.slice_axis(Axis(2), Slice::from(0..1));
        gap.slice_axis_inplace(Axis(1), Slice::from(0..7));
        check(gap, &[4, 7, 1], &[16, 2, 1]);
    }
}
