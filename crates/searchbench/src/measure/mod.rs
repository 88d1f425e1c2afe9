//! Measurement: samples, HDR histograms, per-second timeline, statistics, attribution.
//!
//! Everything here is cheap enough to sit on the hot path: one [`Sample`] per bulk request,
//! recorded under a short lock into fixed-size histograms and a per-second timeline.

pub mod attribution;
pub mod background;
pub mod cpu_limit;
pub mod kept;
pub mod machine;
pub mod measurements;
pub mod profile;
pub mod provenance;
pub mod recorder;
pub mod schedule;
pub mod telemetry;
pub mod warm_up;

pub use attribution::{Attribution, AttributionInput, Segment};
pub use kept::{Better, Figure, Kept, Merge};
pub use machine::Machine;
pub use measurements::{Bounds, Measurements, Timed};
pub use recorder::{Headline, Recorder, Sample, SerializedHistogram, Summary, TimelineRow};
pub use schedule::Schedule;
