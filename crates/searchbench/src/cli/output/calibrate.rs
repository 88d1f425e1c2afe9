//! Terminal rendering of a calibration: each run's headline, the noise, what k runs can see.

use super::table;
use crate::analysis::compare::DEFAULT_THRESHOLD_PCT;
use crate::session::calibrate::Calibration;

pub fn print(c: &Calibration) {
    let mut t = table(["run", "headline docs/s"]);
    for (i, v) in c.docs_per_sec.iter().enumerate() {
        t.add_row([(i + 1).to_string(), format!("{v:.0}")]);
    }
    outln!("{t}");
    outln!(
        "{} runs of {} ({} docs): mean {:.0} docs/s, run-to-run CV {:.1} %",
        c.docs_per_sec.len(),
        c.workload,
        c.docs,
        c.mean,
        c.cv_pct
    );
    let mut t = table([
        "runs a side (rounds)",
        "smallest change seen: groups (Welch)",
        "paired rounds",
    ]);
    let ks: std::collections::BTreeSet<usize> = c
        .detectable_pct
        .iter()
        .chain(&c.detectable_paired_pct)
        .map(|(k, _)| *k)
        .collect();
    let at = |v: &[(usize, f64)], k: usize| {
        v.iter()
            .find(|(n, _)| *n == k)
            .map_or_else(|| "-".to_string(), |(_, d)| format!("±{d:.1} %"))
    };
    for k in ks {
        t.add_row([
            k.to_string(),
            at(&c.detectable_pct, k),
            at(&c.detectable_paired_pct, k),
        ]);
    }
    outln!("{t}");
    outln!("(95 % confidence, 80 % power; a smaller change comes out \"no significant change\")");
    if let Some(s) = c.round_spread_pct {
        outln!(
            "back-to-back runs differ by {s:.1} % (what a round's ratio spreads by); paired, {}",
            match c.rounds_needed {
                Some(n) => format!("about {n} rounds see {DEFAULT_THRESHOLD_PCT} %"),
                None => format!("no number of rounds sees {DEFAULT_THRESHOLD_PCT} %"),
            }
        );
    }
    if c.drifted {
        outln!(
            "the machine's level moved during the runs (their CV {:.1} % is well beyond what \
             back-to-back runs differ by): make comparisons round by round (`ab`, --round, a \
             matrix), where the drift cancels",
            c.cv_pct
        );
    }
}
