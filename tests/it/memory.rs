//! Memory bounds, measured with a counting allocator: hostile shapes allocate nothing or
//! little, and conversions allocate only their output.
//!
//! The counters are per thread, so tests running side by side do not see each other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ndarray::{Array1, Array2, ArrayD, IxDyn, ShapeBuilder};
use zarr_bytes::{BytesCodec, BytesDecode, BytesEncode, DataType, Endian, Error};

/// The buffer `write_zarr_bytes` documents for standard layouts: at most 256 KiB.
const WRITE_BUFFER_SIZE: usize = 256 * 1024;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    static BIG: Cell<usize> = const { Cell::new(0) };
}

/// Allocations of at least this many bytes are counted apart: more than any scratch buffer.
const BIG_BYTES: usize = 120 * 1024;

fn note_alloc(size: usize) {
    // `try_with`: during thread teardown the counters may be gone already.
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + size);
        let _ = PEAK.try_with(|p| p.set(p.get().max(live.get())));
    });
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    if size >= BIG_BYTES {
        let _ = BIG.try_with(|b| b.set(b.get() + 1));
    }
}

fn note_free(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counting only
// touches thread-local cells, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_free(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_free(layout.size());
        note_alloc(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What `f` allocated: (number of allocations, largest one, peak above the start); the
/// allocations of at least `BIG_BYTES` are left counted in `BIG`. With `rayon`, `f` runs on a
/// pool of one thread, where its conversions then run too, so that thread's counters see
/// them all.
fn measure<T: Send>(f: impl FnOnce() -> T + Send) -> (T, usize, usize, usize) {
    let (result, count, largest, peak, big) = on_one_thread(|| {
        let start = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(start));
        COUNT.with(|c| c.set(0));
        LARGEST.with(|l| l.set(0));
        BIG.with(|b| b.set(0));
        let result = f();
        let peak = PEAK.with(Cell::get) - start;
        let (count, largest) = (COUNT.with(Cell::get), LARGEST.with(Cell::get));
        (result, count, largest, peak, BIG.with(Cell::get))
    });
    BIG.with(|b| b.set(big));
    (result, count, largest, peak)
}

/// `f` on a pool of one thread with the `rayon` feature; on the calling thread without it.
fn on_one_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "rayon")]
    return rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool")
        .install(f);
    #[cfg(not(feature = "rayon"))]
    f()
}

#[test]
fn a_huge_claim_from_a_short_reader_fails_with_little_memory() {
    let claim = 1usize << 40; // 1 TiB of u64
    let (result, _, _, peak) =
        measure(|| Array1::<u64>::read_zarr_bytes(&[7u8; 16][..], claim / 8, Endian::Big));
    assert!(matches!(
        result,
        Err(Error::UnexpectedEof { received: 16, .. })
    ));
    assert!(peak < 1 << 20, "peak {peak} bytes");
}

#[test]
fn bad_lengths_and_shapes_allocate_nothing() {
    let bytes = [0u8; 24];
    let (r, count, _, _) =
        measure(|| Array2::<f64>::from_zarr_bytes(&bytes[..23], (1, 3), Endian::Big));
    assert!(matches!(r, Err(Error::LengthMismatch { .. })));
    assert_eq!(count, 0);
    let (r, count, _, _) =
        measure(|| Array2::<f64>::from_zarr_bytes(&bytes, (usize::MAX, 3), Endian::Big));
    assert!(matches!(r, Err(Error::ShapeOverflow { .. })));
    assert_eq!(count, 0);
    let (r, count, _, _) = measure(|| Array1::<bool>::from_zarr_bytes(&[0, 1, 2], 3, Endian::Big));
    assert!(matches!(
        r,
        Err(Error::InvalidBool {
            offset: 2,
            value: 2
        })
    ));
    assert_eq!(count, 0);
    let codec = BytesCodec::new(Endian::Little);
    // Six axes: a shape that would need a heap IxDyn, rejected before one is built.
    let shape = [2, 2, 2, 2, 2, 2];
    let (r, count, _, _) = measure(|| codec.decode_dyn(&bytes, &DataType::Float32, &shape));
    assert!(matches!(
        r,
        Err(Error::LengthMismatch {
            expected: 256,
            actual: 24
        })
    ));
    assert_eq!(count, 0);
    let (r, count, _, _) = measure(|| {
        codec.decode_dyn(
            &bytes,
            &DataType::raw_bits(64).unwrap(),
            &[usize::MAX / 4, 2, 1, 1, 1],
        )
    });
    assert!(matches!(r, Err(Error::ShapeOverflow { element_size: 8 })));
    assert_eq!(count, 0);
    // Strings and bytes are checked before any is built.
    for t in [
        DataType::fixed_length_utf32(8).unwrap(),
        DataType::null_terminated_bytes(5).unwrap(),
        DataType::raw_bytes(5).unwrap(),
    ] {
        let (r, count, _, _) = measure(|| codec.decode_dyn(&bytes, &t, &[4]));
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{t}");
        assert_eq!(count, 0, "{t}");
    }
    // A struct allocates only the walk over its field types, whatever the shape claims.
    let t: DataType = r#"{"name":"struct","configuration":{"fields":[{"name":"a","data_type":"int16"},{"name":"b","data_type":"bool"}]}}"#
        .parse()
        .unwrap();
    let (r, _, _, peak) = measure(|| codec.decode_dyn(&bytes, &t, &[usize::MAX / 2]));
    assert!(matches!(r, Err(Error::ShapeOverflow { .. })));
    assert!(peak < 1024, "{peak} bytes");
}

