//! Reading a search answer: what every answer must hold (took, a hit count, no failed shard),
//! with the whole body kept for the workload's own checks. Everything here comes from
//! the server, so nothing is assumed: a missing or odd piece is a reason, not a panic.

use serde_json::Value;

/// What one search answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Server time, milliseconds.
    pub took_ms: u64,
    /// `hits.total`: exact, or a lower bound when `count_is_exact` is false (relation
    /// `gte`: the engine stops counting at `track_total_hits`, 10,000 by default).
    pub count: u64,
    pub count_is_exact: bool,
    /// Whether the answer counted its hits at all: a body asking `"track_total_hits": false`
    /// gets none (`count` is then 0 and not exact), a good answer all the same.
    pub counted: bool,
    /// The answer as it came, for the workload's checks (see the readers below).
    pub body: Value,
}

/// Reads one search answer (a `_search` body or one `_msearch` response).
pub fn parse_search(v: Value) -> Result<Answer, String> {
    if let Some(e) = v.get("error") {
        let status = v.get("status").and_then(Value::as_u64).unwrap_or(0);
        return Err(format!("HTTP {status}: {}", error_reason(e)));
    }
    let took_ms = v
        .get("took")
        .and_then(Value::as_u64)
        .ok_or("no numeric `took`")?;
    if v.get("timed_out").and_then(Value::as_bool) == Some(true) {
        return Err("the search timed out on the server (`timed_out: true`)".into());
    }
    if let Some(failed) = v.pointer("/_shards/failed").and_then(Value::as_u64) {
        if failed > 0 {
            return Err(format!("{failed} shard(s) failed"));
        }
    }
    // No count at all is what `"track_total_hits": false` asks for (the engines then leave
    // `hits.total` out); a lower bound is a good answer too: only a check of the count needs
    // it exact (see `Answer::count_differs`), and most real queries never ask for one.
    let Some(total) = v.pointer("/hits/total") else {
        if v.get("hits").is_some_and(Value::is_object) {
            return Ok(Answer {
                took_ms,
                count: 0,
                count_is_exact: false,
                counted: false,
                body: v,
            });
        }
        return Err("no `hits`".into());
    };
    let (count, count_is_exact) = match total {
        Value::Number(n) => (n.as_u64().ok_or("`hits.total` is not a count")?, true),
        Value::Object(o) => {
            let exact = match o.get("relation").and_then(Value::as_str) {
                None | Some("eq") => true,
                Some("gte") => false,
                Some(other) => {
                    return Err(format!(
                        "`hits.total.relation` is `{other}` (expected `eq` or `gte`)"
                    ))
                }
            };
            let value = o
                .get("value")
                .and_then(Value::as_u64)
                .ok_or("`hits.total.value` is not a count")?;
            (value, exact)
        }
        _ => return Err("`hits.total` is neither a number nor an object".into()),
    };
    Ok(Answer {
        took_ms,
        count,
        count_is_exact,
        counted: true,
        body: v,
    })
}

impl Answer {
    /// Why the hit count is not `expected`, or `None` when it is. A lower bound never
    /// matches: the count is unknown, and the sentence says how to get it.
    pub fn count_differs(&self, expected: u64) -> Option<String> {
        if !self.counted {
            return Some(format!(
                "no hit count (the body asks \"track_total_hits\": false), expected {expected}"
            ));
        }
        if !self.count_is_exact {
            return Some(format!(
                "{}+ hits (a lower bound: add \"track_total_hits\": true to the body), \
                 expected {expected}",
                self.count
            ));
        }
        (self.count != expected).then(|| format!("{} hits, expected {expected}", self.count))
    }

    /// The answer's `aggregations`, when it has them.
    pub fn aggregations(&self) -> Option<&Value> {
        self.body.get("aggregations")
    }

    /// The aggregation called `name`, or why not.
    pub fn aggregation(&self, name: &str) -> Result<&Value, String> {
        self.aggregations()
            .and_then(|a| a.get(name))
            .ok_or_else(|| format!("no aggregation `{name}`"))
    }

    /// The returned hits, in answer order (none when the answer lists none).
    pub fn hits(&self) -> &[Value] {
        self.body
            .pointer("/hits/hits")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The `_id` of every returned hit, in order.
    pub fn ids(&self) -> Vec<String> {
        self.hits()
            .iter()
            .filter_map(|h| h.get("_id").and_then(Value::as_str))
            .map(str::to_string)
            .collect()
    }

    /// The first `sort` value of every returned hit (a sort on a date or number), in order.
    pub fn sort_values(&self) -> Result<Vec<i64>, String> {
        if self
            .body
            .pointer("/hits/hits")
            .and_then(Value::as_array)
            .is_none()
        {
            return Err("no `hits.hits` array".into());
        }
        self.hits()
            .iter()
            .map(|h| {
                h.pointer("/sort/0")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| "a hit without a numeric `sort` value".to_string())
            })
            .collect()
    }

