//! Terminal rendering of open-loop figures: an ingest at `--rate`, a saturation search, and
//! the network delay of `--rtt`.

use super::table;
use crate::cluster::delay::Rtt;
use crate::ingest::IngestReport;
use crate::session::saturate::SaturateResult;

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// The open-loop block of an ingest result (nothing when it was not paced).
pub fn print_ingest(r: &IngestReport) {
    print_rtt(r.rtt.as_ref());
    let Some(rate) = &r.rate else { return };
    sayln!(
        "open loop: offered {:.0} docs/s, achieved {} docs/s ({})",
        rate.offered_docs_per_sec,
        rate.achieved_docs_per_sec
            .map_or_else(|| "-".into(), |a| format!("{a:.0}")),
        rate.limit_words()
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
    outln!("{t}");
    sayln!(
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
        sayln!(
            "network: {} ms round trip added (jitter ±{} ms, seed {}) by a delay proxy on 127.0.0.1",
            rtt.rtt_ms, rtt.jitter_ms, rtt.seed
        );
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
    outln!("{t}");
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
        (Some(good), Some(bad)) => sayln!(
            "max sustainable: {good:.0} docs/s ({limits}); {bad:.0} docs/s failed; {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
        (Some(good), None) => sayln!(
            "max sustainable: at least {good:.0} docs/s ({limits}); no step failed; {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
        (None, _) => sayln!(
            "no rate sustained ({limits}); {} steps tagged saturate={}",
            r.steps.len(),
            r.id
        ),
    }
    for w in &r.warnings {
        sayln!("warning: {w}");
    }
}
