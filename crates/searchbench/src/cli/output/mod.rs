//! Terminal output, all of it: tables, sizes, durations, and one renderer per result type.

pub mod baseline;
pub mod beside;
pub mod bisect;
pub mod byo;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod engine;
pub mod experiment;
pub mod fidelity;
mod grid;
pub mod history;
pub mod ingest;
pub mod machine;
pub mod matrix;
pub mod profile;
pub mod query;
pub mod rate;
pub mod results;
pub mod scenario;
pub mod sweep;
pub mod telemetry;
mod terminal;
pub mod track;

pub use grid::{colour, paint, printable, table, tone_cell, width, Grid, Tone};
pub use terminal::{detail, keep_study, Detail, Terminal};

/// Prints what a table's rows are, once, below it: `  name  what`, each entry wrapped between
/// words at [`width`] under its own text (rather than a column that repeats and wraps on every
/// row).
pub fn legend<'a>(entries: impl IntoIterator<Item = (&'a str, String)>) {
    let entries: Vec<(&str, String)> = entries.into_iter().collect();
    let name_width = entries
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    for (name, what) in &entries {
        let lead = format!("  {name:<name_width$}  ");
        outln!("{}", hang(&lead, what, width(), lead.chars().count()));
    }
}

/// Prints a line of prose on stdout, wrapped between words at [`width`]: a line that fits is
/// printed as it is (a table's lines always do), a longer one continues two spaces further in
/// than it starts. For what a terminal would otherwise break mid-word; never for JSON.
pub fn say(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let Some(width) = width() else {
        return write_stdout(format_args!("{text}\n"));
    };
    let wrapped: Vec<String> = text
        .split('\n')
        .map(|line| {
            if line.chars().count() <= usize::from(width) {
                return line.to_string();
            }
            let rest = line.trim_start_matches(' ');
            let lead = &line[..line.len() - rest.len()];
            hang(lead, rest, Some(width), lead.len() + 2)
        })
        .collect();
    write_stdout(format_args!("{}\n", wrapped.join("\n")));
}

/// `text` after `lead`, wrapped between words at `width` with later lines indented by
/// `indent` spaces (4 when that is more than half the width). A word longer than a line is
/// left whole.
fn hang(lead: &str, text: &str, width: Option<u16>, indent: usize) -> String {
    let Some(width) = width.map(usize::from) else {
        return format!("{lead}{text}");
    };
    let indent = if indent * 2 > width { 4 } else { indent };
    let mut out = lead.to_string();
    let mut line = lead.chars().count();
    let mut first = true;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if !first && line + 1 + len > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = indent;
        } else if !first {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
        first = false;
    }
    out
}

/// Writes to stdout for [`outln`] and [`out`]. A closed pipe drops the text (and every later
/// write fails the same way, so the rest is dropped too); the caller carries on to its exit
/// code.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    // Whatever a command prints quotes what tracks, servers and stores said: shown, never
    // acted on by the terminal (see `shown::for_terminal`).
    let text = args.to_string();
    let shown = crate::shown::for_terminal(&text);
    match std::io::stdout().lock().write_all(shown.as_bytes()) {
        // A terminal hung up (SIGHUP: the run goes on to keep its result) answers EIO.
        Err(e)
            if e.kind() != std::io::ErrorKind::BrokenPipe
                && e.raw_os_error() != Some(libc::EIO) =>
        {
            panic!("failed printing to stdout: {e}")
        }
        _ => {}
    }
}

/// Writes to stderr for [`errln`] and [`err`], as [`write_stdout`] does to stdout: what it
/// quotes is shown, never acted on by the terminal. A closed stderr drops the text.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let text = args.to_string();
    let shown = crate::shown::for_terminal(&text);
    let _ = std::io::stderr().lock().write_all(shown.as_bytes());
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
    crate::query::Progress::new(|line| errln!("{line}"))
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
        crate::out_folder::write_file(path, (text + "\n").as_bytes()).context("writing")?;
    }
    Ok(())
}
