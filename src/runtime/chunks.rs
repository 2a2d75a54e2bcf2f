//! Chunks of a grid for arrays whose data type is known only at run time: the arrays of an
//! element type go through the typed chunk code, straight between bytes and regions; text
//! and structs, whose values are no elements, are cut, padded and pasted as arrays.
//! Every function reads or writes a view, which hands its element arrays over as views.

use std::marker::PhantomData;
use std::ops::Range;

use ndarray::{ArrayViewD, ArrayViewMutD, AxisDescription, Slice};

use crate::check::{checked_len, checked_size};
use crate::typed::chunk::{
    check_part, chunk_len, decode_grid, decode_part, encode_grid, encode_part, fill_elements, Sink,
};
use crate::typed::fill::Fill;
use crate::typed::region::{self, decode_region_dyn};
use crate::{ChunkGrid, DynArray, DynArrayView, DynArrayViewMut, Element, Endian, Error};

pub(crate) use crate::typed::chunk::Kind;

/// The slices of `region` along the axes it names, the whole of any axis after them (the
/// bytes of a raw element).
pub(crate) fn slicer(region: &[Range<usize>]) -> impl Fn(AxisDescription) -> Slice + '_ {
    |ax| match region.get(ax.axis.index()) {
        Some(r) => Slice::from(r.clone()),
        None => Slice::from(..),
    }
}

/// Work on the elements of a [`DynArray`] whose variant holds an array of an [`Element`]
/// type, as [`DynArray::elements`] hands them over.
pub(crate) trait Elements<'a>: Sized {
    type Out;
    fn visit<A: Element>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out;
}

/// [`Elements`], on a mutable array.
pub(crate) trait ElementsMut<'a>: Sized {
    type Out;
    fn visit<A: Element>(self, a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> Self::Out;
}

/// The region and chunk shape of a variant's array: for raw elements, with the axis of
/// their bytes, whole.
fn with_records<A>(
    kind: &Kind<A>,
    shape: &[usize],
    region: &[Range<usize>],
    chunk: &[usize],
) -> (Vec<Range<usize>>, Vec<usize>) {
    let (mut region, mut chunk) = (region.to_vec(), chunk.to_vec());
    if let (Kind::Records, Some(&n)) = (kind, shape.last()) {
        region.push(0..n);
        chunk.push(n);
    }
    (region, chunk)
}

/// The logical shape of a variant's array: without the axis of raw elements' bytes.
fn logical<'s, A>(kind: &Kind<A>, shape: &'s [usize]) -> &'s [usize] {
    match kind {
        Kind::Records => &shape[..shape.len() - 1],
        _ => shape,
    }
}

/// A whole array encoded.
struct EncodeWhole {
    endian: Endian,
}

impl<'a> Elements<'a> for EncodeWhole {
    type Out = Result<Vec<u8>, Error>;

    fn visit<A: Element>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out {
        let shape = a.shape().to_vec();
        let mut out = vec![0u8; checked_len(&shape, A::SIZE)? * A::SIZE];
        encode_part(a, &kind, &shape, &[], self.endian, &mut out)?;
        Ok(out)
    }
}

/// Encode the array `view` shows, whatever its data type and layout.
pub(crate) fn encode(view: &DynArrayView<'_>, endian: Endian) -> Result<Vec<u8>, Error> {
    match view.elements(EncodeWhole { endian }) {
        Ok(result) => result,
        Err(_) => view.cow().encode(endian),
    }
}

/// Whether every element of an array is the fill value.
struct FillCheck<'r> {
    fill: &'r [u8],
    endian: Endian,
}

impl<'a> Elements<'a> for FillCheck<'_> {
    type Out = bool;

    fn visit<A: Element>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> bool {
        let pattern = Fill::new(&fill_elements(&kind, self.fill, self.endian));
        match kind {
            Kind::Records => pattern.fills_records(a),
            _ => pattern.fills(a),
        }
    }
}

