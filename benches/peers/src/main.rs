//! How fast the alternatives a user would weigh against `zarr_bytes` encode and decode the
//! Zarr v3 `bytes` codec, beside `zarr_bytes` itself: on the arrays the main crate's
//! benchmarks measure, then on an array cut in chunks (the grid rows, [`grid`]).
//!
//! Run with `cargo run --release --manifest-path benches/peers/Cargo.toml -- --runs 7`,
//! optionally with `--size-mib M` (bytes per whole array, default 64), `--types u8,f64`
//! (some of `u8`, `u16`, `f32`, `f64`), `--layouts fortran` (some of `standard`, `fortran`,
//! `3d-swapped`), `--evict-mib M` (bytes read before each timed run; default twice the
//! largest cache), `--no-grid` (no grid rows; `--grid`, the default, runs them),
//! `--grid-mib M` (bytes of the grid rows' array, default 256) and `--chunk-mib M` (bytes
//! per chunk of it, default 2). `--runs` counts the timed runs of both groups.
//!
//! The paths of the whole arrays, each fed the same ndarray and producing the same
//! big-endian bytes:
//!
//! - `zarr-bytes 1 core`: `to_zarr_bytes(Endian::Big)`; decoding `ArrayD::from_zarr_bytes`
//!   for the `standard` layout and `decode_zarr_bytes_into` the existing array of the
//!   others, run inside `install` of a rayon pool of one thread, where the crate splits
//!   nothing (see [`Threads`]);
//! - `zarr-bytes pool`: the same calls from the main thread, the crate splitting large
//!   conversions across rayon's global pool (a thread per CPU);
//! - `zarrs 0.23`: zarrs' ndarray conversion and its `BytesCodec` (see [`zarrs_encode`] and
//!   [`zarrs_decode`]);
//! - `naive per element`: `to_be_bytes` / `from_be_bytes` element by element;
//! - `naive byteorder`: `byteorder`'s slice conversions, the best a user does by hand;
//! - `memcpy`: `copy_from_slice` of the same bytes into a preallocated buffer, the bound.
//!
//! Every path is checked against `zarr_bytes` before any is timed: it must encode to the
//! bytes of `to_zarr_bytes(Endian::Big)` and decode them back to the array. Then every
//! timed run starts from cold caches (the main crate's `cold` module), the cases of one
//! element type in turn, round-robin; each measurement is the median of `--runs` runs. The
//! grid rows follow, checked and timed the same way.
//!
//! Output: one JSON line naming the machine and the zarrs version, then one JSON line per
//! measurement on stdout (`impl`, `direction`, `type`, `layout`, `gbps`, `bytes`, `runs`,
//! `threads`); progress on stderr. GB/s is 10^9 encoded bytes per second.

use std::borrow::Cow;
use std::hint::black_box;
use std::num::NonZeroU64;
use std::process::ExitCode;
use std::time::Duration;

use byteorder::{BigEndian, ByteOrder};
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD};
use serde_json::json;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Endian};
use zarrs::array::codec::BytesCodec;
use zarrs::array::{
    data_type, ArrayBytes, ArrayToBytesCodecTraits, CodecOptions, DataType, Endianness, FillValue,
    FromArrayBytes, IntoArrayBytes,
};

#[path = "../../arrays/mod.rs"]
// The grid and chunk helpers serve the main crate's benchmarks only; the module keeps to the
// main crate's MSRV (1.85), older than `is_multiple_of`.
#[allow(dead_code, clippy::manual_is_multiple_of)]
mod arrays;
#[path = "../../cold/mod.rs"]
mod cold;
mod grid;

use arrays::Arrays;
use cold::Cold;

const USAGE: &str = "usage: peers [--runs N] [--size-mib M] [--types u8,u16,f32,f64] \
                     [--layouts standard,fortran,3d-swapped] [--evict-mib M] \
                     [--grid | --no-grid] [--grid-mib M] [--chunk-mib M]";

/// The element types measured, in output order.
const TYPES: [&str; 4] = ["u8", "u16", "f32", "f64"];

/// The layouts measured, in output order (named as in `arrays::LAYOUTS`).
const LAYOUTS: [&str; 3] = ["standard", "fortran", "3d-swapped"];

/// Planes of the `3d-swapped` stack, as the main crate's benchmarks default to.
const PLANES: usize = 4;

