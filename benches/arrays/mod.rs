//! The arrays the benchmarks and `perf_table` measure, shared so both measure alike: their
//! shapes, the same logical values in each layout, and a sink for `write_zarr_bytes`.

use std::hint::black_box;
use std::io;

use ndarray::{s, Array2, Array3, ArrayViewD, ArrayViewMutD, ShapeBuilder};

/// A near-square shape of `n` elements whose column count is a power of two dividing `n`.
pub fn shape2(n: usize) -> (usize, usize) {
    let mut cols = 1;
    while cols * cols * 4 <= n && n % (cols * 2) == 0 {
        cols *= 2;
    }
    (n / cols, cols)
}

/// Three axes of `n` elements: `planes` (when it divides `n`) × a [`shape2`].
pub fn shape3(n: usize, planes: usize) -> (usize, usize, usize) {
    let d0 = if planes > 0 && n % planes == 0 {
        planes
    } else {
        1
    };
    let (d1, d2) = shape2(n / d0);
    (d0, d1, d2)
}

/// The layouts every conversion is measured in, in the tables' order: `standard` (C order),
/// `fortran`, `transposed` (the `.t()` view of a C-order array), `3d-swapped` (a 3-D
/// C-order array with its last two axes swapped), `3d-201` (a 3-D C-order array with
/// its axes permuted by `(2, 0, 1)`: planes of an interleaved image, whose contiguous axis
/// is as long as there are planes, 4 unless asked otherwise) and `fortran-part` (the
/// first rows of a Fortran-order array [`PART_ROWS`] rows taller, as a chunk of a taller
/// array is: no one memory slice), then the [`CHUNKS`].
pub const LAYOUTS: [&str; 9] = [
    "standard",
    "fortran",
    "transposed",
    "3d-swapped",
    "3d-201",
    "fortran-part",
    "fortran-chunk",
    "3d-swapped-chunk",
    "standard-chunk",
];

/// The chunk layouts, each with the whole layout of its shape: the chunk at index (1, 1)
/// of a 2 × 2 grid over the last two axes of an array twice as long along each, in
/// Fortran order, a stack stored (z, x, y) (the memory of `3d-swapped`) and C order, as a
/// Zarr writer cuts a big array into chunks and a reader decodes into them. Neither is one
/// memory slice, and each starts at an offset along both axes.
#[allow(dead_code)] // `perf_table` pairs them; the benchmarks do not.
pub const CHUNKS: [(&str, &str); 3] = [
    ("fortran-chunk", "fortran"),
    ("3d-swapped-chunk", "3d-swapped"),
    ("standard-chunk", "standard"),
];

/// The rows of the `fortran-part` layout's array that its view leaves out.
pub const PART_ROWS: usize = 16;

/// One array of one element type in each of [`LAYOUTS`]. Every layout holds the same
/// logical values, so every path converts exactly the same bytes.
pub struct Arrays<T> {
    pub standard: Array2<T>,
    pub fortran: Array2<T>,
    /// C order with the axes reversed: its `.t()` is the transposed view.
    pub transposed: Array2<T>,
    /// C order with the last two axes swapped: swapping them back gives the 3-D view.
    pub swapped: Array3<T>,
    /// C order with axes (1, 2, 0) of the 3-D view: permuting by (2, 0, 1) gives it.
    pub planes: Array3<T>,
    /// Fortran order, [`PART_ROWS`] rows taller: its first rows give the part's view.
    pub part: Array2<T>,
    /// Fortran order, twice as long along each axis: its chunk (1, 1) is `fortran-chunk`.
    pub fortran_big: Array2<T>,
    /// As `swapped`, twice as long along its last two axes: `3d-swapped-chunk`.
    pub swapped_big: Array3<T>,
    /// C order, twice as long along each axis: `standard-chunk`.
    pub standard_big: Array2<T>,
}

