//! Terminal rendering of open-loop figures: an ingest at `--rate`, a saturation search, and
//! the network delay of `--rtt`.

use super::table;
use crate::cluster::delay::Rtt;
use crate::ingest::pace::{Limit, RateReport};
use crate::ingest::IngestReport;

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
