//! Resolving an engine's artifacts from Maven Central into the cache, once.
//!
//! The launcher sources in `launcher/` are embedded in the binary, written into the engine's
//! cache folder and built there with Maven; a marker file says the build is complete, so a
//! second start does no Maven work at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cancel::Cancel;

use super::catalog::{EngineSpec, Kind};
use super::jdk::Jdk;
use super::paths;
use super::plugins::Plugins;
use super::EngineError;

/// The launcher project, as committed under `launcher/`.
const LAUNCHER_FILES: &[(&str, &str)] = &[
    ("pom.xml", include_str!("../../../../launcher/pom.xml")),
    (
        "src/common/java/searchbench/launcher/Args.java",
        include_str!("../../../../launcher/src/common/java/searchbench/launcher/Args.java"),
    ),
    (
        "src/opensearch/java/searchbench/launcher/Main.java",
        include_str!("../../../../launcher/src/opensearch/java/searchbench/launcher/Main.java"),
    ),
    (
        "src/elasticsearch/java/searchbench/launcher/Main.java",
        include_str!("../../../../launcher/src/elasticsearch/java/searchbench/launcher/Main.java"),
    ),
];

const READY_MARKER: &str = ".ready";

/// A provisioned engine: a built launcher (runner) or an unpacked distribution.
#[derive(Debug, Clone)]
pub struct Provisioned {
    /// The launcher project (runner) or the distribution's home (`bin/`, `config/`, ...).
    pub dir: PathBuf,
    /// True when this call ran Maven (cold cache), false when the cache was reused.
    pub fetched: bool,
    pub took: Duration,
}

impl Provisioned {
    pub fn classpath(&self) -> String {
        let target = self.dir.join("target");
        format!(
            "{}:{}/*",
            target.join("classes").display(),
            target.join("lib").display()
        )
    }
}

/// Where an engine is provisioned.
fn cache_dir(spec: &EngineSpec) -> PathBuf {
    match spec.kind {
        Kind::Runner | Kind::Builtin => paths::engine_dir(&spec.name),
        Kind::Distribution => paths::distribution_dir(&spec.name),
    }
}

/// What the ready marker says: the artifact, and for runners which launcher sources built
/// it (a launcher from an older searchbench is rebuilt, not run with flags it lacks).
fn marker_text(spec: &EngineSpec) -> String {
    match spec.kind {
        Kind::Runner => {
            // Over the embedded sources: stable across builds of the same sources.
            let hash = crate::rng::fnv1a(
                LAUNCHER_FILES
                    .iter()
                    .flat_map(|(path, text)| [path.as_bytes(), text.as_bytes()]),
            );
            format!("{} launcher {hash:016x}", spec.artifact)
        }
        Kind::Distribution | Kind::Builtin => spec.artifact.clone(),
    }
}

/// Whether the engine is already provisioned in the cache (one built in always is).
pub fn is_cached(spec: &EngineSpec) -> bool {
    if spec.kind == Kind::Builtin {
        return true;
    }
    std::fs::read_to_string(cache_dir(spec).join(READY_MARKER))
        .is_ok_and(|text| text == marker_text(spec))
}

/// Provisions the engine into the cache unless it is there already: builds the launcher of
/// a runner, or fetches and unpacks a distribution.
pub fn provision(stop: &Cancel, spec: &EngineSpec, jdk: &Jdk) -> Result<Provisioned, EngineError> {
    let started = Instant::now();
    paths::check_chosen().map_err(EngineError::Unsafe)?;
    let dir = cache_dir(spec);
    let mut fetched = !is_cached(spec);
    // Another process may be provisioning the same engine (two cold starts at once): one at a
    // time, and whoever waited finds it done.
    let _lock = fetched.then(|| ProvisionLock::take(&dir)).transpose()?;
    fetched = fetched && !is_cached(spec);
    if fetched {
        match spec.kind {
            Kind::Runner => build_launcher(stop, spec, jdk, &dir)?,
            Kind::Distribution => unpack_distribution(stop, spec, jdk, &dir)?,
            // Nothing to fetch: `is_cached` is always true for it.
            Kind::Builtin => {}
        }
        let marker = dir.join(READY_MARKER);
        std::fs::write(&marker, marker_text(spec)).map_err(|e| EngineError::io(&marker, e))?;
    }
    let dir = match spec.kind {
        Kind::Runner | Kind::Builtin => dir,
        Kind::Distribution => distribution_home(&dir)?,
    };
    Ok(Provisioned {
        dir,
        fetched,
        took: started.elapsed(),
    })
}

