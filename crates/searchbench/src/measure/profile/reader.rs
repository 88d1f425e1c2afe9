//! Reading recordings: the JDK's own `jdk.jfr.consumer` API, in a small Java class of ours
//! (`launcher/profile-reader/ProfileReader.java`) that sums the samples by distinct stack and
//! prints only those sums. Built once per JDK with that JDK's `javac` into the cache, run with
//! the node's own `java`, so it reads every recording format the node writes.
//!
//! Why this reader (BENCHMARKS.md, engine profile, measured on one 100 MB recording): the
//! JDK's `jfr print --json` took 24.5 s and wrote 5.8 GB of JSON; the `jfrs` crate 5.6 s,
//! and it trusts the lengths in the file (a damaged recording made it allocate 34 GB and
//! abort the process, 17 of 150 damaged copies); this class 0.9 s, and a damaged recording is
//! an error naming it.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::jfr::{self, Jdk, READ_TIMEOUT};
use super::samples::Samples;
use super::ProfileError;

/// The reader's source, as committed.
pub const SOURCE: &str = include_str!("../../../../../launcher/profile-reader/ProfileReader.java");
const CLASS: &str = "ProfileReader";

/// The samples of `files`, recorded by nodes running on `jdk`, from the instant `since` on
/// (every sample without it), read by the class built in `cache` (built there first if it is
/// not).
pub async fn read(
    jdk: &Jdk,
    cache: &Path,
    files: &[PathBuf],
    since: Option<SystemTime>,
) -> Result<Samples, ProfileError> {
    if files.is_empty() {
        return Ok(Samples::default());
    }
    let classes = built(jdk, cache).await?;
    let mut cmd = std::process::Command::new(jdk.tool("java"));
    // A short-lived reader: the client compiler and the serial collector start fastest
    // (0.87 s against 1.1 s with the defaults on 100 MB).
    cmd.args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp"])
        .arg(&classes)
        .arg(CLASS);
    if let Some(since) = since {
        let nanos = since.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        cmd.arg("--since").arg(nanos.to_string());
    }
    cmd.args(files);
    let text = jfr::run(cmd, "reading the profile", READ_TIMEOUT).await?;
    serde_json::from_str(&text).map_err(|e| ProfileError::Read {
        file: files[0].clone(),
        why: format!("the reader's output: {e}"),
    })
}

/// The folder of the reader's classes for `jdk`, built with its `javac` unless it is there.
/// Keyed by the source and the JDK, so a changed reader or another JDK builds its own; built
/// in a folder of its own and renamed into place, so two runs building at once both end up
/// with a whole one.
pub async fn built(jdk: &Jdk, cache: &Path) -> Result<PathBuf, ProfileError> {
    let dir = cache
        .join("profile-reader")
        .join(format!("{:016x}", key(jdk)));
    if dir.join(format!("{CLASS}.class")).is_file() {
        return Ok(dir);
    }
    let building = cache.join("profile-reader").join(format!(
        "building-{}-{:x}",
        std::process::id(),
        key(jdk)
    ));
    std::fs::create_dir_all(&building)?;
    let source = building.join(format!("{CLASS}.java"));
    std::fs::write(&source, SOURCE)?;
    let mut cmd = std::process::Command::new(jdk.tool("javac"));
    cmd.arg("-d").arg(&building).arg(&source);
    let built = jfr::run(cmd, "javac (the profile reader)", READ_TIMEOUT).await;
    if let Err(e) = built {
        let _ = std::fs::remove_dir_all(&building);
        return Err(e);
    }
    if std::fs::rename(&building, &dir).is_err() {
        // Another run put its build in place first: use that one.
        let _ = std::fs::remove_dir_all(&building);
    }
    if dir.join(format!("{CLASS}.class")).is_file() {
        Ok(dir)
    } else {
        Err(ProfileError::Tool {
            tool: "javac (the profile reader)".into(),
            why: format!("no {CLASS}.class in {}", dir.display()),
        })
    }
}

/// The source and the JDK's folder, hashed: stable across builds of the same source.
fn key(jdk: &Jdk) -> u64 {
    let bin = jdk.bin.to_string_lossy();
    crate::rng::fnv1a([SOURCE.as_bytes(), bin.as_bytes()])
}
