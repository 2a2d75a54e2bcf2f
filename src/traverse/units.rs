//! Units: the types the traversal moves, each made once. An element type's memory moves as
//! the unit of its bytes (`u32` for `f32`, `i32` and `u32`; `[u32; 2]` for `Complex<f32>`;
//! `[u8; N]` for raw bits, never swapped), or as itself where its bytes are checked or
//! converted as they are stored (`element.rs` says which, [`AsUnits`]). Everything past the
//! view's own axes (the plan, the tiles, the kernels) is instantiated per unit only.

use bytemuck::Pod;
use byteorder::{BigEndian, ByteOrder, LittleEndian};

use super::{Block, Columns, ColumnsMut, kernels};
use crate::arch;

/// The memory of elements of one type as what it moves as, one way and the other.
pub trait AsUnits: Sized {
    /// What the memory of these elements moves as when it is encoded.
    type Out: Moves;
    /// What it moves as when it is decoded into: the same unit, or the type itself.
    type In: Moves;
    /// The elements' memory as units, to encode.
    fn outs(elements: &[Self]) -> &[Self::Out];
    /// The elements' memory as units, to decode into.
    fn ins(elements: &mut [Self]) -> &mut [Self::In];
    /// The elements' memory as the units they are decoded into, to copy from.
    fn ins_of(elements: &[Self]) -> &[Self::In];
    /// One element as its unit, to encode.
    fn out(self) -> Self::Out;
    /// One element from its unit, decoded.
    fn from_in(x: Self::In) -> Self;
    /// One element as its unit, to decode into.
    fn to_in(self) -> Self::In;
}

/// The unit of N words `W`: what an element of that many words moves as.
pub trait Words<const N: usize> {
    type Unit: Moves;
}

/// How a unit (or a type that moves as itself) moves between memory and bytes, `swap`
/// telling whether the stream is in the other byte order than this machine's: in bulk,
/// and through the tiles of the traversal.
pub trait Moves: Copy + Send + Sync + bytemuck::Zeroable + 'static {
    /// Bytes per unit.
    const SIZE: usize = std::mem::size_of::<Self>();
    /// Whether the encoded bytes equal the memory bytes, the stream being in the other
    /// byte order than this machine's with `swap`.
    fn is_verbatim(swap: bool) -> bool;
    /// Encode `src` into `dst`; `dst.len()` is `src.len() * SIZE`.
    fn write(src: &[Self], swap: bool, dst: &mut [u8]);
    /// Decode `src` into `dst`; `src` has passed [`Moves::find_invalid`].
    fn read(src: &[u8], swap: bool, dst: &mut [Self]);
    /// This unit with each component's bytes reversed: the conversion between the
    /// native and the other byte order, for element-wise moves. Implementations are
    /// `#[inline(always)]`: a call per element costs more than the move.
    fn swapped(self) -> Self;
    /// Gather `block` from `memory` into `scratch` in stream order, converted to the
    /// other byte order with `swap`: element by element unless the type is `Pod`, when its
    /// size picks the kernel ([`kernels::gather`](crate::traverse::kernels::gather)).
    fn gather<M: Columns<Self> + ?Sized>(
        memory: &M,
        block: &Block,
        scratch: &mut [Self],
        swap: bool,
    ) {
        let reverse = !Self::is_verbatim(swap);
        kernels::gather_each(memory, block, scratch, reverse, Self::swapped);
    }
    /// Scatter `scratch`, in stream order, into `block` of `memory`, converted from the
    /// other byte order with `swap`.
    fn scatter<M: ColumnsMut<Self> + ?Sized>(
        scratch: &[Self],
        block: &Block,
        memory: &mut M,
        swap: bool,
    ) {
        let reverse = !Self::is_verbatim(swap);
        kernels::scatter_each(scratch, block, memory, reverse, Self::swapped);
    }
    /// Whether some bytes are no valid encoding of this type (`bool`), so decoding
    /// checks them.
    const CHECKED: bool = false;
    /// Whether tiles of this 1-byte type are decoded from the encoded bytes as they are
    /// ([`Moves::scatter_encoded`]) rather than from elements: the types that are not
    /// `Pod`, whose bytes must be checked or converted as they are stored.
    const FROM_BYTES: bool = false;
    /// Scatter a tile of encoded bytes, in stream order, into `block` of `memory`
    /// (types with [`Moves::FROM_BYTES`] only), checking each byte as it is stored:
    /// `false` if one is no valid encoding ([`Moves::find_invalid`] tells which), and
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
    /// Decode `src` into `dst` as [`Moves::read`] does, checking the bytes in the same
    /// pass: `false` if one is no valid encoding ([`Moves::find_invalid`] tells which),
    /// and then `dst` may be partly written.
    fn read_valid(src: &[u8], swap: bool, dst: &mut [Self]) -> bool {
        Self::read(src, swap, dst);
        true
    }
}

/// A component word: what one element is made of, and how its bytes are ordered. Its
/// conversions are `#[inline]`: the tiles copy each row of their scratch buffer through
/// them in the native byte order, where inlined they fold to the copy alone, without a
/// call and a match per row.
trait Word: Pod {
    fn write(src: &[Self], swap: bool, dst: &mut [u8]);
    fn read(src: &[u8], swap: bool, dst: &mut [Self]);
}

