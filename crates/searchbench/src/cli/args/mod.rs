//! Argument groups that several commands share, each turned into the session's plain types
//! in one place.

mod cluster;
mod corpus;
pub mod legacy;
mod load;
mod output;
pub mod suggest;
pub mod units;

pub use cluster::{ClusterArgs, NetworkArgs, NodeArgs};
pub use corpus::{CorpusArgs, GeneratorArgs};
pub use load::{LoadArgs, TelemetryArgs};
pub use output::{JsonArgs, OutputArgs};
pub use units::{parse_duration, parse_rate, parse_size};
