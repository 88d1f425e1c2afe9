//! Markdown rendering: per-run configuration and figures, and the comparison table.

use std::fmt::Write as _;

use serde_json::Value;

use super::compare::{format_diff, format_n, format_value, Comparison};
use super::{metrics, utc, Loaded};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The comparison as a Markdown table plus its notes.
pub fn compare_table(c: &Comparison) -> String {
    let mut s = format!("| metric | unit | {} (base) |", cell(&c.base.label));
    for k in &c.contenders {
        let _ = write!(
            s,
            " {} | diff [{:.0} % CI] | samples | verdict |",
            cell(&k.label),
            c.confidence * 100.0
        );
    }
    s.push('\n');
    s.push_str("|---|---|---:|");
    for _ in &c.contenders {
        s.push_str("---:|---:|---|---|");
    }
    s.push('\n');
    for row in &c.rows {
        let _ = write!(
            s,
            "| {} | {} | {} |",
            cell(&row.label),
            row.unit,
            format_value(row.base)
        );
        for k in &row.contenders {
            match k {
                Some(k) => {
                    let _ = write!(
                        s,
                        " {} | {} | {} | {} |",
                        format_value(k.value),
                        format_diff(k),
                        format_n(k),
                        k.verdict.name()
                    );
                }
                None => s.push_str(" - | | | |"),
            }
        }
        s.push('\n');
    }
    for n in &c.notes {
        let _ = writeln!(s, "\n> note: {}", cell(n));
    }
    s
}

pub fn render(runs: &[Loaded], comparison: Option<&Comparison>) -> String {
    let mut s = String::from("# searchbench report\n\n");
    if let Some(c) = comparison {
        s.push_str("## Comparison\n\n");
        s.push_str(&compare_table(c));
        s.push('\n');
    }
    for l in runs {
        let r = &l.row;
        let _ = writeln!(s, "## Run {}\n", r.id);
        let tags = r
            .tags
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let m = &r.machine;
        let machine = format!(
            "{}, {} cores",
            m.get("cpu_model").and_then(Value::as_str).unwrap_or("?"),
            m.get("cores").and_then(Value::as_u64).unwrap_or(0)
        );
        for (k, v) in [
            ("kind", r.kind.clone()),
            ("workload", r.workload.clone()),
            ("engine", r.engine.clone().unwrap_or_else(|| "?".into())),
            ("state", r.state.name().into()),
            ("started", utc(r.started_unix)),
            ("searchbench", r.tool_version.clone()),
            (
                "seed",
                r.seed.map(|x| x.to_string()).unwrap_or_else(|| "-".into()),
            ),
            ("machine", machine),
            ("tags", if tags.is_empty() { "-".into() } else { tags }),
        ] {
            let _ = writeln!(s, "- **{k}**: {}", cell(&v));
        }
        let ms = metrics::extract(r.result.as_ref().unwrap_or(&Value::Null), &l.timeline);
        if !ms.is_empty() {
            s.push_str("\n| metric | value | unit | samples |\n|---|---:|---|---|\n");
            for m in ms {
                let n = m
                    .samples
                    .as_ref()
                    .map(|(k, v)| format!("{} {}", v.len(), k.name()))
                    .unwrap_or_else(|| "1".into());
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    cell(&m.label),
                    format_value(m.value),
                    m.unit,
                    n
                );
            }
        }
        let _ = writeln!(
            s,
            "\n<details><summary>configuration</summary>\n\n```json\n{}\n```\n</details>\n",
            serde_json::to_string_pretty(&r.config).unwrap_or_default()
        );
    }
    s
}
