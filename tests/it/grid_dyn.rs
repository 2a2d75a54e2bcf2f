//! Arrays of many chunks whose data type is known only at run time: every data type against
//! the naive reference (a chunk of the fill value, the part pasted in, encoded whole), and
//! the arrays zarr-python wrote in chunks (edge chunks, fill values, missing chunks, both
//! byte orders), read and written bit-exact.
// One range per axis: a 1-d region is an array of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Mutex;

use ndarray::{ArrayD, ShapeBuilder};
use serde_json::{Value, json};
use zarr_bytes::{
    BytesCodec, ChunkDecodeInto, ChunkEncode, ChunkGrid, DataType, DynArray, Endian, Error,
};

/// A fill value of `t`'s form, not its zero.
pub fn fill_of(t: &DataType) -> Value {
    let name = t.to_string();
    match () {
        _ if name.contains("struct") => json!({"a": 1, "b": 0.5}),
        _ if name == "bool" => json!(true),
        _ if name.starts_with("int") || name.starts_with("uint") => json!(1),
        _ if name.starts_with("complex") => json!([1.0, 0.5]),
        _ if name.contains("float") => json!(1.0),
        _ if name.contains("datetime") || name.contains("timedelta") => json!(5),
        _ if name.contains("utf32") => json!("ab"),
        _ => json!("AQID"), // three bytes: r24, raw_bytes and null_terminated_bytes of 3
    }
}

/// Every data type of fixed name, and one of each configured kind.
pub fn data_types() -> Vec<DataType> {
    let mut all = DataType::FIXED.to_vec();
    for json in [
        r#""r24""#,
        r#"{"name":"raw_bytes","configuration":{"length_bytes":3}}"#,
        r#"{"name":"null_terminated_bytes","configuration":{"length_bytes":3}}"#,
        r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#,
        r#"{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1}}"#,
        r#"{"name":"numpy.timedelta64","configuration":{"unit":"ms","scale_factor":2}}"#,
        r#"{"name":"struct","configuration":{"fields":[{"name":"a","data_type":"int16"},{"name":"b","data_type":"float32"}]}}"#,
    ] {
        all.push(serde_json::from_str(json).unwrap());
    }
    all
}

/// The naive chunk: `fill` everywhere, the part of `a` in `region` pasted into its corner.
pub fn reference(
    codec: &BytesCodec,
    a: &DynArray,
    region: &[Range<usize>],
    chunk: &[usize],
    fill: &Value,
) -> Vec<u8> {
    let mut padded = codec.full_dyn(&a.data_type(), chunk, fill).unwrap();
    let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
    padded
        .assign_region(&corner, &a.slice_region(region).unwrap())
        .unwrap();
    codec.encode_dyn(&padded).unwrap()
}

#[test]
fn every_data_type_in_chunks_against_the_reference() {
    let cases: [(&[usize], &[usize], &[usize]); 4] = [
        (&[5, 7], &[2, 3], &[1, 0]),
        (&[3, 4, 5], &[2, 3, 2], &[2, 0, 1]),
        (&[4], &[8], &[0]),
        (&[], &[], &[]),
    ];
    for t in data_types() {
        for (seed, &(shape, chunk, order)) in cases.iter().enumerate() {
            for endian in [Endian::Little, Endian::Big] {
                let codec = BytesCodec::new(endian);
                let fill = fill_of(&t);
                // The array in another layout: its axes permuted, as the transpose codec does.
                let stored: Vec<usize> = order.iter().map(|&k| shape[k]).collect();
                let bytes = crate::common::valid_chunk(&t, &stored, endian, seed as u64);
                let mut inverse = vec![0; order.len()];
                for (i, &k) in order.iter().enumerate() {
                    inverse[k] = i;
                }
                let a = codec
                    .decode_dyn(&bytes, &t, &stored)
                    .unwrap()
                    .permuted_axes(&inverse)
                    .unwrap();
                assert_eq!(a.shape(), shape);
                let grid = ChunkGrid::new(shape, chunk).unwrap();
                let ctx = format!("{t} {shape:?} in {chunk:?}, {endian}");

                let chunks = Mutex::new(BTreeMap::new());
                codec
                    .encode_chunks_dyn(&a, &grid, &fill, |index, bytes| {
                        chunks.lock().unwrap().insert(index.to_vec(), bytes);
                        Ok::<(), Error>(())
                    })
                    .unwrap();
                let chunks = chunks.into_inner().unwrap();
                assert_eq!(chunks.len(), grid.len(), "{ctx}");
                for index in grid.indices() {
                    let region = grid.region(&index).unwrap();
                    let want = reference(&codec, &a, &region, chunk, &fill);
                    assert_eq!(chunks[&index], want, "{ctx} chunk {index:?}");
                    let one = codec.encode_chunk_dyn(&a, &region, chunk, &fill).unwrap();
                    assert_eq!(one, want, "{ctx} chunk {index:?} alone");
                }

                // Back, chunk [0, ..] missing, into an array of another fill.
                let mut back = codec.full_dyn(&t, shape, &fill).unwrap();
                let first: Vec<usize> = vec![0; shape.len()];
                codec
                    .decode_chunks_into_dyn(&mut back, &grid, &fill, |index| {
                        Ok::<_, Error>((index != first).then(|| &chunks[index][..]))
                    })
                    .unwrap();
                let mut want = a.clone();
                let fill0 = codec.full_dyn(&t, &[], &fill).unwrap();
                want.assign_region(&grid.region(&first).unwrap(), &fill0)
                    .unwrap();
                // Compared as bytes: NaN is no NaN's equal.
                let bits = |d: &DynArray| codec.encode_dyn(d).unwrap();
                assert_eq!(bits(&back), bits(&want), "{ctx}");
                // Chunk by chunk, into a permuted array.
                let mut each = codec
                    .full_dyn(&t, &stored, &fill)
                    .unwrap()
                    .permuted_axes(&inverse)
                    .unwrap();
                for (index, bytes) in &chunks {
                    let region = grid.region(index).unwrap();
                    codec
                        .decode_chunk_into_dyn(&mut each, &region, bytes, chunk)
                        .unwrap();
                }
                assert_eq!(bits(&each), bits(&a), "{ctx}");
            }
        }
    }
}

