//! Rally tracks and opensearch-benchmark workloads as their authors wrote them: rendered with a
//! Jinja2-compatible engine and the helpers both tools give their templates ([`template`]).
//! The rendered definition is read by [`super::rally`] for now.

pub mod template;

pub use template::{render_file, TemplateError, TrackParams};
