//! Reads one date string per stdin line ('\n'-separated, bytes kept as is, a '\r' included)
//! and prints `<epoch_second> <nano_of_second>` or `error` per line: the same contract as
//! the Java oracle and as `searchbench dates parse`.
//!
//! ```text
//! cargo run --release -p isodate --example parse_lines -- [FORMAT] < dates.txt
//! ```

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let format = match std::env::args()
        .nth(1)
        .map(|f| f.parse::<isodate::Format>())
    {
        None => isodate::Format::default(),
        Some(Ok(f)) => f,
        Some(Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(format) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parse_lines: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(format: isodate::Format) -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut line = Vec::with_capacity(128);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        isodate::write_line(&isodate::parse_with_format(format, &line), &mut out)?;
    }
    out.flush()
}
