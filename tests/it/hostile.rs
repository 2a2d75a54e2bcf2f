//! Hostile inputs for the entry points that take data from outside: each function reads
//! arbitrary bytes as an input, calls the crate, and checks that the answer is `Ok` or
//! `Err` (never a panic) and that an `Ok` is right. Shared by the no-panic test and the
//! fuzz targets.
#![allow(dead_code)]

use std::ops::Range;

use ndarray::{ArrayView, CowArray, Dimension};
use zarr_bytes::{
    BytesCodec, BytesDecode, BytesView, DataType, DynArray, Endian, decode_region,
    region_byte_ranges,
};

/// Reads numbers off the front of the input; runs dry into zeros.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A length: mostly small, sometimes huge, so both the work and the overflow checks run.
    pub fn len(&mut self) -> usize {
        match self.byte() {
            250 => usize::MAX,
            251 => usize::MAX / 2 + 1,
            252 => 1 << 40,
            253 => u32::MAX as usize,
            b => (b % 12) as usize,
        }
    }

    pub fn endian(&mut self) -> Endian {
        if self.byte() & 1 == 0 {
            Endian::Little
        } else {
            Endian::Big
        }
    }

    pub fn rest(&mut self) -> &[u8] {
        std::mem::take(&mut self.0)
    }

    /// The rest of the input, or, on most inputs, exactly `elements × size` bytes made from
    /// it (so that decoding gets past the length check); bools sometimes kept valid.
    pub fn payload(&mut self, shape: &[usize], size: usize) -> Vec<u8> {
        let mode = self.byte() % 4;
        let rest = self.rest();
        let wanted = shape
            .iter()
            .try_fold(size, |acc, &len| acc.checked_mul(len))
            .filter(|&n| n <= 1 << 16);
        match (mode, wanted) {
            (0, _) | (_, None) => rest.to_vec(),
            (m, Some(n)) => (0..n)
                .map(|i| {
                    let b = if rest.is_empty() {
                        i as u8
                    } else {
                        rest[i % rest.len()]
                    };
                    if m == 1 { b & 1 } else { b }
                })
                .collect(),
        }
    }
}

/// Data types as `zarr.json` text, valid and not, beside the names of every type of the
/// table: raw bits, aliases, names that are no type, and the objects of the types with a
/// configuration.
const OTHER_NAMES: [&str; 20] = [
    "r8",
    "r16",
    "r24",
    "r56",
    "r0",
    "r7",
    "float128",
    "r-8",
    "",
    "complex_float64",
    r#"{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}"#,
    r#"{"name":"numpy.timedelta64","configuration":{"unit":"D","scale_factor":0}}"#,
    r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#,
    r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":6}}"#,
    r#"{"name":"null_terminated_bytes","configuration":{"length_bytes":3}}"#,
    r#"{"name":"raw_bytes","configuration":{"length_bytes":2}}"#,
    r#"{"name":"struct","configuration":{"fields":[{"name":"a","data_type":"int16"},{"name":"b","data_type":"bool"},{"name":"c","data_type":{"name":"fixed_length_utf32","configuration":{"length_bytes":4}}}]}}"#,
    r#"{"name":"structured","configuration":{"fields":[["a","uint8"],["b",{"name":"structured","configuration":{"fields":[["c","complex64"],["d","int4"]]}}]]}}"#,
    r#"{"name":"struct","configuration":{"fields":[]}}"#,
    r#"{"name":"struct","configuration":{"fields":[{"name":"a","data_type":"int8"},{"name":"a","data_type":"int8"}]}}"#,
];

/// Every data type name of the table, then [`OTHER_NAMES`].
fn names() -> Vec<String> {
    let fixed = DataType::FIXED.iter().map(|t| t.to_string());
    fixed
        .chain(OTHER_NAMES.iter().map(|n| n.to_string()))
        .collect()
}

/// The bits of each byte of a record that a data type uses, where it leaves some unused
/// (whose value decoding ignores, and encoding writes as zero): one record of all ones,
/// decoded and encoded again. `None` where all bits count, or where such a record is no
/// valid value (`bool`, UTF-32 text), whose bytes are checked rather than cleared.
fn used_bits(data_type: &DataType) -> Option<Vec<u8>> {
    let codec = BytesCodec::new(Endian::Little);
    let ones = vec![0xff; data_type.size()];
    let record = codec.decode_dyn(&ones, data_type, &[]).ok()?;
    let mask = codec.encode_dyn(&record).expect("re-encode");
    mask.iter().any(|&b| b != 0xff).then_some(mask)
}

