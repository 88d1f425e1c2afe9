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
    #[serde(default)]
    build_hash: Option<String>,
    /// Elasticsearch's (`default`); OpenSearch says its `build_type` (`tar`).
    #[serde(default)]
    build_flavor: Option<String>,
    #[serde(default)]
    build_type: Option<String>,
}

/// Which build of the engine answers, as `GET /` says it.
#[derive(Debug, Clone, Default)]
pub struct Build {
    pub version: String,
    pub hash: Option<String>,
    /// `default`, `oss` (Elasticsearch), or the package type (`tar`, `docker`).
    pub flavor: Option<String>,
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

/// `GET /_nodes/_local/jvm`, the parts we record.
#[derive(Deserialize)]
struct LocalJvm {
    #[serde(default)]
    cluster_name: String,
    nodes: std::collections::BTreeMap<String, LocalJvmNode>,
}

#[derive(Deserialize)]
struct LocalJvmNode {
    version: String,
    #[serde(default)]
    jvm: Option<JvmDetail>,
}

#[derive(Deserialize)]
struct JvmDetail {
    #[serde(default)]
    version: String,
    #[serde(default)]
    vm_vendor: String,
    #[serde(default)]
    vm_name: String,
    #[serde(default)]
    gc_collectors: Vec<String>,
    #[serde(default)]
    mem: Option<JvmMem>,
}

/// The JVM a node runs on, as the node reports it: recorded with every run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JvmInfo {
    pub vendor: String,
    pub version: String,
    pub vm: String,
    pub gc: Vec<String>,
    pub heap_max_bytes: Option<u64>,
}

impl Target {
    /// Product, version and cluster name. `GET /` says it on most releases (OpenSearch adds
    /// `distribution: opensearch`); where `GET /` is refused (Elasticsearch's minimal
    /// distribution answers 405) `_nodes/_local` and the `X-elastic-product` header do.
    /// The version and the cluster name are as an error keeps what a server said: printable,
    /// bounded (they are shown, stored and published).
    pub async fn product(&self) -> Result<(Product, String, String), TargetError> {
        let (product, version, cluster) = self.product_said().await?;
        Ok((
            product,
            super::error::said(&version),
            super::error::said(&cluster),
        ))
    }

    async fn product_said(&self) -> Result<(Product, String, String), TargetError> {
        match self.get_json::<Root>("/").await {
            Ok(root) => {
                let product = Product::from_distribution(root.version.distribution.as_deref());
                Ok((product, root.version.number, root.cluster_name))
            }
            // Refused as a route (not as a user: 401/403 stay what they are).
            Err(TargetError::Status {
                status: 400 | 404 | 405,
                ..
            }) => self.product_from_nodes().await,
            Err(e) => Err(e),
        }
    }

    async fn product_from_nodes(&self) -> Result<(Product, String, String), TargetError> {
        let path = "/_nodes/_local/jvm";
        let reply = self.send(reqwest::Method::GET, path, None).await?;
        let elastic = reply.elastic_product;
        let nodes: LocalJvm =
            super::decode(&format!("GET {}", self.endpoint(0, path)), &reply.body)?;
        let version = nodes
            .nodes
            .into_values()
            .next()
            .map(|n| n.version)
            .ok_or_else(|| TargetError::Decode {
                request: format!("GET {}", self.endpoint(0, path)),
                reason: "no node in the answer".into(),
            })?;
        // Only Elasticsearch sends the header; an OpenSearch node that refused `GET /` would
        // be a first, so no header means OpenSearch only when the cluster says nothing else.
        let product = if elastic || !version.starts_with(['1', '2', '3']) {
            Product::Elasticsearch
        } else {
            Product::OpenSearch
        };
        Ok((product, version, nodes.cluster_name))
    }

    /// The JVM of the node that answers (all nodes of a cluster we start run the same one).
    /// The build that answers (`GET /`: its version, hash and flavor).
    pub async fn build(&self) -> Result<Build, TargetError> {
        let root: Root = self.get_json("/").await?;
        let v = root.version;
        let said = |s: Option<String>| s.map(|s| super::error::said(&s));
        Ok(Build {
            version: super::error::said(&v.number),
            hash: said(v.build_hash),
            flavor: said(v.build_flavor.or(v.build_type)),
        })
    }

    pub async fn jvm(&self) -> Result<JvmInfo, TargetError> {
        let nodes: LocalJvm = self.get_json("/_nodes/_local/jvm").await?;
        let jvm = nodes
            .nodes
            .into_values()
            .next()
            .and_then(|n| n.jvm)
            .ok_or_else(|| TargetError::Decode {
                request: "GET /_nodes/_local/jvm".into(),
                reason: "no node with a jvm section in the answer".into(),
            })?;
        Ok(JvmInfo {
            vendor: jvm.vm_vendor,
            version: jvm.version,
            vm: jvm.vm_name,
            gc: jvm.gc_collectors,
            heap_max_bytes: jvm.mem.and_then(|m| m.heap_max_in_bytes),
        })
    }

    /// `GET /_cluster/health`, optionally waiting for a status.
    pub async fn health(&self, wait_for: Option<&str>) -> Result<ClusterHealth, TargetError> {
        let path = match wait_for {
            Some(status) => format!("/_cluster/health?wait_for_status={status}&timeout=1s"),
            None => "/_cluster/health".to_string(),
        };
        self.get_json(&path).await
    }

    /// `GET /_cluster/health/{indices}`, waiting up to `within` for their primaries (yellow);
    /// `timed_out` in the answer when they did not all come. The target's own timeout must
    /// outlast `within`.
    pub async fn primaries_of(
        &self,
        indices: &str,
        within: std::time::Duration,
    ) -> Result<ClusterHealth, TargetError> {
        self.get_json(&format!(
            "/_cluster/health/{indices}?wait_for_status=yellow&timeout={}s",
            within.as_secs().max(1)
        ))
        .await
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

    /// Everything `searchbench target` shows.
    pub async fn info(&self) -> Result<ClusterInfo, TargetError> {
        let (product, version, cluster_name) = self.product().await?;
        let health = self.health(None).await?;
        let nodes = if product.traits().search_api {
            self.nodes().await?
        } else {
            // One process and no `_nodes` API: it is its own node.
            vec![NodeInfo {
                name: cluster_name.clone(),
                version: version.clone(),
                roles: Vec::new(),
                heap_max_bytes: None,
            }]
        };
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
