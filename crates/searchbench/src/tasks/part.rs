//! A track's challenge split over several drivers (`run --workload-file track.json --part
//! I/N`): what each task becomes on part I. The administrative tasks (create or delete an
//! index, templates, settings, refresh, force-merge, waits) run on part 1 alone; a search, a
//! scroll or a read-only request is split by its clients, and its target throughput goes with
//! the clients (each client keeps the rate it had); a sleep and a point in time (each part's
//! searches need their own) run on every part as they are. A bulk is split by its clients too,
//! and each of its files by the documents the track declares for it, in the same proportion:
//! part I loads the documents `[c0·D/C, c1·D/C)` of each file when it has the clients
//! `[c0, c1)` of C, so the parts load every document once. Every step stays, empty on a part
//! with nothing of it: the parts join before each step ([`crate::session::join`]).

use super::operation::Kind;
use super::plan::{BulkSpec, Invalid, Item, Planned, TaskPlan};
use super::TaskSpec;
use crate::corpus::part::Part;

/// How a task of the challenge is shared among the parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// Part 1 runs it: it changes the cluster, or waits on it.
    Once,
    /// Every part runs it as it is.
    Each,
    /// Every part runs its share of the clients.
    Split,
}

/// How `kind` is shared.
pub fn sharing(kind: &Kind) -> Sharing {
    match kind {
        Kind::Search { .. } | Kind::Scroll { .. } => Sharing::Split,
        Kind::Request { method, .. } if *method == reqwest::Method::GET => Sharing::Split,
        Kind::Sleep { .. } | Kind::OpenPit { .. } | Kind::ClosePit { .. } => Sharing::Each,
        _ => Sharing::Once,
    }
}

/// The clients `[c0, c1)` of `clients` that fall to `part`.
fn clients_of(part: Part, clients: u64) -> (u64, u64) {
    part.share(clients)
}

/// `planned` as part `part` runs it: each step kept (possibly empty), what this part leaves
/// to the others listed with what does not run.
pub fn for_part(planned: Planned, part: Part) -> Result<Planned, Invalid> {
    if part.is_whole() {
        return Ok(planned);
    }
    let Planned {
        steps,
        mut not_run,
        missing,
        absent,
        points,
        convert,
    } = planned;
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        let mut together = Vec::new();
        for (plan, completes) in step {
            let (name, kept) = match plan {
                TaskPlan::Task(task) => (task.name.clone(), task_part(*task, part)),
                TaskPlan::Bulk(bulk) => (bulk.name.clone(), bulk_part(bulk, part)?),
            };
            match kept {
                Ok(plan) => together.push((plan, completes)),
                Err(why) => not_run.push(Item {
                    what: format!("task {name}"),
                    runs: false,
                    worker: false,
                    how: format!("on another part: {why}"),
                }),
            }
        }
        out.push(together);
    }
    Ok(Planned {
        steps: out,
        not_run,
        missing,
        absent,
        points,
        convert,
    })
}

/// The task on `part`, or why another part runs it all.
fn task_part(mut task: TaskSpec, part: Part) -> Result<TaskPlan, String> {
    match sharing(&task.operation.kind) {
        Sharing::Each => {}
        Sharing::Once if part.index == 1 => {}
        Sharing::Once => return Err("part 1 runs it, the others wait".into()),
        Sharing::Split => {
            let all = task.clients;
            let (c0, c1) = clients_of(part, all);
            if c1 == c0 {
                return Err(format!("none of its {all} client(s) falls to part {part}"));
            }
            task.clients = c1 - c0;
            task.rate = task.rate.map(|r| r * (c1 - c0) as f64 / all as f64);
        }
    }
    Ok(TaskPlan::Task(Box::new(task)))
}

