//! Generates date strings for the differential test (see `isodate::testgen`): every valid
//! shape of `strict_date_optional_time`, random instants over years 0000..=9999, every java
//! zone id, local times near DST transitions, epoch numbers, and near-misses.
//! Deterministic: same seed and count, same bytes. One string per line.
//!
//! ```text
//! cargo run --release -p isodate --example gen_dates -- [SEED] [COUNT] [extreme] > dates.txt
//! ```
//!
//! With `extreme`: years near and beyond ±292 million, where a `date` field clamps
//! (`isodate::testgen::generate_extreme_years`).

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let count: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.next().as_deref() == Some("extreme") {
        isodate::testgen::generate_extreme_years(seed, count, &mut out)?;
    } else {
        isodate::testgen::generate(seed, count, &mut out)?;
    }
    out.flush()
}
