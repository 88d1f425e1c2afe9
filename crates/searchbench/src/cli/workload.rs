//! `searchbench workload list|info` (also `workloads`): what is built in; `searchbench run
//! --workload-file W.json` and `searchbench workload init`: the user's own workload in one
//! file, and one written from an existing index.

use std::path::PathBuf;

use super::args::TargetArgs;
use super::{CliError, CliResult};
use crate::session::workload_file;
use clap::{Args, Subcommand};

/// `searchbench workload [list|info|init]`; alone, it lists.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench workloads                       what is built in\n  \
    searchbench workload info logs              one workload: corpus, index, queries\n  \
    searchbench workload init --from-index shops --url URL --out shops.json")]
pub struct WorkloadArgs {
    #[command(subcommand)]
    pub command: Option<WorkloadCommand>,
}

#[derive(Debug, Subcommand)]
pub enum WorkloadCommand {
    /// The built-in workloads, one line each.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// One built-in workload: its corpus, index, queries and how to run it.
    Info {
        /// The workload's name (see `searchbench workloads`).
        #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
        name: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a workload file from an existing index: its mapping and settings, a sample of its
    /// documents (a corpus file beside it) and a few queries with their expected answers.
    #[command(after_help = "Example:\n  \
        searchbench workload init --from-index shops --url http://127.0.0.1:9200 --out shops.json\n  \
        searchbench run --workload-file shops.json")]
    Init(InitArgs),
    /// Render a Rally track or an opensearch-benchmark workload as the tools do (like
    /// `esrally render-track`): its Jinja, the `rally.helpers`/`benchmark.helpers` macros, its
    /// `collect(parts=...)` includes; the JSON on stdout.
    #[command(after_help = "Example:\n  \
        searchbench workload render rally-tracks/geonames/track.json --track-params number_of_replicas:1")]
    Render {
        /// The track.json / workload.json.
        file: PathBuf,
        /// Track parameters: `k:v,k2:v2` (values read as JSON when they are: 1, true, "x") or
        /// a JSON file of them. One the track does not read is an error.
        #[arg(long, value_name = "K:V,...|FILE")]
        track_params: Option<String>,
    },
    /// What `run --workload-file` will run of a Rally track or an opensearch-benchmark
    /// workload, and what it will not and why, before anything runs: the challenge (test
    /// procedure) task by task, and its corpus files (here or not).
    #[command(after_help = "Example:\n  \
        searchbench workload check rally-tracks/geonames/track.json\n  \
        searchbench workload check big5/workload.json --challenge big5 --json")]
    Check {
        /// The track.json / workload.json.
        file: PathBuf,
        #[command(flatten)]
        track: super::args::TrackArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The index to describe.
    #[arg(long, value_name = "NAME")]
    pub from_index: String,
    #[command(flatten)]
    pub target: TargetArgs,
    /// The workload file to write (its corpus goes beside it as <stem>-docs.ndjson).
    #[arg(long, value_name = "FILE", default_value = "workload.json")]
    pub out: PathBuf,
    /// Documents to sample into the corpus file.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub sample: u64,
}

/// What a built-in workload is, for `workload list` and `workload info`.
#[derive(Debug, serde::Serialize)]
struct Described {
    name: &'static str,
    about: &'static str,
    default_index: &'static str,
    default_docs: Option<u64>,
    corpus_flags: &'static str,
    /// The variants of its checked query phase (none: it only loads).
    query_variants: Vec<String>,
    query_transports: Vec<String>,
    /// A multi-phase scenario over many indices, instead of one index loaded and queried.
    scenario: bool,
    example: String,
    /// The body of `PUT /{index}` (settings and mappings): what `generate --mapping` takes.
    index_body: serde_json::Value,
}

fn describe(w: &dyn crate::workload::Workload) -> Described {
    Described {
        name: w.name(),
        about: w.about(),
        default_index: w.default_index(),
        default_docs: w.default_docs(),
        corpus_flags: w.corpus_flags(),
        query_variants: w
            .query_variants()
            .iter()
            .map(|v| v.name().to_string())
            .collect(),
        query_transports: w
            .query_transports()
            .iter()
            .map(|t| t.name().to_string())
            .collect(),
        scenario: w.scenario().is_some(),
        example: format!("searchbench run {}", w.name()),
        index_body: w.index_body(),
    }
}

fn list(json: bool) -> CliResult {
    let all: Vec<Described> = crate::workload::all()
        .iter()
        .map(|w| describe(*w))
        .collect();
    if json {
        return Ok(super::output::json(&all)?);
    }
    let mut t = super::output::table(["workload", "queries", "what it is"]);
    for d in &all {
        let queries = match (d.scenario, d.query_variants.len()) {
            (true, _) => "scenario".to_string(),
            (false, 0) => "-".to_string(),
            (false, n) => format!("{n} checked"),
        };
        t.add_row(vec![d.name.to_string(), queries, d.about.to_string()]);
    }
    outln!("{t}");
    outln!("`searchbench workload info NAME` for one; `searchbench run NAME` runs it.");
    Ok(())
}

fn info(name: &str, json: bool) -> CliResult {
    let w = crate::workload::find(name)
        .ok_or_else(|| CliError::usage(anyhow::anyhow!(crate::workload::unknown(name))))?;
    let d = describe(w);
    if json {
        return Ok(super::output::json(&d)?);
    }
    outln!("{}: {}", d.name, d.about);
    outln!("  index           {} (--index to change)", d.default_index);
    match d.default_docs {
        Some(n) => outln!(
            "  documents       {n} by default; its corpus is set by {}",
            d.corpus_flags
        ),
        None => outln!("  documents       set by {}", d.corpus_flags),
    }
    if d.scenario {
        outln!("  runs            a scenario over many indices (phases, not one index)");
    } else if d.query_variants.is_empty() {
        outln!("  queries         none: it loads only");
    } else {
        outln!(
            "  queries         {} (answers checked against the corpus), over {}",
            d.query_variants.join(", "),
            d.query_transports.join(", ")
        );
    }
    outln!("  run it          {}", d.example);
    Ok(())
}

pub async fn run(args: WorkloadArgs) -> CliResult {
    let Some(cmd) = args.command else {
        return list(false);
    };
    match cmd {
        WorkloadCommand::List { json } => list(json),
        WorkloadCommand::Info { name, json } => info(&name, json),
        WorkloadCommand::Render { file, track_params } => {
            let params = super::args::track_params_of(track_params.as_deref())?;
            let text = crate::workload::track::render_file(&file, &params)
                .map_err(|e| CliError::usage(anyhow::anyhow!(e)))?;
            outln!("{}", text.trim_end());
            Ok(())
        }
        WorkloadCommand::Check { file, track, json } => {
            let usage = |e: String| CliError::usage(anyhow::anyhow!(e));
            let d = crate::workload::track::read(&file, &track.params()?)
                .map_err(|e| usage(e.to_string()))?;
            for warning in &d.warnings {
                errln!("warning: {warning}");
            }
            let mut spec = track.plan_spec()?;
            if track.synthesize {
                // What the run would synthesize, said before it is made (seeded as a run
                // without --seed is).
                let procedure =
                    crate::workload::track::runnable::procedure(&d, track.challenge.as_deref())
                        .map_err(|e| usage(e.to_string()))?;
                let planned = crate::tasks::plan::plan(&d, procedure, &spec)
                    .map_err(|e| usage(e.to_string()))?;
                let cache = crate::engine::paths::cache_root();
                let wanted =
                    crate::tasks::synthesize::wanted(&d, &spec, &planned.absent, 1, &cache)
                        .map_err(|e| usage(format!("--synthesize: {e}")))?;
                spec.stand_ins = wanted
                    .iter()
                    .map(crate::tasks::synthesize::Wanted::stand_in)
                    .collect();
            }
            let check = crate::tasks::plan::check(&d, track.challenge.as_deref(), &spec)
                .map_err(|e| usage(e.to_string()))?;
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&check).unwrap_or_default()
                );
            } else {
                super::output::byo::track_check(&file, &check);
            }
            Ok(())
        }
        WorkloadCommand::Init(args) => {
            let target = args.target.connect()?;
            let done = workload_file::init(
                &target,
                &args.from_index,
                &args.out,
                usize::try_from(args.sample).unwrap_or(1000),
            )
            .await
            .map_err(CliError::session)?;
            super::output::byo::initialised(&done);
            Ok(())
        }
    }
}
