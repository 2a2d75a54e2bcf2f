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
//! Benchmark names are `path/layout/endian`. The encoding, decoding and writing paths are
//! measured in every layout of the `arrays` module (shared with `perf_table`), spelled
//! with `_` here: `standard`, `fortran`, `transposed`, `3d_swapped`, `3d_201`,
//! `fortran_part`, and the chunks of arrays twice as long along each axis,
//! `fortran_chunk`, `3d_swapped_chunk` and `standard_chunk`. One-byte
//! elements have no byte order and are measured once, as `na`. Every call is unwrapped,
//! so a failing path panics rather than timing its error. `write_zarr_bytes_sink` writes
//! to a sink whose writes the compiler must assume are read; of a standard array whose
//! bytes need no conversion it hands the memory to the sink in one call, so it measures
//! call overhead only.
//!
//! Throughput is in decimal GB/s (`Throughput::BytesDecimal`), as `perf_table` prints it.
//! A full run took about fifteen minutes on two cores before the `fortran_part` and chunk
//! rows (the write rows of every layout added about two), which add four layouts and were
//! not timed as a whole; a filter runs only what it names, e.g. `cargo bench --
//! 'f64_64MiB/.*chunk'` for the chunks of `f64` arrays.
//!
//! The grid groups (`f64_grid_32MiB`, `u16_grid_32MiB`, big endian, and `u8_grid_32MiB`)
//! cut an array of about 32 MiB into chunks of 2 MiB with a `ChunkGrid`, in the layouts
//! `fortran_grid`, `3d_swapped_grid` and `standard_grid` (shapes and edge chunks:
//! `arrays::grid_shapes`), and time, each iteration from cold caches,
//! `encode_zarr_chunks` (to a sink that reads each chunk's first byte and drops it) and
//! `decode_zarr_chunks_into` (from the chunks encoded once, lent from a `Vec` in grid
//! order) of every chunk, beside `encode_zarr_bytes_into` and `decode_zarr_bytes_into` of
//! the same array whole and `memcpy_prealloc/<layout>` of its bytes; the throughput is the
//! array's bytes. With `--features rayon` the chunks spread over the thread pool.
//! `perf_table` prints the same paths at 256 MiB as its "grid / whole" table.
//!
//! The same groups time the sparse paths, with a fill value that is not zero (42.5,
//! 0xa5a5, 0xff): `encode_zarr_chunks_sparse` of the array (every chunk lent to a sink that
//! reads its first byte) and `encode_zarr_chunks_sparse_fill` of an array of the same
//! layout holding only the fill value (every chunk left out), then the whole array built
//! from the chunks with every tenth missing, `from_zarr_chunks` against
//! `from_elem_decode_zarr_chunks_into` (`Array::from_elem` of the fill value, then
//! `decode_zarr_chunks_into`), both allocating inside the timed call. `perf_table
//! --sparse` prints them at 256 MiB.

use std::hint::black_box;
use std::time::Duration;

mod arrays;
mod cold;

use arrays::{Arrays, GRIDS, Gridded, LAYOUTS, Sink, source, source_missing, touch, touch_lent};
use cold::Cold;

use criterion::{Bencher, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ndarray::{Array2, ArrayD};
use num_complex::Complex;
use zarr_bytes::{
    BytesDecode, BytesDecodeInto, BytesEncode, ChunkDecode, ChunkDecodeInto, ChunkEncode, Element,
    Endian,
};

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
    let mut arrays = Arrays::new(bytes / T::SIZE, 4, value);
    let dim = arrays.standard.dim();
    let little = arrays.standard.to_zarr_bytes(Endian::Little);
    let big = arrays.standard.to_zarr_bytes(Endian::Big);
    let mut out = vec![0u8; bytes];
    for layout in LAYOUTS {
        // Compared with `==`, not `assert_eq!`, so that a failure does not print megabytes.
        let encoded = arrays.view(layout).to_zarr_bytes(Endian::Big);
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
        // Criterion's names spell the layouts with `_`: `3d_swapped`, `3d_201`.
        let id = |path: &str, layout: &str| {
            let layout = layout.replace('-', "_");
            format!("{path}/{layout}/{name}")
        };

        for layout in LAYOUTS {
            g.bench_function(id("encode_zarr_bytes_into", layout), |b| {
                timed(b, cold, || {
                    let view = black_box(&arrays).view(layout);
                    view.encode_zarr_bytes_into(&mut out, e).unwrap()
                })
            });
        }
        for layout in LAYOUTS {
            g.bench_function(id("decode_zarr_bytes_into", layout), |b| {
                timed(b, cold, || {
                    let mut view = arrays.view_mut(layout);
                    view.decode_zarr_bytes_into(black_box(encoded), e).unwrap()
                })
            });
        }

        g.bench_function(id("to_zarr_bytes", "standard"), |b| {
            timed(b, cold, || black_box(&arrays.standard).to_zarr_bytes(e))
        });
        g.bench_function(id("from_zarr_bytes", "standard"), |b| {
            timed(b, cold, || {
                Array2::<T>::from_zarr_bytes(black_box(encoded), dim, e).unwrap()
            })
        });

        for layout in LAYOUTS {
            g.bench_function(id("write_zarr_bytes_sink", layout), |b| {
                timed(b, cold, || {
                    let view = black_box(&arrays).view(layout);
                    view.write_zarr_bytes(Sink, e).unwrap()
                })
            });
        }

        g.bench_function(id("read_zarr_bytes_slice", "standard"), |b| {
            timed(b, cold, || {
                Array2::<T>::read_zarr_bytes(black_box(&encoded[..]), dim, e).unwrap()
            })
        });
    }
    g.finish();
}

