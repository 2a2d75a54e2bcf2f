//! Chunks of a grid for arrays whose data type is known only at run time: the arrays of an
//! element type go through the typed engine, straight between bytes and regions; text and
//! structs, whose values are no elements, are cut, and pasted as their encoded bytes.
//! Every function reads or writes a view, which hands its element arrays over as views.

use std::ops::Range;

use ndarray::{ArrayBase, ArrayViewD, ArrayViewMutD, AxisDescription, IxDyn, RawData, Slice};

use crate::check::{checked_len, checked_size};
use crate::element::Item;
use crate::traverse::permuted;
use crate::typed::grid::engine::{self, Before, Source, Stored};
use crate::typed::grid::fill::Fill;
use crate::typed::grid::part::{
    check_part, chunk_len, corner, decode_part, encode_part, fill_around, fill_elements,
};
use crate::typed::grid::sink::{Sink, in_chunk};
use crate::typed::grid::subset::{Meet, Subset};
use crate::typed::region::{self, decode_region_dyn};
use crate::{ChunkGrid, DataType, DynArray, DynArrayView, DynArrayViewMut, Endian, Error};

pub(crate) use crate::typed::grid::part::Kind;

/// The slices of `region` along the axes it names, the whole of any axis after them (the
/// bytes of a raw element).
pub(crate) fn slicer(region: &[Range<usize>]) -> impl Fn(AxisDescription) -> Slice + '_ {
    |ax| match region.get(ax.axis.index()) {
        Some(r) => Slice::from(r.clone()),
        None => Slice::from(..),
    }
}

/// `a` through a window: `region` of it (one range per axis it names, any axis after them
/// whole), its axes then in `order` (any axis after them kept last, as a raw element's
/// bytes).
pub(crate) fn window<S: RawData>(
    mut a: ArrayBase<S, IxDyn>,
    region: &[Range<usize>],
    order: &[usize],
) -> ArrayBase<S, IxDyn> {
    a.slice_each_axis_inplace(slicer(region));
    if order.iter().enumerate().all(|(i, &k)| i == k) {
        return a;
    }
    let rank = a.ndim();
    let order: Vec<usize> = order.iter().copied().chain(order.len()..rank).collect();
    permuted(a, &order)
}

/// The part of an element array that a visitor works on, as data rather than code, so that
/// it is cut out of each element type's array by one instance per type, not one per type
/// and visitor: a view's window (a region of the owner and an order of its axes), then a
/// chunk's region of what the window shows.
#[derive(Clone, Copy, Default)]
pub(crate) struct Part<'p> {
    pub window: Option<(&'p [Range<usize>], &'p [usize])>,
    pub region: Option<&'p [Range<usize>]>,
}

impl Part<'_> {
    /// This part of `a`.
    pub(crate) fn of<S: RawData>(&self, a: ArrayBase<S, IxDyn>) -> ArrayBase<S, IxDyn> {
        let mut a = match self.window {
            Some((region, order)) => window(a, region, order),
            None => a,
        };
        if let Some(region) = self.region {
            a.slice_each_axis_inplace(slicer(region));
        }
        a
    }
}

/// Work on the elements of a [`DynArray`] whose variant holds an array of an [`Element`]
/// type, as [`DynArray::elements`] hands them over.
pub(crate) trait Elements: Sized {
    type Out;
    /// Work on `a`, the [`part`](Elements::part) of an element array this visitor takes.
    fn visit<A: Item>(self, a: ArrayViewD<'_, A>, kind: Kind<A>) -> Self::Out;
    /// The part of an array that `visit` works on: all of it, a view's window, a chunk's
    /// region. Elements that move through a copy are copied from this part only.
    fn part(&self) -> Part<'_> {
        Part::default()
    }
}

/// [`Elements`], on a mutable array.
pub(crate) trait ElementsMut: Sized {
    type Out;
    /// Work on `a`, the [`part`](ElementsMut::part) of an element array this visitor takes.
    fn visit<A: Item>(self, a: ArrayViewMutD<'_, A>, kind: Kind<A>) -> Self::Out;
    /// [`Elements::part`].
    fn part(&self) -> Part<'_> {
        Part::default()
    }
}

/// [`Elements`], for a visitor that keeps the array it is handed as long as it is lent:
/// element types that move through a copy, and arrays that are no one memory slice, are
/// not handed over.
pub(crate) trait ElementsOf<'a>: Sized {
    type Out;
    /// Work on `a`, the [`part`](ElementsOf::part) of an element array this visitor takes.
    fn visit<A: Item>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out;
    /// [`Elements::part`].
    fn part(&self) -> Part<'_> {
        Part::default()
    }
}