/// `decode_dyn` with an arbitrary data type, shape, codec and bytes; an `Ok` re-encodes to
/// the input (with unused bits cleared). Returns whether it decoded.
pub fn decode_dyn(data: &[u8]) -> bool {
    let mut input = Input(data);
    let names = names();
    let name = names[input.byte() as usize % names.len()].as_str();
    let ndim = input.byte() % 6;
    let shape: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let codec = match input.byte() % 3 {
        0 => BytesCodec::default(),
        1 => BytesCodec::new(Endian::Little),
        _ => BytesCodec::new(Endian::Big),
    };
    let Ok(data_type) = name.parse::<DataType>() else {
        return false;
    };
    let bytes = input.payload(&shape, data_type.size());
    let Ok(array) = codec.decode_dyn(&bytes, &data_type, &shape) else {
        return false;
    };
    assert_eq!(array.data_type(), data_type);
    assert_eq!(array.shape(), &shape[..]);
    // A legacy `structured` array read without endian is little-endian, and written as
    // a `struct`, which needs it said.
    let writer = match (&data_type, codec.endian) {
        (DataType::Struct(t), None) if t.is_legacy() => BytesCodec::new(Endian::Little),
        _ => codec,
    };
    let again = writer.encode_dyn(&array).expect("re-encode");
    match used_bits(&data_type) {
        None => assert_eq!(again, bytes),
        Some(mask) => {
            let masked: Vec<u8> = bytes
                .iter()
                .zip(mask.iter().cycle())
                .map(|(b, m)| b & m)
                .collect();
            assert_eq!(again, masked);
        }
    }
    true
}

/// `DynArray::full` with an arbitrary data type, small shape and fill value text; an `Ok`
/// holds the shape and encodes to one repeated record. Returns whether it filled.
pub fn fill(data: &[u8]) -> bool {
    let mut input = Input(data);
    let names = names();
    let name = names[input.byte() as usize % names.len()].as_str();
    let shape: Vec<usize> = (0..input.byte() % 3).map(|_| input.len() % 4).collect();
    let Ok(text) = std::str::from_utf8(input.rest()) else {
        return false;
    };
    let (Ok(data_type), Ok(value)) = (
        name.parse::<DataType>(),
        serde_json::from_str::<serde_json::Value>(text),
    ) else {
        return false;
    };
    let Ok(array) = DynArray::full(&data_type, &shape, &value) else {
        return false;
    };
    assert_eq!(array.data_type(), data_type);
    assert_eq!(array.shape(), &shape[..]);
    let codec = BytesCodec::new(Endian::Little);
    let bytes = codec.encode_dyn(&array).expect("encode a fill");
    let record = data_type.size();
    assert_eq!(bytes.len(), shape.iter().product::<usize>() * record);
    if let Some(first) = bytes.get(..record) {
        assert!(bytes.chunks(record).all(|r| r == first));
    }
    true
}

/// Codec and data type metadata from arbitrary text; what parses writes and reads back the
/// same. Returns whether a codec parsed.
pub fn metadata(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let codec = serde_json::from_str::<BytesCodec>(text);
    if let Ok(codec) = &codec {
        let written = serde_json::to_string(codec).expect("serialize");
        assert_eq!(
            &serde_json::from_str::<BytesCodec>(&written).expect("read back"),
            codec
        );
    }
    if let Ok(t) = text.parse::<DataType>() {
        assert_eq!(t.to_string().parse::<DataType>().expect("read back"), t);
        let json = serde_json::to_string(&t).expect("serialize");
        assert_eq!(
            serde_json::from_str::<DataType>(&json).expect("read back"),
            t
        );
    }
    if let Ok(e) = text.parse::<Endian>() {
        assert_eq!(e.to_string(), text);
    }
    codec.is_ok()
}

