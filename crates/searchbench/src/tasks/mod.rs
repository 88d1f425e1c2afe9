//! Running a track's tasks as Rally and opensearch-benchmark run them: each task's operation
//! ([`operation`]) sent by its clients for its warm-up and its iterations or time period, at
//! its target throughput when it has one ([`task`]), and the figures the tools report per
//! task ([`figures`]): throughput, latency, service time, error rate, and a vector search's
//! recall ([`vector_ops`]); ES|QL and SQL ([`languages`]) and transforms ([`transforms`]) as
//! Rally runs them.

pub mod bulk_body;
pub mod figures;
pub mod freshness;
pub mod languages;
pub mod needs;
pub mod operation;
pub mod part;
pub mod plan;
pub mod python;
pub mod synthesize;
pub mod task;
pub mod transforms;
pub mod vector_ops;

pub use figures::{TaskFigures, TrackRunResult};
pub use operation::{Context, Operation};
pub use task::{TaskRun, TaskSpec};
