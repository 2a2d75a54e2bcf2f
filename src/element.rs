//! Element types and their bulk conversions: the one place where types differ.
//!
//! Each element type says which *unit* its memory moves as: a run of words (one for
//! integers and floats, two for complex numbers) or N bytes never swapped (raw bits, pairs
//! of 8-bit minifloats). The traversal, its tiles and kernels are made once per unit
//! ([`Moves`]), so `f32`, `i32` and `u32` run the same machine code. A conversion is a safe
//! cast of the element slice to its unit slice followed by one bulk byte-order call, or a
//! plain copy when the bytes already are in the wanted order. The types whose bytes are
//! checked or converted as they are stored (`bool`, the minifloats in the low bits of a
//! byte) encode as bytes and decode as themselves, the check in the pass that stores them.
//! Runtime-typed arrays of the low-bit minifloats and their pairs move through a copy in
//! units instead (`Convert::COPIED`), so that only typed calls on them make the traversal
//! for them.

use std::num::NonZeroUsize;

use bytemuck::Zeroable;
use ndarray::{ArrayView, ArrayViewMut, Dimension, IxDyn, ShapeBuilder};
use num_complex::Complex;

use crate::DataType;
use crate::arch;
use crate::traverse::{AsUnits, Block, ColumnsMut, Moves, Words, kernels};

/// A fixed-size element type the `bytes` codec can encode.
///
/// Sealed: implemented for `bool`, `i8`, `i16`, `i32`, `i64`, `u8`, `u16`, `u32`, `u64`,
/// [`half::f16`], [`half::bf16`], `f32`, `f64`, `Complex<f32>`, `Complex<f64>`,
/// `Complex<f16>`, `Complex<bf16>`, the [`minifloat`](crate::minifloat) types, their
/// complex pairs (`Complex<Float8E4M3>` and its kin) and `[u8; N]`
/// (the raw bits type `r{8N}`, copied byte for byte whatever the endian).
///
/// # Examples
///
/// ```
/// use zarr_bytes::Element;
///
/// assert_eq!(<f64 as Element>::SIZE, 8);
/// assert_eq!(<num_complex::Complex<f32> as Element>::SIZE, 8);
/// assert_eq!(<[u8; 3] as Element>::SIZE, 3);
/// ```
pub trait Element:
    Copy + Send + Sync + Zeroable + 'static + sealed::Convert<Out: Item, In: Item>
{
    /// Bytes per encoded element.
    const SIZE: usize;
    /// The Zarr data type of this element.
    const DATA_TYPE: DataType;
}

pub(crate) mod sealed {
    use crate::Endian;
    use crate::traverse::{AsUnits, Moves};

    /// What the byte-moving code of the crate is made for: an element type, or a unit that
    /// element types move as (`u32`, `[u32; 2]`, ...); not nameable outside the crate.
    ///
    /// An element's memory moves through the traversal as a *unit* of its bytes: `u32` for
    /// `f32`, `i32` and `u32`, `[u32; 2]` for `Complex<f32>`, `u8` for every 1-byte type,
    /// `[u8; N]` for raw bits. Arrays are handed to the code below the API as arrays of
    /// their units where their memory allows, so every element type of one unit runs the
    /// same machine code ([`Moves`]). A type whose bytes are checked or converted as they
    /// are stored (`bool`, the minifloats in the low bits of a byte) decodes as itself; a
    /// pair of those moves as itself both ways.
    pub trait Item: AsUnits + Copy + Send + Sync + bytemuck::Zeroable + 'static {
        /// Bytes per item, encoded or in memory.
        const BYTES: usize = std::mem::size_of::<Self>();
        /// The items' memory as bytes, when every byte of it is initialised: all types
        /// but the pairs of low-bit minifloats, which are no `Pod`. Implementations are
        /// `#[inline]`: byte tiles call one per column they ask for ahead
        /// (benches/NOTES.md, `src/element.rs`).
        fn as_bytes(items: &[Self]) -> Option<&[u8]>;

