//! Read a Zarr v3 array directory (or a box of it), print a summary, and optionally write
//! a copy in another byte order with the same codec chain, or write what was read into a
//! box of another array.
//!
//! ```sh
//! cargo run -p zarr-array                       # the bundled arrays
//! cargo run -p zarr-array -- path/to/array.zarr
//! cargo run -p zarr-array -- path/to/array.zarr --subset 100:300,50:90
//! cargo run -p zarr-array -- path/to/array.zarr --write copy.zarr --endian big
//! cargo run -p zarr-array -- path/to/array.zarr --write copy.zarr --write-empty-chunks
//! cargo run -p zarr-array -- src.zarr --subset 0:20,: --write-into dst.zarr --at 10,20
//! cargo run --release -p zarr-array -- path/to/array.zarr --write copy.zarr --time
//! cargo run -p zarr-array -- file:///data/array.zarr --in-flight 64
//! cargo run --release -p zarr-array --features s3 -- s3://bucket/array.zarr --subset 0:100,:
//! ```
//!
//! The store is `object_store`'s: an array is a prefix in an `Arc<dyn ObjectStore>`
//! (`store.rs`): the local file system (a path or a `file://` URL), `memory://`, and with
//! the `s3` feature `s3://bucket/prefix` (credentials, region and endpoint from the
//! `AWS_*` variables; `AWS_ENDPOINT` and `AWS_ALLOW_HTTP=true` for an S3-compatible
//! server) and `http(s)://` to read. Chunks are read with `get`, written whole with `put`
//! (the local store writes a temporary file and renames it, S3 makes an object whole or
//! not at all, so a failure leaves no part of a chunk) and erased with `delete`. A
//! request with no answer in `--timeout` seconds (default 30) is tried twice more, then
//! fails: a server that does not answer is an error, not a hang.
//! `--in-flight N` (default 32) is how many requests to the store are under way at once:
//! reading and writing go through the library's async calls, which keep that many pending
//! and decode or encode each chunk as it arrives, on a tokio runtime; decompression and
//! compression run on its blocking threads.
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
//! codec's byte order set to `--endian` where one applies. `--time` prints how long the
//! read (store reads, decompression and decoding) and the write took, and leaves out the
//! summary of the values, which would convert the whole array once more.
//!
//! `--subset` reads a box of the array, one `start:end` range per axis, comma separated
//! (`:` is a whole axis, `10:` and `:20` have open ends), and prints its summary: the
//! store is asked for the chunks the box touches and no other, and in a shard only the
//! inner chunks it touches are decoded (a shard whose part in the array the box holds
//! whole is read whole, its inner chunks past the array's edge checked too). Without a
//! bytes-to-bytes codec around them, a chunk the box covers in part is asked for by the
//! byte ranges of its part (`get_ranges`), and a shard by its index, then the inner chunks
//! the box touches. A range that does not fit the array is an error naming the axis.
//!
//! `--write-into DST --at 10,20` writes the array read (or its `--subset`) into the
//! existing array `DST` at that origin, as zarr-python's `dst[10:10+n, 20:20+m] = src`
//! does: `DST` keeps its `zarr.json` and codecs, and its data type must be the source's.
//! The chunks the box covers in part are read, decompressed, updated in place and written
//! back; those it covers whole are encoded from the source; those left holding only the
//! fill value are erased; the others are neither read nor written. In a shard covered in
//! part only the inner chunks the box touches are encoded again, the others kept as
//! stored, and a shard left with no inner chunk is erased.
//!
//! Writing is sparse, as zarr-python writes by default: a chunk whose part in the array
//! holds only the fill value, bit for bit (`-0.0` is not a fill value of `0.0`, and a NaN
//! is the fill value only with its payload), gets no file, and the file of such a chunk
//! already in the output directory (a copy written over an older one) is erased. In a
//! shard, the inner chunks of only the fill value are left out of it, and a shard of no
//! other inner chunks gets no file. `--write-empty-chunks` (zarr-python's
//! `write_empty_chunks=True`) writes every chunk and every inner chunk in the array.
//!
//! How chunks move: each chunk goes straight between its decompressed bytes and its part
//! of the array through the library's subset calls, with no other representation of the
//! array in between; the whole array is the box of all of it, through the same calls.
//! Without sharding, reading is one call, `decode_subset_dyn_async`, which allocates the
//! box's array and writes each element once, each chunk as it arrives; writing is
//! `encode_subset_dyn_async`, which encodes the chunks covered whole from the array,
//! updates the others in their stored bytes, and tells the chunks of only the fill value
//! from the others (`--write-empty-chunks` stores a chunk of the fill value for them).
//! With sharding, the shards are the chunks fetched and stored, up to `--in-flight` at
//! once with the same combinators (`buffer_unordered`, `try_for_each_concurrent`); the
//! array starts as the fill value, each shard's part of it is a `DynArrayViewMut`
//! (`slice_region_mut`), and its inner chunks, in the shard's bytes, go through
//! `decode_subset_into_dyn` and `encode_subset_dyn` over the shard's inner grid, at the
//! part's place in the shard, on several threads with the crate's `rayon` feature. A
//! `transpose` codec copies nothing: the chunk is stored with its axes permuted, so the
//! array's view, the grid and the box are permuted the same way (`permuted_axes` on the
//! view) while the chunks move, and the stored chunk is a region of that view.
//!
//! Only the bytes-to-bytes codecs and the shard layout are the example's own. zstd
//! decompresses a frame that states its size (as every Zarr writer's frames do) in one
//! call into a buffer of that size, which the thread keeps for its next frame; a frame
//! stating more than the chunk can hold, or another length than a chunk of the `bytes`
//! codec has, is an error before anything is allocated, and a frame that states no size
//! is streamed up to the chunk's size.