#[test]
fn dyn_chunk_errors_name_what_is_wrong() {
    let codec = BytesCodec::new(Endian::Little);
    let int4: DataType = "int4".parse().unwrap();
    let mut a = codec.full_dyn(&int4, &[3, 3], &json!(1)).unwrap();
    // A sub-byte integer out of its range: the chunk is named, the element's index is its
    // place in the chunk.
    let nine = DynArray::Int4(ndarray::arr0(9i8).into_dyn());
    let grid = ChunkGrid::new(&[3, 3], &[2, 2]).unwrap();
    a.assign_region(&[2..3, 2..3], &nine).unwrap();
    let r = codec.encode_chunks_dyn(&a, &grid, &json!(0), |_, _| Ok::<(), Error>(()));
    assert!(
        matches!(&r, Err(Error::InChunk { index, error })
        if **index == [1, 1] && matches!(**error, Error::OutOfRange { index: 0, value: 9, .. })),
        "{r:?}"
    );
    assert!(matches!(
        codec.encode_chunk_dyn(&a, &[2..3, 2..3], &[2, 2], &json!(0)),
        Err(Error::OutOfRange {
            index: 0,
            value: 9,
            ..
        })
    ));
    // A fill value of the wrong form, before any chunk.
    let r = codec.encode_chunks_dyn(&a, &grid, &json!("x"), |_, _| -> Result<(), Error> {
        panic!("no chunk")
    });
    assert!(matches!(
        r,
        Err(Error::Metadata(
            zarr_bytes::MetadataError::InvalidFillValue { .. }
        ))
    ));
    // Regions that do not fit the array or the chunk; an array of another grid.
    assert!(matches!(
        codec.encode_chunk_dyn(&a, &[0..4, 0..1], &[4, 4], &json!(0)),
        Err(Error::RegionOutOfBounds {
            axis: 0,
            end: 4,
            len: 3
        })
    ));
    assert!(matches!(
        codec.encode_chunk_dyn(&a, &[0..3, 0..1], &[2, 2], &json!(0)),
        Err(Error::PartTooLarge {
            axis: 0,
            len: 3,
            chunk: 2
        })
    ));
    assert!(matches!(
        codec.decode_chunk_into_dyn(&mut a, &[0..2, 0..1], &[0; 3], &[2, 2]),
        Err(Error::LengthMismatch {
            expected: 4,
            actual: 3
        })
    ));
    let other = ChunkGrid::new(&[3, 4], &[2, 2]).unwrap();
    assert!(matches!(
        codec.decode_chunks_into_dyn(&mut a, &other, &json!(0), |_| Ok::<_, Error>(
            None::<Vec<u8>>
        )),
        Err(Error::GridShapeMismatch { .. })
    ));
    // A float64 array needs the codec's endian.
    let mut f = codec.full_dyn(&DataType::Float64, &[2], &json!(0)).unwrap();
    let no_endian = BytesCodec::default();
    assert!(matches!(
        no_endian.decode_chunk_into_dyn(&mut f, &[0..2], &[0; 16], &[2]),
        Err(Error::Metadata(
            zarr_bytes::MetadataError::EndianRequired { .. }
        ))
    ));
    // Assigning a region: another data type, another shape.
    let g = codec
        .full_dyn(&DataType::Int16, &[1, 1], &json!(0))
        .unwrap();
    assert!(matches!(
        a.assign_region(&[0..1, 0..1], &g),
        Err(Error::TypeMismatch {
            expected: DataType::Int4,
            found: DataType::Int16
        })
    ));
    let two = codec.full_dyn(&int4, &[1, 2], &json!(0)).unwrap();
    assert!(matches!(
        a.assign_region(&[0..2, 0..1], &two),
        Err(Error::RegionShapeMismatch { .. })
    ));
    assert!(matches!(
        a.slice_region(&[0..1]),
        Err(Error::RankMismatch {
            expected: 2,
            actual: 1
        })
    ));
    // Text: a bad code unit inside the part, at its offset in the chunk.
    let utf32: DataType = r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":4}}"#
        .parse()
        .unwrap();
    let mut s = codec.full_dyn(&utf32, &[1, 1], &json!("")).unwrap();
    let mut chunk = [0u8; 16];
    chunk[..4].copy_from_slice(&0xd800u32.to_le_bytes());
    chunk[4..8].copy_from_slice(&0xd800u32.to_le_bytes());
    assert!(matches!(
        codec.decode_chunk_into_dyn(&mut s, &[0..1, 0..1], &chunk[..], &[2, 2]),
        Err(Error::InvalidCodeUnit {
            offset: 0,
            value: 0xd800
        })
    ));
}

