//! The answer of a sweep, computed from its cells' runs (pure: no cluster, no store).
//!
//! Each cell of the grid (bulk size × clients × the settings swept) has the headline docs/s of
//! its repeated runs. A cell's figure is the median of its runs with a 95 % half-width
//! `t(n−1) · s / √n` (Student's t interval of the mean, put around the median: the median
//! resists one disturbed run, the width says how far the runs agree). From those:
//!
//! * the **recommended** cell: among the clean cells (no failed document, no error) as good
//!   as the best cell, the cheapest: fewer clients first, then smaller requests, then fewer
//!   shards, then the safer settings (durable translog, a refresh kept, no gzip CPU). As good
//!   as the best: not slower round by round when the two ran cleanly in 3 rounds or more
//!   (Student's paired t over the rounds' ratios: the machine's drift between rounds cancels,
//!   as in `compare`), else their intervals overlap;
//! * the **knee** of each axis: along the recommended cell's row of that axis, the cheapest
//!   value whose interval overlaps the row's best (going further gains less than the noise);
//! * a **Universal Scalability Law** fit on the clients axis of each bulk size,
//!   `X(N) = λN / (1 + σ(N−1) + κN(N−1))`: λ the rate of one client, σ the contention (the
//!   serial part: queues, locks), κ the coherency cost (clients slowing each other down, so
//!   that throughput falls past `N* = √((1−σ)/κ)`).

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use super::statistics::{paired_diff, t975, MIN_PAIRS};
use crate::measure::recorder::P99_MIN_REQUESTS;

mod grid;
mod usl;

pub use grid::{Axis, CellParams, Grid, AXES};
pub use usl::{fit_usl, UslFit};

/// One measured run of a cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunFigures {
    /// The stored run (when saved).
    pub run_id: Option<String>,
    /// The headline docs/s (warm-up excluded).
    pub docs_per_sec: f64,
    pub service_p50_ms: Option<f64>,
    pub service_p99_ms: Option<f64>,
    /// Answers of 429 (too many requests): requests plus single documents, each attempt.
    pub throttled: u64,
    /// All pushback: request attempts that failed (429, 502/503/504, no answer) plus
    /// documents sent again after a 429/503 item.
    pub pushback: u64,
    /// Documents that went to the failure file.
    pub failed_docs: u64,
    /// The error that stopped the run, a count that did not reconcile, or an interruption.
    pub error: Option<String>,
    /// Engine CPU time per indexed document (µs), when the engine's processes are known.
    pub engine_cpu_us_per_doc: Option<f64>,
    /// Driver (searchbench) CPU time per indexed document (µs).
    pub driver_cpu_us_per_doc: Option<f64>,
    /// Driver CPU ÷ (wall × cores).
    pub driver_machine_share: f64,
    pub wall_secs: f64,
    /// Time to searchable, p99 (s), when the run's documents became searchable.
    #[serde(default)]
    pub searchable_p99_s: Option<f64>,
    /// The share of its documents not searchable within the bound (%), when probed.
    #[serde(default)]
    pub not_searchable_pct: Option<f64>,
}

impl RunFigures {
    /// No failed document, no error.
    pub fn clean(&self) -> bool {
        self.failed_docs == 0 && self.error.is_none()
    }
}

/// A cell's docs/s: median of its runs ± the 95 % half-width.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub median: f64,
    /// Infinite with one run (JSON has no infinity: written `null`, read back infinite).
    #[serde(deserialize_with = "unbounded::above")]
    pub half_width: f64,
    /// Half-width ÷ median, in percent (infinite with one run).
    #[serde(deserialize_with = "unbounded::above")]
    pub half_width_pct: f64,
    #[serde(deserialize_with = "unbounded::below")]
    pub low: f64,
    #[serde(deserialize_with = "unbounded::above")]
    pub high: f64,
    pub runs: usize,
}

/// Bounds that may be infinite, read back from JSON (which writes infinity as `null`).
mod unbounded {
    use serde::{Deserialize, Deserializer};

    pub fn above<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
    }

    pub fn below<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NEG_INFINITY))
    }
}

impl Estimate {
    /// `None` without values. One run has an unknown (infinite) width.
    pub fn of(values: &[f64]) -> Option<Estimate> {
        let median = median(values)?;
        let n = values.len();
        let half_width = if n < 2 {
            f64::INFINITY
        } else {
            let mean = values.iter().sum::<f64>() / n as f64;
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t975((n - 1) as f64) * var.sqrt() / (n as f64).sqrt()
        };
        let half_width_pct = if median > 0.0 {
            half_width / median * 100.0
        } else {
            f64::INFINITY
        };
        Some(Estimate {
            median,
            half_width,
            half_width_pct,
            low: median - half_width,
            high: median + half_width,
            runs: n,
        })
    }

    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

pub use crate::stats::median;

/// One cell and what its runs showed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cell {
    pub params: CellParams,
    /// Documents each run of the cell loads.
    pub docs_per_run: u64,
    pub runs: Vec<RunFigures>,
    /// Docs/s of the clean runs.
    pub docs_per_sec: Option<Estimate>,
    /// Medians over the runs.
    pub service_p50_ms: Option<f64>,
    pub service_p99_ms: Option<f64>,
    pub engine_cpu_us_per_doc: Option<f64>,
    pub driver_cpu_us_per_doc: Option<f64>,
    /// Time to searchable, p99 (s), and the share never searchable within the bound (%).
    #[serde(default)]
    pub searchable_p99_s: Option<f64>,
    #[serde(default)]
    pub not_searchable_pct: Option<f64>,
    /// Sums over the runs.
    pub throttled: u64,
    pub failed_docs: u64,
    /// Runs with an error (or failed documents).
    pub failed_runs: usize,
    /// The interval is within the target width.
    pub converged: bool,
}

