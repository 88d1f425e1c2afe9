//! The files a workload names (corpus files, queries, index bodies, templates) stay inside its
//! folder: a workload is often someone else's, and `../../etc/passwd` or a link out of the
//! folder would read, and copy into the failure file, whatever the user can read.

use std::path::{Component, Path, PathBuf};

/// `rel` under `dir`, or why not: an absolute path, `..` that climbs out, or (when it exists)
/// a path whose real location is elsewhere through a symbolic link. `what` names the field
/// for the error (`corpus.files`).
pub fn inside(dir: &Path, rel: &str, what: &str) -> Result<PathBuf, String> {
    let shown = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let out = |how: &str| {
        format!(
            "{what}: {rel:?} {how} the workload's folder {}; keep the workload's files in it \
             (or give a file outside with --file)",
            shown.display()
        )
    };
    let mut depth = 0usize;
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir => return Err(out("leads out of")),
            Component::RootDir | Component::Prefix(_) => return Err(out("is not inside")),
        }
    }
    let path = dir.join(rel);
    // A link inside the folder may still point out of it: compare the real locations.
    if let (Ok(real), Ok(root)) = (path.canonicalize(), shown.canonicalize()) {
        if !real.starts_with(&root) {
            return Err(out("is a link out of"));
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("data")).unwrap();
        std::fs::write(d.join("data/a.ndjson"), "{}\n").unwrap();
        assert_eq!(
            inside(d, "data/a.ndjson", "corpus.files").unwrap(),
            d.join("data/a.ndjson")
        );
        assert!(inside(d, "data/../data/a.ndjson", "f").is_ok());
        assert!(inside(d, "not-yet.ndjson", "f").is_ok());
        for rel in ["../../../../etc/passwd", "data/../../x", "/etc/passwd"] {
            let e = inside(d, rel, "corpus.files").unwrap_err();
            assert!(e.starts_with("corpus.files: ") && e.contains(rel), "{e}");
        }
        std::os::unix::fs::symlink("/etc", d.join("etc")).unwrap();
        let e = inside(d, "etc/passwd", "corpus.files").unwrap_err();
        assert!(e.contains("is a link out of"), "{e}");
    }
}
