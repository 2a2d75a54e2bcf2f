//! The typed API over `ndarray` arrays of an [`Element`](crate::Element) type: encoding,
//! decoding, views of encoded bytes, regions of a chunk, and the chunks of a grid (the
//! traits in `chunk`, the engine that serves them in `grid`).

pub(crate) mod chunk;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod grid;
pub(crate) mod region;
mod view;

pub use chunk::{ChunkDecode, ChunkDecodeInto, ChunkEncode};
pub use decode::{BytesDecode, BytesDecodeInto};
pub use encode::BytesEncode;
pub use grid::{ChunkGrid, ChunkPart, SubsetReader, SubsetWriter};
pub use region::{decode_region, encode_region_into, region_byte_ranges};
pub use view::{BytesView, BytesViewMut};
