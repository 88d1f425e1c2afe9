//! What is attached to a run: its identity, its instruments and its sinks, built once from the
//! flags (as hyperfine builds its exporters once from its options) and handed to the
//! lifecycle of every command and scenario, so `--no-telemetry`, `--telemetry-interval`,
//! `--profile`, `--no-store`, `--store` and `--tag` mean the same wherever they are given.
//!
//! A session says only which phases the run's instruments watch ([`Scope`]); the attachment
//! makes them, begins the run in the store, and adds the caller's own instruments and sinks
//! ([`Attach::instruments`], [`Attach::sinks`]: a library user's, a test's) around every phase.

use std::sync::Arc;

use serde_json::Value;

use super::lifecycle::{around, Instrument, Plan, Sink};
use super::profile::{ProfileInstrument, ProfileSpec};
use super::record::{HtmlReport, Recording, SaveSpec, StoreSink};
use super::telemetry::{TelemetryInstrument, TelemetrySpec};
use super::Observer;
use crate::store::Kind;

pub use super::lifecycle::Identity;

/// Makes a fresh instrument for each run (a caller's own, around every phase).
pub type MakeInstrument = Arc<dyn Fn() -> Box<dyn Instrument> + Send + Sync>;
/// Makes a fresh sink for each run (a caller's own, after the store and the report).
pub type MakeSink = Arc<dyn Fn() -> Box<dyn Sink> + Send + Sync>;

/// What the flags attach to every run of a command: built once, cloned into each run.
#[derive(Clone, Default)]
pub struct Attach {
    /// Where runs are kept, and their tags.
    pub save: SaveSpec,
    /// Whether and how often telemetry samples.
    pub telemetry: TelemetrySpec,
    /// The engine profile (`--profile`), when asked.
    pub profile: Option<ProfileSpec>,
    /// A caller's own instruments, each made anew for every run and put around every phase.
    pub instruments: Vec<MakeInstrument>,
    /// A caller's own sinks, each made anew for every run, told after the store and report.
    pub sinks: Vec<MakeSink>,
    /// The team's results cluster each kept run is published to (`--publish`), after the
    /// store and the report.
    pub publish: Option<Arc<crate::publish::Publisher>>,
    /// The CSV file each kept run is added to (`--export-csv`).
    pub csv: Option<Arc<super::csv::CsvFile>>,
}

impl std::fmt::Debug for Attach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attach")
            .field("save", &self.save)
            .field("telemetry", &self.telemetry)
            .field("profile", &self.profile)
            .field("instruments", &self.instruments.len())
            .field("sinks", &self.sinks.len())
            .field("publish", &self.publish.as_ref().map(|p| p.destination()))
            .field("csv", &self.csv.as_ref().map(|c| c.path()))
            .finish()
    }
}

/// Which phases an instrument of the run watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// Every step of the run.
    Every,
    /// The phase of this name alone (a query command's method, not its setup).
    Only(&'static str),
    /// None: the session has its own way, or the instrument has no meaning there.
    Never,
}

/// What a session's run attaches of what the flags ask: where its telemetry and its profile
/// are taken, and whether it writes the HTML page of the run.
#[derive(Debug, Clone, Copy)]
pub struct Scope {
    pub telemetry: Over,
    pub profile: Over,
    /// The run's HTML report beside the store (a run of its own, not a study's step).
    pub report: bool,
}

impl Scope {
    /// Every instrument around every phase, with the HTML report.
    pub const EVERY: Scope = Scope {
        telemetry: Over::Every,
        profile: Over::Every,
        report: true,
    };
}

impl Attach {
    /// Attaches nothing: no store, no telemetry, no profile (a probe's scratch run, a test).
    pub fn nothing() -> Self {
        Attach {
            save: SaveSpec {
                skip: true,
                ..SaveSpec::default()
            },
            telemetry: TelemetrySpec::off(),
            ..Attach::default()
        }
    }

