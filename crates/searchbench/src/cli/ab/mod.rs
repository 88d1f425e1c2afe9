//! `searchbench ab --a ARGS --b ARGS -- COMMAND...`: two configurations of one command run
//! round by round in the order A B, B A, A B, ... and compared round by round (paired t): one
//! verdict, the machine's drift between rounds cancelled instead of counted as noise.
//!
//! Each run is this very binary run again (`COMMAND` with the side's arguments, `--round N`
//! and the tags `ab=ID`, `ab_side=a|b`), so a side is anything a stored run can be: another
//! setting, another engine, another build's `--engine-dir`.

use clap::Args;

pub mod gate;
mod rounds;

use rounds::{BudgetArgs, SideArgs};

use super::args::StoreArgs;
use super::{output, CliError, CliResult};
use crate::analysis::compare::{self, format_diff, format_n, format_verdict, Comparison};
use crate::analysis::metrics::THROUGHPUT;
use crate::analysis::sequential::rounds::leaning;
use crate::analysis::sequential::Decision;
use crate::session::rounds::deadline_in;
use crate::session::rounds::sequential::{sequential, MAX_ROUNDS};

#[derive(Debug, Args)]
#[command(
    long_about = "Run two configurations of one command round by round until the verdict is \
        known, and compare them round by round: one verdict that the machine's drift cannot \
        fake.\n\n\
        COMMAND (after --) is a searchbench command that stores a run (ingest, run, query, ...); \
        --a and --b are the arguments each side adds to it. Round 1 runs A then B, round 2 B \
        then A, and so on (A B B A A B ...), so that neither side always runs first. Each run \
        is stored with --round N and the tags ab=ID and ab_side=a or b.\n\n\
        After every round the rounds are judged by a sequential test whose error rate holds at \
        every look (the safe t test: an always-valid confidence sequence of each round's B \
        against its A): it stops as soon as B is worse, better, or shown to differ by less \
        than --threshold, or when --max-rounds or --max-minutes is spent (\"cannot tell\"). \
        It says after each round what it knows and about how many more rounds it needs. The \
        engine's CPU per document is watched beside the rate and leaned on where it is at \
        least twice as steady and the rate cannot tell; a rise in errors is worse at once.\n\n\
        --rounds N runs exactly N rounds instead and compares them as `compare` does (paired t). \
        A run that fails is kept and compared (errors count in every verdict); a command that \
        cannot start (a usage error) stops at once.",
    after_help = "Examples:\n  \
        searchbench ab --a '--bulk-size 500' --b '--bulk-size 2000' -- ingest logs --url URL\n  \
        searchbench ab --max-minutes 15 --a '--engine-dir old' --b '--engine-dir new' -- run logs\n  \
        searchbench ab --rounds 5 --a '' --b '--rtt 5ms' -- ingest logs --url URL\n  \
        searchbench compare ab=ID,ab_side=a ab=ID,ab_side=b      the same comparison again\n\n\
        `searchbench gate` is the nightly or pull-request recipe: it starts the engine, warms it, \
        runs these rounds and exits 0, 3 or 125."
)]
pub struct AbArgs {
    /// Run exactly this many rounds (each runs A once and B once) and compare them with the
    /// paired t, instead of stopping when the verdict is known.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000), conflicts_with_all = ["max_rounds", "max_minutes"])]
    pub rounds: Option<u32>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub sides: SideArgs,
    /// The smallest change worth seeing: a change shown smaller than this either way is "no
    /// change as large as" it.
    #[arg(long, default_value = "5%", value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// Exit 3 when B is worse than A (the sequential verdict; with --rounds, any metric).
    #[arg(long)]
    pub fail_on_worse: bool,
    /// Print the verdict and the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    /// The command both sides run (after --), e.g. `ingest logs --url URL --docs 200k`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub async fn run(a: AbArgs) -> CliResult {
    let mut rounds = rounds::rounds(&a.command, &a.sides, &a.store)?;
    let id = rounds.id.clone();
    if a.rounds.is_none() {
        rounds.deadline = deadline_in(a.budget.max_minutes);
    }
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    let verdict = match a.rounds {
        Some(n) => {
            errln!(
                "ab {id}: {n} rounds of A ({}) and B ({}), in the order A B, B A, ...; stored with the tag ab={id}",
                rounds.shown[0],
                rounds.shown[1]
            );
            for round in 1..=n {
                // No budget with --rounds: every round runs to its end.
                rounds.round(round, &format!("/{n}"), &cancel).await?;
            }
            None
        }
        None => {
            let budget = a.budget.budget(MAX_ROUNDS, a.threshold)?;
            rounds.judged = Some((budget.threshold_pct, budget.alpha));
            let store = a.store.path()?;
            Some(sequential(&rounds, "ab", &budget, &store, &cancel).await?)
        }
    };
    let store = a.store.open()?;
    let (side_a, side_b) = rounds.load(&store)?;
    let mut c = compare::compare_at(side_a, vec![side_b], a.threshold);
    if let Some(why) = verdict
        .as_ref()
        .and_then(|v| leaning(&v.look, v.metric.as_deref(), &c))
    {
        c.notes.insert(0, why);
    }
    let worse = match &verdict {
        Some(v) => v.look.decision == Decision::Worse,
        None => c.any_worse(),
    };
    let line = headline(&c);
    if a.json {
        output::json(&serde_json::json!({
            "ab": id,
            "sequential": verdict,
            "again": rounds.again(),
            "comparison": c,
        }))?;
    } else {
        output::compare::print(c, false, false, false)?;
        if let Some(line) = line {
            outln!("ab {id}: {line}");
        }
        if let Some(v) = &verdict {
            outln!("ab {id}: {}", v.line());
        }
        outln!("again with: {}", rounds.again());
    }
    if a.fail_on_worse && worse {
        return Err(CliError::check(anyhow::anyhow!(
            "B is significantly worse than A"
        )));
    }
    Ok(())
}

