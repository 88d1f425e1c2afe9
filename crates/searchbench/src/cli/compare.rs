//! `searchbench compare BASE CONTENDER...`: metric by metric, with intervals and verdicts.

use clap::Args;

use crate::report::verdicts::{Outcome, Verdicts};

use super::args::ReadArgs;

use super::output;
use super::{CliError, CliResult};
use crate::analysis::compare::{self, Side};
use crate::analysis::sequential::{self, rounds, Decision};

#[derive(Debug, Args)]
#[command(
    long_about = "Compare stored runs metric by metric: throughput, service-time percentiles, \
        error rate, CPU, attribution, query cells and accuracy.\n\n\
        Each of BASE and CONTENDER is a run id (a unique prefix is enough) or a tag selector \
        `key=value[,key=value]` that picks every complete run with those tags: a group of \
        repeated runs. For every metric the table gives the contender's difference from the \
        base in percent with a 95 % confidence interval over runs, the runs behind it, and a \
        verdict: better or worse when the interval excludes zero; no significant change when \
        it holds zero and could have seen a change of --threshold; otherwise cannot tell, with \
        the smallest change the runs could have seen and about how many runs a side would see \
        the threshold.\n\n\
        Groups of runs (2 or more a side): one value per run and Welch's t interval \
        (Welch–Satterthwaite degrees of freedom); groups made round by round (a matrix, a \
        sweep, --round, `searchbench ab`) over the same 3 or more rounds: Student's paired t \
        over the rounds' ratios, so that the machine's drift between rounds cancels \
        (--unpaired for Welch). One run against a group: the prediction \
        interval of one more run of the group. One run a side: the difference and no verdict \
        (cannot tell), since the seconds inside a run say nothing of the noise from one run to \
        the next; repeat each configuration with the same --tag (`searchbench calibrate` says \
        how many runs see a given change). The samples column (at 100 columns or more, and in \
        --json and --markdown) shows the runs a side and each side's run-to-run spread (CV). \
        --fail-on-worse never fires on cannot tell.\n\n\
        Errors count in every verdict: failed bulk requests, refused documents, failed \
        searches and wrong answers are error counts, and any rise in one is worse whatever \
        the latency says; a contender with errors is never better. Throughput is the run's \
        headline: documents acknowledged after the warm-up ÷ the steady window.\n\n\
        Only complete runs are compared: a tag group leaves out runs that were interrupted, \
        failed or never finished (and says so), a single interrupted or unfinished run is \
        refused, a failed one is compared and flagged. --include-partial takes them all.",
    after_help = "Examples:\n  \
        searchbench compare 3fa9c2e1 7b01d4aa              two runs\n  \
        searchbench compare 3fa9c2e1 7b01d4aa 90cc12ef     two contenders in one table\n  \
        searchbench compare build=old build=new            repeated runs by tag\n  \
        searchbench compare base=1 new=1 --fail-on-worse   exit 3 on a regression (CI)\n  \
        searchbench compare build=old build=new --only-changed --markdown"
)]
pub struct CompareArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// The base: run id, id prefix, or key=value[,key=value] for a group of runs.
    pub base: String,
    /// One or more contenders, same forms as the base.
    #[arg(required = true)]
    pub contenders: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print a Markdown table instead (for a pull request or a wiki page).
    #[arg(long)]
    pub markdown: bool,
    /// Show only the metrics on which a contender is better or worse, and say how many
    /// others were left out.
    #[arg(long)]
    pub only_changed: bool,
    /// Exit with code 3 when a contender is significantly worse on any metric (a rise in
    /// errors included) or is not complete.
    #[arg(long)]
    pub fail_on_worse: bool,
    /// Also compare runs that are not complete (interrupted, failed, never finished).
    #[arg(long)]
    pub include_partial: bool,
    /// The smallest change worth seeing, e.g. 5% or 2.5: an interval that holds zero but
    /// could not have seen a change this large cannot tell.
    #[arg(long, default_value = "5%", value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// Compare even when a side pools runs of several configurations or the sides are
    /// different workloads (refused otherwise, naming what differs); the result says so.
    #[arg(long)]
    pub allow_mixed: bool,
    /// Compare the sides as independent groups (Welch's t) even when their runs were made
    /// round by round (a matrix, a sweep, --round), which are otherwise compared round by
    /// round (paired t).
    #[arg(long)]
    pub unpaired: bool,
    /// Judge the sides as `ab` and `gate` judge their rounds, the verdict they printed made
    /// again: the safe t test over the paired rounds' headline (and the engine's CPU per
    /// document where it is steadier), errors first. One contender. Exits 3 when it is
    /// worse, 0 when better or no change as large as --threshold, 125 when it cannot tell;
    /// the table below it is each metric's own test, and says which rows the verdict leaned
    /// on.
    #[arg(long, conflicts_with_all = ["unpaired", "include_partial", "allow_mixed"])]
    pub sequential: bool,
    /// With --sequential: the chance of a false verdict, as the rounds were judged (their
    /// `--alpha`).
    #[arg(long, default_value = "5%", value_parser = super::args::parse_alpha, requires = "sequential")]
    pub alpha: f64,
    #[command(flatten)]
    pub plumbing: super::args::PlumbingArgs,
}

