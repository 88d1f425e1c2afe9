//! Values as a message shows them. A value a user gave, as a message quotes it: its first
//! [`MOST`] bytes of text, then `…` (a refusal names what it refuses; a track giving a string
//! of megabytes where a word belongs gets a line naming it, not the megabytes back). Text a
//! server, a track or a store gave, as a terminal shows it: [`printable`].

use std::borrow::Cow;
use std::fmt::{self, Display, Write};

/// The most of a value a message quotes, in bytes.
pub const MOST: usize = 200;

/// `value` as `{}` writes it, cut at [`MOST`] bytes (at a character's boundary), `…` where cut.
/// The value is written no further than that: a huge one costs no more than a short one.
pub struct Shown<'a, T: ?Sized>(pub &'a T);

impl<T: Display + ?Sized> Display for Shown<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cut = Cut {
            text: String::new(),
            cut: false,
        };
        // An error here is the cut stopping the writing, or the value's own: either way what
        // was written is what is shown.
        let _ = write!(cut, "{}", self.0);
        f.write_str(&cut.text)?;
        if cut.cut {
            f.write_char('…')?;
        }
        Ok(())
    }
}

/// A writer that keeps [`MOST`] bytes and stops the writing past them.
struct Cut {
    text: String,
    cut: bool,
}

impl Write for Cut {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MOST - self.text.len();
        if s.len() <= room {
            self.text.push_str(s);
            return Ok(());
        }
        self.text.push_str(head(s, room));
        self.cut = true;
        Err(fmt::Error)
    }
}

/// The first `most` bytes of `s` at most, cut before a character that would not fit whole.
pub fn head(s: &str, most: usize) -> &str {
    let mut at = most.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    &s[..at]
}

/// Whether `text` holds a character a terminal would act on rather than show (a line break
/// apart: a cell's lines are its own).
pub(crate) fn has_control(text: &str) -> bool {
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
pub fn printable(text: &str) -> Cow<'_, str> {
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

/// Text as the CLI writes it on its standard output: every control character a terminal would
/// act on written as a JSON escape (`\u001b`), so a name a track gave, a reason a server gave or
/// a tag read back cannot clear the screen, retitle the window or rewrite a line, whichever
/// command prints it. Kept as they are: line breaks, tabs, and colour (SGR: `ESC [ 0-9; m`, the
/// only sequence the CLI writes itself, and one that moves nothing). The escape is JSON's so
/// that a `--json` document on standard output stays valid (serde writes C1 controls raw).
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    let acted_on = |c: char| c != '\n' && c != '\t' && is_unshown(c);
    if !text.chars().any(acted_on) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let colour = (c == '\u{1b}').then(|| colour_len(rest)).flatten();
        let len = colour.unwrap_or(c.len_utf8());
        if colour.is_some() {
            out.push_str(&rest[..len]);
        } else if acted_on(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
        rest = &rest[len..];
    }
    out.into()
}

/// The length of the colour sequence (`ESC [ 0-9; m`) `text` begins with, if it begins with one.
fn colour_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(..2) != Some(b"\x1b[") {
        return None;
    }
    let params = b[2..]
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b';');
    let end = 2 + params.count();
    (b.get(end) == Some(&b'm')).then_some(end + 1)
}

/// Text a store, a track or a server gave, as one line of Markdown shows it (a table cell, a
/// list item, a pull-request comment): line breaks are spaces (a task name holding `\n<!--`
/// cannot end the table and hide the rest of the comment), what Markdown would act on is
/// escaped (`|` `[` `]` `` ` `` `*` `_` `\\`), `<`, `>`, `&` are entities (no live HTML), and
/// control characters are shown as [`printable`] shows them.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\n' => out.push(' '),
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // Shown as `\u{1b}` ("\u" is no Markdown escape: it shows as written).
            c if is_unshown(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_value_is_shown_whole_and_a_long_one_cut_at_a_character() {
        let v = serde_json::json!(["a", 1]);
        assert_eq!(Shown(&v).to_string(), r#"["a",1]"#);
        // 2-byte characters across the cut: cut before the one that does not fit.
        let long = serde_json::Value::String("é".repeat(1_000_000));
        let shown = Shown(&long).to_string();
        assert!(shown.ends_with('…') && shown.starts_with("\"é"), "{shown}");
        assert_eq!(shown.len(), MOST - 1 + '…'.len_utf8());
        let exact = "x".repeat(MOST);
        assert_eq!(Shown(exact.as_str()).to_string(), exact);
    }

    /// A task name or a server's reason cannot end a Markdown table, open a comment that hides
    /// what follows, make a link, or reach a terminal as an escape sequence.
    #[test]
    fn markdown_shows_what_it_is_given_on_one_line_and_acts_on_none_of_it() {
        let hostile = "x\r\n\n<!-- | [a](javascript:x) `c` *d* _e_ \\| & \u{1b}[2J";
        let shown = markdown(hostile);
        assert_eq!(
            shown,
            "x  &lt;!-- \\| \\[a\\](javascript:x) \\`c\\` \\*d\\* \\_e\\_ \\\\\\| &amp; \\u{1b}\\[2J"
        );
        assert!(!shown.contains(['\n', '\r', '<', '>', '\u{1b}']), "{shown}");
        assert_eq!(
            markdown("opensearch-2.19.1 docs/s"),
            "opensearch-2.19.1 docs/s"
        );
    }

    /// Standard output keeps its line breaks, tabs and the CLI's own colours, and shows every
    /// other control character as JSON writes it: a `--json` document holding a C1 control
    /// (serde writes those raw) stays one that reads back the same.
    #[test]
    fn the_terminal_is_shown_text_and_colour_and_acts_on_nothing_else() {
        let plain = "a\tb\nc ✓";
        assert!(matches!(for_terminal(plain), Cow::Borrowed(_)));
        let coloured = "\x1b[31mworse\x1b[0m \x1b[1;32mbetter\x1b[0m";
        assert_eq!(for_terminal(coloured), coloured);
        assert_eq!(
            for_terminal("\x1b]0;pwned\x07\x1b[2J\rx\u{9b}\u{202e}\x1b["),
            "\\u001b]0;pwned\\u0007\\u001b[2J\\u000dx\\u009b\\u202e\\u001b["
        );
        let doc = serde_json::json!({"tag": "a\u{9b}b\u{7f}\u{1b}"}).to_string();
        let shown = for_terminal(&doc);
        assert!(!shown.contains(['\u{9b}', '\u{7f}', '\u{1b}']), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back["tag"], "a\u{9b}b\u{7f}\u{1b}");
    }
}
