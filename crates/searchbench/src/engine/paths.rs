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
