//! Arrays above the parallel threshold: the same bytes and elements as the reference, in
//! every layout, on a pool of two threads whatever the machine has, so that they are split
//! (the README's test command, `cargo test --features rayon`), and on a pool of one thread.
//! Without the feature they run on the calling thread.

use crate::common::{Bits, reference_bytes, round_trip_in_every_layout, same_bits, standard};
use ndarray::{ArrayD, ShapeBuilder};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, Endian, Error};

/// `f` on a pool of `threads` threads with the `rayon` feature; on the calling thread
/// without it.
fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "rayon")]
    return rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(f);
    #[cfg(not(feature = "rayon"))]
    {
        let _ = threads;
        f()
    }
}

fn check<A: Bits>(shape: &[usize]) {
    on_threads(2, || check_here::<A>(shape))
}

fn check_here<A: Bits>(shape: &[usize]) {
    let a = standard::<A>(shape);
    for endian in [Endian::Little, Endian::Big] {
        let expected = reference_bytes(a.view(), endian);
        assert!(expected.len() > 2 << 20, "large enough to be split");
        let decoded = ArrayD::<A>::from_zarr_bytes(&expected, shape, endian).unwrap();
        assert!(same_bits(decoded.view(), a.view()));
        round_trip_in_every_layout(a.view(), &expected, endian, 0x11, "");
    }
}

#[test]
fn large_f64() {
    check::<f64>(&[601, 1031]);
}

/// Tall enough that the parts of arrays in Fortran order are cut into parts of whole
/// blocks (2796 rows of `u8` with 1500 columns) on the pool.
#[test]
fn large_u8_tall() {
    check::<u8>(&[3000, 1500]);
}

/// Columns a multiple of 4 KiB apart (8192 rows of 1-byte elements in Fortran order,
/// transposed, reversed), which decode in rectangles 4 columns wide, with 45 columns right
/// of the first tile's 256: `u8`, and `bool`, whose bytes are checked as they are stored.
#[test]
fn large_bytes_columns_4_kib_apart() {
    check::<u8>(&[8192, 301]);
    check::<bool>(&[8192, 301]);
}

#[test]
fn large_u16_3d() {
    check::<u16>(&[3, 700, 1013]);
}

#[test]
fn large_complex64() {
    check::<Complex<f32>>(&[257, 1300]);
}

/// A pool of one thread converts on its thread, with the same results.
#[cfg(feature = "rayon")]
#[test]
fn large_u16_on_one_thread() {
    on_threads(1, || check_here::<u16>(&[3, 700, 1013]));
}

#[test]
fn large_bool_errors_name_the_first_bad_byte() {
    let n = 3 << 20;
    let mut bytes = vec![1u8; n];
    bytes[n - 7] = 9;
    bytes[2_500_000] = 4;
    // A new array, an array in standard layout, a transposed view: the same first byte.
    let mut a = ndarray::Array2::<bool>::from_elem((n / 1024, 1024), false);
    let errors = on_threads(2, || {
        [
            ndarray::Array1::<bool>::from_zarr_bytes(&bytes, n, Endian::Big).unwrap_err(),
            a.decode_zarr_bytes_into(&bytes, Endian::Big).unwrap_err(),
            a.view_mut()
                .reversed_axes()
                .decode_zarr_bytes_into(&bytes, Endian::Big)
                .unwrap_err(),
        ]
    });
    for e in errors {
        assert!(
            matches!(
                e,
                Error::InvalidBool {
                    offset: 2_500_000,
                    value: 4
                }
            ),
            "{e:?}"
        );
    }
}

