//! The kernels: how the elements of one square of a tile, or of one bulk conversion, move
//! on this target. The size of an element picks how its tiles move, here and nowhere else
//! ([`gather`], [`scatter`]): 1-byte elements in 8 × 8 squares, 2-byte elements in
//! [`SIDE`] × [`SIDE`] squares, larger ones one by one. Elements that are not `Pod`
//! (`bool`, minifloats in the low bits of a byte) and raw bits move one by one
//! ([`gather_each`], [`scatter_each`]).

use bytemuck::Pod;

use super::Block;

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
use sse2 as target;

#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
use portable as target;

use target::{bytes_transposed, transposed, SIDE};
pub(crate) use target::{request_ahead, swapped, BULK_SWAP};

/// Gather `block` of `memory` into `scratch` in stream order (see [`super::gather()`]); with
/// `swap`, each element goes through `swapped`, which reverses the bytes of its components.
///
/// Squares of 1- and 2-byte elements move through registers; larger elements move one by
/// one down each column of the tile, measured (`perf_table`) faster than squares, whose
/// registers spill for 8- and 16-byte elements, and than converting the rows of the tile
/// afterwards in bulk. The casts between `A` and the kernels' words are by the size just
/// matched.
#[inline(always)]
pub(crate) fn gather<A: Pod>(
    memory: &[A],
    block: &Block,
    scratch: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    let convert = |x: A| if swap { swapped(x) } else { x };
    match std::mem::size_of::<A>() {
        1 => super::gather::<A, 8>(memory, block, scratch, convert, |s| {
            bytemuck::cast(bytes_transposed(bytemuck::cast(s)))
        }),
        2 => super::gather::<A, SIDE>(memory, block, scratch, convert, |s| {
            bytemuck::cast(transposed(bytemuck::cast(s), swap))
        }),
        _ => gather_each(memory, block, scratch, swap, swapped),
    }
}

/// Scatter `scratch`, in stream order, into `block` of `memory` (see [`super::scatter`]),
/// in the squares of [`gather`].
#[inline(always)]
pub(crate) fn scatter<A: Pod>(
    scratch: &[A],
    block: &Block,
    memory: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    let convert = |x: A| if swap { swapped(x) } else { x };
    match std::mem::size_of::<A>() {
        1 => super::scatter::<A, 8>(scratch, block, memory, convert, |s| {
            bytemuck::cast(bytes_transposed(bytemuck::cast(s)))
        }),
        2 => super::scatter::<A, SIDE>(scratch, block, memory, convert, |s| {
            bytemuck::cast(transposed(bytemuck::cast(s), swap))
        }),
        _ => scatter_each(scratch, block, memory, swap, swapped),
    }
}

/// Gather `block` element by element (see [`gather`]).
#[inline(always)]
pub(crate) fn gather_each<A: Copy>(
    memory: &[A],
    block: &Block,
    scratch: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    // Two loops rather than a test per element.
    if swap {
        super::gather::<_, 1>(memory, block, scratch, swapped, |s| s);
    } else {
        super::gather::<_, 1>(memory, block, scratch, |x| x, |s| s);
    }
}

/// Scatter `block` element by element (see [`scatter`]).
#[inline(always)]
pub(crate) fn scatter_each<A: Copy>(
    scratch: &[A],
    block: &Block,
    memory: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    if swap {
        super::scatter::<_, 1>(scratch, block, memory, swapped, |s| s);
    } else {
        super::scatter::<_, 1>(scratch, block, memory, |x| x, |s| s);
    }
}

/// The kernels that use SSE2 registers: squares of 1- and 2-byte elements and bulk byte
/// swaps.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
mod sse2 {
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

    /// A square of N = [`SIDE`] rows of 16 bytes (N 2-byte elements each) transposed
    /// (`square[j][i]` becomes `result[i][j]`), with `swap` the bytes of each element
    /// reversed too.
    ///
    /// Each round pairs row `k` with row `k + N/2` and interleaves their elements, the low
    /// halves into one row and the high halves into the next; log2(N) rounds of this
    /// perfect shuffle leave the square transposed.
    #[inline(always)]
    pub fn transposed(square: [[u16; SIDE]; SIDE], swap: bool) -> [[u16; SIDE]; SIDE] {
        const N: usize = SIDE;
        // Whole-array casts and loops rather than `map`, which can stay out of line.
        let mut rows = bytemuck::must_cast::<[[u16; N]; N], [m128i; N]>(square);
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
        bytemuck::must_cast::<[m128i; N], [[u16; N]; N]>(rows)
    }

    /// A square of 8 × 8 one-byte elements transposed (`square[j][i]` becomes
    /// `result[i][j]`) in the low halves of SSE2 registers: the runs interleaved by bytes,
    /// then by pairs, then by quadruples leave two rows in each of four registers. Twelve
    /// unpacks per 64 bytes, where 64-bit words ([`super::swar`]) take about a hundred
    /// operations.
    #[inline(always)]
    pub fn bytes_transposed(square: [[u8; 8]; 8]) -> [[u8; 8]; 8] {
        let runs = bytemuck::must_cast::<[[u8; 8]; 8], [u64; 8]>(square);
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
        bytemuck::must_cast::<[m128i; 4], [[u8; 8]; 8]>(rows)
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
    #[inline]
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

/// The kernels of targets without SSE2: squares in 64-bit words (4 × 4 of 2-byte
/// elements, 8 × 8 of 1-byte ones), and byteorder's bulk conversions.
#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
mod portable {
    pub(crate) use super::swapped_words as swapped;

    /// Side of the squares of 2-byte elements.
    pub const SIDE: usize = 4;

    /// Whether [`swapped`] beats byteorder's bulk conversions: not without SSE2.
    pub const BULK_SWAP: bool = false;

    /// A hint for a bulk conversion: none on these targets.
    #[inline(always)]
    pub fn request_ahead(_bytes: &[u8], _at: usize) {}

    /// A square of 4 × 4 two-byte elements transposed in 64-bit words.
    #[inline(always)]
    pub fn transposed(square: [[u16; SIDE]; SIDE], swap: bool) -> [[u16; SIDE]; SIDE] {
        super::words_transposed(square, swap)
    }

    /// A square of 8 × 8 one-byte elements transposed in 64-bit words.
    #[inline(always)]
    pub fn bytes_transposed(square: [[u8; 8]; 8]) -> [[u8; 8]; 8] {
        super::words_transposed(square, false)
    }
}

/// `dst` becomes `src` with the bytes of each W-byte word reversed, one word at a time.
#[inline]
pub(crate) fn swapped_words<const W: usize>(src: &[u8], dst: &mut [u8]) {
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
fn words_transposed<T: Pod, const LANES: usize>(
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
        check::<4>(super::words_transposed::<u16, 4>);
    }

    #[test]
    fn target_transposes_2_byte_squares() {
        check::<{ super::target::SIDE }>(super::target::transposed);
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
            super::swapped::<W>(src, &mut dst);
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
        let kernels: [fn(Square) -> Square; 2] = [
            |s| super::words_transposed::<u8, 8>(s, false),
            super::target::bytes_transposed,
        ];
        for kernel in kernels {
            let result = kernel(square);
            for (i, row) in result.iter().enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    assert_eq!(x, square[j][i], "({i}, {j})");
                }
            }
        }
    }
}
