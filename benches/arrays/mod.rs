//! The arrays the benchmarks and `perf_table` measure, shared so both measure alike: their
//! shapes, the same logical values in each layout, a sink for `write_zarr_bytes`, and the
//! arrays cut in chunks of the grid rows with their sinks and sources.

use std::hint::black_box;
use std::io;
use std::sync::Mutex;

use ndarray::{Array2, Array3, ArrayD, ArrayViewD, ArrayViewMutD, ShapeBuilder, s};
use zarr_bytes::{ChunkDecodeInto, ChunkEncode, ChunkGrid, Element, Endian, Error};

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

/// The grid layouts, each with the whole layout whose memory order its array has: an array
/// cut in chunks by a [`ChunkGrid`] ([`Gridded`]), every chunk encoded with
/// `encode_zarr_chunks` and decoded with `decode_zarr_chunks_into`, beside the same array
/// whole.
pub const GRIDS: [(&str, &str); 3] = [
    ("fortran-grid", "fortran"),
    ("3d-swapped-grid", "3d-swapped"),
    ("standard-grid", "standard"),
];

/// The shapes of a grid layout's array and of its chunks, for `n` elements of which a chunk
/// holds `c`: logical axes, C order, as Zarr stores them.
///
/// - 2-D (`fortran-grid`, `standard-grid`): the array a [`shape2`] of `n`, the chunk a
///   [`shape2`] of `c` (512 × 512 for 2 MiB of `f64`, 1024 × 1024 of `u16`, 2048 × 1024
///   of `u8`).
/// - 3-D (`3d-swapped-grid`, a stack of `planes` planes): the array a [`shape3`] of `n`
///   cut to a multiple of `planes`; the chunk whole planes when a plane fits in `c`
///   elements (as many as fit, at most all), else a tile of one plane, a [`shape2`] of `c`.
///
/// Then the edges: along the last axis with more than one chunk, each of 4 elements or
/// more, the array is cut a quarter chunk short when it holds a whole number of chunks, so
/// that the last chunks along it are edge chunks, three quarters inside the array (the
/// last column of chunks of the 2-D arrays and of every plane of the tiled stack). The
/// array then holds a little less than `n` elements (248 MiB of 256 for the 2-D `f64`
/// arrays, 240 for the stack).
pub fn grid_shapes(three_d: bool, n: usize, c: usize, planes: usize) -> (Vec<usize>, Vec<usize>) {
    let c = c.max(1);
    let (mut shape, chunk) = if three_d {
        let n = n - n % planes.max(1);
        let (d0, d1, d2) = shape3(n, planes);
        let plane = d1 * d2;
        let chunk = if plane <= c {
            vec![(c / plane.max(1)).clamp(1, d0.max(1)), d1, d2]
        } else {
            let (r, k) = shape2(c);
            vec![1, r, k]
        };
        (vec![d0, d1, d2], chunk)
    } else {
        let (rows, cols) = shape2(n);
        let (r, k) = shape2(c);
        (vec![rows, cols], vec![r, k])
    };
    let several = |k: &usize| chunk[*k] >= 4 && shape[*k] > chunk[*k];
    if let Some(k) = (0..shape.len()).rev().find(several) {
        if shape[k] % chunk[k] == 0 {
            shape[k] -= chunk[k] / 4;
        }
    }
    (shape, chunk)
}

/// An array of a grid layout ([`GRIDS`]) and its chunk grid: the array in its logical axes,
/// its memory in the layout's order (Fortran order, a stack stored (z, x, y), C order),
/// element `i` of its C-order stream being `value(i)`.
pub struct Gridded<T> {
    pub array: ArrayD<T>,
    pub grid: ChunkGrid,
}

impl<T: Element> Gridded<T> {
    /// `layout`'s array of about `bytes` bytes in chunks of `chunk_bytes` bytes (shapes by
    /// [`grid_shapes`]).
    pub fn new(
        layout: &str,
        bytes: usize,
        chunk_bytes: usize,
        planes: usize,
        value: fn(usize) -> T,
    ) -> Gridded<T> {
        let three_d = layout == "3d-swapped-grid";
        let (shape, chunk) = grid_shapes(three_d, bytes / T::SIZE, chunk_bytes / T::SIZE, planes);
        let array = match (layout, shape.as_slice()) {
            ("fortran-grid", &[rows, cols]) => {
                Array2::from_shape_fn((rows, cols).f(), |(i, j)| value(i * cols + j)).into_dyn()
            }
            ("standard-grid", &[rows, cols]) => {
                Array2::from_shape_fn((rows, cols), |(i, j)| value(i * cols + j)).into_dyn()
            }
            ("3d-swapped-grid", &[d0, d1, d2]) => {
                Array3::from_shape_fn((d0, d2, d1), |(a, k, j)| value((a * d1 + j) * d2 + k))
                    .permuted_axes([0, 2, 1])
                    .into_dyn()
            }
            _ => unreachable!("a layout of GRIDS"),
        };
        let grid = ChunkGrid::new(&shape, &chunk).expect("a grid of the array's rank");
        Gridded { array, grid }
    }