/// An array in Fortran order whose columns lie 8 KiB apart, which decodes in rectangles of
/// its own: the first bad byte is named, whichever rectangle, tile or part of the pool
/// holds it, and once the bytes are all valid, every element is decoded.
#[test]
fn large_bool_errors_with_columns_4_kib_apart() {
    let (rows, cols) = (8192, 301);
    let mut bytes: Vec<u8> = (0..rows * cols).map(|i| (i % 3 == 0) as u8).collect();
    bytes[rows * cols - 2] = 255;
    bytes[1_234_567] = 2;
    let mut a = ndarray::Array2::<bool>::from_elem((rows, cols).f(), false);
    let e = on_threads(2, || {
        a.decode_zarr_bytes_into(&bytes, Endian::Big).unwrap_err()
    });
    assert!(
        matches!(
            e,
            Error::InvalidBool {
                offset: 1_234_567,
                value: 2
            }
        ),
        "{e:?}"
    );
    bytes[1_234_567] = 0;
    let e = on_threads(2, || {
        a.decode_zarr_bytes_into(&bytes, Endian::Big).unwrap_err()
    });
    let last = rows * cols - 2;
    assert!(
        matches!(e, Error::InvalidBool { offset, value: 255 } if offset == last),
        "{e:?}"
    );
    bytes[last] = 1;
    on_threads(2, || a.decode_zarr_bytes_into(&bytes, Endian::Big).unwrap());
    let stream = a.iter();
    assert!(stream.zip(&bytes).all(|(&x, &b)| u8::from(x) == b));
}

/// A part of an array in Fortran order, cut into parts of whole blocks on the pool (2048
/// rows, the first 4 MiB of the stream, then 952): the first bad byte of the second part is
/// named at its offset in the whole stream.
#[test]
fn large_bool_errors_in_a_part_name_the_first_bad_byte() {
    let (rows, cols) = (3000, 2048);
    let mut bytes = vec![0u8; rows * cols];
    bytes[rows * cols - 7] = 2;
    bytes[5_000_000] = 7;
    let mut storage = ndarray::Array2::<bool>::from_elem((rows + 16, cols).f(), true);
    let e = on_threads(2, || {
        storage
            .slice_mut(ndarray::s![..rows, ..])
            .decode_zarr_bytes_into(&bytes, Endian::Little)
            .unwrap_err()
    });
    assert!(
        matches!(
            e,
            Error::InvalidBool {
                offset: 5_000_000,
                value: 7
            }
        ),
        "{e:?}"
    );
    // The same bytes, valid, decode to the same elements as on one thread.
    bytes[rows * cols - 7] = 1;
    bytes[5_000_000] = 1;
    on_threads(2, || {
        storage
            .slice_mut(ndarray::s![..rows, ..])
            .decode_zarr_bytes_into(&bytes, Endian::Little)
            .unwrap()
    });
    let part = storage.slice(ndarray::s![..rows, ..]);
    assert!(part.iter().zip(&bytes).all(|(&x, &b)| u8::from(x) == b));
    assert!(storage.slice(ndarray::s![rows.., ..]).iter().all(|&x| x));
}

/// Grids on the pool: every chunk as on one thread, in Fortran order and a permuted stack,
/// with chunks above the threshold (each then converted on one thread) and below it.
#[test]
fn grids_of_chunks_on_the_pool() {
    on_threads(2, || {
        crate::grid::check::<f64>(&[1100, 700], &[600, 512], 1, true, 5);
        crate::grid::check::<u16>(&[3, 300, 500], &[2, 128, 256], 4, false, 6);
        crate::grid::check::<u8>(&[700, 900], &[256, 256], 3, false, 7);
    })
}

/// Sparse grids and whole arrays from their chunks on the pool: the buffers each thread
/// reuses hold each chunk's own bytes, and every chunk is as on one thread.
#[test]
fn sparse_grids_on_the_pool() {
    on_threads(2, || {
        crate::sparse::check::<f64>(&[1100, 700], &[600, 512], 1, true, 5);
        crate::sparse::check::<u16>(&[3, 300, 500], &[2, 128, 256], 4, false, 6);
        crate::sparse::check::<u8>(&[700, 900], &[128, 256], 3, false, 7);
        crate::sparse::check::<u8>(&[90, 100], &[8, 8], 0, false, 8);
    })
}

/// On the pool, the sink's first error stops the work and comes back as it is.
#[test]
fn grid_errors_on_the_pool() {
    use zarr_bytes::{ChunkEncode, ChunkGrid};
    on_threads(2, || {
        let a = standard::<u32>(&[64, 64]).reversed_axes();
        let grid = ChunkGrid::new(&[64, 64], &[8, 8]).unwrap();
        let r = a.encode_zarr_chunks(&grid, 0, Endian::Big, |index, _| {
            if index == [5, 6] {
                return Err(Error::InvalidBool {
                    offset: 56,
                    value: 6,
                });
            }
            Ok(())
        });
        assert_eq!(
            r,
            Err(Error::InvalidBool {
                offset: 56,
                value: 6
            })
        );
    })
}
