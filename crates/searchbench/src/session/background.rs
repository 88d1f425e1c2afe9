//! What else the machine did during a phase, as an instrument of the run's lifecycle: the
//! machine's counters read as the phase starts and as it ends (see `measure::background`),
//! with the CPU the driver and the engine's local nodes spent meanwhile, so that other
//! processes' share can be told apart. An ingest reads its own around the load; this is for
//! the phases that have no such reading of their own (the query method).

use super::lifecycle::{Hand, Instrument, Seen, Stage, Work};
use crate::measure::background::Around;
use crate::measure::background::Background;

/// The background instrument's name: what a phase takes its [`Background`] under.
pub const BACKGROUND: Hand<Background> = Hand::new("background");

/// Reads the machine around each phase it is put around; what it saw is the [`Background`].
#[derive(Default)]
pub struct BackgroundInstrument {
    from: Option<Around>,
}

impl BackgroundInstrument {
    pub fn new() -> Self {
        BackgroundInstrument::default()
    }
}

impl Instrument for BackgroundInstrument {
    fn name(&self) -> String {
        BACKGROUND.name().into()
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
        _phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        Box::pin(async move {
            let Some(around) = self.from.take() else {
                return Ok(None);
            };
            Ok(around
                .stop(stage.engine_pids)
                .background
                .map(|b| BACKGROUND.seen(b)))
        })
    }
}
