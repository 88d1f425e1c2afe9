//! Terminal rendering of a calibration: each run's headline, the noise, what k runs can see.

use super::table;
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
    let mut t = table(["runs a side", "smallest detectable change"]);
    for (k, d) in &c.detectable_pct {
        t.add_row([k.to_string(), format!("±{d:.1} %")]);
    }
    outln!("{t}");
    outln!("(95 % confidence, 80 % power, Welch's t; a smaller change comes out \"no significant change\")");
}
