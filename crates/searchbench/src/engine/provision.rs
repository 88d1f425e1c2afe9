//! Resolving an engine's artifacts from Maven Central into the cache, once.
//!
//! The launcher sources in `launcher/` are embedded in the binary, written into the engine's
//! cache folder and built there with Maven; a marker file says the build is complete, so a
//! second start does no Maven work at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::catalog::EngineSpec;
use super::jdk::Jdk;
use super::paths;
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

/// A built launcher: the classpath that starts the engine.
#[derive(Debug, Clone)]
pub struct Provisioned {
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

/// Whether the engine's launcher is already built in the cache.
pub fn is_cached(spec: &EngineSpec) -> bool {
    paths::engine_dir(spec.name).join(READY_MARKER).is_file()
}

/// Builds the engine's launcher into the cache unless it is there already.
pub fn provision(spec: &EngineSpec, jdk: &Jdk) -> Result<Provisioned, EngineError> {
    let started = Instant::now();
    let dir = paths::engine_dir(spec.name);
    if is_cached(spec) {
        return Ok(Provisioned {
            dir,
            fetched: false,
            took: started.elapsed(),
        });
    }
    write_launcher(&dir)?;
    let mvn = which("mvn").ok_or(EngineError::NoMaven)?;
    let log_path = dir.join("maven.log");
    let log = std::fs::File::create(&log_path).map_err(|e| EngineError::io(&log_path, e))?;
    let log_err = log.try_clone().map_err(|e| EngineError::io(&log_path, e))?;
    // Engines built for JDK 21 need launcher classes of the same release.
    let release = spec.min_jdk.max(17);
    let status = Command::new(&mvn)
        .current_dir(&dir)
        .env("JAVA_HOME", &jdk.home)
        .args([
            "-B",
            "-q",
            "-P",
            super::catalog::launcher_profile(spec.product),
        ])
        .arg(format!("-Drunner.version={}", spec.runner_version()))
        .arg(format!("-Dlauncher.release={release}"))
        .arg("package")
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .status()
        .map_err(|e| EngineError::io(&mvn, e))?;
    if !status.success() {
        return Err(EngineError::Provision {
            engine: spec.name.to_string(),
            artifact: spec.artifact.to_string(),
            log_tail: super::process::tail(&log_path, 30),
        });
    }
    let marker = dir.join(READY_MARKER);
    std::fs::write(&marker, spec.artifact).map_err(|e| EngineError::io(&marker, e))?;
    Ok(Provisioned {
        dir,
        fetched: true,
        took: started.elapsed(),
    })
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
