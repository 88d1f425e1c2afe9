//! A bulk whose documents the track's Python gives: each execution's parameters carry the
//! request's whole body (Rally's bulk runner's `body`, `bulk-size`, `unit`,
//! `action-metadata-present`), made in the worker before the request is timed, sent and timed
//! by the Rust driver as every task's request. A bulk whose documents are a corpus goes
//! through the project's own driver instead ([`super::plan`]).

use serde_json::{Map, Value};

use super::operation::{Done, Failed};
use super::plan::Unplanned;
use crate::cluster::Target;

/// One bulk request as its parameters give it.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyBulk {
    /// `/_bulk` when the body's action lines name the index, else `/{index}/_bulk`, with the
    /// request's parameters.
    path: String,
    body: Vec<u8>,
    /// Its weight (`bulk-size`) and what it counts (`unit`): the task's throughput.
    weight: u64,
    unit: String,
}

/// The request of parameters `p` (`query`: its request parameters), as Rally's bulk runner
/// reads them: `body` (NDJSON text, or a list of lines or of action and document objects),
/// `bulk-size`, `unit` and `action-metadata-present` given, `index` when the action lines
/// do not name it, `pipeline` if any.
pub fn of(p: &Map<String, Value>, query: &str) -> Result<BodyBulk, Unplanned> {
    let mandatory = |k: &str| {
        p.get(k).ok_or_else(|| {
            Unplanned::Invalid(format!(
                "bulk: the parameters give no {k}, which Rally's bulk runner needs"
            ))
        })
    };
    let with_meta = mandatory("action-metadata-present")?
        .as_bool()
        .ok_or_else(|| {
            Unplanned::Invalid("bulk: action-metadata-present is not true or false".into())
        })?;
    let weight = mandatory("bulk-size")?
        .as_u64()
        .ok_or_else(|| Unplanned::Invalid("bulk: bulk-size is not a whole number".into()))?;
    let unit = match mandatory("unit")? {
        Value::String(u) => u.clone(),
        v => {
            return Err(Unplanned::Invalid(format!(
                "bulk: unit {} is not a word",
                crate::shown::Shown(v)
            )))
        }
    };
    let body = ndjson(mandatory("body")?)?;
    let mut path =
        match (with_meta, p.get("index").and_then(Value::as_str)) {
            (true, _) => "/_bulk".to_string(),
            (false, Some(index)) => {
                let index = super::operation::path_id("bulk: index", Some(index.to_string()))
                    .map_err(Unplanned::Invalid)?;
                format!("/{index}/_bulk")
            }
            (false, None) => return Err(Unplanned::Invalid(
                "bulk: no index, and the action lines do not name one (action-metadata-present \
                 is false)"
                    .into(),
            )),
        };
    let mut params: Vec<String> = query
        .trim_start_matches('?')
        .split('&')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(pipeline) = p.get("pipeline").and_then(Value::as_str) {
        let encoded: String = url::form_urlencoded::byte_serialize(pipeline.as_bytes()).collect();
        params.push(format!("pipeline={encoded}"));
    }
    if !params.is_empty() {
        path = format!("{path}?{}", params.join("&"));
    }
    Ok(BodyBulk {
        path,
        body,
        weight,
        unit,
    })
}

/// The body as NDJSON: text as it is (ended by a newline), or each line of a list, a line of
/// text as it is (its own newline dropped), an object written as JSON.
fn ndjson(body: &Value) -> Result<Vec<u8>, Unplanned> {
    let mut out = Vec::new();
    match body {
        Value::String(text) => {
            out.extend_from_slice(text.as_bytes());
            if !text.ends_with('\n') {
                out.push(b'\n');
            }
        }
        Value::Array(lines) => {
            for line in lines {
                match line {
                    Value::String(text) => {
                        out.extend_from_slice(text.trim_end_matches(['\r', '\n']).as_bytes())
                    }
                    Value::Object(_) => out.extend_from_slice(line.to_string().as_bytes()),
                    v => {
                        return Err(Unplanned::Invalid(format!(
                            "bulk: a line of the body is {v}, neither text nor an object"
                        )))
                    }
                }
                out.push(b'\n');
            }
        }
        v => {
            return Err(Unplanned::Invalid(format!(
                "bulk: the body is {}, neither text nor a list of lines",
                v.to_string().chars().take(80).collect::<String>()
            )))
        }
    }
    if out.len() <= 1 {
        return Err(Unplanned::Invalid("bulk: the body is empty".into()));
    }
    Ok(out)
}

