//! Terminal rendering of experiments: the date-cost table per engine.

use super::table;
use crate::experiment::dates::{EngineResult, Spread};

fn spread(s: Option<Spread>, decimals: usize) -> String {
    match s {
        None => "-".into(),
        Some(s) if s.n == 1 => format!("{:.*}", decimals, s.median),
        Some(s) => format!(
            "{:.*} ({:.*}–{:.*})",
            decimals, s.median, decimals, s.min, decimals, s.max
        ),
    }
}

/// A paired ratio as a signed percentage: median (min–max).
fn percent(s: Option<Spread>) -> String {
    match s {
        None => "-".into(),
        Some(s) if s.n == 1 => format!("{:+.1}%", s.median * 100.0),
        Some(s) => format!(
            "{:+.1}% ({:+.1}…{:+.1})",
            s.median * 100.0,
            s.min * 100.0,
            s.max * 100.0
        ),
    }
}

pub fn dates(r: &EngineResult) {
    outln!(
        "\nDate-cost experiment: {} {} ({}), logs corpus seed {}, {} docs per load, {} repeat(s), {} client(s), {} docs per bulk",
        r.product,
        r.version,
        r.engine.as_deref().unwrap_or(&r.target_url),
        r.seed,
        r.docs,
        r.repeats,
        r.clients,
        r.bulk_size
    );
    let mut t = table([
        "variant",
        "docs/s",
        "engine CPU µs/doc",
        "_stats index µs/doc",
        "client CPU µs/doc",
        "engine CPU vs a",
        "index time vs a",
        "all indexed",
    ]);
    for v in &r.variants {
        let (cpu_vs_a, time_vs_a) = if v.variant.id == "a" {
            ("-".to_string(), "-".to_string())
        } else {
            (percent(v.engine_cpu_vs_a), percent(v.index_time_vs_a))
        };
        t.add_row([
            format!("({}) {}", v.variant.id, v.variant.what),
            spread(v.docs_per_sec, 0),
            spread(v.engine_cpu_us_per_doc, 1),
            spread(v.index_time_us_per_doc, 1),
            spread(v.client_cpu_us_per_doc, 2),
            cpu_vs_a,
            time_vs_a,
            if v.complete { "yes" } else { "NO" }.to_string(),
        ]);
    }
    outln!("{t}");
    if !r.engine_cpu_measured {
        outln!("engine CPU: not measured (the engine's pid is unknown with --url)");
    }
    for v in &r.variants {
        for m in &v.runs {
            if let Some(f) = &m.failures_file {
                outln!(
                    "({}) repeat {}: {} failed -> {}",
                    v.variant.id,
                    m.repeat,
                    m.failed,
                    f.display()
                );
            }
            for w in &m.warnings {
                outln!("({}) repeat {}: warning: {w}", v.variant.id, m.repeat);
            }
        }
    }
}
