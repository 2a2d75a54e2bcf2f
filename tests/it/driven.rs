//! The reader and writer the caller drives, and the async calls on them: the same results
//! as the blocking calls, every misuse an error that leaves the output as it was.

#![allow(clippy::single_range_in_vec_init)]

use std::collections::HashMap;
use std::sync::Mutex;

use ndarray::{Array2, Array3, ArrayD, Dimension, IxDyn, ShapeBuilder, s};
use zarr_bytes::{
    ChunkDecode, ChunkEncode, ChunkGrid, ChunkPart, Endian, Error, SubsetReader, SubsetWriter,
};

/// Every chunk of `a` (the whole array of `grid`) as the blocking call stores it.
fn stored_chunks(
    a: &ArrayD<u32>,
    grid: &ChunkGrid,
    fill: u32,
    endian: Endian,
) -> HashMap<Vec<usize>, Vec<u8>> {
    let store = Mutex::new(HashMap::new());
    a.encode_zarr_chunks(grid, fill, endian, |index, bytes| {
        store.lock().unwrap().insert(index.to_vec(), bytes);
        Ok::<_, Error>(())
    })
    .unwrap();
    store.into_inner().unwrap()
}

fn sample(shape: &[usize]) -> ArrayD<u32> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| {
        i.slice()
            .iter()
            .fold(7u32, |h, &x| h.wrapping_mul(31).wrapping_add(x as u32))
    })
}

#[test]
fn parts_list_each_chunk_with_its_boxes_in_c_order() {
    let grid = ChunkGrid::new(&[10, 7], &[4, 3]).unwrap();
    let mut out = Array2::<u8>::zeros((5, 4));
    let reader = SubsetReader::new(out.view_mut(), &grid, &[3, 2], 0, Endian::Little).unwrap();
    let parts: Vec<ChunkPart> = reader.parts().collect();
    let indices: Vec<Vec<usize>> = parts.iter().map(|p| p.index.clone()).collect();
    assert_eq!(indices, [[0, 0], [0, 1], [1, 0], [1, 1]]);
    assert_eq!(parts[0].in_chunk, [3..4, 2..3]);
    assert_eq!(parts[0].in_subset, [0..1, 0..1]);
    assert!(!parts[0].whole);
    // Chunk [1, 1]: rows 4..8, columns 3..6 of the array, all inside the subset.
    assert_eq!(parts[3].in_chunk, [0..4, 0..3]);
    assert_eq!(parts[3].in_subset, [1..5, 1..4]);
    assert!(parts[3].whole);
    // Chunk [0, 1]: row 3 and columns 3..6, one row of its four.
    assert_eq!(parts[1].in_chunk, [3..4, 0..3]);
    assert_eq!(parts[1].in_subset, [0..1, 1..4]);
    assert!(!parts[1].whole);
}

/// A reader's and a writer's `Debug` name their type and subset: where it starts and its
/// shape; those of runtime-typed arrays too.
#[test]
fn readers_and_writers_show_their_subset() {
    let shows = |shown: String, name: &str| {
        let want = format!("{name} {{ origin: [3, 2], shape: [5, 4]");
        assert!(shown.starts_with(&want), "{shown}");
    };
    let grid = ChunkGrid::new(&[10, 7], &[4, 3]).unwrap();
    let mut out = Array2::<u8>::zeros((5, 4));
    let reader = SubsetReader::new(out.view_mut(), &grid, &[3, 2], 0, Endian::Little).unwrap();
    shows(format!("{reader:?}"), "SubsetReader");
    let x = Array2::<u8>::zeros((5, 4));
    let writer = SubsetWriter::new(x.view(), &grid, &[3, 2], 0, Endian::Little).unwrap();
    shows(format!("{writer:?}"), "SubsetWriter");

    let codec = zarr_bytes::BytesCodec::new(Endian::Little);
    let fill = serde_json::json!(0);
    let mut out = zarr_bytes::DynArray::from(Array2::<u16>::zeros((5, 4)).into_dyn());
    let reader = codec
        .subset_reader_dyn(&mut out, &grid, &[3, 2], &fill)
        .unwrap();
    shows(format!("{reader:?}"), "DynSubsetReader");
    let x = zarr_bytes::DynArray::from(Array2::<u16>::zeros((5, 4)).into_dyn());
    let writer = codec.subset_writer_dyn(&x, &grid, &[3, 2], &fill).unwrap();
    shows(format!("{writer:?}"), "DynSubsetWriter");
}

