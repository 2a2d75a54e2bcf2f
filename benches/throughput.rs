//! Encode and decode throughput against a memcpy of the same bytes, in the same run.
//!
//! Run with `cargo bench`, or `cargo bench -- <filter>` for some groups only, e.g.
//! `cargo bench -- f64_64MiB` or `cargo bench -- '_4KiB/(memcpy|to_zarr)'`.
//!
//! One group per element type (`f64`, `f32`, `u16`, `complex128`, `u8`, `bool`) and array
//! size: 4 KiB and 1 MiB, where per-call overhead shows, measured back to back in cache; and
//! 64 MiB, where memory bandwidth shows, measured as `perf_table` measures it, every
//! iteration from cold caches (the `cold` module). Each group holds two baselines:
//!
//! - `memcpy_prealloc`: `dst.copy_from_slice(src)` into a buffer allocated once; compare the
//!   paths that write into existing memory or a sink with it.
//! - `memcpy_fresh`: `src.to_vec()`, allocating and freeing inside the timed loop; compare
//!   the paths that return a new `Vec` or array with it, page faults included.
//!
//! Benchmark names are `path/layout/endian`. Layouts: `standard` (C order), `fortran`,
//! `transposed` (the `.t()` view of a C-order array), `3d_swapped` (a 3-D C-order array
//! with its last two axes swapped) and `3d_201` (a 3-D C-order array with its axes permuted
//! by `(2, 0, 1)`, whose contiguous axis is 4 elements long). One-byte elements have no byte order and are measured
//! once, as `na`. Every call is unwrapped, so a failing path panics rather than timing
//! its error. `write_zarr_bytes_sink` of a standard array whose bytes need no conversion
//! hands its memory to the sink in one call: it measures call overhead only.
//!
//! Throughput is in decimal GB/s (`Throughput::BytesDecimal`), as `perf_table` prints it.
//! A full run takes about thirteen minutes on two cores; a filter runs only what it names.

use std::hint::black_box;
use std::io;
use std::time::Duration;

mod cold;
mod shapes;

use cold::Cold;
use shapes::{shape2, shape3};

use criterion::{criterion_group, criterion_main, Bencher, Criterion, SamplingMode, Throughput};
use ndarray::{Array2, Array3, ShapeBuilder};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Element, Endian};

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

fn size_name(bytes: usize) -> String {
    if bytes >= MIB {
        format!("{}MiB", bytes / MIB)
    } else {
        format!("{}KiB", bytes / KIB)
    }
}

/// Time `run` as criterion asks: with `cold`, every iteration from cold caches (the
/// eviction before it is not timed); otherwise back to back, in whatever the caches hold.
fn timed<O>(b: &mut Bencher, cold: Option<&Cold>, mut run: impl FnMut() -> O) {
    match cold {
        Some(cold) => b.iter_custom(|iters| (0..iters).map(|_| cold.time(&mut run)).sum()),
        None => b.iter(run),
    }
}

