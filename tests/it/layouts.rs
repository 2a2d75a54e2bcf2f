//! Every layout encodes in logical C order and decodes back into place.

use crate::common::{
    Bits, LAYOUTS, reference_bytes, round_trip_in_every_layout, same_bits, standard,
};
use half::f16;
use ndarray::{Array, Array1, Array2, ArrayD, IxDyn, ShapeBuilder, arr0};
use num_complex::Complex;
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Endian};

/// Shapes that hit every traversal case: scalars, empties, lines, odd sizes, tile edges.
const SHAPES: &[&[usize]] = &[
    &[],
    &[0],
    &[3, 0, 2],
    &[1],
    &[7],
    &[1, 9],
    &[9, 1],
    &[2, 3],
    &[67, 131],
    &[64, 64],
    &[65, 129],
    // Past several tiles both ways for every element size (1-byte tiles are 224 × 256
    // encoding and 336 × 256 decoding).
    &[347, 521],
    &[1, 200],
    &[200, 1],
    &[3, 5, 7],
    &[2, 70, 66],
    // Three planes wider than a tile's 256 bytes of columns (the `Permuted` layout stores
    // them interleaved, as an RGB image, and views them plane axis first).
    &[3, 67, 301],
    &[2, 1, 3, 2],
    &[2, 3, 1, 4, 3],
];

fn check_type<A: Bits>() {
    for &shape in SHAPES {
        let a = standard::<A>(shape);
        for endian in [Endian::Little, Endian::Big] {
            let expected = reference_bytes(a.view(), endian);
            round_trip_in_every_layout(a.view(), &expected, endian, 0xa5, "");
            let decoded = ArrayD::<A>::from_zarr_bytes(&expected, shape, endian).unwrap();
            assert!(decoded.is_standard_layout());
            assert!(same_bits(decoded.view(), a.view()), "{shape:?} {endian:?}");
            let read = ArrayD::<A>::read_zarr_bytes(&expected[..], shape, endian).unwrap();
            assert!(same_bits(read.view(), a.view()), "{shape:?} {endian:?}");
        }
    }
}

#[test]
fn layouts_u8() {
    check_type::<u8>();
}
#[test]
fn layouts_i8() {
    check_type::<i8>();
}
#[test]
fn layouts_u16() {
    check_type::<u16>();
}
#[test]
fn layouts_i32() {
    check_type::<i32>();
}
#[test]
fn layouts_f32() {
    check_type::<f32>();
}
#[test]
fn layouts_f16() {
    check_type::<f16>();
}
#[test]
fn layouts_f64() {
    check_type::<f64>();
}
#[test]
fn layouts_complex64() {
    check_type::<Complex<f32>>();
}
#[test]
fn layouts_complex128() {
    check_type::<Complex<f64>>();
}
#[test]
fn layouts_r24() {
    check_type::<[u8; 3]>();
}
#[test]
fn layouts_complex_float16() {
    check_type::<Complex<half::bf16>>();
    check_type::<Complex<f16>>();
}
#[test]
fn layouts_minifloats() {
    // Pod 8-bit codes through the 1-byte squares, and codes in the low bits of a byte.
    check_type::<zarr_bytes::minifloat::Float8E4M3FN>();
    check_type::<zarr_bytes::minifloat::Float4E2M1FN>();
    // Their complex forms: pairs of codes moved as `[u8; 2]`, and pairs of low-bit codes
    // moved as themselves, element by element.
    check_type::<Complex<zarr_bytes::minifloat::Float8E4M3>>();
    check_type::<Complex<zarr_bytes::minifloat::Float4E2M1FN>>();
}