/// Region reads and views with arbitrary shapes, regions and bytes; an `Ok` agrees with a
/// full decode. Returns whether a region decoded.
pub fn region(data: &[u8]) -> bool {
    let mut input = Input(data);
    let ndim = input.byte() % 5;
    let shape: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let region: Vec<Range<usize>> = (0..ndim + input.byte() % 2)
        .map(|_| {
            let (a, b) = (input.len(), input.len());
            a..b
        })
        .collect();
    let types = [
        DataType::UInt8,
        DataType::UInt16,
        DataType::raw_bits(24).expect("whole bytes"),
        DataType::Float64,
        DataType::Complex128,
    ];
    let data_type = &types[input.byte() as usize % types.len()];
    let endian = input.endian();
    let codec = BytesCodec::new(endian);
    let bytes = &input.payload(&shape, 2)[..];
    let mut decoded = false;
    if let Ok(ranges) = codec.region_byte_ranges_dyn(data_type, &shape, &region) {
        // Non-empty ranges in increasing order inside the chunk, as many bytes as the
        // region's elements.
        let elements: usize = region.iter().map(|r| r.len()).product();
        let total: usize = ranges.iter().map(|r| r.len()).sum();
        assert_eq!(total, elements * data_type.size());
        for (r, next) in ranges.iter().zip(ranges.iter().skip(1)) {
            assert!(r.start < r.end && r.end < next.start);
        }
        let size = data_type.size() * shape.iter().product::<usize>();
        assert!(ranges.last().is_none_or(|r| r.end <= size));
        if let Ok(part) = codec.decode_region_dyn(bytes, data_type, &shape, &region) {
            let joined: Vec<u8> = ranges
                .iter()
                .flat_map(|r| bytes[r.clone()].to_vec())
                .collect();
            let again = codec
                .decode_dyn(&joined, data_type, part.shape())
                .expect("decode");
            assert_eq!(again, part);
        }
    }
    if let Ok(ranges) = region_byte_ranges::<u8>(&shape, &region) {
        for r in &ranges {
            assert!(r.start < r.end);
        }
        if let Ok(part) = decode_region::<u16>(bytes, &shape, &region, endian) {
            decoded = true;
            // The ranges of 2-byte elements hold what decode_region read.
            let ranges = region_byte_ranges::<u16>(&shape, &region).expect("same region");
            let joined: Vec<u8> = ranges
                .iter()
                .flat_map(|r| bytes[r.clone()].to_vec())
                .collect();
            let again = ndarray::ArrayD::<u16>::from_zarr_bytes(&joined, part.shape(), endian)
                .expect("decode");
            assert_eq!(again, part);
        }
        let _ = decode_region::<bool>(bytes, &shape, &region, endian);
    }
    // Views never copy and agree with the copying decoder.
    if let Ok(view) = ArrayView::<u16, _>::view_zarr_bytes(bytes, ndarray::IxDyn(&shape), endian) {
        let decoded =
            ndarray::ArrayD::<u16>::from_zarr_bytes(bytes, &shape[..], endian).expect("decode");
        assert_eq!(view, decoded);
    }
    let _ = CowArray::<bool, _>::view_zarr_bytes(bytes, ndarray::IxDyn(&shape), endian);
    decoded
}

