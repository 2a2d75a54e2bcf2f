//! Where encoded chunks go: each in a `Vec` of its own, or with the chunks of only the
//! fill value handed over as `None`, the others lent from buffers that are reused or, for
//! a stored chunk updated in place, handed over as they are.

use std::borrow::Cow;

use crate::Error;
use crate::typed::grid::part::Spare;

/// Where the encoding of a subset hands its chunks: owned, or lent with chunks of only the
/// fill value left out.
pub(crate) trait Sink<E>: Sync {
    /// Whether this sink leaves out the chunks of only the fill value.
    fn skips_fill(&self) -> bool;

    /// Hand over chunk `index`, of `len` bytes that `encode` writes, unless this sink leaves
    /// out chunks of only the fill value and `fills()` says it is one.
    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        fills: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E>;

    /// Hand over chunk `index` from `stored`, its bytes as stored, once `update` has
    /// written part of it in place; unless this sink leaves out chunks of only the fill
    /// value and `update` says it then holds only the fill value. A chunk whose update
    /// fails is not handed over.
    fn update(
        &self,
        index: &[usize],
        stored: Vec<u8>,
        update: impl FnOnce(&mut [u8]) -> Result<bool, Error>,
    ) -> Result<(), E>;
}

/// The caller's closure that takes each chunk owned. The sinks hold the caller's closures
/// as `dyn`, so that a walk is made once for each error type, not once for each closure.
pub(crate) type Takes<'s, E> = dyn Fn(&[usize], Vec<u8>) -> Result<(), E> + Sync + 's;

/// The caller's closure that is lent each chunk, or handed one owned, `None` for one of only
/// the fill value.
pub(crate) type Lends<'s, E> = dyn Fn(&[usize], Option<Cow<'_, [u8]>>) -> Result<(), E> + Sync + 's;

/// A sink of every chunk, each in a `Vec` of its own.
pub(crate) struct Owned<'s, E>(pub &'s Takes<'s, E>);

impl<E: From<Error>> Sink<E> for Owned<'_, E> {
    fn skips_fill(&self) -> bool {
        false
    }

    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        _: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E> {
        let mut out = vec![0u8; len];
        encode(&mut out).map_err(|e| in_chunk(index, e))?;
        (self.0)(index, out)
    }

    fn update(
        &self,
        index: &[usize],
        mut stored: Vec<u8>,
        update: impl FnOnce(&mut [u8]) -> Result<bool, Error>,
    ) -> Result<(), E> {
        update(&mut stored).map_err(|e| in_chunk(index, e))?;
        (self.0)(index, stored)
    }
}

/// A sink of the chunks that hold more than the fill value: those made from the array lent
/// from buffers that are reused (a thread takes the one put back last, still in its
/// cache), those stored and updated in place handed over owned.
pub(crate) struct Sparse<'s, E> {
    sink: &'s Lends<'s, E>,
    spare: Spare,
}

impl<'s, E> Sparse<'s, E> {
    pub(crate) fn new(sink: &'s Lends<'s, E>) -> Self {
        Sparse {
            sink,
            spare: Spare::default(),
        }
    }
}

impl<E: From<Error>> Sink<E> for Sparse<'_, E> {
    fn skips_fill(&self) -> bool {
        true
    }

    fn chunk(
        &self,
        index: &[usize],
        len: usize,
        fills: impl FnOnce() -> bool,
        encode: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    ) -> Result<(), E> {
        if fills() {
            return (self.sink)(index, None);
        }
        // Every byte of the buffer is written by `encode`: it need not be zeroed.
        let mut out = self.spare.take();
        out.resize(len, 0);
        let result = match encode(&mut out) {
            Ok(()) => (self.sink)(index, Some(Cow::Borrowed(&out))),
            Err(e) => Err(in_chunk(index, e).into()),
        };
        self.spare.give(out);
        result
    }

    fn update(
        &self,
        index: &[usize],
        mut stored: Vec<u8>,
        update: impl FnOnce(&mut [u8]) -> Result<bool, Error>,
    ) -> Result<(), E> {
        let fills = update(&mut stored).map_err(|e| in_chunk(index, e))?;
        (self.sink)(index, (!fills).then_some(Cow::Owned(stored)))
    }
}

/// `error`, of the chunk at `index` of a grid.
pub(crate) fn in_chunk(index: &[usize], error: Error) -> Error {
    Error::InChunk {
        index: index.into(),
        error: Box::new(error),
    }
}
