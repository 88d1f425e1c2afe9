//! What a stored result says about itself: the state it earned, its workload, seed and engine.

use serde::Deserialize;
use serde_json::Value;

use super::State;

/// A part of a stored result read as its type, on its own: `None` when it is absent or does
/// not read (the other parts are still read).
fn part<T: serde::de::DeserializeOwned>(result: &Value, key: &str) -> Option<T> {
    T::deserialize(result.get(key)?).ok()
}

/// A field read on its own: `None` when it is absent or not of its type, so that one field a
/// result (or a lying results cluster) got wrong does not hide the others of its part.
fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

/// A load's counts as a result says them (a scenario's say only whether they reconcile).
#[derive(Deserialize)]
struct Counts {
    #[serde(default, deserialize_with = "lenient")]
    read: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    indexed: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    failed: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    reconciled: Option<bool>,
}

/// A load's `--max-failures` against what failed.
#[derive(Deserialize)]
struct FailureLimit {
    #[serde(default, deserialize_with = "lenient")]
    max: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    failed: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    read: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    exceeded: Option<bool>,
}

/// A query phase, as far as its state goes: its cells' failed searches, its wrong answers.
#[derive(Deserialize)]
struct Query {
    #[serde(default, deserialize_with = "lenient")]
    cells: Option<Vec<Cell>>,
    #[serde(default, deserialize_with = "lenient")]
    failures_total: Option<u64>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(default, deserialize_with = "lenient")]
    errors: Option<u64>,
}

