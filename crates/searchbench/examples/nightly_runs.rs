//! Makes a store of nightly runs to read back (`bench/readback.sh`): the newest run of FROM
//! (a real ingest's) copied N times into TO under new ids, one a day up to now, tagged
//! `build=nightly-I`, the later half 10 % slower (a change point for `history`), with 3 % noise.
//!
//!   cargo run --release --example nightly_runs -- FROM TO N

use std::process::ExitCode;

use searchbench::rng::Rng;
use searchbench::store::{Filter, RunId, Store, WholeRun};
use serde_json::Value;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [from, to, n] = args.as_slice() else {
        eprintln!("usage: nightly_runs FROM TO N");
        return ExitCode::from(2);
    };
    let Ok(n) = n.parse::<u64>() else {
        eprintln!("N is a count");
        return ExitCode::from(2);
    };
    match make(from, to, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nightly_runs: {e}");
            ExitCode::FAILURE
        }
    }
}

fn make(from: &str, to: &str, n: u64) -> Result<(), Box<dyn std::error::Error>> {
    let source = Store::open_read(from)?;
    let newest = source
        .list(&Filter {
            limit: Some(1),
            ..Default::default()
        })?
        .pop()
        .ok_or("FROM holds no run")?;
    let run = WholeRun::read(&source, &RunId(newest.id.0.clone()))?;
    let target = Store::open(to)?;
    let mut noise = Rng::new(78, 1);
    for i in 0..n {
        let mut night = run.clone();
        let back = (n - i) * 86_400;
        night.started_unix = run.started_unix.saturating_sub(back);
        night.finished_unix = run.finished_unix.map(|t| t.saturating_sub(back));
        night.tags.insert("build".into(), format!("nightly-{i:04}"));
        // Noise each night (3 %, seeded), and the later half 10 % slower.
        let level = if i >= n / 2 { 0.9 } else { 1.0 };
        let factor = level * (1.0 + 0.03 * noise.normalish());
        if let Some(Value::Number(rate)) = night
            .result
            .as_mut()
            .and_then(|r| r.get_mut("docs_per_sec"))
        {
            if let Some(r) = rate.as_f64() {
                *rate = serde_json::Number::from_f64(r * factor).unwrap_or_else(|| rate.clone());
            }
        }
        target.put_whole(&night, None, &[])?;
    }
    println!("{n} nightly run(s) in {to}");
    Ok(())
}
