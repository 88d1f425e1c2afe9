//! `searchbench saturate`: step the offered ingest rate up, then bisect, to the highest rate
//! the cluster sustains within a p99 latency and an error-rate limit.

use clap::Args;

use super::args::{parse_duration, ClusterArgs, GeneratorArgs, LoadArgs, OutputArgs};
use super::output::Terminal;
use super::{CliError, CliResult};
use crate::session::saturate::{self, SaturateSpec};

#[derive(Debug, Args)]
#[command(
    after_help = "Each step is an open-loop ingest (see --rate of `ingest`) of rate × \
    --step-seconds documents on a fresh index: the offered rate doubles from --start-rate until \
    a step fails (p99 latency from each request's due time above --p99, more failed documents \
    than --max-error-rate, or achieved below 97% of offered), then the search bisects between \
    the last good and the first bad rate until they are within --precision. Every step is kept \
    in the results store with the tag saturate=<id>. A step lasts long enough for \
    --min-requests requests (a p99 needs 100); with fewer, its maximum latency stands in for \
    the p99 (stricter). Before the first judged step, one unjudged step at --start-rate warms \
    the engine (a cold JVM's first seconds would fail any limit). The warm-up (--warmup) \
    applies within each step, and only to steps at least twice as long.\n\n\
    Examples:\n  \
    searchbench saturate logs --p99 500ms\n  \
    searchbench saturate transactions --p99 1s --clients 8 --bulk-size 500 --url http://127.0.0.1:9200\n  \
    searchbench saturate logs --p99 200ms --rtt 2ms --export-json saturate.json"
)]
pub struct SaturateArgs {
    /// Built-in workload whose generator to load: logs, cluster-metrics, transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// The latency limit: a step whose p99 latency (from each request's due time) is above
    /// it fails, e.g. 500ms, 2s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub p99: std::time::Duration,
    /// A step with a larger share of failed documents fails, e.g. 0.1%, 0%.
    #[arg(long, value_name = "P%", default_value = "0.1%", value_parser = parse_percent)]
    pub max_error_rate: f64,
    /// The first offered rate, documents per second.
    #[arg(long, value_name = "DOCS_PER_S", default_value = "1000", value_parser = super::args::parse_rate)]
    pub start_rate: f64,
    /// Length of each step (its corpus is rate × this many documents).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_secs)]
    pub step_seconds: f64,
    /// Stop bisecting when the first failing rate is within this much of the best one.
    #[arg(long, value_name = "P%", default_value = "5%", value_parser = parse_percent)]
    pub precision: f64,
    /// A step lasts at least long enough for this many bulk requests, so that its p99 is a
    /// percentile and not its slowest request.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub min_requests: u64,
    /// At most this many steps.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub max_steps: u64,
    /// Index to load into (default: the workload's); replaced at each step.
    #[arg(long)]
    pub index: Option<String>,
    /// Also write the curve as an HTML page (offered vs achieved, p99 vs offered).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub shape: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Every step profiled (its load), each step keeping its own profile.
    #[command(flatten)]
    pub profile: crate::cli::args::ProfileArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `0.1%` → 0.001.
fn parse_percent(s: &str) -> Result<f64, String> {
    let bad = || format!("{s:?} is not a percentage; give e.g. 0.1% or 5%");
    let p: f64 = s
        .trim()
        .strip_suffix('%')
        .ok_or_else(bad)?
        .trim()
        .parse()
        .map_err(|_| bad())?;
    if (0.0..=100.0).contains(&p) {
        Ok(p / 100.0)
    } else {
        Err(bad())
    }
}

fn parse_secs(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds; give e.g. 10")),
    }
}

pub async fn run(args: SaturateArgs) -> CliResult {
    if args.load.rate.is_some() {
        return Err(CliError::usage(anyhow::anyhow!(
            "saturate sets the rate of each step itself; use --start-rate instead of --rate"
        )));
    }
    let spec = SaturateSpec {
        workload: args.workload.clone(),
        corpus: args.shape.spec(args.seed, None, false),
        index: args.index.clone(),
        p99_ms: args.p99.as_secs_f64() * 1e3,
        max_error_rate: args.max_error_rate,
        start_rate: args.start_rate,
        step_secs: args.step_seconds,
        precision: args.precision,
        max_steps: usize::try_from(args.max_steps).unwrap_or(16),
        min_requests: usize::try_from(args.min_requests).unwrap_or(100),
    };
    let mut cluster = args.cluster.spec()?;
    let index = spec.index.clone().unwrap_or_default();
    let mut load = args.load.spec(&index, args.out.progress());
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    cluster.start.stop = cancel.clone();
    load.cancel = Some(cancel);
    let terminal = Terminal::new(args.out.quiet);
    let attach = args
        .out
        .attach(Some(&args.load.telemetry), args.profile.spec(&cluster)?)?;
    let save = &attach.save;
    let result = saturate::saturate(&spec, &cluster, load, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    super::ending::study::end(&args.out.json, save, &terminal, &result, |result| {
        if let Some(path) = &args.html {
            crate::report::saturate_html::write(result, path)
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        }
        Ok(())
    })
}
