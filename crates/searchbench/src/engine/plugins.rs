//! Plugins installed into a distribution we start: OpenSearch's security plugin (see
//! [`super::security`]) and its k-NN plugin, each fetched from Maven Central and installed by
//! the distribution's own `opensearch-plugin`, as a user would.
//!
//! The k-NN plugin extends `lang-painless` (its scoring scripts), which the distribution on
//! Maven Central (the `integ-test-zip`) leaves out and Maven Central carries only as jars: the
//! module is laid down from them ([`painless_module`]) before the plugin is installed. The
//! plugin's zip holds no native library, so its Lucene engine is the one that runs here
//! (faiss and nmslib load libraries Maven Central does not carry).

use std::path::Path;

use super::catalog::{EngineSpec, Kind};
use super::EngineError;
use crate::cluster::{Security, Vectors};

/// What a node we start has installed beyond the distribution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plugins {
    /// The security plugin (TLS, users).
    pub security: bool,
    /// The k-NN plugin (`knn_vector`, the `knn` query).
    pub knn: bool,
}

impl Plugins {
    /// The plugins `spec`'s product needs installed for what was asked: vector search is in
    /// Elasticsearch's core (nothing to install), a plugin in OpenSearch's; a product with
    /// neither is refused with why.
    pub fn for_product(
        spec: &EngineSpec,
        security: bool,
        knn: bool,
    ) -> Result<Plugins, EngineError> {
        let knn = knn
            && match spec.product.traits().vectors {
                Vectors::Core => false,
                Vectors::Plugin(_) => true,
                Vectors::Elsewhere(why) => {
                    return Err(EngineError::BadOption {
                        what: format!("--knn with {}", spec.name),
                        reason: why.into(),
                    })
                }
            };
        if security {
            if let Security::Elsewhere(why) = spec.product.traits().security {
                return Err(EngineError::BadOption {
                    what: format!("--security with {}", spec.name),
                    reason: why.into(),
                });
            }
        }
        Ok(Plugins { security, knn })
    }

    pub fn any(self) -> bool {
        self.security || self.knn
    }

    /// The suffix of the folder the distribution with these plugins is provisioned in
    /// (`-knn-security`), beside the plain one.
    pub fn folder_suffix(self) -> String {
        let mut suffix = String::new();
        if self.knn {
            suffix.push_str("-knn");
        }
        if self.security {
            suffix.push_str("-security");
        }
        suffix
    }

    /// What the flags asked, for errors (`--knn --security`).
    fn flags(self) -> String {
        let mut flags = Vec::new();
        if self.knn {
            flags.push("--knn");
        }
        if self.security {
            flags.push("--security");
        }
        flags.join(" ")
    }
}

/// The distribution the plugins install into: `spec` itself, or the `-dist` of a runner's
/// release (a runner has no `plugins/` folder).
pub fn distribution_for(spec: EngineSpec, plugins: Plugins) -> Result<EngineSpec, EngineError> {
    if !plugins.any() || spec.kind == Kind::Distribution {
        return Ok(spec);
    }
    let dist = format!("{}{}", spec.name, super::DIST_SUFFIX);
    super::find(&dist).ok_or_else(|| EngineError::BadOption {
        what: format!("{} with {}", plugins.flags(), spec.name),
        reason: format!(
            "plugins install into a distribution, and Maven Central has none of {} ({dist}); \
             see `searchbench engine list --available opensearch`",
            spec.name
        ),
    })
}

/// Maven coordinates of the k-NN plugin's zip for `spec`'s release: its version plus `.0`.
pub fn knn_artifact(spec: &EngineSpec) -> Result<String, EngineError> {
    match spec.product.traits().vectors {
        Vectors::Plugin(coordinates) => Ok(format!("{coordinates}:{}.0:zip", spec.version)),
        Vectors::Core | Vectors::Elsewhere(_) => Err(EngineError::BadOption {
            what: format!("--knn with {}", spec.name),
            reason: "its vector search is not a plugin".into(),
        }),
    }
}