        /// Whether the encoded bytes equal the memory bytes in this byte order.
        #[inline]
        fn is_verbatim(endian: Endian) -> bool {
            Self::Out::is_verbatim(endian != Endian::NATIVE)
        }
        /// Encode `src` into `dst`; `dst.len()` is `src.len() * BYTES`.
        #[inline]
        fn write(src: &[Self], endian: Endian, dst: &mut [u8]) {
            Self::Out::write(Self::outs(src), endian != Endian::NATIVE, dst)
        }
        /// Decode `src` into `dst`; `src` has passed [`Item::find_invalid`].
        #[inline]
        fn read(src: &[u8], endian: Endian, dst: &mut [Self]) {
            Self::In::read(src, endian != Endian::NATIVE, Self::ins(dst))
        }
        /// Whether some bytes are no valid encoding of this type (`bool`), so decoding
        /// checks them.
        const CHECKED: bool = <Self::In as Moves>::CHECKED;
        /// The offset and value of the first byte that is no valid encoding, if any.
        fn find_invalid(src: &[u8]) -> Option<(usize, u8)> {
            Self::In::find_invalid(src)
        }
        /// Decode `src` into `dst` as [`Item::read`] does, checking the bytes in the same
        /// pass: `false` if one is no valid encoding, and then `dst` may be partly written.
        fn read_valid(src: &[u8], endian: Endian, dst: &mut [Self]) -> bool {
            Self::In::read_valid(src, endian != Endian::NATIVE, Self::ins(dst))
        }
    }

    /// The conversions behind [`Element`](super::Element) beside those of [`Item`]: casts
    /// of bytes, for views of encoded bytes.
    pub trait Convert: Item {
        /// The bytes as elements without a copy, when they are aligned for `Self`; `bytes`
        /// holds whole, valid encodings in the native byte order.
        fn cast(bytes: &[u8]) -> Option<&[Self]>;
        /// [`Convert::cast`] for exclusive access: whatever is written through the elements
        /// is a valid encoding.
        fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]>;
        /// Whether a runtime-typed array of this type moves through a copy of it in units
        /// ([`Convert::Copied`]): the types that move as themselves in typed calls (the
        /// minifloats in the low bits of a byte when decoded, pairs of them both ways), so
        /// that no runtime-typed call makes the traversal for them.
        const COPIED: bool = false;
        /// The unit of such a copy.
        type Copied: Item;
        /// One element as its unit in such a copy.
        fn copied(self) -> Self::Copied;
        /// One element from its unit in such a copy: the low-bit minifloats clear the high
        /// bits.
        fn from_copied(unit: Self::Copied) -> Self;
    }
}

pub(crate) use sealed::Item;

/// `view` as a view of the units its elements move as when encoded, when its elements are
/// one memory slice (in any order, any strides' signs): every element type of one unit then
/// runs the same code. `Err(view)` otherwise, unchanged. Nothing is allocated for views of
/// up to 4 axes.
pub(crate) fn out_units<A: Item>(
    view: ArrayView<'_, A, IxDyn>,
) -> Result<ArrayView<'_, A::Out, IxDyn>, ArrayView<'_, A, IxDyn>> {
    units_of(view, A::outs)
}

/// `view` as a view of the units its elements are decoded into, as [`out_units`]: what an
/// array of them is copied from, unit by unit.
pub(crate) fn in_units_of<A: Item>(
    view: ArrayView<'_, A, IxDyn>,
) -> Result<ArrayView<'_, A::In, IxDyn>, ArrayView<'_, A, IxDyn>> {
    units_of(view, A::ins_of)
}

/// `view` as a view of what `cast` makes of its memory, as [`out_units`].
fn units_of<'a, A, U>(
    view: ArrayView<'a, A, IxDyn>,
    cast: fn(&'a [A]) -> &'a [U],
) -> Result<ArrayView<'a, U, IxDyn>, ArrayView<'a, A, IxDyn>> {
    let (shape, strides) = (view.raw_dim(), shape_strides(view.strides()));
    let units = view
        .to_slice_memory_order()
        .map(cast)
        .and_then(|units| ArrayView::from_shape(shape.strides(strides), units).ok());
    units.ok_or(view)
}

/// `view` as a view of the units its elements move as when decoded into, as [`out_units`].
pub(crate) fn in_units<A: Item>(
    mut view: ArrayViewMut<'_, A, IxDyn>,
) -> Result<ArrayViewMut<'_, A::In, IxDyn>, ArrayViewMut<'_, A, IxDyn>> {
    if view.as_slice_memory_order_mut().is_none() {
        return Err(view);
    }
    let (shape, strides) = (view.raw_dim(), shape_strides(view.strides()));
    // One slice, as just checked: these conversions cannot come back empty-handed.
    let memory = view.into_slice_memory_order().unwrap_or_default();
    let units = ArrayViewMut::from_shape(shape.strides(strides), A::ins(memory));
    Ok(units.unwrap_or_else(|_| unreachable!("the strides of a slice's view")))
}

/// Strides as ndarray's shape builder takes them: each one's bits in a `usize`, as ndarray
/// keeps them, so that axes stepping backwards (negative strides) stay as they are.
fn shape_strides(strides: &[isize]) -> IxDyn {
    let mut dim = IxDyn::zeros(strides.len());
    for (d, &s) in dim.slice_mut().iter_mut().zip(strides) {
        *d = s as usize;
    }
    dim
}

