//! Terminal output, all of it: tables, sizes, durations, and one renderer per result type.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

pub mod beside;
pub mod bisect;
pub mod byo;
pub mod calibrate;
pub mod check;
pub mod engine;
pub mod experiment;
pub mod history;
pub mod ingest;
pub mod matrix;
pub mod query;
pub mod rate;
pub mod results;
pub mod scenario;
pub mod sweep;
pub mod telemetry;

/// A table with our house style and the given header. On a terminal it fits the terminal's
/// width; piped, it fits `COLUMNS` when that is set, else it is as wide as its content (one
/// row per line, nothing wrapped). Tables carry no colour codes.
pub fn table<I, S>(header: I) -> Table
where
    I: IntoIterator<Item = S>,
    S: Into<comfy_table::Cell>,
{
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        table.force_no_tty();
        match columns() {
            Some(w) => {
                table.set_width(w);
            }
            None => {
                table.set_content_arrangement(ContentArrangement::Disabled);
            }
        }
    }
    table.set_header(header);
    table
}

/// `COLUMNS`, when it is a sensible width.
fn columns() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|w| *w >= 20)
}

/// Writes to stdout for [`outln`] and [`out`]. A closed pipe drops the text (and every later
/// write fails the same way, so the rest is dropped too); the caller carries on to its exit
/// code.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    match std::io::stdout().lock().write_fmt(args) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            panic!("failed printing to stdout: {e}")
        }
        _ => {}
    }
}

/// The last resort for output that does not go through [`write_stdout`] (a library's own
/// `println!`): a closed stdout ends the process quietly rather than with a panic message.
pub fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.contains("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(super::exit::OK);
        }
        default(info);
    }));
}

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

pub fn secs(d: std::time::Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// A progress sink that prints each line on stderr.
pub fn stderr_lines() -> crate::query::Progress {
    crate::query::Progress::new(|line| eprintln!("{line}"))
}

/// Prints a value as pretty JSON on stdout.
pub fn json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Writes `value` as JSON to `path` (`-`: stdout), if a path is given (`--json`).
pub fn json_to<T: serde::Serialize>(
    value: &T,
    path: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let Some(path) = path else {
        return Ok(());
    };
    let text = serde_json::to_string_pretty(value).context("encoding the result")?;
    if path.as_os_str() == "-" {
        outln!("{text}");
    } else {
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The terminal's observer of a session: status lines on stderr, a progress bar while a load
/// runs, phase results on stdout.
#[derive(Debug)]
pub struct Terminal {
    /// No status lines about the load (warnings and results still print).
    pub quiet: bool,
    /// Phase results as tables on stdout; off when the JSON result goes to stdout.
    pub tables: bool,
    bar: std::sync::Mutex<super::progress::Bar>,
    /// A run of this command could not be saved ([`crate::session::Event::NotSaved`]).
    not_saved: std::sync::atomic::AtomicBool,
}

impl Terminal {
    pub fn new(quiet: bool) -> Self {
        Terminal {
            quiet,
            tables: true,
            bar: Default::default(),
            not_saved: Default::default(),
        }
    }

    /// `outcome`, unless it is a success while a run could not be saved: then exit 1, after
    /// the result was printed (a run that is not kept is not a success).
    pub fn unless_unsaved(&self, outcome: super::CliResult) -> super::CliResult {
        match outcome {
            Ok(()) if self.not_saved.load(std::sync::atomic::Ordering::Relaxed) => {
                Err(super::CliError {
                    code: super::exit::FAILURE,
                    error: anyhow::anyhow!(
                        "the run is done but could not be saved in the results store (see the \
                         warning above); fix the store or pass --no-store"
                    ),
                })
            }
            other => other,
        }
    }

    /// For a command with output flags: no tables on stdout when `--json -` puts JSON there.
    pub fn for_output(out: &crate::cli::args::OutputArgs) -> Self {
        Terminal {
            tables: !out.json_on_stdout(),
            ..Terminal::new(out.quiet)
        }
    }
}

impl crate::session::Observer for Terminal {
    fn event(&self, event: crate::session::Event<'_>) {
        use crate::session::Event;
        match event {
            Event::EngineStarting { engine, nodes } => {
                let nodes = if nodes > 1 {
                    format!(" ({nodes} nodes)")
                } else {
                    String::new()
                };
                eprintln!("starting {engine}{nodes} for this run (it stops when the run ends)")
            }
            Event::EngineUp {
                engine,
                url,
                pid,
                nodes,
                boot,
            } => {
                let cluster = if nodes > 1 {
                    format!("{nodes} nodes, first ")
                } else {
                    String::new()
                };
                eprintln!(
                    "{engine} is up at {url} ({cluster}pid {pid}, {:.1} s)",
                    boot.as_secs_f64()
                )
            }
            Event::Loading {
                corpus,
                index,
                url,
                clients,
                bulk_docs,
                gzip,
            } => {
                if !self.quiet {
                    eprintln!(
                        "loading {corpus} into {index} at {url} ({clients} client(s), \
                         {bulk_docs} docs per request{})",
                        if gzip { ", gzip" } else { "" }
                    );
                }
            }
            Event::Querying {
                index,
                workload,
                has_queries,
            } => {
                if has_queries {
                    eprintln!("\nquerying {index} ({workload} workload)");
                } else {
                    eprintln!("\nthe {workload} workload has no query phase");
                }
            }
            Event::Progress(p) => self
                .bar
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .update(&p),
            Event::Ingested(report) if self.tables => {
                ingest::print(report);
                telemetry::print(report.telemetry.as_ref());
            }
            Event::Queried(result) if self.tables => {
                query::print(result);
                telemetry::print(result.telemetry.as_ref());
            }
            Event::Ingested(_) | Event::Queried(_) => {}
            Event::Saved { id, store } => eprintln!(
                "saved as run {id} in {} (searchbench results show {id})",
                store.display()
            ),
            Event::ReportWritten { path } if self.tables => outln!("report: {}", path.display()),
            Event::ReportWritten { path } => eprintln!("report: {}", path.display()),
            Event::Warning(message) => eprintln!("warning: {message}"),
            Event::NotSaved => self
                .not_saved
                .store(true, std::sync::atomic::Ordering::Relaxed),
            Event::Stage(message) => eprintln!("{message}"),
        }
    }
}
