//! Arrays of structs, held as one array per field, and the packed records they encode to.

use crate::check::{checked_len, checked_size};
use crate::{DataType, DynArray, Endian, Error, MetadataError, StructField, StructType};

/// An array of a [`DataType::Struct`]: one array per field, all of one shape, in the
/// struct's order (a column per field, as numpy users read `a["field"]`). Nested structs
/// are [`DynArray::Struct`] fields.
///
/// Encoded, each element is a record: its fields' encodings packed in order with no
/// padding, each field converted by its own data type's rule.
///
/// # Examples
///
/// ```
/// use ndarray::{arr1, ArrayD};
/// use zarr_bytes::{BytesCodec, DataType, DynArray, Endian, StructArray};
///
/// let s = StructArray::new(vec![
///     ("id".into(), DynArray::from(arr1(&[1u16, 2]).into_dyn())),
///     ("ok".into(), DynArray::from(arr1(&[true, false]).into_dyn())),
/// ])?;
/// assert_eq!(s.shape(), &[2]);
/// assert_eq!(s.data_type().size(), 3);
/// let codec = BytesCodec::new(Endian::Big);
/// let bytes = codec.encode_dyn(&DynArray::Struct(s.clone()))?;
/// assert_eq!(bytes, [0, 1, 1, 0, 2, 0]);
/// let back = codec.decode_dyn(&bytes, &s.data_type(), &[2])?;
/// assert_eq!(back, DynArray::Struct(s));
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StructArray {
    fields: Vec<(String, DynArray)>,
    shape: Vec<usize>,
}

impl StructArray {
    /// A struct array of these fields, in this order.
    ///
    /// # Errors
    ///
    /// [`Error::FieldShapeMismatch`] for a field whose shape is not the first field's, and
    /// the errors of [`StructType::new`] for the struct's data type (no fields, a repeated
    /// name, too deep or too large).
    pub fn new(fields: Vec<(String, DynArray)>) -> Result<Self, Error> {
        let shape = match fields.first() {
            Some((_, first)) => first.shape().to_vec(),
            None => return Err(MetadataError::EmptyStruct.into()),
        };
        if let Some((name, a)) = fields.iter().find(|(_, a)| a.shape() != shape) {
            return Err(Error::FieldShapeMismatch {
                name: name.as_str().into(),
                expected: shape.into(),
                actual: a.shape().into(),
            });
        }
        let array = StructArray { fields, shape };
        array.struct_type()?;
        Ok(array)
    }

    /// The fields, in order: each name and its array.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &DynArray)> {
        self.fields.iter().map(|(name, a)| (name.as_str(), a))
    }

    /// The field of this name, if there is one.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&DynArray> {
        self.fields().find(|(n, _)| *n == name).map(|(_, a)| a)
    }

    /// The fields, taken apart.
    #[must_use]
    pub fn into_fields(self) -> Vec<(String, DynArray)> {
        self.fields
    }

    /// The shape, every field's.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The struct data type of the elements.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        let t = self.struct_type();
        DataType::Struct(t.unwrap_or_else(|_| unreachable!("checked when made")))
    }

    fn struct_type(&self) -> Result<StructType, Error> {
        StructType::new(
            self.fields
                .iter()
                .map(|(name, a)| StructField {
                    name: name.clone(),
                    data_type: a.data_type(),
                })
                .collect(),
        )
    }

    /// The same struct array with every field's axes reordered by a checked permutation
    /// `order`, as [`DynArray::permuted_axes`] does.
    pub(crate) fn permuted_axes(self, order: &[usize]) -> StructArray {
        let fields = self
            .fields
            .into_iter()
            .map(|(name, a)| {
                let a = a.permuted_axes(order);
                (
                    name,
                    a.unwrap_or_else(|_| unreachable!("a permutation of every field")),
                )
            })
            .collect();
        let shape = order.iter().map(|&k| self.shape[k]).collect();
        StructArray { fields, shape }
    }

    /// The fields of a checked `region`, copied.
    pub(crate) fn slice_unchecked(&self, region: &[std::ops::Range<usize>]) -> StructArray {
        let shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
        self.map_fields(|f| f.slice_unchecked(region), &shape)
    }

    /// Overwrite a checked `region` of every field with `from`'s, of the same struct type.
    pub(crate) fn assign_unchecked(
        &mut self,
        region: &[std::ops::Range<usize>],
        from: &StructArray,
    ) {
        for ((_, a), (_, b)) in self.fields.iter_mut().zip(&from.fields) {
            a.assign_unchecked(region, b);
        }
    }

    /// The fields `f` makes of these, of the same data types and of shape `shape`.
    pub(crate) fn map_fields(
        &self,
        f: impl Fn(&DynArray) -> DynArray,
        shape: &[usize],
    ) -> StructArray {
        StructArray {
            fields: self
                .fields
                .iter()
                .map(|(name, a)| (name.clone(), f(a)))
                .collect(),
            shape: shape.to_vec(),
        }
    }

    /// Decode packed records of the struct type `t`.
    pub(crate) fn decode(
        bytes: &[u8],
        t: &StructType,
        shape: &[usize],
        endian: Endian,
    ) -> Result<StructArray, Error> {
        let record = t.size();
        let len = checked_size(shape, record, bytes)?;
        let mut offset = 0;
        let mut arrays = Vec::with_capacity(t.fields().len());
        for field in t.fields() {
            let size = field.data_type.size();
            let mut column = Vec::with_capacity(len * size);
            for element in bytes.chunks_exact(record) {
                column.extend_from_slice(&element[offset..offset + size]);
            }
            let array = DynArray::decode(&column, &field.data_type, shape, endian)
                .map_err(|e| in_record(e, record, offset, size))?;
            arrays.push((field.name.clone(), array));
            offset += size;
        }
        Ok(StructArray {
            fields: arrays,
            shape: shape.to_vec(),
        })
    }

    /// Encode as packed records.
    pub(crate) fn encode(&self, endian: Endian) -> Result<Vec<u8>, Error> {
        let record = self.data_type().size();
        let len = checked_len(&self.shape, record)?;
        let mut out = vec![0u8; len * record];
        let mut offset = 0;
        for (_, array) in &self.fields {
            let column = array.encode(endian)?;
            let size = array.data_type().size();
            for (element, value) in out.chunks_exact_mut(record).zip(column.chunks_exact(size)) {
                element[offset..offset + size].copy_from_slice(value);
            }
            offset += size;
        }
        Ok(out)
    }
}

/// An error at a byte offset of a field's column, moved to its offset in the records.
fn in_record(e: Error, record: usize, offset: usize, size: usize) -> Error {
    let at = |o: usize| o / size * record + offset + o % size;
    match e {
        Error::InvalidBool { offset: o, value } => Error::InvalidBool {
            offset: at(o),
            value,
        },
        Error::InvalidCodeUnit { offset: o, value } => Error::InvalidCodeUnit {
            offset: at(o),
            value,
        },
        other => other,
    }
}