#[test]
fn a_reader_fed_in_any_order_equals_the_blocking_call() {
    let shape = [13, 9, 6];
    let grid = ChunkGrid::new(&shape, &[4, 5, 3]).unwrap();
    let a = sample(&shape);
    for endian in [Endian::Little, Endian::Big] {
        let mut store = stored_chunks(&a, &grid, 5, endian);
        store.remove(&vec![1, 1, 0]);
        let source = |index: &[usize]| Ok::<_, Error>(store.get(index).cloned());
        let expected =
            ArrayD::<u32>::from_zarr_subset(&grid, &[2..12, 1..9, 2..5], 5, endian, source)
                .unwrap();
        // Fortran layout, parts put last first.
        let mut out = Array3::<u32>::zeros((10, 8, 3).f());
        let reader = SubsetReader::new(out.view_mut(), &grid, &[2, 1, 2], 5, endian).unwrap();
        let parts: Vec<ChunkPart> = reader.parts().collect();
        for part in parts.iter().rev() {
            reader
                .put(&part.index, store.get(&part.index).map(Vec::as_slice))
                .unwrap();
        }
        reader.finish().unwrap();
        assert_eq!(out.into_dyn(), expected);
    }
}

#[test]
fn put_part_reads_the_part_bytes_alone() {
    let shape = [12, 10];
    let grid = ChunkGrid::new(&shape, &[5, 4]).unwrap();
    let a = sample(&shape);
    let store = stored_chunks(&a, &grid, 0, Endian::Big);
    let mut out = Array2::<u32>::zeros((6, 7));
    let reader = SubsetReader::new(out.view_mut(), &grid, &[3, 1], 0, Endian::Big).unwrap();
    for part in reader.parts().collect::<Vec<_>>() {
        let chunk = &store[&part.index];
        let ranges = reader.byte_ranges(&part.index).unwrap();
        let bytes: Vec<u8> = ranges
            .iter()
            .flat_map(|r| chunk[r.clone()].to_vec())
            .collect();
        let cells: usize = part.in_chunk.iter().map(|r| r.len()).product();
        assert_eq!(bytes.len(), cells * 4);
        reader.put_part(&part.index, &bytes).unwrap();
    }
    reader.finish().unwrap();
    assert_eq!(out, a.slice(s![3..9, 1..8]));
}

#[test]
fn misuse_is_an_error_that_leaves_the_output_as_it_was() {
    let grid = ChunkGrid::new(&[8, 8], &[4, 4]).unwrap();
    let mut out = Array2::<u16>::from_elem((4, 4), 9);
    let reader = SubsetReader::new(out.view_mut(), &grid, &[2, 2], 1, Endian::Little).unwrap();
    let chunk = vec![0u8; 32];
    // A chunk the subset does not touch, or of another rank.
    let e = reader.put(&[0, 2], Some(&chunk)).unwrap_err();
    assert!(matches!(e, Error::NotInSubset { ref index } if **index == [0, 2]));
    assert!(matches!(
        reader.put(&[0], None),
        Err(Error::NotInSubset { .. })
    ));
    // A chunk of the wrong length, then a part of the wrong length.
    let e = reader.put(&[0, 0], Some(&chunk[1..])).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref error, .. }
        if matches!(**error, Error::LengthMismatch { expected: 32, actual: 31 })));
    let e = reader.put_part(&[0, 0], &[0; 9]).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref error, .. }
        if matches!(**error, Error::LengthMismatch { expected: 8, actual: 9 })));
    // Put once, then again.
    reader.put(&[1, 1], None).unwrap();
    let e = reader.put(&[1, 1], Some(&chunk)).unwrap_err();
    assert!(matches!(e, Error::PutTwice { ref index } if **index == [1, 1]));
    // Finished early: the first part never put is named.
    let e = reader.finish().unwrap_err();
    assert!(matches!(e, Error::NotPut { ref index } if **index == [0, 0]));
    // Only chunk [1, 1]'s part, the lower right 2 × 2, was written: the fill value 1.
    let mut expected = Array2::<u16>::from_elem((4, 4), 9);
    expected.slice_mut(s![2.., 2..]).fill(1);
    assert_eq!(out, expected);
}

