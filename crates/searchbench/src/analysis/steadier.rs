//! The steadier metric: when the throughput's runs cannot tell, the engine's CPU per document
//! may.
//!
//! A co-tenant on a shared machine slows the load, not the work a document needs: on this
//! machine a core spinning in every other round multiplied the throughput's run-to-run spread
//! by four (CV 23 %) and left the engine's CPU per document where it was (CV 4.7 %; BENCHMARKS
//! "Power"). When the rate's runs are too noisy to see the threshold and the cost per
//! document is clearly steadier and can, the verdict leans on the cost — and says so, with
//! what it cannot see: a change in what the engine waits for (the network, the disk, a
//! client's pacing) moves the rate and leaves the cost alone. A verdict the rate itself gives
//! (better, worse, no significant change) is never replaced: the rate decides whenever it can.

use serde::Serialize;

use super::compare::{Cell, Verdict};
use super::metrics::THROUGHPUT;
use super::statistics::{Interval, Test};

/// The metric a verdict may lean on: the engine's CPU time per document indexed.
pub const COST: &str = "engine_cpu_us_per_doc";

/// [`COST`] in a table's verdict column.
pub const COST_SHORT: &str = "CPU per doc";

/// How much steadier the cost must be than the rate: its spread at most the rate's divided
/// by this. Twice as steady is where three runs of the cost see what three of the rate cannot
/// (the smallest change a group sees scales with its spread); a little steadier is the noise
/// of two estimates of a spread from three runs.
pub const STEADIER_BY: f64 = 2.0;

/// A verdict that leans on the cost per document because the rate cannot tell.
#[derive(Debug, Clone, Serialize)]
pub struct Leaning {
    /// The metric leaned on ([`COST`]) and the one that could not tell ([`THROUGHPUT`]).
    pub on: &'static str,
    pub instead_of: &'static str,
    /// Each metric's spread from run to run (the rounds' ratios when paired), percent.
    pub rate_spread_pct: f64,
    pub cost_spread_pct: f64,
    /// The cost's verdict, change and interval.
    pub verdict: Verdict,
    pub diff_pct: Option<f64>,
    pub ci: Option<Interval>,
    pub test: Option<Test>,
    /// The sentence a reader is given.
    pub said: String,
}

impl Leaning {
    /// How many times steadier the cost is than the rate.
    pub fn steadier(&self) -> f64 {
        self.rate_spread_pct / self.cost_spread_pct
    }
}

/// The spread a cell's verdict was judged against: the rounds' ratios when paired, else the
/// wider side's run-to-run CV.
pub fn spread_of(c: &Cell) -> Option<f64> {
    if c.test == Some(Test::PairedT) {
        return c.spread_pair_pct;
    }
    c.spread_base_pct
        .into_iter()
        .chain(c.spread_pct)
        .reduce(f64::max)
}