fn median_of(runs: &[RunFigures], f: impl Fn(&RunFigures) -> Option<f64>) -> Option<f64> {
    median(&runs.iter().filter_map(f).collect::<Vec<_>>())
}

impl Cell {
    pub fn new(params: CellParams) -> Cell {
        Cell {
            params,
            docs_per_run: 0,
            runs: Vec::new(),
            docs_per_sec: None,
            service_p50_ms: None,
            service_p99_ms: None,
            engine_cpu_us_per_doc: None,
            driver_cpu_us_per_doc: None,
            searchable_p99_s: None,
            not_searchable_pct: None,
            throttled: 0,
            failed_docs: 0,
            failed_runs: 0,
            converged: false,
        }
    }

    /// Adds a run and updates the figures; `ci_pct` is the target half-width.
    pub fn add(&mut self, run: RunFigures, ci_pct: f64) {
        self.runs.push(run);
        let clean: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| r.clean())
            .map(|r| r.docs_per_sec)
            .collect();
        self.docs_per_sec = Estimate::of(&clean);
        self.service_p50_ms = median_of(&self.runs, |r| r.service_p50_ms);
        self.service_p99_ms = median_of(&self.runs, |r| r.service_p99_ms);
        self.engine_cpu_us_per_doc = median_of(&self.runs, |r| r.engine_cpu_us_per_doc);
        self.driver_cpu_us_per_doc = median_of(&self.runs, |r| r.driver_cpu_us_per_doc);
        self.searchable_p99_s = median_of(&self.runs, |r| r.searchable_p99_s);
        self.not_searchable_pct = median_of(&self.runs, |r| r.not_searchable_pct);
        self.throttled = self.runs.iter().map(|r| r.throttled).sum();
        self.failed_docs = self.runs.iter().map(|r| r.failed_docs).sum();
        self.failed_runs = self.runs.iter().filter(|r| !r.clean()).count();
        self.converged = self
            .docs_per_sec
            .is_some_and(|e| e.half_width_pct <= ci_pct);
    }

    /// Never recommended: a run failed documents or stopped with an error.
    pub fn failed(&self) -> bool {
        self.failed_runs > 0
    }

    /// Whether another round should run this cell.
    pub fn needs_more(&self, min_repeats: usize, max_repeats: usize) -> bool {
        !self.failed()
            && self.runs.len() < max_repeats
            && (self.runs.len() < min_repeats || !self.converged)
    }
}

/// One point of an axis' curve.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CurvePoint {
    pub value: String,
    /// The cell (index into the sweep's cells).
    pub cell: usize,
    pub estimate: Option<Estimate>,
    pub failed: bool,
}

/// An axis through the recommended cell: the other parameters held.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AxisCurve {
    pub axis: Axis,
    pub points: Vec<CurvePoint>,
    /// The value with the highest clean median.
    pub best: Option<String>,
    /// The cheapest value whose interval overlaps the best's (ordered axes only).
    pub knee: Option<String>,
}

/// The USL fit of one clients row (the recommended cell's settings, one bulk size).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UslRow {
    pub bulk_docs: usize,
    /// (clients, median docs/s) the fit used.
    pub points: Vec<(usize, f64)>,
    pub fit: UslFit,
}

impl Answer {
    /// The cell marked fastest: only beside a recommendation, which says how it compares
    /// (without one the cells cannot be told apart, and none is the fastest).
    pub fn fastest(&self) -> Option<usize> {
        self.best.filter(|_| self.recommended.is_some())
    }
}

/// A cell against another, round by round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedRounds {
    /// Rounds in which both ran cleanly.
    pub rounds: usize,
    /// The change of the rounds' ratios (geometric mean), percent.
    pub diff_pct: f64,
    /// Student's paired t interval of the change (95 %), percent.
    pub low_pct: f64,
    pub high_pct: f64,
}

/// What the sweep says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    /// The clean cell with the highest median (index into the cells).
    pub best: Option<usize>,
    /// The cheapest clean cell as good as the best (see the module's words).
    pub recommended: Option<usize>,
    /// The recommended cell against the best, round by round, when they were compared so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedRounds>,
    pub curves: Vec<AxisCurve>,
    pub usl: Vec<UslRow>,
    /// Why, in one or two plain sentences.
    pub why: String,
}

/// How much the level moved while the sweep ran: each clean run against its own cell's
/// median, in the order the runs were made; the last third's median over the first third's.
/// Shuffled rounds spread drift over every cell (no cell is favoured), but it widens every
/// interval, so the sweep says so rather than leave the width unexplained.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Drift {
    /// Runs in each third.
    pub runs_per_third: usize,
    /// Median of run ÷ its cell's median, first and last third of the runs.
    pub first_third: f64,
    pub last_third: f64,
    /// `last_third / first_third − 1`, percent.
    pub pct: f64,
}