mod array;
mod chain;
mod compress;
mod metadata;
mod sharding;
mod store;
mod subset;

use std::io::Write as _;
use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ndarray::ArrayViewD;
use zarr_bytes::{BytesCodec, DynArray, Endian};

use chain::Counts;
use metadata::Metadata;
use store::Store;
use subset::Ranges;

/// Print a line; a closed pipe (`| head`) ends the output quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        let _ = writeln!(std::io::stdout(), $($arg)*);
    };
}

const USAGE: &str = "usage: zarr-array [ARRAY_DIR | URL] [--subset START:END,...] \
    [--write OUT [--endian little|big] | --write-into DST --at INDEX,...] \
    [--write-empty-chunks] [--in-flight N] [--timeout SECONDS] [--time]\n\
    URL: file://, memory://, and with the s3 feature s3://BUCKET/PREFIX (AWS_* variables; \
    AWS_ENDPOINT and AWS_ALLOW_HTTP=true for an S3-compatible server) and http(s)://";

/// Requests to the store under way at once, unless `--in-flight` says otherwise: as many as
/// tensorstore keeps per store.
const IN_FLIGHT: usize = 32;

/// How long a request to a remote store may wait for its answer, unless `--timeout` says
/// otherwise: a server that does not answer is an error, not a hang.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The arrays in `data`, beside this crate's manifest, read when no array is named.
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

