//! Where searchbench keeps engines, node records and data on this machine.

use std::path::PathBuf;

/// `$XDG_CACHE_HOME/searchbench`, else `~/.cache/searchbench`, else a temp folder.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEARCHBENCH_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("searchbench");
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => PathBuf::from(home).join(".cache").join("searchbench"),
        None => std::env::temp_dir().join("searchbench-cache"),
    }
}

/// The built launcher (classes + runtime jars) of one engine.
pub fn engine_dir(engine: &str) -> PathBuf {
    cache_root().join("engines").join(engine)
}

/// Records of running nodes, one JSON file per HTTP port, plus their logs.
pub fn nodes_dir() -> PathBuf {
    cache_root().join("nodes")
}

/// Default data folders of nodes we start (deleted again when the node stops).
pub fn data_dir() -> PathBuf {
    cache_root().join("data")
}

/// Where distributions are unpacked and their nodes keep config, data and logs.
///
/// A distribution refuses to run as root, so as root we run it as an unprivileged user,
/// who must be able to reach these folders: the cache when every folder above it is open to
/// others, else `/var/tmp/searchbench` (root's home is usually closed). `$SEARCHBENCH_SHARED_DIR`
/// chooses the folder.
pub fn shared_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEARCHBENCH_SHARED_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let cache = cache_root();
    if !crate::os::is_root() || open_to_others(&cache) {
        cache
    } else {
        PathBuf::from("/var/tmp/searchbench")
    }
}

/// Whether every existing folder on the way to `path` lets others through (o+x).
pub(crate) fn open_to_others(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.ancestors()
        .filter_map(|p| std::fs::metadata(p).ok())
        .all(|m| m.permissions().mode() & 0o001 != 0)
}

/// An unpacked distribution of one engine.
pub fn distribution_dir(engine: &str) -> PathBuf {
    shared_root().join("engines").join(engine)
}

/// A distribution node's own folder (config copy, data, logs), by HTTP port.
pub fn node_dir(http_port: u16) -> PathBuf {
    shared_root().join("nodes").join(http_port.to_string())
}