#[test]
fn an_invalid_chunk_stays_to_be_put() {
    let grid = ChunkGrid::new(&[4], &[4]).unwrap();
    let mut out = ndarray::Array1::<bool>::from_elem(4, false);
    let reader = SubsetReader::new(out.view_mut(), &grid, &[0], false, Endian::Little).unwrap();
    let e = reader.put(&[0], Some(&[1, 0, 2, 1])).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref error, .. }
        if matches!(**error, Error::InvalidBool { offset: 2, value: 2 })));
    reader.put(&[0], Some(&[1, 0, 1, 1])).unwrap();
    reader.finish().unwrap();
    assert_eq!(out, ndarray::array![true, false, true, true]);
}

#[test]
fn parts_put_from_several_threads_at_once() {
    let shape = [64, 48];
    let grid = ChunkGrid::new(&shape, &[8, 8]).unwrap();
    let a = sample(&shape);
    let store = stored_chunks(&a, &grid, 0, Endian::Little);
    let mut out = Array2::<u32>::zeros((50, 40));
    let reader = SubsetReader::new(out.view_mut(), &grid, &[5, 3], 0, Endian::Little).unwrap();
    let parts: Vec<ChunkPart> = reader.parts().collect();
    std::thread::scope(|scope| {
        for share in parts.chunks(parts.len().div_ceil(4)) {
            let reader = &reader;
            let store = &store;
            scope.spawn(move || {
                for part in share {
                    reader.put(&part.index, Some(&store[&part.index])).unwrap();
                }
            });
        }
    });
    reader.finish().unwrap();
    assert_eq!(out, a.slice(s![5..55, 3..43]));
}

/// A store of chunks, written through the sans-IO writer: whole parts encoded, others
/// updated in the store's own buffers.
fn write_through(
    writer: &SubsetWriter<'_, u32, ndarray::IxDyn>,
    store: &mut HashMap<Vec<usize>, Vec<u8>>,
) -> Result<(), Error> {
    for part in writer.parts().collect::<Vec<_>>() {
        let stored = if part.whole {
            None
        } else {
            store.get_mut(&part.index)
        };
        match stored {
            Some(bytes) => {
                if writer.update(&part.index, bytes)? {
                    store.remove(&part.index);
                }
            }
            None => match writer.encode(&part.index)? {
                Some(bytes) => {
                    store.insert(part.index, bytes);
                }
                None => {
                    store.remove(&part.index);
                }
            },
        }
    }
    Ok(())
}

