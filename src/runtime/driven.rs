//! The reader and writer the caller drives, for arrays whose data type is known only at run
//! time: an element array goes through the typed reader's and writer's parts, cut out of
//! the owner once; text, structs and elements that move through a copy are pasted, each
//! part decoded or encoded on its own.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use ndarray::{ArrayViewD, ArrayViewMutD};

use crate::element::Item;
use crate::runtime::chunks::{ElementsInto, ElementsOf, Kind, Pasting};
#[cfg(feature = "async")]
use crate::typed::grid::concurrent;
use crate::typed::grid::engine::{Before, Decoder};
use crate::typed::grid::part::fill_elements;
use crate::typed::grid::parts::{ChunkPart, Plan, Slots};
use crate::typed::grid::reader::{Parts, Puts, Reader};
use crate::typed::grid::sink::in_chunk;
use crate::typed::grid::subset::Subset;
use crate::typed::grid::writer::{Encodes, Sources, Writer};
use crate::{ChunkGrid, DynArray, DynArrayView, DynArrayViewMut, Endian, Error};

/// [`SubsetReader`](crate::SubsetReader) for an array whose data type is known only at run
/// time: made by [`BytesCodec::subset_reader_dyn`](crate::BytesCodec::subset_reader_dyn)
/// from `zarr.json`'s terms, for every data type.
///
/// Parts of an element type are decoded into their place at once from several threads;
/// those of text, structs and the minifloats in the low bits of a byte are decoded each on
/// its own, then pasted into the array one at a time.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use zarr_bytes::{BytesCodec, ChunkGrid, DataType, Endian};
///
/// let codec = BytesCodec::new(Endian::Big);
/// let grid = ChunkGrid::new(&[6], &[4])?;
/// let mut a = codec.full_dyn(&DataType::Int16, &[4], &json!(0))?;
/// let reader = codec.subset_reader_dyn(&mut a, &grid, &[1], &json!(-1))?;
/// reader.put(&[0], Some(&[0, 1, 0, 2, 0, 3, 0, 4]))?;
/// reader.put(&[1], None)?;
/// reader.finish()?;
/// assert_eq!(a, codec.decode_dyn(&[0, 2, 0, 3, 0, 4, 0xff, 0xff], &DataType::Int16, &[4])?);
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub struct DynSubsetReader<'a> {
    reader: Reader<'a>,
}

impl<'a> DynSubsetReader<'a> {
    /// The reader of checked `subset` into `view`, of its shape, which holds `before`.
    pub(crate) fn new(
        view: DynArrayViewMut<'a>,
        subset: &Subset<'_>,
        fill: &DynArray,
        endian: Endian,
        before: Before,
    ) -> Result<Self, Error> {
        let data_type = view.data_type();
        let plan = Plan::new(subset, data_type.size());
        let puts: Box<dyn Puts + 'a> = if view.keeps() {
            let fill = fill.encode(endian)?;
            let make = MakeParts {
                subset,
                fill: &fill,
                endian,
                before,
            };
            match view.into_elements(make) {
                Some(parts) => parts?,
                None => unreachable!("a view that keeps its element array hands it over"),
            }
        } else {
            let pasting = Pasting::new(subset.clone().into_owned(), data_type, fill, endian)?;
            Box::new(Pasted {
                slots: Slots::new(subset.len(), |_| Some(())),
                view: Mutex::new(view),
                pasting,
            })
        };
        Ok(DynSubsetReader {
            reader: Reader { plan, puts },
        })
    }

    /// As [`SubsetReader::parts`](crate::SubsetReader::parts).
    pub fn parts(&self) -> impl Iterator<Item = ChunkPart> + '_ {
        self.reader.plan.parts()
    }

    /// As [`SubsetReader::byte_ranges`](crate::SubsetReader::byte_ranges).
    ///
    /// # Errors
    ///
    /// As [`SubsetReader::byte_ranges`](crate::SubsetReader::byte_ranges).
    pub fn byte_ranges(&self, index: &[usize]) -> Result<Vec<Range<usize>>, Error> {
        self.reader.plan.byte_ranges(index)
    }

    /// As [`SubsetReader::put`](crate::SubsetReader::put).
    ///
    /// # Errors
    ///
    /// As [`SubsetReader::put`](crate::SubsetReader::put), and a chunk's error of its data
    /// type ([`Error::InvalidCodeUnit`] for text) as [`Error::InChunk`].
    pub fn put(&self, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error> {
        self.reader.put(index, chunk)
    }

    /// As [`SubsetReader::put_part`](crate::SubsetReader::put_part).
    ///
    /// # Errors
    ///
    /// As [`put`](Self::put), the length being the part's.
    pub fn put_part(&self, index: &[usize], bytes: &[u8]) -> Result<(), Error> {
        self.reader.put_part(index, bytes)
    }

    /// As [`SubsetReader::finish`](crate::SubsetReader::finish).
    ///
    /// # Errors
    ///
    /// [`Error::NotPut`] naming the first part, in C order, that was not put.
    pub fn finish(self) -> Result<(), Error> {
        self.reader.finish()
    }

    /// Every part put from `fetch`, up to `in_flight` pending, then finished.
    #[cfg(feature = "async")]
    pub(crate) async fn drive<E, F, Fut, B>(self, in_flight: usize, fetch: F) -> Result<(), E>
    where
        E: From<Error>,
        B: AsRef<[u8]>,
        F: Fn(Vec<usize>) -> Fut,
        Fut: std::future::Future<Output = Result<Option<B>, E>>,
    {
        let put = |index: &[usize], chunk: Option<&[u8]>| self.put(index, chunk);
        concurrent::read(self.parts(), in_flight, fetch, put).await?;
        Ok(self.finish()?)
    }
}

