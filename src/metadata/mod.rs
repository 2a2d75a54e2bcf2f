//! What `zarr.json` says: the data types (from the one table that defines those of fixed
//! name), the `bytes` codec object, and the forms of fill values.

#[macro_use]
mod data_type;
pub(crate) mod codec;
pub(crate) mod fill;

pub use codec::BytesCodec;
pub use data_type::{DataType, ScaleFactor, StructField, StructType, TimeUnit};