/// Provisions `spec` (a distribution) with `plugins` installed, in its own folder beside the
/// plain one (which stays as it is): each plugin's zip fetched through Maven, then installed
/// by the distribution's own `opensearch-plugin`, as a user would.
pub fn provision_with(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    plugins: Plugins,
) -> Result<Provisioned, EngineError> {
    let started = Instant::now();
    let plain = provision(stop, spec, jdk)?;
    let mut zips_wanted = Vec::new();
    if plugins.knn {
        zips_wanted.push(super::plugins::knn_artifact(spec)?);
    }
    if plugins.security {
        zips_wanted.push(super::security::plugin_artifact(spec)?);
    }
    let dir = paths::distribution_dir(&format!("{}{}", spec.name, plugins.folder_suffix()));
    let marker = dir.join(READY_MARKER);
    let want = std::iter::once(spec.artifact.as_str())
        .chain(zips_wanted.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" + ");
    let ready = || std::fs::read_to_string(&marker).ok().as_deref() == Some(want.as_str());
    let _lock = (!ready()).then(|| ProvisionLock::take(&dir)).transpose()?;
    let fetched = !ready();
    let home_name = plain.dir.file_name().unwrap_or_default().to_os_string();
    let home = dir.join("home").join(&home_name);
    if fetched {
        let _ = std::fs::remove_dir_all(&dir);
        super::launch::copy_tree(&plain.dir, &home).map_err(|e| EngineError::io(&home, e))?;
        if plugins.knn && !home.join("modules").join("lang-painless").is_dir() {
            painless_module(stop, spec, jdk, &home, &dir)?;
        }
        for (i, plugin) in zips_wanted.iter().enumerate() {
            let zips = dir.join(format!("plugin-{i}"));
            let mut with_plugin = spec.clone();
            with_plugin.artifact = plugin.clone();
            maven(
                stop,
                &with_plugin,
                jdk,
                &dir,
                &[
                    "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy".into(),
                    format!("-Dartifact={plugin}"),
                    format!("-DoutputDirectory={}", zips.display()),
                ],
            )?;
            let zip = std::fs::read_dir(&zips)
                .map_err(|e| EngineError::io(&zips, e))?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "zip"))
                .ok_or_else(|| {
                    EngineError::io(&zips, std::io::Error::other("Maven fetched no plugin zip"))
                })?;
            install_plugin(stop, &with_plugin, jdk, &home, &zip, &dir)?;
        }
        open_tree(&home).map_err(|e| EngineError::io(&home, e))?;
        std::fs::write(&marker, &want).map_err(|e| EngineError::io(&marker, e))?;
    }
    Ok(Provisioned {
        dir: home,
        fetched: fetched || plain.fetched,
        took: started.elapsed(),
    })
}

/// Lays down `modules/lang-painless` in `home` from the jars Maven Central carries (the
/// k-NN plugin extends it; see [`super::plugins`]).
fn painless_module(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    home: &Path,
    dir: &Path,
) -> Result<(), EngineError> {
    let project = dir.join("lang-painless");
    std::fs::create_dir_all(&project).map_err(|e| EngineError::io(&project, e))?;
    let pom = project.join("pom.xml");
    std::fs::write(&pom, super::plugins::painless_pom(spec))
        .map_err(|e| EngineError::io(&pom, e))?;
    let module = home.join("modules").join("lang-painless");
    let mut painless = spec.clone();
    painless.artifact = format!("org.opensearch.plugin:lang-painless:{}", spec.version);
    maven(
        stop,
        &painless,
        jdk,
        &project,
        &[
            "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies".into(),
            "-DincludeScope=runtime".into(),
            format!("-DoutputDirectory={}", module.display()),
        ],
    )?;
    super::plugins::painless_module(spec, &module)
}

