//! The query side of `numbers`: per group (one search each), its hit count, and the sum of
//! `n` over it; both exact, computed from the document count alone.

use serde_json::Value;

use super::GROUPS;
use crate::query::{
    Answer, Check, Checker, Described, Progress, QueryError, QueryPlan, Variant, VariantAccuracy,
};

/// The variants: `group_count` (a term filter, `size: 0`) and `group_sum` (the same with a
/// `sum` of `n`).
pub const NAMES: [&str; 2] = ["group_count", "group_sum"];

pub fn variants() -> Vec<Variant> {
    NAMES.iter().map(|n| Variant::new(n)).collect()
}

/// The documents of group `g` among the numbers `first..first + docs`, and the sum of their
/// `n`.
pub fn truth(first: u64, docs: u64, g: u64) -> (u64, u128) {
    let end = u128::from(first) + u128::from(docs);
    // The group's smallest member: m, m + 10, …, m + 10 (k − 1) are its k members.
    let m = u128::from(first) + u128::from((g + GROUPS - first % GROUPS) % GROUPS);
    if m >= end {
        return (0, 0);
    }
    let k = (end - m).div_ceil(u128::from(GROUPS));
    let sum = k * m + u128::from(GROUPS) * k * (k - 1) / 2;
    (k as u64, sum)
}

/// The queries on an index holding the `docs` numbers from `first` on.
#[derive(Debug, Clone)]
pub struct NumbersQueries {
    pub first: u64,
    pub docs: u64,
}

impl QueryPlan for NumbersQueries {
    fn workload(&self) -> &str {
        "numbers"
    }

    fn variants(&self) -> Vec<Variant> {
        variants()
    }

    fn coverages(&self) -> usize {
        GROUPS as usize
    }

    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>> {
        let sum = match variant.name() {
            "group_count" => "",
            "group_sum" => ",\"aggs\":{\"n_sum\":{\"sum\":{\"field\":\"n\"}}}",
            _ => return Vec::new(),
        };
        let profile = if profile { ",\"profile\":true" } else { "" };
        vec![format!(
            "{{\"size\":0,\"track_total_hits\":true,\"query\":{{\"term\":{{\"group\":\"g{coverage}\"}}}}{sum}{profile}}}"
        )
        .into_bytes()]
    }

    fn checker(
        &self,
        variants: &[Variant],
        _check: bool,
        _progress: &Progress,
    ) -> Result<Box<dyn Checker + '_>, QueryError> {
        let rows = variants
            .iter()
            .map(|v| {
                let checks = match v.name() {
                    "group_sum" => vec![Check::Count, Check::Sums],
                    _ => vec![Check::Count],
                };
                VariantAccuracy::new(v.clone(), checks)
            })
            .collect();
        Ok(Box::new(NumbersChecker {
            first: self.first,
            docs: self.docs,
            rows,
        }))
    }

    fn described(&self) -> Described {
        Described {
            unit: "search".into(),
            per_unit: "Per search (one group of ten): server took and client wall, in ms".into(),
            checked_against: "Accuracy against the counts and sums of the numbers loaded".into(),
            all_right: "All counts and sums exact; no failed request.".into(),
        }
    }
}

struct NumbersChecker {
    first: u64,
    docs: u64,
    rows: Vec<VariantAccuracy>,
}

impl Checker for NumbersChecker {
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    ) {
        let Some(acc) = self.rows.get_mut(variant) else {
            return;
        };
        let (count, sum) = truth(self.first, self.docs, coverage as u64);
        for (_, answer) in answers {
            let who = format!("{} group g{coverage}", acc.variant);
            acc.answers += 1;
            if let Some(why) = answer.count_differs(count) {
                acc.count_wrong += 1;
                failures.push(format!("{who}: {why}"));
            }
            if acc.variant == "group_sum" {
                let got = answer
                    .aggregation("n_sum")
                    .ok()
                    .and_then(|a| a.get("value"))
                    .and_then(Value::as_f64);
                // Sums of longs come back as doubles, added in the engine's order: equal to
                // the last bits below 2^53, within 1e-12 of it above.
                let exact = sum as f64;
                if !got.is_some_and(|g| (g - exact).abs() <= 1e-12 * exact) {
                    acc.sum_wrong += 1;
                    failures.push(format!("{who}: sum(n) = {got:?}, expected {sum}"));
                }
            }
        }
    }

    fn rows(self: Box<Self>) -> Vec<VariantAccuracy> {
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_truth_is_the_arithmetic_of_the_numbers() {
        for first in [0u64, 1, 7, 10, 123] {
            for docs in [0u64, 1, 9, 10, 11, 1234] {
                for g in 0..GROUPS {
                    let members: Vec<u64> =
                        (first..first + docs).filter(|n| n % GROUPS == g).collect();
                    let expected = (
                        members.len() as u64,
                        members.iter().map(|&n| u128::from(n)).sum(),
                    );
                    assert_eq!(truth(first, docs, g), expected, "{first}+{docs} group {g}");
                }
            }
        }
        let plan = NumbersQueries { first: 1, docs: 25 };
        let body: Value =
            serde_json::from_slice(&plan.bodies(&Variant::new("group_sum"), 3, false)[0])
                .expect("json");
        assert_eq!(body["query"]["term"]["group"], "g3");
        assert!(body["aggs"]["n_sum"].is_object());
        assert!(plan.bodies(&Variant::new("D_td"), 0, false).is_empty());
    }
}
