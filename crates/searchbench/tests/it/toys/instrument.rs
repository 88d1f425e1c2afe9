//! A toy instrument: notes the phase it is started and stopped around, and says what it saw
//! (the phase's name and how long the step took) both to the phase (typed) and to the sinks:
//! the step's wall time as a figure, judged like any metric of the run, and the phase's name
//! as its detail.

use std::time::Instant;

use searchbench::session::lifecycle::{Better, Figure, Hand, Instrument, Merge, Seen, Stage, Work};
use searchbench::session::Attach;
use serde_json::json;

use super::Heard;

pub const NAME: &str = "toy-instrument";

/// What it sees, typed: how long the step took, when it was started.
pub const STEP: Hand<Option<f64>> = Hand::new(NAME);

/// The key of its figure: a run's metric `<phase>.toy-instrument.step_secs`.
pub const FIGURE: &str = "step_secs";

/// The label of its figure.
pub const LABEL: &str = "toy: wall time of the step";

struct Stopwatch {
    heard: Heard,
    started: Option<Instant>,
}

impl Instrument for Stopwatch {
    fn name(&self) -> String {
        NAME.into()
    }

    fn start<'a>(&'a mut self, phase: &'a str, _: &'a Stage<'a>) -> Work<'a, Result<(), String>> {
        Box::pin(async move {
            self.started = Some(Instant::now());
            self.heard
                .lock()
                .map_err(|e| e.to_string())?
                .push(format!("start {phase}"));
            Ok(())
        })
    }

    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        _: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        Box::pin(async move {
            let took = self.started.take().map(|t| t.elapsed().as_secs_f64());
            self.heard
                .lock()
                .map_err(|e| e.to_string())?
                .push(format!("stop {phase}"));
            let mut seen = STEP.seen(took).kept(json!({"phase": phase}));
            if let Some(secs) = took {
                let figure = Figure::new(LABEL, "s", Better::Lower, secs).merged_by(Merge::Max);
                seen = seen.figure(FIGURE, figure);
            }
            Ok(Some(seen))
        })
    }
}

/// Adds the toy instrument to every run `attach` makes; what it hears goes to `heard`.
pub fn add(attach: &mut Attach, heard: &Heard) {
    let heard = heard.clone();
    attach.instruments.push(std::sync::Arc::new(move || {
        Box::new(Stopwatch {
            heard: heard.clone(),
            started: None,
        })
    }));
}
