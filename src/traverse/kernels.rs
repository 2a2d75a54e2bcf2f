//! The kernels: how the elements of one rectangle of a tile, or of one bulk conversion,
//! move on this target. The size of an element and the height of a tile pick how its
//! elements move, here and nowhere else ([`gather`], [`scatter`]): 1-, 2- and 4-byte
//! elements in rectangles transposed in registers ([`transposed`]), 8- and 16-byte ones in
//! rectangles of 4 × 4 moved one by one ([`moved`]) when the tile is 4 rows high, and one
//! by one down each column otherwise. 1-byte elements that are not `Pod` (`bool`,
//! minifloats in the low bits of a byte) move as bytes in the byte rectangles
//! ([`scatter_bytes`]), which give the OR of the bytes they moved for `bool`'s check; raw
//! bits move one by one ([`gather_each`], [`scatter_each`]).

use bytemuck::{Pod, Zeroable};

use super::{Block, Columns, ColumnsMut};
use crate::arch::{Register, Vector};

/// Gather `block` of `memory` into `scratch` in stream order (see [`super::gather()`]); with
/// `swap`, each element goes through `swapped`, which reverses the bytes of its components
/// (`WORD` bytes each).
///
/// The table of rectangles: R rows (along memory) × K columns (along the stream) of
/// `size`-byte elements, N registers of 16 bytes, transposed in log2(K) rounds. Tiles
/// whose rows run along memory for 16 elements or more move 1-byte elements in 16 × 8
/// rectangles, 2-byte elements in 8 × 8 squares (scattered in 8 × 4 rectangles: see
/// [`scatter`]); short rows (4 to 15 elements, as in a stack of 4 planes stored
/// interleaved) in 4 × 16 and 4 × 8 rectangles, which also move a lone row of elements 4
/// apart (one of those planes) as their first rows. Tiles of exactly 3 rows (a stack of 3
/// planes, an RGB image) move 1-byte elements in 3 × 16 rectangles of 3 registers, and
/// scatter them in the inverse rounds of [`untransposed`], both much faster than row by
/// row; their 2- and 4-byte elements gained nothing over moving row by row when gathered,
/// and have no inverse rounds in SSE2, which packs only 2-byte lanes to bytes. 4-byte
/// elements move in 4 × 4 squares for any tile of 4 rows or more (faster), gathered
/// two side by side ([`side_by_side`]), which halves the bookkeeping per square;
/// 2-byte elements in two 8 × 8 squares gained nothing. 8- and 16-byte elements move one
/// by one down each column of a tall tile, faster than squares, whose registers spill, and
/// than converting the rows of the tile afterwards in bulk; in a tile of exactly 4 rows,
/// whose columns are 4 elements, they move in 4 × 4 squares of single moves, which spare
/// each short column its own loop (benches/NOTES.md, `src/traverse/kernels.rs`). The
/// casts between `A` and the registers are by the size just matched.
#[inline(always)]
pub(crate) fn gather<A: Pod, M: Columns<A> + ?Sized, const WORD: usize>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    let convert = |x: A| if swap { swapped(x) } else { x };
    let size = const { std::mem::size_of::<A>() };
    // A row of 1- or 2-byte elements 4 apart in memory (one of 4 planes stored
    // interleaved, which a window of `write_zarr_bytes` holds on its own) moves as the
    // first rows of the rectangles of 4 rows, whose other rows are the memory between,
    // rather than element by element, which is faster (4-byte and wider elements gained
    // nothing); so does a row of 1-byte elements 3 apart, through the 3-row rectangles
    // (benches/NOTES.md, `src/traverse/kernels.rs`).
    let rows = match block.rows {
        1 if size <= 2 && block.col_step == 4 => 4,
        1 if size == 1 && block.col_step == 3 => 3,
        rows => rows,
    };
    // The size is matched as a constant, so each element type instantiates its own arms
    // only.
    match const { std::mem::size_of::<A>() } {
        1 => match rows {
            16.. => super::gather::<A, M, 16, 8>(memory, block, scratch, convert, |s| {
                transposed::<Register, _, _, 8, 1, 1, 3>(s, false)
            }),
            4.. => super::gather::<A, M, 4, 16>(memory, block, scratch, convert, |s| {
                transposed::<Register, _, _, 4, 1, 1, 4>(s, false)
            }),
            3 => super::gather::<A, M, 3, 16>(memory, block, scratch, convert, |s| {
                transposed::<Register, _, _, 3, 1, 1, 4>(s, false)
            }),
            _ => gather_each(memory, block, scratch, swap, swapped),
        },
        2 => match rows {
            8.. => super::gather::<A, M, 8, 8>(memory, block, scratch, convert, |s| {
                transposed::<Register, _, _, 8, 2, WORD, 3>(s, swap)
            }),
            4.. => super::gather::<A, M, 4, 8>(memory, block, scratch, convert, |s| {
                transposed::<Register, _, _, 4, 2, WORD, 3>(s, swap)
            }),
            _ => gather_each(memory, block, scratch, swap, swapped),
        },
        4 if rows >= 4 => super::gather::<A, M, 4, 8>(memory, block, scratch, convert, |s| {
            side_by_side::<A, 4, 4, 8>(s, |s| transposed::<Register, _, _, 4, 4, WORD, 2>(s, swap))
        }),
        8 | 16 if rows == 4 => {
            super::gather::<A, M, 4, 4>(memory, block, scratch, convert, |s| moved(s, convert))
        }
        _ => gather_each(memory, block, scratch, swap, swapped),
    }
}

