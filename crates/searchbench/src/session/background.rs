//! What else the machine did during a phase, as an instrument of the run's lifecycle: the
//! machine's counters read as the phase starts and as it ends (see `measure::background`),
//! with the CPU the driver and the engine's local nodes spent meanwhile, so that other
//! processes' share can be told apart. An ingest reads its own around the load; this is for
//! the phases that have no such reading of their own (the query method).

use super::lifecycle::{Instrument, Stage, Work};
use crate::measure::background::{Around, Background};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// What the instrument saw, by phase name.
pub type Kept = RefCell<BTreeMap<String, Background>>;

/// Reads the machine around each phase it is put around; keeps each phase's in `kept`.
pub struct BackgroundInstrument<'p> {
    kept: &'p Kept,
    from: Option<Around>,
}

impl<'p> BackgroundInstrument<'p> {
    pub fn new(kept: &'p Kept) -> Self {
        BackgroundInstrument { kept, from: None }
    }
}

impl Instrument for BackgroundInstrument<'_> {
    fn name(&self) -> String {
        "background".into()
    }

    fn start<'a>(
        &'a mut self,
        _phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<(), String>> {
        Box::pin(async move {
            self.from = Some(Around::start(stage.engine_pids));
            Ok(())
        })
    }

    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<serde_json::Value>, String>> {
        Box::pin(async move {
            let Some(around) = self.from.take() else {
                return Ok(None);
            };
            if let Some(b) = around.stop(stage.engine_pids).background {
                self.kept.borrow_mut().insert(phase.to_string(), b);
            }
            Ok(None)
        })
    }
}
