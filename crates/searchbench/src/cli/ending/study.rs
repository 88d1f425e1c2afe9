//! How every study ends, written once. A study (`sweep`, `saturate`, `matrix`, `calibrate`,
//! `experiment dates`, `versions bisect`) is a record of runs with its own verdict: each of
//! its runs ends as any run does (kept in the store, exported), and the study itself ends
//! here: its whole result written where `--json` / `--export-json` say (before anything that
//! could fail, so a page that cannot be written loses no result), kept in the store beside
//! its runs when it has a page to draw again (`report KIND=ID`), its pages, its tables
//! (unless the JSON is on stdout), then its verdict as the exit code, as a run's
//! ([`Verdict`]): 130 stopped by Ctrl-C with what was kept, 3 a failed check, 125 cannot
//! tell, 1 a run that failed or was not kept.

use serde::Serialize;

use super::{interrupted, Verdict};
use crate::analysis::saturate::SaturateResult;
use crate::analysis::sweep::SweepResult;
use crate::cli::args::JsonArgs;
use crate::cli::output::{self, Terminal};
use crate::cli::{exit, CliError, CliResult};
use crate::session::bisect::BisectResult;
use crate::session::calibrate::Calibration;
use crate::session::matrix::Matrix;
use crate::session::SaveSpec;

/// A study's whole result: what it says of itself ([`Verdict`]), where the store keeps it,
/// and its tables.
pub trait Study: Serialize + Verdict {
    /// The kind, id and start the store keeps the whole study under, beside its runs (so
    /// that `report KIND=ID` draws its page again); `None` for a study with no page.
    fn kept_as(&self) -> Option<(&'static str, &str, u64)> {
        None
    }
    /// Its tables on the terminal.
    fn print(&self);
}

/// The end of every study: `result` written where `json` says, kept in `save`'s store
/// beside its runs, `pages` (a page of its own: its failure is the command's, after the
/// JSON), its tables unless the JSON is on stdout, then its verdict; a study one of whose
/// runs was not kept is exit 1.
pub fn end<T: Study>(
    json: &JsonArgs,
    save: &SaveSpec,
    terminal: &Terminal,
    result: &T,
    pages: impl FnOnce(&T) -> CliResult,
) -> CliResult {
    output::json_to(result, json.target())?;
    if let Some((kind, id, started_unix)) = result.kept_as() {
        output::keep_study(save, kind, id, started_unix, result);
    }
    pages(result)?;
    if !json.on_stdout() {
        result.print();
    }
    terminal.unless_unsaved(result.verdict())
}

/// No page of its own.
pub fn no_pages<T>(_: &T) -> CliResult {
    Ok(())
}

impl Verdict for SweepResult {
    /// No recommendation: vague intervals are "cannot tell" (125), as in `check`; no clean
    /// cell is a failed check (3).
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted(&format!(
                "the sweep stopped early; the finished runs are kept (tag sweep={})",
                self.id
            )));
        }
        if self.answer.recommended.is_some() {
            return Ok(());
        }
        let vague = self.answer.why.starts_with("not enough data");
        Err(CliError {
            code: if vague {
                exit::CANNOT_TELL
            } else {
                exit::CHECK_FAILED
            },
            error: anyhow::anyhow!("no recommendation: {}", self.answer.why),
        })
    }
}

impl Study for SweepResult {
    fn kept_as(&self) -> Option<(&'static str, &str, u64)> {
        Some(("sweep", &self.id, self.started_unix))
    }

    fn print(&self) {
        output::sweep::print(self);
    }
}

impl Verdict for SaturateResult {
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted("the steps so far are kept"));
        }
        if self.max_sustainable_docs_per_sec.is_none() {
            return Err(CliError::check(anyhow::anyhow!(
                "no step sustained its rate within the limits (lowest tried: {:.0} docs/s)",
                self.steps
                    .iter()
                    .map(|s| s.offered_docs_per_sec)
                    .fold(f64::INFINITY, f64::min)
            )));
        }
        Ok(())
    }
}

impl Study for SaturateResult {
    fn kept_as(&self) -> Option<(&'static str, &str, u64)> {
        Some(("saturate", &self.id, self.started_unix))
    }

    fn print(&self) {
        output::rate::print_saturate(self);
    }
}

impl Verdict for Matrix {
    /// Stopped, or a run that did not complete (listed in its tables): the matrix is no
    /// comparison of its engines.
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted(&format!(
                "matrix {} interrupted after {} of {} runs (what is done is kept)",
                self.id,
                self.done.len(),
                self.order.len()
            )));
        }
        let incomplete = self
            .done
            .iter()
            .filter(|d| d.state != Some(crate::store::State::Complete))
            .count();
        if incomplete > 0 {
            return Err(CliError::from(anyhow::anyhow!(
                "matrix {}: {incomplete} of {} run(s) did not complete (listed above)",
                self.id,
                self.order.len()
            )));
        }
        Ok(())
    }
}

impl Study for Matrix {
    fn print(&self) {
        output::matrix::print(self);
    }
}

impl Verdict for Calibration {
    /// Each run's own verdict stopped the calibration as it ended: what is left passed.
    fn verdict(&self) -> CliResult {
        Ok(())
    }
}

impl Study for Calibration {
    fn print(&self) {
        output::calibrate::print(self);
    }
}

impl Verdict for BisectResult {
    fn verdict(&self) -> CliResult {
        match self.bisection.outcome {
            crate::session::bisect::search::Outcome::CannotTell { .. } => Err(CliError {
                code: exit::CANNOT_TELL,
                error: anyhow::anyhow!("cannot tell which release changed {}", self.metric),
            }),
            _ => Ok(()),
        }
    }
}

impl Study for BisectResult {
    fn print(&self) {
        output::bisect::bisection(self);
    }
}
