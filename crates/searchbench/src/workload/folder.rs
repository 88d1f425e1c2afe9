//! The files a workload or track names (corpus files, queries, index bodies, templates,
//! includes, `collect` parts, `glob` patterns, what `deploy` ships) stay inside its folder: a
//! workload is often someone else's, and `../../etc/passwd` or a link out of the folder would
//! read, send to the cluster and copy into the failure file whatever the user can read.
//!
//! One resolver judges every such name, by real locations (links resolved): [`Folder`]. A
//! track has one exception, the one opensearch-benchmark's workloads need: the folder named
//! `common_operations` beside the track's folder, which they share (`../common_operations`),
//! and nothing else above it.

use std::path::{Component, Path, PathBuf};

/// The rule a refused name broke, as the error says it.
pub const RULE: &str = "a workload's or track's files stay inside its folder, links resolved \
                        (a track may also read the folder common_operations beside its own, \
                        as opensearch-benchmark's workloads do, and nothing else)";

/// The name of the one folder outside a track's own that its files may be in.
pub const SHARED: &str = "common_operations";

/// A name that leads out of the folder: the name as given, where it leads, the folder.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what}: {name:?} {how} the folder {}; not read ({RULE})", folder.display())]
pub struct Outside {
    /// The field or function that named it (`corpus.files`, `glob`, `include`).
    pub what: String,
    pub name: String,
    /// "leads out of", "is a link out of", "is not inside" (an absolute path).
    pub how: &'static str,
    pub folder: PathBuf,
}

/// The folders a workload's or track's files may be in, by their real locations.
#[derive(Debug, Clone)]
pub struct Folder {
    /// The folder as the user named it, for messages.
    shown: PathBuf,
    /// Its real location.
    root: PathBuf,
    /// A track's `../common_operations`, as a real parent joined with the name: a
    /// `common_operations` that is itself a link out resolves elsewhere and is refused.
    shared: Option<PathBuf>,
    /// A folder the user gave (`--corpus-dir`): the links in it are theirs ([`Folder::given`]).
    trusts_links: bool,
}

impl Folder {
    /// The folder `dir` (a workload's, or a corpus folder the user gave): its files only.
    pub fn of(dir: &Path) -> Folder {
        let shown = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.to_path_buf()
        };
        let root = real_location(&shown);
        Folder {
            shown,
            root,
            shared: None,
            trusts_links: false,
        }
    }

    /// A folder the user gave for corpora (`--corpus-dir`): what they placed in it is theirs,
    /// links included (a corpus linked in from a larger disk). A name a track gives is held
    /// to it by its words: no `..` at all (through a link, `..` is the link's target's parent,
    /// not the folder), and an absolute one under the folder as the user named it.
    pub fn given(dir: &Path) -> Folder {
        Folder {
            trusts_links: true,
            ..Folder::of(dir)
        }
    }

    /// The folder of the track file `track`, with the `common_operations` beside it.
    pub fn of_track(track: &Path) -> Folder {
        let dir = track.parent().unwrap_or(Path::new("."));
        Folder {
            shared: shared_beside(dir),
            ..Folder::of(dir)
        }
    }

    /// The folder as the user named it.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// `name` (relative to `base`, a folder inside) resolved, or why it is refused: an
    /// absolute path, `..` that climbs out, or a link whose real location is out. A name that
    /// does not exist yet is judged by where it would be. `what` names the field.
    pub fn resolve(&self, base: &Path, name: &str, what: &str) -> Result<PathBuf, Outside> {
        let absolute = Path::new(name).has_root()
            || Path::new(name)
                .components()
                .any(|c| matches!(c, Component::Prefix(_)));
        let path = base.join(name);
        let judged = match absolute {
            true => Err(self.refusal(&path, what, "is not inside")),
            false => self.check(&path, what),
        };
        // Said by the name the track gave, not the path it was joined to.
        judged.map(|_| path).map_err(|e| Outside {
            name: name.into(),
            ..e
        })
    }

    /// `path` (as a file of the folder names it) when its real location is inside: that
    /// real location.
    pub fn check(&self, path: &Path, what: &str) -> Result<PathBuf, Outside> {
        let real = real_location(path);
        if self.holds(&real) || (self.trusts_links && named_under(&self.shown, path)) {
            return Ok(real);
        }
        let how = if lexically_inside(&self.shown, path) {
            "is a link out of"
        } else {
            "leads out of"
        };
        Err(self.refusal(path, what, how))
    }

    fn refusal(&self, path: &Path, what: &str, how: &'static str) -> Outside {
        Outside {
            what: what.into(),
            name: path.display().to_string(),
            how,
            folder: self.shown.clone(),
        }
    }

    fn holds(&self, real: &Path) -> bool {
        real.starts_with(&self.root) || self.shared.as_ref().is_some_and(|s| real.starts_with(s))
    }
}

/// The one folder outside a track's own that its files may be in: `common_operations` beside
/// the track's folder `dir`, by its real parent (a `common_operations` that is itself a link
/// out resolves elsewhere, and is not it).
pub fn shared_beside(dir: &Path) -> Option<PathBuf> {
    real_location(dir).parent().map(|p| p.join(SHARED))
}

