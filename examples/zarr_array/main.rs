//! Read a Zarr v3 array directory, print a summary, and optionally write a copy in another
//! byte order with the same codec chain.
//!
//! ```sh
//! cargo run --example zarr_array                       # the bundled arrays
//! cargo run --example zarr_array -- path/to/array.zarr
//! cargo run --example zarr_array -- path/to/array.zarr --write copy.zarr --endian big
//! ```
//!
//! Supported:
//!
//! - every data type the crate knows (the spec's, and the extension types zarr-python and
//!   tensorstore write: minifloats, sub-byte integers, datetimes, strings, bytes, structs);
//! - a regular chunk grid, the `default` or `v2` chunk key encoding with either separator;
//!   edge chunks are stored at full chunk size and cut to the array, and a missing chunk
//!   reads as the fill value;
//! - the codec chains zarr-python and tensorstore write: any number of `transpose` codecs,
//!   then `bytes` or `sharding_indexed`, then any of `zstd`, `gzip` and `crc32c`
//!   (zarr-python's default chain is `[bytes, zstd]`);
//! - `sharding_indexed` with its index at the end or the start, inner chains of the same
//!   kinds (sharding too), the index checked by its own codecs (normally `crc32c`); an
//!   empty inner chunk or a missing shard reads as the fill value.
//!
//! A codec it does not know is an error naming it; a corrupt chunk or shard is an error
//! naming its file. `--write` keeps the source's codec entries and configurations (zstd
//! level and checksum, gzip level, transpose order, sharding layout), with the `bytes`
//! codec's byte order set to `--endian` where one applies; chunks and inner chunks that
//! hold only the fill value are not written.
//!
//! Chunks move between modules as little-endian records of the element's bytes (see
//! `values.rs`, the only module that calls `zarr_bytes`), so cutting and pasting them does
//! not depend on the data type.

mod array;
mod chain;
mod grid;
mod metadata;
mod sharding;
mod store;
mod values;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use array::Assembled;
use metadata::Metadata;
use store::Store;
use values::Endian;

/// Print a line; a closed pipe (`| head`) ends the output quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        let _ = writeln!(std::io::stdout(), $($arg)*);
    };
}

const USAGE: &str = "usage: zarr_array [ARRAY_DIR] [--write OUT_DIR [--endian little|big]]";

/// The arrays in `examples/data`, read when no array is named.
const BUNDLED: [&str; 4] = [
    "temperature.zarr",
    "counts_dot.zarr",
    "default_zstd.zarr",
    "sharded.zarr",
];

/// FNV-1a, 64 bits: a checksum any language can recompute.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn report(meta: &Metadata, dir: &Path, a: &Assembled) -> Result<(), String> {
    say!("array      {}", dir.display());
    say!("data type  {} (codecs {})", meta.data_type, meta.chain);
    say!(
        "shape      {:?} in chunks of {:?}: {} chunks, {} read, {} missing (fill value {})",
        meta.shape,
        meta.chunk_shape,
        a.read + a.missing,
        a.read,
        a.missing,
        meta.fill_value()
    );
    if a.stats.inner_read + a.stats.inner_empty > 0 {
        say!(
            "inner      {} inner chunks in the shards read: {} read, {} empty",
            a.stats.inner_read + a.stats.inner_empty,
            a.stats.inner_read,
            a.stats.inner_empty
        );
    }
    if let Some(reals) = values::reals(&a.array) {
        let numbers: Vec<f64> = reals.iter().copied().filter(|v| !v.is_nan()).collect();
        let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
        let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = numbers.iter().sum();
        say!(
            "values     {} elements: min {min}, max {max}, sum {sum}, NaN {}",
            reals.len(),
            reals.len() - numbers.len()
        );
    }
    let bytes = a
        .records
        .as_slice()
        .ok_or("assembled records are contiguous")?;
    let checksum = fnv1a64(bytes);
    say!("checksum   {checksum:#018x} (FNV-1a 64 of the little-endian C-order bytes)");
    let count: usize = meta.shape.iter().product();
    if count <= 120 && meta.shape.len() <= 3 {
        if let Some(text) = values::show(&a.array) {
            say!("{text}");
        }
    }
    Ok(())
}

fn open(dir: &Path, write: Option<(&Path, Endian)>) -> Result<(), String> {
    let store = Store::new(dir);
    let meta = Metadata::read(&store)?;
    let assembled = array::read(&meta, &store)?;
    report(&meta, dir, &assembled)?;
    if let Some((out, endian)) = write {
        let written = array::write(&meta, &assembled, &Store::new(out), endian)?;
        say!(
            "wrote      {} in {endian} endian: zarr.json and {written} chunk files",
            out.display()
        );
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut out: Option<PathBuf> = None;
    let mut endian = Endian::Little;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--write" => out = Some(args.next().ok_or("--write needs a directory")?.into()),
            "--endian" => {
                endian = values::parse_endian(&args.next().ok_or("--endian needs little or big")?)?
            }
            "-h" | "--help" => {
                say!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}\n{USAGE}")),
            dir => dirs.push(dir.into()),
        }
    }
    if dirs.is_empty() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
        dirs = BUNDLED.iter().map(|name| data.join(name)).collect();
    }
    if out.is_some() && dirs.len() != 1 {
        return Err("--write copies one array: name it".into());
    }
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            say!();
        }
        open(dir, out.as_deref().map(|o| (o, endian)))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
