//! A team's nightly site: static, offline pages from the store (or the team's results
//! cluster, read back). `index.html` lists every configuration with its newest point, the
//! verdict of that point against the one before and its latest change point, then charts
//! each one's headline over the axis with its change points (the overview); each
//! configuration has its page (its history: every headline metric over the axis, errors and
//! GC beside speed, change points marked with the runs and versions either side, the spread of
//! each point's runs), and each run its own report under `runs/`. Nothing is fetched when a
//! page is opened.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::history_html::{self, Links};
use super::page::esc;
use super::{plain, utc, ReportError};
use crate::analysis::compare::{format_verdict, Verdict};
use crate::analysis::history::History;
use crate::store::{Store, StoreError};

/// What a site holds, as `site --json` says it.
#[derive(Debug, Clone, Serialize)]
pub struct Site {
    pub dir: PathBuf,
    pub configurations: Vec<Entry>,
    pub runs: usize,
    /// Pages written: the index, the configurations' and the runs'.
    pub pages: usize,
    /// The largest page, bytes.
    pub largest_page_bytes: u64,
    /// The runs whose own report is not in the site, each with why: an id that cannot name
    /// a page, or stored data that does not read (a store edited by hand or damaged). The
    /// rest of the site is written and links none of them: one damaged run hides no other.
    pub left_out: Vec<String>,
}

/// One configuration on the index.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub id: String,
    pub summary: String,
    pub page: String,
    pub runs: usize,
    pub points: usize,
    pub newest: String,
    /// The newest point against the one before, on the headline metrics: `worse`, `better`,
    /// `no change` or `cannot tell`; none with a single point.
    pub verdict: Option<String>,
    pub change_points: usize,
    /// The latest change point (on a headline metric when one has any): its metric,
    /// direction, size and the points either side.
    pub latest_change: Option<String>,
}

/// Writes the site of `histories` into `dir`: the index, a page per configuration and, with
/// `store`, a report per run.
pub fn write(
    histories: &[History],
    store: Option<&Store>,
    dir: &Path,
) -> Result<Site, ReportError> {
    let mut entries = Vec::new();
    let mut overviews = Vec::new();
    let mut pages = 0;
    let mut largest = 0u64;
    let mut runs = 0;
    let mut left_out = Vec::new();
    let mut page = |rel: &Path, text: &str| -> Result<(), ReportError> {
        super::write_page_in(dir, rel, text)?;
        pages += 1;
        largest = largest.max(text.len() as u64);
        Ok(())
    };
    for h in histories {
        let id = &h.configuration.id;
        if !plain(id) {
            return Err(ReportError::Unsafe(format!("configuration id {id:?}")));
        }
        let mut paged = Vec::new();
        for r in h.runs.iter().filter(|_| store.is_some()) {
            match run_page(store, &r.id)? {
                Ok(text) => {
                    page(&Path::new("runs").join(format!("{}.html", r.id)), &text)?;
                    paged.push(r.id.as_str());
                }
                Err(why) => left_out.push(why),
            }
        }
        let name = format!("config-{id}.html");
        let link = |run: &str| paged.contains(&run).then(|| format!("runs/{run}.html"));
        let links = Links {
            index: "index.html",
            run: &link,
        };
        page(
            Path::new(&name),
            &history_html::render_with(h, Some(&links)),
        )?;
        runs += h.runs.len();
        entries.push(entry(h, name));
        overviews.extend(history_html::overview(h));
    }
    page(Path::new("index.html"), &index(&entries, runs, overviews))?;
    Ok(Site {
        dir: dir.to_path_buf(),
        configurations: entries,
        runs,
        pages,
        largest_page_bytes: largest,
        left_out,
    })
}

/// The report of the run `id` as its page, or why it has none (`Err` inside): an id that
/// cannot name a file, or stored data that does not read. What fails otherwise (the store
/// itself) fails the site.
fn run_page(store: Option<&Store>, id: &str) -> Result<Result<String, String>, ReportError> {
    let Some(store) = store.filter(|_| plain(id)) else {
        return Ok(Err(format!("run {id:?}: its id cannot name a page")));
    };
    match super::load(store, &[id.to_string()], false) {
        Ok(groups) => Ok(Ok(super::html::render(&groups, None))),
        Err(ReportError::Store(StoreError::Corrupt(why))) if why.contains(id) => Ok(Err(why)),
        Err(ReportError::Store(StoreError::Corrupt(why))) => Ok(Err(format!("run {id}: {why}"))),
        Err(e) => Err(e),
    }
}

