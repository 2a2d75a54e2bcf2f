//! Encode and decode throughput against a memcpy of the same bytes, in the same run.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndarray::Array2;
use zarr_bytes::{BytesDecode, BytesEncode, Endian};

fn standard_f64(c: &mut Criterion) {
    let n = 1 << 17; // 1 MiB of f64
    let a = Array2::from_shape_fn((n / 1024, 1024), |(i, j)| (i * 1024 + j) as f64);
    let bytes = a.to_zarr_bytes(Endian::Big);
    let mut group = c.benchmark_group("f64_1MiB");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let src = bytes.clone();
    let mut dst = vec![0u8; bytes.len()];
    group.bench_function("memcpy_prealloc", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    for endian in [Endian::Little, Endian::Big] {
        group.bench_with_input(
            BenchmarkId::new("to_zarr_bytes", endian),
            &endian,
            |b, &e| b.iter(|| black_box(&a).to_zarr_bytes(e)),
        );
        group.bench_with_input(
            BenchmarkId::new("from_zarr_bytes", endian),
            &endian,
            |b, &e| b.iter(|| Array2::<f64>::from_zarr_bytes(black_box(&bytes), a.dim(), e)),
        );
    }
    group.finish();
}

criterion_group!(benches, standard_f64);
criterion_main!(benches);
