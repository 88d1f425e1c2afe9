//! Field note 002's comparison: engines and the sketch store (its purpose-built baseline) side
//! by side on the cluster-metrics workload, read from a history's medians (a matrix's runs),
//! in the note's four tables: the load (throughput, wall per million rows, what the data is
//! kept in), the time split of the load's wall, the query wall per coverage of each variant
//! serial and in one request, and the percentiles' accuracy against the ground truth. Every figure is a metric
//! the history already holds: the same number `history` and `compare` show.

use serde::Serialize;

use super::history::{self, History, HistoryError, Selection};
use super::metrics::ingest::KEPT_MB;
use crate::store::{Filter, Store};

/// The percentile variants of the note's production query, by algorithm: the engines' t-digest
/// and HDR, the sketch store's DDSketch.
const PRODUCTION: [(&str, &str); 3] =
    [("D_td", "t-digest"), ("D_hdr", "HDR"), ("D_dd", "DDSketch")];

/// Every variant the note decomposes the production query into (the engines'), then the
/// sketch store's one: what each asks for.
const VARIANTS: [(&str, &str); 7] = [
    ("A", "filter only"),
    ("B", "3× sum"),
    ("C_td", "3× percentiles, t-digest"),
    ("C_hdr", "3× percentiles, HDR"),
    ("D_td", "production: sums + t-digest"),
    ("D_hdr", "sums + HDR"),
    ("D_dd", "sums + DDSketch"),
];

/// One of the note's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Load,
    TimeSplit,
    Queries,
    Accuracy,
}

impl Section {
    pub fn title(self) -> &'static str {
        match self {
            Section::Load => "the load",
            Section::TimeSplit => "where the load's wall time went",
            Section::Queries => "query wall per coverage (all nodes of one epoch)",
            Section::Accuracy => "percentiles against the exact ground truth",
        }
    }
}

/// One row: a figure for each point (engine) of the history.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub section: Section,
    pub label: String,
    pub unit: String,
    /// A count (wrong answers): shown whole.
    pub count: bool,
    /// The median over the point's runs; `None` where it has no such figure.
    pub values: Vec<Option<f64>>,
}

/// The comparison: a column per point, in the history's order.
#[derive(Debug, Clone, Serialize)]
pub struct Baseline {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    /// The runs counted that failed on wrong answers alone (`id (engine): why`): their
    /// figures are in the tables, their wrong answers in the accuracy table.
    pub wrong_answer_runs: Vec<String>,
}

/// The note's comparison over the runs `selection` picks (a matrix's tag), the runs that
/// failed on wrong answers alone counted with the complete ones: an accuracy table that left
/// out the answers it judges wrong would say nothing. `None` when they are not cluster-metrics
/// runs with a query phase.
pub fn load(store: &Store, selection: &Selection) -> Result<Option<Baseline>, HistoryError> {
    let mut selection = selection.clone();
    selection.with_wrong_answers = true;
    selection.metrics.clear();
    // The note's tables read each point's level, not where levels shift.
    selection.change_points = false;
    let history = history::load(store, &selection)?;
    let rows = store.list(&Filter {
        tags: selection.tags.clone(),
        workload: selection.workload.clone(),
        engine: selection.engine.clone(),
        ..Default::default()
    })?;
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| history::only_wrong_answers(r))
        .filter(|r| history.runs.iter().any(|h| h.id == r.id.0))
        .map(|r| {
            format!(
                "{} ({}): {}",
                r.id.0,
                r.engine.as_deref().unwrap_or("?"),
                r.error.as_deref().unwrap_or("failed")
            )
        })
        .collect();
    Ok(baseline(&history).map(|mut b| {
        b.wrong_answer_runs = wrong;
        b
    }))
}

/// The note's comparison over `history`'s points, when its runs are cluster-metrics runs with
/// a query phase (some production variant measured); `None` otherwise.
pub fn baseline(history: &History) -> Option<Baseline> {
    let median = |key: &str| -> Option<Vec<Option<f64>>> {
        let series = history.series.iter().find(|s| s.key == key)?;
        Some(
            series
                .groups
                .iter()
                .map(|g| g.as_ref().map(|g| g.median))
                .collect(),
        )
    };
    let measured = PRODUCTION
        .iter()
        .any(|(v, _)| median(&format!("query.{v}.serial.wall_ms")).is_some());
    if !measured {
        return None;
    }
    let mut rows = Vec::new();
    let mut push = |section, label: String, unit: &str, values: Option<Vec<Option<f64>>>| {
        if let Some(values) = values.filter(|v| v.iter().any(Option::is_some)) {
            rows.push(Row {
                section,
                label,
                unit: unit.into(),
                count: unit.is_empty(),
                values,
            });
        }
    };
    let rate = median("docs_per_sec");
    push(Section::Load, "throughput".into(), "docs/s", rate.clone());
    push(
        Section::Load,
        "load wall per million rows".into(),
        "s",
        rate.map(|r| {
            r.into_iter()
                .map(|v| v.filter(|v| *v > 0.0).map(|v| 1e6 / v))
                .collect()
        }),
    );
    push(
        Section::Load,
        "data kept (index store; sketch memory)".into(),
        "MB",
        median(KEPT_MB),
    );
    for series in history
        .series
        .iter()
        .filter(|s| s.key.starts_with("attribution.budget."))
    {
        let label = series
            .label
            .trim_start_matches("attribution: ")
            .trim_end_matches(" (share of wall)");
        push(Section::TimeSplit, label.into(), "%", median(&series.key));
    }
    for (variant, what) in VARIANTS {
        // The sketch store's one request for a coverage is its /coverage, in _msearch's place.
        let batched = if variant == "D_dd" {
            "/coverage"
        } else {
            "_msearch"
        };
        for (transport, how) in [("serial", "serial"), ("msearch", batched)] {
            push(
                Section::Queries,
                format!("{variant} ({what}) {how}"),
                "ms",
                median(&format!("query.{variant}.{transport}.wall_ms")),
            );
        }
    }
    for (variant, algo) in PRODUCTION {
        push(
            Section::Accuracy,
            format!("{variant} ({algo}): largest error"),
            "%",
            median(&format!("accuracy.{variant}.pct_max_err")),
        );
        push(
            Section::Accuracy,
            format!("{variant} ({algo}): wrong answers"),
            "",
            median(&format!("accuracy.{variant}.wrong")),
        );
    }
    Some(Baseline {
        columns: history.points.iter().map(|p| p.label.clone()).collect(),
        rows,
        wrong_answer_runs: Vec::new(),
    })
}
