//! The charts of the run and comparison page, for groups of runs (a run named by its id is a
//! group of one): throughput over time, time to searchable over time, service time by
//! percentile, where the wall time went, query cells. One colour and one legend entry per group, never a run id.

use serde_json::Value;

use super::chart::{
    self, group_colour, Axis, BarSeries, Bars, Chart, Dot, Line, Mark, Plot, GREY, PART_COLOURS,
};
use super::{Group, Loaded};
use crate::analysis::said::{self, Said};
use crate::measure::Summary;

/// Every chart the groups have data for, in reading order.
pub fn charts(groups: &[Group]) -> Vec<Chart> {
    let several = groups.iter().any(|g| g.runs.len() > 1);
    let mean_note = if several {
        "; a group of runs shows their mean"
    } else {
        ""
    };
    vec![
        throughput(groups).into(),
        searchable(groups).into(),
        service(groups).into(),
        budget(groups, mean_note).into(),
        query_cells(groups, mean_note).into(),
        recall_against_rate(groups).into(),
    ]
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.flatten().filter(|x| x.is_finite()).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Each run's documents per second, one point per second; warm-up seconds dashed grey.
fn throughput(groups: &[Group]) -> Plot {
    let mut p = Plot::new(
        "Throughput over time",
        Axis::new("second"),
        Axis::new("docs/s"),
    )
    .hint(
        "documents acknowledged per second (by completion time), one point per second; dashed \
         grey: warm-up seconds, loaded but not in the headline or the histograms; the last \
         second is partial",
    );
    for (g, group) in groups.iter().enumerate() {
        for l in &group.runs {
            let point = |s: &Value| Some((num(s, "second")?, num(s, "docs")?));
            let warm = |s: &Value| s.get("warmup").and_then(Value::as_bool) == Some(true);
            let last_warm = l
                .timeline
                .iter()
                .filter(|s| warm(s))
                .filter_map(|s| num(s, "second"))
                .fold(f64::NEG_INFINITY, f64::max);
            let measured: Vec<(f64, f64)> = l
                .timeline
                .iter()
                .filter_map(point)
                .filter(|(s, _)| *s >= last_warm)
                .collect();
            if measured.is_empty() {
                continue;
            }
            p.lines
                .push(Line::new(group.label(), group_colour(g), measured));
            if last_warm.is_finite() {
                let warmup = l
                    .timeline
                    .iter()
                    .filter_map(point)
                    .filter(|(s, _)| *s <= last_warm + 1.0)
                    .collect();
                p.lines
                    .push(Line::new("warm-up (not measured)", GREY, warmup).dashed());
            }
        }
    }
    p
}

/// How soon each second's documents were searchable: the p99 and p50 of the documents
/// acknowledged in that second, each at most its bucket's edge; nothing for a run not probed.
fn searchable(groups: &[Group]) -> Plot {
    let mut p = Plot::new(
        "Time to searchable over time",
        Axis::new("second"),
        Axis::new("s"),
    )
    .hint(
        "the documents acknowledged in each second: how soon 99 % (solid) and half (dashed) of \
         them could be found, each at most the edge of its bucket (about 1.5× apart); a second \
         with documents never searchable within the bound is marked red",
    );
    for (g, group) in groups.iter().enumerate() {
        for l in &group.runs {
            let Some(f) = Said::of(&l.row).freshness else {
                continue;
            };
            let line = |q: fn(&crate::ingest::freshness::FreshnessSecond) -> Option<f64>| {
                f.seconds
                    .iter()
                    .filter_map(|s| Some((s.second as f64, q(s)?)))
                    .collect::<Vec<_>>()
            };
            let p99 = line(|s| s.p99_le_secs);
            if p99.is_empty() {
                continue;
            }
            p.lines.push(Line::new(
                format!("{}: p99", group.label()),
                group_colour(g),
                p99,
            ));
            p.lines.push(
                Line::new(
                    format!("{}: p50", group.label()),
                    group_colour(g),
                    line(|s| s.p50_le_secs),
                )
                .dashed(),
            );
            for s in f.seconds.iter().filter(|s| s.unseen > 0) {
                p.marks.push(Mark {
                    x: s.second as f64,
                    colour: chart::RED.into(),
                    full: true,
                    dashed: true,
                    title: format!(
                        "second {}: {} of {} documents not searchable within the bound",
                        s.second, s.unseen, s.docs
                    ),
                    class: "",
                });
            }
        }
    }
    p
}

const PERCENTILES: [f64; 13] = [
    0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 100.0,
];

/// Percentiles of the stored bulk service-time histogram, in ms, for a curve finer than the
/// summary's five points; a percentile appears only with enough samples to mean something.
pub fn service_curve(l: &Loaded) -> Option<Vec<(f64, f64)>> {
    let h = l
        .histograms
        .iter()
        .find(|h| h.name == "service")
        .and_then(|h| h.decode().ok())?;
    let n = h.len() as f64;
    let points: Vec<(f64, f64)> = PERCENTILES
        .iter()
        .filter(|&&p| p == 0.0 || p == 100.0 || n * (1.0 - p / 100.0) >= 1.0)
        .map(|&p| (p, h.value_at_percentile(p) as f64 / 1000.0))
        .collect();
    (points.len() >= 2).then_some(points)
}

fn percentile_name(p: f64) -> String {
    if p == 100.0 {
        "max".into()
    } else {
        format!("p{p}")
    }
}

/// Bulk service time by percentile on a log axis: from the stored histograms when every run
/// has one, else the summary's five percentiles.
fn service(groups: &[Group]) -> Plot {
    // Each run with its service time, read once.
    let runs: Vec<(usize, &Group, &Loaded, Summary)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| group.runs.iter().map(move |l| (g, group, l)))
        .filter_map(|(g, group, l)| {
            let service = Said::of(&l.row).service.filter(|s| s.count > 0)?;
            Some((g, group, l, service))
        })
        .collect();
    let curves: Vec<Option<Vec<(f64, f64)>>> =
        runs.iter().map(|(_, _, l, _)| service_curve(l)).collect();
    let title = "Service time by percentile";
    if !runs.is_empty() && curves.iter().all(Option::is_some) {
        let mut ps: Vec<f64> = curves.iter().flatten().flatten().map(|p| p.0).collect();
        ps.sort_by(f64::total_cmp);
        ps.dedup();
        let mut p = Plot::new(title, Axis::new("percentile"), Axis::log("ms (log)")).hint(
            "bulk request service time, read from the stored HDR histogram; a percentile is \
             drawn only when at least one sample lies above it",
        );
        p.categories = ps.iter().map(|&x| percentile_name(x)).collect();
        for ((g, group, _, _), curve) in runs.iter().zip(curves.into_iter().flatten()) {
            let points = curve
                .iter()
                .filter_map(|(pct, ms)| Some((ps.iter().position(|x| x == pct)? as f64, *ms)))
                .collect();
            p.lines
                .push(Line::new(group.label(), group_colour(*g), points));
        }
        return p;
    }
    type Percentile = fn(&Summary) -> Option<f64>;
    const KEYS: [(Percentile, &str); 5] = [
        (|s| s.p50_ms, "p50"),
        (|s| s.p90_ms, "p90"),
        (|s| s.p99_ms, "p99"),
        (|s| s.p999_ms, "p99.9"),
        (|s| s.max_ms, "max"),
    ];
    let mut p = Plot::new(title, Axis::new("percentile"), Axis::new("ms")).hint(
        "bulk request service time (HDR histogram); a percentile is shown only with enough \
         samples (p90: 10, p99: 100, p99.9: 1000)",
    );
    p.categories = KEYS.iter().map(|k| k.1.to_string()).collect();
    for (g, group, _, service) in runs {
        let points = KEYS
            .iter()
            .enumerate()
            .filter_map(|(i, (at, _))| Some((i as f64, at(&service)?)))
            .collect();
        p.lines
            .push(Line::new(group.label(), group_colour(g), points));
    }
    p
}

