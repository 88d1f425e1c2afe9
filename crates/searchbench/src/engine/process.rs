//! Node processes: records by HTTP port, liveness, signals, log tails.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::paths;
use super::EngineError;
use crate::os::{group_rss_bytes, pid_alive};

/// What we remember about a node we started, in `nodes/<http_port>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeRecord {
    pub engine: String,
    pub pid: u32,
    pub http_port: u16,
    pub transport_port: u16,
    pub url: String,
    pub data_dir: PathBuf,
    /// True when we made the data folder ourselves, so stopping may delete it.
    pub data_is_ours: bool,
    pub log: PathBuf,
    pub started_unix: u64,
    pub heap: String,
    /// The cluster this node belongs to (`searchbench-<first http port>`).
    #[serde(default)]
    pub cluster: String,
    #[serde(default)]
    pub node_name: String,
    /// A string the process's command line carries, by which we know a pid is still ours:
    /// the launcher class, or the distribution's home.
    #[serde(default = "default_mark")]
    pub mark: String,
    /// A distribution node's own folder (config copy, logs), deleted on stop.
    #[serde(default)]
    pub node_dir: Option<PathBuf>,
    /// The cluster's snapshot folder, deleted on stop (kept in the first node's record).
    #[serde(default)]
    pub repo_dir: Option<PathBuf>,
    /// A secured node's CA certificate (its URL is https; its users' passwords are not kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_cert: Option<PathBuf>,
    /// Who started it ([`owner`]): `engine stop --all` stops the caller's nodes only. Empty
    /// in records from before owners: no caller owns those.
    #[serde(default)]
    pub owner: String,
    /// The node's process as `os::process_mark` tells it from any other under its pid (its
    /// boot and start time): a record that outlived its node (a reboot, a container's cache
    /// restored) never names a process started since. None in records from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_mark: Option<String>,
}

/// The owner of the nodes this process starts, and whose nodes `engine stop --all` stops:
/// `SEARCHBENCH_OWNER` when set (a CI job sets its job's id), else this terminal or job's
/// session (`session <sid>`: every command typed in one shell, or run by one CI job's
/// script, is one session; another job on a shared runner, or another terminal, is
/// another).
pub fn owner() -> String {
    if let Some(o) = std::env::var("SEARCHBENCH_OWNER")
        .ok()
        .map(|o| o.trim().to_string())
        .filter(|o| !o.is_empty())
    {
        return o;
    }
    // SAFETY: getsid(0) reads this process's session id; it takes no pointer.
    let sid = unsafe { libc::getsid(0) };
    format!("session {sid}")
}

fn default_mark() -> String {
    LAUNCHER_CLASS.to_string()
}

impl NodeRecord {
    pub fn path_for(port: u16) -> PathBuf {
        paths::nodes_dir().join(format!("{port}.json"))
    }

    pub fn save(&self) -> Result<(), EngineError> {
        let path = Self::path_for(self.http_port);
        let dir = paths::nodes_dir();
        std::fs::create_dir_all(&dir).map_err(|e| EngineError::io(&dir, e))?;
        let text = serde_json::to_vec_pretty(self).map_err(|e| EngineError::io(&path, e.into()))?;
        std::fs::write(&path, text).map_err(|e| EngineError::io(&path, e))
    }

    pub fn remove(&self) {
        let _ = std::fs::remove_file(Self::path_for(self.http_port));
    }

    /// All records, oldest first; unreadable ones are skipped (see [`NodeRecord::scan`]).
    pub fn all() -> Vec<NodeRecord> {
        Self::scan().0
    }

    /// All readable records, oldest first, and the paths of the records that could not be
    /// read (for the caller to warn about).
    pub fn scan() -> (Vec<NodeRecord>, Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(paths::nodes_dir()) else {
            return (Vec::new(), Vec::new());
        };
        let mut records = Vec::new();
        let mut unreadable = Vec::new();
        for p in entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
        {
            match std::fs::read(&p).map(|b| serde_json::from_slice::<NodeRecord>(&b)) {
                Ok(Ok(r)) => records.push(r),
                _ => unreadable.push(p),
            }
        }
        records.sort_by_key(|r| r.started_unix);
        (records, unreadable)
    }

    /// Whether the recorded pid is still our node (not a recycled pid).
    pub fn is_alive(&self) -> bool {
        is_ours(self.pid, &self.mark)
            && crate::os::owner_alive(self.pid, self.process_mark.as_deref())
    }

    /// Resident memory of the node (its whole process group), from /proc.
    pub fn rss_bytes(&self) -> Option<u64> {
        group_rss_bytes(self.pid)
    }
}

/// The launcher's main class: the mark by which we know a runner's pid is ours.
pub const LAUNCHER_CLASS: &str = "searchbench.launcher.Main";

pub fn is_ours(pid: u32, mark: &str) -> bool {
    if !pid_alive(pid) {
        return false;
    }
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => {
            !mark.is_empty() && memchr::memmem::find(&cmdline, mark.as_bytes()).is_some()
        }
        // No /proc (not Linux): trust the signal check.
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

/// The end of a node's log that says why it failed: the last `lines` lines that are not
/// stack frames (a Java trace is 40 lines of `at ...` under the one line that matters).
pub fn meaningful_tail(path: &Path, lines: usize) -> String {
    let text = tail(path, 400);
    let meaningful: Vec<&str> = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.is_empty()
                || t.starts_with("at ")
                || (t.starts_with("...") && t.ends_with("more"))
                || t.starts_with("Suppressed:") && t.len() < 12)
        })
        .collect();
    let kept = &meaningful[meaningful.len().saturating_sub(lines)..];
    if kept.is_empty() {
        return text;
    }
    kept.join("\n")
}

/// The last `lines` lines of a log file (reads at most the last 64 KiB).
pub fn tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = std::fs::File::open(path) else {
        return format!("(no log at {})", path.display());
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut buf = Vec::new();
    let _ = file.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meaningful_tail_drops_stack_frames() {
        let dir = std::env::temp_dir().join(format!("sb-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("node.log");
        let mut text = String::from("[INFO ] starting\n[ERROR] bootstrap failed\n");
        text.push_str("java.lang.IllegalStateException: port 9300 taken\n");
        for i in 0..40 {
            text.push_str(&format!("\tat org.example.Frame{i}.run(Frame.java:{i})\n"));
        }
        text.push_str("Caused by: java.net.BindException: Address already in use\n\t... 12 more\n");
        std::fs::write(&log, text).unwrap();
        let tail = meaningful_tail(&log, 3);
        assert_eq!(
            tail,
            "[ERROR] bootstrap failed\njava.lang.IllegalStateException: port 9300 taken\n\
             Caused by: java.net.BindException: Address already in use"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
