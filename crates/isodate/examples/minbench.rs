//! A contention-robust timing: the *minimum* over many short batches of the time per
//! parse. On a busy shared machine criterion's mean/median include time slices lost to
//! other processes; the minimum batch is the closest to the uncontended cost.
//!
//! ```text
//! cargo run --release -p isodate --example minbench
//! ```

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let default = [
        "2023-01-01T23:38:34.000Z",
        "2023-11-04T21:38:47.605716183+01:00",
    ]
    .map(String::from);
    let inputs = if args.is_empty() {
        default.to_vec()
    } else {
        args
    };
    for s in &inputs {
        let bytes = s.as_bytes();
        const BATCH: u32 = 2_000;
        let mut best = f64::MAX;
        for _ in 0..20_000 {
            let t = Instant::now();
            for _ in 0..BATCH {
                let _ = black_box(isodate::parse(black_box(bytes)));
            }
            best = best.min(t.elapsed().as_nanos() as f64 / f64::from(BATCH));
        }
        println!("{s}: {best:.2} ns/parse (min of 20000 batches of {BATCH})");
    }
}
