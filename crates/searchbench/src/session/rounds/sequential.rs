//! Rounds until the sequential verdict is known or the budget is spent: what `ab` without
//! `--rounds` and `gate` run. Before the first round it says how long a verdict should take
//! (from the last `ab` of the same command, or `--spread`), after each what is known.

use std::path::Path;
use std::time::Duration;

use super::{Ran, Rounds, RoundsError};
use crate::analysis::compare;
use crate::analysis::sequential::rounds::{rounds_of, said};
use crate::analysis::sequential::{self, Decision, Look, ALPHA};
use crate::cancel::Cancel;
use crate::exit;
use crate::store::Store;

/// `ab`'s default budget of rounds without `--rounds`.
pub const MAX_ROUNDS: u32 = 30;

/// How long the rounds may go on before the verdict is "cannot tell", and how sure it is.
#[derive(Debug, Clone)]
pub struct Budget {
    pub max_rounds: u32,
    /// No round starts that would end past this many minutes from the first.
    pub max_minutes: Option<f64>,
    /// The chance of a false verdict, held however many rounds are looked at.
    pub alpha: f64,
    /// The spread of a round's B/A ratio (%), to say before the start how long a verdict
    /// should take; `None`: the last `ab` of the same command in the store says it.
    pub spread: Option<f64>,
    /// The smallest change worth seeing (%).
    pub threshold_pct: f64,
}

/// The threshold a sequential verdict can be read against: a change of 100 % or more
/// downwards is no rate at all, so such a band means nothing (refused, not clamped).
pub fn check_threshold(threshold_pct: f64) -> Result<(), RoundsError> {
    if threshold_pct < 100.0 {
        Ok(())
    } else {
        Err(RoundsError::Usage(format!(
            "--threshold {threshold_pct} %: a sequential verdict reads changes under 100 % (B cannot be more than 100 % slower); give e.g. 5%"
        )))
    }
}

/// A time to come, as a reader wants it: seconds under two minutes, else minutes.
fn about(secs: f64) -> String {
    if secs < 120.0 {
        format!("~{secs:.0} s")
    } else {
        format!("~{:.0} min", secs / 60.0)
    }
}

/// The verdict of a budget of rounds.
#[derive(Debug, serde::Serialize)]
pub struct Sequential {
    /// The headline metric judged.
    pub metric: Option<String>,
    pub threshold_pct: f64,
    pub alpha: f64,
    pub max_rounds: u32,
    pub max_minutes: Option<f64>,
    /// What stopped the rounds: `decided`, `max_rounds` or `max_minutes`.
    pub stopped_by: &'static str,
    pub minutes: f64,
    #[serde(flatten)]
    pub look: Look,
}

impl Sequential {
    /// The gate's exit code: 3 worse, 0 better or no change as large as the threshold, 125
    /// when the budget was spent first.
    pub fn exit_code(&self) -> i32 {
        match self.look.decision {
            Decision::Worse => exit::CHECK_FAILED,
            Decision::Better | Decision::NoChangeAsLarge => exit::OK,
            Decision::Undecided => exit::CANNOT_TELL,
        }
    }

    /// One line: `worse after 7 rounds (4.2 min): throughput -9.8 % [-14.2, -5.1]`.
    pub fn line(&self) -> String {
        crate::analysis::sequential::rounds::line(
            &self.look,
            self.metric.as_deref(),
            self.threshold_pct,
            self.alpha,
            Some((self.minutes, self.stopped_by)),
        )
    }
}

