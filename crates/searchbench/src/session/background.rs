//! What else the machine did during a phase, as an instrument of the run's lifecycle: the
//! machine's counters read as the phase starts and as it ends (see `measure::background`),
//! with the CPU the driver and the engine's local nodes spent meanwhile, so that other
//! processes' share can be told apart. An ingest reads its own around the load; this is for
//! the phases that have no such reading of their own (the query method).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use super::lifecycle::{Instrument, Stage, Work};
use crate::measure::background::{Background, Snapshot};

/// What the instrument saw, by phase name.
pub type Kept = RefCell<BTreeMap<String, Background>>;

/// Reads the machine around each phase it is put around; keeps each phase's in `kept`.
pub struct BackgroundInstrument<'p> {
    kept: &'p Kept,
    from: Option<(Snapshot, Option<Duration>, Duration)>,
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
            let engine = crate::os::groups_cpu_time(stage.engine_pids);
            self.from = Some((Snapshot::take(), engine, crate::os::self_cpu()));
            Ok(())
        })
    }

    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<serde_json::Value>, String>> {
        Box::pin(async move {
            let Some((before, engine_before, driver_before)) = self.from.take() else {
                return Ok(None);
            };
            let after = Snapshot::take();
            let driver = crate::os::self_cpu().saturating_sub(driver_before);
            let engine = match (engine_before, crate::os::groups_cpu_time(stage.engine_pids)) {
                (Some(b), Some(a)) => Some(a.saturating_sub(b)),
                _ => None,
            };
            if let Some(b) = before.until(&after, engine.map(|e| e + driver)) {
                self.kept.borrow_mut().insert(phase.to_string(), b);
            }
            Ok(None)
        })
    }
}
