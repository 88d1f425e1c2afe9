//! A verdict as soon as the rounds hold it: the sequential test `ab` and `gate` look at after
//! every round.
//!
//! A fixed number of rounds is too few for a small change on a noisy machine and too many for
//! a large one. Looking after each round and stopping when the answer is clear is only honest
//! with a test whose error rate holds at every look: a t test looked at after each of 20
//! rounds cries wolf in about a quarter of A/A comparisons instead of 5 %.
//!
//! The test is the safe t test (Grünwald, de Heide & Koolen, "Safe testing", JRSS B 2024;
//! Pérez-Ortiz, Lardy, de Heide & Grünwald, "E-statistics, group invariance and anytime-valid
//! testing", Annals of Statistics 2024): the Bayes factor of a one-sample t test with a
//! right-Haar prior on the spread (the unknown noise of the machine) and a normal prior of
//! variance [`PRIOR_G`] on the standardized change. Under "the change is μ" it is a
//! non-negative martingale of the rounds, whatever the spread, so by Ville's inequality it
//! exceeds 1/α with probability at most α at *any* round, however often it is looked at. The
//! changes μ it does not reject at level α make an always-valid confidence sequence: the mean
//! of the rounds' log ratios ± `radius(n) · s / √n`. The verdict reads that sequence against
//! zero and the threshold band:
//!
//! - **worse** / **better**: the sequence excludes zero on that side;
//! - **no change as large as X**: the sequence lies inside `(ln(1 − X), ln(1 + X))`;
//! - otherwise another round.
//!
//! The rounds' values are each round's B against its A (the log ratio, oriented so that a
//! positive value is better), so the machine's drift from round to round cancels, as in
//! `compare`'s paired t. The engine's CPU per document, when the runs have it, is watched
//! beside the rate with half the error budget each (Bonferroni: the two sequences together
//! hold α), and is leaned on when the rate cannot decide and it is at least
//! [`STEADIER_BY`] times steadier, as `check` does, for a change only: a cost that did not
//! change does not say the rate did not (a slower network moves the rate alone), and the
//! rounds go on until the rate decides. A rise in errors is worse at once: a rule,
//! not a test.

use serde::Serialize;

use super::steadier::STEADIER_BY;

pub mod rounds;

/// The family-wise error the verdict holds at every look, unless told otherwise.
pub const ALPHA: f64 = 0.05;

/// The prior variance of the standardized change (the change over the rounds' spread). About
/// the size of changes the gate is for (a 10 % slowdown at a 6 % spread is 1.7): simulated
/// rounds at that spread decided a 10 % change in 7 rounds at the median with 1, 2 and 4, and
/// 2 decides from the 5th round where 1 waits for the 6th (the tests below).
pub const PRIOR_G: f64 = 2.0;

/// The most rounds a budget may ask for: past it the radius is computed all the same, but a
/// run of that many rounds is a mistake to say so about.
pub const MAX_ROUNDS: usize = 10_000;

/// The radius of the confidence sequence after `n` rounds, in standard errors (`s / √n`): the
/// `|t|` at which the safe t test's Bayes factor reaches `1 / alpha`. `None` while no `t`
/// can reach it: with a spread unknown, the first rounds cannot exclude anything (at
/// [`PRIOR_G`], before the 4th round at α = 0.05 and before the 5th at α/2).
pub fn radius(n: usize, alpha: f64) -> Option<f64> {
    if n < 2 || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let nu = (n - 1) as f64;
    let spread = 1.0 + n as f64 * PRIOR_G;
    // BF(t) = spread^(-1/2) · [(1 + t²/ν) / (1 + t²/(ν·spread))]^(n/2) = 1/α, solved for t².
    let r = ((1.0 / alpha) * spread.sqrt()).powf(2.0 / n as f64);
    if !r.is_finite() || r >= spread {
        return None;
    }
    let t2 = nu * (r - 1.0) / (1.0 - r / spread);
    (t2.is_finite() && t2 >= 0.0).then(|| t2.sqrt())
}

/// The safe t test's Bayes factor for "the mean is zero" after these values: what the
/// radius inverts; kept to test the inversion against.
pub fn bayes_factor(values: &[f64]) -> Option<f64> {
    let n = values.len();
    let (mean, s) = mean_sd(values)?;
    if s <= 0.0 {
        return None;
    }
    let nu = (n - 1) as f64;
    let t2 = (mean / (s / (n as f64).sqrt())).powi(2);
    let spread = 1.0 + n as f64 * PRIOR_G;
    Some(spread.powf(-0.5) * ((1.0 + t2 / nu) / (1.0 + t2 / (nu * spread))).powf(n as f64 / 2.0))
}