/// [`ElementsOf`], on a mutable array.
pub(crate) trait ElementsInto<'a>: Sized {
    type Out;
    /// Work on `a`, the [`part`](ElementsInto::part) of an element array this visitor takes.
    fn visit<A: Item>(self, a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> Self::Out;
    /// [`Elements::part`].
    fn part(&self) -> Part<'_> {
        Part::default()
    }
}

/// A chunk's (or grid's) shape `dims` for a variant's array of `shape`: for raw elements,
/// with the axis of their bytes, whole.
fn with_records<A>(kind: &Kind<A>, shape: &[usize], dims: &[usize]) -> Vec<usize> {
    let mut dims = dims.to_vec();
    if let (Kind::Records, Some(&n)) = (kind, shape.last()) {
        dims.push(n);
    }
    dims
}

/// A whole array encoded.
struct EncodeWhole {
    endian: Endian,
}

impl Elements for EncodeWhole {
    type Out = Result<Vec<u8>, Error>;

    fn visit<A: Item>(self, a: ArrayViewD<'_, A>, kind: Kind<A>) -> Self::Out {
        let shape = a.shape().to_vec();
        let mut out = vec![0u8; checked_len(&shape, A::BYTES)? * A::BYTES];
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

impl Elements for FillCheck<'_> {
    type Out = bool;

    fn visit<A: Item>(self, a: ArrayViewD<'_, A>, kind: Kind<A>) -> bool {
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

impl Elements for EncodeChunk<'_> {
    type Out = Result<Vec<u8>, Error>;

    fn visit<A: Item>(self, part: ArrayViewD<'_, A>, kind: Kind<A>) -> Self::Out {
        let chunk = with_records(&kind, part.shape(), self.chunk);
        let mut out = vec![0u8; chunk_len(part.shape(), &chunk, A::BYTES)?];
        encode_part(part, &kind, &chunk, self.fill, self.endian, &mut out)?;
        Ok(out)
    }
    fn part(&self) -> Part<'_> {
        // The region, checked by `encode_chunk`; a raw element's bytes whole.
        Part {
            region: Some(self.region),
            ..Part::default()
        }
    }
}

/// One chunk into its region of an array.
struct DecodeChunk<'r> {
    region: &'r [Range<usize>],
    chunk: &'r [usize],
    bytes: &'r [u8],
    endian: Endian,
}

impl ElementsMut for DecodeChunk<'_> {
    type Out = Result<(), Error>;

    fn visit<A: Item>(self, part: ArrayViewMutD<'_, A>, kind: Kind<A>) -> Self::Out {
        let chunk = with_records(&kind, part.shape(), self.chunk);
        check_part(part.shape(), &chunk)?;
        checked_size(&chunk, A::BYTES, self.bytes)?;
        let corner = corner(part.shape());
        let mut scratch = Vec::new();
        decode_part(
            part,
            &kind,
            &chunk,
            &corner,
            self.bytes,
            self.endian,
            &mut scratch,
        )
    }
    fn part(&self) -> Part<'_> {
        // The region, checked by `decode_chunk_into`; a raw element's bytes whole.
        Part {
            region: Some(self.region),
            ..Part::default()
        }
    }
}

/// A subset of a variant's array: for raw elements, with the axis of their bytes whole,
/// in one chunk of a grid that has that axis too, which `records` holds.
fn subset_of<'g, A>(
    kind: &Kind<A>,
    subset: &Subset<'g>,
    shape: &[usize],
    records: &'g mut Option<ChunkGrid>,
) -> Result<Subset<'g>, Error> {
    let (Kind::Records, Some(&n)) = (kind, shape.last()) else {
        return Ok(subset.clone());
    };
    let grid = subset.grid();
    let chunk = with_records(kind, shape, grid.chunk_shape());
    let array = with_records(kind, shape, grid.array_shape());
    let grid = records.insert(ChunkGrid::new(&array, &chunk)?);
    Ok(subset.with_axis(grid, n))
}

/// An array encoded into the chunks of a subset, handed to a sink.
struct EncodeSubset<'r, S, E> {
    subset: &'r Subset<'r>,
    fill: &'r [u8],
    endian: Endian,
    sink: &'r S,
    stored: &'r Stored<'r, E>,
}

impl<E, S> Elements for EncodeSubset<'_, S, E>
where
    E: From<Error> + Send,
    S: Sink<E>,
{
    type Out = Result<(), E>;

    fn visit<A: Item>(self, a: ArrayViewD<'_, A>, kind: Kind<A>) -> Self::Out {
        let mut records = None;
        let subset = subset_of(&kind, self.subset, a.shape(), &mut records)?;
        let (fill, endian) = (self.fill, self.endian);
        engine::encode(a, &subset, &kind, fill, endian, self.sink, self.stored)
    }
}

