//! The two calls every chunk call of the crate ends in: a subset of a grid's array decoded
//! from its chunks, and an array encoded into a subset of a grid, chunk by chunk. A whole
//! array is the subset of all of it.

use ndarray::{ArrayView, ArrayView1, ArrayViewMut, IxDyn};

use crate::check::{checked_len, checked_size};
use crate::element::Item;
use crate::typed::grid::fill::Fill;
use crate::typed::grid::part::{
    corner, decode_part, encode_part, encode_region, fill_around, fill_elements, Kind, Spare,
};
use crate::typed::grid::sink::{in_chunk, Sink};
use crate::typed::grid::subset::Subset;
use crate::typed::grid::walk;
use crate::{ChunkGrid, Endian, Error};

/// Encode `array`, of `subset`'s shape (raw elements' byte axis included, which the grid
/// has too), into the chunks `subset` touches, and hand each to `sink` with its index
/// (without that axis). A chunk whose part inside the array the subset holds whole is
/// made from `array`, padded with `fill` (one element's bytes); any other is asked of
/// `stored` and updated in place, or made of `fill` where it is missing.
pub(crate) fn encode<A, E, S, R>(
    array: ArrayView<'_, A, IxDyn>,
    subset: &Subset<'_>,
    kind: &Kind<A>,
    fill: &[u8],
    endian: Endian,
    sink: &S,
    stored: &R,
) -> Result<(), E>
where
    A: Item,
    E: From<Error> + Send,
    S: Sink<E>,
    R: Fn(&[usize]) -> Result<Option<Vec<u8>>, E> + Sync,
{
    let chunk = subset.grid().chunk_shape();
    let len = checked_len(chunk, A::BYTES)? * A::BYTES;
    let rank = logical_rank(kind, subset.grid());
    let pattern = Fill::new(&fill_elements(kind, fill, endian));
    let stored_pattern = Fill::of_bytes(fill);
    // One pass over the memory in order finds the chunks of data at once, where the array
    // is one memory slice: reading it chunk by chunk would wait on the memory.
    let data = match kind {
        Kind::Plain | Kind::Narrow { .. } if sink.skips_fill() => {
            pattern.chunks_with_data(array.view(), subset)
        }
        _ => None,
    };
    let spare = Spare::default();
    walk::each(subset, array, &|at, part: ArrayView<'_, A, IxDyn>| {
        let meet = subset.meet(at);
        let index = &at[..rank];
        let whole = part.clone();
        let fills = || match (&data, kind) {
            (Some(data), _) => !data[subset.position(at)],
            (None, Kind::Records) => pattern.fills_records(whole),
            (None, _) => pattern.fills(whole),
        };
        if meet.whole {
            return sink.chunk(index, len, fills, |out| {
                encode_part(part, kind, chunk, fill, endian, out)
            });
        }
        let region = &meet.region;
        let mut scratch = spare.take();
        let scratch = &mut scratch;
        let result = match stored(index)? {
            None => sink.chunk(index, len, fills, |out| {
                fill_around(chunk, region, A::BYTES, fill, out);
                encode_region(part, kind, chunk, region, endian, out, scratch)
            }),
            Some(bytes) if bytes.len() != len => {
                let error = Error::LengthMismatch {
                    expected: len,
                    actual: bytes.len(),
                };
                Err(in_chunk(index, error).into())
            }
            Some(bytes) => sink.update(
                index,
                bytes,
                |bytes| encode_region(part, kind, chunk, region, endian, bytes, scratch),
                |bytes| {
                    let inside = corner(&meet.inside);
                    fills() && stored_pattern.fills_region(bytes, chunk, &inside, A::BYTES)
                },
            ),
        };
        spare.give(std::mem::take(scratch));
        result
    })
}

/// Decode the chunks `subset` touches, asked of `source`, into `array`, of the subset's
/// shape (as [`encode`]'s); the part of a missing chunk holds `fill`: one element, or a raw
/// element's bytes.
pub(crate) fn decode<A, E, F, B>(
    array: ArrayViewMut<'_, A, IxDyn>,
    subset: &Subset<'_>,
    kind: &Kind<A>,
    fill: &[A],
    endian: Endian,
    source: &F,
    before: Before,
) -> Result<(), E>
where
    A: Item,
    E: From<Error> + Send,
    B: AsRef<[u8]>,
    F: Fn(&[usize]) -> Result<Option<B>, E> + Sync,
{
    let chunk = subset.grid().chunk_shape();
    checked_len(chunk, A::BYTES)?;
    let rank = logical_rank(kind, subset.grid());
    let spare = Spare::default();
    // A fill value of zero bytes is already in zeroed memory: writing it again would only
    // make the system hand over pages the missing chunks never needed.
    let filled = matches!(before, Before::Zeroed)
        && A::as_bytes(fill).is_some_and(|bytes| bytes.iter().all(|&b| b == 0));
    walk::each(
        subset,
        array,
        &|at, mut part: ArrayViewMut<'_, A, IxDyn>| {
            let index = &at[..rank];
            let Some(bytes) = source(index)? else {
                if filled {
                    return Ok(());
                }
                match kind {
                    Kind::Records => part.assign(&ArrayView1::from(fill)),
                    Kind::Narrow { widen, .. } => part.fill(widen(fill[0])),
                    Kind::Plain => part.fill(fill[0]),
                }
                return Ok(());
            };
            let (bytes, region) = (bytes.as_ref(), subset.meet(at).region);
            let mut scratch = spare.take();
            let result = checked_size(chunk, A::BYTES, bytes)
                .and_then(|_| decode_part(part, kind, chunk, &region, bytes, endian, &mut scratch))
                .map_err(|e| in_chunk(index, e).into());
            spare.give(scratch);
            result
        },
    )
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