/// Runs rounds until the sequential verdict is known or the budget is spent, reading what
/// the runs stored from `store`: says what it will do and how long a verdict should take,
/// then after each round what is known.
pub async fn sequential(
    rounds: &Rounds,
    who: &str,
    budget: &Budget,
    store: &Path,
    cancel: &Cancel,
) -> Result<Sequential, RoundsError> {
    let (id, max_rounds, say) = (&rounds.id, budget.max_rounds, &rounds.progress);
    say.say(&format!(
        "{who} {id}: A ({}) and B ({}) round by round (A B, B A, ...) until the verdict is known, at most {max_rounds} rounds{}; stored with the tag ab={id}",
        rounds.shown[0],
        rounds.shown[1],
        budget
            .max_minutes
            .map(|m| format!(" or {m} min"))
            .unwrap_or_default()
    ));
    // No store yet (the first run makes it): nothing known before.
    let known = Store::open_read(store).ok();
    say.say(&expected(
        prior(rounds, known.as_ref(), budget.spread).as_ref(),
        budget,
    ));
    drop(known);
    let begun = std::time::Instant::now();
    // The budget bounds a run already going too (set by the caller from --max-minutes,
    // before any run): a side whose cluster never answers is stopped when it is spent.
    let deadline = rounds.deadline;
    let mut slowest = Duration::ZERO;
    let mut stopped_by = "max_rounds";
    let mut last = None;
    let mut metric = None;
    for round in 1..=max_rounds {
        if let (Some(deadline), Some(_)) = (deadline, last.as_ref()) {
            if tokio::time::Instant::now() + slowest > deadline {
                stopped_by = "max_minutes";
                break;
            }
        }
        let started = std::time::Instant::now();
        let ran = rounds
            .round(round, &format!("/{max_rounds}"), cancel)
            .await?;
        if ran == Ran::OutOfTime {
            stopped_by = "max_minutes";
            break;
        }
        slowest = slowest.max(started.elapsed());
        let (a, b) = rounds.load(&Store::open_read(store)?)?;
        let (key, rate, cost, errors) = rounds_of(&a, &b);
        metric = key;
        let look = sequential::look(
            &rate,
            &cost,
            errors,
            budget.threshold_pct,
            budget.alpha,
            max_rounds as usize,
        );
        let next = match (look.decision.decided(), look.expect_rounds) {
            (true, _) => look.decision.name().to_string(),
            (false, Some(n)) if n > round as usize => format!(
                "undecided; about {} more round(s) at this spread ({})",
                n - round as usize,
                about((n - round as usize) as f64 * slowest.as_secs_f64())
            ),
            (false, _) if look.rate.is_some_and(|s| s.bounded()) => {
                format!("undecided; not within {max_rounds} rounds at this spread")
            }
            (false, _) => "undecided".to_string(),
        };
        say.say(&format!(
            "  after round {round}: {}: {next}",
            said(&look, metric.as_deref())
        ));
        let decided = look.decision.decided();
        last = Some(look);
        if decided {
            stopped_by = "decided";
            break;
        }
    }
    let look = last.ok_or_else(|| {
        RoundsError::Failed(format!("ab {id}: no round ran within --max-minutes"))
    })?;
    Ok(Sequential {
        metric,
        threshold_pct: budget.threshold_pct,
        alpha: budget.alpha,
        max_rounds,
        max_minutes: budget.max_minutes,
        stopped_by,
        minutes: begun.elapsed().as_secs_f64() / 60.0,
        look,
    })
}

/// What the last `ab` of the same command in the store says of this one before it starts:
/// the spread of its rounds' ratio and a round's time.
struct Prior {
    spread: f64,
    round_secs: Option<f64>,
    from: String,
}

fn prior(rounds: &Rounds, store: Option<&Store>, spread_pct: Option<f64>) -> Option<Prior> {
    let runs = store
        .and_then(|store| {
            store
                .list(&crate::store::Filter {
                    tags: vec![("ab_command".into(), rounds.key.clone())],
                    limit: Some(2000),
                    ..Default::default()
                })
                .ok()
        })
        .unwrap_or_default();
    let last = runs
        .iter()
        .find(|r| r.tags.get("ab").is_some_and(|id| *id != rounds.id))
        .and_then(|r| r.tags.get("ab").cloned());
    let mut secs: Vec<f64> = runs
        .iter()
        .filter(|r| last.is_some() && r.tags.get("ab") == last.as_ref())
        .filter_map(|r| Some(r.finished_unix?.saturating_sub(r.started_unix) as f64))
        .collect();
    secs.sort_by(f64::total_cmp);
    let round_secs = crate::stats::median_sorted(&secs).map(|s| 2.0 * s.max(1.0));
    if let Some(pct) = spread_pct {
        return Some(Prior {
            spread: (1.0 + pct / 100.0).ln(),
            round_secs,
            from: "--spread".into(),
        });
    }
    let (last, store) = (last?, store?);
    let load = |side: &str| compare::Side::load(store, &format!("ab={last},ab_side={side}")).ok();
    let (a, b) = (load("a")?, load("b")?);
    let (_, rate, _, _) = rounds_of(&a, &b);
    let gains = rate.gains();
    let s = sequential::sequence(&gains, ALPHA)?;
    Some(Prior {
        spread: s.spread,
        round_secs,
        from: format!("ab {last}'s {} rounds", gains.len()),
    })
}

/// Before the first round: about how long a verdict takes at the prior's spread.
fn expected(prior: Option<&Prior>, budget: &Budget) -> String {
    let Some(p) = prior else {
        return "expected time to a verdict: not known yet (no earlier ab of this command in the store, no --spread); said after the first rounds".into();
    };
    let (threshold_pct, max_rounds) = (budget.threshold_pct, budget.max_rounds);
    // The cost may take half the error budget: the rate's rounds at α/2.
    let at = |change: f64| {
        sequential::rounds_to_decide(
            change,
            p.spread,
            threshold_pct,
            budget.alpha / 2.0,
            2,
            max_rounds as usize,
        )
    };
    let words = |n: Option<usize>| match (n, p.round_secs) {
        (Some(n), Some(s)) => format!("about {n} rounds ({})", about(n as f64 * s)),
        (Some(n), None) => format!("about {n} rounds"),
        (None, _) => format!("more than {max_rounds} rounds"),
    };
    format!(
        "expected (a round's B/A spread ±{:.1} %, from {}): a change of {} % decided in {}; no change as large as {} % shown in {}",
        (p.spread.exp() - 1.0) * 100.0,
        p.from,
        2.0 * threshold_pct,
        words(at((1.0 - 2.0 * threshold_pct / 100.0).max(0.01).ln())),
        threshold_pct,
        words(at(0.0)),
    )
}
