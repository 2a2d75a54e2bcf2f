//! Timed runs that start from cold caches, shared by the benchmarks and `perf_table`.
//!
//! A last-level cache can be as large as the arrays measured (480 MiB on the machine of the
//! README, against 64 MiB arrays): a run then finds part of its arrays still cached,
//! depending on what ran before it and on what the machine's neighbours did. Reading a
//! buffer twice the size of the largest cache before each timed run replaces whatever the
//! run before left in the caches, clean or dirty, with that buffer, clean.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// What every timed run reads first, so that it starts from cold caches.
pub struct Cold(Vec<u64>);

impl Cold {
    /// `mib` MiB, or twice the largest cache the machine reports (1 GiB when it reports
    /// none).
    pub fn new(mib: Option<usize>) -> Cold {
        let bytes = mib.map_or_else(|| largest_cache().map_or(1 << 30, |b| 2 * b), |m| m << 20);
        Cold(vec![1; bytes / 8])
    }

    /// Read every word: what the run before left in the caches, clean or dirty, gives way
    /// to this buffer, clean.
    fn evict(&self) {
        black_box(self.0.iter().fold(0u64, |sum, &x| sum.wrapping_add(x)));
    }

    /// MiB read before each run; 0 when the runs start in whatever the caches hold.
    #[allow(dead_code)] // `perf_table` prints it; the benchmarks do not.
    pub fn mib(&self) -> usize {
        (self.0.len() * 8) >> 20
    }

    /// How long `run` takes, started from cold caches; the eviction is not timed.
    pub fn time<O>(&self, run: impl FnOnce() -> O) -> Duration {
        self.evict();
        let start = Instant::now();
        black_box(run());
        start.elapsed()
    }
}

/// Bytes of the largest cache of CPU 0, as Linux reports them ("48K", "480M").
fn largest_cache() -> Option<usize> {
    let caches = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    caches
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("size")).ok())
        .filter_map(|size| {
            let size = size.trim();
            let (number, unit) = size.split_at(size.find(|c: char| !c.is_ascii_digit())?);
            let shift = match unit {
                "K" => 10,
                "M" => 20,
                "G" => 30,
                _ => return None,
            };
            number.parse::<usize>().ok().map(|n| n << shift)
        })
        .max()
}