impl<T> Arrays<T> {
    /// `n` elements in each layout, element `i` of the C-order stream being `value(i)`;
    /// the 3-D layouts hold `planes` planes when that divides `n`.
    pub fn new(n: usize, planes: usize, value: fn(usize) -> T) -> Arrays<T> {
        let (rows, cols) = shape2(n);
        let (d0, d1, d2) = shape3(n, planes);
        Arrays {
            standard: Array2::from_shape_fn((rows, cols), |(i, j)| value(i * cols + j)),
            fortran: Array2::from_shape_fn((rows, cols).f(), |(i, j)| value(i * cols + j)),
            transposed: Array2::from_shape_fn((cols, rows), |(j, i)| value(i * cols + j)),
            swapped: Array3::from_shape_fn((d0, d2, d1), |(a, k, j)| value((a * d1 + j) * d2 + k)),
            planes: Array3::from_shape_fn((d1, d2, d0), |(j, k, a)| value((a * d1 + j) * d2 + k)),
            part: Array2::from_shape_fn((rows + PART_ROWS, cols).f(), |(i, j)| value(i * cols + j)),
            // Every chunk of the grid holds the same values, the chunk's.
            fortran_big: Array2::from_shape_fn((2 * rows, 2 * cols).f(), |(i, j)| {
                value(i % rows * cols + j % cols)
            }),
            swapped_big: Array3::from_shape_fn((d0, 2 * d2, 2 * d1), |(a, k, j)| {
                value((a * d1 + j % d1) * d2 + k % d2)
            }),
            standard_big: Array2::from_shape_fn((2 * rows, 2 * cols), |(i, j)| {
                value(i % rows * cols + j % cols)
            }),
        }
    }

    /// The shape of the chunk layouts' chunks: the whole 2-D arrays', and the 3-D stack's.
    fn chunk_2d(&self) -> (usize, usize) {
        self.standard.dim()
    }

    /// The array in `layout`, as the paths see it.
    pub fn view(&self, layout: &str) -> ArrayViewD<'_, T> {
        match layout {
            "standard" => self.standard.view().into_dyn(),
            "fortran" => self.fortran.view().into_dyn(),
            "transposed" => self.transposed.t().into_dyn(),
            "3d-swapped" => self.swapped.view().permuted_axes([0, 2, 1]).into_dyn(),
            "3d-201" => self.planes.view().permuted_axes([2, 0, 1]).into_dyn(),
            "fortran-part" => self.part.slice(s![..self.standard.nrows(), ..]).into_dyn(),
            "fortran-chunk" => {
                let (r, c) = self.chunk_2d();
                self.fortran_big.slice(s![r.., c..]).into_dyn()
            }
            "3d-swapped-chunk" => {
                let (_, k, j) = self.swapped.dim();
                let v = self.swapped_big.view().permuted_axes([0, 2, 1]);
                v.slice_move(s![.., j.., k..]).into_dyn()
            }
            "standard-chunk" => {
                let (r, c) = self.chunk_2d();
                self.standard_big.slice(s![r.., c..]).into_dyn()
            }
            _ => unreachable!("a layout of LAYOUTS"),
        }
    }

    /// [`Arrays::view`], to decode into.
    pub fn view_mut(&mut self, layout: &str) -> ArrayViewMutD<'_, T> {
        match layout {
            "standard" => self.standard.view_mut().into_dyn(),
            "fortran" => self.fortran.view_mut().into_dyn(),
            "transposed" => self.transposed.view_mut().reversed_axes().into_dyn(),
            "3d-swapped" => self.swapped.view_mut().permuted_axes([0, 2, 1]).into_dyn(),
            "3d-201" => self.planes.view_mut().permuted_axes([2, 0, 1]).into_dyn(),
            "fortran-part" => {
                let rows = self.standard.nrows();
                self.part.slice_mut(s![..rows, ..]).into_dyn()
            }
            "fortran-chunk" => {
                let (r, c) = self.chunk_2d();
                self.fortran_big.slice_mut(s![r.., c..]).into_dyn()
            }
            "3d-swapped-chunk" => {
                let (_, k, j) = self.swapped.dim();
                let v = self.swapped_big.view_mut().permuted_axes([0, 2, 1]);
                v.slice_move(s![.., j.., k..]).into_dyn()
            }
            "standard-chunk" => {
                let (r, c) = self.chunk_2d();
                self.standard_big.slice_mut(s![r.., c..]).into_dyn()
            }
            _ => unreachable!("a layout of LAYOUTS"),
        }
    }
}

/// A writer that keeps nothing, but whose every write the compiler must assume is read,
/// so the bytes written to it are computed (`io::sink()` lets it drop the work).
pub struct Sink;

impl io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        black_box(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
