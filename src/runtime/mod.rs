//! Arrays whose data type is known only at run time: one variant per data type, structs of
//! fields, and strings of fixed length.

pub(crate) mod chunks;
mod driven;
mod dyn_array;
mod struct_array;
pub(crate) mod text;
mod view;

pub use driven::{DynSubsetReader, DynSubsetWriter};
pub use dyn_array::{DynArray, RawArray};
pub use struct_array::StructArray;
pub use text::FixedLength;
pub use view::{DynArrayView, DynArrayViewMut};
