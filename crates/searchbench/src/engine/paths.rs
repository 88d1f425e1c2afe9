//! Where searchbench keeps engines, node records and data on this machine.

use std::path::{Path, PathBuf};

pub use crate::os::cache_root;
use crate::os::temp_cache;

/// The folder a root without a reachable cache shares with the unprivileged user its nodes
/// run as (see [`shared_root`]).
const VAR_TMP: &str = "/var/tmp/searchbench";

/// Checks the folders searchbench chose itself under a folder every user may write
/// (`/var/tmp/searchbench`, the temp folder's cache): another user could have made one first,
/// or put a link in its place, and then own what this user (root, for a distribution) runs
/// from it. Each is made here (this user's, 0755) or must already be this user's own folder,
/// not a link, that no one else may write. Folders the user named (`$SEARCHBENCH_CACHE`,
/// `$SEARCHBENCH_SHARED_DIR`, a home) are theirs to choose.
pub fn check_chosen() -> Result<(), String> {
    let cache = cache_root();
    if cache == temp_cache() {
        own_folder(&cache)?;
    }
    let shared = shared_root();
    if shared == Path::new(VAR_TMP) {
        own_folder(&shared)?;
    }
    Ok(())
}

/// `dir` made as this user's own folder (0755), or refused unless it is one already: a real
/// folder (no link), this user's, writable by no one else.
pub(crate) fn own_folder(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let refused = |why: String| {
        format!(
            "{}: {why}; searchbench keeps engines there and runs them: remove it, or name a \
             folder of your own with SEARCHBENCH_SHARED_DIR (and SEARCHBENCH_CACHE)",
            dir.display()
        )
    };
    match std::fs::DirBuilder::new().mode(0o755).create(dir) {
        // Whatever the umask: this user's to write, everyone's to read and enter.
        Ok(()) => {
            use std::os::unix::fs::PermissionsExt;
            let open = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(dir, open).map_err(|e| refused(e.to_string()))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(refused(e.to_string())),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| refused(e.to_string()))?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(refused("it is not a folder (a link, or a file)".into()));
    }
    if meta.uid() != uid {
        return Err(refused(format!(
            "it belongs to user {}, not to this one ({uid})",
            meta.uid()
        )));
    }
    // SAFETY: getegid has no preconditions and cannot fail.
    let gid = unsafe { libc::getegid() };
    let group_writes = meta.mode() & 0o020 != 0 && meta.gid() != gid;
    if meta.mode() & 0o002 != 0 || group_writes {
        return Err(refused(format!(
            "others may write in it (mode {:o})",
            meta.mode() & 0o7777
        )));
    }
    Ok(())
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
        PathBuf::from(VAR_TMP)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder searchbench chooses under a shared temp folder is made as this user's, or
    /// taken only when it already is this user's own, not a link, not writable by others.
    #[test]
    fn a_chosen_folder_is_this_users_own_or_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let made = tmp.path().join("made");
        own_folder(&made).unwrap();
        assert!(made.is_dir());
        own_folder(&made).unwrap();
        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = own_folder(&open).unwrap_err();
        assert!(e.contains("others may write in it (mode 777)"), "{e}");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&made, &link).unwrap();
        let e = own_folder(&link).unwrap_err();
        assert!(
            e.contains("not a folder") && e.contains("SEARCHBENCH_SHARED_DIR"),
            "{e}"
        );
        // Another user's (only root can make one here).
        if crate::os::is_root() {
            let theirs = tmp.path().join("theirs");
            std::fs::create_dir(&theirs).unwrap();
            std::os::unix::fs::chown(&theirs, Some(65534), None).unwrap();
            let e = own_folder(&theirs).unwrap_err();
            assert!(e.contains("belongs to user 65534"), "{e}");
        }
    }
}
