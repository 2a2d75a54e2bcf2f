//! Borrowed views of a [`DynArray`]: a region of it, its axes permuted, without a copy.
//!
//! A view is its owner and a change of coordinates: a region of the owner's axes, then a
//! permutation of the region's axes. Each element array the owner holds (one, or one per
//! struct field) is viewed through the same change when it is used.

use std::borrow::Cow;
use std::ops::Range;

use ndarray::{ArrayBase, ArrayViewD, ArrayViewMutD, IxDyn, RawData};

use crate::element::Item;
use crate::runtime::chunks::{Elements, ElementsInto, ElementsMut, ElementsOf, Kind, Part, window};
use crate::typed::region;
use crate::{DataType, DynArray, Error};

/// A region of a [`DynArray`] and an order of its axes: where a view's elements are.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Window {
    /// The region of the owner, one range per owner axis.
    region: Vec<Range<usize>>,
    /// Axis `i` of the view is axis `order[i]` of the region.
    order: Vec<usize>,
    /// The view's shape.
    shape: Vec<usize>,
}

impl Window {
    /// The whole of an array of `shape`, in its own order.
    fn whole(shape: &[usize]) -> Window {
        Window {
            region: shape.iter().map(|&n| 0..n).collect(),
            order: (0..shape.len()).collect(),
            shape: shape.to_vec(),
        }
    }

    /// Whether the view is its owner, whole and in order.
    fn is_whole(&self, owner: &[usize]) -> bool {
        self.shape == owner && self.order.iter().enumerate().all(|(i, &k)| i == k)
    }

    /// The window of `sub`, a checked region of this view.
    fn slice(&self, sub: &[Range<usize>]) -> Window {
        let mut region = self.region.clone();
        for (i, r) in sub.iter().enumerate() {
            let start = self.region[self.order[i]].start;
            region[self.order[i]] = start + r.start..start + r.end;
        }
        Window {
            region,
            order: self.order.clone(),
            shape: sub.iter().map(|r| r.len()).collect(),
        }
    }

    /// The window of this view's axes in a checked `order`.
    fn permute(&self, order: &[usize]) -> Window {
        Window {
            region: self.region.clone(),
            order: order.iter().map(|&k| self.order[k]).collect(),
            shape: order.iter().map(|&k| self.shape[k]).collect(),
        }
    }

    /// `a`, an array the owner holds (with a trailing axis of raw elements' bytes, kept
    /// whole and last), seen through this window.
    fn apply<S: RawData>(&self, a: ArrayBase<S, IxDyn>) -> ArrayBase<S, IxDyn> {
        window(a, &self.region, &self.order)
    }

    /// The owner's region that the view's checked `sub` region covers, and the order that
    /// takes an array of the view's axes to the owner's.
    fn to_owner(&self, sub: &[Range<usize>]) -> (Vec<Range<usize>>, Vec<usize>) {
        let window = self.slice(sub);
        let mut back = vec![0; self.order.len()];
        for (i, &k) in self.order.iter().enumerate() {
            back[k] = i;
        }
        (window.region, back)
    }
}

/// Check that `order` holds each of `ndim` axes once.
pub(crate) fn check_order(order: &[usize], ndim: usize) -> Result<(), Error> {
    let mut seen = vec![false; ndim];
    let valid = order.len() == ndim
        && order
            .iter()
            .all(|&k| k < ndim && !std::mem::replace(&mut seen[k], true));
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidAxisOrder {
            order: order.into(),
            ndim,
        })
    }
}

/// A borrowed view of a [`DynArray`], of any data type: the whole array, a region of it, or
/// its axes permuted, with no element copied.
///
/// Every [`BytesCodec`](crate::BytesCodec) call that reads a `DynArray` takes a view, or
/// `&DynArray`, which converts to one.
///
/// # Examples
///
/// ```
/// use ndarray::array;
/// use zarr_bytes::{BytesCodec, DynArray, Endian};
///
/// let d = DynArray::from(array![[1u16, 2, 3], [4, 5, 6]].into_dyn());
/// let v = d.view().permuted_axes(&[1, 0])?; // 3 × 2
/// let corner = v.slice_region(&[1..3, 0..1])?;
/// assert_eq!(corner.shape(), &[2, 1]);
/// let bytes = BytesCodec::new(Endian::Big).encode_dyn(&corner)?;
/// assert_eq!(bytes, [0, 2, 0, 3]);
/// assert_eq!(corner.to_owned(), DynArray::from(array![[2u16], [3]].into_dyn()));
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DynArrayView<'a> {
    array: &'a DynArray,
    window: Window,
}