/// `rel` under `dir`, or why not (the error as text): [`Folder::resolve`] for a workload
/// file's fields.
pub fn inside(dir: &Path, rel: &str, what: &str) -> Result<PathBuf, String> {
    Folder::of(dir)
        .resolve(dir, rel, what)
        .map_err(|e| e.to_string())
}

/// Whether `path` names a place under `dir` by its words alone: below it, no `..` anywhere.
fn named_under(dir: &Path, path: &Path) -> bool {
    let absolute = |p: &Path| match p.is_absolute() {
        true => p.to_path_buf(),
        false => std::env::current_dir().unwrap_or_default().join(p),
    };
    let (dir, path) = (absolute(dir), absolute(path));
    path.strip_prefix(&dir).is_ok_and(|rel| {
        rel.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    })
}

/// Whether `path`, read without following links, stays under `dir` (both as given).
fn lexically_inside(dir: &Path, path: &Path) -> bool {
    let rel = match path.strip_prefix(dir) {
        Ok(r) => r,
        Err(_) => return false,
    };
    let mut depth = 0usize;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return false,
        }
    }
    true
}

/// The real location of `path`: its longest existing ancestor with links resolved, then the
/// rest (which does not exist yet) read lexically.
pub fn real_location(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut existing = absolute.as_path();
    let mut rest: Vec<Component> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for c in rest.iter().rev() {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(n) => out.push(n),
                    _ => {}
                }
            }
            return out;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
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
        assert!(inside(d, "not/yet/../x.ndjson", "f").is_ok());
        for rel in [
            "../../../../etc/passwd",
            "data/../../x",
            "/etc/passwd",
            "nope/../../x",
        ] {
            let e = inside(d, rel, "corpus.files").unwrap_err();
            assert!(e.starts_with("corpus.files: ") && e.contains(rel), "{e}");
            assert!(e.contains(RULE), "{e}");
        }
        std::os::unix::fs::symlink("/etc", d.join("etc")).unwrap();
        let e = inside(d, "etc/passwd", "corpus.files").unwrap_err();
        assert!(e.contains("is a link out of"), "{e}");
        // A link to a file inside is the folder's own file.
        std::os::unix::fs::symlink(d.join("data/a.ndjson"), d.join("b.ndjson")).unwrap();
        assert!(inside(d, "b.ndjson", "f").is_ok());
    }

    /// A corpus folder the user gave keeps the links they placed in it (a corpus on a larger
    /// disk); a name a track gives is still held to it by its words, `..` through a link too.
    #[test]
    fn a_users_corpus_folder_trusts_its_links_and_holds_a_tracks_names_to_it() {
        let outer = tempfile::tempdir().unwrap();
        let o = outer.path();
        std::fs::create_dir_all(o.join("big/nyc")).unwrap();
        std::fs::create_dir_all(o.join("corpora")).unwrap();
        std::fs::write(o.join("big/nyc/documents.json"), "{}").unwrap();
        std::fs::write(o.join("big/secret.json"), "{}").unwrap();
        std::os::unix::fs::symlink(o.join("big/nyc"), o.join("corpora/nyc")).unwrap();
        let dir = o.join("corpora");
        let given = Folder::given(&dir);
        let own = given
            .resolve(&dir, "nyc", "corpus")
            .expect("the user's link");
        assert!(Folder::given(&own)
            .resolve(&own, "documents.json", "f")
            .is_ok());
        let absolute = dir.join("nyc/documents.json");
        assert!(given.check(&absolute, "f").is_ok());
        // Through the link, `..` is the target's parent: refused, as is climbing out.
        for name in ["nyc/../secret.json", "../big/secret.json", "/etc/passwd"] {
            assert!(given.resolve(&dir, name, "f").is_err(), "{name}");
        }
        // A folder the user did not give (a track's own) keeps refusing the link.
        assert_eq!(
            Folder::of(&dir).resolve(&dir, "nyc", "f").unwrap_err().how,
            "is a link out of"
        );
    }

    #[test]
    fn a_track_may_read_common_operations_beside_it_and_nothing_else_above() {
        let outer = tempfile::tempdir().unwrap();
        let o = outer.path();
        for d in ["w/nyc", "w/common_operations", "w/other", "elsewhere"] {
            std::fs::create_dir_all(o.join(d)).unwrap();
        }
        std::fs::write(o.join("w/common_operations/setup.json"), "{}").unwrap();
        std::fs::write(o.join("w/other/x.json"), "{}").unwrap();
        std::fs::write(o.join("w/secret.json"), "{}").unwrap();
        let f = Folder::of_track(&o.join("w/nyc/workload.json"));
        let base = o.join("w/nyc");
        assert!(f
            .resolve(&base, "../common_operations/setup.json", "collect")
            .is_ok());
        for name in ["../other/x.json", "../secret.json", "../../elsewhere"] {
            let e = f.resolve(&base, name, "collect").unwrap_err();
            assert_eq!(e.how, "leads out of", "{e}");
        }
        // A common_operations that is a link out is not the exception.
        std::fs::remove_dir_all(o.join("w/common_operations")).unwrap();
        std::os::unix::fs::symlink(o.join("elsewhere"), o.join("w/common_operations")).unwrap();
        std::fs::write(o.join("elsewhere/setup.json"), "{}").unwrap();
        assert!(f
            .resolve(&base, "../common_operations/setup.json", "collect")
            .is_err());
    }
}
