//! The command line, settings and folders of one node: through our launcher class (runner)
//! or the distribution's own `bin/` script, as an unprivileged user when we are root.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::catalog::{EngineSpec, Kind, Version};
use super::jdk::Jdk;
use super::process::LAUNCHER_CLASS;
use super::EngineError;

/// The user distributions run as when we are root (they refuse root): `nobody`.
pub const UNPRIVILEGED: (u32, u32) = (65534, 65534);

/// One node of a cluster we start.
#[derive(Debug, Clone)]
pub struct NodePlan {
    pub name: String,
    pub cluster: String,
    pub http_port: u16,
    pub transport_port: u16,
    /// Transport ports of every node; one node means single-node discovery.
    pub seeds: Vec<u16>,
    /// Names of every node: the first cluster-manager election is among them.
    pub masters: Vec<String>,
    pub data_dir: PathBuf,
    /// Snapshot repositories may live under this folder (`path.repo`).
    pub repo_dir: PathBuf,
    /// A distribution node's own folder: its config copy, logs and temp files.
    pub node_dir: PathBuf,
    pub heap: String,
    pub jvm_opts: Vec<String>,
    /// The user's `--setting key=value`, applied last.
    pub settings: Vec<(String, String)>,
    /// Dies with us: the node stops when our end of its stdin closes.
    pub attached: bool,
    /// The security plugin's files and settings, for a secured node.
    pub security: Option<super::security::NodeSecurity>,
    /// Where HTTP is served when not on 127.0.0.1 (`--bind`, a secured distribution only).
    pub http_host: Option<std::net::IpAddr>,
}

/// The node settings searchbench chooses, as (key, value, is a list).
fn settings(spec: &EngineSpec, plan: &NodePlan) -> Vec<(String, String, bool)> {
    let v = spec.parsed_version();
    let traits = spec.product.traits();
    let cluster_manager_words = traits
        .cluster_manager_since
        .is_some_and(|major| v.major() >= major);
    let legacy_role_flags = traits
        .legacy_role_flags_before
        .is_some_and(|(major, minor)| v < Version::of(&[major, minor]));
    let mut s: Vec<(String, String, bool)> = Vec::new();
    let mut put = |k: &str, v: String, list: bool| s.push((k.to_string(), v, list));
    put("cluster.name", plan.cluster.clone(), false);
    put("node.name", plan.name.clone(), false);
    put("path.repo", plan.repo_dir.display().to_string(), false);
    // A lab node on a shared disk: the disk watermarks would turn a nearly full disk into
    // unassigned shards or read-only indices halfway through a run, a failure of the machine
    // the benchmark would report as the engine's. `--setting` can turn them back on.
    put(
        "cluster.routing.allocation.disk.threshold_enabled",
        "false".into(),
        false,
    );
    if plan.seeds.len() <= 1 {
        put("discovery.type", "single-node".into(), false);
    } else {
        // The launcher defaults to single-node; `zen` is the cluster discovery of every
        // release we run (Elasticsearch 8 also calls it `multi-node`).
        if spec.kind == Kind::Runner {
            put("discovery.type", "zen".into(), false);
        }
        let seeds: Vec<String> = plan
            .seeds
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        put("discovery.seed_hosts", seeds.join(","), true);
        let key = if cluster_manager_words {
            "cluster.initial_cluster_manager_nodes"
        } else {
            "cluster.initial_master_nodes"
        };
        put(key, plan.masters.join(","), true);
    }
    match spec.kind {
        // The runner's defaults leave out the ingest role, and every pipeline fails without it.
        Kind::Runner if legacy_role_flags => {
            // `node.roles` came with 7.9, but the 7.9 runner still sets the legacy flags, which
            // cannot be mixed with it: one flag per role before 7.10.
            for role in ["master", "data", "ingest"] {
                put(&format!("node.{role}"), "true".into(), false);
            }
        }
        Kind::Runner => {
            let manager = if cluster_manager_words {
                "cluster_manager"
            } else {
                "master"
            };
            put("node.roles", format!("{manager},data,ingest"), true);
        }
        Kind::Distribution => {
            put("http.port", plan.http_port.to_string(), false);
            put("transport.port", plan.transport_port.to_string(), false);
            put("network.host", "127.0.0.1".into(), false);
            if let Some(host) = plan.http_host {
                put("http.host", host.to_string(), false);
            }
            put("path.data", plan.data_dir.display().to_string(), false);
            put(
                "path.logs",
                plan.node_dir.join("logs").display().to_string(),
                false,
            );
        }
        // No node settings: it is not launched as a JVM.
        Kind::Builtin => {}
    }
    s
}

