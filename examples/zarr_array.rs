//! Read a Zarr v3 array directory with the `bytes` codec, print a summary, and optionally
//! write a copy in another byte order.
//!
//! ```sh
//! cargo run --example zarr_array                       # the bundled arrays
//! cargo run --example zarr_array -- path/to/array.zarr
//! cargo run --example zarr_array -- path/to/array.zarr --write copy.zarr --endian big
//! ```
//!
//! Supported: every data type the crate knows (the spec's, and the extension types zarr-python
//! and tensorstore write: minifloats, sub-byte integers, datetimes, strings, bytes, structs),
//! a regular chunk grid, the `default` or `v2` chunk key encoding with either separator, and
//! a codec chain of exactly one `bytes` codec. Edge chunks are stored at full chunk size and
//! cut to the array; a missing chunk reads as the fill value (`DynArray::full`).
//!
//! Chunks are decoded with `decode_dyn`, which checks them, and placed as little-endian
//! records in one byte array of the array's shape and a trailing axis of the element's
//! bytes; that array decodes to the whole `DynArray`, whatever its data type.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ndarray::{ArrayD, ArrayViewD, IxDyn, Slice};
use serde_json::Value;
use zarr_bytes::{BytesCodec, DataType, DynArray, Endian};

/// Print a line; a closed pipe (`| head`) ends the output quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        let _ = writeln!(std::io::stdout(), $($arg)*);
    };
}

/// What this example reads from `zarr.json`.
struct Metadata {
    json: Value,
    shape: Vec<usize>,
    data_type: DataType,
    chunk_shape: Vec<usize>,
    /// `true` for the `default` encoding (keys start with `c`), `false` for `v2`.
    default_keys: bool,
    separator: String,
    codec: BytesCodec,
}

fn field<'a>(json: &'a Value, path: &Path, name: &str) -> Result<&'a Value, String> {
    json.get(name)
        .ok_or_else(|| format!("{}: missing field `{name}`", path.display()))
}

fn lengths(value: &Value, path: &Path, name: &str) -> Result<Vec<usize>, String> {
    let bad = || {
        format!(
            "{}: field `{name}` must be an array of non-negative integers",
            path.display()
        )
    };
    let items = value.as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        })
        .collect()
}

fn read_metadata(dir: &Path) -> Result<Metadata, String> {
    let path = dir.join("zarr.json");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: malformed JSON: {e}", path.display()))?;
    let at = |name: &str, what: String| format!("{}: field `{name}`: {what}", path.display());

    if field(&json, &path, "zarr_format")? != 3 {
        return Err(at("zarr_format", "only Zarr format 3 is supported".into()));
    }
    if field(&json, &path, "node_type")? != "array" {
        return Err(at("node_type", "not an array".into()));
    }
    let shape = lengths(field(&json, &path, "shape")?, &path, "shape")?;
    let data_type: DataType = serde_json::from_value(field(&json, &path, "data_type")?.clone())
        .map_err(|e| at("data_type", e.to_string()))?;

    let grid = field(&json, &path, "chunk_grid")?;
    if grid.get("name") != Some(&Value::from("regular")) {
        return Err(at(
            "chunk_grid",
            format!("unsupported chunk grid {grid}: only \"regular\""),
        ));
    }
    let chunk_shape = grid
        .pointer("/configuration/chunk_shape")
        .ok_or_else(|| at("chunk_grid", "missing configuration.chunk_shape".into()))?;
    let chunk_shape = lengths(chunk_shape, &path, "chunk_grid.configuration.chunk_shape")?;
    if chunk_shape.len() != shape.len() || chunk_shape.contains(&0) {
        return Err(at(
            "chunk_grid",
            format!("chunk shape {chunk_shape:?} does not fit shape {shape:?}"),
        ));
    }

    let keys = field(&json, &path, "chunk_key_encoding")?;
    let default_keys = match keys.get("name").and_then(Value::as_str) {
        Some("default") => true,
        Some("v2") => false,
        _ => {
            return Err(at(
                "chunk_key_encoding",
                format!("unsupported encoding {keys}"),
            ))
        }
    };
    let separator = match keys.pointer("/configuration/separator") {
        None => if default_keys { "/" } else { "." }.to_string(),
        Some(Value::String(s)) if s == "/" || s == "." => s.clone(),
        Some(other) => {
            return Err(at(
                "chunk_key_encoding",
                format!("unsupported separator {other}"),
            ))
        }
    };

    let codecs = field(&json, &path, "codecs")?
        .as_array()
        .ok_or_else(|| at("codecs", "not an array".into()))?;
    let names: Vec<String> = codecs
        .iter()
        .map(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .or(c.as_str())
                .unwrap_or("?")
                .to_string()
        })
        .collect();
    let [codec] = codecs.as_slice() else {
        return Err(at(
            "codecs",
            format!(
                "unsupported codec chain [{}]: only a single bytes codec is supported",
                names.join(", ")
            ),
        ));
    };
    let mut codec: BytesCodec =
        serde_json::from_value(codec.clone()).map_err(|e| at("codecs", e.to_string()))?;
    if codec.endian.is_none() && json["data_type"]["name"] == "structured" {
        // zarr-python writes its legacy struct arrays with no endian, in little-endian
        // order, and reads them so.
        codec.endian = Some(Endian::Little);
    }
    codec
        .validate(&data_type)
        .map_err(|e| at("codecs", e.to_string()))?;
    if json
        .get("storage_transformers")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
    {
        return Err(at(
            "storage_transformers",
            "storage transformers are not supported".into(),
        ));
    }
    Ok(Metadata {
        json,
        shape,
        data_type,
        chunk_shape,
        default_keys,
        separator,
        codec,
    })
}

