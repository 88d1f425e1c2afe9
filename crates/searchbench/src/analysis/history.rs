//! A history: every stored complete run of one configuration (see [`crate::analysis::configuration`]), ordered
//! by engine version (product, then numeric version) or by time, each metric as a series with
//! its change points ([`crate::analysis::changepoint`]).
//!
//! Runs at one point of the axis (one engine version, or one `build=`/`commit=` of a nightly
//! job) are a group: its median, and the 95 % t interval of its mean; a new level can only
//! start where the point changes, and on the version axis each product is searched on its
//! own (another product is not a change of level). Every metric [`crate::analysis::metrics::extract`] gives
//! is a series. An improvement that comes with more errors, more GC time (a metric whose key
//! holds `gc`; the load's GC per second is judged per document, since a faster load makes
//! garbage faster) or fewer documents acknowledged is flagged suspect: a faster run that did
//! less work is not faster.

use std::collections::BTreeMap;

use serde::Serialize;

use super::compare::{self, Cell, Verdict};
use super::runs::Loaded;
use crate::analysis::changepoint::{self, ChangePoint, Shift};
use crate::analysis::configuration::{self, machine_class, Configuration, Machines};
use crate::analysis::metrics::{Direction, Metric};
use crate::analysis::multiple;
use crate::analysis::statistics::{self, t975, SampleKind};
use crate::engine::Version;
use crate::store::{Filter, RunRow, State, Store, StoreError};

/// What the axis of a history is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Engine version: product, then numeric version.
    Version,
    /// When the run started; runs sharing a `build` or `commit` tag are one point.
    Time,
}

/// Tags that name what a nightly job ran: a point of the time axis.
pub const BUILD_TAGS: [&str; 2] = ["build", "commit"];

/// Metrics shown in tables when none are asked for (besides those with change points).
pub const HEADLINE: [&str; 4] = [
    crate::analysis::metrics::THROUGHPUT,
    "service_p50_ms",
    "service_p99_ms",
    "error_rate_pct",
];

/// Which runs make the history.
#[derive(Debug, Clone)]
pub struct Selection {
    pub workload: Option<String>,
    pub tags: Vec<(String, String)>,
    /// Parts of the runs' provenance that must match (`--where`).
    pub provenance: Vec<(String, String)>,
    /// Whether runs on different classes of machine are one configuration (`--any-machine`).
    pub machines: Machines,
    /// Engine name prefix (`opensearch`, `opensearch-2.1`).
    pub engine: Option<String>,
    /// A configuration id (or its prefix), to pick one of several.
    pub configuration: Option<String>,
    /// Metric keys, or key prefixes (`query.`); empty for all.
    pub metrics: Vec<String>,
    pub axis: Axis,
    pub options: changepoint::Options,
    /// Also the failed runs whose only fault is wrong answers (the load whole and reconciled,
    /// every search answered): their figures are real and their answers are what an accuracy
    /// table judges (field note 002's, [`crate::analysis::baseline`]). Off: complete runs only.
    pub with_wrong_answers: bool,
    /// Search each metric for change points (a permutation test per candidate: the most of
    /// the cost); off where only the levels are read.
    pub change_points: bool,
}

impl Selection {
    pub fn new(axis: Axis) -> Self {
        Selection {
            workload: None,
            tags: Vec::new(),
            provenance: Vec::new(),
            machines: Machines::Apart,
            engine: None,
            configuration: None,
            metrics: Vec::new(),
            axis,
            options: changepoint::Options::default(),
            with_wrong_answers: false,
            change_points: true,
        }
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(w) = &self.workload {
            parts.push(format!("workload {w}"));
        }
        for (k, v) in &self.tags {
            parts.push(format!("tag {k}={v}"));
        }
        for (k, v) in &self.provenance {
            parts.push(format!("where {k}={v}"));
        }
        if self.machines == Machines::Any {
            parts.push("any machine".into());
        }
        if let Some(e) = &self.engine {
            parts.push(format!("engine {e}*"));
        }
        if let Some(c) = &self.configuration {
            parts.push(format!("configuration {c}"));
        }
        if parts.is_empty() {
            "the store".into()
        } else {
            parts.join(", ")
        }
    }
}

/// One configuration among several that a selection picked.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub configuration: Configuration,
    pub runs: usize,
    pub engines: Vec<String>,
    /// How it differs from the first one found.
    pub differences: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no complete run matches {0}")]
    NoRuns(String),
    #[error("{}", mixed(.0))]
    Mixed(Vec<Found>),
    #[error("no metric matches {asked:?}; the runs have: {known}")]
    UnknownMetric { asked: String, known: String },
    #[error(
        "configuration {configuration}: its runs have {series} metrics, more than a history \
         judges as one family ({MOST_SERIES}; a track of thousands of tasks?): its change \
         points would take hours. Compare its runs with `searchbench compare`"
    )]
    TooManySeries {
        configuration: String,
        series: usize,
    },
}

/// The most metrics (series) one history judges as one family: real runs have hundreds (a
/// track of thirty tasks, a query workload's cells); each is searched for change points by a
/// permutation test over every run.
pub const MOST_SERIES: usize = 10_000;

/// The most metric keys an error lists.
const KEYS_LISTED: usize = 50;

impl HistoryError {
    /// The caller's selection is at fault (exit 2), not the store.
    pub fn is_usage(&self) -> bool {
        !matches!(self, HistoryError::Store(_))
    }
}

fn mixed(found: &[Found]) -> String {
    let mut s = format!(
        "the selection holds {} configurations; a history is of one. Narrow it with \
         --workload, --tag, --engine or --config ID:",
        found.len()
    );
    for f in found {
        s.push_str(&format!(
            "\n  {}  {} run(s), {}: {}",
            f.configuration.id,
            f.runs,
            f.configuration.summary(),
            f.engines.join(" ")
        ));
        if !f.differences.is_empty() {
            s.push_str(&format!(
                "\n            differs: {}",
                f.differences.join("; ")
            ));
        }
    }
    s
}

/// One run of the history.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub id: String,
    pub engine: Option<String>,
    pub started_unix: u64,
    /// Index of its point on the axis.
    pub point: usize,
    pub tags: BTreeMap<String, String>,
    /// Documents the cluster acknowledged (ingest results).
    pub docs_acknowledged: Option<f64>,
}

/// One point of the axis: an engine version, a build, or a run.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub label: String,
    pub engine: Option<String>,
    /// The `build`/`commit` tags of its runs, when they have some.
    pub build: BTreeMap<String, String>,
    /// Indices into [`History::runs`].
    pub runs: Vec<usize>,
}

