//! The comparable metrics of a stored result, read from its JSON.
//!
//! Reading the JSON (rather than the Rust types) keeps old results comparable when the result
//! types grow: a field that is missing gives no metric, never an error.
//!
//! Ingest results (`IngestReport`): throughput is the run's headline (`docs_per_sec`: documents
//! acknowledged after the warm-up ÷ the steady window), the same figure every view shows; it,
//! MB/s and mean service time come with per-second samples from the steady part of the
//! timeline for their interval (warm-up seconds and the last, partial second left out; for old
//! results without warm-up marks, the first and the last second).
//! Errors are metrics too ([`Metric::errors`]): any rise is worse, whatever else changed. Service-time and took percentiles carry the
//! per-request values of the run's stored HDR histograms when there are some
//! ([`with_histograms`]), so they get an interval too; CPU, max and attribution are single
//! values per run: with one run per side they get a difference but no interval.
//! Query results (`QueryResult`): per cell took and wall with one sample per coverage; accuracy
//! per variant as single values.

use serde::Serialize;
use serde_json::Value;

use std::sync::Arc;

use super::statistics::{mean, Recorded, SampleKind};
use crate::measure::SerializedHistogram;

/// Which way is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HigherBetter,
    LowerBetter,
    /// Shown with its difference; a change is neither good nor bad by itself.
    Info,
}

/// One metric of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Metric {
    /// Stable key, e.g. `throughput_docs_per_sec`, `query.D_td.serial.took_ms`.
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub direction: Direction,
    pub value: f64,
    /// Samples whose mean is `value`, when the result has them.
    pub samples: Option<(SampleKind, Vec<f64>)>,
    /// For a percentile metric of a run whose histogram is stored: the per-request values
    /// and the quantile (see [`with_histograms`]).
    #[serde(skip)]
    pub recorded: Option<(Arc<Recorded>, f64)>,
    /// A count of errors (failed requests for good, refused documents, failed searches, wrong
    /// answers): any rise is worse, and a contender with any is never better.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub errors: bool,
}

fn f(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_f64()
}

fn point(
    key: &str,
    label: &str,
    unit: &'static str,
    d: Direction,
    v: Option<f64>,
) -> Option<Metric> {
    let value = v.filter(|x| x.is_finite())?;
    Some(Metric {
        key: key.into(),
        label: label.into(),
        unit,
        direction: d,
        value,
        samples: None,
        recorded: None,
        errors: false,
    })
}

/// An error count: lower is better, and any rise is worse (see [`Metric::errors`]).
fn errors(key: &str, label: &str, v: Option<f64>) -> Option<Metric> {
    let mut m = point(key, label, "", Direction::LowerBetter, v)?;
    m.errors = true;
    Some(m)
}

fn sampled(
    key: &str,
    label: &str,
    unit: &'static str,
    d: Direction,
    kind: SampleKind,
    samples: Vec<f64>,
) -> Option<Metric> {
    let value = mean(&samples)?;
    Some(Metric {
        key: key.into(),
        label: label.into(),
        unit,
        direction: d,
        value,
        samples: Some((kind, samples)),
        recorded: None,
        errors: false,
    })
}

/// Gives the percentile metrics of one run the per-request values behind them, from the run's
/// stored histograms (`service` in µs, `took` in ms), so a comparison can put an interval on
/// a percentile. Histograms that do not decode are skipped: the metric keeps its value.
///
/// The requests of one second are not independent (a merge slows them together), so each
/// resample draws as many values as the run has seconds, not one per request: an interval the
/// run can support, and none for a percentile its seconds cannot resolve (p99 needs 100).
pub fn with_histograms(metrics: &mut [Metric], histograms: &[SerializedHistogram], seconds: usize) {
    let decoded = |name: &str, per_ms: f64| {
        let h = histograms.iter().find(|h| h.name == name)?.decode().ok()?;
        Some(Arc::new(
            Recorded::from_hdr(&h, per_ms).independent_units(seconds as u64),
        ))
    };
    let sources = [
        ("service_", decoded("service", 1000.0)),
        ("took_", decoded("took", 1.0)),
    ];
    for m in metrics.iter_mut() {
        for (prefix, recorded) in &sources {
            let (Some(recorded), Some(rest)) = (recorded, m.key.strip_prefix(prefix)) else {
                continue;
            };
            let q = match rest {
                "p50_ms" => 0.5,
                "p90_ms" => 0.9,
                "p99_ms" => 0.99,
                "p999_ms" => 0.999,
                _ => continue,
            };
            m.recorded = Some((recorded.clone(), q));
        }
    }
}