#[test]
fn encode_and_decode_allocate_only_their_output() {
    let n = 1 << 17; // 1 MiB of f64, below the parallel threshold
    let a = Array1::from_shape_fn(n, |i| i as f64);
    for endian in [Endian::Little, Endian::Big] {
        let (bytes, count, largest, _) = measure(|| a.to_zarr_bytes(endian));
        assert_eq!((count, largest), (1, n * 8), "to_zarr_bytes {endian}");
        let (decoded, count, largest, _) =
            measure(|| Array1::<f64>::from_zarr_bytes(&bytes, n, endian).unwrap());
        assert_eq!((count, largest), (1, n * 8), "from_zarr_bytes {endian}");
        assert_eq!(decoded, a);
        let mut out = vec![0u8; n * 8];
        let (_, count, _, _) = measure(|| a.encode_zarr_bytes_into(&mut out, endian).unwrap());
        assert_eq!(count, 0, "encode_zarr_bytes_into {endian}");
    }
    // Two and more axes, standard layout: still the output alone.
    let m = Array2::from_shape_fn((256, 512), |(i, j)| (i * 512 + j) as u16);
    let (bytes, count, largest, _) = measure(|| m.to_zarr_bytes(Endian::Big));
    assert_eq!((count, largest), (1, m.len() * 2));
    let (_, count, largest, _) =
        measure(|| ArrayD::<u16>::from_zarr_bytes(&bytes, &[256, 512][..], Endian::Big));
    assert_eq!((count, largest), (1, m.len() * 2));
}

#[test]
fn writing_64_mib_needs_only_the_write_buffer() {
    let n = 8 << 20; // 64 MiB of f64
    let a = Array1::from_shape_fn(n, |i| i as f64);
    let f = {
        let mut f = Array2::<f64>::zeros((4096, 2048).f());
        f.assign(&a.view().into_shape_with_order((4096, 2048)).unwrap());
        f
    };
    // Native order and standard layout: straight from memory, nothing allocated.
    let (r, count, _, _) = measure(|| a.write_zarr_bytes(std::io::sink(), Endian::NATIVE));
    r.unwrap();
    assert_eq!(count, 0);
    // Converting: the write buffer, plus a 36 KiB scratch for a transposed f64 layout,
    // whose write buffer holds 128 rows (two tiles of 8-byte elements) of 2048: 2 MiB,
    // within the bound for tiled layouts.
    let tiled = 128 * 2048 * 8;
    for endian in [Endian::Little, Endian::Big] {
        let (r, _, _, peak) = measure(|| a.write_zarr_bytes(std::io::sink(), endian));
        r.unwrap();
        assert!(peak <= WRITE_BUFFER_SIZE, "standard {endian}: peak {peak}");
        let (r, _, _, peak) = measure(|| f.write_zarr_bytes(std::io::sink(), endian));
        r.unwrap();
        assert!(peak <= tiled + (36 << 10), "fortran {endian}: peak {peak}");
    }
    // 1-, 2- and 4-byte elements move through a 72 KiB scratch, and their write buffer
    // holds two tiles: 256 rows of 1024 `u16` (512 KiB), 128 of 512 `f32` (256 KiB), 448 of
    // 1024 `bool` (448 KiB).
    let h = Array2::<u16>::from_shape_fn((1024, 1024).f(), |(i, j)| (i ^ j) as u16);
    let w = Array2::<f32>::from_shape_fn((1024, 512).f(), |(i, j)| (i ^ j) as f32);
    let b = Array2::<bool>::from_shape_fn((2048, 1024).f(), |(i, j)| (i ^ j) % 3 == 0);
    for endian in [Endian::Little, Endian::Big] {
        let (r, _, _, peak) = measure(|| h.write_zarr_bytes(std::io::sink(), endian));
        r.unwrap();
        assert!(
            peak <= 256 * 1024 * 2 + (72 << 10),
            "u16 fortran {endian}: peak {peak}"
        );
        let (r, _, _, peak) = measure(|| w.write_zarr_bytes(std::io::sink(), endian));
        r.unwrap();
        assert!(
            peak <= 128 * 512 * 4 + (72 << 10),
            "f32 fortran {endian}: peak {peak}"
        );
    }
    let (r, _, _, peak) = measure(|| b.write_zarr_bytes(std::io::sink(), Endian::Little));
    r.unwrap();
    assert!(peak <= 448 * 1024 + (72 << 10), "bool fortran: peak {peak}");
}

