//! Terminal rendering of open-loop figures: an ingest at `--rate`, a saturation search, and
//! the network delay of `--rtt`.

use super::table;
use crate::cluster::delay::Rtt;
use crate::ingest::pace::{Limit, RateReport};
use crate::ingest::IngestReport;
use crate::session::saturate::SaturateResult;

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// The open-loop block of an ingest result (nothing when it was not paced).
pub fn print_ingest(r: &IngestReport) {
    print_rtt(r.rtt.as_ref());
    let Some(rate) = &r.rate else { return };
    println!(
        "open loop: offered {:.0} docs/s, achieved {} docs/s ({})",
        rate.offered_docs_per_sec,
        rate.achieved_docs_per_sec
            .map_or_else(|| "-".into(), |a| format!("{a:.0}")),
        limit_words(rate)
    );
    let mut t = table(["open loop", "p50", "p90", "p99", "max", "n"]);
    for (name, s) in [
        ("latency from due time (ms)", &rate.latency),
        ("schedule lag (ms)", &rate.schedule_lag),
    ] {
        t.add_row([
            name.to_string(),
            ms(s.p50_ms),
            ms(s.p90_ms),
            ms(s.p99_ms),
            ms(s.max_ms),
            s.count.to_string(),
        ]);
    }
    println!("{t}");
    println!(
        "{} of {} requests sent more than {} ms late; clients busy {:.0}%; driver CPU {:.0}% of a core",
        rate.late_requests,
        rate.requests,
        rate.late_after_ms,
        100.0 * rate.clients_busy,
        100.0 * rate.driver_core_share
    );
}

/// The delay `--rtt` added, if any.
pub fn print_rtt(rtt: Option<&Rtt>) {
    if let Some(rtt) = rtt {
        println!(
            "network: {} ms round trip added (jitter ±{} ms, seed {}) by a delay proxy on 127.0.0.1",
            rtt.rtt_ms, rtt.jitter_ms, rtt.seed
        );
    }
}

fn limit_words(rate: &RateReport) -> &'static str {
    match rate.limit {
        Limit::None => "kept up",
        Limit::Target => "fell behind: the cluster at this many clients",
        Limit::Driver => "fell behind: the driver is the limit",
    }
}