impl std::fmt::Debug for DynSubsetReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reader.plan.describe("DynSubsetReader", f)
    }
}

/// [`SubsetWriter`](crate::SubsetWriter) for an array whose data type is known only at run
/// time: made by [`BytesCodec::subset_writer_dyn`](crate::BytesCodec::subset_writer_dyn)
/// from `zarr.json`'s terms, for every data type.
///
/// # Examples
///
/// ```
/// use ndarray::array;
/// use serde_json::json;
/// use zarr_bytes::{BytesCodec, ChunkGrid, DynArray, Endian};
///
/// let codec = BytesCodec::new(Endian::Big);
/// let grid = ChunkGrid::new(&[6], &[4])?;
/// let x = DynArray::from(array![5i16, 6].into_dyn());
/// let writer = codec.subset_writer_dyn(&x, &grid, &[3], &json!(-1))?;
/// let mut stored = vec![0, 1, 0, 2, 0, 3, 0, 4]; // chunk [0], covered in part
/// assert!(!writer.update(&[0], &mut stored)?);
/// assert_eq!(stored, [0, 1, 0, 2, 0, 3, 0, 5]);
/// // Chunk [1] is not stored: made from the subset and the fill value.
/// assert_eq!(writer.encode(&[1])?, Some(vec![0, 6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
/// # Ok::<(), zarr_bytes::Error>(())
/// ```
pub struct DynSubsetWriter<'a> {
    writer: Writer<'a>,
}

impl<'a> DynSubsetWriter<'a> {
    /// The writer of `array`, of checked `subset`'s shape, into it.
    pub(crate) fn new(
        array: DynArrayView<'a>,
        subset: &Subset<'_>,
        fill: &DynArray,
        endian: Endian,
    ) -> Result<Self, Error> {
        let data_type = array.data_type();
        let plan = Plan::new(subset, data_type.size());
        let fill_bytes = fill.encode(endian)?;
        let make = MakeSources {
            subset,
            fill: &fill_bytes,
            endian,
        };
        let encodes: Box<dyn Encodes + 'a> = match array.elements_of(make) {
            Ok(sources) => sources?,
            Err(_) => {
                let pasting = Pasting::new(subset.clone().into_owned(), data_type, fill, endian)?;
                Box::new(PastedFrom { pasting, array })
            }
        };
        Ok(DynSubsetWriter {
            writer: Writer { plan, encodes },
        })
    }

    /// As [`SubsetWriter::parts`](crate::SubsetWriter::parts).
    pub fn parts(&self) -> impl Iterator<Item = ChunkPart> + '_ {
        self.writer.plan.parts()
    }

    /// As [`SubsetWriter::encode`](crate::SubsetWriter::encode).
    ///
    /// # Errors
    ///
    /// As [`SubsetWriter::encode`](crate::SubsetWriter::encode), and a part's error of its
    /// data type ([`Error::TooLong`] for text) as [`Error::InChunk`].
    pub fn encode(&self, index: &[usize]) -> Result<Option<Vec<u8>>, Error> {
        self.writer.encode(index)
    }

    /// As [`SubsetWriter::update`](crate::SubsetWriter::update).
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode), and [`Error::InChunk`] holding
    /// [`Error::LengthMismatch`] for a buffer of another length than a chunk's.
    pub fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error> {
        self.writer.update(index, stored)
    }

    /// As [`SubsetWriter::encode_into`](crate::SubsetWriter::encode_into).
    ///
    /// # Errors
    ///
    /// As [`update`](Self::update).
    pub fn encode_into(&self, index: &[usize], out: &mut [u8]) -> Result<bool, Error> {
        self.writer.encode_into(index, out)
    }

    /// Every part stored through `stored` and `sink`, up to `in_flight` under way.
    #[cfg(feature = "async")]
    pub(crate) async fn drive<E, R, RF, K, KF>(
        self,
        in_flight: usize,
        stored: R,
        sink: K,
    ) -> Result<(), E>
    where
        E: From<Error>,
        R: Fn(Vec<usize>) -> RF,
        RF: std::future::Future<Output = Result<Option<Vec<u8>>, E>>,
        K: Fn(Vec<usize>, Option<Vec<u8>>) -> KF,
        KF: std::future::Future<Output = Result<(), E>>,
    {
        let (encode, update) = (
            |i: &[usize]| self.encode(i),
            |i: &[usize], b: &mut [u8]| self.update(i, b),
        );
        concurrent::write(self.parts(), in_flight, stored, sink, encode, update).await
    }
}

