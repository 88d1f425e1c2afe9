//! `searchbench ingest`: load a built-in workload's generator or the user's files into a
//! cluster (given by `--url`, or started for the run with `--engine`) and say where the time
//! went.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

use super::generate::GeneratorArgs;
use super::results::Recording;
use super::{exit, output, progress, CliError, CliResult, TargetArgs};
use crate::corpus::convert::{ConvertDates, DateFields};
use crate::corpus::{CorpusError, CsvReader, DocSource, NdjsonReader, TruthHandle};
use crate::engine::{self, Node, StartOptions};
use crate::ingest::{
    self, source::Chain, Controls, DriverConfig, IdMode, IngestError, IngestReport, LoadSettings,
    Plan,
};
use crate::store::Kind;
use crate::target::Target;
use crate::workload::{self, WorkloadSpec};

#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct IngestArgs {
    /// Built-in workload whose generator (or, with --file, whose index setup) to use:
    /// logs, cluster-metrics, transactions.
    pub workload: Option<String>,
    /// Input file(s) instead of the generator: NDJSON (one JSON object per line) or CSV with a
    /// header; `.gz` or gzip content is decompressed; `-` is stdin. Repeat for several.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// Format of the input files (by default from the extension: .csv[.gz] is CSV, else NDJSON).
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Documents to generate (workload generators).
    #[arg(long)]
    pub docs: Option<u64>,
    /// Generator seed: same seed, same documents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Index to load into (default: the workload's, or searchbench-<first file name>).
    #[arg(long)]
    pub index: Option<String>,
    /// Rewrite these date fields (dotted paths, e.g. @timestamp,event.ingested) from strings
    /// to epoch-millisecond numbers on the client, parsed exactly as the default `date` format
    /// does; a value it rejects sends the document to the failure file. See --help.
    #[arg(long, value_name = "FIELD,...", value_delimiter = ',')]
    pub convert_dates: Vec<String>,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub tuning: Tuning,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Auto,
    Ndjson,
    Csv,
}

const AFTER_HELP: &str = "\
Ids: --ids sequential (the default) gives each document the _id of its position in the corpus \
(0, 1, 2, ...): a request that is sent again because its answer was lost (timeout, reset) \
overwrites the same documents, so nothing is duplicated and the final count is exact. \
--ids auto lets the server pick ids: a little less work for the server, but such a retry can \
index the same documents twice, and the count check then fails.

Nothing is lost: every document is either acknowledged by the cluster or written to the \
failure file (--failures) with its status and reason; input lines that are not documents go \
there too, with file and line. At the end, read = indexed + failed is checked, and the index \
is refreshed and counted; the exit code is 3 when the numbers do not reconcile.

Dates: --convert-dates @timestamp,event.ingested rewrites those fields (dotted paths match \
nested objects and dotted keys alike; every element of an array) from date strings to \
epoch-millisecond numbers before sending, parsed with the isodate crate exactly as a `date` \
field with the default format (strict_date_optional_time||epoch_millis) would. A value it \
rejects makes the document a bad input line (failure file, with file:line and the reason). \
Numbers, null and missing fields are left alone (a number is already read through the \
mapping's format); so is an instant within 10 s of 1970-01-01, which as a 4-digit number the \
default format would read as a year. The fields need a `date` mapping (a workload's, or an \
index template): dynamic mapping would make the numbers `long` fields.

Safety: the index is created with `_meta.created_by: searchbench` in its mapping. An existing \
index without that mark is never deleted unless you pass --replace.";

/// Where to load: a cluster at --url, or one we start for the run.
#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Start this engine for the run (attached: it stops when we do). The default when no
    /// --url is given: opensearch-2.19.1.
    #[arg(long, conflicts_with = "urls")]
    pub engine: Option<String>,
    /// JVM heap of the engine we start.
    #[arg(long, default_value = "1g")]
    pub heap: String,
    /// Pid of a local engine given by --url, to report its CPU time.
    #[arg(long, hide = true)]
    pub engine_pid: Option<u32>,
}