/// The drift over `rounds` (the cells run in each round, in order), from 9 clean runs on.
pub fn drift(cells: &[Cell], rounds: &[Vec<usize>]) -> Option<Drift> {
    let mut next = vec![0usize; cells.len()];
    let mut ratios = Vec::new();
    for &i in rounds.iter().flatten() {
        let Some(cell) = cells.get(i) else { continue };
        let k = next[i];
        next[i] += 1;
        let (Some(run), Some(level)) = (cell.runs.get(k), cell.docs_per_sec) else {
            continue;
        };
        if run.clean() && level.median > 0.0 {
            ratios.push(run.docs_per_sec / level.median);
        }
    }
    let third = ratios.len() / 3;
    if third < 3 {
        return None;
    }
    let first = median(&ratios[..third])?;
    let last = median(&ratios[ratios.len() - third..])?;
    (first > 0.0).then(|| Drift {
        runs_per_third: third,
        first_third: first,
        last_third: last,
        pct: (last / first - 1.0) * 100.0,
    })
}

/// Each cell's clean runs' docs/s by the round they were made in (index into `rounds`, the
/// cells run in each round in order: a cell's k-th run is its k-th appearance).
pub fn by_round(cells: &[Cell], rounds: &[Vec<usize>]) -> Vec<BTreeMap<usize, f64>> {
    let mut next = vec![0usize; cells.len()];
    let mut out = vec![BTreeMap::new(); cells.len()];
    for (r, order) in rounds.iter().enumerate() {
        for &i in order {
            let Some(cell) = cells.get(i) else { continue };
            let k = next[i];
            next[i] += 1;
            if let Some(run) = cell.runs.get(k).filter(|run| run.clean()) {
                out[i].insert(r, run.docs_per_sec);
            }
        }
    }
    out
}

/// Cell `c` against cell `base` over the rounds both ran cleanly in (from [`MIN_PAIRS`]).
pub fn paired(per_round: &[BTreeMap<usize, f64>], base: usize, c: usize) -> Option<PairedRounds> {
    let (b, k) = (per_round.get(base)?, per_round.get(c)?);
    let pairs: Vec<(f64, f64)> = b
        .iter()
        .filter_map(|(r, &x)| Some((x, *k.get(r)?)))
        .filter(|&(x, y)| x > 0.0 && y > 0.0)
        .collect();
    if pairs.len() < MIN_PAIRS {
        return None;
    }
    let ci = paired_diff(&pairs)?;
    let mean_log = pairs.iter().map(|(x, y)| (y / x).ln()).sum::<f64>() / pairs.len() as f64;
    Some(PairedRounds {
        rounds: pairs.len(),
        diff_pct: (mean_log.exp() - 1.0) * 100.0,
        low_pct: ci.low_pct,
        high_pct: ci.high_pct,
    })
}

/// The fastest clean cell, and the cells as good as it: clean, not slower than it (round by
/// round where they ran in the same rounds, else within its interval), and beaten beyond the
/// noise by no other cell. Only cells with an interval (two clean runs or more) take part:
/// one run's width is unknown. `per_round`: [`by_round`], or empty when the runs' rounds are
/// not known.
fn good_enough(cells: &[Cell], per_round: &[BTreeMap<usize, f64>]) -> (Option<usize>, Vec<usize>) {
    let clean = || {
        cells
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.failed())
            .filter_map(|(i, c)| Some((i, c.docs_per_sec?)))
            .filter(|(_, e)| e.half_width.is_finite())
    };
    let Some((best, top)) = clean().max_by(|a, b| a.1.median.total_cmp(&b.1.median)) else {
        return (None, Vec::new());
    };
    let good = clean()
        .filter(|&(i, e)| match paired(per_round, best, i) {
            Some(p) => p.high_pct >= 0.0,
            None => e.overlaps(&top),
        })
        // Never a cell that another beats beyond the noise.
        .filter(|&(i, e)| {
            !clean().any(|(j, o)| match paired(per_round, i, j) {
                Some(p) => p.low_pct > 0.0,
                None => o.low > e.high,
            })
        })
        .map(|(i, _)| i)
        .collect();
    (Some(best), good)
}

/// The cheapest of the cells as good as the fastest clean cell (see [`good_enough`]), and the
/// fastest.
pub fn recommend(
    cells: &[Cell],
    per_round: &[BTreeMap<usize, f64>],
) -> (Option<usize>, Option<usize>) {
    let (best, good) = good_enough(cells, per_round);
    (best, cheapest(cells, &good))
}

/// The cheapest of `good`; between cells of one cost, the faster.
fn cheapest(cells: &[Cell], good: &[usize]) -> Option<usize> {
    good.iter().copied().min_by(|&a, &b| {
        let median = |i: usize| cells[i].docs_per_sec.map_or(0.0, |e| e.median);
        cells[a]
            .params
            .cost()
            .cmp(&cells[b].params.cost())
            .then(median(b).total_cmp(&median(a)))
    })
}

/// The curve of `axis` through cell `through`: every cell equal to it on the other axes,
/// in the axis' order. Its knee is the first value whose cell is as good as the fastest of
/// the whole sweep (`good`, the cells the recommendation chooses from), so that a knee never
/// says less than the recommendation does: through the recommended cell, the knee of every
/// ordered axis is the recommended cell's value.
fn curve(cells: &[Cell], through: usize, axis: Axis, good: &[usize]) -> AxisCurve {
    let origin = &cells[through].params;
    let mut members: Vec<usize> = (0..cells.len())
        .filter(|&i| cells[i].params.same_except(origin, &[axis]))
        .collect();
    members.sort_by(|&a, &b| {
        cells[a]
            .params
            .number(axis)
            .total_cmp(&cells[b].params.number(axis))
    });
    let points: Vec<CurvePoint> = members
        .iter()
        .map(|&i| CurvePoint {
            value: cells[i].params.value(axis).unwrap_or_default(),
            cell: i,
            estimate: cells[i].docs_per_sec,
            failed: cells[i].failed(),
        })
        .collect();
    let usable = || {
        points
            .iter()
            .filter(|p| !p.failed)
            .filter_map(|p| Some((p, p.estimate?)))
            .filter(|(_, e)| e.half_width.is_finite())
    };
    let top = usable().max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let knee = axis
        .ordered()
        .then(|| points.iter().find(|p| good.contains(&p.cell)))
        .flatten()
        .map(|p| p.value.clone());
    AxisCurve {
        axis,
        best: top.map(|(p, _)| p.value.clone()),
        knee,
        points,
    }
}

