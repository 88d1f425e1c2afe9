//! Compares the crate with the Java oracle's output for the same input file and prints the
//! agreement figure, the explained exclusions and the first unexplained differences.
//! Exits 1 on any unexplained difference. Used by `bench/dates/differential.sh`.
//!
//! ```text
//! cargo run --release -p isodate --example differential -- INPUT ORACLE_OUTPUT [FORMAT] [field-millis]
//! ```
//!
//! With `field-millis`, compares what a millisecond `date` field stores (the oracle's
//! `field-millis` mode) instead of the exact instant.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(oracle)) = (args.first(), args.get(1)) else {
        eprintln!("usage: differential INPUT ORACLE_OUTPUT [FORMAT]");
        return ExitCode::from(2);
    };
    let format = match args
        .get(2)
        .map(|f| f.parse::<isodate::Format>())
        .transpose()
    {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (inputs, oracle) = match (std::fs::read(input), std::fs::read_to_string(oracle)) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("differential: {e}");
            return ExitCode::from(2);
        }
    };
    let c = if args.get(3).map(String::as_str) == Some("field-millis") {
        isodate::testgen::compare_field_millis(format, &inputs, &oracle)
    } else {
        isodate::testgen::compare(format, &inputs, &oracle)
    };
    print!("{}", c.report());
    if c.difference_count == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
