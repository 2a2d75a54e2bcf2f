//! Read a Zarr v3 array directory with the `bytes` codec, print a summary, and optionally
//! write a copy in another byte order.
//!
//! ```sh
//! cargo run --example zarr_array                       # the bundled arrays
//! cargo run --example zarr_array -- path/to/array.zarr
//! cargo run --example zarr_array -- path/to/array.zarr --write copy.zarr --endian big
//! ```
//!
//! Supported: a regular chunk grid, the `default` or `v2` chunk key encoding with either
//! separator, and a codec chain of exactly one `bytes` codec. Edge chunks are stored at
//! full chunk size and cut to the array; a missing chunk reads as the fill value.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn, Slice};
use num_complex::Complex;
use serde_json::Value;
use zarr_bytes::{BytesCodec, BytesEncode, DataType, DynArray, Element, Endian};

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
    let data_type = match field(&json, &path, "data_type")? {
        Value::String(name) => name
            .parse::<DataType>()
            .map_err(|e| at("data_type", e.to_string()))?,
        other => return Err(at("data_type", format!("unsupported data type {other}"))),
    };

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
    let codec: BytesCodec =
        serde_json::from_value(codec.clone()).map_err(|e| at("codecs", e.to_string()))?;
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

/// An element type this example can fill and summarise.
trait Sample: Element + std::fmt::Display {
    /// The fill value from its JSON form.
    fn fill(value: &Value) -> Option<Self>;
    /// The value as a real number, for the summary.
    fn real(&self) -> Option<f64>;
}

macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn fill(value: &Value) -> Option<Self> {
                value.as_i64().and_then(|v| <$t>::try_from(v).ok())
                    .or_else(|| value.as_u64().and_then(|v| <$t>::try_from(v).ok()))
            }
            fn real(&self) -> Option<f64> {
                Some(*self as f64)
            }
        }
    )*};
}
sample_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Sample for bool {
    fn fill(value: &Value) -> Option<Self> {
        value.as_bool()
    }
    fn real(&self) -> Option<f64> {
        Some(*self as u8 as f64)
    }
}

/// A float fill value: a number, "NaN", "Infinity", "-Infinity" or "0x" and the bits in hex.
fn float_fill<T>(
    value: &Value,
    from_bits: impl Fn(u64) -> Option<T>,
    from_f64: impl Fn(f64) -> T,
) -> Option<T> {
    match value {
        Value::Number(n) => n.as_f64().map(from_f64),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(from_f64(f64::NAN)),
            "Infinity" => Some(from_f64(f64::INFINITY)),
            "-Infinity" => Some(from_f64(f64::NEG_INFINITY)),
            hex => u64::from_str_radix(hex.strip_prefix("0x")?, 16)
                .ok()
                .and_then(from_bits),
        },
        _ => None,
    }
}

/// Floats of every width: the fill value through [`float_fill`], summarised as `f64`.
macro_rules! sample_float {
    ($($t:ty => $bits:ty, $from_f64:expr, $to_f64:expr;)*) => {$(
        impl Sample for $t {
            fn fill(value: &Value) -> Option<Self> {
                float_fill(value, |b| <$bits>::try_from(b).ok().map(<$t>::from_bits), $from_f64)
            }
            fn real(&self) -> Option<f64> {
                Some($to_f64(*self))
            }
        }
    )*};
}

sample_float! {
    f16 => u16, f16::from_f64, f16::to_f64;
    bf16 => u16, bf16::from_f64, bf16::to_f64;
    f32 => u32, |v| v as f32, f64::from;
    f64 => u64, |v| v, |v| v;
}

impl Sample for Complex<f32> {
    fn fill(value: &Value) -> Option<Self> {
        let [re, im] = value.as_array()?.as_slice() else {
            return None;
        };
        Some(Complex::new(f32::fill(re)?, f32::fill(im)?))
    }
    fn real(&self) -> Option<f64> {
        None
    }
}