    /// (key, doc_count) of every bucket of the bucket aggregation `name`, in answer order
    /// (numeric keys, such as a date histogram's epoch ms, as text).
    pub fn buckets(&self, name: &str) -> Result<Vec<(String, u64)>, String> {
        let list = self
            .body
            .pointer(&format!("/aggregations/{name}/buckets"))
            .and_then(Value::as_array)
            .ok_or_else(|| format!("no `{name}.buckets` array"))?;
        list.iter()
            .map(|b| {
                let key = match b.get("key") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => return Err(format!("a `{name}` bucket without a key")),
                };
                let count = b
                    .get("doc_count")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| format!("a `{name}` bucket without a numeric `doc_count`"))?;
                Ok((key, count))
            })
            .collect()
    }
}

fn error_reason(e: &Value) -> String {
    let pick = |e: &Value| -> Option<String> {
        match (
            e.get("type").and_then(Value::as_str),
            e.get("reason").and_then(Value::as_str),
        ) {
            (Some(k), Some(r)) => Some(format!("{k}: {r}")),
            (None, Some(r)) => Some(r.to_string()),
            (Some(k), None) => Some(k.to_string()),
            _ => None,
        }
    };
    e.pointer("/root_cause/0")
        .and_then(pick)
        .or_else(|| pick(e))
        .or_else(|| e.as_str().map(str::to_string))
        .unwrap_or_else(|| "(no reason given)".into())
}

/// Reads a `_msearch` answer: one result per sub-search, in request order.
pub fn parse_msearch(mut v: Value, expected: usize) -> Result<Vec<Result<Answer, String>>, String> {
    let Some(Value::Array(responses)) = v.get_mut("responses").map(Value::take) else {
        return Err("no `responses` array".into());
    };
    if responses.len() != expected {
        return Err(format!(
            "{} responses for {expected} searches",
            responses.len()
        ));
    }
    Ok(responses.into_iter().map(parse_search).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_every_answer_holds() {
        let v = json!({"took": 5, "timed_out": false, "_shards": {"failed": 0},
            "hits": {"total": {"value": 3, "relation": "eq"},
                "hits": [{"_id": "a", "sort": [1672531200000_i64]}, {"_id": "b", "sort": [7]}]},
            "aggregations": {"top": {"buckets": [{"key": "h1", "doc_count": 2},
                                                 {"key": 60000, "doc_count": 1}]}}});
        let a = parse_search(v).expect("answer");
        assert_eq!((a.took_ms, a.count), (5, 3));
        assert_eq!(a.ids(), ["a", "b"]);
        assert_eq!(a.sort_values(), Ok(vec![1672531200000, 7]));
        assert_eq!(
            a.buckets("top"),
            Ok(vec![("h1".to_string(), 2), ("60000".to_string(), 1)])
        );
        assert!(a.buckets("other").is_err());
        assert!(a.aggregation("nope").is_err());
        assert!(parse_search(json!({"took": 1})).is_err());
        assert!(parse_search(json!({"error": {"type": "x"}, "status": 400})).is_err());
        // Over 10,000 matches without track_total_hits: a good answer whose count is a
        // lower bound, wrong only where a count is checked.
        let bound = parse_search(
            json!({"took": 1, "hits": {"total": {"value": 10000, "relation": "gte"}}}),
        )
        .expect("a lower bound is an answer");
        assert_eq!((bound.count, bound.count_is_exact), (10000, false));
        let why = bound.count_differs(10000).expect("unknown is not equal");
        assert!(why.contains("track_total_hits"), "{why}");
        assert_eq!(a.count_differs(3), None);
        assert_eq!(a.count_differs(4).as_deref(), Some("3 hits, expected 4"));
        // `"track_total_hits": false`: no `hits.total` at all, a good answer (it failed every
        // search of a queries file), with no count for a check of one.
        let uncounted = parse_search(json!({"took": 2, "hits": {"hits": [{"_id": "x"}]}}))
            .expect("an answer without a count is an answer");
        assert!(!uncounted.counted);
        assert_eq!(uncounted.ids(), ["x"]);
        let why = uncounted.count_differs(1).expect("no count is not equal");
        assert!(why.contains("no hit count"), "{why}");
        assert!(parse_search(
            json!({"took": 1, "hits": {"total": {"value": 1, "relation": "lte"}}})
        )
        .is_err());
        let m = json!({"responses": [{"took": 1, "hits": {"total": 2}}, {"error": "boom"}]});
        let items = parse_msearch(m, 2).expect("msearch");
        assert_eq!(items[0].as_ref().map(|a| a.count), Ok(2));
        assert!(items[1].is_err());
        assert!(parse_msearch(json!({"responses": []}), 2).is_err());
    }
}
