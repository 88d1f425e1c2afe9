//! Terminal output, all of it: tables, sizes, durations, and one renderer per result type.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

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
pub mod track;

/// A table with our house style and the given header, as wide as the terminal: its width
/// when it reports one, else `COLUMNS`, else 80 (a terminal that says 0×0, as CI runners'
/// do, would otherwise get one letter per column). Piped, it fits `COLUMNS` when that is set,
/// else it is as wide as its content up to [`MAX_WIDTH`] (wrapped past it). Only verdict cells
/// carry colour, and only when [`colour`] says so; a word is never split across lines (see
/// [`Grid`]).
pub fn table<I, S>(header: I) -> Grid
where
    I: IntoIterator<Item = S>,
    S: Into<comfy_table::Cell>,
{
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let reported = if terminal {
        table.width().filter(|w| *w >= MIN_WIDTH)
    } else {
        None
    };
    table.force_no_tty();
    if colour() {
        table.enforce_styling();
    }
    match (reported.or_else(columns), terminal) {
        (Some(w), _) => {
            table.set_width(w.min(MAX_WIDTH));
        }
        (None, true) => {
            table.set_width(DEFAULT_WIDTH);
        }
        (None, false) => {
            // Piped with no width to fit: as wide as its content up to MAX_WIDTH, longer
            // cells wrapped (a comparison of several contenders once ran to 336 columns).
            table.set_width(MAX_WIDTH);
        }
    }
    table.set_header(header);
    Grid(table)
}

/// Whether verdicts are coloured: `NO_COLOR` (any value) says never, `CLICOLOR_FORCE` (not
/// `0`) always, else only when stdout is a terminal. `--color` sets these for its process.
pub fn colour() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if set("NO_COLOR") {
        return false;
    }
    set("CLICOLOR_FORCE") || std::io::IsTerminal::is_terminal(&std::io::stdout())
}

/// What a verdict means to the reader: good news, bad news, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Good,
    Bad,
    Unsure,
}

impl Tone {
    fn ansi(self) -> &'static str {
        match self {
            Tone::Good => "32",
            Tone::Bad => "31",
            Tone::Unsure => "33",
        }
    }

    fn color(self) -> comfy_table::Color {
        match self {
            Tone::Good => comfy_table::Color::Green,
            Tone::Bad => comfy_table::Color::Red,
            Tone::Unsure => comfy_table::Color::Yellow,
        }
    }
}

/// `text` in its tone's colour when [`colour`] says so.
pub fn paint(text: &str, tone: Tone) -> String {
    if colour() {
        format!("\x1b[{}m{text}\x1b[0m", tone.ansi())
    } else {
        text.to_string()
    }
}

/// A table cell in its tone's colour when [`colour`] says so.
pub fn tone_cell(text: impl Into<String>, tone: Tone) -> comfy_table::Cell {
    let cell = comfy_table::Cell::new(text.into());
    if colour() {
        cell.fg(tone.color())
    } else {
        cell
    }
}

/// Narrower than this, a terminal's or `COLUMNS`' width is not believed.
const MIN_WIDTH: u16 = 20;
/// The width of a terminal that reports none.
const DEFAULT_WIDTH: u16 = 80;
/// The widest a table or a wrapped line gets, however wide the terminal: past this a row is
/// hard to read across (a comparison of two contenders once ran past 200 columns), so longer
/// cells wrap.
const MAX_WIDTH: u16 = 160;
/// A word longer than this may still be split (a long path): a column is not made wider.
const LONGEST_WHOLE_WORD: usize = 28;
/// What a column whose words do not all fit is counted at when the others are laid out.
const SPLIT_COLUMN: usize = 8;

/// A table that, when shown, wraps only between words: each column is at least as wide as its
/// longest word (up to [`LONGEST_WHOLE_WORD`]). Everything else is the `comfy_table::Table` it
/// derefs to.
pub struct Grid(Table);

impl std::ops::Deref for Grid {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.0
    }
}

impl std::ops::DerefMut for Grid {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.0
    }
}

