//! Terminal rendering of the engine commands: the catalogue, a started node, our nodes.

use super::{bytes, table};
use crate::cli::engine::{ListRow, Started, StatusRow};
use crate::engine;

pub fn list(rows: &[ListRow]) {
    let mut table = table(["engine", "needs", "JDK found", "cached", "artifact"]);
    for row in rows {
        table.add_row([
            if row.name == engine::DEFAULT_ENGINE {
                format!("{} (default)", row.name)
            } else {
                row.name.to_string()
            },
            format!("JDK {}+", row.min_jdk),
            row.jdk
                .clone()
                .unwrap_or_else(|| "none: install one".into()),
            if row.cached {
                "yes".into()
            } else {
                "no (fetched on first start)".into()
            },
            row.artifact.to_string(),
        ]);
    }
    println!("{table}");
}

pub fn started(started: &Started<'_>, http_port: u16) {
    let provision = if started.fetched {
        format!("resolved in {:.1} s, ", started.provision_secs)
    } else {
        "cached, ".to_string()
    };
    eprintln!(
        "{} is up: pid {}, {}healthy {:.1} s after launch, RSS {}",
        started.engine,
        started.pid,
        provision,
        started.boot_secs,
        started.rss_bytes.map(bytes).unwrap_or_else(|| "?".into())
    );
    eprintln!("stop it with: searchbench engine stop --port {}", http_port);
    println!("{}", started.url);
}

pub fn status(rows: &[StatusRow]) {
    if rows.is_empty() {
        println!("no nodes started by searchbench are running");
        return;
    }
    let mut table = table(["engine", "url", "pid", "health", "RSS", "log"]);
    for row in rows {
        table.add_row([
            row.engine.clone(),
            row.url.clone(),
            row.pid.to_string(),
            row.health.clone(),
            row.rss_bytes.map(bytes).unwrap_or_else(|| "?".into()),
            row.log.display().to_string(),
        ]);
    }
    println!("{table}");
}
