//! Element types and their bulk conversions: the one place where types differ.
//!
//! Each element is a run of components (one for integers and floats, two for complex
//! numbers, N bytes for raw bits); a conversion is a safe cast of the element slice to its
//! component slice followed by one bulk byte-order call, or a plain copy when the bytes
//! already are in the wanted order.

use bytemuck::{NoUninit, Pod, Zeroable};
use byteorder::{BigEndian, ByteOrder, LittleEndian};
use half::{bf16, f16};
use num_complex::Complex;

use crate::minifloat;
use crate::{DataType, Endian};

/// A fixed-size element type the `bytes` codec can encode.
///
/// Sealed: implemented for `bool`, `i8`, `i16`, `i32`, `i64`, `u8`, `u16`, `u32`, `u64`,
/// [`half::f16`], [`half::bf16`], `f32`, `f64`, `Complex<f32>`, `Complex<f64>`,
/// `Complex<f16>`, `Complex<bf16>`, the [`minifloat`](crate::minifloat) types and `[u8; N]`
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
pub trait Element: Copy + Send + Sync + Zeroable + NoUninit + 'static + sealed::Convert {
    /// Bytes per encoded element.
    const SIZE: usize;
    /// The Zarr data type of this element.
    const DATA_TYPE: DataType;
}

