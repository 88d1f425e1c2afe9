//! The query side of `vectors`: approximate k-NN searches (Elasticsearch's top-level `knn`,
//! OpenSearch's `knn` query with `ef_search` as the candidates; see [`Syntax`]), each answer's recall@k measured against the exact neighbours ([`super::truth`]), in every
//! pass and at every client count.
//!
//! A variant names its parameters: `k10_nc100` asks for the 10 nearest with 100 candidates
//! per shard, `_f90` adds a filter that leaves out 90 % of the documents (`bucket < 100`):
//! `_f50`, `_f90`, `_f99` and `_f999` (99.9 %). Recall is |returned ∩ exact| / min(k,
//! matching documents). A hit that cannot be a neighbour (outside the filter, not a document
//! of the corpus, returned twice, past k) is a wrong answer; a low recall is a figure, not an
//! error: how much recall a setting buys is what the workload measures.

use std::collections::HashSet;

use super::space::{json_vector, Space, BUCKETS};
use super::truth::{nearest, Corpus};
use crate::query::{
    Answer, Check, Checker, Described, Progress, QueryError, QueryPlan, Variant, VariantAccuracy,
};

/// The variants measured unless told otherwise.
pub const DEFAULT_VARIANTS: [&str; 7] = [
    "k10_nc20",
    "k10_nc100",
    "k100_nc200",
    "k10_nc100_f50",
    "k10_nc100_f90",
    "k10_nc100_f99",
    "k10_nc100_f999",
];

/// The most neighbours or candidates a variant may ask for (the engines' own bound on
/// `num_candidates`).
pub const MAX_CANDIDATES: u32 = 10_000;

/// The most vector components the exact search holds (8 GiB of f32): 16M vectors of 128
/// dims, 2M of 1,024.
pub const MAX_TRUTH_FLOATS: u64 = 1 << 31;

/// Refuses an exact search that would hold more than [`MAX_TRUTH_FLOATS`] components (it
/// holds every vector in memory), saying how much it would take.
pub fn truth_fits(space: &Space, docs: u64) -> Result<(), String> {
    let floats = docs.saturating_mul(space.dims as u64);
    if floats > MAX_TRUTH_FLOATS {
        return Err(format!(
            "vectors: the exact neighbours of {docs} vectors of {} dims would hold {} GiB in \
             memory, over the {} GiB they may take",
            space.dims,
            (floats.saturating_mul(4)) >> 30,
            (MAX_TRUTH_FLOATS * 4) >> 30
        ));
    }
    Ok(())
}

/// One variant's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knn {
    pub k: u32,
    pub candidates: u32,
    /// Documents kept by the filter: those with `bucket < keep_below`.
    pub keep_below: Option<u32>,
}

impl Knn {
    /// Reads `k<K>_nc<NC>[_f<P>]`.
    pub fn parse(name: &str) -> Result<Knn, String> {
        let bad = || {
            format!(
                "vectors variant {name:?}: expected k<K>_nc<CANDIDATES>[_f50|_f90|_f99|_f999], e.g. k10_nc100_f90, with 1 <= K <= CANDIDATES <= {MAX_CANDIDATES}"
            )
        };
        let mut parts = name.split('_');
        let k: u32 = parts
            .next()
            .and_then(|p| p.strip_prefix('k'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(bad)?;
        let candidates: u32 = parts
            .next()
            .and_then(|p| p.strip_prefix("nc"))
            .and_then(|n| n.parse().ok())
            .ok_or_else(bad)?;
        let keep_below = match parts.next() {
            None => None,
            Some("f50") => Some(500),
            Some("f90") => Some(100),
            Some("f99") => Some(10),
            Some("f999") => Some(1),
            Some(_) => return Err(bad()),
        };
        if parts.next().is_some() || k == 0 || candidates < k || candidates > MAX_CANDIDATES {
            return Err(bad());
        }
        Ok(Knn {
            k,
            candidates,
            keep_below,
        })
    }
}

pub fn variants() -> Vec<Variant> {
    DEFAULT_VARIANTS.iter().map(|n| Variant::new(n)).collect()
}

/// How a product asks for the nearest neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Elasticsearch 8's top-level `knn`: `k` and `num_candidates` per shard, the filter
    /// applied during the graph's search.
    Elasticsearch,
    /// OpenSearch's `knn` query (k-NN plugin, Lucene engine): `k`, the candidates as
    /// `method_parameters.ef_search` (2.16 on), the filter applied during the search.
    OpenSearch,
}

/// The first OpenSearch release whose `knn` query takes `ef_search` (the candidates).
pub const OPENSEARCH_EF_SEARCH_SINCE: (u32, u32) = (2, 16);

/// The searches over an index holding documents `0..docs` of `space`.
#[derive(Debug, Clone)]
pub struct VectorsQueries {
    pub space: Space,
    pub docs: u64,
    /// The query vectors, one after another.
    pub queries: Vec<f32>,
    pub syntax: Syntax,
}

impl VectorsQueries {
    pub fn new(space: Space, docs: u64, queries: usize, syntax: Syntax) -> VectorsQueries {
        let q = space.queries(queries);
        VectorsQueries {
            space,
            docs,
            queries: q,
            syntax,
        }
    }