/// The parts of a run's wall time: (name, percent).
type Budget = Vec<(String, f64)>;

/// One bar per group: the parts of the average client's wall time, the mean over its runs.
fn budget(groups: &[Group], mean_note: &str) -> Bars {
    let budget_of = |l: &Loaded| -> Budget {
        let attribution = Said::of(&l.row).attribution;
        let rows = attribution.iter().flat_map(|a| &a.budget);
        rows.map(|b| (b.name.to_string(), b.share * 100.0))
            .collect()
    };
    let with: Vec<(&Group, Vec<Budget>)> = groups
        .iter()
        .map(|g| {
            let budgets: Vec<_> = g
                .runs
                .iter()
                .map(budget_of)
                .filter(|b| !b.is_empty())
                .collect();
            (g, budgets)
        })
        .filter(|(_, b)| !b.is_empty())
        .collect();
    let names: Vec<String> = with
        .first()
        .and_then(|(_, b)| b.first())
        .map(|b| b.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let one = with.len() == 1;
    let series = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let values: Vec<Option<f64>> = with
                .iter()
                .map(|(_, budgets)| {
                    let shares = budgets
                        .iter()
                        .map(|b| Some(b.iter().find(|(n, _)| n == name).map_or(0.0, |(_, s)| *s)));
                    mean(shares).map(|m| (m * 100.0).round() / 100.0)
                })
                .collect();
            BarSeries {
                // One bar: the legend says each part's share, which the bar alone leaves to
                // the eye (and a narrow part, to a tooltip).
                name: match values.first().copied().flatten() {
                    Some(v) if one => format!("{name} {v:.1} %"),
                    _ => name.clone(),
                },
                colour: PART_COLOURS[i % PART_COLOURS.len()].to_string(),
                values,
            }
        })
        // A part no run spent time in is not drawn, nor named in the legend.
        .filter(|s| s.values.iter().flatten().any(|v| *v > 0.0))
        .collect();
    Bars {
        title: "Where the wall time went".into(),
        hint: format!(
            "share of wall time for the average client; the parts add up to 100 %{mean_note}"
        ),
        categories: with.iter().map(|(g, _)| g.label()).collect(),
        series,
        stacked: true,
        axis: Axis::new("% of wall").range(0.0, 100.0),
        unit: " %".into(),
    }
}