/// Two rectangles of R rows × K columns side by side, each moved by `kernel`: K2 = 2K
/// column runs of R elements become R rows of K2.
#[inline(always)]
fn side_by_side<A: Pod, const R: usize, const K: usize, const K2: usize>(
    s: [[A; R]; K2],
    kernel: impl Fn([[A; R]; K]) -> [[A; K]; R],
) -> [[A; K2]; R] {
    const { assert!(K2 == 2 * K) };
    let [left, right]: [[[A; R]; K]; 2] = bytemuck::cast(s);
    let (left, right) = (kernel(left), kernel(right));
    let mut rows = [[s[0][0]; K2]; R];
    for ((row, l), r) in rows.iter_mut().zip(&left).zip(&right) {
        row[..K].copy_from_slice(l);
        row[K..].copy_from_slice(r);
    }
    rows
}

/// A rectangle transposed one element at a time, each through `convert`: the kernel of
/// elements wider than half a register.
#[inline(always)]
fn moved<A: Copy, const R: usize, const K: usize>(
    s: [[A; R]; K],
    convert: impl Fn(A) -> A,
) -> [[A; K]; R] {
    let mut t = [[s[0][0]; K]; R];
    for (j, run) in s.iter().enumerate() {
        for (i, &x) in run.iter().enumerate() {
            t[i][j] = convert(x);
        }
    }
    t
}

/// Scatter `scratch`, in stream order, into `block` of `memory` (see [`super::scatter`]),
/// in the rectangles of [`gather`], transposed back in log2(R) rounds, except that tiles of
/// 2-byte elements 8 rows high or more scatter in 8 × 4 rectangles of 4 registers rather
/// than 8 × 8 squares. A square stores into 8 columns at once, 16 bytes into each, so 8
/// cache lines fill together; where the columns lie a multiple of 4 KiB apart (axes of
/// power-of-two lengths) those lines share one set of an 8-way first-level cache and push
/// each other out before they are full; the 8 × 4 rectangles decode faster, and gathering
/// in them was slower. 1-byte elements scatter in 16 × 4 rectangles where their columns
/// lie a multiple of 4 KiB apart ([`columns_alias`]), which decodes `u8` faster there;
/// elsewhere they scatter in 16 × 8, as 16 × 4 was slower there
/// (benches/NOTES.md, `src/traverse/kernels.rs`).
///
/// Each element is a `P` in the scratch buffer and becomes an `A` through `finish` (the
/// identity for `Pod` elements; the element a valid byte stands for when 1-byte elements
/// move as bytes). With `SEEN` (1-byte elements only), the result is the OR of every byte
/// moved, which tells a check whether any was above a bound; without, it is 0. The
/// rectangles' bytes are ORed as whole registers into one that the compiler keeps in a
/// register through the tile. A flag set for each element instead was a mask reduced to
/// a bit and stored for each rectangle, which took more work per byte
/// (benches/NOTES.md, `src/traverse/kernels.rs`).
#[inline(always)]
pub(crate) fn scatter<
    P: Pod,
    A: Copy + Zeroable,
    M: ColumnsMut<A> + ?Sized,
    const WORD: usize,
    const SEEN: bool,
