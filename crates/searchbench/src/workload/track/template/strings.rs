//! The `str` methods of Python that minijinja-contrib's `pycompat` does not give, as Python
//! gives them: positions and widths in characters, not bytes.

use minijinja::value::{from_args, Value};
use minijinja::{Error, ErrorKind};

use super::python::List;

/// `s.method(args)` when it is one of these; `None` when it is not (pycompat's, or unknown).
pub fn method(s: &str, method: &str, args: &[Value]) -> Result<Option<Value>, Error> {
    let v = match method {
        "casefold" => {
            let () = from_args(args)?;
            Value::from(s.to_lowercase())
        }
        "swapcase" => {
            let () = from_args(args)?;
            Value::from(
                s.chars()
                    .flat_map(|c| {
                        if c.is_uppercase() {
                            c.to_lowercase().collect::<Vec<_>>()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect::<String>(),
            )
        }
        "center" | "ljust" | "rjust" => {
            let (width, fill): (i64, Option<String>) = from_args(args)?;
            let fill = fill_char(method, fill)?;
            let len = s.chars().count() as i64;
            let pad = (width - len).max(0);
            let (left, right) = match method {
                "ljust" => (0, pad),
                "rjust" => (pad, 0),
                // CPython's: the odd one out goes left when the width is odd.
                _ => {
                    let left = pad / 2 + (pad & width & 1);
                    (left, pad - left)
                }
            };
            padded(s, fill, left, right)?
        }
        "zfill" => {
            let (width,): (i64,) = from_args(args)?;
            let len = s.chars().count() as i64;
            let pad = (width - len).max(0);
            check_width(pad)?;
            let (sign, digits) = match s.chars().next() {
                Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                _ => (String::new(), s),
            };
            Value::from(format!("{sign}{}{digits}", "0".repeat(pad as usize)))
        }
        "partition" | "rpartition" => {
            let (sep,): (&str,) = from_args(args)?;
            if sep.is_empty() {
                return Err(invalid(format!("{method}(): empty separator")));
            }
            let found = if method == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts = match found {
                Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
                None if method == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Value::from(parts.iter().map(|p| Value::from(*p)).collect::<Vec<_>>())
        }
        "rsplit" => {
            let (sep, maxsplit): (Option<&str>, Option<i64>) = from_args(args)?;
            List::value(
                rsplit(s, sep, maxsplit.unwrap_or(-1))?
                    .into_iter()
                    .map(Value::from),
            )
        }
        "index" | "rindex" => {
            let (sub,): (&str,) = from_args(args)?;
            let found = if method == "index" {
                s.find(sub)
            } else {
                s.rfind(sub)
            };
            match found {
                Some(byte) => Value::from(s[..byte].chars().count()),
                None => return Err(invalid(format!("{method}(): substring {sub:?} not found"))),
            }
        }
        "isdecimal" => {
            let () = from_args(args)?;
            Value::from(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
        }
        "istitle" => {
            let () = from_args(args)?;
            Value::from(is_title(s))
        }
        "isidentifier" => {
            let () = from_args(args)?;
            let mut chars = s.chars();
            Value::from(
                chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && chars.all(|c| c.is_alphanumeric() || c == '_'),
            )
        }
        "removeprefix" => {
            let (prefix,): (&str,) = from_args(args)?;
            Value::from(s.strip_prefix(prefix).unwrap_or(s))
        }
        "removesuffix" => {
            let (suffix,): (&str,) = from_args(args)?;
            Value::from(s.strip_suffix(suffix).unwrap_or(s))
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// The widest a padded string may be: what a template could mean, not a way to fill memory.
const MAX_WIDTH: i64 = 1 << 20;

fn check_width(pad: i64) -> Result<(), Error> {
    if pad > MAX_WIDTH {
        return Err(invalid(format!(
            "a width of {pad} characters is more than a track needs (at most {MAX_WIDTH})"
        )));
    }
    Ok(())
}

fn fill_char(method: &str, fill: Option<String>) -> Result<char, Error> {
    let fill = fill.unwrap_or_else(|| " ".into());
    let mut chars = fill.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(invalid(format!(
            "{method}(): the fill character must be exactly one character long, not {fill:?}"
        ))),
    }
}

fn padded(s: &str, fill: char, left: i64, right: i64) -> Result<Value, Error> {
    check_width(left + right)?;
    let f = fill.to_string();
    Ok(Value::from(format!(
        "{}{s}{}",
        f.repeat(left as usize),
        f.repeat(right as usize)
    )))
}

/// Python's `rsplit`: from the right, at most `maxsplit` splits (all when negative); runs of
/// whitespace when `sep` is none.
fn rsplit(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    let limit = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    let mut out = Vec::new();
    match sep {
        Some("") => return Err(invalid("rsplit(): empty separator".into())),
        Some(sep) => {
            let mut rest = s;
            while out.len() < limit {
                match rest.rfind(sep) {
                    Some(i) => {
                        out.push(rest[i + sep.len()..].to_string());
                        rest = &rest[..i];
                    }
                    None => break,
                }
            }
            out.push(rest.to_string());
        }
        None => {
            let mut rest = s.trim_end();
            while !rest.is_empty() {
                if out.len() == limit {
                    out.push(rest.to_string());
                    break;
                }
                match rest.rfind(char::is_whitespace) {
                    Some(i) => {
                        let ws = rest[i..].chars().next().map_or(1, char::len_utf8);
                        out.push(rest[i + ws..].to_string());
                        rest = rest[..i].trim_end();
                    }
                    None => {
                        out.push(rest.to_string());
                        rest = "";
                    }
                }
            }
        }
    }
    out.reverse();
    Ok(out)
}

/// Python's `istitle`: at least one cased character, every uppercase one starting a word and
/// every lowercase one inside one.
fn is_title(s: &str) -> bool {
    let (mut cased, mut previous_cased) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() {
            if previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else if c.is_lowercase() {
            if !previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else {
            previous_cased = false;
        }
    }
    cased
}

fn invalid(why: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, why)
}