/// The saturation search: one row per step, then the answer.
pub fn print_saturate(r: &SaturateResult) {
    let mut t = table([
        "step",
        "offered docs/s",
        "achieved docs/s",
        "latency p50 ms",
        "latency p99 ms",
        "failed docs",
        "verdict",
    ]);
    // The curve: by offered rate, each row with its place in the search.
    let mut curve: Vec<(usize, &crate::session::saturate::Step)> =
        r.steps.iter().enumerate().collect();
    curve.sort_by(|a, b| {
        a.1.offered_docs_per_sec
            .total_cmp(&b.1.offered_docs_per_sec)
    });
    for (i, s) in curve {
        let p99 = match (s.p99_ms, s.p99_is_max) {
            (Some(p), true) => format!("{p:.1} (max, n={})", s.requests),
            (p, false) => ms(p),
            (None, true) => "-".into(),
        };
        t.add_row([
            (i + 1).to_string(),
            format!("{:.0}", s.offered_docs_per_sec),
            s.achieved_docs_per_sec
                .map_or_else(|| "-".into(), |a| format!("{a:.0}")),
            ms(s.p50_ms),
            p99,
            format!("{:.3}%", 100.0 * s.error_rate),
            match &s.why {
                None => "sustained".to_string(),
                Some(why) => format!("failed: {why}"),
            },
        ]);
    }
    println!("{t}");
    let limits = format!(
        "p99 ≤ {:.0} ms, failed ≤ {:.3}%, {} clients × bulk {}{}",
        r.p99_limit_ms,
        100.0 * r.max_error_rate,
        r.clients,
        r.bulk_size,
        r.rtt_ms
            .map(|ms| format!(", rtt {ms} ms"))
            .unwrap_or_default()
    );
    match (r.max_sustainable_docs_per_sec, r.first_failing_docs_per_sec) {
        (Some(good), Some(bad)) => println!(
            "max sustainable: {good:.0} docs/s ({limits}); {bad:.0} docs/s failed; {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
        (Some(good), None) => println!(
            "max sustainable: at least {good:.0} docs/s ({limits}); no step failed; {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
        (None, _) => println!(
            "no rate sustained ({limits}); {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
}

/// The saturation curve as a self-contained HTML page: achieved against offered (the
/// diagonal is "kept up"), and p99 latency against offered with the limit.
pub fn saturate_html(r: &SaturateResult) -> String {
    let esc = crate::report::html::esc;
    let mut steps: Vec<&crate::session::saturate::Step> = r.steps.iter().collect();
    steps.sort_by(|a, b| a.offered_docs_per_sec.total_cmp(&b.offered_docs_per_sec));
    let x_max = steps
        .iter()
        .map(|s| s.offered_docs_per_sec)
        .fold(1.0, f64::max)
        * 1.1;
    let achieved: Vec<(f64, Option<f64>, bool)> = steps
        .iter()
        .map(|s| (s.offered_docs_per_sec, s.achieved_docs_per_sec, s.sustained))
        .collect();
    let p99: Vec<(f64, Option<f64>, bool)> = steps
        .iter()
        .map(|s| (s.offered_docs_per_sec, s.p99_ms, s.sustained))
        .collect();
    let lat_max = p99
        .iter()
        .filter_map(|p| p.1)
        .fold(r.p99_limit_ms, f64::max)
        * 1.1;
    let answer = match r.max_sustainable_docs_per_sec {
        Some(g) => format!("max sustainable: {g:.0} docs/s"),
        None => "no rate sustained".into(),
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>saturate {id}</title>\
         <style>body{{font-family:sans-serif;margin:2em}}svg{{border:1px solid #ccc;margin:0.5em 0}}</style>\
         </head><body><h1>saturate {workload} ({id})</h1><p>{answer}; p99 ≤ {p99:.0} ms, failed ≤ \
         {err:.3}%, {clients} clients × bulk {bulk}, steps of {secs} s. Green: sustained, red: failed.</p>\
         <h2>achieved vs offered docs/s</h2>{a}<h2>p99 latency (ms) vs offered docs/s</h2>{l}</body></html>",
        id = esc(&r.id),
        workload = esc(&r.workload),
        p99 = r.p99_limit_ms,
        err = 100.0 * r.max_error_rate,
        clients = r.clients,
        bulk = r.bulk_size,
        secs = r.step_secs,
        a = svg_chart(&achieved, x_max, x_max, Some((0.0, 0.0, x_max, x_max))),
        l = svg_chart(&p99, x_max, lat_max, Some((0.0, r.p99_limit_ms, x_max, r.p99_limit_ms))),
    )
}

/// Points (x, y, good) on 0..x_max × 0..y_max, joined by a line, with one dashed guide.
fn svg_chart(
    points: &[(f64, Option<f64>, bool)],
    x_max: f64,
    y_max: f64,
    guide: Option<(f64, f64, f64, f64)>,
) -> String {
    let (w, h, m) = (640.0, 320.0, 50.0);
    let sx = |x: f64| m + x / x_max * (w - 2.0 * m);
    let sy = |y: f64| h - m - y / y_max.max(1e-9) * (h - 2.0 * m);
    let mut svg =
        format!("<svg width=\"{w}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\">");
    svg += &format!(
        "<line x1=\"{m}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#000\"/><line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{b}\" stroke=\"#000\"/>",
        b = h - m,
        r = w - m
    );
    for i in 0..=4 {
        let (x, y) = (x_max * f64::from(i) / 4.0, y_max * f64::from(i) / 4.0);
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{x:.0}</text><text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{y:.0}</text>",
            sx(x),
            h - m + 15.0,
            m - 4.0,
            sy(y) + 4.0
        );
    }
    if let Some((x1, y1, x2, y2)) = guide {
        svg += &format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4\"/>",
            sx(x1),
            sy(y1),
            sx(x2),
            sy(y2)
        );
    }
    let line: Vec<String> = points
        .iter()
        .filter_map(|(x, y, _)| y.map(|y| format!("{:.1},{:.1}", sx(*x), sy(y.min(y_max)))))
        .collect();
    svg += &format!(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#36c\"/>",
        line.join(" ")
    );
    for (x, y, good) in points {
        if let Some(y) = y {
            svg += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\"/>",
                sx(*x),
                sy(y.min(y_max)),
                if *good { "#2a2" } else { "#c22" }
            );
        }
    }
    svg + "</svg>"
}