/// A mutable borrowed view of a [`DynArray`], of any data type: the whole array, a region of
/// it, or its axes permuted. Decoding into it writes the owner's elements in place.
///
/// # Examples
///
/// ```
/// use ndarray::{array, ArrayD, IxDyn};
/// use serde_json::json;
/// use zarr_bytes::{BytesCodec, ChunkGrid, DynArray, Endian};
///
/// let codec = BytesCodec::new(Endian::Little);
/// let mut d = DynArray::from(ArrayD::<u8>::zeros(IxDyn(&[2, 4])));
/// // Columns 2..4 of the array, transposed: a 2 × 2 array of one chunk.
/// let mut all = d.view_mut();
/// let region = all.slice_region_mut(&[0..2, 2..4])?.permuted_axes(&[1, 0])?;
/// let grid = ChunkGrid::new(&[2, 2], &[2, 2])?;
/// codec.decode_chunks_into_dyn(region, &grid, &json!(0), |_| Ok::<_, zarr_bytes::Error>(Some([1u8, 2, 3, 4])))?;
/// assert_eq!(d, DynArray::from(array![[0u8, 0, 1, 3], [0, 0, 2, 4]].into_dyn()));
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Debug)]
pub struct DynArrayViewMut<'a> {
    array: &'a mut DynArray,
    window: Window,
}

impl DynArray {
    /// A view of the whole array.
    #[must_use]
    pub fn view(&self) -> DynArrayView<'_> {
        DynArrayView::from(self)
    }

    /// A mutable view of the whole array.
    #[must_use]
    pub fn view_mut(&mut self) -> DynArrayViewMut<'_> {
        DynArrayViewMut::from(self)
    }
}

impl<'a> From<&'a DynArray> for DynArrayView<'a> {
    fn from(array: &'a DynArray) -> Self {
        let window = Window::whole(array.shape());
        DynArrayView { array, window }
    }
}

impl<'a> From<&DynArrayView<'a>> for DynArrayView<'a> {
    fn from(view: &DynArrayView<'a>) -> Self {
        view.clone()
    }
}

impl<'a> From<&'a mut DynArray> for DynArrayView<'a> {
    fn from(array: &'a mut DynArray) -> Self {
        DynArrayView::from(&*array)
    }
}

impl<'a> From<&'a mut DynArray> for DynArrayViewMut<'a> {
    fn from(array: &'a mut DynArray) -> Self {
        let window = Window::whole(array.shape());
        DynArrayViewMut { array, window }
    }
}

