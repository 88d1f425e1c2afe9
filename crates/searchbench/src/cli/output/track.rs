//! A track run on the terminal: one row per task, as the tools report them (throughput,
//! latency and service time, error rate), and what did not run.

use super::{table, tone_cell, Tone};
use crate::session::track_run::TrackRunResult;
use crate::tasks::TaskFigures;

/// `1,234.5 ops/s`, or `–` when not measured.
fn throughput(t: &TaskFigures) -> String {
    match t.throughput_mean {
        Some(v) if v >= 100.0 => format!("{v:.0} {}", t.throughput_unit),
        Some(v) => format!("{v:.2} {}", t.throughput_unit),
        None => "–".into(),
    }
}

fn percentiles(p: Option<[f64; 4]>) -> String {
    match p {
        Some([p50, p90, p99, max]) => format!("{p50:.1} / {p90:.1} / {p99:.1} / {max:.1}"),
        None => "–".into(),
    }
}

pub fn print(r: &TrackRunResult) {
    let corpus = if r.synthesized.is_empty() {
        ""
    } else {
        " (on a synthesized corpus)"
    };
    sayln!(
        "\ntrack {}{corpus}, {} {}:",
        r.track,
        r.procedure_word,
        r.procedure
    );
    let mut t = table([
        "task",
        "ops (errors)",
        "throughput",
        "latency p50 / p90 / p99 / max (ms)",
        "service time (ms)",
    ]);
    for task in &r.tasks {
        let errors = if task.errors == 0 {
            tone_cell(format!("{} (0)", task.ops), Tone::Good)
        } else {
            tone_cell(
                format!(
                    "{} ({}, {:.1}%)",
                    task.ops,
                    task.errors,
                    task.error_rate * 100.0
                ),
                Tone::Bad,
            )
        };
        let name = if task.stopped {
            format!(
                "{} ({}, ended by its block)",
                task.task, task.operation_type
            )
        } else {
            format!("{} ({})", task.task, task.operation_type)
        };
        t.add_row(vec![
            name.into(),
            errors,
            throughput(task).into(),
            percentiles(task.latency_ms).into(),
            percentiles(task.service_time_ms).into(),
        ]);
    }
    outln!("{t}");
    synthesized(&r.synthesized);
    for task in &r.tasks {
        if let Some(rc) = &task.recall {
            sayln!(
                "task {}: mean recall@k {:.4}, recall@1 {:.4}, worst answer {:.3}, over {} answers",
                task.task,
                rc.mean_at_k,
                rc.mean_at_1,
                rc.min_at_k,
                rc.answers
            );
        }
    }
    for task in &r.tasks {
        match (&task.freshness, &task.freshness_not_measured) {
            (Some(f), _) => sayln!("task {}: {}", task.task, f.line()),
            (None, Some(why)) => sayln!("task {}: {why}", task.task),
            (None, None) => {}
        }
    }
    for task in &r.tasks {
        if let Some(e) = &task.first_error {
            sayln!("task {}: first error: {e}", task.task);
        }
    }
    if !r.not_run.is_empty() {
        sayln!("not run:");
        for i in &r.not_run {
            sayln!("  - {}: {}", i.what, i.how);
        }
    }
}

/// What a run on a synthesized corpus says under its table: per corpus, its files, documents
/// and what they were made from.
fn synthesized(files: &[crate::tasks::synthesize::Synthesized]) {
    let mut corpora: Vec<&str> = Vec::new();
    for f in files {
        if !corpora.contains(&f.corpus.as_str()) {
            corpora.push(&f.corpus);
        }
    }
    for corpus in corpora {
        let of: Vec<_> = files.iter().filter(|f| f.corpus == corpus).collect();
        let documents: u64 = of.iter().map(|f| f.documents).sum();
        let names = match of.as_slice() {
            [one] => format!("file {}", one.file),
            many => format!("{} files", many.len()),
        };
        let samples: Vec<String> = of
            .iter()
            .filter_map(|f| {
                f.sample
                    .as_ref()
                    .map(|s| format!("{} documents of {s}", f.sample_docs))
            })
            .collect();
        let from = if samples.is_empty() {
            "the mapping alone".to_string()
        } else {
            format!("the mapping and {}", samples.join(", "))
        };
        sayln!(
            "synthesized corpus {corpus} ({names}, {documents} documents) from {from}, seed {}: \
             these figures are not the real corpus's",
            of.first().map_or(0, |f| f.seed)
        );
    }
}