const ONE_CORE: &str = "zarr-bytes 1 core";
const POOL: &str = "zarr-bytes pool";
const ZARRS: &str = "zarrs 0.23";
const PER_ELEMENT: &str = "naive per element";
const BYTEORDER: &str = "naive byteorder";
const MEMCPY: &str = "memcpy";
const MEMCPY_FRESH: &str = "memcpy fresh";

/// The project's lock file: the zarrs version it resolved is reported with the figures.
const LOCK: &str = include_str!("../Cargo.lock");

/// An element type as each path needs it: zarrs' data type, and the code a user writes
/// for its big-endian bytes by hand.
trait Peer:
    zarr_bytes::Element
    + zarrs::array::ElementOwned
    + Copy
    + Default
    + PartialEq
    + Into<FillValue>
    + 'static
{
    const NAME: &'static str;
    /// The byte order of the codec's metadata: none for one-byte types, which have none
    /// (as Zarr writers leave it out), big for the others.
    const ENDIAN: Option<Endianness>;
    fn data_type() -> DataType;
    /// Element `i` of the arrays' C-order stream, as `perf_table` makes them.
    fn value(i: usize) -> Self;
    /// `x.to_be_bytes()` appended to `out`.
    fn put_be(self, out: &mut Vec<u8>);
    /// `from_be_bytes` of one element's bytes.
    fn get_be(bytes: &[u8]) -> Self;
    /// `BigEndian::write_*_into`, a plain copy for `u8`.
    fn write_be_into(src: &[Self], dst: &mut [u8]);
    /// `BigEndian::read_*_into`, a plain copy for `u8`.
    fn read_be_into(src: &[u8], dst: &mut [Self]);
}

impl Peer for u8 {
    const NAME: &'static str = "u8";
    const ENDIAN: Option<Endianness> = None;
    fn data_type() -> DataType {
        data_type::uint8()
    }
    fn value(i: usize) -> u8 {
        (i % 251) as u8
    }
    fn put_be(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_be_bytes());
    }
    fn get_be(bytes: &[u8]) -> u8 {
        u8::from_be_bytes(bytes.try_into().expect("one element's bytes"))
    }
    // byteorder has no `u8` conversions: bytes are copied as they are.
    fn write_be_into(src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
    fn read_be_into(src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
}

/// [`Peer`] for a multi-byte type: its data type function, its `perf_table` values and its
/// byteorder functions.
macro_rules! peer {
    ($t:ty, $dt:ident, $value:expr, $write:ident, $read:ident) => {
        impl Peer for $t {
            const NAME: &'static str = stringify!($t);
            const ENDIAN: Option<Endianness> = Some(Endianness::Big);
            fn data_type() -> DataType {
                data_type::$dt()
            }
            fn value(i: usize) -> $t {
                $value(i)
            }
            fn put_be(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_be_bytes());
            }
            fn get_be(bytes: &[u8]) -> $t {
                <$t>::from_be_bytes(bytes.try_into().expect("one element's bytes"))
            }
            fn write_be_into(src: &[$t], dst: &mut [u8]) {
                BigEndian::$write(src, dst);
            }
            fn read_be_into(src: &[u8], dst: &mut [$t]) {
                BigEndian::$read(src, dst);
            }
        }
    };
}

peer!(
    u16,
    uint16,
    |i: usize| i as u16,
    write_u16_into,
    read_u16_into
);
peer!(
    f32,
    float32,
    |i: usize| i as f32 * 0.25 - 1e3,
    write_f32_into,
    read_f32_into
);
peer!(
    f64,
    float64,
    |i: usize| i as f64 * 0.5 - 1e6,
    write_f64_into,
    read_f64_into
);

/// What zarrs' codec API takes besides the bytes, made once per element type as a user of
/// the codec makes it once per array.
struct Zarrs {
    codec: BytesCodec,
    data_type: DataType,
    fill_value: FillValue,
    options: CodecOptions,
}

impl Zarrs {
    fn new<T: Peer>() -> Zarrs {
        Zarrs {
            codec: BytesCodec::new(T::ENDIAN),
            data_type: T::data_type(),
            fill_value: T::default().into(),
            options: CodecOptions::default(),
        }
    }
}

/// The shape as zarrs' codecs take it.
fn nonzero_shape(shape: &[usize]) -> Vec<NonZeroU64> {
    shape
        .iter()
        .map(|&d| NonZeroU64::new(d as u64).expect("no empty axis"))
        .collect()
}