/// Our settings less those the user gives with `--setting` (the user's value wins, and a
/// distribution refuses the same `-E` key twice).
fn ours_unless_given(
    ours: Vec<(String, String, bool)>,
    plan: &NodePlan,
) -> Vec<(String, String, bool)> {
    ours.into_iter()
        .filter(|(key, _, _)| !plan.settings.iter().any(|(given, _)| given == key))
        .collect()
}

/// A shell between us and a distribution node that stops the node when its stdin closes,
/// which happens however we exit. Its exit status is the node's. (A background job's stdin
/// is /dev/null unless redirected, hence the copy on fd 3.)
const WATCH_STDIN: &str = r#"exec 3<&0
"$@" </dev/null 3<&- &
node=$!
{ cat <&3 >/dev/null; kill -TERM "$node" 2>/dev/null; } &
exec 3<&-
wait "$node"
"#;

/// Builds the command that starts `plan`'s node. For a distribution this also prepares the
/// node's folder: a copy of the config (the node writes its keystore there) with the JVM's
/// log paths made absolute, owned by the user the node runs as.
pub fn command(
    spec: &EngineSpec,
    jdk: &Jdk,
    provisioned_dir: &Path,
    classpath: &str,
    plan: &NodePlan,
) -> Result<(Command, String), EngineError> {
    match spec.kind {
        Kind::Runner => Ok((runner(spec, jdk, classpath, plan), LAUNCHER_CLASS.into())),
        Kind::Distribution => {
            let home = provisioned_dir;
            prepare_node_dir(home, plan)?;
            let mark = home.display().to_string();
            Ok((distribution(spec, jdk, home, plan), mark))
        }
        Kind::Builtin => Err(EngineError::BadOption {
            what: spec.name.clone(),
            reason: "built into searchbench: `engine::builtin` starts it, not a JVM launch".into(),
        }),
    }
}

fn runner(spec: &EngineSpec, jdk: &Jdk, classpath: &str, plan: &NodePlan) -> Command {
    let mut command = Command::new(jdk.java());
    command
        .arg(format!("-Xms{}", plan.heap))
        .arg(format!("-Xmx{}", plan.heap))
        .arg("-XX:+UseG1GC")
        .arg("-Djava.awt.headless=true")
        .arg("-Dlog4j2.formatMsgNoLookups=true")
        .args(&plan.jvm_opts)
        .arg("-cp")
        .arg(classpath)
        .arg(LAUNCHER_CLASS)
        .args([
            "--http",
            &plan.http_port.to_string(),
            "--transport",
            &plan.transport_port.to_string(),
            "--cluster",
            &plan.cluster,
        ])
        .arg("--data")
        .arg(&plan.data_dir);
    let ours = settings(spec, plan);
    // The launcher's lone-node default; releases that predate the setting must not get it.
    if !ours.iter().any(|(key, _, _)| key == "node.roles") {
        command.arg("--remove").arg("node.roles");
    }
    for (key, value, list) in ours_unless_given(ours, plan) {
        let flag = if list { "--list" } else { "--setting" };
        command.arg(flag).arg(format!("{key}={value}"));
    }
    for (key, value) in &plan.settings {
        command.arg("--setting").arg(format!("{key}={value}"));
    }
    if plan.attached {
        command.arg("--watch-stdin");
    }
    command
}

