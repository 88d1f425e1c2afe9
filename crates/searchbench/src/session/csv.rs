//! The run's metrics and timeline as tidy CSV (`--export-csv FILE`): an exporter of the run's
//! record, so the file holds exactly the lines `report RUN --csv` writes of the same run (one
//! renderer, `report::csv_file`). Every run a command makes goes into the one file (a sweep's
//! cells, a matrix's runs, `ab`'s rounds), each added as the store keeps it, and the file is
//! written whole each time: a command stopped halfway leaves a CSV of the runs it kept.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::record::Exporter;
use crate::analysis::runs::Loaded;
use crate::out_folder::OutError;
use crate::report::csv_file;
use crate::store::Store;

/// The CSV file every run of a command is added to (shared by each run's exporter).
#[derive(Debug)]
pub struct CsvFile {
    path: PathBuf,
    /// The file's text so far: its header and the lines of each run kept.
    text: Mutex<String>,
}

impl CsvFile {
    /// The file at `path`, written at once with its header alone, so that a path that cannot
    /// be written fails the command before anything is measured.
    pub fn create(path: &Path) -> Result<Arc<Self>, OutError> {
        let text = format!("{}\n", csv_file::HEADER);
        crate::out_folder::write_file(path, text.as_bytes())?;
        Ok(Arc::new(CsvFile {
            path: path.to_path_buf(),
            text: Mutex::new(text),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds `run`'s lines and writes the file whole.
    fn add(&self, run: &Loaded) -> Result<(), OutError> {
        // A poisoned lock still holds the lines of the runs kept before: keep adding.
        let mut text = self.text.lock().unwrap_or_else(|e| e.into_inner());
        csv_file::lines(run, &mut text);
        crate::out_folder::write_file(&self.path, text.as_bytes())
    }
}

/// Adds each run the store keeps to a [`CsvFile`], whatever its state (the file's `state`
/// column says how it ended).
pub struct CsvExport {
    file: Arc<CsvFile>,
}

impl CsvExport {
    pub fn new(file: Arc<CsvFile>) -> Self {
        CsvExport { file }
    }
}

impl Exporter for CsvExport {
    fn name(&self) -> String {
        format!("CSV file {}", self.file.path().display())
    }

    fn export(&mut self, run: &Loaded, _store: &Store, _derived: bool) -> Result<(), String> {
        self.file.add(run).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::{RunId, RunRow, State};

    fn run(id: &str, state: State, docs_per_sec: f64) -> Loaded {
        let mut l = Loaded::bare(RunRow {
            id: RunId(id.into()),
            kind: "ingest".into(),
            workload: "logs, \"quoted\"".into(),
            engine: Some("opensearch-2.19.1".into()),
            status: state.name().into(),
            state,
            started_unix: 1_700_000_000,
            finished_unix: None,
            tool_version: "0".into(),
            seed: Some(1),
            pid: None,
            machine: serde_json::Value::Null,
            config: json!({}),
            tags: Default::default(),
            error: None,
            result: Some(json!({ "docs_per_sec": docs_per_sec })),
        });
        l.timeline = vec![json!({ "second": 3, "docs": 1200 })];
        l
    }

    /// Every run of a command is in the one file under one header, each line the line
    /// `report --csv` writes of the same run, its state said; the file is whole after each.
    #[test]
    fn each_run_kept_is_added_under_one_header_as_report_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out").join("runs.csv");
        let file = CsvFile::create(&path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}\n", csv_file::HEADER)
        );
        let (a, b) = (
            run("0000000a", State::Complete, 1000.0),
            run("0000000b", State::Failed, 10.0),
        );
        let store = Store::open(dir.path().join("store.db")).unwrap();
        let mut export = CsvExport::new(file.clone());
        export.export(&a, &store, true).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            csv_file::render(&[&a])
        );
        export.export(&b, &store, false).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, csv_file::render(&[&a, &b]));
        assert_eq!(text.matches("run_id,").count(), 1, "{text}");
        assert!(
            text.contains("0000000b,ingest,\"logs, \"\"quoted\"\"\",opensearch-2.19.1,failed,"),
            "{text}"
        );
        assert!(text.contains(",timeline.docs,,3,1200"), "{text}");
    }

    /// A file that cannot be written is refused when it is made, naming it.
    #[test]
    fn a_path_that_cannot_be_written_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("a-file");
        std::fs::write(&blocker, "x").unwrap();
        let err = CsvFile::create(&blocker.join("runs.csv")).unwrap_err();
        assert!(err.to_string().contains("a-file"), "{err}");
    }
}
