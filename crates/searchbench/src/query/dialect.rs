//! The API a query plan's requests speak: where one search and one whole coverage are sent,
//! how a coverage's searches become one request, and how the answers are read into the
//! [`Answer`] every checker reads. One implementation per API, listed in [`DIALECTS`]; the one
//! a cluster speaks is found from its product ([`spoken_by`]). A new dialect is its file (its
//! requests and its answers' reader) and one line in [`DIALECTS`]; a workload that has
//! queries in it says so in `Workload::query_plan`.

use std::fmt;

use serde_json::Value;

use super::answer::{parse_msearch, parse_search, Answer};
use crate::cluster::Product;

/// One search's answer, or why it has none.
pub type Item = Result<Answer, String>;

/// Who answers a plan's requests: the product and its release (`2.19.1`), as the cluster
/// says. A workload whose searches are written differently per product (vectors) reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answerer {
    pub product: Product,
    pub release: String,
}

impl Answerer {
    /// What `target` says it is; `None` when it cannot say (its answers will say what is
    /// wrong).
    pub async fn of(target: &crate::cluster::Target) -> Option<Answerer> {
        let (product, release, _) = target.product().await.ok()?;
        Some(Answerer { product, release })
    }

    /// Whether the release is `at_least` (major, minor) or later; a release that does not
    /// start with numbers is taken as new.
    pub fn since(&self, at_least: (u32, u32)) -> bool {
        let mut parts = self.release.split(['.', '-']).map(|p| p.parse::<u32>());
        match (parts.next(), parts.next()) {
            (Some(Ok(major)), Some(Ok(minor))) => (major, minor) >= at_least,
            (Some(Ok(major)), _) => major > at_least.0,
            _ => true,
        }
    }
}

/// An API queries are written in.
pub trait Dialect: Send + Sync + fmt::Debug {
    /// Its name (`search`, `sketch`).
    fn name(&self) -> &'static str;
    /// Whether a cluster of `product` answers it.
    fn spoken_by(&self, product: Product) -> bool;
    /// The path one search of `index` is sent to.
    fn search_path(&self, index: &str) -> String;
    /// The path a whole coverage of `index` is sent to in one request (the `msearch`
    /// transport).
    fn batch_path(&self, index: &str) -> String;
    /// The content type of that request.
    fn batch_content_type(&self) -> &'static str;
    /// That request's body, from the searches' bodies (built before any clock starts).
    fn batch(&self, bodies: &[Vec<u8>]) -> Vec<u8>;
    /// One search's answer.
    fn parse_one(&self, answer: Value) -> Result<Answer, String>;
    /// The answer to a whole coverage of `expected` searches, one item per search in order.
    fn parse_batch(&self, answer: Value, expected: usize) -> Result<Vec<Item>, String>;

    /// Whether this is `other`.
    fn is(&self, other: &dyn Dialect) -> bool {
        self.name() == other.name()
    }
}

/// Elasticsearch's and OpenSearch's query DSL: `_search` per search, `_msearch` per coverage.
#[derive(Debug)]
pub struct Search;

/// The sketch store's (`crate::sketch::server`): `POST /query` per search, `POST /coverage`
/// per coverage (the nodes of one epoch in one request).
#[derive(Debug)]
pub struct Sketch;

pub static SEARCH: Search = Search;
pub static SKETCH: Sketch = Sketch;

/// Every dialect, the search engines' first (what a product no other speaks gets).
pub static DIALECTS: [&dyn Dialect; 2] = [&SEARCH, &SKETCH];

/// The dialect a cluster of `product` speaks.
pub fn spoken_by(product: Product) -> &'static dyn Dialect {
    DIALECTS
        .iter()
        .copied()
        .find(|d| d.spoken_by(product))
        .unwrap_or(&SEARCH)
}

