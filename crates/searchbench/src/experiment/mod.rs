//! Experiments: several variants of one job measured side by side on the same cluster, with
//! the variants interleaved across repeats so drift hits all of them alike.
//!
//! - [`dates`]: what date handling costs a real cluster (ISO strings vs epoch millis, default
//!   vs narrower mapping formats).

pub mod dates;
