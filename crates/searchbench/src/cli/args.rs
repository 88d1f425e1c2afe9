//! Argument groups that several commands share, each turned into the session's plain types
//! in one place.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::results::SaveArgs;
use super::{CliError, TargetArgs};
use crate::engine;
use crate::ingest::{IdMode, LoadSettings, MaxFailures};
use crate::session::ingest::LoadSpec;
use crate::session::{ClusterSpec, SaveSpec};
use crate::workload::{self, WorkloadSpec};

/// A built-in workload's corpus: how many documents, which seed, and its shape.
#[derive(Debug, Clone, Args)]
pub struct CorpusArgs {
    /// Documents (rows) to generate. cluster-metrics default: rows per epoch × epochs.
    #[arg(long)]
    pub docs: Option<u64>,
    /// Generator seed: the same seed gives the same bytes on any machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub shape: GeneratorArgs,
}

impl CorpusArgs {
    /// The generator spec; `truth` asks cluster-metrics to compute its ground truth.
    pub fn spec(&self, truth: bool) -> WorkloadSpec {
        self.shape.spec(self.seed, self.docs, truth)
    }
}

/// Shape of a built-in workload's corpus beyond --docs and --seed.
#[derive(Debug, Clone, Args)]
pub struct GeneratorArgs {
    /// cluster-metrics: rows per epoch [default: 1000000].
    #[arg(long, value_name = "N", help_heading = "cluster-metrics")]
    pub rows_per_epoch: Option<u64>,
    /// cluster-metrics: number of epochs [default: as many as --docs needs, else 1].
    #[arg(long, value_name = "N", help_heading = "cluster-metrics")]
    pub epochs: Option<u64>,
    /// logs: first @timestamp, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff]Z [default: 2023-01-01].
    #[arg(long, help_heading = "logs")]
    pub start: Option<String>,
    /// logs: window the timestamps spread over, e.g. 1d, 6h [default: 1d].
    #[arg(long, help_heading = "logs")]
    pub window: Option<String>,
    /// transactions: year of the mutations [default: 2023].
    #[arg(long, help_heading = "transactions")]
    pub year: Option<i32>,
}

impl GeneratorArgs {
    /// The generator spec; `truth` asks cluster-metrics to compute its ground truth.
    pub fn spec(&self, seed: u64, docs: Option<u64>, truth: bool) -> WorkloadSpec {
        let mut spec = WorkloadSpec::new(seed);
        spec.docs = docs;
        spec.params = workload::Params {
            rows_per_epoch: self.rows_per_epoch,
            epochs: self.epochs,
            truth,
            start: self.start.clone(),
            window: self.window.clone(),
            year: self.year,
        };
        spec
    }
}

/// How to start an engine's nodes: shared by `engine start` and every command that can
/// start an engine for its run.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Engine we start")]
pub struct NodeArgs {
    /// Nodes in the cluster, each its own process and heap (one cluster over the loopback).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=9))]
    pub nodes: u16,
    /// HTTP port of the first node (the next nodes count up) [default: free ports].
    #[arg(long)]
    pub port: Option<u16>,
    /// Transport port of the first node (the next nodes count up) [default: --port + 100
    /// when free, as 9200 goes with 9300; else free ports].
    #[arg(long)]
    pub transport_port: Option<u16>,
    /// JVM heap of each node (-Xms and -Xmx), e.g. 512m, 1g, 4g.
    #[arg(long, default_value = "1g", value_parser = parse_heap)]
    pub heap: String,
    /// Node setting KEY=VALUE, applied after searchbench's own (repeat for more), e.g.
    /// --setting indices.memory.index_buffer_size=20%.
    #[arg(long = "setting", value_name = "KEY=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
    /// Extra JVM option of each node (repeat for more), e.g. --jvm-opt=-XX:+UseParallelGC.
    #[arg(long = "jvm-opt", value_name = "OPTION", allow_hyphen_values = true)]
    pub jvm_opts: Vec<String>,
}

impl NodeArgs {
    /// Start options for `engine` with these knobs.
    pub fn options(&self, engine: &str) -> engine::StartOptions {
        let mut options = engine::StartOptions::new(engine);
        options.nodes = self.nodes;
        options.port = self.port;
        options.transport_port = self.transport_port;
        options.heap = self.heap.clone();
        options.settings = self.settings.clone();
        options.jvm_opts = self.jvm_opts.clone();
        options
    }

    /// [`NodeArgs::options`] for `engine`, or for the distribution in `dir` when one is
    /// given (its name read from the folder; a folder that is not one is bad usage).
    pub fn options_for(
        &self,
        engine: &str,
        dir: Option<&std::path::Path>,
    ) -> Result<engine::StartOptions, CliError> {
        let Some(dir) = dir else {
            return Ok(self.options(engine));
        };
        let (spec, home) = engine::inspect_dir(dir).map_err(CliError::usage)?;
        let mut options = self.options(&spec.name);
        options.engine_dir = Some(home);
        Ok(options)
    }
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    engine::parse_setting(s).map_err(|e| e.to_string())
}

