//! Zero-copy decoding: the bytes borrowed as an array when no conversion is needed.

use ndarray::{Array, ArrayView, ArrayViewMut, CowArray, Dimension, IntoDimension};

use crate::check::{check_invalid, checked_length};
use crate::{BytesDecode, Element, Endian, Error};

/// Borrow encoded bytes as an array, without copying.
///
/// Implemented for [`ArrayView`], which borrows or fails, and for [`CowArray`], which
/// borrows when it can and decodes a copy when it must, so that they read like
/// constructors: `ArrayView2::<u16>::view_zarr_bytes(&bytes, (4, 5), Endian::Little)`.
pub trait BytesView<'a>: Sized {
    /// The dimension type of the array.
    type Dim: Dimension;

    /// The array of `shape` whose C-order bytes are `bytes`.
    ///
    /// A view borrows `bytes` when they need no conversion, because `endian` is the
    /// machine's own (or the type is single-byte or raw bits), and when they start on an
    /// element boundary; `bool` bytes are checked. A `CowArray` borrows them then, and
    /// otherwise holds a decoded copy.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeOverflow`], [`Error::LengthMismatch`] and [`Error::InvalidBool`] as for
    /// [`BytesDecode::from_zarr_bytes`]. A view also fails with [`Error::NeedsConversion`]
    /// for the other byte order (or a type held in the low bits of a byte) and
    /// [`Error::Misaligned`] for bytes not aligned for the element; a `CowArray` decodes
    /// those instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{ArrayView2, CowArray, Ix1};
    /// use zarr_bytes::{BytesView, Endian, Error};
    ///
    /// let bytes = [1u8, 0, 1, 1, 0, 0];
    /// let a = ArrayView2::<bool>::view_zarr_bytes(&bytes, (2, 3), Endian::Little)?;
    /// assert_eq!(a.as_ptr() as *const u8, bytes.as_ptr());
    /// assert!(a[[1, 0]]);
    ///
    /// let wide = [0u8, 1, 0, 2];
    /// let swapped = CowArray::<u16, Ix1>::view_zarr_bytes(&wide, 2, Endian::Big)?;
    /// assert_eq!(swapped.as_slice(), Some(&[1u16, 2][..]));
    /// # Ok::<(), Error>(())
    /// ```
    fn view_zarr_bytes<Sh>(bytes: &'a [u8], shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = Self::Dim>;
}

/// Borrow encoded bytes as a mutable array, without copying: edit a chunk in place.
///
/// Implemented for [`ArrayViewMut`]: `ArrayViewMut2::<f32>::view_zarr_bytes_mut(&mut
/// bytes, (4, 5), Endian::NATIVE)`. Whatever is written through the view is the chunk's
/// encoding in that byte order.
pub trait BytesViewMut<'a>: Sized {
    /// The dimension type of the array.
    type Dim: Dimension;

    /// The mutable array of `shape` whose C-order bytes are `bytes`.
    ///
    /// Possible when the bytes need no conversion and start on an element boundary, as for
    /// [`BytesView`]; `bool` bytes are checked first.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeOverflow`], [`Error::LengthMismatch`], [`Error::NeedsConversion`],
    /// [`Error::InvalidBool`] and [`Error::Misaligned`], as for [`BytesView`]'s views.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::ArrayViewMut2;
    /// use zarr_bytes::{BytesViewMut, Endian, Error};
    ///
    /// let mut chunk = vec![1u8, 2, 3, 4, 5, 6];
    /// let mut a = ArrayViewMut2::<u8>::view_zarr_bytes_mut(&mut chunk, (2, 3), Endian::Big)?;
    /// a[[1, 2]] = 60;
    /// a.column_mut(0).fill(0);
    /// assert_eq!(chunk, [0, 2, 3, 0, 5, 60]);
    /// # Ok::<(), Error>(())
    /// ```
    fn view_zarr_bytes_mut<Sh>(
        bytes: &'a mut [u8],
        shape: Sh,
        endian: Endian,
    ) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = Self::Dim>;
}

/// Check `bytes` for a view of `dim`: length, byte order, validity; `Ok` when the elements
/// can be borrowed from them once aligned.
fn viewable<A: Element>(bytes: &[u8], dim: &impl Dimension, endian: Endian) -> Result<(), Error> {
    checked_length::<A>(dim.slice(), bytes)?;
    if !A::is_verbatim(endian) {
        return Err(Error::NeedsConversion {
            data_type: A::DATA_TYPE,
            endian,
        });
    }
    check_invalid::<A::In>(bytes, 0)
}

/// Why checked bytes at `address` cannot be cast: misaligned, or a type whose bytes always
/// need their high bits cleared.
fn not_castable<A: Element>(address: usize, endian: Endian) -> Error {
    let align = std::mem::align_of::<A>();
    match address % align {
        0 => Error::NeedsConversion {
            data_type: A::DATA_TYPE,
            endian,
        },
        offset => Error::Misaligned { offset, align },
    }
}

fn shape_overflow<A: Element>() -> Error {
    Error::ShapeOverflow {
        element_size: A::SIZE,
    }
}

impl<'a, A: Element, D: Dimension> BytesView<'a> for ArrayView<'a, A, D> {
    type Dim = D;

    fn view_zarr_bytes<Sh>(bytes: &'a [u8], shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = D>,
    {
        let dim = shape.into_dimension();
        viewable::<A>(bytes, &dim, endian)?;
        let address = bytes.as_ptr() as usize;
        let elements = A::cast(bytes).ok_or_else(|| not_castable::<A>(address, endian))?;
        ArrayView::from_shape(dim, elements).map_err(|_| shape_overflow::<A>())
    }
}

impl<'a, A: Element, D: Dimension> BytesView<'a> for CowArray<'a, A, D> {
    type Dim = D;

    fn view_zarr_bytes<Sh>(bytes: &'a [u8], shape: Sh, endian: Endian) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = D>,
    {
        let dim = shape.into_dimension();
        match ArrayView::view_zarr_bytes(bytes, dim.clone(), endian) {
            Ok(view) => Ok(CowArray::from(view)),
            Err(Error::NeedsConversion { .. } | Error::Misaligned { .. }) => {
                Array::from_zarr_bytes(bytes, dim, endian).map(CowArray::from)
            }
            Err(e) => Err(e),
        }
    }
}

impl<'a, A: Element, D: Dimension> BytesViewMut<'a> for ArrayViewMut<'a, A, D> {
    type Dim = D;

    fn view_zarr_bytes_mut<Sh>(
        bytes: &'a mut [u8],
        shape: Sh,
        endian: Endian,
    ) -> Result<Self, Error>
    where
        Sh: IntoDimension<Dim = D>,
    {
        let dim = shape.into_dimension();
        viewable::<A>(bytes, &dim, endian)?;
        let address = bytes.as_ptr() as usize;
        let elements = A::cast_mut(bytes).ok_or_else(|| not_castable::<A>(address, endian))?;
        ArrayViewMut::from_shape(dim, elements).map_err(|_| shape_overflow::<A>())
    }
}