impl Sample for Complex<f64> {
    fn fill(value: &Value) -> Option<Self> {
        let [re, im] = value.as_array()?.as_slice() else {
            return None;
        };
        Some(Complex::new(f64::fill(re)?, f64::fill(im)?))
    }
    fn real(&self) -> Option<f64> {
        None
    }
}

/// A decoded array, its chunk statistics, and what is needed to write it again.
struct Assembled<T> {
    array: ArrayD<T>,
    /// The fill value as an array of one element's shape (`[]`, or `[bytes]` for raw bits).
    fill: ArrayD<T>,
    read: usize,
    missing: usize,
}

/// Decode every chunk with `decode_dyn` and place it; missing chunks stay at the fill value.
fn assemble<T: Element>(
    meta: &Metadata,
    dir: &Path,
    fill: ArrayD<T>,
    typed: impl Fn(DynArray) -> Result<ArrayD<T>, zarr_bytes::Error>,
) -> Result<Assembled<T>, String> {
    let element_axes = fill.shape().to_vec();
    let full: Vec<usize> = meta.shape.iter().chain(&element_axes).copied().collect();
    let mut array = fill
        .broadcast(IxDyn(&full))
        .ok_or("fill value does not broadcast")?
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
            .and_then(&typed)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let region = meta.region(&index);
        let source = chunk.slice_each_axis(|ax| match region.get(ax.axis.index()) {
            Some((start, end)) => Slice::from(0..end - start),
            None => Slice::from(..),
        });
        array
            .slice_each_axis_mut(|ax| match region.get(ax.axis.index()) {
                Some((start, end)) => Slice::from(*start..*end),
                None => Slice::from(..),
            })
            .assign(&source);
        read += 1;
    }
    Ok(Assembled {
        array,
        fill,
        read,
        missing,
    })
}

