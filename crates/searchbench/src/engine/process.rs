//! Node processes: records by HTTP port, liveness, signals, log tails.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::paths;
use super::EngineError;

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

    /// Whether the recorded pid is still one of our launcher processes (not a recycled pid).
    pub fn is_alive(&self) -> bool {
        is_our_launcher(self.pid)
    }

    /// Resident memory of the node, from /proc.
    pub fn rss_bytes(&self) -> Option<u64> {
        rss_bytes(self.pid)
    }
}

/// The launcher's main class: the mark by which we know a pid is ours.
pub const LAUNCHER_CLASS: &str = "searchbench.launcher.Main";

pub fn is_our_launcher(pid: u32) -> bool {
    if !pid_alive(pid) {
        return false;
    }
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => cmdline
            .windows(LAUNCHER_CLASS.len())
            .any(|w| w == LAUNCHER_CLASS.as_bytes()),
        // No /proc (not Linux): trust the signal check.
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc != 0 {
        return false;
    }
    // A zombie (exited, not yet reaped) counts as gone.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => true,
    }
}

pub fn signal(pid: u32, sig: i32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: sending a signal has no memory-safety preconditions.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time (user + system) a process has used so far, from /proc/<pid>/stat.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = if ticks > 0 { ticks as u64 } else { 100 };
    Some(Duration::from_nanos(
        (utime + stime) * 1_000_000_000 / ticks,
    ))
}

/// SIGTERM, then SIGKILL once `grace` has passed. Returns true if it had to kill.
pub fn terminate(pid: u32, grace: Duration) -> bool {
    signal(pid, libc::SIGTERM);
    let deadline = std::time::Instant::now() + grace;
    while std::time::Instant::now() < deadline {
        if !pid_alive(pid) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    signal(pid, libc::SIGKILL);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while pid_alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    true
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