/// One group: every path for arrays of `T` holding `bytes` bytes, each iteration from
/// cold caches with `cold`.
fn group<T: Element>(
    c: &mut Criterion,
    ty: &str,
    bytes: usize,
    cold: Option<&Cold>,
    value: fn(usize) -> T,
) {
    let n = bytes / T::SIZE;
    let (rows, cols) = shape2(n);
    let (d0, d1, d2) = shape3(n);
    let dim = (rows, cols);
    // The same logical values in every layout, so every path converts the same bytes.
    let standard = Array2::from_shape_fn(dim, |(i, j)| value(i * cols + j));
    let mut fortran = Array2::from_shape_fn(dim.f(), |(i, j)| value(i * cols + j));
    let mut transposed = Array2::from_shape_fn((cols, rows), |(j, i)| value(i * cols + j));
    let mut swapped = Array3::from_shape_fn((d0, d2, d1), |(a, k, j)| value((a * d1 + j) * d2 + k));
    let mut planes = Array3::from_shape_fn((d1, d2, d0), |(j, k, a)| value((a * d1 + j) * d2 + k));
    let mut decoded = standard.clone();
    let little = standard.to_zarr_bytes(Endian::Little);
    let big = standard.to_zarr_bytes(Endian::Big);
    let mut out = vec![0u8; bytes];
    // Compared with `==`, not `assert_eq!`, so that a failure does not print megabytes.
    let swapped_view = swapped.view().permuted_axes([0, 2, 1]);
    for (layout, encoded) in [
        ("fortran", fortran.to_zarr_bytes(Endian::Big)),
        ("transposed", transposed.t().to_zarr_bytes(Endian::Big)),
        ("3d_swapped", swapped_view.to_zarr_bytes(Endian::Big)),
        (
            "3d_201",
            planes
                .view()
                .permuted_axes([2, 0, 1])
                .to_zarr_bytes(Endian::Big),
        ),
    ] {
        assert!(encoded == big, "{layout} encodes differently from standard");
    }

    let mut g = c.benchmark_group(format!("{ty}_{}", size_name(bytes)));
    g.throughput(Throughput::BytesDecimal(bytes as u64));
    if cold.is_some() {
        // Tens of milliseconds per call, and an untimed eviction of about 70 ms before
        // each. Criterion plans its samples by wall time, eviction included: 2.5 s is ten
        // samples of two to four calls (`memcpy_fresh`, the slowest, takes 0.2 s with its
        // eviction).
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(2500))
            .sampling_mode(SamplingMode::Flat);
    } else {
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(500));
    }

    g.bench_function("memcpy_prealloc", |b| {
        timed(b, cold, || out.copy_from_slice(black_box(&little)))
    });
    g.bench_function("memcpy_fresh", |b| {
        timed(b, cold, || black_box(&little).to_vec())
    });

    let endians: &[Endian] = if T::SIZE == 1 {
        &[Endian::NATIVE]
    } else {
        &[Endian::Little, Endian::Big]
    };
    for &e in endians {
        let name = if T::SIZE == 1 { "na" } else { e.as_str() };
        let encoded = match e {
            Endian::Little => &little,
            Endian::Big => &big,
        };
        let id = |path: &str, layout: &str| format!("{path}/{layout}/{name}");

        let path = "encode_zarr_bytes_into";
        g.bench_function(id(path, "standard"), |b| {
            timed(b, cold, || {
                black_box(&standard)
                    .encode_zarr_bytes_into(e, &mut out)
                    .unwrap()
            })
        });
        g.bench_function(id(path, "fortran"), |b| {
            timed(b, cold, || {
                black_box(&fortran)
                    .encode_zarr_bytes_into(e, &mut out)
                    .unwrap()
            })
        });
        g.bench_function(id(path, "transposed"), |b| {
            timed(b, cold, || {
                black_box(&transposed)
                    .t()
                    .encode_zarr_bytes_into(e, &mut out)
                    .unwrap()
            })
        });
        g.bench_function(id(path, "3d_swapped"), |b| {
            timed(b, cold, || {
                let view = black_box(&swapped).view().permuted_axes([0, 2, 1]);
                view.encode_zarr_bytes_into(e, &mut out).unwrap()
            })
        });
        g.bench_function(id(path, "3d_201"), |b| {
            timed(b, cold, || {
                let view = black_box(&planes).view().permuted_axes([2, 0, 1]);
                view.encode_zarr_bytes_into(e, &mut out).unwrap()
            })
        });

        let path = "decode_zarr_bytes_into";
        g.bench_function(id(path, "standard"), |b| {
            timed(b, cold, || {
                decoded
                    .decode_zarr_bytes_into(black_box(encoded), e)
                    .unwrap()
            })
        });
        g.bench_function(id(path, "fortran"), |b| {
            timed(b, cold, || {
                fortran
                    .decode_zarr_bytes_into(black_box(encoded), e)
                    .unwrap()
            })
        });
        g.bench_function(id(path, "transposed"), |b| {
            timed(b, cold, || {
                let mut view = transposed.view_mut().reversed_axes();
                view.decode_zarr_bytes_into(black_box(encoded), e).unwrap()
            })
        });
        g.bench_function(id(path, "3d_swapped"), |b| {
            timed(b, cold, || {
                let mut view = swapped.view_mut().permuted_axes([0, 2, 1]);
                view.decode_zarr_bytes_into(black_box(encoded), e).unwrap()
            })
        });
        g.bench_function(id(path, "3d_201"), |b| {
            timed(b, cold, || {
                let mut view = planes.view_mut().permuted_axes([2, 0, 1]);
                view.decode_zarr_bytes_into(black_box(encoded), e).unwrap()
            })
        });

        g.bench_function(id("to_zarr_bytes", "standard"), |b| {
            timed(b, cold, || black_box(&standard).to_zarr_bytes(e))
        });
        g.bench_function(id("from_zarr_bytes", "standard"), |b| {
            timed(b, cold, || {
                Array2::<T>::from_zarr_bytes(black_box(encoded), dim, e).unwrap()
            })
        });

        let path = "write_zarr_bytes_sink";
        g.bench_function(id(path, "standard"), |b| {
            timed(b, cold, || {
                black_box(&standard)
                    .write_zarr_bytes(e, black_box(io::sink()))
                    .unwrap()
            })
        });
        g.bench_function(id(path, "transposed"), |b| {
            timed(b, cold, || {
                let view = black_box(&transposed).t();
                view.write_zarr_bytes(e, black_box(io::sink())).unwrap()
            })
        });

        g.bench_function(id("read_zarr_bytes_slice", "standard"), |b| {
            timed(b, cold, || {
                Array2::<T>::read_zarr_bytes(black_box(&encoded[..]), dim, e).unwrap()
            })
        });
    }
    g.finish();
}

fn throughput(c: &mut Criterion) {
    let evicted = Cold::new(None);
    for bytes in [4 * KIB, MIB, 64 * MIB] {
        // The small arrays are measured in cache, where they live; the large ones from
        // memory, as a new user's arrays would be.
        let cold = (bytes >= 16 * MIB).then_some(&evicted);
        group(c, "f64", bytes, cold, |i| i as f64 * 0.5 - 1e6);
        group(c, "f32", bytes, cold, |i| i as f32 * 0.25 - 1e3);
        group(c, "u16", bytes, cold, |i| i as u16);
        group(c, "complex128", bytes, cold, |i| {
            Complex::new(i as f64, -(i as f64) * 0.25)
        });
        group(c, "u8", bytes, cold, |i| (i % 251) as u8);
        group(c, "bool", bytes, cold, |i| i % 3 == 0);
    }
}

criterion_group! {
    name = benches;
    // Fewer bootstrap resamples and no plots: the analysis would otherwise take longer
    // than the measurement itself.
    config = Criterion::default().nresamples(10_000).without_plots();
    targets = throughput
}
criterion_main!(benches);