#[test]
fn a_writer_stores_what_the_blocking_call_stores() {
    let shape = [11, 10];
    let grid = ChunkGrid::new(&shape, &[4, 4]).unwrap();
    let before = sample(&shape);
    let mut x = sample(&[6, 7]).mapv(|v| v ^ 0xdead);
    // Rows of only the fill value: the chunk of rows 4..8 and columns 4..8 becomes fill.
    x.slice_mut(s![1..5, 2..6]).fill(3);
    for endian in [Endian::Little, Endian::Big] {
        let mut blocking = stored_chunks(&before, &grid, 3, endian);
        blocking.remove(&vec![2, 0]);
        let mut driven = blocking.clone();
        let store = Mutex::new(std::mem::take(&mut blocking));
        x.encode_zarr_subset(
            &grid,
            &[3, 2],
            3,
            endian,
            |index| Ok::<_, Error>(store.lock().unwrap().get(index).cloned()),
            |index, bytes| {
                let mut store = store.lock().unwrap();
                match bytes {
                    Some(bytes) => store.insert(index.to_vec(), bytes.to_vec()),
                    None => store.remove(index),
                };
                Ok(())
            },
        )
        .unwrap();
        let writer = SubsetWriter::new(x.view(), &grid, &[3, 2], 3, endian).unwrap();
        write_through(&writer, &mut driven).unwrap();
        assert_eq!(driven, store.into_inner().unwrap());
        assert!(!driven.contains_key(&vec![1, 1]));
    }
}

#[test]
fn a_failed_update_leaves_the_buffer_as_it_was() {
    let grid = ChunkGrid::new(&[8, 8], &[4, 4]).unwrap();
    let x = ndarray::Array2::<u32>::from_elem((2, 2), 1).into_dyn();
    let writer = SubsetWriter::new(x.view(), &grid, &[1, 1], 0, Endian::Little).unwrap();
    let mut short = vec![5u8; 63];
    let e = writer.update(&[0, 0], &mut short).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref error, .. }
        if matches!(**error, Error::LengthMismatch { expected: 64, actual: 63 })));
    assert_eq!(short, [5u8; 63]);
    assert!(matches!(
        writer.encode(&[1, 0]),
        Err(Error::NotInSubset { .. })
    ));
    let mut stored = vec![5u8; 64];
    assert!(!writer.update(&[0, 0], &mut stored).unwrap());
    assert_eq!(&stored[20..28], &[1, 0, 0, 0, 1, 0, 0, 0]);
    assert_eq!(&stored[16..20], &[5, 5, 5, 5]);
}

#[test]
fn a_failed_encode_into_leaves_the_buffer_as_it_was() {
    let grid = ChunkGrid::new(&[8], &[4]).unwrap();
    let x = ndarray::Array1::<u16>::from_elem(3, 1).into_dyn();
    let writer = SubsetWriter::new(x.view(), &grid, &[3], 0, Endian::Little).unwrap();
    let mut short = vec![5u8; 7];
    let e = writer.encode_into(&[0], &mut short).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref index, ref error }
        if **index == [0] && matches!(**error, Error::LengthMismatch { expected: 8, actual: 7 })));
    assert_eq!(short, [5u8; 7]);
    let mut far = vec![5u8; 8];
    let e = writer.encode_into(&[2], &mut far).unwrap_err();
    assert!(matches!(e, Error::NotInSubset { ref index } if **index == [2]));
    assert_eq!(far, [5u8; 8]);

    // An int4 out of its range, in a chunk covered in part: checked before the fill
    // around the part is written.
    let codec = zarr_bytes::BytesCodec::new(Endian::Little);
    let bad = zarr_bytes::DynArray::Int4(ndarray::arr1(&[1i8, 9]).into_dyn());
    let writer = codec
        .subset_writer_dyn(&bad, &grid, &[1], &0.into())
        .unwrap();
    let mut out = vec![5u8; 4];
    let e = writer.encode_into(&[0], &mut out).unwrap_err();
    assert!(matches!(e, Error::InChunk { ref error, .. }
        if matches!(**error, Error::OutOfRange { index: 1, .. })));
    assert_eq!(out, [5u8; 4]);
    let good = zarr_bytes::DynArray::Int4(ndarray::arr1(&[1i8, -8]).into_dyn());
    let writer = codec
        .subset_writer_dyn(&good, &grid, &[1], &0.into())
        .unwrap();
    assert!(!writer.encode_into(&[0], &mut out).unwrap());
    assert_eq!(out, [0, 1, 0x08, 0]);
}

