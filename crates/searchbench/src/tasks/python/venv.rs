//! The virtual environment the worker runs in: CPython's own `venv` with the tool's library
//! (`esrally`, `opensearch-benchmark`) at the version the tracks were checked against, installed from PyPI on first use
//! and kept in the cache (`python/esrally-2.13.0` under `$SEARCHBENCH_CACHE` or
//! `~/.cache/searchbench`). It is made in a folder of its own and renamed into place once
//! whole, so a run stopped while installing leaves no half-made environment that a later run
//! would take; two runs at once make it once (a lock beside it), the second waiting and then
//! taking it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::PythonError;

/// The library that loads a track as its tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Library {
    pub package: &'static str,
    pub version: &'static str,
}

/// Rally's, at the version the pinned tracks were rendered and checked with
/// (`tests/fixtures/tracks/PROVENANCE.md`).
pub const ESRALLY: Library = Library {
    package: "esrally",
    version: "2.13.0",
};

/// opensearch-benchmark's, at the version the pinned workloads were rendered and checked with.
pub const OPENSEARCH_BENCHMARK: Library = Library {
    package: "opensearch-benchmark",
    version: "2.4.0",
};

/// How long making the environment (`pip install`) may take.
const INSTALL: Duration = Duration::from_secs(15 * 60);

/// The Python searchbench makes environments with: `SEARCHBENCH_PYTHON`, else `python3`.
fn base_python() -> PathBuf {
    std::env::var_os("SEARCHBENCH_PYTHON")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// Where the environment of `lib` is kept.
pub fn folder(lib: Library) -> PathBuf {
    crate::engine::paths::cache_root()
        .join("python")
        .join(format!("{}-{}", lib.package, lib.version))
}

/// The Python of `lib`'s environment, made first when it is not there (`say` tells the user
/// it is being made: a minute, once).
pub async fn ensure(lib: Library, say: &(dyn Fn(String) + Sync)) -> Result<PathBuf, PythonError> {
    let dir = folder(lib);
    let python = dir.join("bin").join("python");
    if dir.join(READY).is_file() && python.exists() {
        return Ok(python);
    }
    // One run makes it; another waits, then takes what it made.
    let locked = dir.clone();
    let _lock = tokio::task::spawn_blocking(move || crate::os::FolderLock::take(&locked))
        .await
        .map_err(|e| PythonError::Setup {
            what: "waiting for the environment".into(),
            why: e.to_string(),
        })?
        .map_err(|(path, e)| PythonError::Setup {
            what: format!("locking {}", path.display()),
            why: e.to_string(),
        })?;
    if dir.join(READY).is_file() && python.exists() {
        return Ok(python);
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| PythonError::Setup {
        what: format!("making {}", parent.display()),
        why: e.to_string(),
    })?;
    // What a run stopped while making it left (we hold the lock: nobody is making it now).
    let prefix = format!(".{}-{}-making-", lib.package, lib.version);
    for left in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        if left.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(left.path());
        }
    }
    let making = parent.join(format!("{prefix}{}", std::process::id()));
    say(format!(
        "installing {}=={} from PyPI into {} (once; about a minute)",
        lib.package,
        lib.version,
        dir.display()
    ));
    let made = async {
        run(
            base_python().as_os_str(),
            &["-m", "venv", &making.display().to_string()],
        )
        .await?;
        let pip = making.join("bin").join("python");
        let wanted = format!("{}=={}", lib.package, lib.version);
        run(
            pip.as_os_str(),
            &[
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                &wanted,
            ],
        )
        .await?;
        std::fs::write(making.join(READY), wanted).map_err(|e| PythonError::Setup {
            what: format!("marking {}", making.display()),
            why: e.to_string(),
        })
    }
    .await;
    if let Err(e) = made {
        let _ = std::fs::remove_dir_all(&making);
        return Err(e);
    }
    // We hold the lock: a folder there now is no whole environment (one a stop left, or a copy
    // cut short), and ours takes its place.
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::rename(&making, &dir) {
        let _ = std::fs::remove_dir_all(&making);
        return Err(PythonError::Setup {
            what: format!("moving the environment into {}", dir.display()),
            why: e.to_string(),
        });
    }
    Ok(python)
}

/// The file a whole environment holds (what was installed).
const READY: &str = "searchbench-ready";

async fn run(program: &std::ffi::OsStr, args: &[&str]) -> Result<(), PythonError> {
    let shown = format!("{} {}", program.to_string_lossy(), args.join(" "));
    let mut command = tokio::process::Command::new(program);
    crate::os::without_secrets(command.as_std_mut());
    let child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| PythonError::Setup {
            what: shown.clone(),
            why: format!("{e} (searchbench runs a track's Python with CPython 3.8 or later: python3, or SEARCHBENCH_PYTHON)"),
        })?;
    let out = tokio::time::timeout(INSTALL, child.wait_with_output())
        .await
        .map_err(|_| PythonError::Setup {
            what: shown.clone(),
            why: format!("not done after {INSTALL:?}"),
        })?
        .map_err(|e| PythonError::Setup {
            what: shown.clone(),
            why: e.to_string(),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
    Err(PythonError::Setup {
        what: shown,
        why: format!(
            "{}: {}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ),
    })
}
