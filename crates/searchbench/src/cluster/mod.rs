//! A target is a cluster endpoint: URLs, auth, TLS. This module is the HTTP client layer and
//! the handful of API calls the rest of searchbench needs.

mod api;
mod auth;
pub mod body;
pub mod delay;
mod error;
mod index_stats;
mod node_stats;
pub mod owed;
mod product;
mod tls_probe;

pub use api::{Build, ClusterHealth, ClusterInfo, Endpoint, JvmInfo, NodeInfo};
pub use auth::{Auth, Secret};
pub use error::{chain as error_chain, server_reason, snippet, TargetError};
pub use index_stats::IndexStats;
pub use node_stats::{NodeStats, NODE_STATS_PATH};
pub use product::{Pit, Product, Security, Traits, Vectors, PRODUCTS};

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
    /// Per-request timeout: connecting, sending and reading the whole answer.
    pub timeout: Duration,
    /// The largest answer body read for a search or an API call, in bytes; a bulk answer's
    /// bound follows from its documents instead.
    pub max_answer: u64,
}

impl TargetConfig {
    pub fn local(url: impl Into<String>) -> Self {
        TargetConfig {
            urls: vec![url.into()],
            auth: Auth::None,
            ca_cert: None,
            insecure: false,
            timeout: Duration::from_secs(30),
            max_answer: body::DEFAULT_MAX_ANSWER,
        }
    }
}

/// A connected target: a keep-alive HTTP client plus the endpoint list.
#[derive(Debug, Clone)]
pub struct Target {
    urls: Vec<Url>,
    client: reqwest::Client,
    timeout: Duration,
    max_answer: u64,
    /// What to add to a 401: credentials that are surely incomplete.
    auth_hint: Option<String>,
    /// How it authenticates and trusts, for a client of another library to do the same
    /// ([`Target::handover`]).
    access: std::sync::Arc<Access>,
}

/// A target's credentials and TLS trust, as given.
#[derive(Debug)]
struct Access {
    auth: Auth,
    insecure: bool,
    ca_cert: Option<PathBuf>,
    /// The credentials' header, marked sensitive.
    headers: HeaderMap,
    /// The CA certificates read from `ca_cert`.
    certs: Vec<reqwest::Certificate>,
}

impl Access {
    /// A keep-alive client with a pool of its own, authenticating and trusting as given.
    fn client(&self, timeout: Duration) -> Result<reqwest::Client, TargetError> {
        let mut builder = reqwest::Client::builder()
            .default_headers(self.headers.clone())
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .pool_idle_timeout(Duration::from_secs(60))
            .tcp_nodelay(true)
            // A redirect would measure a server other than the one named: it is an error
            // that says where to point --url (see `redirect_reason`).
            .redirect(reqwest::redirect::Policy::none())
            .danger_accept_invalid_certs(self.insecure);
        for cert in &self.certs {
            builder = builder.add_root_certificate(cert.clone());
        }
        builder.build().map_err(|e| TargetError::Client {
            reason: e.to_string(),
        })
    }
}

/// A response whose status was a success, with its body read in full.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: bytes::Bytes,
    /// The answer carried `X-elastic-product` (only Elasticsearch sends it).
    pub elastic_product: bool,
}