/// The state a finished result earns, and the reason when it is not `complete`: a result
/// marked `interrupted` was stopped by a signal; one that reports an error, a query phase with
/// failed searches or wrong answers, or an ingest whose counts do not reconcile has failed.
pub fn outcome_of(result: &Value) -> (State, Option<String>) {
    let error: Option<String> = part(result, "error");
    if part(result, "interrupted") == Some(true) {
        return (
            State::Interrupted,
            error.or_else(|| Some("interrupted".into())),
        );
    }
    if part(result, "query_interrupted") == Some(true) {
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
    if let Some(counts) = part::<Counts>(result, "counts") {
        if counts.reconciled == Some(false) {
            return (State::Failed, Some("counts do not reconcile".into()));
        }
        // A result that says it reconciled must add up: read back from a cluster, a
        // document may claim what its counts deny.
        if let Some(why) = counts.not_adding_up() {
            return (State::Failed, Some(why));
        }
    }
    let limit = part::<FailureLimit>(result, "failure_limit");
    if let Some(limit) = limit.filter(|l| l.exceeded == Some(true)) {
        return (
            State::Failed,
            Some(format!(
                "{} of {} documents failed, more than --max-failures {}",
                limit.failed.unwrap_or(0),
                limit.read.unwrap_or(0),
                limit.max.as_deref().unwrap_or("?")
            )),
        );
    }
    if let Some(why) = scenario_failed(result) {
        return (State::Failed, Some(why));
    }
    // A query result, or a run's query phase.
    let query = match result.get("cells") {
        Some(_) => Query::deserialize(result).ok(),
        None => part::<Query>(result, "query"),
    };
    if let Some(q) = query {
        // Added exactly whatever a result says (a file that lies may say 2^64 - 1 per cell).
        let errors = q.cells.iter().flatten().filter_map(|c| c.errors);
        let failed_searches: u128 = errors.map(u128::from).sum();
        let wrong = q.failures_total.unwrap_or(0);
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

impl Counts {
    /// Why the counts do not add up (`read = indexed + failed`), when they say all three.
    fn not_adding_up(&self) -> Option<String> {
        let (read, indexed, failed) = (self.read?, self.indexed?, self.failed?);
        if indexed.checked_add(failed) == Some(read) {
            return None;
        }
        Some(format!(
            "counts do not add up: {read} read, {indexed} indexed + {failed} failed"
        ))
    }
}

/// What a scenario checks of itself beside its counts, one rule for the stored state, the
/// CLI's exit 3 and a group merged from its parts: every index created, every snapshot
/// `SUCCESS`, its logs load whole. `None` for a result that is no scenario's.
pub fn scenario_failed(result: &Value) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Creation {
        #[serde(default, deserialize_with = "lenient")]
        errors: Option<u64>,
    }
    #[derive(serde::Deserialize)]
    struct Snapshots {
        #[serde(default, deserialize_with = "lenient")]
        failures: Option<u64>,
    }
    result.get("scenario")?;
    let creation = part::<Creation>(result, "creation").and_then(|c| c.errors);
    if let Some(errors) = creation.filter(|n| *n > 0) {
        return Some(format!("{errors} creation error(s)"));
    }
    let snapshots = part::<Snapshots>(result, "snapshots").and_then(|s| s.failures);
    if let Some(failures) = snapshots.filter(|n| *n > 0) {
        return Some(format!("{failures} snapshot(s) not SUCCESS"));
    }
    // The logs load is judged as any load is (its error, its counts, its failure limit).
    let indexing = result.get("indexing").filter(|v| v.is_object());
    match indexing.map(outcome_of) {
        Some((State::Failed, why)) => Some(format!(
            "logs load: {}",
            why.unwrap_or_else(|| "failed".into())
        )),
        _ => None,
    }
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

    fn failed(why: &str) -> (State, Option<String>) {
        (State::Failed, Some(why.into()))
    }

    /// Each way a result says how it ended, in the order they are judged; a part of a
    /// result that does not read as its type (a flag that is no bool, an error that is no
    /// text) is not read, and the others still are.
    #[test]
    fn a_result_earns_the_state_it_says() {
        let load =
            || json!({"counts": {"read": 10, "indexed": 9, "failed": 1, "reconciled": true}});
        assert_eq!(outcome_of(&load()), (State::Complete, None));
        let with = |key: &str, value: Value| {
            let mut r = load();
            r[key] = value;
            outcome_of(&r)
        };
        assert_eq!(
            with("error", json!("the node went away")),
            failed("the node went away")
        );
        assert_eq!(
            with("interrupted", json!(true)),
            (State::Interrupted, Some("interrupted".into()))
        );
        let mut r = load();
        r["interrupted"] = true.into();
        r["error"] = "stopped".into();
        assert_eq!(outcome_of(&r), (State::Interrupted, Some("stopped".into())));
        assert_eq!(
            with("query_interrupted", json!(true)),
            (
                State::Interrupted,
                Some("interrupted during the query phase".into())
            )
        );
        assert_eq!(
            with(
                "counts",
                json!({"read": 10, "indexed": 10, "failed": 0, "reconciled": false})
            ),
            failed("counts do not reconcile")
        );
        assert_eq!(
            with(
                "counts",
                json!({"read": 10, "indexed": 10, "failed": 3, "reconciled": true})
            ),
            failed("counts do not add up: 10 read, 10 indexed + 3 failed")
        );
        // Counts that do not say all three are not added up.
        assert_eq!(
            with("counts", json!({"indexed": 10, "reconciled": true})),
            (State::Complete, None)
        );
        assert_eq!(
            with(
                "failure_limit",
                json!({"max": "0", "failed": 1, "read": 10, "exceeded": true})
            ),
            failed("1 of 10 documents failed, more than --max-failures 0")
        );
        assert_eq!(
            with(
                "failure_limit",
                json!({"max": "5", "failed": 1, "read": 10, "exceeded": false})
            ),
            (State::Complete, None)
        );
        // A query result, or a run's query phase: failed searches and wrong answers.
        let query = json!({"cells": [{"errors": 2}, {"errors": 1}], "failures_total": 0});
        assert_eq!(
            outcome_of(&query),
            failed("queries: 3 failed search(es), 0 wrong answer(s)")
        );
        assert_eq!(
            with(
                "query",
                json!({"cells": [{"errors": 0}], "failures_total": 4})
            ),
            failed("queries: 0 failed search(es), 4 wrong answer(s)")
        );
        assert_eq!(with("query", Value::Null), (State::Complete, None));
        // Parts that do not read are not read.
        assert_eq!(with("interrupted", json!("yes")), (State::Complete, None));
        assert_eq!(with("error", json!(5)), (State::Complete, None));
        assert_eq!(with("counts", json!("many")), (State::Complete, None));
        // One field of a part that does not read hides none of the others (a lying results
        // cluster's document): the counts still say they do not reconcile, the limit that
        // it was exceeded, the cells their failed searches.
        assert_eq!(
            with(
                "counts",
                json!({"read": "x", "indexed": 10, "reconciled": false})
            ),
            failed("counts do not reconcile")
        );
        assert_eq!(
            with(
                "failure_limit",
                json!({"max": 0, "failed": 1, "read": "x", "exceeded": true})
            ),
            failed("1 of 0 documents failed, more than --max-failures ?")
        );
        assert_eq!(
            with(
                "query",
                json!({"cells": [{"errors": "x"}, {"errors": 2}], "failures_total": "y"})
            ),
            failed("queries: 2 failed search(es), 0 wrong answer(s)")
        );
        // A group with a part missing is incomplete, saying why.
        let parts = json!({"group": "g", "of": 2, "missing": [2], "state": "incomplete",
            "why": "part 2/2 is missing"});
        assert_eq!(
            with("parts", parts),
            (State::Incomplete, Some("part 2/2 is missing".into()))
        );
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
