//! Bisecting a version axis: which release first changed a metric, with repeated runs until
//! each probe is clearly on one side.
//!
//! The search is pure: it asks a [`Probe`] for one more measurement of version `i` and
//! decides from the values alone, so it runs the same over real engines and over a test
//! double.
//!
//! 1. Both ends are measured [`Policy::min_repeats`] times, then once more each until they
//!    differ (Welch's t interval on the logarithms excludes zero and the change is at least
//!    the threshold), or the runs could have seen a change of the threshold and did not
//!    (no change: nothing to bisect), or [`Policy::max_repeats`] is reached (cannot tell).
//! 2. Binary search between the last version known good and the first known bad. A probe is
//!    measured twice, then once more at a time, until its mean is clearly on one side of the
//!    midpoint between the good and the bad level: the 95 % interval of
//!    `mean(probe) − (mean(good) + mean(bad)) / 2` (logarithms; Welch–Satterthwaite degrees
//!    of freedom over the three sets of samples) excludes zero. The good level is every run
//!    of the versions already found good, the bad level likewise (one change is what a
//!    bisection looks for, so they share a level; a drift among them widens the interval).
//!    While a probe is undecided the ends get a run too, interleaved. A probe still undecided after
//!    [`Policy::max_repeats`] stops the search: it says so and gives the range that remains,
//!    rather than guessing.
//!
//! The answer names the first version with the change and keeps the evidence: every value
//! of every probed version, its median and its change from the good end.

use std::future::Future;

use serde::Serialize;

use crate::analysis::statistics::{min_detectable, t975, welch_diff, Interval};

/// Measures one version once more.
pub trait Probe {
    type Error;
    /// One more run of version `index` (0 is the good end, the last the bad end): the
    /// metric's value.
    fn measure(&mut self, index: usize) -> impl Future<Output = Result<f64, Self::Error>>;
}

/// How hard to try.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Policy {
    /// Runs of each end before the first decision (at least 2).
    pub min_repeats: usize,
    /// Runs of one version at most.
    pub max_repeats: usize,
    /// The smallest change worth bisecting, percent.
    pub threshold_pct: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            min_repeats: 3,
            max_repeats: 10,
            threshold_pct: 5.0,
        }
    }
}

/// Where a probed version fell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Good,
    Bad,
    /// Not clearly on either side after the most runs allowed.
    Undecided,
}

