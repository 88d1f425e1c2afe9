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
    errln!("CSV columns: {}", columns.join(", "));
    if overridden {
        errln!("  (the documents are typed so; the index takes the mapping given instead)");
    } else {
        errln!("  index mapping: {mapping}");
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

/// Before a track runs: its challenge, how many tasks run, and what does not run.
pub fn track_plan(
    path: &std::path::Path,
    procedure: &crate::workload::track::model::Procedure,
    planned: &crate::tasks::plan::Planned,
) {
    let tasks: usize = planned.steps.iter().map(Vec::len).sum();
    errln!(
        "{}: {} task(s) of {} to run",
        path.display(),
        tasks,
        procedure.name
    );
    if !planned.not_run.is_empty() {
        errln!(
            "not run (`searchbench workload check {}` lists all):",
            path.display()
        );
        for i in &planned.not_run {
            errln!("  - {}: {}", i.what, i.how);
        }
    }
}

/// `workload check`: what of a track runs and what does not, and why.
pub fn track_check(path: &std::path::Path, check: &crate::tasks::plan::Check) {
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
    let count = |items: &[&crate::tasks::plan::Item], what: &str| {
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
    if !check.needs.is_empty() {
        outln!(
            "engine modules it needs (on Elasticsearch 8 and later `run` asks the node for \
             them before anything runs; the Elasticsearch distributions searchbench starts from \
             Maven Central have none of them, so there it runs against a full cluster at --url):"
        );
        let needs: Vec<&crate::tasks::needs::Need> = check.needs.iter().collect();
        for line in crate::tasks::needs::describe(&needs) {
            outln!("  {line}");
        }
    }
}