/// The items of [`sealed::Convert`] for a type whose runtime-typed arrays are not copied
/// (`COPIED` false): the copy, never made, would hold the elements themselves.
macro_rules! not_copied {
    () => {
        type Copied = Self;
        #[inline]
        fn copied(self) -> Self {
            self
        }
        #[inline]
        fn from_copied(unit: Self) -> Self {
            unit
        }
    };
}

/// [`AsUnits`] of a type that moves as itself: its items are its units. The generic
/// parameters of the impl, if any, in brackets first.
macro_rules! as_itself {
    ([$($generics:tt)*] $t:ty) => {
        impl<$($generics)*> AsUnits for $t {
            type Out = Self;
            type In = Self;
            #[inline]
            fn outs(items: &[Self]) -> &[Self] {
                items
            }
            #[inline]
            fn ins(items: &mut [Self]) -> &mut [Self] {
                items
            }
            #[inline]
            fn ins_of(items: &[Self]) -> &[Self] {
                items
            }
            #[inline]
            fn out(self) -> Self {
                self
            }
            #[inline]
            fn from_in(x: Self) -> Self {
                x
            }
            #[inline]
            fn to_in(self) -> Self {
                self
            }
        }
    };
}

/// The multi-word units, which are no element types: the items of their elements only.
macro_rules! unit_item {
    ($($u:ty),*) => {$(
        as_itself!([] $u);
        impl Item for $u {
            #[inline]
            fn as_bytes(items: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(items))
            }
        }
    )*};
}

unit_item!([u16; 2], [u32; 2], [u64; 2]);

/// An element that is a `Pod` run of one word type: it moves as the unit of its words,
/// whose memory it is.
macro_rules! element {
    ($t:ty => $w:ty, $d:ident) => {
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl AsUnits for $t {
            type Out =
                <$w as Words<{ std::mem::size_of::<$t>() / std::mem::size_of::<$w>() }>>::Unit;
            type In = Self::Out;
            #[inline]
            fn outs(elements: &[Self]) -> &[Self::Out] {
                bytemuck::must_cast_slice(elements)
            }
            #[inline]
            fn ins(elements: &mut [Self]) -> &mut [Self::In] {
                bytemuck::must_cast_slice_mut(elements)
            }
            #[inline]
            fn ins_of(elements: &[Self]) -> &[Self::In] {
                bytemuck::must_cast_slice(elements)
            }
            #[inline]
            fn out(self) -> Self::Out {
                bytemuck::must_cast(self)
            }
            #[inline]
            fn from_in(x: Self::In) -> Self {
                bytemuck::must_cast(x)
            }
            #[inline]
            fn to_in(self) -> Self::In {
                bytemuck::must_cast(self)
            }
        }
        impl Item for $t {
            #[inline]
            fn as_bytes(items: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(items))
            }
        }
        impl sealed::Convert for $t {
            #[inline]
            fn cast(bytes: &[u8]) -> Option<&[Self]> {
                bytemuck::try_cast_slice(bytes).ok()
            }
            #[inline]
            fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
                bytemuck::try_cast_slice_mut(bytes).ok()
            }
            not_copied!();
        }
    };
}

/// A minifloat in the low bits of a byte. Its values keep the high bits clear, so encoding
/// is a copy of its byte, as the unit `u8`; decoding clears them, as the type itself. Not
/// `Pod` (a byte with high bits set is no value), so bytes are never cast to it:
/// [`BytesView`](crate::BytesView) declines.
macro_rules! low_bits {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const SIZE: usize = 1;
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl AsUnits for $t {
            type Out = u8;
            type In = Self;
            #[inline]
            fn outs(elements: &[Self]) -> &[u8] {
                bytemuck::must_cast_slice(elements)
            }
            #[inline]
            fn ins(elements: &mut [Self]) -> &mut [Self] {
                elements
            }
            #[inline]
            fn ins_of(elements: &[Self]) -> &[Self] {
                elements
            }
            #[inline]
            fn out(self) -> u8 {
                self.to_bits()
            }
            #[inline]
            fn from_in(x: Self) -> Self {
                x
            }
            #[inline]
            fn to_in(self) -> Self {
                self
            }
        }
        impl Item for $t {
            #[inline]
            fn as_bytes(items: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(items))
            }
        }
        impl sealed::Convert for $t {
            #[inline]
            fn cast(_: &[u8]) -> Option<&[Self]> {
                None
            }
            #[inline]
            fn cast_mut(_: &mut [u8]) -> Option<&mut [Self]> {
                None
            }
            const COPIED: bool = true;
            type Copied = u8;
            #[inline]
            fn copied(self) -> u8 {
                self.to_bits()
            }
            #[inline]
            fn from_copied(unit: u8) -> Self {
                <$t>::from_bits(unit)
            }
        }
        impl Moves for $t {
            fn is_verbatim(_: bool) -> bool {
                true
            }
            fn write(src: &[Self], _: bool, dst: &mut [u8]) {
                dst.copy_from_slice(bytemuck::must_cast_slice(src))
            }
            fn read(src: &[u8], _: bool, dst: &mut [Self]) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = <$t>::from_bits(s);
                }
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                self
            }
            const FROM_BYTES: bool = true;
            fn scatter_encoded<M: ColumnsMut<Self> + ?Sized>(
                scratch: &[u8],
                block: &Block,
                memory: &mut M,
            ) -> bool {
                // Every byte is a value: its high bits are cleared.
                kernels::scatter_bytes::<_, _, false>(scratch, block, memory, <$t>::from_bits);
                true
            }
        }
    };
}

