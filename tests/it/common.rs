//! Shared test helpers: element bit patterns and the layouts an array can take.
#![allow(dead_code)]

use half::{bf16, f16};
use ndarray::{ArrayD, ArrayView, ArrayViewMut, Axis, Dimension, IxDyn, ShapeBuilder, Slice, Zip};
use num_complex::Complex;
use serde::Deserialize;
use zarr_bytes::Element;
use zarr_bytes::Endian;

/// An element's components as unsigned bit patterns, as the fixture manifest lists them.
pub trait Bits: Element + PartialEq + std::fmt::Debug {
    fn to_bits(self) -> Vec<u64>;
    fn from_bits(bits: &[u64]) -> Self;
    /// Whether `self` and `other` have the same bits: [`Bits::to_bits`] compared, with no
    /// allocation, as the large arrays compare every element several times.
    fn same(self, other: Self) -> bool;
}

macro_rules! bits_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Bits for $t {
            fn to_bits(self) -> Vec<u64> { vec![self as $u as u64] }
            fn from_bits(b: &[u64]) -> Self { b[0] as $u as $t }
            fn same(self, other: Self) -> bool { self == other }
        }
    )*};
}
bits_int!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl Bits for bool {
    fn to_bits(self) -> Vec<u64> {
        vec![self as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        b[0] & 1 == 1
    }
    fn same(self, other: Self) -> bool {
        self == other
    }
}

impl Bits for f16 {
    fn to_bits(self) -> Vec<u64> {
        vec![f16::to_bits(self) as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        f16::from_bits(b[0] as u16)
    }
    fn same(self, other: Self) -> bool {
        f16::to_bits(self) == f16::to_bits(other)
    }
}

impl Bits for bf16 {
    fn to_bits(self) -> Vec<u64> {
        vec![bf16::to_bits(self) as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        bf16::from_bits(b[0] as u16)
    }
    fn same(self, other: Self) -> bool {
        bf16::to_bits(self) == bf16::to_bits(other)
    }
}

impl Bits for f32 {
    fn to_bits(self) -> Vec<u64> {
        vec![f32::to_bits(self) as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        f32::from_bits(b[0] as u32)
    }
    fn same(self, other: Self) -> bool {
        f32::to_bits(self) == f32::to_bits(other)
    }
}

impl Bits for f64 {
    fn to_bits(self) -> Vec<u64> {
        vec![f64::to_bits(self)]
    }
    fn from_bits(b: &[u64]) -> Self {
        f64::from_bits(b[0])
    }
    fn same(self, other: Self) -> bool {
        f64::to_bits(self) == f64::to_bits(other)
    }
}

impl Bits for Complex<f32> {
    fn to_bits(self) -> Vec<u64> {
        vec![self.re.to_bits() as u64, self.im.to_bits() as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        Complex::new(f32::from_bits(b[0] as u32), f32::from_bits(b[1] as u32))
    }
    fn same(self, other: Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

impl Bits for Complex<f64> {
    fn to_bits(self) -> Vec<u64> {
        vec![self.re.to_bits(), self.im.to_bits()]
    }
    fn from_bits(b: &[u64]) -> Self {
        Complex::new(f64::from_bits(b[0]), f64::from_bits(b[1]))
    }
    fn same(self, other: Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

impl Bits for Complex<f16> {
    fn to_bits(self) -> Vec<u64> {
        vec![self.re.to_bits() as u64, self.im.to_bits() as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        Complex::new(f16::from_bits(b[0] as u16), f16::from_bits(b[1] as u16))
    }
    fn same(self, other: Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

impl Bits for Complex<bf16> {
    fn to_bits(self) -> Vec<u64> {
        vec![self.re.to_bits() as u64, self.im.to_bits() as u64]
    }
    fn from_bits(b: &[u64]) -> Self {
        Complex::new(bf16::from_bits(b[0] as u16), bf16::from_bits(b[1] as u16))
    }
    fn same(self, other: Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

/// Minifloats: the code (`from_bits` keeps the bits the type uses).
macro_rules! bits_minifloat {
    ($($t:ident),*) => {$(
        impl Bits for zarr_bytes::minifloat::$t {
            fn to_bits(self) -> Vec<u64> {
                vec![zarr_bytes::minifloat::$t::to_bits(self) as u64]
            }
            fn from_bits(b: &[u64]) -> Self {
                zarr_bytes::minifloat::$t::from_bits(b[0] as u8)
            }
            fn same(self, other: Self) -> bool {
                zarr_bytes::minifloat::$t::to_bits(self) == zarr_bytes::minifloat::$t::to_bits(other)
            }
        }
    )*};
}
bits_minifloat!(
    Float4E2M1FN,
    Float6E2M3FN,
    Float6E3M2FN,
    Float8E3M4,
    Float8E4M3,
    Float8E4M3B11FNUZ,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E8M0FNU
);

/// Complex minifloats: the two codes, real part first.
macro_rules! bits_complex_minifloat {
    ($($t:ident),*) => {$(
        impl Bits for Complex<zarr_bytes::minifloat::$t> {
            fn to_bits(self) -> Vec<u64> {
                vec![self.re.to_bits() as u64, self.im.to_bits() as u64]
            }
            fn from_bits(b: &[u64]) -> Self {
                let code = |x: u64| zarr_bytes::minifloat::$t::from_bits(x as u8);
                Complex::new(code(b[0]), code(b[1]))
            }
            fn same(self, other: Self) -> bool {
                (self.re.to_bits(), self.im.to_bits()) == (other.re.to_bits(), other.im.to_bits())
            }
        }
    )*};
}
bits_complex_minifloat!(Float4E2M1FN, Float8E4M3);

impl<const N: usize> Bits for [u8; N] {
    fn to_bits(self) -> Vec<u64> {
        self.iter().map(|&b| b as u64).collect()
    }
    fn from_bits(b: &[u64]) -> Self {
        std::array::from_fn(|i| b[i] as u8)
    }
    fn same(self, other: Self) -> bool {
        self == other
    }
}

/// Bit patterns of every element in logical C order.
pub fn bits_of<A: Bits, D: Dimension>(a: ArrayView<'_, A, D>) -> Vec<Vec<u64>> {
    a.iter().map(|&x| x.to_bits()).collect()
}

/// A deterministic element from a counter, with every byte different.
pub fn element<A: Bits>(i: usize) -> A {
    let seed = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let words = (A::SIZE / 8).max(1);
    let bits: Vec<u64> = (0..A::SIZE.max(words))
        .map(|k| seed.rotate_left(8 * k as u32) ^ (k as u64))
        .collect();
    A::from_bits(&bits)
}

/// The standard array of `shape` with deterministic elements.
pub fn standard<A: Bits>(shape: &[usize]) -> ArrayD<A> {
    let n: usize = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(element::<A>).collect()).unwrap()
}

/// The C-order bytes of `a` by the codec's definition, one component at a time.
pub fn reference_bytes<A: Bits, D: Dimension>(a: ArrayView<'_, A, D>, endian: Endian) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in a.iter() {
        let parts = x.to_bits();
        let width = A::SIZE / parts.len();
        for p in parts {
            let le = p.to_le_bytes();
            match endian {
                Endian::Little => out.extend_from_slice(&le[..width]),
                Endian::Big => out.extend(le[..width].iter().rev()),
            }
        }
    }
    out
}

/// The ways an array can sit in memory, each as storage plus a view of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    Standard,
    Fortran,
    Transposed,
    Permuted,
    SwappedLastTwo,
    Reversed,
    FortranReversedFirst,
    FortranReversedLast,
    Stepped,
    SteppedBackFortran,
    SubSlice,
    /// A part of an array in Fortran order, as a chunk of it is.
    FortranSubSlice,
    /// A part of a permuted array, stepping backwards along its first axis.
    PermutedSubSliceBack,
}

pub const LAYOUTS: [Layout; 13] = [
    Layout::Standard,
    Layout::Fortran,
    Layout::Transposed,
    Layout::Permuted,
    Layout::SwappedLastTwo,
    Layout::Reversed,
    Layout::FortranReversedFirst,
    Layout::FortranReversedLast,
    Layout::Stepped,
    Layout::SteppedBackFortran,
    Layout::SubSlice,
    Layout::FortranSubSlice,
    Layout::PermutedSubSliceBack,
];

impl Layout {
    /// Storage for a logical array of `shape`, filled with `fill`.
    pub fn storage<A: Bits>(self, shape: &[usize], fill: A) -> ArrayD<A> {
        let n = shape.len();
        let mut s = shape.to_vec();
        let fortran = matches!(
            self,
            Layout::Fortran
                | Layout::FortranReversedFirst
                | Layout::FortranReversedLast
                | Layout::SteppedBackFortran
                | Layout::FortranSubSlice
        );
        match self {
            Layout::Transposed => s.reverse(),
            Layout::Permuted if n > 1 => s.rotate_left(1),
            Layout::PermutedSubSliceBack => {
                s.iter_mut().for_each(|l| *l += 3);
                if n > 1 {
                    s.rotate_left(1);
                }
            }
            Layout::SwappedLastTwo if n > 1 => s.swap(n - 2, n - 1),
            Layout::Stepped | Layout::SteppedBackFortran => {
                s.iter_mut().for_each(|l| *l = *l * 2 + 3)
            }
            Layout::SubSlice | Layout::FortranSubSlice => s.iter_mut().for_each(|l| *l += 2),
            _ => {}
        }
        if fortran {
            ArrayD::from_elem(IxDyn(&s).f(), fill)
        } else {
            ArrayD::from_elem(IxDyn(&s), fill)
        }
    }

    /// The view of `storage` that is the logical array.
    pub fn view<'a, A>(self, mut v: ArrayViewMut<'a, A, IxDyn>) -> ArrayViewMut<'a, A, IxDyn> {
        let n = v.ndim();
        match self {
            Layout::Transposed => v.reversed_axes(),
            Layout::Permuted if n > 1 => {
                let mut axes: Vec<usize> = (0..n).collect();
                axes.rotate_right(1);
                v.permuted_axes(axes)
            }
            Layout::SwappedLastTwo if n > 1 => {
                v.swap_axes(n - 2, n - 1);
                v
            }
            Layout::Reversed => {
                v.slice_each_axis_inplace(|_| Slice::new(0, None, -1));
                v
            }
            Layout::FortranReversedFirst if n > 0 => {
                v.slice_axis_inplace(Axis(0), Slice::new(0, None, -1));
                v
            }
            Layout::FortranReversedLast if n > 0 => {
                v.slice_axis_inplace(Axis(n - 1), Slice::new(0, None, -1));
                v
            }
            Layout::Stepped => {
                v.slice_each_axis_inplace(|ax| {
                    Slice::new(1, Some(1 + 2 * ((ax.len as isize - 3) / 2)), 2)
                });
                v
            }
            Layout::SteppedBackFortran => {
                v.slice_each_axis_inplace(|ax| {
                    Slice::new(2, Some(2 + 2 * ((ax.len as isize - 3) / 2)), -2)
                });
                v
            }
            Layout::SubSlice | Layout::FortranSubSlice => {
                v.slice_each_axis_inplace(|ax| Slice::new(1, Some(ax.len as isize - 1), 1));
                v
            }
            Layout::PermutedSubSliceBack => {
                let mut axes: Vec<usize> = (0..n).collect();
                axes.rotate_right(n.min(1));
                let mut v = v.permuted_axes(axes);
                v.slice_each_axis_inplace(|ax| {
                    let step = if ax.axis.index() == 0 { -1 } else { 1 };
                    Slice::new(2, Some(ax.len as isize - 1), step)
                });
                v
            }
            _ => v,
        }
    }
}

/// Whether two arrays hold the same elements, bit for bit (NaN payloads too), in C order.
pub fn same_bits<A: Bits, D: Dimension, E: Dimension>(
    a: ArrayView<'_, A, D>,
    b: ArrayView<'_, A, E>,
) -> bool {
    // `Zip` walks both in their memory's order along the innermost axis, where iterators
    // of arrays of any dimension step a multi-index per element.
    a.shape() == b.shape()
        && Zip::from(a.into_dyn())
            .and(b.into_dyn())
            .all(|&x, &y| x.same(y))
}

/// Whether `after` holds what `before` held (bit for bit) outside the view `layout` makes
/// of them, storage for an array of `shape`: compared in memory order, as both and the
/// mask of the view lie alike.
pub fn kept_outside<A: Bits>(
    layout: Layout,
    shape: &[usize],
    before: &ArrayD<A>,
    after: &ArrayD<A>,
) -> bool {
    fn memory<T>(a: &ArrayD<T>) -> &[T] {
        a.as_slice_memory_order().expect("storage is contiguous")
    }
    let mut inside = layout.storage(shape, false);
    layout.view(inside.view_mut()).fill(true);
    assert!(before.strides() == after.strides() && before.strides() == inside.strides());
    memory(before)
        .iter()
        .zip(memory(after))
        .zip(memory(&inside))
        .all(|((&b, &a), &inside)| inside || b.same(a))
}

/// `a` held in `layout`: every encoder gives `expected`, and decoding `expected` into the
/// same layout, over other values, gives `a` back and leaves the storage outside the view
/// as it was. `fill` is the byte the storage starts from.
pub fn round_trip_in<A: Bits>(
    layout: Layout,
    a: ArrayView<'_, A, IxDyn>,
    expected: &[u8],
    endian: Endian,
    fill: u8,
    ctx: &str,
) {
    use zarr_bytes::{BytesDecodeInto, BytesEncode};
    let fill = A::from_bits(&vec![u64::from(fill); A::SIZE]);
    let shape = a.shape();
    let mut storage = layout.storage(shape, fill);
    layout.view(storage.view_mut()).assign(&a);
    let view = layout.view(storage.view_mut());
    assert!(
        same_bits(view.view(), a.view()),
        "{layout:?} is not the array, {ctx}"
    );
    let ctx = format!(
        "{} {layout:?} {shape:?} {endian:?} {ctx}",
        std::any::type_name::<A>()
    );

    assert!(
        view.to_zarr_bytes(endian) == expected,
        "to_zarr_bytes {ctx}"
    );
    let mut out = vec![0u8; expected.len()];
    view.encode_zarr_bytes_into(&mut out, endian).unwrap();
    assert!(out == expected, "encode_zarr_bytes_into {ctx}");
    let mut written = Vec::new();
    view.write_zarr_bytes(&mut written, endian).unwrap();
    assert!(written == expected, "write_zarr_bytes {ctx}");

    let mut target = layout.storage(shape, fill);
    let before = target.clone();
    let mut view = layout.view(target.view_mut());
    view.decode_zarr_bytes_into(expected, endian).unwrap();
    assert!(
        same_bits(view.view(), a.view()),
        "decode_zarr_bytes_into {ctx}"
    );
    assert!(
        kept_outside(layout, shape, &before, &target),
        "decode_zarr_bytes_into wrote outside the view, {ctx}"
    );
}

/// [`round_trip_in`] every layout of [`LAYOUTS`].
pub fn round_trip_in_every_layout<A: Bits>(
    a: ArrayView<'_, A, IxDyn>,
    expected: &[u8],
    endian: Endian,
    fill: u8,
    ctx: &str,
) {
    for layout in LAYOUTS {
        round_trip_in(layout, a.view(), expected, endian, fill, ctx);
    }
}

/// How the storage of a bigger array lies in memory, its axes in the chunk's logical order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    C,
    Fortran,
    /// C order with the last two axes swapped: a stack of planes stored (z, x, y).
    SwappedLastTwo,
    /// C order of the axes rotated left by one: the first axis closest in memory.
    Rotated,
}

pub const ORDERS: [Order; 4] = [
    Order::C,
    Order::Fortran,
    Order::SwappedLastTwo,
    Order::Rotated,
];

/// A chunk of a bigger array, as a Zarr writer cuts one and a reader decodes into one: the
/// storage's memory order; the indices of the storage before and after the chunk along each
/// axis; which axes the chunk runs backwards along; an axis it steps along by 2, if any;
/// and whether it is cut from a chunk of the storage (a chunk of a chunk) rather than from
/// the storage itself.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub order: Order,
    pub before: Vec<usize>,
    pub after: Vec<usize>,
    pub reversed: Vec<bool>,
    pub stepped: Option<usize>,
    pub nested: bool,
}

impl Chunk {
    fn step(&self, axis: usize) -> usize {
        if self.stepped == Some(axis) { 2 } else { 1 }
    }

    /// Storage for a chunk of `shape`, filled with `fill`, in the chunk's axis order.
    pub fn storage<A: Clone>(&self, shape: &[usize], fill: A) -> ArrayD<A> {
        let n = shape.len();
        let logical: Vec<usize> = (0..n)
            .map(|k| self.before[k] + shape[k] * self.step(k) + self.after[k])
            .collect();
        let mut memory = logical.clone();
        match self.order {
            Order::SwappedLastTwo if n > 1 => memory.swap(n - 2, n - 1),
            Order::Rotated => memory.rotate_left(n.min(1)),
            _ => {}
        }
        if self.order == Order::Fortran {
            ArrayD::from_elem(IxDyn(&memory).f(), fill)
        } else {
            ArrayD::from_elem(IxDyn(&memory), fill)
        }
    }

    /// `storage` (from [`Chunk::storage`]) in the chunk's axis order.
    pub fn whole<'a, A>(&self, storage: ArrayViewMut<'a, A, IxDyn>) -> ArrayViewMut<'a, A, IxDyn> {
        let n = storage.ndim();
        let mut axes: Vec<usize> = (0..n).collect();
        match self.order {
            Order::SwappedLastTwo if n > 1 => axes.swap(n - 2, n - 1),
            Order::Rotated => axes.rotate_right(n.min(1)),
            _ => {}
        }
        storage.permuted_axes(axes)
    }

    /// The chunk: the view of `storage` (from [`Chunk::storage`]) that is the logical array.
    pub fn view<'a, A>(&self, storage: ArrayViewMut<'a, A, IxDyn>) -> ArrayViewMut<'a, A, IxDyn> {
        let mut v = self.whole(storage);
        if self.nested {
            // A chunk that reaches half-way into the margins, then the chunk inside it.
            v.slice_each_axis_inplace(|ax| {
                let k = ax.axis.index();
                let (b, a) = (self.before[k] / 2, self.after[k] / 2);
                Slice::new(b as isize, Some((ax.len - a) as isize), 1)
            });
        }
        v.slice_each_axis_inplace(|ax| {
            let k = ax.axis.index();
            // The margins the outer chunk took.
            let (b, a) = if self.nested {
                (self.before[k] / 2, self.after[k] / 2)
            } else {
                (0, 0)
            };
            let start = self.before[k] - b;
            let end = ax.len + a - self.after[k];
            let step = self.step(k) as isize;
            Slice::new(
                start as isize,
                Some(end as isize),
                if self.reversed[k] { -step } else { step },
            )
        });
        v
    }
}

/// The fixture manifest written by `tests/data/generate.py`.
#[derive(Deserialize)]
pub struct Manifest {
    pub cases: Vec<Case>,
}

/// One chunk per writer: its data type, byte order, shape and expected bit patterns.
#[derive(Deserialize)]
pub struct Case {
    pub name: String,
    pub data_type: String,
    pub endian: Endian,
    pub shape: Vec<usize>,
    pub writers: Vec<String>,
    pub bits: Vec<Vec<u64>>,
}

impl Case {
    /// The bytes `writer` wrote for this case.
    pub fn bytes(&self, writer: &str) -> Vec<u8> {
        std::fs::read(fixtures().join(format!("{}.{writer}.bin", self.name))).unwrap()
    }
}

/// Where the fixture chunks are.
pub fn fixtures() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/chunks"))
}

pub fn manifest() -> Manifest {
    let text = std::fs::read_to_string(fixtures().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `region` as ndarray slice arguments.
pub fn slice_of(region: &[std::ops::Range<usize>]) -> Vec<ndarray::SliceInfoElem> {
    region
        .iter()
        .map(|r| ndarray::SliceInfoElem::Slice {
            start: r.start as isize,
            end: Some(r.end as isize),
            step: 1,
        })
        .collect()
}

/// Bytes of `data_type` and `shape` that decode: random bytes, with each byte or code unit
/// that decoding refuses cleared.
pub fn valid_chunk(
    data_type: &zarr_bytes::DataType,
    shape: &[usize],
    endian: Endian,
    seed: u64,
) -> Vec<u8> {
    let codec = zarr_bytes::BytesCodec::new(endian);
    let len = shape.iter().product::<usize>() * data_type.size();
    let mut state = seed;
    let mut bytes: Vec<u8> = (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect();
    loop {
        match codec.decode_dyn(&bytes, data_type, shape) {
            Ok(_) => return bytes,
            Err(zarr_bytes::Error::InvalidBool { offset, .. }) => bytes[offset] &= 1,
            Err(zarr_bytes::Error::InvalidCodeUnit { offset, .. }) => {
                bytes[offset..offset + 4].fill(0)
            }
            Err(e) => panic!("{data_type}: {e}"),
        }
    }
}

/// Runs `test` on `cases` values of `strategy`, and shrinks a failing one, as a test of
/// `proptest!` does; but through one runner for all the tests of a strategy type, where
/// `proptest!` makes the runner anew for each test (one copy each of its generic code, in a
/// binary of over a hundred such tests). `file`, the caller's `file!()`, names the failures
/// kept in `tests/proptest-regressions`, replayed first.
pub fn property<S: proptest::strategy::Strategy>(
    file: &'static str,
    cases: u32,
    strategy: S,
    test: &dyn Fn(S::Value),
) {
    use proptest::test_runner::{Config, TestRunner};
    let config = Config {
        cases,
        source_file: Some(file),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, |value| {
        test(value);
        Ok(())
    }) {
        panic!("{e}\n{runner}");
    }
}
