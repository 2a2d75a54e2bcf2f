//! Arbitrary inputs from a seeded generator through every entry point that reads outside
//! data: each returns `Ok` or `Err`, never panics, and every `Ok` is right.
//!
//! `NO_PANIC_CASES` sets the number of inputs per entry point (default 3,000; CI runs
//! 100,000 in release mode).

/// A small seeded generator (SplitMix64): the same inputs on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Up to `max` bytes, skewed towards few.
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let len = (self.next() as usize % (max + 1)) >> (self.next() % 4);
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn cases() -> usize {
    std::env::var("NO_PANIC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000)
}

#[test]
fn decode_dyn_never_panics() {
    let mut rng = SplitMix(1);
    let ok = (0..cases())
        .filter(|_| crate::hostile::decode_dyn(&rng.bytes(600)))
        .count();
    // Not only errors: a good share of the inputs decode and are checked.
    assert!(ok * 20 > cases(), "{ok} of {} decoded", cases());
}

#[test]
fn fill_values_never_panic() {
    let mut rng = SplitMix(4);
    let pieces = [
        "0",
        "-1",
        "9",
        "1.5",
        "-0.0",
        "1e400",
        "true",
        "\"NaN\"",
        "\"Infinity\"",
        "\"0x7f\"",
        "\"0xffff\"",
        "\"NaT\"",
        "\"AQI=\"",
        "\"héllo\"",
        "\"YQAA\"",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "\"a\"",
        "\"b\"",
        "\"c\"",
        "null",
    ];
    let mut ok = 0;
    for _ in 0..cases() {
        // A data type, a shape, then a fill value built from the pieces.
        let mut input = vec![rng.next() as u8, rng.next() as u8, rng.next() as u8];
        // One piece half the time (a whole value), otherwise up to seven.
        let n = if rng.next() % 2 == 0 {
            1
        } else {
            rng.next() % 8
        };
        for _ in 0..n {
            input.extend_from_slice(pieces[rng.next() as usize % pieces.len()].as_bytes());
        }
        ok += usize::from(crate::hostile::fill(&input));
    }
    assert!(ok * 50 > cases(), "{ok} of {} filled", cases());
}

#[test]
fn metadata_never_panics() {
    let mut rng = SplitMix(2);
    let pieces = [
        "{",
        "}",
        "\"name\"",
        ":",
        "\"bytes\"",
        "\"endian\"",
        "\"configuration\"",
        "\"little\"",
        "\"big\"",
        ",",
        "null",
        "[",
        "]",
        "1",
        "\"r",
        "8",
        "0",
        "int",
        "float",
        "16",
        "\"",
        "\\u0000",
        " ",
        "{\"name\":",
        "\"struct\"",
        "\"configuration\":",
        "{\"fields\":[",
        "\"numpy.datetime64\"",
        "{\"unit\":\"s\",\"scale_factor\":",
        "\"length_bytes\":",
        "\"data_type\":",
    ];
    let mut ok = 0;
    for _ in 0..cases() {
        // Half raw bytes, half text built from the grammar's pieces.
        ok += usize::from(if rng.next() % 2 == 0 {
            crate::hostile::metadata(&rng.bytes(80))
        } else {
            let n = rng.next() % 16;
            let text: String = (0..n)
                .map(|_| pieces[rng.next() as usize % pieces.len()])
                .collect();
            crate::hostile::metadata(text.as_bytes())
        });
    }
    assert!(ok > 0, "no codec parsed in {} inputs", cases());
}

#[test]
fn regions_and_views_never_panic() {
    let mut rng = SplitMix(3);
    let ok = (0..cases())
        .filter(|_| crate::hostile::region(&rng.bytes(400)))
        .count();
    assert!(ok * 50 > cases(), "{ok} of {} decoded a region", cases());
}

#[test]
fn grids_never_panic() {
    let mut rng = SplitMix(5);
    let ok = (0..cases())
        .filter(|_| crate::hostile::grid(&rng.bytes(300)))
        .count();
    assert!(ok * 50 > cases(), "{ok} of {} moved chunks", cases());
}

#[test]
fn subsets_never_panic() {
    let mut rng = SplitMix(6);
    let ok = (0..cases())
        .filter(|_| crate::hostile::subset(&rng.bytes(300)))
        .count();
    assert!(ok * 50 > cases(), "{ok} of {} moved a subset", cases());
}

#[test]
fn driven_readers_and_writers_never_panic() {
    let mut rng = SplitMix(7);
    let ok = (0..cases())
        .filter(|_| crate::hostile::driven(&rng.bytes(300)))
        .count();
    assert!(
        ok * 50 > cases(),
        "{ok} of {} made a reader or writer",
        cases()
    );
}
