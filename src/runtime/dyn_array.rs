//! Arrays whose data type is known only at run time, from `zarr.json`: one variant per data
//! type, made from the data type table.

use std::num::NonZeroUsize;
use std::ops::Range;

use ndarray::{ArrayD, ArrayView, ArrayViewMut, IxDyn};
use serde_json::Value;

use crate::check::{checked_len, checked_size, into_array};
use crate::element::sealed::Convert;
use crate::element::{Narrow, in_units, in_units_of, out_units};
use crate::metadata::fill;
use crate::runtime::chunks::{Elements, ElementsInto, ElementsMut, ElementsOf, Kind, Part, slicer};
use crate::runtime::text;
use crate::runtime::view::check_order;
use crate::traverse::permuted;
use crate::typed::decode::zeroed;
use crate::typed::encode::encode_vec;
use crate::typed::region;
use crate::{BytesDecode, BytesEncode, DataType, Element, Endian, Error};
use crate::{FixedLength, MetadataError, ScaleFactor, StructArray, TimeUnit};

/// Decode `bytes` as `A`, then for the sub-byte integers keep the meaning of the low bits.
macro_rules! decode_fixed {
    ($bytes:expr, $shape:expr, $endian:expr, $t:ty; $bits:literal bits) => {{
        let mut a = typed::<$t>($bytes, $shape, $endian)?;
        a.mapv_inplace(|x| Narrow::widen(x, $bits));
        a
    }};
    ($bytes:expr, $shape:expr, $endian:expr, $t:ty) => {
        typed::<$t>($bytes, $shape, $endian)?
    };
}

/// Encode an array of the table; the sub-byte integers must fit their bits.
macro_rules! encode_fixed {
    ($a:expr, $endian:expr, $variant:ident, $t:ty; $bits:literal bits) => {
        encode_narrow($a, $bits, DataType::$variant, $endian)?
    };
    ($a:expr, $endian:expr, $variant:ident, $t:ty) => {
        encode_units($a, $endian)?
    };
}

/// A fill value of the table's form; the sub-byte integers must fit their bits.
macro_rules! fill_fixed {
    ($value:expr, $fill:ident, $t:ty; $bits:literal bits) => {
        fill_fixed!($value, $fill, $t).and_then(|x| {
            (Narrow::widen(x, $bits) == x)
                .then_some(x)
                .ok_or("an integer that fits the data type's bits")
        })
    };
    ($value:expr, $fill:ident, $t:ty) => {{
        let x: Result<$t, fill::Expected> = fill::$fill($value);
        x
    }};
}

/// The values of an array of the table as `f64`, by the kind of its fill value: numbers
/// and `bool` (as 0 and 1) have one; complex numbers do not.
macro_rules! real_values {
    (boolean, $a:expr) => {
        Some(mapped($a, |x| f64::from(u8::from(x))))
    };
    (integer, $a:expr) => {
        Some(mapped($a, |x| x as f64))
    };
    (float, $a:expr) => {
        Some(mapped($a, f64::from))
    };
    (minifloat, $a:expr) => {
        Some(mapped($a, f64::from))
    };
    ($complex:ident, $a:expr) => {{
        let _ = $a;
        None
    }};
}

/// What sets a variant's elements apart, for the chunk code, which sees them as their
/// units: the sub-byte integers as bytes holding the bits of an `i8` or a `u8`.
macro_rules! kind {
    ($variant:ident, $t:ty; $bits:literal bits) => {
        Kind::Narrow {
            data_type: DataType::$variant,
            bits: $bits,
            widen: |x: u8| Narrow::widen(x as $t, $bits) as u8,
            misfit: |x: u8| {
                let value = x as $t;
                (Narrow::widen(value, $bits) != value).then(|| value.into())
            },
        }
    };
    ($variant:ident, $t:ty) => {
        Kind::Plain
    };
}

/// `From` and `TryFrom` between `DynArray` and the arrays of element types of their own:
/// not for the sub-byte integers, which share `i8` and `u8` with `int8` and `uint8`.
macro_rules! conversions {
    ($variant:ident, $t:ty; $bits:literal bits) => {};
    ($variant:ident, $t:ty) => {
        impl From<ArrayD<$t>> for DynArray {
            fn from(a: ArrayD<$t>) -> Self {
                DynArray::$variant(a)
            }
        }

        impl TryFrom<DynArray> for ArrayD<$t> {
            type Error = Error;

            fn try_from(d: DynArray) -> Result<Self, Error> {
                match d {
                    DynArray::$variant(a) => Ok(a),
                    other => Err(Error::TypeMismatch {
                        expected: DataType::$variant,
                        found: other.data_type(),
                    }),
                }
            }
        }
    };
}

