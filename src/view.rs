//! Zero-copy decoding: borrow the bytes as an array when no conversion is needed.

use ndarray::{Array, ArrayView, CowArray, Dimension, IntoDimension};

use crate::decode::{check_invalid, checked_length};
use crate::{BytesDecode, Element, Endian, Error};

/// Borrow `bytes` as an array of `shape`, without copying.
///
/// Possible when the bytes need no conversion, because `endian` is the machine's own (or the
/// type is single-byte or raw bits), and when they start on an element boundary. `bool`
/// bytes are checked.
///
/// # Errors
///
/// [`Error::ShapeOverflow`] and [`Error::LengthMismatch`] as for
/// [`BytesDecode::from_zarr_bytes`]; [`Error::NeedsConversion`] for the other byte order,
/// [`Error::Misaligned`] for bytes not aligned for `A`, [`Error::InvalidBool`] for a `bool`
/// byte other than 0 or 1. It never falls back to copying: [`cow_zarr_bytes`] does.
///
/// # Examples
///
/// ```
/// use zarr_bytes::{view_zarr_bytes, Endian, Error};
///
/// let bytes = [1u8, 0, 1, 1, 0, 0];
/// let a = view_zarr_bytes::<bool, _>(&bytes, (2, 3), Endian::Little)?;
/// assert_eq!(a.as_ptr() as *const u8, bytes.as_ptr());
/// assert!(a[[1, 0]]);
/// # Ok::<(), Error>(())
/// ```
pub fn view_zarr_bytes<A, Sh>(
    bytes: &[u8],
    shape: Sh,
    endian: Endian,
) -> Result<ArrayView<'_, A, Sh::Dim>, Error>
where
    A: Element,
    Sh: IntoDimension,
{
    let dim = shape.into_dimension();
    checked_length::<A>(dim.slice(), bytes)?;
    if !A::is_verbatim(endian) {
        return Err(Error::NeedsConversion {
            data_type: A::DATA_TYPE,
            endian,
        });
    }
    check_invalid::<A>(bytes, 0)?;
    let align = std::mem::align_of::<A>();
    let offset = bytes.as_ptr() as usize % align;
    let elements = A::cast(bytes).ok_or(if offset != 0 {
        Error::Misaligned { offset, align }
    } else {
        // Aligned, yet no cast: a type whose bytes always need their high bits cleared.
        Error::NeedsConversion {
            data_type: A::DATA_TYPE,
            endian,
        }
    })?;
    ArrayView::from_shape(dim, elements).map_err(|_| Error::ShapeOverflow {
        element_size: A::SIZE,
    })
}

/// Borrow `bytes` as an array when [`view_zarr_bytes`] can; otherwise decode a copy.
///
/// # Errors
///
/// As [`BytesDecode::from_zarr_bytes`]: another byte order or misaligned bytes are no error
/// here, they are decoded.
///
/// # Examples
///
/// ```
/// use zarr_bytes::{cow_zarr_bytes, Endian, Error};
///
/// let bytes = [0u8, 1, 0, 2];
/// let native = cow_zarr_bytes::<u8, _>(&bytes, 4, Endian::Big)?;
/// assert!(native.is_view());
/// let swapped = cow_zarr_bytes::<u16, _>(&bytes, 2, Endian::Big)?;
/// assert_eq!(swapped.as_slice(), Some(&[1u16, 2][..]));
/// # Ok::<(), Error>(())
/// ```
pub fn cow_zarr_bytes<A, Sh>(
    bytes: &[u8],
    shape: Sh,
    endian: Endian,
) -> Result<CowArray<'_, A, Sh::Dim>, Error>
where
    A: Element,
    Sh: IntoDimension,
{
    let dim = shape.into_dimension();
    match view_zarr_bytes(bytes, dim.clone(), endian) {
        Ok(view) => Ok(CowArray::from(view)),
        Err(Error::NeedsConversion { .. } | Error::Misaligned { .. }) => {
            Array::from_zarr_bytes(bytes, dim, endian).map(CowArray::from)
        }
        Err(e) => Err(e),
    }
}
