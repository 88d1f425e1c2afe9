//! Reading the sketch store's answers as search answers, so that a workload's checker reads
//! them as it reads an engine's: one `/query` answer is one search's, the `/coverage` answer
//! holds one per search in order (`null` for a node it has no rows of). The store reports no
//! server time per request: `took` is 0, and the client's wall is all there is.

use serde_json::{json, Map, Value};

use super::answer::Answer;
use crate::sketch::{Answer as SketchAnswer, FieldAnswer, FIELDS, PERCENTS};

/// One `/query` answer.
pub fn parse_one(v: Value) -> Result<Answer, String> {
    if let Some(e) = v.get("error") {
        return Err(format!("the store said: {e}"));
    }
    let answer: SketchAnswer =
        serde_json::from_value(v).map_err(|e| format!("not a sketch answer: {e}"))?;
    Ok(as_search(&answer))
}

/// One `/coverage` answer of `expected` searches.
pub fn parse_coverage(v: Value, expected: usize) -> Result<Vec<Result<Answer, String>>, String> {
    if let Some(e) = v.get("error") {
        return Err(format!("the store said: {e}"));
    }
    let Value::Array(items) = v else {
        return Err("not an array of answers".into());
    };
    if items.len() != expected {
        return Err(format!("{} answers for {expected} searches", items.len()));
    }
    Ok(items
        .into_iter()
        .map(|item| match item {
            Value::Null => Err("the store has no rows for this node".to_string()),
            item => parse_one(item),
        })
        .collect())
}

/// The answer as an engine would give it for the production query: the hit count, a
/// `{f}_sum` and a `{f}_pct` aggregation per field.
fn as_search(a: &SketchAnswer) -> Answer {
    let mut aggregations = Map::new();
    for (name, field) in FIELDS.iter().zip([&a.cpu, &a.mem, &a.net]) {
        aggregations.insert(format!("{name}_sum"), json!({ "value": field.sum }));
        aggregations.insert(format!("{name}_pct"), json!({ "values": values(field) }));
    }
    Answer {
        took_ms: 0,
        count: a.count,
        count_is_exact: true,
        counted: true,
        body: json!({ "aggregations": aggregations }),
    }
}

/// `{"0.0": p0, "50.0": p50, ...}`, as the engines key them.
fn values(field: &FieldAnswer) -> Map<String, Value> {
    PERCENTS
        .iter()
        .zip(&field.percentiles)
        .map(|(p, v)| (format!("{p:.1}"), json!(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sketch_answer_reads_as_the_production_query_s() {
        let field = |base: f64| json!({"percentiles": [base, base + 1.0, base + 2.0, base + 3.0], "sum": base * 10.0});
        let one = json!({"epoch": 3, "node": "N002", "count": 7, "cpu": field(1.0), "mem": field(2.0), "net": field(3.0)});
        let answer = parse_one(one.clone()).expect("an answer");
        assert_eq!(
            (answer.count, answer.count_is_exact, answer.took_ms),
            (7, true, 0)
        );
        let pct = answer.aggregation("mem_pct").expect("mem_pct");
        assert_eq!(pct["values"]["90.0"], 4.0);
        assert_eq!(
            answer.aggregation("net_sum").expect("net_sum")["value"],
            30.0
        );

        let answers = parse_coverage(json!([one, null]), 2).expect("two answers");
        assert!(answers[0].is_ok());
        assert!(answers[1].as_ref().is_err_and(|e| e.contains("no rows")));
        assert!(parse_coverage(json!([null]), 2).is_err_and(|e| e.contains("1 answers for 2")));
        assert!(parse_one(json!({"error": "bad"})).is_err());
        assert!(parse_one(json!({"count": 1})).is_err_and(|e| e.contains("not a sketch answer")));
    }
}