impl<'a> DynArrayView<'a> {
    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.window.shape
    }

    /// The Zarr data type of the elements.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        self.array.data_type()
    }

    /// A view of `region` (one range per axis of this view).
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`]
    /// for a region that does not fit the view.
    pub fn slice_region(&self, region: &[Range<usize>]) -> Result<DynArrayView<'a>, Error> {
        region::check(self.shape(), region)?;
        Ok(DynArrayView {
            array: self.array,
            window: self.window.slice(region),
        })
    }

    /// The view with its axes reordered: axis `i` of the result is axis `order[i]` of this
    /// one (the `transpose` codec).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAxisOrder`] unless `order` holds each axis exactly once.
    pub fn permuted_axes(self, order: &[usize]) -> Result<DynArrayView<'a>, Error> {
        check_order(order, self.shape().len())?;
        Ok(DynArrayView {
            array: self.array,
            window: self.window.permute(order),
        })
    }

    /// The elements of the view, copied into an array of their own.
    #[must_use]
    pub fn to_owned(&self) -> DynArray {
        self.cow().into_owned()
    }

    /// The owner itself when the view is all of it, in order; else a copy of the view.
    pub(crate) fn cow(&self) -> Cow<'a, DynArray> {
        if self.window.is_whole(self.array.shape()) {
            return Cow::Borrowed(self.array);
        }
        let copy = self.array.slice_unchecked(&self.window.region);
        let permuted = copy.permuted_axes(&self.window.order);
        Cow::Owned(permuted.unwrap_or_else(|_| unreachable!("a checked permutation")))
    }

    /// The owner; what a view of a struct's field is made of.
    pub(crate) fn owner(&self) -> &'a DynArray {
        self.array
    }

    /// The same window on `other`, an array of the owner's shape: a field of the owner.
    pub(crate) fn on<'b>(&self, other: &'b DynArray) -> DynArrayView<'b> {
        DynArrayView {
            array: other,
            window: self.window.clone(),
        }
    }

    /// An array the owner holds, seen through the view.
    pub(crate) fn apply<S: RawData>(&self, a: ArrayBase<S, IxDyn>) -> ArrayBase<S, IxDyn> {
        self.window.apply(a)
    }

    /// `v.visit` on the view of the element array the owner holds; `v` back for text and
    /// structs.
    pub(crate) fn elements<V: Elements>(&self, v: V) -> Result<V::Out, V> {
        let through = Through {
            window: &self.window,
            inner: v,
        };
        self.array.elements(through).map_err(|t| t.inner)
    }
}

impl<'a> DynArrayView<'a> {
    /// [`DynArrayView::elements`] for a visitor that keeps the view of the element array as
    /// long as the owner is lent.
    pub(crate) fn elements_of<V: ElementsOf<'a>>(&self, v: V) -> Result<V::Out, V> {
        let through = Through {
            window: &self.window,
            inner: v,
        };
        self.array.elements_of(through).map_err(|t| t.inner)
    }
}

impl<'a> DynArrayViewMut<'a> {
    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.window.shape
    }

    /// The Zarr data type of the elements.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        self.array.data_type()
    }

    /// A shared view of the same elements.
    #[must_use]
    pub fn view(&self) -> DynArrayView<'_> {
        DynArrayView {
            array: self.array,
            window: self.window.clone(),
        }
    }

    /// A mutable view of the same elements, borrowed for a shorter while: to hand this view
    /// to a call that takes it by value and keep it.
    #[must_use]
    pub fn view_mut(&mut self) -> DynArrayViewMut<'_> {
        DynArrayViewMut {
            array: self.array,
            window: self.window.clone(),
        }
    }

    /// Overwrite `region` (one range per axis of this view) with `from`, of the region's
    /// shape, or with every element of `from` when it is 0-d (a fill value): as
    /// [`DynArray::assign_region`], in the owner's memory.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`]
    /// for a region that does not fit the view, [`Error::TypeMismatch`] for a `from` of
    /// another data type, and [`Error::RegionShapeMismatch`] for one of another shape.
    /// Nothing is written then.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, ArrayD, IxDyn};
    /// use serde_json::json;
    /// use zarr_bytes::{DataType, DynArray};
    ///
    /// let mut d = DynArray::from(ArrayD::<i16>::zeros(IxDyn(&[2, 3])));
    /// let mut t = d.view_mut().permuted_axes(&[1, 0])?; // 3 × 2
    /// t.assign_region(&[1..3, 0..1], &DynArray::full(&DataType::Int16, &[], &json!(-1))?)?;
    /// assert_eq!(d, DynArray::from(array![[0i16, -1, -1], [0, 0, 0]].into_dyn()));
    /// # Ok::<(), zarr_bytes::Error>(())
    /// ```
    pub fn assign_region(&mut self, region: &[Range<usize>], from: &DynArray) -> Result<(), Error> {
        region::check(self.shape(), region)?;
        let (expected, found) = (self.data_type(), from.data_type());
        if expected != found {
            return Err(Error::TypeMismatch { expected, found });
        }
        let shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
        if !from.shape().is_empty() && from.shape() != shape.as_slice() {
            return Err(Error::RegionShapeMismatch {
                expected: shape.into(),
                actual: from.shape().into(),
            });
        }
        self.assign_unchecked(region, from);
        Ok(())
    }

    /// A mutable view of `region` (one range per axis of this view).
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ReversedRange`] and [`Error::RegionOutOfBounds`]
    /// for a region that does not fit the view.
    pub fn slice_region_mut(
        &mut self,
        region: &[Range<usize>],
    ) -> Result<DynArrayViewMut<'_>, Error> {
        region::check(self.shape(), region)?;
        Ok(DynArrayViewMut {
            array: self.array,
            window: self.window.slice(region),
        })
    }

    /// The view with its axes reordered: axis `i` of the result is axis `order[i]` of this
    /// one (the `transpose` codec).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAxisOrder`] unless `order` holds each axis exactly once.
    pub fn permuted_axes(self, order: &[usize]) -> Result<DynArrayViewMut<'a>, Error> {
        check_order(order, self.shape().len())?;
        Ok(DynArrayViewMut {
            array: self.array,
            window: self.window.permute(order),
        })
    }

    /// Overwrite a checked `region` of the view with `from`, of the region's shape or 0-d,
    /// and of the view's data type.
    pub(crate) fn assign_unchecked(&mut self, region: &[Range<usize>], from: &DynArray) {
        let (owner, back) = self.window.to_owner(region);
        let from = if from.shape().is_empty() {
            Cow::Borrowed(from)
        } else {
            let permuted = from.clone().permuted_axes(&back);
            Cow::Owned(permuted.unwrap_or_else(|_| unreachable!("a checked permutation")))
        };
        self.array.assign_unchecked(&owner, &from);
    }

    /// Whether [`into_elements`](Self::into_elements) hands the owner's element array over.
    pub(crate) fn keeps(&self) -> bool {
        self.array.keeps()
    }

    /// [`DynArrayView::elements_of`], mutable, the view given up for it: `None` where
    /// [`keeps`](Self::keeps) is false.
    pub(crate) fn into_elements<V: ElementsInto<'a>>(self, v: V) -> Option<V::Out> {
        let window = self.window;
        let through = Through {
            window: &window,
            inner: v,
        };
        self.array.elements_into(through).ok()
    }

    /// [`DynArrayView::elements`], mutable.
    pub(crate) fn elements_mut<V: ElementsMut>(&mut self, v: V) -> Result<V::Out, V> {
        let through = Through {
            window: &self.window,
            inner: v,
        };
        self.array.elements_mut(through).map_err(|t| t.inner)
    }
}

