//! The checks every path shares: sizes and lengths before anything is allocated or
//! written, and the validity of encoded bytes.

use ndarray::{Array, Dimension};

use crate::Error;
use crate::element::Item;
use crate::traverse::Moves;

/// The element count of `shape`, checked as ndarray checks it, and its byte count.
///
/// Both the product of the non-zero axis lengths and the byte count must fit in `isize`.
pub(crate) fn checked_len(shape: &[usize], element_size: usize) -> Result<usize, Error> {
    let nonzero = shape
        .iter()
        .filter(|&&len| len != 0)
        .try_fold(1usize, |acc, &len| acc.checked_mul(len));
    match nonzero {
        Some(n)
            if n <= isize::MAX as usize
                && n.checked_mul(element_size)
                    .is_some_and(|b| b <= isize::MAX as usize) =>
        {
            Ok(if shape.contains(&0) { 0 } else { n })
        }
        _ => Err(Error::ShapeOverflow { element_size }),
    }
}

/// The element count of `shape` after checking that `bytes` has its exact size.
pub(crate) fn checked_length<A: Item>(shape: &[usize], bytes: &[u8]) -> Result<usize, Error> {
    checked_size(shape, A::BYTES, bytes)
}

/// The element count of `shape` after checking that `bytes` holds exactly that many
/// elements of `size` bytes.
pub(crate) fn checked_size(shape: &[usize], size: usize, bytes: &[u8]) -> Result<usize, Error> {
    let len = checked_len(shape, size)?;
    if bytes.len() != len * size {
        return Err(Error::LengthMismatch {
            expected: len * size,
            actual: bytes.len(),
        });
    }
    Ok(len)
}

/// Whether `bytes`, which start at byte `at` of the stream, are all valid encodings of `T`
/// (an element's unit, or a type that decodes as itself): [`Error::InvalidBool`] for the
/// first that is not.
pub(crate) fn check_invalid<T: Moves>(bytes: &[u8], at: usize) -> Result<(), Error> {
    match T::find_invalid(bytes) {
        Some((offset, value)) => Err(Error::InvalidBool {
            offset: at + offset,
            value,
        }),
        None => Ok(()),
    }
}

/// The array of `elements`, whose count was checked against `dim`.
pub(crate) fn into_array<A, D: Dimension>(dim: D, elements: Vec<A>) -> Result<Array<A, D>, Error> {
    // The shape and length were checked, so ndarray agrees; its only objection would be size.
    Array::from_shape_vec(dim, elements).map_err(|_| Error::ShapeOverflow {
        element_size: std::mem::size_of::<A>(),
    })
}
