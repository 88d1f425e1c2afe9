//! Reading the user's JSON files (mappings, settings, templates, pipelines, workload files):
//! an error names the file and the line and column where the JSON went wrong.

use std::path::Path;

use serde_json::Value;

/// The JSON value in `path`; `Err` is a sentence naming the file (and line:column).
pub fn read(path: &Path) -> Result<Value, String> {
    let text = crate::user_file::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&path.display().to_string(), &text)
}

/// `text` as JSON; `name` is the file it came from, for errors. A key given twice in one
/// object is an error: JSON parsers (and the engines) keep the last one in silence, so a
/// second `index` or a query name used twice would lose the first without a word.
pub fn parse(name: &str, text: &str) -> Result<Value, String> {
    let at = |e: serde_json::Error, what: &str| {
        format!(
            "{name}:{}:{}: {what}{}",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        )
    };
    let value: Value = serde_json::from_str(text).map_err(|e| at(e, "not valid JSON: "))?;
    let mut check = serde_json::Deserializer::from_str(text);
    serde::de::DeserializeSeed::deserialize(no_twice::Object, &mut check).map_err(|e| at(e, ""))?;
    Ok(value)
}

/// The first key an object of `text` (valid JSON) holds twice, as an error at the second
/// with the path of the object (`challenges[0].schedule[2].operation`): the rule of [`parse`]
/// for texts read elsewhere (a rendered track).
pub fn key_twice(text: &str) -> Result<(), (serde_json::Error, String)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    let walked = serde::de::DeserializeSeed::deserialize(
        no_twice::Object,
        serde_path_to_error::Deserializer::new(&mut de, &mut track),
    );
    walked.map_err(|e| (e, track.path().to_string()))
}

/// Every key an object of `text` (valid JSON) holds more than once: the path of the object
/// (`operations[0].body`) and the key, in the text's order, the first [`KEYS_TWICE_SAID`] of
/// them, with how many more there are. What the tools do with a track as it ships (they keep
/// the last) is said of each, not refused.
pub fn keys_twice(text: &str) -> (Vec<(String, String)>, usize) {
    let found = std::cell::RefCell::new((Vec::new(), 0));
    let mut de = serde_json::Deserializer::from_str(text);
    let walk = all_twice::Object {
        at: None,
        found: &found,
    };
    // A text that is not JSON has no keys to say; its reader says what is wrong with it.
    let _ = serde::de::DeserializeSeed::deserialize(walk, &mut de);
    found.into_inner()
}

/// The most keys given twice [`keys_twice`] names; the rest are counted.
pub const KEYS_TWICE_SAID: usize = 50;

/// A walk over a JSON text that collects every key an object holds twice, with the object's
/// path. Builds nothing but what it says: a path is a chain of steps on the walk's stack,
/// written out only for a key given twice (a text of millions of keys under one long key
/// copies no path per key).
mod all_twice {
    use std::cell::RefCell;
    use std::collections::HashSet;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

    /// One step from an object's parent to it: a key, or a place in a list.
    pub enum Step<'p> {
        Key(&'p Step<'p>, &'p str),
        Index(&'p Step<'p>, usize),
        Root,
    }

    impl Step<'_> {
        fn write(&self, out: &mut String) {
            match self {
                Step::Root => {}
                Step::Key(up, key) => {
                    up.write(out);
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Step::Index(up, i) => {
                    up.write(out);
                    out.push_str(&format!("[{i}]"));
                }
            }
        }
    }

    pub struct Object<'a, 'p> {
        /// Where the value is; `None` for the text's own value.
        pub at: Option<&'p Step<'p>>,
        pub found: &'a RefCell<(Vec<(String, String)>, usize)>,
    }

    impl<'de> DeserializeSeed<'de> for Object<'_, '_> {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Object<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let root = Step::Root;
            let up = self.at.unwrap_or(&root);
            let mut i = 0;
            loop {
                let step = Step::Index(up, i);
                let inner = Object {
                    at: Some(&step),
                    found: self.found,
                };
                if seq.next_element_seed(inner)?.is_none() {
                    return Ok(());
                }
                i += 1;
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let root = Step::Root;
            let up = self.at.unwrap_or(&root);
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key.clone()) {
                    let mut found = self.found.borrow_mut();
                    if found.0.len() < super::KEYS_TWICE_SAID {
                        let mut at = String::new();
                        up.write(&mut at);
                        if at.is_empty() {
                            at = "the definition".to_string();
                        }
                        found.0.push((at, key.clone()));
                    } else {
                        found.1 += 1;
                    }
                }
                let step = Step::Key(up, &key);
                map.next_value_seed(Object {
                    at: Some(&step),
                    found: self.found,
                })?;
            }
            Ok(())
        }
    }
}

/// A walk over a JSON text that fails, at its position, on the first key an object holds
/// twice. Builds nothing: the value itself is parsed by serde_json.
mod no_twice {
    use std::collections::HashSet;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

    /// Any JSON value, its objects checked.
    pub struct Object;

    impl<'de> DeserializeSeed<'de> for Object {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(Walk)
        }
    }

    struct Walk;

    impl<'de> Visitor<'de> for Walk {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Object)?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key.clone()) {
                    // Said at once: the position is the second key's.
                    return Err(de::Error::custom(format!(
                        "the key {key:?} is given twice in one object (only the last would \
                         count); keep one"
                    )));
                }
                map.next_value_seed(Object)?;
            }
            Ok(())
        }
    }
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

    /// Every key given twice is named with the path of its object, the first 50 of them, the
    /// rest counted; a text of many keys under one long key copies no path per key.
    #[test]
    fn keys_given_twice_are_named_with_their_path_and_the_rest_counted() {
        let text = r#"{"ops": [{"a": 1, "a": 2}, {"b": {"c": 1, "c": 2}}], "top": 1, "top": 2}"#;
        let (twice, more) = keys_twice(text);
        let twice: Vec<(&str, &str)> = twice
            .iter()
            .map(|(a, k)| (a.as_str(), k.as_str()))
            .collect();
        assert_eq!(
            twice,
            [
                ("ops[0]", "a"),
                ("ops[1].b", "c"),
                ("the definition", "top")
            ]
        );
        assert_eq!(more, 0);
        let long = "k".repeat(1 << 20);
        let body: Vec<String> = (0..200_000).map(|_| "\"x\":0".to_string()).collect();
        let text = format!("{{\"{long}\": {{{}}}}}", body.join(","));
        let (twice, more) = keys_twice(&text);
        assert_eq!(
            (twice.len(), more),
            (KEYS_TWICE_SAID, 200_000 - 1 - KEYS_TWICE_SAID)
        );
        assert_eq!(twice[0].0, long);
    }

    #[test]
    fn a_key_given_twice_is_named_with_its_line() {
        let e = parse(
            "w.json",
            "{\n  \"index\": \"a\",\n  \"q\": {\"x\": [{\"k\": 1}, {\"k\": 2}]},\n  \"index\": \"b\"\n}",
        )
        .unwrap_err();
        assert!(e.starts_with("w.json:4:"), "{e}");
        assert!(e.contains("\"index\" is given twice"), "{e}");
        let e = parse("q.json", r#"{"a": {"body": {}, "body": {"size": 0}}}"#).unwrap_err();
        assert!(e.contains("\"body\" is given twice"), "{e}");
        // The same key in two objects is fine.
        let v = parse(
            "ok.json",
            r#"[{"k": 1}, {"k": 2.5, "n": null, "s": "x", "b": true}]"#,
        )
        .unwrap();
        assert_eq!(v[1]["k"], 2.5);
    }
}