fn distribution(spec: &EngineSpec, jdk: &Jdk, home: &Path, plan: &NodePlan) -> Command {
    let script = home
        .join("bin")
        .join(super::catalog::product_prefix(spec.product));
    let mut command = if plan.attached {
        let mut sh = Command::new("/bin/sh");
        sh.arg("-c")
            .arg(WATCH_STDIN)
            .arg("searchbench-node")
            .arg(&script);
        sh
    } else {
        Command::new(&script)
    };
    let mut ours = settings(spec, plan);
    // The x-pack security module, where a distribution carries it, would demand TLS and
    // passwords; these are local benchmark nodes on the loopback.
    if home.join("modules").join("x-pack-security").is_dir() {
        ours.push(("xpack.security.enabled".into(), "false".into(), false));
    }
    for (key, value, _) in ours_unless_given(ours, plan) {
        command.arg("-E").arg(format!("{key}={value}"));
    }
    for (key, value) in &plan.settings {
        command.arg("-E").arg(format!("{key}={value}"));
    }
    let mut opts = vec![format!("-Xms{}", plan.heap), format!("-Xmx{}", plan.heap)];
    opts.extend(plan.jvm_opts.iter().cloned());
    let config = plan.node_dir.join("config");
    let tmp = plan.node_dir.join("tmp");
    command
        .current_dir(&plan.node_dir)
        .env("JAVA_HOME", &jdk.home)
        .env("HOME", &plan.node_dir);
    // Every product's words, whichever product this is: a distribution reads its own, and a
    // product's scripts have been known to read another's (OpenSearch 1 began as a fork).
    for env in crate::cluster::PRODUCTS.iter().filter_map(|t| t.env) {
        command
            .env(format!("{env}_JAVA_HOME"), &jdk.home)
            .env(format!("{env}_PATH_CONF"), &config)
            .env(format!("{env}_JAVA_OPTS"), opts.join(" "))
            .env(format!("{env}_TMPDIR"), &tmp);
    }
    if crate::os::is_root() {
        // std drops the supplementary groups too when it changes the user of a root process.
        std::os::unix::process::CommandExt::uid(&mut command, UNPRIVILEGED.0);
        std::os::unix::process::CommandExt::gid(&mut command, UNPRIVILEGED.1);
    }
    command
}

/// The node's folder: `config/` (a copy), `logs/`, `tmp/`, and the data and repo folders,
/// all owned by the user the node runs as.
fn prepare_node_dir(home: &Path, plan: &NodePlan) -> Result<(), EngineError> {
    let dir = &plan.node_dir;
    let _ = std::fs::remove_dir_all(dir);
    let config = dir.join("config");
    copy_tree(&home.join("config"), &config).map_err(|e| EngineError::io(&config, e))?;
    for sub in [dir.join("logs"), dir.join("tmp")] {
        std::fs::create_dir_all(&sub).map_err(|e| EngineError::io(&sub, e))?;
    }
    for shared in [&plan.data_dir, &plan.repo_dir] {
        std::fs::create_dir_all(shared).map_err(|e| EngineError::io(shared, e))?;
    }
    if let Some(security) = &plan.security {
        super::security::write_node_files(&config, security)?;
    }
    let jvm_options = config.join("jvm.options");
    if let Ok(text) = std::fs::read_to_string(&jvm_options) {
        let text = absolute_jvm_paths(&text, dir, &plan.data_dir);
        std::fs::write(&jvm_options, text).map_err(|e| EngineError::io(&jvm_options, e))?;
    }
    if crate::os::is_root() {
        for path in [dir, &plan.data_dir, &plan.repo_dir] {
            chown_tree(path, UNPRIVILEGED).map_err(|e| EngineError::io(path, e))?;
        }
    }
    Ok(())
}

