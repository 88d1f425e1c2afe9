//! What searchbench owes a user's index: before it changes an index it did not make (a load's
//! settings, a write block while shard copies are made, an index closed for a cold pass) it
//! writes down how to put it back, in a file of this machine's cache; once put back, the file
//! goes. A process that ended without putting it back (killed, a second Ctrl-C, a cluster
//! that stalled past the restore's time) leaves the file, and the next command that touches
//! the same index on the same cluster puts the index back first, saying so, rather than take
//! the changed index for the user's own (a load would then keep `refresh_interval: -1` as the
//! index's "original" for good).

use std::path::{Path, PathBuf};

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Target, TargetError};

/// How to put an index back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undo {
    /// These settings, as they were (`null`: not set, reset).
    Settings(Map<String, Value>),
    /// The index was open: open it.
    Open,
}

/// One debt, as its file keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Debt {
    /// The cluster, without credentials, and the index.
    cluster: String,
    index: String,
    undo: Undo,
    /// What changed it, said when it is put back.
    why: String,
    /// The process that owes it: while it lives, the debt is its own to pay.
    pid: u32,
}

/// A debt written down; [`Owed::paid`] once the index is put back.
#[must_use = "a debt is paid once the index is put back"]
#[derive(Debug, Clone, Default)]
pub struct Owed {
    /// None: nothing was written (another live process owes the same first).
    path: Option<PathBuf>,
}

impl Owed {
    /// The index is put back: the file goes.
    pub fn paid(&self) {
        if let Some(p) = &self.path {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The folder of the debts on this machine.
fn folder() -> PathBuf {
    crate::os::cache_root().join("owed")
}

/// The cluster as a debt names it: its first URL, without credentials, path or query.
fn cluster_of(target: &Target) -> String {
    let mut url = target.url().clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_path("");
    url.to_string()
}

/// The file of a change `what` (a setting's name, `open`) to `index` of `cluster`.
fn file_of(dir: &Path, cluster: &str, index: &str, what: &str) -> PathBuf {
    let key = crate::rng::fnv1a([cluster.as_bytes(), b"\n", index.as_bytes()]);
    let what = crate::rng::fnv1a([what.as_bytes()]) as u32;
    dir.join(format!("{key:016x}-{what:08x}.json"))
}

/// Writes down `undo` for `index` before it is changed, `why` saying by what. A change the
/// same index already owes (another process still running, or one that ended: settled by
/// [`settle`] before) keeps the first: it holds the values from before either.
pub fn owe(target: &Target, index: &str, undo: Undo, why: &str) -> Result<Owed, String> {
    owe_in(&folder(), &cluster_of(target), index, undo, why)
}

fn owe_in(dir: &Path, cluster: &str, index: &str, undo: Undo, why: &str) -> Result<Owed, String> {
    let what = match &undo {
        Undo::Settings(m) => m.keys().cloned().collect::<Vec<_>>().join(","),
        Undo::Open => "open".into(),
    };
    let debt = Debt {
        cluster: cluster.to_string(),
        index: index.to_string(),
        undo,
        why: why.to_string(),
        pid: std::process::id(),
    };
    let failed = |e: std::io::Error| {
        format!(
            "cannot write down how to put {index} back before changing it ({}): {e}",
            dir.display()
        )
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let path = file_of(dir, cluster, index, &what);
    if path.exists() {
        return Ok(Owed { path: None });
    }
    let text = serde_json::to_vec_pretty(&debt).map_err(|e| failed(std::io::Error::other(e)))?;
    crate::out_folder::write_in(dir, Path::new(path.file_name().unwrap_or_default()), &text)
        .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
    Ok(Owed { path: Some(path) })
}

/// Puts back what processes now ended owe `index` of this cluster: what was put back, a line
/// each, to be said. One that cannot be put back stays owed (the next command tries again)
/// and is the error.
pub async fn settle(target: &Target, index: &str) -> Result<Vec<String>, String> {
    let mut said = Vec::new();
    for (path, debt) in owed_in(&folder(), &cluster_of(target), index) {
        match pay(target, &debt).await {
            Ok(()) => {}
            // The index is gone: nothing is left to put back.
            Err(TargetError::Status { status: 404, .. }) => {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            Err(e) => {
                return Err(format!(
                    "{index} was left changed by {} and could not be put back ({}): {e}",
                    debt.why,
                    describe(&debt.undo)
                ))
            }
        }
        let _ = std::fs::remove_file(&path);
        said.push(format!(
            "{index} was left changed by {} (a process that ended without putting it back): \
             put back ({})",
            debt.why,
            describe(&debt.undo)
        ));
    }
    Ok(said)
}

/// The debts to `index` of `cluster` whose process has ended.
fn owed_in(dir: &Path, cluster: &str, index: &str) -> Vec<(PathBuf, Debt)> {
    let prefix = format!(
        "{:016x}-",
        crate::rng::fnv1a([cluster.as_bytes(), b"\n", index.as_bytes()])
    );
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter_map(|e| {
            let text = crate::user_file::read(&e.path()).ok()?;
            let debt: Debt = serde_json::from_slice(&text).ok()?;
            let ours = debt.cluster == cluster && debt.index == index;
            (ours && !crate::os::pid_alive(debt.pid)).then(|| (e.path(), debt))
        })
        .collect()
}

async fn pay(target: &Target, debt: &Debt) -> Result<(), TargetError> {
    let index = &debt.index;
    match &debt.undo {
        Undo::Settings(m) => {
            let body = Value::Object(m.clone());
            let path = format!("/{index}/_settings");
            target.send_json::<Value>(Method::PUT, &path, &body).await?;
        }
        Undo::Open => {
            let path = format!("/{index}/_open");
            target.send(Method::POST, &path, None).await?;
        }
    }
    Ok(())
}

fn describe(undo: &Undo) -> String {
    match undo {
        Undo::Settings(m) => m
            .iter()
            .map(|(k, v)| match v {
                Value::Null => format!("{k} reset"),
                v => format!("{k} = {v}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Undo::Open => "opened".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A debt of a process that ended is paid by the next command on the same index (its
    /// settings put back, said, the file gone); a live process's is its own; another index's
    /// or cluster's is not touched; a debt written while one is owed keeps the first.
    #[test]
    fn an_ended_processs_debt_is_paid_by_the_next_command_on_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = "http://127.0.0.1:9200/";
        let settings = |v: Value| {
            let mut m = Map::new();
            m.insert("index.refresh_interval".into(), v);
            Undo::Settings(m)
        };
        let owed = owe_in(dir.path(), cluster, "logs", settings(Value::Null), "a load").unwrap();
        // Ours, alive: not for another command to pay.
        assert!(owed_in(dir.path(), cluster, "logs").is_empty());
        // A second change while it is owed keeps the values from before the first.
        let again = owe_in(dir.path(), cluster, "logs", settings("-1".into()), "again").unwrap();
        assert!(again.path.is_none());
        // The process ended without paying (a pid no process has).
        let path = owed.path.clone().unwrap();
        let mut debt: Debt = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        debt.pid = 0;
        std::fs::write(&path, serde_json::to_vec(&debt).unwrap()).unwrap();
        assert!(owed_in(dir.path(), cluster, "other").is_empty());
        assert!(owed_in(dir.path(), "http://elsewhere:9200/", "logs").is_empty());
        let found = owed_in(dir.path(), cluster, "logs");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.undo, settings(Value::Null));
        assert_eq!(describe(&found[0].1.undo), "index.refresh_interval reset");
        owed.paid();
        assert!(!path.exists());
    }
}