/// Write `assembled` as a Zarr array in `out` with the given byte order; chunks that hold
/// only the fill value are not written, as zarr-python does by default.
fn write_copy<T: Element>(
    meta: &Metadata,
    assembled: &Assembled<T>,
    out: &Path,
    endian: Endian,
) -> Result<usize, String> {
    let codec = BytesCodec {
        endian: meta.data_type.endian_applies().then_some(endian),
    };
    let mut json = meta.json.clone();
    json["codecs"] = serde_json::json!([codec]);
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    fs::write(out.join("zarr.json"), text).map_err(|e| format!("{}: {e}", out.display()))?;

    let element_axes = assembled.fill.shape();
    let chunk_full: Vec<usize> = meta
        .chunk_shape
        .iter()
        .chain(element_axes)
        .copied()
        .collect();
    let fill_chunk = assembled
        .fill
        .broadcast(IxDyn(&chunk_full))
        .ok_or("fill value does not broadcast")?;
    let fill_bytes = fill_chunk.to_zarr_bytes(endian);
    let mut written = 0;
    for index in chunk_indices(&meta.grid()) {
        let region = meta.region(&index);
        let mut chunk = fill_chunk.to_owned();
        chunk
            .slice_each_axis_mut(|ax| match region.get(ax.axis.index()) {
                Some((start, end)) => Slice::from(0..end - start),
                None => Slice::from(..),
            })
            .assign(
                &assembled
                    .array
                    .slice_each_axis(|ax| match region.get(ax.axis.index()) {
                        Some((start, end)) => Slice::from(*start..*end),
                        None => Slice::from(..),
                    }),
            );
        let bytes = codec.encode(&chunk).map_err(|e| e.to_string())?;
        if bytes == fill_bytes {
            continue;
        }
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

fn report<T: Sample>(meta: &Metadata, dir: &Path, a: &Assembled<T>) -> Result<(), String> {
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
    let reals: Vec<f64> = a.array.iter().filter_map(T::real).collect();
    if !reals.is_empty() {
        let numbers: Vec<f64> = reals.iter().copied().filter(|v| !v.is_nan()).collect();
        let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
        let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = numbers.iter().sum();
        say!(
            "values     {} elements: min {min}, max {max}, sum {sum}, NaN {}",
            a.array.len(),
            reals.len() - numbers.len()
        );
    }
    let checksum = fnv1a64(&a.array.to_zarr_bytes(Endian::Little));
    say!("checksum   {checksum:#018x} (FNV-1a 64 of the little-endian C-order bytes)");
    if a.array.len() <= 120 && meta.shape.len() <= 3 {
        say!("{}", a.array);
    }
    Ok(())
}

/// Read, report and optionally copy one array of element type `T`.
fn process<T: Sample>(
    meta: &Metadata,
    dir: &Path,
    write: Option<(&Path, Endian)>,
    fill: ArrayD<T>,
    typed: impl Fn(DynArray) -> Result<ArrayD<T>, zarr_bytes::Error>,
) -> Result<(), String> {
    let assembled = assemble(meta, dir, fill, typed)?;
    report(meta, dir, &assembled)?;
    if let Some((out, endian)) = write {
        let written = write_copy(meta, &assembled, out, endian)?;
        say!(
            "wrote      {} in {endian} endian: zarr.json and {written} chunk files",
            out.display()
        );
    }
    Ok(())
}

fn typed_fill<T: Sample>(meta: &Metadata) -> Result<ArrayD<T>, String> {
    let value = meta.fill_value()?;
    let fill = T::fill(value).ok_or_else(|| {
        format!(
            "zarr.json: field `fill_value`: {value} is no {} value",
            meta.data_type
        )
    })?;
    Ok(ndarray::arr0(fill).into_dyn())
}

fn open(dir: &Path, write: Option<(&Path, Endian)>) -> Result<(), String> {
    let meta = read_metadata(dir)?;
    macro_rules! typed {
        ($t:ty) => {
            process::<$t>(&meta, dir, write, typed_fill::<$t>(&meta)?, |d| {
                d.try_into()
            })
        };
    }
    match meta.data_type {
        DataType::Bool => typed!(bool),
        DataType::Int8 => typed!(i8),
        DataType::Int16 => typed!(i16),
        DataType::Int32 => typed!(i32),
        DataType::Int64 => typed!(i64),
        DataType::UInt8 => typed!(u8),
        DataType::UInt16 => typed!(u16),
        DataType::UInt32 => typed!(u32),
        DataType::UInt64 => typed!(u64),
        DataType::Float16 => typed!(f16),
        DataType::BFloat16 => typed!(bf16),
        DataType::Float32 => typed!(f32),
        DataType::Float64 => typed!(f64),
        DataType::Complex64 => typed!(Complex<f32>),
        DataType::Complex128 => typed!(Complex<f64>),
        DataType::RawBits(bits) => {
            // Raw bits: bytes with a trailing axis; the fill value is a list of bytes.
            let value = meta.fill_value()?;
            let bytes: Option<Vec<u8>> = value
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                        .collect()
                })
                .unwrap_or(None);
            let fill = match bytes {
                Some(b) if b.len() == bits / 8 => {
                    ArrayD::from_shape_vec(IxDyn(&[b.len()]), b).map_err(|e| e.to_string())?
                }
                _ => {
                    return Err(format!(
                        "zarr.json: field `fill_value`: {value} is no list of {} bytes",
                        bits / 8
                    ))
                }
            };
            process::<u8>(&meta, dir, write, fill, |d| match d {
                DynArray::RawBits(a) => Ok(a),
                other => Err(zarr_bytes::Error::TypeMismatch {
                    expected: meta.data_type,
                    found: other.data_type(),
                }),
            })
        }
        other => Err(format!(
            "zarr.json: field `data_type`: {other} is not supported by this example"
        )),
    }
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
