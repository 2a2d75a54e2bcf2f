//! Plain bytes: the registers of targets without SSE2, and the definition the SSE2
//! registers are tested against on every target; the bulk byte swap one word at a time.

use super::Vector;

/// A register in plain bytes: the kernels of targets without SSE2, and the definition the
/// SSE2 registers are tested against on every target.
impl Vector for [u8; 16] {
    #[inline(always)]
    fn interleave<const W: usize>(a: Self, a_high: bool, b: Self, b_high: bool) -> Self {
        let mut r = [0u8; 16];
        let (a_at, b_at) = (if a_high { 8 } else { 0 }, if b_high { 8 } else { 0 });
        for (i, pair) in r.chunks_exact_mut(2 * W).enumerate() {
            pair[..W].copy_from_slice(&a[a_at + i * W..][..W]);
            pair[W..].copy_from_slice(&b[b_at + i * W..][..W]);
        }
        r
    }

    #[inline(always)]
    fn swap_words<const W: usize>(mut self) -> Self {
        for word in self.chunks_exact_mut(W) {
            word.reverse();
        }
        self
    }

    #[inline(always)]
    fn deinterleave(a: Self, a_odd: bool, b: Self, b_odd: bool) -> Self {
        let mut r = [0u8; 16];
        let (low, high) = r.split_at_mut(8);
        for (half, register, odd) in [(low, a, a_odd), (high, b, b_odd)] {
            let bytes = register.iter().skip(usize::from(odd)).step_by(2);
            half.iter_mut().zip(bytes).for_each(|(h, &x)| *h = x);
        }
        r
    }

    #[inline(always)]
    fn or(mut self, other: Self) -> Self {
        self.iter_mut().zip(other).for_each(|(a, b)| *a |= b);
        self
    }
}

/// `dst` becomes `src` with the bytes of each W-byte word reversed, one word at a time.
#[inline]
pub(crate) fn swapped_words<const W: usize>(src: &[u8], dst: &mut [u8]) {
    for (s, d) in src.chunks_exact(W).zip(dst.chunks_exact_mut(W)) {
        d.iter_mut().zip(s.iter().rev()).for_each(|(d, &s)| *d = s);
    }
}
