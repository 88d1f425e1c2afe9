//! What `--convert-dates` costs on the client: the logs generator alone vs the generator with
//! its two date fields (`@timestamp`, `event.ingested`) converted to epoch millis.
//!
//! `cargo run --release -p searchbench --example convert_cost -- [DOCS] [ROUNDS]`
//! (or `bench/convert-cost.sh`). Rounds alternate plain / converted so drift hits both alike;
//! prints docs/s per round, the medians, and the conversion's cost per document and per date,
//! with serde_json validating the same documents (what the NDJSON reader does per line) for scale.

use std::time::Instant;

use searchbench::corpus::convert::{ConvertDates, DateFields};
use searchbench::corpus::{DocSource, Item, Logs, LogsSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let docs: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(5);
    let fields = DateFields::parse(&["@timestamp", "event.ingested"])?;
    // plain, converted, validated (serde_json, as the NDJSON reader checks each line)
    let mut rates: [Vec<f64>; 3] = Default::default();
    const NAMES: [&str; 3] = ["plain", "converted", "validated"];
    for round in 0..rounds {
        for mode in 0..3 {
            let logs: Box<dyn DocSource> = Box::new(Logs::new(LogsSpec::new(1, docs))?);
            let mut source: Box<dyn DocSource> = if mode == 1 {
                Box::new(ConvertDates::generated(logs, fields.clone()))
            } else {
                logs
            };
            let (secs, bytes) = drain(source.as_mut(), mode == 2)?;
            let rate = docs as f64 / secs;
            eprintln!(
                "round {} {:>9}: {:>10.0} docs/s ({:.0} MB/s)",
                round + 1,
                NAMES[mode],
                rate,
                bytes as f64 / secs / 1e6
            );
            rates[mode].push(rate);
        }
    }
    let [p, c, v] = rates.map(|mut r| median(&mut r));
    let cost = |r: f64| (1e9 / r - 1e9 / p).max(0.0);
    println!("generator alone:           {p:.0} docs/s (median of {rounds})");
    println!("generator + convert-dates: {c:.0} docs/s (median of {rounds})");
    println!(
        "conversion: {:.0} ns per document, {:.0} ns per date (2 dates a document)",
        cost(c),
        cost(c) / 2.0
    );
    println!(
        "for scale, serde_json validation of the same documents: {:.0} ns per document ({v:.0} docs/s)",
        cost(v)
    );
    Ok(())
}

/// Reads the whole source into a buffer emptied every 1,000 documents; wall seconds and bytes.
fn drain(
    source: &mut dyn DocSource,
    validate: bool,
) -> Result<(f64, u64), Box<dyn std::error::Error>> {
    let mut out = Vec::with_capacity(4 << 20);
    let mut bytes = 0u64;
    let mut n = 0u32;
    let start = Instant::now();
    loop {
        let at = out.len();
        let Some(item) = source.next_into(&mut out)? else {
            break;
        };
        if let Item::Bad(bad) = item {
            return Err(format!("unexpected bad document: {}", bad.reason).into());
        }
        if validate {
            serde_json::from_slice::<serde::de::IgnoredAny>(&out[at..])?;
        }
        out.push(b'\n');
        n += 1;
        if n == 1000 {
            bytes += out.len() as u64;
            out.clear();
            n = 0;
        }
    }
    bytes += out.len() as u64;
    std::hint::black_box(&out);
    Ok((start.elapsed().as_secs_f64(), bytes))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
