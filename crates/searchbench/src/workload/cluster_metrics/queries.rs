//! The query side of `cluster-metrics`: the production query (`bool.filter` on node + epoch,
//! `size: 0`, 3× sum, 3× percentiles) decomposed into variants (A filter only, B sums,
//! C_td/C_hdr percentiles, D_td production, D_hdr), sent over both transports; a coverage is
//! all nodes of one epoch. Measured only when named, the precision variants ask C's
//! percentiles of HDR at 2 and 4 significant digits (`C_hdr2`, `C_hdr4`; `C_hdr` is 3, the
//! engines' default) and of t-digest at compression 1,000 (`C_td1000`; `C_td` is 100, the
//! default): their accuracy rows give each one's error at every percent against the truth.
//! Every answer is checked against the exact ground truth:
//!
//! * Hit counts must be equal.
//! * Sums must agree to a relative `1e-9` (plus `1e-6` absolute): the engine adds the same
//!   `f32` values as doubles, in its own order (with compensated summation), so only the last
//!   bits may differ.
//! * Percentiles are approximations (t-digest, HDR) of the exact type-7 percentiles of the
//!   truth. The error of one value is `|got − exact| / max(|exact|, 1)`: relative, with a floor
//!   of one unit (1 % CPU/mem, 1 MB/s net) so a minimum of 0.00 does not divide by zero.
//!   Accepted bounds: [`TDIGEST_BOUND`] and [`HDR_BOUND`]; an error above its bound is a
//!   failure like a wrong count.

use std::collections::HashMap;

use serde_json::Value;

use crate::corpus::cluster_metrics::{FieldTruth, PartitionTruth};
use crate::query::report::Component;
use crate::query::{
    Answer, Check, Checker, Described, Progress, QueryError, QueryPlan, Transport, Variant,
    VariantAccuracy,
};

/// The three value fields every variant aggregates, in answer order.
pub const FIELDS: [&str; 3] = ["cpu", "mem", "net"];
/// The percents the percentile variants ask for.
pub const PERCENTS: [f64; 4] = [0.0, 50.0, 90.0, 100.0];

/// Largest accepted percentile error for t-digest (any compression): 10 %. t-digest
/// interpolates between centroids in the middle of the distribution, and the heavy-tailed
/// `net` field has wide gaps there. Elasticsearch 8.17's default digest (at compression 100)
/// was measured 4.8 % off at p50 of `net` on one shard and 5.7 % on two and four, where each
/// shard's digest is merged into one (BENCHMARKS.md, `bench/query-axes.sh`); OpenSearch
/// 2.19.1's stayed under 1 %.
pub const TDIGEST_BOUND: f64 = 0.10;
/// Largest accepted percentile error for HDR with 3 significant digits: 2 %. HDR itself is
/// within 0.1 % of a value it holds, but it returns a sample value rather than interpolating
/// between the two closest ranks, so the gap between neighbouring values adds to it.
pub const HDR_BOUND: f64 = 0.02;
/// Largest accepted percentile error for HDR with 2 significant digits: 3 %. Its buckets are
/// 1/128 of their power of two wide (0.8 %), on top of the gap between neighbours.
pub const HDR2_BOUND: f64 = 0.03;
/// Largest accepted percentile error for the sketch store's DDSketch: its stated relative
/// error, 1 % ([`crate::sketch::RELATIVE_ERROR`]), and nothing more: it interpolates between
/// the two ranks as the truth does, each within 1 % of its value (a float's last bits aside).
pub const SKETCH_BOUND: f64 = crate::sketch::RELATIVE_ERROR + 1e-9;
/// Relative tolerance on sums.
pub const SUM_REL_TOLERANCE: f64 = 1e-9;

/// The percentile algorithm a variant uses, with its precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    /// t-digest, the engines' default, at a compression (`None`: the engine's default, 100).
    TDigest { compression: Option<u32> },
    /// HDR histogram with this many significant digits (the engines' default is 3).
    Hdr { digits: u8 },
    /// The sketch store's DDSketch (relative error 1 %).
    DdSketch,
}

/// t-digest as the engines run it unless told otherwise.
pub const TDIGEST: Algo = Algo::TDigest { compression: None };
/// HDR as the engines run it unless told otherwise: 3 significant digits.
pub const HDR: Algo = Algo::Hdr { digits: 3 };

