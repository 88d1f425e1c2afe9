//! The terminal's observer of a session: status lines, the load's progress bar, each phase's
//! tables; and a study kept in the store.

use super::{ingest, profile, query, telemetry};

/// How much of a result the terminal shows: what it came to, on one screen (the headline,
/// what bounded it, the verdicts, where the report is), or every table (`--verbose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Brief,
    Full,
}

/// What `--verbose` asks for.
pub fn detail(verbose: bool) -> Detail {
    if verbose {
        Detail::Full
    } else {
        Detail::Brief
    }
}

/// The terminal's observer of a session: status lines on stderr, a progress bar while a load
/// runs, phase results on stdout.
#[derive(Debug)]
pub struct Terminal {
    /// No status lines about the load (warnings and results still print).
    pub quiet: bool,
    /// Phase results as tables on stdout; off when the JSON result goes to stdout.
    pub tables: bool,
    /// How much of each phase's result the tables show (every table unless a command says).
    pub detail: Detail,
    /// Each step's engine profile as its step ends (a track's tasks: their results do not
    /// carry one).
    pub step_profiles: bool,
    bar: std::sync::Mutex<crate::cli::progress::Bar>,
    /// A run of this command could not be saved ([`crate::session::Event::NotSaved`]).
    not_saved: std::sync::atomic::AtomicBool,
}

impl Terminal {
    pub fn new(quiet: bool) -> Self {
        Terminal {
            quiet,
            tables: true,
            detail: Detail::Full,
            step_profiles: false,
            bar: Default::default(),
            not_saved: Default::default(),
        }
    }

    /// `outcome`, unless it is a success while a run could not be saved: then exit 1, after
    /// the result was printed (a run that is not kept is not a success).
    pub fn unless_unsaved(&self, outcome: crate::cli::CliResult) -> crate::cli::CliResult {
        match outcome {
            Ok(()) if self.not_saved.load(std::sync::atomic::Ordering::Relaxed) => {
                Err(crate::cli::CliError {
                    code: crate::cli::exit::FAILURE,
                    error: anyhow::anyhow!(
                        "the run is done but could not be saved in the results store (see the \
                         warning above); fix the store or pass --no-store"
                    ),
                })
            }
            other => other,
        }
    }

    /// For a command with output flags: no tables on stdout when `--json` puts JSON there.
    pub fn for_output(out: &crate::cli::args::OutputArgs) -> Self {
        Terminal {
            tables: !out.json_on_stdout(),
            ..Terminal::new(out.quiet)
        }
    }
}

impl crate::session::Observer for Terminal {
    fn event(&self, event: crate::session::Event<'_>) {
        use crate::session::Event;
        match event {
            Event::EngineStarting { engine, nodes } => {
                let nodes = if nodes > 1 {
                    format!(" ({nodes} nodes)")
                } else {
                    String::new()
                };
                errln!("starting {engine}{nodes} for this run (it stops when the run ends)")
            }
            Event::EngineUp {
                engine,
                url,
                pid,
                nodes,
                boot,
            } => {
                let cluster = if nodes > 1 {
                    format!("{nodes} nodes, first ")
                } else {
                    String::new()
                };
                errln!(
                    "{engine} is up at {url} ({cluster}pid {pid}, {:.1} s)",
                    boot.as_secs_f64()
                )
            }
            Event::Loading {
                corpus,
                index,
                url,
                clients,
                bulk_docs,
                gzip,
            } => {
                if !self.quiet {
                    errln!(
                        "loading {corpus} into {index} at {url} ({clients} client(s), \
                         {bulk_docs} docs per request{})",
                        if gzip { ", gzip" } else { "" }
                    );
                }
            }
            Event::Querying {
                index,
                workload,
                has_queries,
            } => {
                if has_queries {
                    errln!("\nquerying {index} ({workload} workload)");
                } else {
                    errln!("\nthe {workload} workload has no query phase");
                }
            }
            Event::Progress(p) => self
                .bar
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .update(&p),
            Event::Ingested(report) if self.tables => {
                ingest::print(report, self.detail);
                telemetry::print(report.telemetry.as_ref(), self.detail);
            }
            Event::Queried(result) if self.tables && self.detail == Detail::Brief => {
                outln!();
                query::print(result, self.detail);
                telemetry::print_bounds(result.telemetry.as_ref(), "query phase ");
            }
            Event::Queried(result) if self.tables => {
                query::print(result, self.detail);
                telemetry::print(result.telemetry.as_ref(), self.detail);
            }
            Event::Ingested(_) | Event::Queried(_) => {}
            Event::Saved { id, store } => errln!(
                "saved as run {id} in {} (searchbench results show {id})",
                store.display()
            ),
            Event::ReportWritten { path } if self.tables && self.detail == Detail::Brief => {
                outln!(
                    "report: {} (every table; --verbose prints them here)",
                    path.display()
                )
            }
            Event::ReportWritten { path } if self.tables => outln!("report: {}", path.display()),
            Event::ReportWritten { path } => errln!("report: {}", path.display()),
            Event::Warning(message) => errln!("warning: {message}"),
            Event::NotSaved => self
                .not_saved
                .store(true, std::sync::atomic::Ordering::Relaxed),
            Event::Stage(message) => errln!("{message}"),
            Event::Watched { phase, kept } if self.step_profiles && self.tables => {
                if let Some(p) = crate::measure::profile::Profile::kept_in(kept) {
                    outln!("{phase}:");
                    profile::print(&p, self.detail);
                }
            }
            Event::Watched { .. } => {}
        }
    }
}

/// Keeps a study's whole result in the store (unless saving is off); a store that fails here
/// is a warning: the runs are stored, and the result is printed and written beside the page.
pub fn keep_study<T: serde::Serialize>(
    save: &crate::session::SaveSpec,
    kind: &str,
    id: &str,
    started_unix: u64,
    result: &T,
) {
    if save.skip {
        return;
    }
    let kept = save
        .open()
        .and_then(|store| store.put_study(kind, id, started_unix, result));
    if let Err(e) = kept {
        errln!("warning: keeping the {kind} {id} in the store: {e}");
    }
}