/// USL fits of each bulk size's clients row, the other settings held at `through`'s.
fn usl_rows(cells: &[Cell], through: usize) -> Vec<UslRow> {
    let origin = &cells[through].params;
    let mut bulks: Vec<usize> = cells.iter().map(|c| c.params.bulk_docs).collect();
    bulks.sort_unstable();
    bulks.dedup();
    bulks
        .into_iter()
        .filter_map(|bulk_docs| {
            let mut points: Vec<(usize, f64)> = cells
                .iter()
                .filter(|c| {
                    c.params.bulk_docs == bulk_docs
                        && !c.failed()
                        && c.params
                            .same_except(origin, &[Axis::BulkDocs, Axis::Clients])
                })
                .filter_map(|c| Some((c.params.clients, c.docs_per_sec?.median)))
                .collect();
            points.sort_unstable_by_key(|p| p.0);
            let fit = fit_usl(
                &points
                    .iter()
                    .map(|&(n, x)| (n as f64, x))
                    .collect::<Vec<_>>(),
            )?;
            Some(UslRow {
                bulk_docs,
                points,
                fit,
            })
        })
        .collect()
}

fn rate(x: f64) -> String {
    let n = x.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `12,345 ± 2.1 %` (or `12,345 (1 run)`).
pub fn format_estimate(e: &Estimate) -> String {
    if e.half_width.is_finite() {
        format!("{} ± {:.1} %", rate(e.median), e.half_width_pct)
    } else {
        format!("{} (1 run)", rate(e.median))
    }
}

/// The answer for these cells, made in these `rounds` (the cells run in each round, in order;
/// empty when not known).
pub fn answer(cells: &[Cell], rounds: &[Vec<usize>]) -> Answer {
    let per_round = by_round(cells, rounds);
    let (best, good) = good_enough(cells, &per_round);
    let recommended = cheapest(cells, &good);
    let Some(rec) = recommended else {
        return Answer {
            best,
            recommended,
            paired: None,
            curves: Vec::new(),
            usl: Vec::new(),
            why: "no cell finished cleanly: nothing to recommend (see the failed cells)".into(),
        };
    };
    let through = |at: usize| -> (Vec<AxisCurve>, Vec<UslRow>) {
        let curves = AXES
            .iter()
            .filter(|&&a| cells[at].params.value(a).is_some())
            .map(|&a| curve(cells, at, a, &good))
            .filter(|c| c.points.len() > 1)
            .collect();
        (curves, usl_rows(cells, at))
    };
    // Intervals wider than the sweep's target cannot tell the cells apart: a cheap cell then
    // "overlaps" the fastest only because both are vague. That is no answer, and says so.
    let top = best.unwrap_or(rec);
    // Round by round the two were told apart whatever each one's own interval: the drift
    // that widened those cancels in the rounds' ratios.
    let pair = (rec != top).then(|| paired(&per_round, top, rec)).flatten();
    // The fastest recommended: decided by pairs when every cheaper clean cell was set against
    // it round by round (and found slower).
    let cheaper: Vec<usize> = (0..cells.len())
        .filter(|&i| !cells[i].failed() && cells[i].docs_per_sec.is_some())
        .filter(|&i| cells[i].params.cost() < cells[rec].params.cost())
        .collect();
    let decided = pair.is_some()
        || (rec == top
            && !cheaper.is_empty()
            && cheaper
                .iter()
                .all(|&c| paired(&per_round, top, c).is_some()));
    let vague: Vec<usize> = [top, rec]
        .into_iter()
        .filter(|&i| !cells[i].converged && !decided)
        .fold(Vec::new(), |mut v, i| {
            if !v.contains(&i) {
                v.push(i);
            }
            v
        });
    if !vague.is_empty() {
        let (mut curves, usl) = through(top);
        // No answer, so no axis has a best or a knee either: the same intervals that cannot
        // tell the cells apart cannot place them.
        for c in &mut curves {
            (c.best, c.knee) = (None, None);
        }
        let said: Vec<String> = vague
            .iter()
            .filter_map(|&i| {
                let e = cells[i].docs_per_sec?;
                Some(format!(
                    "{} {} docs/s",
                    cells[i].params.label(),
                    format_estimate(&e)
                ))
            })
            .collect();
        return Answer {
            best,
            recommended: None,
            paired: None,
            curves,
            usl,
            why: format!(
                "not enough data: {} missed the sweep's interval target, so the cells cannot be \
                 told apart from noise; raise --max-repeats or --docs (or --run-secs).",
                said.join(" and ")
            ),
        };
    }
    let (curves, usl) = through(rec);
    let mut why = explain(cells, top, rec, &curves, &usl);
    if rec == top && decided {
        why.push_str(
            " Round by round (Student's paired t over the rounds they ran in together), every \
             cheaper cell falls short beyond the noise.",
        );
    }
    if let Some(p) = pair {
        why.push_str(&format!(
            " Round by round (Student's paired t over the {} rounds both ran in), it is {:+.1} %              [{:+.1}, {:+.1}] of the fastest: not slower beyond the noise.",
            p.rounds, p.diff_pct, p.low_pct, p.high_pct
        ));
    }
    Answer {
        best,
        recommended,
        paired: pair,
        curves,
        usl,
        why,
    }
}

fn explain(
    cells: &[Cell],
    best: usize,
    rec: usize,
    curves: &[AxisCurve],
    usl: &[UslRow],
) -> String {
    let (r, b) = (&cells[rec], &cells[best]);
    let (Some(re), Some(be)) = (r.docs_per_sec, b.docs_per_sec) else {
        return String::new();
    };
    let mut why = if rec == best {
        format!(
            "{} is the fastest clean cell ({} docs/s), and no cheaper cell comes within its interval.",
            r.params.label(),
            format_estimate(&re)
        )
    } else {
        format!(
            "{} ({} docs/s) is within the interval of the fastest cell, {} ({} docs/s), at a lower cost: \
             more clients or larger requests buy nothing this sweep can tell from noise.",
            r.params.label(),
            format_estimate(&re),
            b.params.label(),
            format_estimate(&be)
        )
    };
    let knees: Vec<String> = curves
        .iter()
        .filter_map(|c| {
            let knee = c.knee.as_ref()?;
            let last = c.points.last()?;
            (knee != &last.value)
                .then(|| format!("{} past {knee}", c.axis.name().replace('_', " ")))
        })
        .collect();
    if !knees.is_empty() {
        why.push_str(&format!(
            " Throughput stops growing beyond the noise with {}.",
            knees.join(" and ")
        ));
    }
    if let Some(row) = usl.iter().find(|u| u.bulk_docs == r.params.bulk_docs) {
        let f = &row.fit;
        let peak = match f.peak_clients {
            Some(n) => format!("a peak near {n:.0} clients"),
            None => format!(
                "no peak, a ceiling near {} docs/s",
                rate(f.lambda / f.sigma.max(1e-9))
            ),
        };
        why.push_str(&format!(
            " On the clients axis at bulk {}, the USL fit gives contention σ = {:.3} and coherency κ = {:.4} ({peak}).",
            row.bulk_docs, f.sigma, f.kappa
        ));
    }
    why
}

/// A whole sweep: what ran, in which order, each cell, and the answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepResult {
    /// The `sweep=<id>` tag of every run of the sweep.
    pub id: String,
    pub workload: String,
    /// Documents each run loads (`--docs`); with `run_secs`, the sizing runs' count, and
    /// each cell's own count is in the cell.
    pub docs_per_run: u64,
    /// Each cell's runs sized to last about this long (see the cells' `docs_per_run`).
    pub run_secs: Option<f64>,
    pub seed: u64,
    /// The engine we started (none for a cluster given by URL).
    pub engine: Option<String>,
    pub target_url: String,
    pub product: Option<String>,
    pub engine_version: Option<String>,
    pub grid: Grid,
    /// Target half-width of each cell's interval, in percent of its median.
    pub ci_pct: f64,
    pub min_repeats: usize,
    pub max_repeats: usize,
    /// Seed of the shuffled order of each round.
    pub order_seed: u64,
    /// Warm-up of each run (not measured).
    pub warmup_secs: f64,
    /// Unmeasured runs made before the first round (the engine's JVM warms up across runs).
    pub warmup_runs: usize,
    /// The cells run in each round, in order (indexes into `cells`).
    pub rounds: Vec<Vec<usize>>,
    pub cells: Vec<Cell>,
    pub answer: Answer,
    pub started_unix: u64,
    pub wall_secs: f64,
    /// Stopped by the caller (Ctrl-C): the cells show the runs that finished.
    pub interrupted: bool,
    /// How much the level moved from the first third of the runs to the last.
    pub drift: Option<Drift>,
    pub warnings: Vec<String>,
}

