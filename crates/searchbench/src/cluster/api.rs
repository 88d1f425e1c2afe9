//! The few cluster-level API calls searchbench makes, with typed answers.

use serde::{Deserialize, Serialize};

use super::Product;
use super::{Target, TargetError};

#[derive(Debug, Clone, Serialize)]
pub struct ClusterInfo {
    pub product: Product,
    pub version: String,
    pub cluster_name: String,
    pub health: ClusterHealth,
    pub nodes: Vec<NodeInfo>,
    /// Every URL given and whether it answered (the figures above come from the first).
    pub endpoints: Vec<Endpoint>,
}

/// One of the URLs a target was given, and whether it answered `GET /`.
#[derive(Debug, Clone, Serialize)]
pub struct Endpoint {
    pub url: String,
    pub reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClusterHealth {
    pub status: String,
    pub number_of_nodes: u64,
    #[serde(default)]
    pub active_shards: u64,
    #[serde(default)]
    pub unassigned_shards: u64,
    #[serde(default)]
    pub timed_out: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeInfo {
    pub name: String,
    pub version: String,
    pub roles: Vec<String>,
    pub heap_max_bytes: Option<u64>,
}

#[derive(Deserialize)]
struct Root {
    cluster_name: String,
    version: RootVersion,
}

#[derive(Deserialize)]
struct RootVersion {
    number: String,
    #[serde(default)]
    distribution: Option<String>,
}

#[derive(Deserialize)]
struct Nodes {
    nodes: std::collections::BTreeMap<String, NodeEntry>,
}

#[derive(Deserialize)]
struct NodeEntry {
    name: String,
    version: String,
    #[serde(default)]
    roles: Vec<String>,
    #[serde(default)]
    jvm: Option<Jvm>,
}

#[derive(Deserialize)]
struct Jvm {
    mem: Option<JvmMem>,
}

#[derive(Deserialize)]
struct JvmMem {
    heap_max_in_bytes: Option<u64>,
}

impl Target {
    /// Product and version from `GET /`: OpenSearch says `distribution: opensearch`.
    pub async fn product(&self) -> Result<(Product, String, String), TargetError> {
        let root: Root = self.get_json("/").await?;
        let product = match root.version.distribution.as_deref() {
            Some("opensearch") => Product::OpenSearch,
            _ => Product::Elasticsearch,
        };
        Ok((product, root.version.number, root.cluster_name))
    }

    /// `GET /_cluster/health`, optionally waiting for a status.
    pub async fn health(&self, wait_for: Option<&str>) -> Result<ClusterHealth, TargetError> {
        let path = match wait_for {
            Some(status) => format!("/_cluster/health?wait_for_status={status}&timeout=1s"),
            None => "/_cluster/health".to_string(),
        };
        self.get_json(&path).await
    }

    pub async fn nodes(&self) -> Result<Vec<NodeInfo>, TargetError> {
        let nodes: Nodes = self.get_json("/_nodes/_all/jvm").await?;
        Ok(nodes
            .nodes
            .into_values()
            .map(|n| NodeInfo {
                name: n.name,
                version: n.version,
                roles: n.roles,
                heap_max_bytes: n.jvm.and_then(|j| j.mem).and_then(|m| m.heap_max_in_bytes),
            })
            .collect())
    }

    /// Everything `searchbench target info` shows.
    pub async fn info(&self) -> Result<ClusterInfo, TargetError> {
        let (product, version, cluster_name) = self.product().await?;
        let health = self.health(None).await?;
        let nodes = self.nodes().await?;
        let mut endpoints = Vec::with_capacity(self.urls().len());
        for (i, url) in self.urls().iter().enumerate() {
            let error = if i == 0 {
                None
            } else {
                self.send_at(i, reqwest::Method::GET, "/", None)
                    .await
                    .err()
                    .map(|e| super::error_chain(&e))
            };
            endpoints.push(Endpoint {
                url: url.to_string(),
                reachable: error.is_none(),
                error,
            });
        }
        Ok(ClusterInfo {
            product,
            version,
            cluster_name,
            health,
            nodes,
            endpoints,
        })
    }
}