    fn query(&self, j: usize) -> &[f32] {
        let d = self.space.dims;
        &self.queries[j * d..(j + 1) * d]
    }
}

/// The body of one search: the `k` nearest, their `id` alone.
pub fn body(syntax: Syntax, knn: &Knn, vector: &[f32], profile: bool) -> Vec<u8> {
    let mut v = String::new();
    json_vector(vector, &mut v);
    let filter = knn
        .keep_below
        .map(|b| format!(",\"filter\":{{\"range\":{{\"bucket\":{{\"lt\":{b}}}}}}}"))
        .unwrap_or_default();
    let profile = if profile { ",\"profile\":true" } else { "" };
    let (k, nc) = (knn.k, knn.candidates);
    match syntax {
        Syntax::Elasticsearch => format!(
            "{{\"size\":{k},\"_source\":[\"id\"],\"knn\":{{\"field\":\"v\",\"query_vector\":{v},\"k\":{k},\"num_candidates\":{nc}{filter}}}{profile}}}"
        ),
        Syntax::OpenSearch => format!(
            "{{\"size\":{k},\"_source\":[\"id\"],\"query\":{{\"knn\":{{\"v\":{{\"vector\":{v},\"k\":{k},\"method_parameters\":{{\"ef_search\":{nc}}}{filter}}}}}}}{profile}}}"
        ),
    }
    .into_bytes()
}

impl QueryPlan for VectorsQueries {
    fn workload(&self) -> &str {
        "vectors"
    }

    fn variants(&self) -> Vec<Variant> {
        variants()
    }

    fn coverages(&self) -> usize {
        self.queries.len() / self.space.dims.max(1)
    }

    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>> {
        match Knn::parse(variant.name()) {
            Ok(knn) if coverage < self.coverages() => {
                vec![body(self.syntax, &knn, self.query(coverage), profile)]
            }
            _ => Vec::new(),
        }
    }

    fn checker(
        &self,
        variants: &[Variant],
        check: bool,
        progress: &Progress,
    ) -> Result<Box<dyn Checker + '_>, QueryError> {
        let mut rows = Vec::new();
        let mut knns = Vec::new();
        for v in variants {
            let knn = Knn::parse(v.name()).map_err(QueryError::Invalid)?;
            rows.push(VariantAccuracy::new(
                v.clone(),
                if check {
                    vec![Check::Neighbours]
                } else {
                    Vec::new()
                },
            ));
            knns.push(knn);
        }
        let mut truths: Vec<(Option<u32>, Vec<Vec<u32>>)> = Vec::new();
        if check {
            truth_fits(&self.space, self.docs).map_err(|e| {
                QueryError::Invalid(format!(
                    "{e}; query fewer (--docs, --dims), or measure without recall (--no-check)"
                ))
            })?;
            let started = std::time::Instant::now();
            let corpus = Corpus::generate(&self.space, self.docs);
            // One exact search per filter, for the largest k asked with it.
            let mut filters: Vec<(Option<u32>, u32)> = Vec::new();
            for knn in &knns {
                match filters.iter_mut().find(|f| f.0 == knn.keep_below) {
                    Some(f) => f.1 = f.1.max(knn.k),
                    None => filters.push((knn.keep_below, knn.k)),
                }
            }
            for (keep_below, k) in filters {
                truths.push((
                    keep_below,
                    nearest(&corpus, &self.queries, k as usize, keep_below),
                ));
            }
            progress.say(&format!(
                "exact neighbours of {} queries over {} vectors of {} dims computed in {:.1} s",
                self.coverages(),
                self.docs,
                self.space.dims,
                started.elapsed().as_secs_f64()
            ));
        }
        Ok(Box::new(VectorsChecker {
            plan: self,
            knns,
            truths,
            rows,
            check,
        }))
    }

