use super::*;
use crate::rng::Rng;

/// A standard normal draw (Box–Muller): the error rates are about the tails, which the
/// cheap `normalish` cuts.
fn gauss(rng: &mut Rng) -> f64 {
    let u = 1.0 - rng.unit();
    let v = rng.unit();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// One simulated gate: rounds of A and B whose level drifts together (`drift`, a share of the
/// level moving as a slow wave over the rounds, as a co-tenant's hours do), each run with its
/// own noise (`noise`, the run-to-run spread), B's rate `effect` away from A's; the cost per
/// document beside them with its own noise and change. Looks after every round until a
/// decision or `max` rounds.
#[derive(Clone, Copy)]
struct World {
    effect: f64,
    noise: f64,
    drift: f64,
    cost_effect: f64,
    cost_noise: f64,
    with_cost: bool,
}

const QUIET: World = World {
    effect: 0.0,
    noise: 0.045,
    drift: 0.3,
    cost_effect: 0.0,
    cost_noise: 0.035,
    with_cost: true,
};

fn gate(w: World, threshold: f64, max: usize, rng: &mut Rng) -> Look {
    let phase = rng.unit() * std::f64::consts::TAU;
    let (mut rate, mut cost) = (
        Paired {
            higher_better: true,
            ..Default::default()
        },
        Paired::default(),
    );
    let mut last = None;
    for round in 0..max {
        let level = 30_000.0 * (1.0 + w.drift * (phase + round as f64 * 0.7).sin());
        let a = level * (1.0 + w.noise * gauss(rng));
        let b = level * (1.0 + w.effect) * (1.0 + w.noise * gauss(rng));
        rate.pairs.push((a, b));
        if w.with_cost {
            let ca = 100.0 * (1.0 + w.cost_noise * gauss(rng));
            let cb = 100.0 * (1.0 + w.cost_effect) * (1.0 + w.cost_noise * gauss(rng));
            cost.pairs.push((ca, cb));
        }
        let l = look(&rate, &cost, (0.0, 0.0), threshold, ALPHA, max);
        if l.decision.decided() {
            return l;
        }
        last = Some(l);
    }
    last.expect("at least one round")
}

struct Tally {
    worse: usize,
    better: usize,
    none: usize,
    undecided: usize,
    rounds: Vec<usize>,
    by_cost: usize,
}

fn trials(w: World, threshold: f64, max: usize, n: usize, seed: u64) -> Tally {
    let mut rng = Rng::new(seed, 79);
    let mut t = Tally {
        worse: 0,
        better: 0,
        none: 0,
        undecided: 0,
        rounds: Vec::new(),
        by_cost: 0,
    };
    for _ in 0..n {
        let l = gate(w, threshold, max, &mut rng);
        match l.decision {
            Decision::Worse => t.worse += 1,
            Decision::Better => t.better += 1,
            Decision::NoChangeAsLarge => t.none += 1,
            Decision::Undecided => t.undecided += 1,
        }
        if l.by == DecidedBy::Cost {
            t.by_cost += 1;
        }
        t.rounds.push(l.rounds);
    }
    t.rounds.sort_unstable();
    t
}

fn median(v: &[usize]) -> usize {
    v[v.len() / 2]
}

#[test]
fn the_radius_is_where_the_bayes_factor_reaches_one_over_alpha() {
    for n in 4..40 {
        let q = radius(n, 0.05).unwrap_or_else(|| panic!("no radius at {n}"));
        // Values with mean q·s/√n and spread s: their t is q.
        let mut v: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        if n % 2 == 1 {
            v[n - 1] = 0.0;
        }
        let (_, s) = mean_sd(&v).unwrap();
        let shift = q * s / (n as f64).sqrt();
        let v: Vec<f64> = v
            .iter()
            .map(|x| x - mean_sd(&v).unwrap().0 + shift)
            .collect();
        let bf = bayes_factor(&v).unwrap();
        assert!((bf - 20.0).abs() < 1e-6 * 20.0, "n {n}: BF {bf} at t {q}");
    }
    // With the spread unknown, the first rounds cannot reach 1/α, whatever they show.
    assert_eq!(radius(3, 0.05), None);
    assert!(radius(4, 0.05).is_some());
    assert_eq!(radius(4, 0.025), None);
    assert!(radius(5, 0.025).is_some());
    // In standard errors it narrows over the first rounds, then widens slowly (as √log n: the
    // price of looking for ever), always beyond the fixed-sample t's 1.96; the half-width it
    // gives, radius / √n, narrows at every round.
    let r: Vec<f64> = (4..40).map(|n| radius(n, 0.05).unwrap()).collect();
    assert!(r.windows(2).all(|w| w[1] < w[0]), "{r:?}");
    let w: Vec<f64> = (4..2000)
        .map(|n| radius(n, 0.05).unwrap() / (n as f64).sqrt())
        .collect();
    assert!(w.windows(2).all(|w| w[1] < w[0]));
    assert!((4..2000).all(|n| radius(n, 0.05).unwrap() > 1.96));
}

#[test]
fn a_t_test_looked_at_every_round_cries_wolf_where_the_sequence_does_not() {
    // The reason for the sequential test: the fixed-sample paired t, looked at after each of
    // 20 rounds of an A/A, finds a change far more often than its 5 %.
    let mut rng = Rng::new(7, 1);
    let (mut naive, mut safe) = (0, 0);
    let n = 2000;
    for _ in 0..n {
        let v: Vec<f64> = (0..20).map(|_| 0.06 * gauss(&mut rng)).collect();
        let cried = (3..=20).any(|k| {
            let (m, s) = mean_sd(&v[..k]).unwrap();
            let t = m / (s / (k as f64).sqrt());
            t.abs() > crate::analysis::statistics::t975((k - 1) as f64)
        });
        naive += usize::from(cried);
        let s = sequence(&v, ALPHA).unwrap();
        safe += usize::from(s.low > 0.0 || s.high < 0.0);
    }
    let (naive, safe) = (naive as f64 / n as f64, safe as f64 / n as f64);
    assert!(naive > 0.15, "naive t at every look: {naive}");
    assert!(safe <= 0.05, "the sequence: {safe}");
}

#[test]
fn an_a_a_on_a_drifting_machine_holds_the_false_alarm_rate_at_every_look() {
    // No change, a level that moves by ±30 % over the rounds, up to 60 looks, the rate and
    // the cost both watched: "worse" or "better" at most 5 % of the time.
    let t = trials(QUIET, 5.0, 60, 1000, 1);
    let alarms = (t.worse + t.better) as f64 / 1000.0;
    assert!(alarms <= 0.05, "false alarms {alarms}");
    // And most say there is no change as large as 5 % within the budget.
    assert!(t.none >= 800, "no change shown in {} of 1000", t.none);
    // Without the drift cancelled (the ratio of unpaired levels), the same test would be lost:
    // the pairing is what keeps the spread at the runs' own.
    let lone = trials(
        World {
            with_cost: false,
            ..QUIET
        },
        5.0,
        60,
        1000,
        2,
    );
    assert!(
        (lone.worse + lone.better) as f64 / 1000.0 <= 0.05,
        "rate alone: {} + {}",
        lone.worse,
        lone.better
    );
}

#[test]
fn a_ten_percent_slowdown_is_found_in_a_few_rounds() {
    // The runs' spread on this machine (BENCHMARKS "Power": rounds' ratio ±6.3 %, runs' CV
    // 5.4 %): 10 % slower is worse in every trial, at about 7 rounds.
    let w = World {
        effect: -0.10,
        ..QUIET
    };
    let t = trials(w, 5.0, 30, 500, 3);
    assert!(t.worse >= 490, "found in {} of 500", t.worse);
    // The wrong way round at most as often as the cost's half of the error budget allows.
    assert!(t.better as f64 / 500.0 <= ALPHA / 2.0, "{}", t.better);
    let m = median(&t.rounds);
    assert!((5..=10).contains(&m), "median rounds {m}");
    // 15 % sooner, 5 % later: the test waits as long as the change needs, no longer.
    let fast = trials(
        World {
            effect: -0.15,
            ..QUIET
        },
        5.0,
        30,
        500,
        4,
    );
    let slow = trials(
        World {
            effect: -0.05,
            ..QUIET
        },
        5.0,
        60,
        500,
        5,
    );
    assert!(median(&fast.rounds) < m && m < median(&slow.rounds));
    assert!(slow.worse >= 400, "5 %: found in {} of 500", slow.worse);
    // A better B is better, as often.
    let up = trials(
        World {
            effect: 0.10,
            ..QUIET
        },
        5.0,
        30,
        500,
        6,
    );
    assert!(
        up.better >= 490 && up.worse as f64 / 500.0 <= ALPHA / 2.0,
        "{} {}",
        up.better,
        up.worse
    );
}

#[test]
fn a_noisy_rate_leans_on_a_steadier_cost_per_document() {
    // A co-tenant's noise on the rate (25 % a run) and a cost 10 % higher measured at 3 %:
    // the cost decides, and says it was the one.
    let w = World {
        effect: 0.0,
        noise: 0.25,
        drift: 0.0,
        cost_effect: 0.10,
        cost_noise: 0.03,
        with_cost: true,
    };
    let t = trials(w, 5.0, 30, 300, 8);
    assert!(t.worse >= 285, "worse in {} of 300", t.worse);
    assert!(t.by_cost >= 285, "by the cost in {}", t.by_cost);
    // A cost as steady as the rate is leaned on only when its rounds happen to look twice
    // as steady, far less often, and the rate decides the rest.
    let even = World {
        noise: 0.04,
        cost_noise: 0.04,
        cost_effect: 0.10,
        ..w
    };
    let t = trials(even, 5.0, 30, 200, 9);
    assert!(t.by_cost <= 50, "leaned on in {} of 200", t.by_cost);
}

#[test]
fn a_rise_in_errors_is_worse_at_once_and_a_side_with_errors_is_never_better() {
    let rate = Paired {
        pairs: vec![(100.0, 101.0)],
        higher_better: true,
    };
    let l = look(&rate, &Paired::default(), (0.0, 3.0), 5.0, ALPHA, 30);
    assert_eq!((l.decision, l.by), (Decision::Worse, DecidedBy::Errors));
    // Far better on every round, but with errors of its own (no more than A's): not better.
    let rate = Paired {
        pairs: (0..10)
            .map(|i| (100.0 + i as f64, 150.0 + i as f64))
            .collect(),
        higher_better: true,
    };
    let clean = look(&rate, &Paired::default(), (0.0, 0.0), 5.0, ALPHA, 30);
    assert_eq!(clean.decision, Decision::Better);
    let l = look(&rate, &Paired::default(), (2.0, 2.0), 5.0, ALPHA, 30);
    assert_eq!(l.decision, Decision::Undecided);
}

#[test]
fn a_latency_headline_is_better_when_it_falls() {
    let rate = Paired {
        pairs: (0..8).map(|i| (10.0 + i as f64 * 0.01, 8.0)).collect(),
        higher_better: false,
    };
    let l = look(&rate, &Paired::default(), (0.0, 0.0), 5.0, ALPHA, 30);
    assert_eq!(l.decision, Decision::Better);
    // Said as B against A: about 20 % lower, the bounds below zero.
    let s = l.rate.unwrap();
    let (lo, hi) = (s.low_pct.unwrap(), s.high_pct.unwrap());
    assert!((s.change_pct + 20.0).abs() < 0.5, "{}", s.change_pct);
    assert!(
        lo < s.change_pct && s.change_pct < hi && hi < 0.0,
        "{lo} {hi}"
    );
}

#[test]
fn the_rounds_expected_agree_with_the_rounds_taken() {
    // What a look says it needs, from the spread alone, is about what simulated trials took.
    let mean = (0.9f64).ln();
    let said = rounds_to_decide(mean, 0.063, 5.0, ALPHA / 2.0, 2, 100).unwrap();
    let t = trials(
        World {
            effect: -0.10,
            ..QUIET
        },
        5.0,
        30,
        300,
        10,
    );
    let m = median(&t.rounds);
    assert!(said.abs_diff(m) <= 3, "said {said}, took {m} at the median");
    // No change at that spread: about the rounds the band needs.
    let said = rounds_to_decide(0.0, 0.063, 5.0, ALPHA / 2.0, 2, 100).unwrap();
    assert!((12..=40).contains(&said), "{said}");
    // A spread no budget can beat.
    assert_eq!(rounds_to_decide(0.0, 0.5, 5.0, ALPHA, 2, 30), None);
}
