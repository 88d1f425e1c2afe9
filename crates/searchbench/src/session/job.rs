//! What a session loads: a built-in workload's generator, or the user's files (optionally
//! with a workload's index setup), resolved into one document source and its index.

use crate::corpus::convert::{ConvertDates, DateFields};
use crate::corpus::csv_types::{merge_mappings, CsvTypes};
use crate::corpus::{CsvReader, DocSource, LineCheck, NdjsonReader, TruthHandle};
use crate::ingest::source::Chain;
use crate::workload::{self, Workload, WorkloadSpec};

use super::SessionError;

/// What to load and where, resolved.
pub struct Job {
    pub source: Box<dyn DocSource>,
    pub index: String,
    pub index_body: serde_json::Value,
    /// The body is a built-in workload's, written in Elasticsearch's words: the index is made
    /// with its vector fields in the product's (see `ingest::vector_field`). A user's own
    /// mapping is sent as given.
    pub portable_body: bool,
    /// The built-in workload, or `files` for the user's files.
    pub workload: String,
    /// The generator seed (none for files).
    pub seed: Option<u64>,
    /// Ground truth the generator computes while it runs (cluster-metrics).
    pub truth: Option<TruthHandle>,
    /// The mapping inferred from (or given for) the columns of the user's CSV files.
    pub csv_mapping: Option<serde_json::Value>,
    /// This job is a part's byte share of the user's files (already cut).
    pub byte_share: Option<ByteShare>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("source", &self.source.describe())
            .field("index", &self.index)
            .field("workload", &self.workload)
            .finish()
    }
}

/// How to read the user's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// By extension: `.csv` (compressed or not) is CSV, anything else NDJSON.
    Auto,
    Ndjson,
    Csv,
}

/// The user's files, and what to do with them.
#[derive(Debug, Clone)]
pub struct FilesSpec {
    pub files: Vec<String>,
    pub format: FileFormat,
    /// A built-in workload whose index setup to use.
    pub workload: Option<String>,
    pub index: Option<String>,
    /// Date fields to rewrite to epoch milliseconds on the client.
    pub convert_dates: Vec<String>,
    /// How much of each NDJSON line to check on the client.
    pub line_check: LineCheck,
    /// How CSV columns get their types.
    pub csv_types: CsvTypes,
    /// The longest NDJSON line taken as a document, in bytes.
    pub max_line: usize,
    /// Load only this part's share (`--part`): of plain NDJSON files, the lines that start in
    /// its byte range ([`ByteShare`]); other files are split later, by their documents.
    pub part: Option<crate::corpus::part::Part>,
}

impl FilesSpec {
    /// Whether `path` is read as CSV: by `--format`, else by its name.
    fn is_csv(&self, path: &str) -> bool {
        match self.format {
            FileFormat::Csv => true,
            FileFormat::Ndjson => false,
            FileFormat::Auto => {
                let p = path.to_ascii_lowercase();
                [".csv", ".csv.gz", ".csv.bz2", ".csv.zst"]
                    .iter()
                    .any(|ext| p.ends_with(ext))
            }
        }
    }

    /// The index the files go to: `--index`, else the workload's, else the first file's name.
    fn index_name(&self, workload: Option<&'static dyn Workload>) -> String {
        match (&self.index, workload) {
            (Some(i), _) => i.clone(),
            (None, Some(w)) => w.default_index().to_string(),
            (None, None) => index_from_path(self.files.first().map_or("-", String::as_str)),
        }
    }
}

/// A part's share of the user's plain NDJSON files, split by bytes (`--part I/N`): the lines
/// that start in `[from, to)` of the files laid end to end, each line read by one part only.
/// Its documents' sequential ids count from `from`: a document takes at least 3 bytes, so
/// the parts' ids never meet, and part 1's are those of a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteShare {
    pub part: crate::corpus::part::Part,
    pub from: u64,
    pub to: u64,
    /// The files' bytes, all of them.
    pub total: u64,
}

/// The built-in workload called `name`, or a usage error listing them.
pub fn find_workload(name: &str) -> Result<&'static dyn Workload, SessionError> {
    workload::find(name).ok_or_else(|| SessionError::usage(workload::unknown(name)))
}

fn date_fields(fields: &[String]) -> Result<Option<DateFields>, SessionError> {
    if fields.is_empty() {
        return Ok(None);
    }
    Ok(Some(DateFields::parse(fields)?))
}

/// An input file that cannot be opened is bad input (exit 2), named before anything starts:
/// a missing file, a folder, one we may not read. Errors while reading it stay failures.
fn check_input(path: &str) -> Result<(), SessionError> {
    if path == "-" {
        return Ok(());
    }
    let bad = |why: String| Err(SessionError::usage(format!("input file {path}: {why}")));
    match std::fs::metadata(path) {
        Err(e) => bad(format!("cannot read it: {e}")),
        Ok(m) if m.is_dir() => bad("a folder, not a file".into()),
        // Opening a regular file never blocks (a FIFO would): try it for the permission.
        Ok(m) if m.is_file() => match std::fs::File::open(path) {
            Ok(_) => Ok(()),
            Err(e) => bad(format!("cannot read it: {e}")),
        },
        Ok(_) => Ok(()),
    }
}

impl Job {
    /// A built-in workload's generator.
    pub fn generated(
        name: &str,
        spec: &WorkloadSpec,
        index: Option<String>,
        convert_dates: &[String],
    ) -> Result<Job, SessionError> {
        let w = find_workload(name)?;
        let convert = date_fields(convert_dates)?;
        let opened = w.open(spec)?;
        let source = match convert {
            Some(fields) => Box::new(ConvertDates::generated(opened.source, fields)),
            None => opened.source,
        };
        Ok(Job {
            source,
            index: index.unwrap_or_else(|| w.default_index().to_string()),
            index_body: w.index_body_for(spec),
            portable_body: true,
            workload: w.name().to_string(),
            seed: Some(spec.seed),
            truth: opened.truth,
            csv_mapping: None,
            byte_share: None,
        })
    }

