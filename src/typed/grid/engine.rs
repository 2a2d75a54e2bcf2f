//! The work on one chunk's part, encoded or decoded ([`Encoder`], [`Decoder`]), and the two
//! walks every blocking chunk call of the crate ends in: a subset of a grid's array decoded
//! from its chunks, and an array encoded into a subset of a grid. A whole array is the
//! subset of all of it. The readers and writers the caller drives run the same per-part
//! code on the parts the caller puts or asks for.

use std::borrow::Cow;
use std::ops::Range;

use ndarray::{ArrayView, ArrayView1, ArrayViewMut, IxDyn};

use crate::check::{checked_len, checked_size};
use crate::element::Item;
use crate::typed::grid::fill::Fill;
use crate::typed::grid::part::{
    Kind, Spare, corner, decode_part, encode_part, encode_region, fill_around, fill_elements,
};
use crate::typed::grid::sink::{Sink, in_chunk};
use crate::typed::grid::subset::{Meet, Subset};
use crate::typed::grid::walk;
use crate::{ChunkGrid, Endian, Error};

/// What encoding the parts of a subset needs: its plan, the fill value's bytes and
/// patterns, and which chunks hold data, found in one pass where the array allows.
pub(crate) struct Encoder<'g, A> {
    /// Borrowed by the blocking walk, owned by a writer.
    pub(crate) subset: Cow<'g, Subset<'g>>,
    kind: Kind<A>,
    /// One element's bytes, or a raw element's.
    fill: Vec<u8>,
    endian: Endian,
    /// A chunk's encoded length.
    len: usize,
    /// The rank of a chunk's index: without the axis of raw elements' bytes.
    rank: usize,
    /// The fill value as the array's memory holds it, and as a chunk stores it.
    pattern: Fill,
    stored: Fill,
    /// Whether each chunk's part holds an element other than the fill value, by place.
    data: Option<Vec<bool>>,
}

impl<'g, A: Item> Encoder<'g, A> {
    /// The encoder of `subset`; `scan`, the subset's array, is read once now to find the
    /// chunks of data, where it is one memory slice.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes.
    pub(crate) fn new(
        subset: Cow<'g, Subset<'g>>,
        kind: Kind<A>,
        fill: &[u8],
        endian: Endian,
        scan: Option<ArrayView<'_, A, IxDyn>>,
    ) -> Result<Self, Error> {
        let len = checked_len(subset.grid().chunk_shape(), A::BYTES)? * A::BYTES;
        let rank = logical_rank(&kind, subset.grid());
        let pattern = Fill::new(&fill_elements(&kind, fill, endian));
        // One pass over the memory in order finds the chunks of data at once, where the
        // array is one memory slice: reading it chunk by chunk would wait on the memory.
        let data = match (&kind, scan) {
            (Kind::Plain | Kind::Narrow { .. }, Some(array)) => {
                pattern.chunks_with_data(array, &subset)
            }
            _ => None,
        };
        Ok(Encoder {
            subset,
            kind,
            fill: fill.to_vec(),
            endian,
            len,
            rank,
            pattern,
            stored: Fill::of_bytes(fill),
            data,
        })
    }

    /// A chunk's encoded length.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The grid index of the chunk at `at`: without the axis of raw elements' bytes.
    pub(crate) fn index<'i>(&self, at: &'i [usize]) -> &'i [usize] {
        &at[..self.rank]
    }

    /// Where chunk `index` of the grid is in the subset's coordinates.
    pub(crate) fn at(&self, index: &[usize]) -> Vec<usize> {
        with_axis(index, self.subset.grid().chunk_shape().len())
    }

    /// Whether `part`, chunk `at`'s part of the array, holds only the fill value.
    pub(crate) fn fills(&self, at: &[usize], part: ArrayView<'_, A, IxDyn>) -> bool {
        match (&self.data, &self.kind) {
            (Some(data), _) => !data[self.subset.position(at)],
            (None, Kind::Records) => self.pattern.fills_records(part),
            (None, _) => self.pattern.fills(part),
        }
    }

    /// The chunk that meets the subset at `meet`, made from `part` alone into `out` (of the
    /// chunk's length): the part in its place, the fill value everywhere else; the part
    /// first, checked before its first byte, so a failure writes nothing.
    pub(crate) fn make(
        &self,
        meet: &Meet,
        part: ArrayView<'_, A, IxDyn>,
        out: &mut [u8],
        scratch: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (chunk, fill, endian) = (self.subset.grid().chunk_shape(), &self.fill, self.endian);
        if meet.whole {
            return encode_part(part, &self.kind, chunk, fill, endian, out);
        }
        encode_region(part, &self.kind, chunk, &meet.region, endian, out, scratch)?;
        fill_around(chunk, &meet.region, A::BYTES, fill, out);
        Ok(())
    }

    /// Chunk `at`, as stored in `bytes`, with `part` written into its place, every other
    /// byte kept: whether it then holds only the fill value. Every check comes before the
    /// first byte is written, so on error `bytes` are as they were.
    pub(crate) fn update(
        &self,
        at: &[usize],
        meet: &Meet,
        part: ArrayView<'_, A, IxDyn>,
        bytes: &mut [u8],
        scratch: &mut Vec<u8>,
    ) -> Result<bool, Error> {
        if bytes.len() != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                actual: bytes.len(),
            });
        }
        let chunk = self.subset.grid().chunk_shape();
        let region = &meet.region;
        encode_region(
            part.view(),
            &self.kind,
            chunk,
            region,
            self.endian,
            bytes,
            scratch,
        )?;
        Ok(self.fills(at, part)
            && (self.stored).fills_region(bytes, chunk, &corner(&meet.inside), A::BYTES))
    }
}

