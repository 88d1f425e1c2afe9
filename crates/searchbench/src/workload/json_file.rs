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
