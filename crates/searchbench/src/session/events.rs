//! What a session tells its caller while it works. The terminal prints these; tests and
//! embedding programs may ignore them ([`Silent`]).

use std::path::Path;
use std::time::Duration;

use crate::ingest::IngestReport;
use crate::query::QueryResult;

/// One thing that happened during a session.
#[derive(Debug)]
pub enum Event<'a> {
    /// We are starting an engine for the run (it stops when the run ends).
    EngineStarting { engine: &'a str, nodes: u16 },
    /// The engine we started is healthy.
    EngineUp {
        engine: &'a str,
        url: &'a str,
        pid: u32,
        nodes: usize,
        boot: Duration,
    },
    /// The load begins.
    Loading {
        corpus: &'a str,
        index: &'a str,
        url: &'a str,
        clients: usize,
        bulk_docs: usize,
        gzip: bool,
    },
    /// How far the load has got (when the load spec asks for progress).
    Progress(crate::ingest::Progress),
    /// The query phase begins (or a workload has none).
    Querying {
        index: &'a str,
        workload: &'a str,
        has_queries: bool,
    },
    /// The load of a run ended (its queries may follow).
    Ingested(&'a IngestReport),
    /// The query phase of a run ended.
    Queried(&'a QueryResult),
    /// The run was saved in the results store.
    Saved { id: &'a str, store: &'a Path },
    /// The run's HTML report was written.
    ReportWritten { path: &'a Path },
    /// Something the user should know that does not stop the work.
    Warning(String),
    /// A run could not be saved in the results store (a warning said why): the work goes
    /// on and its result is returned, but a caller should not report success.
    NotSaved,
    /// A command of several runs starts the next one (e.g. a saturation step).
    Stage(String),
    /// A step of the run ended, and its instruments kept this beside its first phase `phase`
    /// (by instrument name: figures and detail, as the run's record keeps them).
    Watched {
        phase: &'a str,
        kept: &'a std::collections::BTreeMap<String, crate::measure::Kept>,
    },
}

/// Listens to a session.
pub trait Observer: Sync {
    fn event(&self, event: Event<'_>);
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn event(&self, _: Event<'_>) {}
}
