//! Analysis of stored results, apart from their rendering (`report/`): stored runs loaded
//! and grouped ([`runs`]), what a result's metrics are ([`metrics`]), intervals and tests on
//! them ([`statistics`]), groups compared metric by metric ([`compare`]), one run checked
//! against a baseline ([`check`]), which runs are one configuration ([`configuration`]), the
//! runs of one configuration over versions or time ([`history`]) and where a series' level
//! shifts ([`changepoint`]), the answer of a sweep ([`sweep`]: cells, knees, the USL fit) and
//! of a saturation search ([`saturate`]), field note 002's engines-beside-the-sketch tables
//! ([`baseline`]). Pure: no HTTP, no printing, no HTML.

pub mod baseline;
pub mod changepoint;
pub mod check;
pub mod compare;
pub mod configuration;
pub mod history;
pub mod merge;
pub mod metrics;
pub mod multiple;
pub mod runs;
pub mod said;
pub mod saturate;
pub mod sequential;
pub mod statistics;
pub mod steadier;
pub mod sweep;
pub mod under_write;
