//! SSE2: the registers of the rectangles, the bulk byte swap and the cache hints, through
//! `safe_arch`.

use safe_arch::{
    bitand_m128i, bitor_m128i, byte_shl_imm_u128_m128i, byte_shr_imm_u128_m128i, m128i,
    pack_i16_to_u8_m128i, set_splat_i16_m128i, shl_imm_u16_m128i, shr_imm_u16_m128i,
    shuffle_ai_i16_h64all_m128i, shuffle_ai_i16_l64all_m128i, unpack_high_i8_m128i,
    unpack_high_i16_m128i, unpack_high_i32_m128i, unpack_low_i8_m128i, unpack_low_i16_m128i,
    unpack_low_i32_m128i,
};

/// The registers of the rectangles.
pub(crate) type Register = m128i;

/// Whether [`swapped`] beats byteorder's bulk conversions, as it does for 8-byte words in
/// cache, four registers per step (benches/NOTES.md, `src/arch/`).
pub(crate) const BULK_SWAP: bool = true;

impl super::Vector for m128i {
    #[inline(always)]
    fn interleave<const W: usize>(a: Self, a_high: bool, b: Self, b_high: bool) -> Self {
        // Halves that differ (odd register counts) are brought level first.
        let b = match (a_high, b_high) {
            (false, true) => byte_shr_imm_u128_m128i::<8>(b),
            (true, false) => byte_shl_imm_u128_m128i::<8>(b),
            _ => b,
        };
        match (W, a_high) {
            (1, false) => unpack_low_i8_m128i(a, b),
            (1, true) => unpack_high_i8_m128i(a, b),
            (2, false) => unpack_low_i16_m128i(a, b),
            (2, true) => unpack_high_i16_m128i(a, b),
            (4, false) => unpack_low_i32_m128i(a, b),
            (4, true) => unpack_high_i32_m128i(a, b),
            _ => unreachable!("the rectangles hold 1-, 2- and 4-byte elements"),
        }
    }

    #[inline(always)]
    fn swap_words<const W: usize>(self) -> Self {
        swap_words::<W>(self)
    }

    #[inline(always)]
    fn deinterleave(a: Self, a_odd: bool, b: Self, b_odd: bool) -> Self {
        // Each byte wanted in the low byte of its pair, the other byte zero, then the
        // pairs packed to bytes (none saturates).
        let low = |r: m128i, odd: bool| {
            if odd {
                shr_imm_u16_m128i::<8>(r)
            } else {
                bitand_m128i(r, set_splat_i16_m128i(0x00ff))
            }
        };
        pack_i16_to_u8_m128i(low(a, a_odd), low(b, b_odd))
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        bitor_m128i(self, other)
    }
}

/// A register with the two bytes of each pair exchanged.
#[inline(always)]
fn swap_pairs(r: m128i) -> m128i {
    bitor_m128i(shl_imm_u16_m128i::<8>(r), shr_imm_u16_m128i::<8>(r))
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
pub(crate) fn swapped<const W: usize>(src: &[u8], dst: &mut [u8]) {
    const { assert!(W == 2 || W == 4 || W == 8) };
    let whole = src;
    let mut src = src.chunks_exact(64);
    let mut dst = dst.chunks_exact_mut(64);
    for (i, (s, d)) in (&mut src).zip(&mut dst).enumerate() {
        super::request_ahead(whole, i * 64);
        let mut registers: [m128i; 4] = bytemuck::pod_read_unaligned(s);
        // A loop, not `map`: a call to `map` can stay out of line, spilling every step.
        for r in &mut registers {
            *r = swap_words::<W>(*r);
        }
        d.copy_from_slice(bytemuck::bytes_of(&registers));
    }
    super::portable::swapped_words::<W>(src.remainder(), dst.into_remainder());
}

/// Hint that `x` is needed soon, into the second-level cache (`write`: it is about to be
/// overwritten).
#[inline(always)]
pub(crate) fn hint<T>(x: &T, write: bool) {
    if write {
        safe_arch::prefetch_et1(x)
    } else {
        safe_arch::prefetch_t1(x)
    }
}

/// Ask for the cache line of `x` into the first-level cache.
#[inline(always)]
pub(crate) fn request<T>(x: &T) {
    safe_arch::prefetch_t0(x);
}
