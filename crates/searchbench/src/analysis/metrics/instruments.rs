//! The figures the instruments kept around a run's steps ([`crate::measure::Kept`]): one
//! reader for every instrument, since each figure carries what judging it needs (label, unit,
//! which way is good, whether it counts errors). An instrument is added without a reader.
//!
//! Keyed `<phase>.<instrument>.<figure>`, each part as [`key_part`] makes it (a figure's key
//! may have parts of its own: `cpu.gc`); a phase name that comes again in one run (a task
//! repeated) is `<phase>-2`, `-3`… from its second.
//!
//! A result that carries its profile itself (the runs whose result types kept it before the
//! record did) has its figures under `profile.` already: the profile instrument's figures are
//! the same numbers and are not read twice.

use std::collections::BTreeMap;

use super::{key_part, Metric};
use crate::store::PhaseMeasurements;

/// Every figure the instruments kept around `phases`, in the order the phases ended, each
/// phase's instruments and figures by name.
pub fn metrics(phases: &[PhaseMeasurements], skip: &[&str], out: &mut Vec<Metric>) {
    let mut nth: BTreeMap<&str, usize> = BTreeMap::new();
    for p in phases {
        let n = nth.entry(p.phase.as_str()).or_default();
        *n += 1;
        let phase = match *n {
            1 => key_part(&p.phase),
            n => format!("{}-{n}", key_part(&p.phase)),
        };
        for (instrument, kept) in p.kept.iter().filter(|(i, _)| !skip.contains(&i.as_str())) {
            for (name, f) in &kept.figures {
                let key = format!("{phase}.{}.{}", key_part(instrument), figure_key(name));
                out.extend(Metric::of_figure(
                    key,
                    format!("{}: {}", p.phase, f.label),
                    f,
                ));
            }
        }
    }
}

/// A figure's key as a part of a metric key: each of its dotted parts as [`key_part`] makes it.
fn figure_key(name: &str) -> String {
    name.split('.').map(key_part).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::metrics::Direction;
    use crate::measure::{Better, Figure, Kept};

    fn phase(name: &str, figures: &[(&str, Figure)]) -> PhaseMeasurements {
        let kept = Kept {
            figures: figures
                .iter()
                .map(|(k, f)| (k.to_string(), f.clone()))
                .collect(),
            detail: None,
        };
        PhaseMeasurements {
            phase: name.into(),
            kept: [("my gauge".to_string(), kept)].into(),
            ..Default::default()
        }
    }

    #[test]
    fn each_kept_figure_is_a_metric_judged_as_it_says() {
        let phases = [
            phase(
                "ingest",
                &[
                    (
                        "wait",
                        Figure::new("time waited", "ms", Better::Lower, 12.0),
                    ),
                    ("rate", Figure::new("rate", "1/s", Better::Higher, 3.0)),
                    ("lost", Figure::errors("lost samples", 2.0)),
                    ("nan", Figure::new("broken", "", Better::Lower, f64::NAN)),
                ],
            ),
            phase(
                "task a",
                &[("w.a it", Figure::new("w", "ms", Better::Neither, 1.0))],
            ),
            phase(
                "task a",
                &[("wait", Figure::new("w", "ms", Better::Neither, 2.0))],
            ),
        ];
        let mut out = Vec::new();
        metrics(&phases, &[], &mut out);
        let keys: Vec<&str> = out.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "ingest.my_gauge.lost",
                "ingest.my_gauge.rate",
                "ingest.my_gauge.wait",
                "task_a.my_gauge.w.a_it",
                "task_a-2.my_gauge.wait"
            ]
        );
        assert!(out[0].errors && out[0].direction == Direction::LowerBetter);
        assert_eq!(out[1].direction, Direction::HigherBetter);
        assert_eq!((out[2].value, out[2].unit.as_ref()), (12.0, "ms"));
        assert_eq!(out[2].label, "ingest: time waited");
        assert_eq!(out[4].value, 2.0);
        assert_eq!(out[4].direction, Direction::Info);
        // An instrument the result speaks for is not read twice.
        let mut skipped = Vec::new();
        metrics(&phases, &["my gauge"], &mut skipped);
        assert!(skipped.is_empty());
    }
}