    fn described(&self) -> Described {
        Described {
            unit: "search".into(),
            per_unit: "Per search (one query vector): server took and client wall, in ms".into(),
            checked_against:
                "Recall@k against the exact neighbours (brute force over every vector loaded)"
                    .into(),
            all_right: "Every hit a possible neighbour; recall as shown.".into(),
        }
    }
}

struct VectorsChecker<'a> {
    plan: &'a VectorsQueries,
    knns: Vec<Knn>,
    truths: Vec<(Option<u32>, Vec<Vec<u32>>)>,
    rows: Vec<VariantAccuracy>,
    check: bool,
}

impl Checker for VectorsChecker<'_> {
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    ) {
        if !self.check {
            if let Some(row) = self.rows.get_mut(variant) {
                row.answers += answers.len() as u64;
            }
            return;
        }
        let (Some(acc), Some(knn)) = (self.rows.get_mut(variant), self.knns.get(variant)) else {
            return;
        };
        let Some(exact) = self
            .truths
            .iter()
            .find(|t| t.0 == knn.keep_below)
            .and_then(|t| t.1.get(coverage))
        else {
            return;
        };
        let exact = &exact[..exact.len().min(knn.k as usize)];
        for (_, answer) in answers {
            acc.answers += 1;
            let who = format!("{} query {coverage}", acc.variant);
            match judge(self.plan, knn, exact, answer) {
                Ok(recall) => acc.record_recall(recall),
                Err(why) => {
                    acc.hits_wrong += 1;
                    acc.record_recall(0.0);
                    failures.push(format!("{who}: {why}"));
                }
            }
        }
    }

    fn rows(self: Box<Self>) -> Vec<VariantAccuracy> {
        self.rows
    }
}

