//! The query side of a queries file: each query is a variant, each parameter set a coverage
//! of one search, and an answer is checked against what the file expects of it (hit count,
//! first ids, aggregation values), nothing more.

use serde_json::Value;

use super::{at_path, Expect, Resolved};
use crate::query::{
    Answer, Check, Checker, Described, Progress, QueryError, QueryPlan, Variant, VariantAccuracy,
};

/// The user's queries, resolved (slots filled), named `workload` in results.
#[derive(Debug, Clone)]
pub struct UserQueries {
    pub workload: String,
    pub queries: Vec<Resolved>,
}

impl UserQueries {
    fn query(&self, variant: &Variant) -> Option<&Resolved> {
        self.queries.iter().find(|q| q.variant == *variant)
    }
}

impl QueryPlan for UserQueries {
    fn workload(&self) -> &str {
        &self.workload
    }

    fn variants(&self) -> Vec<Variant> {
        self.queries.iter().map(|q| q.variant.clone()).collect()
    }

    fn coverages(&self) -> usize {
        self.queries
            .iter()
            .map(|q| q.bodies.len())
            .max()
            .unwrap_or(0)
    }

    fn coverages_of(&self, variant: &Variant) -> usize {
        self.query(variant).map_or(0, |q| q.bodies.len())
    }

    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>> {
        let Some(body) = self.query(variant).and_then(|q| q.bodies.get(coverage)) else {
            return Vec::new();
        };
        let mut body = body.clone();
        if let (true, Value::Object(o)) = (profile, &mut body) {
            o.insert("profile".into(), true.into());
        }
        vec![body.to_string().into_bytes()]
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
                let q = self.query(v).ok_or_else(|| {
                    QueryError::Invalid(format!("no query {v} in {}", self.workload))
                })?;
                Ok((q, VariantAccuracy::new(v.clone(), checks(q))))
            })
            .collect::<Result<_, QueryError>>()?;
        Ok(Box::new(FileChecker { rows }))
    }

    fn described(&self) -> Described {
        Described {
            unit: "search".into(),
            per_unit: "Per search (one parameter set of a query): server took and client \
                       wall, in ms"
                .into(),
            checked_against: "Answers against what the queries file expects of them".into(),
            all_right: "Every answer as expected; no failed request.".into(),
        }
    }
}

/// The checks the file asks of `q` (over all its parameter sets).
fn checks(q: &Resolved) -> Vec<Check> {
    let expected = || q.expect.iter().flatten();
    let mut checks = Vec::new();
    if expected().any(|e| e.hits.is_some()) {
        checks.push(Check::Count);
    }
    if expected().any(|e| e.first_ids.is_some()) {
        checks.push(Check::FirstIds);
    }
    if expected().any(|e| !e.aggs.is_empty()) {
        checks.push(Check::Aggregations);
    }
    checks
}

struct FileChecker<'a> {
    rows: Vec<(&'a Resolved, VariantAccuracy)>,
}

impl Checker for FileChecker<'_> {
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    ) {
        let Some((q, acc)) = self.rows.get_mut(variant) else {
            return;
        };
        // Every answer counts, checked or not: a query with nothing expected reads "N answers,
        // not checked", never "0 answers".
        acc.answers += answers.len() as u64;
        if let Some(Some(e)) = q.expect.get(coverage) {
            for (_, answer) in answers {
                check(acc, e, coverage, answer, failures);
            }
        }
    }

    fn rows(self: Box<Self>) -> Vec<VariantAccuracy> {
        self.rows.into_iter().map(|(_, r)| r).collect()
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
        _ => a == b,
    }
}

/// Checks one answer against what was expected; wrong parts become sentences.
pub fn check(
    acc: &mut VariantAccuracy,
    expect: &Expect,
    slice: usize,
    answer: &Answer,
    failures: &mut Vec<String>,
) {
    let name = acc.variant.name().to_string();
    if let Some(hits) = expect.hits {
        if let Some(why) = answer.count_differs(hits) {
            acc.count_wrong += 1;
            failures.push(format!("{name} #{slice}: {why}"));
        }
    }
    if let Some(ids) = &expect.first_ids {
        let all = answer.ids();
        let got = &all[..all.len().min(ids.len())];
        if got != ids.as_slice() {
            acc.hits_wrong += 1;
            failures.push(format!(
                "{name} #{slice}: first ids {got:?}, expected {ids:?}"
            ));
        }
    }
    for (path, want) in &expect.aggs {
        let got = answer.aggregations().and_then(|a| at_path(a, path));
        if !got.is_some_and(|g| same(g, want)) {
            acc.aggs_wrong += 1;
            failures.push(format!(
                "{name} #{slice}: aggregations.{path} is {}, expected {want}",
                got.map_or("missing".to_string(), Value::to_string)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_checked_against_the_file() {
        let q = super::super::parse(
            "q.json",
            r#"{"queries": [
                {"name": "t", "body": {"query": {"term": {"k": "{{k}}"}}},
                 "params": [{"k": "a"}, {"k": 2}],
                 "expect": [{"hits": 1, "first_ids": ["x"]}, {"aggs": {"m.value": 1320}}]},
                {"name": "free", "body": {"size": 0}}]}"#,
        )
        .expect("file");
        let resolved: Vec<Resolved> = q
            .iter()
            .map(|q| q.resolve("q.json", None).unwrap())
            .collect();
        let plan = UserQueries {
            workload: "queries:q".into(),
            queries: resolved,
        };
        let t = Variant::new("t");
        assert_eq!(plan.coverages_of(&t), 2);
        assert_eq!(plan.coverages_of(&Variant::new("free")), 1);
        let body: Value = serde_json::from_slice(&plan.bodies(&t, 1, true)[0]).unwrap();
        assert_eq!(
            (body["query"]["term"]["k"].clone(), body["profile"].clone()),
            (json!(2), json!(true))
        );
        let mut checker = plan
            .checker(&plan.variants(), true, &Progress::default())
            .expect("checker");
        let answer = |v: Value| crate::query::answer::parse_search(v).expect("answer");
        let mut failures = Vec::new();
        let first = answer(json!({"took": 1, "hits": {"total": 1, "hits": [{"_id": "y"}]}}));
        checker.check(0, 0, &[(0, first)], &mut failures);
        let second = answer(json!({"took": 1, "hits": {"total": 0},
                                   "aggregations": {"m": {"value": 1320.0}}}));
        checker.check(0, 1, &[(0, second)], &mut failures);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].contains("first ids [\"y\"]"), "{failures:?}");
        // Over 10,000 matches on a query that expects no count: answered, counted, no failure.
        let many =
            answer(json!({"took": 1, "hits": {"total": {"value": 10000, "relation": "gte"}}}));
        checker.check(1, 0, &[(0, many)], &mut failures);
        assert_eq!(failures.len(), 1, "{failures:?}");
        let rows = checker.rows();
        assert_eq!(
            rows[0].checks,
            Some(vec![Check::Count, Check::FirstIds, Check::Aggregations])
        );
        assert_eq!((rows[0].answers, rows[0].hits_wrong), (2, 1));
        assert_eq!((rows[1].checks.clone(), rows[1].answers), (Some(vec![]), 1));
        assert!(same(&json!(1320), &json!(1320.0)));
    }
}
