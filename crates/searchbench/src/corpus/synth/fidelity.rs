//! How close a synthesized corpus is to the real one, field by field: how often each field is
//! missing, its cardinality, the share of its most frequent value, and the quantiles of its
//! values (numbers, dates as instants) or of its lengths (text, terms), each side's and whether
//! they are within the tolerances the issue sets (cardinality 10 %, quantiles 5 %).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::dates::DateFormat;
use super::mapping::{Field, Kind};

/// Cardinality within this share of the real one.
pub const CARDINALITY: f64 = 0.10;
/// Quantiles within this share (of the real value, or of the real range for dates).
pub const QUANTILES: f64 = 0.05;
/// The quantiles compared.
pub const AT: [f64; 3] = [0.1, 0.5, 0.9];

/// What one side holds of one field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub docs: u64,
    /// Share of the documents without it.
    pub missing: f64,
    pub cardinality: u64,
    /// Its values (an array's each).
    pub values: u64,
    /// Share of its values that are its most frequent one.
    pub top_share: f64,
    /// p10, p50, p90 of its values (numbers; dates in millis) or of its lengths (strings).
    pub quantiles: Option<[f64; 3]>,
}

/// One field compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub field: String,
    /// `value` or `length`: what the quantiles are of.
    pub of: &'static str,
    pub real: Side,
    pub synthesized: Side,
    /// synthesized / real cardinality.
    pub cardinality_ratio: f64,
    /// The largest quantile error, as a share.
    pub quantile_error: Option<f64>,
    /// Within both tolerances.
    pub within: bool,
}

/// A field's accumulated values.
#[derive(Default)]
struct Acc {
    present: u64,
    counts: HashMap<String, u64>,
    numbers: Vec<f64>,
}

/// Statistics of one corpus, per leaf field of the mapping.
pub struct Stats {
    docs: u64,
    fields: Vec<(String, Leaf)>,
    acc: Vec<Acc>,
}

/// How a leaf's values are measured.
#[derive(Debug, Clone)]
enum Leaf {
    Number,
    Date(DateFormat),
    Length,
    Other,
}

fn leaves(fields: &[Field], out: &mut Vec<(String, Leaf)>) {
    for f in fields {
        match &f.kind {
            Kind::Object(c) | Kind::Nested(c) => leaves(c, out),
            Kind::Whole { .. } | Kind::Real | Kind::Scaled { .. } => {
                out.push((f.path.clone(), Leaf::Number))
            }
            Kind::Date(d) => out.push((f.path.clone(), Leaf::Date(d.clone()))),
            Kind::Keyword | Kind::Text | Kind::Ip | Kind::Constant(_) => {
                out.push((f.path.clone(), Leaf::Length))
            }
            _ => out.push((f.path.clone(), Leaf::Other)),
        }
    }
}

/// The values at `path` in `v` (arrays and objects on the way flattened).
fn at<'a>(v: &'a Value, path: &[&str], out: &mut Vec<&'a Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| at(x, path, out)),
        Value::Null if path.is_empty() => {}
        _ if path.is_empty() => out.push(v),
        Value::Object(o) => {
            if let Some(next) = o.get(path[0]) {
                at(next, &path[1..], out)
            }
        }
        _ => {}
    }
}

impl Stats {
    pub fn new(fields: &[Field]) -> Stats {
        let mut l = Vec::new();
        leaves(fields, &mut l);
        let acc = l.iter().map(|_| Acc::default()).collect();
        Stats {
            docs: 0,
            fields: l,
            acc,
        }
    }

    /// Counts one document (its dotted keys already expanded).
    pub fn add(&mut self, doc: &Map<String, Value>) {
        self.docs += 1;
        let mut found = Vec::new();
        for ((path, leaf), acc) in self.fields.iter().zip(&mut self.acc) {
            found.clear();
            let parts: Vec<&str> = path.split('.').collect();
            if let Some(first) = doc.get(parts[0]) {
                at(first, &parts[1..], &mut found);
            }
            if found.is_empty() {
                continue;
            }
            acc.present += 1;
            for v in &found {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let measured = match leaf {
                    Leaf::Number => v.as_f64().or_else(|| text.parse().ok()),
                    Leaf::Date(f) => f.read(v).map(|m| m as f64),
                    Leaf::Length => Some(text.chars().count() as f64),
                    Leaf::Other => None,
                };
                if let Some(x) = measured {
                    acc.numbers.push(x);
                }
                *acc.counts.entry(text).or_default() += 1;
            }
        }
    }