/// Where a decoding path leaves the array: a fresh C-order array for the `standard`
/// layout (`None`), otherwise the existing array of the layout, written in place.
type Target<'a, T> = Option<ArrayViewMutD<'a, T>>;

/// The last step of every decoding path: the C-order array decoded is the result for the
/// `standard` layout; for another layout it is assigned into the array of that layout, as
/// a user would (`Array::from_shape_vec(shape.f(), ..)` reads the bytes in the wrong
/// order, and a transposed view's `.to_owned()` is C order again).
fn finish<T: Peer>(c_order: ArrayD<T>, target: Target<'_, T>) -> Option<ArrayD<T>> {
    match target {
        None => Some(c_order),
        Some(mut target) => {
            target.assign(&c_order);
            None
        }
    }
}

/// zarrs 0.23, encoding: the array to zarrs' `ArrayBytes` by `IntoArrayBytes` for
/// `&ArrayBase`, what `Array::store_chunk(&indices, &array)` (and `store_array_subset`)
/// calls on an ndarray (borrowing its memory when it is one C-order slice, else copying it
/// to C order with `as_standard_layout().into_owned()`), then `BytesCodec::encode`, then
/// `into_owned` as `store_chunk_opt` does before handing the bytes to the store.
///
/// No store: the conversion and the codec are public, so they are called directly,
/// without the store's key handling, copies and locks, and without the fill-value scan
/// `store_chunk` makes before encoding. The deprecated `store_chunk_ndarray` takes another
/// route, `as_standard_layout().to_owned()`, one more copy of every array.
fn zarrs_encode<T: Peer>(z: &Zarrs, array: ArrayViewD<'_, T>) -> Vec<u8> {
    let bytes = (&array)
        .into_array_bytes(&z.data_type)
        .expect("the data type of the element");
    zarrs_codec_encode(z, bytes, array.shape())
}

/// zarrs 0.23, encoding a chunk as `Array::store_chunk` does with its default options
/// (`store_empty_chunks` false): [`zarrs_encode`]'s `IntoArrayBytes`, then
/// `ArrayBytes::is_fill_value` (zarrs' public fill test, `FillValue::equals_all` of the
/// bytes) and `None` for a chunk of only the fill value, which `store_chunk` erases instead
/// of storing; else the codec and `into_owned`, as [`zarrs_encode`].
fn zarrs_encode_sparse<T: Peer>(z: &Zarrs, array: ArrayViewD<'_, T>) -> Option<Vec<u8>> {
    let bytes = (&array)
        .into_array_bytes(&z.data_type)
        .expect("the data type of the element");
    if bytes.is_fill_value(&z.fill_value) {
        return None;
    }
    Some(zarrs_codec_encode(z, bytes, array.shape()))
}

/// `BytesCodec::encode` of zarrs' `ArrayBytes` of an array of `shape`, then `into_owned`.
fn zarrs_codec_encode(z: &Zarrs, bytes: ArrayBytes<'_>, shape: &[usize]) -> Vec<u8> {
    z.codec
        .encode(
            bytes,
            &nonzero_shape(shape),
            &z.data_type,
            &z.fill_value,
            &z.options,
        )
        .expect("the bytes codec encodes")
        .into_owned()
}

/// zarrs 0.23, decoding: `BytesCodec::decode` of the bytes, borrowed as every path here
/// takes them, then `into_owned` and `FromArrayBytes` for `ArrayD`, as
/// `retrieve_chunk::<ArrayD<T>>` (what the deprecated `retrieve_chunk_ndarray` calls) does
/// with the bytes its store returns; then [`finish`].
///
/// No store, as for [`zarrs_encode`]. A store would hand the codec bytes it owns, which it
/// would swap in place; borrowed, they cost it one copy first (for `u8`, which needs no
/// swap, the copy of `into_owned`), as a store's own read or copy of the chunk would.
fn zarrs_decode<T: Peer>(
    z: &Zarrs,
    bytes: &[u8],
    shape: &[usize],
    target: Target<'_, T>,
) -> Option<ArrayD<T>> {
    let decoded = z
        .codec
        .decode(
            Cow::Borrowed(bytes),
            &nonzero_shape(shape),
            &z.data_type,
            &z.fill_value,
            &z.options,
        )
        .expect("the bytes codec decodes");
    let shape_u64: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let c_order = ArrayD::<T>::from_array_bytes(decoded.into_owned(), &shape_u64, &z.data_type)
        .expect("the bytes of the shape");
    finish(c_order, target)
}

