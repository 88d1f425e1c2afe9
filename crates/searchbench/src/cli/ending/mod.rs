//! How every measuring command begins and ends, written once.
//!
//! It begins by listening for Ctrl-C and SIGTERM (the first stops the work and keeps what was
//! done, a second Ctrl-C quits at once) and, for a part of a run in parts, waiting for its
//! `--start-at` (Ctrl-C meanwhile: exit 130, nothing run). It ends by writing the result
//! where `--json` / `--export-json` say and turning what the result says of itself
//! ([`Verdict`]) into the exit code: 0 passed, 130 stopped by Ctrl-C (kept as interrupted),
//! 3 a check failed, 1 the work failed; and a run that passed but could not be kept in the
//! store is exit 1 (see [`Terminal::unless_unsaved`]). A study (a record of runs with its own
//! verdict) ends through [`study::end`].

use serde::Serialize;

pub mod study;

use super::args::{JsonArgs, PartArgs};
use super::exit;
use super::output::Terminal;
use super::progress::{cancel_on_ctrl_c, CtrlC};
use super::{CliError, CliResult};
use crate::cancel::Cancel;
use crate::ingest::IngestReport;
use crate::query::QueryResult;
use crate::session::run::RunResult;
use crate::session::scenario::ScenarioResult;
use crate::session::track_run::TrackRunResult;

/// A measuring command under way: the cancel its work takes, fired by the first Ctrl-C or
/// SIGTERM while this value lives.
pub struct Begun {
    pub cancel: Cancel,
    _ctrl_c: CtrlC,
}

/// Listens for Ctrl-C, then waits for a part's `--start-at` (when `part` has one); Ctrl-C
/// while it waits is exit 130 with nothing run.
pub async fn begin(part: Option<&PartArgs>, quiet: bool) -> Result<Begun, CliError> {
    let begun = listen();
    if let Some(part) = part {
        begun.start_at(part, quiet).await?;
    }
    Ok(begun)
}

/// Listens for Ctrl-C from now on (a command whose work takes the cancel before it may start).
pub fn listen() -> Begun {
    let (cancel, ctrl_c) = cancel_on_ctrl_c();
    Begun {
        cancel,
        _ctrl_c: ctrl_c,
    }
}

impl Begun {
    /// Waits for a part's `--start-at`, if it has one; Ctrl-C meanwhile is exit 130 with
    /// nothing run.
    pub async fn start_at(&self, part: &PartArgs, quiet: bool) -> CliResult {
        if part.wait_for_start(&self.cancel, quiet).await? {
            return Ok(());
        }
        Err(CliError {
            code: exit::INTERRUPTED,
            error: anyhow::anyhow!("interrupted while waiting for --start-at: nothing was run"),
        })
    }
}

/// Exit 130: Ctrl-C stopped the work; `kept` says what was kept of it.
pub fn interrupted(kept: &str) -> CliError {
    CliError {
        code: exit::INTERRUPTED,
        error: anyhow::anyhow!("interrupted: {kept}"),
    }
}

/// What a result says of itself, as an exit code: `Ok` when it passed.
pub trait Verdict {
    fn verdict(&self) -> CliResult;
}

/// The end of every measuring command: `result` written where `json` says, then its verdict;
/// a run that passed but could not be kept in the store is exit 1.
pub fn end<T: Serialize + Verdict>(json: &JsonArgs, terminal: &Terminal, result: &T) -> CliResult {
    super::output::json_to(result, json.target())?;
    terminal.unless_unsaved(result.verdict())
}

impl Verdict for IngestReport {
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted(
                "the load is incomplete (stored as interrupted)",
            ));
        }
        if let Some(error) = &self.error {
            return Err(CliError {
                code: exit::FAILURE,
                error: anyhow::anyhow!("the load stopped early: {error}"),
            });
        }
        if !self.counts.reconciled {
            return Err(CliError::check(anyhow::anyhow!(
                "counts do not reconcile: {}",
                super::output::ingest::reconcile_line(self)
            )));
        }
        if let Some(limit) = self.failure_limit.as_ref().filter(|l| l.exceeded) {
            return Err(CliError::check(anyhow::anyhow!(
                "{}",
                super::output::ingest::failure_limit_line(limit)
            )));
        }
        Ok(())
    }
}

