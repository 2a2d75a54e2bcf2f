//! The async drivers of a reader and a writer, feature `async`: up to `in_flight` of the
//! caller's requests pending at once, each chunk decoded or stored as it arrives. Only
//! `futures-util`'s combinators: no runtime, so they run on any executor.

use std::future::Future;
use std::task::Context;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use futures_util::{future, task};

use crate::Error;
use crate::typed::grid::parts::ChunkPart;

/// Put every one of `parts` into a reader with `put`, its bytes asked of `fetch`: up to
/// `in_flight` fetches pending, new ones started as others finish, and each chunk put as
/// it arrives and then dropped. The first error stops the work, the pending fetches
/// dropped.
pub(crate) async fn read<E, F, Fut, B>(
    parts: impl Iterator<Item = ChunkPart>,
    in_flight: usize,
    fetch: F,
    put: impl Fn(&[usize], Option<&[u8]>) -> Result<(), Error>,
) -> Result<(), E>
where
    E: From<Error>,
    B: AsRef<[u8]>,
    F: Fn(Vec<usize>) -> Fut,
    Fut: Future<Output = Result<Option<B>, E>>,
{
    if in_flight == 0 {
        return Err(Error::ZeroInFlight.into());
    }
    let fetch = &fetch;
    let mut arrived = stream::iter(parts)
        .map(|part| started(fetch(part.index.clone()), part.index))
        .buffer_unordered(in_flight);
    while let Some(arrival) = arrived.next().await {
        let (index, bytes) = arrival?;
        put(&index, bytes.as_ref().map(AsRef::as_ref))?;
    }
    Ok(())
}

/// `request`, polled once now so that it is sent at once: a future sends nothing until it
/// is polled, and the pool of pending ones polls those already answered first, so a new
/// request would wait for a whole wave to be decoded. Its answer comes with `index`.
fn started<E, B, Fut>(
    request: Fut,
    index: Vec<usize>,
) -> impl Future<Output = Result<(Vec<usize>, Option<B>), E>>
where
    Fut: Future<Output = Result<Option<B>, E>>,
{
    let mut request = Box::pin(future::maybe_done(request));
    let _ = request
        .as_mut()
        .poll(&mut Context::from_waker(task::noop_waker_ref()));
    async move {
        request.as_mut().await;
        match request.as_mut().take_output() {
            Some(answer) => answer.map(|bytes| (index, bytes)),
            None => unreachable!("a finished MaybeDone holds its output until taken"),
        }
    }
}

/// Store every one of `parts` of a writer: a part covered whole made by `encode`; any
/// other asked of `stored` first, then updated in the bytes it answers by `update`, or
/// made by `encode` where it is missing; each handed to `sink` owned, `None` for a chunk
/// of only the fill value. Up to `in_flight` chunks are under way at once, each one's
/// sink after its own update; the first error stops the work, and a chunk whose `stored`
/// or update failed is never handed to `sink`.
pub(crate) async fn write<E, R, RF, K, KF>(
    parts: impl Iterator<Item = ChunkPart>,
    in_flight: usize,
    stored: R,
    sink: K,
    encode: impl Fn(&[usize]) -> Result<Option<Vec<u8>>, Error>,
    update: impl Fn(&[usize], &mut [u8]) -> Result<bool, Error>,
) -> Result<(), E>
where
    E: From<Error>,
    R: Fn(Vec<usize>) -> RF,
    RF: Future<Output = Result<Option<Vec<u8>>, E>>,
    K: Fn(Vec<usize>, Option<Vec<u8>>) -> KF,
    KF: Future<Output = Result<(), E>>,
{
    if in_flight == 0 {
        return Err(Error::ZeroInFlight.into());
    }
    let (stored, sink, encode, update) = (&stored, &sink, &encode, &update);
    stream::iter(parts.map(Ok))
        .try_for_each_concurrent(in_flight, |part: ChunkPart| async move {
            let was = if part.whole {
                None
            } else {
                stored(part.index.clone()).await?
            };
            let bytes = match was {
                Some(mut bytes) => (!update(&part.index, &mut bytes)?).then_some(bytes),
                None => encode(&part.index)?,
            };
            sink(part.index, bytes).await
        })
        .await
}
