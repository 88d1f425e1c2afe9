//! The user's own queries, a workload like the built-in ones: named search bodies from a file,
//! with `{{param}}` slots filled from a list or from time slices, and optional expected
//! answers (hit count, first ids, an aggregation value by path), measured with the same
//! method ([`plan`] is its query side).
//!
//! File forms: a JSON object `{"name": body, ...}` (a value with a `body` key is a full entry:
//! `{"body": ..., "params": ..., "expect": ...}`), `{"queries": [entry with "name", ...]}`, or
//! NDJSON with one entry (`{"name": ..., "body": ...}`) per line.

pub mod plan;

use serde_json::{Map, Value};

use crate::query::{QueryError, Variant, MAX_SLICES};

pub use plan::UserQueries;

/// One query of the file, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct UserQuery {
    pub name: String,
    pub body: Value,
    pub params: Params,
    /// One expectation for every search, or one per parameter set.
    pub expect: Expectations,
}

/// Where the values of a query's `{{slots}}` come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Params {
    /// No slots: one search.
    None,
    /// One search per object of the list.
    List(Vec<Map<String, Value>>),
    /// `slices` equal time slices of `field` from `from` to `to` (epoch ms; taken from the
    /// index's min and max when not given): one search per slice, slots `{{from}}`, `{{to}}`
    /// (ISO-8601, `to` exclusive) and `{{from_ms}}`, `{{to_ms}}`.
    TimeSlices {
        field: String,
        slices: usize,
        from: Option<i64>,
        to: Option<i64>,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Expectations {
    #[default]
    None,
    All(Expect),
    Each(Vec<Expect>),
}

/// The expected answer of one search.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expect {
    pub hits: Option<u64>,
    pub first_ids: Option<Vec<String>>,
    /// (dotted path under `aggregations`, value).
    pub aggs: Vec<(String, Value)>,
}

/// A query ready to run: its variant, one body per parameter set, what each should answer.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub variant: Variant,
    pub bodies: Vec<Value>,
    pub expect: Vec<Option<Expect>>,
}

fn bad(file: &str, reason: String) -> QueryError {
    QueryError::File {
        path: file.to_string(),
        reason,
    }
}

/// Reads a queries file.
pub fn read(path: &std::path::Path) -> Result<Vec<UserQuery>, QueryError> {
    let file = path.display().to_string();
    let text = crate::user_file::read_to_string(path).map_err(|e| bad(&file, e.to_string()))?;
    parse(&file, &text)
}

/// Parses the text of a queries file called `file`.
pub fn parse(file: &str, text: &str) -> Result<Vec<UserQuery>, QueryError> {
    let whole = crate::workload::json_file::parse(file, text);
    let queries = match whole {
        // One NDJSON line is one JSON object too.
        Ok(Value::Object(o))
            if o.get("name").is_some_and(Value::is_string) && o.contains_key("body") =>
        {
            vec![entry(file, "the entry", None, Value::Object(o))?]
        }
        Ok(Value::Object(mut o)) => match o.remove("queries") {
            Some(Value::Array(list)) if o.is_empty() => list
                .into_iter()
                .enumerate()
                .map(|(i, e)| entry(file, &format!("queries[{i}]"), None, e))
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                o.insert("queries".into(), other);
                named(file, o)?
            }
            None => named(file, o)?,
        },
        Ok(Value::Array(list)) => list
            .into_iter()
            .enumerate()
            .map(|(i, e)| entry(file, &format!("[{i}]"), None, e))
            .collect::<Result<Vec<_>, _>>()?,
        Ok(other) => {
            return Err(bad(
                file,
                format!(
                    "expected an object of named queries, not {}",
                    crate::workload::json_file::kind(&other)
                ),
            ))
        }
        Err(json_error) => ndjson(file, text).map_err(|ndjson_error| {
            // Not one JSON value: NDJSON if its first line is an entry, else the JSON error.
            if text.trim_start().lines().next().is_some_and(|l| {
                serde_json::from_str::<Value>(l).is_ok_and(|v| v.get("name").is_some())
            }) {
                ndjson_error
            } else {
                QueryError::Invalid(json_error)
            }
        })?,
    };
    if queries.is_empty() {
        return Err(bad(file, "no queries in the file".into()));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(q) = queries.iter().find(|q| !seen.insert(q.name.clone())) {
        return Err(bad(file, format!("two queries are called {:?}", q.name)));
    }
    Ok(queries)
}