/// A complex number of two minifloats in the low bits of a byte each: real, then
/// imaginary. Encoding writes their codes; decoding clears the high bits of each byte. Not
/// `Pod`, so it moves as itself, one element at a time, and is never viewed.
macro_rules! complex_low_bits {
    ($t:ty, $d:ident) => {
        impl Element for Complex<$t> {
            const SIZE: usize = 2;
            const DATA_TYPE: DataType = DataType::$d;
        }
        as_itself!([] Complex<$t>);
        impl Item for Complex<$t> {
            #[inline]
            fn as_bytes(_: &[Self]) -> Option<&[u8]> {
                None
            }
        }
        impl sealed::Convert for Complex<$t> {
            #[inline]
            fn cast(_: &[u8]) -> Option<&[Self]> {
                None
            }
            #[inline]
            fn cast_mut(_: &mut [u8]) -> Option<&mut [Self]> {
                None
            }
            const COPIED: bool = true;
            type Copied = [u8; 2];
            #[inline]
            fn copied(self) -> [u8; 2] {
                [self.re.to_bits(), self.im.to_bits()]
            }
            #[inline]
            fn from_copied(unit: [u8; 2]) -> Self {
                Complex::new(<$t>::from_bits(unit[0]), <$t>::from_bits(unit[1]))
            }
        }
        impl Moves for Complex<$t> {
            fn is_verbatim(_: bool) -> bool {
                true
            }
            fn write(src: &[Self], _: bool, dst: &mut [u8]) {
                for (d, x) in dst.chunks_exact_mut(2).zip(src) {
                    d.copy_from_slice(&[x.re.to_bits(), x.im.to_bits()]);
                }
            }
            fn read(src: &[u8], _: bool, dst: &mut [Self]) {
                for (d, s) in dst.iter_mut().zip(src.chunks_exact(2)) {
                    *d = Complex::new(<$t>::from_bits(s[0]), <$t>::from_bits(s[1]));
                }
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                self
            }
        }
    };
}

/// The [`Element`] of each row of the data type table, made by its conversion column:
/// a run of words, a minifloat in the low bits of a byte, or a pair of them. `bool`
/// (checked bytes) and the narrow integers (values of `i8` and `u8`, [`Narrow`]) are
/// written out below.
macro_rules! elements {
    ($($variant:ident $name:literal ($($element:tt)*) $size:literal $endian:ident $fill:ident [$($conversion:tt)*] $doc:literal;)*) => {
        $(conversion!([$($conversion)*] ($($element)*) $variant);)*
    };
}

/// One row of [`elements`].
macro_rules! conversion {
    ([word $w:ty] ($t:ty) $d:ident) => {
        element!($t => $w, $d);
    };
    ([low_bits] ($t:ty) $d:ident) => {
        low_bits!($t, $d);
    };
    ([complex_low_bits] (num_complex::Complex<$m:ty>) $d:ident) => {
        complex_low_bits!($m, $d);
    };
    ([bool] $($row:tt)*) => {};
    ([narrow] $($row:tt)*) => {};
}

fixed_types!(elements);

/// Integers held in the low bits of a byte (`int2`, `int4` as `i8`; `uint2`, `uint4` as
/// `u8`): what a stored byte means. A value fits when it is its own widening, and is stored
/// as its low bits.
pub(crate) trait Narrow: Element + PartialEq + Into<i64> {
    /// The value of the low `bits` bits of `x`: sign-extended, or masked.
    fn widen(x: Self, bits: u32) -> Self;
}