/// This crate: `to_zarr_bytes(Endian::Big)`, on whichever pool the case runs in
/// ([`Threads`]).
fn crate_encode<T: Peer>(_: &Zarrs, array: ArrayViewD<'_, T>) -> Vec<u8> {
    array.to_zarr_bytes(Endian::Big)
}

/// This crate: `ArrayD::from_zarr_bytes(bytes, shape, Endian::Big)` for the `standard`
/// layout; for the others, `decode_zarr_bytes_into(bytes, Endian::Big)` straight into the
/// existing array of the layout (where the peers decode to C order, then [`finish`]).
fn crate_decode<T: Peer>(
    _: &Zarrs,
    bytes: &[u8],
    shape: &[usize],
    target: Target<'_, T>,
) -> Option<ArrayD<T>> {
    match target {
        None => Some(ArrayD::from_zarr_bytes(bytes, shape, Endian::Big).expect("the bytes decode")),
        Some(mut target) => {
            target
                .decode_zarr_bytes_into(bytes, Endian::Big)
                .expect("the bytes decode");
            None
        }
    }
}

/// Naive, element by element: C order, then each element's `to_be_bytes`.
fn per_element_encode<T: Peer>(_: &Zarrs, array: ArrayViewD<'_, T>) -> Vec<u8> {
    let array = array.as_standard_layout();
    let mut out = Vec::with_capacity(array.len() * size_of::<T>());
    for &x in array.iter() {
        x.put_be(&mut out);
    }
    out
}

/// Naive, element by element: `from_be_bytes` of each element's bytes collected into a
/// `Vec`, a C-order array of it, then [`finish`].
fn per_element_decode<T: Peer>(
    _: &Zarrs,
    bytes: &[u8],
    shape: &[usize],
    target: Target<'_, T>,
) -> Option<ArrayD<T>> {
    let elements: Vec<T> = bytes.chunks_exact(size_of::<T>()).map(T::get_be).collect();
    let c_order = ArrayD::from_shape_vec(shape, elements).expect("the bytes of the shape");
    finish(c_order, target)
}

/// Naive with byteorder: C order, then `BigEndian::write_*_into` of its slice.
fn byteorder_encode<T: Peer>(_: &Zarrs, array: ArrayViewD<'_, T>) -> Vec<u8> {
    let array = array.as_standard_layout();
    let elements = array.as_slice().expect("C order is one slice");
    let mut out = vec![0; size_of_val(elements)];
    T::write_be_into(elements, &mut out);
    out
}

/// Naive with byteorder: `BigEndian::read_*_into` into a `Vec`, a C-order array of it,
/// then [`finish`].
fn byteorder_decode<T: Peer>(
    _: &Zarrs,
    bytes: &[u8],
    shape: &[usize],
    target: Target<'_, T>,
) -> Option<ArrayD<T>> {
    let mut elements = vec![T::default(); bytes.len() / size_of::<T>()];
    T::read_be_into(bytes, &mut elements);
    let c_order = ArrayD::from_shape_vec(shape, elements).expect("the bytes of the shape");
    finish(c_order, target)
}