fn entry(h: &History, page: String) -> Entry {
    let newest = h.points.last().map(|p| p.label.clone()).unwrap_or_default();
    let last: Vec<_> = h.verdicts.iter().filter(|v| v.to == newest).collect();
    // The newest step's word, then each headline metric's own.
    let verdict = (!last.is_empty()).then(|| {
        let word = if last.iter().any(|v| v.cell.verdict == Verdict::Worse) {
            "worse"
        } else if last.iter().any(|v| v.cell.verdict == Verdict::Better) {
            "better"
        } else if last
            .iter()
            .all(|v| v.cell.verdict == Verdict::NoSignificantChange)
        {
            "no significant change"
        } else {
            "cannot tell"
        };
        let each: Vec<String> = last
            .iter()
            .map(|v| format!("{} {}", v.label, format_verdict(&v.cell, h.threshold_pct)))
            .collect();
        format!("{word} ({})", each.join("; "))
    });
    let changes = h.change_points();
    // The latest on a headline metric (what the team reads first), else the latest of any.
    let headline = |key: &str| crate::analysis::history::HEADLINE.contains(&key);
    let latest = changes
        .iter()
        .rfind(|(s, _)| headline(&s.key))
        .or(changes.last());
    // An improvement the history holds suspect (more errors, fewer documents) is said as
    // such, as its page and `history` say it: `compare` would call it not better.
    let latest_change = latest.map(|(s, c)| {
        let suspect = match c.suspect.is_empty() {
            true => String::new(),
            false => format!(" (suspect: {})", c.suspect.join("; ")),
        };
        format!(
            "{} {}{} from {} to {}{suspect}",
            s.label,
            c.change.shift.name(),
            c.change
                .size_pct
                .map(|v| format!(" {v:+.1} %"))
                .unwrap_or_default(),
            c.from,
            c.to
        )
    });
    Entry {
        id: h.configuration.id.clone(),
        summary: h.configuration.summary(),
        page,
        runs: h.runs.len(),
        points: h.points.len(),
        newest,
        verdict,
        change_points: changes.len(),
        latest_change,
    }
}

fn index(entries: &[Entry], runs: usize, overviews: Vec<super::chart::Chart>) -> String {
    let mut body = format!(
        "<p>{} configuration(s), {runs} run(s). Each configuration's page has every metric over \
         the axis with its change points; each run its report. Made {}.</p>\
         <table id=\"configurations\"><tr><th>configuration</th><th>runs</th><th>points</th>\
         <th>newest</th><th>newest against the one before</th><th>change points</th>\
         <th>latest change</th></tr>",
        entries.len(),
        esc(&utc(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()))),
    );
    for e in entries {
        let class = match e.verdict.as_deref() {
            Some(v) if v.starts_with("worse") => "worse",
            Some(v) if v.starts_with("better") => "better",
            _ => "same",
        };
        let _ = write!(
            body,
            "<tr data-configuration=\"{}\"><td><a href=\"{}\">{}</a><br><small>{}</small></td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>\
             <td class=\"{class}\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&e.id),
            esc(&e.page),
            esc(&e.summary),
            esc(&e.id),
            e.runs,
            e.points,
            esc(&e.newest),
            esc(e
                .verdict
                .as_deref()
                .unwrap_or("one point: nothing to compare")),
            e.change_points,
            esc(e.latest_change.as_deref().unwrap_or("none")),
        );
    }
    body.push_str("</table>");
    let charts = super::chart::grid(overviews);
    if !charts.is_empty() {
        body.push_str(
            "<h2 id=\"overview\">Overview</h2><p>Each configuration's headline over its nights \
             (or versions): a dot per run, the median of each point joined, each change point a \
             dashed line where the new level starts (the rule on each configuration's page).</p>",
        );
        body.push_str(&charts);
    }
    super::page::render(
        "searchbench: every configuration",
        "the team's runs, one line a configuration",
        &body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_planted_in_the_site_folder_are_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("index.html")).unwrap();
        let e = write(&[], None, dir.path()).unwrap_err().to_string();
        assert!(e.contains("index.html") && e.contains("link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // Removed, the site is written, beside a file of the user's.
        std::fs::remove_file(dir.path().join("index.html")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        write(&[], None, dir.path()).unwrap();
        assert!(dir.path().join("index.html").is_file());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "mine"
        );
    }

    /// An improvement the history holds suspect (faster, but refusing documents) is said
    /// suspect on the index, as its page and `history` say it.
    #[test]
    fn a_suspect_improvement_is_said_suspect_on_the_index() {
        use crate::analysis::configuration::Configuration;
        use crate::analysis::history::{build, Axis, Selection};
        use crate::analysis::runs::Loaded;
        use crate::store::{RunId, RunRow, State};
        let rows: Vec<RunRow> = (0..12u64)
            .map(|i| {
                let (dps, refused, indexed) = match i >= 6 {
                    true => (1300.0, 50, 950),
                    false => (1000.0, 0, 1000),
                };
                RunRow {
                    id: RunId(format!("{i:08x}")),
                    kind: "run".into(),
                    workload: "logs".into(),
                    engine: Some(format!("opensearch-2.{i}.0")),
                    status: "complete".into(),
                    state: State::Complete,
                    started_unix: 1_700_000_000 + i,
                    finished_unix: None,
                    tool_version: "0".into(),
                    seed: Some(1),
                    pid: None,
                    machine: serde_json::Value::Null,
                    config: serde_json::json!({"clients": 2}),
                    tags: Default::default(),
                    error: None,
                    result: Some(serde_json::json!({
                        "docs_per_sec": dps + i as f64,
                        "counts": {"indexed": indexed, "refused": refused, "unacknowledged": 0},
                    })),
                }
            })
            .collect();
        let c = Configuration::of(&rows[0]);
        let loaded = rows.into_iter().map(Loaded::bare).collect();
        let h = build(c, loaded, &Selection::new(Axis::Version), Vec::new()).unwrap();
        let change = entry(&h, "p.html".into()).latest_change.unwrap();
        assert!(
            change.contains("improvement") && change.contains("(suspect: "),
            "{change}"
        );
    }

    #[test]
    fn only_plain_ids_become_files() {
        for ok in ["3fa9c2e1", "run-1_a"] {
            assert!(plain(ok), "{ok}");
        }
        for bad in ["", "../x", "a/b", "a b", ".", "x\0", &"a".repeat(200)] {
            assert!(!plain(bad), "{bad:?}");
        }
    }
}
