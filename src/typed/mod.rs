//! The typed API over `ndarray` arrays of an [`Element`](crate::Element) type: encoding,
//! decoding, views of encoded bytes, and regions of a chunk.

pub(crate) mod chunk;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod fill;
pub(crate) mod grid;
pub(crate) mod region;
mod view;

pub use chunk::{ChunkDecode, ChunkDecodeInto, ChunkEncode};
pub use decode::{BytesDecode, BytesDecodeInto};
pub use encode::BytesEncode;
pub use grid::ChunkGrid;
pub use region::{decode_region, encode_region_into, region_byte_ranges};
pub use view::{BytesView, BytesViewMut};