impl SweepResult {
    /// The cells on the front of docs/s against time to searchable: clean cells whose
    /// documents were probed, none of which another beats on both (more docs/s, and
    /// searchable sooner at p99 with no larger share never searchable). A cell whose
    /// documents never became searchable (refresh off) counts as never, so it is on the front
    /// only by its docs/s. In the order of their docs/s, fastest first.
    pub fn freshness_front(&self) -> Vec<usize> {
        // (docs/s, share never searchable, p99 or infinite).
        let point = |c: &Cell| -> Option<(f64, f64, f64)> {
            let rate = c.docs_per_sec?.median;
            let unseen = c.not_searchable_pct?;
            Some((rate, unseen, c.searchable_p99_s.unwrap_or(f64::INFINITY)))
        };
        let points: Vec<(usize, (f64, f64, f64))> = self
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.failed())
            .filter_map(|(i, c)| Some((i, point(c)?)))
            .collect();
        let beats = |a: &(f64, f64, f64), b: &(f64, f64, f64)| {
            a.0 >= b.0 && a.1 <= b.1 && a.2 <= b.2 && (a.0 > b.0 || a.1 < b.1 || a.2 < b.2)
        };
        let mut front: Vec<(usize, f64)> = points
            .iter()
            .filter(|(_, p)| !points.iter().any(|(_, q)| beats(q, p)))
            .map(|(i, p)| (*i, p.0))
            .collect();
        front.sort_by(|a, b| b.1.total_cmp(&a.1));
        front.into_iter().map(|(i, _)| i).collect()
    }

    /// Why some cells show no p99: their runs made too few requests for one. `None` when
    /// every cell with a p50 has its p99.
    pub fn why_no_p99(&self) -> Option<String> {
        let short: Vec<String> = self
            .cells
            .iter()
            .filter(|c| c.service_p50_ms.is_some() && c.service_p99_ms.is_none())
            .map(|c| c.params.label())
            .collect();
        let (first, more) = short.split_at(short.len().min(3));
        let first = first.join(", ");
        (!short.is_empty()).then(|| {
            format!(
                "no p99 (-) in {}{}: {} made fewer than {P99_MIN_REQUESTS} bulk requests \
                 each, and a run gives its p99 from {P99_MIN_REQUESTS} requests on; load more \
                 documents a run (--docs, --run-secs) or sweep smaller bulk sizes",
                first,
                if more.is_empty() {
                    String::new()
                } else {
                    format!(" and {} more cell(s)", more.len())
                },
                if short.len() == 1 {
                    "its runs"
                } else {
                    "their runs"
                }
            )
        })
    }
}

