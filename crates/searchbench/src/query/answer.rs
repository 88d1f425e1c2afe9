//! Reading a search answer: took, exact hit count, sums and percentiles. Everything here comes
//! from the server, so nothing is assumed: a missing or odd piece is a reason, not a panic.

use serde_json::Value;

use super::plan::{LogsQuery, Variant, FIELDS, PERCENTS};

/// What one search answered for one (node, epoch).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Server time, milliseconds.
    pub took_ms: u64,
    /// Exact hit count.
    pub count: u64,
    /// `sum` per field (cpu, mem, net) when the variant asks for sums.
    pub sums: Option<[f64; 3]>,
    /// Percentiles 0/50/90/100 per field when the variant asks for them (`None` = null).
    pub percentiles: Option<[[Option<f64>; 4]; 3]>,
    /// `logs` variants with `size > 0`: the `@timestamp` sort value of every returned hit.
    pub hits: Vec<i64>,
    /// `logs` variants with a bucket aggregation: (key, doc_count) per bucket, in answer order
    /// (date_histogram keys as epoch-ms text).
    pub buckets: Option<Vec<(String, u64)>>,
    /// A user's query: the `_id` of every returned hit, in order.
    pub ids: Vec<String>,
    /// A user's query: the answer's `aggregations`, as they came.
    pub aggregations: Option<Value>,
}

/// Reads one search answer (a `_search` body or one `_msearch` response).
pub fn parse_search(v: &Value, variant: Variant) -> Result<Answer, String> {
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
    let total = v.pointer("/hits/total").ok_or("no `hits.total`")?;
    let count = match total {
        Value::Number(n) => n.as_u64().ok_or("`hits.total` is not a count")?,
        Value::Object(o) => {
            if o.get("relation").and_then(Value::as_str) == Some("gte") {
                return Err("`hits.total` is a lower bound (relation gte)".into());
            }
            o.get("value")
                .and_then(Value::as_u64)
                .ok_or("`hits.total.value` is not a count")?
        }
        _ => return Err("`hits.total` is neither a number nor an object".into()),
    };
    let aggs = v.get("aggregations");
    let agg = |name: &str| -> Result<&Value, String> {
        aggs.and_then(|a| a.get(name))
            .ok_or_else(|| format!("no aggregation `{name}`"))
    };
    let sums = if variant.has_sums() {
        let mut s = [0.0; 3];
        for (i, f) in FIELDS.iter().enumerate() {
            let a = agg(&format!("{f}_sum"))?;
            s[i] = a
                .get("value")
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("`{f}_sum.value` is not a number"))?;
        }
        Some(s)
    } else {
        None
    };
    let percentiles = if variant.percentiles().is_some() {
        let mut p = [[None; 4]; 3];
        for (i, f) in FIELDS.iter().enumerate() {
            let a = agg(&format!("{f}_pct"))?;
            p[i] = read_percentiles(a).map_err(|e| format!("`{f}_pct`: {e}"))?;
        }
        Some(p)
    } else {
        None
    };
    let (hits, buckets) = match variant.logs() {
        Some((query, size)) => read_logs(v, query, size)?,
        None => (Vec::new(), None),
    };
    let (ids, aggregations) = match variant {
        Variant::Named(_) => (
            v.pointer("/hits/hits")
                .and_then(Value::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(|h| h.get("_id").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            aggs.cloned(),
        ),
        _ => (Vec::new(), None),
    };
    Ok(Answer {
        took_ms,
        count,
        sums,
        percentiles,
        hits,
        buckets,
        ids,
        aggregations,
    })
}

/// The name of the bucket aggregation a `logs` query asks for.
pub fn logs_agg_name(query: LogsQuery) -> Option<&'static str> {
    match query {
        LogsQuery::Histogram => Some("per_minute"),
        LogsQuery::TopHosts => Some("top_hosts"),
        LogsQuery::RangeTerms | LogsQuery::Match => None,
    }
}

type LogsParts = (Vec<i64>, Option<Vec<(String, u64)>>);

