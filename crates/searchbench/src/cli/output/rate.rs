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

/// The saturation curve as a page: achieved against offered (the diagonal is "kept up"), and
/// p99 latency against offered with the limit; each step green when sustained, red when not.
pub fn saturate_html(r: &SaturateResult) -> String {
    use crate::report::chart::{self, Axis, Dot, Guide, Line, Plot, GREEN, RED};
    let mut steps: Vec<&crate::session::saturate::Step> = r.steps.iter().collect();
    steps.sort_by(|a, b| a.offered_docs_per_sec.total_cmp(&b.offered_docs_per_sec));
    let x_max = steps
        .iter()
        .map(|s| s.offered_docs_per_sec)
        .fold(1.0, f64::max);
    let plot = |title: &str,
                y: &str,
                value: &dyn Fn(&crate::session::saturate::Step) -> Option<f64>,
                guide: Guide| {
        let mut p = Plot::new(title, Axis::new("offered docs/s"), Axis::new(y));
        let points: Vec<(f64, f64)> = steps
            .iter()
            .filter_map(|s| Some((s.offered_docs_per_sec, value(s)?)))
            .collect();
        p.lines.push(Line::new(y, "#3366cc", points).without_dots());
        for s in &steps {
            let Some(v) = value(s) else { continue };
            p.dots.push(Dot {
                x: s.offered_docs_per_sec,
                y: v,
                colour: if s.sustained { GREEN } else { RED }.into(),
                radius: 4.0,
                title: format!(
                    "offered {:.0} docs/s: {v:.1}{}",
                    s.offered_docs_per_sec,
                    if s.sustained { "" } else { " (not sustained)" }
                ),
                ring: None,
                class: "step",
            });
        }
        p.guides.push(guide);
        p.keys.push((GREEN.into(), "sustained".into()));
        p.keys.push((RED.into(), "not sustained".into()));
        p.into()
    };
    let achieved = plot(
        "Achieved against offered docs/s (dashed: kept up)",
        "achieved docs/s",
        &|s| s.achieved_docs_per_sec,
        Guide {
            from: (0.0, 0.0),
            to: (x_max, x_max),
        },
    );
    let latency = plot(
        "p99 latency against offered docs/s (dashed: the limit)",
        "p99 ms",
        &|s| s.p99_ms,
        Guide {
            from: (0.0, r.p99_limit_ms),
            to: (x_max, r.p99_limit_ms),
        },
    );
    let answer = match r.max_sustainable_docs_per_sec {
        Some(g) => format!("max sustainable: {g:.0} docs/s"),
        None => "no rate sustained".into(),
    };
    let subtitle = format!(
        "{answer}; p99 ≤ {:.0} ms, failed ≤ {:.3} %, {} clients × bulk {}, steps of {} s",
        r.p99_limit_ms,
        100.0 * r.max_error_rate,
        r.clients,
        r.bulk_size,
        r.step_secs
    );
    let esc = crate::report::page::esc;
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.1}"));
    let mut body = chart::grid([achieved, latency]);
    body.push_str(
        "<h2>Steps</h2><table><tr><th>offered docs/s</th><th>achieved docs/s</th><th>p50 ms</th>\
         <th>p99 ms</th><th>requests</th><th>failed %</th><th>sustained</th><th>run</th></tr>",
    );
    for s in &steps {
        body.push_str(&format!(
            "<tr><td class=\"num\">{:.0}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3}</td>\
             <td class=\"{}\">{}</td><td>{}</td></tr>",
            s.offered_docs_per_sec,
            opt(s.achieved_docs_per_sec),
            opt(s.p50_ms),
            opt(s.p99_ms),
            if s.p99_is_max { " (max)" } else { "" },
            s.requests,
            100.0 * s.error_rate,
            if s.sustained { "better" } else { "worse" },
            if s.sustained {
                "yes".to_string()
            } else {
                esc(&format!(
                    "no: {}",
                    s.why.as_deref().unwrap_or("over a limit")
                ))
            },
            esc(s.run_id.as_deref().unwrap_or("-"))
        ));
    }
    body.push_str("</table>");
    crate::report::page::render(
        &format!("searchbench saturate {} ({})", r.workload, r.id),
        &subtitle,
        &body,
    )
}