    fn side(&self, i: usize) -> Side {
        let a = &self.acc[i];
        let values: u64 = a.counts.values().sum();
        let mut numbers = a.numbers.clone();
        numbers.sort_by(f64::total_cmp);
        let q = |p: f64| numbers[((numbers.len() - 1) as f64 * p).round() as usize];
        Side {
            docs: self.docs,
            missing: if self.docs == 0 {
                0.0
            } else {
                1.0 - a.present as f64 / self.docs as f64
            },
            cardinality: a.counts.len() as u64,
            values,
            top_share: if values == 0 {
                0.0
            } else {
                a.counts.values().max().copied().unwrap_or(0) as f64 / values as f64
            },
            quantiles: (!numbers.is_empty()).then(|| AT.map(q)),
        }
    }
}

/// Each field of `real` against `synthesized` (statistics over the same mapping).
pub fn compare(real: &Stats, synthesized: &Stats) -> Vec<Row> {
    real.fields
        .iter()
        .enumerate()
        .map(|(i, (path, leaf))| {
            let (r, s) = (real.side(i), synthesized.side(i));
            let cardinality_ratio = if r.cardinality == 0 {
                if s.cardinality == 0 {
                    1.0
                } else {
                    f64::INFINITY
                }
            } else {
                s.cardinality as f64 / r.cardinality as f64
            };
            // A field of few values (a status code) is judged by its values' shares, not its
            // quantiles, which jump from one value to the next.
            let few = r.cardinality <= 256
                && r.cardinality * 20 <= r.values
                && !matches!(leaf, Leaf::Length);
            let quantile_error = match (r.quantiles, s.quantiles, leaf) {
                _ if few => None,
                (Some(rq), Some(sq), Leaf::Date(_)) => {
                    // An instant's error is a share of the real span, not of the epoch.
                    let span = (rq[2] - rq[0]).abs().max(1.0);
                    Some(
                        (0..3)
                            .map(|k| (sq[k] - rq[k]).abs() / span)
                            .fold(0.0, f64::max),
                    )
                }
                (Some(rq), Some(sq), _) => Some(
                    (0..3)
                        .map(|k| (sq[k] - rq[k]).abs() / rq[k].abs().max(1.0))
                        .fold(0.0, f64::max),
                ),
                _ => None,
            };
            let within = (cardinality_ratio - 1.0).abs() <= CARDINALITY
                && quantile_error.is_none_or(|e| e <= QUANTILES);
            Row {
                field: path.clone(),
                of: match leaf {
                    Leaf::Length => "length",
                    Leaf::Other => "-",
                    _ => "value",
                },
                real: r,
                synthesized: s,
                cardinality_ratio,
                quantile_error,
                within,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stats(fields: &[Field], docs: &[Value]) -> Stats {
        let mut s = Stats::new(fields);
        for d in docs {
            s.add(d.as_object().unwrap_or(&Map::new()));
        }
        s
    }

    #[test]
    fn each_field_is_measured_and_judged_against_the_tolerances() {
        let fields = super::super::mapping::fields(&json!({"properties": {
            "n": {"type": "long"}, "k": {"type": "keyword"},
            "o": {"properties": {"t": {"type": "date", "format": "epoch_millis"}}}
        }}))
        .unwrap_or_default();
        let real: Vec<Value> = (0..100)
            .map(|i| json!({"n": i, "k": format!("k{}", i % 10), "o": {"t": 1000 * i}}))
            .collect();
        // The same, but `k` has half the terms and `n` is twice as large, one in four lacks o.
        let synthesized: Vec<Value> = (0..100)
            .map(|i| {
                if i % 4 == 0 {
                    json!({"n": 2 * i, "k": format!("k{}", i % 5)})
                } else {
                    json!({"n": 2 * i, "k": format!("k{}", i % 5), "o": {"t": 1000 * i}})
                }
            })
            .collect();
        let rows = compare(&stats(&fields, &real), &stats(&fields, &synthesized));
        let row = |f: &str| {
            rows.iter()
                .find(|r| r.field == f)
                .cloned()
                .unwrap_or_else(|| panic!("{f}"))
        };
        let k = row("k");
        assert_eq!((k.real.cardinality, k.synthesized.cardinality), (10, 5));
        assert_eq!((k.real.top_share, k.synthesized.top_share), (0.1, 0.2));
        assert_eq!(k.of, "length");
        assert!(!k.within);
        let n = row("n");
        assert_eq!(n.real.quantiles, Some([10.0, 50.0, 89.0]));
        assert!(
            n.quantile_error.is_some_and(|e| e > 0.9) && !n.within,
            "{n:?}"
        );
        let t = row("o.t");
        assert_eq!((t.real.missing, t.synthesized.missing), (0.0, 0.25));
        assert!(
            t.quantile_error.is_some_and(|e| e < 0.05) && !t.within,
            "the dates' quantiles barely move, a quarter of them is gone: {t:?}"
        );
        let same = compare(&stats(&fields, &real), &stats(&fields, &real));
        assert!(
            same.iter().all(|r| r.within && r.cardinality_ratio == 1.0),
            "{same:?}"
        );
    }
}