impl Algo {
    /// Its name in results: `t-digest` and `hdr` at their defaults (as results always named
    /// them), else with the precision (`hdr, 2 digits`, `t-digest, compression 1000`).
    pub fn name(self) -> String {
        match self {
            TDIGEST => "t-digest".into(),
            HDR => "hdr".into(),
            Algo::TDigest {
                compression: Some(c),
            } => format!("t-digest, compression {c}"),
            Algo::Hdr { digits } => format!("hdr, {digits} digits"),
            Algo::DdSketch => "ddsketch".into(),
        }
    }

    /// The largest error accepted of it.
    pub fn bound(self) -> f64 {
        match self {
            Algo::TDigest { .. } => TDIGEST_BOUND,
            Algo::Hdr { digits } if digits < 3 => HDR2_BOUND,
            Algo::Hdr { .. } => HDR_BOUND,
            Algo::DdSketch => SKETCH_BOUND,
        }
    }

    /// What the `percentiles` aggregation is told beyond its field and percents.
    fn settings(self) -> String {
        match self {
            // No engine has a DDSketch: asked of one, it is t-digest's body.
            TDIGEST | Algo::DdSketch => String::new(),
            Algo::TDigest {
                compression: Some(c),
            } => format!(",\"tdigest\":{{\"compression\":{c}}}"),
            Algo::Hdr { digits } => {
                format!(",\"hdr\":{{\"number_of_significant_value_digits\":{digits}}}")
            }
        }
    }
}

/// One decomposition of the production query: its name, whether it sums, which percentiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub name: &'static str,
    pub sums: bool,
    pub percentiles: Option<Algo>,
}

/// The variants, in the order results list them.
pub const SHAPES: [Shape; 6] = [
    // Filter only.
    Shape {
        name: "A",
        sums: false,
        percentiles: None,
    },
    // Filter + 3× sum.
    Shape {
        name: "B",
        sums: true,
        percentiles: None,
    },
    // Filter + 3× percentiles (t-digest).
    Shape {
        name: "C_td",
        sums: false,
        percentiles: Some(TDIGEST),
    },
    // Filter + 3× percentiles (HDR).
    Shape {
        name: "C_hdr",
        sums: false,
        percentiles: Some(HDR),
    },
    // The production query: 3× sum + 3× percentiles (t-digest).
    Shape {
        name: "D_td",
        sums: true,
        percentiles: Some(TDIGEST),
    },
    // 3× sum + 3× percentiles (HDR).
    Shape {
        name: "D_hdr",
        sums: true,
        percentiles: Some(HDR),
    },
];

/// The precision variants: C's percentiles at other precisions, measured only when named.
pub const PRECISION_SHAPES: [Shape; 3] = [
    Shape {
        name: "C_hdr2",
        sums: false,
        percentiles: Some(Algo::Hdr { digits: 2 }),
    },
    Shape {
        name: "C_hdr4",
        sums: false,
        percentiles: Some(Algo::Hdr { digits: 4 }),
    },
    Shape {
        name: "C_td1000",
        sums: false,
        percentiles: Some(Algo::TDigest {
            compression: Some(1000),
        }),
    },
];

/// The production query as the sketch store answers it: 3× sum + 3× percentiles (DDSketch).
/// Not among [`SHAPES`]: no engine runs it, and the store runs nothing else.
pub const SKETCH_SHAPE: Shape = Shape {
    name: "D_dd",
    sums: true,
    percentiles: Some(Algo::DdSketch),
};

/// The variant the production code runs.
pub const PRODUCTION: &str = "D_td";

/// The shape of the variant called `name` (exactly as [`SHAPES`] or [`PRECISION_SHAPES`]
/// spell it).
pub fn shape(name: &str) -> Option<Shape> {
    SHAPES
        .iter()
        .chain(&PRECISION_SHAPES)
        .copied()
        .find(|s| s.name == name)
}

/// Every variant, as names.
pub fn variants() -> Vec<Variant> {
    SHAPES.iter().map(|s| Variant::new(s.name)).collect()
}