type Encode<T> = fn(&Zarrs, ArrayViewD<'_, T>) -> Vec<u8>;
type Decode<T> = fn(&Zarrs, &[u8], &[usize], Target<'_, T>) -> Option<ArrayD<T>>;

/// Where a path runs, and so how many threads it uses.
#[derive(Clone, Copy, PartialEq)]
enum Threads {
    /// On the calling thread, one thread: the peers and `memcpy`.
    Caller,
    /// Inside `install` of a rayon pool of one thread (`zarr-bytes 1 core`): the crate
    /// splits no conversion, as it does so only where `rayon::current_num_threads()` is
    /// more than 1 (`src/parallel.rs`), and the chunks of a grid go one after another.
    One,
    /// On the calling thread, the crate splitting large conversions and grids' chunks
    /// across rayon's global pool, of a thread per CPU (`zarr-bytes pool`).
    Global,
}

/// The one-thread pool of the [`Threads::One`] paths.
struct Pools {
    one: rayon::ThreadPool,
}

impl Pools {
    fn new() -> Pools {
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool of one thread");
        Pools { one }
    }

    /// `run()` where `threads` says.
    fn run<R: Send>(&self, threads: Threads, run: impl FnOnce() -> R + Send) -> R {
        match threads {
            Threads::One => self.one.install(run),
            Threads::Caller | Threads::Global => run(),
        }
    }

    /// The threads a path of `threads` uses: 1, or the global pool's.
    fn count(threads: Threads) -> usize {
        match threads {
            Threads::Caller | Threads::One => 1,
            Threads::Global => rayon::current_num_threads(),
        }
    }
}

/// A path of the whole arrays: its name, where it runs, its encoding and its decoding.
type Path<T> = (&'static str, Threads, Encode<T>, Decode<T>);

/// The paths of the whole arrays, in output order: this crate's, then the peers'.
fn paths<T: Peer>() -> [Path<T>; 5] {
    [
        (ONE_CORE, Threads::One, crate_encode::<T>, crate_decode::<T>),
        (POOL, Threads::Global, crate_encode::<T>, crate_decode::<T>),
        (ZARRS, Threads::Caller, zarrs_encode::<T>, zarrs_decode::<T>),
        (
            PER_ELEMENT,
            Threads::Caller,
            per_element_encode::<T>,
            per_element_decode::<T>,
        ),
        (
            BYTEORDER,
            Threads::Caller,
            byteorder_encode::<T>,
            byteorder_decode::<T>,
        ),
    ]
}

/// What the paths of one element type convert.
struct State<T> {
    arrays: Arrays<T>,
    /// The bytes of the arrays (all layouts hold the same values), from `zarr_bytes`.
    encoded: Vec<u8>,
    /// `memcpy`'s destination, allocated once.
    out: Vec<u8>,
    zarrs: Zarrs,
}

/// One timed run of a case.
type Run<T> = Box<dyn Fn(&mut State<T>) + Sync>;

/// One timed case: a path, where it runs, a direction and a layout.
struct Case<T> {
    name: &'static str,
    threads: Threads,
    direction: &'static str,
    layout: &'static str,
    run: Run<T>,
}

/// The first byte at which `got` and `want` differ, if any.
fn first_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i))
}

/// The arrays of `T` and their bytes, after checking that every layout encodes to the
/// same bytes with `zarr_bytes`.
fn state<T: Peer>(n: usize, layouts: &[&str]) -> Result<State<T>, String> {
    let arrays = Arrays::new(n, PLANES, T::value);
    let encoded = arrays.standard.to_zarr_bytes(Endian::Big);
    for &layout in layouts {
        let bytes = arrays.view(layout).to_zarr_bytes(Endian::Big);
        if let Some(at) = first_difference(&bytes, &encoded) {
            return Err(format!(
                "{} {layout}: zarr_bytes encodes it unlike the standard layout at byte {at}",
                T::NAME
            ));
        }
    }
    Ok(State {
        out: vec![0; encoded.len()],
        encoded,
        arrays,
        zarrs: Zarrs::new::<T>(),
    })
}

/// Check every path against `zarr_bytes` (which also runs each once, untimed, where it is
/// timed: page faults and the allocator's first growth are then out of the way): encoding
/// must give the bytes of `to_zarr_bytes(Endian::Big)`, and decoding them must give back
/// the array.
fn check<T: Peer>(s: &mut State<T>, layouts: &[&str], pools: &Pools) -> Result<(), String> {
    for &layout in layouts {
        let shape = s.arrays.view(layout).shape().to_vec();
        for (name, threads, encode, decode) in paths::<T>() {
            let what = format!("{name} {} {layout}", T::NAME);
            let bytes = pools.run(threads, || encode(&s.zarrs, s.arrays.view(layout)));
            if let Some(at) = first_difference(&bytes, &s.encoded) {
                return Err(format!(
                    "{what}: encoded unlike zarr_bytes at byte {at} ({} bytes, {} expected)",
                    bytes.len(),
                    s.encoded.len()
                ));
            }
            let same = if layout == "standard" {
                let array = pools.run(threads, || decode(&s.zarrs, &s.encoded, &shape, None));
                array.is_some_and(|a| a == s.arrays.standard.view().into_dyn())
            } else {
                // Zeros first, so that a path that writes nothing fails.
                s.arrays.view_mut(layout).fill(T::default());
                let State {
                    arrays,
                    encoded,
                    zarrs,
                    ..
                } = &mut *s;
                let target = arrays.view_mut(layout);
                pools.run(threads, || decode(zarrs, encoded, &shape, Some(target)));
                let expected = s
                    .arrays
                    .standard
                    .view()
                    .into_shape_with_order(shape.clone());
                expected.is_ok_and(|e| s.arrays.view(layout) == e)
            };
            // Compared with `==`, not `assert_eq!`, so that a failure prints no megabytes.
            if !same {
                return Err(format!("{what}: decoded to another array than was encoded"));
            }
        }
    }
    let mut copy = vec![0; s.encoded.len()];
    copy.copy_from_slice(&s.encoded);
    if copy != s.encoded {
        return Err(format!("{MEMCPY} {}: copied other bytes", T::NAME));
    }
    Ok(())
}