impl std::fmt::Debug for DynSubsetWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.writer.plan.describe("DynSubsetWriter", f)
    }
}

/// The subset of a variant's array, owned: for raw elements, with the axis of their bytes
/// whole, in one chunk of a grid that has that axis too.
fn owned_subset<A>(
    kind: &Kind<A>,
    subset: &Subset<'_>,
    shape: &[usize],
) -> Result<Subset<'static>, Error> {
    let (Kind::Records, Some(&n)) = (kind, shape.last()) else {
        return Ok(subset.clone().into_owned());
    };
    let grid = subset.grid();
    let mut array = grid.array_shape().to_vec();
    let mut chunk = grid.chunk_shape().to_vec();
    array.push(n);
    chunk.push(n);
    let grid = ChunkGrid::new(&array, &chunk)?;
    Ok(subset.with_axis(&grid, n).into_owned())
}

/// An element array cut into the parts of a reader.
struct MakeParts<'s> {
    subset: &'s Subset<'s>,
    fill: &'s [u8],
    endian: Endian,
    before: Before,
}

impl<'a> ElementsInto<'a> for MakeParts<'_> {
    type Out = Result<Box<dyn Puts + 'a>, Error>;

    fn visit<A: Item>(self, a: ArrayViewMutD<'a, A>, kind: Kind<A>) -> Self::Out {
        let subset = owned_subset(&kind, self.subset, a.shape())?;
        let fill = Cow::Owned(fill_elements(&kind, self.fill, self.endian));
        let decoder = Decoder::new(Cow::Owned(subset), kind, fill, self.endian, self.before)?;
        Ok(Box::new(Parts::new(a, decoder)))
    }
}

/// An element array as what a writer encodes from.
struct MakeSources<'s> {
    subset: &'s Subset<'s>,
    fill: &'s [u8],
    endian: Endian,
}

impl<'a> ElementsOf<'a> for MakeSources<'_> {
    type Out = Result<Box<dyn Encodes + 'a>, Error>;

    fn visit<A: Item>(self, a: ArrayViewD<'a, A>, kind: Kind<A>) -> Self::Out {
        let subset = owned_subset(&kind, self.subset, a.shape())?;
        let sources = Sources::new(a.into(), subset, kind, self.fill, self.endian)?;
        Ok(Box::new(sources))
    }
}

/// A reader's parts pasted into one array behind a lock.
struct Pasted<'a> {
    view: Mutex<DynArrayViewMut<'a>>,
    slots: Slots<()>,
    pasting: Pasting<'static>,
}

impl<'a> Pasted<'a> {
    /// The array, whatever a panic elsewhere left it as.
    fn view(&self) -> MutexGuard<'_, DynArrayViewMut<'a>> {
        self.view.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Puts for Pasted<'_> {
    fn put(&self, position: usize, index: &[usize], chunk: Option<&[u8]>) -> Result<(), Error> {
        self.slots.put(position, index, |()| {
            self.pasting.put(&mut self.view(), index, chunk)
        })
    }

    fn put_part(&self, position: usize, index: &[usize], bytes: &[u8]) -> Result<(), Error> {
        self.slots.put(position, index, |()| {
            self.pasting.put_part(&mut self.view(), index, bytes)
        })
    }

    fn waiting(&self) -> Option<usize> {
        self.slots.waiting()
    }
}

/// A writer's array whose parts are pasted as their bytes.
struct PastedFrom<'a> {
    pasting: Pasting<'static>,
    array: DynArrayView<'a>,
}

impl Encodes for PastedFrom<'_> {
    fn len(&self) -> usize {
        self.pasting.len
    }

    fn fills(&self, index: &[usize]) -> Result<bool, Error> {
        let meet = self.pasting.subset.meet(index);
        Ok(self.pasting.fills(&self.array.slice_region(&meet.within)?))
    }

    fn make(&self, index: &[usize], out: &mut [u8]) -> Result<(), Error> {
        let meet = self.pasting.subset.meet(index);
        let part = self.array.slice_region(&meet.within)?;
        let made = self.pasting.make(&meet, &part, out);
        made.map_err(|e| in_chunk(index, e))
    }

    fn update(&self, index: &[usize], stored: &mut [u8]) -> Result<bool, Error> {
        let meet = self.pasting.subset.meet(index);
        let part = self.array.slice_region(&meet.within)?;
        let updated = self.pasting.update(&meet, &part, stored);
        updated.map_err(|e| in_chunk(index, e))
    }
}