pub(crate) mod sealed {
    use crate::layout::{self, Block};
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
        /// This element with each component's bytes reversed: the conversion between the
        /// native and the other byte order, for element-wise moves. Implementations are
        /// `#[inline(always)]`: a call per element costs more than the move.
        fn swapped(self) -> Self;
        /// Gather `block` from `memory` into `scratch` in stream order, converted to
        /// `endian`.
        ///
        /// By default elements move one by one down each column of the tile, each
        /// converted on the way: measured (`perf_table`) faster than squares, whose
        /// registers spill for 8- and 16-byte elements, and than converting the rows of
        /// the tile afterwards in bulk.
        fn gather(memory: &[Self], block: &Block, scratch: &mut [Self], endian: Endian)
        where
            Self: Copy,
        {
            if Self::is_verbatim(endian) {
                layout::gather::<_, 1>(memory, block, scratch, |x| x, |s| s);
            } else {
                layout::gather::<_, 1>(memory, block, scratch, Self::swapped, |s| s);
            }
        }
        /// Scatter `scratch`, in stream order, into `block` of `memory`, converted from
        /// `endian`.
        fn scatter(scratch: &[Self], block: &Block, memory: &mut [Self], endian: Endian)
        where
            Self: Copy,
        {
            if Self::is_verbatim(endian) {
                layout::scatter::<_, 1>(scratch, block, memory, |x| x, |s| s);
            } else {
                layout::scatter::<_, 1>(scratch, block, memory, Self::swapped, |s| s);
            }
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

/// A component word: what one element is made of, and how its bytes are ordered.
trait Word: Pod {
    fn write(src: &[Self], endian: Endian, dst: &mut [u8]);
    fn read(src: &[u8], endian: Endian, dst: &mut [Self]);
}

impl Word for u8 {
    fn write(src: &[u8], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
    fn read(src: &[u8], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(src);
    }
}

macro_rules! word {
    ($w:ty, $write:ident, $read:ident) => {
        impl Word for $w {
            fn write(src: &[Self], endian: Endian, dst: &mut [u8]) {
                match endian {
                    e if e == Endian::NATIVE => dst.copy_from_slice(bytemuck::cast_slice(src)),
                    _ if kernels::BULK_SWAP => kernels::swapped::<{ std::mem::size_of::<$w>() }>(
                        bytemuck::cast_slice(src),
                        dst,
                    ),
                    Endian::Little => LittleEndian::$write(src, dst),
                    Endian::Big => BigEndian::$write(src, dst),
                }
            }
            fn read(src: &[u8], endian: Endian, dst: &mut [Self]) {
                match endian {
                    e if e == Endian::NATIVE => {
                        bytemuck::cast_slice_mut::<Self, u8>(dst).copy_from_slice(src)
                    }
                    _ if kernels::BULK_SWAP => kernels::swapped::<{ std::mem::size_of::<$w>() }>(
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

/// An element that is a `Pod` run of one word type; `$kernel` names a faster transpose.
macro_rules! element {
    ($t:ty => $w:ty, $d:ident $(, $kernel:ident)?) => {
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const DATA_TYPE: DataType = DataType::$d;
        }
        impl sealed::Convert for $t {
            fn is_verbatim(endian: Endian) -> bool {
                std::mem::size_of::<$w>() == 1 || endian == Endian::NATIVE
            }
            fn write(src: &[Self], endian: Endian, dst: &mut [u8]) {
                <$w as Word>::write(bytemuck::cast_slice(src), endian, dst)
            }
            fn read(src: &[u8], endian: Endian, dst: &mut [Self]) {
                <$w as Word>::read(src, endian, bytemuck::cast_slice_mut(dst))
            }
            fn cast(bytes: &[u8]) -> Option<&[Self]> {
                bytemuck::try_cast_slice(bytes).ok()
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                const WORDS: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                let words: [$w; WORDS] = bytemuck::cast(self);
                bytemuck::cast(words.map(<$w>::swap_bytes))
            }
            $($kernel!();)?
        }
    };
}

/// Tiles of 2-byte elements move in squares of [`kernels::transposed`]: 8 × 8 through SSE2
/// registers where the target has them, 4 × 4 through 64-bit words ([`swar`]) elsewhere.
macro_rules! words4 {
    () => {
        words!(kernels::SIDE, kernels::transposed);
    };
}

/// Tiles of 1-byte elements move in 8 × 8 squares of [`kernels::bytes_transposed`]:
/// through SSE2 registers where the target has them, through 64-bit words ([`swar`])
/// elsewhere.
macro_rules! words8 {
    () => {
        words!(8, kernels::bytes_transposed);
    };
}

macro_rules! words {
    ($lanes:expr, $square:path) => {
        fn gather(
            memory: &[Self],
            block: &crate::layout::Block,
            scratch: &mut [Self],
            endian: Endian,
        ) {
            let swap = !Self::is_verbatim(endian);
            let convert = move |x: Self| if swap { x.swapped() } else { x };
            let square = |s| $square(s, swap);
            crate::layout::gather::<_, { $lanes }>(memory, block, scratch, convert, square)
        }
        fn scatter(
            scratch: &[Self],
            block: &crate::layout::Block,
            memory: &mut [Self],
            endian: Endian,
        ) {
            let swap = !Self::is_verbatim(endian);
            let convert = move |x: Self| if swap { x.swapped() } else { x };
            let square = |s| $square(s, swap);
            crate::layout::scatter::<_, { $lanes }>(scratch, block, memory, convert, square)
        }
    };
}

/// The kernels that use SSE2 registers: squares of 2-byte elements and bulk byte swaps.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
mod kernels {
    use bytemuck::Pod;
    use safe_arch::{
        bitor_m128i, m128i, prefetch_t0, shl_imm_u16_m128i, shr_imm_u16_m128i,
        shuffle_ai_i16_h64all_m128i, shuffle_ai_i16_l64all_m128i, unpack_high_i16_m128i,
        unpack_high_i32_m128i, unpack_low_i16_m128i, unpack_low_i32_m128i, unpack_low_i8_m128i,
    };

    /// Side of the squares.
    pub const SIDE: usize = 8;

    /// Bytes ahead of a bulk swap that the source is requested, one cache line per 64-byte
    /// step. Converting into a fresh `Vec` takes a page fault every 4 KiB, after which the
    /// hardware prefetcher starts the source over from cold; two pages ahead, the source
    /// keeps streaming (measured with 64 MiB arrays: `to_zarr_bytes` big-endian f64 from
    /// 0.86 to 1.0 of a fresh memcpy, `write_zarr_bytes` to a sink from 0.9 to 1.4 of memcpy).
    const AHEAD: usize = 8 * 1024;

    /// Whether [`swapped`] beats byteorder's bulk conversions: measured 1.5 times as fast
    /// in cache for 8-byte words (four registers per step).
    pub const BULK_SWAP: bool = true;

    /// Ask for the cache line [`AHEAD`] bytes past `at` in `bytes`, if there is one: called
    /// once per 64 bytes of a bulk conversion.
    #[inline(always)]
    pub fn request_ahead(bytes: &[u8], at: usize) {
        if let Some(ahead) = bytes.get(at + AHEAD) {
            prefetch_t0(ahead);
        }
    }

    /// Each 2-byte element of a register with its two bytes exchanged.
    #[inline(always)]
    fn swap_pairs(r: m128i) -> m128i {
        bitor_m128i(shl_imm_u16_m128i::<8>(r), shr_imm_u16_m128i::<8>(r))
    }

    /// A square of N rows of 16 bytes (N 2-byte elements each) transposed
    /// (`square[j][i]` becomes `result[i][j]`), with `swap` the bytes of each element
    /// reversed too.
    ///
    /// Each round pairs row `k` with row `k + N/2` and interleaves their elements, the low
    /// halves into one row and the high halves into the next; log2(N) rounds of this
    /// perfect shuffle leave the square transposed.
    #[inline(always)]
    pub fn transposed<T: Pod, const N: usize>(square: [[T; N]; N], swap: bool) -> [[T; N]; N] {
        // Whole-array casts and loops rather than `map`, which can stay out of line.
        let mut rows = bytemuck::must_cast::<[[T; N]; N], [m128i; N]>(square);
        for _ in 0..N.trailing_zeros() {
            rows = std::array::from_fn(|k| {
                let (a, b) = (rows[k / 2], rows[k / 2 + N / 2]);
                if k % 2 == 0 {
                    unpack_low_i16_m128i(a, b)
                } else {
                    unpack_high_i16_m128i(a, b)
                }
            });
        }
        if swap {
            for r in &mut rows {
                *r = swap_pairs(*r);
            }
        }
        bytemuck::must_cast::<[m128i; N], [[T; N]; N]>(rows)
    }

    /// A square of 8 × 8 one-byte elements transposed (`square[j][i]` becomes
    /// `result[i][j]`) in the low halves of SSE2 registers: the runs interleaved by bytes,
    /// then by pairs, then by quadruples leave two rows in each of four registers. Twelve
    /// unpacks per 64 bytes, where 64-bit words ([`super::swar`]) take about a hundred
    /// operations.
    #[inline(always)]
    pub fn bytes_transposed<T: Pod>(square: [[T; 8]; 8], _swap: bool) -> [[T; 8]; 8] {
        let runs = bytemuck::must_cast::<[[T; 8]; 8], [u64; 8]>(square);
        let r: [m128i; 8] = std::array::from_fn(|j| m128i::from([runs[j], 0]));
        let a: [m128i; 4] = std::array::from_fn(|k| unpack_low_i8_m128i(r[2 * k], r[2 * k + 1]));
        let b = [
            unpack_low_i16_m128i(a[0], a[1]),
            unpack_high_i16_m128i(a[0], a[1]),
            unpack_low_i16_m128i(a[2], a[3]),
            unpack_high_i16_m128i(a[2], a[3]),
        ];
        let rows = [
            unpack_low_i32_m128i(b[0], b[2]),
            unpack_high_i32_m128i(b[0], b[2]),
            unpack_low_i32_m128i(b[1], b[3]),
            unpack_high_i32_m128i(b[1], b[3]),
        ];
        bytemuck::must_cast::<[m128i; 4], [[T; 8]; 8]>(rows)
    }

    /// A register of W-byte words (W = 2, 4 or 8) with the bytes of each word reversed:
    /// the bytes of each pair exchanged, then the pairs of each word reversed.
    #[inline(always)]
    fn swap_words<const W: usize>(r: m128i) -> m128i {
        // Pair orders in each half of the register: 1 0 3 2 (4-byte words), 3 2 1 0.
        let r = swap_pairs(r);
        match W {
            4 => move_pairs::<0b10_11_00_01>(r),
            8 => move_pairs::<0b00_01_10_11>(r),
            _ => r,
        }
    }

    /// Both halves of a register with their four pairs reordered by `ORDER`.
    #[inline(always)]
    fn move_pairs<const ORDER: i32>(r: m128i) -> m128i {
        shuffle_ai_i16_h64all_m128i::<ORDER>(shuffle_ai_i16_l64all_m128i::<ORDER>(r))
    }

    /// `dst` becomes `src` with the bytes of each W-byte word reversed (W = 2, 4 or 8;
    /// both lengths are the same multiple of W), 64 bytes at a time.
    pub fn swapped<const W: usize>(src: &[u8], dst: &mut [u8]) {
        const { assert!(W == 2 || W == 4 || W == 8) };
        let whole = src;
        let mut src = src.chunks_exact(64);
        let mut dst = dst.chunks_exact_mut(64);
        for (i, (s, d)) in (&mut src).zip(&mut dst).enumerate() {
            request_ahead(whole, i * 64);
            let mut registers: [m128i; 4] = bytemuck::pod_read_unaligned(s);
            // A loop, not `map`: a call to `map` can stay out of line, spilling every step.
            for r in &mut registers {
                *r = swap_words::<W>(*r);
            }
            d.copy_from_slice(bytemuck::bytes_of(&registers));
        }
        super::swapped_words::<W>(src.remainder(), dst.into_remainder());
    }
}

/// The kernels of targets without SSE2: 4 × 4 squares of 2-byte elements in 64-bit words,
/// and byteorder's bulk conversions.
#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
mod kernels {
    pub(super) use super::swapped_words as swapped;
    pub(super) use super::transposed;

    /// Side of the squares.
    pub(super) const SIDE: usize = 4;

    /// Whether [`swapped`] beats byteorder's bulk conversions: not without SSE2.
    pub(super) const BULK_SWAP: bool = false;

    /// A hint for a bulk conversion: none on these targets.
    #[inline(always)]
    pub(super) fn request_ahead(_bytes: &[u8], _at: usize) {}

    /// A square of 8 × 8 one-byte elements transposed in 64-bit words.
    #[inline(always)]
    pub(super) fn bytes_transposed<T: bytemuck::Pod>(
        square: [[T; 8]; 8],
        swap: bool,
    ) -> [[T; 8]; 8] {
        transposed(square, swap)
    }
}

/// `dst` becomes `src` with the bytes of each W-byte word reversed, one word at a time.
fn swapped_words<const W: usize>(src: &[u8], dst: &mut [u8]) {
    for (s, d) in src.chunks_exact(W).zip(dst.chunks_exact_mut(W)) {
        d.iter_mut().zip(s.iter().rev()).for_each(|(d, &s)| *d = s);
    }
}

/// A square of `LANES` × `LANES` elements of `64 / LANES` bits, one word per run,
/// transposed: `square[j][i]` becomes `result[i][j]`; with `swap`, the bytes of each
/// 2-byte element are reversed too.
#[cfg_attr(
    all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ),
    allow(dead_code, reason = "the portable kernel: tested on every target")
)]
#[inline(always)]
fn transposed<T: Pod, const LANES: usize>(
    square: [[T; LANES]; LANES],
    swap: bool,
) -> [[T; LANES]; LANES] {
    let words = swar(square.map(bytemuck::must_cast::<[T; LANES], u64>));
    let bytes = 0x00ff_00ff_00ff_00ffu64;
    words.map(|w| {
        let w = if swap {
            ((w & bytes) << 8) | ((w >> 8) & bytes)
        } else {
            w
        };
        bytemuck::must_cast::<u64, [T; LANES]>(w)
    })
}

/// Transpose `LANES` words of `LANES` lanes each: lane `i` of word `j` goes to lane `j` of
/// word `i`. Blocks of 1, 2, 4 … lanes swap places between word pairs through masks and
/// shifts.
///
/// Lanes are numbered by position in memory, so moving a lane up is a left shift on a
/// little-endian machine and a right shift on a big-endian one.
#[cfg_attr(
    all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ),
    allow(dead_code, reason = "the portable kernel: tested on every target")
)]
#[inline(always)]
fn swar<const LANES: usize>(mut words: [u64; LANES]) -> [u64; LANES] {
    let lane_bits = 64 / LANES as u32;
    let up = |x: u64, n: u32| {
        if cfg!(target_endian = "big") {
            x >> n
        } else {
            x << n
        }
    };
    let down = |x: u64, n: u32| {
        if cfg!(target_endian = "big") {
            x << n
        } else {
            x >> n
        }
    };
    let mut block = 1;
    while block < LANES {
        // Lanes whose index has the `block` bit clear, as a mask in memory order.
        let mut bytes = [0u8; 8];
        for (i, b) in bytes.iter_mut().enumerate() {
            let lane = i * LANES / 8;
            *b = if lane & block == 0 { 0xff } else { 0 };
        }
        let keep = u64::from_ne_bytes(bytes);
        let shift = block as u32 * lane_bits;
        for i in (0..LANES).filter(|i| i & block == 0) {
            let (lo, hi) = (words[i], words[i + block]);
            words[i] = (lo & keep) | up(hi & keep, shift);
            words[i + block] = down(lo & !keep, shift) | (hi & !keep);
        }
        block *= 2;
    }
    words
}

/// A minifloat in the low bits of a byte. Its values keep the high bits clear, so encoding
/// is a copy; decoding clears them. Not `Pod` (a byte with high bits set is no value), so
/// bytes are never cast to it: [`view_zarr_bytes`](crate::view_zarr_bytes) declines.
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
            fn cast(_: &[u8]) -> Option<&[Self]> {
                None
            }
            #[inline(always)]
            fn swapped(self) -> Self {
                self
            }
        }
    };
}