#[cfg(feature = "async")]
mod asynchronous {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use zarr_bytes::ChunkDecodeInto;

    use super::*;

    /// The most requests pending at once, and the most fetched chunks alive at once.
    #[derive(Default)]
    struct Gauge {
        pending: AtomicUsize,
        most_pending: AtomicUsize,
        alive: AtomicUsize,
        most_alive: AtomicUsize,
    }

    impl Gauge {
        fn up(now: &AtomicUsize, most: &AtomicUsize) {
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
        }
    }

    /// A chunk that counts itself alive until dropped.
    struct Counted<'g>(Vec<u8>, &'g Gauge);

    impl AsRef<[u8]> for Counted<'_> {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.1.alive.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_requests_in_flight_each_chunk_dropped_once_decoded() {
        let shape = [64, 64];
        let grid = ChunkGrid::new(&shape, &[4, 4]).unwrap();
        let a = sample(&shape);
        let store = stored_chunks(&a, &grid, 0, Endian::Little);
        let gauge = Gauge::default();
        let fetch = |index: Vec<usize>| {
            let (store, gauge) = (&store, &gauge);
            async move {
                Gauge::up(&gauge.pending, &gauge.most_pending);
                tokio::time::sleep(Duration::from_millis(5)).await;
                gauge.pending.fetch_sub(1, Ordering::SeqCst);
                Gauge::up(&gauge.alive, &gauge.most_alive);
                Ok::<_, Error>(Some(Counted(store[&index].clone(), gauge)))
            }
        };
        let b = Array2::<u32>::from_zarr_subset_async(
            &grid,
            &[2..62, 1..63],
            0,
            Endian::Little,
            16,
            fetch,
        )
        .await
        .unwrap();
        assert_eq!(b, a.slice(s![2..62, 1..63]));
        assert_eq!(gauge.most_pending.load(Ordering::SeqCst), 16);
        assert!(gauge.most_alive.load(Ordering::SeqCst) <= 17);
        assert_eq!(gauge.alive.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn the_futures_are_send_and_run_on_a_spawned_task() {
        let grid = ChunkGrid::new(&[16, 16], &[4, 4]).unwrap();
        let a = sample(&[16, 16]);
        let store = std::sync::Arc::new(stored_chunks(&a, &grid, 0, Endian::Big));
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let task = runtime.spawn(async move {
            let fetch = |index: Vec<usize>| {
                let store = store.clone();
                async move { Ok::<_, Error>(store.get(&index).cloned()) }
            };
            Array2::<u32>::from_zarr_subset_async(&grid, &[3..9, 0..16], 0, Endian::Big, 4, fetch)
                .await
        });
        let b = runtime.block_on(task).unwrap().unwrap();
        assert_eq!(b, a.slice(s![3..9, ..]));
    }

    #[test]
    fn zero_in_flight_is_an_error_and_the_first_error_is_the_callers() {
        let grid = ChunkGrid::new(&[8], &[2]).unwrap();
        let fetch = |_: Vec<usize>| async { Ok::<Option<Vec<u8>>, Error>(None) };
        let read = ndarray::Array1::<u8>::from_zarr_subset_async(
            &grid,
            &[0..8],
            0,
            Endian::Little,
            0,
            fetch,
        );
        assert!(matches!(
            futures_executor::block_on(read),
            Err(Error::ZeroInFlight)
        ));
        #[derive(Debug)]
        #[allow(dead_code)]
        enum Mine {
            Crate(Error),
            Gone(usize),
        }
        impl From<Error> for Mine {
            fn from(e: Error) -> Self {
                Mine::Crate(e)
            }
        }
        let fetch = |index: Vec<usize>| async move {
            if index[0] == 2 {
                Err(Mine::Gone(index[0]))
            } else {
                Ok(Some(vec![1u8, 2]))
            }
        };
        let mut out = ndarray::Array1::<u8>::zeros(8);
        let read = out.decode_zarr_subset_into_async(&grid, &[0], 0, Endian::Little, 1, fetch);
        let e = futures_executor::block_on(read).unwrap_err();
        assert!(matches!(e, Mine::Gone(2)), "{e:?}");
        assert!(!matches!(e, Mine::Crate(_)));
        // One in flight: chunks 0 and 1 were decoded, the rest not reached.
        assert_eq!(out, ndarray::array![1, 2, 1, 2, 0, 0, 0, 0]);
    }

    #[test]
    fn async_writes_store_what_the_blocking_call_stores_and_nothing_after_a_failed_read() {
        let shape = [11, 10];
        let grid = ChunkGrid::new(&shape, &[4, 4]).unwrap();
        let before = sample(&shape);
        let x = sample(&[6, 7]).mapv(|v| v ^ 0xbeef);
        let mut expected = stored_chunks(&before, &grid, 3, Endian::Little);
        let writer = SubsetWriter::new(x.view(), &grid, &[3, 2], 3, Endian::Little).unwrap();
        let start = expected.clone();
        write_through(&writer, &mut expected).unwrap();
        let store = Mutex::new(start.clone());
        let write = x.encode_zarr_subset_async(
            &grid,
            &[3, 2],
            3,
            Endian::Little,
            3,
            |index| {
                let was = store.lock().unwrap().get(&index).cloned();
                async move { Ok::<_, Error>(was) }
            },
            |index, bytes| {
                let mut store = store.lock().unwrap();
                match bytes {
                    Some(bytes) => store.insert(index, bytes),
                    None => store.remove(&index),
                };
                async { Ok(()) }
            },
        );
        futures_executor::block_on(write).unwrap();
        assert_eq!(store.into_inner().unwrap(), expected);
        // A stored chunk whose read fails is never written, and no chunk after it.
        let store = Mutex::new(start.clone());
        let written = Mutex::new(Vec::new());
        let write = x.encode_zarr_subset_async(
            &grid,
            &[3, 2],
            3,
            Endian::Little,
            1,
            |index| {
                let was = store.lock().unwrap().get(&index).cloned();
                async move {
                    if index == [0, 1] {
                        Err(Error::ZeroInFlight)
                    } else {
                        Ok(was)
                    }
                }
            },
            |index, _| {
                written.lock().unwrap().push(index);
                async { Ok(()) }
            },
        );
        assert!(futures_executor::block_on(write).is_err());
        assert_eq!(written.into_inner().unwrap(), [vec![0, 0]]);
    }
}

