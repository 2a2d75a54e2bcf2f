//! Every error a user can hit, by variant, with the numbers in the message.

use std::error::Error as _;
use std::io::{self, Read};

use ndarray::{Array1, Array2, ArrayD, ShapeBuilder, array};
use zarr_bytes::{BytesDecode, BytesDecodeInto, BytesEncode, Endian, Error, MetadataError};

#[test]
fn length_mismatch_names_both_lengths() {
    let e = Array2::<u32>::from_zarr_bytes(&[0; 23], (2, 3), Endian::Little).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 24,
                actual: 23
            }
        ),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.contains("24") && text.contains("23"), "{text}");
    let e = ArrayD::<u8>::from_zarr_bytes(&[0; 1], vec![0, 5], Endian::Big).unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 0,
            actual: 1
        }
    ));
}

#[test]
fn overflowing_shapes_fail_before_allocating() {
    for shape in [
        vec![usize::MAX, 2],
        vec![1 << 62, 1 << 2],
        vec![0, usize::MAX, 2],
    ] {
        let e = ArrayD::<u8>::from_zarr_bytes(&[], shape.clone(), Endian::Big).unwrap_err();
        assert!(
            matches!(e, Error::ShapeOverflow { element_size: 1 }),
            "{shape:?}: {e:?}"
        );
    }
    // Elements fit, bytes do not.
    let e = Array1::<u64>::from_zarr_bytes(&[], usize::MAX / 4, Endian::Big).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 8 }));
    assert!(e.to_string().contains("8-byte"), "{e}");
    let e = Array1::<u64>::read_zarr_bytes(io::empty(), usize::MAX / 4, Endian::Big).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 8 }));
}

#[test]
fn invalid_bool_gives_offset_and_value() {
    let e = Array1::<bool>::from_zarr_bytes(&[0, 1, 1, 2, 7], 5, Endian::Little).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBool {
                offset: 3,
                value: 2
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("0x02") && e.to_string().contains("offset 3"),
        "{e}"
    );
    // Through a reader, past the first read buffer.
    let mut bytes = vec![1u8; 200_000];
    bytes[150_001] = 0xff;
    let e = Array1::<bool>::read_zarr_bytes(&bytes[..], 200_000, Endian::Big).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBool {
                offset: 150_001,
                value: 0xff
            }
        ),
        "{e:?}"
    );
}

#[test]
fn decode_into_reports_errors() {
    let mut a = array![[true, false], [false, true]];
    let before = a.clone();
    let e = a
        .decode_zarr_bytes_into(&[0, 0, 0, 3], Endian::Big)
        .unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 3,
            value: 3
        }
    ));
    // In a transposed layout, where bytes are visited out of order: the first bad byte.
    let mut t = a.view_mut().reversed_axes();
    let e = t
        .decode_zarr_bytes_into(&[1, 9, 1, 7], Endian::Big)
        .unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 1,
            value: 9
        }
    ));
    // Past the first validated piece of a long array.
    let mut long = Array1::from_elem(100_000, false);
    let mut bytes = vec![1u8; 100_000];
    bytes[99_999] = 0x80;
    let e = long
        .decode_zarr_bytes_into(&bytes, Endian::Big)
        .unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 99_999,
            value: 0x80
        }
    ));
    // A wrong length is found before anything is written.
    let mut a = before.clone();
    let mut t = a.view_mut().reversed_axes();
    let e = t
        .decode_zarr_bytes_into(&[0, 0, 0], Endian::Big)
        .unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 4,
            actual: 3
        }
    ));
    assert_eq!(a, before);
}

/// `bytes` decoded into `view`, and on success its elements in logical order.
fn values<D: ndarray::Dimension>(
    mut view: ndarray::ArrayViewMut<bool, D>,
    bytes: &[u8],
) -> Result<Vec<bool>, Error> {
    view.decode_zarr_bytes_into(bytes, Endian::Big)?;
    Ok(view.iter().copied().collect())
}

