//! A value a user gave, as a message quotes it: its first [`MOST`] bytes of text, then `…`.
//! A refusal names what it refuses; a track giving a string (or an array) of megabytes where a
//! word belongs gets a line naming it, not the megabytes back.

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
        let mut at = room;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        self.text.push_str(&s[..at]);
        self.cut = true;
        Err(fmt::Error)
    }
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
}
