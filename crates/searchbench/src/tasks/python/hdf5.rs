//! HDF5 vector data sets (opensearch-benchmark's default format, ann-benchmarks' layout: `train`
//! the vectors indexed, `test` the queries, `neighbors` and `distances` their ground truth),
//! converted once into the bigann files the driver reads ([`super::super::vector_ops`]), by
//! `h5py` in opensearch-benchmark's own environment (the library it reads them with), and kept
//! in the cache (a corpus file compressed as the tool downloads it, `.bz2` or `.gz`, unpacked
//! there once first). The vectors are written as float32 (the engine indexes float32; a uint8 set
//! stays uint8), the neighbours as their 32-bit ids with their distances, so a run on the HDF5
//! file sends exactly what a run on the same data in bigann sends.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;

use super::venv;
use crate::cancel::Cancel;

/// The converter, run as `python -c CONVERT SOURCE DATASET OUT_DIR`: one data set of the file
/// into `OUT_DIR/<dataset>.<fbin|u8bin|bin>`, written beside and renamed into place whole; it
/// prints `{"path", "rows", "width"}`.
const CONVERT: &str = r#"
import json, os, shutil, sys
import h5py
import numpy as np

src, name, out = sys.argv[1:4]
CHUNK = 65536

def fail(why):
    sys.stderr.write(f"{src}: {why}\n")
    sys.exit(2)

# What this process half writes is named for it: searchbench removes it if the conversion
# stops (an error, Ctrl-C, the time bound), and another process's is never touched.
PART = f".{os.getpid()}.part"

# The cache keeps room: what a file unpacks to, or a data set converts to, is bounded by the
# space free where it goes, less a GiB (a file of a few bytes can claim terabytes).
def free():
    return shutil.disk_usage(out).free - (1 << 30)

def room(need, what):
    if need > free():
        fail(f"{what} needs {need / 1e9:.1f} GB, and {out} has {max(free(), 0) / 1e9:.1f} GB to spare")

# A compressed file (a corpus as the tool downloads it) is unpacked once beside its
# conversions, which every data set of it reads.
os.makedirs(out, exist_ok=True)
opener = {".bz2": "bz2", ".gz": "gzip"}.get(os.path.splitext(src)[1])
if opener is not None:
    import importlib
    unpacked = os.path.join(out, "source.hdf5")
    if not os.path.exists(unpacked):
        spare, written = free(), 0
        with importlib.import_module(opener).open(src, "rb") as r, open(unpacked + PART, "wb") as w:
            while block := r.read(1 << 20):
                written += len(block)
                if written > spare:
                    fail(f"unpacks to more than the {max(spare, 0) / 1e9:.1f} GB {out} has to spare")
                w.write(block)
        os.replace(unpacked + PART, unpacked)
    src = unpacked

with h5py.File(src, "r") as f:
    if name not in f:
        fail(f"holds no data set {name!r} (it holds: {', '.join(f.keys()) or 'none'})")
    data = f[name]
    if len(data.shape) != 2:
        fail(f"its data set {name!r} is not a table of rows (its shape is {data.shape})")
    rows, width = data.shape
    if rows >= 2**32 or width >= 2**32 or width == 0:
        fail(f"its data set {name!r} has {rows} rows of {width} values: more than bigann holds")
    if name == "neighbors":
        ext, kind = "bin", "<i4"
        if not np.issubdtype(data.dtype, np.integer):
            fail(f"its neighbours are {data.dtype}, not ids")
    elif data.dtype == np.uint8:
        ext, kind = "u8bin", "u1"
    else:
        ext, kind = "fbin", "<f4"
    itemsize = np.dtype(kind).itemsize
    # The neighbours' file holds their distances too, as float32.
    per_value = itemsize + (4 if name == "neighbors" else 0)
    room(8 + rows * width * per_value, f"its data set {name!r} ({rows} rows of {width} values)")
    path = os.path.join(out, f"{name}.{ext}")
    part = path + PART
    with open(part, "wb") as w:
        w.write(np.array([rows, width], dtype="<u4").tobytes())
        for start in range(0, rows, CHUNK):
            w.write(np.ascontiguousarray(data[start:start + CHUNK], dtype=kind).tobytes())
        if name == "neighbors":
            distances = f["distances"] if "distances" in f else None
            if distances is not None and distances.shape != data.shape:
                distances = None
            for start in range(0, rows, CHUNK):
                n = min(CHUNK, rows - start)
                chunk = distances[start:start + n] if distances is not None else np.zeros((n, width))
                w.write(np.ascontiguousarray(chunk, dtype="<f4").tobytes())
    os.replace(part, path)
print(json.dumps({"path": path, "rows": int(rows), "width": int(width)}))
"#;

/// How long converting one data set may take.
const CONVERSION: Duration = Duration::from_secs(60 * 60);

/// One data set of an HDF5 file a task reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hdf5Set {
    /// The file, as found.
    pub source: PathBuf,
    /// As the track names it.
    pub shown: String,
    /// `train`, `test` or `neighbors`.
    pub dataset: String,
}

/// A data set converted: the bigann file that stands for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub source: PathBuf,
    pub dataset: String,
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum Hdf5Error {
    #[error("{0}")]
    Failed(String),
    #[error("interrupted while converting {0}")]
    Interrupted(String),
}

/// Where the conversion of `set` is kept: a folder named by the file's path, size and time of
/// change, so a file changed is converted again.
fn folder(set: &Hdf5Set) -> Result<PathBuf, Hdf5Error> {
    let meta = std::fs::metadata(&set.source)
        .map_err(|e| Hdf5Error::Failed(format!("{}: {e}", set.shown)))?;
    let changed = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let whole = std::path::absolute(&set.source).unwrap_or_else(|_| set.source.clone());
    let key = crate::rng::fnv1a([
        whole.as_os_str().as_encoded_bytes(),
        &meta.len().to_le_bytes(),
        &changed.to_le_bytes(),
    ]);
    Ok(crate::engine::paths::cache_root()
        .join("converted")
        .join(format!("{key:016x}")))
}