impl Narrow for i8 {
    fn widen(x: i8, bits: u32) -> i8 {
        (x << (8 - bits)) >> (8 - bits)
    }
}

impl Narrow for u8 {
    fn widen(x: u8, bits: u32) -> u8 {
        x & (0xff >> (8 - bits))
    }
}

/// Raw bits `r{8N}`: N bytes copied as they are, a unit of their own.
impl<const N: usize> Element for [u8; N] {
    const SIZE: usize = {
        assert!(N > 0, "a raw bits type has at least 8 bits");
        N
    };
    const DATA_TYPE: DataType = match NonZeroUsize::new(N) {
        Some(bytes) => DataType::RawBits { bytes },
        None => panic!("a raw bits type has at least 8 bits"),
    };
}

as_itself!([const N: usize] [u8; N]);
impl<const N: usize> Item for [u8; N] {
    #[inline]
    fn as_bytes(items: &[Self]) -> Option<&[u8]> {
        Some(items.as_flattened())
    }
}
impl<const N: usize> sealed::Convert for [u8; N] {
    #[inline]
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::try_cast_slice(bytes).ok()
    }
    #[inline]
    fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
        bytemuck::try_cast_slice_mut(bytes).ok()
    }
    not_copied!();
}

/// `bool`: one byte, 0x00 or 0x01; anything else is rejected on decode. It encodes as the
/// unit `u8`, and decodes as itself, each byte checked as it is stored.
impl Element for bool {
    const SIZE: usize = 1;
    const DATA_TYPE: DataType = DataType::Bool;
}

/// Whether bytes whose OR is `or` are all encodings of `bool`: every byte is 0 or 1 when
/// their OR is. An OR has no branch, so the checks that take one run in vector registers.
#[inline(always)]
fn all_bools(or: u8) -> bool {
    or <= 1
}

impl AsUnits for bool {
    type Out = u8;
    type In = Self;
    #[inline]
    fn outs(elements: &[Self]) -> &[u8] {
        bytemuck::must_cast_slice(elements)
    }
    #[inline]
    fn ins(elements: &mut [Self]) -> &mut [Self] {
        elements
    }
    #[inline]
    fn ins_of(elements: &[Self]) -> &[Self] {
        elements
    }
    #[inline]
    fn out(self) -> u8 {
        self as u8
    }
    #[inline]
    fn from_in(x: Self) -> Self {
        x
    }
    #[inline]
    fn to_in(self) -> Self {
        self
    }
}
impl Item for bool {
    #[inline]
    fn as_bytes(items: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(items))
    }
}
impl sealed::Convert for bool {
    #[inline]
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::checked::try_cast_slice(bytes).ok()
    }
    #[inline]
    fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
        bytemuck::checked::try_cast_slice_mut(bytes).ok()
    }
    not_copied!();
}

impl Moves for bool {
    fn is_verbatim(_: bool) -> bool {
        true
    }
    fn write(src: &[Self], _: bool, dst: &mut [u8]) {
        dst.copy_from_slice(bytemuck::must_cast_slice(src))
    }
    fn read(src: &[u8], _: bool, dst: &mut [Self]) {
        for (i, (d, s)) in dst.chunks_mut(64).zip(src.chunks(64)).enumerate() {
            arch::request_ahead(src, i * 64);
            for (d, &s) in d.iter_mut().zip(s) {
                *d = s != 0;
            }
        }
    }
    #[inline(always)]
    fn swapped(self) -> Self {
        self
    }
    const CHECKED: bool = true;
    const FROM_BYTES: bool = true;
    fn scatter_encoded<M: ColumnsMut<Self> + ?Sized>(
        scratch: &[u8],
        block: &Block,
        memory: &mut M,
    ) -> bool {
        // Checked in the registers they are stored from, so no byte is read twice: the
        // scatter gives the OR of all it moved. `x & 1` stores a valid byte as it is.
        all_bools(kernels::scatter_bytes::<_, _, true>(
            scratch,
            block,
            memory,
            |x| x & 1 != 0,
        ))
    }
    fn read_valid(src: &[u8], _: bool, dst: &mut [Self]) -> bool {
        let mut seen = 0u8;
        for (d, &s) in dst.iter_mut().zip(src) {
            seen |= s;
            *d = s != 0;
        }
        all_bools(seen)
    }
    fn find_invalid(src: &[u8]) -> Option<(usize, u8)> {
        // One branch-free pass in the common case; locate the byte only on failure.
        if all_bools(src.iter().fold(0u8, |acc, &b| acc | b)) {
            return None;
        }
        src.iter()
            .enumerate()
            .find(|&(_, &b)| b > 1)
            .map(|(i, &b)| (i, b))
    }
}