/// Per coverage: the client wall and the summed server took, a pair of bars per group.
fn query_cells(groups: &[Group], mean_note: &str) -> Bars {
    let cells_of = |l: &Loaded| -> Vec<(String, Option<f64>, Option<f64>)> {
        let query = l.row.result.as_ref().and_then(said::query);
        let cells = query.into_iter().flat_map(|q| q.cells);
        cells
            .map(|c| {
                let name = format!("{} {}", c.variant.name(), c.transport.name());
                (name, Some(c.wall_ms.mean), Some(c.took_ms.mean))
            })
            .collect()
    };
    let with: Vec<(usize, &Group, Vec<Vec<_>>)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let cells: Vec<_> = g
                .runs
                .iter()
                .map(cells_of)
                .filter(|c| !c.is_empty())
                .collect();
            (i, g, cells)
        })
        .filter(|(_, _, c)| !c.is_empty())
        .collect();
    let names: Vec<String> = with
        .first()
        .and_then(|(_, _, c)| c.first())
        .map(|c| c.iter().map(|x| x.0.clone()).collect())
        .unwrap_or_default();
    let mut series = Vec::new();
    for (i, g, runs) in &with {
        let colour = group_colour(*i);
        let value = |name: &String, wall: bool| {
            mean(runs.iter().map(|cells| {
                let c = cells.iter().find(|c| &c.0 == name)?;
                if wall {
                    c.1
                } else {
                    c.2
                }
            }))
        };
        series.push(BarSeries {
            name: format!("{} client wall", g.label()),
            colour: colour.to_string(),
            values: names.iter().map(|n| value(n, true)).collect(),
        });
        series.push(BarSeries {
            name: format!("{} summed took", g.label()),
            colour: format!("{colour}80"),
            values: names.iter().map(|n| value(n, false)).collect(),
        });
    }
    Bars {
        title: "Query cells: client wall and summed took per coverage".into(),
        hint: format!(
            "client wall: what the caller waited for one coverage; summed took: the server time \
             of its searches added up (with _msearch they run side by side, so the sum can \
             exceed the wall); error-free coverages only{mean_note}"
        ),
        categories: names,
        series,
        stacked: false,
        axis: Axis::new("ms"),
        unit: " ms".into(),
    }
}