/// What `folder` already holds of `dataset`, converted before.
fn made(folder: &Path, dataset: &str) -> Option<PathBuf> {
    ["fbin", "u8bin", "bin"]
        .iter()
        .map(|ext| folder.join(format!("{dataset}.{ext}")))
        .find(|p| p.is_file())
}

/// Each of `sets` as a bigann file: converted before and kept, or converted now by
/// opensearch-benchmark's `h5py` (its environment made first when it is not there: `say`
/// tells). Ctrl-C (`cancel`) stops a conversion, which leaves nothing behind.
pub async fn convert(
    sets: &[Hdf5Set],
    cancel: &Cancel,
    say: &(dyn Fn(String) + Sync),
) -> Result<Vec<Converted>, Hdf5Error> {
    let mut done = Vec::new();
    let mut kept = None;
    for set in sets {
        let dir = folder(set)?;
        if let Some(path) = made(&dir, &set.dataset) {
            say(format!(
                "{} ({}): converted to bigann before, reused: {}",
                set.shown,
                set.dataset,
                path.display()
            ));
            done.push(Converted {
                source: set.source.clone(),
                dataset: set.dataset.clone(),
                path,
            });
            continue;
        }
        // The environment is made (or found) once, when a first set is to be converted.
        let python = match kept.take() {
            Some(python) => python,
            None => tokio::select! {
                made = venv::ensure(venv::OPENSEARCH_BENCHMARK, say) => made
                    .map_err(|e| Hdf5Error::Failed(format!("reading {}: {e}", set.shown)))?,
                () = cancel.cancelled() => return Err(Hdf5Error::Interrupted(set.shown.clone())),
            },
        };
        let began = std::time::Instant::now();
        let path = one(&python, set, &dir, cancel).await?;
        say(format!(
            "{} ({}): converted to bigann in {:.1} s: {}",
            set.shown,
            set.dataset,
            began.elapsed().as_secs_f64(),
            path.display()
        ));
        done.push(Converted {
            source: set.source.clone(),
            dataset: set.dataset.clone(),
            path,
        });
        kept = Some(python);
    }
    Ok(done)
}

/// Converts one data set into `dir`.
async fn one(
    python: &Path,
    set: &Hdf5Set,
    dir: &Path,
    cancel: &Cancel,
) -> Result<PathBuf, Hdf5Error> {
    let failed = |why: String| Hdf5Error::Failed(format!("{} ({}): {why}", set.shown, set.dataset));
    let child = tokio::process::Command::new(python)
        .arg("-c")
        .arg(CONVERT)
        .arg(&set.source)
        .arg(&set.dataset)
        .arg(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| failed(format!("starting {}: {e}", python.display())))?;
    let pid = child.id();
    let converted = converted(child, set, dir, cancel).await;
    if converted.is_err() {
        // Whatever stopped it, what it half wrote goes (gigabytes, perhaps).
        if let Some(pid) = pid {
            remove_parts(dir, pid).await;
        }
    }
    converted
}

/// The data set `child` converts into `dir`, once it has. Dropped (Ctrl-C, the time bound),
/// the child is killed.
async fn converted(
    child: tokio::process::Child,
    set: &Hdf5Set,
    dir: &Path,
    cancel: &Cancel,
) -> Result<PathBuf, Hdf5Error> {
    let failed = |why: String| Hdf5Error::Failed(format!("{} ({}): {why}", set.shown, set.dataset));
    let out = tokio::select! {
        out = tokio::time::timeout(CONVERSION, child.wait_with_output()) => match out {
            Ok(out) => out.map_err(|e| failed(e.to_string()))?,
            Err(_) => return Err(failed(format!("not converted within {CONVERSION:?}"))),
        },
        () = cancel.cancelled() => return Err(Hdf5Error::Interrupted(set.shown.clone())),
    };
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        // Its own refusal is its last line; a Python error's, the traceback's last.
        let why = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(failed(format!(
            "the conversion failed ({}): {why}",
            out.status
        )));
    }
    #[derive(Deserialize)]
    struct Written {
        path: PathBuf,
    }
    let written: Written = serde_json::from_slice(&out.stdout)
        .map_err(|e| failed(format!("the converter said what is not its answer: {e}")))?;
    if written.path.parent() != Some(dir) {
        return Err(failed(format!(
            "the converter wrote {} outside its folder",
            written.path.display()
        )));
    }
    Ok(written.path)
}

/// Removes what the converter `pid` half wrote in `dir` (its `*.<pid>.part` files), once it
/// has been stopped (killed on drop: waited for here, briefly, so it writes no more).
async fn remove_parts(dir: &Path, pid: u32) {
    for _ in 0..50 {
        if !crate::os::pid_alive(pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let suffix = format!(".{pid}.part");
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().ends_with(&suffix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    /// What a stopped converter half wrote is removed, and only its own: another process's
    /// conversion into the same folder goes on.
    #[test]
    fn a_stopped_conversion_leaves_nothing_of_its_own_behind() {
        let dir = tempfile::tempdir().unwrap();
        let gone = u32::MAX;
        for name in [
            format!("train.fbin.{gone}.part"),
            format!("source.hdf5.{gone}.part"),
            "train.fbin.12.part".into(),
            "test.fbin".into(),
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        crate::double::block_on(super::remove_parts(dir.path(), gone));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["test.fbin", "train.fbin.12.part"]);
    }
}