/// An exclusive lock on provisioning the engine in `dir` (see [`crate::os::FolderLock`]).
struct ProvisionLock;

impl ProvisionLock {
    fn take(dir: &Path) -> Result<crate::os::FolderLock, EngineError> {
        crate::os::FolderLock::take(dir).map_err(|(path, e)| EngineError::io(&path, e))
    }
}

/// `bin/opensearch-plugin install --batch file://ZIP` in `home` (`--batch` grants the
/// permissions the plugin asks for), its output in `dir/plugin.log`.
fn install_plugin(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    home: &Path,
    zip: &Path,
    dir: &Path,
) -> Result<(), EngineError> {
    let traits = spec.product.traits();
    let tool = home.join("bin").join(format!("{}-plugin", traits.word));
    let mut command = Command::new(&tool);
    command.current_dir(home).env("JAVA_HOME", &jdk.home);
    if let Some(env) = traits.env {
        command
            .env(format!("{env}_JAVA_HOME"), &jdk.home)
            .env(format!("{env}_PATH_CONF"), home.join("config"));
    }
    command
        .args(["install", "--batch"])
        .arg(format!("file://{}", zip.display()));
    run_logged(stop, spec, command, &dir.join("plugin.log"))
}

/// Runs Maven in `dir` with its output in `dir/maven.log`; a failure quotes the log's end.
fn maven(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    dir: &Path,
    args: &[String],
) -> Result<(), EngineError> {
    let mvn = which("mvn").ok_or(EngineError::NoMaven)?;
    std::fs::create_dir_all(dir).map_err(|e| EngineError::io(dir, e))?;
    // Maven looks for `.mvn` (JVM options, its own options) from its working folder up: an
    // empty one here, named as the project's base, stops it at this folder (a shared temp
    // folder above it is anyone's to write).
    let own = dir.join(".mvn");
    std::fs::create_dir_all(&own).map_err(|e| EngineError::io(&own, e))?;
    let mut command = Command::new(&mvn);
    command
        .current_dir(dir)
        .env("MAVEN_BASEDIR", dir)
        .env("JAVA_HOME", &jdk.home)
        .args(["-B", "-q"])
        .args(args);
    run_logged(stop, spec, command, &dir.join("maven.log"))
}

