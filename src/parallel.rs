//! Large conversions split across the rayon thread pool (cargo feature `rayon`).
//!
//! Each conversion is cut so that tasks never share what they write: standard layouts into
//! equal runs of elements and bytes; encoding other layouts into consecutive windows of the
//! byte stream, which read the array's memory in common; decoding into other layouts into
//! halves of the array's memory along its outermost axis in memory, which read the bytes in
//! common. The results are the same bytes and elements as on one thread.

use ndarray::{ArrayView, ArrayViewMut, Axis, IxDyn};
use rayon::prelude::*;

use crate::decode::{check_invalid, decode_strided, read_checked};
use crate::encode::encode_strided;
use crate::layout::{self, Strided};
use crate::{Element, Endian, Error};
use ndarray::Dimension;

/// Bytes from which a conversion is split across threads; smaller ones stay on the calling
/// thread. Measured on 2 vCPUs (`perf_table --features rayon --size-mib M`): at 1 MiB the
/// pool made standard-layout conversions slower (0.6–0.8×), from 2 MiB on they gain
/// (1.3–1.5×).
pub const PARALLEL_THRESHOLD: usize = 2 << 20;

/// Bytes each task converts, at least.
const TASK_BYTES: usize = 256 * 1024;

/// Elements per task for a conversion of `len` elements: enough tasks to balance the pool.
fn per_task<A: Element>(len: usize) -> usize {
    let tasks = 4 * rayon::current_num_threads();
    (len / tasks).max(TASK_BYTES / A::SIZE).max(1)
}

/// The error with the lowest byte offset, so that the answer does not depend on timing.
fn first(errors: impl ParallelIterator<Item = Error>) -> Result<(), Error> {
    let offset = |e: &Error| match e {
        Error::InvalidBool { offset, .. } => *offset,
        _ => 0,
    };
    match errors.min_by_key(offset) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Move an error found in a piece starting at byte `at` to its place in the whole.
fn shifted(e: Error, at: usize) -> Error {
    match e {
        Error::InvalidBool { offset, value } => Error::InvalidBool {
            offset: offset + at,
            value,
        },
        other => other,
    }
}

/// Decode `src` into `dst` in equal parts, validating as it goes.
fn read_all<A: Element>(src: &[u8], endian: Endian, dst: &mut [A]) -> Result<(), Error> {
    let per = per_task::<A>(dst.len());
    first(
        src.par_chunks(per * A::SIZE)
            .zip(dst.par_chunks_mut(per))
            .enumerate()
            .filter_map(|(i, (s, d))| {
                read_checked(s, endian, d)
                    .err()
                    .map(|e| shifted(e, i * per * A::SIZE))
            }),
    )
}

/// Validate all of `bytes` in equal parts.
fn check_all<A: Element>(bytes: &[u8]) -> Result<(), Error> {
    let per = per_task::<A>(bytes.len() / A::SIZE) * A::SIZE;
    first(
        bytes
            .par_chunks(per)
            .enumerate()
            .filter_map(|(i, piece)| check_invalid::<A>(piece, i * per).err()),
    )
}

/// The parallel `from_zarr_bytes`: validate, then allocate, then convert.
pub(crate) fn decode_vec<A: Element>(
    bytes: &[u8],
    len: usize,
    endian: Endian,
) -> Result<Vec<A>, Error> {
    check_all::<A>(bytes)?;
    let mut elements = bytemuck::zeroed_vec::<A>(len);
    read_all(bytes, endian, &mut elements)?;
    Ok(elements)
}

/// The parallel encoder: `out` has the checked length.
pub(crate) fn encode<A: Element>(view: ArrayView<'_, A, IxDyn>, endian: Endian, out: &mut [u8]) {
    if let Some(slice) = view.to_slice() {
        let per = per_task::<A>(slice.len());
        return slice
            .par_chunks(per)
            .zip(out.par_chunks_mut(per * A::SIZE))
            .for_each(|(s, d)| A::write(s, endian, d));
    }
    let Some((strided, memory)) =
        Strided::of(view.shape(), view.strides()).zip(view.to_slice_memory_order())
    else {
        // Not one memory slice: the sequential traversal.
        return crate::encode::encode_sequential(view, endian, out);
    };
    // Consecutive windows of the stream, each with its own part of `out`.
    let mut jobs = Vec::new();
    let mut rest = out;
    layout::windows(
        strided,
        per_task::<A>(strided.len()),
        0,
        &mut |window, _| {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(window.len() * A::SIZE);
            jobs.push((window, part));
            rest = tail;
        },
    );
    jobs.into_par_iter()
        .for_each(|(window, part)| encode_strided(memory, &window, endian, part, &mut Vec::new()));
}

/// The parallel decoder into any layout: `bytes` has the checked length.
pub(crate) fn decode<A: Element>(
    mut view: ArrayViewMut<'_, A, IxDyn>,
    bytes: &[u8],
    endian: Endian,
) -> Result<(), Error> {
    if let Some(slice) = view.as_slice_mut() {
        return read_all(bytes, endian, slice);
    }
    check_all::<A>(bytes)?;
    if view.as_slice_memory_order_mut().is_none() {
        // Not one memory slice: the sequential traversal.
        return crate::decode::decode_sequential(view, bytes, endian);
    }
    // The stream strides of the whole array, which every part keeps.
    let mut stream = vec![0; view.ndim()];
    let mut step = 1;
    for k in (0..view.ndim()).rev() {
        stream[k] = step;
        step *= view.shape()[k];
    }
    split(view, &stream, 0, bytes, endian);
    Ok(())
}

/// Decode into `view`, one slice of memory placed at `out` in the stream with strides
/// `stream`, halving it along its outermost axis in memory while it is large.
fn split<A: Element>(
    mut view: ArrayViewMut<'_, A, IxDyn>,
    stream: &[usize],
    out: usize,
    bytes: &[u8],
    endian: Endian,
) {
    // The halves of one memory slice along its outermost axis are one slice each. The last
    // axis is halved only while it keeps whole tiles.
    let outer = (0..view.ndim())
        .filter(|&k| view.len_of(Axis(k)) >= 2)
        .max_by_key(|&k| view.strides()[k].unsigned_abs());
    let splittable = |k: usize| k + 1 < view.ndim() || view.len_of(Axis(k)) >= 256;
    if let Some(axis) = outer.filter(|&k| splittable(k) && view.len() * A::SIZE > 2 * TASK_BYTES) {
        let mid = view.len_of(Axis(axis)) / 2;
        let (a, b) = view.split_at(Axis(axis), mid);
        let at = out + mid * stream[axis];
        rayon::join(
            || split(a, stream, out, bytes, endian),
            || split(b, stream, at, bytes, endian),
        );
        return;
    }
    let strided = Strided::of(view.shape(), view.strides()).map(|s| s.with_stream(stream));
    match (strided, view.as_slice_memory_order_mut()) {
        (Some(strided), Some(memory)) => decode_strided(memory, &strided, out, bytes, endian),
        // Not expected of a half of one memory slice; correct, one element at a time.
        _ => {
            for (index, x) in view.indexed_iter_mut() {
                let at = out
                    + index
                        .slice()
                        .iter()
                        .zip(stream)
                        .map(|(i, s)| i * s)
                        .sum::<usize>();
                A::read(
                    &bytes[at * A::SIZE..(at + 1) * A::SIZE],
                    endian,
                    std::slice::from_mut(x),
                );
            }
        }
    }
}