/// The Maven project whose runtime dependencies are `lang-painless` and the jars its module
/// holds: the plugin's own dependencies, without the engine's core (already in `lib/`).
pub fn painless_pom(spec: &EngineSpec) -> String {
    format!(
        r#"<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>searchbench</groupId>
  <artifactId>lang-painless-module</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.opensearch.plugin</groupId>
      <artifactId>lang-painless</artifactId>
      <version>{version}</version>
      <exclusions>
        <exclusion>
          <groupId>org.opensearch</groupId>
          <artifactId>opensearch</artifactId>
        </exclusion>
      </exclusions>
    </dependency>
  </dependencies>
</project>
"#,
        version = spec.version
    )
}

/// Writes `lang-painless`'s descriptor and policy into `module` (which holds its jars): what
/// the full distribution's `modules/lang-painless/` holds beside them.
pub fn painless_module(spec: &EngineSpec, module: &Path) -> Result<(), EngineError> {
    let descriptor = format!(
        "description=An easy, safe and fast scripting language for OpenSearch\n\
         version={version}\n\
         name=lang-painless\n\
         classname=org.opensearch.painless.PainlessPlugin\n\
         java.version=11\n\
         opensearch.version={version}\n\
         extended.plugins=\n\
         has.native.controller=false\n",
        version = spec.version
    );
    // Painless compiles scripts into classes of its own loaders.
    let policy = "grant {\n  permission java.lang.RuntimePermission \"createClassLoader\";\n  \
                  permission java.lang.RuntimePermission \"getClassLoader\";\n};\n";
    for (name, text) in [
        ("plugin-descriptor.properties", descriptor.as_str()),
        ("plugin-security.policy", policy),
    ] {
        let path = module.join(name);
        std::fs::write(&path, text).map_err(|e| EngineError::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knn_is_a_plugin_of_opensearch_and_in_elasticsearchs_core() {
        let os = super::super::find("opensearch-2.19.1").unwrap();
        let es = super::super::find("elasticsearch-8.17.4").unwrap();
        let plugins = Plugins::for_product(&os, false, true).unwrap();
        assert!(plugins.knn);
        assert_eq!(plugins.folder_suffix(), "-knn");
        assert_eq!(
            knn_artifact(&os).unwrap(),
            "org.opensearch.plugin:opensearch-knn:2.19.1.0:zip"
        );
        assert_eq!(
            distribution_for(os, plugins).unwrap().kind,
            Kind::Distribution
        );
        // Nothing to install: the runner is started as it is.
        let es_plugins = Plugins::for_product(&es, false, true).unwrap();
        assert!(!es_plugins.any());
        assert_eq!(
            distribution_for(es.clone(), es_plugins).unwrap().name,
            es.name
        );
        let both = Plugins::for_product(
            &super::super::find("opensearch-2.19.1-dist").unwrap(),
            true,
            true,
        )
        .unwrap();
        assert_eq!(both.folder_suffix(), "-knn-security");
        let sketch = super::super::sketch();
        let refused = Plugins::for_product(&sketch, false, true)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("--knn with sketch"), "{refused}");
    }

    #[test]
    fn the_painless_module_leaves_the_engines_core_out() {
        let os = super::super::find("opensearch-2.19.1-dist").unwrap();
        let pom = painless_pom(&os);
        assert!(pom.contains("<version>2.19.1</version>"));
        assert!(pom.contains("<artifactId>opensearch</artifactId>"));
        let dir = std::env::temp_dir().join(format!("sb-painless-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        painless_module(&os, &dir).unwrap();
        let descriptor = std::fs::read_to_string(dir.join("plugin-descriptor.properties")).unwrap();
        assert!(descriptor.contains("opensearch.version=2.19.1\n"));
        assert!(descriptor.contains("classname=org.opensearch.painless.PainlessPlugin\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