/// Every data type through the runtime-typed reader and writer, against the blocking calls.
mod runtime_typed {
    use std::collections::BTreeMap;

    use zarr_bytes::{BytesCodec, DataType, DynArray};

    use super::*;
    use crate::grid_dyn::{data_types, fill_of};

    /// A sample array of `t` and `shape`, its axes permuted (the transpose codec's layout).
    fn sample_dyn(codec: &BytesCodec, t: &DataType, shape: &[usize], seed: u64) -> DynArray {
        let stored = [shape[1], shape[0]];
        let bytes = crate::common::valid_chunk(t, &stored, codec.endian.unwrap(), seed);
        let a = codec.decode_dyn(&bytes, t, &stored).unwrap();
        a.permuted_axes(&[1, 0]).unwrap()
    }

    /// Every chunk of `a` as the blocking call stores it, some left out.
    fn stored_dyn(
        codec: &BytesCodec,
        a: &DynArray,
        grid: &ChunkGrid,
        fill: &serde_json::Value,
    ) -> BTreeMap<Vec<usize>, Vec<u8>> {
        let store = Mutex::new(BTreeMap::new());
        codec
            .encode_chunks_dyn(a, grid, fill, |index, bytes| {
                if index != [1, 0] {
                    store.lock().unwrap().insert(index.to_vec(), bytes);
                }
                Ok::<(), Error>(())
            })
            .unwrap();
        store.into_inner().unwrap()
    }