fn mean_sd(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, var.sqrt()))
}

/// The always-valid confidence sequence of the rounds' mean log ratio after `n` rounds: the
/// intersection of every round's interval so far (each holds at every round at once, so
/// their intersection does too, and it only narrows).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sequence {
    pub rounds: usize,
    /// The rounds' mean log ratio, oriented: positive is B better.
    pub mean: f64,
    /// The rounds' standard deviation of the log ratio (≈ the ratio's spread).
    pub spread: f64,
    /// The sequence's bounds on `mean` (infinite before a round can bound it).
    pub low: f64,
    pub high: f64,
    /// B against A as a reader says it (B / A − 1, percent, whatever the metric's direction),
    /// and the sequence's bounds on it: what every view shows.
    pub change_pct: f64,
    pub low_pct: Option<f64>,
    pub high_pct: Option<f64>,
}

impl Sequence {
    pub fn bounded(&self) -> bool {
        self.low.is_finite() && self.high.is_finite()
    }

    /// The percent figures for a metric of this direction (see [`Sequence::change_pct`]).
    fn said_for(mut self, higher_better: bool) -> Sequence {
        let pct = |g: f64| {
            let ratio = if higher_better { g.exp() } else { (-g).exp() };
            (ratio - 1.0) * 100.0
        };
        self.change_pct = pct(self.mean);
        let (a, b) = (pct(self.low), pct(self.high));
        let bounded = self.bounded();
        self.low_pct = bounded.then(|| a.min(b));
        self.high_pct = bounded.then(|| a.max(b));
        self
    }
}

/// The confidence sequence over `gains` (each round's oriented log ratio, in the order run) at
/// level `alpha`; `None` before two rounds.
pub fn sequence(gains: &[f64], alpha: f64) -> Option<Sequence> {
    let (mean, spread) = mean_sd(gains)?;
    let (mut low, mut high) = (f64::NEG_INFINITY, f64::INFINITY);
    // Each prefix's mean and spread from running sums about the whole mean (steady in
    // floating point: the values are small log ratios around it).
    let (mut sum, mut sq) = (0.0, 0.0);
    for (i, g) in gains.iter().enumerate() {
        let d = g - mean;
        sum += d;
        sq += d * d;
        let n = i + 1;
        let Some(q) = radius(n, alpha) else {
            continue;
        };
        let nf = n as f64;
        let m = sum / nf;
        let s = ((sq - nf * m * m) / (nf - 1.0)).max(0.0).sqrt();
        let m = m + mean;
        let half = q * s / nf.sqrt();
        let (lo, hi) = (low.max(m - half), high.min(m + half));
        // Disjoint intervals: the rounds contradict the model (a level that jumped); the
        // latest interval is kept rather than an empty one.
        if lo > hi {
            (low, high) = (m - half, m + half);
        } else {
            (low, high) = (lo, hi);
        }
    }
    Some(
        Sequence {
            rounds: gains.len(),
            mean,
            spread,
            low,
            high,
            change_pct: 0.0,
            low_pct: None,
            high_pct: None,
        }
        .said_for(true),
    )
}

/// What a sequence says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Worse,
    Better,
    /// Inside the threshold band: no change as large as the threshold, either way.
    NoChangeAsLarge,
    /// Not yet: another round.
    Undecided,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Worse => "worse",
            Decision::Better => "better",
            Decision::NoChangeAsLarge => "no change as large as the threshold",
            Decision::Undecided => "undecided",
        }
    }

    pub fn decided(self) -> bool {
        self != Decision::Undecided
    }
}

/// The threshold band in log ratio: `(ln(1 − X), ln(1 + X))` for a threshold of X percent.
fn band(threshold_pct: f64) -> (f64, f64) {
    let x = (threshold_pct / 100.0).clamp(0.0, 0.999);
    ((1.0 - x).ln(), (1.0 + x).ln())
}

/// The decision of a sequence against the threshold: inside the band first (a change shown
/// smaller than the threshold is "no change as large", whatever its side), then either side
/// of zero.
pub fn decide(s: &Sequence, threshold_pct: f64) -> Decision {
    if !s.bounded() {
        return Decision::Undecided;
    }
    let (lo, hi) = band(threshold_pct);
    if s.low > lo && s.high < hi {
        Decision::NoChangeAsLarge
    } else if s.high < 0.0 {
        Decision::Worse
    } else if s.low > 0.0 {
        Decision::Better
    } else {
        Decision::Undecided
    }
}

