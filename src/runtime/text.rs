//! Strings of fixed length: `fixed_length_utf32` (numpy `U`) and `null_terminated_bytes`
//! (numpy `S`). Each element is a fixed number of code units or bytes, zero after the end
//! of a shorter value, so trailing zeros are not part of a value.

use std::num::NonZeroUsize;

use ndarray::{ArrayD, ArrayView, IxDyn};

use crate::check::{checked_len, checked_size, into_array};
use crate::traverse::permuted;
use crate::typed::decode::decode_vec;
use crate::typed::encode::encode_vec;
use crate::{DataType, Endian, Error};

/// Strings or byte strings of at most `length` code units or bytes each: the values of
/// [`DynArray::FixedLengthUtf32`](crate::DynArray::FixedLengthUtf32) (`String`, `length`
/// in code units, that is characters) and
/// [`DynArray::NullTerminatedBytes`](crate::DynArray::NullTerminatedBytes) (`Vec<u8>`,
/// `length` in bytes). Every value fits: that is checked when it is made.
///
/// Shorter values are padded with zeros, which are not part of a value, so a value that
/// ends in NUL reads back without it, as in numpy.
///
/// # Examples
///
/// ```
/// use std::num::NonZeroUsize;
/// use ndarray::arr1;
/// use zarr_bytes::{BytesCodec, DynArray, Endian, Error, FixedLength};
///
/// let two = NonZeroUsize::new(2).unwrap();
/// let names = FixedLength::<String>::new(arr1(&["ab".to_string(), "é".into()]).into_dyn(), two)?;
/// let bytes = BytesCodec::new(Endian::Little).encode_dyn(&DynArray::FixedLengthUtf32(names))?;
/// assert_eq!(bytes[..8], [b'a', 0, 0, 0, b'b', 0, 0, 0]);
/// let long = FixedLength::<String>::new(arr1(&["abc".to_string()]).into_dyn(), two);
/// assert!(matches!(long, Err(Error::TooLong { index: 0, len: 3, max: 2, .. })));
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedLength<T> {
    values: ArrayD<T>,
    length: NonZeroUsize,
}

impl<T> FixedLength<T> {
    /// The values.
    #[must_use]
    pub fn values(&self) -> &ArrayD<T> {
        &self.values
    }

    /// The values, taken out.
    #[must_use]
    pub fn into_values(self) -> ArrayD<T> {
        self.values
    }

    /// The most code units (strings) or bytes (byte strings) a value holds.
    #[must_use]
    pub fn length(&self) -> NonZeroUsize {
        self.length
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        self.values.shape()
    }

    /// `values` after checking that each is at most `length` long by `len`.
    fn checked(
        values: ArrayD<T>,
        length: NonZeroUsize,
        len: impl Fn(&T) -> usize,
        data_type: impl FnOnce() -> DataType,
    ) -> Result<Self, Error> {
        let max = length.get();
        if let Some((index, len)) = values
            .iter()
            .map(len)
            .enumerate()
            .find(|&(_, len)| len > max)
        {
            return Err(Error::TooLong {
                data_type: data_type(),
                index,
                len,
                max,
            });
        }
        Ok(FixedLength { values, length })
    }

    /// The values of a checked `region`, copied.
    pub(crate) fn slice_unchecked(&self, region: &[std::ops::Range<usize>]) -> Self
    where
        T: Clone,
    {
        self.map_values(|v| {
            v.slice_each_axis(crate::runtime::chunks::slicer(region))
                .to_owned()
        })
    }

    /// Overwrite a checked `region` with `from`'s values, of the region's shape or 0-d, and
    /// of the same length: they fit.
    pub(crate) fn assign_unchecked(&mut self, region: &[std::ops::Range<usize>], from: &Self)
    where
        T: Clone,
    {
        self.values
            .slice_each_axis_mut(crate::runtime::chunks::slicer(region))
            .assign(&from.values);
    }

    /// The values `f` makes of these, of the same length: they fit.
    pub(crate) fn map_values(&self, f: impl FnOnce(&ArrayD<T>) -> ArrayD<T>) -> Self {
        FixedLength {
            values: f(&self.values),
            length: self.length,
        }
    }