/// Chunks of bigger arrays, no one memory slice, move straight from their memory: encoding
/// or decoding one (1 MiB, below the parallel threshold) allocates a tile's scratch buffer
/// (72 KiB encoding, 108 KiB decoding at most) and a table of a strip's lane slices (at
/// most 256), and, where the lanes step through memory, a buffer of 256 KiB at most that
/// they are copied through; nothing that grows with the chunk.
#[test]
fn chunks_need_only_a_tile() {
    use ndarray::{Array3, ArrayViewD, ArrayViewMutD, s};
    use num_complex::Complex;
    use zarr_bytes::{BytesDecodeInto, Element};

    fn check<A: Element + Default + std::fmt::Debug>(name: &str) {
        // Chunk (1, 1) of a 2 × 2 grid, rows × 256 columns of 1 MiB.
        let (r, c) = ((1 << 20) / A::SIZE / 256, 256);
        let mut fortran = Array2::<A>::default((2 * r, 2 * c).f());
        let mut standard = Array2::<A>::default((2 * r, 2 * c));
        let mut stack = Array3::<A>::default((2, 2 * c, r));
        let mut stepped = Array2::<A>::default((4 * r, 2 * c).f());
        let tile = 108 << 10;
        let table = 256 * 16 + 1024;
        let views: Vec<(&str, ArrayViewMutD<'_, A>, usize)> = vec![
            (
                "fortran",
                fortran.slice_mut(s![r.., c..]).into_dyn(),
                tile + table,
            ),
            (
                "stepped",
                // The lanes step by 2: copied through a buffer.
                stepped.slice_mut(s![..;2, c..]).into_dyn(),
                tile + (256 << 10) + table,
            ),
            (
                "(z, x, y)",
                stack
                    .view_mut()
                    .permuted_axes([0, 2, 1])
                    .slice_move(s![.., r / 2.., c..])
                    .into_dyn(),
                tile + table,
            ),
        ];
        for (layout, mut view, bound) in views {
            let bytes = vec![0u8; view.len() * A::SIZE];
            let mut out = bytes.clone();
            for endian in [Endian::Little, Endian::Big] {
                let ctx = format!("{name} {layout} {endian}");
                let shared: ArrayViewD<'_, A> = view.view();
                let (r, _, _, peak) = measure(|| shared.encode_zarr_bytes_into(&mut out, endian));
                r.unwrap();
                assert!(peak <= bound, "encode {ctx}: peak {peak}");
                let (r, _, _, peak) = measure(|| view.decode_zarr_bytes_into(&bytes, endian));
                r.unwrap();
                assert!(peak <= bound, "decode {ctx}: peak {peak}");
            }
        }
        // Rows of a C-order chunk move one at a time, with no scratch at all.
        let mut rows = standard.slice_mut(s![r.., c..]);
        let bytes = vec![0u8; rows.len() * A::SIZE];
        let mut out = bytes.clone();
        let (res, _, _, peak) = measure(|| rows.encode_zarr_bytes_into(&mut out, Endian::Big));
        res.unwrap();
        assert!(peak <= 1024, "encode {name} C-order chunk: peak {peak}");
        let (res, _, _, peak) = measure(|| rows.decode_zarr_bytes_into(&bytes, Endian::Big));
        res.unwrap();
        assert!(peak <= 1024, "decode {name} C-order chunk: peak {peak}");
    }
    check::<u8>("u8");
    check::<u16>("u16");
    check::<f64>("f64");
    check::<Complex<f64>>("complex128");
}