/// What decoding the parts of a subset needs: its plan and the fill value.
pub(crate) struct Decoder<'g, A: Clone> {
    /// Borrowed by the blocking walk, owned by a reader; so is the fill value.
    pub(crate) subset: Cow<'g, Subset<'g>>,
    kind: Kind<A>,
    /// One element, or a raw element's bytes.
    fill: Cow<'g, [A]>,
    endian: Endian,
    /// Whether the parts of missing chunks already hold the fill value: zeroed memory
    /// nothing has written, and a fill value of zero bytes.
    filled: bool,
    rank: usize,
}

impl<'g, A: Item> Decoder<'g, A> {
    /// The decoder of `subset` into an array that holds `before`.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeOverflow`] for a chunk larger than `isize::MAX` bytes.
    pub(crate) fn new(
        subset: Cow<'g, Subset<'g>>,
        kind: Kind<A>,
        fill: Cow<'g, [A]>,
        endian: Endian,
        before: Before,
    ) -> Result<Self, Error> {
        checked_len(subset.grid().chunk_shape(), A::BYTES)?;
        let rank = logical_rank(&kind, subset.grid());
        // A fill value of zero bytes is already in zeroed memory: writing it again would
        // only make the system hand over pages the missing chunks never needed.
        let filled = matches!(before, Before::Zeroed)
            && A::as_bytes(&fill).is_some_and(|bytes| bytes.iter().all(|&b| b == 0));
        Ok(Decoder {
            subset,
            kind,
            fill,
            endian,
            filled,
            rank,
        })
    }

    /// The grid index of the chunk at `at`, as [`Encoder::index`].
    pub(crate) fn index<'i>(&self, at: &'i [usize]) -> &'i [usize] {
        &at[..self.rank]
    }

    /// Where chunk `index` of the grid is in the subset's coordinates.
    pub(crate) fn at(&self, index: &[usize]) -> Vec<usize> {
        with_axis(index, self.subset.grid().chunk_shape().len())
    }

    /// The part of a missing chunk: the fill value.
    pub(crate) fn missing(&self, mut part: ArrayViewMut<'_, A, IxDyn>) {
        if self.filled {
            return;
        }
        match self.kind {
            Kind::Records => part.assign(&ArrayView1::from(&self.fill)),
            Kind::Narrow { widen, .. } => part.fill(widen(self.fill[0])),
            Kind::Plain => part.fill(self.fill[0]),
        }
    }

    /// Chunk `at`'s part from the chunk's `bytes`, reading only the part's; the length is
    /// checked before anything is written. Errors name the chunk.
    pub(crate) fn chunk(
        &self,
        at: &[usize],
        part: ArrayViewMut<'_, A, IxDyn>,
        bytes: &[u8],
        scratch: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let region = self.subset.meet(at).region;
        let chunk = self.subset.grid().chunk_shape();
        self.decode(at, part, chunk, &region, bytes, scratch)
    }

    /// Chunk `at`'s part from `bytes`, its byte ranges in the chunk one after the other:
    /// the part's elements in C order, as a chunk of the part's shape.
    pub(crate) fn ranges(
        &self,
        at: &[usize],
        part: ArrayViewMut<'_, A, IxDyn>,
        bytes: &[u8],
        scratch: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let shape: Vec<usize> = self
            .subset
            .meet(at)
            .region
            .iter()
            .map(|r| r.len())
            .collect();
        self.decode(at, part, &shape, &corner(&shape), bytes, scratch)
    }

    /// `region` of a chunk of shape `chunk` from its `bytes` into `part`, the length checked
    /// first; errors name chunk `at`.
    fn decode(
        &self,
        at: &[usize],
        part: ArrayViewMut<'_, A, IxDyn>,
        chunk: &[usize],
        region: &[Range<usize>],
        bytes: &[u8],
        scratch: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (kind, endian) = (&self.kind, self.endian);
        checked_size(chunk, A::BYTES, bytes)
            .and_then(|_| decode_part(part, kind, chunk, region, bytes, endian, scratch))
            .map_err(|e| in_chunk(self.index(at), e))
    }
}