/// A chunk grid of an arbitrary array and chunk shape, one of its chunks' regions, the
/// chunks a region touches, and — for arrays small enough to hold — every chunk encoded,
/// one chunk from arbitrary bytes, and every chunk decoded from them: `Ok`s are checked
/// against the grid's own arithmetic and a round trip. Returns whether chunks moved.
pub fn grid(data: &[u8]) -> bool {
    use zarr_bytes::{ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, Error};
    let mut input = Input(data);
    let ndim = input.byte() % 4;
    let shape: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let chunk: Vec<usize> = (0..ndim + u8::from(input.byte() % 8 == 0))
        .map(|_| input.len())
        .collect();
    let index: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let region: Vec<Range<usize>> = (0..ndim)
        .map(|_| {
            let (a, b) = (input.len(), input.len());
            a..b
        })
        .collect();
    let endian = input.endian();
    let Ok(grid) = ChunkGrid::new(&shape, &chunk) else {
        return false;
    };
    if let Ok(r) = grid.region(&index) {
        assert!(
            r.iter()
                .zip(&shape)
                .all(|(r, &n)| r.start < r.end && r.end <= n)
        );
    }
    if let Ok(touched) = grid.chunks_in(&region) {
        for i in touched.take(64) {
            let r = grid.region(&i).expect("a chunk of the grid");
            assert!(
                r.iter()
                    .zip(&region)
                    .all(|(c, q)| c.start < q.end && q.start < c.end)
            );
        }
    }
    // The product of the non-zero lengths, as ndarray checks a shape.
    let count = |s: &[usize]| {
        s.iter()
            .filter(|&&n| n != 0)
            .try_fold(1usize, |n, &k| n.checked_mul(k))
    };
    let (elements, chunk_elements) = (count(&shape), count(&chunk));
    // Each chunk is allocated whole, as a caller asked: keep them small here.
    let small = |n: Option<usize>| n.is_some_and(|n| n <= 4096);
    if !small(elements) || !small(chunk_elements) || grid.len() > 4096 {
        return false;
    }
    let a = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&shape), |i| {
        i.as_array_view()
            .iter()
            .fold(7u16, |h, &k| h.wrapping_mul(31) ^ k as u16)
    });
    let chunks = std::sync::Mutex::new(Vec::new());
    let encoded = a.encode_zarr_chunks(&grid, 0xabcd, endian, |i, bytes| {
        chunks.lock().unwrap().push((i.to_vec(), bytes));
        Ok::<(), Error>(())
    });
    encoded.expect("an array and chunks this small encode");
    let mut chunks = chunks.into_inner().unwrap();
    assert_eq!(chunks.len(), grid.len());
    chunks.sort();
    let mut back = ndarray::ArrayD::<u16>::zeros(ndarray::IxDyn(&shape));
    back.decode_zarr_chunks_into(&grid, 0, endian, |i| {
        let at = chunks
            .binary_search_by(|(k, _)| k.as_slice().cmp(i))
            .expect("each chunk");
        Ok::<_, Error>(Some(&chunks[at].1[..]))
    })
    .expect("the chunks decode");
    assert_eq!(back, a);
    // Chunks of only the fill value left out (one of the array's values, or one it may not
    // hold), the others as they were; the array back in one call.
    let fill = a.first().copied().unwrap_or(0xabcd) ^ u16::from(input.byte() % 2);
    let sparse = std::sync::Mutex::new(Vec::new());
    let encoded = a.encode_zarr_chunks_sparse(&grid, fill, endian, |i, bytes| {
        let bytes = bytes.map(<[u8]>::to_vec);
        sparse.lock().unwrap().push((i.to_vec(), bytes));
        Ok::<(), Error>(())
    });
    encoded.expect("an array and chunks this small encode");
    let mut sparse = sparse.into_inner().unwrap();
    sparse.sort();
    assert_eq!(sparse.len(), grid.len());
    let whole = ndarray::ArrayD::<u16>::from_zarr_chunks(&grid, fill, endian, |i| {
        let at = sparse
            .binary_search_by(|(k, _)| k.as_slice().cmp(i))
            .expect("each chunk");
        Ok::<_, Error>(sparse[at].1.as_deref())
    });
    assert_eq!(whole.expect("the chunks decode"), a);
    // Arbitrary bytes into one chunk's part, and as every chunk of bools.
    let bytes = input.payload(&chunk, 2);
    if let Ok(r) = grid.region(&index) {
        let mut part =
            back.slice_each_axis_mut(|ax| ndarray::Slice::from(r[ax.axis.index()].clone()));
        let _ = part.decode_zarr_chunk_into(&bytes, &chunk, endian);
    }
    let mut flags = ndarray::ArrayD::<bool>::from_elem(ndarray::IxDyn(&shape), false);
    let _ =
        flags.decode_zarr_chunks_into(&grid, true, endian, |_| Ok::<_, Error>(Some(&bytes[..])));
    // Views of a region, axes in an arbitrary order, through the runtime-typed calls.
    let order: Vec<usize> = (0..ndim)
        .map(|_| usize::from(input.byte()) % (usize::from(ndim) + 1))
        .collect();
    let codec = zarr_bytes::BytesCodec::new(endian);
    let mut d = zarr_bytes::DynArray::from(a);
    let value = serde_json::json!(fill);
    if let Ok(v) = d
        .view()
        .slice_region(&region)
        .and_then(|v| v.permuted_axes(&order))
    {
        if let Ok(sub) = ChunkGrid::new(v.shape(), &chunk) {
            let _ = codec.encode_chunks_sparse_dyn(&v, &sub, &value, |_, _| Ok::<(), Error>(()));
            let _ = codec.is_fill_dyn(&v, &value);
            let t = zarr_bytes::DataType::Bool;
            let _ = codec.decode_chunks_dyn(&t, &sub, &serde_json::json!(true), |_| {
                Ok::<_, Error>(Some(&bytes[..]))
            });
        }
    }
    let mut whole = d.view_mut();
    if let Ok(v) = whole
        .slice_region_mut(&region)
        .and_then(|v| v.permuted_axes(&order))
    {
        if let Ok(sub) = ChunkGrid::new(v.shape(), &chunk) {
            let _ =
                codec.decode_chunks_into_dyn(v, &sub, &value, |_| Ok::<_, Error>(Some(&bytes[..])));
        }
    }
    true
}

