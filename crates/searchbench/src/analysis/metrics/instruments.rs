//! The figures the instruments kept around a run's steps ([`crate::measure::Kept`]): one
//! reader for every instrument, since each figure carries what judging it needs (label, unit,
//! which way is good, whether it counts errors). An instrument is added without a reader.
//!
//! Keyed `<phase>.<instrument>.<figure>`, each part as [`key_part`] makes it; a phase name
//! that comes again in one run (a task repeated) is `<phase>-2`, `-3`… from its second.

use std::collections::BTreeMap;

use super::{key_part, Direction, Metric};
use crate::measure::Better;
use crate::store::PhaseMeasurements;

/// Every figure the instruments kept around `phases`, in the order the phases ended, each
/// phase's instruments and figures by name.
pub fn metrics(phases: &[PhaseMeasurements], out: &mut Vec<Metric>) {
    let mut nth: BTreeMap<&str, usize> = BTreeMap::new();
    for p in phases {
        let n = nth.entry(p.phase.as_str()).or_default();
        *n += 1;
        let phase = match *n {
            1 => key_part(&p.phase),
            n => format!("{}-{n}", key_part(&p.phase)),
        };
        for (instrument, kept) in &p.kept {
            for (name, f) in &kept.figures {
                if !f.value.is_finite() {
                    continue;
                }
                out.push(Metric {
                    key: format!("{phase}.{}.{}", key_part(instrument), key_part(name)),
                    label: format!("{}: {}", p.phase, f.label),
                    unit: f.unit.clone().into(),
                    direction: match (f.errors, f.better) {
                        (true, _) | (false, Better::Lower) => Direction::LowerBetter,
                        (false, Better::Higher) => Direction::HigherBetter,
                        (false, Better::Neither) => Direction::Info,
                    },
                    value: f.value,
                    samples: None,
                    errors: f.errors,
                    rounds: Vec::new(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Figure, Kept};

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
                &[("wait", Figure::new("w", "ms", Better::Neither, 1.0))],
            ),
            phase(
                "task a",
                &[("wait", Figure::new("w", "ms", Better::Neither, 2.0))],
            ),
        ];
        let mut out = Vec::new();
        metrics(&phases, &mut out);
        let keys: Vec<&str> = out.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "ingest.my_gauge.lost",
                "ingest.my_gauge.rate",
                "ingest.my_gauge.wait",
                "task_a.my_gauge.wait",
                "task_a-2.my_gauge.wait"
            ]
        );
        assert!(out[0].errors && out[0].direction == Direction::LowerBetter);
        assert_eq!(out[1].direction, Direction::HigherBetter);
        assert_eq!((out[2].value, out[2].unit.as_ref()), (12.0, "ms"));
        assert_eq!(out[2].label, "ingest: time waited");
        assert_eq!(out[4].value, 2.0);
        assert_eq!(out[4].direction, Direction::Info);
    }
}
