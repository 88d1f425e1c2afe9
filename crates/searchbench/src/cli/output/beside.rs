//! Rendering of the searches that ran beside a load (`--search-clients`).

use super::table;
use crate::query::beside::SearchesBeside;

fn ms(us: u64) -> String {
    format!("{:.1}", us as f64 / 1000.0)
}

/// The query side of a load: latency percentiles per variant and overall, errors, and the
/// note that answers were not checked.
pub fn print(b: &SearchesBeside) {
    sayln!(
        "\nsearches beside the load: {} client(s), {} searches ({:.1}/s), {} failed; {}",
        b.clients,
        b.requests,
        b.searches_per_sec,
        b.errors,
        b.note
    );
    let mut t = table([
        "variant",
        "searches",
        "errors",
        "p50 / p90 / p99 / max (ms)",
    ]);
    let row = |name: String, n: u64, e: u64, l: &crate::query::cells::HdrSummary| {
        [
            name,
            n.to_string(),
            e.to_string(),
            format!(
                "{} / {} / {} / {}",
                ms(l.p50_us),
                ms(l.p90_us),
                ms(l.p99_us),
                ms(l.max_us)
            ),
        ]
    };
    for v in &b.variants {
        t.add_row(row(
            v.variant.name().to_string(),
            v.requests,
            v.errors,
            &v.latency,
        ));
    }
    t.add_row(row("all".into(), b.requests, b.errors, &b.latency));
    outln!("{t}");
    for k in &b.error_kinds {
        sayln!("  {} × {}", k.count, k.message);
    }
}
