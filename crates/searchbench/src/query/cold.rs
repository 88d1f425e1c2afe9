//! Cold caches (`query --cold`): one more pass after the measured ones, each of its coverages
//! sent after the index was closed, the OS page cache dropped and the index opened again, so
//! that what it reads comes from the disk. Closing comes first because the kernel keeps every
//! page a process maps, and the engines map their index files: dropping the page cache under
//! an open index leaves most of what a search reads in memory. Opening reads what the engine
//! reads to open a shard (with the disk's read-ahead around it), so the pass starts as cold
//! as an index just opened can be; how cold is measured (`mincore` over the index's files)
//! and reported beside the figures, when its files are on this machine.
//!
//! Only for a cluster on this machine (its page cache is the one dropped), by root.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::cluster::Target;

/// How long the engine may take to let go of a closed index's files.
const LET_GO: Duration = Duration::from_secs(10);

/// How long the index may take to come back after it is opened again.
const REOPEN_TIMEOUT: Duration = Duration::from_secs(120);

/// Why `--cold` cannot run against `urls` from here, or `None` when it can: each must be on
/// this machine (a loopback address), and this process must be able to drop the page cache.
pub fn refused(urls: &[url::Url]) -> Option<String> {
    for url in urls {
        if !is_this_machine(url) {
            return Some(format!(
                "--cold drops this machine's page cache, and the cluster at {} is not on this \
                 machine (only 127.0.0.0/8, ::1 and localhost are): its own cache would stay warm",
                crate::cluster::redact_url(url.as_str())
            ));
        }
    }
    crate::os::cannot_drop_page_cache().map(|why| format!("--cold cannot run: {why}"))
}

fn is_this_machine(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// What makes the index behind `--index` cold: its concrete indices (an alias or a pattern
/// resolved), and the folders that hold their files on this machine, when the nodes say.
#[derive(Debug, Clone)]
pub struct Chiller {
    /// Concrete index names, comma-joined for the APIs.
    names: String,
    dirs: Vec<PathBuf>,
    /// The read-ahead of the disk under those folders (KB), the largest when several.
    read_ahead_kb: Option<u64>,
}

/// One coverage's caches made cold: how long that took (not measured in its figures) and
/// how much of the index's files was still in memory after it.
#[derive(Debug, Clone, Copy)]
pub struct Chilled {
    pub took: Duration,
    /// Resident bytes of the index's files once it was closed and the page cache dropped,
    /// before it was opened again: near nothing when the drop worked.
    pub dropped: Option<u64>,
    /// (resident, total) bytes of the index's files, when they are readable here.
    pub resident: Option<(u64, u64)>,
}

/// How cold the cold pass was, kept with the result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ColdSummary {
    /// Coverages sent cold.
    pub coverages: u64,
    /// Mean time to close, drop the page cache, open and clear the engine's caches (s).
    pub chill_secs_mean: f64,
    /// Bytes of the index's files, when they were found on this machine: the most they took
    /// at a cold start (a merge after an opening may shrink them, so the largest is what
    /// every resident figure is a part of).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_bytes: Option<u64>,
    /// Of those, the most that was in memory when a cold coverage was sent (the engine reads
    /// some to open a shard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resident_bytes_max: Option<u64>,
    /// The mean of the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resident_bytes_mean: Option<u64>,
    /// The most that stayed in memory with the index closed and the page cache dropped:
    /// the proof the drop worked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_bytes_max: Option<u64>,
    /// The read-ahead of the disk under the index's files (KB): a cold read brings back this
    /// much past each miss, so cold figures depend on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_ahead_kb: Option<u64>,
}

impl ColdSummary {
    /// Adds one chilled coverage.
    pub fn add(&mut self, c: &Chilled) {
        let n = self.coverages as f64;
        self.chill_secs_mean = (self.chill_secs_mean * n + c.took.as_secs_f64()) / (n + 1.0);
        if let Some((resident, total)) = c.resident {
            let mean = self.resident_bytes_mean.unwrap_or(0) as f64;
            self.resident_bytes_mean = Some(((mean * n + resident as f64) / (n + 1.0)) as u64);
            self.resident_bytes_max = Some(self.resident_bytes_max.unwrap_or(0).max(resident));
            self.index_bytes = Some(self.index_bytes.unwrap_or(0).max(total));
        }
        if let Some(dropped) = c.dropped {
            self.dropped_bytes_max = Some(self.dropped_bytes_max.unwrap_or(0).max(dropped));
        }
        self.coverages += 1;
    }