/// The steady per-second rows: after the seconds marked `warmup` and without the last
/// (partial) second; for a timeline without warm-up marks, without the first (ramp-up) and
/// the last second. Empty under 4 seconds.
pub fn steady_seconds(timeline: &[Value]) -> &[Value] {
    if timeline.len() < 4 {
        return &[];
    }
    let warm = timeline
        .iter()
        .take_while(|s| s.get("warmup").and_then(Value::as_bool) == Some(true))
        .count();
    let from = if warm > 0 { warm } else { 1 };
    if timeline.len() < from + 3 {
        return &[];
    }
    &timeline[from..timeline.len() - 1]
}

/// Is this an ingest-shaped result (an `IngestReport`)?
pub fn is_ingest(result: &Value) -> bool {
    result.get("docs_per_sec").is_some() && result.get("counts").is_some()
}

/// Is this a query-shaped result (a `QueryResult`, or a run with a query phase)?
pub fn is_query(result: &Value) -> bool {
    query_part(result).is_some()
}

/// The query result inside a result: the result itself (`searchbench query`) or its
/// `query` member (`searchbench run`, which ingests and then queries).
pub fn query_part(result: &Value) -> Option<&Value> {
    let has_cells = |v: &Value| v.get("cells").is_some_and(Value::is_array);
    if has_cells(result) {
        Some(result)
    } else {
        result.get("query").filter(|q| has_cells(q))
    }
}

/// Every metric a result offers, in display order.
pub fn extract(result: &Value, timeline: &[Value]) -> Vec<Metric> {
    let mut out = Vec::new();
    if is_ingest(result) {
        ingest(result, timeline, &mut out);
    }
    if let Some(q) = query_part(result) {
        query(q, &mut out);
    }
    telemetry(result, &mut out);
    scenario_and_beside(result, &mut out);
    dates_experiment(result, &mut out);
    out
}

/// `experiment dates` on one cluster: per date-handling variant, its repeats' throughput,
/// engine CPU and `_stats` index time per document, and the documents it lost.
fn dates_experiment(r: &Value, out: &mut Vec<Metric>) {
    use Direction::*;
    let variants = r.get("variants").and_then(Value::as_array);
    for v in variants.into_iter().flatten() {
        let (Some(id), Some(runs)) = (
            v.get("id").and_then(Value::as_str),
            v.get("runs").and_then(Value::as_array),
        ) else {
            continue;
        };
        let label = v.get("what").and_then(Value::as_str).unwrap_or(id);
        let each = |field: &str| -> Vec<f64> {
            runs.iter()
                .filter_map(|m| m.get(field).and_then(Value::as_f64))
                .collect()
        };
        for (field, what, unit, direction) in [
            ("docs_per_sec", "docs/s", "docs/s", HigherBetter),
            (
                "engine_cpu_us_per_doc",
                "engine CPU per doc",
                "µs",
                LowerBetter,
            ),
            (
                "index_time_us_per_doc",
                "_stats index time per doc",
                "µs",
                LowerBetter,
            ),
        ] {
            out.extend(sampled(
                &format!("dates.{id}.{field}"),
                &format!("dates ({id}) {label}: {what}"),
                unit,
                direction,
                SampleKind::PerRun,
                each(field),
            ));
        }
        let failed: f64 = each("failed").iter().sum();
        out.extend(errors(
            &format!("errors.dates.{id}.failed_docs"),
            &format!("errors: dates ({id}) documents not indexed"),
            (!runs.is_empty()).then_some(failed),
        ));
    }
}

/// The telemetry figures of a result (GC, heap, rejections), per phase: an ingest's (or a
/// query command's) under `telemetry.`, a run's query phase under `query.telemetry.`.
fn telemetry(result: &Value, out: &mut Vec<Metric>) {
    let own = result.get("telemetry");
    let query_phase = result
        .get("query")
        .filter(|q| q.is_object())
        .and_then(|q| q.get("telemetry"));
    for (prefix, label, t) in [("", "", own), ("query.", "query: ", query_phase)] {
        if let Some(t) = t.filter(|t| t.is_object()) {
            telemetry_phase(t, prefix, label, out);
        }
    }
}

