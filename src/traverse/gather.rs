//! How one block moves between memory and the scratch buffer: gathered for encoding,
//! scattered for decoding, in rectangles where a kernel transposes them and element by
//! element elsewhere.

use bytemuck::{Pod, Zeroable};
use ndarray::{ArrayView1, Axis, Slice};

use super::{Block, LINE_BYTES};
use crate::arch;

/// How far ahead the traversal asks for the memory it moves next: rows of the stream, or
/// columns of a tile, each one run. Asking for the next tile as a whole kept hundreds of
/// runs of requests in flight, which were pushed out of the cache before they were used;
/// 32 and 64 rows were no faster (benches/NOTES.md, `src/traverse/gather.rs`).
pub(crate) const ROWS_AHEAD: usize = 16;

/// How many cache lines down each column a scatter asks for, into the first-level cache,
/// ahead of the rows it stores: once per line, so that the line is there when its stores
/// come. The second-level hints of [`Block::prefetch_ahead`] bring a tile near; these
/// bring the next lines of the columns being written all the way in, which decodes faster;
/// the same lines asked for one strip ahead gained nothing
/// (benches/NOTES.md, `src/traverse/gather.rs`).
const LINES_AHEAD: usize = 2;

/// Hint that the elements `start..start + len` of `slice` (those in bounds) are needed
/// soon, one hint per cache line; `write` when they are about to be overwritten.
///
/// A hint reads and writes nothing; on targets without one this does nothing. Tiles are
/// short runs spread over many pages, too short for the hardware to notice a stream, so the
/// traversal asks for the runs it moves next while it moves the current ones. The lines are
/// asked into the second-level cache, not the first, where they would push out the lines
/// being moved (benches/NOTES.md, `src/traverse/gather.rs`).
#[inline]
pub(crate) fn prefetch<T>(slice: &[T], start: usize, len: usize, write: bool) {
    let Some(run) = slice.get(start..) else {
        return;
    };
    let run = &run[..len.min(run.len())];
    // The first element of each line-long stretch, and the last element: a run that does
    // not start on a line boundary reaches one line further.
    for line in run.chunks(per_line::<T>()) {
        arch::hint(&line[0], write);
    }
    if let Some(last) = run.last() {
        arch::hint(last, write);
    }
}

/// Hint the first element of each line-long stretch of `run`, and its last element, as
/// [`prefetch`] does, with an index stepped by hand: fewer instructions for the columns of
/// a strip, more for the rows of the stream, where [`prefetch`] keeps `chunks`
/// (benches/NOTES.md, `src/traverse/gather.rs`).
#[inline(always)]
fn hint_lines<T>(run: &[T], write: bool) {
    let mut at = 0;
    while at < run.len() {
        arch::hint(&run[at], write);
        at += per_line::<T>();
    }
    if let Some(last) = run.last() {
        arch::hint(last, write);
    }
}

/// [`prefetch`] for a lane of a view: its run, or when its elements step through memory
/// (a view stepped along the axis closest in memory), one element per cache line (every
/// element, for steps of a line or more). Such lanes are as scattered as runs of a part
/// are, and a part stepped along its first axis encodes faster with the hints
/// (benches/NOTES.md, `src/traverse/gather.rs`).
pub(crate) fn prefetch_lane<T>(lane: ArrayView1<'_, T>, write: bool) {
    match lane.to_slice() {
        Some(run) => prefetch(run, 0, run.len(), write),
        None => {
            let apart = lane.strides()[0].unsigned_abs().max(1);
            let step = (per_line::<T>() / apart).max(1);
            let lines = lane.slice_axis(Axis(0), Slice::new(0, None, step as isize));
            lines.iter().for_each(|x| arch::hint(x, write));
        }
    }
}

/// Elements of `T` in a cache line: at least one (wide elements), and a line's bytes for
/// zero-sized ones.
const fn per_line<T>() -> usize {
    match std::mem::size_of::<T>() {
        0 => LINE_BYTES,
        size if size >= LINE_BYTES => 1,
        size => LINE_BYTES / size,
    }
}