    /// How cold the pass was, in the words every view uses (`unit`: a coverage, a search).
    pub fn describe(&self, unit: &str) -> String {
        let mb = |b: u64| b as f64 / 1e6;
        let read_ahead = self.read_ahead_kb.map_or(String::new(), |kb| {
            format!("; the disk reads {kb} KB ahead of each miss")
        });
        let how = match (
            self.index_bytes,
            self.resident_bytes_max,
            self.resident_bytes_mean,
        ) {
            (Some(total), Some(max), Some(mean)) => format!(
                "cold: of the index's {:.1} MB, {:.1} MB stayed in memory once it was closed \
                 and the cache dropped; {:.1} MB was in memory at a cold {unit}'s start on \
                 average, {:.1} MB at most (what the engine reads to open the index, with the \
                 disk's read-ahead); making it cold took {:.1} s a {unit}, not counted",
                mb(total),
                mb(self.dropped_bytes_max.unwrap_or(0)),
                mb(mean),
                mb(max),
                self.chill_secs_mean
            ),
            _ => format!(
                "cold: the index's files were not found on this machine, so how much of them \
                 stayed in memory is not known; making it cold took {:.1} s a {unit}, not \
                 counted",
                self.chill_secs_mean
            ),
        };
        how + &read_ahead
    }
}

/// The heading of the cold vs warm table, in every view.
pub fn heading(unit: &str) -> String {
    format!(
        "Cold vs warm (mean per {unit}, ms; cold: one pass, each {unit} after the index was \
         closed, the OS page cache dropped and the index opened again)"
    )
}

impl Chiller {
    /// Finds the concrete indices of `index` and their folders (`_nodes/stats/fs`'s data
    /// paths, `indices/<uuid>` in each).
    pub async fn new(target: &Target, index: &str) -> Result<Chiller, String> {
        let settings: serde_json::Value = target
            .get_json(&format!("/{index}/_settings/index.uuid"))
            .await
            .map_err(|e| format!("cannot find the indices of {index:?}: {e}"))?;
        let mut names = Vec::new();
        let mut uuids = Vec::new();
        for (name, s) in settings.as_object().into_iter().flatten() {
            names.push(name.clone());
            if let Some(uuid) = s.pointer("/settings/index/uuid").and_then(|u| u.as_str()) {
                uuids.push(uuid.to_string());
            }
        }
        if names.is_empty() {
            return Err(format!("{index:?} names no index"));
        }
        let fs: serde_json::Value = target
            .get_json("/_nodes/stats/fs")
            .await
            .unwrap_or_default();
        let mut dirs = Vec::new();
        for node in fs["nodes"].as_object().into_iter().flat_map(|n| n.values()) {
            for data in node["fs"]["data"].as_array().into_iter().flatten() {
                let Some(path) = data["path"].as_str() else {
                    continue;
                };
                for uuid in &uuids {
                    let dir = PathBuf::from(path).join("indices").join(uuid);
                    if dir.is_dir() && !dirs.contains(&dir) {
                        dirs.push(dir);
                    }
                }
            }
        }
        let read_ahead_kb = dirs
            .iter()
            .filter_map(|d| crate::os::read_ahead_kb(d))
            .max();
        Ok(Chiller {
            names: names.join(","),
            dirs,
            read_ahead_kb,
        })
    }

    /// An empty summary of this index's cold pass, with what is known before it: the disk's
    /// read-ahead.
    pub fn summary(&self) -> ColdSummary {
        ColdSummary {
            read_ahead_kb: self.read_ahead_kb,
            ..ColdSummary::default()
        }
    }

    /// The concrete indices, comma-joined.
    pub fn names(&self) -> &str {
        &self.names
    }

    /// Closes the indices, drops the page cache, opens them again and waits for their
    /// primaries, then clears the engine's caches. An index closed is always opened again,
    /// whatever failed in between; the error says so when it could not be.
    pub async fn chill(&self, target: &Target) -> Result<Chilled, String> {
        let began = Instant::now();
        let names = &self.names;
        // Closed by a run that ended before it opened them again: opened first (said by the
        // error only when they cannot be: a closed index answers no search).
        crate::cluster::owed::settle(target, names).await?;
        let why = "a query's --cold pass (closed to drop the page cache)";
        let owed =
            crate::cluster::owed::owe(target, names, None, crate::cluster::owed::Undo::Open, why)?;
        if let Err(e) = (target.send(Method::POST, &format!("/{names}/_close"), None)).await {
            owed.paid();
            return Err(format!("cannot close {names}: {e}"));
        }
        let this = self.clone();
        let dropped = tokio::task::spawn_blocking(move || this.drop_until_cold()).await;
        let opened = self.open(target).await;
        if opened.is_ok() {
            owed.paid();
        }
        let dropped = match dropped {
            Ok(Ok(left)) => left,
            Ok(Err(e)) => return Err(format!("cannot drop the page cache: {e}")),
            Err(e) => return Err(format!("cannot drop the page cache: {e}")),
        };
        opened?;
        target
            .send(Method::POST, &format!("/{names}/_cache/clear"), None)
            .await
            .map_err(|e| format!("cannot clear the caches of {names}: {e}"))?;
        let took = began.elapsed();
        Ok(Chilled {
            took,
            dropped,
            resident: self.resident(),
        })
    }