#[cfg(test)]
mod tests {
    //! The map from element types to units and checks, against the codec's definition:
    //! each element's components in turn, each in the byte order asked.

    use half::{bf16, f16};
    use ndarray::{ArrayD, Axis, IxDyn, ShapeBuilder, Slice};
    use num_complex::Complex;

    use super::{Element, Item, Narrow, in_units, in_units_of, out_units};
    use crate::Endian;
    use crate::minifloat::{Float4E2M1FN, Float8E4M3, Float8E5M2};
    use crate::traverse::{AsUnits, Moves};

    /// `count` elements of `A` from deterministic bytes: their memory, and what each
    /// encodes to in `endian`, components of `word` bytes reversed for big endian on this
    /// little-endian reading (the bytes are the memory of the native order).
    fn elements<A: Element + bytemuck::Pod>(count: usize) -> Vec<A> {
        let bytes: Vec<u8> = (0..count * A::SIZE).map(|i| (i * 37 + 11) as u8).collect();
        bytemuck::pod_collect_to_vec(&bytes)
    }

    fn encoded<A: Element>(values: &[A], word: usize, endian: Endian) -> Vec<u8> {
        let memory = A::as_bytes(values).unwrap().to_vec();
        memory
            .chunks(word)
            .flat_map(|w| {
                let mut w = w.to_vec();
                if endian != Endian::NATIVE {
                    w.reverse();
                }
                w
            })
            .collect()
    }

    /// Encoding and decoding through the unit against the definition, both orders, and the
    /// unit's size and swap.
    fn check<A: Element + bytemuck::Pod>(word: usize) {
        let values = elements::<A>(33);
        for endian in [Endian::Little, Endian::Big] {
            let want = encoded(&values, word, endian);
            let mut got = vec![0u8; want.len()];
            <A as Item>::write(&values, endian, &mut got);
            assert_eq!(got, want, "{} {endian}", std::any::type_name::<A>());
            let mut back = vec![A::zeroed(); values.len()];
            <A as Item>::read(&want, endian, &mut back);
            // Bytes, not values: NaNs among the floats compare unequal to themselves.
            assert_eq!(A::as_bytes(&back), A::as_bytes(&values));
            let mut back = vec![A::zeroed(); values.len()];
            assert!(<A as Item>::read_valid(&want, endian, &mut back));
            assert_eq!(
                A::as_bytes(&back),
                A::as_bytes(&values),
                "read_valid {endian}"
            );
            assert_eq!(
                <A as Item>::is_verbatim(endian),
                word == 1 || endian == Endian::NATIVE
            );
            // The unit holds the same bytes, and one element converts as the slice does.
            assert_eq!(
                <A::Out as Item>::as_bytes(A::outs(&values)),
                A::as_bytes(&values)
            );
            assert_eq!(
                <A::In as Item>::as_bytes(A::ins_of(&values)),
                A::as_bytes(&values)
            );
            let x = values[5];
            assert_eq!(A::as_bytes(&[A::from_in(x.to_in())]), A::as_bytes(&[x]));
            assert_eq!(<A::Out as Item>::as_bytes(&[x.out()]), A::as_bytes(&[x]));
            let swapped = x.out().swapped();
            let mut w = vec![0u8; A::SIZE];
            <A::Out as Moves>::write(&[swapped], false, &mut w);
            let other = if Endian::NATIVE == Endian::Little {
                Endian::Big
            } else {
                Endian::Little
            };
            assert_eq!(w, encoded(&[x], word, other), "swapped");
        }
        assert_eq!(<A as Item>::BYTES, A::SIZE);
        assert_eq!(std::mem::size_of::<A::Out>(), A::SIZE);
    }

    #[test]
    fn element_types_move_as_their_units() {
        check::<u8>(1);
        check::<i8>(1);
        check::<u16>(2);
        check::<i16>(2);
        check::<f16>(2);
        check::<bf16>(2);
        check::<u32>(4);
        check::<i32>(4);
        check::<f32>(4);
        check::<u64>(8);
        check::<i64>(8);
        check::<f64>(8);
        check::<Complex<f16>>(2);
        check::<Complex<bf16>>(2);
        check::<Complex<f32>>(4);
        check::<Complex<f64>>(8);
        check::<Float8E4M3>(1);
        check::<Complex<Float8E5M2>>(1);
        check::<[u8; 3]>(1);
        check::<[u8; 2]>(1);
    }

