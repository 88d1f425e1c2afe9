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

/// What was taken from a Rally track / benchmark workload, and what was not understood.
pub fn not_understood(
    path: &std::path::Path,
    w: &crate::workload::file::WorkloadFile,
    notes: &[String],
) {
    eprintln!(
        "{}: read as a track: index {}, {} quer{} ({}), defaults {}",
        path.display(),
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
    if !notes.is_empty() {
        eprintln!("not understood (left out):");
        for n in notes {
            eprintln!("  - {n}");
        }
    }
}
