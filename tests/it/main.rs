//! The integration tests, in one binary so that the generic traversal compiles once: a
//! module per area, the shared helpers in `common`, and the hostile inputs the fuzz
//! targets share in `hostile`.

mod common;
mod hostile;

mod architecture;
mod codec;
mod data_types;
mod driven;
mod driven_properties;
mod elements;
mod errors;
mod extension_values;
mod extensions;
mod fixtures;
mod fuzz_regressions;
mod grid;
mod grid_dyn;
mod layouts;
mod memory;
mod minifloat;
mod no_panic;
mod parallel;
mod properties;
mod sparse;
mod subsets;
mod views_regions;
mod zarrs;
