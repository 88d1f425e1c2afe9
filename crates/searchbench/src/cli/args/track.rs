//! `--track-params` and `--challenge`: how a Rally track or an opensearch-benchmark workload
//! is read, as both tools take them.

use clap::Args;

use crate::cli::CliError;
use crate::tasks::plan::PlanSpec;
use crate::workload::track::TrackParams;

#[derive(Debug, Clone, Default, Args)]
pub struct TrackArgs {
    /// For a Rally track / OSB workload: its parameters, `k:v,k2:v2` (values read as JSON when
    /// they are: 1, true, "x") or a JSON file of them. One the track does not read is an error.
    #[arg(long, value_name = "K:V,...|FILE")]
    pub track_params: Option<String>,
    /// For a Rally track / OSB workload: the challenge (test procedure) to run instead of its
    /// default.
    #[arg(long, alias = "test-procedure", value_name = "NAME")]
    pub challenge: Option<String>,
    /// For a Rally track / OSB workload: a quick run that checks the track works, as the
    /// tools' --test-mode: at most one iteration per client, no warm-up, time periods cut to
    /// 10 s, no target throughput, and corpora of more than 1,000 documents read from their
    /// 1,000-document sample (`documents-1k.json` beside `documents.json.bz2`) or else
    /// their first 1,000 documents.
    #[arg(long)]
    pub test_mode: bool,
    /// For a Rally track / OSB workload: the folder of its corpus files, downloaded elsewhere
    /// (never by searchbench). Looked for in DIR/<corpus>/ (where esrally and
    /// opensearch-benchmark keep them: ~/.rally/benchmarks/data, ~/.benchmark/benchmarks/data),
    /// then DIR, then beside the track; .bz2, .zst and .gz files are read as they ship. The
    /// vector data sets of opensearch-benchmark's `vectorsearch` (`*_data_set_path`) are read
    /// only from here or the track's folder.
    #[arg(long, value_name = "DIR")]
    pub corpus_dir: Option<std::path::PathBuf>,
    /// For a Rally track / OSB workload: each corpus file its bulks load that is not here is
    /// synthesized instead of refused: made from its index's mapping (or the index templates
    /// of its data stream) and, when one is here, a sample of its documents (its
    /// 1,000-document sample, else the first documents of a download cut short:
    /// `documents.json.bz2.tmp` or `.part`), with the document count the track declares
    /// (1,000 in test mode), seeded by --seed. Kept in the cache ($SEARCHBENCH_CACHE or
    /// ~/.cache/searchbench, synthesized/) and reused. The run is marked synthesized in the
    /// store and every view, and `compare` will not set it against a run on the real corpus
    /// without --allow-mixed.
    #[arg(long)]
    pub synthesize: bool,
}

impl TrackArgs {
    /// The flags given that only a track reads, named with their verb for a refusal
    /// (`--test-mode is`, `--test-mode and --synthesize are`); `None` when none is.
    pub fn given(&self) -> Option<String> {
        let mut given = Vec::new();
        if self.track_params.is_some() {
            given.push("--track-params");
        }
        if self.challenge.is_some() {
            given.push("--challenge");
        }
        if self.test_mode {
            given.push("--test-mode");
        }
        if self.corpus_dir.is_some() {
            given.push("--corpus-dir");
        }
        if self.synthesize {
            given.push("--synthesize");
        }
        match given.as_slice() {
            [] => None,
            [one] => Some(format!("{one} is")),
            [first @ .., last] => Some(format!("{} and {last} are", first.join(", "))),
        }
    }

    /// The parameters given, as esrally and opensearch-benchmark take them.
    pub fn params(&self) -> Result<TrackParams, CliError> {
        track_params_of(self.track_params.as_deref())
    }

    /// How the challenge is planned: test mode, where the corpora are (a `--corpus-dir` that
    /// is not a folder is an error, not a silent miss of every file).
    pub fn plan_spec(&self) -> Result<PlanSpec, CliError> {
        if let Some(dir) = &self.corpus_dir {
            if !dir.is_dir() {
                return Err(CliError::usage(anyhow::anyhow!(
                    "--corpus-dir {}: not a folder",
                    dir.display()
                )));
            }
        }
        Ok(PlanSpec {
            test_mode: self.test_mode,
            corpus_dir: self.corpus_dir.clone(),
            stand_ins: Vec::new(),
            converted: Vec::new(),
        })
    }
}

/// `--track-params`: `k:v,...` (each value JSON when it reads as JSON, else a string) or a JSON
/// file of them.
pub fn track_params_of(arg: Option<&str>) -> Result<TrackParams, CliError> {
    let mut params = TrackParams::new();
    let Some(arg) = arg else {
        return Ok(params);
    };
    let file = std::path::Path::new(arg);
    if file.is_file() {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::usage(anyhow::anyhow!("--track-params {arg}: {e}")))?;
        return serde_json::from_str(&text).map_err(|e| {
            CliError::usage(anyhow::anyhow!(
                "--track-params {arg}: not a JSON object of parameters: {e}"
            ))
        });
    }
    for pair in arg.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((k, v)) = pair.split_once(':') else {
            return Err(CliError::usage(anyhow::anyhow!(
                "--track-params: {pair:?} is not key:value (nor is {arg:?} a file)"
            )));
        };
        let v = v.trim();
        let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::from(v));
        params.insert(k.trim().to_string(), value);
    }
    Ok(params)
}
