//! What a track's definition says before anything runs: whether a file is a track at all,
//! which challenge runs (the default, or the one asked for). What of the challenge runs, and
//! where its documents are, is decided by `tasks::plan`.

use std::path::Path;

use super::model::Procedure;
use super::read::Definition;

/// Whether the file at `path` looks like a Rally track / benchmark workload rather than a
/// searchbench workload file.
pub fn is_track(path: &Path, text: &str) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "track.json"
        || name == "workload.json"
        || text.trim_start().starts_with("{%")
        || [
            "\"corpora\"",
            "\"schedule\"",
            "\"challenges\"",
            "\"test_procedures\"",
            "\"indices\"",
        ]
        .iter()
        .any(|k| text.contains(k))
}

/// The challenge `name`, or the default one.
pub fn procedure<'d>(d: &'d Definition, name: Option<&str>) -> Result<&'d Procedure, String> {
    let word = d.track.words().procedure();
    match name {
        Some(n) => d.procedures.iter().find(|p| p.name == n).ok_or_else(|| {
            format!(
                "{}: no {word} named {n:?}; it has {}",
                d.path.display(),
                names(d)
            )
        }),
        None => d.procedures.iter().find(|p| p.default).ok_or_else(|| {
            format!(
                "{}: no default {word}; name one of {} (--challenge)",
                d.path.display(),
                names(d)
            )
        }),
    }
}

fn names(d: &Definition) -> String {
    d.procedures
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