/// A view of a region of a `DynArray`, its axes permuted, is the owner's memory: encoding
/// it allocates its output alone (and the scratch of a tiled layout), and decoding into it
/// writes the owner in place, allocating no copy.
#[test]
fn runtime_typed_views_copy_nothing() {
    use zarr_bytes::{ChunkGrid, DynArray};
    let codec = BytesCodec::new(Endian::Big);
    let mut owner = DynArray::from(ArrayD::from_shape_fn(IxDyn(&[512, 512]), |i| {
        (i[0] * 512 + i[1]) as u16
    }));
    let region = [128..384, 0..512];
    let view = owner.view().slice_region(&region).unwrap();
    let view = view.permuted_axes(&[1, 0]).unwrap();
    let len = 256 * 512 * 2;
    let (bytes, _, largest, peak) = measure(|| codec.encode_dyn(&view).unwrap());
    assert_eq!(largest, len);
    assert!(peak < len + 128 * 1024, "{peak} bytes");
    // Element [128, 0] of the owner, then [129, 0].
    let at = |i: usize, j: usize| ((i * 512 + j) as u16).to_be_bytes();
    assert_eq!(bytes[..4], [at(128, 0), at(129, 0)].concat());
    let grid = ChunkGrid::new(&[512, 256], &[128, 128]).unwrap();
    let chunk = vec![0xabu8; 128 * 128 * 2];
    let mut whole = owner.view_mut();
    let part = whole.slice_region_mut(&region).unwrap();
    let part = part.permuted_axes(&[1, 0]).unwrap();
    let (r, _, _, peak) = measure(|| {
        codec.decode_chunks_into_dyn(part, &grid, &serde_json::json!(0), |_| {
            Ok::<_, Error>(Some(&chunk[..]))
        })
    });
    r.unwrap();
    assert!(peak < 300 * 1024, "{peak} bytes");
    let DynArray::UInt16(a) = &owner else {
        panic!("{owner:?}")
    };
    assert!(
        a.slice(ndarray::s![128..384, ..])
            .iter()
            .all(|&x| x == 0xabab)
    );
    assert_eq!(a[[0, 0]], 0);
    assert_eq!(a[[511, 510]], (511 * 512 + 510) as u16);
}

/// Leaving out chunks of the fill value allocates no chunk at all, and the chunks written
/// share buffers: the allocations as large as a chunk do not grow with the number of
/// chunks. A whole array from its chunks allocates the array alone.
#[test]
fn sparse_writes_and_whole_reads_allocate_no_chunk_each() {
    use zarr_bytes::{ChunkDecode, ChunkEncode, ChunkGrid};
    let mut a = Array2::<u16>::from_elem((1024, 1024).f(), 9);
    for i in [10, 300, 600, 1000] {
        a[[i, 1023 - i]] = 1;
    }
    let grid = ChunkGrid::new(&[1024, 1024], &[256, 256]).unwrap(); // 128 KiB chunks
    let written = std::sync::Mutex::new(Vec::new());
    let (r, _, largest, _) = measure(|| {
        a.encode_zarr_chunks_sparse(&grid, 9, Endian::Little, |index, bytes| {
            if let Some(bytes) = bytes {
                written
                    .lock()
                    .unwrap()
                    .push((index.to_vec(), bytes.to_vec()));
            }
            Ok::<(), Error>(())
        })
    });
    let big = BIG.with(Cell::get);
    r.unwrap();
    let written = written.into_inner().unwrap();
    assert_eq!(written.len(), 4);
    assert_eq!(largest, 256 * 256 * 2);
    // The four copies the sink made, and one buffer reused for every chunk.
    assert_eq!(big, 4 + 1, "{big} chunk-sized allocations for 16 chunks");
    // Every chunk encoded to be handed over is allocated on its own.
    let (r, _, _, _) =
        measure(|| a.encode_zarr_chunks(&grid, 9, Endian::Little, |_, _| Ok::<(), Error>(())));
    r.unwrap();
    assert_eq!(BIG.with(Cell::get), 16);
    let (whole, count, largest, peak) = measure(|| {
        Array2::<u16>::from_zarr_chunks(&grid, 9, Endian::Little, |index| {
            let found = written.iter().find(|(i, _)| i == index);
            Ok::<_, Error>(found.map(|(_, b)| &b[..]))
        })
        .unwrap()
    });
    assert_eq!(whole, a);
    assert_eq!(largest, 1024 * 1024 * 2);
    assert!(count < 64, "{count} allocations");
    assert!(peak < 1024 * 1024 * 2 + 128 * 1024, "{peak} bytes");
}