/// Whether every element of `view` is `fill` (a 0-d array of its data type), bit for bit:
/// text by its values without the zeros that pad them, structs field by field.
pub(crate) fn is_fill(
    view: &DynArrayView<'_>,
    fill: &DynArray,
    endian: Endian,
) -> Result<bool, Error> {
    let fill_bytes = fill.encode(endian)?;
    let check = FillCheck {
        fill: &fill_bytes,
        endian,
    };
    if let Ok(fills) = view.elements(check) {
        return Ok(fills);
    }
    Ok(match (view.owner(), fill) {
        (DynArray::FixedLengthUtf32(s), DynArray::FixedLengthUtf32(f)) => {
            let value = |v: &String| v.trim_end_matches('\0').to_string();
            let fill = f.values().iter().next().map(value);
            view.apply(s.values().view())
                .iter()
                .all(|v| Some(value(v)) == fill)
        }
        (DynArray::NullTerminatedBytes(s), DynArray::NullTerminatedBytes(f)) => {
            let value = |v: &Vec<u8>| {
                let end = v.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                v[..end].to_vec()
            };
            let fill = f.values().iter().next().map(value);
            view.apply(s.values().view())
                .iter()
                .all(|v| Some(value(v)) == fill)
        }
        (DynArray::Struct(s), DynArray::Struct(f)) => {
            for ((_, a), (_, b)) in s.fields().zip(f.fields()) {
                if !is_fill(&view.on(a), b, endian)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// One chunk from its region of an array.
struct EncodeChunk<'r> {
    region: &'r [Range<usize>],
    chunk: &'r [usize],
    fill: &'r [u8],
    endian: Endian,
}

impl<'a> Elements<'a> for EncodeChunk<'_> {
    type Out = Result<Vec<u8>, Error>;

    fn visit<A: Element>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out {
        region::check(logical(&kind, a.shape()), self.region)?;
        let (region, chunk) = with_records(&kind, a.shape(), self.region, self.chunk);
        let part = a.slice_each_axis(slicer(&region));
        let mut out = vec![0u8; chunk_len(part.shape(), &chunk, A::SIZE)?];
        encode_part(part, &kind, &chunk, self.fill, self.endian, &mut out)?;
        Ok(out)
    }
}

/// One chunk into its region of an array.
struct DecodeChunk<'r> {
    region: &'r [Range<usize>],
    chunk: &'r [usize],
    bytes: &'r [u8],
    endian: Endian,
}

impl<'a> ElementsMut<'a> for DecodeChunk<'_> {
    type Out = Result<(), Error>;

    fn visit<A: Element>(self, mut a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> Self::Out {
        region::check(logical(&kind, a.shape()), self.region)?;
        let (region, chunk) = with_records(&kind, a.shape(), self.region, self.chunk);
        let part = a.slice_each_axis_mut(slicer(&region));
        check_part(part.shape(), &chunk)?;
        checked_size(&chunk, A::SIZE, self.bytes)?;
        decode_part(part, &kind, &chunk, self.bytes, self.endian)
    }
}

/// The grid of a variant's array: for raw elements, with the axis of their bytes in one
/// chunk.
fn grid_of<A>(kind: &Kind<A>, grid: &ChunkGrid, shape: &[usize]) -> Result<ChunkGrid, Error> {
    grid.check_array(logical(kind, shape))?;
    let (_, chunk) = with_records(kind, shape, &[], grid.chunk_shape());
    ChunkGrid::new(shape, &chunk)
}

/// Every chunk of a grid, handed to a sink.
struct EncodeChunks<'r, S, E> {
    grid: &'r ChunkGrid,
    fill: &'r [u8],
    endian: Endian,
    sink: &'r S,
    error: PhantomData<fn() -> E>,
}

impl<'a, E, S> Elements<'a> for EncodeChunks<'_, S, E>
where
    E: From<Error> + Send,
    S: Sink<E>,
{
    type Out = Result<(), E>;

    fn visit<A: Element>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out {
        let grid = grid_of(&kind, self.grid, a.shape())?;
        encode_grid(a, &grid, &kind, self.fill, self.endian, self.sink)
    }
}

/// Every chunk of a grid, asked of a source.
struct DecodeChunks<'r, F> {
    grid: &'r ChunkGrid,
    fill: &'r [u8],
    endian: Endian,
    source: &'r F,
}