/// B against A on the first headline metric the runs have, in one line: `B against A:
/// throughput (headline) -8.1 % [-10.2, -6.0], 5 rounds (paired t), ratio ±1.1 %: worse`.
fn headline(c: &Comparison) -> Option<String> {
    let row = crate::analysis::history::HEADLINE
        .iter()
        .find_map(|key| c.rows.iter().find(|r| r.key == *key))?;
    let cell = row.contenders.first()?.as_ref()?;
    let mut line = format!(
        "B against A: {} {}, {}: {}",
        row.label,
        format_diff(cell),
        format_n(cell),
        format_verdict(cell, c.threshold_pct)
    );
    // The rate could not tell and the engine's CPU per document, far steadier, could: the
    // line says what it leaned on (the whole sentence is among the notes above).
    if let Some(Some(l)) = c.leanings.first().filter(|_| row.key == THROUGHPUT) {
        line.push_str(&format!(
            "; leaning on the engine's CPU per document ({:.1}× steadier): {}{}",
            l.steadier(),
            l.diff_pct
                .map(|d| format!("{d:+.1} %, "))
                .unwrap_or_default(),
            l.verdict.name()
        ));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A side of three runs with these rates and engine CPU per document.
    fn side(label: &str, rate: [f64; 3], cost: [f64; 3]) -> compare::Side {
        use crate::analysis::metrics::{Direction, Metric};
        use crate::analysis::statistics::SampleKind;
        let metric = |key: &str, direction, v: [f64; 3]| Metric {
            key: key.into(),
            label: key.into(),
            unit: "".into(),
            direction,
            value: v.iter().sum::<f64>() / 3.0,
            samples: Some((SampleKind::PerRun, v.to_vec())),
            errors: false,
            rounds: Vec::new(),
        };
        compare::Side {
            label: label.into(),
            run_ids: vec!["1".into(), "2".into(), "3".into()],
            engine: None,
            cpu_model: None,
            states: vec![crate::store::State::Complete; 3],
            excluded: Vec::new(),
            whole_run: None,
            metrics: vec![
                metric(THROUGHPUT, Direction::HigherBetter, rate),
                metric(
                    crate::analysis::steadier::COST,
                    Direction::LowerBetter,
                    cost,
                ),
            ],
            configurations: Vec::new(),
        }
    }

    #[test]
    fn the_line_says_when_it_leans_on_the_cpu_per_document() {
        let a = side("a", [10e3, 14e3, 7e3], [100.0, 100.8, 99.4]);
        let b = side("b", [8e3, 15e3, 7e3], [112.0, 112.9, 111.3]);
        let c = compare::compare_at(a.clone(), vec![b], 5.0);
        let line = headline(&c).unwrap();
        assert!(line.contains("cannot tell"), "{line}");
        assert!(
            line.contains("leaning on the engine's CPU per document") && line.ends_with("worse"),
            "{line}"
        );
        // A rate that can tell says so alone.
        let steady = side("b", [9e3, 9.1e3, 8.9e3], [112.0, 112.9, 111.3]);
        let slow = side("a", [10e3, 10.1e3, 9.9e3], [100.0, 100.8, 99.4]);
        let line = headline(&compare::compare_at(slow, vec![steady], 5.0)).unwrap();
        assert!(
            line.ends_with(": worse") && !line.contains("leaning"),
            "{line}"
        );
    }
}