/// The chunks of a subset, asked of a source, decoded into an array.
struct DecodeSubset<'r, B, E> {
    subset: &'r Subset<'r>,
    fill: &'r [u8],
    endian: Endian,
    source: &'r Source<'r, B, E>,
    before: Before,
}

impl<E, B> ElementsMut for DecodeSubset<'_, B, E>
where
    E: From<Error> + Send,
    B: AsRef<[u8]>,
{
    type Out = Result<(), E>;

    fn visit<A: Item>(self, a: ArrayViewMutD<'_, A>, kind: Kind<A>) -> Self::Out {
        let mut records = None;
        let subset = subset_of(&kind, self.subset, a.shape(), &mut records)?;
        let fill = fill_elements(&kind, self.fill, self.endian);
        engine::decode(
            a,
            &subset,
            &kind,
            &fill,
            self.endian,
            self.source,
            self.before,
        )
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
    region::check(array.shape(), region)?;
    let visitor = EncodeChunk {
        region,
        chunk,
        fill: &fill_bytes,
        endian,
    };
    match array.elements(visitor) {
        Ok(result) => result,
        // Text and structs: the part's bytes pasted into a chunk of the fill value.
        Err(_) => {
            let part = array.slice_region(region)?;
            let size = array.data_type().size();
            let mut out = vec![0u8; chunk_len(part.shape(), chunk, size)?];
            let corner = corner(part.shape());
            fill_around(chunk, &corner, size, &fill_bytes, &mut out);
            paste(&part, chunk, &corner, endian, &mut out)?;
            Ok(out)
        }
    }
}

/// Write the bytes of `part` (text or structs) into `region`, of its shape, of a chunk of
/// shape `chunk` whose encoded bytes are `bytes`, in place.
fn paste(
    part: &DynArrayView<'_>,
    chunk: &[usize],
    region: &[Range<usize>],
    endian: Endian,
    bytes: &mut [u8],
) -> Result<(), Error> {
    let encoded = part.cow().encode(endian)?;
    let size = part.data_type().size();
    let mut at = 0;
    region::runs(chunk, region, |_, offset, len| {
        let (offset, len) = (offset * size, len * size);
        bytes[offset..offset + len].copy_from_slice(&encoded[at..at + len]);
        at += len;
    });
    Ok(())
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
    region::check(array.shape(), region)?;
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
            let corner: Vec<Range<usize>> = region.iter().map(|r| 0..r.len()).collect();
            check_part(&corner.iter().map(|r| r.end).collect::<Vec<_>>(), chunk)?;
            let part = decode_region_dyn(bytes, &data_type, chunk, &corner, endian)?;
            array.assign_unchecked(region, &part);
            Ok(())
        }
    }
}

/// `array`, of `subset`'s shape, encoded into the chunks `subset` touches and handed to
/// `sink`: the chunks it holds in part asked of `stored` and updated in place.
pub(crate) fn encode_subset<E, S>(
    array: &DynArrayView<'_>,
    subset: &Subset<'_>,
    fill: &DynArray,
    endian: Endian,
    sink: &S,
    stored: &Stored<'_, E>,
) -> Result<(), E>
where
    E: From<Error> + Send,
    S: Sink<E>,
{
    let fill_bytes = fill.encode(endian)?;
    let visitor = EncodeSubset {
        subset,
        fill: &fill_bytes,
        endian,
        sink,
        stored,
    };
    if let Ok(result) = array.elements(visitor) {
        return result;
    }
    // Text and structs: chunk by chunk, in C order, their parts pasted as bytes.
    let pasting = Pasting::new(subset.clone(), array.data_type(), fill, endian)?;
    for at in subset.indices() {
        let meet = subset.meet(&at);
        let part = array.slice_region(&meet.within)?;
        let stored = if meet.whole { None } else { stored(&at)? };
        match stored {
            Some(bytes) => sink.update(&at, bytes, |bytes| pasting.update(&meet, &part, bytes))?,
            None => sink.chunk(
                &at,
                pasting.len,
                || pasting.fills(&part),
                |out| pasting.make(&meet, &part, out),
            )?,
        }
    }
    Ok(())
}

/// The chunks `subset` touches, asked of `source`, decoded into `array`, of the subset's
/// shape; the part of a missing chunk holds `fill`.
pub(crate) fn decode_subset<E, B>(
    mut array: DynArrayViewMut<'_>,
    subset: &Subset<'_>,
    fill: &DynArray,
    endian: Endian,
    source: &Source<'_, B, E>,
    before: Before,
) -> Result<(), E>
where
    E: From<Error> + Send,
    B: AsRef<[u8]>,
{
    let fill_bytes = fill.encode(endian)?;
    let visitor = DecodeSubset {
        subset,
        fill: &fill_bytes,
        endian,
        source,
        before,
    };
    if let Ok(result) = array.elements_mut(visitor) {
        return result;
    }
    // Text and structs: chunk by chunk, in C order, each part decoded alone, then pasted.
    let pasting = Pasting::new(subset.clone(), array.data_type(), fill, endian)?;
    for at in subset.indices() {
        let bytes = source(&at)?;
        pasting.put(&mut array, &at, bytes.as_ref().map(AsRef::as_ref))?;
    }
    Ok(())
}

