//! Inputs kept from the fuzz targets in `fuzz/`: every file under
//! `tests/data/fuzz/<target>/` runs through the same check as that target, so an input the
//! fuzzer found (or one worth keeping from its corpus) is tested on every `cargo test`.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The check a fuzz target runs on one input.
type Check = fn(&[u8]) -> bool;

/// The fuzz targets and the check each one runs.
const TARGETS: [(&str, Check); 4] = [
    ("decode_dyn", crate::hostile::decode_dyn),
    ("fill", crate::hostile::fill),
    ("metadata", crate::hostile::metadata),
    ("region", crate::hostile::region),
];

/// The files in `dir`, sorted; none if it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("read directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn fuzz_inputs_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let mut ran = 0;
    let mut failed = Vec::new();
    for (target, check) in TARGETS {
        for path in inputs(&root.join(target)) {
            let data = fs::read(&path).expect("read fuzz input");
            ran += 1;
            if panic::catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
                failed.push(path.display().to_string());
            }
        }
    }
    assert!(ran > 0, "no inputs under {}", root.display());
    assert!(
        failed.is_empty(),
        "{} of {ran} fuzz inputs failed: {failed:#?}",
        failed.len()
    );
}