    #[test]
    fn every_data_type_read_and_written_as_the_blocking_calls_do() {
        let (shape, chunk, origin, part) = ([7, 5], [3, 2], [1, 1], [5, 3]);
        for t in data_types() {
            for endian in [Endian::Little, Endian::Big] {
                let codec = BytesCodec::new(endian);
                let fill = fill_of(&t);
                let ctx = format!("{t}, {endian}");
                let grid = ChunkGrid::new(&shape, &chunk).unwrap();
                let a = sample_dyn(&codec, &t, &shape, 3);
                let store = stored_dyn(&codec, &a, &grid, &fill);
                let bits = |d: &DynArray| codec.encode_dyn(d).unwrap();

                // Read: whole chunks last first, then parts by their byte ranges.
                let mut want = codec.full_dyn(&t, &part, &fill).unwrap();
                codec
                    .decode_subset_into_dyn(&mut want, &grid, &origin, &fill, |index| {
                        Ok::<_, Error>(store.get(index).cloned())
                    })
                    .unwrap();
                let mut got = codec.full_dyn(&t, &[3, 5], &fill).unwrap();
                let mut got = got.view_mut().permuted_axes(&[1, 0]).unwrap();
                let reader = codec
                    .subset_reader_dyn(got.view_mut(), &grid, &origin, &fill)
                    .unwrap();
                let parts: Vec<ChunkPart> = reader.parts().collect();
                for p in parts.iter().rev() {
                    reader
                        .put(&p.index, store.get(&p.index).map(Vec::as_slice))
                        .unwrap();
                }
                reader.finish().unwrap();
                assert_eq!(bits(&got.view().to_owned()), bits(&want), "{ctx}");
                let mut ranged = codec.full_dyn(&t, &part, &fill).unwrap();
                let reader = codec
                    .subset_reader_dyn(&mut ranged, &grid, &origin, &fill)
                    .unwrap();
                for p in &parts {
                    match store.get(&p.index) {
                        Some(chunk) => {
                            let ranges = reader.byte_ranges(&p.index).unwrap();
                            let bytes: Vec<u8> = ranges
                                .iter()
                                .flat_map(|r| chunk[r.clone()].to_vec())
                                .collect();
                            reader.put_part(&p.index, &bytes).unwrap();
                        }
                        None => reader.put(&p.index, None).unwrap(),
                    }
                }
                let e = reader.put(&parts[0].index, None).unwrap_err();
                assert!(matches!(e, Error::PutTwice { .. }), "{ctx}");
                reader.finish().unwrap();
                assert_eq!(bits(&ranged), bits(&want), "{ctx}");
                // A part never put: finishing names it, whether the parts are decoded or
                // pasted.
                let mut short = codec.full_dyn(&t, &part, &fill).unwrap();
                let reader = codec
                    .subset_reader_dyn(&mut short, &grid, &origin, &fill)
                    .unwrap();
                for p in &parts[1..] {
                    reader
                        .put(&p.index, store.get(&p.index).map(Vec::as_slice))
                        .unwrap();
                }
                let e = reader.finish().unwrap_err();
                assert!(
                    matches!(&e, Error::NotPut { index } if index[..] == parts[0].index[..]),
                    "{ctx}: {e}"
                );

                // Write: the blocking call's chunks, and the writer's through the store.
                let x = sample_dyn(&codec, &t, &part, 9);
                let blocking = Mutex::new(store.clone());
                codec
                    .encode_subset_dyn(
                        &x,
                        &grid,
                        &origin,
                        &fill,
                        |index| Ok::<_, Error>(blocking.lock().unwrap().get(index).cloned()),
                        |index, bytes| {
                            let mut b = blocking.lock().unwrap();
                            match bytes {
                                Some(bytes) => b.insert(index.to_vec(), bytes.to_vec()),
                                None => b.remove(index),
                            };
                            Ok(())
                        },
                    )
                    .unwrap();
                let mut driven = store.clone();
                let writer = codec.subset_writer_dyn(&x, &grid, &origin, &fill).unwrap();
                for p in writer.parts().collect::<Vec<_>>() {
                    let stored = if p.whole {
                        None
                    } else {
                        driven.get_mut(&p.index)
                    };
                    let keep = match stored {
                        Some(bytes) => {
                            let fills = writer.update(&p.index, bytes).unwrap();
                            (!fills).then(|| bytes.clone())
                        }
                        None => {
                            let made = writer.encode(&p.index).unwrap();
                            let mut into = vec![0xa5; t.size() * chunk.iter().product::<usize>()];
                            let fills = writer.encode_into(&p.index, &mut into).unwrap();
                            assert_eq!(fills, made.is_none(), "{ctx}");
                            assert_eq!(into, made.clone().unwrap_or(vec![0xa5; into.len()]));
                            made
                        }
                    };
                    match keep {
                        Some(bytes) => driven.insert(p.index, bytes),
                        None => driven.remove(&p.index),
                    };
                }
                assert_eq!(driven, blocking.into_inner().unwrap(), "{ctx}");
            }
        }
    }