fn telemetry_phase(t: &Value, prefix: &str, label: &str, out: &mut Vec<Metric>) {
    use Direction::*;
    let key = |k: &str| format!("{prefix}telemetry.{k}");
    let name = |l: &str| format!("{label}{l}");
    let per_second = |k: &str| -> Vec<f64> {
        t.get("per_second")
            .and_then(|p| p.get(k))
            .and_then(Value::as_array)
            .map(|xs| xs.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let gc = per_second("gc_ms");
    let span = f(t, &["span_secs"]).filter(|s| *s > 0.0);
    out.extend(if gc.is_empty() {
        point(
            &key("gc_ms_per_s"),
            &name("GC time per second (all nodes)"),
            "ms/s",
            LowerBetter,
            f(t, &["gc_secs"]).zip(span).map(|(g, s)| g * 1000.0 / s),
        )
    } else {
        sampled(
            &key("gc_ms_per_s"),
            &name("GC time per second (all nodes)"),
            "ms/s",
            LowerBetter,
            SampleKind::PerSecond,
            gc,
        )
    });
    out.extend(point(
        &key("gc_share_pct"),
        &name("GC share of wall (worst node)"),
        "%",
        LowerBetter,
        f(t, &["gc_share"]).map(|s| s * 100.0),
    ));
    out.extend(point(
        &key("old_gcs"),
        &name("old-generation collections"),
        "",
        LowerBetter,
        f(t, &["old_gcs"]),
    ));
    out.extend(point(
        &key("heap_peak_mb"),
        &name("heap peak"),
        "MB",
        LowerBetter,
        f(t, &["heap_peak_bytes"]).map(|b| b / 1e6),
    ));
    let heap = per_second("heap_used_mb");
    if !heap.is_empty() {
        out.extend(sampled(
            &key("heap_used_mb"),
            &name("heap used (per-second, all nodes)"),
            "MB",
            LowerBetter,
            SampleKind::PerSecond,
            heap,
        ));
    }
    out.extend(errors(
        &key("write_rejections"),
        &name("write thread pool rejections"),
        f(t, &["write_rejections"]),
    ));
    out.extend(errors(
        &key("search_rejections"),
        &name("search thread pool rejections"),
        f(t, &["search_rejections"]),
    ));
    out.extend(point(
        &key("merge_throttled_secs"),
        &name("merges throttled"),
        "s",
        LowerBetter,
        f(t, &["merge_throttled_secs"]),
    ));
}

/// The many-shards and snapshots scenarios, and the searches that ran beside a load (of an
/// ingest or run, or of the many-shards logs phase).
fn scenario_and_beside(r: &Value, out: &mut Vec<Metric>) {
    use Direction::*;
    let beside = r
        .get("searches_beside")
        .or_else(|| r.pointer("/indexing/searches_beside"));
    if let Some(b) = beside {
        let ms = |k: &str| f(b, &["latency", k]).map(|us| us / 1000.0);
        out.extend(
            [
                point(
                    "beside.searches_per_sec",
                    "searches beside the load: searches/s",
                    "/s",
                    HigherBetter,
                    f(b, &["searches_per_sec"]),
                ),
                point(
                    "beside.latency_p50_ms",
                    "searches beside the load: latency p50",
                    "ms",
                    LowerBetter,
                    ms("p50_us"),
                ),
                point(
                    "beside.latency_p99_ms",
                    "searches beside the load: latency p99",
                    "ms",
                    LowerBetter,
                    ms("p99_us"),
                ),
                errors(
                    "beside.errors",
                    "searches beside the load: failed",
                    f(b, &["errors"]),
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
    if r.get("scenario").and_then(Value::as_str).is_none() {
        return;
    }
    let last_state_mb = r
        .pointer("/creation/cluster_state")
        .and_then(Value::as_array)
        .and_then(|a| a.last())
        .and_then(|s| f(s, &["bytes"]))
        .map(|b| b / 1e6);
    out.extend(
        [
            point(
                "creation.indices_per_sec",
                "index creation: indices/s",
                "/s",
                HigherBetter,
                f(r, &["creation", "indices_per_sec"]),
            ),
            point(
                "creation.docs_per_sec",
                "index creation: docs/s",
                "docs/s",
                HigherBetter,
                f(r, &["creation", "docs_per_sec"]),
            ),
            point(
                "creation.last_tenth_indices_per_sec",
                "index creation: indices/s over the last tenth",
                "/s",
                HigherBetter,
                f(r, &["creation", "last_tenth_indices_per_sec"]),
            ),
            point(
                "creation.create_p99_ms",
                "index creation: create request p99",
                "ms",
                LowerBetter,
                f(r, &["creation", "create_ms", "p99_us"]).map(|us| us / 1000.0),
            ),
            errors(
                "creation.errors",
                "index creation: errors",
                f(r, &["creation", "errors"]),
            ),
            point(
                "cluster_state_mb",
                "cluster state at the end of creation",
                "MB",
                Info,
                last_state_mb,
            ),
            point(
                "indexing.docs_per_sec",
                "logs indexing with searches beside: docs/s",
                "docs/s",
                HigherBetter,
                f(r, &["indexing", "docs_per_sec"]),
            ),
            point(
                "field_caps.p50_ms",
                "field caps p50",
                "ms",
                LowerBetter,
                f(r, &["field_caps", "p50_ms"]),
            ),
            point(
                "field_caps.p99_ms",
                "field caps p99",
                "ms",
                LowerBetter,
                f(r, &["field_caps", "p99_ms"]),
            ),
            errors(
                "field_caps.errors",
                "field caps: failed",
                f(r, &["field_caps", "errors"]),
            ),
            point(
                "snapshots.create_mean_ms",
                "create snapshot: mean service time",
                "ms",
                LowerBetter,
                f(r, &["snapshots", "create", "mean_ms"]),
            ),
            point(
                "snapshots.create_p99_ms",
                "create snapshot: p99 service time",
                "ms",
                LowerBetter,
                f(r, &["snapshots", "create", "p99_ms"]),
            ),
            point(
                "snapshots.wait_secs",
                "snapshots: wait after the last create",
                "s",
                LowerBetter,
                f(r, &["snapshots", "wait_secs"]),
            ),
            point(
                "snapshots.total_secs",
                "snapshots: all done after the first create",
                "s",
                LowerBetter,
                f(r, &["snapshots", "total_secs"]),
            ),
            point(
                "snapshots.gc_ms",
                "snapshots: GC time of the nodes",
                "ms",
                LowerBetter,
                f(r, &["snapshots", "gc_ms"]),
            ),
            errors(
                "snapshots.failures",
                "snapshots not SUCCESS",
                f(r, &["snapshots", "failures"]),
            ),
            point(
                "snapshots.error_rate",
                "snapshots: error rate",
                "",
                LowerBetter,
                f(r, &["snapshots", "error_rate"]),
            ),
        ]
        .into_iter()
        .flatten(),
    );
}

fn ingest(r: &Value, timeline: &[Value], out: &mut Vec<Metric>) {
    use Direction::*;
    let steady = steady_seconds(timeline);
    let col = |name: &str, scale: f64| -> Vec<f64> {
        steady
            .iter()
            .filter_map(|s| s.get(name)?.as_f64())
            .map(|x| x * scale)
            .collect()
    };
    // The value is the headline; the steady seconds give its interval.
    let docs = col("docs", 1.0);
    let headline = f(r, &["docs_per_sec"]);
    out.extend(if docs.is_empty() {
        point(
            "throughput_docs_per_sec",
            "throughput (headline)",
            "docs/s",
            HigherBetter,
            headline,
        )
    } else {
        sampled(
            "throughput_docs_per_sec",
            "throughput (headline)",
            "docs/s",
            HigherBetter,
            SampleKind::PerSecond,
            docs,
        )
        .map(|mut m| {
            m.value = headline.unwrap_or(m.value);
            m
        })
    });
    let mb = col("bytes", 1.0 / 1_000_000.0);
    out.extend(if mb.is_empty() {
        point(
            "throughput_mb_per_sec",
            "bulk bytes",
            "MB/s",
            HigherBetter,
            f(r, &["mb_per_sec"]),
        )
    } else {
        sampled(
            "throughput_mb_per_sec",
            "bulk bytes (per-second mean)",
            "MB/s",
            HigherBetter,
            SampleKind::PerSecond,
            mb,
        )
    });
    // Seconds without a completed request have no service time.
    let busy: Vec<f64> = steady
        .iter()
        .filter(|s| s.get("requests").and_then(Value::as_u64).unwrap_or(0) > 0)
        .filter_map(|s| s.get("service_mean_ms")?.as_f64())
        .collect();
    out.extend(if busy.is_empty() {
        point(
            "service_mean_ms",
            "service time mean",
            "ms",
            LowerBetter,
            f(r, &["service", "mean_ms"]),
        )
    } else {
        sampled(
            "service_mean_ms",
            "service time mean (per-second)",
            "ms",
            LowerBetter,
            SampleKind::PerSecond,
            busy,
        )
    });
    for (k, label) in [
        ("p50_ms", "service time p50"),
        ("p90_ms", "service time p90"),
        ("p99_ms", "service time p99"),
        ("p999_ms", "service time p99.9"),
        ("max_ms", "service time max"),
    ] {
        out.extend(point(
            &format!("service_{k}"),
            label,
            "ms",
            LowerBetter,
            f(r, &["service", k]),
        ));
    }
    // A took that moved in cached-clock steps has no per-request percentiles to compare.
    let took_steps = r.get("took_clock_ms").is_some_and(|v| !v.is_null());
    for (k, label) in [("p50_ms", "server took p50"), ("p99_ms", "server took p99")]
        .into_iter()
        .filter(|_| !took_steps)
    {
        out.extend(point(
            &format!("took_{k}"),
            label,
            "ms",
            LowerBetter,
            f(r, &["took", k]),
        ));
    }
    // Error rate: failed attempts / attempts, per second where there are requests.
    let per_second_errors: Vec<f64> = steady
        .iter()
        .filter_map(|s| {
            let req = s.get("requests")?.as_f64()?;
            let failed = s.get("failed_attempts")?.as_f64()?;
            (req > 0.0).then(|| failed / req * 100.0)
        })
        .collect();
    let attempts = f(r, &["requests", "attempts"]);
    let failed = f(r, &["requests", "failed_attempts"]);
    let overall = attempts
        .zip(failed)
        .and_then(|(a, f)| (a > 0.0).then(|| f / a * 100.0));
    out.extend(if per_second_errors.is_empty() {
        point(
            "error_rate_pct",
            "failed attempts",
            "%",
            LowerBetter,
            overall,
        )
    } else {
        sampled(
            "error_rate_pct",
            "failed attempts (per-second)",
            "%",
            LowerBetter,
            SampleKind::PerSecond,
            per_second_errors,
        )
    });
    out.extend(errors(
        "errors.ingest.unacknowledged",
        "errors: documents of failed bulk requests",
        f(r, &["counts", "unacknowledged"]),
    ));
    out.extend(errors(
        "errors.ingest.not_sent",
        "errors: documents never sent (the run stopped first)",
        f(r, &["counts", "not_sent"]),
    ));
    out.extend(errors(
        "errors.ingest.refused",
        "errors: documents refused (item failures)",
        f(r, &["counts", "refused"]),
    ));
    out.extend(point(
        "driver_cpu_secs_per_million_docs",
        "driver CPU per million docs",
        "s",
        LowerBetter,
        f(r, &["cpu", "driver_secs_per_million_docs"]),
    ));
    out.extend(point(
        "engine_cpu_share",
        "engine CPU share of machine",
        "%",
        Info,
        f(r, &["cpu", "engine_machine_share"]).map(|x| x * 100.0),
    ));
    for (section, what) in [("budget", "share of wall"), ("background", "share of wall")] {
        let rows = r
            .get("attribution")
            .and_then(|a| a.get(section))
            .and_then(Value::as_array);
        for row in rows.into_iter().flatten() {
            let (Some(name), Some(share)) = (
                row.get("name").and_then(Value::as_str),
                row.get("share").and_then(Value::as_f64),
            ) else {
                continue;
            };
            out.extend(point(
                &format!("attribution.{section}.{name}"),
                &format!("attribution: {name} ({what})"),
                "%",
                Info,
                Some(share * 100.0),
            ));
        }
    }
}

fn query(r: &Value, out: &mut Vec<Metric>) {
    use Direction::*;
    for cell in r
        .get("cells")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(v), Some(t)) = (
            cell.get("variant").and_then(Value::as_str),
            cell.get("transport").and_then(Value::as_str),
        ) else {
            continue;
        };
        let ok: Vec<&Value> = cell
            .get("samples")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|s| s.get("ok").and_then(Value::as_bool).unwrap_or(false))
            .collect();
        for (field, label) in [("took_ms", "took"), ("wall_ms", "wall")] {
            let samples: Vec<f64> = ok.iter().filter_map(|s| s.get(field)?.as_f64()).collect();
            let key = format!("query.{v}.{t}.{field}");
            let label = format!("{v} {t}: {label} per coverage");
            out.extend(if samples.is_empty() {
                point(&key, &label, "ms", LowerBetter, f(cell, &[field, "mean"]))
            } else {
                sampled(
                    &key,
                    &label,
                    "ms",
                    LowerBetter,
                    SampleKind::PerCoverage,
                    samples,
                )
            });
        }
        out.extend(errors(
            &format!("query.{v}.{t}.errors"),
            &format!("{v} {t}: failed searches"),
            f(cell, &["errors"]),
        ));
    }
    for acc in r
        .get("accuracy")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(v) = acc.get("variant").and_then(Value::as_str) else {
            continue;
        };
        if acc.get("algo").is_some_and(|a| !a.is_null()) {
            out.extend(point(
                &format!("accuracy.{v}.pct_max_err"),
                &format!("{v}: largest percentile error"),
                "%",
                LowerBetter,
                // Stored as a fraction of the exact value; shown in percent everywhere.
                f(acc, &["pct_max_err"]).map(|x| x * 100.0),
            ));
        }
        let wrong = [
            "count_wrong",
            "sum_wrong",
            "pct_over_bound",
            "pct_null",
            "hits_wrong",
            "buckets_wrong",
            "aggs_wrong",
        ]
        .iter()
        .filter_map(|k| f(acc, &[k]))
        .sum::<f64>();
        out.extend(errors(
            &format!("accuracy.{v}.wrong"),
            &format!("{v}: wrong answers"),
            Some(wrong),
        ));
    }
    let cells = r.get("cells").and_then(Value::as_array);
    let failed: Option<f64> = cells.map(|c| c.iter().filter_map(|c| f(c, &["errors"])).sum());
    out.extend(errors(
        "errors.query.failed_searches",
        "errors: failed searches (all cells)",
        failed,
    ));
    out.extend(errors(
        "errors.query.wrong_answers",
        "errors: wrong answers (all checks)",
        f(r, &["failures_total"]),
    ));
}

#[cfg(test)]
mod telemetry_tests {
    use super::*;

    #[test]
    fn telemetry_figures_are_metrics_per_phase_and_rejections_are_errors() {
        let t = |gc: f64, rejected: f64| {
            serde_json::json!({
                "span_secs": 10.0, "gc_secs": gc, "gc_share": 0.04, "old_gcs": 1.0,
                "heap_peak_bytes": 4e8, "write_rejections": rejected, "search_rejections": 0.0,
                "per_second": {"gc_ms": [10.0, 20.0, 30.0], "heap_used_mb": [300.0, 310.0, 320.0]}
            })
        };
        let run = serde_json::json!({
            "telemetry": t(0.4, 5.0),
            "query": {"cells": [], "telemetry": t(0.1, 0.0)}
        });
        let metrics = extract(&run, &[]);
        let get = |k: &str| {
            metrics
                .iter()
                .find(|m| m.key == k)
                .unwrap_or_else(|| panic!("no {k}"))
        };
        let gc = get("telemetry.gc_ms_per_s");
        assert_eq!(gc.value, 20.0);
        assert_eq!(gc.samples.as_ref().map(|s| s.1.len()), Some(3));
        assert_eq!(get("telemetry.gc_share_pct").value, 4.0);
        assert_eq!(get("telemetry.heap_peak_mb").value, 400.0);
        let rejections = get("telemetry.write_rejections");
        assert!(rejections.errors);
        assert_eq!(rejections.value, 5.0);
        assert_eq!(get("query.telemetry.write_rejections").value, 0.0);
        assert!(get("query.telemetry.gc_ms_per_s")
            .label
            .starts_with("query: "));
        // A result without telemetry has none of these.
        let plain = extract(&serde_json::json!({"cells": []}), &[]);
        assert!(plain.iter().all(|m| !m.key.contains("telemetry")));
    }
}