/// Every timed case of one element type: `memcpy`, then each layout's paths, encoding and
/// decoding.
fn cases<T: Peer>(layouts: &[&'static str]) -> Vec<Case<T>> {
    let mut cases: Vec<Case<T>> = vec![Case {
        name: MEMCPY,
        threads: Threads::Caller,
        direction: "n/a",
        layout: "contiguous",
        run: Box::new(|s: &mut State<T>| {
            s.out.copy_from_slice(black_box(&s.encoded));
            black_box(&mut s.out);
        }),
    }];
    // The bound of the paths that allocate what they return: a copy into a new `Vec`,
    // its pages faulted in and freed inside the run, as theirs are.
    cases.push(Case {
        name: MEMCPY_FRESH,
        threads: Threads::Caller,
        direction: "n/a",
        layout: "contiguous",
        run: Box::new(|s: &mut State<T>| {
            black_box(black_box(&s.encoded).to_vec());
        }),
    });
    for &layout in layouts {
        for (name, threads, encode, decode) in paths::<T>() {
            cases.push(Case {
                name,
                threads,
                direction: "encode",
                layout,
                run: Box::new(move |s: &mut State<T>| {
                    black_box(encode(&s.zarrs, black_box(s.arrays.view(layout))));
                }),
            });
            cases.push(Case {
                name,
                threads,
                direction: "decode",
                layout,
                run: Box::new(move |s: &mut State<T>| {
                    let shape = s.arrays.view(layout).shape().to_vec();
                    let target = (layout != "standard").then(|| s.arrays.view_mut(layout));
                    black_box(decode(&s.zarrs, black_box(&s.encoded), &shape, target));
                }),
            });
        }
    }
    cases
}

/// How long `run` takes on `s`, started from cold caches, run where `threads` says.
fn time<S: Send>(
    cold: &Cold,
    pools: &Pools,
    threads: Threads,
    run: &(dyn Fn(&mut S) + Sync),
    s: &mut S,
) -> Duration {
    cold.time(|| pools.run(threads, || run(s)))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// GB/s of `bytes` converted in the median of `times`, to two decimals.
fn gbps(bytes: usize, times: Vec<Duration>) -> f64 {
    let gbps = bytes as f64 / median(times).as_secs_f64().max(1e-12) / 1e9;
    (gbps * 100.0).round() / 100.0
}

/// What one JSON line says of a measurement besides its figures.
struct Row<'a> {
    name: &'a str,
    direction: &'a str,
    ty: &'a str,
    layout: &'a str,
    threads: Threads,
}

/// One measurement, `bytes` in each of `times`, as a JSON line on stdout.
fn report(row: Row<'_>, bytes: usize, times: Vec<Duration>) {
    let line = json!({
        "impl": row.name,
        "direction": row.direction,
        "type": row.ty,
        "layout": row.layout,
        "runs": times.len(),
        "gbps": gbps(bytes, times),
        "bytes": bytes,
        "threads": Pools::count(row.threads),
    });
    println!("{line}");
}

/// Check, then time every case of `T`, and print one JSON line per case.
fn measure<T: Peer>(options: &Options, cold: &Cold, pools: &Pools) -> Result<(), String> {
    // Whole planes of whole 4096-element rows, as `perf_table` cuts its arrays.
    let n = (options.size_mib << 20) / size_of::<T>();
    let n = n - n % (PLANES * 4096);
    eprintln!("{}: building the arrays of {n} elements", T::NAME);
    let mut s = state::<T>(n, &options.layouts)?;
    eprintln!("{}: checking every path against zarr_bytes", T::NAME);
    check(&mut s, &options.layouts, pools)?;
    let cases = cases::<T>(&options.layouts);
    let mut times = vec![Vec::with_capacity(options.runs); cases.len()];
    for run in 1..=options.runs {
        eprintln!("{}: run {run} of {}", T::NAME, options.runs);
        for (case, times) in cases.iter().zip(&mut times) {
            times.push(time(cold, pools, case.threads, &case.run, &mut s));
        }
    }
    let bytes = s.encoded.len();
    for (case, times) in cases.iter().zip(times) {
        let row = Row {
            name: case.name,
            direction: case.direction,
            ty: T::NAME,
            layout: case.layout,
            threads: case.threads,
        };
        report(row, bytes, times);
    }
    Ok(())
}

struct Options {
    runs: usize,
    size_mib: usize,
    types: Vec<&'static str>,
    layouts: Vec<&'static str>,
    /// MiB read before each timed run; `None` for twice the largest cache.
    evict_mib: Option<usize>,
    /// Whether the grid rows run, after the whole arrays.
    grid: bool,
    /// MiB of the grid rows' array.
    grid_mib: usize,
    /// MiB per chunk of the grid rows.
    chunk_mib: usize,
}

/// The names of `list` (comma-separated) that are among `known`, in `known`'s order.
fn pick(flag: &str, list: &str, known: &[&'static str]) -> Result<Vec<&'static str>, String> {
    let asked: Vec<&str> = list.split(',').collect();
    if let Some(bad) = asked.iter().find(|a| !known.contains(a)) {
        return Err(format!(
            "{flag}: unknown {bad:?}; known: {}",
            known.join(", ")
        ));
    }
    Ok(known
        .iter()
        .copied()
        .filter(|k| asked.contains(k))
        .collect())
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        runs: 7,
        size_mib: 64,
        types: TYPES.to_vec(),
        layouts: LAYOUTS.to_vec(),
        evict_mib: None,
        grid: true,
        grid_mib: 256,
        chunk_mib: 2,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let number = |value: String, least: usize| match value.parse() {
            Ok(n) if n >= least => Ok(n),
            _ => Err(format!(
                "{arg} needs an integer of {least} or more, not {value:?}"
            )),
        };
        match arg.as_str() {
            "--runs" => options.runs = number(value()?, 1)?,
            "--size-mib" => options.size_mib = number(value()?, 1)?,
            "--evict-mib" => options.evict_mib = Some(number(value()?, 0)?),
            "--types" => options.types = pick("--types", &value()?, &TYPES)?,
            "--layouts" => options.layouts = pick("--layouts", &value()?, &LAYOUTS)?,
            "--grid" => options.grid = true,
            "--no-grid" => options.grid = false,
            "--grid-mib" => options.grid_mib = number(value()?, 1)?,
            "--chunk-mib" => options.chunk_mib = number(value()?, 1)?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// The CPU model and the number of CPUs, from `/proc/cpuinfo`.
fn machine() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim())
        })
        .unwrap_or("unknown CPU");
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model}, {cpus} CPUs, {}", std::env::consts::ARCH)
}

