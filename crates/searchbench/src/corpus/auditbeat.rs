//! `auditbeat`: security audit events shaped like Auditbeat's (the per-index documents of the
//! many-shards and snapshots scenarios), about 700 bytes each.
//!
//! Three modules as Auditbeat ships them: `auditd` (logins, process starts, user changes),
//! `file_integrity` (files created, changed, deleted under watched paths) and `system`
//! (process and socket state). 50 hosts, 20 users, a handful of processes, skewed popularity.
//! `@timestamp` increases by a few hundred milliseconds per event from the start. Each
//! `stream` (an index number in the scenarios) is its own reproducible sequence: the same
//! seed and stream give the same bytes.

use super::text::{push_json_str, push_u64, TsCache};
use super::{CorpusError, DocSource, Item};
use crate::rng::Rng;

/// 2023-01-01T00:00:00Z, the default start (a fixed instant, never the clock).
pub const DEFAULT_START_MS: i64 = 1_672_531_200_000;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditbeatSpec {
    pub seed: u64,
    pub docs: u64,
    /// Epoch milliseconds of the first `@timestamp`.
    pub start_ms: i64,
    /// Which sequence of the seed (an index number): streams differ, each is reproducible.
    pub stream: u64,
}

impl AuditbeatSpec {
    pub fn new(seed: u64, docs: u64) -> Self {
        AuditbeatSpec {
            seed,
            docs,
            start_ms: DEFAULT_START_MS,
            stream: 0,
        }
    }
}

const HOSTS: u64 = 50;
const USERS: &[(&str, u32)] = &[
    ("root", 0),
    ("alice", 1001),
    ("bob", 1002),
    ("carol", 1003),
    ("dave", 1004),
    ("erin", 1005),
    ("frank", 1006),
    ("grace", 1007),
    ("heidi", 1008),
    ("ivan", 1009),
    ("judy", 1010),
    ("mallory", 1011),
    ("nagios", 998),
    ("postgres", 999),
    ("www-data", 33),
    ("syslog", 104),
    ("sshd", 110),
    ("deploy", 2001),
    ("backup", 34),
    ("oscar", 1012),
];
/// (name, executable).
const PROCESSES: &[(&str, &str)] = &[
    ("sshd", "/usr/sbin/sshd"),
    ("bash", "/usr/bin/bash"),
    ("sudo", "/usr/bin/sudo"),
    ("cron", "/usr/sbin/cron"),
    ("systemd", "/usr/lib/systemd/systemd"),
    ("python3", "/usr/bin/python3.10"),
    ("java", "/usr/lib/jvm/java-17/bin/java"),
    ("nginx", "/usr/sbin/nginx"),
    ("postgres", "/usr/lib/postgresql/14/bin/postgres"),
    ("apt-get", "/usr/bin/apt-get"),
];
const FILES: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/sudoers",
    "/etc/ssh/sshd_config",
    "/etc/hosts",
    "/etc/crontab",
    "/usr/bin/ls",
    "/usr/sbin/sshd",
    "/var/www/html/index.html",
    "/etc/nginx/nginx.conf",
    "/root/.ssh/authorized_keys",
];
const OS: &[(&str, &str, &str)] = &[
    ("debian", "ubuntu", "22.04"),
    ("debian", "debian", "12"),
    ("redhat", "rhel", "9.2"),
    ("redhat", "centos", "7.9"),
];

/// (module, dataset, action, category, type, message).
const EVENTS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "auditd",
        "auditd.log",
        "logged-in",
        "authentication",
        "start",
        "user logged in via ssh",
    ),
    (
        "auditd",
        "auditd.log",
        "executed",
        "process",
        "start",
        "process executed a program",
    ),
    (
        "auditd",
        "auditd.log",
        "changed-identity-of",
        "user",
        "change",
        "process changed its identity",
    ),
    (
        "auditd",
        "auditd.log",
        "acquired-credentials",
        "authentication",
        "info",
        "user acquired credentials",
    ),
    (
        "file_integrity",
        "file",
        "updated",
        "file",
        "change",
        "file content or metadata changed",
    ),
    (
        "file_integrity",
        "file",
        "created",
        "file",
        "creation",
        "file created",
    ),
    (
        "file_integrity",
        "file",
        "deleted",
        "file",
        "deletion",
        "file deleted",
    ),
    (
        "system",
        "process",
        "process_started",
        "process",
        "start",
        "process started",
    ),
    (
        "system",
        "socket",
        "socket_opened",
        "network",
        "connection",
        "socket opened",
    ),
];

/// The `auditbeat` generator.
#[derive(Debug)]
pub struct Auditbeat {
    spec: AuditbeatSpec,
    produced: u64,
    rng: Rng,
    ts: TsCache,
    now_ms: i64,
}

impl Auditbeat {
    pub fn new(spec: AuditbeatSpec) -> Result<Self, CorpusError> {
        if spec.docs == 0 {
            return Err(CorpusError::Invalid("--docs must be at least 1".into()));
        }
        Ok(Auditbeat {
            rng: Rng::new(spec.seed, 0xa0d1_7000 ^ spec.stream),
            now_ms: spec.start_ms,
            spec,
            produced: 0,
            ts: TsCache::default(),
        })
    }