/// The variants measured only when named: [`PRECISION_SHAPES`].
pub fn named_only() -> Vec<Variant> {
    PRECISION_SHAPES
        .iter()
        .map(|s| Variant::new(s.name))
        .collect()
}

/// The `_search` body of `shape` for one (node, epoch), compact, on one line.
///
/// `track_total_hits: true` makes the hit count exact (the default stops counting at 10,000),
/// so it can be checked against the ground truth; it costs nothing for the variants with
/// aggregations, which visit every matching document anyway, and it makes variant A count
/// every match, which is what the subtraction `B − A` needs.
pub fn search_body(shape: Shape, node: &str, epoch: u64, profile: bool) -> Vec<u8> {
    let node = Value::String(node.to_string()).to_string();
    let mut s = format!(
        "{{\"size\":0,\"track_total_hits\":true,\"query\":{{\"bool\":{{\"filter\":[\
         {{\"term\":{{\"node\":{node}}}}},{{\"term\":{{\"epoch\":{epoch}}}}}]}}}}"
    );
    let mut aggs = Vec::new();
    if shape.sums {
        for f in FIELDS {
            aggs.push(format!("\"{f}_sum\":{{\"sum\":{{\"field\":\"{f}\"}}}}"));
        }
    }
    if let Some(algo) = shape.percentiles {
        let settings = algo.settings();
        for f in FIELDS {
            aggs.push(format!(
                "\"{f}_pct\":{{\"percentiles\":{{\"field\":\"{f}\",\"percents\":[0,50,90,100]{settings}}}}}"
            ));
        }
    }
    if !aggs.is_empty() {
        s.push_str(",\"aggs\":{");
        s.push_str(&aggs.join(","));
        s.push('}');
    }
    if profile {
        s.push_str(",\"profile\":true");
    }
    s.push('}');
    s.into_bytes()
}

/// Ground truth by (epoch, node).
#[derive(Debug, Clone, Default)]
pub struct Truth {
    parts: HashMap<(u64, String), PartitionTruth>,
    /// Epochs in order, each with its nodes in order.
    pub coverages: Vec<(u64, Vec<String>)>,
}

impl Truth {
    pub fn new(mut parts: Vec<PartitionTruth>) -> Self {
        parts.sort_by(|a, b| (a.epoch, &a.node).cmp(&(b.epoch, &b.node)));
        let mut coverages: Vec<(u64, Vec<String>)> = Vec::new();
        for p in &parts {
            match coverages.last_mut() {
                Some((e, nodes)) if *e == p.epoch => nodes.push(p.node.clone()),
                _ => coverages.push((p.epoch, vec![p.node.clone()])),
            }
        }
        let parts = parts
            .into_iter()
            .map(|p| ((p.epoch, p.node.clone()), p))
            .collect();
        Truth { parts, coverages }
    }

    pub fn get(&self, epoch: u64, node: &str) -> Option<&PartitionTruth> {
        self.parts.get(&(epoch, node.to_string()))
    }

    pub fn partitions(&self) -> usize {
        self.parts.len()
    }
}

/// The cluster-metrics queries on an index holding the corpus of `truth`.
#[derive(Debug, Clone)]
pub struct MetricsQueries {
    pub truth: Truth,
}

impl MetricsQueries {
    pub fn new(truth: Truth) -> Self {
        MetricsQueries { truth }
    }
}

impl QueryPlan for MetricsQueries {
    fn workload(&self) -> &str {
        "cluster-metrics"
    }

    fn variants(&self) -> Vec<Variant> {
        variants()
    }

    fn named_only(&self) -> Vec<Variant> {
        named_only()
    }

    fn default_transports(&self) -> Vec<Transport> {
        Transport::ALL.to_vec()
    }

    fn coverages(&self) -> usize {
        self.truth.coverages.len()
    }

    fn partitions(&self) -> usize {
        self.truth.partitions()
    }