fn named(file: &str, o: Map<String, Value>) -> Result<Vec<UserQuery>, QueryError> {
    o.into_iter()
        .map(|(name, e)| entry(file, &name, Some(name.clone()), e))
        .collect()
}

fn ndjson(file: &str, text: &str) -> Result<Vec<UserQuery>, QueryError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{file}:{}", i + 1);
        let v = crate::workload::json_file::parse(&at, line).map_err(QueryError::Invalid)?;
        out.push(entry(&at, "this line", None, v)?);
    }
    Ok(out)
}

/// One entry: a body, or `{"name"?, "body", "params"?, "expect"?}`.
fn entry(file: &str, at: &str, name: Option<String>, v: Value) -> Result<UserQuery, QueryError> {
    let Value::Object(mut o) = v else {
        return Err(bad(file, format!("{at}: a query must be a JSON object")));
    };
    let full = o.contains_key("body");
    let name = match (name, o.get("name").and_then(Value::as_str)) {
        (_, Some(n)) if full => n.to_string(),
        (Some(n), _) => n,
        (None, _) => return Err(bad(file, format!("{at}: no \"name\""))),
    };
    if !full {
        return Ok(UserQuery {
            name,
            body: Value::Object(o),
            params: Params::None,
            expect: Expectations::None,
        });
    }
    let here = |reason: String| bad(file, format!("query {name:?}: {reason}"));
    let body = o.remove("body").unwrap_or(Value::Null);
    if !body.is_object() {
        return Err(here("`body` must be a JSON object".into()));
    }
    let params = match o.remove("params") {
        None | Some(Value::Null) => Params::None,
        Some(Value::Array(list)) => Params::List(
            list.into_iter()
                .map(|p| match p {
                    Value::Object(m) => Ok(m),
                    _ => Err(here("every item of `params` must be an object".into())),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(Value::Object(g)) => match g.get("time_slices") {
            Some(Value::Object(t)) => {
                let ms = |k: &str| -> Result<Option<i64>, QueryError> {
                    match t.get(k) {
                        None => Ok(None),
                        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| {
                            here(format!(
                                "time_slices.{k}: {n} is not accepted; use whole epoch ms or a date"
                            ))
                        }),
                        Some(Value::String(s)) => isodate::parse(s.as_bytes())
                            .map(|i| Some(i.to_date_field_millis()))
                            .map_err(|e| here(format!("time_slices.{k}: {e}"))),
                        Some(_) => Err(here(format!("time_slices.{k}: a date or epoch ms"))),
                    }
                };
                Params::TimeSlices {
                    field: t
                        .get("field")
                        .and_then(Value::as_str)
                        .ok_or_else(|| here("time_slices needs a \"field\"".into()))?
                        .to_string(),
                    slices: crate::workload::json_file::whole(
                        t,
                        "slices",
                        "time_slices.slices",
                        1..=MAX_SLICES,
                    )
                    .map_err(here)?
                    .map_or(4, |n| n as usize),
                    from: ms("from")?,
                    to: ms("to")?,
                }
            }
            _ => {
                return Err(here(
                    "`params` is a list of objects or {\"time_slices\": {...}}".into(),
                ))
            }
        },
        Some(_) => return Err(here("`params` is a list of objects".into())),
    };
    let expect = match o.remove("expect") {
        None | Some(Value::Null) => Expectations::None,
        Some(Value::Array(list)) => Expectations::Each(
            list.iter()
                .map(|e| expectation(e).map_err(&here))
                .collect::<Result<_, _>>()?,
        ),
        Some(e) => Expectations::All(expectation(&e).map_err(&here)?),
    };
    if let Some(k) = o.keys().find(|k| *k != "name") {
        return Err(here(format!(
            "unknown key {k:?} (expected name, body, params, expect)"
        )));
    }
    Ok(UserQuery {
        name,
        body,
        params,
        expect,
    })
}

fn expectation(v: &Value) -> Result<Expect, String> {
    let Value::Object(o) = v else {
        return Err("`expect` is an object (hits, first_ids, aggs) or a list of them".into());
    };
    let mut e = Expect::default();
    for (k, v) in o {
        match k.as_str() {
            "hits" => e.hits = Some(v.as_u64().ok_or("expect.hits: a count")?),
            "first_ids" => {
                e.first_ids = Some(
                    v.as_array()
                        .ok_or("expect.first_ids: a list of ids")?
                        .iter()
                        .map(|id| match id {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect(),
                )
            }
            "aggs" => {
                e.aggs = v
                    .as_object()
                    .ok_or("expect.aggs: {\"path.to.value\": value}")?
                    .iter()
                    .map(|(p, v)| (p.clone(), v.clone()))
                    .collect()
            }
            other => return Err(format!("expect: unknown key {other:?}")),
        }
    }
    Ok(e)
}

impl UserQuery {
    /// Whether a slot's values must be read from the index first.
    pub fn needs_range(&self) -> Option<&str> {
        match &self.params {
            Params::TimeSlices {
                field, from: None, ..
            }
            | Params::TimeSlices {
                field, to: None, ..
            } => Some(field),
            _ => None,
        }
    }

    /// The bodies of this query, one per parameter set, with their expected answers. `range`
    /// is the (min, max) of the time-slice field in the index, when it was needed.
    pub fn resolve(&self, file: &str, range: Option<(i64, i64)>) -> Result<Resolved, QueryError> {
        let here = |reason: String| bad(file, format!("query {:?}: {reason}", self.name));
        let sets: Vec<Map<String, Value>> = match &self.params {
            Params::None => vec![Map::new()],
            Params::List(list) if list.is_empty() => return Err(here("`params` is empty".into())),
            Params::List(list) => list.clone(),
            Params::TimeSlices {
                slices, from, to, ..
            } => {
                let (lo, hi) = match (from, to, range) {
                    (Some(a), Some(b), _) => (*a, *b),
                    (a, b, Some((min, max))) => (a.unwrap_or(min), b.unwrap_or(max + 1)),
                    _ => return Err(here("the index gave no range for its time slices".into())),
                };
                if hi <= lo {
                    return Err(here(format!("empty time range {lo}..{hi}")));
                }
                let n = *slices as i64;
                let mut ts = crate::corpus::text::TsCache::default();
                let iso = |ts: &mut crate::corpus::text::TsCache, ms: i64| {
                    let mut b = Vec::new();
                    ts.push_iso_ms(&mut b, ms);
                    String::from_utf8_lossy(&b).into_owned()
                };
                (0..n)
                    .map(|i| {
                        let a = lo + (hi - lo) * i / n;
                        let b = lo + (hi - lo) * (i + 1) / n;
                        let mut m = Map::new();
                        m.insert("from".into(), iso(&mut ts, a).into());
                        m.insert("to".into(), iso(&mut ts, b).into());
                        m.insert("from_ms".into(), a.into());
                        m.insert("to_ms".into(), b.into());
                        m
                    })
                    .collect()
            }
        };
        let bodies = sets
            .iter()
            .map(|set| fill(&self.body, set).map_err(&here))
            .collect::<Result<Vec<_>, _>>()?;
        let expect = match &self.expect {
            Expectations::None => vec![None; sets.len()],
            Expectations::All(e) => vec![Some(e.clone()); sets.len()],
            Expectations::Each(list) if list.len() == sets.len() => {
                list.iter().cloned().map(Some).collect()
            }
            Expectations::Each(list) => {
                return Err(here(format!(
                    "{} expected answers for {} parameter sets",
                    list.len(),
                    sets.len()
                )))
            }
        };
        Ok(Resolved {
            variant: Variant::new(&self.name),
            bodies,
            expect,
        })
    }
}

/// `body` with every `{{slot}}` filled from `params`: a string that is one slot becomes the
/// value itself (a number stays a number); a slot inside a string is replaced by its text.
pub fn fill(body: &Value, params: &Map<String, Value>) -> Result<Value, String> {
    Ok(match body {
        Value::String(s) => {
            let t = s.trim();
            if let Some(name) = t
                .strip_prefix("{{")
                .and_then(|r| r.strip_suffix("}}"))
                .filter(|n| !n.contains("{{") && !n.contains("}}"))
            {
                return slot(name.trim(), params).cloned();
            }
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(at) = rest.find("{{") {
                out.push_str(&rest[..at]);
                let Some(end) = rest[at..].find("}}") else {
                    return Err(format!("unclosed slot in {s:?}"));
                };
                let name = rest[at + 2..at + end].trim();
                match slot(name, params)? {
                    Value::String(v) => out.push_str(v),
                    other => out.push_str(&other.to_string()),
                }
                rest = &rest[at + end + 2..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(list) => Value::Array(
            list.iter()
                .map(|v| fill(v, params))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| Ok((k.clone(), fill(v, params)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn slot<'a>(name: &str, params: &'a Map<String, Value>) -> Result<&'a Value, String> {
    params.get(name).ok_or_else(|| {
        let known: Vec<&str> = params.keys().map(String::as_str).collect();
        if known.is_empty() {
            format!("slot {{{{{name}}}}} has no value: give `params`")
        } else {
            format!(
                "slot {{{{{name}}}}} has no value (the parameters give {})",
                known.join(", ")
            )
        }
    })
}

/// The value at a dotted `path` (array items by number) under `v`.
pub fn at_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, part| match v {
        Value::Object(o) => o.get(part),
        Value::Array(a) => a.get(part.parse::<usize>().ok()?),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_of_the_file() {
        let q = parse("q.json", r#"{"all": {"query": {"match_all": {}}}, "t": {"body": {"query": {"term": {"k": "{{k}}"}}}, "params": [{"k": "a"}, {"k": 2}], "expect": [{"hits": 1}, {"hits": 0}]}}"#).unwrap();
        assert_eq!(q.len(), 2);
        let t = q.iter().find(|q| q.name == "t").unwrap();
        let r = t.resolve("q.json", None).unwrap();
        assert_eq!(r.bodies[1]["query"]["term"]["k"], 2);
        assert_eq!(r.expect[0].as_ref().unwrap().hits, Some(1));
        let nd = parse(
            "q.ndjson",
            "{\"name\": \"a\", \"body\": {\"size\": 0}}\n{\"name\": \"b\", \"body\": {}}\n",
        )
        .unwrap();
        assert_eq!(nd[1].name, "b");
        let e = parse("q.ndjson", "{\"name\": \"a\", \"body\": {}}\n{\"name\": \n").unwrap_err();
        assert!(e.to_string().contains("q.ndjson:2:"), "{e}");
        let e = parse(
            "q.json",
            "{\"a\": {\"body\": {}, \"expect\": {\"hitz\": 1}}}",
        )
        .unwrap_err();
        assert!(e.to_string().contains("hitz"), "{e}");
        let e = parse("q.json", "{\"a\": \n [}").unwrap_err();
        assert!(e.to_string().contains("q.json:2:"), "{e}");
    }

    #[test]
    fn slots_and_slices() {
        let p: Map<String, Value> = json!({"n": 5, "s": "x"}).as_object().unwrap().clone();
        let b = fill(
            &json!({"a": "{{n}}", "b": "pre-{{s}}-{{n}}", "c": ["{{ s }}"]}),
            &p,
        )
        .unwrap();
        assert_eq!(b, json!({"a": 5, "b": "pre-x-5", "c": ["x"]}));
        assert!(fill(&json!("{{nope}}"), &p).unwrap_err().contains("nope"));
        let q = UserQuery {
            name: "r".into(),
            body: json!({"query": {"range": {"t": {"gte": "{{from}}", "lt": "{{to}}"}}}}),
            params: Params::TimeSlices {
                field: "t".into(),
                slices: 2,
                from: None,
                to: None,
            },
            expect: Expectations::None,
        };
        assert_eq!(q.needs_range(), Some("t"));
        let r = q.resolve("f", Some((0, 86_399_999))).unwrap();
        assert_eq!(r.bodies.len(), 2);
        assert_eq!(
            r.bodies[1]["query"]["range"]["t"]["gte"],
            "1970-01-01T12:00:00.000Z"
        );
        assert_eq!(
            r.bodies[1]["query"]["range"]["t"]["lt"],
            "1970-01-02T00:00:00.000Z"
        );
    }

    #[test]
    fn paths() {
        let v = json!({"a": {"b": [{"c": 1.5}]}});
        assert_eq!(at_path(&v, "a.b.0.c"), Some(&json!(1.5)));
        assert!(at_path(&v, "a.x").is_none());
    }
}
