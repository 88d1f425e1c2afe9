//! Finding a JDK that can run a given engine.

use std::path::{Path, PathBuf};

/// A JDK found on this machine.
#[derive(Debug, Clone)]
pub struct Jdk {
    pub home: PathBuf,
    /// Feature release: 17, 21, 25, ...
    pub feature: u32,
}

impl Jdk {
    pub fn java(&self) -> PathBuf {
        self.home.join("bin").join("java")
    }
}

/// Folders holding JDKs, searched after `$JAVA_HOME`.
const JVM_FOLDERS: &[&str] = &[
    "/usr/lib/jvm",
    "/usr/local/lib/jvm",
    "/opt/java",
    "/opt",
    "/Library/Java/JavaVirtualMachines",
];

/// Where we look, in order: `$JAVA_HOME`, then the usual JVM folders (or, when set, the
/// colon-separated folders of `$SEARCHBENCH_JDK_DIRS` instead of those).
fn candidate_homes() -> Vec<PathBuf> {
    let mut homes = Vec::new();
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        homes.push(PathBuf::from(home));
    }
    let roots: Vec<PathBuf> = match std::env::var_os("SEARCHBENCH_JDK_DIRS") {
        Some(dirs) => std::env::split_paths(&dirs).collect(),
        None => JVM_FOLDERS.iter().map(PathBuf::from).collect(),
    };
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        found.sort();
        for path in found {
            // macOS bundles keep the home under Contents/Home.
            let mac = path.join("Contents/Home");
            homes.push(if mac.is_dir() { mac } else { path });
        }
    }
    homes
}

/// Reads the feature release from a JDK home's `release` file (`JAVA_VERSION="17.0.15"`).
fn feature_release(home: &Path) -> Option<u32> {
    if !home.join("bin/java").is_file() || !home.join("bin/javac").is_file() {
        return None;
    }
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let line = release.lines().find(|l| l.starts_with("JAVA_VERSION="))?;
    let version = line.trim_start_matches("JAVA_VERSION=").trim_matches('"');
    let mut parts = version.split(['.', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    // Java 8 and older spell themselves 1.8.
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

/// Every distinct JDK we can find, in search order.
pub fn discover() -> Vec<Jdk> {
    let mut seen = Vec::<PathBuf>::new();
    let mut jdks = Vec::new();
    for home in candidate_homes() {
        let canonical = std::fs::canonicalize(&home).unwrap_or_else(|_| home.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        if let Some(feature) = feature_release(&home) {
            jdks.push(Jdk { home, feature });
        }
    }
    jdks
}

/// The first JDK (in search order) whose feature release is at least `min`.
pub fn find_at_least(min: u32) -> Option<Jdk> {
    discover().into_iter().find(|j| j.feature >= min)
}

/// The folders searched, for error messages.
pub fn searched_folders() -> String {
    match std::env::var_os("SEARCHBENCH_JDK_DIRS") {
        Some(dirs) => format!(" {}", dirs.to_string_lossy()),
        None => format!(" {}", JVM_FOLDERS.join(", ")),
    }
}