    #[test]
    fn checked_and_low_bit_types_decode_as_themselves() {
        // bool: bytes 0 and 1 only, the first other one named.
        let mut b = [false; 4];
        const { assert!(<bool as Item>::CHECKED && !<f32 as Item>::CHECKED) };
        assert!(<bool as Item>::read_valid(
            &[1, 0, 1, 0],
            Endian::Big,
            &mut b
        ));
        assert_eq!(b, [true, false, true, false]);
        assert!(!<bool as Item>::read_valid(
            &[1, 0, 2, 0],
            Endian::Big,
            &mut b
        ));
        assert_eq!(<bool as Item>::find_invalid(&[1, 0, 7, 9]), Some((2, 7)));
        assert_eq!(<bool as Item>::find_invalid(&[1, 0, 1]), None);
        // Two bad bytes whose bits cancel out are still found.
        assert_eq!(<bool as Item>::find_invalid(&[0, 2, 2]), Some((1, 2)));
        // Decoded as itself, byte by byte, past the steps it asks ahead in; copied out.
        let bytes: Vec<u8> = (0..150).map(|i| u8::from(i % 3 == 0)).collect();
        let mut flags = vec![false; 150];
        <bool as Moves>::read(&bytes, false, &mut flags);
        assert!(flags.iter().enumerate().all(|(i, &f)| f == (i % 3 == 0)));
        assert_eq!(<bool as Item>::as_bytes(&flags), Some(&bytes[..]));
        assert_eq!(bool::ins_of(&flags), &flags[..]);
        let mut out = vec![9u8; 150];
        <bool as Moves>::write(&flags, true, &mut out);
        assert_eq!(out, bytes);
        assert!(<bool as Moves>::is_verbatim(true) && <bool as Moves>::is_verbatim(false));
        assert!(true.swapped() && !false.swapped());
        // Bytes are cast to `bool` only where every one is 0 or 1.
        use super::sealed::Convert;
        assert_eq!(bool::cast(&[1, 0, 1]), Some(&[true, false, true][..]));
        assert_eq!(bool::cast(&[1, 2]), None);
        let mut raw = [0u8, 1];
        assert_eq!(
            bool::cast_mut(&mut raw).map(|b| b.to_vec()),
            Some(vec![false, true])
        );
        assert!(bool::cast_mut(&mut [3u8]).is_none());
        // Raw bits are cast in whole elements.
        let six = [1u8, 2, 3, 4, 5, 6];
        assert_eq!(<[u8; 3]>::cast(&six), Some(&[[1, 2, 3], [4, 5, 6]][..]));
        let mut six = six;
        let cast = <[u8; 2]>::cast_mut(&mut six).map(|e| e.to_vec());
        assert_eq!(cast, Some(vec![[1, 2], [3, 4], [5, 6]]));
        let mut out = [9u8; 3];
        <bool as Item>::write(&[true, false, true], Endian::Big, &mut out);
        assert_eq!(out, [1, 0, 1]);
        assert_eq!((true.out(), false.out()), (1, 0));
        assert!(true.to_in() && bool::from_in(true));
        // A low-bit minifloat keeps its low bits on decoding, encodes its code.
        let mut f = [Float4E2M1FN::from_bits(0); 2];
        <Float4E2M1FN as Item>::read(&[0xf3, 0x0c], Endian::Little, &mut f);
        assert_eq!(f.map(Float4E2M1FN::to_bits), [0x03, 0x0c]);
        let mut out = [0u8; 2];
        <Float4E2M1FN as Item>::write(&f, Endian::Big, &mut out);
        assert_eq!(out, [0x03, 0x0c]);
        assert_eq!(Float4E2M1FN::from_bits(5).out(), 5);
        // A pair of them: real, then imaginary, each cleared.
        let mut c = [Complex::new(
            Float4E2M1FN::from_bits(0),
            Float4E2M1FN::from_bits(0),
        )];
        <Complex<Float4E2M1FN> as Item>::read(&[0x71, 0x12], Endian::Big, &mut c);
        assert_eq!((c[0].re.to_bits(), c[0].im.to_bits()), (0x01, 0x02));
        let mut out = [0u8; 2];
        <Complex<Float4E2M1FN> as Item>::write(&c, Endian::Big, &mut out);
        assert_eq!(out, [0x01, 0x02]);
        assert_eq!(<Complex<Float4E2M1FN> as Item>::as_bytes(&c), None);
        // Runtime-typed arrays of both move through a copy in units, converted one by one.
        const { assert!(Float4E2M1FN::COPIED && Complex::<Float4E2M1FN>::COPIED) };
        const { assert!(!f32::COPIED && !bool::COPIED && !<[u8; 2]>::COPIED) };
        const { assert!(!Complex::<Float8E5M2>::COPIED && !Float8E4M3::COPIED) };
        assert_eq!(Float4E2M1FN::from_copied(0xf9).to_bits(), 0x09);
        assert_eq!(Float4E2M1FN::from_bits(0x0b).copied(), 0x0b);
        let x = Complex::<Float4E2M1FN>::from_copied([0xe5, 0x3a]);
        assert_eq!((x.re.to_bits(), x.im.to_bits()), (0x05, 0x0a));
        assert_eq!(x.copied(), [0x05, 0x0a]);
        // Other types are never copied: the copy would hold the elements themselves.
        assert_eq!((1.5f32.copied(), f32::from_copied(2.5)), (1.5, 2.5));
        assert!(true.copied() && bool::from_copied(true) && !false.copied());
        // Sub-byte integers: their low bits, sign-extended or masked.
        assert_eq!(
            (Narrow::widen(0x0fu8, 2), Narrow::widen(0x07i8, 3)),
            (3, -1)
        );
        assert_eq!(
            (Narrow::widen(0x05i8, 4), Narrow::widen(0x1bu8, 4)),
            (5, 11)
        );
    }

