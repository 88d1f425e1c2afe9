//! Which product a cluster runs, and how the products differ: one row each in [`PRODUCTS`].
//!
//! The row is the seam a product is added behind: how it is named, how it says who it is,
//! which API it speaks, the words of its settings and scripts. Code that would otherwise
//! `match` on the product reads its row instead, so a new product is a variant and a row here
//! (and, for one Maven Central carries, its artifacts in `engine::maven::SOURCES` and, for one
//! run as a library, its launcher under `launcher/`).

use std::fmt;

use serde_json::{json, Value};

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

/// How one product differs from the others, as data.
#[derive(Debug)]
pub struct Traits {
    pub product: Product,
    /// Its name for people (`OpenSearch`).
    pub display: &'static str,
    /// Its word: engines are named `WORD-VERSION`, its distribution's start script is
    /// `bin/WORD` (its plugin tool `bin/WORD-plugin`), its core jar `lib/WORD-VERSION.jar`,
    /// its launcher's Maven profile `WORD`, and a stored run's engine `WORD-VERSION`.
    pub word: &'static str,
    /// Other words an engine's name may begin with (`os-2.19.1`).
    pub aliases: &'static [&'static str],
    /// What `GET /` says it is in `version.distribution`; `None` for the product that says
    /// nothing there (Elasticsearch), which is also what an unknown answer is taken for.
    pub distribution: Option<&'static str>,
    /// Whether it speaks the search engines' REST API (`_bulk`, `_search`, `_nodes`, point in
    /// time): the sketch store speaks its own.
    pub search_api: bool,
    /// Whether its node is a JVM, whose JIT a node warm-up warms.
    pub jvm: bool,
    /// The prefix of the environment its distribution's scripts read (`OPENSEARCH` for
    /// `OPENSEARCH_JAVA_HOME`, `OPENSEARCH_PATH_CONF`, ...).
    pub env: Option<&'static str>,
    /// The major release from which its master-eligible role and settings are called
    /// `cluster_manager` (`cluster.initial_cluster_manager_nodes`); before it, or never,
    /// `master`.
    pub cluster_manager_since: Option<u32>,
    /// The release (`major.minor`) before which its runner takes one `node.ROLE` flag per
    /// role instead of `node.roles`.
    pub legacy_role_flags_before: Option<(u32, u32)>,
    /// Its point-in-time API, where it has one.
    pub pit: Option<Pit>,
    /// Its security, where a node we start can have it.
    pub security: Security,
    /// Its vector search (`vectors`), and what a node we start needs for it.
    pub vectors: Vectors,
}

/// A product's point-in-time API: where it opens and closes, and the body that closes one.
#[derive(Debug)]
pub struct Pit {
    /// Path after `/{index}` that opens one (`keep_alive` is added as a parameter).
    pub open: &'static str,
    /// Path that closes one.
    pub close: &'static str,
    /// The body that closes the point in time `id`.
    pub close_body: fn(&str) -> Value,
}

