//! Searches under write beside idle, cell by cell (`--beside-idle`): derived from the stored
//! cells, idle and under write, by this one function, which every view reads (the terminal's
//! table, the metrics, the run's page).
//!
//! Each pass ran both halves side by side, so the change from idle to under write is judged
//! pass by pass: each pass's mean wall per coverage under write against its idle half's, a
//! paired t interval over the passes ([`paired_diff`]), as rounds are in `compare`. What the
//! machine did that minute falls on both halves of the pass and cancels in its ratio.

use std::collections::BTreeMap;

use serde::Serialize;

use super::statistics::{mean, paired_diff, Interval};
use crate::query::cells::CellResult;
use crate::query::{QueryResult, Transport, Variant};

/// One side of a cell: its error-free coverages' wall.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Side {
    /// Error-free coverages measured.
    pub n: usize,
    pub mean_ms: f64,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

impl Side {
    fn of(c: &CellResult) -> Side {
        let ms = |us: u64| us as f64 / 1e3;
        let hdr = Some(&c.service_hdr).filter(|h| h.count > 0);
        Side {
            n: c.wall_ms.n,
            mean_ms: c.wall_ms.mean,
            p50_ms: hdr.map(|h| ms(h.p50_us)),
            p99_ms: hdr.map(|h| ms(h.p99_us)),
        }
    }
}

/// A cell idle and under write.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnderWrite {
    pub variant: Variant,
    pub transport: Transport,
    pub shards: Option<u32>,
    pub idle: Side,
    pub write: Side,
    /// Mean wall under write ÷ idle.
    pub ratio: Option<f64>,
    /// The change from idle to under write in percent, 95 %, paired pass by pass (`None`
    /// under two passes with both halves).
    pub change: Option<Interval>,
    /// Passes with error-free coverages on both halves.
    pub passes: usize,
    /// Failed searches under write.
    pub errors: u64,
}

/// The heading of the table every view shows.
pub fn heading(unit: &str) -> String {
    format!("Under write beside idle (wall per {unit}, ms)")
}

/// What the table's change column is, under it in every view.
pub const NOTE: &str = "each pass ran idle and under write side by side (the writes paused for \
     the idle half); the change is the mean wall under write against idle, a paired t interval \
     (95 %) over the passes: an interval clear of 0 is a slowdown (or a speed-up) beyond the \
     passes' noise";

impl UnderWrite {
    /// The change in words: `+48.0 % (+31.2 … +66.9)`; without an interval, why.
    pub fn change_text(&self) -> String {
        let Some(ratio) = self.ratio else {
            return "-".into();
        };
        let pct = (ratio - 1.0) * 100.0;
        match self.change {
            Some(i) => format!("{pct:+.1} % ({:+.1} … {:+.1})", i.low_pct, i.high_pct),
            None => format!("{pct:+.1} % (no interval: {} pass(es))", self.passes),
        }
    }
}

/// Every cell measured under write beside its idle cell, in the order of the idle cells.
pub fn of(r: &QueryResult) -> Vec<UnderWrite> {
    r.cells
        .iter()
        .filter_map(|idle| {
            let write = r.write_cells.iter().find(|w| {
                w.variant == idle.variant
                    && w.transport == idle.transport
                    && w.shards == idle.shards
            })?;
            let pairs = pass_pairs(idle, write);
            let (i, w) = (Side::of(idle), Side::of(write));
            Some(UnderWrite {
                variant: idle.variant.clone(),
                transport: idle.transport,
                shards: idle.shards,
                ratio: (i.n > 0 && w.n > 0 && i.mean_ms > 0.0).then(|| w.mean_ms / i.mean_ms),
                change: paired_diff(&pairs),
                passes: pairs.len(),
                idle: i,
                write: w,
                errors: write.errors,
            })
        })
        .collect()
}