impl Verdict for QueryResult {
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted(
                "the figures cover the coverages measured before Ctrl-C (stored as interrupted)",
            ));
        }
        if !self.passed() {
            return Err(CliError::check(anyhow::anyhow!(
                "{} wrong answer(s), {} failed request(s)",
                self.failures_total,
                self.request_errors()
            )));
        }
        Ok(())
    }
}

impl Verdict for RunResult {
    /// The load's verdict first, then the query phase's.
    fn verdict(&self) -> CliResult {
        self.ingest.verdict()?;
        if self.query_interrupted {
            return Err(interrupted(
                "during the query phase (stored as interrupted)",
            ));
        }
        match &self.query {
            Some(q) if !q.passed() => Err(CliError::check(anyhow::anyhow!(
                "queries: {} wrong answer(s), {} failed request(s)",
                q.failures_total,
                q.request_errors()
            ))),
            _ => Ok(()),
        }
    }
}

impl Verdict for TrackRunResult {
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            let kept = "the tasks that ran are kept (stored as interrupted)";
            return Err(interrupted(&match &self.stopped_by {
                Some(by) => format!("{by}; {kept}"),
                None => kept.to_string(),
            }));
        }
        match &self.error {
            Some(e) => Err(CliError::check(anyhow::anyhow!("{e}"))),
            None => Ok(()),
        }
    }
}

impl Verdict for ScenarioResult {
    /// Judged by the rule the store keeps its state by (`store::outcome_of`), so that the
    /// exit code and the stored state never disagree.
    fn verdict(&self) -> CliResult {
        if self.interrupted {
            return Err(interrupted("the scenario is incomplete (stored as such)"));
        }
        let judged = serde_json::to_value(self).map(|v| crate::store::outcome_of(&v));
        match judged {
            Ok((crate::store::State::Complete, _)) => Ok(()),
            Ok((_, why)) => Err(CliError::check(anyhow::anyhow!(
                "the scenario did not complete cleanly ({}): {} of {} indices complete",
                why.unwrap_or_else(|| "failed".into()),
                self.counts.complete_indices,
                self.counts.expected_indices,
            ))),
            Err(e) => Err(anyhow::anyhow!("encoding the scenario's result: {e}").into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(interrupted: bool, error: Option<&str>) -> TrackRunResult {
        TrackRunResult {
            track: "t".into(),
            procedure: "p".into(),
            procedure_word: "challenge".into(),
            product: "opensearch".into(),
            engine_version: "2.19.1".into(),
            interrupted,
            stopped_by: None,
            error: error.map(str::to_string),
            tasks: Vec::new(),
            not_run: Vec::new(),
            synthesized: Vec::new(),
            telemetry: None,
        }
    }

    fn code(result: CliResult) -> i32 {
        result.err().map_or(exit::OK, |e| e.code)
    }

    #[test]
    fn a_result_says_its_exit_code_ctrl_c_before_failed_checks() {
        assert_eq!(code(track(false, None).verdict()), exit::OK);
        assert_eq!(
            code(track(false, Some("2 tasks failed")).verdict()),
            exit::CHECK_FAILED
        );
        // Stopped by Ctrl-C: 130 even when what ran had errors (it is not a verdict on them).
        assert_eq!(
            code(track(true, Some("1 task failed")).verdict()),
            exit::INTERRUPTED
        );
        // Stopped by the worker's end: 130, saying so.
        let mut died = track(true, None);
        died.stopped_by = Some("the Python worker ended: Killed".into());
        let e = died.verdict().unwrap_err();
        assert_eq!(
            (e.code, e.error.to_string()),
            (
                exit::INTERRUPTED,
                "interrupted: the Python worker ended: Killed; the tasks that ran are kept \
                 (stored as interrupted)"
                    .to_string()
            )
        );
        let e = interrupted("what ran is kept");
        assert_eq!(e.code, exit::INTERRUPTED);
        assert_eq!(e.error.to_string(), "interrupted: what ran is kept");
    }
}