/// One grid group: every chunk of each grid layout's array of `T` (about `bytes` bytes in
/// chunks of `chunk_bytes`, big endian) encoded and decoded, beside the same array whole
/// and a memcpy of its bytes, and the sparse paths with the fill value `fill`, each
/// iteration from cold caches.
fn grid_group<T: Element + PartialEq>(
    c: &mut Criterion,
    ty: &str,
    bytes: usize,
    chunk_bytes: usize,
    cold: &Cold,
    (value, fill): (fn(usize) -> T, T),
) {
    let e = Endian::Big;
    let name = if T::SIZE == 1 { "na" } else { e.as_str() };
    let mut g = c.benchmark_group(format!("{ty}_grid_{}", size_name(bytes)));
    // As the 64 MiB groups: ten samples of a few calls, each after an untimed eviction.
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(2500))
        .sampling_mode(SamplingMode::Flat);
    let cold = Some(cold);
    for (layout, _) in GRIDS {
        let mut gridded = Gridded::new(layout, bytes, chunk_bytes, 4, value);
        let chunks = gridded.encode_chunks(e);
        gridded.check(&chunks, e);
        let encoded = gridded.array.to_zarr_bytes(e);
        let mut out = vec![0u8; encoded.len()];
        g.throughput(Throughput::BytesDecimal(encoded.len() as u64));
        let layout = layout.replace('-', "_");
        let id = |path: &str| format!("{path}/{layout}/{name}");

        g.bench_function(format!("memcpy_prealloc/{layout}"), |b| {
            timed(b, cold, || out.copy_from_slice(black_box(&encoded)))
        });
        g.bench_function(id("encode_zarr_bytes_into"), |b| {
            timed(b, cold, || {
                let view = black_box(&gridded.array).view();
                view.encode_zarr_bytes_into(&mut out, e).unwrap()
            })
        });
        g.bench_function(id("encode_zarr_chunks"), |b| {
            timed(b, cold, || {
                let Gridded { array, grid } = black_box(&gridded);
                array
                    .encode_zarr_chunks(grid, T::zeroed(), e, touch)
                    .unwrap()
            })
        });
        g.bench_function(id("decode_zarr_bytes_into"), |b| {
            timed(b, cold, || {
                let array = &mut gridded.array;
                array
                    .decode_zarr_bytes_into(black_box(&encoded), e)
                    .unwrap()
            })
        });
        g.bench_function(id("decode_zarr_chunks_into"), |b| {
            timed(b, cold, || {
                let Gridded { array, grid } = &mut gridded;
                let chunks = source(grid, black_box(&chunks));
                array
                    .decode_zarr_chunks_into(grid, T::zeroed(), e, chunks)
                    .unwrap()
            })
        });

        let fills = gridded.only(fill);
        g.bench_function(id("encode_zarr_chunks_sparse"), |b| {
            timed(b, cold, || {
                let Gridded { array, grid } = black_box(&gridded);
                array
                    .encode_zarr_chunks_sparse(grid, fill, e, touch_lent)
                    .unwrap()
            })
        });
        g.bench_function(id("encode_zarr_chunks_sparse_fill"), |b| {
            timed(b, cold, || {
                let Gridded { array, grid } = black_box(&fills);
                array
                    .encode_zarr_chunks_sparse(grid, fill, e, touch_lent)
                    .unwrap()
            })
        });
        drop(fills);
        let grid = &gridded.grid;
        g.bench_function(id("from_elem_decode_zarr_chunks_into"), |b| {
            timed(b, cold, || {
                let chunks = source_missing(grid, black_box(&chunks), 10);
                let mut array = ArrayD::from_elem(grid.array_shape(), fill);
                array
                    .decode_zarr_chunks_into(grid, fill, e, chunks)
                    .unwrap();
                array
            })
        });
        g.bench_function(id("from_zarr_chunks"), |b| {
            timed(b, cold, || {
                let chunks = source_missing(grid, black_box(&chunks), 10);
                ArrayD::<T>::from_zarr_chunks(grid, fill, e, chunks).unwrap()
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
    // Every chunk of a grid, from cold caches: 16 chunks, enough to spread over the pool.
    let (bytes, chunk) = (32 * MIB, 2 * MIB);
    // The fill values of the sparse rows are not zero, so that an array of only the fill
    // value is written memory.
    let f64s = |i| i as f64 * 0.5 - 1e6;
    grid_group(c, "f64", bytes, chunk, &evicted, (f64s, 42.5));
    grid_group(c, "u16", bytes, chunk, &evicted, (|i| i as u16, 0xa5a5));
    grid_group(c, "u8", bytes, chunk, &evicted, (|i| (i % 251) as u8, 0xff));
}

criterion_group! {
    name = benches;
    // Fewer bootstrap resamples and no plots: the analysis would otherwise take longer
    // than the measurement itself.
    config = Criterion::default().nresamples(10_000).without_plots();
    targets = throughput
}
criterion_main!(benches);