/// Each pass's mean wall per error-free coverage, idle and under write, for the passes that
/// have both.
fn pass_pairs(idle: &CellResult, write: &CellResult) -> Vec<(f64, f64)> {
    let by_pass = |c: &CellResult| {
        let mut walls: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for s in c.samples.iter().filter(|s| s.ok) {
            walls.entry(s.pass).or_default().push(s.wall_ms);
        }
        walls
    };
    let (idle, write) = (by_pass(idle), by_pass(write));
    idle.iter()
        .filter_map(|(pass, i)| Some((mean(i)?, mean(write.get(pass)?)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::cells::{cell_result, CoverageSample};

    fn cell(v: &str, walls: &[(u32, f64)], errors: u64) -> CellResult {
        let mut h = crate::measure::recorder::histogram();
        let samples = walls
            .iter()
            .map(|&(pass, wall_ms)| {
                let _ = h.record((wall_ms * 1e3) as u64);
                CoverageSample {
                    pass,
                    epoch: 0,
                    ok: true,
                    errors: 0,
                    took_ms: 1,
                    wall_ms,
                    latency_ms: wall_ms,
                }
            })
            .collect();
        let empty = crate::measure::recorder::histogram();
        let mut c = cell_result(
            Variant::from(v),
            Transport::Serial,
            samples,
            errors,
            Vec::new(),
            Vec::new(),
            &h,
            &h,
            &empty,
            false,
        );
        c.errors = errors;
        c
    }

    fn result(cells: Vec<CellResult>, write_cells: Vec<CellResult>) -> QueryResult {
        let mut r: QueryResult = serde_json::from_value(serde_json::json!({
            "workload": "logs", "index": "i", "passes": 3, "warmup_coverages": 0,
            "coverages": 1, "partitions": 1, "shuffle_seed": 1, "rate": null,
            "measured_secs": 1.0, "cells": [], "savings": [], "attribution": [],
            "profile_cells": [], "profile_overhead": [], "accuracy": [],
            "accuracy_checked": true, "failures_total": 0, "failures": [], "drift": null
        }))
        .expect("a query result");
        (r.cells, r.write_cells) = (cells, write_cells);
        r
    }

    #[test]
    fn a_cell_slower_under_write_in_every_pass_is_judged_pass_by_pass() {
        // The machine's level moves from pass to pass (10, 20, 15 ms idle); under write each
        // pass is half again as slow: the pairs see it through the drift.
        let idle = cell(
            "a",
            &[(1, 10.0), (1, 10.0), (2, 20.0), (2, 20.0), (3, 15.0)],
            0,
        );
        let write = cell("a", &[(1, 15.0), (2, 30.0), (2, 30.0), (3, 22.5)], 1);
        let rows = of(&result(vec![idle, cell("b", &[(1, 1.0)], 0)], vec![write]));
        assert_eq!(rows.len(), 1, "a cell without a write half has no row");
        let w = &rows[0];
        assert_eq!(w.variant, Variant::from("a"));
        assert_eq!(w.passes, 3);
        let change = w.change.expect("an interval over three passes");
        assert!(
            (change.low_pct - 50.0).abs() < 0.01 && (change.high_pct - 50.0).abs() < 0.01,
            "{change:?}"
        );
        assert!((w.idle.mean_ms - 15.0).abs() < 1e-9);
        assert!((w.write.mean_ms - 24.375).abs() < 1e-9);
        assert!((w.ratio.unwrap() - 24.375 / 15.0).abs() < 1e-9);
        assert_eq!((w.idle.n, w.write.n), (5, 4));
        assert!(w.write.p99_ms.unwrap() >= 29.9, "{:?}", w.write);
        assert_eq!(w.errors, 1);
    }

    #[test]
    fn the_change_says_its_interval_or_why_it_has_none() {
        let idle = cell("a", &[(1, 10.0), (2, 20.0)], 0);
        let write = cell("a", &[(1, 15.0), (2, 30.0)], 0);
        let w = &of(&result(vec![idle], vec![write]))[0];
        assert_eq!(w.change_text(), "+50.0 % (+50.0 … +50.0)");
        let one = &of(&result(
            vec![cell("a", &[(1, 10.0)], 0)],
            vec![cell("a", &[(1, 12.0)], 0)],
        ))[0];
        assert_eq!(one.change_text(), "+20.0 % (no interval: 1 pass(es))");
    }

    #[test]
    fn one_pass_gives_the_figures_but_no_interval() {
        let rows = of(&result(
            vec![cell("a", &[(1, 10.0)], 0)],
            vec![cell("a", &[(1, 12.0)], 0)],
        ));
        assert_eq!(rows[0].passes, 1);
        assert_eq!(rows[0].change, None);
        assert!((rows[0].ratio.unwrap() - 1.2).abs() < 1e-9);
    }

    #[test]
    fn a_run_without_writes_beside_has_no_rows() {
        assert!(of(&result(vec![cell("a", &[(1, 10.0)], 0)], Vec::new())).is_empty());
    }
}
