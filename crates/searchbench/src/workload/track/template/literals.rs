//! The dicts and lists a template writes, made ones that change in place: inside each tag
//! (`{{ ... }}`, `{% ... %}`), every dict literal `{...}` becomes `_sb_dict({...})` and every
//! list literal `[...]` becomes `_sb_list([...])` ([`super::python`]). A `[` after a value is
//! a subscript (`a[0]`, `"ab"[1:]`) and stays; strings, comments and raw blocks are copied
//! as they are. Only the inside of tags changes, and no line is added or taken: an error's
//! line is the line the author wrote.

/// The function a dict literal is wrapped in.
pub const DICT: &str = "_sb_dict";
/// The function a list literal is wrapped in.
pub const LIST: &str = "_sb_list";

/// `text` with its literals wrapped.
pub fn wrapped(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    let mut i = 0;
    while i < b.len() {
        let opening = b[i] == b'{' && matches!(b.get(i + 1), Some(b'{' | b'%' | b'#'));
        if !opening {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i = match b[i + 1] {
            b'#' => copy_until(b, i, b"#}", &mut out),
            b'%' if is_raw(b, i + 2) => copy_raw(b, i, &mut out),
            b'%' => tag(b, i, b'%', &mut out),
            _ => tag(b, i, b'}', &mut out),
        };
    }
    // Only ASCII was added, at ASCII places: the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Copies from `at` up to and including `end` (or to the end of the text); where it stopped.
fn copy_until(b: &[u8], at: usize, end: &[u8], out: &mut Vec<u8>) -> usize {
    let stop = find(b, at + 2, end).map_or(b.len(), |e| e + end.len());
    out.extend_from_slice(&b[at..stop]);
    stop
}

fn find(b: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(what.len())
        .position(|w| w == what)
        .map(|p| p + from)
}

/// Whether the statement starting after `{%` at `at` is `raw`.
fn is_raw(b: &[u8], at: usize) -> bool {
    let mut i = at;
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    b.get(i..i + 3) == Some(b"raw") && !b.get(i + 3).is_some_and(|c| is_word(*c))
}

/// A raw block copied whole, to the end of its `endraw` tag.
fn copy_raw(b: &[u8], at: usize, out: &mut Vec<u8>) -> usize {
    let mut from = at + 2;
    while let Some(open) = find(b, from, b"{%") {
        let mut i = open + 2;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if b.get(i..i + 6) == Some(b"endraw") {
            let stop = find(b, i, b"%}").map_or(b.len(), |e| e + 2);
            out.extend_from_slice(&b[at..stop]);
            return stop;
        }
        from = open + 2;
    }
    out.extend_from_slice(&b[at..]);
    b.len()
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Dict,
    List,
    Subscript,
    Paren,
}

/// One tag from `at` (its `{{` or `{%`), closed by `close` and `}`; where it ended.
fn tag(b: &[u8], at: usize, close: u8, out: &mut Vec<u8>) -> usize {
    out.extend_from_slice(&b[at..at + 2]);
    let mut i = at + 2;
    let mut open: Vec<Open> = Vec::new();
    // Whether a `[` here starts a list (after an operator, a comma, a keyword or the tag's
    // start) rather than a subscript (after a name, a number, a string or a closing bracket).
    let mut value_before = false;
    while i < b.len() {
        let c = b[i];
        if open.is_empty() && c == close && b.get(i + 1) == Some(&b'}') {
            out.extend_from_slice(&b[i..i + 2]);
            return i + 2;
        }
        match c {
            b'"' | b'\'' => {
                let end = string_end(b, i);
                out.extend_from_slice(&b[i..end]);
                i = end;
                value_before = true;
                continue;
            }
            b'{' => {
                open.push(Open::Dict);
                out.extend_from_slice(DICT.as_bytes());
                out.extend_from_slice(b"({");
                value_before = false;
            }
            b'[' => {
                if value_before {
                    open.push(Open::Subscript);
                    out.push(b'[');
                } else {
                    open.push(Open::List);
                    out.extend_from_slice(LIST.as_bytes());
                    out.extend_from_slice(b"([");
                }
                value_before = false;
            }
            b'(' => {
                open.push(Open::Paren);
                out.push(b'(');
                value_before = false;
            }
            b'}' | b']' | b')' => {
                match open.pop() {
                    Some(Open::Dict) if c == b'}' => out.extend_from_slice(b"})"),
                    Some(Open::List) if c == b']' => out.extend_from_slice(b"])"),
                    // Mismatched or unopened: copied, for minijinja to name.
                    _ => out.push(c),
                }
                value_before = true;
            }
            c if is_word(c) => {
                let start = i;
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
                let word = &b[start..i];
                out.extend_from_slice(word);
                value_before = !matches!(
                    word,
                    b"in"
                        | b"and"
                        | b"or"
                        | b"not"
                        | b"if"
                        | b"else"
                        | b"elif"
                        | b"is"
                        | b"set"
                        | b"for"
                        | b"with"
                        | b"return"
                        | b"print"
                        | b"do"
                );
                continue;
            }
            c if c.is_ascii_whitespace() => out.push(c),
            // `.` keeps what it follows (`a.b[0]`: the name after it decides).
            b'.' => out.push(c),
            _ => {
                out.push(c);
                value_before = false;
            }
        }
        i += 1;
    }
    b.len()
}

/// Where the string opening at `at` ends (after its closing quote), backslashes escaping.
fn string_end(b: &[u8], at: usize) -> usize {
    let quote = b[at];
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dicts_and_lists_in_tags_are_wrapped_and_nothing_else() {
        for (text, expected) in [
            (
                r#"{% set d = {"a": [1, {"b": 2}]} %}"#,
                r#"{% set d = _sb_dict({"a": _sb_list([1, _sb_dict({"b": 2})])}) %}"#,
            ),
            // Subscripts and slices stay; a list after `in` is a list.
            (
                r#"{{ a[0] + b["k"][1:] + "xy"[0] + f(x)[2] + [1][0] }}"#,
                r#"{{ a[0] + b["k"][1:] + "xy"[0] + f(x)[2] + _sb_list([1])[0] }}"#,
            ),
            (
                "{% for x in [1, 2] if x not in [3] %}",
                "{% for x in _sb_list([1, 2]) if x not in _sb_list([3]) %}",
            ),
            // Braces in strings, whitespace control, a dict closing at the tag's end.
            (
                r#"{{- {"x": "}}{%"}|tojson -}}"#,
                r#"{{- _sb_dict({"x": "}}{%"})|tojson -}}"#,
            ),
            (
                r#"{{ {"a": {"b": 1}}}}"#,
                r#"{{ _sb_dict({"a": _sb_dict({"b": 1})})}}"#,
            ),
            // Text outside tags, comments and raw blocks are the author's.
            (
                r#"{"a": [1]} {# {"b": [2]} #} {% raw %}{{ [3] }}{% endraw %} {{ 'it''s' }}"#,
                r#"{"a": [1]} {# {"b": [2]} #} {% raw %}{{ [3] }}{% endraw %} {{ 'it''s' }}"#,
            ),
            ("{{ 'a\\'[b' }}", "{{ 'a\\'[b' }}"),
            // Lines are kept; unclosed tags are left for minijinja to name.
            (
                "{% set x = {\n  'a': 1\n} %}\n{{ [",
                "{% set x = _sb_dict({\n  'a': 1\n}) %}\n{{ _sb_list([",
            ),
            ("héllo {{ ['é'] }}", "héllo {{ _sb_list(['é']) }}"),
        ] {
            assert_eq!(wrapped(text), expected, "{text}");
        }
    }
}