/// The recall of one answer against the `exact` neighbours, or why a hit cannot be one.
pub fn judge(
    plan: &VectorsQueries,
    knn: &Knn,
    exact: &[u32],
    answer: &Answer,
) -> Result<f64, String> {
    let hits = answer.hits();
    if hits.len() > knn.k as usize {
        return Err(format!("{} hits for k = {}", hits.len(), knn.k));
    }
    let mut seen = HashSet::with_capacity(hits.len());
    for hit in hits {
        let id = hit
            .pointer("/_source/id")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| format!("a hit without a numeric _source.id: {hit}"))?;
        if id >= plan.docs {
            return Err(format!(
                "hit {id} is not a document of the corpus (0..{})",
                plan.docs
            ));
        }
        if let Some(limit) = knn.keep_below {
            let bucket = plan.space.bucket(id);
            if bucket >= limit {
                return Err(format!(
                    "hit {id} has bucket {bucket}, outside the filter bucket < {limit} (of {BUCKETS})"
                ));
            }
        }
        if !seen.insert(id) {
            return Err(format!("hit {id} returned twice"));
        }
    }
    if exact.is_empty() {
        return Ok(1.0);
    }
    let exact: HashSet<u64> = exact.iter().map(|&i| u64::from(i)).collect();
    let found = seen.iter().filter(|id| exact.contains(id)).count();
    Ok(found as f64 / exact.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(ids: &[u64]) -> Answer {
        let hits: Vec<_> = ids
            .iter()
            .map(|i| json!({"_id": i.to_string(), "_source": {"id": i}}))
            .collect();
        crate::query::answer::parse_search(json!({"took": 1, "hits": {"total": {"value": ids.len(), "relation": "eq"}, "hits": hits}})).unwrap()
    }

    #[test]
    fn variants_name_their_parameters_and_bad_ones_are_refused() {
        assert_eq!(
            Knn::parse("k10_nc100_f90"),
            Ok(Knn {
                k: 10,
                candidates: 100,
                keep_below: Some(100)
            })
        );
        assert_eq!(Knn::parse("k100_nc200").unwrap().keep_below, None);
        for bad in [
            "k0_nc10",
            "k10_nc5",
            "k10",
            "k10_nc100_f75",
            "k10_nc20000",
            "kx_nc1",
            "k10_nc100_f90_x",
            "",
        ] {
            assert!(Knn::parse(bad).is_err(), "{bad}");
        }
        for v in DEFAULT_VARIANTS {
            Knn::parse(v).unwrap();
        }
        let mut plan = VectorsQueries::new(Space::new(1, 4), 100, 3, Syntax::Elasticsearch);
        let body: serde_json::Value =
            serde_json::from_slice(&plan.bodies(&Variant::new("k10_nc100_f99"), 2, false)[0])
                .unwrap();
        assert_eq!(body["knn"]["k"], 10);
        assert_eq!(body["knn"]["num_candidates"], 100);
        assert_eq!(body["knn"]["filter"]["range"]["bucket"]["lt"], 10);
        assert_eq!(body["knn"]["query_vector"].as_array().unwrap().len(), 4);
        assert!(plan.bodies(&Variant::new("k10_nc100"), 3, false).is_empty());
        // OpenSearch's words for the same search.
        plan.syntax = Syntax::OpenSearch;
        let body: serde_json::Value =
            serde_json::from_slice(&plan.bodies(&Variant::new("k10_nc100_f99"), 2, true)[0])
                .unwrap();
        let knn = &body["query"]["knn"]["v"];
        assert_eq!(body["size"], 10);
        assert_eq!(body["profile"], true);
        assert_eq!(knn["k"], 10);
        assert_eq!(knn["method_parameters"]["ef_search"], 100);
        assert_eq!(knn["filter"]["range"]["bucket"]["lt"], 10);
        assert_eq!(knn["vector"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn a_truth_too_big_for_memory_is_refused_before_it_is_made() {
        let plan = VectorsQueries::new(Space::new(1, 1024), 3_000_000, 1, Syntax::Elasticsearch);
        let Err(err) = plan.checker(&[Variant::new("k10_nc100")], true, &Progress::default())
        else {
            panic!("a 12 GiB truth was made");
        };
        assert!(err.to_string().contains("--no-check"), "{err}");
        // Without the check, nothing is held.
        assert!(plan
            .checker(&[Variant::new("k10_nc100")], false, &Progress::default())
            .is_ok());
    }

    /// A wrong neighbour lowers recall by one k-th; a hit outside the filter, twice, or not
    /// of the corpus is a wrong answer.
    #[test]
    fn a_wrong_neighbour_lowers_recall_and_an_impossible_hit_is_wrong() {
        let plan = VectorsQueries::new(Space::new(5, 8), 2_000, 4, Syntax::Elasticsearch);
        let corpus = Corpus::generate(&plan.space, plan.docs);
        let knn = Knn::parse("k10_nc100").unwrap();
        let exact = nearest(&corpus, &plan.queries, 10, None);
        let right: Vec<u64> = exact[0].iter().map(|&i| u64::from(i)).collect();
        assert_eq!(judge(&plan, &knn, &exact[0], &answer(&right)), Ok(1.0));
        let mut wrong = right.clone();
        wrong[3] = (0..plan.docs).find(|i| !right.contains(i)).unwrap();
        assert_eq!(judge(&plan, &knn, &exact[0], &answer(&wrong)), Ok(0.9));
        assert_eq!(judge(&plan, &knn, &exact[0], &answer(&right[..5])), Ok(0.5));

        let twice = [right[0], right[0]];
        assert!(judge(&plan, &knn, &exact[0], &answer(&twice))
            .unwrap_err()
            .contains("twice"));
        assert!(judge(&plan, &knn, &exact[0], &answer(&[plan.docs]))
            .unwrap_err()
            .contains("not a document"));
        let filtered = Knn::parse("k10_nc100_f99").unwrap();
        let outside = (0..plan.docs)
            .find(|&i| plan.space.bucket(i) >= 10)
            .unwrap();
        assert!(judge(&plan, &filtered, &[], &answer(&[outside]))
            .unwrap_err()
            .contains("outside the filter"));
        let eleven: Vec<u64> = (0..11).collect();
        assert!(judge(&plan, &knn, &exact[0], &answer(&eleven))
            .unwrap_err()
            .contains("11 hits"));

        // Through the checker: the row's recall is the mean, its minimum the worst answer.
        let variants = [Variant::new("k10_nc100")];
        let mut checker = plan.checker(&variants, true, &Progress::default()).unwrap();
        let mut failures = Vec::new();
        checker.check(
            0,
            0,
            &[(0, answer(&right)), (1, answer(&wrong))],
            &mut failures,
        );
        assert!(failures.is_empty(), "{failures:?}");
        let rows = checker.rows();
        assert_eq!(rows[0].answers, 2);
        assert_eq!(rows[0].recall_mean(), Some(0.95));
        assert_eq!(rows[0].recall_min, Some(0.9));
    }
}
