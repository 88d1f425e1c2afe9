//! Which product a cluster runs.

use std::fmt;

/// Which product a cluster runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Product {
    OpenSearch,
    Elasticsearch,
    /// searchbench's own sketch store (`engine start sketch`): field note 002's baseline. It
    /// speaks its own small API, not the search engines' (see `crate::sketch::server`).
    Sketch,
}

impl fmt::Display for Product {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Product::OpenSearch => "OpenSearch",
            Product::Elasticsearch => "Elasticsearch",
            Product::Sketch => "sketch",
        })
    }
}