/// How to load: batching, concurrency, retries, settings during the load, outputs.
#[derive(Debug, Clone, Args)]
pub struct Tuning {
    /// Documents per bulk request.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub bulk_size: u64,
    /// Also close a bulk request once its body reaches this size, e.g. 5mb (bytes, kb, mb).
    #[arg(long, value_parser = parse_size)]
    pub bulk_bytes: Option<usize>,
    /// Concurrent bulk requests.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub clients: u64,
    /// Compress request bodies with gzip.
    #[arg(long)]
    pub gzip: bool,
    /// Retries of a request (connect errors, timeouts, 429, 502/503/504) or of an item (429,
    /// 503), with exponential backoff and jitter.
    #[arg(long, default_value_t = 8)]
    pub max_retries: u32,
    /// Document ids: sequential (deterministic, retries idempotent) or auto (server ids; a
    /// retry after a lost answer can duplicate). See --help.
    #[arg(long, value_enum, default_value_t = Ids::Sequential)]
    pub ids: Ids,
    /// Failure file (NDJSON): refused documents and bad input lines, with reasons. Default:
    /// ./<index>-failures.ndjson, written only when something failed.
    #[arg(long, value_name = "FILE")]
    pub failures: Option<PathBuf>,
    /// Stop at the first malformed input line (what was read before it is still loaded).
    #[arg(long)]
    pub fail_fast: bool,
    /// Delete an existing index of that name even if searchbench did not create it.
    #[arg(long)]
    pub replace: bool,
    /// index.refresh_interval during the load (e.g. -1, 30s); restored afterwards.
    #[arg(long, allow_hyphen_values = true)]
    pub refresh_interval: Option<String>,
    /// index.number_of_replicas during the load; restored afterwards.
    #[arg(long)]
    pub replicas: Option<u32>,
    /// index.translog.durability during the load (request or async); restored afterwards.
    #[arg(long, value_parser = ["request", "async"])]
    pub translog_durability: Option<String>,
    /// Write the whole result (config, versions, machine, samples summary, timeline,
    /// attribution) as JSON to this file (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub save: super::results::SaveArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Ids {
    Sequential,
    Auto,
}

fn parse_size(s: &str) -> Result<usize, String> {
    let lower = s.trim().to_ascii_lowercase();
    let split = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (digits, unit) = lower.split_at(split);
    let mult: usize = match unit.trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("{s:?} is not a size; use e.g. 512kb or 5mb")),
    };
    match digits.parse::<usize>() {
        Ok(n) if n > 0 => n
            .checked_mul(mult)
            .ok_or_else(|| format!("{s:?} is too large")),
        _ => Err(format!("{s:?} is not a size; use e.g. 512kb or 5mb")),
    }
}

pub async fn run(args: IngestArgs) -> CliResult {
    let job = Job::from_args(&args)?;
    execute(job, &args.cluster, &args.tuning).await
}

/// What to load and where, resolved from the arguments.
pub(super) struct Job {
    pub source: Box<dyn DocSource>,
    pub index: String,
    pub index_body: serde_json::Value,
    /// The built-in workload, or `files` for the user's files.
    pub workload: String,
    /// The generator seed (none for files).
    pub seed: Option<u64>,
    /// Ground truth the generator computes while it runs (cluster-metrics).
    pub truth: Option<TruthHandle>,
}

