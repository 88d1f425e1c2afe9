//! `searchbench engine list|start|stop|status`: the catalogue as rows, a started node's
//! summary, which of our nodes a stop matches, and the health of each node we run.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::cluster::{Target, TargetConfig};
use crate::engine::{self, EngineError, Node, NodeRecord, StopOutcome};

/// One release of the catalogue, as `engine list` shows it.
#[derive(Debug, Serialize)]
pub struct ListRow {
    pub name: String,
    pub product: String,
    pub version: String,
    pub kind: engine::Kind,
    pub artifact: String,
    /// JDK feature releases the engine runs on, e.g. `17–23`.
    pub jdk_needed: String,
    /// The JDK it would run on here, if any.
    pub jdk: Option<String>,
    pub cached: bool,
}

/// The releases to list: the cached ones and the default (every release with `available`),
/// those whose name contains `filter`.
pub fn catalogue(available: bool, filter: Option<&str>) -> Vec<ListRow> {
    let jdks = engine::jdk::discover();
    engine::all()
        .into_iter()
        .filter(|spec| available || spec.name == engine::DEFAULT_ENGINE || engine::is_cached(spec))
        .filter(|spec| filter.is_none_or(|f| spec.name.contains(f)))
        .map(|spec| ListRow {
            product: spec.product.to_string(),
            version: spec.version.clone(),
            kind: spec.kind,
            jdk_needed: if spec.kind == engine::Kind::Builtin {
                "none".to_string()
            } else {
                spec.jdk.to_string()
            },
            jdk: jdks
                .iter()
                .filter(|j| spec.kind != engine::Kind::Builtin && spec.jdk.admits(j.feature))
                .max_by_key(|j| j.feature)
                .map(|j| format!("{} ({})", j.feature, j.home.display())),
            cached: engine::is_cached(&spec),
            artifact: spec.artifact,
            name: spec.name,
        })
        .collect()
}

/// A node (or cluster) `engine start` brought up.
#[derive(Debug, Serialize)]
pub struct Started {
    pub engine: String,
    pub url: String,
    pub urls: Vec<String>,
    pub pid: u32,
    pub pids: Vec<u32>,
    /// The first node's HTTP port (what `engine stop --port` takes).
    pub http_port: u16,
    pub jdk: String,
    pub fetched: bool,
    pub provision_secs: f64,
    pub boot_secs: f64,
    pub rss_bytes: Option<u64>,
    /// A secured cluster: its CA and users. Present only on the start's own output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<StartedSecurity>,
}

/// How to reach a secured cluster we started, said once: the CA file, the users, and the
/// passwords made here (a password the caller chose is not repeated back, and a restarted
/// node that lasts made none).
#[derive(Debug, Serialize)]
pub struct StartedSecurity {
    pub ca_cert: std::path::PathBuf,
    pub admin_user: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_password: Option<String>,
    pub reader_user: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader_password: Option<String>,
    pub publisher_user: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher_password: Option<String>,
    /// Where a node that lasts keeps its CA and users (`--data DIR`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<std::path::PathBuf>,
}

impl Started {
    pub fn of(node: &Node) -> Started {
        let rss: Vec<u64> = node.records.iter().filter_map(|r| r.rss_bytes()).collect();
        Started {
            engine: node.spec.name.clone(),
            url: node.url().to_string(),
            urls: node.urls(),
            pid: node.pid(),
            pids: node.pids(),
            http_port: node.records.first().map_or(0, |r| r.http_port),
            jdk: node.jdk.as_ref().map_or_else(
                || "none (built into searchbench)".to_string(),
                |jdk| format!("{} {} ({})", jdk.vendor, jdk.version, jdk.home.display()),
            ),
            fetched: node.provisioned.as_ref().is_some_and(|p| p.fetched),
            provision_secs: node
                .provisioned
                .as_ref()
                .map_or(0.0, |p| p.took.as_secs_f64()),
            boot_secs: node.boot.as_secs_f64(),
            rss_bytes: (!rss.is_empty()).then(|| rss.iter().sum()),
            security: node.access.as_ref().map(|a| StartedSecurity {
                ca_cert: a.ca_cert.clone(),
                admin_user: engine::security::ADMIN,
                admin_password: a
                    .admin_generated
                    .then(|| a.admin_password.expose().to_string()),
                reader_user: engine::security::READER,
                reader_password: a.reader_password.as_ref().map(|p| p.expose().to_string()),
                publisher_user: engine::security::PUBLISHER,
                publisher_password: a
                    .publisher_password
                    .as_ref()
                    .map(|p| p.expose().to_string()),
                kept: a.kept.clone(),
            }),
        }
    }
}