/// About how many rounds in all would decide, were the mean and spread to stay as they are:
/// the first `m` whose half-width `radius(m) · spread / √m` is under the mean's distance from
/// zero or inside the band. `None` beyond `max_rounds`.
pub fn rounds_to_decide(
    mean: f64,
    spread: f64,
    threshold_pct: f64,
    alpha: f64,
    from: usize,
    max_rounds: usize,
) -> Option<usize> {
    let (lo, hi) = band(threshold_pct);
    let room = mean.abs().max((mean - lo).min(hi - mean));
    if !(spread.is_finite() && spread >= 0.0) || room <= 0.0 {
        return None;
    }
    (from.max(2)..=max_rounds.min(MAX_ROUNDS))
        .find(|&m| radius(m, alpha).is_some_and(|q| q * spread / (m as f64).sqrt() < room))
}

/// One metric's rounds: each round's (A, B) value and whether higher is better.
#[derive(Debug, Clone, Default)]
pub struct Paired {
    pub pairs: Vec<(f64, f64)>,
    pub higher_better: bool,
}

impl Paired {
    /// Each round's log ratio oriented so that positive is better; a round with a value that
    /// is not positive (a run that did nothing) has none.
    pub fn gains(&self) -> Vec<f64> {
        self.pairs
            .iter()
            .filter(|(a, b)| *a > 0.0 && *b > 0.0 && a.is_finite() && b.is_finite())
            .map(|(a, b)| {
                let r = (b / a).ln();
                if self.higher_better {
                    r
                } else {
                    -r
                }
            })
            .collect()
    }
}

/// What decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The headline metric.
    Rate,
    /// The engine's CPU per document, the rate unable to.
    Cost,
    /// B's errors rose.
    Errors,
    Nothing,
}

/// The verdict after some rounds.
#[derive(Debug, Clone, Serialize)]
pub struct Look {
    pub rounds: usize,
    pub decision: Decision,
    pub by: DecidedBy,
    /// The error budget of each sequence (α, or α/2 with the cost watched beside the rate).
    pub alpha_each: f64,
    pub rate: Option<Sequence>,
    pub cost: Option<Sequence>,
    /// About how many rounds in all would decide at the spread so far (`None`: not within
    /// the budget, or not known yet).
    pub expect_rounds: Option<usize>,
}

/// The sequential verdict on the rounds so far: the headline rate's pairs, the cost's (empty
/// when the runs have none), and each side's errors.
pub fn look(
    rate: &Paired,
    cost: &Paired,
    errors: (f64, f64),
    threshold_pct: f64,
    alpha: f64,
    max_rounds: usize,
) -> Look {
    let (rg, cg) = (rate.gains(), cost.gains());
    let alpha_each = if cg.len() >= 2 { alpha / 2.0 } else { alpha };
    let rs = sequence(&rg, alpha_each).map(|s| s.said_for(rate.higher_better));
    let cs = (cg.len() >= 2)
        .then(|| sequence(&cg, alpha_each))
        .flatten()
        .map(|s| s.said_for(cost.higher_better));
    let rounds = rate.pairs.len().max(cost.pairs.len());
    let rd = rs.map_or(Decision::Undecided, |s| decide(&s, threshold_pct));
    let cd = cs.map_or(Decision::Undecided, |s| decide(&s, threshold_pct));
    let steadier = match (rs, cs) {
        (Some(r), Some(c)) => c.spread * STEADIER_BY <= r.spread,
        _ => false,
    };
    let (mut decision, mut by) = if errors.1 > errors.0 {
        (Decision::Worse, DecidedBy::Errors)
    } else if rd.decided() {
        (rd, DecidedBy::Rate)
    } else if matches!(cd, Decision::Worse | Decision::Better) && steadier {
        // Only a change: the cost unchanged does not say the rate is (a slower network moves
        // the rate alone), and the rounds can go on until the rate itself decides.
        (cd, DecidedBy::Cost)
    } else {
        (Decision::Undecided, DecidedBy::Nothing)
    };
    // A side with failures is never better: it is judged on, round after round.
    if decision == Decision::Better && errors.1 > 0.0 {
        (decision, by) = (Decision::Undecided, DecidedBy::Nothing);
    }
    let expect = |s: Option<Sequence>| {
        s.and_then(|s| {
            rounds_to_decide(
                s.mean,
                s.spread,
                threshold_pct,
                alpha_each,
                rounds + 1,
                max_rounds,
            )
        })
    };
    let expect_rounds = if decision.decided() {
        Some(rounds)
    } else {
        match (expect(rs), expect(cs).filter(|_| steadier)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    };
    Look {
        rounds,
        decision,
        by,
        alpha_each,
        rate: rs,
        cost: cs,
        expect_rounds,
    }
}

#[cfg(test)]
mod tests;