impl Job {
    fn from_args(args: &IngestArgs) -> Result<Job, CliError> {
        let workload = match &args.workload {
            Some(name) => Some(workload::find(name).ok_or_else(|| {
                CliError::usage(anyhow::anyhow!(
                    "unknown workload {name:?}; built-in workloads: {}",
                    workload::names().join(", ")
                ))
            })?),
            None => None,
        };
        let convert = if args.convert_dates.is_empty() {
            None
        } else {
            Some(DateFields::parse(&args.convert_dates).map_err(corpus_usage)?)
        };
        if !args.files.is_empty() {
            if args.docs.is_some() {
                return Err(CliError::usage(anyhow::anyhow!(
                    "--docs applies to generators, not to --file input"
                )));
            }
            let mut sources: Vec<Box<dyn DocSource>> = Vec::new();
            for path in &args.files {
                let csv = match args.format {
                    Format::Csv => true,
                    Format::Ndjson => false,
                    Format::Auto => {
                        let p = path.to_ascii_lowercase();
                        p.ends_with(".csv") || p.ends_with(".csv.gz")
                    }
                };
                let source: Box<dyn DocSource> = match (csv, &convert) {
                    (true, None) => Box::new(CsvReader::open(path).map_err(corpus_usage)?),
                    (false, None) => Box::new(NdjsonReader::open(path).map_err(corpus_usage)?),
                    (true, Some(fields)) => Box::new(
                        ConvertDates::csv_file(path, fields.clone()).map_err(corpus_usage)?,
                    ),
                    (false, Some(fields)) => Box::new(
                        ConvertDates::ndjson_file(path, fields.clone()).map_err(corpus_usage)?,
                    ),
                };
                sources.push(source);
            }
            let index = match (&args.index, workload) {
                (Some(i), _) => i.clone(),
                (None, Some(w)) => w.default_index().to_string(),
                (None, None) => index_from_path(&args.files[0]),
            };
            let index_body = workload
                .map(|w| w.index_body())
                .unwrap_or_else(|| serde_json::json!({}));
            let source: Box<dyn DocSource> = if sources.len() == 1 {
                sources.remove(0)
            } else {
                Box::new(Chain::new(sources))
            };
            return Ok(Job {
                source,
                index,
                index_body,
                workload: workload.map_or("files", |w| w.name).to_string(),
                seed: None,
                truth: None,
            });
        }
        let Some(w) = workload else {
            return Err(CliError::usage(anyhow::anyhow!(
                "what to load? name a workload ({}) or give --file",
                workload::names().join(", ")
            )));
        };
        let spec = args.generator.spec(args.seed, args.docs, false);
        let mut job = Job::generated(w.name, &spec, args.index.clone())?;
        if let Some(fields) = convert {
            job.source = Box::new(ConvertDates::generated(job.source, fields));
        }
        Ok(job)
    }

    pub(super) fn generated(
        name: &str,
        spec: &WorkloadSpec,
        index: Option<String>,
    ) -> Result<Job, CliError> {
        let w = workload::find(name).ok_or_else(|| {
            CliError::usage(anyhow::anyhow!(
                "unknown workload {name:?}; built-in workloads: {}",
                workload::names().join(", ")
            ))
        })?;
        let opened = w.open(spec).map_err(corpus_usage)?;
        Ok(Job {
            source: opened.source,
            index: index.unwrap_or_else(|| w.default_index().to_string()),
            index_body: w.index_body(),
            workload: w.name.to_string(),
            seed: Some(spec.seed),
            truth: opened.truth,
        })
    }
}

fn corpus_usage(e: CorpusError) -> CliError {
    match e {
        CorpusError::Invalid(_) => CliError::usage(e),
        CorpusError::Io { .. } => CliError::from(e),
    }
}

/// `searchbench-<file stem>`, lowercased, with characters an index name cannot have replaced.
fn index_from_path(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("stdin");
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".ndjson")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json")
        .trim_end_matches(".csv");
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() || clean == "-" {
        "searchbench-stdin".into()
    } else {
        format!("searchbench-{clean}")
    }
}