fn grid_fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/grid")
}

/// Arrays zarr-python wrote in chunks, read and written back bit-exact: `full.bin` holds
/// the whole array's little-endian C-order bytes.
#[test]
fn zarr_python_arrays_in_chunks_read_and_write_bit_exact() {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(grid_fixtures().join("manifest.json")).unwrap())
            .unwrap();
    let cases = manifest["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    let mut missing = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let dir = grid_fixtures().join(name);
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("zarr.json")).unwrap()).unwrap();
        let t: DataType = serde_json::from_value(meta["data_type"].clone()).unwrap();
        let codec: BytesCodec = serde_json::from_value(meta["codecs"][0].clone()).unwrap();
        let fill = &meta["fill_value"];
        let shape: Vec<usize> = serde_json::from_value(meta["shape"].clone()).unwrap();
        let chunk: Vec<usize> =
            serde_json::from_value(meta["chunk_grid"]["configuration"]["chunk_shape"].clone())
                .unwrap();
        let full = std::fs::read(dir.join("full.bin")).unwrap();
        let expected = BytesCodec::new(Endian::Little)
            .decode_dyn(&full, &t, &shape)
            .unwrap();
        let grid = ChunkGrid::new(&shape, &chunk).unwrap();
        let files: BTreeMap<Vec<usize>, Option<Vec<u8>>> = case["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let index: Vec<usize> = serde_json::from_value(c["index"].clone()).unwrap();
                let bytes = (c["status"] == "present")
                    .then(|| std::fs::read(dir.join(c["key"].as_str().unwrap())).unwrap());
                (index, bytes)
            })
            .collect();
        assert_eq!(files.len(), grid.len(), "{name}");
        missing += files.values().filter(|b| b.is_none()).count();

        // Read: every chunk file into its region, missing chunks as the fill value.
        let mut read = codec.full_dyn(&t, &shape, fill).unwrap();
        read = match read {
            // Start from other values, so that every element is written.
            DynArray::Bool(a) => DynArray::Bool(a.mapv(|x| !x)),
            other => other,
        };
        codec
            .decode_chunks_into_dyn(&mut read, &grid, fill, |index| {
                Ok::<_, Error>(files[index].as_deref())
            })
            .unwrap();
        assert_eq!(
            codec.encode_dyn(&read).unwrap(),
            codec.encode_dyn(&expected).unwrap(),
            "{name}"
        );

        // Write: every chunk zarr-python wrote, byte for byte; those it left out hold only
        // the fill value.
        let empty = codec
            .encode_dyn(&codec.full_dyn(&t, &chunk, fill).unwrap())
            .unwrap();
        codec
            .encode_chunks_dyn(&expected, &grid, fill, |index, bytes| {
                match &files[index] {
                    Some(file) => assert_eq!(&bytes, file, "{name} chunk {index:?}"),
                    None => assert_eq!(bytes, empty, "{name} chunk {index:?}"),
                }
                Ok::<(), Error>(())
            })
            .unwrap();

        // The typed API reads and writes the same for the float64 arrays.
        if t == DataType::Float64 {
            let endian = codec.endian.unwrap();
            let typed = ArrayD::<f64>::try_from(expected.clone()).unwrap();
            let fill = match fill {
                Value::String(s) if s == "NaN" => f64::NAN,
                v => v.as_f64().unwrap(),
            };
            let mut back = ArrayD::<f64>::zeros(ndarray::IxDyn(&shape).f());
            back.decode_zarr_chunks_into(&grid, fill, endian, |index| {
                Ok::<_, Error>(files[index].as_deref())
            })
            .unwrap();
            let bits = |a: &ArrayD<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back), bits(&typed), "{name}");
            typed
                .t()
                .t()
                .encode_zarr_chunks(&grid, fill, endian, |index, bytes| {
                    if let Some(file) = &files[index] {
                        assert_eq!(&bytes, file, "{name} chunk {index:?}");
                    }
                    Ok::<(), Error>(())
                })
                .unwrap();
        }
    }
    assert!(missing >= 3, "the fixtures have missing chunks");
}