/// One measured version and its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Probed {
    pub index: usize,
    pub values: Vec<f64>,
    pub median: f64,
    /// Change of its mean from the good end's, percent, Welch's 95 % interval.
    pub vs_good: Option<Interval>,
    pub side: Side,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// `first_bad` is the first version with the change; `last_good` the one before it.
    Found { last_good: usize, first_bad: usize },
    /// The ends do not differ by the threshold, and the runs could have seen it.
    NoChange {
        /// The smallest change the ends' runs could have detected (80 % power), percent.
        could_detect_pct: Option<f64>,
    },
    /// The runs are too noisy to decide: the change lies somewhere from `good` (exclusive)
    /// to `bad` (inclusive), as far as the search got.
    CannotTell {
        good: usize,
        bad: usize,
        why: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Bisection {
    pub outcome: Outcome,
    /// The change from the good end to the bad end, percent.
    pub change: Option<Interval>,
    pub policy: Policy,
    /// Every version measured, in the order probed (the two ends first).
    pub probed: Vec<Probed>,
    /// Versions probed between the ends.
    pub probes: usize,
    /// Runs in all.
    pub runs: usize,
}

/// Bisects the versions `0..count` (0 good, `count - 1` bad) with `probe`.
pub async fn bisect<P: Probe>(
    count: usize,
    policy: Policy,
    probe: &mut P,
) -> Result<Bisection, P::Error> {
    let min = policy.min_repeats.max(2);
    let max = policy.max_repeats.max(min);
    let bad_end = count.saturating_sub(1);
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); count];
    let mut order: Vec<usize> = Vec::new();
    let mut sides: Vec<Option<Side>> = vec![None; count];
    let mut runs = 0;
    let finish = |outcome, samples: &[Vec<f64>], order: &[usize], sides: &[Option<Side>], runs| {
        let probed: Vec<Probed> = order
            .iter()
            .map(|&i| Probed {
                index: i,
                values: samples[i].clone(),
                median: crate::stats::median(&samples[i]).unwrap_or(f64::NAN),
                vs_good: (i != 0)
                    .then(|| welch_diff(&samples[0], &samples[i]))
                    .flatten(),
                side: sides[i].unwrap_or(Side::Undecided),
            })
            .collect();
        Bisection {
            outcome,
            change: welch_diff(&samples[0], &samples[bad_end]),
            policy,
            probes: order.iter().filter(|&&i| i != 0 && i != bad_end).count(),
            probed,
            runs,
        }
    };
    if count < 2 {
        let outcome = Outcome::CannotTell {
            good: 0,
            bad: bad_end,
            why: "fewer than two versions".into(),
        };
        return Ok(Bisection {
            outcome,
            change: None,
            policy,
            probed: Vec::new(),
            probes: 0,
            runs: 0,
        });
    }

    // 1. The ends.
    order.extend([0, bad_end]);
    loop {
        for end in [0, bad_end] {
            while samples[end].len() < min {
                samples[end].push(probe.measure(end).await?);
                runs += 1;
            }
        }
        let change = welch_diff(&samples[0], &samples[bad_end]);
        let differ =
            change.is_some_and(|c| c.excludes_zero() && middle(c).abs() >= policy.threshold_pct);
        if differ {
            break;
        }
        let mde = min_detectable(&samples[0], &samples[bad_end]);
        if mde.is_some_and(|m| m <= policy.threshold_pct) {
            sides[0] = Some(Side::Good);
            let outcome = Outcome::NoChange {
                could_detect_pct: mde,
            };
            return Ok(finish(outcome, &samples, &order, &sides, runs));
        }
        if samples[0].len() >= max {
            let outcome = Outcome::CannotTell {
                good: 0,
                bad: bad_end,
                why: format!(
                    "the ends do not differ significantly after {max} runs each, and these runs could detect only changes over {}",
                    mde.map(|m| format!("{m:.1} %")).unwrap_or_else(|| "?".into())
                ),
            };
            return Ok(finish(outcome, &samples, &order, &sides, runs));
        }
        for end in [0, bad_end] {
            samples[end].push(probe.measure(end).await?);
            runs += 1;
        }
    }
    sides[0] = Some(Side::Good);
    sides[bad_end] = Some(Side::Bad);

    // 2. Binary search.
    let (mut good, mut bad) = (0, bad_end);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        order.push(mid);
        let side = loop {
            if samples[mid].len() >= 2 {
                let pooled = |want: Side| -> Vec<f64> {
                    (0..count)
                        .filter(|&i| sides[i] == Some(want))
                        .flat_map(|i| samples[i].iter().copied())
                        .collect()
                };
                let (good_ref, bad_ref) = (pooled(Side::Good), pooled(Side::Bad));
                if let Some(side) = side_of(&samples[mid], &good_ref, &bad_ref) {
                    break side;
                }
                if samples[mid].len() >= max {
                    break Side::Undecided;
                }
            }
            samples[mid].push(probe.measure(mid).await?);
            runs += 1;
            // The midpoint is only as sure as the ends: they get a run too when the probe
            // has caught up with them (interleaved, so drift spreads over all three).
            if samples[mid].len() > samples[0].len() && samples[0].len() < max {
                for end in [0, bad_end] {
                    samples[end].push(probe.measure(end).await?);
                    runs += 1;
                }
            }
        };
        sides[mid] = Some(side);
        match side {
            Side::Good => good = mid,
            Side::Bad => bad = mid,
            Side::Undecided => {
                let outcome = Outcome::CannotTell {
                    good,
                    bad,
                    why: format!("version {mid} is not clearly on either side after {max} runs"),
                };
                return Ok(finish(outcome, &samples, &order, &sides, runs));
            }
        }
    }
    let outcome = Outcome::Found {
        last_good: good,
        first_bad: bad,
    };
    Ok(finish(outcome, &samples, &order, &sides, runs))
}

fn middle(i: Interval) -> f64 {
    (i.low_pct + i.high_pct) / 2.0
}

/// Mean and variance of the mean (`s² / n`); `None` under 2 values.
fn mean_var(v: &[f64]) -> Option<(f64, f64)> {
    let n = v.len();
    if n < 2 {
        return None;
    }
    let m = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
    Some((m, var / n as f64))
}