    fn coverage_label(&self, coverage: usize) -> u64 {
        self.truth.coverages.get(coverage).map_or(0, |(e, _)| *e)
    }

    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>> {
        let (Some(shape), Some((epoch, nodes))) =
            (shape(variant.name()), self.truth.coverages.get(coverage))
        else {
            return Vec::new();
        };
        nodes
            .iter()
            .map(|n| search_body(shape, n, *epoch, profile))
            .collect()
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
                let shape = shape(v.name()).ok_or_else(|| {
                    QueryError::Invalid(format!("{v} is not a cluster-metrics variant"))
                })?;
                Ok((shape, row(v.clone(), shape)))
            })
            .collect::<Result<_, QueryError>>()?;
        Ok(checker(&self.truth, rows))
    }

    fn described(&self) -> Described {
        Described {
            unit: "coverage".into(),
            per_unit: "Per coverage (all nodes of one epoch): server took summed, and client \
                       wall, in ms"
                .into(),
            checked_against: "Accuracy against the exact ground truth (percentile error = \
                              |got − exact| / max(|exact|, 1))"
                .into(),
            all_right: "All counts and sums exact; all percentiles within bounds; no failed \
                        request."
                .into(),
        }
    }

    fn attribution(&self, took: &dyn Fn(&Variant) -> Option<f64>) -> Vec<Component> {
        attribution(took)
    }

    fn headline(&self) -> Option<Variant> {
        Some(Variant::new(PRODUCTION))
    }
}

/// The subtractive attribution over a run's cells (`took(v)`: variant `v`'s mean took per
/// coverage): the filter and framework (A), what each aggregation adds to it, and the
/// production query. One formula, for a run (its plan's) and a group of parts merged (the
/// workload's: `Workload::attribution`).
pub(super) fn attribution(took: &dyn Fn(&Variant) -> Option<f64>) -> Vec<Component> {
    let took = |name: &str| took(&Variant::new(name));
    let mut out = Vec::new();
    let (Some(a), Some(d)) = (took("A"), took(PRODUCTION)) else {
        return out;
    };
    let share = |ms: f64| if d > 0.0 { ms / d * 100.0 } else { 0.0 };
    let mut push = |name: &str, ms: f64| {
        out.push(Component {
            component: name.to_string(),
            ms,
            share_pct: share(ms),
        })
    };
    push("filter + framework (A)", a);
    if let Some(b) = took("B") {
        push("3× sum (B − A)", b - a);
    }
    if let Some(c) = took("C_td") {
        push("3× percentiles t-digest (C_td − A)", c - a);
    }
    if let Some(c) = took("C_hdr") {
        push("3× percentiles HDR (C_hdr − A)", c - a);
    }
    push("production query (D_td)", d);
    out
}

/// The checker of `rows` (each variant's shape and its empty accuracy row) against `truth`.
pub(super) fn checker(truth: &Truth, rows: Vec<(Shape, VariantAccuracy)>) -> Box<dyn Checker + '_> {
    Box::new(MetricsChecker { truth, rows })
}

/// The accuracy row of a variant of `shape`, before any answer.
pub(super) fn row(variant: Variant, shape: Shape) -> VariantAccuracy {
    let mut checks = vec![Check::Count];
    if shape.sums {
        checks.push(Check::Sums);
    }
    if shape.percentiles.is_some() {
        checks.push(Check::Percentiles);
    }
    let row = VariantAccuracy::new(variant, checks);
    match shape.percentiles {
        Some(algo) => row.with_percentiles(&algo.name(), algo.bound()),
        None => row,
    }
}

struct MetricsChecker<'a> {
    truth: &'a Truth,
    rows: Vec<(Shape, VariantAccuracy)>,
}

impl Checker for MetricsChecker<'_> {
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    ) {
        let (Some((epoch, nodes)), Some((shape, acc))) = (
            self.truth.coverages.get(coverage),
            self.rows.get_mut(variant),
        ) else {
            return;
        };
        for (i, answer) in answers {
            if let Some(t) = nodes.get(*i).and_then(|n| self.truth.get(*epoch, n)) {
                check(acc, *shape, t, answer, failures);
            }
        }
    }

    fn rows(self: Box<Self>) -> Vec<VariantAccuracy> {
        self.rows.into_iter().map(|(_, r)| r).collect()
    }
}

/// The percentile error as defined in the module doc.
pub fn pct_error(got: f64, exact: f64) -> f64 {
    (got - exact).abs() / exact.abs().max(1.0)
}

