//! Tables in the house style, as wide as the terminal, a word never split, what a server
//! said shown escaped; and the colour of a verdict.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

use crate::shown::has_control;
pub use crate::shown::printable;

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

/// `COLUMNS`, when it is a sensible width.
pub fn columns() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|w| *w >= MIN_WIDTH)
}

#[cfg(test)]
mod tests;