>(
    scratch: &[P],
    block: &Block,
    memory: &mut M,
    swap: bool,
    swapped: impl Fn(P) -> P,
    finish: impl Fn(P) -> A,
) -> u8 {
    // Only the 1-byte arms see their rectangles.
    const { assert!(!SEEN || std::mem::size_of::<P>() == 1) };
    // With SEEN, the OR of the bytes moved: whole rectangles into a register, which
    // stays one through the loop, and single elements into a byte.
    let mut rectangles = Register::zeroed();
    let elements = std::cell::Cell::new(0u8);
    let see_element = |x: P| {
        if SEEN {
            elements.set(or_bytes(elements.get(), &x));
        }
        x
    };
    let each = |x: P| finish(see_element(x));
    let each_swapped = |x: P| finish(swapped(see_element(x)));
    let convert = |x: P| if swap { each_swapped(x) } else { each(x) };
    let seen = &mut rectangles;
    // The size is matched as a constant, so each element type instantiates its own arms
    // only; the rest move one element at a time, in two loops rather than a test per
    // element.
    let each_one = |memory: &mut M| {
        if swap {
            super::scatter::<P, A, M, 1, 1>(scratch, block, memory, each_swapped, &finish, |s| s)
        } else {
            super::scatter::<P, A, M, 1, 1>(scratch, block, memory, each, &finish, |s| s)
        }
    };
    let size = const { std::mem::size_of::<P>() };
    match size {
        1 => match block.rows {
            16.. if columns_alias(block, size) => {
                super::scatter::<P, A, M, 16, 4>(scratch, block, memory, convert, &finish, |s| {
                    see::<SEEN, _, 4>(seen, transposed::<Register, _, _, 4, 1, 1, 4>(s, false))
                })
            }
            16.. => {
                super::scatter::<P, A, M, 16, 8>(scratch, block, memory, convert, &finish, |s| {
                    see::<SEEN, _, 8>(seen, transposed::<Register, _, _, 8, 1, 1, 4>(s, false))
                })
            }
            4.. => {
                super::scatter::<P, A, M, 4, 16>(scratch, block, memory, convert, &finish, |s| {
                    see::<SEEN, _, 4>(seen, transposed::<Register, _, _, 4, 1, 1, 2>(s, false))
                })
            }
            3 => super::scatter::<P, A, M, 3, 16>(scratch, block, memory, convert, &finish, |s| {
                see::<SEEN, _, 3>(seen, untransposed::<Register, _, _, 3, 4>(s))
            }),
            _ => each_one(memory),
        },
        2 => match block.rows {
            8.. => super::scatter::<P, A, M, 8, 4>(scratch, block, memory, convert, &finish, |s| {
                transposed::<Register, _, _, 4, 2, WORD, 3>(s, swap)
            }),
            4.. => super::scatter::<P, A, M, 4, 8>(scratch, block, memory, convert, &finish, |s| {
                transposed::<Register, _, _, 4, 2, WORD, 2>(s, swap)
            }),
            _ => each_one(memory),
        },
        4 if block.rows >= 4 => {
            super::scatter::<P, A, M, 4, 4>(scratch, block, memory, convert, &finish, |s| {
                transposed::<Register, _, _, 4, 4, WORD, 2>(s, swap)
            })
        }
        8 | 16 if block.rows == 4 => {
            super::scatter::<P, A, M, 4, 4>(scratch, block, memory, convert, &finish, |s| {
                moved(s, |x| if swap { swapped(x) } else { x })
            })
        }
        _ => each_one(memory),
    }
    let rectangles: [u8; 16] = bytemuck::cast(rectangles);
    rectangles.iter().fold(elements.get(), |or, &b| or | b)
}

/// `rectangle`, whose bytes are N registers, with them ORed into `seen` when SEEN.
#[inline(always)]
fn see<const SEEN: bool, T: Pod, const N: usize>(seen: &mut Register, rectangle: T) -> T {
    if SEEN {
        let registers: [Register; N] = bytemuck::cast(rectangle);
        // A loop, not `fold`: a call can stay out of line.
        for r in registers {
            *seen = seen.or(r);
        }
    }
    rectangle
}

/// `or` with the bytes of `x` ORed into it.
#[inline(always)]
fn or_bytes<T: Pod>(or: u8, x: &T) -> u8 {
    bytemuck::bytes_of(x).iter().fold(or, |or, &b| or | b)
}

