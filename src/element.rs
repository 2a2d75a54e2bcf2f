//! Element types and their bulk conversions: the one place where types differ.
//!
//! Each element is a run of components (one for integers and floats, two for complex
//! numbers, N bytes for raw bits); a conversion is a safe cast of the element slice to its
//! component slice followed by one bulk byte-order call, or a plain copy when the bytes
//! already are in the wanted order.

use std::num::NonZeroUsize;

use bytemuck::{Pod, Zeroable};
use byteorder::{BigEndian, ByteOrder, LittleEndian};
use num_complex::Complex;

use crate::arch;
use crate::traverse::{kernels, Block, Columns, ColumnsMut};
use crate::{DataType, Endian};

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
pub trait Element: Copy + Send + Sync + Zeroable + 'static + sealed::Convert {
    /// Bytes per encoded element.
    const SIZE: usize;
    /// The Zarr data type of this element.
    const DATA_TYPE: DataType;
}

pub(crate) mod sealed {
    use crate::traverse::{kernels, Block, Columns, ColumnsMut};
    use crate::Endian;

    /// The conversions behind [`Element`](super::Element); not nameable outside the crate.
    pub trait Convert: Sized {
        /// Whether the encoded bytes equal the memory bytes in this byte order.
        fn is_verbatim(endian: Endian) -> bool;
        /// Encode `src` into `dst`; `dst.len()` is `src.len() * SIZE`.
        fn write(src: &[Self], endian: Endian, dst: &mut [u8]);
        /// Decode `src` into `dst`; `src` has passed [`Convert::find_invalid`].
        fn read(src: &[u8], endian: Endian, dst: &mut [Self]);
        /// The bytes as elements without a copy, when they are aligned for `Self`; `bytes`
        /// holds whole, valid encodings in the native byte order.
        fn cast(bytes: &[u8]) -> Option<&[Self]>;
        /// [`Convert::cast`] for exclusive access: whatever is written through the elements
        /// is a valid encoding.
        fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]>;
        /// The elements' memory as bytes, when every byte of it is initialised: all types
        /// but the pairs of low-bit minifloats, which are no `Pod`. Implementations of this
        /// and of the casts are `#[inline]`: byte tiles call one per column they ask for
        /// ahead (benches/README.md, Design measurements).
        fn as_bytes(elements: &[Self]) -> Option<&[u8]>;
        /// This element with each component's bytes reversed: the conversion between the
        /// native and the other byte order, for element-wise moves. Implementations are
        /// `#[inline(always)]`: a call per element costs more than the move.
        fn swapped(self) -> Self;
        /// Gather `block` from `memory` into `scratch` in stream order, converted to
        /// `endian`: element by element unless the type is `Pod`, when its size picks
        /// the kernel ([`kernels::gather`]).
        fn gather<M: Columns<Self> + ?Sized>(
            memory: &M,
            block: &Block,
            scratch: &mut [Self],
            endian: Endian,
        ) where
            Self: Copy,
        {
            let swap = !Self::is_verbatim(endian);
            kernels::gather_each(memory, block, scratch, swap, Self::swapped);
        }
        /// Scatter `scratch`, in stream order, into `block` of `memory`, converted from
        /// `endian`.
        fn scatter<M: ColumnsMut<Self> + ?Sized>(
            scratch: &[Self],
            block: &Block,
            memory: &mut M,
            endian: Endian,
        ) where
            Self: Copy + bytemuck::Zeroable,
        {
            let swap = !Self::is_verbatim(endian);
            kernels::scatter_each(scratch, block, memory, swap, Self::swapped);
        }
        /// Whether some bytes are no valid encoding of this type (`bool`), so decoding
        /// checks them.
        const CHECKED: bool = false;
        /// Whether tiles of this 1-byte type are decoded from the encoded bytes as they are
        /// ([`Convert::scatter_encoded`]) rather than from elements: the types that are not
        /// `Pod`, whose bytes must be checked or converted as they are stored.
        const FROM_BYTES: bool = false;
        /// Scatter a tile of encoded bytes, in stream order, into `block` of `memory`
        /// (types with [`Convert::FROM_BYTES`] only), checking each byte as it is stored:
        /// `false` if one is no valid encoding ([`Convert::find_invalid`] tells which), and
        /// then every element of `block` is written, some from bytes that were no value.
        fn scatter_encoded<M: ColumnsMut<Self> + ?Sized>(
            _scratch: &[u8],
            _block: &Block,
            _memory: &mut M,
        ) -> bool {
            unreachable!("only types with FROM_BYTES decode tiles of bytes")
        }
        /// The offset and value of the first byte that is no valid encoding, if any.
        fn find_invalid(_src: &[u8]) -> Option<(usize, u8)> {
            None
        }
        /// Decode `src` into `dst` as [`Convert::read`] does, checking the bytes in the same
        /// pass: `false` if one is no valid encoding ([`Convert::find_invalid`] tells which),
        /// and then `dst` may be partly written.
        fn read_valid(src: &[u8], endian: Endian, dst: &mut [Self]) -> bool {
            Self::read(src, endian, dst);
            true
        }
    }
}