/// A k-NN run's variants as (name, ops/s, mean recall@k): each cell's rate as the report
/// computes it, beside its row's recall. Empty without measured recall.
fn recall_points(l: &Loaded) -> Vec<(String, f64, f64)> {
    let Some(result) = l.row.result.as_ref().and_then(said::query) else {
        return Vec::new();
    };
    result
        .cells
        .iter()
        .zip(result.cell_rates())
        .filter_map(|(cell, rate)| {
            let row = result.accuracy.iter().find(|a| a.variant == cell.variant)?;
            Some((
                format!("{} {}", cell.variant.name(), cell.transport.name()),
                rate?,
                row.recall_mean()?,
            ))
        })
        .collect()
}

/// The points no other beats on both axes (faster and at least as good a recall), by rate.
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted = points.to_vec();
    // Fastest first; at one rate the better recall first.
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
    let mut front: Vec<(f64, f64)> = Vec::new();
    for p in sorted {
        if front.last().is_none_or(|last| p.1 > last.1) {
            front.push(p);
        }
    }
    front.reverse();
    front
}

/// Recall against ops/s, a dot per variant (the search's parameters traded for speed), and
/// each group's Pareto front: the variants no other beats on both.
fn recall_against_rate(groups: &[Group]) -> Plot {
    let mut p = Plot::new(
        "Recall against ops/s",
        Axis::new("ops/s"),
        Axis::new("recall@k"),
    )
    .hint(
        "k-NN variants: mean recall@k of every answer against the exact neighbours, and the \
             rate each cell sustained; the line joins the variants no other beats on both",
    );
    for (g, group) in groups.iter().enumerate() {
        let mut all = Vec::new();
        for l in &group.runs {
            for (name, rate, recall) in recall_points(l) {
                p.dots.push(Dot {
                    x: rate,
                    y: recall,
                    colour: group_colour(g).to_string(),
                    radius: 4.0,
                    title: format!(
                        "{}: {name}, recall {recall:.4} at {rate:.0} ops/s",
                        group.label()
                    ),
                    ring: None,
                    class: "",
                });
                all.push((rate, recall));
            }
        }
        if all.len() > 1 {
            p.lines.push(Line::new(
                format!("{}: Pareto front", group.label()),
                group_colour(g),
                pareto_front(&all),
            ));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::pareto_front;

    #[test]
    fn the_front_keeps_the_variants_no_other_beats_on_both_axes() {
        // (ops/s, recall): 300/0.91 and 130/0.995 and 400/0.9 are on it; 260/0.90 is beaten
        // by 300/0.91, 120/0.99 by 130/0.995.
        let points = [
            (300.0, 0.91),
            (260.0, 0.90),
            (130.0, 0.995),
            (120.0, 0.99),
            (400.0, 0.9),
        ];
        assert_eq!(
            pareto_front(&points),
            vec![(130.0, 0.995), (300.0, 0.91), (400.0, 0.9)]
        );
        assert_eq!(pareto_front(&[]), Vec::<(f64, f64)>::new());
        // Equal rates: the better recall only.
        assert_eq!(pareto_front(&[(5.0, 0.5), (5.0, 0.7)]), vec![(5.0, 0.7)]);
    }
}