/// A visitor of element arrays handed them through a window.
struct Through<'w, V> {
    window: &'w Window,
    inner: V,
}

impl<V: Elements> Elements for Through<'_, V> {
    type Out = V::Out;

    fn visit<A: Item>(self, a: ArrayViewD<'_, A>, kind: Kind<A>) -> V::Out {
        self.inner.visit(a, kind)
    }
    fn part(&self) -> Part<'_> {
        through(self.window, self.inner.part())
    }
}

impl<V: ElementsMut> ElementsMut for Through<'_, V> {
    type Out = V::Out;

    fn visit<A: Item>(self, a: ArrayViewMutD<'_, A>, kind: Kind<A>) -> V::Out {
        self.inner.visit(a, kind)
    }
    fn part(&self) -> Part<'_> {
        through(self.window, self.inner.part())
    }
}

impl<'a, V: ElementsOf<'a>> ElementsOf<'a> for Through<'_, V> {
    type Out = V::Out;

    fn visit<A: Item>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> V::Out {
        self.inner.visit(a, kind)
    }
    fn part(&self) -> Part<'_> {
        through(self.window, self.inner.part())
    }
}

impl<'a, V: ElementsInto<'a>> ElementsInto<'a> for Through<'_, V> {
    type Out = V::Out;

    fn visit<A: Item>(self, a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> V::Out {
        self.inner.visit(a, kind)
    }
    fn part(&self) -> Part<'_> {
        through(self.window, self.inner.part())
    }
}

/// The part `inner` of what `window` shows: a visitor handed arrays through a window takes
/// none of its own (the window is the one [`Through`] adds), at most a region.
fn through<'p>(window: &'p Window, inner: Part<'p>) -> Part<'p> {
    Part {
        window: Some((&window.region, &window.order)),
        region: inner.region,
    }
}