pub async fn run(a: CompareArgs) -> CliResult {
    if a.sequential {
        return sequential(&a).await;
    }
    let c = build(&a).await?;
    // Decided on every metric, whatever is shown.
    let worse = c.any_worse();
    let verdicts = Verdicts::of_comparison("compare", &c, None);
    output::compare::print(c, a.json, a.markdown, a.only_changed)?;
    let verdict = if a.fail_on_worse && worse {
        Err(CliError::check(anyhow::anyhow!(
            "a contender is significantly worse than the base"
        )))
    } else {
        Ok(())
    };
    a.plumbing.then(&verdicts, verdict).await
}

/// The comparison `a` asks for, from its store.
async fn build(a: &CompareArgs) -> Result<compare::Comparison, CliError> {
    let store = a.store.open().await?;
    let load = |s: &str| {
        let mut side = Side::load_with(&store, s, a.include_partial).map_err(CliError::usage)?;
        if a.unpaired {
            side.forget_rounds();
        }
        Ok::<_, CliError>(side)
    };
    let base = load(&a.base)?;
    let contenders = a
        .contenders
        .iter()
        .map(|s| load(s))
        .collect::<Result<Vec<_>, _>>()?;
    compare::checked(base, contenders, a.threshold, a.allow_mixed)
        .map_err(|e| CliError::usage(anyhow::anyhow!(e)))
}

/// `--sequential`: the rounds' verdict made again, as `ab` and `gate` made it, the
/// comparison's table under it saying which rows the verdict leaned on.
async fn sequential(a: &CompareArgs) -> CliResult {
    if a.contenders.len() != 1 {
        return Err(CliError::usage(anyhow::anyhow!(
            "--sequential judges one contender against the base (rounds of one ab or gate), not {}",
            a.contenders.len()
        )));
    }
    crate::session::rounds::sequential::check_threshold(a.threshold)?;
    let mut c = build(a).await?;
    let (metric, look) = rounds::judge(
        &c.base,
        &c.contenders[0],
        a.threshold,
        a.alpha,
        sequential::MAX_ROUNDS,
    );
    if let Some(why) = rounds::leaning(&look, metric.as_deref(), &c) {
        c.notes.insert(0, why);
    }
    let line = rounds::line(&look, metric.as_deref(), a.threshold, a.alpha, None);
    let verdicts = Verdicts::of_comparison(
        "compare --sequential",
        &c,
        Some((Outcome::of(look.decision), line.clone())),
    );
    if a.json {
        output::json(&serde_json::json!({
            "sequential": {"metric": metric, "threshold_pct": a.threshold, "alpha": a.alpha,
                "line": line, "look": look},
            "comparison": c,
        }))?;
    } else {
        output::compare::print(c, false, a.markdown, a.only_changed)?;
        outln!("verdict (the rounds' safe t test, as ab and gate judge them): {line}");
    }
    let verdict = match look.decision {
        Decision::Worse => Err(CliError::check(anyhow::anyhow!("B is worse than A"))),
        Decision::Better | Decision::NoChangeAsLarge => Ok(()),
        Decision::Undecided => Err(CliError {
            code: crate::exit::CANNOT_TELL,
            error: anyhow::anyhow!("the rounds cannot tell"),
        }),
    };
    a.plumbing.then(&verdicts, verdict).await
}