/// Ask for the cache line of element `at` of `run`, if there is one, into the first-level
/// cache; on targets without a hint this does nothing.
#[inline(always)]
fn request_line<T>(run: &[T], at: usize) {
    if let Some(x) = run.get(at) {
        arch::request(x);
    }
}

impl Block {
    /// Columns `c0..c0 + K`, rows `..rows` (which run along memory and do not overlap):
    /// the span of memory they lie in, and the distance between their starts.
    fn strip<const K: usize>(&self, c0: usize, rows: usize) -> (std::ops::Range<usize>, usize) {
        let lowest = self.at(0, if self.col_step < 0 { c0 + K - 1 } else { c0 });
        let step = self.col_step.unsigned_abs();
        (lowest..lowest + step * (K - 1) + rows, step)
    }

    /// Rows `from..` of column `c`, whose element (0, c) is at `first` of its slice
    /// ([`Columns::column`]): the lane of their elements there and the scratch index of the
    /// first, or `None` when there are none. Always inlined: left out of line, it slowed
    /// complex128 Fortran encoding (benches/NOTES.md, `src/traverse/gather.rs`).
    #[inline(always)]
    fn column_from(&self, first: isize, c: usize, from: usize) -> Option<(Lane, usize)> {
        (from < self.rows).then(|| {
            let at = (first + from as isize * self.row_step) as usize;
            let lane = Lane::new(at, self.row_step, self.rows - from);
            (lane, from * self.pitch + c)
        })
    }

    /// The columns the rectangles leave (`covered`: the rows and columns they cover, from
    /// [`rectangles`]), each with the first row they leave in it: the rows below the
    /// rectangles in their columns, then whole columns right of them. Columns the
    /// rectangles hold entirely are not visited at all: the tiles of a stack of 4
    /// interleaved planes are all rectangles, and testing their 256 columns one by one
    /// took half of the time of moving them.
    fn rest(
        &self,
        (rows_k, cols_k): (usize, usize),
    ) -> impl Iterator<Item = (usize, usize)> + use<> {
        let below = if rows_k < self.rows { 0..cols_k } else { 0..0 };
        below
            .map(move |c| (c, rows_k))
            .chain((cols_k..self.cols).map(|c| (c, 0)))
    }

    /// The memory of the rectangles of R rows that cover `cols` columns, when they follow
    /// each other in one run (rows of R elements from one column to the next, as in a
    /// stack of R planes stored interleaved), lowest address first.
    fn packed<const R: usize>(&self, cols: usize) -> Option<std::ops::Range<usize>> {
        (cols > 0 && self.rows == R && self.col_step == R as isize)
            .then(|| self.start..self.start + R * cols)
    }

    /// For a row of elements R apart in memory of `len` elements: the memory of the whole
    /// rectangles of R rows × K columns whose first rows hold its elements (the memory
    /// between them their other rows), which the kernels move as they move any other; empty
    /// for other blocks.
    fn spread<const R: usize, const K: usize>(&self, len: usize) -> std::ops::Range<usize> {
        let n = if R > 1 && self.rows == 1 && self.col_step == R as isize {
            (self.cols / K).min(len.saturating_sub(self.start) / (R * K))
        } else {
            0
        };
        self.start..self.start + n * R * K
    }

    /// Whether a block with no rectangles (`rows_k`: the rows they cover) moves element by
    /// element row by row, one lane of `cols` elements per row, rather than down each
    /// column: when its rows are fewer than the 4 of the shortest rectangle and its columns
    /// outnumber them, as in a stack of 2 or 3 planes stored interleaved, whose columns of
    /// 2 or 3 elements would each be a lane of their own, far slower for every element size
    /// (benches/NOTES.md, `src/traverse/gather.rs`).
    fn by_rows(&self, rows_k: usize) -> bool {
        rows_k == 0 && self.rows < 4 && self.cols > self.rows
    }

