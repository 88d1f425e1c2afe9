//! `searchbench matrix`: one workload and configuration over several engines, each run
//! exactly what `searchbench run` does (one engine start per run), `repeats` rounds in an
//! interleaved order, each round a fresh seeded permutation of the engines so that drift of
//! the machine (heat, other load, a filling disk) spreads over every engine instead of
//! landing on whichever ran last. Every run is stored with the tags `matrix=<id>`,
//! `matrix_round`, `matrix_position` (its place in the order) and `engine=<engine>`; at the end the runs are read
//! back as a [`History`] and its HTML page is written next to the store's reports.
//!
//! An engine that fails to start is recorded (a failed run) and left out of later rounds; the
//! matrix goes on. A cancel (Ctrl-C) stops it after the run in progress, keeping what is done.

use std::path::PathBuf;

use serde::Serialize;

use super::ingest::LoadSpec;
use super::run::{run, RunSpec};
use super::{Attach, ClusterSpec, Job, Observer, SessionError};
use crate::analysis::history::{self, Axis, History, Selection};
use crate::engine::{self, EngineSpec, Version};
use crate::rng::Rng;
use crate::store::{Filter, State};

/// One place in the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// 1-based place in the whole order.
    pub position: usize,
    /// 1-based round.
    pub round: usize,
    pub engine: String,
}

/// `repeats` rounds over `engines`, each round a permutation drawn from `seed` and the round.
pub fn order(engines: &[String], repeats: usize, seed: u64) -> Vec<Slot> {
    let mut out = Vec::with_capacity(engines.len() * repeats);
    for round in 0..repeats {
        let mut rng = Rng::new(seed, round as u64 + 1);
        let mut these: Vec<&String> = engines.iter().collect();
        rng.shuffle(&mut these);
        for engine in these {
            out.push(Slot {
                position: out.len() + 1,
                round: round + 1,
                engine: engine.clone(),
            });
        }
    }
    out
}

/// The engines of `--engines`: `A,B,C` as given (release lines resolved), or `FROM..TO` for
/// every catalogue release of that product between them, inclusive: of FROM's kind when FROM
/// and TO are of one kind (runner or distribution), else the plain names (a runner where there
/// is one). `per_minor` keeps the newest release of each minor.
pub fn engines(text: &str, per_minor: bool) -> Result<Vec<String>, SessionError> {
    engines_in(&engine::all(), text, per_minor)
}

