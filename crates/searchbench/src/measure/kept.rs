//! What an instrument keeps of what it saw around a step ([`Kept`]): its figures, each judged
//! like any metric of the run (a comparison, a check, a history, the published documents),
//! and any detail it wants kept as it gave it. The store keeps it with the step's first
//! phase, so a view reads it from the run's record, whatever instrument wrote it: an
//! instrument is added without a reader of its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one instrument kept around one step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// Its figures, by key (a part of a metric key: no spaces, no dots).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, Figure>,
    /// Anything else it keeps, as it gave it: shown and published, never judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// One figure an instrument kept: a value of the run, with what it needs to be judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// What a reader is shown (`time spent in GC`).
    pub label: String,
    /// Its unit as shown (`ms`, `%`, `` for a count).
    #[serde(default)]
    pub unit: String,
    /// Which way is good.
    pub better: Better,
    pub value: f64,
    /// A count of errors: any rise is worse, and a run with any is never better.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub errors: bool,
    /// How the parts of one run split over processes add up to the run's figure.
    #[serde(default)]
    pub merge: Merge,
}

/// Which way a figure is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
    /// Shown with its difference, neither good nor bad by itself.
    Neither,
}

/// How the parts' figures make the merged run's (`results merge`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Merge {
    /// Counts, times spent: the parts add up.
    Sum,
    /// Peaks.
    Max,
    /// Troughs.
    Min,
    /// A level every part saw alike (the unweighted mean of the parts).
    #[default]
    Mean,
}

impl Figure {
    /// A figure `label` of `value` in `unit`, good when `better`, whose parts average.
    pub fn new(label: &str, unit: &str, better: Better, value: f64) -> Self {
        Figure {
            label: label.to_string(),
            unit: unit.to_string(),
            better,
            value,
            errors: false,
            merge: Merge::Mean,
        }
    }

    /// Its parts add up this way (see [`Merge`]).
    pub fn merged_by(mut self, merge: Merge) -> Self {
        self.merge = merge;
        self
    }

    /// A count of errors (see [`Figure::errors`]): lower is better, and its parts add up.
    pub fn errors(label: &str, value: f64) -> Self {
        Figure {
            errors: true,
            merge: Merge::Sum,
            ..Figure::new(label, "", Better::Lower, value)
        }
    }
}

impl Kept {
    /// What the parts of one run kept around the same step, as one process would have: each
    /// figure merged as it says (a figure some parts lack is merged over those that have it;
    /// one whose parts disagree on its unit, direction or rule keeps the first part's and
    /// says so in `detail`), the detail kept once when the parts agree, else each part's.
    pub fn merge(parts: &[&Kept]) -> Kept {
        let mut figures: BTreeMap<String, Figure> = BTreeMap::new();
        let mut disagreed: Vec<String> = Vec::new();
        let keys: std::collections::BTreeSet<&String> =
            parts.iter().flat_map(|p| p.figures.keys()).collect();
        for key in keys {
            let of: Vec<&Figure> = parts.iter().filter_map(|p| p.figures.get(key)).collect();
            let first = of[0];
            let alike: Vec<&Figure> = of
                .iter()
                .copied()
                .filter(|f| {
                    f.unit == first.unit && f.better == first.better && f.merge == first.merge
                })
                .collect();
            if alike.len() < of.len() {
                disagreed.push(key.clone());
            }
            let values = alike.iter().map(|f| f.value);
            let value = match first.merge {
                Merge::Sum => values.sum(),
                Merge::Max => values.fold(f64::NEG_INFINITY, f64::max),
                Merge::Min => values.fold(f64::INFINITY, f64::min),
                Merge::Mean => values.sum::<f64>() / alike.len() as f64,
            };
            figures.insert(
                key.clone(),
                Figure {
                    value,
                    errors: alike.iter().any(|f| f.errors),
                    ..first.clone()
                },
            );
        }
        let details: Vec<&Value> = parts.iter().filter_map(|p| p.detail.as_ref()).collect();
        let mut detail = match details.as_slice() {
            [] => None,
            [one, rest @ ..] if rest.iter().all(|d| d == one) => Some((*one).clone()),
            _ => Some(serde_json::json!({ "parts": details })),
        };
        if !disagreed.is_empty() {
            let note = serde_json::json!({
                "figures_not_merged": disagreed,
                "why": "the parts disagree on the unit, direction or rule: the first part's kind is kept, merged over the parts alike"
            });
            detail = Some(match detail {
                None => note,
                Some(d) => serde_json::json!({ "kept": d, "merge": note }),
            });
        }
        Kept { figures, detail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(figures: &[(&str, Figure)], detail: Option<Value>) -> Kept {
        Kept {
            figures: figures
                .iter()
                .map(|(k, f)| (k.to_string(), f.clone()))
                .collect(),
            detail,
        }
    }

    #[test]
    fn parts_merge_each_figure_by_its_rule() {
        let a = kept(
            &[
                (
                    "gc",
                    Figure::new("GC", "ms", Better::Lower, 10.0).merged_by(Merge::Sum),
                ),
                (
                    "peak",
                    Figure::new("peak", "MB", Better::Lower, 300.0).merged_by(Merge::Max),
                ),
                ("level", Figure::new("level", "%", Better::Neither, 40.0)),
                ("failed", Figure::errors("failed", 1.0)),
            ],
            Some(serde_json::json!({"node": "a"})),
        );
        let b = kept(
            &[
                (
                    "gc",
                    Figure::new("GC", "ms", Better::Lower, 5.0).merged_by(Merge::Sum),
                ),
                (
                    "peak",
                    Figure::new("peak", "MB", Better::Lower, 500.0).merged_by(Merge::Max),
                ),
                ("level", Figure::new("level", "%", Better::Neither, 60.0)),
            ],
            Some(serde_json::json!({"node": "b"})),
        );
        let m = Kept::merge(&[&a, &b]);
        assert_eq!(m.figures["gc"].value, 15.0);
        assert_eq!(m.figures["peak"].value, 500.0);
        assert_eq!(m.figures["level"].value, 50.0);
        // Only one part had it: its own value, still an error count.
        assert_eq!(m.figures["failed"].value, 1.0);
        assert!(m.figures["failed"].errors);
        // Details that differ are each kept.
        assert_eq!(
            m.detail,
            Some(serde_json::json!({"parts": [{"node": "a"}, {"node": "b"}]}))
        );
        // One part merges to itself.
        assert_eq!(Kept::merge(&[&a]), a);
    }

    #[test]
    fn parts_that_disagree_on_a_figure_say_so() {
        let a = kept(&[("t", Figure::new("t", "ms", Better::Lower, 1.0))], None);
        let b = kept(&[("t", Figure::new("t", "s", Better::Lower, 2.0))], None);
        let m = Kept::merge(&[&a, &b]);
        assert_eq!(m.figures["t"].unit, "ms");
        assert_eq!(m.figures["t"].value, 1.0, "the seconds are not averaged in");
        let note = m.detail.expect("a note");
        assert_eq!(note["figures_not_merged"], serde_json::json!(["t"]));
    }

    #[test]
    fn what_is_kept_reads_back_from_its_json() {
        let a = kept(
            &[("gc", Figure::errors("GC", 3.0))],
            Some(serde_json::json!([1, 2])),
        );
        let back: Kept = serde_json::from_value(serde_json::to_value(&a).unwrap()).unwrap();
        assert_eq!(back, a);
        // An old or bare value: nothing but what it says.
        let bare: Kept = serde_json::from_str("{}").unwrap();
        assert_eq!(bare, Kept::default());
    }
}