/// A group's figures for one metric.
#[derive(Debug, Clone, Serialize)]
pub struct GroupStat {
    pub n: usize,
    pub median: f64,
    /// 95 % t interval of the mean (from 2 runs).
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// A change point placed on the history.
#[derive(Debug, Clone, Serialize)]
pub struct Located {
    #[serde(flatten)]
    pub change: ChangePoint,
    /// The run where the new level starts, and the points either side.
    pub run: String,
    pub from: String,
    pub to: String,
    /// Why an improvement is not to be trusted yet (empty when it is, or for a regression).
    pub suspect: Vec<String>,
}

/// One metric over the history.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub key: String,
    pub label: String,
    pub unit: std::borrow::Cow<'static, str>,
    pub direction: Direction,
    pub errors: bool,
    /// One per run (`None` where the run lacks the metric).
    pub values: Vec<Option<f64>>,
    /// One per point.
    pub groups: Vec<Option<GroupStat>>,
    pub change_points: Vec<Located>,
    /// Shown in the points' table by default (a headline metric, or one with a change point;
    /// a clear step of any other is in the verdicts, one row a metric, so the table fits).
    pub shown: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub configuration: Configuration,
    pub axis: Axis,
    pub selection: String,
    pub points: Vec<Point>,
    pub runs: Vec<Run>,
    pub series: Vec<Series>,
    /// Runs that matched but are not complete: `id (state)`.
    pub excluded: Vec<String>,
    /// Each point against the one before it on the headline metrics, by the comparison's
    /// rule: what "is the newer one faster?" gets as an answer.
    pub verdicts: Vec<StepVerdict>,
    /// The smallest change the verdicts look for (percent).
    pub threshold_pct: f64,
    /// Change points were searched: some product has [`MIN_POINTS_FOR_CHANGE_POINTS`] points.
    pub change_points_searched: bool,
    /// How many metrics the change points were one family of (weighted Holm, the headline
    /// weighing [`crate::analysis::multiple::PRIMARY_SHARE`]: see [`located_family_wise`]);
    /// `None` when none were searched.
    pub change_point_family: Option<usize>,
    pub alpha: f64,
    pub permutations: usize,
    /// The team's notes on its points (`searchbench annotate`), in the order they were
    /// written: every chart of the history marks them.
    pub annotations: Vec<Placed>,
}

/// A note of the team's placed on a point of a history.
#[derive(Debug, Clone, Serialize)]
pub struct Placed {
    pub id: i64,
    pub text: String,
    /// The first point it applies to: the first (in the axis's order) with a run carrying
    /// all its tags, started at or after its moment.
    pub point: usize,
    /// What it was written on: the tags (`build=n05`), empty for a moment alone.
    pub tags: String,
    pub at_unix: Option<i64>,
}

/// Where each of `notes` goes on `h`; a note that applies to none of its runs is not on it.
pub fn placed(h: &History, notes: &[crate::store::Annotation]) -> Vec<Placed> {
    notes
        .iter()
        .filter_map(|n| {
            let run = h.runs.iter().find(|r| {
                n.tags.iter().all(|(k, v)| r.tags.get(k) == Some(v))
                    && n.at_unix.is_none_or(|at| r.started_unix as i64 >= at)
            })?;
            Some(Placed {
                id: n.id,
                text: n.text.clone(),
                point: run.point,
                tags: tag_text(&n.tags),
                at_unix: n.at_unix,
            })
        })
        .collect()
}

/// The fewest points (versions, builds) of one product for change points to mean something:
/// with two, the verdict between them is the answer, and a change point would only restate
/// it as if it were a trend.
pub const MIN_POINTS_FOR_CHANGE_POINTS: usize = 3;

/// One point against the point before it, on one metric.
#[derive(Debug, Clone, Serialize)]
pub struct StepVerdict {
    pub from: String,
    pub to: String,
    pub key: String,
    pub label: String,
    pub unit: std::borrow::Cow<'static, str>,
    pub errors: bool,
    /// The difference, its interval over runs and the verdict (see [`compare::cell`]).
    pub cell: Cell,
}

impl History {
    /// How its change points were found and kept, in words: `E-divisive means, permutation
    /// test; one family of 24 metrics, Holm-corrected (the headline weighing 50 %),
    /// family-wise error at most 5 %`.
    pub fn change_point_rule(&self) -> String {
        let family = match self.change_point_family {
            Some(1) => "one metric".to_string(),
            Some(n) => format!(
                "one family of {n} metrics, Holm-corrected as compare corrects its own (the headline weighing {:.0} %)",
                multiple::PRIMARY_SHARE * 100.0
            ),
            None => "none searched".into(),
        };
        format!(
            "E-divisive means, permutation test; {family}, family-wise error at most {:.0} %",
            multiple::ALPHA * 100.0
        )
    }

    /// Change points over every series, in axis order.
    pub fn change_points(&self) -> Vec<(&Series, &Located)> {
        let mut all: Vec<(&Series, &Located)> = self
            .series
            .iter()
            .flat_map(|s| s.change_points.iter().map(move |c| (s, c)))
            .collect();
        all.sort_by_key(|(_, c)| c.change.index);
        all
    }
}

/// A failed run whose load was whole and reconciled and whose every search was answered: it
/// failed on wrong answers alone.
pub fn only_wrong_answers(row: &RunRow) -> bool {
    let Some(result) = row.result.as_ref().filter(|_| row.state == State::Failed) else {
        return false;
    };
    // Read as the types the run wrote, as every view reads it.
    let reconciled = super::said::Said::of_result(result)
        .counts
        .is_some_and(|c| c.reconciled);
    let Some(query) = super::said::query(result) else {
        return false;
    };
    reconciled
        && query.failures_total > 0
        && !query.cells.is_empty()
        && query.cells.iter().all(|c| c.errors == 0)
}

/// Loads the runs `selection` picks and builds their history.
pub fn load(store: &Store, selection: &Selection) -> Result<History, HistoryError> {
    let (mut by_config, excluded, resolved) = configurations(store, selection)?;
    if by_config.len() > 1 {
        let first = by_config[0].0.clone();
        let found = by_config
            .iter()
            .map(|(c, runs)| {
                let mut engines: Vec<String> =
                    runs.iter().filter_map(|r| r.engine.clone()).collect();
                engines.sort();
                engines.dedup();
                Found {
                    configuration: c.clone(),
                    runs: runs.len(),
                    engines,
                    differences: configuration::differences(&first, c),
                }
            })
            .collect();
        return Err(HistoryError::Mixed(found));
    }
    let Some((config, rows)) = by_config.pop() else {
        return Err(HistoryError::NoRuns(selection.describe()));
    };
    let excluded = excluded.into_iter().map(|(_, e)| e).collect();
    of_rows(store, config, rows, &resolved, selection, excluded)
}

/// The histories of every configuration a selection picks ([`load_each`]).
#[derive(Debug)]
pub struct Each {
    pub histories: Vec<History>,
    /// The configurations with too many metrics to judge as one family, each with why: left
    /// out, the others made all the same.
    pub left_out: Vec<String>,
}