impl Target {
    pub fn new(config: &TargetConfig) -> Result<Self, TargetError> {
        if config.urls.is_empty() {
            return Err(TargetError::Url {
                url: String::new(),
                reason: "no URL given".into(),
            });
        }
        let mut urls = Vec::with_capacity(config.urls.len());
        let mut from_url: Option<(String, Secret)> = None;
        for raw in &config.urls {
            let (url, credentials) = parse_url(raw)?;
            if let Some(c) = credentials {
                if from_url.as_ref().is_some_and(|seen| *seen != c) {
                    return Err(TargetError::Auth {
                        reason: "the URLs carry different credentials; give one user for all"
                            .into(),
                    });
                }
                from_url = Some(c);
            }
            urls.push(url);
        }
        let auth = match (from_url, &config.auth) {
            (None, auth) => auth.clone(),
            (Some((user, password)), Auth::None) => Auth::Basic { user, password },
            (Some(_), _) => return Err(TargetError::Auth {
                reason:
                    "credentials both in the URL and in --user/--api-key/--bearer; give them once"
                        .into(),
            }),
        };
        let auth_hint = match &auth {
            Auth::Basic { user, password } if password.expose().is_empty() => Some(format!(
                "--user {user} came without a password (none from --password, \
                 SEARCHBENCH_PASSWORD or the URL)"
            )),
            _ => None,
        };
        let mut headers = HeaderMap::new();
        if let Some(value) = auth.header_value() {
            let mut value = HeaderValue::from_str(&value).map_err(|_| TargetError::Auth {
                reason: "credentials contain characters not allowed in an HTTP header".into(),
            })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let mut certs = Vec::new();
        if let Some(path) = &config.ca_cert {
            let pem = std::fs::read(path).map_err(|e| TargetError::Tls {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            certs = ca_certificates(&pem).map_err(|reason| TargetError::Tls {
                path: path.clone(),
                reason,
            })?;
        }
        let access = Access {
            auth,
            insecure: config.insecure,
            ca_cert: config.ca_cert.clone(),
            headers,
            certs,
        };
        let client = access.client(config.timeout)?;
        Ok(Target {
            urls,
            client,
            timeout: config.timeout,
            max_answer: config.max_answer,
            auth_hint,
            access: std::sync::Arc::new(access),
        })
    }

    /// The same target with a connection pool of its own, for work on a tokio runtime of its
    /// own (the query passes, the telemetry sampler). A pooled connection lives as a task of
    /// the runtime that opened it: shared, a request from one runtime could go out on a
    /// connection of another that is shutting down, and fail with "runtime dropped the
    /// dispatch task" (seen in CI: the writes beside the searches, as the passes ended).
    pub fn with_own_pool(&self) -> Result<Target, TargetError> {
        Ok(Target {
            client: self.access.client(self.timeout)?,
            ..self.clone()
        })
    }

    /// What a client of another library (the track's Python: [`crate::tasks::python`]) needs
    /// to talk to this cluster as this target does: its URLs (without credentials), the
    /// credentials, whether to verify TLS and with which CA, the request timeout in seconds.
    /// It holds secrets: it goes on a pipe to that client, never into output or a file.
    pub fn handover(&self) -> serde_json::Value {
        let a = &self.access;
        let mut v = serde_json::json!({
            "urls": self.urls.iter().map(Url::as_str).collect::<Vec<_>>(),
            "verify": !a.insecure,
            "ca_certs": a.ca_cert.as_ref().map(|p| p.display().to_string()),
            "timeout": self.timeout.as_secs_f64(),
        });
        match &a.auth {
            Auth::None => {}
            Auth::Basic { user, password } => {
                v["user"] = user.as_str().into();
                v["password"] = password.expose().into();
            }
            Auth::ApiKey(key) => v["api_key"] = key.expose().into(),
            Auth::Bearer(token) => v["bearer"] = token.expose().into(),
        }
        v
    }

    /// The same client (auth, TLS, timeouts) sending to `urls` instead: the endpoints of a
    /// proxy in front of the cluster, one per URL.
    pub fn with_urls(&self, urls: Vec<Url>) -> Target {
        Target {
            urls,
            client: self.client.clone(),
            timeout: self.timeout,
            max_answer: self.max_answer,
            auth_hint: self.auth_hint.clone(),
            access: self.access.clone(),
        }
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

    /// The same target with another per-request timeout (a track's `request-timeout`).
    pub fn with_timeout(&self, timeout: Duration) -> Target {
        Target {
            timeout,
            ..self.clone()
        }
    }

    /// The largest search or API answer read, in bytes (`--max-answer`).
    pub fn max_answer(&self) -> u64 {
        self.max_answer
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
        self.send_at(0, method, path, body).await
    }

    /// [`Target::send`] to endpoint `i` (round robin over the list).
    pub async fn send_at(
        &self,
        i: usize,
        method: Method,
        path: &str,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<Reply, TargetError> {
        let url = self.endpoint(i, path);
        // The target's own timeout, per request: a copy with a longer one
        // ([`Target::with_timeout`]) outlasts the client's.
        let mut request = self
            .client
            .request(method.clone(), &url)
            .timeout(self.timeout);
        if let Some((content_type, body)) = body {
            request = request.header(CONTENT_TYPE, content_type).body(body);
        }
        let what = || format!("{method} {url}");
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|e| TargetError::from_send(what(), e))?;
            let status = response.status().as_u16();
            let elastic_product = response.headers().contains_key("x-elastic-product");
            let location = redirect_location(&response);
            let body = body::read_bounded(response, self.max_answer)
                .await
                .map_err(|e| e.into_target_error(what(), MAX_ANSWER_HINT))?;
            Ok((status, elastic_product, location, body))
        };
        let (status, elastic_product, location, body) =
            match body::within(self.timeout, what, exchange).await {
                Ok(answer) => answer,
                Err(e) => return Err(tls_probe::explain(e, &url).await),
            };
        if !(200..300).contains(&status) {
            let mut reason = if (300..400).contains(&status) {
                redirect_reason(location.as_deref())
            } else {
                error::server_reason(&body)
            };
            if let Some(hint) = self.auth_hint.as_ref().filter(|_| status == 401) {
                reason.push_str("; ");
                reason.push_str(hint);
            }
            return Err(TargetError::Status {
                request: what(),
                status,
                reason,
            });
        }
        Ok(Reply {
            status,
            body,
            elastic_product,
        })
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

/// Where a 3xx answer points (`Location`), when it is one.
pub fn redirect_location(response: &reqwest::Response) -> Option<String> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?;
    Some(redact_url(&String::from_utf8_lossy(location.as_bytes())))
}

/// Why a redirect is an error: searchbench measures the server it is given, and a redirect
/// followed in silence (a bulk request re-sent elsewhere, its timings mixed) would measure
/// another. Says where to point `--url` instead.
pub fn redirect_reason(location: Option<&str>) -> String {
    match location {
        Some(to) => format!(
            "redirected to {to}; searchbench follows no redirect, so that the server it \
             measures is the one named: point --url at the server that answers"
        ),
        None => "a redirect without a Location; searchbench follows no redirect: point --url \
                 at the server that answers"
            .into(),
    }
}

/// The certificates of a `--ca-cert` PEM file, or why it holds none.
fn ca_certificates(pem: &[u8]) -> Result<Vec<reqwest::Certificate>, String> {
    if pem.trim_ascii().is_empty() {
        return Err(
            "the file is empty; it should hold the CA certificate in PEM form \
                    (-----BEGIN CERTIFICATE-----)"
                .into(),
        );
    }
    let has = |what: &[u8]| memchr::memmem::find(pem, what).is_some();
    if !has(b"-----BEGIN CERTIFICATE-----") {
        let what = if has(b"PRIVATE KEY-----") {
            "a private key"
        } else if has(b"-----BEGIN ") {
            "PEM blocks"
        } else {
            "no PEM block"
        };
        return Err(format!(
            "the file holds {what} but no certificate (-----BEGIN CERTIFICATE-----): give \
             the CA certificate that signed the cluster's HTTP certificate"
        ));
    }
    let certs = reqwest::Certificate::from_pem_bundle(pem).map_err(|e| e.to_string())?;
    if certs.is_empty() {
        return Err("no certificate could be read from the file".into());
    }
    Ok(certs)
}

/// How to raise the bound on a search or API answer.
pub const MAX_ANSWER_HINT: &str = "raise --max-answer if the cluster's answers are this large";

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

/// `raw` as a URL without its userinfo, and the userinfo as basic-auth credentials. One rule,
/// curl's: `%` and two hex digits is decoded (`%25` is a `%`), every other character is taken
/// as written, `@ # ? / \ :` and spaces included (the user name ends at the first `:`, the
/// password at the last `@`). The URL that is kept never carries a secret, so nothing built
/// from it (requests, errors, results) can leak one.
fn parse_url(raw: &str) -> Result<(Url, Option<(String, Secret)>), TargetError> {
    let bad = |reason: &str| TargetError::Url {
        url: redact_url(raw),
        reason: reason.to_string(),
    };
    // `host:9200` parses as scheme `host` with path `9200`: without `://` the user meant a
    // host, not a scheme.
    let no_scheme = || {
        let bare = raw.trim().trim_start_matches('/');
        let example = if bare.is_empty() || bare.contains(char::is_whitespace) {
            String::new()
        } else {
            format!(", e.g. http://{}", redact_url(bare))
        };
        bad(&format!("no scheme: write it as http://HOST:PORT{example}"))
    };
    // A password may hold `@`, `#`, `?` or `/` unencoded, which a URL parser would read as
    // the end of the user info: encode them first, so the host is what follows the last `@`.
    let encoded = encode_userinfo(raw);
    let mut url = Url::parse(&encoded).map_err(|e| match e {
        url::ParseError::RelativeUrlWithoutBase => no_scheme(),
        // `https://user:password:host:9200`, the `@` forgotten: the URL is not shown, since
        // what looks like a port may be a password.
        url::ParseError::InvalidPort if !raw.contains('@') && raw.matches(':').count() > 2 => {
            TargetError::Url {
                url: "(not shown: it may hold a password)".into(),
                reason: "invalid port number; a user and password go before an `@`: \
                         http://USER:PASSWORD@HOST:PORT, or give the password in \
                         SEARCHBENCH_PASSWORD with --user USER"
                    .into(),
            }
        }
        e => bad(&e.to_string()),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        if !raw.contains("://") {
            return Err(no_scheme());
        }
        return Err(bad("the scheme must be http or https"));
    }
    if url.host_str().is_none() {
        return Err(bad("no host"));
    }
    let mut credentials = None;
    if !url.username().is_empty() || url.password().is_some() {
        let not_utf8 = |what: &str| {
            bad(&format!(
                "the {what} in the URL is not UTF-8 once its %XX are decoded; write a literal \
                 `%` as %25, or give the password in SEARCHBENCH_PASSWORD (never decoded) with \
                 --user USER"
            ))
        };
        let user = percent_decode(url.username()).ok_or_else(|| not_utf8("user name"))?;
        let password =
            percent_decode(url.password().unwrap_or("")).ok_or_else(|| not_utf8("password"))?;
        credentials = Some((user, Secret::new(password)));
        // Cannot fail for http(s) URLs with a host.
        let _ = url.set_username("");
        let _ = url.set_password(None);
    }
    Ok((url, credentials))
}

/// Where the user info of `raw` is: after `://` (or from the start) up to the last `@`.
/// Host names never hold an `@`, passwords may hold anything; an `@` in a path is rare in a
/// cluster URL, and mistaking one for the user info only masks more than it must.
fn userinfo_span(raw: &str) -> Option<(usize, usize)> {
    let start = raw.find("://").map_or(0, |i| i + 3);
    let at = start + raw[start..].rfind('@')?;
    Some((start, at))
}

/// `raw` with every character of its user info that a URL parser would not keep as it is
/// percent-encoded: `@ # ? /` would end it early, `\\` is a `/` to the parser, spaces and
/// the like are refused. `%` and two hex digits stay, as an encoding the user wrote; any other
/// `%` is a `%`.
fn encode_userinfo(raw: &str) -> String {
    let Some((start, at)) = userinfo_span(raw) else {
        return raw.to_string();
    };
    let mut out = String::with_capacity(raw.len() + 8);
    out.push_str(&raw[..start]);
    let info = &raw[start..at];
    for (i, c) in info.char_indices() {
        let hex = |k: usize| {
            info.as_bytes()
                .get(i + k)
                .is_some_and(u8::is_ascii_hexdigit)
        };
        match c {
            '%' if hex(1) && hex(2) => out.push('%'),
            c if c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:".contains(c) => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    out.push_str(&raw[at..]);
    out
}

/// `raw` with the password of its userinfo (`user:password@`) replaced by `***`: the one
/// form in which a URL the user gave is displayed, stored or put in an error. Works on text
/// that is not a valid URL too, so a typo never prints a secret. The password runs to the
/// last `@`, whatever it holds.
pub fn redact_url(raw: &str) -> String {
    let Some((start, at)) = userinfo_span(raw) else {
        return raw.to_string();
    };
    let rest = &raw[start..];
    let at = at - start;
    let userinfo = &rest[..at];
    let user = userinfo.split(':').next().unwrap_or("");
    let shown = if userinfo.contains(':') {
        format!("{user}:***")
    } else {
        user.to_string()
    };
    format!("{}{shown}{}", &raw[..start], &rest[at..])
}

/// Whether `raw` (a URL, or several joined by commas, valid or not) carries user info
/// (`user@`, `user:password@`), read as [`redact_url`] and the client read it: to the last
/// `@`, whatever the password holds (`/`, `#`, `?`, `,`). Where a command must keep
/// credentials out of what it writes (a manifest, printed commands), this is the test.
pub fn url_has_credentials(raw: &str) -> bool {
    userinfo_span(raw).is_some()
}

/// `text` with the password of every URL in it (`scheme://user:password@host`, anywhere in
/// the text: an error, a warning, a field of a result copied from elsewhere) replaced by
/// `***`, each URL read as [`redact_url`] reads one, up to the next white space.
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let end = rest[i + 3..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |e| i + 3 + e);
        out.push_str(&redact_url(&rest[..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Each of `urls` through [`redact_url`].
pub fn redact_urls(urls: &[String]) -> Vec<String> {
    urls.iter().map(|u| redact_url(u)).collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handover_carries_the_credentials_and_trust_but_its_urls_none_and_debug_hides_them() {
        let mut config = TargetConfig::local("https://elastic:s3cret@127.0.0.1:9200");
        config.insecure = true;
        let t = Target::new(&config).unwrap();
        let h = t.handover();
        assert_eq!(h["urls"], serde_json::json!(["https://127.0.0.1:9200/"]));
        assert_eq!(
            (&h["user"], &h["password"]),
            (&"elastic".into(), &"s3cret".into())
        );
        assert_eq!(h["verify"], false);
        assert_eq!(h["timeout"], 30.0);
        assert!(!format!("{t:?}").contains("s3cret"), "{t:?}");

        let mut config = TargetConfig::local("http://127.0.0.1:9200");
        config.auth = Auth::ApiKey(Secret::new("aWQ6a2V5"));
        let h = Target::new(&config).unwrap().handover();
        assert_eq!(
            (&h["api_key"], h.get("user"), &h["verify"]),
            (&"aWQ6a2V5".into(), None, &true.into())
        );
    }

    #[test]
    fn credentials_are_found_whatever_the_password_holds() {
        for raw in [
            "http://u:p@h:9200",
            "http://u:a/b@h:9200",
            "https://u:a/b?c#d@h",
            "u:p@h",
            "http://h1:9200,http://u:x/y@h2:9200",
            "http://u:p,q@h",
            "http://user@h",
        ] {
            assert!(url_has_credentials(raw), "{raw}");
            // And redacting leaves none.
            assert!(!redact_url(raw).contains("p@") && !redact_url(raw).contains("/b@"));
        }
        for raw in ["http://h:9200", "https://h:9200/x,http://h2"] {
            assert!(!url_has_credentials(raw), "{raw}");
        }
    }

    #[test]
    fn redacts_the_password_of_any_url_text() {
        assert_eq!(
            redact_url("http://elastic:s3cret@127.0.0.1:9200/x?y=1"),
            "http://elastic:***@127.0.0.1:9200/x?y=1"
        );
        assert_eq!(
            redact_url("elastic:s3cret@host:bad"),
            "elastic:***@host:bad"
        );
        assert_eq!(redact_url("http://a:b:c@h@x/"), "http://a:***@x/");
        assert_eq!(redact_url("http://user@host/"), "http://user@host/");
        assert_eq!(redact_url("http://host/p@th"), "http://host/p@th");
        // Unencoded `@`, `#`, `?` and `/` in the password: masked to the last `@`.
        assert_eq!(
            redact_url("https://user:Url@Pass#9@host:9200"),
            "https://user:***@host:9200"
        );
        assert_eq!(
            redact_url("https://user:a/b?c#d@host:9200/x"),
            "https://user:***@host:9200/x"
        );
    }

    #[test]
    fn redacts_the_password_of_every_url_in_a_text() {
        assert_eq!(
            redact_urls_in("no route to https://u:s3cret@h:9200/_stats; retried http://v:pw@g/"),
            "no route to https://u:***@h:9200/_stats; retried http://v:***@g/"
        );
        // Text without a URL's credentials is kept as it is, `@` and all.
        for kept in [
            "mail a:b@c",
            "http://h/p@th",
            "https://user@host/ x:y@z",
            "",
        ] {
            assert_eq!(redact_urls_in(kept), kept);
        }
    }

    #[test]
    fn userinfo_becomes_basic_auth_percent_decoded() {
        let (url, creds) = parse_url("http://elastic:p%40ss%3Aw0rd@127.0.0.1:9200").unwrap();
        for raw in [
            "127.0.0.1:9200",
            "localhost:9200",
            "elastic:pw@localhost:9200",
        ] {
            let err = parse_url(raw).unwrap_err().to_string();
            assert!(
                err.contains("no scheme: write it as http://HOST:PORT"),
                "{err}"
            );
            assert!(!err.contains("pw@"), "{err}");
        }
        assert_eq!(url.as_str(), "http://127.0.0.1:9200/");
        let (url, raw_creds) = parse_url("https://user:Url@Pass#9/?x@host:9200").unwrap();
        assert_eq!(url.as_str(), "https://host:9200/");
        assert_eq!(raw_creds.unwrap().1.expose(), "Url@Pass#9/?x");
        let (user, password) = creds.unwrap();
        assert_eq!(user, "elastic");
        assert_eq!(password.expose(), "p@ss:w0rd");
        let err = parse_url("ftp://elastic:s3cret@host")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("s3cret"), "{err}");
        let mut config = TargetConfig::local("http://u:pw@127.0.0.1:9");
        config.auth = Auth::Bearer(Secret::new("t"));
        assert!(Target::new(&config).is_err());
    }

    /// One rule for the user info, curl's: `%XX` decoded, everything else as written.
    #[test]
    fn every_character_of_a_url_password_is_taken_as_written_but_percent_hex() {
        let password = |raw: &str| {
            let (url, creds) = parse_url(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
            assert_eq!(url.as_str(), "https://host:9200/", "{raw}");
            creds.expect("credentials").1.expose().to_string()
        };
        assert_eq!(password(r"https://u:back\slash@host:9200"), r"back\slash");
        assert_eq!(
            password(r"https://u:a\b@c/d?e#f g@host:9200"),
            r"a\b@c/d?e#f g"
        );
        assert_eq!(
            password("https://u:p[1]{2}|^\"<>`@host:9200"),
            "p[1]{2}|^\"<>`"
        );
        assert_eq!(password("https://u:100%sure@host:9200"), "100%sure");
        assert_eq!(password("https://u:pl%2bus@host:9200"), "pl+us");
        assert_eq!(password("https://u:fifty%25@host:9200"), "fifty%");
        assert_eq!(password("https://u:ünï@host:9200"), "ünï");
        assert_eq!(password("https://u:a:b@host:9200"), "a:b");
        let err = parse_url("https://u:%ff@host:9200")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("%25") && err.contains("SEARCHBENCH_PASSWORD"),
            "{err}"
        );
        // The `@` forgotten: the port is refused with where the password goes.
        let err = parse_url("https://u:pw:host:9200").unwrap_err().to_string();
        assert!(
            err.contains("USER:PASSWORD@HOST") && !err.contains("pw:"),
            "{err}"
        );
    }
}
