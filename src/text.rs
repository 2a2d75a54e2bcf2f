//! Strings of fixed length: `fixed_length_utf32` (numpy `U`) and `null_terminated_bytes`
//! (numpy `S`). Each element is a fixed number of code units or bytes, zero after the end
//! of a shorter value, so trailing zeros are not part of a value.

use ndarray::{ArrayD, ArrayView, IxDyn};

use crate::decode::{checked_size, decode_vec, into_array};
use crate::encode::encode_vec;
use crate::{DataType, Endian, Error};

/// `units` without its trailing zeros.
fn trimmed<T: Default + PartialEq>(units: &[T]) -> &[T] {
    let end = units
        .iter()
        .rposition(|u| *u != T::default())
        .map_or(0, |i| i + 1);
    &units[..end]
}

/// Decode UTF-32 strings of `length_bytes` bytes each.
pub(crate) fn decode_utf32(
    bytes: &[u8],
    shape: &[usize],
    length_bytes: usize,
    endian: Endian,
) -> Result<ArrayD<String>, Error> {
    let len = checked_size(shape, length_bytes, bytes)?;
    let per = length_bytes / 4;
    // One bulk conversion of all code units, then the strings.
    let units = decode_vec::<u32>(bytes, &[len * per], endian)?;
    let strings = units
        .chunks_exact(per.max(1))
        .enumerate()
        .map(|(i, element)| {
            trimmed(element)
                .iter()
                .enumerate()
                .map(|(j, &unit)| {
                    char::from_u32(unit).ok_or(Error::InvalidCodeUnit {
                        offset: (i * per + j) * 4,
                        value: unit,
                    })
                })
                .collect::<Result<String, Error>>()
        })
        .collect::<Result<Vec<String>, Error>>()?;
    into_array(IxDyn(shape), strings)
}

/// Encode strings as UTF-32 of `length_bytes` bytes each.
pub(crate) fn encode_utf32(
    values: &ArrayD<String>,
    length_bytes: usize,
    endian: Endian,
) -> Result<Vec<u8>, Error> {
    let per = length_bytes / 4;
    let len = crate::layout::checked_len(values.shape(), length_bytes)?;
    let mut units: Vec<u32> = Vec::with_capacity(len * per);
    for (index, s) in values.iter().enumerate() {
        let start = units.len();
        units.extend(s.chars().map(u32::from));
        let count = units.len() - start;
        if count > per {
            return Err(Error::TooLong {
                data_type: DataType::FixedLengthUtf32 { length_bytes },
                index,
                len: count,
                max: per,
            });
        }
        units.resize(start + per, 0);
    }
    encode_vec(ArrayView::from(&units[..]).into_dyn(), endian)
}

/// Decode byte strings of `length_bytes` bytes each.
pub(crate) fn decode_terminated(
    bytes: &[u8],
    shape: &[usize],
    length_bytes: usize,
) -> Result<ArrayD<Vec<u8>>, Error> {
    checked_size(shape, length_bytes, bytes)?;
    let values = bytes
        .chunks_exact(length_bytes.max(1))
        .map(|element| trimmed(element).to_vec())
        .collect();
    into_array(IxDyn(shape), values)
}

/// Encode byte strings as `length_bytes` bytes each.
pub(crate) fn encode_terminated(
    values: &ArrayD<Vec<u8>>,
    length_bytes: usize,
) -> Result<Vec<u8>, Error> {
    let len = crate::layout::checked_len(values.shape(), length_bytes)?;
    let mut out = Vec::with_capacity(len * length_bytes);
    for (index, value) in values.iter().enumerate() {
        if value.len() > length_bytes {
            return Err(Error::TooLong {
                data_type: DataType::NullTerminatedBytes { length_bytes },
                index,
                len: value.len(),
                max: length_bytes,
            });
        }
        out.extend_from_slice(value);
        out.resize(out.len() + length_bytes - value.len(), 0);
    }
    Ok(out)
}
