//! Reading the user's JSON files (mappings, settings, templates, pipelines, workload files):
//! an error names the file and the line and column where the JSON went wrong.

use std::path::Path;

use serde_json::Value;

/// The JSON value in `path`; `Err` is a sentence naming the file (and line:column).
pub fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&path.display().to_string(), &text)
}

/// `text` as JSON; `name` is the file it came from, for errors.
pub fn parse(name: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| {
        format!(
            "{name}:{}:{}: not valid JSON: {}",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        )
    })
}

/// A JSON object from `path` (a mapping, settings, a template must be one).
pub fn read_object(path: &Path, what: &str) -> Result<serde_json::Map<String, Value>, String> {
    match read(path)? {
        Value::Object(o) => Ok(o),
        other => Err(format!(
            "{}: {what} must be a JSON object, not {}",
            path.display(),
            kind(&other)
        )),
    }
}

/// `at line L column C` is said once, up front.
fn strip_position(message: &str) -> &str {
    message
        .find(" at line ")
        .map_or(message, |at| &message[..at])
}

/// What kind of JSON value this is, for errors.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `obj[key]` as a whole number within `range`: `None` when absent, an error naming `field`,
/// the value and the accepted range when it is of another type or outside (never a default
/// or a clamp in its place).
pub fn whole(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    field: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, String> {
    let Some(v) = obj.get(key) else {
        return Ok(None);
    };
    match v.as_u64() {
        Some(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(format!(
            "{field}: {v} is not accepted; use {}",
            accepted(&range)
        )),
    }
}

/// `a whole number from 1 to 1024`, `a whole number, 1 or more`.
pub fn accepted(range: &std::ops::RangeInclusive<u64>) -> String {
    match (*range.start(), *range.end()) {
        (0, u64::MAX) => "a whole number, 0 or more".into(),
        (lo, u64::MAX) => format!("a whole number, {lo} or more"),
        (lo, hi) => format!("a whole number from {lo} to {hi}"),
    }
}

#[cfg(test)]
mod fields {
    use super::*;

    #[test]
    fn a_whole_number_is_taken_within_its_range_and_refused_outside() {
        let o = serde_json::json!({"a": 5, "neg": -1, "big": 18446744073709551615u64,
                                   "s": "x", "f": 1.5, "zero": 0});
        let o = o.as_object().unwrap();
        assert_eq!(whole(o, "a", "a", 1..=10), Ok(Some(5)));
        assert_eq!(whole(o, "missing", "m", 1..=10), Ok(None));
        for (key, value) in [
            ("neg", "-1"),
            ("big", "18446744073709551615"),
            ("s", "\"x\""),
            ("f", "1.5"),
            ("zero", "0"),
        ] {
            let e = whole(o, key, &format!("defaults.{key}"), 1..=1024).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "defaults.{key}: {value} is not accepted; use a whole number from 1 to 1024"
                )
            );
        }
        assert!(whole(o, "zero", "z", 1..=u64::MAX)
            .unwrap_err()
            .ends_with("a whole number, 1 or more"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_line_and_column() {
        let e = parse("m.json", "{\n  \"a\": 1,\n  \"b\" 2\n}").unwrap_err();
        assert!(
            e.starts_with("m.json:3:7: not valid JSON: expected `:`"),
            "{e}"
        );
        assert!(!e.contains("at line"), "{e}");
    }
}