    /// The user's files, in order, as one source.
    pub fn files(spec: &FilesSpec) -> Result<Job, SessionError> {
        let workload = spec.workload.as_deref().map(find_workload).transpose()?;
        let convert = date_fields(&spec.convert_dates)?;
        if let Some(part) = spec.part.filter(|p| !p.is_whole()) {
            if convert.is_none() {
                if let Some(job) = Job::byte_share(spec, part, workload)? {
                    return Ok(job);
                }
            }
        }
        let mut sources: Vec<Box<dyn DocSource>> = Vec::new();
        let mut csv_mapping = None;
        for path in &spec.files {
            check_input(path)?;
            let csv = spec.is_csv(path);
            let source: Box<dyn DocSource> = match (csv, &convert) {
                (true, None) => {
                    let (reader, columns) = CsvReader::open_typed(path, &spec.csv_types)?;
                    let reader = reader.with_max_line(spec.max_line);
                    if let Some(columns) = columns {
                        let mapping = columns.mapping();
                        match &mut csv_mapping {
                            None => csv_mapping = Some(mapping),
                            Some(m) => merge_mappings(m, &mapping),
                        }
                    }
                    Box::new(reader)
                }
                (false, None) => Box::new(
                    NdjsonReader::open(path)?
                        .with_check(spec.line_check)
                        .with_max_line(spec.max_line),
                ),
                (true, Some(fields)) => Box::new(ConvertDates::csv_file(path, fields.clone())?),
                (false, Some(fields)) => Box::new(ConvertDates::ndjson_file(path, fields.clone())?),
            };
            sources.push(source);
        }
        let index = spec.index_name(workload);
        let index_body = match (workload, &csv_mapping) {
            (Some(w), _) => w.index_body(),
            (None, Some(mapping)) => serde_json::json!({ "mappings": mapping }),
            (None, None) => serde_json::json!({}),
        };
        let source = Chain::of(sources);
        Ok(Job {
            source,
            index,
            index_body,
            portable_body: workload.is_some(),
            workload: workload.map_or("files", |w| w.name()).to_string(),
            seed: None,
            truth: None,
            csv_mapping,
            byte_share: None,
        })
    }

    /// A part's share of the user's files by bytes, when every file is a plain NDJSON file
    /// (not CSV, not compressed, not a pipe: those are split by their documents instead).
    fn byte_share(
        spec: &FilesSpec,
        part: crate::corpus::part::Part,
        workload: Option<&'static dyn Workload>,
    ) -> Result<Option<Job>, SessionError> {
        // Every part decides alike, from the files alone: all of them by bytes, or none.
        let mut sizes = Vec::new();
        for path in &spec.files {
            check_input(path)?;
            let plain = std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file() && m.len() > 0);
            let compressed = std::fs::File::open(path).ok().is_some_and(|mut f| {
                let mut magic = [0u8; 4];
                let n = std::io::Read::read(&mut f, &mut magic).unwrap_or(0);
                crate::corpus::files::compressed::Compression::sniff(&magic[..n], path)
                    != crate::corpus::files::compressed::Compression::None
            });
            match plain {
                Some(m) if path != "-" && !spec.is_csv(path) && !compressed => sizes.push(m.len()),
                _ => return Ok(None),
            }
        }
        let total: u64 = sizes.iter().sum();
        let (from, to) = part.share(total);
        let mut sources: Vec<Box<dyn DocSource>> = Vec::new();
        let mut offset = 0;
        for (path, len) in spec.files.iter().zip(&sizes) {
            let (lo, hi) = (from.max(offset), to.min(offset + len));
            offset += len;
            if lo >= hi {
                continue;
            }
            // A file the other parts cut by bytes is cut here too, or not read at all.
            let Some(reader) =
                NdjsonReader::open_range(path, lo - (offset - len), hi - (offset - len))?
            else {
                return Err(SessionError::usage(format!(
                    "{path}: --part cuts plain files by bytes, and this one cannot be mapped \
                     (the other parts may have read it): split it another way"
                )));
            };
            sources.push(Box::new(
                reader
                    .with_check(spec.line_check)
                    .with_max_line(spec.max_line),
            ));
        }
        Ok(Some(Job {
            source: Chain::of(sources),
            index: spec.index_name(workload),
            index_body: workload.map_or_else(|| serde_json::json!({}), |w| w.index_body()),
            portable_body: workload.is_some(),
            workload: workload.map_or("files", |w| w.name()).to_string(),
            seed: None,
            truth: None,
            csv_mapping: None,
            byte_share: Some(ByteShare {
                part,
                from,
                to,
                total,
            }),
        }))
    }
}

/// `searchbench-<file stem>`, lowercased, with characters an index name cannot have replaced.
pub fn index_from_path(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("stdin");
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".bz2")
        .trim_end_matches(".zst")
        .trim_end_matches(".ndjson")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json")
        .trim_end_matches(".csv");
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() || clean == "-" {
        "searchbench-stdin".into()
    } else {
        format!("searchbench-{clean}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_from_paths() {
        assert_eq!(
            index_from_path("/data/Access Log.ndjson.gz"),
            "searchbench-access-log"
        );
        assert_eq!(index_from_path("x.csv"), "searchbench-x");
        assert_eq!(index_from_path("-"), "searchbench-stdin");
    }
}
