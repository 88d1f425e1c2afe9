//! A toy sink: notes which run it is told of, each phase's measurements (with what the toy
//! instrument kept beside them) and how the run ended.

use searchbench::session::lifecycle::{Finished, Identity, Measured, Sink};
use searchbench::session::Attach;

use super::Heard;

struct Notebook {
    heard: Heard,
}

impl Notebook {
    fn note(&self, line: String) -> Result<(), String> {
        self.heard.lock().map_err(|e| e.to_string())?.push(line);
        Ok(())
    }
}

impl Sink for Notebook {
    fn name(&self) -> String {
        "toy-sink".into()
    }

    fn begin(&mut self, run: &Identity, phases: &[String]) -> Result<(), String> {
        self.note(format!(
            "begin {} {} [{}]",
            run.kind.name(),
            run.workload,
            phases.join(",")
        ))
    }

    fn phase(&mut self, measured: &Measured) -> Result<(), String> {
        let seen = measured
            .instruments
            .get(super::instrument::NAME)
            .and_then(|kept| kept.detail.as_ref())
            .map_or("-".to_string(), |detail| detail["phase"].to_string());
        self.note(format!("phase {} seen={seen}", measured.phase))
    }

    fn finish(&mut self, finished: &Finished) -> Result<(), String> {
        self.note(format!(
            "finish {} phases={}",
            if finished.result.is_ok() {
                "ok"
            } else {
                "error"
            },
            finished.outcome.phases.len()
        ))
    }
}

/// Adds the toy sink to every run `attach` makes; what it hears goes to `heard`.
pub fn add(attach: &mut Attach, heard: &Heard) {
    let heard = heard.clone();
    attach.sinks.push(std::sync::Arc::new(move || {
        Box::new(Notebook {
            heard: heard.clone(),
        })
    }));
}