impl Metadata {
    /// Chunks along each axis.
    fn grid(&self) -> Vec<usize> {
        self.shape
            .iter()
            .zip(&self.chunk_shape)
            .map(|(s, c)| s.div_ceil(*c))
            .collect()
    }

    fn chunk_key(&self, index: &[usize]) -> String {
        let mut parts: Vec<String> = index.iter().map(usize::to_string).collect();
        if self.default_keys {
            parts.insert(0, "c".into());
        } else if parts.is_empty() {
            parts.push("0".into());
        }
        parts.join(&self.separator)
    }

    /// The region of the array that chunk `index` covers, per axis.
    fn region(&self, index: &[usize]) -> Vec<(usize, usize)> {
        index
            .iter()
            .zip(&self.chunk_shape)
            .zip(&self.shape)
            .map(|((i, c), s)| (i * c, (i * c + c).min(*s)))
            .collect()
    }

    fn fill_value(&self) -> Result<&Value, String> {
        field(&self.json, Path::new("zarr.json"), "fill_value")
    }
}

/// Every chunk index of the grid, in C order.
fn chunk_indices(grid: &[usize]) -> Vec<Vec<usize>> {
    let count: usize = grid.iter().product();
    (0..count)
        .map(|mut flat| {
            let mut index = vec![0; grid.len()];
            for (k, n) in grid.iter().enumerate().rev() {
                index[k] = flat % n;
                flat /= n;
            }
            index
        })
        .collect()
}

/// Records as bytes: `shape` plus a trailing axis of the element's bytes.
fn records(bytes: Vec<u8>, shape: &[usize], size: usize) -> Result<ArrayD<u8>, String> {
    let full: Vec<usize> = shape.iter().copied().chain([size]).collect();
    ArrayD::from_shape_vec(IxDyn(&full), bytes).map_err(|e| e.to_string())
}

/// The slices of `region` on the leading axes, the whole of the trailing byte axis.
fn slicer(
    region: &[(usize, usize)],
    from_zero: bool,
) -> impl Fn(ndarray::AxisDescription) -> Slice + '_ {
    move |ax| match region.get(ax.axis.index()) {
        Some((start, end)) if from_zero => Slice::from(0..end - start),
        Some((start, end)) => Slice::from(*start..*end),
        None => Slice::from(..),
    }
}