    /// Ask for column `c` + [`ROWS_AHEAD`] of this tile, or past its last column, the
    /// column of the tile below, which the plan visits next (`write` for a scatter), when
    /// the columns run along memory apart from each other; columns that follow each other
    /// in memory are one run, which the hardware streams by itself. A short distance keeps
    /// few requests in flight, which then arrive before they are pushed out: the whole
    /// next tile at once kept 256 columns of requests waiting, and was slower
    /// (benches/NOTES.md, `src/traverse/gather.rs`). Always inlined: called per column, and
    /// left out of line once the kernels moved into their own module.
    #[inline(always)]
    fn prefetch_ahead<A, M: Columns<A> + ?Sized>(&self, memory: &M, c: usize, write: bool) {
        if !self.asks_ahead() {
            return;
        }
        let c = c + ROWS_AHEAD;
        let (c, below) = if c < self.cols {
            (c, 0)
        } else {
            (c - self.cols, self.rows as isize)
        };
        if let Some((column, first)) = memory.column(self, c) {
            if let Ok(first) = usize::try_from(first + below) {
                prefetch(column, first, self.rows, write);
            }
        }
    }

    /// Whether the columns are asked for ahead: when they run along memory apart from
    /// each other; columns that follow each other in memory are one run, which the
    /// hardware streams by itself.
    #[inline(always)]
    fn asks_ahead(&self) -> bool {
        self.row_step == 1 && self.col_step.unsigned_abs() != self.rows
    }

    /// [`Block::prefetch_ahead`] for the K columns from `c0`: where the block is one memory
    /// slice and the columns asked for are in this tile, their runs lie `col_step` apart
    /// in one span, checked once, and each line is hinted with no more index arithmetic;
    /// the index arithmetic of the column-by-column calls took about as many instructions
    /// as their hints (benches/NOTES.md, `src/traverse/gather.rs`).
    #[inline(always)]
    fn prefetch_strip<const K: usize, A, M: Columns<A> + ?Sized>(
        &self,
        memory: &M,
        c0: usize,
        write: bool,
    ) {
        if !self.asks_ahead() {
            return;
        }
        let ahead = c0 + ROWS_AHEAD;
        let (Some(whole), true) = (memory.whole(), ahead + K <= self.cols) else {
            return (c0..c0 + K).for_each(|c| self.prefetch_ahead(memory, c, write));
        };
        let (span, step) = self.strip::<K>(ahead, self.rows);
        let Some(strip) = whole.get(span) else {
            return;
        };
        for column in strip.chunks(step) {
            hint_lines(&column[..self.rows.min(column.len())], write);
        }
    }
}

/// The memory of a block's elements: one memory slice, where the block's index arithmetic
/// places them, or one slice per column ([`Lanes`]).
pub trait Columns<A> {
    /// The slice that holds column `c` of `block` and the index in it of element (0, c),
    /// which is negative only past the block's edge; `None` past the last lane.
    fn column(&self, block: &Block, c: usize) -> Option<(&[A], isize)>;
    /// The one memory slice that holds every element of the block, if there is one.
    fn whole(&self) -> Option<&[A]>;
    /// Columns `c0..c0 + K`, rows `..rows` (which run along memory), in column order.
    fn strip<const K: usize>(&self, block: &Block, c0: usize, rows: usize) -> [&[A]; K];
}

/// [`Columns`] to write into.
pub trait ColumnsMut<A>: Columns<A> {
    /// [`Columns::column`], to write into.
    fn column_mut(&mut self, block: &Block, c: usize) -> Option<(&mut [A], isize)>;
    /// [`Columns::whole`], to write into.
    fn whole_mut(&mut self) -> Option<&mut [A]>;
    /// [`Columns::strip`], to write into.
    fn strip_mut<const K: usize>(&mut self, block: &Block, c0: usize, rows: usize)
    -> [&mut [A]; K];
}

impl<A> Columns<A> for [A] {
    #[inline(always)]
    fn column(&self, block: &Block, c: usize) -> Option<(&[A], isize)> {
        Some((self, block.offset(0, c)))
    }
    #[inline(always)]
    fn whole(&self) -> Option<&[A]> {
        Some(self)
    }
    #[inline(always)]
    fn strip<const K: usize>(&self, block: &Block, c0: usize, rows: usize) -> [&[A]; K] {
        let (span, step) = block.strip::<K>(c0, rows);
        let columns = self[span].chunks(step).map(|c| &c[..rows]);
        strip_columns(columns, block.col_step < 0)
    }
}

