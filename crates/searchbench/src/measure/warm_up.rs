//! What warming a node did (see `session::warm`): its slices' rates, and whether they
//! levelled off, by one rule.

use serde::{Deserialize, Serialize};

use super::recorder::RISING_PCT;

/// The fewest slices a warm-up judges from: the first is the coldest, and a rise is judged
/// against the best of those before it.
pub const MIN_SLICES: usize = 3;

/// One slice of a warm-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slice {
    pub docs: u64,
    /// Documents indexed ÷ the slice's wall time.
    pub docs_per_sec: f64,
}

/// What a warm-up did, as the run reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmUp {
    pub slices: Vec<Slice>,
    /// Wall time of the warm-up, seconds.
    pub secs: f64,
    /// The bound it had, seconds.
    pub max_secs: f64,
    /// Whether the slices' rate stopped rising; `false` when the bound came first (the run's
    /// first figures may still be a warm-up) or it was interrupted.
    pub levelled: bool,
    /// The last slice's rate against the best before it, percent.
    pub rise_pct: Option<f64>,
    /// Stopped by Ctrl-C (the measured load then stops at once too).
    pub interrupted: bool,
}

impl WarmUp {
    /// One line for the terminal: `warmed the node: 4 slices in 21 s (11.6k → 24.2k → 27.9k →
    /// 28.3k docs/s), levelled off (+1.4 %)`.
    pub fn line(&self) -> String {
        let rates: Vec<String> = self
            .slices
            .iter()
            .map(|s| format!("{:.1}k", s.docs_per_sec / 1e3))
            .collect();
        let how = if self.interrupted {
            "interrupted".to_string()
        } else if self.levelled {
            format!(
                "levelled off ({:+.1} % against the best slice before it)",
                self.rise_pct.unwrap_or(0.0)
            )
        } else {
            format!(
                "STILL RISING after {:.0} s ({}): the first figures may still be a warm-up",
                self.secs,
                self.rise_pct
                    .map(|r| format!("{r:+.0} % on the last slice"))
                    .unwrap_or_else(|| "too few slices to tell".into())
            )
        };
        format!(
            "warmed the node: {} slice(s) in {:.0} s ({} docs/s), {how}",
            self.slices.len(),
            self.secs,
            rates.join(" → ")
        )
    }
}

/// Whether slice rates, in order, have levelled off: at least [`MIN_SLICES`], and the last
/// two each at most [`RISING_PCT`] above the best before it (one flat slice is not enough: a
/// fresh node's JIT climbs in steps, and a pause on one step was measured at 21.4k then 22.3k
/// docs/s before the node went on to 28k). `(levelled, the last slice's rise %)`; `None` with
/// too few slices or no rate.
pub fn levelled(rates: &[f64]) -> Option<(bool, f64)> {
    if rates.len() < MIN_SLICES {
        return None;
    }
    let rise = |n: usize| -> Option<f64> {
        let (last, before) = rates[..n].split_last()?;
        let best = before.iter().copied().fold(f64::NAN, f64::max);
        (best > 0.0).then(|| (last / best - 1.0) * 100.0)
    };
    let (previous, last) = (rise(rates.len() - 1)?, rise(rates.len())?);
    Some((previous <= RISING_PCT && last <= RISING_PCT, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_level_off_when_the_last_is_within_the_rule_of_the_best_before_it() {
        // Too few to judge.
        assert_eq!(levelled(&[10.0, 20.0]), None);
        // The fresh node: 11.6k, 24.2k, 28.2k: the third still rose 16.5 %.
        let (done, rise) = levelled(&[11.6, 24.2, 28.2]).unwrap();
        assert!(!done && (rise - 16.53).abs() < 0.01, "{rise}");
        // One flat slice after a rise is not enough (the measured pause on a step)...
        let (done, rise) = levelled(&[5.0, 10.3, 15.6, 21.4, 22.3]).unwrap();
        assert!(!done && rise < 5.0, "{rise}");
        // ...two in a row are: each within 10 % of the best before it.
        let (done, rise) = levelled(&[11.6, 24.2, 28.2, 29.0, 29.5]).unwrap();
        assert!(done && rise < 3.0, "{rise}");
        // A slower slice (noise, a merge) is not a rise.
        assert_eq!(levelled(&[11.6, 24.2, 25.0, 20.0]).map(|l| l.0), Some(true));
        assert_eq!(levelled(&[11.6, 24.2, 20.0]).map(|l| l.0), Some(false));
        // No rate: nothing to judge from.
        assert_eq!(levelled(&[0.0, 0.0, 5.0]), None);
    }

    #[test]
    fn the_line_says_whether_the_rate_levelled_off() {
        let mut up = WarmUp {
            slices: vec![
                Slice {
                    docs: 20_000,
                    docs_per_sec: 11_600.0,
                },
                Slice {
                    docs: 46_000,
                    docs_per_sec: 24_200.0,
                },
                Slice {
                    docs: 96_000,
                    docs_per_sec: 28_200.0,
                },
            ],
            secs: 90.4,
            max_secs: 90.0,
            levelled: false,
            rise_pct: Some(16.53),
            interrupted: false,
        };
        let line = up.line();
        assert!(
            line.contains("STILL RISING after 90 s (+17 % on the last slice)"),
            "{line}"
        );
        assert!(line.contains("11.6k → 24.2k → 28.2k"), "{line}");
        // The time it took, not its bound: past the bound by a cut slice's grace.
        up.secs = 7.2;
        up.max_secs = 2.0;
        assert!(
            up.line().contains("STILL RISING after 7 s"),
            "{}",
            up.line()
        );
        up.levelled = true;
        up.rise_pct = Some(2.0);
        assert!(up.line().contains("levelled off (+2.0 %"), "{}", up.line());
    }
}