/// Cells and results made as the session makes them, for the tests of the sweep's views.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    pub fn params(bulk_docs: usize, clients: usize) -> CellParams {
        CellParams {
            bulk_docs,
            clients,
            bulk_bytes: None,
            shards: None,
            refresh_interval: None,
            translog_durability: None,
            replicas: None,
            gzip: None,
        }
    }

    pub fn run(docs_per_sec: f64) -> RunFigures {
        RunFigures {
            run_id: None,
            docs_per_sec,
            service_p50_ms: Some(1.0),
            service_p99_ms: Some(2.0),
            throttled: 0,
            pushback: 0,
            failed_docs: 0,
            error: None,
            engine_cpu_us_per_doc: None,
            driver_cpu_us_per_doc: None,
            driver_machine_share: 0.0,
            wall_secs: 1.0,
            searchable_p99_s: None,
            not_searchable_pct: None,
        }
    }

    pub fn cell(bulk: usize, clients: usize, values: &[f64]) -> Cell {
        let mut c = Cell::new(params(bulk, clients));
        for &v in values {
            c.add(run(v), 5.0);
        }
        c
    }

    /// A sweep's result of `cells`, as the session makes it.
    pub fn result_of(cells: Vec<Cell>) -> SweepResult {
        SweepResult {
            id: "s".into(),
            workload: "logs".into(),
            docs_per_run: 100_000,
            run_secs: None,
            seed: 1,
            engine: None,
            target_url: String::new(),
            product: None,
            engine_version: None,
            grid: Grid::default(),
            ci_pct: 5.0,
            min_repeats: 3,
            max_repeats: 3,
            order_seed: 1,
            warmup_secs: 0.0,
            warmup_runs: 0,
            rounds: Vec::new(),
            answer: answer(&cells, &[]),
            cells,
            started_unix: 0,
            wall_secs: 1.0,
            interrupted: false,
            drift: None,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn an_estimate_of_one_run_reads_back_unbounded() {
        let e = Estimate::of(&[100.0]).unwrap();
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.contains("\"high\":null"), "{text}");
        let back: Estimate = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.low, f64::NEG_INFINITY);
    }
    #[test]
    fn intervals_wider_than_the_target_are_not_enough_data_not_an_answer() {
        // Bulk 100 × 1 client at 5,231 ± 42 % once was "recommended" beside 16,995: both
        // vague, so they "overlapped".
        let cells = vec![
            cell(100, 1, &[3500.0, 5231.0, 7000.0]),
            cell(1000, 4, &[9000.0, 16_995.0, 25_000.0]),
        ];
        let a = answer(&cells, &[]);
        assert_eq!(a.recommended, None, "{}", a.why);
        assert_eq!(a.best, Some(1));
        // Nothing is marked fastest, and no axis has a best or a knee the answer lacks.
        assert_eq!(a.fastest(), None);
        assert!(a
            .curves
            .iter()
            .all(|c| c.best.is_none() && c.knee.is_none()));
        assert!(
            a.why.starts_with("not enough data") && a.why.contains("--max-repeats"),
            "{}",
            a.why
        );
        // Narrow intervals answer as before.
        let cells = vec![
            cell(100, 1, &[1000.0, 1010.0, 990.0]),
            cell(100, 4, &[3000.0, 3030.0, 2970.0]),
        ];
        assert_eq!(answer(&cells, &[]).recommended, Some(1));
    }

    #[test]
    fn cells_run_round_by_round_are_told_apart_by_their_rounds_ratios() {
        // A machine whose level swings by a third from round to round, five rounds of two
        // cells: 1 client always 8 % behind 4 clients in its round. Each cell's own interval
        // is wide (the swing), so they overlap and the cheap one would be recommended; round
        // by round 1 client is slower every time, and 4 clients is the answer.
        let level = [10_000.0, 13_000.0, 8_000.0, 12_000.0, 7_500.0];
        let wobble = [1.0, 1.004, 0.997, 1.002, 0.999];
        let one: Vec<f64> = level
            .iter()
            .zip(wobble)
            .map(|(l, w)| l * 0.92 * w)
            .collect();
        let four: Vec<f64> = level
            .iter()
            .zip(wobble.iter().rev())
            .map(|(l, w)| l * w)
            .collect();
        let cells = vec![cell(500, 1, &one), cell(500, 4, &four)];
        let rounds: Vec<Vec<usize>> = (0..5)
            .map(|r| if r % 2 == 0 { vec![0, 1] } else { vec![1, 0] })
            .collect();
        // Without their rounds: overlapping intervals, the cheap cell (or no answer).
        let unpaired = answer(&cells, &[]);
        assert_ne!(unpaired.recommended, Some(1), "{}", unpaired.why);
        let a = answer(&cells, &rounds);
        assert_eq!(a.recommended, Some(1), "{}", a.why);
        assert_eq!(a.best, Some(1));
        // The same cells, 4 clients only 0.2 % ahead in every round but by the swing's noise
        // otherwise: as good, so the cheaper cell, and said with its rounds.
        let close: Vec<f64> = four
            .iter()
            .zip([0.99, 1.012, 0.985, 1.01, 1.004])
            .map(|(f, n)| f * 0.998 * n)
            .collect();
        let cells = vec![cell(500, 1, &close), cell(500, 4, &four)];
        let a = answer(&cells, &rounds);
        let p = paired(&by_round(&cells, &rounds), 1, 0).expect("five rounds paired");
        assert_eq!(p.rounds, 5);
        assert!(p.low_pct < 0.0 && p.high_pct > 0.0, "{p:?}");
        assert_eq!(a.best, Some(1), "{}", a.why);
        assert_eq!(a.recommended, Some(0), "{}", a.why);
        assert!(a.why.contains("Round by round"), "{}", a.why);
        assert_eq!(a.paired, Some(p));
    }

    #[test]
    fn a_cell_beaten_beyond_both_intervals_is_never_recommended() {
        // The best cell's wide interval reaches the cheap one's, but a third cell is above
        // the cheap one beyond both intervals.
        let cells = vec![
            cell(100, 1, &[1900.0, 2000.0, 2100.0]),
            cell(100, 4, &[5400.0, 5500.0, 5600.0]),
            cell(100, 16, &[3000.0, 6000.0, 9000.0]),
        ];
        let (best, rec) = recommend(&cells, &[]);
        assert_eq!(best, Some(2));
        assert_eq!(
            rec,
            Some(1),
            "1 client is beaten by 4 beyond both intervals"
        );
    }

    #[test]
    fn drift_compares_the_last_third_of_the_runs_with_the_first() {
        // Three cells at 100, 200 and 400 docs/s, six rounds in which every run loses 5 % to
        // the one before (a machine slowing down), and the same without the slide.
        let drifted = |slide: f64| {
            let rounds: Vec<Vec<usize>> = (0..6)
                .map(|r| {
                    if r % 2 == 0 {
                        vec![0, 1, 2]
                    } else {
                        vec![2, 0, 1]
                    }
                })
                .collect();
            let mut cells = vec![
                Cell::new(params(10, 1)),
                Cell::new(params(100, 1)),
                Cell::new(params(1000, 1)),
            ];
            let mut level = 1.0;
            for &i in rounds.iter().flatten() {
                cells[i].add(run([100.0, 200.0, 400.0][i] * level), 5.0);
                level *= 1.0 - slide;
            }
            drift(&cells, &rounds).expect("18 runs")
        };
        let d = drifted(0.05);
        assert_eq!(d.runs_per_third, 6);
        // Run 3 of 18 against run 15 of 18: 0.95^12 = 0.54.
        assert!((d.pct - (-46.0)).abs() < 3.0, "{d:?}");
        let flat = drifted(0.0);
        assert!(flat.pct.abs() < 1e-9, "{flat:?}");
        // Too few runs to tell.
        let few = vec![cell(10, 1, &[1.0, 2.0]), cell(10, 4, &[3.0, 4.0])];
        assert!(drift(&few, &[vec![0, 1], vec![1, 0]]).is_none());
    }

    #[test]
    fn interval_is_t_times_standard_error_around_the_median() {
        let e = Estimate::of(&[100.0, 110.0, 90.0]).expect("estimate");
        assert_eq!(e.median, 100.0);
        // s = 10, n = 3: 4.303 × 10 / √3.
        assert!((e.half_width - 4.303 * 10.0 / 3f64.sqrt()).abs() < 1e-9);
        assert!(Estimate::of(&[5.0]).expect("one").half_width.is_infinite());
    }

    #[test]
    fn recommends_the_cheapest_cell_within_the_best_cells_interval() {
        let cells = vec![
            cell(100, 1, &[1000.0, 1010.0, 990.0]),
            cell(100, 4, &[3000.0, 3030.0, 2970.0]),
            // Best, but 16 clients: 4 clients at bulk 1000 overlaps it.
            cell(100, 16, &[3400.0, 3450.0, 3350.0]),
            cell(1000, 4, &[3300.0, 3400.0, 3200.0]),
            cell(1000, 16, &[3350.0, 3300.0, 3400.0]),
        ];
        let (best, rec) = recommend(&cells, &[]);
        assert_eq!(best, Some(2));
        assert_eq!(
            rec,
            Some(3),
            "fewer clients first, even with larger requests"
        );
        // Among equal clients, the smaller request.
        let cells = vec![
            cell(1000, 4, &[3000.0, 3010.0, 2990.0]),
            cell(100, 4, &[2990.0, 3000.0, 3010.0]),
        ];
        assert_eq!(recommend(&cells, &[]).1, Some(1));
    }

    #[test]
    fn a_cell_with_failures_is_never_recommended() {
        let mut fast = cell(1000, 1, &[9000.0, 9000.0]);
        let mut bad = run(9100.0);
        bad.failed_docs = 3;
        fast.add(bad, 5.0);
        let cells = vec![fast, cell(10, 1, &[500.0, 505.0])];
        let (best, rec) = recommend(&cells, &[]);
        assert_eq!((best, rec), (Some(1), Some(1)));
        assert!(
            !cells[0].needs_more(3, 10),
            "a failed cell gets no more rounds"
        );
        // One run has no interval: it can be neither best nor recommended.
        let once = vec![cell(10, 1, &[500.0, 505.0]), cell(1000, 1, &[9000.0])];
        assert_eq!(recommend(&once, &[]), (Some(0), Some(0)));
        let all_failed = vec![cells[0].clone()];
        assert_eq!(recommend(&all_failed, &[]), (None, None));
        assert!(answer(&all_failed, &[])
            .why
            .contains("nothing to recommend"));
    }

    #[test]
    fn adaptive_rounds_stop_at_the_width_or_the_limit() {
        let tight = cell(100, 1, &[1000.0, 1001.0, 999.0]);
        assert!(!tight.needs_more(3, 10));
        assert!(tight.needs_more(4, 10), "below --min-repeats");
        let wide = cell(100, 1, &[1000.0, 1400.0, 700.0]);
        assert!(wide.needs_more(3, 10));
        assert!(!wide.needs_more(3, 3), "--max-repeats reached");
    }

    /// A knee at the smallest bulk size and client count once sat beside a recommendation of
    /// more of both: the knee of an axis through the recommended cell is its value.
    #[test]
    fn a_knee_never_says_less_than_the_recommendation() {
        let cells = vec![
            // Bulk 100 is within the interval of bulk 2000 at 4 clients, not of the fastest
            // cell: the old knee of the bulk axis said 100, the recommendation 2000.
            cell(100, 4, &[2930.0, 2940.0, 2920.0]),
            cell(2000, 4, &[2960.0, 2970.0, 2950.0]),
            cell(2000, 8, &[3000.0, 3010.0, 2990.0]),
        ];
        let a = answer(&cells, &[]);
        let rec = a.recommended.expect("an answer");
        assert_eq!(rec, 1, "{}", a.why);
        let p = &cells[rec].params;
        assert_eq!(a.curves.len(), 2);
        for c in &a.curves {
            assert_eq!(c.knee, p.value(c.axis), "{:?}: {}", c.axis, a.why);
        }
    }

    #[test]
    fn the_freshness_front_keeps_the_cells_none_beats_on_both_docs_per_sec_and_time_to_searchable()
    {
        let probed = |bulk, rate: f64, p99: Option<f64>, unseen: f64| {
            let mut c = cell(bulk, 2, &[rate, rate, rate]);
            (c.searchable_p99_s, c.not_searchable_pct) = (p99, Some(unseen));
            c
        };
        let cells = vec![
            probed(100, 1000.0, Some(1.4), 0.0),  // the freshest
            probed(200, 1500.0, Some(5.3), 0.0),  // faster, staler: on the front
            probed(300, 1200.0, Some(5.5), 0.0),  // slower and staler than 200: off
            probed(400, 1800.0, None, 100.0),     // refresh off: the fastest, never searchable
            probed(500, 1700.0, None, 100.0),     // never, and slower: off
            cell(600, 2, &[900.0, 900.0, 900.0]), // not probed: not judged
        ];
        let r = result_of(cells);
        assert_eq!(r.freshness_front(), [3, 1, 0]);
        // A failed cell is never on it: the next fastest never-searchable cell takes its place.
        let mut failed = r.cells.clone();
        failed[3].failed_runs = 1;
        assert_eq!(result_of(failed).freshness_front(), [4, 1, 0]);
    }

    #[test]
    fn a_cell_without_p99_says_its_runs_made_too_few_requests() {
        let mut short = cell(2000, 4, &[3000.0, 3010.0, 2990.0]);
        (short.service_p50_ms, short.service_p99_ms) = (Some(20.0), None);
        let mut long = cell(100, 4, &[2900.0, 2910.0, 2890.0]);
        (long.service_p50_ms, long.service_p99_ms) = (Some(5.0), Some(9.0));
        let why = result_of(vec![short, long.clone()])
            .why_no_p99()
            .expect("a reason");
        assert!(
            why.contains("bulk 2000 × 4 clients") && why.contains("fewer than 100 bulk requests"),
            "{why}"
        );
        assert_eq!(result_of(vec![long]).why_no_p99(), None);
    }

    #[test]
    fn knee_and_answer_along_the_clients_axis() {
        let cells = vec![
            cell(100, 1, &[1000.0, 1000.0, 1000.0]),
            cell(100, 2, &[1900.0, 1900.0, 1900.0]),
            cell(100, 4, &[3000.0, 3010.0, 2990.0]),
            cell(100, 8, &[3020.0, 3000.0, 3010.0]),
        ];
        let a = answer(&cells, &[]);
        assert_eq!(a.recommended, Some(2));
        let clients = a
            .curves
            .iter()
            .find(|c| c.axis == Axis::Clients)
            .expect("clients curve");
        assert_eq!(clients.knee.as_deref(), Some("4"));
        assert_eq!(a.fastest(), Some(3));
        assert_eq!(a.usl.len(), 1);
        assert!(a.why.contains("bulk 100 × 4 clients"), "{}", a.why);
        assert!(a.why.contains("clients past 4"), "{}", a.why);
        assert!(a.why.contains("σ ="), "{}", a.why);
    }
}