/// `jvm.options` names `logs/gc.log`, `logs/hs_err…` and `data` relative to the working
/// folder the product chooses (its home, which the node cannot write): make them ours.
fn absolute_jvm_paths(text: &str, node_dir: &Path, data_dir: &Path) -> String {
    let logs = node_dir.join("logs");
    text.lines()
        .map(|line| {
            line.replace("file=logs/", &format!("file={}/", logs.display()))
                .replace("ErrorFile=logs/", &format!("ErrorFile={}/", logs.display()))
                .replace(
                    "HeapDumpPath=data",
                    &format!("HeapDumpPath={}", data_dir.display()),
                )
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// `from` copied to `to`; a link is made again as a link, never copied through (as root, a
/// link in an archive to `/root/.ssh/id_rsa` would copy the key into a file the node, or
/// everyone, can read).
pub(super) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// `root` and what is below it handed to `uid:gid`, as root, children first, and only below
/// this user's own folders: while a folder is still this user's, no node can swap what it
/// holds for a link (a node running as `nobody` that swapped a folder it owned for a link to
/// `/etc` between the look and the walk had root hand it `/etc/shadow`). What is already
/// another's (a folder a node made, kept with `--data`) is left as it is, not walked.
fn chown_tree(root: &Path, ids: (u32, u32)) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // What a node that lasts keeps (its CA's key) stays ours: the node reads a copy.
    if root.file_name() == Some(std::ffi::OsStr::new(super::security::kept::FOLDER)) {
        return Ok(());
    }
    let meta = std::fs::symlink_metadata(root)?;
    // SAFETY: geteuid reads this process's effective user; it takes nothing.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Ok(());
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(root)? {
            chown_tree(&entry?.path(), ids)?;
        }
    }
    std::os::unix::fs::lchown(root, Some(ids.0), Some(ids.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Handed to a node's user children first and only below this user's own folders: a
    /// folder the node already owns is not walked (it could hold a link swapped in), a link
    /// is handed over as a link, never followed; a copy makes a link again as a link.
    #[test]
    fn a_tree_is_handed_over_without_walking_the_nodes_own_folders() {
        use std::os::unix::fs::MetadataExt;
        if !crate::os::is_root() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("node");
        std::fs::create_dir_all(d.join("config")).unwrap();
        std::fs::create_dir_all(d.join("theirs")).unwrap();
        std::fs::write(d.join("config/a.yml"), "a").unwrap();
        std::fs::write(d.join("theirs/root-file"), "x").unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "secret").unwrap();
        std::os::unix::fs::symlink(&outside, d.join("config/link")).unwrap();
        std::os::unix::fs::lchown(d.join("theirs"), Some(4242), Some(4242)).unwrap();
        chown_tree(&d, (4343, 4343)).unwrap();
        let owner = |p: &Path| std::fs::symlink_metadata(p).unwrap().uid();
        assert_eq!(owner(&d), 4343);
        assert_eq!(owner(&d.join("config/a.yml")), 4343);
        assert_eq!(owner(&d.join("config/link")), 4343);
        assert_eq!(owner(&outside), 0, "a link is not followed");
        assert_eq!(
            owner(&d.join("theirs")),
            4242,
            "another's folder is left as it is"
        );
        assert_eq!(owner(&d.join("theirs/root-file")), 0, "and not walked");
        let copy = dir.path().join("copy");
        copy_tree(&d.join("config"), &copy).unwrap();
        assert!(std::fs::symlink_metadata(copy.join("link"))
            .unwrap()
            .is_symlink());
    }

    #[test]
    fn jvm_log_paths_become_absolute() {
        let text = "-XX:HeapDumpPath=data\n-XX:ErrorFile=logs/hs_err_pid%p.log\n\
            -Xlog:gc*:file=logs/gc.log:utctime\n-Xss1m";
        let out = absolute_jvm_paths(text, Path::new("/n/1"), Path::new("/d/1"));
        assert!(out.contains("-XX:HeapDumpPath=/d/1\n"), "{out}");
        assert!(
            out.contains("ErrorFile=/n/1/logs/hs_err_pid%p.log"),
            "{out}"
        );
        assert!(out.contains("file=/n/1/logs/gc.log:utctime"), "{out}");
        assert!(out.contains("-Xss1m"));
    }

    fn lone_node(settings: Vec<(String, String)>) -> NodePlan {
        NodePlan {
            name: "n1".into(),
            cluster: "c".into(),
            http_port: 9200,
            transport_port: 9300,
            seeds: vec![9300],
            masters: vec!["n1".into()],
            data_dir: "/d".into(),
            repo_dir: "/r".into(),
            node_dir: "/n".into(),
            heap: "1g".into(),
            jvm_opts: Vec::new(),
            settings,
            attached: false,
            security: None,
            http_host: None,
        }
    }

    #[test]
    fn disk_watermarks_are_off_unless_the_user_says_otherwise() {
        let spec = crate::engine::catalog::find("opensearch-2.19.1").expect("in the snapshot");
        let key = "cluster.routing.allocation.disk.threshold_enabled";
        let ours = settings(&spec, &lone_node(Vec::new()));
        let kept = ours_unless_given(ours.clone(), &lone_node(Vec::new()));
        assert!(kept.iter().any(|(k, v, _)| k == key && v == "false"));
        let given = lone_node(vec![(key.into(), "true".into())]);
        let kept = ours_unless_given(ours, &given);
        assert!(!kept.iter().any(|(k, _, _)| k == key), "{kept:?}");
        assert!(kept.iter().any(|(k, _, _)| k == "node.name"));
    }
}