/// `bytes` decoded into a `rows` × `cols` array of `bool` in each kind of traversal, by
/// name, with the elements decoded (`rows` a multiple of 4).
fn decoded_in_every_traversal(
    rows: usize,
    cols: usize,
    bytes: &[u8],
) -> [(&'static str, Result<Vec<bool>, Error>); 5] {
    let mut fortran = Array2::from_elem((rows, cols).f(), false);
    let mut part = Array2::from_elem((rows + 3, cols + 2).f(), false);
    let mut stepped = Array2::from_elem((rows, 2 * cols), false);
    let mut reversed = Array2::from_elem((rows, cols).f(), false);
    let mut stacked = ndarray::Array3::from_elem((rows / 4, cols, 4), false);
    [
        ("fortran", values(fortran.view_mut(), bytes)),
        // Not one memory slice: rows one by one, through the element-wise path.
        (
            "stepped",
            values(stepped.slice_mut(ndarray::s![.., ..;2]), bytes),
        ),
        // Negative strides: the tiles walk memory down from the far end.
        (
            "reversed",
            values(reversed.slice_mut(ndarray::s![..;-1, ..;-1]), bytes),
        ),
        // Planes stored interleaved, viewed (2, 0, 1): packed rectangles.
        (
            "stacked",
            values(stacked.view_mut().permuted_axes([2, 0, 1]), bytes),
        ),
        // A part of an array in Fortran order: staged in memory order, then in tiles.
        (
            "fortran part",
            values(part.slice_mut(ndarray::s![2..rows + 2, 1..cols + 1]), bytes),
        ),
    ]
}

/// The tiles validate the bytes they move: whichever tile meets an invalid byte first,
/// the error names the first one of the stream, in every kind of traversal.
#[test]
fn decode_into_names_the_first_invalid_byte_in_any_layout() {
    // 300 × 300 in Fortran order: several tiles of both kinds (by rows and by columns).
    let (rows, cols) = (300, 300);
    let mut bytes = vec![1u8; rows * cols];
    // Element (299, 0), in the last tile of the first column strip, comes after (5, 280)
    // in the stream, whose tile is visited later.
    bytes[299 * cols] = 0x40;
    bytes[5 * cols + 280] = 0x02;
    let first = 5 * cols + 280;
    for (layout, result) in decoded_in_every_traversal(rows, cols, &bytes) {
        let e = result.unwrap_err();
        assert!(
            matches!(e, Error::InvalidBool { offset, value: 2 } if offset == first),
            "{layout}: {e:?}"
        );
    }
}

/// Every byte a tile moves is checked, whichever way it moves: in the transposed
/// rectangles, in the rows below them or the columns right of them, in packed rectangles,
/// and down reversed columns. One invalid byte at each position of the stream in turn.
#[test]
fn decode_into_checks_every_byte_of_a_tile() {
    // 40 × 45: rectangles of 16 × 8 cover 32 × 40, the rest moves element by element.
    let (rows, cols) = (40, 45);
    let valid: Vec<u8> = (0..rows * cols).map(|i| (i % 3 == 0) as u8).collect();
    for at in 0..rows * cols {
        let mut bytes = valid.clone();
        let value = 2 + (at % 254) as u8;
        bytes[at] = value;
        for (layout, result) in decoded_in_every_traversal(rows, cols, &bytes) {
            assert!(
                matches!(result, Err(Error::InvalidBool { offset, value: v }) if offset == at && v == value),
                "{layout}, byte {at}: {result:?}"
            );
        }
    }
    // With every byte valid, each layout decodes them all, to the values they encode.
    let want: Vec<bool> = valid.iter().map(|&b| b == 1).collect();
    for (layout, result) in decoded_in_every_traversal(rows, cols, &valid) {
        match result {
            Ok(values) => assert_eq!(values, want, "{layout}"),
            Err(e) => panic!("{layout}: {e:?}"),
        }
    }
}

#[test]
fn encode_into_wrong_buffer() {
    let a = array![[1i64, 2], [3, 4]];
    for len in [0, 31, 33] {
        let mut out = vec![0u8; len];
        let e = a
            .t()
            .encode_zarr_bytes_into(&mut out, Endian::Big)
            .unwrap_err();
        assert!(
            matches!(e, Error::BufferSize { expected: 32, actual } if actual == len),
            "{e:?}"
        );
        assert!(out.iter().all(|&b| b == 0), "nothing written on error");
    }
}

#[test]
fn reader_that_ends_early_on_a_huge_claim() {
    // A shape that claims 1 TiB from a reader holding 16 bytes fails at once.
    let claim = 1usize << 40;
    let e = Array1::<u64>::read_zarr_bytes(&[7u8; 16][..], claim / 8, Endian::Big).unwrap_err();
    assert!(
        matches!(e, Error::UnexpectedEof { expected, received: 16 } if expected == claim),
        "{e:?}"
    );
    assert!(e.to_string().contains("1099511627776") && e.to_string().contains("16"));
}

/// A reader that gives one byte per call, then fails.
struct Flaky(usize);
impl Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0 == 0 {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "gone"));
        }
        self.0 -= 1;
        buf[0] = 1;
        Ok(1)
    }
}

