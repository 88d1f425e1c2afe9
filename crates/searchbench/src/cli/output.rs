//! Terminal output helpers: tables, byte sizes, durations.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

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

/// Makes a closed stdout (`searchbench results show | head`) a normal, quiet exit 0 instead
/// of a panic: `println!` panics on a broken pipe, and the hook catches exactly that.
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

/// Prints a value as pretty JSON on stdout.
pub fn json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
