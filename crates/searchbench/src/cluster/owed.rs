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
    /// The index's own id when known: a debt is never paid to another index of that name (a
    /// cluster started again on the same port, the index made again).
    #[serde(default)]
    uuid: Option<String>,
    undo: Undo,
    /// What changed it, said when it is put back.
    why: String,
    /// The process that wrote it (said, not believed: whether it lives is told by the lock it
    /// holds on the file, which holds across pid namespaces and pid reuse).
    pid: u32,
}

/// A debt written down; [`Owed::paid`] once the index is put back. While it is held, its file
/// is locked: the owner lives.
#[must_use = "a debt is paid once the index is put back"]
#[derive(Debug, Clone, Default)]
pub struct Owed {
    /// The debts written (none where the same change is owed already).
    paths: Vec<PathBuf>,
    /// Their locked files, held for the owner's life.
    _locks: Vec<std::sync::Arc<std::fs::File>>,
    /// What the first debt of the same change holds, when one was owed already (another
    /// process's, still running): the values from before either, which this one restores too.
    pub first: Option<Undo>,
}

impl Owed {
    /// The index is put back: the file goes.
    pub fn paid(&self) {
        for p in &self.paths {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Takes the lock of an open debt file without waiting: `true` when taken (nobody holds it).
fn lock(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this process owns; released when the file is closed.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
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

/// Writes down `undo` for `index` (whose own id is `uuid`, when known) before it is changed,
/// `why` saying by what. A change the same index already owes keeps the first, whose values
/// are handed back ([`Owed::first`]): they are from before either.
pub fn owe(
    target: &Target,
    index: &str,
    uuid: Option<&str>,
    undo: Undo,
    why: &str,
) -> Result<Owed, String> {
    owe_each(&folder(), &cluster_of(target), index, uuid, undo, why)
}

/// [`owe`] in `dir`: a debt a setting, so that two changes sharing one (a load with
/// `--replicas 0` beside one without) keep its value from before either, whatever else each
/// changes; what was owed already is handed back, setting by setting ([`Owed::first`]).
fn owe_each(
    dir: &Path,
    cluster: &str,
    index: &str,
    uuid: Option<&str>,
    undo: Undo,
    why: &str,
) -> Result<Owed, String> {
    let Undo::Settings(settings) = undo else {
        return owe_in(dir, cluster, index, uuid, undo, why);
    };
    let mut all = Owed::default();
    let mut first = Map::new();
    for (k, v) in settings {
        let one = Undo::Settings([(k, v)].into_iter().collect());
        let owed = match owe_in(dir, cluster, index, uuid, one, why) {
            Ok(owed) => owed,
            Err(e) => {
                // Nothing was changed yet: what was written down is owed by nobody.
                all.paid();
                return Err(e);
            }
        };
        if let Some(Undo::Settings(was)) = owed.first {
            first.extend(was);
        }
        all.paths.extend(owed.paths);
        all._locks.extend(owed._locks);
    }
    all.first = (!first.is_empty()).then_some(Undo::Settings(first));
    Ok(all)
}

fn owe_in(
    dir: &Path,
    cluster: &str,
    index: &str,
    uuid: Option<&str>,
    undo: Undo,
    why: &str,
) -> Result<Owed, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let what = match &undo {
        Undo::Settings(m) => m.keys().cloned().collect::<Vec<_>>().join(","),
        Undo::Open => "open".into(),
    };
    let debt = Debt {
        cluster: cluster.to_string(),
        index: index.to_string(),
        uuid: uuid.map(str::to_string),
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
    let first = || -> Result<Owed, String> {
        let text = crate::user_file::read(&path).map_err(failed)?;
        let first: Debt =
            serde_json::from_slice(&text).map_err(|e| failed(std::io::Error::other(e)))?;
        Ok(Owed {
            first: Some(first.undo),
            ..Owed::default()
        })
    };
    if path.exists() {
        return first();
    }
    // Written whole and locked under a name of its own, then given its name only if no debt
    // has it (a link fails where a file is): two processes never both think theirs is first.
    // Named after the debt (two changes of one process never share it) and hidden from
    // `owed_in`, which reads only names that start with a debt's key.
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .map_err(failed)?;
    let text = serde_json::to_vec_pretty(&debt).map_err(|e| failed(std::io::Error::other(e)))?;
    let written = (lock(&file).then_some(()))
        .ok_or_else(|| std::io::Error::other("cannot lock it"))
        .and_then(|()| file.write_all(&text))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::hard_link(&tmp, &path));
    let _ = std::fs::remove_file(&tmp);
    match written {
        Ok(()) => Ok(Owed {
            paths: vec![path],
            _locks: vec![std::sync::Arc::new(file)],
            first: None,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => first(),
        Err(e) => Err(failed(e)),
    }
}

/// Puts back what processes now ended owe `index` of this cluster: what was put back, a line
/// each, to be said. One that cannot be put back stays owed (the next command tries again)
/// and is the error.
pub async fn settle(target: &Target, index: &str) -> Result<Vec<String>, String> {
    let mut said = Vec::new();
    for (path, debt, _held) in owed_in(&folder(), &cluster_of(target), index) {
        // Another index of that name (the cluster or the index made again): not its debt.
        if let Some(uuid) = &debt.uuid {
            if uuid_of(target, index).await.is_some_and(|now| &now != uuid) {
                let _ = std::fs::remove_file(&path);
                continue;
            }
        }
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

/// The debts to `index` of `cluster` whose process has ended (nobody holds its lock), each
/// with its file, locked now by this process while it pays.
fn owed_in(dir: &Path, cluster: &str, index: &str) -> Vec<(PathBuf, Debt, std::fs::File)> {
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
            let file = std::fs::File::open(e.path()).ok()?;
            if !lock(&file) {
                return None;
            }
            let text = crate::user_file::read(&e.path()).ok()?;
            let debt: Debt = serde_json::from_slice(&text).ok()?;
            let ours = debt.cluster == cluster && debt.index == index;
            ours.then(|| (e.path(), debt, file))
        })
        .collect()
}

/// The index's own id, as the cluster says it now.
async fn uuid_of(target: &Target, index: &str) -> Option<String> {
    let path = format!("/{index}/_settings/index.uuid?flat_settings=true");
    let v: Value = target.get_json(&path).await.ok()?;
    let (_, settings) = v.as_object()?.iter().next()?;
    Some(settings["settings"]["index.uuid"].as_str()?.to_string())
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

    /// A debt of a process that ended (its lock gone with it) is found by the next command on
    /// the same index; a live process's is its own; another index's or cluster's is not
    /// touched; a debt written while one is owed hands back the first's values.
    #[test]
    fn an_ended_processs_debt_is_paid_by_the_next_command_on_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = "http://127.0.0.1:9200/";
        let settings = |v: Value| {
            let mut m = Map::new();
            m.insert("index.refresh_interval".into(), v);
            Undo::Settings(m)
        };
        let owe = |v: Value| {
            owe_in(
                dir.path(),
                cluster,
                "logs",
                Some("u1"),
                settings(v),
                "a load",
            )
        };
        let owed = owe(Value::Null).unwrap();
        let path = owed.paths[0].clone();
        // Its owner lives (holds the lock): not for another command to pay.
        assert!(owed_in(dir.path(), cluster, "logs").is_empty());
        // A second change while it is owed (another part of a group on this machine): the
        // values from before the first are handed back, nothing written.
        let again = owe("-1".into()).unwrap();
        assert!(again.paths.is_empty());
        assert_eq!(again.first, Some(settings(Value::Null)));
        // Its owner ends without paying (killed: its lock goes with it).
        drop(owed);
        assert!(owed_in(dir.path(), cluster, "other").is_empty());
        assert!(owed_in(dir.path(), "http://elsewhere:9200/", "logs").is_empty());
        let found = owed_in(dir.path(), cluster, "logs");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.undo, settings(Value::Null));
        assert_eq!(found[0].1.uuid.as_deref(), Some("u1"));
        assert_eq!(describe(&found[0].1.undo), "index.refresh_interval reset");
        // Being paid, it is locked: no other command pays it at the same time.
        assert!(owed_in(dir.path(), cluster, "logs").is_empty());
        drop(found);
        assert!(path.exists());
    }

    /// Two changes that share a setting (a load with `--replicas 0` beside one without, on
    /// one machine): each setting is owed once, so the second gets the value from before
    /// either for the one they share, and owes the other itself.
    #[test]
    fn changes_sharing_a_setting_keep_its_value_from_before_either() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = "http://127.0.0.1:9200/";
        let settings = |pairs: &[(&str, Value)]| {
            Undo::Settings(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
            )
        };
        let owe = |undo: Undo| owe_each(dir.path(), cluster, "logs", None, undo, "a load");
        let refresh = "index.refresh_interval";
        let replicas = "index.number_of_replicas";
        let first = owe(settings(&[(refresh, "7s".into())])).unwrap();
        let second = owe(settings(&[(refresh, "-1".into()), (replicas, "1".into())])).unwrap();
        assert_eq!(second.first, Some(settings(&[(refresh, "7s".into())])));
        assert_eq!(second.paths.len(), 1, "the replicas are its own debt");
        // Both end unpaid: the next command finds one debt a setting, each first value.
        drop((first, second));
        let mut found: Vec<Undo> = owed_in(dir.path(), cluster, "logs")
            .into_iter()
            .map(|(_, d, _)| d.undo)
            .collect();
        found.sort_by_key(describe);
        assert_eq!(
            found,
            [
                settings(&[(replicas, "1".into())]),
                settings(&[(refresh, "7s".into())])
            ]
        );
    }
}