impl<A> ColumnsMut<A> for [A] {
    #[inline(always)]
    fn column_mut(&mut self, block: &Block, c: usize) -> Option<(&mut [A], isize)> {
        Some((self, block.offset(0, c)))
    }
    #[inline(always)]
    fn whole_mut(&mut self) -> Option<&mut [A]> {
        Some(self)
    }
    #[inline(always)]
    fn strip_mut<const K: usize>(
        &mut self,
        block: &Block,
        c0: usize,
        rows: usize,
    ) -> [&mut [A]; K] {
        let (span, step) = block.strip::<K>(c0, rows);
        let columns = self[span].chunks_mut(step).map(|c| &mut c[..rows]);
        strip_columns(columns, block.col_step < 0)
    }
}

/// A slice per column of a block (`&[A]` or `&mut [A]`), in column order: the lanes along
/// the axis closest in memory of a part of a bigger array, which is no one memory slice
/// but whose lanes are. Element (r, c) is at `start + r * row_step` of column c's slice.
pub(crate) struct Lanes<'l, S>(pub &'l mut [S]);

impl<A, S: AsRef<[A]>> Columns<A> for Lanes<'_, S> {
    #[inline(always)]
    fn column(&self, block: &Block, c: usize) -> Option<(&[A], isize)> {
        let lane = self.0.get(c)?;
        Some((lane.as_ref(), block.start as isize))
    }
    #[inline(always)]
    fn whole(&self) -> Option<&[A]> {
        None
    }
    #[inline(always)]
    fn strip<const K: usize>(&self, block: &Block, c0: usize, rows: usize) -> [&[A]; K] {
        let start = block.start;
        let lanes = self.0[c0..c0 + K].iter();
        strip_columns(lanes.map(|l| &l.as_ref()[start..start + rows]), false)
    }
}

impl<A, S: AsRef<[A]> + AsMut<[A]>> ColumnsMut<A> for Lanes<'_, S> {
    #[inline(always)]
    fn column_mut(&mut self, block: &Block, c: usize) -> Option<(&mut [A], isize)> {
        let lane = self.0.get_mut(c)?;
        Some((lane.as_mut(), block.start as isize))
    }
    #[inline(always)]
    fn whole_mut(&mut self) -> Option<&mut [A]> {
        None
    }
    #[inline(always)]
    fn strip_mut<const K: usize>(
        &mut self,
        block: &Block,
        c0: usize,
        rows: usize,
    ) -> [&mut [A]; K] {
        let start = block.start;
        let lanes = self.0[c0..c0 + K].iter_mut();
        strip_columns(lanes.map(|l| &mut l.as_mut()[start..start + rows]), false)
    }
}

/// Rows and columns of `block` covered by whole rectangles of R rows × K columns: none
/// unless its rows run along memory, its columns do not overlap and it holds one rectangle
/// at least, and none for R × K = 1, which moves every element on its own.
fn rectangles<const R: usize, const K: usize>(block: &Block) -> (usize, usize) {
    if R * K > 1
        && block.row_step == 1
        && block.rows >= R
        && block.cols >= K
        && block.col_step.unsigned_abs() >= block.rows
    {
        (block.rows / R * R, block.cols / K * K)
    } else {
        (0, 0)
    }
}

/// The K columns of a strip (from [`Block::strip`]'s chunks in memory order, or from
/// lanes), in column order: shared slices for a gather, exclusive ones for a scatter.
#[inline(always)]
fn strip_columns<S, const K: usize>(mut chunks: impl Iterator<Item = S>, reversed: bool) -> [S; K] {
    let mut columns = std::array::from_fn(|_| {
        chunks
            .next()
            .unwrap_or_else(|| unreachable!("a strip has K columns"))
    });
    if reversed {
        columns.reverse();
    }
    columns
}