/// Whether the columns of `block`, of `size`-byte elements, lie a multiple of 4 KiB apart
/// in memory (axes of power-of-two lengths), so that the same line of each falls into the
/// same set of the first-level cache, whose 8 ways the 8 columns of a rectangle then fill.
fn columns_alias(block: &Block, size: usize) -> bool {
    (block.col_step.unsigned_abs() * size) % 4096 == 0
}

/// Scatter a tile of the encoded bytes of 1-byte elements that are not `Pod` (`bool`, the
/// low-bit minifloats): the tile moves as bytes in the byte rectangles, and each byte
/// becomes an element through `from_byte` as it is stored. With `SEEN`, the OR of every
/// byte moved ([`scatter`]).
#[inline(always)]
pub(crate) fn scatter_bytes<A: Copy + Zeroable, M: ColumnsMut<A> + ?Sized, const SEEN: bool>(
    scratch: &[u8],
    block: &Block,
    memory: &mut M,
    from_byte: impl Fn(u8) -> A,
) -> u8 {
    scatter::<_, _, _, 1, SEEN>(scratch, block, memory, false, |x| x, from_byte)
}

/// A rectangle of `W`-byte elements held in N registers of type `L`, transposed: K runs of R elements
/// (`S = [[A; R]; K]`) become R runs of K (`T = [[A; K]; R]`) in `ROUNDS` = log2(K) rounds,
/// with `swap` the bytes of each `WORD`-byte component reversed too (4 for `f32`, 2 for a
/// `Complex<f16>`).
///
/// Number the elements in memory order: element (j, i) of `S` is number j·R + i. Each round
/// interleaves the first half of the elements with the second half (a perfect shuffle):
/// register `k` takes the k-th 8 bytes of each half. That moves every element from number
/// x to 2x modulo RK − 1 (the last one stays), so log2(K) rounds move j·R + i to
/// (j·R + i)·K = i·K + j modulo RK − 1: element (i, j) of `T`. With R a power of two, the
/// halves are whole registers, `k / 2` and `k / 2 + N/2`; with R = 3, the middle register
/// is split between them. The casts cannot fail for the sizes the table pairs.
#[inline(always)]
fn transposed<
    L: Vector,
    S: Pod,
    T: Pod,
    const N: usize,
    const W: usize,
    const WORD: usize,
    const ROUNDS: usize,
>(
    s: S,
    swap: bool,
) -> T {
    let mut registers: [L; N] = bytemuck::cast(s);
    for _ in 0..ROUNDS {
        registers = interleaved::<_, N, W>(registers);
    }
    if swap && WORD > 1 {
        // A loop, not `map`: a call to `map` can stay out of line, spilling every step.
        for r in &mut registers {
            *r = r.swap_words::<WORD>();
        }
    }
    bytemuck::cast(registers)
}

/// One round of [`transposed`]: register `k` interleaves the k-th 8 bytes of the first half
/// of the registers with the k-th 8 bytes of the second half, `W` bytes at a time.
#[inline(always)]
fn interleaved<R: Vector, const N: usize, const W: usize>(registers: [R; N]) -> [R; N] {
    std::array::from_fn(|k| {
        let (a, b) = (registers[k / 2], registers[(N + k) / 2]);
        R::interleave::<W>(a, k % 2 == 1, b, (N + k) % 2 == 1)
    })
}

/// A rectangle of 1-byte elements held in N registers of type `L`, transposed by the
/// inverse rounds of [`transposed`]: R runs of K (`S = [[u8; K]; R]`) become K runs of R
/// (`T = [[u8; R]; K]`) in `ROUNDS` = log2(K) rounds. Each round takes the elements at even
/// numbers, then those at odd numbers, which moves x to x / 2 modulo RK − 1: the inverse
/// of a perfect shuffle. So log2(K) rounds move i·K + j to j·R + i, for any R; for a height
/// that is no power of two, [`transposed`] would take many more rounds (3x modulo 47, for
/// 3 × 16, is 19 perfect shuffles).
#[inline(always)]
fn untransposed<L: Vector, S: Pod, T: Pod, const N: usize, const ROUNDS: usize>(s: S) -> T {
    let mut registers: [L; N] = bytemuck::cast(s);
    for _ in 0..ROUNDS {
        registers = deinterleaved::<_, N>(registers);
    }
    bytemuck::cast(registers)
}