/// Connects or provisions, runs the ingest, prints the report, stops what we started, and
/// keeps the result in the store.
pub(super) async fn execute(job: Job, cluster: &ClusterArgs, tuning: &Tuning) -> CliResult {
    ingest::index::check_name(&job.index).map_err(CliError::usage)?;
    let recording = begin_recording(Kind::Ingest, &job, cluster, tuning);
    let outcome = async {
        let (target, node) = connect(cluster).await?;
        let engine_pid = node.as_ref().map(Node::pid).or(cluster.engine_pid);
        let result = load(&target, job, tuning, engine_pid, recording.as_ref()).await;
        stop(node).await;
        result
    }
    .await;
    let report = save_outcome(recording, outcome, false)?;
    write_json(&report, tuning)?;
    if tuning.json.as_deref() != Some(std::path::Path::new("-")) {
        print_report(&report);
    }
    verdict(&report)
}

/// Starts the run's record in the store (unless --no-store): marked incomplete until the
/// result arrives, so a crash leaves a readable record.
pub(super) fn begin_recording(
    kind: Kind,
    job: &Job,
    cluster: &ClusterArgs,
    tuning: &Tuning,
) -> Option<Recording> {
    let config = serde_json::json!({
        "workload": job.workload,
        "corpus": job.source.describe(),
        "index": job.index,
        "seed": job.seed,
        "engine": cluster.engine.clone().or_else(|| cluster.target.urls.is_empty().then(|| engine::DEFAULT_ENGINE.to_string())),
        "urls": cluster.target.urls,
        "heap": cluster.heap,
        "bulk_size": tuning.bulk_size,
        "bulk_bytes": tuning.bulk_bytes,
        "clients": tuning.clients,
        "gzip": tuning.gzip,
        "ids": format!("{:?}", tuning.ids).to_lowercase(),
        "refresh_interval": tuning.refresh_interval,
        "replicas": tuning.replicas,
        "translog_durability": tuning.translog_durability,
    });
    Recording::begin(&tuning.save, kind, &job.workload, job.seed, config)
}

/// Keeps the outcome in the store: the result, or the error that ended the run.
pub(super) fn save_outcome<T: serde::Serialize>(
    recording: Option<Recording>,
    outcome: Result<T, CliError>,
    html: bool,
) -> Result<T, CliError> {
    if let Some(recording) = recording {
        match &outcome {
            Ok(result) => {
                recording.finish(result, html);
            }
            Err(e) => recording.fail(&format!("{:#}", e.error), None),
        }
    }
    outcome
}

/// Stops the engine we started for the run, if any.
pub(super) async fn stop(node: Option<Node>) {
    if let Some(node) = node {
        let _ = tokio::task::spawn_blocking(move || node.stop()).await;
    }
}

pub(super) async fn connect(cluster: &ClusterArgs) -> Result<(Target, Option<Node>), CliError> {
    if !cluster.target.urls.is_empty() {
        return Ok((cluster.target.connect()?, None));
    }
    let name = cluster
        .engine
        .clone()
        .unwrap_or_else(|| engine::DEFAULT_ENGINE.to_string());
    let mut options = StartOptions::new(&name);
    options.heap = cluster.heap.clone();
    options.attached = true;
    eprintln!("starting {name} for this run (it stops when the run ends)");
    let node = engine::start(&options)
        .await
        .with_context(|| format!("starting {name}"))?;
    eprintln!(
        "{name} is up at {} (pid {}, {:.1} s)",
        node.url(),
        node.pid(),
        node.boot.as_secs_f64()
    );
    let target = node.target().map_err(CliError::from)?;
    Ok((target, Some(node)))
}

