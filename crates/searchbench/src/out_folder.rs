//! The one writer of what the tool leaves in a folder (a site, a report, an export): a file
//! is written whole or not at all (a temporary beside it, then renamed), and nothing planted
//! in the folder is followed. A link named like a page or a folder of pages is refused, not
//! written through: it would overwrite the file it points to, or put pages outside the
//! folder. Files in the folder that are not ours are left alone.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// Why a file could not be written, naming it.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    #[error("{}: {why}", path.display())]
    Refused { path: PathBuf, why: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutError + '_ {
    move |source| OutError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path`, the folder it names the user's choice (created when missing;
/// the file's own name is not followed if it is a link).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), OutError> {
    let Some(name) = path.file_name() else {
        return Err(OutError::Refused {
            path: path.to_path_buf(),
            why: "name the file to write".into(),
        });
    };
    let root = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    write_in(root, Path::new(name), bytes)
}

/// Writes `bytes` to `rel` under `root`: `root` is the user's choice (created when missing,
/// followed if a link); every folder of `rel` under it and the file itself must be a real
/// folder and no link, and `rel` stays under `root` (no `..`, not absolute).
pub fn write_in(root: &Path, rel: &Path, bytes: &[u8]) -> Result<(), OutError> {
    let path = root.join(rel);
    let refused = |why: &str| OutError::Refused {
        path: path.clone(),
        why: why.to_string(),
    };
    let parts: Vec<&std::ffi::OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(part) => Ok(part),
            _ => Err(refused("not a name under the output folder")),
        })
        .collect::<Result<_, _>>()?;
    let Some((name, folders)) = parts.split_last() else {
        return Err(refused("name the file to write"));
    };
    std::fs::create_dir_all(root).map_err(io(root))?;
    let mut dir = root.to_path_buf();
    for folder in folders {
        dir.push(folder);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(OutError::Refused {
                    path: dir,
                    why: "a link where the output's folder goes; not followed (remove it)".into(),
                })
            }
            Ok(_) => {
                return Err(OutError::Refused {
                    path: dir,
                    why: "a file where the output's folder goes".into(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::create_dir(&dir) {
                Ok(()) => {}
                // Made meanwhile by another writer: checked again on the next look.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let m = std::fs::symlink_metadata(&dir).map_err(io(&dir))?;
                    if !m.is_dir() {
                        return Err(OutError::Refused {
                            path: dir,
                            why: "not a folder".into(),
                        });
                    }
                }
                Err(e) => return Err(io(&dir)(e)),
            },
            Err(e) => return Err(io(&dir)(e)),
        }
    }
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refused(
                "a link where the output's file goes; not followed (remove it)",
            ))
        }
        Ok(m) if m.is_dir() => return Err(refused("a folder: name the file to write")),
        _ => {}
    }
    // The temporary is made new and never through a link: a name planted for it fails the
    // open, and the next name is tried.
    let shown = name.to_string_lossy();
    for attempt in 0..100u32 {
        let temporary = dir.join(format!(".{shown}.{}.{attempt}.partial", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temporary);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&temporary)(e)),
        };
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&temporary, &path));
        return match written {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&temporary);
                Err(io(&path)(e))
            }
        };
    }
    Err(refused("no free name for its temporary file beside it"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_planted_in_the_folder_are_refused_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let dir = tempfile::tempdir().unwrap();
        symlink(&victim, dir.path().join("index.html")).unwrap();
        symlink(outside.path(), dir.path().join("runs")).unwrap();

        let e = write_in(dir.path(), Path::new("index.html"), b"page").unwrap_err();
        assert!(
            e.to_string().contains("index.html") && e.to_string().contains("link"),
            "{e}"
        );
        let e = write_in(dir.path(), Path::new("runs/x.html"), b"page").unwrap_err();
        assert!(
            e.to_string().contains("runs") && e.to_string().contains("link"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!outside.path().join("x.html").exists());
        for bad in ["../x.html", "/tmp/x.html", ""] {
            assert!(
                write_in(dir.path(), Path::new(bad), b"page").is_err(),
                "{bad}"
            );
        }
        // No temporary is left beside a refused page.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }

    #[test]
    fn a_page_is_written_whole_its_folders_made_and_others_files_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        write_in(dir.path(), Path::new("runs/a.html"), b"one").unwrap();
        write_in(dir.path(), Path::new("runs/a.html"), b"two").unwrap();
        write_file(&dir.path().join("deep/er/b.html"), b"three").unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("runs/a.html")).unwrap(),
            b"two"
        );
        assert_eq!(
            std::fs::read(dir.path().join("deep/er/b.html")).unwrap(),
            b"three"
        );
        assert_eq!(
            std::fs::read(dir.path().join("notes.txt")).unwrap(),
            b"mine"
        );
        // A planted temporary name is not written through.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let planted = dir
            .path()
            .join(format!(".c.html.{}.0.partial", std::process::id()));
        symlink(&victim, &planted).unwrap();
        write_in(dir.path(), Path::new("c.html"), b"page").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read(dir.path().join("c.html")).unwrap(), b"page");
    }
}
