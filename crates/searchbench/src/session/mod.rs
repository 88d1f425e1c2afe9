//! The orchestration layer between parsed arguments and the library.
//!
//! A command in `cli/` parses its flags into the plain types here, makes one call, and prints
//! the typed result it gets back. This layer does the work in between: connect to the cluster
//! or provision one ([`cluster`]), resolve what to load ([`job`]), record the run in the
//! results store as it goes ([`record`]), and run the phases ([`ingest`], [`query`],
//! [`run`]). It never prints or exits: what happens along the way is told to an
//! [`Observer`], so the terminal, a test or a future sweep can each listen in their own way.

pub mod attach;
pub mod background;
pub mod beside;
pub mod bisect;
pub mod calibrate;
pub mod cluster;
pub mod csv;
pub mod engines;
pub mod events;
pub mod experiment;
pub mod generate;
pub mod ingest;
pub mod job;
pub mod join;
pub mod lifecycle;
pub mod matrix;
pub mod profile;
pub mod publish;
pub mod query;
pub mod record;

pub mod rewrites;
pub mod rounds;
pub mod run;
pub mod saturate;
pub mod scenario;
pub mod setup;
pub mod sweep;
pub mod telemetry;
pub mod track_modules;
pub mod track_run;
pub mod user_queries;
pub mod warm;
pub mod workload_file;

pub use attach::Attach;
pub use cluster::{ClusterSpec, Connected};
pub use events::{Event, Observer, Silent};
pub use job::{FileFormat, FilesSpec, Job};
pub use record::{Recording, SaveSpec};
pub use telemetry::TelemetrySpec;

use crate::cluster::TargetError;
use crate::corpus::CorpusError;
use crate::engine::EngineError;
use crate::ingest::IngestError;
use crate::query::QueryError;
use crate::store::StoreError;

/// Why a session could not do its work. [`SessionError::is_usage`] tells bad usage or input
/// (the caller's to fix) from a failure of the work itself.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Bad flags, specs or input files.
    #[error("{0}")]
    Usage(String),
    #[error("starting {engine}")]
    EngineStart {
        engine: String,
        #[source]
        source: Box<EngineError>,
    },
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Stopped by the caller's cancel (Ctrl-C) before there was a result to keep.
    #[error("interrupted: {0}")]
    Interrupted(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Other(String),
}

impl SessionError {
    /// Bad usage or input rather than a failure of the work.
    pub fn is_usage(&self) -> bool {
        if let SessionError::EngineStart { source, .. } = self {
            return source.is_usage();
        }
        matches!(
            self,
            SessionError::Usage(_)
                | SessionError::Ingest(IngestError::Config(_))
                | SessionError::Corpus(CorpusError::Invalid(_))
        )
    }

    pub fn usage(message: impl Into<String>) -> Self {
        SessionError::Usage(message.into())
    }
}