/// The leaning, when the rate cannot tell, the cost is at least [`STEADIER_BY`] times steadier
/// by the same test, and the cost can tell (better, worse, or no change it could have seen).
pub fn lean(rate: &Cell, cost: &Cell) -> Option<Leaning> {
    if rate.verdict != Verdict::CannotTell || rate.test.is_none() || rate.test != cost.test {
        return None;
    }
    if !matches!(
        cost.verdict,
        Verdict::Better | Verdict::Worse | Verdict::NoSignificantChange
    ) {
        return None;
    }
    let (r, c) = (spread_of(rate)?, spread_of(cost)?);
    if !(c > 0.0 && r >= STEADIER_BY * c) {
        return None;
    }
    let change = match (cost.diff_pct, cost.ci) {
        (Some(d), Some(i)) => format!(" {d:+.1} % [{:+.1}, {:+.1}]", i.low_pct, i.high_pct),
        (Some(d), None) => format!(" {d:+.1} %"),
        _ => String::new(),
    };
    let means = match cost.verdict {
        Verdict::Worse => "WORSE: the engine works harder for each document",
        Verdict::Better => "better: the engine works less for each document",
        _ => "no significant change: the engine does the same work for each document",
    };
    let said = format!(
        "throughput cannot tell (spread {r:.1} %); the engine's CPU per document, {:.1}× \
         steadier (spread {c:.1} %), says{change} {means}. The verdict leans on it; a change \
         in what the engine waits for (network, disk, the client's pacing) would not show there",
        r / c
    );
    Some(Leaning {
        on: COST,
        instead_of: THROUGHPUT,
        rate_spread_pct: r,
        cost_spread_pct: c,
        verdict: cost.verdict,
        diff_pct: cost.diff_pct,
        ci: cost.ci,
        test: cost.test,
        said,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(verdict: Verdict, test: Test, spread: f64, diff: f64) -> Cell {
        Cell {
            value: 1.0,
            diff_pct: Some(diff),
            ci: Some(Interval {
                low_pct: diff - 3.0,
                high_pct: diff + 3.0,
            }),
            n_base: Some(3),
            n: Some(3),
            samples: None,
            spread_base_pct: Some(spread),
            spread_pct: Some(spread / 2.0),
            min_detectable_pct: None,
            runs_needed: None,
            test: Some(test),
            spread_pair_pct: Some(spread),
            change: 0.0,
            p_value: None,
            p_adjusted: None,
            verdict,
        }
    }

    #[test]
    fn a_rate_that_cannot_tell_leans_on_a_clearly_steadier_cost() {
        let rate = cell(Verdict::CannotTell, Test::Welch, 23.3, -11.0);
        let cost = cell(Verdict::Worse, Test::Welch, 4.7, 12.0);
        let l = lean(&rate, &cost).expect("leans");
        assert_eq!(l.verdict, Verdict::Worse);
        assert!((l.steadier() - 23.3 / 4.7).abs() < 1e-9);
        assert!(l.said.contains("WORSE"), "{}", l.said);
        assert!(l.said.contains("+12.0 % [+9.0, +15.0]"), "{}", l.said);
        assert!(l.said.contains("would not show"), "{}", l.said);
    }

    #[test]
    fn the_rate_decides_whenever_it_can() {
        let cost = cell(Verdict::Worse, Test::Welch, 2.0, 12.0);
        for v in [
            Verdict::Better,
            Verdict::Worse,
            Verdict::NoSignificantChange,
            Verdict::TooFewSamples,
        ] {
            assert!(
                lean(&cell(v, Test::Welch, 23.0, -1.0), &cost).is_none(),
                "{v:?}"
            );
        }
    }

    #[test]
    fn no_leaning_on_a_cost_not_clearly_steadier_or_that_cannot_tell_either() {
        let rate = cell(Verdict::CannotTell, Test::Welch, 6.0, -5.0);
        // 5.0 against 6.0 on a quiet machine: not twice as steady.
        assert!(lean(&rate, &cell(Verdict::Worse, Test::Welch, 5.0, 8.0)).is_none());
        assert!(lean(&rate, &cell(Verdict::CannotTell, Test::Welch, 1.0, 8.0)).is_none());
        // One side paired, the other not: spreads of two tests are not set side by side.
        assert!(lean(&rate, &cell(Verdict::Worse, Test::PairedT, 1.0, 8.0)).is_none());
    }

    #[test]
    fn paired_cells_compare_the_spread_of_their_rounds_ratios() {
        let mut rate = cell(Verdict::CannotTell, Test::PairedT, 9.0, -4.0);
        rate.spread_base_pct = Some(1.0);
        let mut cost = cell(Verdict::NoSignificantChange, Test::PairedT, 3.0, 0.5);
        cost.spread_base_pct = Some(50.0);
        let l = lean(&rate, &cost).expect("leans on the pairs' spreads");
        assert_eq!((l.rate_spread_pct, l.cost_spread_pct), (9.0, 3.0));
        assert!(l.said.contains("no significant change"), "{}", l.said);
    }
}
