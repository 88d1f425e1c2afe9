//! Terminal rendering of a sweep: one line per run while it goes; then the heatmap table
//! (bulk size rows × clients columns, per combination of the other axes), every cell's
//! figures, the knees, the USL fits and the recommendation.

use super::table;
use crate::analysis::sweep::{format_estimate, Cell, CellParams, SweepResult, AXES};
use crate::session::sweep::Tick;

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.digits$}"))
}

/// One finished run, on stderr.
pub fn tick(t: &Tick<'_>) {
    let cell = match t.cell.docs_per_sec {
        Some(e) if e.runs > 1 => format!("cell {} over {} runs", format_estimate(&e), e.runs),
        Some(_) => "first run of the cell".into(),
        None => "cell: no clean run".into(),
    };
    let run = match &t.run.error {
        Some(e) => format!("failed: {e}"),
        None if t.run.failed_docs > 0 => format!(
            "{:.0} docs/s, {} documents failed",
            t.run.docs_per_sec, t.run.failed_docs
        ),
        None => format!("{:.0} docs/s", t.run.docs_per_sec),
    };
    errln!(
        "round {} [{}/{}] {}: {run} ({cell})",
        t.round,
        t.position,
        t.of,
        t.cell.params.label()
    );
}

/// The other axes' values of a cell: one heatmap per distinct combination.
fn panel_key(p: &CellParams) -> Vec<Option<String>> {
    AXES[2..].iter().map(|&a| p.value(a)).collect()
}