impl Dialect for Search {
    fn name(&self) -> &'static str {
        "search"
    }

    fn spoken_by(&self, product: Product) -> bool {
        product.traits().search_api
    }

    fn search_path(&self, index: &str) -> String {
        format!("/{index}/_search?request_cache=false")
    }

    fn batch_path(&self, index: &str) -> String {
        format!("/{index}/_msearch")
    }

    fn batch_content_type(&self) -> &'static str {
        "application/x-ndjson"
    }

    fn batch(&self, bodies: &[Vec<u8>]) -> Vec<u8> {
        let mut msearch = Vec::new();
        for b in bodies {
            msearch.extend_from_slice(b"{\"request_cache\":false}\n");
            msearch.extend_from_slice(b);
            msearch.push(b'\n');
        }
        msearch
    }

    fn parse_one(&self, answer: Value) -> Result<Answer, String> {
        parse_search(answer)
    }

    fn parse_batch(&self, answer: Value, expected: usize) -> Result<Vec<Item>, String> {
        parse_msearch(answer, expected)
    }
}

impl Dialect for Sketch {
    fn name(&self) -> &'static str {
        "sketch"
    }

    fn spoken_by(&self, product: Product) -> bool {
        product == Product::Sketch
    }

    // One store, no indices: the index names nothing there.
    fn search_path(&self, _index: &str) -> String {
        "/query".into()
    }

    fn batch_path(&self, _index: &str) -> String {
        "/coverage".into()
    }

    fn batch_content_type(&self) -> &'static str {
        "application/json"
    }

    /// `{"epoch": E, "nodes": [N, ...]}` from the searches `{"epoch": E, "node": N}` of one
    /// coverage. A body that is not one leaves its node `null`, which the store refuses: the
    /// coverage fails on the server, named, instead of being sent short.
    fn batch(&self, bodies: &[Vec<u8>]) -> Vec<u8> {
        let searches: Vec<Value> = bodies
            .iter()
            .map(|b| serde_json::from_slice(b).unwrap_or(Value::Null))
            .collect();
        let epoch = searches.first().map_or(Value::Null, |s| s["epoch"].clone());
        let nodes: Vec<Value> = searches.iter().map(|s| s["node"].clone()).collect();
        serde_json::json!({"epoch": epoch, "nodes": nodes})
            .to_string()
            .into_bytes()
    }

    fn parse_one(&self, answer: Value) -> Result<Answer, String> {
        super::sketch::parse_one(answer)
    }

    fn parse_batch(&self, answer: Value, expected: usize) -> Result<Vec<Item>, String> {
        super::sketch::parse_coverage(answer, expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_product_speaks_one_dialect() {
        for t in crate::cluster::PRODUCTS.iter() {
            let speaking = DIALECTS.iter().filter(|d| d.spoken_by(t.product)).count();
            assert_eq!(speaking, 1, "{}", t.display);
        }
        assert!(spoken_by(Product::OpenSearch).is(&SEARCH));
        assert!(spoken_by(Product::Elasticsearch).is(&SEARCH));
        assert!(spoken_by(Product::Sketch).is(&SKETCH));
    }

    #[test]
    fn a_coverage_is_one_request_in_each_dialect() {
        let bodies = vec![b"{\"size\":0}".to_vec(), b"{\"size\":1}".to_vec()];
        assert_eq!(
            String::from_utf8(SEARCH.batch(&bodies)).unwrap(),
            "{\"request_cache\":false}\n{\"size\":0}\n{\"request_cache\":false}\n{\"size\":1}\n"
        );
        let sketch = vec![
            br#"{"epoch":60,"node":"n1"}"#.to_vec(),
            br#"{"epoch":60,"node":"n2"}"#.to_vec(),
        ];
        let batch: Value = serde_json::from_slice(&SKETCH.batch(&sketch)).unwrap();
        assert_eq!(
            batch,
            serde_json::json!({"epoch": 60, "nodes": ["n1", "n2"]})
        );
        // A body that is not a search of the store is sent as a null node, which the store
        // refuses, rather than left out.
        let bad = vec![b"not json".to_vec()];
        let batch: Value = serde_json::from_slice(&SKETCH.batch(&bad)).unwrap();
        assert_eq!(batch["nodes"], serde_json::json!([null]));
    }
}