pub fn sum_ok(got: f64, exact: f64) -> bool {
    (got - exact).abs() <= SUM_REL_TOLERANCE * exact.abs() + 1e-6
}

fn field(t: &PartitionTruth, i: usize) -> &FieldTruth {
    match i {
        0 => &t.cpu,
        1 => &t.mem,
        _ => &t.net,
    }
}

/// Checks one answer of a variant of `shape` for the partition `truth`; failures are
/// appended to `failures` as sentences. A missing aggregation is a wrong answer.
pub fn check(
    acc: &mut VariantAccuracy,
    shape: Shape,
    truth: &PartitionTruth,
    answer: &Answer,
    failures: &mut Vec<String>,
) {
    let who = format!("{} epoch {} node {}", shape.name, truth.epoch, truth.node);
    acc.answers += 1;
    if let Some(why) = answer.count_differs(truth.count) {
        acc.count_wrong += 1;
        failures.push(format!("{who}: {why}"));
    }
    if shape.sums {
        for (i, f) in FIELDS.iter().enumerate() {
            let exact = field(truth, i).sum;
            let got = answer.aggregation(&format!("{f}_sum")).and_then(|a| {
                a.get("value")
                    .and_then(Value::as_f64)
                    .ok_or_else(|| format!("`{f}_sum.value` is not a number"))
            });
            match got {
                Ok(got) if sum_ok(got, exact) => {}
                Ok(got) => {
                    acc.sum_wrong += 1;
                    failures.push(format!("{who}: sum({f}) = {got}, expected {exact}"));
                }
                Err(e) => {
                    acc.sum_wrong += 1;
                    failures.push(format!("{who}: {e}, expected sum({f}) = {exact}"));
                }
            }
        }
    }
    if let (Some(_), Some(bound)) = (shape.percentiles, acc.bound) {
        for (i, f) in FIELDS.iter().enumerate() {
            let t = field(truth, i);
            let exact = [t.p0, t.p50, t.p90, t.p100];
            let values = match answer
                .aggregation(&format!("{f}_pct"))
                .and_then(read_percentiles)
            {
                Ok(values) => values,
                Err(e) => {
                    for _ in PERCENTS {
                        acc.percentile_null();
                    }
                    failures.push(format!("{who}: `{f}_pct`: {e}"));
                    continue;
                }
            };
            for (j, got) in values.iter().enumerate() {
                let Some(got) = got else {
                    acc.percentile_null();
                    failures.push(format!(
                        "{who}: p{}({f}) is null, expected {}",
                        PERCENTS[j], exact[j]
                    ));
                    continue;
                };
                let err = pct_error(*got, exact[j]);
                if !acc.percentile_error(j, err) {
                    failures.push(format!(
                        "{who}: p{}({f}) = {got}, exact {}, error {:.3}% > bound {:.1}%",
                        PERCENTS[j],
                        exact[j],
                        err * 100.0,
                        bound * 100.0
                    ));
                }
            }
        }
    }
}