impl Grid {
    /// Adds a row as the table does, its text shown as [`printable`]: a cell holding a
    /// control character (a run name or tag read back, an error a server sent) gets it
    /// escaped, never sent to the terminal raw.
    pub fn add_row<T: Into<comfy_table::Row>>(&mut self, row: T) -> &mut Self {
        let row: comfy_table::Row = row.into();
        if row.cell_iter().any(|c| has_control(&c.content())) {
            let cells: Vec<comfy_table::Cell> = row
                .cell_iter()
                .map(|c| {
                    let text = c.content();
                    if has_control(&text) {
                        comfy_table::Cell::new(printable(&text))
                    } else {
                        c.clone()
                    }
                })
                .collect();
            self.0.add_row(cells);
        } else {
            self.0.add_row(row);
        }
        self
    }
}

/// Whether `text` holds a character a terminal would act on rather than show (a line break
/// apart: a cell's lines are its own).
fn has_control(text: &str) -> bool {
    text.chars().any(|c| c != '\n' && is_unshown(c))
}

/// Control characters (C0, DEL, C1: ESC and CSI start terminal sequences) and the
/// bidirectional overrides that reorder what follows them.
fn is_unshown(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Stored or received text as a terminal may show it: every control character but a line
/// break escaped (`\u{1b}`), so a run name, tag, label or error read back cannot move the
/// cursor, retitle the window or clear the screen.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !has_control(text) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c != '\n' && is_unshown(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.into()
}

impl std::fmt::Display for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut t = self.0.clone();
        whole_words(&mut t);
        write!(f, "{t}")
    }
}

/// Sets each column's lower bound to its longest word, so wrapping never splits one, when
/// the words fit the width at all (else the first column's only): fitting the terminal comes
/// first, since a line wider than it wraps every row.
fn whole_words(t: &mut Table) {
    use comfy_table::{ColumnConstraint, Width};
    let longest_word = |text: &str| {
        text.split_whitespace()
            .map(|w| w.chars().count())
            .max()
            .unwrap_or(0)
    };
    let mut widest = vec![0usize; t.column_count()];
    let header = t
        .header()
        .map(|h| h.cell_iter().map(|c| c.content()).collect::<Vec<_>>());
    let rows = t
        .row_iter()
        .map(|r| r.cell_iter().map(|c| c.content()).collect::<Vec<_>>());
    for row in header.into_iter().chain(rows) {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widest.get_mut(i) {
                *w = (*w).max(longest_word(cell).min(LONGEST_WHOLE_WORD));
            }
        }
    }
    // Each column takes its word plus padding (one space each side) and a border. When the
    // words cannot all fit, the columns with the longest words (an engine name, a tag) are
    // left to comfy-table's balance, one at a time, longest first, until the rest fit beside
    // them at [`SPLIT_COLUMN`] each; the first column (what names a row: a run id a reader
    // copies, a metric) is the last to give way.
    let Some(width) = t.width() else {
        return;
    };
    let mut whole: Vec<bool> = vec![true; widest.len()];
    let need = |whole: &[bool]| -> usize {
        1 + widest
            .iter()
            .zip(whole)
            .map(|(w, keep)| if *keep { w + 3 } else { SPLIT_COLUMN + 3 })
            .sum::<usize>()
    };
    while need(&whole) > usize::from(width) {
        let give_way = (1..widest.len())
            .filter(|&i| whole[i])
            .max_by_key(|&i| widest[i])
            .or_else(|| whole.first().is_some_and(|k| *k).then_some(0));
        match give_way {
            Some(i) => whole[i] = false,
            None => break,
        }
    }
    for (i, w) in widest.into_iter().enumerate() {
        if !whole[i] {
            continue;
        }
        if let Some(column) = t.column_mut(i) {
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(w as u16 + 2)));
        }
    }
}

