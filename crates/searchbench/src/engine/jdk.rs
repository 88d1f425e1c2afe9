//! Finding a JDK that can run a given engine.

use std::path::{Path, PathBuf};

use super::catalog::JdkRange;

/// A JDK found on this machine.
#[derive(Debug, Clone)]
pub struct Jdk {
    pub home: PathBuf,
    /// Feature release: 17, 21, 25, ...
    pub feature: u32,
    /// Full version from the `release` file, e.g. `17.0.15`.
    pub version: String,
    /// `IMPLEMENTOR` from the `release` file, e.g. `Eclipse Adoptium`; empty when unsaid.
    pub vendor: String,
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

/// Reads a JDK home's `release` file (`JAVA_VERSION="17.0.15"`, `IMPLEMENTOR="..."`).
fn read_jdk(home: &Path) -> Option<Jdk> {
    if !home.join("bin/java").is_file() || !home.join("bin/javac").is_file() {
        return None;
    }
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let field = |key: &str| {
        release
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
    };
    let version = field("JAVA_VERSION")?;
    let mut parts = version.split(['.', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    // Java 8 and older spell themselves 1.8.
    let feature = if first == 1 {
        parts.next()?.parse().ok()?
    } else {
        first
    };
    Some(Jdk {
        home: home.to_path_buf(),
        feature,
        version,
        vendor: field("IMPLEMENTOR").unwrap_or_default(),
    })
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
        if let Some(jdk) = read_jdk(&home) {
            jdks.push(jdk);
        }
    }
    jdks
}

/// The JDK to run an engine on: the newest feature release the engine admits (the closest
/// to what its own release bundled); the first found of that release.
pub fn pick(range: &JdkRange) -> Option<Jdk> {
    let jdks = discover();
    let best = jdks
        .iter()
        .filter(|j| range.admits(j.feature))
        .map(|j| j.feature)
        .max()?;
    jdks.into_iter().find(|j| j.feature == best)
}

/// The JDKs found, for messages: `JDK 17 at /usr/lib/jvm/...`.
pub fn describe_found() -> String {
    let found: Vec<String> = discover()
        .iter()
        .map(|j| format!("JDK {} at {}", j.feature, j.home.display()))
        .collect();
    if found.is_empty() {
        "none".into()
    } else {
        found.join(", ")
    }
}

/// The folders searched, for error messages.
pub fn searched_folders() -> String {
    match std::env::var_os("SEARCHBENCH_JDK_DIRS") {
        Some(dirs) => format!(" {}", dirs.to_string_lossy()),
        None => format!(" {}", JVM_FOLDERS.join(", ")),
    }
}