    fn push(&mut self, out: &mut Vec<u8>) {
        let r = &mut self.rng;
        self.now_ms += r.range(1, 500) as i64;
        let (module, dataset, action, category, kind, message) = EVENTS[r.skewed(EVENTS.len())];
        let host = r.skewed(HOSTS as usize) as u64;
        let (user, uid) = USERS[r.skewed(USERS.len())];
        let (pname, exe) = PROCESSES[r.skewed(PROCESSES.len())];
        let (family, platform, version) = OS[(host % OS.len() as u64) as usize];
        let outcome = if r.chance(0.08) { "failure" } else { "success" };
        let pid = r.range(300, 65_000);
        out.extend_from_slice(b"{\"@timestamp\":\"");
        self.ts.push_iso_ms(out, self.now_ms);
        out.extend_from_slice(b"\",\"event\":{\"kind\":\"event\",\"module\":\"");
        out.extend_from_slice(module.as_bytes());
        out.extend_from_slice(b"\",\"dataset\":\"");
        out.extend_from_slice(dataset.as_bytes());
        out.extend_from_slice(b"\",\"action\":\"");
        out.extend_from_slice(action.as_bytes());
        out.extend_from_slice(b"\",\"category\":[\"");
        out.extend_from_slice(category.as_bytes());
        out.extend_from_slice(b"\"],\"type\":[\"");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\"],\"outcome\":\"");
        out.extend_from_slice(outcome.as_bytes());
        out.extend_from_slice(b"\"},\"host\":{\"name\":\"host-");
        push_u64(out, host);
        out.extend_from_slice(b"\",\"hostname\":\"host-");
        push_u64(out, host);
        out.extend_from_slice(b".prod.example.com\",\"architecture\":\"x86_64\",\"ip\":\"10.1.");
        push_u64(out, host / 256);
        out.push(b'.');
        push_u64(out, host % 256 + 10);
        out.extend_from_slice(b"\",\"os\":{\"family\":\"");
        out.extend_from_slice(family.as_bytes());
        out.extend_from_slice(b"\",\"platform\":\"");
        out.extend_from_slice(platform.as_bytes());
        out.extend_from_slice(b"\",\"version\":\"");
        out.extend_from_slice(version.as_bytes());
        out.extend_from_slice(b"\"}},\"user\":{\"name\":\"");
        out.extend_from_slice(user.as_bytes());
        out.extend_from_slice(b"\",\"id\":\"");
        push_u64(out, uid as u64);
        out.extend_from_slice(b"\"},\"process\":{\"pid\":");
        push_u64(out, pid);
        out.extend_from_slice(b",\"ppid\":");
        push_u64(out, r.range(1, 300));
        out.extend_from_slice(b",\"name\":\"");
        out.extend_from_slice(pname.as_bytes());
        out.extend_from_slice(b"\",\"executable\":\"");
        out.extend_from_slice(exe.as_bytes());
        out.extend_from_slice(b"\",\"working_directory\":\"/home/");
        out.extend_from_slice(user.as_bytes());
        out.extend_from_slice(b"\"}");
        if module == "file_integrity" {
            let path = FILES[r.skewed(FILES.len())];
            out.extend_from_slice(b",\"file\":{\"path\":");
            push_json_str(out, path.as_bytes());
            out.extend_from_slice(
                b",\"type\":\"file\",\"owner\":\"root\",\"mode\":\"0644\",\"size\":",
            );
            push_u64(out, r.range(16, 65_536));
            out.extend_from_slice(b",\"inode\":\"");
            push_u64(out, r.range(100_000, 9_999_999));
            out.extend_from_slice(b"\"}");
        }
        out.extend_from_slice(
            b",\"agent\":{\"type\":\"auditbeat\",\"version\":\"8.5.0\",\"id\":\"agent-",
        );
        push_u64(out, host);
        out.extend_from_slice(b"\"},\"ecs\":{\"version\":\"8.0.0\"},\"message\":\"");
        out.extend_from_slice(message.as_bytes());
        out.extend_from_slice(b"\"}");
    }
}

impl DocSource for Auditbeat {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.produced >= self.spec.docs {
            return Ok(None);
        }
        self.produced += 1;
        self.push(out);
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.spec.docs)
    }

    fn describe(&self) -> String {
        format!(
            "auditbeat (seed {}, stream {}, {} docs)",
            self.spec.seed, self.spec.stream, self.spec.docs
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(spec: AuditbeatSpec) -> Vec<u8> {
        let mut g = Auditbeat::new(spec).expect("valid");
        let mut out = Vec::new();
        while g.next_into(&mut out).expect("generates").is_some() {
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn same_seed_same_bytes_and_streams_differ() {
        let a = all(AuditbeatSpec::new(7, 500));
        assert_eq!(a, all(AuditbeatSpec::new(7, 500)));
        let mut other = AuditbeatSpec::new(7, 500);
        other.stream = 1;
        assert_ne!(a, all(other));
        assert_ne!(a, all(AuditbeatSpec::new(8, 500)));
    }

    #[test]
    fn every_document_is_json_with_the_audit_fields() {
        let bytes = all(AuditbeatSpec::new(1, 2_000));
        let mut modules = std::collections::BTreeSet::new();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).expect("json");
            for field in ["@timestamp", "event", "host", "user", "process", "agent"] {
                assert!(v.get(field).is_some(), "{field} missing in {v}");
            }
            let module = v["event"]["module"].as_str().expect("module").to_string();
            assert_eq!(v.get("file").is_some(), module == "file_integrity");
            modules.insert(module);
        }
        assert_eq!(modules.len(), 3);
    }
}
