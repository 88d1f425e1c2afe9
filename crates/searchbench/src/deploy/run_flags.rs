//! The run a deployment starts on every host, checked and packed: its flags (a run, ingest or
//! query against `--url`, no secret, nothing the deployment sets per part) and the files it
//! reads, which travel with it (a workload or track file and, beside a track, its folder; a CA
//! certificate; a queries file), held to their folders.

use std::path::{Path, PathBuf};

use super::{DeployError, ShippedFile};

fn invalid(message: String) -> DeployError {
    DeployError::Invalid(message)
}

/// Flags whose value is a file the run reads, shipped with it (as is `--track-params FILE`:
/// [`TRACK_PARAMS`]). `--file`, a load's input, is not: a corpus goes on the hosts' disks
/// or a data claim, not into a manifest.
pub const FILE_FLAGS: [&str; 10] = [
    "--workload-file",
    "--ca-cert",
    "--queries",
    "--mapping",
    "--settings",
    "--index-body",
    "--template",
    "--pipeline",
    "--truth",
    "--baseline",
];

/// The flag whose value is a track's parameters, `k:v,…`, or a JSON file of them (shipped).
const TRACK_PARAMS: &str = "--track-params";

/// Whether `flag` with `value` names a file that travels with the run.
fn travels(flag: &str, value: Option<&str>) -> bool {
    FILE_FLAGS.contains(&flag) || (flag == TRACK_PARAMS && value.is_some_and(|v| !v.contains(':')))
}
/// Flags the deployment sets per part.
const SET_HERE: [&str; 5] = ["--part", "--group", "--start-at", "--store", "--no-store"];
/// Flags that carry a secret.
const SECRETS: [&str; 5] = [
    "--password",
    "--api-key",
    "--bearer",
    "--publish-password",
    "--publish-api-key",
];
/// Flags whose value is a URL, which must carry no credentials.
const URLS: [&str; 2] = ["--url", "--publish"];
/// Flags whose value names what it sets (`k:v,…`, `k=v`, `-Dk=v`): one named as a secret
/// is (a track's `es_password`, a node's `keystore.password`).
const NAMED: [&str; 4] = [TRACK_PARAMS, "--setting", "--jvm-opt", "--tag"];

/// The first name in a named flag's value that names a secret (`--track-params` given a file
/// names none here: its values are in the file).
fn secret_named(flag: &str, value: &str) -> Option<String> {
    if flag == TRACK_PARAMS && !value.contains(':') {
        return None;
    }
    value
        .split(',')
        .map(|pair| pair.split([':', '=']).next().unwrap_or(pair).trim())
        .find(|name| crate::store::secrets::names_a_secret(name))
        .map(str::to_string)
}

/// The flag a token is (`--flag` or `--flag=value`), and its inline value.
pub fn flag_of(token: &str) -> (&str, Option<&str>) {
    match token.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f, Some(v)),
        _ => (token, None),
    }
}

/// The run's flags checked: a run, ingest or query against --url, with no secret and nothing
/// the deployment sets (the CLI then parses them with the very parser the hosts use).
pub fn check_run(run: &[String]) -> Result<(), DeployError> {
    let what = run.first().map(String::as_str).unwrap_or("");
    if !matches!(what, "run" | "ingest" | "query") {
        return Err(invalid(format!(
            "after --, give the run: `run ...`, `ingest ...` or `query ...` (not {what:?})"
        )));
    }
    let mut url = false;
    let mut tokens = run.iter().peekable();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if SECRETS.contains(&flag) {
            return Err(invalid(format!(
                "{flag} would be written into every host's command line: put it in the \
                 Secret (Kubernetes) or the hosts' environment (SEARCHBENCH_{})",
                flag.trim_start_matches("--")
                    .replace('-', "_")
                    .to_uppercase()
            )));
        }
        if NAMED.contains(&flag) {
            let value = inline.or_else(|| tokens.peek().map(|v| v.as_str()));
            if let Some(name) = value.and_then(|v| secret_named(flag, v)) {
                return Err(invalid(format!(
                    "{flag}: {name:?} names a secret, and its value would be written into \
                     every host's command line: give it in a file on the hosts (a track's \
                     parameters: --track-params FILE) or their environment"
                )));
            }
        }
        if SET_HERE.contains(&flag) {
            return Err(invalid(format!(
                "{flag}: each part's --part, --group, --start-at and --store are set by the \
                 deployment (give --group and --start-at to `deploy`)"
            )));
        }
        if URLS.contains(&flag) {
            url |= flag == "--url";
            let value = inline.or_else(|| tokens.peek().map(|v| v.as_str()));
            // The client's own reading of user info: a password holding `/` (or `#`, `?`,
            // `,`) is user info to it, so it is here too.
            if value.is_some_and(crate::cluster::url_has_credentials) {
                return Err(invalid(format!(
                    "{flag} carries credentials (user:password@): give the URL without them \
                     and the password in the Secret or the hosts' environment"
                )));
            }
        }
    }
    if !url {
        return Err(invalid(
            "the parts share one cluster: give it with --url in the run's flags".into(),
        ));
    }
    Ok(())
}

