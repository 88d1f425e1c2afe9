//! The cores an engine may use: the CPUs its processes may run on (affinity, which a cpuset
//! cgroup also narrows) and its cgroup's CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us`),
//! whichever is fewer. The machine's core count is not the engine's: a container, `taskset`
//! or a quota can hold it to less, and "2.0 cores of 4" reads very differently from "of 2".

use serde::{Deserialize, Serialize};

/// How many cores a set of processes may use, and what says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuLimit {
    pub cores: f64,
    /// `affinity 0-1`, `cgroup quota 150000/100000`.
    pub source: String,
}

/// The limit of the processes `pids` together (their affinities joined; the tightest quota
/// of their cgroups); `None` when none can be read (not Linux, gone processes).
pub fn of(pids: &[u32]) -> Option<CpuLimit> {
    let mut cpus = std::collections::BTreeSet::new();
    let mut lists = Vec::new();
    for pid in pids {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let list = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?
            .trim()
            .to_string();
        cpus.extend(cpu_list(&list)?);
        if !lists.contains(&list) {
            lists.push(list);
        }
    }
    if cpus.is_empty() {
        return None;
    }
    let mut limit = CpuLimit {
        cores: cpus.len() as f64,
        source: format!("affinity {}", lists.join(" + ")),
    };
    let quotas = pids.iter().filter_map(|&pid| cgroup_quota(pid));
    if let Some((cores, source)) = quotas.min_by(|a, b| a.0.total_cmp(&b.0)) {
        if cores < limit.cores {
            limit = CpuLimit { cores, source };
        }
    }
    Some(limit)
}

/// The CPUs of a list such as `0-1,4,6-7`.
pub fn cpu_list(list: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?);
                if a > b {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// A v2 `cpu.max` (`150000 100000`, or `max 100000` for none) in cores.
pub fn cpu_max(text: &str) -> Option<f64> {
    let mut it = text.split_whitespace();
    let (quota, period) = (it.next()?, it.next().unwrap_or("100000"));
    quota_cores(quota.parse().ok()?, period.parse().ok()?)
}

fn quota_cores(quota: i64, period: i64) -> Option<f64> {
    (quota > 0 && period > 0).then(|| quota as f64 / period as f64)
}

/// The CPU quota of `pid`'s cgroup and its parents (the tightest), in cores.
fn cgroup_quota(pid: u32) -> Option<(f64, String)> {
    let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    let mut best: Option<(f64, String)> = None;
    let mut consider = |cores: f64, source: String| {
        if best.as_ref().is_none_or(|(b, _)| cores < *b) {
            best = Some((cores, source));
        }
    };
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            // v2: `0::/path`, cpu.max in each folder up to the root.
            for dir in ancestors("/sys/fs/cgroup", path) {
                if let Some(c) = std::fs::read_to_string(format!("{dir}/cpu.max"))
                    .ok()
                    .and_then(|t| cpu_max(&t))
                {
                    consider(c, format!("cgroup cpu.max {c:.2}"));
                }
            }
        } else if controllers.split(',').any(|c| c == "cpu") {
            // v1: `N:cpu,cpuacct:/path`, under the cpu controller's mount.
            for root in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                for dir in ancestors(root, path) {
                    let read = |f: &str| -> Option<i64> {
                        std::fs::read_to_string(format!("{dir}/{f}"))
                            .ok()?
                            .trim()
                            .parse()
                            .ok()
                    };
                    if let Some(c) = read("cpu.cfs_quota_us")
                        .zip(read("cpu.cfs_period_us"))
                        .and_then(|(q, p)| quota_cores(q, p))
                    {
                        consider(c, format!("cgroup cpu quota {c:.2}"));
                    }
                }
            }
        }
    }
    best
}

/// `root/a/b`, `root/a`, `root`.
fn ancestors(root: &str, path: &str) -> Vec<String> {
    let mut out = vec![root.to_string()];
    let mut at = root.to_string();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        at = format!("{at}/{part}");
        out.push(at.clone());
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_and_quotas_read_as_the_kernel_writes_them() {
        assert_eq!(cpu_list("0-1,4,6-7"), Some(vec![0, 1, 4, 6, 7]));
        assert_eq!(cpu_list("3"), Some(vec![3]));
        assert_eq!(cpu_list("2-1"), None);
        assert_eq!(cpu_list("x"), None);
        assert_eq!(cpu_max("150000 100000\n"), Some(1.5));
        assert_eq!(cpu_max("max 100000"), None);
        assert_eq!(quota_cores(-1, 100000), None);
        assert_eq!(
            ancestors("/sys/fs/cgroup", "/a/b".trim_start_matches('/')),
            ["/sys/fs/cgroup/a/b", "/sys/fs/cgroup/a", "/sys/fs/cgroup"]
        );
    }

    #[test]
    fn our_own_limit_is_our_affinity_or_less() {
        let limit = of(&[std::process::id()]).expect("Linux /proc");
        let parallel = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        // std rounds a quota down; ours keeps its fraction.
        assert!(
            limit.cores >= parallel && limit.cores < parallel + 1.0,
            "{limit:?} vs {parallel}"
        );
        assert!(limit.source.starts_with("affinity") || limit.source.starts_with("cgroup"));
    }
}