/// The width lines are wrapped to: the terminal's, else `COLUMNS`, else 80 on a terminal that
/// reports none; `None` (no wrapping: a sentence stays on one line for `grep`) when stdout is
/// not a terminal and `COLUMNS` is unset.
pub fn width() -> Option<u16> {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    if !terminal {
        return columns().map(|w| w.min(MAX_WIDTH));
    }
    let reported = Table::new().width().filter(|w| *w >= MIN_WIDTH);
    Some(
        reported
            .or_else(columns)
            .unwrap_or(DEFAULT_WIDTH)
            .min(MAX_WIDTH),
    )
}

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

/// `COLUMNS`, when it is a sensible width.
fn columns() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|w| *w >= MIN_WIDTH)
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
        crate::out_folder::write_file(path, (text + "\n").as_bytes()).context("writing")?;
    }
    Ok(())
}

/// How much of a result the terminal shows: what it came to, on one screen (the headline,
/// what bounded it, the verdicts, where the report is), or every table (`--verbose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Brief,
    Full,
}

/// What `--verbose` asks for.
pub fn detail(verbose: bool) -> Detail {
    if verbose {
        Detail::Full
    } else {
        Detail::Brief
    }
}

/// The terminal's observer of a session: status lines on stderr, a progress bar while a load
/// runs, phase results on stdout.
#[derive(Debug)]
pub struct Terminal {
    /// No status lines about the load (warnings and results still print).
    pub quiet: bool,
    /// Phase results as tables on stdout; off when the JSON result goes to stdout.
    pub tables: bool,
    /// How much of each phase's result the tables show (every table unless a command says).
    pub detail: Detail,
    /// Each step's engine profile as its step ends (a track's tasks: their results do not
    /// carry one).
    pub step_profiles: bool,
    bar: std::sync::Mutex<super::progress::Bar>,
    /// A run of this command could not be saved ([`crate::session::Event::NotSaved`]).
    not_saved: std::sync::atomic::AtomicBool,
}

impl Terminal {
    pub fn new(quiet: bool) -> Self {
        Terminal {
            quiet,
            tables: true,
            detail: Detail::Full,
            step_profiles: false,
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

    /// For a command with output flags: no tables on stdout when `--json` puts JSON there.
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
                ingest::print(report, self.detail);
                telemetry::print(report.telemetry.as_ref(), self.detail);
            }
            Event::Queried(result) if self.tables && self.detail == Detail::Brief => {
                outln!();
                query::print(result, self.detail);
                telemetry::print_bounds(result.telemetry.as_ref(), "query phase ");
            }
            Event::Queried(result) if self.tables => {
                query::print(result, self.detail);
                telemetry::print(result.telemetry.as_ref(), self.detail);
            }
            Event::Ingested(_) | Event::Queried(_) => {}
            Event::Saved { id, store } => eprintln!(
                "saved as run {id} in {} (searchbench results show {id})",
                store.display()
            ),
            Event::ReportWritten { path } if self.tables && self.detail == Detail::Brief => {
                outln!(
                    "report: {} (every table; --verbose prints them here)",
                    path.display()
                )
            }
            Event::ReportWritten { path } if self.tables => outln!("report: {}", path.display()),
            Event::ReportWritten { path } => eprintln!("report: {}", path.display()),
            Event::Warning(message) => eprintln!("warning: {message}"),
            Event::NotSaved => self
                .not_saved
                .store(true, std::sync::atomic::Ordering::Relaxed),
            Event::Stage(message) => eprintln!("{message}"),
            Event::Watched { phase, kept } if self.step_profiles && self.tables => {
                if let Some(p) = crate::measure::profile::Profile::kept_in(kept) {
                    outln!("{phase}:");
                    profile::print(&p, self.detail);
                }
            }
            Event::Watched { .. } => {}
        }
    }
}

/// Keeps a study's whole result in the store (unless saving is off); a store that fails here
/// is a warning: the runs are stored, and the result is printed and written beside the page.
pub fn keep_study<T: serde::Serialize>(
    save: &crate::session::SaveSpec,
    kind: &str,
    id: &str,
    started_unix: u64,
    result: &T,
) {
    if save.skip {
        return;
    }
    let kept = save
        .open()
        .and_then(|store| store.put_study(kind, id, started_unix, result));
    if let Err(e) = kept {
        eprintln!("warning: keeping the {kind} {id} in the store: {e}");
    }
}