/// A component word: what one element is made of, and how its bytes are ordered. Its
/// conversions are `#[inline]`: the tiles copy each row of their scratch buffer through
/// them in the native byte order, where inlined they fold to the copy alone, without a
/// call and a match per row.
trait Word: Pod {
    fn write(src: &[Self], endian: Endian, dst: &mut [u8]);
    fn read(src: &[u8], endian: Endian, dst: &mut [Self]);
}

impl Word for u8 {
    #[inline]
    fn write(src: &[u8], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
    #[inline]
    fn read(src: &[u8], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
}

macro_rules! word {
    ($w:ty, $write:ident, $read:ident) => {
        impl Word for $w {
            #[inline]
            fn write(src: &[Self], endian: Endian, dst: &mut [u8]) {
                match endian {
                    e if e == Endian::NATIVE => dst.copy_from_slice(bytemuck::cast_slice(src)),
                    _ if arch::BULK_SWAP => arch::swapped::<{ std::mem::size_of::<$w>() }>(
                        bytemuck::cast_slice(src),
                        dst,
                    ),
                    Endian::Little => LittleEndian::$write(src, dst),
                    Endian::Big => BigEndian::$write(src, dst),
                }
            }
            #[inline]
            fn read(src: &[u8], endian: Endian, dst: &mut [Self]) {
                match endian {
                    e if e == Endian::NATIVE => {
                        bytemuck::cast_slice_mut::<Self, u8>(dst).copy_from_slice(src)
                    }
                    _ if arch::BULK_SWAP => arch::swapped::<{ std::mem::size_of::<$w>() }>(
                        src,
                        bytemuck::cast_slice_mut(dst),
                    ),
                    Endian::Little => LittleEndian::$read(src, dst),
                    Endian::Big => BigEndian::$read(src, dst),
                }
            }
        }
    };
}

word!(u16, write_u16_into, read_u16_into);
word!(u32, write_u32_into, read_u32_into);
word!(u64, write_u64_into, read_u64_into);

/// An element that is a `Pod` run of one word type; its tiles move in the rectangles of
/// its size.
macro_rules! element {
    ($t:ty => $w:ty, $d:ident) => {
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl sealed::Convert for $t {
            fn is_verbatim(endian: Endian) -> bool {
                std::mem::size_of::<$w>() == 1 || endian == Endian::NATIVE
            }
            #[inline]
            fn write(src: &[Self], endian: Endian, dst: &mut [u8]) {
                <$w as Word>::write(bytemuck::cast_slice(src), endian, dst)
            }
            #[inline]
            fn read(src: &[u8], endian: Endian, dst: &mut [Self]) {
                <$w as Word>::read(src, endian, bytemuck::cast_slice_mut(dst))
            }
            #[inline]
            fn cast(bytes: &[u8]) -> Option<&[Self]> {
                bytemuck::try_cast_slice(bytes).ok()
            }
            #[inline]
            fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
                bytemuck::try_cast_slice_mut(bytes).ok()
            }
            #[inline]
            fn as_bytes(elements: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(elements))
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                const WORDS: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                let words: [$w; WORDS] = bytemuck::cast(self);
                bytemuck::cast(words.map(<$w>::swap_bytes))
            }
            fn gather<M: Columns<Self> + ?Sized>(
                memory: &M,
                block: &Block,
                scratch: &mut [Self],
                endian: Endian,
            ) {
                let swap = !Self::is_verbatim(endian);
                const WORD: usize = std::mem::size_of::<$w>();
                kernels::gather::<_, _, WORD>(memory, block, scratch, swap, Self::swapped);
            }
            fn scatter<M: ColumnsMut<Self> + ?Sized>(
                scratch: &[Self],
                block: &Block,
                memory: &mut M,
                endian: Endian,
            ) {
                let swap = !Self::is_verbatim(endian);
                const WORD: usize = std::mem::size_of::<$w>();
                kernels::scatter::<_, _, _, WORD, false>(
                    scratch,
                    block,
                    memory,
                    swap,
                    Self::swapped,
                    |x| x,
                );
            }
        }
    };
}