/// Text and structs of a view that is their whole array, in order, encode from the array
/// itself: no copy of their values.
#[test]
fn whole_views_of_text_are_not_copied() {
    use zarr_bytes::{DynArray, FixedLength};
    let n = 4096;
    let values = ArrayD::from_shape_fn(IxDyn(&[n]), |i| format!("{}", i[0]));
    let text = DynArray::FixedLengthUtf32(
        FixedLength::<String>::new(values, std::num::NonZeroUsize::new(4).unwrap()).unwrap(),
    );
    let codec = BytesCodec::new(Endian::Little);
    let (bytes, count, largest, _) = measure(|| codec.encode_dyn(&text).unwrap());
    assert_eq!(largest, n * 16);
    assert!(count < 8, "{count} allocations");
    let half = 0..n / 2;
    let part = text
        .view()
        .slice_region(std::slice::from_ref(&half))
        .unwrap();
    assert_eq!(codec.encode_dyn(&part).unwrap(), bytes[..n * 8]);
}

/// A subset read allocates its array and a buffer of at most a chunk per thread, whatever
/// the chunks it touches; a subset written allocates buffers per thread only: the chunks it
/// updates are the store's own, handed over and back.
#[test]
fn subsets_allocate_their_array_and_buffers_per_thread() {
    use std::collections::BTreeMap;
    use zarr_bytes::{ChunkDecode, ChunkEncode, ChunkGrid};
    let grid = ChunkGrid::new(&[4096, 4096], &[1024, 1024]).unwrap(); // 2 MiB chunks of u16
    let chunk = 1024 * 1024 * 2;
    let chunks: BTreeMap<Vec<usize>, Vec<u8>> = grid
        .indices()
        .map(|i| (i.clone(), vec![(4 * i[0] + i[1]) as u8; chunk]))
        .collect();
    // Half a chunk off on both axes: 9 chunks, 8 of them in part.
    let subset = [512..2560, 512..2560];
    let (a, _, largest, peak) = measure(|| {
        Array2::<u16>::from_zarr_subset(&grid, &subset, 0, Endian::Little, |index| {
            Ok::<_, Error>(chunks.get(index).map(Vec::as_slice))
        })
        .unwrap()
    });
    let big = BIG.with(Cell::get);
    let result = 2048 * 2048 * 2;
    assert_eq!(largest, result);
    // The array, and one buffer of at most 256 KiB for the parts gathered.
    assert!(big <= 2, "{big} allocations of 120 KiB or more");
    assert!(peak <= result + 256 * 1024 + 256 * 1024, "{peak} bytes");
    assert_eq!(a[[0, 0]], 0);
    assert_eq!(a[[600, 600]], 0x0505);

    // Writing: the chunks the subset holds whole through one buffer, the others updated
    // in the store's own buffers.
    let x = Array2::<u16>::from_elem((2048, 2048).f(), 7);
    let store = std::sync::Mutex::new(chunks);
    let (r, _, largest, peak) = measure(|| {
        x.encode_zarr_subset(
            &grid,
            &[512, 512],
            0,
            Endian::Little,
            |index| Ok::<_, Error>(store.lock().unwrap().remove(index)),
            |_, bytes| {
                assert!(bytes.is_some());
                Ok(())
            },
        )
    });
    r.unwrap();
    let big = BIG.with(Cell::get);
    assert!(largest <= chunk, "{largest} bytes");
    assert!(big <= 2, "{big} allocations of 120 KiB or more");
    assert!(peak <= chunk + 256 * 1024 + 256 * 1024, "{peak} bytes");
}