pub fn parse_heap(s: &str) -> Result<String, String> {
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let ok_unit = matches!(unit, "m" | "M" | "g" | "G");
    match digits.parse::<u32>() {
        Ok(n) if n > 0 && ok_unit => Ok(s.to_string()),
        _ => Err(format!("{s:?} is not a heap size; use e.g. 512m or 2g")),
    }
}

/// Where to load: a cluster at --url, or one we start for the run.
#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Start this engine for the run (attached: it stops when we do), e.g. opensearch-2.11.0,
    /// elasticsearch-8.17.x (the newest 8.17 release); `searchbench engine list --available`
    /// lists them. The default when no --url is given: opensearch-2.19.1.
    #[arg(long, conflicts_with = "urls")]
    pub engine: Option<String>,
    /// Start a local, unpacked Elasticsearch or OpenSearch distribution folder instead (your
    /// own build, e.g. build/distribution/local/opensearch-3.0.0-SNAPSHOT): product and
    /// version are read from its lib/ jars, the JDK picked for that release; the run records
    /// the folder.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["engine", "urls"])]
    pub engine_dir: Option<PathBuf>,
    #[command(flatten)]
    pub node: NodeArgs,
    /// Pid of a local engine given by --url, to report its CPU time.
    #[arg(long, hide = true)]
    pub engine_pid: Option<u32>,
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// Network distance on the loopback: a delay proxy between the driver and the cluster.
#[derive(Debug, Clone, Default, Args)]
pub struct NetworkArgs {
    /// Add this round-trip time between the driver and the cluster (e.g. 2ms): a TCP proxy on
    /// 127.0.0.1 holds every chunk half of it in each direction, so a laptop run shows what
    /// client-server distance does to serial and parallel clients.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_delay)]
    pub rtt: Option<std::time::Duration>,
    /// With --rtt: each round trip is rtt ± this (uniform, seeded, order kept), e.g. 0.5ms.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_delay, requires = "rtt")]
    pub jitter: Option<std::time::Duration>,
    /// Seed of the --jitter draws.
    #[arg(long, default_value_t = 1, hide = true)]
    pub jitter_seed: u64,
}

impl NetworkArgs {
    pub fn rtt(&self) -> Result<Option<crate::cluster::delay::Rtt>, CliError> {
        let Some(rtt) = self.rtt else { return Ok(None) };
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        crate::cluster::delay::Rtt::new(ms(rtt), self.jitter.map_or(0.0, ms), self.jitter_seed)
            .map(Some)
            .map_err(|e| CliError::usage(anyhow::anyhow!(e)))
    }
}

/// A delay: a duration that is not negative.
fn parse_delay(s: &str) -> Result<std::time::Duration, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "{s:?}: a delay cannot be negative; give e.g. 2ms or 0.5ms"
        ));
    }
    parse_duration(s)
}

impl ClusterArgs {
    pub fn spec(&self) -> Result<ClusterSpec, CliError> {
        let given = if self.target.urls.is_empty() {
            None
        } else {
            Some(self.target.connect()?)
        };
        let name = self
            .engine
            .clone()
            .unwrap_or_else(|| engine::DEFAULT_ENGINE.to_string());
        // A release line (`elasticsearch-8.17.x`) becomes the release it means, so the run
        // records what ran. Names the cached lists lack are resolved when the engine starts.
        let name = match (given.is_none(), engine::resolve(&name)) {
            (true, Ok(spec)) => spec.name,
            _ => name,
        };
        Ok(ClusterSpec {
            given,
            urls: self.target.urls.clone(),
            start: self.node.options_for(&name, self.engine_dir.as_deref())?,
            engine_pid: self.engine_pid,
            rtt: self.network.rtt()?,
        })
    }
}

/// How to load: batching, concurrency, retries, settings held during the load.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
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
    /// Load into the existing index (ours or any other) without deleting it; the count check
    /// is then on the increase of its document count. Ids are left to the server (auto), so
    /// no document already there is overwritten.
    #[arg(long, conflicts_with_all = ["replace", "ids"])]
    pub append: bool,
    /// index.refresh_interval during the load (e.g. -1, 30s); restored afterwards.
    #[arg(long, allow_hyphen_values = true)]
    pub refresh_interval: Option<String>,
    /// index.number_of_replicas during the load; restored afterwards.
    #[arg(long)]
    pub replicas: Option<u32>,
    /// index.translog.durability during the load (request or async); restored afterwards.
    #[arg(long, value_parser = ["request", "async"])]
    pub translog_durability: Option<String>,
    /// Warm-up: documents loaded in this first stretch (e.g. 10s, 500ms, 1m; 0 for none) are
    /// not measured. The headline docs/s is the documents acknowledged after it ÷ the rest of
    /// the run (the steady window); a run shorter than twice the warm-up is measured whole,
    /// and says so. Warm-up seconds are marked in the timeline.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Documents allowed to fail (refused, unacknowledged, bad input lines) before the load
    /// counts as failed (exit 3): a number (e.g. 10) or a percentage of the documents read
    /// (e.g. 0.5%).
    #[arg(long, value_name = "N|P%", default_value = "0", value_parser = MaxFailures::parse)]
    pub max_failures: MaxFailures,
    /// Open loop: offer this many documents per second. Bulk requests are due at fixed times
    /// (bulk size ÷ rate apart, whichever client is free); latency is measured from the due
    /// time, so a slow cluster shows as latency instead of slowing the load; when every client
    /// is busy the schedule falls behind, and that lag is measured.
    #[arg(long, value_name = "DOCS_PER_S", value_parser = parse_rate)]
    pub rate: Option<f64>,
    #[command(flatten)]
    pub telemetry: TelemetryArgs,
}

