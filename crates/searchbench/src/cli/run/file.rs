//! `run --workload-file FILE`: the user's own workload file, or a Rally track / benchmark
//! workload, read and run as `run` runs a built-in workload.

use serde_json::Value;

use super::{execute, query_progress, RunArgs};
use crate::cli::args::TrackArgs;
use crate::cli::{CliError, CliResult};
use crate::session::ingest::LoadSpec;
use crate::session::run::RunSpec;
use crate::session::workload_file;
use crate::workload::file::WorkloadFile;

/// Reads the workload file (or Rally track) of `args` and runs it.
pub async fn run_file(mut args: RunArgs) -> CliResult {
    let Some(path) = args.workload_file.clone() else {
        return Err(CliError::usage(anyhow::anyhow!(
            "--workload-file FILE is needed"
        )));
    };
    let text = crate::user_file::read_to_string(&path)
        .map_err(|e| CliError::usage(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
    if crate::workload::track::is_track(&path, &text) {
        return super::track::run_track(&path, &args).await;
    }
    let w = read(&path, &args.track)?;
    let split = args.part.part.filter(|p| !p.is_whole());
    if let (Some(part), crate::workload::file::Corpus::Files { .. }) = (split, &w.corpus) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--part {part}: {}: a run of a workload file of your own files is not split in \
             parts yet (one of a generator is); split it as a load, then a query run: \
             `ingest --file ... --part {part}` on each host, then `query --workload-file {} \
             --part {part}`",
            path.display(),
            path.display()
        )));
    }
    apply_defaults(&w, &mut args);
    let resolved = workload_file::job(&w, args.index.clone()).map_err(CliError::session)?;
    let mut job = resolved.job;
    let mut load = args.load.spec(&job.index, args.out.progress());
    workload_file::extras(&w, &mut load).map_err(CliError::session)?;
    args.setup
        .spec()
        .apply(&mut job, &mut load.extras)
        .map_err(CliError::session)?;
    let generator_queries = matches!(w.corpus, crate::workload::file::Corpus::Generator { .. });
    // A part loads its share of the generator's documents, then queries its share once the
    // index holds them all, as a built-in workload's part does.
    let whole_docs = job.source.len_hint();
    args.part.apply(&mut job, &mut load, args.out.quiet, None)?;
    let spec = RunSpec {
        workload_spec: resolved.workload_spec,
        queries: !args.no_query && (resolved.queries.is_some() || generator_queries),
        progress: query_progress(),
        user_queries: resolved.queries,
        split: super::run_part(split, whole_docs, &args),
        rewrites: None,
    };
    // The node is warmed with the file's own documents (or generator), as the run loads them.
    let warm = |load: &LoadSpec| {
        let w = w.clone();
        args.warm.spec({
            let load = load.clone();
            move |index, _docs| {
                let job = workload_file::job(&w, Some(index.to_string()))?.job;
                Ok((job, crate::session::ingest::slice_load(&load, index)))
            }
        })
    };
    execute(job, load, spec, &args, &warm).await
}

/// A searchbench workload file (a track runs through [`super::track`]). `--track-params` and
/// `--challenge` are for a track only.
fn read(path: &std::path::Path, track: &TrackArgs) -> Result<WorkloadFile, CliError> {
    let usage = |e: String| CliError::usage(anyhow::anyhow!(e));
    if let Some(given) = track.given() {
        return Err(usage(format!(
            "{}: {given} for a Rally track or an opensearch-benchmark workload, and this is \
             a searchbench workload file",
            path.display()
        )));
    }
    WorkloadFile::read(path).map_err(usage)
}

/// The file's `defaults` for the flags the command line left at their defaults. Their types
/// and ranges were checked when the file was read (`workload::file::check_defaults`).
fn apply_defaults(w: &WorkloadFile, args: &mut RunArgs) {
    let d = &w.defaults;
    let num = |k: &str| d.get(k).and_then(Value::as_u64);
    if let Some(n) = num("clients").filter(|_| args.load.clients == 2) {
        args.load.clients = n;
    }
    if let Some(n) = num("bulk_size").filter(|_| args.load.bulk_size == 1000) {
        args.load.bulk_size = n;
    }
    if args.load.refresh_interval.is_none() {
        args.load.refresh_interval = d
            .get("refresh_interval")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if args.load.replicas.is_none() {
        args.load.replicas = num("replicas").and_then(|n| u32::try_from(n).ok());
    }
    if let Some(w) = d
        .get("warmup")
        .and_then(Value::as_str)
        .and_then(|s| crate::cli::args::parse_duration(s).ok())
        .filter(|_| args.load.warmup == std::time::Duration::from_secs(10))
    {
        args.load.warmup = w;
    }
}