/// Whether a node of the product we start can be secured, and how.
#[derive(Debug)]
pub enum Security {
    /// Its security plugin, as Maven coordinates without the version (`group:artifact`); the
    /// plugin's release is the engine's plus `.0`.
    Plugin(&'static str),
    /// Not on a node we start: why, and what to do instead.
    Elsewhere(&'static str),
}

/// Where a product's vector search (an HNSW field and the `knn` search) comes from.
#[derive(Debug)]
pub enum Vectors {
    /// In its core: every node has it.
    Core,
    /// Its k-NN plugin, as Maven coordinates without the version (`group:artifact`); the
    /// plugin's release is the engine's plus `.0`.
    Plugin(&'static str),
    /// Not on a node we start: why.
    Elsewhere(&'static str),
}

/// Every product, in the catalogue's order.
pub static PRODUCTS: [Traits; 3] = [
    Traits {
        product: Product::OpenSearch,
        display: "OpenSearch",
        word: "opensearch",
        aliases: &["os"],
        distribution: Some("opensearch"),
        search_api: true,
        jvm: true,
        env: Some("OPENSEARCH"),
        cluster_manager_since: Some(2),
        legacy_role_flags_before: None,
        pit: Some(Pit {
            open: "/_search/point_in_time",
            close: "/_search/point_in_time",
            close_body: |id| json!({"pit_id": [id]}),
        }),
        security: Security::Plugin("org.opensearch.plugin:opensearch-security"),
        vectors: Vectors::Plugin("org.opensearch.plugin:opensearch-knn"),
    },
    Traits {
        product: Product::Elasticsearch,
        display: "Elasticsearch",
        word: "elasticsearch",
        aliases: &["es"],
        distribution: None,
        search_api: true,
        jvm: true,
        env: Some("ES"),
        cluster_manager_since: None,
        legacy_role_flags_before: Some((7, 10)),
        pit: Some(Pit {
            open: "/_pit",
            close: "/_pit",
            close_body: |id| json!({"id": id}),
        }),
        security: Security::Elsewhere(
            "Elasticsearch's security (x-pack) is in no artifact Maven Central carries; start \
             your secured Elasticsearch yourself and point searchbench at it: --url \
             https://HOST:9200 --ca-cert ca.pem --user elastic (password in \
             SEARCHBENCH_PASSWORD)",
        ),
        vectors: Vectors::Core,
    },
    Traits {
        product: Product::Sketch,
        display: "sketch",
        word: "sketch",
        aliases: &[],
        distribution: Some(crate::sketch::server::DISTRIBUTION),
        search_api: false,
        jvm: false,
        env: None,
        cluster_manager_since: None,
        legacy_role_flags_before: None,
        pit: None,
        security: Security::Elsewhere(
            "the sketch store serves the loopback only and has no security to turn on",
        ),
        vectors: Vectors::Elsewhere("the sketch store holds numbers, not vectors"),
    },
];

impl Product {
    /// This product's row of [`PRODUCTS`].
    pub fn traits(self) -> &'static Traits {
        // Every variant has its row (a test checks it); the first row is never reached.
        PRODUCTS
            .iter()
            .find(|t| t.product == self)
            .unwrap_or(&PRODUCTS[0])
    }

    /// The product an engine's name begins with: its word or an alias, any case.
    pub fn from_word(word: &str) -> Option<Product> {
        let word = word.to_ascii_lowercase();
        PRODUCTS
            .iter()
            .find(|t| t.word == word || t.aliases.contains(&word.as_str()))
            .map(|t| t.product)
    }

    /// The product whose `GET /` says `distribution` (the one that says nothing, for an
    /// answer no row names).
    pub fn from_distribution(distribution: Option<&str>) -> Product {
        let named = PRODUCTS
            .iter()
            .find(|t| t.distribution.is_some() && t.distribution == distribution);
        let silent = || PRODUCTS.iter().find(|t| t.distribution.is_none());
        named
            .or_else(silent)
            .map_or(Product::Elasticsearch, |t| t.product)
    }
}

impl fmt::Display for Product {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.traits().display)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_product_has_one_row_and_its_word_is_its_lowercase_name() {
        for product in [Product::OpenSearch, Product::Elasticsearch, Product::Sketch] {
            let rows = PRODUCTS.iter().filter(|t| t.product == product).count();
            assert_eq!(rows, 1, "{product:?}");
            let t = product.traits();
            assert_eq!(t.product, product);
            // Stored runs name their engine by the lowercase product they reported.
            assert_eq!(t.word, t.display.to_ascii_lowercase());
            let serialized = serde_json::to_value(product).unwrap();
            assert_eq!(serialized, t.word);
            assert_eq!(Product::from_word(t.word), Some(product));
            assert_eq!(Product::from_word(&t.word.to_uppercase()), Some(product));
        }
        // One product at most says nothing in `GET /`.
        let silent = PRODUCTS.iter().filter(|t| t.distribution.is_none()).count();
        assert!(silent <= 1);
    }

    #[test]
    fn a_product_is_known_by_what_its_root_says_and_its_aliases() {
        assert_eq!(
            Product::from_distribution(Some("opensearch")),
            Product::OpenSearch
        );
        assert_eq!(
            Product::from_distribution(Some(crate::sketch::server::DISTRIBUTION)),
            Product::Sketch
        );
        assert_eq!(Product::from_distribution(None), Product::Elasticsearch);
        assert_eq!(
            Product::from_distribution(Some("something-else")),
            Product::Elasticsearch
        );
        assert_eq!(Product::from_word("os"), Some(Product::OpenSearch));
        assert_eq!(Product::from_word("ES"), Some(Product::Elasticsearch));
        assert_eq!(Product::from_word("solr"), None);
    }

    #[test]
    fn the_point_in_time_apis_differ_as_the_products_document_them() {
        let os = Product::OpenSearch.traits().pit.as_ref().unwrap();
        assert_eq!((os.close_body)("x"), json!({"pit_id": ["x"]}));
        let es = Product::Elasticsearch.traits().pit.as_ref().unwrap();
        assert_eq!((es.close_body)("x"), json!({"id": "x"}));
        assert!(Product::Sketch.traits().pit.is_none());
    }
}
