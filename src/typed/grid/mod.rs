//! Chunk grids, and the engine behind the chunk calls of the crate: a subset of a grid's
//! array, the walk over the chunks it touches, one chunk's part between its bytes and the
//! array, whether a part holds only the fill value, and where encoded chunks go.
//!
//! - `chunk_grid`: [`ChunkGrid`], the grid's geometry.
//! - `subset`: a checked box of the array, the chunks it touches and each one's part.
//! - `walk`: those chunks, each handed its part of the array, on the pool or in C order.
//! - `part`: one chunk's part to and from the chunk's bytes.
//! - `fill`: the fill value's bytes, and whether a part holds only it.
//! - `sink`: where encoded chunks go: owned, or lent with fill-only chunks left out.
//! - `engine`: the work on one chunk's part, and decoding a subset from its chunks and
//!   encoding into one, where every blocking chunk call ends.
//! - `parts`: [`ChunkPart`], the plan of a subset as the caller who fetches sees it.
//! - `concurrent` (feature `async`): many requests in flight through a reader or writer.
//! - `reader`, `writer`: [`SubsetReader`] and [`SubsetWriter`], driven by the caller.

mod chunk_grid;
#[cfg(feature = "async")]
pub(crate) mod concurrent;
pub(crate) mod engine;
pub(crate) mod fill;
pub(crate) mod part;
pub(crate) mod parts;
pub(crate) mod reader;
pub(crate) mod sink;
pub(crate) mod subset;
mod walk;
pub(crate) mod writer;

pub use chunk_grid::ChunkGrid;
pub use parts::ChunkPart;
pub use reader::SubsetReader;
pub use writer::SubsetWriter;