pub(super) async fn load(
    target: &Target,
    job: Job,
    tuning: &Tuning,
    engine_pid: Option<u32>,
    recording: Option<&Recording>,
) -> Result<IngestReport, CliError> {
    let mut driver = DriverConfig::new(job.index.clone());
    driver.bulk_docs = usize::try_from(tuning.bulk_size).unwrap_or(usize::MAX);
    driver.bulk_bytes = tuning.bulk_bytes.unwrap_or(usize::MAX);
    driver.clients = usize::try_from(tuning.clients).unwrap_or(1);
    driver.gzip = tuning.gzip;
    driver.max_retries = tuning.max_retries;
    driver.ids = match tuning.ids {
        Ids::Sequential => IdMode::Sequential,
        Ids::Auto => IdMode::Auto,
    };
    driver.fail_fast = tuning.fail_fast;
    let plan = Plan {
        failures: tuning
            .failures
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{}-failures.ndjson", job.index))),
        driver,
        index_body: job.index_body,
        replace: tuning.replace,
        load_settings: LoadSettings {
            refresh_interval: tuning.refresh_interval.clone(),
            replicas: tuning.replicas,
            translog_durability: tuning.translog_durability.clone(),
        },
        engine_pid,
    };
    if !tuning.quiet {
        eprintln!(
            "loading {} into {} at {} ({} client(s), {} docs per request{})",
            job.source.describe(),
            job.index,
            target.url(),
            plan.driver.clients,
            plan.driver.bulk_docs,
            if plan.driver.gzip { ", gzip" } else { "" }
        );
    }
    // Closed seconds go to the store while the load runs: a run killed halfway keeps them.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<crate::measure::Second>>();
    let stream_in = async {
        while let Some(seconds) = rx.recv().await {
            if let Some(r) = recording {
                r.timeline(&seconds);
            }
        }
    };
    let show_bar = !tuning.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let (progress, bar) = show_bar.then(progress::bar).unzip();
    let (cancel, _ctrl_c) = progress::cancel_on_ctrl_c();
    let controls = Controls {
        progress,
        cancel: Some(cancel),
        seconds: recording.map(|_| tx),
    };
    let (report, ()) = tokio::join!(
        ingest::ingest_streaming(target, job.source, plan, controls),
        stream_in
    );
    if let Some(bar) = bar {
        let _ = bar.await;
    }
    let report = report.map_err(|e| match e {
        IngestError::Config(_) => CliError::usage(e),
        other => CliError::from(other),
    })?;
    if let Some(r) = recording {
        r.histograms(&report.histograms);
    }
    Ok(report)
}