/// A rectangle of K runs of R elements, each through `finish`, in one loop over all of
/// them: how [`scatter`] finishes rectangles stored as one run, and those of fewer than 8
/// runs, whose runs finished one by one were shuffled across runs.
#[inline(always)]
fn finished<P: Copy, A: Copy + Zeroable, const R: usize, const K: usize>(
    values: [[P; R]; K],
    finish: impl Fn(P) -> A,
) -> [[A; R]; K] {
    let mut out = [[A::zeroed(); R]; K];
    for (o, &x) in out.as_flattened_mut().iter_mut().zip(values.as_flattened()) {
        *o = finish(x);
    }
    out
}

/// The K columns of a strip, each cut into its first `bands` runs of R elements: every
/// column then has the same known length, so the rectangles of the strip read their runs
/// with no bounds check each, which took many of the instructions of a rectangle
/// (benches/NOTES.md, `src/traverse/gather.rs`).
#[inline(always)]
fn runs_of<A: Pod, const R: usize, const K: usize>(
    columns: [&[A]; K],
    bands: usize,
) -> [&[[A; R]]; K] {
    let mut runs: [&[[A; R]]; K] = [&[]; K];
    for (runs, column) in runs.iter_mut().zip(columns) {
        let whole = bytemuck::cast_slice::<A, [A; R]>(&column[..bands * R]);
        *runs = &whole[..bands];
    }
    runs
}

/// The K runs of R elements of one rectangle, copied out of memory. Loops of slice copies
/// rather than `from_fn`, whose closures can stay out of line and copy element by element,
/// much slower (benches/NOTES.md, `src/traverse/gather.rs`).
#[inline(always)]
fn gathered_runs<'m, A: Copy + 'm, const R: usize, const K: usize>(
    mut runs: impl Iterator<Item = &'m [A]>,
) -> [[A; R]; K] {
    let first = runs
        .next()
        .unwrap_or_else(|| unreachable!("a rectangle has K runs"));
    let mut runs_in = [[first[0]; R]; K];
    runs_in[0].copy_from_slice(first);
    for (run_in, run) in runs_in[1..].iter_mut().zip(runs) {
        run_in.copy_from_slice(run);
    }
    runs_in
}

/// Elements from one row of the scratch buffer to the next in `block`, of more than one
/// row: the pitch of the tile of `A`, which is a constant of the element size. As a
/// constant, and with [`rows_of`] and [`put_rows`] checking their columns against it once
/// ([`columns_in_row`]), it lets the compiler prove the R row moves of a rectangle in
/// bounds; with the block's field, it checked each of them twice, against bounds kept on
/// the stack, which cost work per byte and slowed encoding; decoding, bound by memory, did
/// not change (benches/NOTES.md, `src/traverse/gather.rs`).
#[inline(always)]
fn tile_pitch<A>(block: &Block) -> usize {
    let pitch = super::tile::<A>().pitch;
    assert_eq!(
        block.pitch, pitch,
        "blocks of several rows have their tile's pitch"
    );
    pitch
}

/// Check once that columns `c0..c0 + K` lie in a row of `pitch` elements: after it, the
/// compiler knows every row move of a rectangle in bounds ([`tile_pitch`]).
#[inline(always)]
fn columns_in_row<const K: usize>(pitch: usize, c0: usize) {
    assert!(
        K <= pitch && c0 <= pitch - K,
        "a rectangle's columns lie in a row"
    );
}

/// Columns `c0..c0 + K` of the R rows of a band of the scratch buffer, `pitch` apart.
#[inline(always)]
fn rows_of<P: Copy, const R: usize, const K: usize>(
    band: &[P],
    pitch: usize,
    c0: usize,
) -> [[P; K]; R] {
    columns_in_row::<K>(pitch, c0);
    let mut rows = [[band[0]; K]; R];
    for (i, row) in rows.iter_mut().enumerate() {
        row.copy_from_slice(&band[i * pitch + c0..][..K]);
    }
    rows
}

/// Store R rows of K elements into columns `c0..c0 + K` of a band of the scratch buffer.
#[inline(always)]
fn put_rows<A: Copy, const R: usize, const K: usize>(
    band: &mut [A],
    pitch: usize,
    c0: usize,
    rows: &[[A; K]; R],
) {
    columns_in_row::<K>(pitch, c0);
    for (i, row) in rows.iter().enumerate() {
        band[i * pitch + c0..][..K].copy_from_slice(row);
    }
}