/// Which end `probe` is clearly nearer: the interval of its mean's distance from the
/// midpoint between the ends' means excludes zero. On the logarithms when every value is
/// positive (noise in timings is multiplicative).
fn side_of(probe: &[f64], good: &[f64], bad: &[f64]) -> Option<Side> {
    let positive = [probe, good, bad]
        .iter()
        .all(|v| v.iter().all(|x| *x > 0.0 && x.is_finite()));
    let scale = |v: &[f64]| -> Vec<f64> {
        if positive {
            v.iter().map(|x| x.ln()).collect()
        } else {
            v.to_vec()
        }
    };
    let (p, g, b) = (scale(probe), scale(good), scale(bad));
    let ((mp, vp), (mg, vg), (mb, vb)) = (mean_var(&p)?, mean_var(&g)?, mean_var(&b)?);
    // Terms of the variance of mp − (mg + mb) / 2, with their degrees of freedom.
    let terms = [
        (vp, p.len() - 1),
        (vg / 4.0, g.len() - 1),
        (vb / 4.0, b.len() - 1),
    ];
    let var: f64 = terms.iter().map(|(v, _)| v).sum();
    let df = if var == 0.0 {
        f64::INFINITY
    } else {
        var * var / terms.iter().map(|(v, d)| v * v / *d as f64).sum::<f64>()
    };
    let x = mp - (mg + mb) / 2.0;
    let half = t975(df) * var.sqrt();
    if (x - half..=x + half).contains(&0.0) {
        return None;
    }
    // Nearer the bad end when on the bad end's side of the midpoint.
    Some(if (x > 0.0) == (mb > mg) {
        Side::Bad
    } else {
        Side::Good
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Twelve versions whose service time is `base` ms up to version `from` (exclusive) and
    /// `base × (1 + step)` from it on, each run off by `cv` (relative, about normal).
    struct Double {
        from: usize,
        base: f64,
        step: f64,
        cv: f64,
        rng: Rng,
    }

    impl Probe for Double {
        type Error = std::convert::Infallible;
        async fn measure(&mut self, index: usize) -> Result<f64, Self::Error> {
            let level = if index >= self.from {
                self.base * (1.0 + self.step)
            } else {
                self.base
            };
            Ok(level * (1.0 + self.cv * self.rng.normalish()))
        }
    }

    fn run(double: &mut Double, policy: Policy) -> Bisection {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        match rt.block_on(bisect(12, policy, double)) {
            Ok(b) => b,
            Err(never) => match never {},
        }
    }

    fn double(step: f64, cv: f64, seed: u64) -> Double {
        Double {
            from: 5,
            base: 10.0,
            step,
            cv,
            rng: Rng::new(seed, 7),
        }
    }

    #[test]
    fn a_rise_from_the_sixth_of_twelve_versions_is_found_in_at_most_five_probes() {
        // Service time 10 ms, 12 ms from the sixth version on; each run off by 5 % (CV).
        let (mut found, mut most_probes, mut most_runs) = (0, 0, 0);
        for seed in 0..300 {
            let b = run(&mut double(0.20, 0.05, seed), Policy::default());
            most_probes = most_probes.max(b.probes);
            most_runs = most_runs.max(b.runs);
            match b.outcome {
                Outcome::Found {
                    last_good,
                    first_bad,
                } => {
                    assert_eq!((last_good, first_bad), (4, 5), "seed {seed}: {b:#?}");
                    found += 1;
                    // The evidence: the first bad version is on the bad side, its median
                    // above the good level, its change from the good end given.
                    let p = b.probed.iter().find(|p| p.index == 5).unwrap();
                    assert_eq!(p.side, Side::Bad);
                    assert!(p.median > 11.0, "{p:?}");
                    assert!(p.vs_good.is_some(), "{p:?}");
                }
                // An unlucky draw may leave a probe undecided after 10 runs: then the range
                // that remains still holds the change.
                Outcome::CannotTell { good, bad, .. } => {
                    assert!(good < 5 && bad >= 5, "seed {seed}: {b:#?}")
                }
                Outcome::NoChange { .. } => panic!("seed {seed}: a 20 % rise missed"),
            }
        }
        assert!(most_probes <= 5, "{most_probes} probes");
        assert!(found >= 294, "found in {found} of 300 seeds");
        assert!(most_runs <= 70, "{most_runs} runs");
    }

    #[test]
    fn no_change_says_there_is_nothing_to_bisect() {
        let mut said = 0;
        for seed in 0..100 {
            let b = run(&mut double(0.0, 0.02, seed), Policy::default());
            assert!(
                !matches!(b.outcome, Outcome::Found { .. }),
                "seed {seed}: {b:#?}"
            );
            if let Outcome::NoChange { could_detect_pct } = b.outcome {
                assert!(could_detect_pct.unwrap() <= 5.0);
                said += 1;
            }
            assert_eq!(b.probes, 0);
        }
        assert!(said >= 95, "{said} of 100 said no change");
    }

    #[test]
    fn too_much_noise_cannot_tell_rather_than_guess() {
        let (mut cannot, mut wrong) = (0, 0);
        for seed in 0..100 {
            let b = run(&mut double(0.10, 0.40, seed), Policy::default());
            match b.outcome {
                Outcome::CannotTell { .. } => cannot += 1,
                Outcome::Found { first_bad, .. } => wrong += usize::from(first_bad != 5),
                Outcome::NoChange { .. } => {
                    panic!("seed {seed}: such noisy runs cannot rule a change out")
                }
            }
        }
        assert!(cannot >= 90, "{cannot} of 100 said they cannot tell");
        assert!(wrong <= 2, "{wrong} of 100 named a wrong version");
    }
}
