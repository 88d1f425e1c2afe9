//! Rally tracks and opensearch-benchmark workloads as their authors wrote them: rendered with a
//! Jinja2-compatible engine and the helpers both tools give their templates ([`template`]),
//! read into a typed model of the whole definition ([`model`], [`read`]), and what of it
//! searchbench runs ([`runnable`]).

pub mod model;
pub mod read;
pub mod runnable;
pub mod template;

pub use read::{read, Definition, TrackError};
pub use runnable::is_track;
pub use template::{render_file, render_file_at, TemplateError, TrackParams};