fn panel_label(p: &CellParams) -> String {
    AXES[2..]
        .iter()
        .filter_map(|&a| Some(format!("{} {}", a.name().replace('_', " "), p.value(a)?)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn mark(r: &SweepResult, i: usize) -> &'static str {
    let c = &r.cells[i];
    if c.failed() {
        " ✗ failed"
    } else if r.answer.recommended == Some(i) {
        " ◆ recommended"
    } else if r.answer.fastest() == Some(i) {
        " ★ best"
    } else {
        ""
    }
}

fn heat(c: &Cell) -> String {
    match (c.failed(), c.docs_per_sec) {
        (true, _) if c.docs_per_sec.is_none() => "failed".into(),
        (_, Some(e)) => format_estimate(&e),
        (_, None) => "-".into(),
    }
}

pub fn print(r: &SweepResult) {
    let mut clients: Vec<usize> = r.cells.iter().map(|c| c.params.clients).collect();
    clients.sort_unstable();
    clients.dedup();
    let mut bulks: Vec<usize> = r.cells.iter().map(|c| c.params.bulk_docs).collect();
    bulks.sort_unstable();
    bulks.dedup();
    let mut panels: Vec<Vec<Option<String>>> = Vec::new();
    for c in &r.cells {
        let k = panel_key(&c.params);
        if !panels.contains(&k) {
            panels.push(k);
        }
    }
    let docs = match r.run_secs {
        Some(s) => format!("runs sized to ~{s:.0} s each"),
        None => format!("{} documents a run", r.docs_per_run),
    };
    outln!(
        "\ndocs/s: median of the runs ± 95 % half-width ({docs}, {:.0} s warm-up excluded)",
        r.warmup_secs
    );
    for key in &panels {
        let in_panel: Vec<usize> = (0..r.cells.len())
            .filter(|&i| &panel_key(&r.cells[i].params) == key)
            .collect();
        let Some(&first) = in_panel.first() else {
            continue;
        };
        let label = panel_label(&r.cells[first].params);
        if !label.is_empty() {
            outln!("{label}");
        }
        let mut t = table(
            std::iter::once("bulk size \\ clients".to_string())
                .chain(clients.iter().map(|c| c.to_string())),
        );
        for &b in &bulks {
            let mut row = vec![b.to_string()];
            for &n in &clients {
                let cell = in_panel
                    .iter()
                    .copied()
                    .find(|&i| r.cells[i].params.bulk_docs == b && r.cells[i].params.clients == n);
                row.push(cell.map_or_else(String::new, |i| {
                    format!("{}{}", heat(&r.cells[i]), mark(r, i))
                }));
            }
            t.add_row(row);
        }
        outln!("{t}");
    }
    let mut t = table([
        "cell",
        "docs/s",
        "runs × docs",
        "service p50 ms",
        "p99 ms",
        "429s",
        "failed docs",
        "engine CPU µs/doc",
        "driver CPU µs/doc",
    ]);
    for (i, c) in r.cells.iter().enumerate() {
        t.add_row([
            format!("{}{}", c.params.label(), mark(r, i)),
            heat(c),
            format!(
                "{} × {}{}",
                c.runs.len(),
                c.docs_per_run,
                if c.converged || c.failed() {
                    ""
                } else {
                    " (wide)"
                }
            ),
            opt(c.service_p50_ms, 1),
            opt(c.service_p99_ms, 1),
            c.throttled.to_string(),
            if c.failed_runs > 0 {
                format!("{} ({} run(s) failed)", c.failed_docs, c.failed_runs)
            } else {
                c.failed_docs.to_string()
            },
            opt(c.engine_cpu_us_per_doc, 1),
            opt(c.driver_cpu_us_per_doc, 2),
        ]);
    }
    outln!("{t}");
    if let Some(why) = r.why_no_p99() {
        sayln!("{why}");
    }
    freshness_front(r);
    if !r.answer.curves.is_empty() {
        // With no recommendation (not enough data) the curves go through the fastest cell.
        let through = if r.answer.recommended.is_some() {
            "axis (through the recommended cell)"
        } else {
            "axis (through the fastest cell)"
        };
        let mut t = table([through, "curve (docs/s)", "best", "knee"]);
        for c in &r.answer.curves {
            let curve = c
                .points
                .iter()
                .map(|p| {
                    let v = p
                        .estimate
                        .map_or_else(|| "-".into(), |e| format!("{:.0}", e.median));
                    format!(
                        "{}: {v}{}",
                        p.value,
                        if p.failed { " (failed)" } else { "" }
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            t.add_row([
                c.axis.name().replace('_', " "),
                curve,
                c.best.clone().unwrap_or_else(|| "-".into()),
                if c.axis.ordered() {
                    c.knee.clone().unwrap_or_else(|| "-".into())
                } else {
                    "(not ordered)".into()
                },
            ]);
        }
        outln!("{t}");
        if r.answer.recommended.is_none() {
            sayln!("no axis has a best or a knee: the intervals that cannot tell the cells apart cannot place them either");
        }
    }
    if !r.answer.usl.is_empty() {
        let mut t = table([
            "USL on clients, bulk size",
            "λ docs/s (1 client)",
            "σ contention",
            "κ coherency",
            "peak N*",
            "fit rms",
        ]);
        for u in &r.answer.usl {
            t.add_row([
                u.bulk_docs.to_string(),
                format!("{:.0}", u.fit.lambda),
                format!("{:.4}", u.fit.sigma),
                format!("{:.5}", u.fit.kappa),
                u.fit
                    .peak_clients
                    .map_or_else(|| "none".into(), |n| format!("{n:.1}")),
                format!("{:.1} %", u.fit.rms_pct),
            ]);
        }
        outln!("{t}");
    }
    match r.answer.recommended {
        Some(i) => outln!("recommended: {}", r.cells[i].params.label()),
        None => outln!("recommended: none"),
    }
    outln!("{}", r.answer.why);
    let runs: usize = r.cells.iter().map(|c| c.runs.len()).sum();
    let wide = r
        .cells
        .iter()
        .filter(|c| !c.converged && !c.failed())
        .count();
    outln!(
        "sweep {}: {} cells, {runs} runs in {} round(s), {:.1} min{}{}; runs tagged sweep={}",
        r.id,
        r.cells.len(),
        r.rounds.len(),
        r.wall_secs / 60.0,
        if wide > 0 {
            format!(
                ", {wide} cell(s) still wider than ±{} % after {} runs",
                r.ci_pct, r.max_repeats
            )
        } else {
            String::new()
        },
        if r.interrupted { " (interrupted)" } else { "" },
        r.id
    );
    for w in &r.warnings {
        errln!("warning: {w}");
    }
}

/// What each cell trades: the cells no other beats on both docs/s and time to searchable.
fn freshness_front(r: &SweepResult) {
    let probed = r
        .cells
        .iter()
        .filter(|c| c.not_searchable_pct.is_some())
        .count();
    if probed == 0 {
        return;
    }
    let front = r.freshness_front();
    outln!(
        "docs/s against time to searchable (p99): {} of {probed} probed cell(s) on the front, \
         none beaten on both",
        front.len()
    );
    for i in front {
        let c = &r.cells[i];
        let searchable = match (c.searchable_p99_s, c.not_searchable_pct) {
            (Some(p99), Some(pct)) if pct > 0.0 => {
                format!("searchable p99 {p99:.2} s, {pct:.1} % not within the bound")
            }
            (Some(p99), _) => format!("searchable p99 {p99:.2} s"),
            (None, _) => "never searchable within the bound".to_string(),
        };
        outln!(
            "  {}: {} docs/s, {searchable}{}",
            c.params.label(),
            c.docs_per_sec
                .map_or_else(|| "-".to_string(), |e| format!("{:.0}", e.median)),
            mark(r, i)
        );
    }
}