/// The cluster the run names (`--url URL` or `--url=URL`), for the merge's count: redacted,
/// though [`check_run`] refused credentials already (a printed line is never a secret's
/// way out).
pub fn run_url(run: &[String]) -> String {
    let mut tokens = run.iter();
    while let Some(t) = tokens.next() {
        match flag_of(t) {
            ("--url", Some(v)) => return crate::cluster::redact_url(v),
            ("--url", None) => {
                return tokens
                    .next()
                    .map(|v| crate::cluster::redact_url(v))
                    .unwrap_or_default()
            }
            _ => {}
        }
    }
    "URL".into()
}

/// The files the run reads (a workload file, and beside a track every file of its folder;
/// a CA certificate; a queries file), and the run's flags with their paths under `into`.
pub fn ship_files(
    run: &[String],
    into: &str,
) -> Result<(Vec<String>, Vec<ShippedFile>), DeployError> {
    let mut args = Vec::new();
    let mut files: Vec<ShippedFile> = Vec::new();
    let mut shipped = 0;
    let mut tokens = run.iter().peekable();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if !travels(flag, inline.or_else(|| tokens.peek().map(|v| v.as_str()))) {
            args.push(t.clone());
            continue;
        }
        let Some(local) = inline
            .map(str::to_string)
            .or_else(|| tokens.next().cloned())
        else {
            args.push(t.clone());
            continue;
        };
        let local = PathBuf::from(local);
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| invalid(format!("cannot read {}: {e}", p.display())))
        };
        let bytes = read(&local)?;
        let name = local
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".into());
        // Each flag's files in a folder of their own (numbered in the order of the flags):
        // two files of one name never meet.
        let dir = shipped.to_string();
        shipped += 1;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let is_track = flag == "--workload-file" && crate::workload::track::is_track(&local, &text);
        if is_track {
            let folder = local.parent().unwrap_or(Path::new("."));
            let bound = crate::workload::folder::Folder::of(folder);
            for (rel, path) in folder_files(&bound, folder, 3)? {
                files.push(ShippedFile {
                    path: format!("{dir}/{rel}"),
                    bytes: read(&path)?,
                });
            }
            // An OSB workload reads the common_operations beside its folder: it travels
            // beside the track's folder too (held to its own folder, links resolved).
            let shared = crate::workload::folder::shared_beside(folder)
                .filter(|p| p.is_dir() && !p.is_symlink());
            if let Some(shared) = shared {
                let bound = crate::workload::folder::Folder::of(&shared);
                for (rel, path) in folder_files(&bound, &shared, 3)? {
                    files.push(ShippedFile {
                        path: format!("{}/{rel}", crate::workload::folder::SHARED),
                        bytes: read(&path)?,
                    });
                }
            }
        } else {
            files.push(ShippedFile {
                path: format!("{dir}/{name}"),
                bytes,
            });
        }
        args.push(flag.to_string());
        args.push(format!("{into}/{dir}/{name}"));
    }
    Ok((args, files))
}

/// The files under `folder` (hidden ones left out), at most `depth` folders down, by their
/// path relative to it. A link whose real location is out of the track's folder (`bound`) is
/// refused: its bytes would be copied into the manifest.
fn folder_files(
    bound: &crate::workload::folder::Folder,
    folder: &Path,
    depth: u32,
) -> Result<Vec<(String, PathBuf)>, DeployError> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(folder)
        .map_err(|e| invalid(format!("cannot read {}: {e}", folder.display())))?;
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        bound
            .check(&path, "a file of the track's folder")
            .map_err(|e| invalid(e.to_string()))?;
        if path.is_dir() && depth > 0 {
            for (rel, p) in folder_files(bound, &path, depth - 1)? {
                out.push((format!("{name}/{rel}"), p));
            }
        } else if path.is_file() {
            out.push((name, path));
        }
    }
    Ok(out)
}

/// Where a shipped file is on this machine.
pub fn local_path(run: &[String], f: &ShippedFile) -> String {
    // The file's folder number is the order of the file flags in the run.
    let (n, rel) = f.path.split_once('/').unwrap_or(("0", &f.path));
    // The common_operations beside a track's folder: found beside that folder here too.
    let shared = n == crate::workload::folder::SHARED;
    let n: usize = n.parse().unwrap_or(0);
    let mut seen = 0;
    let mut tokens = run.iter().peekable();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if !travels(flag, inline.or_else(|| tokens.peek().map(|v| v.as_str()))) {
            continue;
        }
        let value = inline
            .map(str::to_string)
            .or_else(|| tokens.next().cloned());
        if shared && flag == "--workload-file" {
            let local = PathBuf::from(value.unwrap_or_default());
            let folder = local.parent().unwrap_or(Path::new("."));
            return crate::workload::folder::shared_beside(folder)
                .map_or_else(|| rel.to_string(), |s| s.join(rel).display().to_string());
        }
        if !shared && seen == n {
            let local = PathBuf::from(value.unwrap_or_default());
            let folder = local.parent().unwrap_or(Path::new("."));
            return folder.join(rel).display().to_string();
        }
        seen += 1;
    }
    rel.to_string()
}
