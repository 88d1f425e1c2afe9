//! Analysis of stored results, apart from their rendering (`report/`): what a result's
//! metrics are ([`metrics`]), intervals and tests on them ([`statistics`]), where a series'
//! level shifts ([`changepoint`]), which runs are one configuration ([`configuration`]), and
//! the answer of a sweep ([`sweep`]: cells, knees, the USL fit) and of a saturation search
//! ([`saturate`]). Pure: no HTTP, no printing,
//! no HTML.

pub mod changepoint;
pub mod configuration;
pub mod metrics;
pub mod saturate;
pub mod statistics;
pub mod sweep;
