//! The writes beside the query method (`query`, and `run`'s query phase): the corpus written
//! again over itself while the searches are measured (`session::rewrites`).

use clap::Args;

use crate::session::rewrites::{RewriteSpec, MAX_CLIENTS};

#[derive(Debug, Clone, Args)]
pub struct RewriteArgs {
    /// Measure during an ingest: N bulk clients write the corpus again over itself (each
    /// document under its own _id, with its own content) while the warm-up and the passes
    /// run, so every write is real work for the engine and every answer is still checked
    /// against the same truth. Needs an index loaded with sequential ids (the default; a
    /// count that changes fails the run).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MAX_CLIENTS as u64))]
    pub rewrite_clients: Option<u64>,
    /// With --rewrite-clients: documents per second offered on a fixed schedule (open loop),
    /// e.g. 1000 [default: as fast as the clients go].
    #[arg(long, value_name = "DOCS_PER_S", requires = "rewrite_clients",
          value_parser = crate::cli::args::parse_rate)]
    pub rewrite_rate: Option<f64>,
    /// With --rewrite-clients: search under write beside idle. Every pass runs twice, once
    /// with the writes and once with them paused (idle first on odd passes, writes first on
    /// even ones, a second of settling at each switch), so each cell is measured idle and
    /// under write side by side, answers checked on both sides; the report judges the
    /// slowdown pass by pass (more --passes, a narrower interval).
    #[arg(long, requires = "rewrite_clients", conflicts_with = "part")]
    pub beside_idle: bool,
}

impl RewriteArgs {
    /// The writes asked for, if any.
    pub fn spec(&self) -> Option<RewriteSpec> {
        self.rewrite_clients.map(|n| RewriteSpec {
            clients: n as usize,
            rate: self.rewrite_rate,
            beside_idle: self.beside_idle,
        })
    }
}
