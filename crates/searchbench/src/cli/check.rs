//! `searchbench check [RUN] (--baseline SEL | --last N) --metric M --threshold 5%`: a gate for
//! CI pipelines and `git bisect run`, exiting 0 (pass), 3 (regressed: a check failed, as in
//! every command) or 125 (cannot tell).

use clap::Args;

use super::args::parse_percent;
use super::args::ReadArgs;
use super::exit::{self, CANNOT_TELL};
use super::{output, CliError, CliResult};
use crate::analysis::check::{self, Baseline, CheckSpec, Outcome};

#[derive(Debug, Args)]
#[command(group(
    // One of the two is the baseline: a usage error names both.
    clap::ArgGroup::new("against").args(["baseline", "last", "reference"]).required(true).multiple(true)
))]
#[command(
    long_about = "Check a stored run against a baseline: exit 0 when no metric regressed \
        significantly beyond the threshold, 3 when one did or when any error count rose, 125 \
        when it cannot tell.\n\n\
        A metric regressed when its 95 % interval lies wholly on the worse side (significant) \
        and the change is larger than --threshold (large enough to matter). Errors count \
        whatever the threshold: more documents refused or lost in failed bulk requests, more \
        failed searches or wrong answers than the baseline is a regression, even when \
        throughput improved.\n\n\
        The intervals are over runs, never over the seconds inside one run (they say nothing \
        of the noise from run to run): one run against --last N runs (N >= 2; 3 or more is sensible) gets a \
        prediction interval from the baseline runs' spread (Student's t, N-1 degrees of \
        freedom); tag groups on both sides (2 or more runs each) get Welch's t over runs. One \
        run a side cannot tell.\n\n\
        It cannot tell (125) when the run was interrupted, failed without a result or never \
        finished, when no baseline run is found, when there are too few runs for an \
        interval, or when the runs are too noisy to have seen a change of the threshold's \
        size (it says the smallest change they could have seen, and how many runs a side \
        would see the threshold). `git bisect run` skips a commit on 125, counts 0 as good and 3 as bad; \
        note that it also counts a usage error (exit 2) as bad.",
    after_help = "Examples:\n  \
        searchbench check --last 5 --metric docs_per_sec --threshold 5%\n  \
        searchbench check 7b01d4aa --baseline build=release --metric service_p99_ms --markdown\n  \
        searchbench check --reference build=release --last 10 --metric docs_per_sec\n\n\
        Nightlies on a shared machine: each night run the reference build and the nightly with \
        the same --round (e.g. $(date +%Y%m%d)) and check the nightly with --reference.\n\n\
        With git bisect, on your own builds (runs tagged commit=good on the good commit first):\n  \
        git bisect run sh -c './gradlew -q localDistro || exit 125\n      \
        searchbench run logs --no-query -q --engine-dir build/distribution/local/opensearch-*\n      \
        searchbench check --baseline commit=good --metric docs_per_sec'\n\n\
        Exit codes: 0 pass, 3 regressed (or errors rose), 125 cannot tell (git bisect: skip), \
        1 the check could not be made (a store that cannot be read), 2 bad usage (git bisect \
        counts 1 and 2 as bad)."
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// The run to check: a run id (a unique prefix is enough) or key=value tags for a group
    /// of runs [default: the newest stored run].
    pub run: Option<String>,
    /// What to check against: a run id, or key=value[,key=value] for a group of runs.
    #[arg(long, conflicts_with = "last")]
    pub baseline: Option<String>,
    /// Check against the last N complete runs of the same configuration (workload and
    /// settings; any engine, seed and tags) stored before the run.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub last: Option<u64>,
    /// Nightlies paired with a same-day reference: judge the run's ratio to the run of this
    /// selector made in the same round (--round) against the same ratios of the last N earlier
    /// rounds (--last N, default 10): the machine's level on the day cancels in each ratio.
    #[arg(long, value_name = "SELECTOR", conflicts_with = "baseline")]
    pub reference: Option<String>,
    /// A metric to guard (repeatable): a key as `searchbench compare --json` names it, or
    /// its last part, e.g. docs_per_sec, service_p99_ms, service_mean_ms.
    #[arg(long = "metric", value_name = "METRIC", required = true)]
    pub metrics: Vec<String>,
    /// A significant regression smaller than this passes, e.g. 5% or 2.5.
    #[arg(long, default_value = "5%", value_parser = parse_percent)]
    pub threshold: f64,
    /// Print a short Markdown summary (for a pull-request comment) instead of a table.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Check even when a side pools runs of several configurations or the run and its
    /// baseline are different workloads (refused otherwise, naming what differs).
    #[arg(long)]
    pub allow_mixed: bool,
    /// With --last: take the last runs of the same configuration made on any class of
    /// machine (CPU model, cores, memory); by default only the run's own class counts.
    #[arg(long, requires = "last")]
    pub any_machine: bool,
    #[command(flatten)]
    pub plumbing: super::args::PlumbingArgs,
}

pub async fn run(a: CheckArgs) -> CliResult {
    let store = a.store.open().await?;
    let spec = CheckSpec {
        run: a.run.clone(),
        baseline: match (a.baseline.clone(), a.reference.clone(), a.last) {
            (Some(s), _, _) => Baseline::Selector(s),
            (None, Some(selector), n) => Baseline::Reference {
                selector,
                last: usize::try_from(n.unwrap_or(10)).unwrap_or(usize::MAX),
            },
            (None, None, n) => {
                Baseline::Last(usize::try_from(n.unwrap_or(1)).unwrap_or(usize::MAX))
            }
        },
        metrics: a.metrics.clone(),
        threshold_pct: a.threshold,
        allow_mixed: a.allow_mixed,
        machines: if a.any_machine {
            check::Machines::Any
        } else {
            check::Machines::Apart
        },
    };
    let c = check::check(&store, &spec).map_err(|e| {
        if e.is_usage() {
            CliError::usage(e)
        } else {
            CliError::from(e)
        }
    })?;
    if a.json {
        output::json(&c)?;
    } else if a.markdown {
        out!("{}", check::markdown(&c));
    } else {
        output::check::check(&c);
    }
    let summary = || c.reasons.join("; ");
    let verdicts = crate::report::verdicts::Verdicts::of_check(&c);
    let verdict = match c.outcome {
        Outcome::Pass => Ok(()),
        Outcome::Regressed => Err(CliError {
            code: exit::CHECK_FAILED,
            error: anyhow::anyhow!("regressed: {}", summary()),
        }),
        Outcome::CannotTell => Err(CliError {
            code: CANNOT_TELL,
            error: anyhow::anyhow!("cannot tell: {}", summary()),
        }),
    };
    a.plumbing.then(&verdicts, verdict).await
}