fn engines_in(
    catalogue: &[EngineSpec],
    text: &str,
    per_minor: bool,
) -> Result<Vec<String>, SessionError> {
    let find = |name: &str| -> Result<EngineSpec, SessionError> {
        if let Some(spec) = catalogue.iter().find(|s| s.name == name) {
            return Ok(spec.clone());
        }
        engine::resolve(name).map_err(|e| SessionError::usage(e.to_string()))
    };
    let mut specs: Vec<EngineSpec> = match text.split_once("..") {
        Some((from, to)) => {
            let (from, to) = (find(from.trim())?, find(to.trim())?);
            if from.product != to.product {
                return Err(SessionError::usage(format!(
                    "a range is of one product: {} and {} are not",
                    from.name, to.name
                )));
            }
            let (lo, hi) = (from.parsed_version(), to.parsed_version());
            if lo > hi {
                return Err(SessionError::usage(format!(
                    "the range {}..{} is backwards: name the older release first",
                    from.name, to.name
                )));
            }
            let one_kind = from.kind == to.kind;
            catalogue
                .iter()
                .filter(|s| s.product == from.product)
                .filter(|s| {
                    let v = s.parsed_version();
                    lo <= v && v <= hi
                })
                .filter(|s| {
                    if one_kind {
                        s.kind == from.kind
                    } else {
                        !s.name.ends_with(engine::DIST_SUFFIX)
                    }
                })
                .cloned()
                .collect()
        }
        None => text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(find)
            .collect::<Result<_, _>>()?,
    };
    if per_minor {
        let minor = |s: &EngineSpec| {
            let v = s.version.split('.').take(2).collect::<Vec<_>>().join(".");
            (s.product as u8, Version::parse(&v), s.kind as u8)
        };
        let mut kept: Vec<EngineSpec> = Vec::new();
        for s in specs {
            match kept.iter_mut().find(|k| minor(k) == minor(&s)) {
                Some(k) if s.parsed_version() > k.parsed_version() => *k = s,
                Some(_) => {}
                None => kept.push(s),
            }
        }
        specs = kept;
    }
    let mut names: Vec<String> = Vec::new();
    for s in specs {
        if !names.contains(&s.name) {
            names.push(s.name);
        }
    }
    if names.len() < 2 {
        return Err(SessionError::usage(format!(
            "a matrix needs at least two engines; {text:?} gives {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )));
    }
    Ok(names)
}

/// What a matrix runs.
#[derive(Debug, Clone)]
pub struct MatrixSpec {
    /// The matrix id (its tag); [`new_id`] makes one.
    pub id: String,
    pub workload: String,
    pub run: RunSpec,
    /// The index (default: the workload's).
    pub index: Option<String>,
    pub engines: Vec<String>,
    pub repeats: usize,
    /// Seed of the order's permutations.
    pub order_seed: u64,
    /// How to start each engine (its `engine` is replaced per run).
    pub cluster: ClusterSpec,
    /// How to load; its cancel stops the matrix too.
    pub load: LoadSpec,
    /// What the flags attach to each run (its store, telemetry, profile, tags).
    pub attach: Attach,
}

/// A fresh matrix id: 8 hex digits from the clock and the process.
pub fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut state = nanos ^ (u64::from(std::process::id()) << 32);
    format!("{:08x}", crate::rng::splitmix64(&mut state) as u32)
}

/// What became of one place in the order.
#[derive(Debug, Clone, Serialize)]
pub struct Done {
    #[serde(flatten)]
    pub slot: Slot,
    /// The stored run, when there is one.
    pub run_id: Option<String>,
    pub state: Option<State>,
    /// The run's headline (docs/s), for the line that says it ended.
    pub docs_per_sec: Option<f64>,
    /// Why it did not complete (or why it did not run: an engine that failed earlier).
    pub error: Option<String>,
}

/// A step of the matrix, told to the caller as it goes.
#[derive(Debug)]
pub enum Step<'a> {
    Starting { slot: &'a Slot, of: usize },
    Finished { done: &'a Done, of: usize },
}

/// The matrix's outcome.
#[derive(Debug, Serialize)]
pub struct Matrix {
    pub id: String,
    pub order_seed: u64,
    pub order: Vec<Slot>,
    pub done: Vec<Done>,
    /// Stopped by the cancel before the end.
    pub interrupted: bool,
    /// The runs read back (`None` when no run completed).
    pub history: Option<History>,
    /// Why there is no history.
    pub history_error: Option<String>,
    /// The HTML page of the history.
    pub html: Option<PathBuf>,
    /// Field note 002's tables, when the runs are cluster-metrics runs with queries (an
    /// engine beside the sketch store, or engines alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::analysis::baseline::Baseline>,
}

/// Runs the matrix. `step` hears each start and end; `observer` hears each run's session.
pub async fn matrix(
    spec: &MatrixSpec,
    observer: &dyn Observer,
    step: &(dyn Fn(Step<'_>) + Sync),
) -> Result<Matrix, SessionError> {
    if spec.attach.save.skip {
        return Err(SessionError::usage(
            "a matrix keeps its runs in the store (drop --no-store)",
        ));
    }
    if spec.repeats == 0 {
        return Err(SessionError::usage("--repeats must be at least 1"));
    }
    let order = order(&spec.engines, spec.repeats, spec.order_seed);
    let store = spec.attach.save.open()?;
    let cancel = spec.load.cancel.clone();
    let cancelled = || cancel.as_ref().is_some_and(|c| c.is_cancelled());
    // Engines that failed to start, with the position of that run.
    let mut failed_to_start: Vec<(String, usize)> = Vec::new();
    let mut done = Vec::new();
    let mut interrupted = false;
    for slot in &order {
        if cancelled() {
            interrupted = true;
            break;
        }
        if let Some((_, at)) = failed_to_start.iter().find(|(e, _)| *e == slot.engine) {
            let d = Done {
                slot: slot.clone(),
                run_id: None,
                state: None,
                docs_per_sec: None,
                error: Some(format!("skipped: it failed to start at run {at}")),
            };
            step(Step::Finished {
                done: &d,
                of: order.len(),
            });
            done.push(d);
            continue;
        }
        step(Step::Starting {
            slot,
            of: order.len(),
        });
        let job = Job::generated(
            &spec.workload,
            &spec.run.workload_spec,
            spec.index.clone(),
            &[],
        )?;
        let mut cluster = spec.cluster.clone();
        cluster.start.engine = slot.engine.clone();
        let mut attach = spec.attach.clone();
        attach.save.tags.extend([
            ("matrix".to_string(), spec.id.clone()),
            ("matrix_round".to_string(), slot.round.to_string()),
            ("matrix_position".to_string(), slot.position.to_string()),
        ]);
        // So that `compare engine=A engine=B` finds the runs (unless the user tagged them).
        if !attach.save.tags.iter().any(|(k, _)| k == "engine") {
            attach
                .save
                .tags
                .push(("engine".to_string(), slot.engine.clone()));
        }
        let outcome = match run(
            job,
            &cluster,
            spec.load.clone(),
            &spec.run,
            &attach,
            observer,
        )
        .await
        {
            // Bad usage is the same for every engine: stop here.
            Err(e) if e.is_usage() && !matches!(e, SessionError::EngineStart { .. }) => {
                return Err(e)
            }
            outcome => outcome,
        };
        let error = match &outcome {
            Err(e @ SessionError::EngineStart { .. }) => {
                failed_to_start.push((slot.engine.clone(), slot.position));
                Some(crate::cluster::error_chain(e))
            }
            Err(e) => Some(crate::cluster::error_chain(e)),
            Ok(_) => None,
        };
        let stored = store
            .list(&Filter {
                tags: vec![
                    ("matrix".into(), spec.id.clone()),
                    ("matrix_position".into(), slot.position.to_string()),
                ],
                ..Default::default()
            })?
            .into_iter()
            .next();
        let d = Done {
            slot: slot.clone(),
            run_id: stored.as_ref().map(|r| r.id.0.clone()),
            state: stored.as_ref().map(|r| r.state),
            docs_per_sec: stored
                .as_ref()
                .and_then(|r| crate::analysis::said::Said::of(r).docs_per_sec),
            error: error.or_else(|| stored.as_ref().and_then(|r| r.error.clone())),
        };
        step(Step::Finished {
            done: &d,
            of: order.len(),
        });
        done.push(d);
        if outcome
            .as_ref()
            .is_ok_and(|r| r.query_interrupted || r.ingest.interrupted)
        {
            interrupted = true;
            break;
        }
    }
    interrupted |= cancelled();
    let mut selection = Selection::new(Axis::Version);
    selection.tags = vec![("matrix".into(), spec.id.clone())];
    let (history, history_error) = match history::load(&store, &selection) {
        Ok(h) => (Some(h), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let html = match &history {
        Some(h) => {
            let path = crate::report::matrix_path(store.path(), &spec.id);
            match crate::report::history_html::write(h, &path) {
                Ok(()) => Some(path),
                Err(e) => {
                    observer.event(super::Event::Warning(format!(
                        "writing the matrix page: {e}"
                    )));
                    None
                }
            }
        }
        None => None,
    };
    // Field note 002's tables count the runs that failed on wrong answers alone.
    let baseline = crate::analysis::baseline::load(&store, &selection)
        .ok()
        .flatten();
    Ok(Matrix {
        id: spec.id.clone(),
        order_seed: spec.order_seed,
        order,
        done,
        interrupted,
        baseline,
        history,
        history_error,
        html,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_round_is_a_fresh_permutation_of_every_engine() {
        let engines: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let o = order(&engines, 3, 1);
        assert_eq!(o.len(), 12);
        for round in 1..=3 {
            let mut these: Vec<&str> = o
                .iter()
                .filter(|s| s.round == round)
                .map(|s| s.engine.as_str())
                .collect();
            these.sort_unstable();
            assert_eq!(these, ["a", "b", "c", "d"]);
        }
        assert_eq!(
            o.iter().map(|s| s.position).collect::<Vec<_>>(),
            (1..=12).collect::<Vec<_>>()
        );
        // Seeded: the same seed, the same order; the rounds are not all alike.
        assert_eq!(o, order(&engines, 3, 1));
        let rounds: Vec<Vec<&str>> = (1..=3)
            .map(|r| {
                o.iter()
                    .filter(|s| s.round == r)
                    .map(|s| s.engine.as_str())
                    .collect()
            })
            .collect();
        assert!(
            rounds[0] != rounds[1] || rounds[1] != rounds[2],
            "{rounds:?}"
        );
        assert_ne!(order(&engines, 3, 1), order(&engines, 3, 2));
    }

    #[test]
    fn ranges_take_every_release_of_one_kind_between_their_ends() {
        let all = engine::all();
        let names = engines_in(&all, "opensearch-2.11.0..opensearch-2.13.0", false).unwrap();
        assert_eq!(names.first().map(String::as_str), Some("opensearch-2.11.0"));
        assert_eq!(names.last().map(String::as_str), Some("opensearch-2.13.0"));
        assert!(
            names.contains(&"opensearch-2.12.0".to_string()),
            "{names:?}"
        );
        assert!(names.iter().all(|n| !n.ends_with("-dist")), "{names:?}");
        let minor = engines_in(&all, "opensearch-2.11.0..opensearch-2.13.0", true).unwrap();
        assert_eq!(
            minor
                .iter()
                .filter(|n| n.starts_with("opensearch-2.11."))
                .count(),
            1,
            "{minor:?}"
        );
        assert!(minor.contains(&"opensearch-2.12.0".to_string()));
        // A list, resolved; errors are usage errors.
        let list = engines_in(&all, "opensearch-2.11.0, opensearch-2.19.1", false).unwrap();
        assert_eq!(list, ["opensearch-2.11.0", "opensearch-2.19.1"]);
        for bad in [
            "opensearch-2.13.0..opensearch-2.11.0",
            "opensearch-2.11.0..elasticsearch-8.1.1",
            "opensearch-2.11.0",
            "opensaerch-2.11.0,opensearch-2.19.1",
        ] {
            let e = engines_in(&all, bad, false).unwrap_err();
            assert!(e.is_usage(), "{bad}: {e}");
        }
    }
}