#[cfg(test)]
mod table_tests {
    #[test]
    fn control_characters_read_back_are_escaped_in_tables_and_lines() {
        use super::printable;
        assert_eq!(
            printable("a\x1b[2Jb\u{9b}c\x07\u{202e}"),
            "a\\u{1b}[2Jb\\u{9b}c\\u{7}\\u{202e}"
        );
        assert!(matches!(
            printable("opensearch-2.19.1 ✓\nsecond line"),
            std::borrow::Cow::Borrowed(_)
        ));
        let mut t = super::table(["run", "tags"]);
        t.add_row(["0000abcd", "build=\x1b]0;pwned\x07"]);
        t.add_row(vec![super::tone_cell("\x1b[31mred", super::Tone::Bad)]);
        let shown = t.to_string();
        assert!(!shown.contains(['\x1b', '\x07']), "{shown:?}");
        assert!(shown.contains("build=\\u{1b}]0;pwned"), "{shown}");
    }

    use super::*;

    #[test]
    fn a_legend_entry_wraps_between_words_under_its_own_text() {
        let text = "no request in flight: waiting for the batcher (generate/read, action lines)";
        let wrapped = hang("  idle  ", text, Some(40), 8);
        for line in wrapped.lines() {
            assert!(line.chars().count() <= 40, "{line:?}");
        }
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines.len() > 1);
        assert!(lines[1..]
            .iter()
            .all(|l| l.starts_with("        ") && !l[8..].starts_with(' ')));
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>()[1..].join(" "),
            text
        );
        assert_eq!(hang("  idle  ", text, None, 8), format!("  idle  {text}"));
    }

    fn grid_of(width: u16, rows: &[[&str; 3]]) -> String {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .force_no_tty()
            .set_width(width)
            .set_header(["metric", "value", "verdict"]);
        for r in rows {
            t.add_row(r.to_vec());
        }
        Grid(t).to_string()
    }

    #[test]
    fn words_are_never_split_when_they_fit_and_the_width_holds() {
        // At 40 columns comfy-table alone splits "inconclusive" across two lines.
        let rows = [
            [
                "service time mean (per-second)",
                "20.3 ms",
                "no significant change",
            ],
            [
                "throughput (headline)",
                "19456 docs/s",
                "inconclusive below ±32.2 %",
            ],
        ];
        let text = grid_of(40, &rows);
        for line in text.lines() {
            assert!(line.chars().count() <= 40, "{line}\n{text}");
        }
        let cells: Vec<&str> = text
            .split(['│', '┆', '\n'])
            .flat_map(str::split_whitespace)
            .collect();
        for word in rows.iter().flatten().flat_map(|c| c.split_whitespace()) {
            assert!(cells.contains(&word), "{word} split in\n{text}");
        }
        // Too narrow for whole words: the width still holds.
        for line in grid_of(24, &rows).lines() {
            assert!(line.chars().count() <= 24, "{line}");
        }
    }

    #[test]
    fn when_not_every_word_fits_the_longest_give_way_and_the_rest_stay_whole() {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .force_no_tty()
            .set_width(80)
            .set_header(["id", "started (UTC)", "engine", "state", "tags"]);
        t.add_row([
            "06f28cd0",
            "2026-11-25 20:45",
            "opensearch-2.19.1",
            "interrupted",
            "build=a-rather-long-tag-value-that-cannot-fit",
        ]);
        let text = Grid(t).to_string();
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let words: Vec<&str> = text
            .split(['│', '┆', '\n'])
            .flat_map(str::split_whitespace)
            .collect();
        // The tag (the longest word) gives way; the id, the date, the engine and the state
        // stay whole.
        for whole in ["06f28cd0", "2026-11-25", "opensearch-2.19.1", "interrupted"] {
            assert!(words.contains(&whole), "{whole} split in\n{text}");
        }
    }
}