#[test]
fn reader_errors_are_the_source() {
    let e = Array1::<u16>::read_zarr_bytes(Flaky(3), 4, Endian::Big).unwrap_err();
    assert!(matches!(&e, Error::Io(io) if io.kind() == io::ErrorKind::ConnectionReset));
    assert_eq!(e.source().unwrap().to_string(), "gone");
    assert!(
        !e.to_string().contains("gone"),
        "the source is not repeated: {e}"
    );
    // One byte per call is enough when it keeps coming.
    let a = Array1::<u16>::read_zarr_bytes(Flaky(8), 4, Endian::Big).unwrap();
    assert_eq!(a, array![0x0101u16, 0x0101, 0x0101, 0x0101]);
}

#[test]
fn reader_is_not_read_past_the_shape() {
    let bytes = [1u8, 2, 3, 4, 5];
    let mut reader = &bytes[..];
    let a = Array1::<u16>::read_zarr_bytes(&mut reader, 2, Endian::Little).unwrap();
    assert_eq!(a, array![0x0201u16, 0x0403]);
    assert_eq!(reader, [5]);
}

#[test]
fn write_reports_writer_errors() {
    struct Full;
    impl io::Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::StorageFull, "full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let a = Array2::<f32>::zeros((300, 300));
    for view in [a.view(), a.t()] {
        for endian in [Endian::Little, Endian::Big] {
            let e = view.write_zarr_bytes(Full, endian).unwrap_err();
            assert!(matches!(&e, Error::Io(io) if io.kind() == io::ErrorKind::StorageFull));
            assert_eq!(e.to_string(), "I/O error");
            assert_eq!(e.source().unwrap().to_string(), "full");
        }
    }
}

#[test]
fn messages_read_as_documented() {
    // The crate docs quote these messages; keep them in step.
    let cases: Vec<(Error, &str)> = vec![
        (
            Error::LengthMismatch {
                expected: 24,
                actual: 23,
            },
            "byte length mismatch: the shape needs 24 bytes, got 23",
        ),
        (
            Error::BufferSize {
                expected: 8,
                actual: 7,
            },
            "output buffer has 7 bytes, the array encodes to 8",
        ),
        (
            Error::ShapeOverflow { element_size: 8 },
            "shape too large: its size in 8-byte elements exceeds isize::MAX bytes",
        ),
        (
            Error::InvalidBool {
                offset: 3,
                value: 2,
            },
            "invalid bool byte 0x02 at offset 3: must be 0x00 or 0x01",
        ),
        (
            Error::UnexpectedEof {
                expected: 32,
                received: 16,
            },
            "reader ended early: the shape needs 32 bytes, received 16",
        ),
        (Error::from(io::Error::other("x")), "I/O error"),
        (
            MetadataError::InvalidEndian {
                value: "native".into(),
            }
            .into(),
            "invalid endian \"native\": must be \"little\" or \"big\"",
        ),
        (
            MetadataError::UnknownDataType {
                name: "float128".into(),
            }
            .into(),
            "unknown data type \"float128\"",
        ),
        (
            MetadataError::InvalidRawBits { name: "r7".into() }.into(),
            "invalid raw bits data type \"r7\": the bits must be a positive multiple of 8",
        ),
        (
            MetadataError::EndianRequired {
                data_type: zarr_bytes::DataType::Float64,
            }
            .into(),
            "the bytes codec needs an endian for the multi-byte data type float64",
        ),
        (
            Error::TypeMismatch {
                expected: zarr_bytes::DataType::Int16,
                found: zarr_bytes::DataType::Float32,
            },
            "data type mismatch: expected int16, found float32",
        ),
        (
            Error::Misaligned {
                offset: 1,
                align: 8,
            },
            "bytes misaligned by 1 bytes for 8-byte elements: they cannot be viewed",
        ),
        (
            Error::RankMismatch {
                expected: 2,
                actual: 1,
            },
            "rank mismatch: expected 2 axes, got 1",
        ),
        (
            Error::RegionOutOfBounds {
                axis: 1,
                end: 6,
                len: 5,
            },
            "region out of bounds: axis 1 ends at 6, past its length 5",
        ),
        (
            Error::ReversedRange {
                axis: 0,
                start: 3,
                end: 1,
            },
            "reversed region range on axis 0: start 3 is after end 1",
        ),
        (
            Error::RegionShapeMismatch {
                expected: [1, 1].into(),
                actual: [1, 2].into(),
            },
            "array shape [1, 2] is not the region's shape [1, 1]",
        ),
    ];
    for (e, text) in cases {
        assert_eq!(e.to_string(), text);
    }
    let native = Endian::NATIVE;
    let other = if native == Endian::Little {
        Endian::Big
    } else {
        Endian::Little
    };
    let e = Error::NeedsConversion {
        data_type: zarr_bytes::DataType::Float64,
        endian: other,
    };
    assert_eq!(
        e.to_string(),
        format!(
            "{other}-endian float64 bytes need conversion on this {native}-endian machine: they cannot be viewed"
        )
    );
}
