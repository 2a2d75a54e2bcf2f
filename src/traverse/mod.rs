//! Logical C-order traversal of any ndarray layout, shared by encode and decode.
//!
//! The traversal cuts an array into *blocks*: rows × columns of elements whose columns are
//! consecutive in the C-order byte stream. A block whose rows are also consecutive in
//! memory is converted row by row in bulk; any other block is gathered (or scattered)
//! through a scratch buffer of at most 72 KiB when encoding and 108 KiB when decoding (see
//! [`tile`], [`scatter_tile`]), converting each element as it moves, and copied between the
//! scratch buffer and the stream in rows. Arrays whose last axis is not the one contiguous
//! in memory (Fortran order, transposed views) are walked in tiles that read memory column
//! by column, so both the memory and the stream stay in cache; while one tile is moved, the
//! cache lines a few runs ahead are requested ([`prefetch`], [`ROWS_AHEAD`]), so the short
//! runs of a tile do not wait on memory one miss at a time. A part of a bigger array (a
//! chunk) is no one memory slice, but its lanes along the axis closest in memory are: it
//! moves straight from them, in tiles whose columns are lanes ([`Visitor::lanes`]) or as
//! rows that are lanes, asked for ahead; lanes that step through memory are copied through
//! a buffer of at most 256 KiB ([`Visitor::stepped`]). Beyond the output, no traversal
//! holds more than a tile's scratch buffer, a table of a strip's lanes and that buffer.
//!
//! - [`plan`](mod@plan): which blocks, in which order ([`Strided`], [`Block`], [`Tile`],
//!   [`walk()`]).
//! - [`gather`](mod@gather): how one block moves through the scratch buffer ([`gather()`],
//!   [`scatter`]), in rectangles where a kernel transposes them.
//! - [`kernels`]: what differs by target and element size: the rectangle kernels, chosen
//!   by element size and tile height in one place, and the bulk byte swap.

mod gather;
pub(crate) mod kernels;
/// Public in the crate for the thread pool, which cuts views by the plan's own facts.
pub(crate) mod plan;
pub(crate) mod units;
mod walk;

pub(crate) use gather::{
    Columns, ColumnsMut, Lanes, ROWS_AHEAD, gather, gather_elements, prefetch, prefetch_lane,
    scatter,
};
pub(crate) use plan::{
    Block, Origin, PlanAxis, Strided, Tile, c_order, odometer, permuted, plan, reorders,
    scatter_tile, stream_ahead, tile, tiled_window, windows,
};
pub(crate) use units::{AsUnits, Moves, Words};
pub(crate) use walk::{ROW_PIECE_BYTES, RowMoves, Visitor, walk};

/// Make `buffer` hold `len` elements at least, growing it to exactly that: the buffers of
/// the traversal are bounded by what they hold, not by how they grew.
pub(crate) fn grow<A: bytemuck::Zeroable + Clone>(buffer: &mut Vec<A>, len: usize) {
    if buffer.len() < len {
        buffer.reserve_exact(len - buffer.len());
        buffer.resize(len, A::zeroed());
    }
}

/// Bytes of a cache line.
const LINE_BYTES: usize = 64;
