//! Every extension trait of the crate, [`Element`] (for `f32::DATA_TYPE`), [`Endian`] and
//! [`ChunkGrid`], in one import.
//!
//! The traits' methods are called on ndarray's own types, so each trait must be in scope
//! where its methods are called: `use zarr_bytes::prelude::*;` brings them all.
//!
//! # Examples
//!
//! ```
//! use ndarray::{array, s, Array2};
//! use zarr_bytes::prelude::*;
//!
//! let a = array![[1u16, 2, 3], [4, 5, 6]];
//! let bytes = a.to_zarr_bytes(Endian::Little);
//! assert_eq!(bytes, [1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0]);
//! assert_eq!(Array2::<u16>::from_zarr_bytes(&bytes, (2, 3), Endian::Little)?, a);
//!
//! // In chunks of 2 × 2, chunk [0, 1] holds column 2, padded with the fill value 0.
//! let grid = ChunkGrid::new(a.shape(), &[2, 2])?;
//! assert_eq!(grid.region(&[0, 1])?, [0..2, 2..3]);
//! let chunk = a.slice(s![.., 2..]).encode_zarr_chunk(grid.chunk_shape(), 0, Endian::Big)?;
//! assert_eq!(chunk, [0, 3, 0, 0, 0, 6, 0, 0]);
//! # Ok::<(), zarr_bytes::Error>(())
//! ```

pub use crate::{
    BytesDecode, BytesDecodeInto, BytesEncode, BytesView, BytesViewMut, ChunkDecode,
    ChunkDecodeInto, ChunkEncode, ChunkGrid, Element, Endian,
};