/// One round of [`untransposed`]: the even bytes of every register, then the odd ones.
/// Each register yields 8 of each, so the output's 8-byte halves are the even halves of
/// registers 0 to N − 1, then their odd halves, and register k packs halves 2k and 2k + 1.
#[inline(always)]
fn deinterleaved<R: Vector, const N: usize>(registers: [R; N]) -> [R; N] {
    std::array::from_fn(|k| {
        let (a, b) = (2 * k, 2 * k + 1);
        R::deinterleave(registers[a % N], a >= N, registers[b % N], b >= N)
    })
}

/// Gather `block` element by element (see [`gather`]).
#[inline(always)]
pub(crate) fn gather_each<A: Copy, M: Columns<A> + ?Sized>(
    memory: &M,
    block: &Block,
    scratch: &mut [A],
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    // Two loops rather than a test per element.
    if swap {
        super::gather_elements(memory, block, scratch, swapped);
    } else {
        super::gather_elements(memory, block, scratch, |x| x);
    }
}

/// Scatter `block` element by element (see [`scatter`]).
#[inline(always)]
pub(crate) fn scatter_each<A: Copy + Zeroable, M: ColumnsMut<A> + ?Sized>(
    scratch: &[A],
    block: &Block,
    memory: &mut M,
    swap: bool,
    swapped: impl Fn(A) -> A,
) {
    if swap {
        super::scatter::<_, _, M, 1, 1>(scratch, block, memory, swapped, |x| x, |s| s);
    } else {
        super::scatter::<_, _, M, 1, 1>(scratch, block, memory, |x| x, |x| x, |s| s);
    }
}

#[cfg(test)]
mod tests {
    use bytemuck::Pod;

    use super::{Block, Register, side_by_side, transposed, untransposed};

    /// K runs of R elements, element `j * R + i` being run j's i-th.
    fn runs_of<T, const R: usize, const K: usize>(element: impl Fn(usize) -> T) -> [[T; R]; K] {
        std::array::from_fn(|j| std::array::from_fn(|i| element(j * R + i)))
    }

    /// The definition of a transposition: row i holds the i-th element of every run, each
    /// through `s`.
    fn rows_of_runs<T: Copy, const R: usize, const K: usize>(
        runs: &[[T; R]; K],
        s: impl Fn(T) -> T,
    ) -> [[T; K]; R] {
        std::array::from_fn(|i| std::array::from_fn(|j| s(runs[j][i])))
    }

