//! What bring-your-own inputs tell the user: the mapping inferred for CSV files, what a
//! Rally track held that was not understood, where `workload init` wrote its files.

/// The mapping the CSV columns were typed with; `overridden` when a mapping from a file or
/// a workload is used for the index instead.
pub fn csv_mapping(mapping: &serde_json::Value, overridden: bool) {
    let columns: Vec<String> = mapping
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| {
            p.iter()
                .map(|(k, v)| format!("{k}:{}", v["type"].as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default();
    eprintln!("CSV columns: {}", columns.join(", "));
    if overridden {
        eprintln!("  (the documents are typed so; the index takes the mapping given instead)");
    } else {
        eprintln!("  index mapping: {mapping}");
    }
}

/// Where `workload init` wrote its files.
pub fn initialised(done: &crate::session::workload_file::Initialised) {
    outln!(
        "wrote {} ({} documents in {}; queries: {})",
        done.workload_file.display(),
        done.docs,
        done.corpus_file.display(),
        done.queries.join(", ")
    );
    outln!("it loads into index {}", done.index);
    for what in &done.left_out {
        outln!("left out: {what}");
    }
    outln!(
        "run it with: searchbench run --workload-file {}",
        done.workload_file.display()
    );
}

/// What was taken from a Rally track / benchmark workload, and what of it does not run.
pub fn track_read(
    path: &std::path::Path,
    w: &crate::workload::file::WorkloadFile,
    check: &crate::workload::track::Check,
) {
    eprintln!(
        "{}: read as a track, {} {}: index {}, {} quer{} ({}), defaults {}",
        path.display(),
        check.procedure_word,
        check.procedure,
        w.index.as_deref().unwrap_or("?"),
        w.queries.len(),
        if w.queries.len() == 1 { "y" } else { "ies" },
        w.queries
            .iter()
            .map(|q| q.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        serde_json::Value::Object(w.defaults.clone())
    );
    let left_out: Vec<_> = check
        .left_out()
        .filter(|i| !i.what.starts_with(&check.procedure_word))
        .collect();
    if !left_out.is_empty() {
        eprintln!(
            "left out (not run; `searchbench workload check {}` lists all):",
            path.display()
        );
        for i in left_out {
            eprintln!("  - {}: {}", i.what, i.how);
        }
    }
}

/// `workload check`: what of a track runs and what does not, and why.
pub fn track_check(path: &std::path::Path, check: &crate::workload::track::Check) {
    let others: Vec<&str> = check
        .procedures
        .iter()
        .filter(|(n, _)| *n != check.procedure)
        .map(|(n, _)| n.as_str())
        .collect();
    let default = check
        .procedures
        .iter()
        .any(|(n, d)| *d && *n == check.procedure);
    outln!(
        "{}: {} {}{}",
        path.display(),
        check.procedure_word,
        check.procedure,
        if default { " (the default)" } else { "" }
    );
    if !others.is_empty() {
        outln!("  others (--challenge NAME): {}", others.join(", "));
    }
    let (runs, not): (Vec<_>, Vec<_>) = check
        .items
        .iter()
        .filter(|i| !i.what.starts_with(&check.procedure_word))
        .partition(|i| i.runs);
    let count = |items: &[&crate::workload::track::runnable::Item], what: &str| {
        items.iter().filter(|i| i.what.starts_with(what)).count()
    };
    outln!(
        "  {} of {} tasks run; {} of {} corpus files are here to load",
        count(&runs, "task "),
        count(&runs, "task ") + count(&not, "task "),
        count(&runs, "corpus "),
        count(&runs, "corpus ") + count(&not, "corpus ")
    );
    for (title, items) in [("runs", runs), ("does not run", not)] {
        if items.is_empty() {
            continue;
        }
        outln!("{title}:");
        for i in items {
            outln!("  {}", i.what);
            outln!("      {}", i.how);
        }
    }
}
