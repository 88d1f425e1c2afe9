//! Keeping a run in the results store while it goes: created at the start (marked running, so
//! a crash leaves a readable record), timeline and histograms streamed in, finished at the end.
//! Saving never stops a measurement: a store that cannot be written is a warning.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::lifecycle::{Feed, Finished, Identity, Measured, Sink, Streamed};
use super::{Event, Observer, SessionError};
use crate::analysis::runs::Loaded;
use crate::measure::telemetry::Row;
use crate::measure::{SerializedHistogram, TimelineRow};
use crate::report;
use crate::store::{PhaseMeasurements, RunId, Store, StoreError};

/// Where and how a session saves its run.
#[derive(Debug, Clone, Default)]
pub struct SaveSpec {
    /// The results database; `None` for the default location.
    pub store: Option<PathBuf>,
    /// Labels for the run (`--tag k=v`).
    pub tags: Vec<(String, String)>,
    /// Do not save at all (`--no-store`).
    pub skip: bool,
}

impl SaveSpec {
    pub fn open(&self) -> Result<Store, StoreError> {
        match &self.store {
            Some(p) => Store::open(p),
            None => Store::open_default(),
        }
    }

    /// Fails unless runs can be saved (or saving is off): measuring commands check it before
    /// they measure, so a run is never made only to be lost. A store that fails later, in
    /// the middle of a run, is a warning and [`Event::NotSaved`] (the CLI exits 1).
    pub fn check(&self) -> Result<(), StoreError> {
        if self.skip {
            return Ok(());
        }
        let path = match &self.store {
            Some(p) => p.clone(),
            None => crate::store::default_path()?,
        };
        let not_writable = |e: StoreError| match e {
            e @ (StoreError::Foreign { .. }
            | StoreError::NewerSchema { .. }
            | StoreError::NotWritable { .. }) => e,
            e => StoreError::NotWritable {
                path: path.clone(),
                reason: crate::cluster::error_chain(&e),
            },
        };
        Store::open(&path)
            .and_then(|s| s.check_writable())
            .map_err(not_writable)
    }
}

/// A run being saved. Saving never stops a measurement: a store that cannot be written is a
/// warning, the result is still returned, and the observer hears [`Event::NotSaved`].
pub struct Recording<'a> {
    store: Store,
    id: RunId,
    observer: &'a dyn Observer,
}

impl std::fmt::Debug for Recording<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording").field("id", &self.id).finish()
    }
}

impl<'a> Recording<'a> {
    /// Where this run's engine profiles are kept: `profiles/<run id>/` beside the store.
    pub fn profiles_dir(&self) -> PathBuf {
        let store = self.store.path();
        store
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("profiles")
            .join(&self.id.0)
    }

    /// Opens the store and records the start of the run `identity`; `None` when saving is
    /// off or the store cannot be used (after a warning). The identity names the engine when
    /// it is known at the start (one we start, or one asked), so that a run killed halfway
    /// still names it.
    pub fn begin(
        save: &SaveSpec,
        identity: &Identity,
        observer: &'a dyn Observer,
    ) -> Option<Recording<'a>> {
        if save.skip {
            return None;
        }
        let started = save
            .open()
            .and_then(|store| Ok((store.begin_run(identity)?, store)));
        match started {
            Ok((id, store)) => Some(Recording {
                store,
                id,
                observer,
            }),
            Err(e) => {
                observer.event(Event::Warning(format!(
                    "this run will not be saved: {}",
                    crate::cluster::error_chain(&e)
                )));
                observer.event(Event::NotSaved);
                None
            }
        }
    }

    /// The store's file.
    pub fn store_path(&self) -> &std::path::Path {
        self.store.path()
    }

    pub fn id(&self) -> &RunId {
        &self.id
    }

    /// Stores the result; the store and the run's id when it was saved.
    fn finish<T: Serialize>(self, result: &T) -> Option<(Store, RunId)> {
        if let Err(e) = self.store.finish_run(&self.id, result) {
            self.warn(format!("saving run {}: {e}", self.id));
            self.observer.event(Event::NotSaved);
            return None;
        }
        self.observer.event(Event::Saved {
            id: &self.id.0,
            store: self.store.path(),
        });
        Some((self.store, self.id))
    }

    /// Forgets the run: it was refused for bad usage and measured nothing.
    pub fn discard(self) {
        if let Err(e) = self.store.discard_run(&self.id) {
            self.warn(format!("removing run {}: {e}", self.id));
        }
    }

    /// Marks the run failed (keeping a partial result when there is one); the store and the
    /// run's id when it was kept so.
    pub fn fail(self, error: &str, partial: Option<&Value>) -> Option<(Store, RunId)> {
        if let Err(e) = self.store.fail_run(&self.id, error, partial) {
            self.warn(format!("saving run {}: {e}", self.id));
            self.observer.event(Event::NotSaved);
            return None;
        }
        Some((self.store, self.id))
    }

    fn warn(&self, message: String) {
        self.observer.event(Event::Warning(message));
    }
}