/// A minifloat in the low bits of a byte. Its values keep the high bits clear, so encoding
/// is a copy; decoding clears them. Not `Pod` (a byte with high bits set is no value), so
/// bytes are never cast to it: [`BytesView`](crate::BytesView) declines.
macro_rules! low_bits {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const SIZE: usize = 1;
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl sealed::Convert for $t {
            fn is_verbatim(_: Endian) -> bool {
                true
            }
            fn write(src: &[Self], _: Endian, dst: &mut [u8]) {
                dst.copy_from_slice(bytemuck::cast_slice(src))
            }
            fn read(src: &[u8], _: Endian, dst: &mut [Self]) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = <$t>::from_bits(s);
                }
            }
            #[inline]
            fn cast(_: &[u8]) -> Option<&[Self]> {
                None
            }
            #[inline]
            fn cast_mut(_: &mut [u8]) -> Option<&mut [Self]> {
                None
            }
            #[inline]
            fn as_bytes(elements: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(elements))
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
            #[inline(always)]
            fn swapped(self) -> Self {
                self
            }
        }
    };
}

/// A complex number of two minifloats in the low bits of a byte each: real, then
/// imaginary. Encoding writes their codes; decoding clears the high bits of each byte. Not
/// `Pod`, so it moves one element at a time and is never viewed.
macro_rules! complex_low_bits {
    ($t:ty, $d:ident) => {
        impl Element for Complex<$t> {
            const SIZE: usize = 2;
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl sealed::Convert for Complex<$t> {
            fn is_verbatim(_: Endian) -> bool {
                true
            }
            fn write(src: &[Self], _: Endian, dst: &mut [u8]) {
                for (d, x) in dst.chunks_exact_mut(2).zip(src) {
                    d.copy_from_slice(&[x.re.to_bits(), x.im.to_bits()]);
                }
            }
            fn read(src: &[u8], _: Endian, dst: &mut [Self]) {
                for (d, s) in dst.iter_mut().zip(src.chunks_exact(2)) {
                    *d = Complex::new(<$t>::from_bits(s[0]), <$t>::from_bits(s[1]));
                }
            }
            #[inline]
            fn cast(_: &[u8]) -> Option<&[Self]> {
                None
            }
            #[inline]
            fn cast_mut(_: &mut [u8]) -> Option<&mut [Self]> {
                None
            }
            #[inline]
            fn as_bytes(_: &[Self]) -> Option<&[u8]> {
                None
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

/// Raw bits `r{8N}`: N bytes copied as they are.
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

impl<const N: usize> sealed::Convert for [u8; N] {
    fn is_verbatim(_: Endian) -> bool {
        true
    }
    fn write(src: &[Self], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(src.as_flattened())
    }
    fn read(src: &[u8], _: Endian, dst: &mut [Self]) {
        dst.as_flattened_mut().copy_from_slice(src)
    }
    #[inline]
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::try_cast_slice(bytes).ok()
    }
    #[inline]
    fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
        bytemuck::try_cast_slice_mut(bytes).ok()
    }
    #[inline]
    fn as_bytes(elements: &[Self]) -> Option<&[u8]> {
        Some(elements.as_flattened())
    }
    #[inline(always)]
    fn swapped(self) -> Self {
        self
    }
}

/// `bool`: one byte, 0x00 or 0x01; anything else is rejected on decode.
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

impl sealed::Convert for bool {
    fn is_verbatim(_: Endian) -> bool {
        true
    }
    fn write(src: &[Self], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(bytemuck::cast_slice(src))
    }
    fn read(src: &[u8], _: Endian, dst: &mut [Self]) {
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
    #[inline]
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::checked::try_cast_slice(bytes).ok()
    }
    #[inline]
    fn cast_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
        bytemuck::checked::try_cast_slice_mut(bytes).ok()
    }
    #[inline]
    fn as_bytes(elements: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(elements))
    }
    fn read_valid(src: &[u8], _: Endian, dst: &mut [Self]) -> bool {
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
