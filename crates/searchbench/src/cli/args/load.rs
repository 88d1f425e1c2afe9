//! How a load runs: clients, bulk size, rate, retries, failures, telemetry.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::units::{parse_bound, parse_duration, parse_interval, parse_rate, parse_size};
use crate::ingest::freshness::FreshnessSpec;
use crate::ingest::{IdMode, LoadSettings, MaxFailures};
use crate::session::ingest::LoadSpec;

/// How to load: batching, concurrency, retries, settings held during the load.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Load")]
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
    /// Do not measure time to searchable. By default the index's `_count` is asked every 50
    /// ms while the load runs (no refresh asked for), and each acknowledged document's lag to
    /// its first appearance in a search is measured; at the end the last documents are waited
    /// for, up to --freshness-bound. A track's bulk tasks are probed the same way.
    #[arg(long)]
    pub no_freshness: bool,
    /// How long a document may take to become searchable before it counts as not searchable
    /// (e.g. 30s). Default: twice the index's refresh interval plus 5 s, at least 10 s.
    #[arg(long, value_name = "DURATION", value_parser = parse_bound, conflicts_with = "no_freshness")]
    pub freshness_bound: Option<std::time::Duration>,
    #[command(flatten)]
    pub telemetry: TelemetryArgs,
}

/// The engine sampled during the run (`_nodes/stats`, `/proc` for nodes we started).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Telemetry")]
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
        }
    }
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
        driver.bulk_bytes = self.bulk_bytes;
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
        spec.append = self.append;
        spec.load_settings = LoadSettings {
            refresh_interval: self.refresh_interval.clone(),
            replicas: self.replicas,
            translog_durability: self.translog_durability.clone(),
        };
        spec.freshness = self.freshness();
        spec
    }

    /// What `--no-freshness` and `--freshness-bound` ask of the load's probe.
    pub fn freshness(&self) -> Option<FreshnessSpec> {
        (!self.no_freshness).then_some(FreshnessSpec {
            bound: self.freshness_bound,
            ..FreshnessSpec::default()
        })
    }
}
