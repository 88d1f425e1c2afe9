//! What a stored result says about itself: the state it earned, its workload, seed and engine.

use serde::Deserialize as _;
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
    if let Some(why) = scenario_failed(result) {
        return (State::Failed, Some(why));
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

/// What a scenario checks of itself beside its counts, one rule for the stored state, the
/// CLI's exit 3 and a group merged from its parts: every index created, every snapshot
/// `SUCCESS`, its logs load whole. `None` for a result that is no scenario's.
pub fn scenario_failed(result: &Value) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Creation {
        #[serde(default)]
        errors: u64,
    }
    #[derive(serde::Deserialize)]
    struct Snapshots {
        #[serde(default)]
        failures: u64,
    }
    result.get("scenario")?;
    let part = |key: &str| result.get(key).filter(|v| v.is_object());
    let creation = part("creation").and_then(|c| Creation::deserialize(c).ok());
    if let Some(c) = creation.filter(|c| c.errors > 0) {
        return Some(format!("{} creation error(s)", c.errors));
    }
    let snapshots = part("snapshots").and_then(|s| Snapshots::deserialize(s).ok());
    if let Some(s) = snapshots.filter(|s| s.failures > 0) {
        return Some(format!("{} snapshot(s) not SUCCESS", s.failures));
    }
    // The logs load is judged as any load is (its error, its counts, its failure limit).
    match part("indexing").map(outcome_of) {
        Some((State::Failed, why)) => Some(format!(
            "logs load: {}",
            why.unwrap_or_else(|| "failed".into())
        )),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A scenario's result as its run stores it: every index counted, every check passed.
    fn scenario() -> Value {
        json!({
            "scenario": "snapshots",
            "creation": {"errors": 0},
            "counts": {"expected_indices": 4, "complete_indices": 4, "reconciled": true},
            "snapshots": {"failures": 0},
            "indexing": {
                "counts": {"read": 10, "indexed": 10, "failed": 0, "reconciled": true},
                "error": null,
            },
            "interrupted": false,
        })
    }

    /// The store judges a scenario as the scenario judges itself (and the CLI exits 3): a
    /// creation error, a snapshot not SUCCESS or a logs load that failed is a failed run,
    /// never a complete one.
    #[test]
    fn a_scenario_that_failed_its_own_checks_is_stored_failed() {
        assert_eq!(outcome_of(&scenario()), (State::Complete, None));
        let failed = |path: &[&str], value: Value| {
            let mut r = scenario();
            let mut at = &mut r;
            for key in path {
                at = &mut at[*key];
            }
            *at = value;
            outcome_of(&r)
        };
        assert_eq!(
            failed(&["creation", "errors"], json!(2)),
            (State::Failed, Some("2 creation error(s)".into()))
        );
        assert_eq!(
            failed(&["snapshots", "failures"], json!(1)),
            (State::Failed, Some("1 snapshot(s) not SUCCESS".into()))
        );
        assert_eq!(
            failed(&["indexing", "counts", "reconciled"], json!(false)),
            (
                State::Failed,
                Some("logs load: counts do not reconcile".into())
            )
        );
        assert_eq!(
            failed(&["indexing", "error"], json!("the node went away")),
            (State::Failed, Some("logs load: the node went away".into()))
        );
        // Its own counts first, as any result's.
        assert_eq!(
            failed(&["counts", "reconciled"], json!(false)).0,
            State::Failed
        );
        // Stopped by a signal: interrupted, whatever its checks say.
        let mut r = scenario();
        r["interrupted"] = true.into();
        r["creation"]["errors"] = 3.into();
        assert_eq!(outcome_of(&r).0, State::Interrupted);
        // A result that is no scenario's is not read as one.
        let mut r = scenario();
        r.as_object_mut().map(|m| m.remove("scenario"));
        r["creation"]["errors"] = 3.into();
        assert_eq!(outcome_of(&r), (State::Complete, None));
    }
}