/// The bulk on `part`: its share of the clients and of every file's documents.
fn bulk_part(mut bulk: BulkSpec, part: Part) -> Result<Result<TaskPlan, String>, Invalid> {
    let all = bulk.clients as u64;
    let (c0, c1) = clients_of(part, all);
    if c1 == c0 {
        return Ok(Err(format!(
            "none of its {all} client(s) falls to part {part}, nor its documents"
        )));
    }
    for load in &mut bulk.loads {
        for f in &mut load.files {
            let total = match (f.declared, f.limit) {
                (Some(d), Some(l)) => d.min(l),
                (d, l) => d.or(l).ok_or_else(|| {
                    Invalid(format!(
                        "task {}: {} has no document-count: a part cannot take its share of \
                         it without one",
                        bulk.name, f.path
                    ))
                })?,
            };
            let at = |c: u64| (u128::from(total) * u128::from(c) / u128::from(all)) as u64;
            f.share = Some((at(c0), at(c1)));
        }
    }
    bulk.clients = (c1 - c0) as usize;
    // A target throughput is the whole task's: each part aims at its clients' share.
    bulk.rate = bulk.rate.map(|r| r * (c1 - c0) as f64 / all as f64);
    Ok(Ok(TaskPlan::Bulk(bulk)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::track::{read, TrackParams};

    /// A track of every kind of task, planned whole and for each of three parts.
    fn planned(dir: &tempfile::TempDir) -> Planned {
        std::fs::write(dir.path().join("docs.json"), "").unwrap();
        let track = serde_json::json!({
            "version": 2,
            "indices": [{"name": "t1"}],
            "corpora": [{"name": "c", "documents": [
                {"source-file": "docs.json", "document-count": 1001, "target-index": "t1"}
            ]}],
            "schedule": [
                {"operation": {"name": "drop", "operation-type": "delete-index"}},
                {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 100},
                 "clients": 2},
                {"parallel": {"tasks": [
                    {"operation": {"name": "q", "operation-type": "search",
                                   "body": {"query": {"match_all": {}}}},
                     "clients": 3, "target-throughput": 30, "iterations": 10},
                    {"operation": {"name": "nap", "operation-type": "sleep", "duration": 1}}
                ]}}
            ]
        });
        let path = dir.path().join("track.json");
        std::fs::write(&path, track.to_string()).unwrap();
        let d = read(&path, &TrackParams::new()).unwrap();
        let procedure = crate::workload::track::runnable::procedure(&d, None).unwrap();
        super::super::plan::plan(&d, procedure, &Default::default()).unwrap()
    }

    fn names(step: &[(TaskPlan, bool)]) -> Vec<String> {
        step.iter()
            .map(|(p, _)| match p {
                TaskPlan::Task(t) => format!("{} x{} @{:?}", t.name, t.clients, t.rate),
                TaskPlan::Bulk(b) => format!(
                    "{} x{} {:?}",
                    b.name,
                    b.clients,
                    b.loads
                        .iter()
                        .flat_map(|l| l.files.iter().map(|f| f.share))
                        .collect::<Vec<_>>()
                ),
            })
            .collect()
    }

    /// Part 1 alone drops the index; the search's clients and rate are shared (each client
    /// keeps its rate); the sleep runs everywhere; the bulk's documents follow its clients, so
    /// the parts together load each document once; every step stays, to join before it.
    #[test]
    fn each_part_takes_its_share_of_every_task() {
        let dir = tempfile::tempdir().unwrap();
        let whole = planned(&dir);
        assert_eq!(whole.points.len(), 3);
        let parts: Vec<Planned> = (1..=3)
            .map(|index| for_part(planned(&dir), Part { index, of: 3 }).unwrap())
            .collect();
        let steps: Vec<Vec<Vec<String>>> = parts
            .iter()
            .map(|p| p.steps.iter().map(|s| names(s)).collect())
            .collect();
        assert_eq!(
            steps[0],
            [
                vec!["drop x1 @None".to_string()],
                vec![],
                vec!["q x1 @Some(10.0)".into(), "nap x1 @None".into()]
            ]
        );
        assert_eq!(
            steps[1],
            [
                vec![],
                vec!["load x1 [Some((0, 500))]".to_string()],
                vec!["q x1 @Some(10.0)".into(), "nap x1 @None".into()]
            ]
        );
        assert_eq!(
            steps[2],
            [
                vec![],
                vec!["load x1 [Some((500, 1001))]".to_string()],
                vec!["q x1 @Some(10.0)".into(), "nap x1 @None".into()]
            ]
        );
        for p in &parts {
            assert_eq!(p.points, whole.points);
        }
        // What another part runs is said, never dropped in silence.
        assert!(parts[1]
            .not_run
            .iter()
            .any(|i| i.what == "task drop" && i.how.contains("part 1 runs it")));
        assert!(parts[0]
            .not_run
            .iter()
            .any(|i| i.what == "task load" && i.how.contains("none of its 2 client(s)")));
    }
}