/// One node `engine stop` dealt with.
#[derive(Debug)]
pub struct Stopped {
    pub record: NodeRecord,
    pub outcome: StopOutcome,
}

/// Which nodes `engine stop` with neither an engine nor a port stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owners {
    /// The caller's ([`crate::engine::process::owner`]): `--all`.
    Mine,
    /// Every node searchbench started on this machine: `--all --any-owner`.
    Any,
}

/// Stops our nodes of engine `name` and/or on `port` (a port names a node; stopping it stops
/// its whole cluster); none given: all of `owners`' (an engine or a port named is stopped
/// whoever started it). `each` hears every node as it is dealt with; returns how many
/// matched, and how many nodes of other owners were left running. An unknown engine name is
/// bad usage.
pub fn stop(
    name: Option<&str>,
    port: Option<u16>,
    owners: Owners,
    grace: Duration,
    mut each: impl FnMut(&Stopped),
) -> Result<(usize, usize), EngineError> {
    let everyone = name.is_some() || port.is_some() || owners == Owners::Any;
    let me = engine::process::owner();
    let name = match name {
        Some(name) => Some(engine::resolve(name)?.name),
        None => None,
    };
    let records = NodeRecord::all();
    let cluster_of_port: Option<String> = port.and_then(|p| {
        records
            .iter()
            .find(|r| r.http_port == p && !r.cluster.is_empty())
            .map(|r| r.cluster.clone())
    });
    let (chosen, others): (Vec<NodeRecord>, Vec<NodeRecord>) = records
        .into_iter()
        .filter(|r| name.as_ref().is_none_or(|n| &r.engine == n))
        .filter(|r| {
            port.is_none_or(|p| {
                r.http_port == p || cluster_of_port.as_ref().is_some_and(|c| &r.cluster == c)
            })
        })
        .partition(|r| everyone || r.owner == me);
    let mut n = 0;
    for record in chosen {
        let outcome = engine::stop_record(&record, grace);
        each(&Stopped { record, outcome });
        n += 1;
    }
    let left = others.iter().filter(|r| r.is_alive()).count();
    Ok((n, left))
}

/// One running node of ours, as `engine status` shows it.
#[derive(Debug, Serialize)]
pub struct StatusRow {
    pub engine: String,
    /// Who started it ([`crate::engine::process::owner`]); `yours` when the caller did.
    pub owner: String,
    pub yours: bool,
    pub cluster: String,
    pub node: String,
    pub url: String,
    pub pid: u32,
    pub health: String,
    pub rss_bytes: Option<u64>,
    pub data_dir: PathBuf,
    pub log: PathBuf,
}

/// Our nodes and their health, and what was set aside: unreadable records, and records of
/// nodes that are gone (those are forgotten).
#[derive(Debug, Default)]
pub struct Status {
    pub rows: Vec<StatusRow>,
    pub unreadable: Vec<PathBuf>,
    pub gone: Vec<NodeRecord>,
}

pub async fn status() -> Status {
    let (records, unreadable) = NodeRecord::scan();
    let me = engine::process::owner();
    let mut out = Status {
        unreadable,
        ..Status::default()
    };
    for record in records {
        if !record.is_alive() {
            record.remove();
            out.gone.push(record);
            continue;
        }
        let mut config = TargetConfig::local(&record.url);
        config.timeout = Duration::from_secs(3);
        // A secured node: its CA, and the admin's password when SEARCHBENCH_PASSWORD has it
        // (it is kept nowhere else).
        if let Some(ca) = &record.ca_cert {
            config.ca_cert = Some(ca.clone());
            if let Some(password) = std::env::var("SEARCHBENCH_PASSWORD")
                .ok()
                .filter(|p| !p.is_empty())
            {
                config.auth = crate::cluster::Auth::Basic {
                    user: engine::security::ADMIN.into(),
                    password: crate::cluster::Secret::new(password),
                };
            }
        }
        let health = match Target::new(&config) {
            Ok(t) => match t.health(None).await {
                Ok(h) => h.status,
                Err(crate::cluster::TargetError::Status { status: 401, .. }) => {
                    "secured: its health needs the admin's password (SEARCHBENCH_PASSWORD)".into()
                }
                Err(e) => format!("not answering ({e})"),
            },
            Err(e) => e.to_string(),
        };
        out.rows.push(StatusRow {
            engine: record.engine.clone(),
            yours: record.owner == me,
            owner: if record.owner.is_empty() {
                "(unknown)".into()
            } else {
                record.owner.clone()
            },
            cluster: record.cluster.clone(),
            node: record.node_name.clone(),
            url: record.url.clone(),
            pid: record.pid,
            health,
            rss_bytes: record.rss_bytes(),
            data_dir: record.data_dir.clone(),
            log: record.log.clone(),
        });
    }
    out
}
