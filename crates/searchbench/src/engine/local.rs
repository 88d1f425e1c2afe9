//! A local, unpacked distribution folder (a user's own build of Elasticsearch or OpenSearch):
//! what it is, read from its files, so that it starts like a catalogue distribution.

use std::path::{Path, PathBuf};

use super::catalog::{jdk_range, EngineSpec, Kind, Product, Version};
use super::EngineError;

/// The engine in `dir`: product and version from its core jar (`lib/opensearch-3.0.0.jar`,
/// `lib/elasticsearch-8.17.4-SNAPSHOT.jar`), the JDK range of that release, and the folder
/// itself (made absolute) as its home. Nothing is unpacked or changed.
pub fn inspect(dir: &Path) -> Result<(EngineSpec, PathBuf), EngineError> {
    let bad = |reason: String| EngineError::BadOption {
        what: format!("--engine-dir {}", dir.display()),
        reason,
    };
    let home = dir
        .canonicalize()
        .map_err(|e| bad(format!("cannot open it: {e}")))?;
    if !home.is_dir() {
        return Err(bad("not a folder".into()));
    }
    let lib = home.join("lib");
    let entries = std::fs::read_dir(&lib).map_err(|_| {
        bad("not an unpacked Elasticsearch or OpenSearch distribution: it has no lib/ folder (point it at the folder that holds bin/, config/, lib/ and modules/, e.g. build/distribution/local/opensearch-3.0.0-SNAPSHOT)".into())
    })?;
    let names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    let Some((product, version)) = names.iter().find_map(|n| core_jar(n)) else {
        return Err(bad(format!(
            "no core jar in {} (lib/opensearch-VERSION.jar or lib/elasticsearch-VERSION.jar) to read the product and version from",
            lib.display()
        )));
    };
    let script = home.join("bin").join(product_word(product));
    if !script.is_file() {
        return Err(bad(format!(
            "{} is missing: the distribution's start script",
            script.display()
        )));
    }
    if !home.join("config").is_dir() {
        return Err(bad(format!("{} has no config/ folder", home.display())));
    }
    if crate::os::is_root() && !super::paths::open_to_others(&home) {
        return Err(bad(format!(
            "as root, distributions run as the user nobody, who cannot reach {}: put the folder where others may read it (e.g. under /var/tmp) or `chmod -R o+rX` it and its parents",
            home.display()
        )));
    }
    let release = numeric_part(&version)
        .unwrap_or(Version::parse("0").unwrap_or_else(|| unreachable!("0 is a release number")));
    let spec = EngineSpec {
        name: format!("{}-{version}", product_word(product)),
        product,
        version,
        kind: Kind::Distribution,
        artifact: format!("dir:{}", home.display()),
        jdk: jdk_range(product, Kind::Distribution, &release),
    };
    Ok((spec, home))
}

fn product_word(product: Product) -> &'static str {
    super::catalog::product_prefix(product)
}

/// `opensearch-3.0.0-SNAPSHOT.jar` → (OpenSearch, `3.0.0-SNAPSHOT`); the other jars of the
/// product (`opensearch-core-3.0.0.jar`) have a word, not a number, after the product.
fn core_jar(name: &str) -> Option<(Product, String)> {
    let stem = name.strip_suffix(".jar")?;
    let (product, version) = crate::cluster::PRODUCTS
        .iter()
        .filter(|t| t.jvm)
        .find_map(|t| Some((t.product, stem.strip_prefix(t.word)?.strip_prefix('-')?)))?;
    numeric_part(version)?;
    Some((product, version.to_string()))
}

/// `3.0.0-SNAPSHOT` → 3.0.0.
pub fn numeric_part(version: &str) -> Option<Version> {
    Version::parse(version.split('-').next()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_jar_names_product_and_version() {
        assert_eq!(
            core_jar("opensearch-3.0.0-SNAPSHOT.jar"),
            Some((Product::OpenSearch, "3.0.0-SNAPSHOT".into()))
        );
        assert_eq!(
            core_jar("elasticsearch-8.17.4.jar"),
            Some((Product::Elasticsearch, "8.17.4".into()))
        );
        assert_eq!(core_jar("elasticsearch-x-content-8.17.4.jar"), None);
        assert_eq!(core_jar("opensearch-core-3.0.0.jar"), None);
        assert_eq!(core_jar("lucene-core-9.12.0.jar"), None);
    }

    #[test]
    fn a_folder_that_is_not_a_distribution_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let e = inspect(dir.path()).unwrap_err().to_string();
        assert!(e.contains("no lib/ folder"), "{e}");
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/opensearch-2.19.1.jar"), b"").unwrap();
        let e = inspect(dir.path()).unwrap_err().to_string();
        assert!(e.contains("bin/opensearch is missing"), "{e}");
        assert!(inspect(&dir.path().join("nope")).is_err());
    }
}