/// Copy the elements of `block` from `memory` into `scratch` in stream order, each through
/// `convert`; whole rectangles of R rows × K columns go through `kernel`, which takes their
/// K column runs and gives their R rows, converted. A block of one row whose elements lie
/// R apart goes through `kernel` too, as the first rows of rectangles ([`Block::spread`]).
pub(crate) fn gather<A: Pod, M: Columns<A> + ?Sized, const R: usize, const K: usize>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    convert: impl Fn(A) -> A,
    kernel: impl Fn([[A; R]; K]) -> [[A; K]; R],
) {
    if block.rows == 1 {
        return gather_row(memory, block, scratch, convert, kernel);
    }
    // Rectangles read as K runs down memory and written as R runs along stream rows: a
    // strip of K columns at a time, down bands of R rows.
    let pitch = tile_pitch::<A>(block);
    let (rows_k, cols_k) = rectangles::<R, K>(block);
    if let (Some(span), Some(memory)) = (block.packed::<R>(cols_k), memory.whole()) {
        // One run of R × K elements per rectangle, one after the other.
        for (c0, rectangle) in (0..).step_by(K).zip(memory[span].chunks_exact(R * K)) {
            let rows = kernel(gathered_runs(rectangle.chunks_exact(R)));
            put_rows(scratch, pitch, c0, &rows);
        }
    } else {
        let bands = rows_k / R;
        for c0 in (0..cols_k).step_by(K) {
            block.prefetch_strip::<K, A, M>(memory, c0, false);
            let runs = runs_of::<A, R, K>(memory.strip(block, c0, rows_k), bands);
            for (b, band) in scratch.chunks_exact_mut(R * pitch).take(bands).enumerate() {
                let mut rectangle = [runs[0][b]; K];
                // A loop, not `from_fn`, whose closure can stay out of line.
                for (run, column) in rectangle.iter_mut().zip(&runs) {
                    *run = column[b];
                }
                put_rows(band, pitch, c0, &kernel(rectangle));
            }
        }
    }
    gather_rest(memory, block, scratch, convert, (rows_k, cols_k));
}

/// [`gather()`] element by element, for elements of any type.
pub(crate) fn gather_elements<A: Copy, M: Columns<A> + ?Sized>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    convert: impl Fn(A) -> A,
) {
    if block.rows == 1 {
        gather_row::<A, M, 1, 1>(memory, block, scratch, convert, |s| s);
    } else {
        gather_rest(memory, block, scratch, convert, (0, 0));
    }
}

/// [`gather()`] of a block of one row.
#[inline(always)]
fn gather_row<A: Copy, M: Columns<A> + ?Sized, const R: usize, const K: usize>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    convert: impl Fn(A) -> A,
    kernel: impl Fn([[A; R]; K]) -> [[A; K]; R],
) {
    let cols = block.cols;
    let Some(memory) = memory.whole() else {
        // A row across lanes: one element of each.
        for (c, s) in scratch[..cols].iter_mut().enumerate() {
            if let Some((lane, at)) = memory.column(block, c) {
                *s = convert(lane[at as usize]);
            }
        }
        return;
    };
    // The first row of each rectangle, then the elements they leave one by one.
    let rectangles = memory[block.spread::<R, K>(memory.len())].chunks_exact(R * K);
    let done = rectangles.len() * K;
    for (row, rectangle) in scratch.chunks_exact_mut(K).zip(rectangles) {
        row.copy_from_slice(&kernel(gathered_runs(rectangle.chunks_exact(R)))[0]);
    }
    if done < cols {
        let lane = Lane::new(block.at(0, done), block.col_step, cols - done);
        lane.gather_into(memory, scratch[done..cols].iter_mut(), &convert);
    }
}