/// Writes the result as JSON to --json (a file, or stdout for `-`).
pub(super) fn write_json<T: serde::Serialize>(result: &T, tuning: &Tuning) -> CliResult {
    if let Some(path) = &tuning.json {
        let text = serde_json::to_string_pretty(result).context("encoding the result")?;
        if path.as_os_str() == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n")
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Turns the outcome of a load into an exit code.
pub(super) fn verdict(report: &IngestReport) -> CliResult {
    if let Some(error) = &report.error {
        if report.interrupted {
            return Err(CliError {
                code: exit::INTERRUPTED,
                error: anyhow::anyhow!("interrupted"),
            });
        }
        return Err(CliError {
            code: exit::FAILURE,
            error: anyhow::anyhow!("the load stopped early: {error}"),
        });
    }
    if report.interrupted {
        return Err(CliError {
            code: exit::INTERRUPTED,
            error: anyhow::anyhow!("interrupted: the load is incomplete"),
        });
    }
    if !report.counts.reconciled {
        return Err(CliError::check(anyhow::anyhow!(
            "counts do not reconcile: {}",
            reconcile_line(report)
        )));
    }
    Ok(())
}

fn reconcile_line(r: &IngestReport) -> String {
    let c = &r.counts;
    let count = c
        .index_count
        .map_or_else(|| "unknown".to_string(), |n| n.to_string());
    let mut line = format!(
        "read {} = indexed {} + failed {}{}; index count {count}",
        c.read,
        c.indexed,
        c.failed,
        if c.read == c.indexed + c.failed {
            ""
        } else {
            " (does NOT add up)"
        }
    );
    if c.index_count.is_some_and(|n| n > c.indexed) && r.config.ids == IdMode::Auto {
        line.push_str(" (more documents than acknowledged: with --ids auto a request retried after a lost answer is indexed twice; --ids sequential avoids it)");
    }
    line
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

pub(super) fn print_report(r: &IngestReport) {
    let c = &r.counts;
    println!(
        "\n{} docs into {} on {} {} in {:.1} s: {:.0} docs/s, {:.1} MB/s",
        c.indexed, r.index, r.product, r.engine_version, r.wall_secs, r.docs_per_sec, r.mb_per_sec
    );
    println!(
        "counts: {} {}",
        reconcile_line(r),
        if c.reconciled {
            "- reconciled"
        } else {
            "- NOT reconciled"
        }
    );
    if r.interrupted {
        println!(
            "interrupted: documents read but never sent are not counted; documents in flight \
             without an answer are in the failure file as interrupted"
        );
    }
    if c.failed > 0 {
        println!(
            "failures: {} refused, {} unacknowledged, {} bad input lines -> {}",
            c.refused,
            c.unacknowledged,
            c.bad_lines,
            r.failures_file
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.display().to_string())
        );
    }
    let mut t = output::table(["measure", "value"]);
    t.add_row(["wall time".to_string(), format!("{:.2} s", r.wall_secs)]);
    t.add_row(["docs/s".to_string(), format!("{:.0}", r.docs_per_sec)]);
    t.add_row([
        "MB/s (body / wire)".to_string(),
        format!("{:.1} / {:.1}", r.mb_per_sec, r.wire_mb_per_sec),
    ]);
    t.add_row([
        "requests (retries, failed attempts)".to_string(),
        format!(
            "{} ({}, {})",
            r.requests.attempts, r.requests.retries, r.requests.failed_attempts
        ),
    ]);
    t.add_row([
        "service time p50 / p90 / p99 / max".to_string(),
        format!(
            "{} / {} / {} / {} ms (n={})",
            ms(r.service.p50_ms),
            ms(r.service.p90_ms),
            ms(r.service.p99_ms),
            ms(r.service.max_ms),
            r.service.count
        ),
    ]);
    t.add_row([
        "server took p50 / p99".to_string(),
        format!("{} / {} ms", ms(r.took.p50_ms), ms(r.took.p99_ms)),
    ]);
    println!("{t}");

    let a = &r.attribution;
    println!(
        "Where the wall time went ({} client(s): client-seconds / {}, rows add up to the wall time)",
        a.clients, a.clients
    );
    let mut t = output::table(["segment", "time (s)", "share", "what it is"]);
    for s in &a.budget {
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.0}%", s.share * 100.0),
            s.what.to_string(),
        ]);
    }
    println!("{t}");
    let merge_mb = r
        .server_stats
        .map(|s| s.merge_size_bytes as f64 / 1e6)
        .unwrap_or(0.0);
    let mut t = output::table(["server background / CPU", "time (s)", "share", "what it is"]);
    for s in &a.background {
        let what = if s.name == "server: merge" {
            format!("{} ({merge_mb:.1} MB merged)", s.what)
        } else {
            s.what.to_string()
        };
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.0}% of wall", s.share * 100.0),
            what,
        ]);
    }
    for s in &a.cpu {
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.1}% of machine", s.share * 100.0),
            s.what.to_string(),
        ]);
    }
    println!("{t}");
    if let Some(per_m) = r.cpu.driver_secs_per_million_docs {
        println!(
            "driver CPU: {per_m:.2} s per million documents; buffers: {} allocated, {} reused",
            r.buffers.allocated, r.buffers.reused
        );
    }
    if a.clamped {
        println!("note: server index time exceeded took (several shards index in parallel); clamped to took");
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("5mb"), Ok(5 << 20));
        assert_eq!(parse_size("512KB"), Ok(512 << 10));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("5 parsecs").is_err());
    }

    #[test]
    fn index_names_from_paths() {
        assert_eq!(
            index_from_path("/data/Access Log.ndjson.gz"),
            "searchbench-access-log"
        );
        assert_eq!(index_from_path("x.csv"), "searchbench-x");
        assert_eq!(index_from_path("-"), "searchbench-stdin");
    }
}
