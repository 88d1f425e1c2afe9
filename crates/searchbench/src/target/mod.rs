//! A target is a cluster endpoint: URLs, auth, TLS. This module is the HTTP client layer and
//! the handful of API calls the rest of searchbench needs.

mod api;
mod auth;
mod error;

pub use api::{ClusterHealth, ClusterInfo, NodeInfo};
pub use auth::{Auth, Secret};
pub use error::TargetError;

use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Method, Url};

/// How to reach a cluster. Built from CLI flags or by provisioning.
#[derive(Debug, Clone)]
pub struct TargetConfig {
    pub urls: Vec<String>,
    pub auth: Auth,
    /// Extra CA certificate (PEM) to trust, for self-signed clusters.
    pub ca_cert: Option<PathBuf>,
    /// Skip TLS verification. Off by default; the CLI warns when it is on.
    pub insecure: bool,
    /// Per-request timeout.
    pub timeout: Duration,
}

impl TargetConfig {
    pub fn local(url: impl Into<String>) -> Self {
        TargetConfig {
            urls: vec![url.into()],
            auth: Auth::None,
            ca_cert: None,
            insecure: false,
            timeout: Duration::from_secs(30),
        }
    }
}

/// A connected target: a keep-alive HTTP client plus the endpoint list.
#[derive(Debug, Clone)]
pub struct Target {
    urls: Vec<Url>,
    client: reqwest::Client,
    timeout: Duration,
}

/// A response whose status was a success, with its body read in full.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: bytes::Bytes,
}

impl Target {
    pub fn new(config: &TargetConfig) -> Result<Self, TargetError> {
        if config.urls.is_empty() {
            return Err(TargetError::Url {
                url: String::new(),
                reason: "no URL given".into(),
            });
        }
        let urls = config
            .urls
            .iter()
            .map(|u| parse_url(u))
            .collect::<Result<Vec<_>, _>>()?;
        let mut headers = HeaderMap::new();
        if let Some(value) = config.auth.header_value() {
            let mut value = HeaderValue::from_str(&value).map_err(|_| TargetError::Auth {
                reason: "credentials contain characters not allowed in an HTTP header".into(),
            })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let mut builder = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_idle_timeout(Duration::from_secs(60))
            .tcp_nodelay(true)
            .danger_accept_invalid_certs(config.insecure);
        if let Some(path) = &config.ca_cert {
            let pem = std::fs::read(path).map_err(|e| TargetError::Tls {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let cert = reqwest::Certificate::from_pem(&pem).map_err(|e| TargetError::Tls {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            builder = builder.add_root_certificate(cert);
        }
        let client = builder.build().map_err(|e| TargetError::Client {
            reason: e.to_string(),
        })?;
        Ok(Target {
            urls,
            client,
            timeout: config.timeout,
        })
    }

    /// The first endpoint, which is the one single-request calls use.
    pub fn url(&self) -> &Url {
        &self.urls[0]
    }

    pub fn urls(&self) -> &[Url] {
        &self.urls
    }

    /// The underlying client, for the hot paths (bulk, search) that manage their own requests.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `path` (with query) resolved against endpoint `i` (round robin over the list).
    pub fn endpoint(&self, i: usize, path: &str) -> String {
        let base = self.urls[i % self.urls.len()]
            .as_str()
            .trim_end_matches('/');
        format!("{base}{path}")
    }

    /// Sends one request and fails on a non-2xx status with the server's own reason.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<Reply, TargetError> {
        let url = self.endpoint(0, path);
        let mut request = self.client.request(method.clone(), &url);
        if let Some((content_type, body)) = body {
            request = request.header(CONTENT_TYPE, content_type).body(body);
        }
        let what = || format!("{method} {url}");
        let response = request
            .send()
            .await
            .map_err(|e| TargetError::from_send(what(), e))?;
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .await
            .map_err(|e| TargetError::from_send(what(), e))?;
        if !(200..300).contains(&status) {
            return Err(TargetError::Status {
                request: what(),
                status,
                reason: error::server_reason(&body),
            });
        }
        Ok(Reply { status, body })
    }

    /// GET `path` and decode the JSON answer.
    pub async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<T, TargetError> {
        let reply = self.send(Method::GET, path, None).await?;
        decode(&format!("GET {}", self.endpoint(0, path)), &reply.body)
    }

    /// Sends a JSON body and decodes the JSON answer.
    pub async fn send_json<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<T, TargetError> {
        let bytes = serde_json::to_vec(body).map_err(|e| TargetError::Client {
            reason: e.to_string(),
        })?;
        let what = format!("{method} {}", self.endpoint(0, path));
        let reply = self
            .send(method, path, Some(("application/json", bytes)))
            .await?;
        decode(&what, &reply.body)
    }
}

/// Decodes a JSON answer; garbage from the server becomes an error naming the request.
pub fn decode<T: serde::de::DeserializeOwned>(
    request: &str,
    body: &[u8],
) -> Result<T, TargetError> {
    serde_json::from_slice(body).map_err(|e| TargetError::Decode {
        request: request.to_string(),
        reason: format!("{e}; body starts with {:?}", error::snippet(body)),
    })
}

fn parse_url(raw: &str) -> Result<Url, TargetError> {
    let bad = |reason: &str| TargetError::Url {
        url: raw.to_string(),
        reason: reason.to_string(),
    };
    let url = Url::parse(raw).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the scheme must be http or https"));
    }
    if url.host_str().is_none() {
        return Err(bad("no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "put credentials in --user/--password or --api-key, not in the URL",
        ));
    }
    Ok(url)
}
