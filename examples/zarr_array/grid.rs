//! Regular grids of chunks, and cutting and pasting records along them.

use std::ops::Range;

use ndarray::{IxDyn, Slice};

use crate::values::Records;

/// Chunks along each axis of `shape` cut in chunks of `chunk_shape`, the last ones partial.
pub fn chunk_grid(shape: &[usize], chunk_shape: &[usize]) -> Vec<usize> {
    shape
        .iter()
        .zip(chunk_shape)
        .map(|(s, c)| s.div_ceil(*c))
        .collect()
}

/// Every index of a grid, in C order.
pub fn indices(grid: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let count: usize = grid.iter().product();
    (0..count).map(move |mut flat| {
        let mut index = vec![0; grid.len()];
        for (k, n) in grid.iter().enumerate().rev() {
            index[k] = flat % n;
            flat /= n;
        }
        index
    })
}

/// The part of an array of `shape` that chunk `index` covers, per axis.
pub fn region(index: &[usize], chunk_shape: &[usize], shape: &[usize]) -> Vec<Range<usize>> {
    index
        .iter()
        .zip(chunk_shape)
        .zip(shape)
        .map(|((i, c), s)| i * c..(i * c).saturating_add(*c).min(*s))
        .collect()
}

/// Records of `shape` that all hold `record`.
pub fn filled(record: &[u8], shape: &[usize]) -> Result<Records, String> {
    let full: Vec<usize> = shape.iter().copied().chain([record.len()]).collect();
    let one = Records::from_shape_vec(IxDyn(&[record.len()]), record.to_vec())
        .map_err(|e| e.to_string())?;
    Ok(one
        .broadcast(IxDyn(&full))
        .ok_or("a record broadcasts to any shape")?
        .to_owned())
}

/// The slices of `region` on the leading axes (from zero if `from_zero`), the whole of the
/// trailing byte axis.
fn slicer(
    region: &[Range<usize>],
    from_zero: bool,
) -> impl Fn(ndarray::AxisDescription) -> Slice + '_ {
    move |ax| match region.get(ax.axis.index()) {
        Some(r) if from_zero => Slice::from(0..r.len()),
        Some(r) => Slice::from(r.clone()),
        None => Slice::from(..),
    }
}

/// Paste the part of `chunk` that lies inside the array into `region` of `array`.
pub fn paste(array: &mut Records, region: &[Range<usize>], chunk: &Records) {
    array
        .slice_each_axis_mut(slicer(region, false))
        .assign(&chunk.slice_each_axis(slicer(region, true)));
}

/// Cut `region` out of `array` into a chunk of `chunk_shape`, filled with `fill` where the
/// chunk reaches past the array's edge.
pub fn cut(
    array: &Records,
    region: &[Range<usize>],
    chunk_shape: &[usize],
    fill: &[u8],
) -> Result<Records, String> {
    let mut chunk = filled(fill, chunk_shape)?;
    chunk
        .slice_each_axis_mut(slicer(region, true))
        .assign(&array.slice_each_axis(slicer(region, false)));
    Ok(chunk)
}