    #[cfg(feature = "async")]
    #[test]
    fn every_data_type_through_the_async_calls() {
        let (shape, chunk) = ([7, 5], [3, 2]);
        for t in data_types() {
            let codec = BytesCodec::new(Endian::Big);
            let fill = fill_of(&t);
            let grid = ChunkGrid::new(&shape, &chunk).unwrap();
            let a = sample_dyn(&codec, &t, &shape, 5);
            let store = stored_dyn(&codec, &a, &grid, &fill);
            let bits = |d: &DynArray| codec.encode_dyn(d).unwrap();
            let want = codec
                .decode_subset_dyn(&t, &grid, &[1..6, 0..4], &fill, |index| {
                    Ok::<_, Error>(store.get(index).cloned())
                })
                .unwrap();
            let fetch = |index: Vec<usize>| {
                let chunk = store.get(&index).cloned();
                async move { Ok::<_, Error>(chunk) }
            };
            let read = codec.decode_subset_dyn_async(&t, &grid, &[1..6, 0..4], &fill, 3, fetch);
            let got = futures_executor::block_on(read).unwrap();
            assert_eq!(bits(&got), bits(&want), "{t}");
            let mut into = codec.full_dyn(&t, &[5, 4], &fill).unwrap();
            let read =
                codec.decode_subset_into_dyn_async(&mut into, &grid, &[1, 0], &fill, 2, fetch);
            futures_executor::block_on(read).unwrap();
            assert_eq!(bits(&into), bits(&want), "{t}");

            let x = sample_dyn(&codec, &t, &[4, 3], 11);
            let blocking = Mutex::new(store.clone());
            codec
                .encode_subset_dyn(
                    &x,
                    &grid,
                    &[2, 1],
                    &fill,
                    |index| Ok::<_, Error>(blocking.lock().unwrap().get(index).cloned()),
                    |index, bytes| {
                        let mut b = blocking.lock().unwrap();
                        match bytes {
                            Some(bytes) => b.insert(index.to_vec(), bytes.to_vec()),
                            None => b.remove(index),
                        };
                        Ok(())
                    },
                )
                .unwrap();
            let driven = Mutex::new(store.clone());
            let write = codec.encode_subset_dyn_async(
                &x,
                &grid,
                &[2, 1],
                &fill,
                4,
                |index| {
                    let was = driven.lock().unwrap().get(&index).cloned();
                    async move { Ok::<_, Error>(was) }
                },
                |index, bytes| {
                    let mut d = driven.lock().unwrap();
                    match bytes {
                        Some(bytes) => d.insert(index, bytes),
                        None => d.remove(&index),
                    };
                    async { Ok(()) }
                },
            );
            futures_executor::block_on(write).unwrap();
            assert_eq!(
                driven.into_inner().unwrap(),
                blocking.into_inner().unwrap(),
                "{t}"
            );
        }
    }
}