/// The elements of a block of several rows that the rectangles leave (`covered`: the
/// rows and columns they cover), gathered one by one: row by row where
/// [`Block::by_rows`], else the rows below the rectangles, then the columns right of them.
#[inline(always)]
fn gather_rest<A: Copy, M: Columns<A> + ?Sized>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    convert: impl Fn(A) -> A,
    covered: (usize, usize),
) {
    let (cols, pitch) = (block.cols, tile_pitch::<A>(block));
    if let (true, Some(memory)) = (block.by_rows(covered.0), memory.whole()) {
        for (r, row) in scratch.chunks_exact_mut(pitch).enumerate() {
            let lane = Lane::new(block.at(r, 0), block.col_step, cols);
            lane.gather_into(memory, row[..cols].iter_mut(), &convert);
        }
        return;
    }
    for (c, from) in block.rest(covered) {
        if c >= covered.1 {
            block.prefetch_ahead(memory, c, false);
        }
        let Some((column, first)) = memory.column(block, c) else {
            continue;
        };
        if let Some((lane, slot)) = block.column_from(first, c, from) {
            let slots = scratch[slot..].iter_mut().step_by(pitch);
            lane.pair(column, slots, |s, m| *s = convert(*m));
        }
    }
}

/// Copy `scratch`, in stream order, into the elements of `block` in `memory`, each through
/// `convert`; whole rectangles of R rows × K columns go through `kernel`, which takes their
/// R rows and gives their K column runs, each through `finish`. `kernel` may keep state
/// across the rectangles (the OR of their bytes, for a check).
pub(crate) fn scatter<
    P: Copy,
    A: Copy + Zeroable,
    M: ColumnsMut<A> + ?Sized,
    const R: usize,
    const K: usize,
>(
    scratch: &[P],
    block: &Block,
    memory: &mut M,
    convert: impl Fn(P) -> A,
    finish: impl Fn(P) -> A,
    mut kernel: impl FnMut([[P; K]; R]) -> [[P; R]; K],
) {
    let cols = block.cols;
    if block.rows == 1 {
        let Some(memory) = memory.whole_mut() else {
            // A row across lanes: one element into each.
            for (c, s) in scratch[..cols].iter().enumerate() {
                if let Some((lane, at)) = memory.column_mut(block, c) {
                    lane[at as usize] = convert(*s);
                }
            }
            return;
        };
        let lane = Lane::new(block.start, block.col_step, cols);
        return lane.scatter_from(memory, scratch[..cols].iter(), &convert);
    }
    let pitch = tile_pitch::<P>(block);
    let (rows_k, cols_k) = rectangles::<R, K>(block);
    let mut rectangle = |band: &[P], c0: usize| kernel(rows_of(band, pitch, c0));
    let per_line = per_line::<A>();
    if let (Some(span), Some(memory)) = (block.packed::<R>(cols_k), memory.whole_mut()) {
        // One run of R × K elements per rectangle, one after the other.
        for (c0, run) in (0..).step_by(K).zip(memory[span].chunks_exact_mut(R * K)) {
            run.copy_from_slice(finished(rectangle(scratch, c0), &finish).as_flattened());
        }
    } else {
        for c0 in (0..cols_k).step_by(K) {
            block.prefetch_strip::<K, A, M>(&*memory, c0, true);
            let mut runs: [&mut [A]; K] = memory.strip_mut(block, c0, rows_k);
            for (b, band) in scratch.chunks_exact(R * pitch).enumerate().take(rows_k / R) {
                let rows = b * R..b * R + R;
                let ahead =
                    (rows.start % per_line == 0).then_some(rows.start + LINES_AHEAD * per_line);
                let ask = |run: &mut [A]| {
                    if let Some(ahead) = ahead {
                        request_line(run, ahead);
                    }
                };
                let out = rectangle(band, c0);
                // Rectangles of 8 runs or more: each run finished element by element as it
                // is stored, straight from the registers (`bool` rectangles finished as a
                // whole went through the stack); narrower ones finished as a whole, as
                // their runs finished one by one were shuffled across runs, with more than
                // twice the instructions. By reference: runs moved out by value were
                // stored a byte and then 15 at a time
                // (benches/NOTES.md, `src/traverse/gather.rs`).
                if K >= 8 {
                    for (run, values) in runs.iter_mut().zip(&out) {
                        ask(run);
                        for (m, &x) in run[rows.clone()].iter_mut().zip(values) {
                            *m = finish(x);
                        }
                    }
                } else {
                    for (run, values) in runs.iter_mut().zip(&finished(out, &finish)) {
                        ask(run);
                        run[rows.clone()].copy_from_slice(values);
                    }
                }
            }
        }
    }
    if block.by_rows(rows_k) {
        if let Some(memory) = memory.whole_mut() {
            for (r, row) in scratch.chunks_exact(pitch).enumerate() {
                let lane = Lane::new(block.at(r, 0), block.col_step, cols);
                lane.scatter_from(memory, row[..cols].iter(), &convert);
            }
            return;
        }
    }
    for (c, from) in block.rest((rows_k, cols_k)) {
        if c >= cols_k {
            block.prefetch_ahead(&*memory, c, true);
        }
        let Some((column, first)) = memory.column_mut(block, c) else {
            continue;
        };
        if let Some((lane, slot)) = block.column_from(first, c, from) {
            let slots = scratch[slot..].iter().step_by(pitch);
            lane.scatter_from(column, slots, &convert);
        }
    }
}