    /// The same values with their axes reordered by a checked permutation `order`.
    pub(crate) fn permuted_axes(self, order: &[usize]) -> Self {
        FixedLength {
            values: permuted(self.values, order),
            length: self.length,
        }
    }
}

impl FixedLength<String> {
    /// Strings of at most `code_units` characters each (`fixed_length_utf32` of
    /// `length_bytes` 4 × `code_units`).
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for the first string, in logical C order, with more characters.
    pub fn new(values: ArrayD<String>, code_units: NonZeroUsize) -> Result<Self, Error> {
        let data_type = || DataType::FixedLengthUtf32 { code_units };
        Self::checked(values, code_units, |s| s.chars().count(), data_type)
    }

    /// `fixed_length_utf32` of this length.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        DataType::FixedLengthUtf32 {
            code_units: self.length,
        }
    }
}

impl FixedLength<Vec<u8>> {
    /// Byte strings of at most `length_bytes` bytes each (`null_terminated_bytes`).
    ///
    /// # Errors
    ///
    /// [`Error::TooLong`] for the first byte string, in logical C order, with more bytes.
    pub fn new(values: ArrayD<Vec<u8>>, length_bytes: NonZeroUsize) -> Result<Self, Error> {
        let data_type = || DataType::NullTerminatedBytes { length_bytes };
        Self::checked(values, length_bytes, Vec::len, data_type)
    }

    /// `null_terminated_bytes` of this length.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        DataType::NullTerminatedBytes {
            length_bytes: self.length,
        }
    }
}

/// `units` without its trailing zeros.
fn trimmed<T: Default + PartialEq>(units: &[T]) -> &[T] {
    let end = units
        .iter()
        .rposition(|u| *u != T::default())
        .map_or(0, |i| i + 1);
    &units[..end]
}

/// Decode UTF-32 strings of `code_units` units each.
pub(crate) fn decode_utf32(
    bytes: &[u8],
    shape: &[usize],
    code_units: NonZeroUsize,
    endian: Endian,
) -> Result<FixedLength<String>, Error> {
    let per = code_units.get();
    let len = checked_size(shape, per.saturating_mul(4), bytes)?;
    // One bulk conversion of all code units, then the strings.
    let units = decode_vec::<u32>(bytes, &[len * per], endian)?;
    let strings = units
        .chunks_exact(per)
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
    Ok(FixedLength {
        values: into_array(IxDyn(shape), strings)?,
        length: code_units,
    })
}

/// Encode strings as UTF-32 of their length in code units each.
pub(crate) fn encode_utf32(
    strings: &FixedLength<String>,
    endian: Endian,
) -> Result<Vec<u8>, Error> {
    let per = strings.length.get();
    let len = checked_len(strings.shape(), per.saturating_mul(4))?;
    let mut units: Vec<u32> = Vec::with_capacity(len * per);
    for s in strings.values.iter() {
        let start = units.len();
        units.extend(s.chars().map(u32::from));
        units.resize(start + per, 0);
    }
    encode_vec(ArrayView::from(&units[..]).into_dyn(), endian)
}

/// Decode byte strings of `length_bytes` bytes each.
pub(crate) fn decode_terminated(
    bytes: &[u8],
    shape: &[usize],
    length_bytes: NonZeroUsize,
) -> Result<FixedLength<Vec<u8>>, Error> {
    checked_size(shape, length_bytes.get(), bytes)?;
    let values = bytes
        .chunks_exact(length_bytes.get())
        .map(|element| trimmed(element).to_vec())
        .collect();
    Ok(FixedLength {
        values: into_array(IxDyn(shape), values)?,
        length: length_bytes,
    })
}

/// Encode byte strings as their length in bytes each.
pub(crate) fn encode_terminated(values: &FixedLength<Vec<u8>>) -> Result<Vec<u8>, Error> {
    let length_bytes = values.length.get();
    let len = checked_len(values.shape(), length_bytes)?;
    let mut out = Vec::with_capacity(len * length_bytes);
    for value in values.values.iter() {
        out.extend_from_slice(value);
        out.resize(out.len() + length_bytes - value.len(), 0);
    }
    Ok(out)
}