/// A subset of a chunk grid of arbitrary, even huge, array and chunk shapes, at an
/// arbitrary origin: read from arbitrary bytes into a new array, into an array of any
/// rank, through the runtime calls; written into arbitrary stored chunks. `Ok`s are
/// checked element by element against the chunk bytes they came from or went to. Returns
/// whether a subset moved.
pub fn subset(data: &[u8]) -> bool {
    use zarr_bytes::{ChunkDecode, ChunkDecodeInto, ChunkEncode, ChunkGrid, Error};
    let mut input = Input(data);
    let ndim = input.byte() % 4;
    let shape: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let chunk: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let rank = ndim + u8::from(input.byte() % 8 == 0);
    let origin: Vec<usize> = (0..rank).map(|_| input.len()).collect();
    let lens: Vec<usize> = (0..rank).map(|_| input.len()).collect();
    let subset: Vec<Range<usize>> = origin
        .iter()
        .zip(&lens)
        .map(|(&o, &n)| o..o.saturating_add(n))
        .collect();
    let endian = input.endian();
    let missing = input.byte();
    let bytes = input.payload(&chunk, 2);
    let Ok(grid) = ChunkGrid::new(&shape, &chunk) else {
        return false;
    };
    // Every chunk the same bytes, but those `missing` picks: an element of the subset is
    // then the element at its place in a chunk, or the fill value.
    let is_missing = |index: &[usize]| index.iter().sum::<usize>() % 4 == usize::from(missing % 5);
    let source = |index: &[usize]| Ok::<_, Error>((!is_missing(index)).then_some(&bytes[..]));
    let value_at = |at: &[usize]| -> Option<u16> {
        let mut index = Vec::new();
        let mut offset = 0;
        for k in 0..at.len() {
            index.push(at[k] / chunk[k]);
            offset = offset * chunk[k] + at[k] % chunk[k];
        }
        if is_missing(&index) {
            return Some(0xabcd);
        }
        let b = bytes.get(2 * offset..2 * offset + 2)?;
        Some(match endian {
            Endian::Little => u16::from_le_bytes([b[0], b[1]]),
            Endian::Big => u16::from_be_bytes([b[0], b[1]]),
        })
    };
    let mut moved = false;
    if let Ok(a) = ndarray::ArrayD::<u16>::from_zarr_subset(&grid, &subset, 0xabcd, endian, source)
    {
        let want: Vec<usize> = subset.iter().map(|r| r.len()).collect();
        assert_eq!(a.shape(), want.as_slice());
        for (i, &x) in a.indexed_iter().take(4096) {
            let at: Vec<usize> = i
                .slice()
                .iter()
                .zip(&origin)
                .map(|(&i, &o)| i + o)
                .collect();
            assert_eq!(Some(x), value_at(&at), "element {i:?}");
        }
        moved = true;
    }
    // Into an array of the subset's shape but of any rank, and through the runtime calls;
    // the product of the non-zero lengths, as ndarray checks a shape.
    let small = lens
        .iter()
        .filter(|&&n| n != 0)
        .try_fold(1usize, |n, &k| n.checked_mul(k))
        .is_some_and(|n| n <= 4096);
    if !small {
        return moved;
    }
    let mut into = ndarray::ArrayD::<u16>::zeros(ndarray::IxDyn(&lens));
    let _ = into.decode_zarr_subset_into(&grid, &origin, 0xabcd, endian, source);
    let codec = BytesCodec::new(endian);
    let fill = serde_json::json!(0xabcd);
    let _ = codec.decode_subset_dyn(&DataType::UInt16, &grid, &subset, &fill, source);
    let mut flags = DynArray::from(ndarray::ArrayD::from_elem(ndarray::IxDyn(&lens), false));
    let _ =
        codec.decode_subset_into_dyn(&mut flags, &grid, &origin, &serde_json::json!(true), source);

    // Written into chunks stored as these bytes (of any length) or missing: each chunk is
    // handed over once, the subset's elements at their places. A chunk made anew is
    // allocated whole, as the grid says: keep them small here.
    let chunk_elements = chunk
        .iter()
        .filter(|&&n| n != 0)
        .try_fold(1usize, |n, &k| n.checked_mul(k));
    if chunk_elements.is_none_or(|n| n > 4096) {
        return moved;
    }
    let x = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&lens), |i| {
        i.as_array_view()
            .iter()
            .fold(7u16, |h, &k| h.wrapping_mul(31) ^ k as u16)
    });
    let written = std::sync::Mutex::new(Vec::new());
    let result = x.encode_zarr_subset(
        &grid,
        &origin,
        0xabcd,
        endian,
        |index| Ok::<_, Error>((!is_missing(index)).then(|| bytes.clone())),
        |index, chunk_bytes| {
            let chunk_bytes = chunk_bytes.map(|b| b.into_owned());
            written.lock().unwrap().push((index.to_vec(), chunk_bytes));
            Ok(())
        },
    );
    if result.is_ok() {
        let mut written = written.into_inner().unwrap();
        written.sort();
        let touched: Vec<Vec<usize>> = grid.chunks_in(&subset).expect("a subset").collect();
        assert!(written.iter().map(|(i, _)| i).eq(touched.iter()));
        for (i, &v) in x.indexed_iter() {
            let at: Vec<usize> = i
                .slice()
                .iter()
                .zip(&origin)
                .map(|(&i, &o)| i + o)
                .collect();
            let index: Vec<usize> = at.iter().zip(&chunk).map(|(&a, &c)| a / c).collect();
            let offset = at.iter().zip(&chunk).fold(0, |n, (&a, &c)| n * c + a % c);
            let (_, stored) = &written[written.binary_search_by(|(k, _)| k.cmp(&index)).unwrap()];
            let got = stored.as_ref().map_or(0xabcd, |b| {
                let b = [b[2 * offset], b[2 * offset + 1]];
                match endian {
                    Endian::Little => u16::from_le_bytes(b),
                    Endian::Big => u16::from_be_bytes(b),
                }
            });
            assert_eq!(got, v, "element {i:?}");
        }
        moved = true;
    }
    let d = DynArray::from(x);
    let _ = codec.encode_subset_dyn(
        &d,
        &grid,
        &origin,
        &fill,
        |_| Ok::<_, Error>(Some(bytes.clone())),
        |_, _| Ok(()),
    );
    moved
}

