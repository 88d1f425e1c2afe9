//! `searchbench dates ...`. `dates parse`: the isodate parser as a line filter, for checking
//! it against other implementations. The output format is stable: `<epoch_second>
//! <nano_of_second>` or `error`, one line per input line. `dates cost`: the experiment (see
//! [`cost`]).

pub mod cost;

use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;

use crate::cli::{CliError, CliResult};

#[derive(Debug, Subcommand)]
pub enum DatesCommand {
    /// Parse one date per input line as a `date` field of Elasticsearch/OpenSearch would.
    ///
    /// Writes one line per input line: `<epoch_second> <nano_of_second>` for a date the
    /// engines accept (UTC where the input has no zone), `error` for one they reject. The
    /// instant is the one a `date` field keeps: beyond the range of a signed 64-bit count of
    /// milliseconds (years past about ±292 million) it is clamped to that range's end.
    Parse {
        /// Mapping format: `strict_date_optional_time||epoch_millis` (the default mapping
        /// format), `strict_date_optional_time` or `epoch_millis`.
        #[arg(long, default_value = "strict_date_optional_time||epoch_millis")]
        format: String,
        /// Read from this file instead of stdin.
        #[arg(long, value_name = "FILE", value_parser = crate::cli::args::input_file)]
        input: Option<PathBuf>,
    },
    /// What date handling costs the engine: ISO strings vs epoch millis, default vs narrow
    /// mapping formats, on the logs corpus (see --help).
    Cost(Box<cost::DatesArgs>),
}

pub async fn run(cmd: DatesCommand) -> CliResult {
    match cmd {
        DatesCommand::Cost(args) => cost::run_dates(*args).await,
        DatesCommand::Parse { format, input } => {
            let format: isodate::Format = format.parse().map_err(CliError::usage)?;
            match input {
                Some(path) => {
                    let file = std::fs::File::open(&path)
                        .with_context(|| format!("cannot open {}", path.display()))
                        .map_err(CliError::usage)?;
                    parse_lines(
                        format,
                        std::io::BufReader::with_capacity(1 << 16, file),
                        &path.display().to_string(),
                    )
                }
                None => parse_lines(format, std::io::stdin().lock(), "stdin"),
            }
        }
    }
}

/// The longest line `dates parse` reads as a date: 1 MiB, far past any date.
const MOST_LINE: usize = 1 << 20;

fn parse_lines(format: isodate::Format, mut input: impl BufRead, name: &str) -> CliResult {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = Vec::with_capacity(64);
    let mut number = 0u64;
    loop {
        line.clear();
        number += 1;
        let cannot = || format!("{name}: cannot read line {number}");
        // A line past `MOST_LINE` bytes is no date: it is read no further (not held whole)
        // and said `error`, as an engine rejects it.
        let read = std::io::Read::take(&mut input, MOST_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_context(cannot)?;
        if read == 0 {
            break;
        }
        if line.len() > MOST_LINE && !line.ends_with(b"\n") {
            input.skip_until(b'\n').with_context(cannot)?;
            line.clear();
            line.push(0); // a byte no date holds
        }
        // Line ends are not part of the date, as with Java's BufferedReader.readLine.
        let mut text = line.as_slice();
        if let Some(rest) = text.strip_suffix(b"\n") {
            text = rest;
        }
        if let Some(rest) = text.strip_suffix(b"\r") {
            text = rest;
        }
        let stored =
            isodate::parse_with_format(format, text).map(isodate::Instant::clamp_to_millis_range);
        isodate::write_line(&stored, &mut out).context("cannot write to stdout")?;
    }
    out.flush().context("cannot write to stdout")?;
    Ok(())
}