impl Word for u8 {
    #[inline]
    fn write(src: &[u8], _: bool, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
    #[inline]
    fn read(src: &[u8], _: bool, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
}

macro_rules! word {
    ($w:ty, $write:ident, $read:ident) => {
        impl Word for $w {
            #[inline]
            fn write(src: &[Self], swap: bool, dst: &mut [u8]) {
                match swap {
                    false => dst.copy_from_slice(bytemuck::cast_slice(src)),
                    _ if arch::BULK_SWAP => arch::swapped::<{ std::mem::size_of::<$w>() }>(
                        bytemuck::cast_slice(src),
                        dst,
                    ),
                    // The other byte order than this machine's.
                    _ if cfg!(target_endian = "little") => BigEndian::$write(src, dst),
                    _ => LittleEndian::$write(src, dst),
                }
            }
            #[inline]
            fn read(src: &[u8], swap: bool, dst: &mut [Self]) {
                match swap {
                    false => bytemuck::cast_slice_mut::<Self, u8>(dst).copy_from_slice(src),
                    _ if arch::BULK_SWAP => arch::swapped::<{ std::mem::size_of::<$w>() }>(
                        src,
                        bytemuck::cast_slice_mut(dst),
                    ),
                    _ if cfg!(target_endian = "little") => BigEndian::$read(src, dst),
                    _ => LittleEndian::$read(src, dst),
                }
            }
        }
    };
}

word!(u16, write_u16_into, read_u16_into);
word!(u32, write_u32_into, read_u32_into);
word!(u64, write_u64_into, read_u64_into);

/// A unit of `$n` words `$w`: its bytes swapped word by word, its tiles moved in the
/// rectangles of its size.
macro_rules! unit {
    ($u:ty, $w:ty, $n:literal) => {
        impl Words<$n> for $w {
            type Unit = $u;
        }
        impl Moves for $u {
            #[inline]
            fn is_verbatim(swap: bool) -> bool {
                std::mem::size_of::<$w>() == 1 || !swap
            }
            #[inline]
            fn write(src: &[Self], swap: bool, dst: &mut [u8]) {
                <$w as Word>::write(bytemuck::must_cast_slice(src), swap, dst)
            }
            #[inline]
            fn read(src: &[u8], swap: bool, dst: &mut [Self]) {
                <$w as Word>::read(src, swap, bytemuck::must_cast_slice_mut(dst))
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                let words: [$w; $n] = bytemuck::must_cast(self);
                bytemuck::must_cast(words.map(<$w>::swap_bytes))
            }
            fn gather<M: Columns<Self> + ?Sized>(
                memory: &M,
                block: &Block,
                scratch: &mut [Self],
                swap: bool,
            ) {
                let reverse = !Self::is_verbatim(swap);
                const WORD: usize = std::mem::size_of::<$w>();
                kernels::gather::<_, _, WORD>(memory, block, scratch, reverse, Self::swapped);
            }
            fn scatter<M: ColumnsMut<Self> + ?Sized>(
                scratch: &[Self],
                block: &Block,
                memory: &mut M,
                swap: bool,
            ) {
                let reverse = !Self::is_verbatim(swap);
                const WORD: usize = std::mem::size_of::<$w>();
                kernels::scatter::<_, _, _, WORD, false>(
                    scratch,
                    block,
                    memory,
                    reverse,
                    Self::swapped,
                    |x| x,
                );
            }
        }
    };
}

unit!(u8, u8, 1);
unit!(u16, u16, 1);
unit!(u32, u32, 1);
unit!(u64, u64, 1);
unit!([u16; 2], u16, 2);
unit!([u32; 2], u32, 2);
unit!([u64; 2], u64, 2);

/// Two bytes never swapped: the unit of a pair of 8-bit minifloats, as of `r16`.
impl Words<2> for u8 {
    type Unit = [u8; 2];
}

/// N bytes never swapped: raw bits, and the pairs of 8-bit minifloats.
impl<const N: usize> Moves for [u8; N] {
    fn is_verbatim(_: bool) -> bool {
        true
    }
    #[inline]
    fn write(src: &[Self], _: bool, dst: &mut [u8]) {
        dst.copy_from_slice(src.as_flattened())
    }
    #[inline]
    fn read(src: &[u8], _: bool, dst: &mut [Self]) {
        dst.as_flattened_mut().copy_from_slice(src)
    }
    #[inline(always)]
    fn swapped(self) -> Self {
        self
    }
    fn gather<M: Columns<Self> + ?Sized>(memory: &M, block: &Block, scratch: &mut [Self], _: bool) {
        kernels::gather::<_, _, 1>(memory, block, scratch, false, Self::swapped);
    }
    fn scatter<M: ColumnsMut<Self> + ?Sized>(
        scratch: &[Self],
        block: &Block,
        memory: &mut M,
        _: bool,
    ) {
        kernels::scatter::<_, _, _, 1, false>(scratch, block, memory, false, |x| x, |x| x);
    }
}