/// A reader and a writer the caller drives, over a subset of a chunk grid of arbitrary,
/// even huge, array and chunk shapes at an arbitrary origin, called with arbitrary indices
/// (of the subset's chunks or not, of any rank) and bytes of arbitrary lengths, in an
/// arbitrary order. Every call returns; each `Ok` is checked: a part put, element by element
/// once the reader is done, against the bytes it came from; a chunk made or updated
/// against the subset's elements and the bytes it started from. An `Err` leaves the output
/// and the buffer lent to `update` as they were. Returns whether a reader or writer was made.
pub fn driven(data: &[u8]) -> bool {
    use ndarray::{ArrayD, IxDyn};
    use zarr_bytes::{ChunkGrid, ChunkPart, Error, SubsetReader, SubsetWriter};
    const FILL: u16 = 0xabcd;
    const BLANK: u16 = 0x5a5a;
    let mut input = Input(data);
    let ndim = input.byte() % 4;
    let shape: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let chunk: Vec<usize> = (0..ndim).map(|_| input.len()).collect();
    let rank = ndim + u8::from(input.byte() % 8 == 0);
    let mut origin: Vec<usize> = (0..rank).map(|_| input.len()).collect();
    let mut lens: Vec<usize> = (0..rank).map(|_| input.len()).collect();
    // Half the time a subset inside the array, so that most calls get past `new`.
    if input.byte() % 2 == 0 {
        for k in 0..shape.len().min(origin.len()) {
            origin[k] %= shape[k].saturating_add(1);
            let room = shape[k] - origin[k];
            lens[k] = room.checked_add(1).map_or(lens[k], |m| lens[k] % m);
        }
    }
    let endian = input.endian();
    let Ok(grid) = ChunkGrid::new(&shape, &chunk) else {
        return false;
    };
    // The product of the non-zero lengths, as ndarray checks a shape.
    let small = lens
        .iter()
        .filter(|&&n| n != 0)
        .try_fold(1usize, |n, &k| n.checked_mul(k))
        .is_some_and(|n| n <= 4096);
    if !small {
        return false;
    }
    // A chunk's bytes, where few enough to make one.
    let chunk_len = chunk
        .iter()
        .try_fold(2usize, |n, &k| n.checked_mul(k))
        .filter(|&n| n <= 1 << 14);
    // Bytes of a length the input picks: a chunk's, a part's, one off either, or any few.
    let bytes = |input: &mut Input<'_>, part: usize| -> Vec<u8> {
        let seed = input.byte();
        let len = match input.byte() % 5 {
            0 => chunk_len.unwrap_or(part),
            1 => part,
            2 => chunk_len.map_or(part + 1, |n| n - 1),
            3 => part.saturating_sub(1),
            _ => usize::from(input.byte()),
        };
        (0..len)
            .map(|i| (i as u8).wrapping_mul(seed) ^ seed.rotate_left(3))
            .collect()
    };
    // An index of one of `parts` half the time, else any, of the grid's rank or not.
    let pick = |input: &mut Input<'_>, parts: &[ChunkPart]| -> Vec<usize> {
        match input.byte() % 4 {
            0 | 1 if !parts.is_empty() => {
                parts[usize::from(input.byte()) % parts.len()].index.clone()
            }
            _ => {
                let n = usize::from(ndim) + usize::from(input.byte() % 8 == 0);
                (0..n).map(|_| input.len()).collect()
            }
        }
    };
    let offset =
        |at: &[usize], shape: &[usize]| at.iter().zip(shape).fold(0, |o, (&i, &n)| o * n + i);
    let value = |b: &[u8], at: usize| {
        let b = [b[2 * at], b[2 * at + 1]];
        match endian {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    };
    let cells = |p: &ChunkPart| p.in_chunk.iter().map(|r| r.len()).product::<usize>();
    // Each index of a box's shape, with its start added.
    let each = |box_: &[Range<usize>]| {
        let lens: Vec<usize> = box_.iter().map(|r| r.len()).collect();
        let starts: Vec<usize> = box_.iter().map(|r| r.start).collect();
        ndarray::indices(IxDyn(&lens)).into_iter().map(move |i| {
            let local: Vec<usize> = i.as_array_view().to_vec();
            let at: Vec<usize> = local.iter().zip(&starts).map(|(&i, &s)| i + s).collect();
            (local, at)
        })
    };

    // The reader: the parts put, each with the bytes it was put with and whether they
    // were the part's alone.
    let mut out = ArrayD::<u16>::from_elem(IxDyn(&lens), BLANK);
    let mut made = None;
    let mut put: Vec<(ChunkPart, Option<Vec<u8>>, bool)> = Vec::new();
    if let Ok(reader) = SubsetReader::new(out.view_mut(), &grid, &origin, FILL, endian) {
        let parts: Vec<ChunkPart> = reader.parts().collect();
        for _ in 0..input.byte() % 24 {
            let op = input.byte() % 4;
            let index = pick(&mut input, &parts);
            let part = parts.iter().find(|p| p.index == index);
            let part_len = part.map_or(0, |p| 2 * cells(p));
            let (result, given, alone) = match op {
                0 => {
                    let b = bytes(&mut input, part_len);
                    (reader.put(&index, Some(&b)), Some(b), false)
                }
                1 => (reader.put(&index, None), None, false),
                2 => {
                    let b = bytes(&mut input, part_len);
                    (reader.put_part(&index, &b), Some(b), true)
                }
                _ => {
                    if let Ok(ranges) = reader.byte_ranges(&index) {
                        // Non-empty, increasing, inside the chunk, the part's bytes.
                        let total: usize = ranges.iter().map(|r| r.len()).sum();
                        assert_eq!(total, part_len);
                        for (r, next) in ranges.iter().zip(ranges.iter().skip(1)) {
                            assert!(r.start < r.end && r.end < next.start);
                        }
                        let end = ranges.last().map_or(0, |r| r.end);
                        let size = chunk.iter().try_fold(2usize, |n, &k| n.checked_mul(k));
                        assert!(size.is_none_or(|n| end <= n));
                    }
                    continue;
                }
            };
            let twice = put.iter().any(|(p, _, _)| p.index == index);
            match (result, part) {
                (Ok(()), Some(part)) => {
                    assert!(!twice, "{index:?} put twice");
                    let len = given.as_ref().map(Vec::len);
                    let want = if alone {
                        part_len
                    } else {
                        chunk_len.unwrap_or(0)
                    };
                    assert!(len.is_none_or(|n| n == want));
                    put.push((part.clone(), given, alone));
                }
                (Ok(()), None) => panic!("{index:?} is no part"),
                (Err(e), None) => assert!(matches!(e, Error::NotInSubset { .. }), "{e}"),
                (Err(e), Some(_)) if twice => assert!(matches!(e, Error::PutTwice { .. }), "{e}"),
                (Err(e), Some(_)) => assert!(matches!(e, Error::InChunk { .. }), "{e}"),
            }
        }
        let first = parts
            .iter()
            .find(|p| put.iter().all(|(q, _, _)| q.index != p.index));
        match (reader.finish(), first) {
            (Ok(()), None) => {}
            (Err(Error::NotPut { index }), Some(p)) => assert_eq!(*index, p.index[..]),
            (r, p) => panic!("finish: {r:?}, first not put {p:?}"),
        }
        made = Some(parts);
    }
    // Each part put holds what it was put with; every other element is as it was.
    let mut expected = ArrayD::<u16>::from_elem(IxDyn(&lens), BLANK);
    for (part, given, alone) in &put {
        let part_shape: Vec<usize> = part.in_chunk.iter().map(|r| r.len()).collect();
        for (local, at) in each(&part.in_subset) {
            expected[IxDyn(&at)] = match given {
                None => FILL,
                Some(b) if *alone => value(b, offset(&local, &part_shape)),
                Some(b) => {
                    let in_chunk: Vec<usize> = local
                        .iter()
                        .zip(&part.in_chunk)
                        .map(|(&i, r)| i + r.start)
                        .collect();
                    value(b, offset(&in_chunk, &chunk))
                }
            };
        }
    }
    assert_eq!(out, expected);

    // `bool`s from arbitrary bytes: some invalid.
    let mut flags = ArrayD::from_elem(IxDyn(&lens), false);
    if let Ok(reader) = SubsetReader::new(flags.view_mut(), &grid, &origin, true, endian) {
        for part in reader.parts().take(8).collect::<Vec<_>>() {
            let b = bytes(&mut input, cells(&part));
            let _ = reader.put(&part.index, Some(&b));
            let _ = reader.put_part(&part.index, &b);
        }
        let _ = reader.finish();
    }

    // The writer, of the fill value, of values, or of both.
    let mode = input.byte() % 3;
    let x = ArrayD::from_shape_fn(IxDyn(&lens), |i| {
        let h = i
            .as_array_view()
            .iter()
            .fold(7u16, |h, &k| h.wrapping_mul(31) ^ k as u16);
        match mode {
            0 => FILL,
            1 => h,
            _ if h % 4 == 0 => h,
            _ => FILL,
        }
    });
    let Ok(writer) = SubsetWriter::new(x.view(), &grid, &origin, FILL, endian) else {
        return made.is_some();
    };
    let parts: Vec<ChunkPart> = writer.parts().collect();
    if let Some(read) = &made {
        assert_eq!(&parts, read);
    }
    // `start` with the part's elements written, and whether its part inside the array then
    // holds only the fill value.
    let written = |part: &ChunkPart, mut start: Vec<u8>| {
        for (local, at) in each(&part.in_subset) {
            let in_chunk: Vec<usize> = local
                .iter()
                .zip(&part.in_chunk)
                .map(|(&i, r)| i + r.start)
                .collect();
            let o = 2 * offset(&in_chunk, &chunk);
            let v = match endian {
                Endian::Little => x[IxDyn(&at)].to_le_bytes(),
                Endian::Big => x[IxDyn(&at)].to_be_bytes(),
            };
            start[o..o + 2].copy_from_slice(&v);
        }
        let region = grid.region(&part.index).expect("a chunk of the grid");
        let fills = each(&region.iter().map(|r| 0..r.len()).collect::<Vec<_>>())
            .all(|(local, _)| value(&start, offset(&local, &chunk)) == FILL);
        (start, fills)
    };
    for _ in 0..input.byte() % 24 {
        let index = pick(&mut input, &parts);
        let part = parts.iter().find(|p| p.index == index);
        match (input.byte() % 2, chunk_len) {
            (0, Some(len)) => match (writer.encode(&index), part) {
                (Ok(got), Some(part)) => {
                    let fill: Vec<u8> = match endian {
                        Endian::Little => FILL.to_le_bytes(),
                        Endian::Big => FILL.to_be_bytes(),
                    }
                    .repeat(len / 2);
                    let (want, fills) = written(part, fill);
                    assert_eq!(got, (!fills).then_some(want));
                }
                (Ok(_), None) => panic!("{index:?} is no part"),
                (Err(e), part) => {
                    assert!(
                        part.is_none() && matches!(e, Error::NotInSubset { .. }),
                        "{e}"
                    )
                }
            },
            _ => {
                let mut buffer = bytes(&mut input, 2 * part.map_or(0, cells));
                let before = buffer.clone();
                match (writer.update(&index, &mut buffer), part) {
                    (Ok(fills), Some(part)) => {
                        assert_eq!(Some(before.len()), chunk_len);
                        assert_eq!((buffer, fills), written(part, before));
                    }
                    (Ok(_), None) => panic!("{index:?} is no part"),
                    (Err(_), _) => assert_eq!(buffer, before),
                }
            }
        }
    }
    true
}