/// The history of every configuration `selection` picks, in the order each was first run
/// (what a site shows: one page a configuration).
pub fn load_each(store: &Store, selection: &Selection) -> Result<Each, HistoryError> {
    let (by_config, excluded, resolved) = configurations(store, selection)?;
    if by_config.is_empty() {
        return Err(HistoryError::NoRuns(selection.describe()));
    }
    let mut each = Each {
        histories: Vec::new(),
        left_out: Vec::new(),
    };
    for (config, rows) in by_config {
        let mine: Vec<String> = excluded
            .iter()
            .filter(|(c, _)| c.as_deref() == Some(config.id.as_str()))
            .map(|(_, e)| e.clone())
            .collect();
        match of_rows(store, config, rows, &resolved, selection, mine) {
            Ok(h) => each.histories.push(h),
            Err(e @ HistoryError::TooManySeries { .. }) => each.left_out.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    Ok(each)
}

/// The runs `rows` as their metrics are read (a group merged in memory as `resolved` merged
/// it).
fn of_rows(
    store: &Store,
    config: Configuration,
    rows: Vec<RunRow>,
    resolved: &crate::analysis::merge::Resolved,
    selection: &Selection,
    mut excluded: Vec<String>,
) -> Result<History, HistoryError> {
    let mut loaded = Vec::with_capacity(rows.len());
    for row in rows {
        let id = row.id.clone();
        match Loaded::for_metrics(store, row, resolved) {
            Ok(l) => loaded.push(l),
            // One damaged run (a phase or a timeline row that does not read) hides no other:
            // it is left out and named, as the site leaves out a page it cannot make.
            Err(e @ (StoreError::Corrupt(_) | StoreError::Json(_))) => {
                excluded.push(format!("{id} (damaged: {e})"));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut h = build(config, loaded, selection, excluded)?;
    h.annotations = placed(&h, &store.annotations()?);
    Ok(h)
}

/// The complete runs `selection` picks, by configuration (in the order each was first run),
/// those left out as not complete (`id (state)`, with their configuration's id), and the
/// groups merged in memory to read them by.
#[allow(clippy::type_complexity)]
fn configurations(
    store: &Store,
    selection: &Selection,
) -> Result<
    (
        Vec<(Configuration, Vec<RunRow>)>,
        Vec<(Option<String>, String)>,
        crate::analysis::merge::Resolved,
    ),
    HistoryError,
> {
    let rows = store.list(&Filter {
        workload: selection.workload.clone(),
        engine: selection.engine.clone(),
        tags: selection.tags.clone(),
        provenance: selection.provenance.clone(),
        ..Default::default()
    })?;
    // A run split in parts is one point: its group's merged run.
    let mut resolved = crate::analysis::merge::resolve(store, rows)?;
    let rows = std::mem::take(&mut resolved.rows);
    let mut excluded = Vec::new();
    let mut complete = Vec::new();
    // Oldest first: runs that started in the same second keep the order they were stored in.
    for row in rows.into_iter().rev() {
        if row.state == State::Complete
            || (selection.with_wrong_answers && only_wrong_answers(&row))
        {
            complete.push(row);
        } else {
            let config = Configuration::with(&row, selection.machines).id;
            excluded.push((Some(config), format!("{} ({})", row.id, row.state.name())));
        }
    }
    let mut by_config: Vec<(Configuration, Vec<RunRow>)> = Vec::new();
    for row in complete {
        let c = Configuration::with(&row, selection.machines);
        if selection
            .configuration
            .as_ref()
            .is_some_and(|want| !c.id.starts_with(want.as_str()))
        {
            continue;
        }
        match by_config.iter_mut().find(|(k, _)| k.id == c.id) {
            Some((_, runs)) => runs.push(row),
            None => by_config.push((c, vec![row])),
        }
    }
    // A run too short for its warm-up is no point of its configuration's steady line.
    for (c, runs) in &mut by_config {
        let left_out;
        (*runs, left_out) = configuration::judged(std::mem::take(runs), |r| r);
        excluded.extend(left_out.into_iter().map(|why| (Some(c.id.clone()), why)));
    }
    Ok((by_config, excluded, resolved))
}

/// What a history pooled when asked to (`--any-machine`): `; machine classes pooled: A (3
/// runs), B (2 runs)`, so no reader takes the spread between them for the engine's.
fn pooled_machines(loaded: &[Loaded], machines: Machines) -> String {
    if machines == Machines::Apart {
        return String::new();
    }
    let mut classes: Vec<(String, usize)> = Vec::new();
    for l in loaded {
        let class = machine_class(&l.row.machine).unwrap_or_else(|| "machine ?".into());
        match classes.iter_mut().find(|(c, _)| *c == class) {
            Some((_, n)) => *n += 1,
            None => classes.push((class, 1)),
        }
    }
    if classes.len() < 2 {
        return String::new();
    }
    let listed: Vec<String> = classes
        .iter()
        .map(|(c, n)| format!("{c} ({n} run{})", if *n == 1 { "" } else { "s" }))
        .collect();
    format!(
        "; machine classes pooled (--any-machine): {}",
        listed.join(", ")
    )
}

/// The history of runs already loaded, all of `configuration`.
pub fn build(
    configuration: Configuration,
    mut loaded: Vec<Loaded>,
    selection: &Selection,
    excluded: Vec<String>,
) -> Result<History, HistoryError> {
    match selection.axis {
        Axis::Version => loaded.sort_by(|Loaded { row: a, .. }, Loaded { row: b, .. }| {
            version_key(a.engine.as_deref())
                .cmp(&version_key(b.engine.as_deref()))
                .then(a.started_unix.cmp(&b.started_unix))
        }),
        Axis::Time => loaded.sort_by_key(|l| l.row.started_unix),
    }
    let mut points: Vec<Point> = Vec::new();
    let mut runs = Vec::new();
    for (i, Loaded { row, .. }) in loaded.iter().enumerate() {
        let build: BTreeMap<String, String> = row
            .tags
            .iter()
            .filter(|(k, _)| BUILD_TAGS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let key = match selection.axis {
            Axis::Version => row.engine.clone().unwrap_or_else(|| "?".into()),
            Axis::Time if build.is_empty() => format!("run {}", row.id),
            Axis::Time => tag_text(&build),
        };
        let same = points.last().is_some_and(|p| p.label == key);
        if !same {
            points.push(Point {
                label: key,
                engine: row.engine.clone(),
                build: build.clone(),
                runs: Vec::new(),
            });
        }
        let at = points.len() - 1;
        points[at].runs.push(i);
        runs.push(Run {
            id: row.id.0.clone(),
            engine: row.engine.clone(),
            started_unix: row.started_unix,
            point: at,
            tags: row.tags.clone(),
            docs_acknowledged: super::said::Said::of(row).counts.map(|c| c.indexed as f64),
        });
    }
    // Every metric of every run, keyed, in order of first appearance.
    let per_run: Vec<_> = loaded.iter().map(Loaded::metrics).collect();
    // Counted before a series is made: each holds a value a run.
    let keys: std::collections::HashSet<&str> =
        per_run.iter().flatten().map(|m| m.key.as_str()).collect();
    if keys.len() > MOST_SERIES {
        return Err(HistoryError::TooManySeries {
            configuration: configuration.id.clone(),
            series: keys.len(),
        });
    }
    let mut series: Vec<Series> = Vec::new();
    // Each key's place in `series`: a run of many tasks has many keys, each found at once.
    let mut at_key: std::collections::HashMap<String, usize> = Default::default();
    for (i, metrics) in per_run.iter().enumerate() {
        for m in metrics {
            let s = match at_key.get(&m.key) {
                Some(at) => &mut series[*at],
                None => {
                    at_key.insert(m.key.clone(), series.len());
                    series.push(Series {
                        key: m.key.clone(),
                        label: m.label.clone(),
                        unit: m.unit.clone(),
                        direction: m.direction,
                        errors: m.errors,
                        values: vec![None; runs.len()],
                        groups: Vec::new(),
                        change_points: Vec::new(),
                        shown: false,
                    });
                    series.last_mut().expect("just pushed")
                }
            };
            s.values[i] = Some(m.value);
        }
    }
    if !selection.metrics.is_empty() {
        let mut known = (series.iter().take(KEYS_LISTED))
            .map(|s| s.key.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if series.len() > KEYS_LISTED {
            known.push_str(&format!(" … and {} more", series.len() - KEYS_LISTED));
        }
        for asked in &selection.metrics {
            if !series.iter().any(|s| matches_metric(&s.key, asked)) {
                return Err(HistoryError::UnknownMetric {
                    asked: asked.clone(),
                    known,
                });
            }
        }
    }
    // The metrics asked for (`--metric`) choose what is shown, never the family judged: the
    // change points and step verdicts are made over every series, as the site and `compare`
    // make them, so a metric's verdict is the same whichever others are shown.
    let asked = |key: &str| selection.metrics.iter().any(|a| matches_metric(key, a));
    for s in &mut series {
        s.groups = points
            .iter()
            .map(|p| {
                group_stat(
                    &p.runs
                        .iter()
                        .filter_map(|&r| s.values[r])
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
    }
    let (located, family) = if selection.change_points {
        located_family_wise(&series, &runs, &points, selection)
    } else {
        (vec![Vec::new(); series.len()], 0)
    };
    for (s, cps) in series.iter_mut().zip(located) {
        s.change_points = cps;
        s.shown = if selection.metrics.is_empty() {
            HEADLINE.contains(&s.key.as_str()) || !s.change_points.is_empty()
        } else {
            true
        };
    }
    let threshold_pct = compare::DEFAULT_THRESHOLD_PCT;
    let mut verdicts = step_verdicts(&series, &points, &runs, &asked);
    if !selection.metrics.is_empty() {
        series.retain(|s| asked(&s.key));
        verdicts.retain(|v| asked(&v.key));
    }
    let change_points_searched = selection.change_points
        && segments(&runs, selection.axis)
            .iter()
            .any(|r| points_in(&runs, r.clone()) >= MIN_POINTS_FOR_CHANGE_POINTS);
    Ok(History {
        configuration,
        axis: selection.axis,
        selection: selection.describe() + &pooled_machines(&loaded, selection.machines),
        points,
        runs,
        series,
        excluded,
        verdicts,
        threshold_pct,
        change_points_searched,
        change_point_family: change_points_searched.then_some(family),
        alpha: selection.options.alpha,
        permutations: selection.options.permutations,
        annotations: Vec::new(),
    })
}

/// `asked` names the series `key`: the key (an old name or spelling as today's, see
/// `metrics::canonical`), or a prefix ending in `.`.
fn matches_metric(key: &str, asked: &str) -> bool {
    let asked = crate::analysis::metrics::canonical(asked);
    key == asked || (asked.ends_with('.') && key.starts_with(&asked))
}

/// `build=1234 commit=abc`.
pub fn tag_text(tags: &BTreeMap<String, String>) -> String {
    tags.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sorts engines by product, then numeric version, then the rest of the name (`-dist`);
/// runs without an engine last.
fn version_key(engine: Option<&str>) -> (u8, String, Version, String) {
    let Some(name) = engine else {
        return (
            1,
            String::new(),
            Version::parse("0").expect("a number"),
            String::new(),
        );
    };
    let (product, rest) = name.split_once('-').unwrap_or((name, ""));
    let (number, suffix) = rest.split_once('-').unwrap_or((rest, ""));
    let version = Version::parse(number).unwrap_or_else(|| Version::parse("0").expect("a number"));
    (0, product.to_string(), version, suffix.to_string())
}

/// Median and 95 % t interval of the mean of one group's values.
pub fn group_stat(values: &[f64]) -> Option<GroupStat> {
    let mean = statistics::mean(values)?;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = crate::stats::median_sorted(&sorted)?;
    // Positive figures (throughput, times) vary by ratios: their interval is on the
    // logarithms, so it stays positive ("2975 [-9726–15676]" docs/s was a linear one).
    if sorted[0] > 0.0 && n >= 2 {
        let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        let m = statistics::mean(&logs)?;
        let sd = (logs.iter().map(|l| (l - m) * (l - m)).sum::<f64>() / (n - 1) as f64).sqrt();
        let half = t975((n - 1) as f64) * sd / (n as f64).sqrt();
        return Some(GroupStat {
            n,
            median,
            low: Some((m - half).exp()),
            high: Some((m + half).exp()),
        });
    }
    let half = if mean == 0.0 && sorted[0] == sorted[n - 1] {
        Some(0.0)
    } else {
        statistics::cv_pct(values)
            .map(|cv| t975((n - 1) as f64) * cv / 100.0 * mean.abs() / (n as f64).sqrt())
    };
    // A figure that cannot be negative (an error count with zeros) has no negative bound.
    let floor = if sorted[0] >= 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    };
    Some(GroupStat {
        n,
        median,
        low: half.map(|h| (mean - h).max(floor)),
        high: half.map(|h| mean + h),
    })
}

/// The change points of `s`, placed on runs and points, each improvement checked against the
/// other series and the documents acknowledged. On the version axis each product is its own
/// history: Elasticsearch 8 followed by OpenSearch 2 is not a change of level.
fn locate(
    s: &Series,
    all: &[Series],
    runs: &[Run],
    points: &[Point],
    axis: Axis,
    options: &changepoint::Options,
) -> Vec<Located> {
    segments(runs, axis)
        .into_iter()
        .filter(|r| points_in(runs, r.clone()) >= MIN_POINTS_FOR_CHANGE_POINTS)
        .flat_map(|r| locate_in(s, all, runs, points, r, options))
        .collect()
}

/// The change points of every series, kept under the rule every verdict keeps: the series
/// are one family, corrected by Holm's weighted step-down with the headline weighing
/// [`multiple::PRIMARY_SHARE`] of it and family-wise error [`multiple::ALPHA`] (as `compare` corrects
/// its metrics), so that a history of 80 metrics does not turn up four change points by
/// chance. Each series not yet found to change is searched at its step's level `α · w / W`
/// (`W`: the weight of the series not yet found to change), with enough shuffles to reach
/// it; a series found to change frees its weight, and the others are searched again at their
/// higher level, until no more is found. Returns each series' change points and the family's
/// size.
fn located_family_wise(
    series: &[Series],
    runs: &[Run],
    points: &[Point],
    selection: &Selection,
) -> (Vec<Vec<Located>>, usize) {
    let m = series.len();
    let primary = HEADLINE
        .iter()
        .find_map(|k| series.iter().position(|s| s.key == *k));
    let weights = multiple::primary_weights(m, primary);
    let mut located: Vec<Vec<Located>> = vec![Vec::new(); m];
    let mut changed = vec![false; m];
    loop {
        let left: f64 = (0..m).filter(|&i| !changed[i]).map(|i| weights[i]).sum();
        let mut more = false;
        let open: Vec<usize> = (0..m).filter(|&i| !changed[i]).collect();
        for i in open {
            let level = multiple::ALPHA * weights[i] / left;
            let options = changepoint::Options {
                alpha: level,
                // Shuffles enough that the smallest p-value they can give is well under the
                // level (the search stops early where the answer is plain).
                permutations: selection
                    .options
                    .permutations
                    .max((3.0 / level).ceil() as usize),
                ..selection.options
            };
            let found = locate(&series[i], series, runs, points, selection.axis, &options);
            if !found.is_empty() {
                (located[i], changed[i], more) = (found, true, true);
            }
        }
        if !more || changed.iter().all(|c| *c) {
            break;
        }
    }
    (located, m)
}

/// The runs (in axis order) of each product on the version axis, or all of them on the
/// time axis: another product is not a change of level.
fn segments(runs: &[Run], axis: Axis) -> Vec<std::ops::Range<usize>> {
    let product = |r: usize| match axis {
        Axis::Version => runs[r]
            .engine
            .as_deref()
            .and_then(|e| e.split_once('-'))
            .map(|(p, _)| p),
        Axis::Time => None,
    };
    let mut out = Vec::new();
    let mut start = 0;
    while start < runs.len() {
        let end = (start..runs.len())
            .find(|&r| product(r) != product(start))
            .unwrap_or(runs.len());
        out.push(start..end);
        start = end;
    }
    out
}

/// How many points the runs of `range` are at.
fn points_in(runs: &[Run], range: std::ops::Range<usize>) -> usize {
    let mut at: Vec<usize> = runs[range].iter().map(|r| r.point).collect();
    at.dedup();
    at.len()
}

/// One point's runs of a series as one side of a comparison: the mean, and the values over
/// runs when there are two or more, each with its run's round (a matrix's points are
/// compared round by round).
fn side_metric(s: &Series, point: &Point, runs: &[Run]) -> Option<Metric> {
    let present: Vec<usize> = point
        .runs
        .iter()
        .copied()
        .filter(|&r| s.values[r].is_some())
        .collect();
    let values: Vec<f64> = present.iter().filter_map(|&r| s.values[r]).collect();
    let rounds = present
        .iter()
        .map(|&r| compare::round_of(&runs[r].tags))
        .collect();
    Some(Metric {
        key: s.key.clone(),
        label: s.label.clone(),
        unit: s.unit.clone(),
        direction: s.direction,
        value: statistics::mean(&values)?,
        samples: (values.len() >= 2).then_some((SampleKind::PerRun, values)),
        rounds,
        errors: s.errors,
    })
}

/// Each point against the one before it, by the comparison's rule; a point whose runs have
/// errors is never better. On every selected metric when metrics were asked for; else on the
/// headline metrics, and on any other whose step is [`clear`] (a profile's date-parsing share
/// falling by nine tenths between two releases is an answer, not a hidden metric).
fn step_verdicts(
    series: &[Series],
    points: &[Point],
    runs: &[Run],
    asked: &dyn Fn(&str) -> bool,
) -> Vec<StepVerdict> {
    let headline = |s: &Series| asked(&s.key) || HEADLINE.contains(&s.key.as_str());
    let has_errors = |p: &Point| {
        series
            .iter()
            .filter(|s| s.errors)
            .any(|s| p.runs.iter().any(|&r| s.values[r].is_some_and(|v| v > 0.0)))
    };
    let mut out = Vec::new();
    for pair in points.windows(2) {
        let (from, to) = (&pair[0], &pair[1]);
        // Every metric of the step, judged as `compare` judges the two points' runs: one
        // family, Holm-corrected, the headline weighing half; then shown as before.
        let mut rows: Vec<compare::Row> = series
            .iter()
            .filter_map(|s| {
                let (b, m) = (side_metric(s, from, runs)?, side_metric(s, to, runs)?);
                Some(compare::Row {
                    key: s.key.clone(),
                    label: s.label.clone(),
                    unit: s.unit.clone(),
                    direction: s.direction,
                    errors: s.errors,
                    base: b.value,
                    contenders: vec![Some(compare::cell(&b, &m, compare::DEFAULT_THRESHOLD_PCT))],
                })
            })
            .collect();
        compare::correct(&mut rows, 1, None, compare::DEFAULT_THRESHOLD_PCT);
        for (s, row) in rows.into_iter().filter_map(|r| {
            let s = series.iter().find(|s| s.key == r.key)?;
            Some((s, r))
        }) {
            let Some(Some(mut cell)) = row.contenders.into_iter().next() else {
                continue;
            };
            // The machine's own figures (other processes, steal) say what the runs ran
            // beside, not what the point did: never a step of the point unless asked for.
            // An error count's rise is worse by rule, not by a test (it has no interval):
            // kept as `compare` keeps it, so the site and `compare` say the same of a step.
            let context = s.key.starts_with(compare::MACHINE_PREFIX);
            let ruled = s.errors && cell.verdict == Verdict::Worse;
            if !headline(s) && !ruled && (context || !clear(&cell, compare::DEFAULT_THRESHOLD_PCT))
            {
                continue;
            }
            if cell.verdict == Verdict::Better && has_errors(to) {
                cell.verdict = Verdict::NotBetterHasErrors;
            }
            out.push(StepVerdict {
                from: from.label.clone(),
                to: to.label.clone(),
                key: s.key.clone(),
                label: s.label.clone(),
                unit: s.unit.clone(),
                errors: s.errors,
                cell,
            });
        }
    }
    out
}

/// A step that stands out among many metrics: significant, and its whole interval beyond the
/// threshold either way. Judging every metric at 95 % would turn up one in twenty by chance;
/// an interval that clears the threshold as well rarely does.
fn clear(cell: &compare::Cell, threshold_pct: f64) -> bool {
    let significant = matches!(
        cell.verdict,
        Verdict::Better | Verdict::Worse | Verdict::Changed
    );
    significant
        && cell
            .ci
            .is_some_and(|i| i.low_pct > threshold_pct || i.high_pct < -threshold_pct)
}

fn locate_in(
    s: &Series,
    all: &[Series],
    runs: &[Run],
    points: &[Point],
    range: std::ops::Range<usize>,
    options: &changepoint::Options,
) -> Vec<Located> {
    // The runs that have the metric, and their values.
    let present: Vec<usize> = range.clone().filter(|&r| s.values[r].is_some()).collect();
    let values: Vec<f64> = present.iter().filter_map(|&r| s.values[r]).collect();
    let allowed = |i: usize| i > 0 && runs[present[i]].point != runs[present[i - 1]].point;
    let found = changepoint::detect(&values, s.direction, &allowed, options);
    let bounds: Vec<usize> = found.iter().map(|c| present[c.index]).collect();
    found
        .into_iter()
        .enumerate()
        .map(|(k, mut change)| {
            let run = present[change.index];
            let before_run = present[change.index - 1];
            change.index = run;
            let from = if k == 0 { range.start } else { bounds[k - 1] };
            let to = bounds.get(k + 1).copied().unwrap_or(range.end);
            let suspect = if change.shift == Shift::Improvement {
                suspicions(s, all, runs, from..run, run..to)
            } else {
                Vec::new()
            };
            Located {
                change,
                run: runs[run].id.clone(),
                from: points[runs[before_run].point].label.clone(),
                to: points[runs[run].point].label.clone(),
                suspect,
            }
        })
        .collect()
}

/// The headline throughput's key.
const THROUGHPUT: &str = crate::analysis::metrics::THROUGHPUT;

/// A GC figure of the load phase that is a rate over wall time (ms per second, share of
/// wall), as opposed to a count over the run or the query phase's.
fn is_load_gc_rate(key: &str) -> bool {
    key.starts_with("telemetry.") && (key.ends_with("_per_s") || key.ends_with("_share_pct"))
}

fn suspicions(
    s: &Series,
    all: &[Series],
    runs: &[Run],
    before: std::ops::Range<usize>,
    after: std::ops::Range<usize>,
) -> Vec<String> {
    let side = |values: &dyn Fn(usize) -> Option<f64>, range: std::ops::Range<usize>| {
        range.filter_map(values).collect::<Vec<f64>>()
    };
    let mut out = Vec::new();
    let throughput = all.iter().find(|o| o.key == THROUGHPUT);
    for other in all.iter().filter(|o| o.key != s.key) {
        let gc = other.key.to_ascii_lowercase().contains("gc");
        // GC per second of the load grows with the documents per second: judged per
        // document, so a faster release is not suspect for collecting its own garbage.
        let per_doc = gc
            .then(|| throughput.filter(|_| is_load_gc_rate(&other.key)))
            .flatten();
        let get = |r: usize| match per_doc {
            Some(t) => other.values[r].zip(t.values[r]).and_then(|(g, d)| {
                (d > 0.0).then(|| g / d * 1000.0) // per 1,000 documents
            }),
            None => other.values[r],
        };
        let (b, a) = (side(&get, before.clone()), side(&get, after.clone()));
        let (Some(mb), Some(ma)) = (statistics::mean(&b), statistics::mean(&a)) else {
            continue;
        };
        if other.errors && ma > mb {
            out.push(format!("more errors: {} {mb:.0} → {ma:.0}", other.key));
        } else if gc && ma > mb {
            let risen = match statistics::welch_diff(&b, &a) {
                Some(i) => i.low_pct > 0.0,
                None => changepoint::relative_shift(&b, &a).is_some_and(|x| x > 10.0),
            };
            if risen {
                let per = if per_doc.is_some() {
                    " per 1,000 docs"
                } else {
                    ""
                };
                out.push(format!("more GC: {}{per} {mb:.3} → {ma:.3}", other.key));
            }
        }
    }
    let docs = |r: usize| runs[r].docs_acknowledged;
    let (b, a) = (side(&docs, before), side(&docs, after));
    if let (Some(mb), Some(ma)) = (statistics::mean(&b), statistics::mean(&a)) {
        if ma < mb {
            out.push(format!("fewer docs acknowledged: {mb:.0} → {ma:.0}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::store::RunId;
    use serde_json::json;
    use serde_json::Value;

    fn row(i: usize, engine: &str, docs_per_sec: f64, refused: u64, indexed: u64) -> RunRow {
        RunRow {
            id: RunId(format!("{i:08x}")),
            kind: "run".into(),
            workload: "logs".into(),
            engine: Some(engine.into()),
            status: "complete".into(),
            state: State::Complete,
            started_unix: 1_700_000_000 + i as u64,
            finished_unix: None,
            tool_version: "0".into(),
            seed: Some(1),
            pid: None,
            machine: Value::Null,
            config: json!({"clients": 2}),
            tags: Default::default(),
            error: None,
            result: Some(json!({
                "docs_per_sec": docs_per_sec,
                "counts": {"indexed": indexed, "refused": refused, "unacknowledged": 0},
                "service": {"p50_ms": 1000.0 / docs_per_sec},
            })),
        }
    }

    /// Runs of more metrics than a history judges as one family (a track of thousands of
    /// tasks, made up) are refused naming their configuration, before any change point is
    /// searched; an unknown metric's error lists a few keys, not all of them.
    #[test]
    fn a_history_of_more_metrics_than_a_family_holds_is_refused() {
        use crate::measure::{Better, Figure, Kept};
        let phases = |n: usize| {
            let figures = (0..n)
                .map(|i| (format!("f{i}"), Figure::new("f", "ms", Better::Lower, 1.0)))
                .collect();
            vec![crate::store::PhaseMeasurements {
                phase: "t".into(),
                kept: [(
                    "gauge".to_string(),
                    Kept {
                        figures,
                        detail: None,
                    },
                )]
                .into(),
                ..Default::default()
            }]
        };
        let of = |n: usize, selection: &Selection| {
            let rows: Vec<RunRow> = (0..3)
                .map(|i| row(i, "opensearch-2.19.1", 100.0, 0, 1))
                .collect();
            let c = Configuration::of(&rows[0]);
            let loaded = rows
                .into_iter()
                .map(|r| Loaded {
                    phases: phases(n),
                    ..Loaded::bare(r)
                })
                .collect();
            build(c, loaded, selection, Vec::new())
        };
        let all = Selection::new(Axis::Time);
        let err = of(MOST_SERIES + 1, &all).unwrap_err();
        assert!(matches!(err, HistoryError::TooManySeries { series, .. } if series > MOST_SERIES));
        assert!(
            err.is_usage() && err.to_string().contains("compare"),
            "{err}"
        );
        assert!(of(100, &all).is_ok());
        let mut asked = Selection::new(Axis::Time);
        asked.metrics = vec!["nothing".into()];
        let err = of(5_000, &asked).unwrap_err().to_string();
        assert!(err.contains("… and ") && err.len() < 4_000, "{}", err.len());
    }

    fn throughput(h: &History) -> &Series {
        h.series
            .iter()
            .find(|s| s.key == THROUGHPUT)
            .expect("a throughput series")
    }

    fn history(rows: Vec<RunRow>) -> History {
        let c = Configuration::of(&rows[0]);
        let loaded = rows.into_iter().map(Loaded::bare).collect();
        build(c, loaded, &Selection::new(Axis::Version), Vec::new()).unwrap()
    }

    /// Noise in a dozen metrics over 16 versions: searched one metric at a time at 5 % each,
    /// the histories turn up change points where nothing changed (the site once showed 11 in
    /// 15 noisy nightly runs); as one family under compare's rule, few if any, while a real
    /// step of the headline is still found.
    #[test]
    fn change_points_are_one_family_under_the_rule_every_verdict_keeps() {
        let histories = |step: f64, seed: u64| {
            let mut rng = Rng::new(seed, 0);
            let rows: Vec<RunRow> = (0..16)
                .map(|i| {
                    let level = if i >= 8 { step } else { 1.0 };
                    let mut noisy = |v: f64| v * (1.0 + 0.05 * rng.normalish());
                    let mut r = row(
                        i,
                        &format!("elasticsearch-8.{i}.0"),
                        noisy(20_000.0 * level),
                        0,
                        1000,
                    );
                    r.result = Some(json!({
                        "docs_per_sec": noisy(20_000.0 * level),
                        "mb_per_sec": noisy(6.0), "wire_mb_per_sec": noisy(6.5),
                        "counts": {"indexed": 1000, "refused": 0, "unacknowledged": 0},
                        "service": {"mean_ms": noisy(20.0), "p50_ms": noisy(19.0),
                            "p90_ms": noisy(26.0), "p99_ms": noisy(28.0), "max_ms": noisy(40.0)},
                        "took": {"p50_ms": noisy(13.0), "p99_ms": noisy(19.0)},
                    }));
                    r
                })
                .collect();
            history(rows)
        };
        // The same series searched one metric at a time, each at 5 %, as the site once did.
        let one_at_a_time = |h: &History| -> usize {
            h.series
                .iter()
                .map(|s| {
                    let options = changepoint::Options::default();
                    locate(s, &h.series, &h.runs, &h.points, Axis::Version, &options).len()
                })
                .sum()
        };
        let (mut alone, mut family) = (0, 0);
        for seed in 0..30 {
            let h = histories(1.0, seed);
            assert!(
                h.change_point_family.is_some_and(|n| n >= 8),
                "{:?}",
                h.change_point_family
            );
            alone += one_at_a_time(&h);
            family += h.change_points().len();
        }
        assert!(
            alone >= 8,
            "{alone} false change points one metric at a time"
        );
        assert!(
            family * 4 <= alone,
            "{family} in the family against {alone}"
        );
        // A fall of a fifth in the headline is found all the same.
        let h = histories(0.8, 1);
        let cps = &throughput(&h).change_points;
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert_eq!(cps[0].to, "elasticsearch-8.8.0");
        assert!(
            h.change_point_rule().contains("Holm"),
            "{}",
            h.change_point_rule()
        );
    }

    /// A history's step between two points and `compare` of the same two points' runs give
    /// the same verdict on every metric the history judges: one rule (Holm over the step's
    /// metrics, the headline weighing half), not a 95 % test per metric.
    #[test]
    fn a_step_is_judged_as_compare_judges_the_same_runs() {
        let mut rng = Rng::new(11, 0);
        let rows: Vec<RunRow> = (0..8)
            .map(|i| {
                let (engine, level) = if i < 4 {
                    ("elasticsearch-8.14.3", 1.0)
                } else {
                    ("elasticsearch-8.15.0", 0.93)
                };
                let mut noisy = |v: f64| v * (1.0 + 0.02 * rng.normalish());
                let mut r = row(i, engine, 1.0, 0, 1000);
                r.result = Some(json!({
                    "docs_per_sec": noisy(20_000.0 * level),
                    "mb_per_sec": noisy(6.0 * level), "wire_mb_per_sec": noisy(6.5),
                    "counts": {"indexed": 1000, "refused": 0, "unacknowledged": 0},
                    "service": {"mean_ms": noisy(20.0), "p50_ms": noisy(19.0 / level),
                        "p90_ms": noisy(26.0), "p99_ms": noisy(28.0), "max_ms": noisy(40.0)},
                }));
                r
            })
            .collect();
        let side = |rows: &[RunRow]| {
            compare::Side::from_group(&crate::analysis::runs::Group {
                selector: "x=1".into(),
                runs: rows.iter().cloned().map(Loaded::bare).collect(),
                excluded: Vec::new(),
            })
        };
        let c = compare::compare(side(&rows[..4]), vec![side(&rows[4..])]);
        let h = history(rows);
        assert!(!h.verdicts.is_empty());
        for v in &h.verdicts {
            let row = c.rows.iter().find(|r| r.key == v.key).expect("compared");
            let theirs = row.contenders[0].as_ref().unwrap();
            assert_eq!(v.cell.verdict, theirs.verdict, "{}", v.key);
            assert_eq!(v.cell.p_adjusted, theirs.p_adjusted, "{}", v.key);
        }
    }

    /// `matrix elasticsearch-8.14.3,elasticsearch-8.15.0 --profile`: the date-parsing share
    /// fell by nine tenths, throughput hardly moved. The clear step is judged without being
    /// asked for; a small significant wobble of another metric is not.
    #[test]
    fn a_clear_step_of_any_metric_is_judged_unasked() {
        let mut rng = Rng::new(7, 0);
        let mut with = |mb: f64, asked: &[&str]| {
            let mut rows = Vec::new();
            for (v, (engine, level)) in
                [("elasticsearch-8.14.3", mb), ("elasticsearch-8.15.0", 1.0)]
                    .into_iter()
                    .enumerate()
            {
                for k in 0..3 {
                    let mut r = row(
                        v * 3 + k,
                        engine,
                        1000.0 * (1.0 + 0.01 * rng.normalish()),
                        0,
                        1000,
                    );
                    let noisy = level * (1.0 + 0.002 * rng.normalish());
                    if let Some(Value::Object(o)) = r.result.as_mut() {
                        o.insert("mb_per_sec".into(), json!(noisy));
                    }
                    rows.push(r);
                }
            }
            let c = Configuration::of(&rows[0]);
            let loaded = rows.into_iter().map(Loaded::bare).collect();
            let mut selection = Selection::new(Axis::Version);
            selection.metrics = asked.iter().map(|m| m.to_string()).collect();
            build(c, loaded, &selection, Vec::new()).unwrap()
        };
        let h = with(10.0, &[]);
        let v = h
            .verdicts
            .iter()
            .find(|v| v.key == "mb_per_sec")
            .expect("judged");
        assert_eq!(v.cell.verdict, Verdict::Worse, "{v:?}");
        assert!(v.cell.ci.unwrap().high_pct < -80.0, "{v:?}");
        // 2 %: significant at this spread (asked for, it is judged worse), but inside the
        // threshold.
        let asked = with(1.02, &["mb_per_sec"]);
        assert_eq!(asked.verdicts[0].cell.verdict, Verdict::Worse);
        let h = with(1.02, &[]);
        assert!(h.verdicts.iter().all(|v| v.key != "mb_per_sec"));
    }

    #[test]
    fn versions_order_numerically_and_a_shift_is_placed_on_its_version() {
        let mut rng = Rng::new(3, 0);
        let mut rows = Vec::new();
        // Eight versions, three runs each (stored in a scrambled order); 2.10 is 15 % faster.
        for (v, minor) in [9, 1, 12, 10, 2, 11, 13, 3].iter().enumerate() {
            for k in 0..3 {
                let level = if *minor >= 10 { 1150.0 } else { 1000.0 };
                let x = level * (1.0 + 0.03 * rng.normalish());
                rows.push(row(
                    v * 3 + k,
                    &format!("opensearch-2.{minor}.0"),
                    x,
                    0,
                    1000,
                ));
            }
        }
        let h = history(rows);
        let labels: Vec<&str> = h.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [1, 2, 3, 9, 10, 11, 12, 13].map(|m| format!("opensearch-2.{m}.0"))
        );
        assert!(h.points.iter().all(|p| p.runs.len() == 3));
        let s = throughput(&h);
        assert!(s.shown);
        assert_eq!(s.change_points.len(), 1, "{:?}", s.change_points);
        let c = &s.change_points[0];
        assert_eq!(
            (c.from.as_str(), c.to.as_str()),
            ("opensearch-2.9.0", "opensearch-2.10.0")
        );
        assert_eq!(c.change.index, 12);
        assert_eq!(c.change.shift, Shift::Improvement);
        assert!(c.suspect.is_empty(), "{:?}", c.suspect);
        let g = s.groups[0].as_ref().unwrap();
        assert_eq!(g.n, 3);
        assert!(g.low.unwrap() < g.median && g.median < g.high.unwrap());
        // The service time moved the other way at the same place: a regression? no, faster.
        let p50 = h.series.iter().find(|s| s.key == "service_p50_ms").unwrap();
        assert_eq!(p50.change_points[0].change.shift, Shift::Improvement);
    }

    /// `matrix opensearch-2.11.0,opensearch-2.19.1` once printed "no change point in any
    /// metric" and never said whether 2.19.1 is faster: two points get a verdict, not a
    /// change-point search.
    #[test]
    fn two_versions_get_a_verdict_per_headline_metric_and_no_change_point_search() {
        let mut rng = Rng::new(5, 0);
        let mut rows = Vec::new();
        for (v, (engine, level)) in [("opensearch-2.19.1", 1300.0), ("opensearch-2.11.0", 1000.0)]
            .into_iter()
            .enumerate()
        {
            for k in 0..3 {
                let x = level * (1.0 + 0.01 * rng.normalish());
                rows.push(row(v * 3 + k, engine, x, 0, 1000));
            }
        }
        let h = history(rows);
        assert!(!h.change_points_searched);
        assert!(h.series.iter().all(|s| s.change_points.is_empty()));
        let v = h
            .verdicts
            .iter()
            .find(|v| v.key == THROUGHPUT)
            .expect("a throughput verdict");
        assert_eq!(
            (v.from.as_str(), v.to.as_str()),
            ("opensearch-2.11.0", "opensearch-2.19.1")
        );
        assert_eq!(v.cell.verdict, Verdict::Better, "{v:?}");
        assert!(v.cell.diff_pct.unwrap() > 20.0);
        assert_eq!((v.cell.n_base, v.cell.n), (Some(3), Some(3)));
        // Only the headline metrics are judged: no other moved clearly.
        assert!(h
            .verdicts
            .iter()
            .all(|v| HEADLINE.contains(&v.key.as_str())));
        // One run each: the difference, and cannot tell.
        let h = history(vec![
            row(0, "opensearch-2.11.0", 1000.0, 0, 1000),
            row(1, "opensearch-2.19.1", 1300.0, 0, 1000),
        ]);
        let v = h.verdicts.iter().find(|v| v.key == THROUGHPUT).unwrap();
        assert_eq!(v.cell.verdict, Verdict::CannotTell);
        // Three versions are enough for change points.
        let h = history(
            (0..9)
                .map(|i| {
                    row(
                        i,
                        &format!("opensearch-2.{}.0", i / 3),
                        1000.0 + i as f64,
                        0,
                        1000,
                    )
                })
                .collect(),
        );
        assert!(h.change_points_searched);
        assert_eq!(h.verdicts.iter().filter(|v| v.key == THROUGHPUT).count(), 2);
    }

    /// `--metric` chooses what is shown, not the family judged: the throughput's change
    /// points and step verdicts are the same asked alone as among every metric.
    #[test]
    fn asking_for_one_metric_judges_it_as_among_all() {
        // Two versions of three runs, 2 % apart in 2 % noise: a step significant alone,
        // not among every metric (this seed).
        let mut rng = Rng::new(1, 0);
        let rows: Vec<RunRow> = (0..6)
            .map(|i| {
                let (engine, level) = match i >= 3 {
                    true => ("opensearch-2.19.1", 1020.0),
                    false => ("opensearch-2.11.0", 1000.0),
                };
                row(i, engine, level * (1.0 + 0.02 * rng.normalish()), 0, 1000)
            })
            .collect();
        let of = |metrics: Vec<String>| {
            let c = Configuration::of(&rows[0]);
            let loaded = rows.iter().cloned().map(Loaded::bare).collect();
            let mut selection = Selection::new(Axis::Version);
            selection.metrics = metrics;
            build(c, loaded, &selection, Vec::new()).unwrap()
        };
        let (all, one) = (of(Vec::new()), of(vec![THROUGHPUT.to_string()]));
        assert_eq!(one.series.len(), 1);
        let points = |h: &History| {
            let s = throughput(h);
            s.change_points
                .iter()
                .map(|c| c.run.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(points(&all), points(&one));
        let steps = |h: &History| {
            (h.verdicts.iter())
                .filter(|v| v.key == THROUGHPUT)
                .map(|v| (v.to.clone(), v.cell.verdict))
                .collect::<Vec<_>>()
        };
        assert_eq!(steps(&all), steps(&one));
    }

    /// A step whose runs refused documents the runs before did not is worse on that count by
    /// the rule `compare` keeps (an error count has no interval to clear), whatever the speed
    /// did: the site's word for the step is then "worse", as `compare`'s is.
    #[test]
    fn a_rise_in_an_error_count_is_a_worse_step_as_compare_says() {
        let mut rng = Rng::new(9, 0);
        let mut rows = Vec::new();
        for (v, (engine, refused)) in [("opensearch-2.11.0", 0), ("opensearch-2.19.1", 200)]
            .into_iter()
            .enumerate()
        {
            for k in 0..3 {
                let x = 1000.0 * (1.0 + 0.01 * rng.normalish());
                rows.push(row(v * 3 + k, engine, x, refused, 1000));
            }
        }
        let h = history(rows);
        let refused = h.verdicts.iter().find(|v| v.key == "errors.ingest.refused");
        let refused = refused.unwrap_or_else(|| panic!("{:?}", h.verdicts));
        assert_eq!(refused.cell.verdict, Verdict::Worse, "{refused:?}");
        assert!(refused.errors);
    }

    #[test]
    fn an_improvement_with_fewer_docs_or_more_errors_is_suspect() {
        let mut rows = Vec::new();
        for i in 0..12 {
            let fast = i >= 6;
            let (dps, refused, indexed) = if fast {
                (1300.0, 50, 950)
            } else {
                (1000.0, 0, 1000)
            };
            rows.push(row(
                i,
                &format!("opensearch-2.{i}.0"),
                dps + i as f64,
                refused,
                indexed,
            ));
        }
        let h = history(rows);
        let s = throughput(&h);
        let c = &s.change_points[0];
        assert_eq!(c.change.shift, Shift::Improvement);
        assert!(
            c.suspect
                .iter()
                .any(|r| r.contains("errors.ingest.refused")),
            "{:?}",
            c.suspect
        );
        assert!(
            c.suspect.iter().any(|r| r.contains("fewer docs")),
            "{:?}",
            c.suspect
        );
    }

    #[test]
    fn more_gc_per_second_is_suspect_only_when_it_outgrows_the_documents_per_second() {
        // Six versions at 1,000 docs/s, six at 1,300; GC ms/s rises with the documents
        // (the same GC per document), or twice as fast as them.
        let history_with = |gc_after: f64| {
            let mut rng = Rng::new(11, 0);
            let rows = (0..12)
                .map(|i| {
                    let fast = i >= 6;
                    let noise = 1.0 + 0.01 * rng.normalish();
                    let dps = if fast { 1300.0 } else { 1000.0 } * noise;
                    let gc_ms_per_s = if fast { gc_after } else { 20.0 } * noise;
                    let mut r = row(i, &format!("opensearch-2.{i}.0"), dps, 0, 1000);
                    if let Some(result) = r.result.as_mut() {
                        result["telemetry"] = json!({
                            "span_secs": 10.0, "gc_secs": gc_ms_per_s / 100.0,
                        });
                    }
                    r
                })
                .collect();
            let h = history(rows);
            let s = throughput(&h);
            assert_eq!(s.change_points.len(), 1, "{:?}", s.change_points);
            assert_eq!(s.change_points[0].change.shift, Shift::Improvement);
            s.change_points[0].suspect.clone()
        };
        let same_per_doc = history_with(26.0);
        assert!(same_per_doc.is_empty(), "{same_per_doc:?}");
        let outgrown = history_with(52.0);
        assert!(
            outgrown
                .iter()
                .any(|r| r.contains("more GC: telemetry.gc_ms_per_s per 1,000 docs")),
            "{outgrown:?}"
        );
    }

    #[test]
    fn each_product_is_its_own_history() {
        // Elasticsearch much slower than OpenSearch, flat within each product: no change point.
        let mut rng = Rng::new(5, 0);
        let mut rows = Vec::new();
        for (i, engine) in (0..24).map(|i| {
            let e = if i < 12 {
                format!("elasticsearch-8.{}.0", i / 2)
            } else {
                format!("opensearch-2.{}.0", i / 2)
            };
            (i, e)
        }) {
            let level = if i < 12 { 500.0 } else { 1000.0 };
            rows.push(row(
                i,
                &engine,
                level * (1.0 + 0.02 * rng.normalish()),
                0,
                1000,
            ));
        }
        let h = history(rows);
        let s = throughput(&h);
        assert!(s.change_points.is_empty(), "{:?}", s.change_points);
    }

    #[test]
    fn engines_sort_by_product_then_version() {
        let mut names = vec![
            "opensearch-2.10.0",
            "elasticsearch-8.1.1",
            "opensearch-2.9.0",
            "elasticsearch-7.10.2",
            "opensearch-2.9.0-dist",
        ];
        names.sort_by_key(|n| version_key(Some(n)));
        assert_eq!(
            names,
            [
                "elasticsearch-7.10.2",
                "elasticsearch-8.1.1",
                "opensearch-2.9.0",
                "opensearch-2.9.0-dist",
                "opensearch-2.10.0"
            ]
        );
        assert!(version_key(None) > version_key(Some("opensearch-9.0.0")));
    }

    #[test]
    fn intervals_of_positive_figures_stay_positive_and_counts_never_go_below_zero() {
        // Three runs far apart: a linear interval read "2975 [-9726–15676]" docs/s.
        let g = group_stat(&[800.0, 2975.0, 11_000.0]).unwrap();
        let (low, high) = (g.low.unwrap(), g.high.unwrap());
        assert!(
            low > 0.0 && low < g.median && g.median < high,
            "{low} {high}"
        );
        // An error count with zeros: linear, bounded below by zero.
        let e = group_stat(&[0.0, 0.0, 9.0]).unwrap();
        assert_eq!(e.low, Some(0.0));
        assert!(e.high.unwrap() > 9.0 / 3.0);
        // A figure that can be negative keeps its linear interval.
        let d = group_stat(&[-5.0, 1.0, 2.0]).unwrap();
        assert!(d.low.unwrap() < -5.0);
    }
}