/// Where a phase's rows go while it runs: straight into the run's record, or into the run's
/// feed to its sinks (see [`super::lifecycle`]).
pub trait Keep {
    /// Closed seconds of a load's throughput timeline.
    fn timeline(&self, seconds: &[TimelineRow]);
    /// Telemetry samples.
    fn telemetry(&self, rows: &[Row]);
    /// HDR histograms.
    fn histograms(&self, histograms: &[SerializedHistogram]);
}

impl Keep for Recording<'_> {
    fn timeline(&self, seconds: &[TimelineRow]) {
        if let Err(e) = self.store.append_timeline(&self.id, seconds) {
            self.warn(format!("saving the timeline of run {}: {e}", self.id));
        }
    }

    fn telemetry(&self, rows: &[Row]) {
        if let Err(e) = self.store.append_telemetry(&self.id, rows) {
            self.warn(format!("saving the telemetry of run {}: {e}", self.id));
        }
    }

    fn histograms(&self, histograms: &[SerializedHistogram]) {
        if let Err(e) = self.store.put_histograms(&self.id, histograms) {
            self.warn(format!("saving the histograms of run {}: {e}", self.id));
        }
    }
}

impl Keep for Feed {
    fn timeline(&self, seconds: &[TimelineRow]) {
        self.send(Streamed::Timeline(seconds.to_vec()));
    }

    fn telemetry(&self, rows: &[Row]) {
        self.send(Streamed::Telemetry(rows.to_vec()));
    }

    fn histograms(&self, histograms: &[SerializedHistogram]) {
        self.send(Streamed::Histograms(histograms.to_vec()));
    }
}

/// What is made of a run once the store has kept it: its HTML page, its documents in the
/// team's results cluster. An exporter is handed the run's record as the store keeps it
/// ([`Loaded`]) and the store sink's own handle (for what the store keeps of the export
/// itself: where a run was published); it never opens the store, so no exporter depends on
/// the order of the sinks.
pub trait Exporter {
    fn name(&self) -> String;
    /// Makes what it makes of `run`, kept in `store`; `derived`: the command derived the
    /// run's result (no error ended the run).
    fn export(&mut self, run: &Loaded, store: &Store, derived: bool) -> Result<(), String>;
}

/// The results store as a sink of the run's lifecycle: what the phases and instruments stream
/// is kept as it comes, so a run killed halfway keeps it; at the end, the run's result (or
/// the error that ended it), then the run's record read back once and handed to its
/// [`Exporter`]s. The run was begun in the store with its identity before the plan ran
/// ([`super::attach::Attach::kit`]), so `begin` has nothing left to do.
pub struct StoreSink<'o> {
    recording: Option<Recording<'o>>,
    /// Phases kept so far: the next one's place in the run.
    phases: u32,
    /// What is made of the run once it is kept, in order.
    exporters: Vec<Box<dyn Exporter + 'o>>,
}

impl<'o> StoreSink<'o> {
    pub fn new(recording: Recording<'o>) -> Self {
        StoreSink {
            recording: Some(recording),
            phases: 0,
            exporters: Vec::new(),
        }
    }

    /// With `exporter` made of the run once it is kept (after those added before).
    pub fn exporter(mut self, exporter: impl Exporter + 'o) -> Self {
        self.exporters.push(Box::new(exporter));
        self
    }
}