/// The sort values of the returned hits and the buckets of a `logs` answer.
fn read_logs(v: &Value, query: LogsQuery, size: u32) -> Result<LogsParts, String> {
    let mut hits = Vec::new();
    if size > 0 {
        let list = v
            .pointer("/hits/hits")
            .and_then(Value::as_array)
            .ok_or("no `hits.hits` array")?;
        for h in list {
            let ts = h
                .pointer("/sort/0")
                .and_then(Value::as_i64)
                .ok_or("a hit without a numeric `sort` value")?;
            hits.push(ts);
        }
    }
    let buckets = match logs_agg_name(query) {
        Some(name) => {
            let list = v
                .pointer(&format!("/aggregations/{name}/buckets"))
                .and_then(Value::as_array)
                .ok_or_else(|| format!("no `{name}.buckets` array"))?;
            let mut out = Vec::with_capacity(list.len());
            for b in list {
                let key = match b.get("key") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => return Err(format!("a `{name}` bucket without a key")),
                };
                let count = b
                    .get("doc_count")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| format!("a `{name}` bucket without a numeric `doc_count`"))?;
                out.push((key, count));
            }
            Some(out)
        }
        None => None,
    };
    Ok((hits, buckets))
}

/// `values` keyed (`{"50.0": x}`) or not (`[{"key": 50.0, "value": x}]`); null stays `None`.
fn read_percentiles(a: &Value) -> Result<[Option<f64>; 4], String> {
    let values = a.get("values").ok_or("no `values`")?;
    let mut pairs: Vec<(f64, Option<f64>)> = Vec::new();
    match values {
        Value::Object(o) => {
            for (k, v) in o {
                if k.ends_with("_as_string") {
                    continue;
                }
                let key: f64 = k.parse().map_err(|_| format!("odd key {k:?}"))?;
                pairs.push((key, v.as_f64()));
            }
        }
        Value::Array(items) => {
            for item in items {
                let key = item
                    .get("key")
                    .and_then(Value::as_f64)
                    .ok_or("an entry without a numeric `key`")?;
                pairs.push((key, item.get("value").and_then(Value::as_f64)));
            }
        }
        _ => return Err("`values` is neither an object nor an array".into()),
    }
    let mut out = [None; 4];
    for (i, p) in PERCENTS.iter().enumerate() {
        let (_, v) = pairs
            .iter()
            .find(|(k, _)| (k - p).abs() < 1e-9)
            .ok_or_else(|| format!("no value for percent {p}"))?;
        out[i] = *v;
    }
    Ok(out)
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
pub fn parse_msearch(
    v: &Value,
    variant: Variant,
    expected: usize,
) -> Result<Vec<Result<Answer, String>>, String> {
    let responses = v
        .get("responses")
        .and_then(Value::as_array)
        .ok_or("no `responses` array")?;
    if responses.len() != expected {
        return Err(format!(
            "{} responses for {expected} searches",
            responses.len()
        ));
    }
    Ok(responses.iter().map(|r| parse_search(r, variant)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_full_answer() {
        let v = json!({"took": 5, "timed_out": false, "_shards": {"failed": 0},
        "hits": {"total": {"value": 10, "relation": "eq"}},
        "aggregations": {
            "cpu_sum": {"value": 1.5}, "mem_sum": {"value": 2.0}, "net_sum": {"value": 3.0},
            "cpu_pct": {"values": {"0.0": 1.0, "50.0": 2.0, "90.0": 3.0, "100.0": 4.0}},
            "mem_pct": {"values": {"0.0": 1.0, "50.0": 2.0, "90.0": 3.0, "100.0": null}},
            "net_pct": {"values": [{"key": 0.0, "value": 1.0}, {"key": 50.0, "value": 2.0},
                                    {"key": 90.0, "value": 3.0}, {"key": 100.0, "value": 4.0}]}
        }});
        let a = parse_search(&v, Variant::DTd).expect("answer");
        assert_eq!(a.count, 10);
        assert_eq!(a.sums, Some([1.5, 2.0, 3.0]));
        let p = a.percentiles.expect("percentiles");
        assert_eq!(p[1][3], None);
        assert_eq!(p[2][2], Some(3.0));
        assert!(parse_search(&json!({"took": 1}), Variant::A).is_err());
        let logs = json!({"took": 2, "hits": {"total": {"value": 3, "relation": "eq"},
            "hits": [{"sort": [1672531200000_i64]}, {"sort": [1672531199000_i64]}]},
            "aggregations": {"top_hosts": {"buckets": [{"key": "h1", "doc_count": 2}]}}});
        let a = parse_search(&logs, Variant::TopHosts10).expect("logs answer");
        assert_eq!(a.hits, vec![1672531200000, 1672531199000]);
        assert_eq!(a.buckets, Some(vec![("h1".to_string(), 2)]));
        assert!(parse_search(&logs, Variant::Histogram0).is_err());
        assert!(parse_search(&json!({"error": {"type": "x"}, "status": 400}), Variant::A).is_err());
        assert!(parse_search(
            &json!({"took": 1, "hits": {"total": {"value": 10000, "relation": "gte"}}}),
            Variant::A
        )
        .is_err());
    }
}