    /// Opens the indices (three tries) and waits until their primaries answer.
    async fn open(&self, target: &Target) -> Result<(), String> {
        let names = &self.names;
        let long = target.with_timeout(REOPEN_TIMEOUT + Duration::from_secs(10));
        let mut last = String::new();
        for _ in 0..3 {
            match long
                .send(Method::POST, &format!("/{names}/_open"), None)
                .await
            {
                Ok(_) => {
                    last.clear();
                    break;
                }
                Err(e) => last = e.to_string(),
            }
        }
        if !last.is_empty() {
            return Err(format!(
                "cannot open {names} again after closing it ({last}); it is left closed: \
                 POST /{names}/_open"
            ));
        }
        let health = long
            .primaries_of(names, REOPEN_TIMEOUT)
            .await
            .map_err(|e| format!("{names} did not come back after it was opened: {e}"))?;
        if health.timed_out {
            return Err(format!(
                "{names} was not searchable {} s after it was opened again (status {})",
                REOPEN_TIMEOUT.as_secs(),
                health.status
            ));
        }
        Ok(())
    }

    /// Drops the page cache until the closed index's files have left it (the engine lets go
    /// of its mappings a moment after the close is acknowledged, and the kernel keeps what
    /// is mapped), for up to [`LET_GO`]; the bytes that stayed, when they can be read.
    fn drop_until_cold(&self) -> std::io::Result<Option<u64>> {
        let deadline = Instant::now() + LET_GO;
        loop {
            crate::os::drop_page_cache()?;
            let Some((resident, total)) = self.resident() else {
                // Nothing to watch: a moment for the engine to let go, then once more.
                std::thread::sleep(Duration::from_secs(1));
                crate::os::drop_page_cache()?;
                return Ok(None);
            };
            if resident * 100 <= total || Instant::now() >= deadline {
                return Ok(Some(resident));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Resident and total bytes of the index's files, when they were found here.
    fn resident(&self) -> Option<(u64, u64)> {
        if self.dirs.is_empty() {
            return None;
        }
        let mut sum = (0, 0);
        for dir in &self.dirs {
            let (r, t) = crate::os::resident_bytes(dir).ok()?;
            sum = (sum.0 + r, sum.1 + t);
        }
        Some(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_cluster_on_this_machine_can_be_made_cold() {
        let url = |s: &str| url::Url::parse(s).expect("url");
        for here in [
            "http://127.0.0.1:9200",
            "http://127.3.0.1:9200",
            "http://[::1]:9200",
            "http://LOCALHOST:9200",
        ] {
            assert!(is_this_machine(&url(here)), "{here}");
        }
        let far = url("https://elastic:s3cret@10.0.0.5:9200");
        let why = refused(&[url("http://127.0.0.1:9200"), far]).expect("refused");
        assert!(
            why.contains("10.0.0.5") && why.contains("not on this machine"),
            "{why}"
        );
        assert!(!why.contains("s3cret"), "{why}");
        assert!(!is_this_machine(&url("http://localhost.example.com:9200")));
    }

    #[test]
    fn the_summary_keeps_means_and_the_most_resident() {
        let mut s = ColdSummary {
            read_ahead_kb: Some(128),
            ..ColdSummary::default()
        };
        for (secs, resident) in [(1.0, 10), (3.0, 30)] {
            s.add(&Chilled {
                took: Duration::from_secs_f64(secs),
                dropped: Some(resident / 10),
                resident: Some((resident, 100)),
            });
        }
        assert_eq!(s.coverages, 2);
        assert!((s.chill_secs_mean - 2.0).abs() < 1e-9);
        assert_eq!(
            (s.index_bytes, s.resident_bytes_max, s.resident_bytes_mean),
            (Some(100), Some(30), Some(20))
        );
        assert_eq!(s.dropped_bytes_max, Some(3));
        assert_eq!(s.read_ahead_kb, Some(128));
        assert!(s
            .describe("coverage")
            .ends_with("reads 128 KB ahead of each miss"));
        // A merge after an opening shrinks the files: the resident figures stay parts of the
        // largest (the it test saw the most resident pass the last total, red at 1673874).
        s.add(&Chilled {
            took: Duration::from_secs(1),
            dropped: Some(1),
            resident: Some((5, 60)),
        });
        assert_eq!((s.index_bytes, s.resident_bytes_max), (Some(100), Some(30)));
    }
}