element!(u8 => u8, UInt8, words8);
element!(i8 => u8, Int8, words8);
element!(u16 => u16, UInt16, words4);
element!(i16 => u16, Int16, words4);
element!(f16 => u16, Float16, words4);
element!(bf16 => u16, BFloat16, words4);
element!(u32 => u32, UInt32);
element!(i32 => u32, Int32);
element!(f32 => u32, Float32);
element!(u64 => u64, UInt64);
element!(i64 => u64, Int64);
element!(f64 => u64, Float64);
element!(Complex<f32> => u32, Complex64);
element!(Complex<f64> => u64, Complex128);
element!(Complex<f16> => u16, ComplexFloat16);
element!(Complex<bf16> => u16, ComplexBFloat16);
element!(minifloat::Float8E3M4 => u8, Float8E3M4, words8);
element!(minifloat::Float8E4M3 => u8, Float8E4M3, words8);
element!(minifloat::Float8E4M3B11FNUZ => u8, Float8E4M3B11FNUZ, words8);
element!(minifloat::Float8E4M3FN => u8, Float8E4M3FN, words8);
element!(minifloat::Float8E4M3FNUZ => u8, Float8E4M3FNUZ, words8);
element!(minifloat::Float8E5M2 => u8, Float8E5M2, words8);
element!(minifloat::Float8E5M2FNUZ => u8, Float8E5M2FNUZ, words8);
element!(minifloat::Float8E8M0FNU => u8, Float8E8M0FNU, words8);
low_bits!(minifloat::Float4E2M1FN, Float4E2M1FN);
low_bits!(minifloat::Float6E2M3FN, Float6E2M3FN);
low_bits!(minifloat::Float6E3M2FN, Float6E3M2FN);

