//! Arrays whose element type is known only at run time, from `zarr.json`.

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;

use crate::{BytesDecode, BytesEncode, DataType, Element, Endian, Error};

macro_rules! dyn_array {
    ($($variant:ident($t:ty)),* $(,)?) => {
        /// An array of any data type: one variant per [`DataType`], named alike.
        ///
        /// `RawBits` holds bytes with one trailing axis of `bits / 8` bytes after the logical
        /// shape. Convert from a typed array with `From`, and back with `TryFrom`, whose error
        /// names both data types.
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
                #[doc = concat!("`", stringify!($variant), "` elements as `", stringify!($t), "`.")]
                $variant(ArrayD<$t>),
            )*
            /// Raw bits: the logical shape plus a trailing axis of `bits / 8` bytes.
            RawBits(ArrayD<u8>),
        }

        impl DynArray {
            /// The Zarr data type of the elements.
            pub fn data_type(&self) -> DataType {
                match self {
                    $(DynArray::$variant(_) => DataType::$variant,)*
                    DynArray::RawBits(a) => DataType::RawBits(8 * a.shape().last().copied().unwrap_or(0)),
                }
            }

            /// The logical shape (for raw bits, without the trailing byte axis).
            pub fn shape(&self) -> &[usize] {
                match self {
                    $(DynArray::$variant(a) => a.shape(),)*
                    DynArray::RawBits(a) => {
                        let shape = a.shape();
                        &shape[..shape.len().saturating_sub(1)]
                    }
                }
            }

            /// Decode checked-for-type bytes of `data_type` and `shape`.
            pub(crate) fn decode(bytes: &[u8], data_type: &DataType, shape: &[usize], endian: Endian)
                -> Result<DynArray, Error>
            {
                match data_type {
                    $(DataType::$variant => Ok(DynArray::$variant(typed::<$t>(bytes, shape, endian)?)),)*
                    DataType::RawBits(bits) => {
                        // Length and size checks come before the shape is copied.
                        crate::layout::checked_len(shape, bits / 8)?;
                        let mut with_bytes = shape.to_vec();
                        with_bytes.push(bits / 8);
                        Ok(DynArray::RawBits(typed::<u8>(bytes, &with_bytes, endian)?))
                    }
                }
            }

            /// Encode, whatever the variant.
            pub(crate) fn encode(&self, endian: Endian) -> Result<Vec<u8>, Error> {
                match self {
                    $(DynArray::$variant(a) => crate::encode::encode_vec(a.view(), endian),)*
                    DynArray::RawBits(a) => crate::encode::encode_vec(a.view(), endian),
                }
            }
        }

        $(
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
        )*
    };
}

dyn_array! {
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float16(f16),
    BFloat16(bf16),
    Float32(f32),
    Float64(f64),
    Complex64(Complex<f32>),
    Complex128(Complex<f64>),
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
