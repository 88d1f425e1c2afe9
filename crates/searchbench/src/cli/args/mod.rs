//! Argument groups that several commands share, each turned into the session's plain types
//! in one place.

mod cluster;
mod corpus;
pub mod legacy;
mod load;
mod output;
mod part;
mod plumbing;
pub mod profile;
mod publish;
mod rewrites;
mod setup;
mod store;
pub mod suggest;
mod target;
mod track;
pub mod units;

pub use cluster::{ClusterArgs, NetworkArgs, NodeArgs, WarmArgs};
pub use corpus::{CorpusArgs, GeneratorArgs};
pub use load::{LoadArgs, TelemetryArgs};
pub use output::{JsonArgs, OutputArgs};
pub use part::{parse_start_at, PartArgs, MAX_WAIT};
pub use plumbing::PlumbingArgs;
pub use profile::ProfileArgs;
pub use publish::{ledger as publish_ledger, required as publish_required, FromArgs, PublishArgs};
pub use rewrites::RewriteArgs;
pub use setup::SetupArgs;
pub use store::{selected_tags, tag_arg, where_arg, ReadArgs, SaveArgs, StoreArgs};
pub use target::TargetArgs;
pub use track::{track_params_of, TrackArgs};
pub use units::{input_file, parse_alpha, parse_duration, parse_percent, parse_rate, parse_size};