impl<'a, E, F, B> ElementsMut<'a> for DecodeChunks<'_, F>
where
    E: From<Error> + Send,
    B: AsRef<[u8]>,
    F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
{
    type Out = Result<(), E>;

    fn visit<A: Element>(self, a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> Self::Out {
        let grid = grid_of(&kind, self.grid, a.shape())?;
        let fill = fill_elements(&kind, self.fill, self.endian);
        decode_grid(a, &grid, &kind, &fill, self.endian, self.source)
    }
}

/// The chunk of `chunk` shape whose part inside `array` is `region`, padded with `fill`
/// (a 0-d array of the array's data type).
pub(crate) fn encode_chunk(
    array: &DynArrayView<'_>,
    region: &[Range<usize>],
    chunk: &[usize],
    fill: &DynArray,
    endian: Endian,
) -> Result<Vec<u8>, Error> {
    let fill_bytes = fill.encode(endian)?;
    let visitor = EncodeChunk {
        region,
        chunk,
        fill: &fill_bytes,
        endian,
    };
    match array.elements(visitor) {
        Ok(result) => result,
        // Text and structs: the part, cut out, pasted into a chunk of the fill value.
        Err(_) => {
            let part = array.slice_region(region)?.to_owned();
            check_part(part.shape(), chunk)?;
            let mut padded = fill.filled(chunk);
            let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
            padded.assign_region(&corner, &part)?;
            padded.encode(endian)
        }
    }
}

/// Decode the chunk of `chunk` shape whose part inside `array` is `region` from `bytes`.
pub(crate) fn decode_chunk_into(
    array: &mut DynArrayViewMut<'_>,
    region: &[Range<usize>],
    chunk: &[usize],
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    let data_type = array.data_type();
    let visitor = DecodeChunk {
        region,
        chunk,
        bytes,
        endian,
    };
    match array.elements_mut(visitor) {
        Ok(result) => result,
        // Text and structs: the corner decoded on its own, then pasted.
        Err(_) => {
            region::check(array.shape(), region)?;
            let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
            check_part(&corner.iter().map(|r| r.end).collect::<Vec<_>>(), chunk)?;
            let part = decode_region_dyn(bytes, &data_type, chunk, &corner, endian)?;
            array.assign_unchecked(region, &part);
            Ok(())
        }
    }
}

/// Every chunk of `grid` from `array`, handed to `sink`.
pub(crate) fn encode_chunks<E, S>(
    array: &DynArrayView<'_>,
    grid: &ChunkGrid,
    fill: &DynArray,
    endian: Endian,
    sink: &S,
) -> Result<(), E>
where
    E: From<Error> + Send,
    S: Sink<E>,
{
    let fill_bytes = fill.encode(endian)?;
    let visitor = EncodeChunks {
        grid,
        fill: &fill_bytes,
        endian,
        sink,
        error: PhantomData,
    };
    if let Ok(result) = array.elements(visitor) {
        return result;
    }
    // Text and structs: chunk by chunk, in C order.
    grid.check_array(array.shape())?;
    let size = array.data_type().size();
    let len = checked_len(grid.chunk_shape(), size)? * size;
    for index in grid.indices() {
        let region = grid.region_unchecked(&index);
        let part = array.slice_region(&region)?;
        let fills = || is_fill(&part, fill, endian).unwrap_or(false);
        sink.chunk(&index, len, fills, |out| {
            let bytes = encode_chunk(array, &region, grid.chunk_shape(), fill, endian)?;
            if bytes.len() != out.len() {
                return Err(Error::BufferSize {
                    expected: bytes.len(),
                    actual: out.len(),
                });
            }
            out.copy_from_slice(&bytes);
            Ok(())
        })?;
    }
    Ok(())
}

/// Every chunk of `grid` into `array`, asked of `source`; missing chunks hold `fill`.
pub(crate) fn decode_chunks_into<E, F, B>(
    mut array: DynArrayViewMut<'_>,
    grid: &ChunkGrid,
    fill: &DynArray,
    endian: Endian,
    source: F,
) -> Result<(), E>
where
    E: From<Error> + Send,
    B: AsRef<[u8]>,
    F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
{
    let fill_bytes = fill.encode(endian)?;
    let visitor = DecodeChunks {
        grid,
        fill: &fill_bytes,
        endian,
        source: &source,
    };
    if let Ok(result) = array.elements_mut(visitor) {
        return result;
    }
    // Text and structs: chunk by chunk, in C order.
    grid.check_array(array.shape())?;
    for index in grid.indices() {
        let region = grid.region_unchecked(&index);
        match source(&index)? {
            Some(bytes) => decode_chunk_into(
                &mut array,
                &region,
                grid.chunk_shape(),
                bytes.as_ref(),
                endian,
            )
            .map_err(|e| crate::typed::chunk::in_chunk(&index, e))?,
            None => array.assign_unchecked(&region, fill),
        }
    }
    Ok(())
}