    /// Every rectangle of the table, forward (K runs of R, in `FORWARD` = log2(K) rounds)
    /// and back (R runs of K, in `BACK` = log2(R) rounds, or for a height that is no power
    /// of two in log2(K) inverse rounds), with plain byte registers and with this target's,
    /// against the definition: `result[i][j] == runs[j][i]`, each element's bytes reversed
    /// when asked; and the 4 × 8 rectangles of two squares side by side, forward.
    #[test]
    fn rectangles_transpose() {
        fn check<
            T: Pod + std::fmt::Debug + PartialEq,
            const R: usize,
            const K: usize,
            const N: usize,
            const W: usize,
            const WORD: usize,
            const FORWARD: usize,
            const BACK: usize,
        >(
            element: impl Fn(usize) -> T,
            swapped: impl Fn(T) -> T,
        ) {
            assert_eq!(FORWARD, K.trailing_zeros() as usize, "rounds of {R} × {K}");
            // Rows of a height that is no power of two go back in inverse rounds.
            let back_too = R.is_power_of_two();
            if back_too {
                assert_eq!(
                    BACK,
                    R.trailing_zeros() as usize,
                    "rounds of {R} × {K} back"
                );
            } else {
                assert_eq!(W, 1, "inverse rounds move bytes");
            }
            let runs: [[T; R]; K] = runs_of(&element);
            let rows = rows_of_runs(&runs, |x| x);
            for swap in [false, true] {
                if swap && WORD == 1 {
                    continue;
                }
                let s = |x: T| if swap { swapped(x) } else { x };
                let forward = rows_of_runs(&runs, s);
                let back: [[T; R]; K] = runs.map(|r| r.map(s));
                let ctx = format!("{R} × {K}, {W}-byte elements, swap {WORD}-byte words {swap}");
                let got: [[T; K]; R] =
                    transposed::<[u8; 16], _, _, N, W, WORD, FORWARD>(runs, swap);
                assert_eq!(got, forward, "plain registers forward, {ctx}");
                let got: [[T; K]; R] =
                    transposed::<Register, _, _, N, W, WORD, FORWARD>(runs, swap);
                assert_eq!(got, forward, "target registers forward, {ctx}");
                if back_too {
                    let got: [[T; R]; K] =
                        transposed::<[u8; 16], _, _, N, W, WORD, BACK>(rows, swap);
                    assert_eq!(got, back, "plain registers back, {ctx}");
                    let got: [[T; R]; K] =
                        transposed::<Register, _, _, N, W, WORD, BACK>(rows, swap);
                    assert_eq!(got, back, "target registers back, {ctx}");
                } else {
                    let got: [[T; R]; K] = untransposed::<[u8; 16], _, _, N, FORWARD>(rows);
                    assert_eq!(got, back, "plain registers, inverse rounds, {ctx}");
                    let got: [[T; R]; K] = untransposed::<Register, _, _, N, FORWARD>(rows);
                    assert_eq!(got, back, "target registers, inverse rounds, {ctx}");
                }
            }
        }
        let byte = |n: usize| (n * 7 + 3) as u8;
        let pair = |n: usize| (0x1200 + 0x101 * n) as u16;
        check::<u8, 16, 8, 8, 1, 1, 3, 4>(byte, |x| x);
        check::<u8, 16, 4, 4, 1, 1, 2, 4>(byte, |x| x);
        check::<u8, 4, 16, 4, 1, 1, 4, 2>(byte, |x| x);
        // Three registers: each round's halves straddle the middle one, and the way back
        // takes inverse rounds.
        check::<u8, 3, 16, 3, 1, 1, 4, 0>(byte, |x| x);
        check::<u16, 8, 8, 8, 2, 2, 3, 3>(pair, u16::swap_bytes);
        check::<u16, 4, 8, 4, 2, 2, 3, 2>(pair, u16::swap_bytes);
        // The rectangles that scatter 2-byte elements in tiles of 8 rows or more.
        check::<u16, 8, 4, 4, 2, 2, 2, 3>(pair, u16::swap_bytes);
        let word = |n: usize| (0x1020_3000 + 0x0101_0101 * n) as u32;
        check::<u32, 4, 4, 4, 4, 4, 2, 2>(word, u32::swap_bytes);
        // Two 2-byte components per element, as in a `Complex<f16>`.
        let pairs_swapped = |x: u32| ((x & 0x00ff_00ff) << 8) | ((x >> 8) & 0x00ff_00ff);
        check::<u32, 4, 4, 4, 4, 2, 2, 2>(word, pairs_swapped);

        // The 4 × 8 rectangles that gather 4-byte elements: two squares side by side.
        fn side_by_side_check<const WORD: usize>(
            element: impl Fn(usize) -> u32,
            swapped: impl Fn(u32) -> u32,
        ) {
            let runs: [[u32; 4]; 8] = runs_of(&element);
            for swap in [false, true] {
                let forward = rows_of_runs(&runs, |x| if swap { swapped(x) } else { x });
                let ctx = format!("4 × 8 side by side, {WORD}-byte words, swap {swap}");
                let got = side_by_side::<u32, 4, 4, 8>(runs, |s| {
                    transposed::<[u8; 16], _, _, 4, 4, WORD, 2>(s, swap)
                });
                assert_eq!(got, forward, "plain registers, {ctx}");
                let got = side_by_side::<u32, 4, 4, 8>(runs, |s| {
                    transposed::<Register, _, _, 4, 4, WORD, 2>(s, swap)
                });
                assert_eq!(got, forward, "target registers, {ctx}");
            }
        }
        side_by_side_check::<4>(word, u32::swap_bytes);
        side_by_side_check::<2>(word, pairs_swapped);
    }