/// A decoded array, its chunk statistics, and the little-endian records it came from.
struct Assembled {
    array: DynArray,
    /// The array's little-endian bytes as records.
    records: ArrayD<u8>,
    /// One record of the fill value.
    fill: Vec<u8>,
    read: usize,
    missing: usize,
}

/// Decode every chunk with `decode_dyn` and place it; missing chunks hold the fill value.
fn assemble(meta: &Metadata, dir: &Path) -> Result<Assembled, String> {
    let little = BytesCodec::new(Endian::Little);
    let size = meta.data_type.size();
    let fill_value = meta.fill_value()?;
    let fill = DynArray::full(&meta.data_type, &[], fill_value)
        .and_then(|f| little.encode_dyn(&f))
        .map_err(|e| format!("zarr.json: field `fill_value`: {e}"))?;
    let mut array = records(fill.clone(), &[], size)?
        .broadcast(IxDyn(&[meta.shape.as_slice(), &[size]].concat()))
        .ok_or("the fill value does not broadcast")?
        .to_owned();
    let (mut read, mut missing) = (0, 0);
    for index in chunk_indices(&meta.grid()) {
        let path = dir.join(meta.chunk_key(&index));
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing += 1;
                continue;
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let chunk = meta
            .codec
            .decode_dyn(&bytes, &meta.data_type, &meta.chunk_shape)
            .and_then(|chunk| little.encode_dyn(&chunk))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let chunk = records(chunk, &meta.chunk_shape, size)?;
        let region = meta.region(&index);
        array
            .slice_each_axis_mut(slicer(&region, false))
            .assign(&chunk.slice_each_axis(slicer(&region, true)));
        read += 1;
    }
    let bytes = array.as_slice().ok_or("assembled records are contiguous")?;
    let decoded = little
        .decode_dyn(bytes, &meta.data_type, &meta.shape)
        .map_err(|e| e.to_string())?;
    Ok(Assembled {
        array: decoded,
        records: array,
        fill,
        read,
        missing,
    })
}

/// Write `assembled` as a Zarr array in `out` with the given byte order; chunks that hold
/// only the fill value are not written, as zarr-python does by default.
fn write_copy(
    meta: &Metadata,
    assembled: &Assembled,
    out: &Path,
    endian: Endian,
) -> Result<usize, String> {
    let codec = BytesCodec {
        endian: meta.data_type.endian_applies().then_some(endian),
    };
    let little = BytesCodec::new(Endian::Little);
    let mut json = meta.json.clone();
    json["codecs"] = serde_json::json!([codec]);
    json["data_type"] = serde_json::to_value(&meta.data_type).map_err(|e| e.to_string())?;
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    fs::write(out.join("zarr.json"), text).map_err(|e| format!("{}: {e}", out.display()))?;

    let size = meta.data_type.size();
    let fill_chunk = records(assembled.fill.clone(), &[], size)?
        .broadcast(IxDyn(&[meta.chunk_shape.as_slice(), &[size]].concat()))
        .ok_or("the fill value does not broadcast")?
        .to_owned();
    let mut written = 0;
    for index in chunk_indices(&meta.grid()) {
        let region = meta.region(&index);
        let mut chunk = fill_chunk.clone();
        chunk
            .slice_each_axis_mut(slicer(&region, true))
            .assign(&assembled.records.slice_each_axis(slicer(&region, false)));
        if chunk == fill_chunk {
            continue;
        }
        let bytes = chunk.as_slice().ok_or("a new chunk is contiguous")?;
        let bytes = little
            .decode_dyn(bytes, &meta.data_type, &meta.chunk_shape)
            .and_then(|values| codec.encode_dyn(&values))
            .map_err(|e| e.to_string())?;
        let path = out.join(meta.chunk_key(&index));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        written += 1;
    }
    Ok(written)
}