impl Sink for StoreSink<'_> {
    fn name(&self) -> String {
        "results store".into()
    }

    fn begin(&mut self, _run: &Identity, _phases: &[String]) -> Result<(), String> {
        Ok(())
    }

    // A store that cannot be written is told to the observer by the recording itself (a
    // warning and `NotSaved`), so these report no error of their own.
    fn streamed(&mut self, rows: &Streamed) -> Result<(), String> {
        let Some(r) = &self.recording else {
            return Ok(());
        };
        match rows {
            Streamed::Timeline(seconds) => r.timeline(seconds),
            Streamed::Telemetry(rows) => r.telemetry(rows),
            Streamed::Histograms(histograms) => r.histograms(histograms),
            Streamed::Engine(engine) => {
                if let Err(e) = r.store.set_engine(&r.id, engine) {
                    r.warn(format!("saving the engine build of run {}: {e}", r.id));
                }
            }
        }
        Ok(())
    }

    /// What the phase measured, kept as it ends (a run killed in a later phase keeps it).
    fn phase(&mut self, measured: &Measured) -> Result<(), String> {
        let Some(r) = &self.recording else {
            return Ok(());
        };
        let phase = PhaseMeasurements {
            phase: measured.phase.clone(),
            measurements: measured.measurements.clone(),
            kept: measured.instruments.clone(),
        };
        if let Err(e) = r.store.put_phase(&r.id, self.phases, &phase) {
            r.warn(format!(
                "saving the measurements of phase {} of run {}: {e}",
                measured.phase, r.id
            ));
        }
        self.phases += 1;
        Ok(())
    }

    /// Keeps how the run ended, then hands its record to each exporter; what they could not
    /// make is this sink's error (a warning on the run), each named.
    fn finish(&mut self, finished: &Finished) -> Result<(), String> {
        let Some(recording) = self.recording.take() else {
            return Ok(());
        };
        // Not kept (refused for bad usage, or the store failed and said so): nothing to make.
        let Some((store, id)) = end(recording, finished.result) else {
            return Ok(());
        };
        if self.exporters.is_empty() {
            return Ok(());
        }
        let record = store
            .get(&id.0)
            .and_then(|row| Loaded::read(&store, row))
            .map_err(|e| format!("reading run {id} back to export it: {e}"))?;
        let failed: Vec<String> = self
            .exporters
            .iter_mut()
            .filter_map(|e| {
                let made = e.export(&record, &store, finished.result.is_ok());
                made.err().map(|why| format!("{}: {why}", e.name()))
            })
            .collect();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }
}

/// The run's HTML page, made of its record once the store keeps it (a run an error ended has
/// none), and said where.
pub struct HtmlReport<'o> {
    observer: &'o dyn Observer,
}

impl<'o> HtmlReport<'o> {
    /// The page of the run `recording` keeps, said to its observer.
    pub fn of(recording: &Recording<'o>) -> Self {
        HtmlReport {
            observer: recording.observer,
        }
    }
}

impl Exporter for HtmlReport<'_> {
    fn name(&self) -> String {
        "HTML report".into()
    }

    fn export(&mut self, run: &Loaded, store: &Store, derived: bool) -> Result<(), String> {
        if !derived {
            return Ok(());
        }
        let path = report::write_run_page(run, store.path())
            .map_err(|e| format!("writing the HTML report: {e}"))?;
        self.observer.event(Event::ReportWritten { path: &path });
        Ok(())
    }
}

/// Ends the run in the store: its result, or the error that ended it (kept `interrupted` when
/// Ctrl-C stopped it before there was a result); a run refused for bad usage is forgotten.
/// The store and the run's id when the run was kept (its result, or how it failed).
fn end<T: Serialize>(
    recording: Recording<'_>,
    outcome: Result<&T, &SessionError>,
) -> Option<(Store, RunId)> {
    match outcome {
        Ok(result) => recording.finish(result),
        Err(e) if e.is_usage() => {
            recording.discard();
            None
        }
        Err(e @ SessionError::Interrupted(_)) => recording.fail(
            &crate::cluster::error_chain(e),
            Some(&serde_json::json!({ "interrupted": true })),
        ),
        Err(e) => recording.fail(&crate::cluster::error_chain(e), None),
    }
}
