//! The one place that picks the instruction set: SSE2 on x86 and x86-64 targets that have
//! it (every x86-64), plain bytes elsewhere. Above it, the kernels name a [`Register`] of 16
//! bytes and its [`Vector`] operations, the bulk byte swap [`swapped`] and the cache hints,
//! and never a target feature.

use bytemuck::Pod;

mod portable;
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
mod sse2;

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
pub(crate) use sse2::{BULK_SWAP, Register, hint, request, swapped};

#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
pub(crate) use plain::{BULK_SWAP, Register, hint, request, swapped};

/// Targets without SSE2: the rectangles in plain byte arrays, byteorder's bulk conversions,
/// and no cache hints.
#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
mod plain {
    pub(crate) use super::portable::swapped_words as swapped;

    /// The registers of the rectangles: 16 bytes in memory order.
    pub(crate) type Register = [u8; 16];

    /// Whether [`swapped`] beats byteorder's bulk conversions: not without SSE2.
    pub(crate) const BULK_SWAP: bool = false;

    /// No hint on this target.
    #[inline(always)]
    pub(crate) fn hint<T>(_: &T, _: bool) {}

    /// No hint on this target.
    #[inline(always)]
    pub(crate) fn request<T>(_: &T) {}
}

/// A register of 16 bytes in memory order, as the kernels use it.
pub(crate) trait Vector: Pod {
    /// The `W`-byte elements of the low (`a_high`: high) half of `a` and the low
    /// (`b_high`: high) half of `b`, alternately: a₀ b₀ a₁ b₁ …
    fn interleave<const W: usize>(a: Self, a_high: bool, b: Self, b_high: bool) -> Self;
    /// Each `W`-byte element (W = 2, 4 or 8) with its bytes reversed.
    fn swap_words<const W: usize>(self) -> Self;
    /// The even (`a_odd`: odd) bytes of `a`, then the even (`b_odd`: odd) bytes of `b`.
    fn deinterleave(a: Self, a_odd: bool, b: Self, b_odd: bool) -> Self;
    /// The OR of the bits of `self` and `other`.
    fn or(self, other: Self) -> Self;
}

/// Bytes ahead of a bulk conversion that its source is requested, one cache line per
/// 64-byte step. Converting into a fresh `Vec` takes a page fault every 4 KiB, after which
/// the hardware prefetcher starts the source over from cold; two pages ahead, the source
/// keeps streaming (benches/NOTES.md, `src/arch/`).
const AHEAD: usize = 8 * 1024;

/// Ask for the cache line [`AHEAD`] bytes past `at` in `bytes`, if there is one: called
/// once per 64 bytes of a bulk conversion.
#[inline(always)]
pub(crate) fn request_ahead(bytes: &[u8], at: usize) {
    if let Some(x) = bytes.get(at + AHEAD) {
        request(x);
    }
}

#[cfg(test)]
mod tests {
    /// The bulk swap against its definition, for lengths around its 64-byte steps.
    #[test]
    fn bulk_swap_reverses_every_word() {
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
}