/// The chunks of a subset whose parts are pasted as their bytes, each part encoded or
/// decoded on its own: text and structs, and (in readers and writers the caller drives)
/// elements that move through a copy.
pub(crate) struct Pasting<'g> {
    pub(crate) subset: Subset<'g>,
    data_type: DataType,
    fill: DynArray,
    /// The fill value's bytes, and as a pattern to compare stored bytes with.
    fill_bytes: Vec<u8>,
    pattern: Fill,
    endian: Endian,
    /// A chunk's encoded length.
    pub(crate) len: usize,
}

impl<'g> Pasting<'g> {
    /// The pasting of `subset` of an array of `data_type`, `fill` a 0-d array of it.
    pub(crate) fn new(
        subset: Subset<'g>,
        data_type: DataType,
        fill: &DynArray,
        endian: Endian,
    ) -> Result<Self, Error> {
        let fill_bytes = fill.encode(endian)?;
        let size = data_type.size();
        let len = checked_len(subset.grid().chunk_shape(), size)? * size;
        Ok(Pasting {
            subset,
            data_type,
            fill: fill.clone(),
            pattern: Fill::of_bytes(&fill_bytes),
            fill_bytes,
            endian,
            len,
        })
    }

    /// Whether `part` holds only the fill value.
    pub(crate) fn fills(&self, part: &DynArrayView<'_>) -> bool {
        is_fill(part, &self.fill, self.endian).unwrap_or(false)
    }

    /// The chunk that meets the subset at `meet` made from `part` alone into `out`: the
    /// part first, checked before its first byte, so a failure writes nothing.
    pub(crate) fn make(
        &self,
        meet: &Meet,
        part: &DynArrayView<'_>,
        out: &mut [u8],
    ) -> Result<(), Error> {
        let (chunk, size) = (self.subset.grid().chunk_shape(), self.data_type.size());
        paste(part, chunk, &meet.region, self.endian, out)?;
        fill_around(chunk, &meet.region, size, &self.fill_bytes, out);
        Ok(())
    }

    /// The chunk that meets the subset at `meet`, stored as `bytes`, with `part` pasted in
    /// place: whether it then holds only the fill value. Checked before anything is
    /// written.
    pub(crate) fn update(
        &self,
        meet: &Meet,
        part: &DynArrayView<'_>,
        bytes: &mut [u8],
    ) -> Result<bool, Error> {
        if bytes.len() != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                actual: bytes.len(),
            });
        }
        let (chunk, size) = (self.subset.grid().chunk_shape(), self.data_type.size());
        paste(part, chunk, &meet.region, self.endian, bytes)?;
        let inside = corner(&meet.inside);
        Ok(self.fills(part) && self.pattern.fills_region(bytes, chunk, &inside, size))
    }

    /// Chunk `at`'s part of `array`, the subset's: decoded alone from the chunk's `bytes`
    /// (only the part's read), or the fill value for a missing chunk. Errors name the chunk.
    pub(crate) fn put(
        &self,
        array: &mut DynArrayViewMut<'_>,
        at: &[usize],
        bytes: Option<&[u8]>,
    ) -> Result<(), Error> {
        let meet = self.subset.meet(at);
        let Some(bytes) = bytes else {
            array.assign_unchecked(&meet.within, &self.fill);
            return Ok(());
        };
        let chunk = self.subset.grid().chunk_shape();
        let part = decode_region_dyn(bytes, &self.data_type, chunk, &meet.region, self.endian)
            .map_err(|e| in_chunk(at, e))?;
        array.assign_unchecked(&meet.within, &part);
        Ok(())
    }

    /// Chunk `at`'s part of `array` from the bytes of its part alone, in C order.
    pub(crate) fn put_part(
        &self,
        array: &mut DynArrayViewMut<'_>,
        at: &[usize],
        bytes: &[u8],
    ) -> Result<(), Error> {
        let within = self.subset.meet(at).within;
        let shape: Vec<usize> = within.iter().map(|r| r.len()).collect();
        let part = DynArray::decode(bytes, &self.data_type, &shape, self.endian)
            .map_err(|e| in_chunk(at, e))?;
        array.assign_unchecked(&within, &part);
        Ok(())
    }
}
