//! Reports: stored runs, comparisons, histories and studies rendered as self-contained HTML
//! pages, Markdown or CSV. What they show is computed in `crate::analysis` (metrics,
//! comparisons, checks, histories and change points, the sweep's and saturation's answers);
//! this module only renders it.
//!
//! * [`html`] (a run, or groups compared), [`history_html`], [`sweep_html`],
//!   [`saturate_html`], [`markdown`], [`csv_file`]: renderings;
//! * every chart is drawn by [`chart`], every page laid out by [`page`].

pub mod chart;
pub mod csv_file;
pub mod headline;
pub mod history_html;
pub mod html;
pub mod markdown;
pub mod page;
pub mod profile_html;
pub mod run_charts;
pub mod saturate_html;
pub mod scenario_html;
pub mod site;
pub mod sweep_html;
pub mod telemetry_charts;
pub mod verdicts;

use std::path::{Path, PathBuf};

pub use crate::analysis::compare::comparison_of;
use crate::analysis::history::{Axis as HistoryAxis, Selection};
pub use crate::analysis::runs::{runs_of, Group, Loaded};
use crate::store::{RunId, RunRow, Store, StoreError, Study};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {0}")]
    Out(#[from] crate::out_folder::OutError),
    #[error("nothing to report: name at least one run")]
    NoRuns,
    /// A name from the store (or a results cluster) that cannot be a file name of a page.
    #[error("{0} cannot name a page: only letters, digits, - and _ may")]
    Unsafe(String),
    #[error(transparent)]
    History(#[from] crate::analysis::history::HistoryError),
    #[error("the stored {kind} {id} cannot be read by this version: {source}")]
    Study {
        kind: String,
        id: String,
        source: serde_json::Error,
    },
}

/// Loads every selector as a [`Group`], in order.
pub fn load(
    store: &Store,
    selectors: &[String],
    include_partial: bool,
) -> Result<Vec<Group>, ReportError> {
    if selectors.is_empty() {
        return Err(ReportError::NoRuns);
    }
    selectors
        .iter()
        .map(|s| Ok(Group::load(store, s, include_partial)?))
        .collect()
}

/// Writes a page (or any report text) to `path`, creating its folder, whole or not at all
/// and never through a link ([`crate::out_folder`]).
pub fn write_page(path: &Path, text: &str) -> Result<(), ReportError> {
    crate::out_folder::write_file(path, text.as_bytes()).map_err(ReportError::from)
}

/// Writes a page to `rel` under the folder `dir` (a site's), nothing in `dir` followed.
pub fn write_page_in(dir: &Path, rel: &Path, text: &str) -> Result<(), ReportError> {
    crate::out_folder::write_in(dir, rel, text.as_bytes()).map_err(ReportError::from)
}

/// Writes the HTML report of `groups` to `path`.
pub fn write_html(groups: &[Group], path: &Path) -> Result<(), ReportError> {
    write_page(path, &html::render(groups, comparison_of(groups).as_ref()))
}

pub fn write_markdown(groups: &[Group], path: &Path) -> Result<(), ReportError> {
    write_page(path, &self::markdown(groups))
}

/// The Markdown of `groups`: their comparison when there are two or more, and every run.
pub fn markdown(groups: &[Group]) -> String {
    markdown::render(groups, comparison_of(groups).as_ref())
}

pub fn write_csv(groups: &[Group], path: &Path) -> Result<(), ReportError> {
    write_page(path, &csv_file::render(&runs_of(groups)))
}

/// `reports/` next to the results store at `store`: where pages go by default.
pub fn reports_dir(store: &Path) -> PathBuf {
    store
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("reports")
}

/// Where [`write_run_report`] puts a run's page: `reports/<id>.html` next to the store. An id
/// that cannot name a page (a store edited by hand or made elsewhere: `ab/../../x`) is
/// refused, naming it, rather than lead the page out of `reports/`.
pub fn default_html_path(store: &Store, id: &RunId) -> Result<PathBuf, ReportError> {
    page_in(store.path(), &id.0)
}

/// `reports/<id>.html` next to the store at `store`, when `id` can name a page ([`plain`]).
fn page_in(store: &Path, id: &str) -> Result<PathBuf, ReportError> {
    if !plain(id) {
        return Err(ReportError::Unsafe(format!("run id {:?}", id)));
    }
    Ok(reports_dir(store).join(format!("{id}.html")))
}

/// A name that may be a file of a report's folder or a site: the ids the store makes (letters,
/// digits, `-`, `_`), 128 at most.
pub(crate) fn plain(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `reports/matrix-<id>.html` next to the results store at `store`.
pub fn matrix_path(store: &Path, id: &str) -> PathBuf {
    reports_dir(store).join(format!("matrix-{id}.html"))
}

/// The page of what a selector names beyond runs, with where it goes by default: a stored
/// sweep or saturation search (`sweep=<id>`, `saturate=<id>`: its own page, drawn again from
/// its kept result) or a matrix (`matrix=<id>`: the history of its runs over versions, the
/// page `matrix` writes). `None` for any other selector.
pub fn named_page(store: &Store, selector: &str) -> Result<Option<(String, PathBuf)>, ReportError> {
    let Some((kind, id)) = selector.split_once('=') else {
        return Ok(None);
    };
    if id.contains(',') {
        return Ok(None);
    }
    match kind {
        "sweep" | "saturate" => match store.study(kind, id)? {
            Some(study) => Ok(Some(render_study(store, &study)?)),
            None => Ok(None),
        },
        "matrix" => {
            let mut selection = Selection::new(HistoryAxis::Version);
            selection.tags = vec![("matrix".into(), id.to_string())];
            let filter = crate::store::Filter {
                tags: selection.tags.clone(),
                ..Default::default()
            };
            // No run of that matrix: not a page, and the runs' loader says so (bad usage).
            if store.list(&filter)?.is_empty() {
                return Ok(None);
            }
            let history = crate::analysis::history::load(store, &selection)?;
            Ok(Some((
                history_html::render(&history),
                matrix_path(store.path(), id),
            )))
        }
        _ => Ok(None),
    }
}

/// The page of a stored study and where it goes by default (`reports/<kind>-<id>.html`).
fn render_study(store: &Store, study: &Study) -> Result<(String, PathBuf), ReportError> {
    let unreadable = |e: serde_json::Error| ReportError::Study {
        kind: study.kind.clone(),
        id: study.id.clone(),
        source: e,
    };
    match study.kind.as_str() {
        "sweep" => {
            let r: crate::analysis::sweep::SweepResult =
                serde::Deserialize::deserialize(&study.result).map_err(unreadable)?;
            // The answer names its cells by their place: a stored one naming a cell the sweep
            // does not hold is refused, not read past its end.
            let cells = r.cells.len();
            let answer = [r.answer.best, r.answer.recommended];
            if let Some(i) = answer.into_iter().flatten().find(|i| *i >= cells) {
                return Err(unreadable(serde::de::Error::custom(format!(
                    "its answer names cell {i}, and it holds {cells}"
                ))));
            }
            Ok((
                sweep_html::render(&r),
                sweep_html::default_path(store.path(), &study.id),
            ))
        }
        _ => {
            let r = serde::Deserialize::deserialize(&study.result).map_err(unreadable)?;
            Ok((
                saturate_html::render(&r),
                saturate_html::default_path(store.path(), &study.id),
            ))
        }
    }
}

/// Writes the HTML page of the run `run` (its record, as the store at `store` keeps it) to
/// [`default_html_path`] and returns the path: what a run's HTML exporter makes once the
/// store has kept the run.
pub fn write_run_page(run: &Loaded, store: &Path) -> Result<PathBuf, ReportError> {
    let groups = [Group {
        selector: run.row.id.0.clone(),
        runs: vec![run.clone()],
        excluded: Vec::new(),
    }];
    let path = page_in(store, &run.row.id.0)?;
    write_html(&groups, &path)?;
    Ok(path)
}

/// `2026-11-21 09:27 UTC` from unix seconds (no time-zone database needed).
pub fn utc(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let rem = unix % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The rows that describe a run (id, kind, workload, engine, state, start, versions, seed,
/// machine, tags, error), shared by every report format.
pub fn run_rows(r: &RunRow) -> Vec<(&'static str, String)> {
    let machine = crate::measure::machine::Machine::read(&r.machine)
        .described(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64));
    let tags = r
        .tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut rows = vec![
        ("run", r.id.0.clone()),
        ("kind", r.kind.clone()),
        ("workload", r.workload_shown()),
        ("engine", r.engine.clone().unwrap_or_else(|| "?".into())),
        ("state", r.state.name().to_string()),
        ("started", utc(r.started_unix)),
        ("searchbench", r.tool_version.clone()),
        (
            "seed",
            r.seed.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
        ),
        ("machine", machine),
        (
            "made by",
            crate::measure::provenance::Provenance::read(&r.machine).described(),
        ),
        (
            "engine build",
            crate::measure::provenance::Provenance::read(&r.machine)
                .engine_described()
                .unwrap_or_else(|| "?".into()),
        ),
        ("tags", if tags.is_empty() { "-".into() } else { tags }),
    ];
    if let Some(h) = crate::analysis::said::Said::of(r).headline {
        rows.push((
            "headline",
            format!("{:.0} docs/s = {}", h.docs_per_sec, h.definition),
        ));
    }
    if let Some(e) = &r.error {
        rows.push(("error", e.clone()));
    }
    rows
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(super::utc(1_700_000_000), "2023-11-14 22:13 UTC");
    }

    /// A stored sweep whose answer names a cell it does not hold is refused, naming the
    /// study, not read past the end of its cells; a true one is rendered.
    #[test]
    fn a_stored_sweep_naming_a_cell_it_lacks_is_refused() {
        use crate::analysis::sweep::fixtures::{cell, result_of};
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path().join("r.db")).unwrap();
        let mut r = result_of(vec![
            cell(100, 2, &[1000.0, 1000.0, 1000.0]),
            cell(200, 2, &[1500.0, 1500.0, 1500.0]),
        ]);
        store.put_study("sweep", "s1", 0, &r).unwrap();
        let page = super::named_page(&store, "sweep=s1").unwrap();
        assert!(page.is_some_and(|(html, _)| html.contains("Recommended")));
        r.answer.recommended = Some(99);
        store.put_study("sweep", "s1", 0, &r).unwrap();
        let err = super::named_page(&store, "sweep=s1")
            .unwrap_err()
            .to_string();
        assert!(err.contains("names cell 99, and it holds 2"), "{err}");
        assert!(err.contains("s1"), "{err}");
    }
}