/// `values` keyed (`{"50.0": x}`) or not (`[{"key": 50.0, "value": x}]`); null stays `None`.
fn read_percentiles(a: &Value) -> Result<[Option<f64>; 4], String> {
    let values = a.get("values").ok_or("no `values`")?;
    let mut pairs: Vec<(f64, Option<f64>)> = Vec::new();
    match values {
        Value::Object(o) => {
            for (k, v) in o {
                if k.ends_with("_as_string") {
                    continue;
                }
                let key: f64 = k.parse().map_err(|_| format!("odd key {k:?}"))?;
                pairs.push((key, v.as_f64()));
            }
        }
        Value::Array(items) => {
            for item in items {
                let key = item
                    .get("key")
                    .and_then(Value::as_f64)
                    .ok_or("an entry without a numeric `key`")?;
                pairs.push((key, item.get("value").and_then(Value::as_f64)));
            }
        }
        _ => return Err("`values` is neither an object nor an array".into()),
    }
    let mut out = [None; 4];
    for (i, p) in PERCENTS.iter().enumerate() {
        let (_, v) = pairs
            .iter()
            .find(|(k, _)| (k - p).abs() < 1e-9)
            .ok_or_else(|| format!("no value for percent {p}"))?;
        out[i] = *v;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_json() {
        for s in SHAPES {
            let b = search_body(s, "N001", 3, true);
            let j: Value = serde_json::from_slice(&b).expect("json");
            assert_eq!(j["query"]["bool"]["filter"][1]["term"]["epoch"], 3);
            assert_eq!(j["aggs"]["cpu_sum"].is_object(), s.sums);
            assert_eq!(
                j["aggs"]["net_pct"]["percentiles"]["hdr"].is_object(),
                s.percentiles == Some(HDR)
            );
        }
        // The precision variants say their precision, and only they do.
        let settings = |name: &str| {
            let b = search_body(shape(name).expect(name), "N001", 3, false);
            let j: Value = serde_json::from_slice(&b).expect("json");
            j["aggs"]["cpu_pct"]["percentiles"].clone()
        };
        assert_eq!(
            settings("C_hdr2")["hdr"]["number_of_significant_value_digits"],
            2
        );
        assert_eq!(
            settings("C_hdr")["hdr"]["number_of_significant_value_digits"],
            3
        );
        assert_eq!(
            settings("C_hdr4")["hdr"]["number_of_significant_value_digits"],
            4
        );
        assert_eq!(settings("C_td1000")["tdigest"]["compression"], 1000);
        assert!(settings("C_td").get("tdigest").is_none());
        assert!(!variants().iter().any(|v| v.name().starts_with("C_hdr2")));
        let names: Vec<String> = ["C_td", "C_hdr", "C_hdr2", "C_hdr4", "C_td1000"]
            .map(|n| shape(n).and_then(|s| s.percentiles).expect(n).name())
            .into();
        assert_eq!(
            names,
            [
                "t-digest",
                "hdr",
                "hdr, 2 digits",
                "hdr, 4 digits",
                "t-digest, compression 1000"
            ]
        );
        assert_eq!(
            shape("C_hdr2").and_then(|s| s.percentiles).map(Algo::bound),
            Some(HDR2_BOUND)
        );
        assert_eq!(variants()[4], PRODUCTION);
    }

    #[test]
    fn answers_are_checked_field_by_field() {
        let f = FieldTruth {
            p0: 1.0,
            p50: 2.0,
            p90: 3.0,
            p100: 4.0,
            sum: 10.0,
        };
        let truth = PartitionTruth {
            epoch: 1,
            node: "N001".into(),
            count: 10,
            cpu: f,
            mem: f,
            net: f,
        };
        let answer = crate::query::answer::parse_search(json!({"took": 5,
        "hits": {"total": {"value": 10, "relation": "eq"}},
        "aggregations": {
            "cpu_sum": {"value": 10.0}, "mem_sum": {"value": 2.0}, "net_sum": {"value": 10.0},
            "cpu_pct": {"values": {"0.0": 1.0, "50.0": 2.0, "90.0": 3.0, "100.0": 4.0}},
            "mem_pct": {"values": {"0.0": 1.0, "50.0": 2.0, "90.0": 3.0, "100.0": null}},
            "net_pct": {"values": [{"key": 0.0, "value": 1.0}, {"key": 50.0, "value": 2.0},
                                    {"key": 90.0, "value": 3.0}, {"key": 100.0, "value": 4.0}]}
        }}))
        .expect("answer");
        let d = shape(PRODUCTION).expect("D_td");
        let mut acc = row(Variant::new(PRODUCTION), d);
        let mut failures = Vec::new();
        check(&mut acc, d, &truth, &answer, &mut failures);
        assert_eq!((acc.count_wrong, acc.sum_wrong), (0, 1));
        assert_eq!(
            (acc.pct_values, acc.pct_null, acc.pct_over_bound),
            (12, 1, 0)
        );
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].contains("sum(mem) = 2"), "{failures:?}");
        // An answer without the aggregations its variant asks for is wrong, not skipped.
        let bare = crate::query::answer::parse_search(json!({"took": 1, "hits": {"total": 10}}))
            .expect("answer");
        let mut acc = row(Variant::new(PRODUCTION), d);
        let mut failures = Vec::new();
        check(&mut acc, d, &truth, &bare, &mut failures);
        assert_eq!(acc.sum_wrong, 3);
        assert_eq!(acc.pct_null, 12);
        assert!(acc.failed());
    }
}