    /// Rows of elements 3 or 4 apart (one of 3 or 4 planes stored interleaved) against the
    /// definition: each plane, widths around the rectangles' K columns, with and without a
    /// swap, in memory that ends with the last group of planes or right after the row's last
    /// element, so that the last rectangle of a plane past the first does not fit.
    #[test]
    fn rows_of_interleaved_planes() {
        fn check<A: Pod + std::fmt::Debug + PartialEq, const WORD: usize>(
            element: impl Fn(usize) -> A,
            swapped: impl Fn(A) -> A + Copy,
        ) {
            for (planes, cols) in [3, 4]
                .into_iter()
                .flat_map(|p| [1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100].map(|c| (p, c)))
            {
                let memory: Vec<A> = (0..planes * cols).map(&element).collect();
                for plane in 0..planes {
                    let block = Block {
                        start: plane,
                        rows: 1,
                        row_step: 1,
                        cols,
                        col_step: planes as isize,
                        out: 0,
                        out_row: cols,
                        pitch: cols,
                    };
                    for end in [memory.len(), plane + planes * (cols - 1) + 1] {
                        for swap in [false, true] {
                            let s = |x: A| if swap { swapped(x) } else { x };
                            let want: Vec<A> =
                                (0..cols).map(|c| s(memory[plane + planes * c])).collect();
                            let mut got = vec![A::zeroed(); cols];
                            super::gather::<A, _, WORD>(
                                &memory[..end],
                                &block,
                                &mut got,
                                swap,
                                swapped,
                            );
                            let ctx = format!(
                                "{cols} columns, plane {plane} of {planes}, memory of {end}"
                            );
                            assert_eq!(got, want, "{ctx}, swap {swap}");
                        }
                    }
                }
            }
        }
        check::<u8, 1>(|n| (n * 7 + 3) as u8, |x| x);
        check::<u16, 2>(|n| (0x1200 + 0x101 * n) as u16, u16::swap_bytes);
        check::<u32, 4>(|n| (0x1020_3000 + 0x0101_0101 * n) as u32, u32::swap_bytes);
        check::<u64, 8>(
            |n| 0x0102_0304_0506_0708u64.wrapping_mul(n as u64 + 1),
            u64::swap_bytes,
        );
    }

    /// A scatter of 1-byte elements that sees the bytes it moves, in every kernel of the
    /// table (16 × 4 where columns lie 4 KiB apart, forward and reversed, 16 × 8, 4 × 16,
    /// 3 × 16, packed and not, single elements, a lone row): a byte with its high bit set
    /// at each position in turn is in the OR it gives, the bytes of the scratch buffer
    /// it does not move (right of the block's columns) are not, and every element is
    /// `finish` of its byte while the memory between is left as it was.
    #[test]
    fn scatters_of_bytes_see_every_byte() {
        let pitch = crate::traverse::tile::<u8>().pitch;
        let geometries: [(usize, usize, isize); 9] = [
            (35, 9, 4096),
            (35, 9, -4096),
            (35, 19, 40),
            (10, 33, 12),
            (3, 37, 3),
            (3, 20, 5),
            (2, 9, 7),
            (1, 30, 3),
            (17, 4, 4096),
        ];
        for (rows, cols, col_step) in geometries {
            let pitch = if rows > 1 { pitch } else { cols };
            let reach = (cols - 1) * col_step.unsigned_abs();
            let block = Block {
                start: if col_step < 0 { reach } else { 0 },
                rows,
                row_step: 1,
                cols,
                col_step,
                out: 0,
                out_row: cols,
                pitch,
            };
            // Valid bytes where the block's elements are, 0x40 in the padding.
            let valid: Vec<u8> = (0..rows * pitch)
                .map(|i| {
                    if i % pitch < cols {
                        (i % 3 == 0) as u8
                    } else {
                        0x40
                    }
                })
                .collect();
            for (r, c) in (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))) {
                let mut scratch = valid.clone();
                scratch[r * pitch + c] = 0x80;
                let mut memory = vec![0xee; reach + rows];
                let or = super::scatter_bytes::<u8, [u8], true>(
                    &scratch,
                    &block,
                    &mut memory[..],
                    |x| x.wrapping_add(1),
                );
                let ctx = format!("{rows} × {cols}, columns {col_step} apart, ({r}, {c})");
                assert_eq!(or, 0x81, "{ctx}");
                let mut want = vec![0xee; memory.len()];
                for (i, j) in (0..rows).flat_map(|i| (0..cols).map(move |j| (i, j))) {
                    want[block.at(i, j)] = scratch[i * pitch + j].wrapping_add(1);
                }
                assert_eq!(memory, want, "{ctx}");
            }
        }
    }
}
