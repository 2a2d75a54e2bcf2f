//! Arrays whose data type is known only at run time, from `zarr.json`: one variant per data
//! type, made from the data type table.

use ndarray::{ArrayD, IxDyn};
use serde_json::Value;

use crate::element::Narrow;
use crate::layout::checked_len;
use crate::{fill, text, BytesDecode, BytesEncode, DataType, Element, Endian, Error};
use crate::{StructArray, TimeUnit};

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
        crate::encode::encode_vec($a.view(), $endian)?
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
    ($($variant:ident $name:literal ($($element:tt)*) $size:literal $endian:ident $fill:ident $doc:literal;)*) => {
        /// An array of any data type: one variant per [`DataType`], named alike.
        ///
        /// `RawBits` and `RawBytes` hold bytes with one trailing axis of the element's bytes
        /// after the logical shape. `Int2` and `Int4` hold `i8` values from -2..=1 and
        /// -8..=7, `UInt2` and `UInt4` `u8` values up to 3 and 15. Convert from a typed
        /// array with `From`, and back with `TryFrom`, whose error names both data types.
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
                #[doc = concat!("`", $name, "` elements as `", stringify!($($element)*), "`.")]
                $variant(ArrayD<element_of!($($element)*)>),
            )*
            /// Raw bits: the logical shape plus a trailing axis of `bits / 8` bytes.
            RawBits(ArrayD<u8>),
            /// `raw_bytes`: the logical shape plus a trailing axis of `length_bytes` bytes.
            RawBytes(ArrayD<u8>),
            /// `numpy.datetime64`: counts of `scale_factor` × `unit`; NaT is `i64::MIN`.
            DateTime64 {
                /// The counts.
                values: ArrayD<i64>,
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: u32,
            },
            /// `numpy.timedelta64`: counts of `scale_factor` × `unit`; NaT is `i64::MIN`.
            TimeDelta64 {
                /// The counts.
                values: ArrayD<i64>,
                /// The unit of time.
                unit: TimeUnit,
                /// Units per step.
                scale_factor: u32,
            },
            /// `fixed_length_utf32`: strings of at most `length_bytes / 4` characters, none
            /// ending in NUL (trailing NULs are padding, as in numpy).
            FixedLengthUtf32 {
                /// The strings.
                values: ArrayD<String>,
                /// Bytes per element.
                length_bytes: usize,
            },
            /// `null_terminated_bytes`: byte strings of at most `length_bytes` bytes
            /// (trailing zero bytes are padding, as in numpy).
            NullTerminatedBytes {
                /// The byte strings.
                values: ArrayD<Vec<u8>>,
                /// Bytes per element.
                length_bytes: usize,
            },
            /// `struct`: one array per field.
            Struct(StructArray),
        }

        impl DynArray {
            /// The Zarr data type of the elements.
            pub fn data_type(&self) -> DataType {
                let trailing = |a: &ArrayD<u8>| a.shape().last().copied().unwrap_or(0);
                match self {
                    $(DynArray::$variant(_) => DataType::$variant,)*
                    DynArray::RawBits(a) => DataType::RawBits(8 * trailing(a)),
                    DynArray::RawBytes(a) => DataType::RawBytes { length_bytes: trailing(a) },
                    DynArray::DateTime64 { unit, scale_factor, .. } => DataType::DateTime64 {
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::TimeDelta64 { unit, scale_factor, .. } => DataType::TimeDelta64 {
                        unit: *unit,
                        scale_factor: *scale_factor,
                    },
                    DynArray::FixedLengthUtf32 { length_bytes, .. } => DataType::FixedLengthUtf32 {
                        length_bytes: *length_bytes,
                    },
                    DynArray::NullTerminatedBytes { length_bytes, .. } => {
                        DataType::NullTerminatedBytes {
                            length_bytes: *length_bytes,
                        }
                    }
                    DynArray::Struct(s) => s.data_type(),
                }
            }

            /// The logical shape (for raw bits and raw bytes, without the trailing byte
            /// axis).
            pub fn shape(&self) -> &[usize] {
                match self {
                    $(DynArray::$variant(a) => a.shape(),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => {
                        let shape = a.shape();
                        &shape[..shape.len().saturating_sub(1)]
                    }
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        values.shape()
                    }
                    DynArray::FixedLengthUtf32 { values, .. } => values.shape(),
                    DynArray::NullTerminatedBytes { values, .. } => values.shape(),
                    DynArray::Struct(s) => s.shape(),
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
            /// use ndarray::{array, ArrayD};
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
                let ndim = self.shape().len();
                let mut seen = vec![false; ndim];
                let valid = order.len() == ndim
                    && order.iter().all(|&k| k < ndim && !std::mem::replace(&mut seen[k], true));
                if !valid {
                    return Err(Error::InvalidAxisOrder { order: order.to_vec(), ndim });
                }
                // The trailing byte axis of raw bits and raw bytes stays last.
                let with_bytes = |a: ArrayD<u8>| {
                    let mut all = order.to_vec();
                    all.push(ndim);
                    a.permuted_axes(all)
                };
                Ok(match self {
                    $(DynArray::$variant(a) => DynArray::$variant(a.permuted_axes(order)),)*
                    DynArray::RawBits(a) => DynArray::RawBits(with_bytes(a)),
                    DynArray::RawBytes(a) => DynArray::RawBytes(with_bytes(a)),
                    DynArray::DateTime64 { values, unit, scale_factor } => DynArray::DateTime64 {
                        values: values.permuted_axes(order),
                        unit,
                        scale_factor,
                    },
                    DynArray::TimeDelta64 { values, unit, scale_factor } => DynArray::TimeDelta64 {
                        values: values.permuted_axes(order),
                        unit,
                        scale_factor,
                    },
                    DynArray::FixedLengthUtf32 { values, length_bytes } => DynArray::FixedLengthUtf32 {
                        values: values.permuted_axes(order),
                        length_bytes,
                    },
                    DynArray::NullTerminatedBytes { values, length_bytes } => {
                        DynArray::NullTerminatedBytes { values: values.permuted_axes(order), length_bytes }
                    }
                    DynArray::Struct(s) => DynArray::Struct(s.permuted_axes(order)?),
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
            /// The errors of [`DataType::check`], [`Error::ShapeOverflow`], and
            /// [`Error::InvalidFillValue`] for a value of the wrong form or one the data
            /// type cannot hold.
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
            /// assert!(matches!(s, DynArray::FixedLengthUtf32 { values, .. } if values[[]] == "ok"));
            /// # Ok::<(), zarr_bytes::Error>(())
            /// ```
            pub fn full(data_type: &DataType, shape: &[usize], fill_value: &Value) -> Result<DynArray, Error> {
                data_type.check()?;
                checked_len(shape, data_type.size())?;
                let wrong = |expected: &str| Error::InvalidFillValue {
                    data_type: data_type.clone(),
                    value: fill_value.to_string(),
                    expected: expected.into(),
                };
                let dim = IxDyn(shape);
                Ok(match data_type {
                    $(DataType::$variant => {
                        let x = fill_fixed!(fill_value, $fill, $($element)*).map_err(wrong)?;
                        DynArray::$variant(ArrayD::from_elem(dim, x))
                    })*
                    DataType::RawBits(_) | DataType::RawBytes { .. } => {
                        let n = data_type.size();
                        let bytes = fill::bytes(fill_value)
                            .ok()
                            .filter(|b| b.len() == n)
                            .ok_or_else(|| wrong(&format!("{n} bytes: base64 text or a list of byte values")))?;
                        let mut with_bytes = shape.to_vec();
                        with_bytes.push(n);
                        let a = ArrayD::from_shape_fn(IxDyn(&with_bytes), |i| bytes[i[shape.len()]]);
                        if matches!(data_type, DataType::RawBits(_)) {
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
                    DataType::FixedLengthUtf32 { length_bytes } => {
                        let max = length_bytes / 4;
                        let s = fill::string(fill_value)
                            .ok()
                            .filter(|s| s.chars().count() <= max)
                            .ok_or_else(|| wrong(&format!("a string of at most {max} characters")))?;
                        DynArray::FixedLengthUtf32 {
                            values: ArrayD::from_elem(dim, s.trim_end_matches('\0').to_string()),
                            length_bytes: *length_bytes,
                        }
                    }
                    DataType::NullTerminatedBytes { length_bytes } => {
                        let mut bytes = fill::bytes(fill_value)
                            .ok()
                            .filter(|b| b.len() <= *length_bytes)
                            .ok_or_else(|| wrong(&format!("at most {length_bytes} bytes: base64 text or a list of byte values")))?;
                        while bytes.last() == Some(&0) {
                            bytes.pop();
                        }
                        DynArray::NullTerminatedBytes {
                            values: ArrayD::from_elem(dim, bytes),
                            length_bytes: *length_bytes,
                        }
                    }
                    DataType::Struct(fields) => match fill_value {
                        Value::Object(values) => {
                            if let Some(key) = values.keys().find(|k| !fields.iter().any(|f| &f.name == *k)) {
                                return Err(wrong(&format!("an object of the struct's fields, which have no {key:?}")));
                            }
                            let arrays = fields
                                .iter()
                                .map(|f| {
                                    let value = values.get(&f.name).ok_or_else(|| {
                                        wrong(&format!("an object with a value for every field, {:?} too", f.name))
                                    })?;
                                    Ok((f.name.clone(), DynArray::full(&f.data_type, shape, value)?))
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
                            DynArray::decode(&all, data_type, shape, Endian::Little)?
                        }
                        _ => return Err(wrong("an object with a fill value per field, or base64 text of one record")),
                    },
                })
            }

            /// Decode bytes of `data_type`, which is checked, and `shape`.
            pub(crate) fn decode(bytes: &[u8], data_type: &DataType, shape: &[usize], endian: Endian)
                -> Result<DynArray, Error>
            {
                Ok(match data_type {
                    $(DataType::$variant => DynArray::$variant(decode_fixed!(bytes, shape, endian, $($element)*)),)*
                    DataType::RawBits(_) => DynArray::RawBits(with_bytes(bytes, shape, data_type.size())?),
                    DataType::RawBytes { length_bytes } => DynArray::RawBytes(with_bytes(bytes, shape, *length_bytes)?),
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
                    DataType::FixedLengthUtf32 { length_bytes } => DynArray::FixedLengthUtf32 {
                        values: text::decode_utf32(bytes, shape, *length_bytes, endian)?,
                        length_bytes: *length_bytes,
                    },
                    DataType::NullTerminatedBytes { length_bytes } => DynArray::NullTerminatedBytes {
                        values: text::decode_terminated(bytes, shape, *length_bytes)?,
                        length_bytes: *length_bytes,
                    },
                    DataType::Struct(fields) => {
                        DynArray::Struct(StructArray::decode(bytes, fields, data_type.size(), shape, endian)?)
                    }
                })
            }

            /// Encode, whatever the variant; its data type is checked.
            pub(crate) fn encode(&self, endian: Endian) -> Result<Vec<u8>, Error> {
                Ok(match self {
                    $(DynArray::$variant(a) => encode_fixed!(a, endian, $variant, $($element)*),)*
                    DynArray::RawBits(a) | DynArray::RawBytes(a) => crate::encode::encode_vec(a.view(), endian)?,
                    DynArray::DateTime64 { values, .. } | DynArray::TimeDelta64 { values, .. } => {
                        crate::encode::encode_vec(values.view(), endian)?
                    }
                    DynArray::FixedLengthUtf32 { values, length_bytes } => {
                        text::encode_utf32(values, *length_bytes, endian)?
                    }
                    DynArray::NullTerminatedBytes { values, length_bytes } => {
                        text::encode_terminated(values, *length_bytes)?
                    }
                    DynArray::Struct(s) => s.encode(endian)?,
                })
            }
        }

        $(conversions!($variant, $($element)*);)*
    };
}

fixed_types!(dyn_array);

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
    let mut bytes = crate::encode::encode_vec(a.view(), endian)?;
    let used = 0xff >> (8 - bits);
    bytes.iter_mut().for_each(|b| *b &= used);
    Ok(bytes)
}

/// Bytes of `size` each, as an array of `shape` and a trailing axis of the bytes.
fn with_bytes(bytes: &[u8], shape: &[usize], size: usize) -> Result<ArrayD<u8>, Error> {
    // Length and size checks come before the shape is copied.
    crate::decode::checked_size(shape, size, bytes)?;
    let mut with_bytes = shape.to_vec();
    with_bytes.push(size);
    typed::<u8>(bytes, &with_bytes, Endian::NATIVE)
}

impl<const N: usize> From<ArrayD<[u8; N]>> for DynArray {
    /// Raw bits `r{8N}`: the bytes of each element become a trailing axis of length N.
    fn from(a: ArrayD<[u8; N]>) -> Self {
        let mut shape = a.shape().to_vec();
        shape.push(N);
        let bytes = a.to_zarr_bytes(Endian::NATIVE);
        let a = ArrayD::from_shape_vec(IxDyn(&shape), bytes);
        DynArray::RawBits(a.expect("an array's own shape and one more axis hold its bytes"))
    }
}

impl<const N: usize> TryFrom<DynArray> for ArrayD<[u8; N]> {
    type Error = Error;

    fn try_from(d: DynArray) -> Result<Self, Error> {
        let expected = <[u8; N] as Element>::DATA_TYPE;
        match d {
            DynArray::RawBits(a) if a.shape().last() == Some(&N) => {
                let shape = &a.shape()[..a.ndim() - 1];
                let bytes = a.to_zarr_bytes(Endian::NATIVE);
                ArrayD::from_zarr_bytes(&bytes, shape, Endian::NATIVE)
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
    let elements = crate::decode::decode_vec::<A>(bytes, shape, endian)?;
    crate::decode::into_array(IxDyn(shape), elements)
}