/// Elements `first + i * step` (i < len) of a memory slice, walked in ascending memory
/// order so that slice iterators need no index checks.
struct Lane {
    low: usize,
    step: usize,
    len: usize,
    reversed: bool,
}

impl Lane {
    fn new(first: usize, step: isize, len: usize) -> Lane {
        let span = step.unsigned_abs() * len.saturating_sub(1);
        let reversed = step < 0;
        Lane {
            low: if reversed { first - span } else { first },
            step: step.unsigned_abs(),
            len,
            reversed,
        }
    }

    /// Set each element of the lane to `convert` of its slot of `slots`, in lane order. One
    /// instance per conversion and kind of slots, whatever the rectangles of the caller:
    /// the loops are the same for every tile shape of a unit.
    fn scatter_from<'s, A, P: Copy + 's>(
        &self,
        memory: &mut [A],
        slots: impl DoubleEndedIterator<Item = &'s P>,
        convert: &impl Fn(P) -> A,
    ) {
        if self.step == 0 {
            // Several writes to one element: the last one wins, as in C order.
            if let Some(&s) = slots.last() {
                memory[self.low] = convert(s);
            }
            return;
        }
        let span = &mut memory[self.low..self.low + self.step * (self.len - 1) + 1];
        let elements = span.iter_mut().step_by(self.step);
        if self.reversed {
            slots
                .rev()
                .zip(elements)
                .for_each(|(&s, m)| *m = convert(s));
        } else {
            slots.zip(elements).for_each(|(&s, m)| *m = convert(s));
        }
    }

    /// Set each of `slots`, in lane order, to `convert` of its element, as
    /// [`Lane::scatter_from`]. The columns `gather_rest` visits keep a closure per caller:
    /// shared, 1-byte encoding took more instructions (benches/NOTES.md,
    /// `src/traverse/gather.rs`).
    fn gather_into<'s, A: Copy + 's>(
        &self,
        memory: &[A],
        slots: impl DoubleEndedIterator<Item = &'s mut A>,
        convert: &impl Fn(A) -> A,
    ) {
        self.pair(memory, slots, |s, m| *s = convert(*m));
    }

    /// Apply `f` to each (other, memory element) pair, in lane order.
    fn pair<'m, A: 'm, T>(
        &self,
        memory: &'m [A],
        other: impl DoubleEndedIterator<Item = T>,
        f: impl FnMut(T, &'m A),
    ) {
        let mut f = f;
        if self.step == 0 {
            // Every element is the same one (a broadcast axis).
            return other.take(self.len).for_each(|t| f(t, &memory[self.low]));
        }
        let span = &memory[self.low..self.low + self.step * (self.len - 1) + 1];
        let elements = span.iter().step_by(self.step);
        if self.reversed {
            other.rev().zip(elements).for_each(|(t, m)| f(t, m));
        } else {
            other.zip(elements).for_each(|(t, m)| f(t, m));
        }
    }
}