/// The caller's closure that gives a stored chunk, as `dyn`: the walks are made once for
/// each error type (and bytes type), not once for each closure.
pub(crate) type Stored<'s, E> = dyn Fn(&[usize]) -> Result<Option<Vec<u8>>, E> + Sync + 's;

/// The caller's closure that gives a chunk's bytes, as `dyn` (see [`Stored`]).
pub(crate) type Source<'s, B, E> = dyn Fn(&[usize]) -> Result<Option<B>, E> + Sync + 's;

/// Encode `array`, of `subset`'s shape (raw elements' byte axis included, which the grid
/// has too), into the chunks `subset` touches, and hand each to `sink` with its index
/// (without that axis). A chunk whose part inside the array the subset holds whole is
/// made from `array`, padded with `fill` (one element's bytes); any other is asked of
/// `stored` and updated in place, or made of `fill` where it is missing.
pub(crate) fn encode<A, E, S>(
    array: ArrayView<'_, A, IxDyn>,
    subset: &Subset<'_>,
    kind: &Kind<A>,
    fill: &[u8],
    endian: Endian,
    sink: &S,
    stored: &Stored<'_, E>,
) -> Result<(), E>
where
    A: Item,
    E: From<Error> + Send,
    S: Sink<E>,
{
    let scan = sink.skips_fill().then(|| array.view());
    let encoder = Encoder::new(Cow::Borrowed(subset), kind.clone(), fill, endian, scan)?;
    let spare = Spare::default();
    walk::each(subset, array, &|at, part: ArrayView<'_, A, IxDyn>| {
        let meet = subset.meet(at);
        let index = encoder.index(at);
        let stored = if meet.whole { None } else { stored(index)? };
        let mut scratch = spare.take();
        let scratch = &mut scratch;
        let result = match stored {
            Some(bytes) => sink.update(index, bytes, |bytes| {
                encoder.update(at, &meet, part.view(), bytes, scratch)
            }),
            None => sink.chunk(
                index,
                encoder.len(),
                || encoder.fills(at, part.view()),
                |out| encoder.make(&meet, part.view(), out, scratch),
            ),
        };
        spare.give(std::mem::take(scratch));
        result
    })
}

/// Decode the chunks `subset` touches, asked of `source`, into `array`, of the subset's
/// shape (as [`encode`]'s); the part of a missing chunk holds `fill`: one element, or a raw
/// element's bytes.
pub(crate) fn decode<A, E, B>(
    array: ArrayViewMut<'_, A, IxDyn>,
    subset: &Subset<'_>,
    kind: &Kind<A>,
    fill: &[A],
    endian: Endian,
    source: &Source<'_, B, E>,
    before: Before,
) -> Result<(), E>
where
    A: Item,
    E: From<Error> + Send,
    B: AsRef<[u8]>,
{
    let decoder = Decoder::new(
        Cow::Borrowed(subset),
        kind.clone(),
        Cow::Borrowed(fill),
        endian,
        before,
    )?;
    let spare = Spare::default();
    walk::each(subset, array, &|at, part: ArrayViewMut<'_, A, IxDyn>| {
        let Some(bytes) = source(decoder.index(at))? else {
            decoder.missing(part);
            return Ok(());
        };
        let mut scratch = spare.take();
        let result = decoder.chunk(at, part, bytes.as_ref(), &mut scratch);
        spare.give(scratch);
        Ok(result?)
    })
}

/// What the array a decode writes into holds before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Before {
    /// Anything: every element is written.
    Anything,
    /// Zeroed memory that nothing has written (an array the call allocated): the parts of
    /// missing chunks are left as they are when the fill value's bytes are all zero.
    Zeroed,
}

/// The chunks a whole array never asks for, as it holds every chunk's part whole: as
/// `stored`, none is stored.
pub(crate) fn unstored<E>(_: &[usize]) -> Result<Option<Vec<u8>>, E> {
    Ok(None)
}

/// The rank of a chunk's index in `grid`: without the axis of raw elements' bytes.
fn logical_rank<A>(kind: &Kind<A>, grid: &ChunkGrid) -> usize {
    let rank = grid.array_shape().len();
    match kind {
        Kind::Records => rank - 1,
        _ => rank,
    }
}

/// `index` with a 0 for each axis it lacks of `rank`: the one chunk along the axis of raw
/// elements' bytes.
fn with_axis(index: &[usize], rank: usize) -> Vec<usize> {
    let mut at = index.to_vec();
    at.resize(rank.max(index.len()), 0);
    at
}