/// FNV-1a, 64 bits: a checksum any language can recompute.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The values as real numbers, for the types that are real numbers.
fn reals(array: &DynArray) -> Option<Vec<f64>> {
    fn all<T: Copy>(a: &ArrayD<T>, f: impl Fn(T) -> f64) -> Option<Vec<f64>> {
        Some(a.iter().map(|&x| f(x)).collect())
    }
    match array {
        DynArray::Bool(a) => all(a, |x| f64::from(u8::from(x))),
        DynArray::Int8(a) | DynArray::Int2(a) | DynArray::Int4(a) => all(a, f64::from),
        DynArray::UInt8(a) | DynArray::UInt2(a) | DynArray::UInt4(a) => all(a, f64::from),
        DynArray::Int16(a) => all(a, f64::from),
        DynArray::UInt16(a) => all(a, f64::from),
        DynArray::Int32(a) => all(a, f64::from),
        DynArray::UInt32(a) => all(a, f64::from),
        DynArray::Int64(a) => all(a, |x| x as f64),
        DynArray::UInt64(a) => all(a, |x| x as f64),
        DynArray::Float16(a) => all(a, f64::from),
        DynArray::BFloat16(a) => all(a, f64::from),
        DynArray::Float32(a) => all(a, f64::from),
        DynArray::Float64(a) => all(a, |x| x),
        DynArray::Float4E2M1FN(a) => all(a, f64::from),
        DynArray::Float6E2M3FN(a) => all(a, f64::from),
        DynArray::Float6E3M2FN(a) => all(a, f64::from),
        DynArray::Float8E3M4(a) => all(a, f64::from),
        DynArray::Float8E4M3(a) => all(a, f64::from),
        DynArray::Float8E4M3B11FNUZ(a) => all(a, f64::from),
        DynArray::Float8E4M3FN(a) => all(a, f64::from),
        DynArray::Float8E4M3FNUZ(a) => all(a, f64::from),
        DynArray::Float8E5M2(a) => all(a, f64::from),
        DynArray::Float8E5M2FNUZ(a) => all(a, f64::from),
        DynArray::Float8E8M0FNU(a) => all(a, f64::from),
        _ => None,
    }
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
        DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
            print(values.view())
        }
        DynArray::Struct(s) => Some(
            s.fields()
                .map(|(name, field)| {
                    format!("{name}: {}", show(field).unwrap_or_else(|| "…".into()))
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        other => reals(other)
            .and_then(|r| ArrayD::from_shape_vec(other.shape(), r).ok())
            .and_then(|r| print(r.view())),
    }
}

fn report(meta: &Metadata, dir: &Path, a: &Assembled) -> Result<(), String> {
    say!("array      {}", dir.display());
    let endian = meta
        .codec
        .endian
        .map_or("none".to_string(), |e| e.to_string());
    say!(
        "data type  {} (bytes codec, endian {endian})",
        meta.data_type
    );
    say!(
        "shape      {:?} in chunks of {:?}: {} chunks, {} read, {} missing (fill value {})",
        meta.shape,
        meta.chunk_shape,
        a.read + a.missing,
        a.read,
        a.missing,
        meta.fill_value()?
    );
    if let Some(reals) = reals(&a.array) {
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
        if let Some(text) = show(&a.array) {
            say!("{text}");
        }
    }
    Ok(())
}

fn open(dir: &Path, write: Option<(&Path, Endian)>) -> Result<(), String> {
    let meta = read_metadata(dir)?;
    let assembled = assemble(&meta, dir)?;
    report(&meta, dir, &assembled)?;
    if let Some((out, endian)) = write {
        let written = write_copy(&meta, &assembled, out, endian)?;
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
                let value = args.next().ok_or("--endian needs little or big")?;
                endian = value
                    .parse()
                    .map_err(|e: zarr_bytes::Error| e.to_string())?;
            }
            "-h" | "--help" => {
                say!("usage: zarr_array [ARRAY_DIR] [--write OUT_DIR [--endian little|big]]");
                return Ok(());
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            dir => dirs.push(dir.into()),
        }
    }
    if dirs.is_empty() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
        dirs = vec![data.join("temperature.zarr"), data.join("counts_dot.zarr")];
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