impl BodyBulk {
    /// Sends it once: a failed item fails the execution with its reason, as Rally's runner
    /// says a bulk with an item in error did not succeed.
    pub async fn once(&self, t: &Target, client: usize) -> Result<(Done, Value), Failed> {
        let reply = t
            .send_at(
                client,
                reqwest::Method::POST,
                &self.path,
                Some(("application/x-ndjson", self.body.clone())),
            )
            .await?;
        let answer = crate::ingest::bulk_answer::read(&reply.body);
        if let Some(problem) = answer.problem {
            return Err(Failed(format!("POST {}: {problem}", self.path)));
        }
        if let Some((k, item)) = answer.failed.first() {
            return Err(Failed(format!(
                "{} of {} documents not taken; the first (document {}): {} {}",
                answer.failed.len(),
                answer.items,
                k + 1,
                item.status,
                item.reason.as_deref().unwrap_or("")
            )));
        }
        Ok((
            Done {
                units: self.weight,
                unit: Some(self.unit.clone()),
                ..Done::default()
            },
            Value::Null,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_body_of_objects_lines_or_text_is_one_ndjson_request() {
        let objects = of(
            &params(
                json!({"body": [{"create": {"_index": "v"}}, {"emb": [0.5, 1.0]}],
                "bulk-size": 1, "unit": "docs", "action-metadata-present": true,
                "pipeline": "a b"}),
            ),
            "",
        )
        .unwrap();
        assert_eq!(objects.path, "/_bulk?pipeline=a+b");
        assert_eq!(
            String::from_utf8(objects.body).unwrap(),
            "{\"create\":{\"_index\":\"v\"}}\n{\"emb\":[0.5,1.0]}\n"
        );
        let lines = of(
            &params(
                json!({"body": ["{\"index\":{}}\n", "{\"n\":1}\n"], "bulk-size": 1,
                "unit": "docs", "action-metadata-present": false, "index": "logs"}),
            ),
            "?refresh=true",
        )
        .unwrap();
        assert_eq!(lines.path, "/logs/_bulk?refresh=true");
        assert_eq!(lines.body, b"{\"index\":{}}\n{\"n\":1}\n");
        let text = of(
            &params(json!({"body": "{\"index\":{}}\n{\"n\":1}", "bulk-size": 1,
                "unit": "docs", "action-metadata-present": false, "index": "logs"})),
            "",
        )
        .unwrap();
        assert_eq!(text.body, lines.body);
        assert_eq!((text.weight, text.unit.as_str()), (1, "docs"));
    }

    #[test]
    fn what_rallys_runner_needs_and_a_path_out_of_its_segment_are_refused() {
        let base = json!({"body": "{}", "bulk-size": 1, "unit": "docs",
            "action-metadata-present": false, "index": "logs"});
        for (key, value, says) in [
            ("unit", Value::Null, "unit null is not a word"),
            ("index", json!("a/../b"), "is not one path segment"),
            ("body", json!([7]), "neither text nor an object"),
            ("body", json!(""), "the body is empty"),
            ("bulk-size", json!(-1), "bulk-size is not a whole number"),
        ] {
            let mut p = params(base.clone());
            p.insert(key.into(), value);
            let Err(Unplanned::Invalid(why)) = of(&p, "") else {
                panic!("{key} accepted")
            };
            assert!(why.contains(says), "{key}: {why}");
        }
        let mut p = params(base);
        p.remove("action-metadata-present");
        let Err(Unplanned::Invalid(why)) = of(&p, "") else {
            panic!("accepted")
        };
        assert!(why.contains("no action-metadata-present"), "{why}");
    }
}