    /// The same array and grid, every element `fill`: the memory in the same layout, written
    /// (not the zero pages of a fresh allocation).
    pub fn only(&self, fill: T) -> Gridded<T> {
        let mut array = self.array.clone();
        array.fill(fill);
        Gridded {
            array,
            grid: self.grid.clone(),
        }
    }

    /// The encoded bytes of every chunk, in [`ChunkGrid::indices`] order (see
    /// [`chunk_position`]), from `encode_zarr_chunks`; edge chunks padded with zeros.
    pub fn encode_chunks(&self, endian: Endian) -> Vec<Vec<u8>> {
        self.encode_chunks_padded(T::zeroed(), endian)
    }

    /// [`Gridded::encode_chunks`], edge chunks padded with `fill`.
    pub fn encode_chunks_padded(&self, fill: T, endian: Endian) -> Vec<Vec<u8>> {
        let slots = Mutex::new(vec![Vec::new(); self.grid.len()]);
        self.array
            .encode_zarr_chunks(&self.grid, fill, endian, |index, bytes| {
                slots.lock().unwrap()[chunk_position(&self.grid, index)] = bytes;
                Ok::<(), Error>(())
            })
            .expect("every chunk encodes");
        slots.into_inner().unwrap()
    }

    /// Panic unless decoding `chunks` (in `endian`) into a zeroed array gives back the
    /// array: so that the grid rows convert the array they claim to.
    pub fn check(&self, chunks: &[Vec<u8>], endian: Endian)
    where
        T: PartialEq,
    {
        let mut back = ArrayD::from_elem(self.array.shape(), T::zeroed());
        back.decode_zarr_chunks_into(&self.grid, T::zeroed(), endian, source(&self.grid, chunks))
            .expect("every chunk decodes");
        // Compared with `==`, not `assert_eq!`, so that a failure does not print megabytes.
        assert!(back == self.array, "the chunks do not decode to the array");
    }
}

/// The position of chunk `index` in [`ChunkGrid::indices`] order: its C-order rank in the
/// grid.
pub fn chunk_position(grid: &ChunkGrid, index: &[usize]) -> usize {
    index
        .iter()
        .zip(grid.grid_shape())
        .fold(0, |at, (&i, &g)| at * g + i)
}

/// The sink of the encoding grid rows, what a user's sink does at the least: it keeps
/// nothing, but reads the chunk's first byte, and the compiler must assume it reads every
/// byte; the chunk is then dropped.
pub fn touch(_index: &[usize], bytes: Vec<u8>) -> Result<(), Error> {
    black_box(black_box(&bytes).first().copied());
    Ok(())
}

/// The source of the decoding grid rows: each chunk's bytes out of `chunks`, stored in
/// [`ChunkGrid::indices`] order (a `Vec` indexed by [`chunk_position`], no hash map).
pub fn source<'c>(
    grid: &'c ChunkGrid,
    chunks: &'c [Vec<u8>],
) -> impl Fn(&[usize]) -> Result<Option<&'c [u8]>, Error> + Sync + 'c {
    move |index: &[usize]| Ok(Some(&chunks[chunk_position(grid, index)][..]))
}

/// The sink of the sparse encoding rows (`encode_zarr_chunks_sparse`), as [`touch`]: it
/// reads the first byte of each chunk it is lent, and nothing of a chunk left out.
pub fn touch_lent(_index: &[usize], bytes: Option<&[u8]>) -> Result<(), Error> {
    black_box(black_box(bytes).and_then(|b| b.first().copied()));
    Ok(())
}

/// [`source`] with every `missing`-th chunk missing (`None`): those at positions 0,
/// `missing`, 2 × `missing`, … of [`ChunkGrid::indices`] order.
pub fn source_missing<'c>(
    grid: &'c ChunkGrid,
    chunks: &'c [Vec<u8>],
    missing: usize,
) -> impl Fn(&[usize]) -> Result<Option<&'c [u8]>, Error> + Sync + 'c {
    move |index: &[usize]| {
        let at = chunk_position(grid, index);
        Ok((at % missing != 0).then(|| &chunks[at][..]))
    }
}
