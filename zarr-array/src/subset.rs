//! The `--subset` and `--at` options: a box of an array, one `start:end` range per axis,
//! and a point of it, one index per axis, both comma separated.

use std::ops::Range;

/// A `--subset` as given, before the array's shape is known: each axis's start and end,
/// either left open (`:`, `10:`, `:20`).
pub struct Ranges {
    text: String,
    axes: Vec<(Option<usize>, Option<usize>)>,
}

impl Ranges {
    /// Parse `100:300,50:90`; an empty text is the box of a 0-d array.
    pub fn parse(text: &str) -> Result<Ranges, String> {
        let bad = |what: String| format!("--subset {text:?}: {what}");
        let axes = if text.is_empty() {
            Vec::new()
        } else {
            text.split(',')
                .enumerate()
                .map(|(axis, range)| {
                    let (start, end) = range
                        .split_once(':')
                        .ok_or_else(|| bad(format!("axis {axis}: {range:?} is not start:end")))?;
                    let bound = |n: &str| -> Result<Option<usize>, String> {
                        let n = n.trim();
                        if n.is_empty() {
                            return Ok(None);
                        }
                        n.parse().map(Some).map_err(|_| {
                            bad(format!("axis {axis}: {n:?} is not a non-negative integer"))
                        })
                    };
                    Ok((bound(start)?, bound(end)?))
                })
                .collect::<Result<_, String>>()?
        };
        Ok(Ranges {
            text: text.to_string(),
            axes,
        })
    }

    /// The box in an array of `shape`: open ends are the axis's ends.
    pub fn resolve(&self, shape: &[usize]) -> Result<Vec<Range<usize>>, String> {
        let bad = |what: String| format!("--subset {:?}: {what}", self.text);
        if self.axes.len() != shape.len() {
            return Err(bad(format!(
                "{} ranges for an array of {} axes (shape {shape:?})",
                self.axes.len(),
                shape.len()
            )));
        }
        self.axes
            .iter()
            .zip(shape)
            .enumerate()
            .map(|(axis, (&(start, end), &len))| {
                let (start, end) = (start.unwrap_or(0), end.unwrap_or(len));
                if end > len {
                    return Err(bad(format!(
                        "axis {axis}: end {end} is past the array's length {len}"
                    )));
                }
                if start > end {
                    return Err(bad(format!(
                        "axis {axis}: start {start} is after end {end}"
                    )));
                }
                Ok(start..end)
            })
            .collect()
    }
}

/// Parse an `--at` origin: `10,20`; an empty text is the origin of a 0-d array.
pub fn parse_origin(text: &str) -> Result<Vec<usize>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(axis, n)| {
            n.trim().parse().map_err(|_| {
                format!("--at {text:?}: axis {axis}: {n:?} is not a non-negative integer")
            })
        })
        .collect()
}

/// The whole of an array of `shape`, as a box.
pub fn whole(shape: &[usize]) -> Vec<Range<usize>> {
    shape.iter().map(|&n| 0..n).collect()
}

/// A box as `--subset` writes it: `2:5, 0:7`.
pub fn show(subset: &[Range<usize>]) -> String {
    let ranges: Vec<String> = subset
        .iter()
        .map(|r| format!("{}:{}", r.start, r.end))
        .collect();
    format!("[{}]", ranges.join(", "))
}

/// Where the boxes `a` and `b` meet (empty ranges where they do not).
pub fn meet(a: &[Range<usize>], b: &[Range<usize>]) -> Vec<Range<usize>> {
    a.iter()
        .zip(b)
        .map(|(a, b)| {
            let start = a.start.max(b.start);
            start..a.end.min(b.end).max(start)
        })
        .collect()
}

/// The box `region` in coordinates that start at `origin`.
pub fn shift(region: &[Range<usize>], origin: &[usize]) -> Vec<Range<usize>> {
    region
        .iter()
        .zip(origin)
        .map(|(r, &o)| r.start - o..r.end - o)
        .collect()
}

/// Where a box starts.
pub fn starts(region: &[Range<usize>]) -> Vec<usize> {
    region.iter().map(|r| r.start).collect()
}

/// A box's shape.
pub fn lengths(region: &[Range<usize>]) -> Vec<usize> {
    region.iter().map(|r| r.len()).collect()
}

/// The box of `shape` at `origin`; an end that overflows `usize` is left at `usize::MAX`
/// for the bounds check to refuse.
pub fn box_at(origin: &[usize], shape: &[usize]) -> Vec<Range<usize>> {
    origin
        .iter()
        .zip(shape)
        .map(|(&o, &n)| o..o.saturating_add(n))
        .collect()
}