/// The version of zarrs that `Cargo.lock` resolved.
fn zarrs_version() -> &'static str {
    LOCK.split("[[package]]")
        .find(|p| p.lines().any(|l| l.trim() == "name = \"zarrs\""))
        .and_then(|p| p.lines().find_map(|l| l.trim().strip_prefix("version = ")))
        .map_or("unknown", |v| v.trim_matches('"'))
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("peers: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{}",
        json!({ "machine": machine(), "zarrs": zarrs_version() })
    );
    let cold = Cold::new(options.evict_mib);
    let pools = Pools::new();
    eprintln!(
        "reading {} MiB before each timed run; the global pool has {} threads",
        cold.mib(),
        rayon::current_num_threads()
    );
    for &ty in &options.types {
        let result = match ty {
            "u8" => measure::<u8>(&options, &cold, &pools),
            "u16" => measure::<u16>(&options, &cold, &pools),
            "f32" => measure::<f32>(&options, &cold, &pools),
            "f64" => measure::<f64>(&options, &cold, &pools),
            _ => unreachable!("a type of TYPES"),
        };
        if let Err(message) = result {
            eprintln!("peers: {message}");
            return ExitCode::FAILURE;
        }
    }
    if options.grid {
        if let Err(message) = grid::measure(&options, &cold, &pools) {
            eprintln!("peers: {message}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