macro_rules! dyn_array {
    ($($variant:ident $name:literal ($($element:tt)*) $size:literal $endian:ident $fill:ident [$($conversion:tt)*] $doc:literal;)*) => {
        /// An array of any data type: one variant per [`DataType`], named alike.
        ///
        /// `Int2` and `Int4` hold `i8` values from -2..=1 and -8..=7, `UInt2` and `UInt4`
        /// `u8` values up to 3 and 15. Convert from a typed array with `From`, and back with
        /// `TryFrom`, whose error names both data types. Every value is valid for its data
        /// type: the variants whose values could be out of their type's bounds hold types
        /// that check them when they are made ([`RawArray`], [`FixedLength`],
        /// [`StructArray`]).
        ///
        /// # Examples
        ///
        /// ```
        /// use ndarray::{arr1, ArrayD};
        /// use zarr_bytes::{DataType, DynArray, Error};
        ///
        /// let d = DynArray::from(arr1(&[1.0f32, 2.0]).into_dyn());
        /// assert_eq!(d.data_type(), DataType::Float32);
        /// assert_eq!(d.shape(), &[2]);
        /// let e = ArrayD::<i16>::try_from(d.clone()).unwrap_err();
        /// assert!(matches!(e, Error::TypeMismatch { expected: DataType::Int16, found: DataType::Float32 }));
        /// let back: ArrayD<f32> = d.try_into()?;
        /// # Ok::<(), Error>(())
        /// ```
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum DynArray {
            $(
                #[doc = concat!("`", $name, "` elements.")]
                $variant(ArrayD<element_of!($($element)*)>),
            )*
            /// Raw bits `r{8 × bytes}`: records of the element's bytes.
            RawBits(RawArray),
            /// `raw_bytes`: records of `length_bytes` bytes.
            RawBytes(RawArray),
            /// `numpy.datetime64`: counts of `scale_factor` × `unit`; NaT is `i64::MIN`.
            DateTime64 {
                /// The counts.
                values: ArrayD<i64>,
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: ScaleFactor,
            },
            /// `numpy.timedelta64`: counts of `scale_factor` × `unit`; NaT is `i64::MIN`.
            TimeDelta64 {
                /// The counts.
                values: ArrayD<i64>,
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: ScaleFactor,
            },
            /// `fixed_length_utf32`: strings of at most `code_units` characters (trailing
            /// NULs are padding, as in numpy).
            FixedLengthUtf32(FixedLength<String>),
            /// `null_terminated_bytes`: byte strings of at most `length_bytes` bytes
            /// (trailing zero bytes are padding, as in numpy).
            NullTerminatedBytes(FixedLength<Vec<u8>>),
            /// `struct`: one array per field.
            Struct(StructArray),
        }

        impl DynArray {
            /// The Zarr data type of the elements.
            #[must_use]
            pub fn data_type(&self) -> DataType {
                match self {
                    $(DynArray::$variant(_) => DataType::$variant,)*
                    DynArray::RawBits(a) => DataType::RawBits { bytes: a.element_size() },
                    DynArray::RawBytes(a) => DataType::RawBytes { length_bytes: a.element_size() },
                    DynArray::DateTime64 { unit, scale_factor, .. } => DataType::DateTime64 {
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::TimeDelta64 { unit, scale_factor, .. } => DataType::TimeDelta64 {
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::FixedLengthUtf32(s) => s.data_type(),
                    DynArray::NullTerminatedBytes(s) => s.data_type(),
                    DynArray::Struct(s) => s.data_type(),
                }
            }

            /// The logical shape.
            #[must_use]
            pub fn shape(&self) -> &[usize] {
                match self {
                    $(DynArray::$variant(a) => a.shape(),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => a.shape(),
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        values.shape()
                    }
                    DynArray::FixedLengthUtf32(s) => s.shape(),
                    DynArray::NullTerminatedBytes(s) => s.shape(),
                    DynArray::Struct(s) => s.shape(),
                }
            }

            /// The values as `f64`, for the data types whose elements are real numbers:
            /// integers (`int64` and `uint64` rounded to the nearest `f64`), floats and
            /// minifloats exactly, `bool` as 0 and 1, datetimes and timedeltas as their
            /// counts (NaT as `i64::MIN`). `None` for complex numbers, text, bytes and
            /// structs.
            ///
            /// # Examples
            ///
            /// ```
            /// use ndarray::array;
            /// use zarr_bytes::{minifloat::Float8E4M3FN, DynArray};
            ///
            /// let d = DynArray::from(array![Float8E4M3FN::from_f32(448.0)].into_dyn());
            /// assert_eq!(d.to_f64(), Some(array![448.0].into_dyn()));
            /// let text = DynArray::full(&"r8".parse()?, &[1], &serde_json::json!([7]))?;
            /// assert_eq!(text.to_f64(), None);
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            #[must_use]
            pub fn to_f64(&self) -> Option<ArrayD<f64>> {
                match self {
                    $(DynArray::$variant(a) => real_values!($fill, a),)*
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        Some(mapped(values, |x| x as f64))
                    }
                    DynArray::RawBits(_)
                    | DynArray::RawBytes(_)
                    | DynArray::FixedLengthUtf32(_)
                    | DynArray::NullTerminatedBytes(_)
                    | DynArray::Struct(_) => None,
                }
            }

            /// The same array with its axes reordered: axis `i` of the result is axis
            /// `order[i]` of this one (the `transpose` codec). No element moves, only the
            /// strides change; encoding reads the permuted layout in its logical C order.
            ///
            /// # Errors
            ///
            /// [`Error::InvalidAxisOrder`] unless `order` holds each axis exactly once.
            ///
            /// # Examples
            ///
            /// ```
            /// use ndarray::array;
            /// use zarr_bytes::{BytesCodec, DynArray, Endian};
            ///
            /// let d = DynArray::from(array![[1u16, 2, 3], [4, 5, 6]].into_dyn());
            /// let t = d.permuted_axes(&[1, 0])?;
            /// assert_eq!(t.shape(), &[3, 2]);
            /// let bytes = BytesCodec::new(Endian::Big).encode_dyn(&t)?;
            /// assert_eq!(bytes, [0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6]);
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            pub fn permuted_axes(self, order: &[usize]) -> Result<DynArray, Error> {
                check_order(order, self.shape().len())?;
                Ok(match self {
                    $(DynArray::$variant(a) => DynArray::$variant(permuted(a, order)),)*
                    DynArray::RawBits(a) => DynArray::RawBits(a.permuted_axes(order)),
                    DynArray::RawBytes(a) => DynArray::RawBytes(a.permuted_axes(order)),
                    DynArray::DateTime64 { values, unit, scale_factor } => DynArray::DateTime64 {
                        values: permuted(values, order),
                        unit,
                        scale_factor,
                    },
                    DynArray::TimeDelta64 { values, unit, scale_factor } => DynArray::TimeDelta64 {
                        values: permuted(values, order),
                        unit,
                        scale_factor,
                    },
                    DynArray::FixedLengthUtf32(s) => DynArray::FixedLengthUtf32(s.permuted_axes(order)),
                    DynArray::NullTerminatedBytes(s) => {
                        DynArray::NullTerminatedBytes(s.permuted_axes(order))
                    }
                    DynArray::Struct(s) => DynArray::Struct(s.permuted_axes(order)),
                })
            }

            /// A copy of `region` (one range per axis) of the array.
            ///
            /// # Errors
            ///
            /// [`Error::RankMismatch`], [`Error::ReversedRange`] and
            /// [`Error::RegionOutOfBounds`] for a region that does not fit the array.
            ///
            /// # Examples
            ///
            /// ```
            /// use ndarray::array;
            /// use zarr_bytes::DynArray;
            ///
            /// let d = DynArray::from(array![[1u8, 2, 3], [4, 5, 6]].into_dyn());
            /// assert_eq!(d.slice_region(&[1..2, 0..2])?, DynArray::from(array![[4u8, 5]].into_dyn()));
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            pub fn slice_region(&self, region: &[Range<usize>]) -> Result<DynArray, Error> {
                region::check(self.shape(), region)?;
                Ok(self.slice_unchecked(region))
            }

            /// [`slice_region`](Self::slice_region) of a checked region.
            pub(crate) fn slice_unchecked(&self, region: &[Range<usize>]) -> DynArray {
                fn cut<A: Copy>(a: &ArrayD<A>, region: &[Range<usize>]) -> ArrayD<A> {
                    standard(a.slice_each_axis(slicer(region)))
                }
                match self {
                    $(DynArray::$variant(a) => DynArray::$variant(cut(a, region)),)*
                    DynArray::RawBits(a) => DynArray::RawBits(RawArray { bytes: cut(&a.bytes, region) }),
                    DynArray::RawBytes(a) => DynArray::RawBytes(RawArray { bytes: cut(&a.bytes, region) }),
                    DynArray::DateTime64 { values, unit, scale_factor } => DynArray::DateTime64 {
                        values: cut(values, region),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::TimeDelta64 { values, unit, scale_factor } => DynArray::TimeDelta64 {
                        values: cut(values, region),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::FixedLengthUtf32(s) => DynArray::FixedLengthUtf32(s.slice_unchecked(region)),
                    DynArray::NullTerminatedBytes(s) => DynArray::NullTerminatedBytes(s.slice_unchecked(region)),
                    DynArray::Struct(s) => DynArray::Struct(s.slice_unchecked(region)),
                }
            }

            /// Overwrite `region` (one range per axis) with `from`, of the region's shape, or
            /// with every element of `from` when it is 0-d (a fill value,
            /// [`DynArray::full`] of shape `[]`).
            ///
            /// # Errors
            ///
            /// [`Error::RankMismatch`], [`Error::ReversedRange`] and
            /// [`Error::RegionOutOfBounds`] for a region that does not fit the array,
            /// [`Error::TypeMismatch`] for a `from` of another data type, and
            /// [`Error::RegionShapeMismatch`] for one of another shape. Nothing is written then.
            ///
            /// # Examples
            ///
            /// ```
            /// use ndarray::{array, ArrayD, IxDyn};
            /// use serde_json::json;
            /// use zarr_bytes::{DataType, DynArray};
            ///
            /// let mut d = DynArray::from(ArrayD::<i16>::zeros(IxDyn(&[2, 3])));
            /// d.assign_region(&[0..1, 1..3], &DynArray::from(array![[1i16, 2]].into_dyn()))?;
            /// d.assign_region(&[1..2, 0..3], &DynArray::full(&DataType::Int16, &[], &json!(-1))?)?;
            /// assert_eq!(d, DynArray::from(array![[0i16, 1, 2], [-1, -1, -1]].into_dyn()));
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            pub fn assign_region(&mut self, region: &[Range<usize>], from: &DynArray) -> Result<(), Error> {
                self.view_mut().assign_region(region, from)
            }

            /// [`assign_region`](Self::assign_region) of a checked region and array.
            pub(crate) fn assign_unchecked(&mut self, region: &[Range<usize>], from: &DynArray) {
                match (self, from) {
                    $((DynArray::$variant(a), DynArray::$variant(b)) => assign_units(a, region, b),)*
                    (DynArray::RawBits(a), DynArray::RawBits(b)) | (DynArray::RawBytes(a), DynArray::RawBytes(b)) => {
                        assign_units(&mut a.bytes, region, &b.bytes)
                    }
                    (DynArray::DateTime64 { values: a, .. }, DynArray::DateTime64 { values: b, .. })
                    | (DynArray::TimeDelta64 { values: a, .. }, DynArray::TimeDelta64 { values: b, .. }) => {
                        assign_units(a, region, b)
                    }
                    (DynArray::FixedLengthUtf32(a), DynArray::FixedLengthUtf32(b)) => a.assign_unchecked(region, b),
                    (DynArray::NullTerminatedBytes(a), DynArray::NullTerminatedBytes(b)) => a.assign_unchecked(region, b),
                    (DynArray::Struct(a), DynArray::Struct(b)) => a.assign_unchecked(region, b),
                    _ => unreachable!("data types checked equal"),
                }
            }

            /// An array of `shape` whose every element is this 0-d array's one.
            pub(crate) fn filled(&self, shape: &[usize]) -> DynArray {
                fn every<T: Clone>(a: &ArrayD<T>, shape: &[usize]) -> ArrayD<T> {
                    let x = a.first().unwrap_or_else(|| unreachable!("a 0-d array has one element"));
                    ArrayD::from_elem(IxDyn(shape), x.clone())
                }
                // Raw bytes keep their trailing axis: it broadcasts to the end of `shape`.
                let records = |a: &RawArray| {
                    let mut full = shape.to_vec();
                    full.extend_from_slice(a.bytes.shape());
                    let all = a.bytes.broadcast(IxDyn(&full));
                    RawArray { bytes: standard(all.unwrap_or_else(|| unreachable!("a 0-d array broadcasts to any shape"))) }
                };
                match self {
                    $(DynArray::$variant(a) => DynArray::$variant(every(a, shape)),)*
                    DynArray::RawBits(a) => DynArray::RawBits(records(a)),
                    DynArray::RawBytes(a) => DynArray::RawBytes(records(a)),
                    DynArray::DateTime64 { values, unit, scale_factor } => DynArray::DateTime64 {
                        values: every(values, shape),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::TimeDelta64 { values, unit, scale_factor } => DynArray::TimeDelta64 {
                        values: every(values, shape),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::FixedLengthUtf32(s) => DynArray::FixedLengthUtf32(s.map_values(|v| every(v, shape))),
                    DynArray::NullTerminatedBytes(s) => DynArray::NullTerminatedBytes(s.map_values(|v| every(v, shape))),
                    DynArray::Struct(s) => DynArray::Struct(s.map_fields(|f| f.filled(shape), shape)),
                }
            }

            /// `v.visit` on the array of an element type that this variant holds; `v` back
            /// for text and structs.
            pub(crate) fn elements<V: Elements>(&self, v: V) -> Result<V::Out, V> {
                Ok(match self {
                    $(DynArray::$variant(a) => visit_out(v, a, kind!($variant, $($element)*)),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => visit_out(v, &a.bytes, Kind::Records),
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        visit_out(v, values, Kind::Plain)
                    }
                    DynArray::FixedLengthUtf32(_) | DynArray::NullTerminatedBytes(_) | DynArray::Struct(_) => {
                        return Err(v)
                    }
                })
            }

            /// Whether this variant's element array can be handed to visitors that keep it
            /// ([`elements_of`](Self::elements_of), [`elements_into`](Self::elements_into)):
            /// element types that move in place, not through a copy.
            pub(crate) fn keeps(&self) -> bool {
                match self {
                    $(DynArray::$variant(_) => !<element_of!($($element)*) as Convert>::COPIED,)*
                    DynArray::RawBits(_) | DynArray::RawBytes(_) => true,
                    DynArray::DateTime64 { .. } | DynArray::TimeDelta64 { .. } => true,
                    DynArray::FixedLengthUtf32(_) | DynArray::NullTerminatedBytes(_) | DynArray::Struct(_) => false,
                }
            }

            /// `v.visit` on its part of the element array, for as long as `self` is lent:
            /// `v` back where [`keeps`](Self::keeps) is false, or the array is no one memory
            /// slice.
            pub(crate) fn elements_of<'a, V: ElementsOf<'a>>(&'a self, v: V) -> Result<V::Out, V> {
                match self {
                    $(DynArray::$variant(a) => visit_of(v, a, kind!($variant, $($element)*)),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => visit_of(v, &a.bytes, Kind::Records),
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        visit_of(v, values, Kind::Plain)
                    }
                    DynArray::FixedLengthUtf32(_) | DynArray::NullTerminatedBytes(_) | DynArray::Struct(_) => Err(v),
                }
            }

            /// [`elements_of`](Self::elements_of), mutable; an array with gaps is made one
            /// memory slice first. Call it only where [`keeps`](Self::keeps) is true: the
            /// array stays lent whatever the answer.
            pub(crate) fn elements_into<'a, V: ElementsInto<'a>>(&'a mut self, v: V) -> Result<V::Out, V> {
                match self {
                    $(DynArray::$variant(a) => visit_into(v, a, kind!($variant, $($element)*)),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => visit_into(v, &mut a.bytes, Kind::Records),
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        visit_into(v, values, Kind::Plain)
                    }
                    DynArray::FixedLengthUtf32(_) | DynArray::NullTerminatedBytes(_) | DynArray::Struct(_) => Err(v),
                }
            }

            /// [`elements`](Self::elements), mutable.
            pub(crate) fn elements_mut<V: ElementsMut>(&mut self, v: V) -> Result<V::Out, V> {
                Ok(match self {
                    $(DynArray::$variant(a) => visit_in(v, a, kind!($variant, $($element)*)),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => visit_in(v, &mut a.bytes, Kind::Records),
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        visit_in(v, values, Kind::Plain)
                    }
                    DynArray::FixedLengthUtf32(_) | DynArray::NullTerminatedBytes(_) | DynArray::Struct(_) => {
                        return Err(v)
                    }
                })
            }

            /// An array of `data_type` and `shape` whose every element is `fill_value`, the
            /// value of `zarr.json`'s `fill_value`: what a missing chunk reads as.
            ///
            /// The forms are those of the spec, the extension registry, zarr-python and
            /// tensorstore: `true`/`false`; integers; for floats a number, `"NaN"`,
            /// `"Infinity"`, `"-Infinity"` or `"0x…"` (the bits in hex); for minifloats a
            /// number they hold exactly, or those names or bits; `[re, im]` for complex
            /// numbers; an integer or `"NaT"` for datetimes and timedeltas; a string for
            /// `fixed_length_utf32`; base64 text (or a list of byte values) for raw bits,
            /// `raw_bytes` and `null_terminated_bytes`; for a struct an object with a
            /// fill value per field, or base64 text of one little-endian record (the legacy
            /// `structured` form).
            ///
            /// # Errors
            ///
            /// [`Error::ShapeOverflow`], and [`MetadataError::InvalidFillValue`] for a value
            /// of the wrong form or one the data type cannot hold.
            ///
            /// [`BytesCodec::full_dyn`](crate::BytesCodec::full_dyn) reads such a record in the
            /// codec's byte order instead.
            ///
            /// # Examples
            ///
            /// ```
            /// use serde_json::json;
            /// use zarr_bytes::{DataType, DynArray};
            ///
            /// let a = DynArray::full(&DataType::Float32, &[2], &json!("NaN"))?;
            /// let DynArray::Float32(a) = a else { unreachable!() };
            /// assert!(a.iter().all(|x| x.is_nan()));
            /// let t: DataType = r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":8}}"#.parse()?;
            /// let s = DynArray::full(&t, &[], &json!("ok"))?;
            /// assert!(matches!(s, DynArray::FixedLengthUtf32(s) if s.values()[[]] == "ok"));
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            pub fn full(data_type: &DataType, shape: &[usize], fill_value: &Value) -> Result<DynArray, Error> {
                Self::full_in(data_type, shape, fill_value, Endian::Little)
            }

            /// [`full`](Self::full), with a base64 struct record in the byte order `records`.
            pub(crate) fn full_in(
                data_type: &DataType,
                shape: &[usize],
                fill_value: &Value,
                records: Endian,
            ) -> Result<DynArray, Error> {
                checked_len(shape, data_type.size())?;
                let wrong = |expected: &str| -> Error {
                    MetadataError::InvalidFillValue {
                        data_type: data_type.clone(),
                        value: fill_value.to_string().into(),
                        expected: expected.into(),
                    }
                    .into()
                };
                let dim = IxDyn(shape);
                Ok(match data_type {
                    $(DataType::$variant => {
                        let x = fill_fixed!(fill_value, $fill, $($element)*).map_err(wrong)?;
                        DynArray::$variant(ArrayD::from_elem(dim, x))
                    })*
                    DataType::RawBits { .. } | DataType::RawBytes { .. } => {
                        let n = data_type.size();
                        let bytes = fill::bytes(fill_value)
                            .ok()
                            .filter(|b| b.len() == n)
                            .ok_or_else(|| wrong(&format!("{n} bytes: base64 text or a list of byte values")))?;
                        let mut with_bytes = shape.to_vec();
                        with_bytes.push(n);
                        let a = ArrayD::from_shape_fn(IxDyn(&with_bytes), |i| bytes[i[shape.len()]]);
                        let a = RawArray { bytes: a };
                        if matches!(data_type, DataType::RawBits { .. }) {
                            DynArray::RawBits(a)
                        } else {
                            DynArray::RawBytes(a)
                        }
                    }
                    DataType::DateTime64 { unit, scale_factor } => DynArray::DateTime64 {
                        values: ArrayD::from_elem(dim, fill::datetime(fill_value).map_err(wrong)?),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::TimeDelta64 { unit, scale_factor } => DynArray::TimeDelta64 {
                        values: ArrayD::from_elem(dim, fill::datetime(fill_value).map_err(wrong)?),
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::FixedLengthUtf32 { code_units } => {
                        let max = code_units.get();
                        let s = fill::string(fill_value)
                            .ok()
                            .filter(|s| s.chars().count() <= max)
                            .ok_or_else(|| wrong(&format!("a string of at most {max} characters")))?;
                        let values = ArrayD::from_elem(dim, s.trim_end_matches('\0').to_string());
                        DynArray::FixedLengthUtf32(FixedLength::<String>::new(values, *code_units)?)
                    }
                    DataType::NullTerminatedBytes { length_bytes } => {
                        let mut bytes = fill::bytes(fill_value)
                            .ok()
                            .filter(|b| b.len() <= length_bytes.get())
                            .ok_or_else(|| wrong(&format!("at most {length_bytes} bytes: base64 text or a list of byte values")))?;
                        while bytes.last() == Some(&0) {
                            bytes.pop();
                        }
                        let values = ArrayD::from_elem(dim, bytes);
                        DynArray::NullTerminatedBytes(FixedLength::<Vec<u8>>::new(values, *length_bytes)?)
                    }
                    DataType::Struct(t) => match fill_value {
                        Value::Object(values) => {
                            let fields = t.fields();
                            if let Some(key) = values.keys().find(|k| !fields.iter().any(|f| &f.name == *k)) {
                                return Err(wrong(&format!("an object of the struct's fields, which have no {key:?}")));
                            }
                            let arrays = fields
                                .iter()
                                .map(|f| {
                                    let value = values.get(&f.name).ok_or_else(|| {
                                        wrong(&format!("an object with a value for every field, {:?} too", f.name))
                                    })?;
                                    let field = DynArray::full_in(&f.data_type, shape, value, records)?;
                                    Ok((f.name.clone(), field))
                                })
                                .collect::<Result<Vec<_>, Error>>()?;
                            DynArray::Struct(StructArray::new(arrays)?)
                        }
                        Value::String(_) => {
                            let record = data_type.size();
                            let bytes = fill::bytes(fill_value)
                                .ok()
                                .filter(|b| b.len() == record)
                                .ok_or_else(|| wrong(&format!("base64 text of one {record}-byte record")))?;
                            let len = checked_len(shape, record)?;
                            let all: Vec<u8> = bytes.iter().copied().cycle().take(len * record).collect();
                            DynArray::decode(&all, data_type, shape, records)?
                        }
                        _ => return Err(wrong("an object with a fill value per field, or base64 text of one record")),
                    },
                })
            }

            /// An array of `data_type` and `shape` of zeroed memory, which the system hands
            /// over as zero pages; `None` for strings, byte strings and structs.
            pub(crate) fn zeroed(data_type: &DataType, shape: &[usize]) -> Result<Option<DynArray>, Error> {
                let size = data_type.size();
                checked_len(shape, size)?;
                let mut with_bytes = shape.to_vec();
                with_bytes.push(size);
                Ok(Some(match data_type {
                    $(DataType::$variant => DynArray::$variant(zeroed(shape)?),)*
                    DataType::RawBits { .. } => DynArray::RawBits(RawArray { bytes: zeroed(&with_bytes)? }),
                    DataType::RawBytes { .. } => DynArray::RawBytes(RawArray { bytes: zeroed(&with_bytes)? }),
                    DataType::DateTime64 { unit, scale_factor } => DynArray::DateTime64 {
                        values: zeroed(shape)?,
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::TimeDelta64 { unit, scale_factor } => DynArray::TimeDelta64 {
                        values: zeroed(shape)?,
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::FixedLengthUtf32 { .. } | DataType::NullTerminatedBytes { .. } | DataType::Struct(_) => {
                        return Ok(None)
                    }
                }))
            }

            /// Decode bytes of `data_type` and `shape`.
            pub(crate) fn decode(bytes: &[u8], data_type: &DataType, shape: &[usize], endian: Endian)
                -> Result<DynArray, Error>
            {
                Ok(match data_type {
                    $(DataType::$variant => DynArray::$variant(decode_fixed!(bytes, shape, endian, $($element)*)),)*
                    DataType::RawBits { bytes: size } => DynArray::RawBits(RawArray::decode(bytes, shape, *size)?),
                    DataType::RawBytes { length_bytes } => DynArray::RawBytes(RawArray::decode(bytes, shape, *length_bytes)?),
                    DataType::DateTime64 { unit, scale_factor } => DynArray::DateTime64 {
                        values: typed(bytes, shape, endian)?,
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::TimeDelta64 { unit, scale_factor } => DynArray::TimeDelta64 {
                        values: typed(bytes, shape, endian)?,
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DataType::FixedLengthUtf32 { code_units } => {
                        DynArray::FixedLengthUtf32(text::decode_utf32(bytes, shape, *code_units, endian)?)
                    }
                    DataType::NullTerminatedBytes { length_bytes } => {
                        DynArray::NullTerminatedBytes(text::decode_terminated(bytes, shape, *length_bytes)?)
                    }
                    DataType::Struct(t) => {
                        DynArray::Struct(StructArray::decode(bytes, t, shape, endian)?)
                    }
                })
            }

            /// Encode, whatever the variant.
            pub(crate) fn encode(&self, endian: Endian) -> Result<Vec<u8>, Error> {
                Ok(match self {
                    $(DynArray::$variant(a) => encode_fixed!(a, endian, $variant, $($element)*),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => encode_units(&a.bytes, endian)?,
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        encode_units(values, endian)?
                    }
                    DynArray::FixedLengthUtf32(s) => text::encode_utf32(s, endian)?,
                    DynArray::NullTerminatedBytes(s) => text::encode_terminated(s)?,
                    DynArray::Struct(s) => s.encode(endian)?,
                })
            }
        }

        $(conversions!($variant, $($element)*);)*
    };
}

fixed_types!(dyn_array);

/// Elements of raw bits or `raw_bytes`: an array of their bytes, with a trailing axis of
/// each element's bytes after the logical shape, at least one byte long.
///
/// # Examples
///
/// ```
/// use ndarray::{Array2, ArrayD};
/// use zarr_bytes::{DataType, DynArray, Error, RawArray};
///
/// let records = RawArray::new(Array2::from_shape_vec((2, 3), vec![1u8, 2, 3, 4, 5, 6])?.into_dyn())?;
/// assert_eq!(records.shape(), &[2]);
/// assert_eq!(DynArray::RawBits(records).data_type(), DataType::raw_bits(24)?);
/// let none = RawArray::new(ArrayD::<u8>::zeros(vec![2, 0]));
/// assert!(matches!(none, Err(Error::NoRecordBytes { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawArray {
    bytes: ArrayD<u8>,
}

impl RawArray {
    /// The elements whose bytes `bytes` holds along its last axis.
    ///
    /// # Errors
    ///
    /// [`Error::NoRecordBytes`] for an array with no axes, or a last axis of length 0.
    pub fn new(bytes: ArrayD<u8>) -> Result<RawArray, Error> {
        if bytes.shape().last().copied().unwrap_or(0) == 0 {
            return Err(Error::NoRecordBytes {
                shape: bytes.shape().into(),
            });
        }
        Ok(RawArray { bytes })
    }

    /// The bytes: the logical shape and a trailing axis of each element's bytes.
    #[must_use]
    pub fn bytes(&self) -> &ArrayD<u8> {
        &self.bytes
    }

    /// The bytes, taken out.
    #[must_use]
    pub fn into_bytes(self) -> ArrayD<u8> {
        self.bytes
    }

    /// The logical shape, without the trailing byte axis.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        let shape = self.bytes.shape();
        &shape[..shape.len() - 1]
    }

    /// Bytes per element: the length of the trailing axis.
    #[must_use]
    pub fn element_size(&self) -> NonZeroUsize {
        let size = self.bytes.shape().last().copied().unwrap_or(0);
        NonZeroUsize::new(size).unwrap_or_else(|| unreachable!("checked when made"))
    }

    /// Elements of `size` bytes each, `shape` of them, from `bytes`.
    fn decode(bytes: &[u8], shape: &[usize], size: NonZeroUsize) -> Result<RawArray, Error> {
        // Length and size checks come before the shape is copied.
        checked_size(shape, size.get(), bytes)?;
        let mut with_bytes = shape.to_vec();
        with_bytes.push(size.get());
        Ok(RawArray {
            bytes: typed::<u8>(bytes, &with_bytes, Endian::NATIVE)?,
        })
    }

    /// The same elements with their axes reordered by a checked permutation `order`; the
    /// byte axis stays last.
    fn permuted_axes(self, order: &[usize]) -> RawArray {
        let mut all = order.to_vec();
        all.push(order.len());
        RawArray {
            bytes: permuted(self.bytes, &all),
        }
    }
}

/// Encode a sub-byte integer type: every value must fit its bits, and each byte keeps only
/// those bits, cleared in place in the output rather than in a copy of the array.
fn encode_narrow<A: Narrow>(
    a: &ArrayD<A>,
    bits: u32,
    data_type: DataType,
    endian: Endian,
) -> Result<Vec<u8>, Error> {
    if let Some((index, &x)) = a.iter().enumerate().find(|&(_, &x)| A::widen(x, bits) != x) {
        return Err(Error::OutOfRange {
            data_type,
            index,
            value: x.into(),
        });
    }
    let mut bytes = encode_units(a, endian)?;
    let used = 0xff >> (8 - bits);
    bytes.iter_mut().for_each(|b| *b &= used);
    Ok(bytes)
}

/// `view`'s elements in C order in an array of their own: one memory slice. One copy for
/// every use (parts, broadcasts, arrays with gaps), so each element type makes one.
fn standard<A: Copy>(view: ArrayView<'_, A, IxDyn>) -> ArrayD<A> {
    let values = view.iter().copied().collect();
    into_array(view.raw_dim(), values)
        .unwrap_or_else(|_| unreachable!("an array's own shape holds its elements"))
}

/// `f` of each element of `a`, in an array of `a`'s shape in C order.
fn mapped<A: Copy, B>(a: &ArrayD<A>, f: impl Fn(A) -> B) -> ArrayD<B> {
    let values = a.iter().map(|&x| f(x)).collect();
    into_array(a.raw_dim(), values)
        .unwrap_or_else(|_| unreachable!("an array's own shape holds its elements"))
}

/// Its `part` of `a` as the units its elements move as when encoded ([`out_units`]), or,
/// where `a` is no one memory slice (an array with gaps, part of another), a copy in C
/// order of that part only, not of the whole array once per chunk: once per element type,
/// whatever the visitor.
fn part_units<'a, A: Element>(
    a: &'a ArrayD<A>,
    part: Part<'_>,
) -> Result<ArrayView<'a, A::Out, IxDyn>, ArrayD<A>> {
    match out_units(a.view()) {
        Ok(units) => Ok(part.of(units)),
        Err(view) => Err(standard(part.of(view))),
    }
}

/// A C-order copy of [`part_units`] as the units its elements move as when encoded.
fn copy_units<A: Element>(copy: &ArrayD<A>) -> ArrayView<'_, A::Out, IxDyn> {
    out_units(copy.view()).unwrap_or_else(|_| unreachable!("a C-order array is one slice"))
}

/// The units of elements that move through a copy (`Convert::COPIED`), and their
/// conversion back: apart from the visitors, so that each element type makes them once.
fn copies<A: Element>(view: ArrayView<'_, A, IxDyn>) -> ArrayD<A::Copied> {
    view.map(|&x| x.copied())
}

/// [`copies`] back into the elements they were made of, each converted.
fn copy_back<A: Element>(mut part: ArrayViewMut<'_, A, IxDyn>, units: &ArrayD<A::Copied>) {
    part.zip_mut_with(units, |x, &u| *x = A::from_copied(u));
}

/// Encode `a` as the units its elements move as ([`part_units`]), or through
/// a copy in units (`Convert::COPIED`).
fn encode_units<A: Element>(a: &ArrayD<A>, endian: Endian) -> Result<Vec<u8>, Error> {
    if const { A::COPIED } {
        encode_vec(copies(a.view()).view(), endian)
    } else {
        match part_units(a, Part::default()) {
            Ok(units) => encode_vec(units, endian),
            Err(copy) => encode_vec(copy_units(&copy), endian),
        }
    }
}

/// `v.visit` on its part of `a` as the units its elements move as when encoded
/// ([`part_units`]): every element type of one unit is visited by one instance
/// of the visitor. Elements that move through a copy (`Convert::COPIED`, always plain) are
/// copied from that part only.
fn visit_out<A: Element, V: Elements>(v: V, a: &ArrayD<A>, kind: Kind<A::Out>) -> V::Out {
    if const { A::COPIED } {
        let units = copies(v.part().of(a.view()));
        v.visit(units.view(), Kind::Plain)
    } else {
        match part_units(a, v.part()) {
            Ok(units) => v.visit(units, kind),
            Err(copy) => v.visit(copy_units(&copy), kind),
        }
    }
}

/// `a` as the units its elements are decoded into, its memory made one slice first (a
/// copy in C order of an array with gaps).
fn in_array<A: Element>(a: &mut ArrayD<A>) -> ArrayViewMut<'_, A::In, IxDyn> {
    if in_units(a.view_mut()).is_err() {
        *a = standard(a.view());
    }
    in_units(a.view_mut()).unwrap_or_else(|_| unreachable!("a C-order array is one slice"))
}

/// `v.visit` on its part of `a` as the units its elements move as when decoded into
/// ([`in_array`]). Elements that move through a copy (`Convert::COPIED`) are copied from
/// that part only, and back into it after, each converted.
fn visit_in<A: Element, V: ElementsMut>(v: V, a: &mut ArrayD<A>, kind: Kind<A::In>) -> V::Out {
    if const { A::COPIED } {
        let part = v.part().of(a.view_mut());
        let mut units = copies(part.view());
        let out = v.visit(units.view_mut(), Kind::Plain);
        copy_back(part, &units);
        out
    } else {
        let part = v.part().of(in_array(a));
        v.visit(part, kind)
    }
}

/// `v.visit` on its part of `a` as the units its elements move as when encoded, lent for
/// as long as `a`: `v` back for elements that move through a copy, and for an array that is
/// no one memory slice.
fn visit_of<'a, A: Element, V: ElementsOf<'a>>(
    v: V,
    a: &'a ArrayD<A>,
    kind: Kind<A::Out>,
) -> Result<V::Out, V> {
    if const { A::COPIED } {
        return Err(v);
    }
    match out_units(a.view()) {
        Ok(units) => {
            let part = v.part().of(units);
            Ok(v.visit(part, kind))
        }
        Err(_) => Err(v),
    }
}

/// `v.visit` on its part of `a` as the units its elements move as when decoded into
/// ([`in_array`]), lent for as long as `a`: `v` back for elements that move through a copy.
fn visit_into<'a, A: Element, V: ElementsInto<'a>>(
    v: V,
    a: &'a mut ArrayD<A>,
    kind: Kind<A::In>,
) -> Result<V::Out, V> {
    if const { A::COPIED } {
        return Err(v);
    }
    let part = v.part().of(in_array(a));
    Ok(v.visit(part, kind))
}

/// Overwrite `region` of `a` with `from` (of its shape, or 0-d), unit by unit.
fn assign_units<A: Element>(a: &mut ArrayD<A>, region: &[Range<usize>], from: &ArrayD<A>) {
    let mut part = in_array(a);
    let mut part = part.slice_each_axis_mut(slicer(region));
    match in_units_of(from.view()) {
        Ok(from) => part.assign(&from),
        Err(view) => {
            let copy = standard(view);
            let from = in_units_of(copy.view());
            part.assign(&from.unwrap_or_else(|_| unreachable!("a C-order array is one slice")))
        }
    }
}

impl<const N: usize> From<ArrayD<[u8; N]>> for DynArray {
    /// Raw bits `r{8N}`: the bytes of each element become a trailing axis of length N.
    fn from(a: ArrayD<[u8; N]>) -> Self {
        let mut shape = a.shape().to_vec();
        shape.push(N);
        let bytes = a.to_zarr_bytes(Endian::NATIVE);
        let a = ArrayD::from_shape_vec(IxDyn(&shape), bytes).unwrap_or_else(|_| {
            unreachable!("an array's own shape and one more axis hold its bytes")
        });
        DynArray::RawBits(RawArray { bytes: a })
    }
}

impl<const N: usize> TryFrom<DynArray> for ArrayD<[u8; N]> {
    type Error = Error;

    fn try_from(d: DynArray) -> Result<Self, Error> {
        let expected = <[u8; N] as Element>::DATA_TYPE;
        match d {
            DynArray::RawBits(a) if a.element_size().get() == N => {
                let bytes = a.bytes.to_zarr_bytes(Endian::NATIVE);
                ArrayD::from_zarr_bytes(&bytes, a.shape(), Endian::NATIVE)
            }
            other => Err(Error::TypeMismatch {
                expected,
                found: other.data_type(),
            }),
        }
    }
}

fn typed<A: Element>(bytes: &[u8], shape: &[usize], endian: Endian) -> Result<ArrayD<A>, Error> {
    // Elements first: the shape is copied into an IxDyn only once the bytes are good.
    let elements = if const { A::COPIED } {
        // As units, then each converted, in the same allocation where their sizes agree.
        let units = crate::typed::decode::decode_vec::<A::Copied>(bytes, shape, endian)?;
        units.into_iter().map(A::from_copied).collect()
    } else {
        crate::typed::decode::decode_vec::<A>(bytes, shape, endian)?
    };
    into_array(IxDyn(shape), elements)
}
