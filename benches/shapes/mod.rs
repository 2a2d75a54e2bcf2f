//! The array shapes the benchmarks and `perf_table` measure, shared so both measure alike.

/// A near-square shape of `n` elements whose column count is a power of two dividing `n`.
pub fn shape2(n: usize) -> (usize, usize) {
    let mut cols = 1;
    while cols * cols * 4 <= n && n % (cols * 2) == 0 {
        cols *= 2;
    }
    (n / cols, cols)
}

/// Three axes of `n` elements: 4 (when it divides `n`) × a [`shape2`].
pub fn shape3(n: usize) -> (usize, usize, usize) {
    let d0 = if n % 4 == 0 { 4 } else { 1 };
    let (d1, d2) = shape2(n / d0);
    (d0, d1, d2)
}