    /// The identity of a run of `kind`, with the flags' tags.
    pub fn identity(
        &self,
        kind: Kind,
        workload: &str,
        seed: Option<u64>,
        engine: Option<&str>,
        config: Value,
    ) -> Identity {
        let mut identity = Identity::new(kind, workload, config);
        identity.seed = seed;
        identity.engine = engine.map(str::to_string);
        identity.tags.clone_from(&self.save.tags);
        identity
    }

    /// Begins the run `identity` in the store (so that a run killed halfway is readable) and
    /// makes its instruments and sinks as `scope` says.
    pub fn kit<'o>(
        &self,
        identity: &Identity,
        scope: Scope,
        observer: &'o dyn Observer,
    ) -> Kit<'o> {
        let recording = Recording::begin(&self.save, identity, observer);
        let run_id = recording.as_ref().map(|r| r.id().0.clone());
        let mut instruments: Vec<Box<dyn Instrument + 'o>> = Vec::new();
        if let Some(t) = TelemetryInstrument::new(&self.telemetry) {
            put(&mut instruments, scope.telemetry, t);
        }
        let profiles = recording.as_ref().map(Recording::profiles_dir);
        if let Some(p) = ProfileInstrument::new(self.profile.as_ref(), profiles.clone()) {
            put(&mut instruments, scope.profile, p);
        }
        instruments.extend(self.instruments.iter().map(|make| make()));
        let mut sinks: Vec<Box<dyn Sink + 'o>> = Vec::new();
        // The page and the publish are made of the run's record once the store keeps it:
        // exporters the store sink hands it to.
        if let Some(r) = recording {
            let html = scope.report.then(|| HtmlReport::of(&r));
            let mut store = StoreSink::new(r);
            if let Some(h) = html {
                store = store.exporter(h);
            }
            if let Some(p) = self.publish.clone() {
                store = store.exporter(super::publish::PublishSink::new(p, observer));
            }
            if let Some(c) = self.csv.clone() {
                store = store.exporter(super::csv::CsvExport::new(c));
            }
            sinks.push(Box::new(store));
        }
        sinks.extend(self.sinks.iter().map(|make| make()));
        Kit {
            instruments,
            sinks,
            run_id,
            profiles,
        }
    }
}

impl<'p> Plan<'p> {
    /// Adds what the run's flags attach to it ([`Kit`]): its instruments (each around the
    /// phases it watches) and its sinks, in order.
    pub fn attach(mut self, kit: Kit<'p>) -> Self {
        self.instruments.extend(kit.instruments);
        self.sinks.extend(kit.sinks);
        self
    }
}

/// `instrument` around the phases `over` says.
fn put<'o, I: Instrument + 'o>(
    instruments: &mut Vec<Box<dyn Instrument + 'o>>,
    over: Over,
    instrument: I,
) {
    match over {
        Over::Every => instruments.push(Box::new(instrument)),
        Over::Only(phase) => instruments.push(Box::new(around(phase, instrument))),
        Over::Never => {}
    }
}

/// One run's instruments and sinks, made from its [`Attach`]: added to its plan with
/// [`super::lifecycle::Plan::attach`].
pub struct Kit<'o> {
    instruments: Vec<Box<dyn Instrument + 'o>>,
    sinks: Vec<Box<dyn Sink + 'o>>,
    run_id: Option<String>,
    profiles: Option<std::path::PathBuf>,
}

impl<'o> Kit<'o> {
    /// The id the run is stored under, when it is stored.
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// Where the run's engine profiles are kept, when it is stored (`profiles/<run id>/`).
    pub fn profiles_dir(&self) -> Option<&std::path::Path> {
        self.profiles.as_deref()
    }

    /// Adds an instrument the session itself needs (the machine's background around its
    /// query method), after the flags' own.
    pub fn instrument(mut self, instrument: impl Instrument + 'o) -> Self {
        self.instruments.push(Box::new(instrument));
        self
    }
}
