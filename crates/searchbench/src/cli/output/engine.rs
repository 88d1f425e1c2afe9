//! Terminal rendering of the engine commands: the catalogue, a started node, our nodes.

use super::{bytes, table};
use crate::engine::{self, StopOutcome};
use crate::session::engines::{self, ListRow, Started, Status, StatusRow, Stopped};

pub fn list(rows: &[ListRow], available: bool) {
    let mut table = table([
        "engine",
        "kind",
        "runs on JDK",
        "JDK here",
        "cached",
        "artifact",
    ]);
    for row in rows {
        table.add_row([
            if row.name == engine::DEFAULT_ENGINE {
                format!("{} (default)", row.name)
            } else {
                row.name.clone()
            },
            row.kind.to_string(),
            row.jdk_needed.clone(),
            match (&row.jdk, row.kind) {
                (Some(jdk), _) => jdk.clone(),
                (None, engine::Kind::Builtin) => "not needed".into(),
                (None, _) => "none: install one".into(),
            },
            if row.cached {
                "yes".into()
            } else {
                "no (fetched on first start)".into()
            },
            row.artifact.clone(),
        ]);
    }
    outln!("{table}");
    if !available {
        errln!(
            "{} shown; `searchbench engine list --available` lists every release Maven Central carries",
            rows.len()
        );
    } else {
        errln!(
            "{} releases; a release line such as elasticsearch-8.17.x names its newest release",
            rows.len()
        );
    }
}

pub fn cleaned(removed: &[std::path::PathBuf]) {
    if removed.is_empty() {
        outln!("nothing to clean: every record and folder belongs to a running node");
    }
    for path in removed {
        outln!("removed {}", path.display());
    }
}

pub fn started(started: &Started) {
    let provision = if started.fetched {
        format!("resolved in {:.1} s, ", started.provision_secs)
    } else {
        "cached, ".to_string()
    };
    let nodes = if started.pids.len() > 1 {
        format!("{} nodes, pids {:?}", started.pids.len(), started.pids)
    } else {
        format!("pid {}", started.pid)
    };
    errln!(
        "{} is up: {nodes}, JDK {}, {}healthy {:.1} s after launch, RSS {}",
        started.engine,
        started.jdk,
        provision,
        started.boot_secs,
        started.rss_bytes.map(bytes).unwrap_or_else(|| "?".into())
    );
    errln!(
        "stop it with: searchbench engine stop --port {}",
        started.http_port
    );
    if let Some(s) = &started.security {
        security(&started.url, s);
    }
    outln!("{}", started.url);
}

pub fn stopped(Stopped { record, outcome }: &Stopped) {
    let what = match outcome {
        StopOutcome::Stopped => "stopped",
        StopOutcome::Killed => "did not stop in time: killed",
        StopOutcome::Stale => "was no longer running: forgot its stale record",
    };
    outln!(
        "{} on port {} (pid {}) {what}",
        record.engine,
        record.http_port,
        record.pid
    );
}

pub fn none_stopped() {
    errln!("no node started by searchbench matches; nothing to stop");
}

/// Nodes of other owners that `engine stop --all` left running.
pub fn others_left(n: usize) {
    if n > 0 {
        errln!(
            "{n} node(s) another session started are left running (`engine status` shows              whose): --all stops yours; --all --any-owner stops every one"
        );
    }
}

/// What `engine status` set aside, on stderr: unreadable records, nodes that are gone.
pub fn set_aside(status: &Status) {
    for path in &status.unreadable {
        errln!(
            "warning: ignoring unreadable node record {}",
            path.display()
        );
    }
    for record in &status.gone {
        errln!(
            "{} on port {} (pid {}) is gone: forgot its stale record",
            record.engine,
            record.http_port,
            record.pid
        );
    }
}

pub fn status(rows: &[StatusRow]) {
    if rows.is_empty() {
        outln!("no nodes started by searchbench are running");
        return;
    }
    let mut table = table([
        "engine", "owner", "cluster", "node", "url", "pid", "health", "RSS", "log",
    ]);
    for row in rows {
        table.add_row([
            row.engine.clone(),
            if row.yours {
                format!("{} (you)", row.owner)
            } else {
                row.owner.clone()
            },
            row.cluster.clone(),
            row.node.clone(),
            row.url.clone(),
            row.pid.to_string(),
            row.health.clone(),
            row.rss_bytes.map(bytes).unwrap_or_else(|| "?".into()),
            row.log.display().to_string(),
        ]);
    }
    outln!("{table}");
}

/// How to reach a secured node, said once: only the passwords' hashes are on disk.
fn security(url: &str, s: &engines::StartedSecurity) {
    errln!(
        "secured: TLS with our own CA ({}) and the security plugin's users",
        s.ca_cert.display()
    );
    match &s.admin_password {
        Some(p) => errln!("  {} (all access), password {p}", s.admin_user),
        None => errln!(
            "  {} (all access), password from SEARCHBENCH_PASSWORD",
            s.admin_user
        ),
    }
    for (user, what, password) in [
        (s.reader_user, "read and search only", &s.reader_password),
        (
            s.publisher_user,
            "publish into searchbench-* only",
            &s.publisher_password,
        ),
    ] {
        match password {
            Some(p) => errln!("  {user} ({what}), password {p}"),
            None => errln!("  {user} ({what}), password as said at the node's first start"),
        }
    }
    if let Some(kept) = &s.kept {
        errln!(
            "kept in {}: the CA and the users last across stops; restart with the same \
             --data and the admin's password in SEARCHBENCH_PASSWORD",
            kept.display()
        );
    }
    errln!(
        "use it with: --url {url} --ca-cert {} --user {} (password in SEARCHBENCH_PASSWORD)",
        s.ca_cert.display(),
        s.admin_user
    );
}