/// The engine sampled beside the run (`_nodes/stats`, `/proc` for nodes we started).
#[derive(Debug, Clone, Args)]
pub struct TelemetryArgs {
    /// How often telemetry samples the engine's `_nodes/stats` (and `/proc` for nodes we
    /// started) beside the run, e.g. 1s, 5s; at least 1s.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_interval)]
    pub telemetry_interval: std::time::Duration,
    /// Do not sample the engine beside the run (no telemetry stored or shown).
    #[arg(long)]
    pub no_telemetry: bool,
}

impl TelemetryArgs {
    pub fn spec(&self) -> crate::session::TelemetrySpec {
        crate::session::TelemetrySpec {
            interval: (!self.no_telemetry).then_some(self.telemetry_interval),
            origin: None,
        }
    }
}

/// A telemetry interval: a duration of at least a second (samples are filed by second).
fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(s)?;
    if d < std::time::Duration::from_secs(1) {
        return Err(format!(
            "{s:?} is too short: telemetry samples at most once a second (use 1s or more)"
        ));
    }
    Ok(d)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Ids {
    Sequential,
    Auto,
}

impl LoadArgs {
    /// The session's load spec for `index`; `progress` asks for progress reports (the bar).
    pub fn spec(&self, index: &str, progress: bool) -> LoadSpec {
        let mut spec = LoadSpec::new(index);
        let driver = &mut spec.driver;
        driver.bulk_docs = usize::try_from(self.bulk_size).unwrap_or(usize::MAX);
        driver.bulk_bytes = self.bulk_bytes.unwrap_or(usize::MAX);
        driver.clients = usize::try_from(self.clients).unwrap_or(1);
        driver.gzip = self.gzip;
        driver.max_retries = self.max_retries;
        driver.ids = match self.ids {
            _ if self.append => IdMode::Auto,
            Ids::Sequential => IdMode::Sequential,
            Ids::Auto => IdMode::Auto,
        };
        driver.warmup = self.warmup;
        driver.rate = self.rate;
        driver.fail_fast = self.fail_fast;
        spec.progress = progress;
        spec.failures = self.failures.clone();
        spec.replace = self.replace;
        spec.max_failures = Some(self.max_failures);
        spec.telemetry = self.telemetry.spec();
        spec.append = self.append;
        spec.load_settings = LoadSettings {
            refresh_interval: self.refresh_interval.clone(),
            replicas: self.replicas,
            translog_durability: self.translog_durability.clone(),
        };
        spec
    }
}

/// What a measuring command writes besides the terminal: the store, a JSON file, progress.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write the whole result (config, versions, machine, samples summary, timeline,
    /// attribution) as JSON to this file (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub save: SaveArgs,
}

impl OutputArgs {
    /// Whether to draw progress: not with --quiet, and only on a terminal.
    pub fn progress(&self) -> bool {
        !self.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
    }

    /// The JSON goes to stdout, so the terminal report does not.
    pub fn json_on_stdout(&self) -> bool {
        self.json.as_deref() == Some(std::path::Path::new("-"))
    }

    pub fn save_spec(&self) -> SaveSpec {
        self.save.spec()
    }
}

/// A positive rate, e.g. `5000` or `2.5`.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let rate: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a rate; give a positive number, e.g. 5000"))?;
    crate::measure::schedule::check_rate(rate)
}

/// `10s`, `500ms`, `2m`, `0`.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration; use e.g. 10s, 500ms, 1m or 0"))?;
    let secs = match unit.trim() {
        "" if n == 0.0 => 0.0,
        "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        _ => {
            return Err(format!(
                "{s:?} is not a duration; use e.g. 10s, 500ms, 1m or 0"
            ))
        }
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}

pub fn parse_size(s: &str) -> Result<usize, String> {
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
    fn durations_parse() {
        assert_eq!(
            parse_duration("10s"),
            Ok(std::time::Duration::from_secs(10))
        );
        assert_eq!(
            parse_duration("500ms"),
            Ok(std::time::Duration::from_millis(500))
        );
        assert_eq!(parse_duration("0"), Ok(std::time::Duration::ZERO));
        assert_eq!(parse_duration("1m"), Ok(std::time::Duration::from_secs(60)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5").is_err());
        assert!(parse_interval("500ms")
            .unwrap_err()
            .contains("at most once a second"));
        assert_eq!(parse_interval("2s"), Ok(std::time::Duration::from_secs(2)));
    }
}