/// Runs a provisioning step without our secrets in its environment, its output in `log_path`;
/// a failure quotes the log's end.
fn run_logged(
    stop: &Cancel,
    spec: &EngineSpec,
    mut command: Command,
    log_path: &Path,
) -> Result<(), EngineError> {
    let log = std::fs::File::create(log_path).map_err(|e| EngineError::io(log_path, e))?;
    let log_err = log.try_clone().map_err(|e| EngineError::io(log_path, e))?;
    let program = PathBuf::from(command.get_program());
    // In this process's group: a Ctrl-C at the terminal reaches it too; a SIGTERM to this
    // process alone (a CI job's timeout) stops it below.
    let mut child = crate::os::without_secrets(&mut command)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(|e| EngineError::io(&program, e))?;
    let failed = |also: &str| EngineError::Provision {
        engine: spec.name.clone(),
        artifact: spec.artifact.clone(),
        log_tail: format!("{}{also}", super::process::tail(log_path, 30)),
    };
    // A mirror that never ends its answer would hold this step (and every other process
    // waiting for this engine's lock) for ever: the step has its bound.
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| EngineError::io(&program, e))? {
            break status;
        }
        if stop.is_cancelled() {
            stop_step(&mut child);
            return Err(EngineError::Interrupted(format!(
                "{} was being provisioned",
                spec.name
            )));
        }
        if began.elapsed() > PROVISION_STEP {
            stop_step(&mut child);
            return Err(failed(&format!(
                "\n(stopped: the step did not end within {} minutes)",
                PROVISION_STEP.as_secs() / 60
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !status.success() {
        return Err(failed(""));
    }
    Ok(())
}

/// Kills the provisioning step `child` (`mvn` execs its JVM: the pid is the JVM's) and reaps
/// it.
fn stop_step(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The longest one provisioning step (a download and unpack by Maven, a plugin's install) may
/// take: a distribution of a few hundred MB over a slow link takes minutes.
const PROVISION_STEP: Duration = Duration::from_secs(60 * 60);

fn build_launcher(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    dir: &Path,
) -> Result<(), EngineError> {
    write_launcher(dir)?;
    // Engines built for JDK 21 need launcher classes of the same release.
    let release = spec.jdk.min.max(17);
    maven(
        stop,
        spec,
        jdk,
        dir,
        &[
            "-P".into(),
            super::catalog::launcher_profile(spec.product).into(),
            format!("-Drunner.version={}", spec.artifact_version()),
            format!("-Dlauncher.release={release}"),
            "package".into(),
        ],
    )
}

/// Fetches the distribution's zip through Maven (so Maven's own cache and mirrors apply) and
/// unpacks it under `dir/home`, readable by everyone (nodes may run as another user).
fn unpack_distribution(
    stop: &Cancel,
    spec: &EngineSpec,
    jdk: &Jdk,
    dir: &Path,
) -> Result<(), EngineError> {
    let unpacked = dir.join("home");
    let _ = std::fs::remove_dir_all(&unpacked);
    // The plugin marks what it unpacked under `target/` and skips it next time: a try cut
    // short after the unpack (Ctrl-C, an error opening the tree) would leave `home` empty for
    // good. Every try unpacks afresh.
    let _ = std::fs::remove_dir_all(dir.join("target"));
    maven(
        stop,
        spec,
        jdk,
        dir,
        &[
            "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:unpack".into(),
            format!("-Dartifact={}", spec.artifact),
            format!("-DoutputDirectory={}", unpacked.display()),
        ],
    )?;
    let home = distribution_home(dir)?;
    // Unpacking may drop the mode bits: the scripts must run, and everything must be
    // readable by the user the node runs as.
    open_tree(&home).map_err(|e| EngineError::io(&home, e))
}

/// The one folder inside `dir/home` (`elasticsearch-8.15.0/`).
fn distribution_home(dir: &Path) -> Result<PathBuf, EngineError> {
    let unpacked = dir.join("home");
    let entries = std::fs::read_dir(&unpacked).map_err(|e| EngineError::io(&unpacked, e))?;
    entries
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("bin").is_dir())
        .ok_or_else(|| {
            EngineError::io(
                &unpacked,
                std::io::Error::other("the distribution has no bin/ folder"),
            )
        })
}

/// Makes a tree readable by all, its folders and `bin/` files executable by all.
fn open_tree(root: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode();
        let in_bin = path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "bin");
        let wanted = if meta.is_dir() || in_bin {
            mode | 0o755
        } else {
            mode | 0o644
        };
        if wanted != mode {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(wanted))?;
        }
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        }
    }
    Ok(())
}

fn write_launcher(dir: &Path) -> Result<(), EngineError> {
    for (rel, text) in LAUNCHER_FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EngineError::io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| EngineError::io(&path, e))?;
    }
    Ok(())
}

/// Finds an executable on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_provisioning_waits_for_the_first() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("engines").join("opensearch-2.19.1-dist");
        let first = ProvisionLock::take(&dir).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let other = dir.clone();
        let waiter = std::thread::spawn(move || {
            let _second = ProvisionLock::take(&other).unwrap();
            tx.send(Instant::now()).unwrap();
        });
        std::thread::sleep(Duration::from_millis(300));
        let released = Instant::now();
        drop(first);
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
        assert!(
            got >= released,
            "the second lock was taken while the first was held"
        );
        assert!(root
            .path()
            .join("engines")
            .join("opensearch-2.19.1-dist.lock")
            .exists());
    }
}