    /// Views of elements as views of units: one memory slice in any order, backwards
    /// axes too, and the same elements where; views with gaps back as they were.
    #[test]
    fn views_of_one_slice_become_views_of_units() {
        let a = ArrayD::from_shape_fn(IxDyn(&[3, 4, 5]), |i| {
            (i[0] * 100 + i[1] * 10 + i[2]) as f32
        });
        let f =
            ArrayD::from_shape_vec(IxDyn(&[3, 4, 5]).f(), a.t().iter().copied().collect()).unwrap();
        let bits =
            |v: &ndarray::ArrayViewD<'_, f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut reversed = a.view();
        reversed.invert_axis(Axis(1));
        reversed.invert_axis(Axis(2));
        let permuted = a.view().permuted_axes(vec![2, 0, 1]);
        for view in [
            a.view(),
            f.view(),
            reversed,
            permuted,
            a.view().into_shape_with_order(IxDyn(&[60])).unwrap(),
        ] {
            let want = bits(&view);
            let units = out_units(view.clone()).unwrap_or_else(|_| panic!("one slice"));
            assert_eq!(units.shape(), view.shape());
            assert_eq!(units.strides(), view.strides());
            assert_eq!(units.iter().copied().collect::<Vec<u32>>(), want);
        }
        let gapped = a.slice_axis(Axis(1), Slice::from(1..3));
        assert!(out_units(gapped.clone()).is_err_and(|v| v == gapped));
        let stepped = a.slice_axis(Axis(2), Slice::new(0, None, 2));
        let back = out_units(stepped.clone()).unwrap_err();
        assert_eq!(
            (back.strides(), bits(&back)),
            (stepped.strides(), bits(&stepped))
        );
        // Mutable: written through the units, read as elements.
        let mut m = a.clone();
        let mut view = m.view_mut();
        view.invert_axis(Axis(0));
        let mut units = in_units(view).unwrap_or_else(|_| panic!("one slice"));
        units[[0, 0, 0]] = 1.5f32.to_bits();
        assert_eq!(m[[2, 0, 0]], 1.5);
        let mut n = a.clone();
        let gaps = n.slice_axis_mut(Axis(2), Slice::from(0..2));
        let back = in_units(gaps).unwrap_err();
        assert_eq!(back.shape(), &[3, 4, 2]);
        // More than 64 axes, one stepping backwards far along: converted all the same.
        let mut shape = vec![1; 66];
        (shape[1], shape[65]) = (2, 2);
        let mut wide = ArrayD::from_shape_fn(IxDyn(&shape), |i| (i[1] * 2 + i[65]) as u16);
        let mut late = wide.view();
        late.invert_axis(Axis(65));
        let units = out_units(late.clone()).unwrap_or_else(|_| panic!("one slice"));
        assert_eq!(units.iter().copied().collect::<Vec<u16>>(), [1, 0, 3, 2]);
        assert!(in_units_of(late).is_ok());
        let mut late = wide.view_mut();
        late.invert_axis(Axis(65));
        in_units(late).unwrap_or_else(|_| panic!("one slice"))[[0; 66]] = 9;
        let mut at = vec![0; 66];
        at[65] = 1;
        assert_eq!(wide[IxDyn(&at)], 9);
        // A 0-d view and an empty one.
        let scalar = ndarray::arr0(2.5f64).into_dyn();
        assert_eq!(out_units(scalar.view()).unwrap()[[]], 2.5f64.to_bits());
        let empty = ArrayD::<u16>::zeros(IxDyn(&[0, 3]));
        assert_eq!(out_units(empty.view()).unwrap().shape(), &[0, 3]);
    }
}