/// A small array, printed: numbers and text as ndarray prints them.
fn show(array: &DynArray) -> Option<String> {
    fn print<T: std::fmt::Display>(a: ArrayViewD<'_, T>) -> Option<String> {
        Some(a.to_string())
    }
    match array {
        DynArray::FixedLengthUtf32(s) => print(s.values().map(|s| format!("{s:?}")).view()),
        DynArray::NullTerminatedBytes(s) => print(
            s.values()
                .map(|b| format!("{:?}", String::from_utf8_lossy(b)))
                .view(),
        ),
        DynArray::Struct(s) => Some(
            s.fields()
                .map(|(name, field)| {
                    format!("{name}: {}", show(field).unwrap_or_else(|| "…".into()))
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        other => other.to_f64().and_then(|r| print(r.view())),
    }
}

/// Print what was read, `subset` of the array if one was asked for; the summary of the
/// values only if `values`.
fn report(
    meta: &Metadata,
    location: &str,
    subset: Option<&[Range<usize>]>,
    array: &DynArray,
    counts: &Counts,
    values: bool,
) -> Result<(), String> {
    let count = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    let (read, missing) = (count(&counts.read), count(&counts.missing));
    let (inner_read, inner_empty) = (count(&counts.inner_read), count(&counts.inner_empty));
    say!("array      {location}");
    say!("data type  {} (codecs {})", meta.data_type, meta.chain);
    let chunks = format!(
        "{} chunks, {read} read, {missing} missing (fill value {})",
        read + missing,
        meta.fill_value()
    );
    let grid = format!("{:?} in chunks of {:?}", meta.shape, meta.chunk_shape);
    match subset {
        None => {
            say!("shape      {grid}: {chunks}");
        }
        Some(subset) => {
            say!("shape      {grid}");
            say!(
                "subset     {} of shape {:?}: {chunks}",
                subset::show(subset),
                array.shape()
            );
        }
    }
    say!(
        "store      {} bytes read (chunks asked for whole, or by byte range when stored as they are)",
        counts.bytes.load(Ordering::Relaxed)
    );
    if inner_read + inner_empty > 0 {
        say!(
            "inner      {} inner chunks in the shards read: {inner_read} read, {inner_empty} empty",
            inner_read + inner_empty,
        );
    }
    // The real numbers as `f64`: a second array as large as the first, or larger.
    if let Some(reals) = array.to_f64().filter(|_| values) {
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
    let bytes = BytesCodec::new(Endian::Little)
        .encode_dyn(array)
        .map_err(|e| e.to_string())?;
    say!(
        "checksum   {:#018x} (FNV-1a 64 of the little-endian C-order bytes)",
        fnv1a64(&bytes)
    );
    let count: usize = array.shape().iter().product();
    if count <= 120 && array.shape().len() <= 3 {
        if let Some(text) = show(array) {
            say!("{text}");
        }
    }
    Ok(())
}

/// Where `--write` writes a copy, or `--write-into` writes into an existing array.
enum Target<'a> {
    Copy { out: &'a str, endian: Endian },
    Into { out: &'a str, at: &'a [usize] },
}

/// What is written after reading, and whether chunks of only the fill value are kept.
struct Write<'a> {
    target: Target<'a>,
    write_empty: bool,
}

/// How the store is asked: requests under way at once, and how long one may wait.
#[derive(Clone, Copy)]
struct Requests {
    in_flight: usize,
    timeout: Duration,
}

async fn open(
    location: &str,
    subset: Option<&Ranges>,
    write: Option<&Write<'_>>,
    requests: Requests,
    time: bool,
) -> Result<(), String> {
    let Requests { in_flight, timeout } = requests;
    let store = Store::open(location, timeout)?;
    let meta = Metadata::read(&store).await?;
    let wanted = match subset {
        Some(ranges) => ranges
            .resolve(&meta.shape)
            .map_err(|e| format!("{location}: {e}"))?,
        None => subset::whole(&meta.shape),
    };
    let counts = Counts::default();
    let start = Instant::now();
    let array = array::read(&meta, &store, &wanted, in_flight, &counts).await?;
    let read_time = start.elapsed();
    let shown = subset.map(|_| wanted.as_slice());
    report(&meta, location, shown, &array, &counts, !time)?;
    let mut write_time = Duration::ZERO;
    if let Some(write) = write {
        let start = Instant::now();
        let count = |c: AtomicUsize| c.into_inner();
        let empty = write.write_empty;
        match write.target {
            Target::Copy { out, endian } => {
                let store = Store::open(out, timeout)?;
                let written = array::write(&meta, &array, &store, endian, empty, in_flight).await?;
                write_time = start.elapsed();
                let (stored, left_out) = (count(written.stored), count(written.left_out));
                say!(
                    "wrote      {out} in {endian} endian: zarr.json and {stored} chunk files, \
                     {left_out} of only the fill value left out ({} erased)",
                    count(written.erased),
                );
            }
            Target::Into { out, at } => {
                let store = Store::open(out, timeout)?;
                let into = Metadata::read(&store).await?;
                let written =
                    array::write_into(&into, &array, &store, at, empty, in_flight).await?;
                write_time = start.elapsed();
                let (stored, left_out) = (count(written.stored), count(written.left_out));
                let (read, missing) = (count(written.read), count(written.missing));
                say!(
                    "wrote      into {out} at {at:?}: {stored} chunk files, \
                     {left_out} of only the fill value left out ({} erased); \
                     {} chunks covered in part: {read} read, {missing} missing",
                    count(written.erased),
                    read + missing,
                );
            }
        }
    }
    if time {
        say!(
            "time       read {:.3} s, write {:.3} s",
            read_time.as_secs_f64(),
            write_time.as_secs_f64()
        );
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut dirs: Vec<String> = Vec::new();
    let mut out: Option<String> = None;
    let mut into: Option<String> = None;
    let mut at: Option<Vec<usize>> = None;
    let mut subset: Option<Ranges> = None;
    let mut endian = None;
    let mut write_empty = false;
    let mut in_flight = IN_FLIGHT;
    let mut timeout = TIMEOUT;
    let mut time = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--write" => out = Some(args.next().ok_or("--write needs a directory")?),
            "--write-into" => into = Some(args.next().ok_or("--write-into needs a directory")?),
            "--at" => {
                let text = args.next().ok_or("--at needs an index per axis: 10,20")?;
                at = Some(subset::parse_origin(&text)?);
            }
            "--subset" => {
                let text = args
                    .next()
                    .ok_or("--subset needs a range per axis: 0:10,5:20")?;
                subset = Some(Ranges::parse(&text)?);
            }
            "--endian" => {
                let text = args.next().ok_or("--endian needs little or big")?;
                endian = Some(text.parse().map_err(|e: zarr_bytes::Error| e.to_string())?)
            }
            "--write-empty-chunks" => write_empty = true,
            "--in-flight" => {
                let text = args
                    .next()
                    .ok_or("--in-flight needs a number of requests")?;
                in_flight = text.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!("--in-flight {text:?}: not a positive number of requests")
                })?;
            }
            "--timeout" => {
                let text = args.next().ok_or("--timeout needs a number of seconds")?;
                let secs: Option<f64> = text.parse().ok().filter(|&s: &f64| s > 0.0 && s < 1e9);
                timeout = secs.map(Duration::from_secs_f64).ok_or_else(|| {
                    format!("--timeout {text:?}: not a positive number of seconds")
                })?;
            }
            "--time" => time = true,
            "-h" | "--help" => {
                say!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}\n{USAGE}")),
            dir => dirs.push(dir.into()),
        }
    }
    if dirs.is_empty() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let bundled = BUNDLED
            .iter()
            .map(|name| data.join(name).display().to_string());
        dirs = bundled.collect();
    }
    let target = match (&out, &into) {
        (Some(_), Some(_)) => return Err("--write and --write-into: choose one".into()),
        (Some(_), None) | (None, Some(_)) if dirs.len() != 1 => {
            return Err("--write and --write-into write one array: name it".into());
        }
        (Some(_), None) if subset.is_some() => {
            return Err("--write copies a whole array; --subset goes with --write-into".into());
        }
        (Some(out), None) => Some(Target::Copy {
            out,
            endian: endian.unwrap_or(Endian::Little),
        }),
        (None, Some(into)) if endian.is_some() => {
            return Err(format!(
                "--endian goes with --write: --write-into keeps the codecs of {into}"
            ));
        }
        (None, Some(out)) => Some(Target::Into {
            out,
            at: at.as_deref().unwrap_or(&[]),
        }),
        (None, None) => None,
    };
    if at.is_some() && into.is_none() {
        return Err("--at goes with --write-into".into());
    }
    if into.is_some() && at.is_none() {
        return Err("--write-into needs --at, where the array goes: 0,0 for its corner".into());
    }
    let write = target.map(|target| Write {
        target,
        write_empty,
    });
    // The calls run on this thread, a store's own tasks (an HTTP client's connections) on
    // the worker threads meanwhile, and the bytes-to-bytes codecs on the blocking ones.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            say!();
        }
        let requests = Requests { in_flight, timeout };
        let opened = open(dir, subset.as_ref(), write.as_ref(), requests, time);
        runtime.block_on(opened)?;
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
