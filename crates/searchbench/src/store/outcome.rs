//! What a stored result says about itself: the state it earned, its workload, seed and engine.

use serde_json::Value;

use super::State;

/// The state a finished result earns, and the reason when it is not `complete`: a result
/// marked `interrupted` was stopped by a signal; one that reports an error, a query phase with
/// failed searches or wrong answers, or an ingest whose counts do not reconcile has failed.
pub fn outcome_of(result: &Value) -> (State, Option<String>) {
    let error = result
        .get("error")
        .and_then(Value::as_str)
        .map(str::to_string);
    if result.get("interrupted").and_then(Value::as_bool) == Some(true) {
        return (
            State::Interrupted,
            error.or_else(|| Some("interrupted".into())),
        );
    }
    if result.get("query_interrupted").and_then(Value::as_bool) == Some(true) {
        return (
            State::Interrupted,
            Some("interrupted during the query phase".into()),
        );
    }
    // A group merged from its parts (`results merge`) with a part missing or unfinished.
    if let Some(parts) = super::Parts::of_result(result).filter(super::Parts::incomplete) {
        return (
            State::Incomplete,
            Some(parts.why.unwrap_or_else(|| "a part is missing".into())),
        );
    }
    if error.is_some() {
        return (State::Failed, error);
    }
    if result
        .get("counts")
        .and_then(|c| c.get("reconciled"))
        .and_then(Value::as_bool)
        == Some(false)
    {
        return (State::Failed, Some("counts do not reconcile".into()));
    }
    // A result that says it reconciled must add up: read back from a cluster, a document may
    // claim what its counts deny.
    if let Some(why) = result.get("counts").and_then(counts_not_adding_up) {
        return (State::Failed, Some(why));
    }
    if let Some(limit) = result
        .get("failure_limit")
        .filter(|l| l.get("exceeded").and_then(Value::as_bool) == Some(true))
    {
        return (
            State::Failed,
            Some(format!(
                "{} of {} documents failed, more than --max-failures {}",
                limit.get("failed").and_then(Value::as_u64).unwrap_or(0),
                limit.get("read").and_then(Value::as_u64).unwrap_or(0),
                limit.get("max").and_then(Value::as_str).unwrap_or("?")
            )),
        );
    }
    let query = if result.get("cells").is_some() {
        Some(result)
    } else {
        result.get("query").filter(|q| q.is_object())
    };
    if let Some(q) = query {
        let failed_searches: u64 = q
            .get("cells")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("errors")?.as_u64())
            .sum();
        let wrong = q.get("failures_total").and_then(Value::as_u64).unwrap_or(0);
        if failed_searches > 0 || wrong > 0 {
            return (
                State::Failed,
                Some(format!(
                    "queries: {failed_searches} failed search(es), {wrong} wrong answer(s)"
                )),
            );
        }
    }
    (State::Complete, None)
}

/// Why an ingest's counts do not add up (`read = indexed + failed`), when they say all three.
fn counts_not_adding_up(counts: &Value) -> Option<String> {
    let count = |k: &str| counts.get(k).and_then(Value::as_u64);
    let (read, indexed, failed) = (count("read")?, count("indexed")?, count("failed")?);
    if indexed.checked_add(failed) == Some(read) {
        return None;
    }
    Some(format!(
        "counts do not add up: {read} read, {indexed} indexed + {failed} failed"
    ))
}

/// The workload name in a stored `workload` text. Imports used to store the corpus's
/// description (`transactions (seed 1, 100000 rows)`), which `--workload transactions` did not
/// match: the name is the one word before ` (`.
pub fn workload_name(text: &str) -> &str {
    match text.split_once(" (") {
        Some((name, _)) if !name.is_empty() && !name.contains(' ') => name,
        _ => text,
    }
}

/// The seed in a corpus description (`logs (seed 7, 1000 docs)`).
pub fn seed_in(description: &str) -> Option<u64> {
    let rest = description.split_once("(seed ")?.1;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// `product-version` from a result that names them.
pub(super) fn engine_of(result: &Value) -> Option<String> {
    if let Some(engine) = result.get("engine").and_then(Value::as_str) {
        return Some(engine.to_string());
    }
    let product = result.get("product")?.as_str()?;
    let version = result.get("engine_version")?.as_str()?;
    Some(format!("{}-{version}", product.to_ascii_lowercase()))
}