/// Integers held in the low bits of a byte (`int2`, `int4` as `i8`; `uint2`, `uint4` as
/// `u8`): what a stored byte means, and what a value stores.
pub(crate) trait Narrow: Element + PartialEq + Into<i64> {
    /// The value of the low `bits` bits of `x`: sign-extended, or masked.
    fn widen(x: Self, bits: u32) -> Self;
    /// The byte that stores `x`, which fits: its low `bits` bits, the others zero.
    fn narrow(x: Self, bits: u32) -> Self;
}

impl Narrow for i8 {
    fn widen(x: i8, bits: u32) -> i8 {
        (x << (8 - bits)) >> (8 - bits)
    }
    fn narrow(x: i8, bits: u32) -> i8 {
        (x as u8 & (0xff >> (8 - bits))) as i8
    }
}

impl Narrow for u8 {
    fn widen(x: u8, bits: u32) -> u8 {
        x & (0xff >> (8 - bits))
    }
    fn narrow(x: u8, bits: u32) -> u8 {
        Self::widen(x, bits)
    }
}

/// Raw bits `r{8N}`: N bytes copied as they are.
impl<const N: usize> Element for [u8; N] {
    const SIZE: usize = {
        assert!(N > 0, "a raw bits type has at least 8 bits");
        N
    };
    const DATA_TYPE: DataType = DataType::RawBits(8 * N);
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
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::try_cast_slice(bytes).ok()
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

impl sealed::Convert for bool {
    fn is_verbatim(_: Endian) -> bool {
        true
    }
    fn write(src: &[Self], _: Endian, dst: &mut [u8]) {
        dst.copy_from_slice(bytemuck::cast_slice(src))
    }
    fn read(src: &[u8], _: Endian, dst: &mut [Self]) {
        for (i, (d, s)) in dst.chunks_mut(64).zip(src.chunks(64)).enumerate() {
            kernels::request_ahead(src, i * 64);
            for (d, &s) in d.iter_mut().zip(s) {
                *d = s != 0;
            }
        }
    }
    #[inline(always)]
    fn swapped(self) -> Self {
        self
    }
    fn cast(bytes: &[u8]) -> Option<&[Self]> {
        bytemuck::checked::try_cast_slice(bytes).ok()
    }
    fn read_valid(src: &[u8], _: Endian, dst: &mut [Self]) -> bool {
        // Branch-free, so it runs in vector registers: every byte is 0 or 1 when their OR is.
        let mut seen = 0u8;
        for (d, &s) in dst.iter_mut().zip(src) {
            seen |= s;
            *d = s != 0;
        }
        seen <= 1
    }
    fn find_invalid(src: &[u8]) -> Option<(usize, u8)> {
        // One branch-free pass in the common case; locate the byte only on failure.
        if src.iter().fold(0u8, |acc, &b| acc | b) <= 1 {
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
    /// The square kernels against the definition: `result[i][j] == square[j][i]`, with
    /// each element's bytes reversed when asked.
    fn check<const N: usize>(kernel: impl Fn([[u16; N]; N], bool) -> [[u16; N]; N]) {
        let square: [[u16; N]; N] =
            std::array::from_fn(|j| std::array::from_fn(|i| (0x1200 + 0x100 * j + i) as u16));
        for swap in [false, true] {
            let result = kernel(square, swap);
            for (i, row) in result.iter().enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    let want = if swap {
                        square[j][i].swap_bytes()
                    } else {
                        square[j][i]
                    };
                    assert_eq!(x, want, "N = {N}, swap = {swap}, ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn words_transpose_2_byte_squares() {
        check::<4>(super::transposed::<u16, 4>);
    }

    #[test]
    fn kernels_transpose_2_byte_squares() {
        check::<{ super::kernels::SIDE }>(
            super::kernels::transposed::<u16, { super::kernels::SIDE }>,
        );
    }

    /// The bulk swap against its definition, for lengths around its 64-byte steps.
    #[test]
    fn kernels_swap_words_in_bulk() {
        fn check<const W: usize>(src: &[u8]) {
            let want: Vec<u8> = src
                .chunks(W)
                .flat_map(|w| w.iter().rev().copied())
                .collect();
            let mut dst = vec![0u8; src.len()];
            super::kernels::swapped::<W>(src, &mut dst);
            assert_eq!(dst, want, "{W}-byte words, {} bytes", src.len());
        }
        let bytes: Vec<u8> = (0..200u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for len in [0, 8, 56, 64, 72, 128, 136, 200] {
            check::<2>(&bytes[..len]);
            check::<4>(&bytes[..len]);
            check::<8>(&bytes[..len]);
        }
    }

    #[test]
    fn transpose_1_byte_squares() {
        let square: [[u8; 8]; 8] =
            std::array::from_fn(|j| std::array::from_fn(|i| (16 * j + i) as u8));
        type Square = [[u8; 8]; 8];
        let kernels: [fn(Square, bool) -> Square; 2] = [
            super::transposed::<u8, 8>,
            super::kernels::bytes_transposed::<u8>,
        ];
        for kernel in kernels {
            let result = kernel(square, false);
            for (i, row) in result.iter().enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    assert_eq!(x, square[j][i], "({i}, {j})");
                }
            }
        }
    }
}