#[test]
fn layouts_bool() {
    // Deterministic elements map to bool through their low bit.
    let mut checked = 0;
    for &shape in SHAPES {
        let n: usize = shape.iter().product();
        let a = ArrayD::from_shape_vec(
            IxDyn(shape),
            (0..n).map(|i| (i * 7 + i / 3) % 3 == 0).collect(),
        )
        .unwrap();
        let expected: Vec<u8> = a.iter().map(|&b| b as u8).collect();
        for layout in LAYOUTS {
            let mut storage = layout.storage(shape, false);
            layout.view(storage.view_mut()).assign(&a);
            let view = layout.view(storage.view_mut());
            assert_eq!(view, a, "{layout:?} {shape:?} is not the logical array");
            assert_eq!(
                view.to_zarr_bytes(Endian::Big),
                expected,
                "{layout:?} {shape:?}"
            );
            let mut target = layout.storage(shape, true);
            let mut view = layout.view(target.view_mut());
            view.decode_zarr_bytes_into(&expected, Endian::Little)
                .unwrap();
            assert_eq!(view, a, "{layout:?} {shape:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, SHAPES.len() * LAYOUTS.len());
}

#[test]
fn broadcast_views_repeat_their_elements() {
    let row = Array1::from(vec![1u16, 2, 3]);
    let rows = row.broadcast((2, 3)).unwrap();
    assert_eq!(
        rows.to_zarr_bytes(Endian::Big),
        [0, 1, 0, 2, 0, 3, 0, 1, 0, 2, 0, 3]
    );
    let col = Array2::from_shape_vec((2, 1), vec![0x0102u16, 0x0304]).unwrap();
    let cols = col.broadcast((2, 3)).unwrap();
    assert_eq!(
        cols.to_zarr_bytes(Endian::Little),
        [2, 1, 2, 1, 2, 1, 4, 3, 4, 3, 4, 3]
    );
    let scalar = arr0(-1i8);
    let many = scalar.broadcast((2, 2, 100)).unwrap();
    assert_eq!(many.to_zarr_bytes(Endian::Big), vec![0xff; 400]);
    let mut written = Vec::new();
    cols.write_zarr_bytes(&mut written, Endian::Little).unwrap();
    assert_eq!(written, cols.to_zarr_bytes(Endian::Little));
}

#[test]
fn zero_dimensional_arrays() {
    let a = arr0(f64::from_bits(0x7ff0_0000_0000_0001));
    let bytes = a.to_zarr_bytes(Endian::Big);
    assert_eq!(bytes, [0x7f, 0xf0, 0, 0, 0, 0, 0, 1]);
    let back = ndarray::Array0::<f64>::from_zarr_bytes(&bytes, (), Endian::Big).unwrap();
    assert_eq!(back.into_scalar().to_bits(), 0x7ff0_0000_0000_0001);
}

#[test]
fn write_crosses_buffer_windows() {
    // Bigger than the write buffer along every axis, in a transposed layout.
    let a = standard::<u64>(&[3, 1100, 7]);
    let t = a.view().permuted_axes(vec![2, 0, 1]);
    let mut written = Vec::new();
    t.write_zarr_bytes(&mut written, Endian::Big).unwrap();
    assert_eq!(written, reference_bytes(t, Endian::Big));
    let long = standard::<f64>(&[20_000]);
    let rev = long.slice(ndarray::s![..;-1]);
    let mut written = Vec::new();
    rev.write_zarr_bytes(&mut written, Endian::Little).unwrap();
    assert_eq!(written, reference_bytes(rev, Endian::Little));
}

/// A writer that keeps what it is given and the length of each write.
#[derive(Default)]
struct Chunks {
    bytes: Vec<u8>,
    lengths: Vec<usize>,
}

impl std::io::Write for Chunks {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        self.lengths.push(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Write `view` to a [`Chunks`], check the bytes against the codec's definition, and give
/// the length of each write.
fn chunks<A: Bits>(view: ndarray::ArrayViewD<'_, A>, endian: Endian) -> Vec<usize> {
    let mut w = Chunks::default();
    view.write_zarr_bytes(&mut w, endian).unwrap();
    let shape = view.shape().to_vec();
    let ctx = format!("{} {shape:?} {endian:?}", std::any::type_name::<A>());
    assert_eq!(w.bytes, reference_bytes(view, endian), "{ctx}");
    w.lengths
}

/// The buffers `write_zarr_bytes` documents: 256 KiB, and 4 MiB for tiled layouts.
const WRITE_BUFFER_SIZE: usize = 256 * 1024;
const TILED_WRITE_BUFFER_SIZE: usize = 4 * 1024 * 1024;

#[test]
fn write_windows_hold_whole_tiles() {
    // Fortran order: windows of 448 stream rows, two tiles of 1-byte elements deep, past
    // 256 KiB; the last window is what is left.
    let a = standard::<u8>(&[1000, 4100]);
    let mut f = Array2::<u8>::zeros((1000, 4100).f());
    f.assign(&a.view().into_dimensionality::<ndarray::Ix2>().unwrap());
    let row = 4100;
    assert_eq!(
        chunks(f.view().into_dyn(), Endian::Little),
        [448 * row, 448 * row, 104 * row]
    );
    // A part of it, not one memory slice: moved in tiles of its lanes in windows of whole
    // rows within 4 MiB, all of its 999 rows here.
    let sliced = f.slice(ndarray::s![..999, ..]);
    assert_eq!(chunks(sliced.into_dyn(), Endian::Little), [999 * row]);
    // Two tiles of 2-byte elements are 256 rows deep, 10.2 MB of 20000-element rows here:
    // the windows hold as many whole rows as fit 4 MiB.
    let a = standard::<u16>(&[300, 20_000]);
    let mut f = Array2::<u16>::zeros((300, 20_000).f());
    f.assign(&a.view().into_dimensionality::<ndarray::Ix2>().unwrap());
    let row = 20_000 * 2;
    let rows = TILED_WRITE_BUFFER_SIZE / row;
    assert_eq!(rows, 104);
    assert_eq!(
        chunks(f.view().into_dyn(), Endian::Big),
        [rows * row, rows * row, (300 - 2 * rows) * row]
    );
    // And a part of it: the same windows of whole rows.
    let part = f.slice(ndarray::s![1.., ..]);
    assert_eq!(
        chunks(part.into_dyn(), Endian::Big),
        [rows * row, rows * row, (299 - 2 * rows) * row]
    );
    // Planes stored interleaved, viewed (2, 0, 1), which the tiles read 4 deep: all 4
    // planes fit 4 MiB here, so one window holds them.
    let a = standard::<u8>(&[300, 300, 4]);
    let planes = a.view().permuted_axes(vec![2, 0, 1]);
    assert_eq!(chunks(planes, Endian::Little), [300 * 300 * 4]);
    // One plane over 4 MiB: a window holds part of one plane whatever its size, so windows
    // stay within 256 KiB, of whole rows of a plane.
    let a = standard::<u64>(&[725, 725, 4]);
    let planes = a.view().permuted_axes(vec![2, 0, 1]);
    let lengths = chunks(planes, Endian::Big);
    let rows = WRITE_BUFFER_SIZE / (725 * 8);
    assert_eq!(lengths[0], rows * 725 * 8);
    assert!(
        lengths.iter().all(|&n| n <= WRITE_BUFFER_SIZE),
        "{lengths:?}"
    );
    assert_eq!(lengths.iter().sum::<usize>(), 725 * 725 * 4 * 8);
    // A standard layout converted in bulk: windows of the whole rows that fit 256 KiB.
    let a = standard::<u32>(&[300, 300]);
    let row = 300 * 4;
    let rows = WRITE_BUFFER_SIZE / row;
    assert_eq!(rows, 218);
    // In the byte order that is not this target's: native bytes are written from memory.
    let swapped = match Endian::NATIVE {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    };
    assert_eq!(chunks(a.view(), swapped), [rows * row, (300 - rows) * row]);
}

/// Four (or three) planes stored interleaved, viewed (2, 0, 1), too big for one window of
/// 4 MiB: the windows are whole planes, and a window of one plane reads rows of elements 4
/// (3) apart, which 1- and 2-byte (1-byte) elements move as the first rows of 4-row
/// (3-row) rectangles. Widths that leave columns past the rectangles, and a last plane
/// whose last rectangle would reach past the end of memory.
#[test]
fn write_windows_of_single_interleaved_planes() {
    fn check<A: Bits>(rows: usize, cols: usize, planes: usize) {
        let a = standard::<A>(&[rows, cols, planes]);
        let view = a.view().permuted_axes(vec![2, 0, 1]);
        let plane = rows * cols * A::SIZE;
        let fit = TILED_WRITE_BUFFER_SIZE / plane;
        assert_eq!(
            fit,
            planes - 1,
            "the test's windows are all planes but one, then one"
        );
        for endian in [Endian::Little, Endian::Big] {
            let lengths = chunks(view.view(), endian);
            assert_eq!(lengths, [fit * plane, plane]);
        }
    }
    check::<u8>(1031, 1029, 4);
    check::<bool>(1031, 1029, 4);
    check::<u16>(1031, 515, 4);
    check::<half::bf16>(1031, 515, 4);
    // Three planes (an RGB image): 1-byte rows of elements 3 apart.
    check::<u8>(1031, 1711, 3);
    check::<bool>(1031, 1711, 3);
}

#[test]
fn low_bit_minifloats_clear_high_bits_in_every_layout() {
    use zarr_bytes::minifloat::Float4E2M1FN;
    // Bytes with high bits set, as ml_dtypes may leave them: the code is the low 4 bits,
    // whether the bytes land in tiles (Fortran order, (2, 0, 1) planes) or in rows.
    let bytes: Vec<u8> = (0..4 * 70 * 90).map(|i| (i * 37 % 256) as u8).collect();
    let want: Vec<u8> = bytes.iter().map(|b| b & 0x0f).collect();
    let mut fortran = Array::from_elem((4 * 70, 90).f(), Float4E2M1FN::from_bits(0));
    fortran
        .decode_zarr_bytes_into(&bytes, Endian::Little)
        .unwrap();
    let got: Vec<u8> = fortran.iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, want, "Fortran order");
    let mut planes = Array::from_elem((70, 90, 4), Float4E2M1FN::from_bits(0));
    let mut view = planes.view_mut().permuted_axes([2, 0, 1]);
    view.decode_zarr_bytes_into(&bytes, Endian::Little).unwrap();
    let got: Vec<u8> = view.iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, want, "(2, 0, 1) view");
}

/// Lengths along memory of the tiled 2-D arrays of [`tiles_of_small_elements`]: every
/// rectangle height and one either side (3, 4, 8, 16), then one past 1, 2 and 3 tiles of
/// 1- and 2-byte elements, gathering (224 and 128 rows) and scattering (336 and 192).
const TILE_ROWS: &[usize] = &[
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 129, 193, 225, 257, 337, 385, 577, 673, 1013,
];

/// Lengths along the stream: rectangle widths (4, 8, 16) and one either side, one past
/// 1 and 3 tiles of 256 columns.
const TILE_COLS: &[usize] = &[1, 2, 7, 8, 9, 16, 17, 257, 773];

/// Encode and decode 1- and 2-byte elements at every size in [`TILE_ROWS`] ×
/// [`TILE_COLS`] (up to 100,000 elements) against the definition, in the layouts whose
/// tiles the rectangles move: Fortran order, a transposed view, a part of a bigger
/// Fortran array (offset, columns no multiple of 4 KiB apart), and Fortran order run
/// backwards along the stream axis (columns at negative steps); both byte orders.
fn tiles_of_small_elements<A: Bits>() {
    let layouts = [
        crate::common::Layout::Fortran,
        crate::common::Layout::Transposed,
        crate::common::Layout::FortranSubSlice,
        crate::common::Layout::FortranReversedLast,
    ];
    let mut shapes = 0;
    for &rows in TILE_ROWS {
        for &cols in TILE_COLS.iter().filter(|&&c| rows * c <= 100_000) {
            let a = standard::<A>(&[rows, cols]);
            for endian in [Endian::Little, Endian::Big] {
                let expected = reference_bytes(a.view(), endian);
                for layout in layouts {
                    crate::common::round_trip_in(layout, a.view(), &expected, endian, 0x5a, "");
                }
            }
            shapes += 1;
        }
    }
    assert_eq!(shapes, 187, "shapes checked");
}

#[test]
fn tiles_of_small_elements_u8_i8() {
    tiles_of_small_elements::<u8>();
    tiles_of_small_elements::<i8>();
}

#[test]
fn tiles_of_small_elements_u16_f16() {
    tiles_of_small_elements::<u16>();
    tiles_of_small_elements::<f16>();
}

/// `bool` through the byte rectangles at every size of [`tiles_of_small_elements`]:
/// decoded exactly; and a stream with bytes other than 0 and 1 at two places (the one
/// first in the stream somewhere in the array: a tile's corner or edge, a rectangle's
/// last row) is rejected with the first of them, whatever order the layout visits them in.
#[test]
fn tiles_of_bool() {
    let layouts = [
        crate::common::Layout::Fortran,
        crate::common::Layout::Transposed,
        crate::common::Layout::FortranSubSlice,
    ];
    for &rows in TILE_ROWS {
        for &cols in TILE_COLS.iter().filter(|&&c| rows * c <= 100_000) {
            let n = rows * cols;
            let a = Array2::from_shape_fn((rows, cols), |(i, j)| (i * 7 + j * 3) % 5 < 2);
            let bytes: Vec<u8> = a.iter().map(|&b| u8::from(b)).collect();
            let a = a.into_dyn();
            let round = |layout: crate::common::Layout, bytes: &[u8]| {
                let mut storage = layout.storage(&[rows, cols], true);
                let mut view = layout.view(storage.view_mut());
                view.decode_zarr_bytes_into(bytes, Endian::Big)
                    .map(|()| view.to_owned())
            };
            // The last element of the array, of the first stream row, of the first
            // column, and a middle one; each with a later bad byte beside it.
            let places = [
                n - 1,
                cols - 1,
                (rows - 1) * cols,
                (n / 2 + cols / 2).min(n - 1),
            ];
            for layout in layouts {
                assert_eq!(
                    round(layout, &bytes).unwrap(),
                    a,
                    "{layout:?} {rows} × {cols}"
                );
                for &first in &places {
                    let mut bad = bytes.clone();
                    bad[first] = 2 + (first % 250) as u8;
                    let later = (first + cols + 1..n).next();
                    if let Some(later) = later {
                        bad[later] = 0xff;
                    }
                    let e = round(layout, &bad).unwrap_err();
                    let value = 2 + (first % 250) as u8;
                    assert!(
                        matches!(e, zarr_bytes::Error::InvalidBool { offset, value: v }
                            if offset == first && v == value),
                        "{layout:?} {rows} × {cols}, bad byte at {first}: {e:?}"
                    );
                }
            }
        }
    }
}
