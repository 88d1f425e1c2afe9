//! What a run's page opens with, before any chart: its headline figures and the one-line
//! diagnosis the terminal ends with ("bounded by: engine CPU at its limit"), read from the
//! stored result, so the page and the terminal say the same.

use std::fmt::Write as _;

use serde_json::Value;

use super::page::esc;
use super::Loaded;
use crate::analysis::metrics;
use crate::analysis::said::Said;
use crate::measure::telemetry::Summary;
use crate::store::State;
use crate::units::format_metric;

/// Runs up to which the page opens with each run's headline; a bigger page opens with what
/// changed, and each run's figures stay in its own section.
const RUNS_SHOWN: usize = 6;

/// One run's headline: its figures and its diagnosis, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// `13,103 docs/s`, `service p99 41.2 ms`, `no errors`.
    pub figures: Vec<String>,
    /// `bounded by: …` for the load, and for the query phase when it has its own.
    pub diagnosis: Vec<String>,
}

impl Headline {
    pub fn of(l: &Loaded) -> Headline {
        let result = l.row.result.as_ref().unwrap_or(&Value::Null);
        let all = l.metrics();
        let value = |key: &str| all.iter().find(|m| m.key == key);
        let mut figures = Vec::new();
        if let Some(m) = value(metrics::THROUGHPUT) {
            figures.push(format!("{} docs/s", format_metric(false, m.value)));
        }
        for (key, name) in [("service_p50_ms", "p50"), ("service_p99_ms", "p99")] {
            if let Some(m) = value(key) {
                figures.push(format!(
                    "service {name} {} ms",
                    format_metric(false, m.value)
                ));
            }
        }
        let errors: f64 = all.iter().filter(|m| m.errors).map(|m| m.value).sum();
        figures.push(if errors > 0.0 {
            format!("{} error(s)", format_metric(true, errors))
        } else {
            "no errors".into()
        });
        if l.row.state != State::Complete {
            figures.push(format!("run {}", l.row.state.name()));
        }
        let said = Said::of_result(result);
        let load = said.telemetry.as_ref();
        let query = said.query.as_ref().and_then(|q| q.telemetry.as_ref());
        let mut diagnosis = Vec::new();
        match (bounds(load), bounds(query)) {
            (None, None) => diagnosis.push(
                "bounded by: not known (no telemetry was sampled: --no-telemetry, or a run \
                 stored before it was kept)"
                    .into(),
            ),
            (load, query) => {
                let phases = [("", load), ("query phase ", query)];
                for (phase, b) in phases {
                    match b {
                        Some(b) if b.is_empty() => diagnosis.push(format!(
                            "{phase}bounded by: nothing the telemetry shows (CPU, GC, thread \
                             pools, disk and the driver below their limits)"
                        )),
                        Some(b) => diagnosis.push(format!("{phase}bounded by: {}", b.join("; "))),
                        None => {}
                    }
                }
            }
        }
        Headline { figures, diagnosis }
    }
}

/// What a phase's stored telemetry says bounded it; `None` when the phase has none.
fn bounds(telemetry: Option<&Summary>) -> Option<Vec<String>> {
    telemetry.map(|s| s.bounds.clone())
}

/// The page's opening section: each run's headline and diagnosis (none past
/// [`RUNS_SHOWN`] runs).
pub fn section(runs: &[&Loaded]) -> String {
    if runs.is_empty() || runs.len() > RUNS_SHOWN {
        return String::new();
    }
    let mut s = String::from("<section id=\"headline\" class=\"answer headline\">");
    for l in runs {
        let h = Headline::of(l);
        let who = if runs.len() > 1 {
            format!("run {}: ", esc(&l.row.id.0))
        } else {
            String::new()
        };
        let (first, rest) = h
            .figures
            .split_first()
            .map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
        let _ = write!(
            s,
            "<p class=\"figures\">{who}<b>{}</b>{}</p>",
            esc(first),
            rest.iter()
                .map(|f| format!(" · {}", esc(f)))
                .collect::<String>()
        );
        for d in &h.diagnosis {
            let _ = write!(s, "<p class=\"diagnosis\">{}</p>", esc(d));
        }
    }
    s.push_str("</section>");
    s
}
