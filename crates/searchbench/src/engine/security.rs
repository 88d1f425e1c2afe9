//! A secured OpenSearch cluster on the loopback: the distribution with the security plugin
//! from Maven Central, our own CA and a node certificate for 127.0.0.1, an admin and a
//! read-only user. What most clusters people benchmark look like (TLS, users, roles), started
//! as easily as a plain node.
//!
//! Elasticsearch's security (x-pack) is in no artifact Maven Central carries, so it is
//! refused with what to do instead (point `--url`, `--ca-cert`, `--user` at such a cluster).
//!
//! The plugin reads its users and roles from `config/opensearch-security/` on the first
//! start (`allow_default_init_securityindex`) into its index in the node's data, so every
//! start writes them afresh into the node's own config copy; the data folder is fresh too.
//! Only bcrypt hashes reach the disk; the passwords live in memory and are printed once.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use super::catalog::EngineSpec;
use super::EngineError;
use crate::cluster::{Auth, Secret, Security};

/// The user with every permission (`all_access`).
pub const ADMIN: &str = "admin";
/// The user who may read, search and monitor, and write nothing (`searchbench_reader`).
pub const READER: &str = "reader";

/// The node certificate's subject (RFC 2253): the plugin's `nodes_dn`.
const NODE_DN: &str = "CN=localhost,OU=node,O=searchbench";
/// A subject no certificate we issue carries: `admin_dn` must name one, and no client
/// certificate is needed to benchmark.
const ADMIN_DN: &str = "CN=admin,OU=client,O=searchbench";

/// bcrypt's cost for the users' hashes: the cost OpenSearch's own `hash.sh` uses. The plugin
/// caches an authenticated user (`plugins.security.cache.ttl_minutes`, an hour), so a load
/// pays it once per user, not per request; a cheaper hash would only help whoever reads the
/// file.
const BCRYPT_COST: u32 = 12;

/// What the caller chooses for a secured start.
#[derive(Debug, Clone, Default)]
pub struct SecurityOptions {
    /// The admin's password (`SEARCHBENCH_PASSWORD`); generated when `None`.
    pub admin_password: Option<Secret>,
}

/// How to reach a secured cluster we started. Kept in memory; the passwords are shown once.
#[derive(Debug, Clone)]
pub struct Access {
    /// The CA that signed the node certificates (in the first node's config folder).
    pub ca_cert: PathBuf,
    pub admin_password: Secret,
    /// Whether the admin's password was made here (then it is printed once).
    pub admin_generated: bool,
    pub reader_password: Secret,
}

impl Access {
    /// Points `config` at the cluster as the admin, trusting its CA.
    pub fn apply(&self, config: &mut crate::cluster::TargetConfig) {
        config.ca_cert = Some(self.ca_cert.clone());
        config.auth = self.admin();
    }

    pub fn admin(&self) -> Auth {
        Auth::Basic {
            user: ADMIN.into(),
            password: self.admin_password.clone(),
        }
    }

    pub fn reader(&self) -> Auth {
        Auth::Basic {
            user: READER.into(),
            password: self.reader_password.clone(),
        }
    }
}

/// The files every node of one secured cluster gets in its config folder, and the settings
/// that go into its `opensearch.yml`.
#[derive(Debug, Clone)]
pub struct NodeSecurity {
    /// (path relative to the config folder, contents, who may read it).
    pub files: Vec<(PathBuf, String, Reach)>,
    pub settings_yaml: String,
}

/// Who may read a file of the node's: the CA certificate is public (clients need it), the
/// node's private key and the users' hashes are the node's alone. A key anyone on the
/// machine can read lets them pose as the node (its certificate is an admitted node's,
/// `nodes_dn`) to every client that trusts the cluster's CA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    Public,
    /// Mode 0600 (its folder 0700): the node's own user only.
    Private,
}

impl Reach {
    fn mode(self) -> u32 {
        match self {
            Reach::Public => 0o644,
            Reach::Private => 0o600,
        }
    }
}

/// The file of the CA certificate, relative to a node's config folder.
const CA_FILE: &str = "root-ca.pem";

/// Where a secured node whose folder is `node_dir` keeps the CA certificate (every node of a
/// cluster has a copy; the first node's is the one printed).
pub fn ca_file(node_dir: &Path) -> PathBuf {
    node_dir.join("config").join(CA_FILE)
}

/// Maven coordinates of the security plugin for `spec`'s release: its version plus `.0`.
pub fn plugin_artifact(spec: &EngineSpec) -> Result<String, EngineError> {
    match spec.product.traits().security {
        Security::Plugin(coordinates) => Ok(format!("{coordinates}:{}.0:zip", spec.version)),
        Security::Elsewhere(why) => Err(EngineError::BadOption {
            what: format!("--security with {}", spec.name),
            reason: why.into(),
        }),
    }
}

/// Generates the cluster's CA and node certificate and the users' hashes; `ca_cert` is where
/// the CA certificate will be (see [`ca_file`]). The CA's key is dropped here: nothing can
/// sign another certificate for this cluster afterwards.
pub fn prepare(
    options: &SecurityOptions,
    ca_cert: PathBuf,
) -> Result<(NodeSecurity, Access), EngineError> {
    let pki = Pki::generate()?;
    let (admin_password, admin_generated) = match &options.admin_password {
        Some(p) => (p.clone(), false),
        None => (Secret::new(password()?), true),
    };
    let reader_password = Secret::new(password()?);
    let hash = |p: &Secret| {
        bcrypt::hash(p.expose(), BCRYPT_COST).map_err(|e| EngineError::BadOption {
            what: "the users' passwords".into(),
            reason: format!("cannot hash: {e}"),
        })
    };
    let users = format!(
        "_meta:\n  type: \"internalusers\"\n  config_version: 2\n\
         {ADMIN}:\n  hash: \"{}\"\n  backend_roles: [\"admin\"]\n  description: \"searchbench: all access\"\n\
         {READER}:\n  hash: \"{}\"\n  backend_roles: [\"readonly\"]\n  description: \"searchbench: read and search only\"\n",
        hash(&admin_password)?,
        hash(&reader_password)?,
    );
    let dir = Path::new("opensearch-security");
    let files = vec![
        (PathBuf::from(CA_FILE), pki.ca_pem, Reach::Public),
        (PathBuf::from("node.pem"), pki.node_pem, Reach::Public),
        (
            PathBuf::from("node-key.pem"),
            pki.node_key_pem,
            Reach::Private,
        ),
        (dir.join("internal_users.yml"), users, Reach::Private),
        (dir.join("roles.yml"), ROLES.into(), Reach::Private),
        (
            dir.join("roles_mapping.yml"),
            ROLES_MAPPING.into(),
            Reach::Private,
        ),
        (dir.join("config.yml"), AUTH_CONFIG.into(), Reach::Private),
    ];
    Ok((
        NodeSecurity {
            files,
            settings_yaml: settings_yaml(),
        },
        Access {
            ca_cert,
            admin_password,
            admin_generated,
            reader_password,
        },
    ))
}

/// Only HTTP basic auth against the plugin's own users, no anonymous access.
const AUTH_CONFIG: &str = "\
_meta:
  type: \"config\"
  config_version: 2
config:
  dynamic:
    http:
      anonymous_auth_enabled: false
    authc:
      basic_internal_auth_domain:
        http_enabled: true
        transport_enabled: true
        order: 0
        http_authenticator:
          type: basic
          challenge: true
        authentication_backend:
          type: intern
";

/// `all_access` for the admin; our `searchbench_reader` (below) for the reader.
const ROLES_MAPPING: &str = "\
_meta:
  type: \"rolesmapping\"
  config_version: 2
all_access:
  reserved: false
  backend_roles: [\"admin\"]
searchbench_reader:
  reserved: false
  backend_roles: [\"readonly\"]
";

/// The read-only role: what a monitoring or search-only account of a real cluster has. Read
/// and search every index, see its mapping, settings and stats, and the cluster's health;
/// write nothing (a bulk request is refused whole, 403). The plugin's built-in `readall`
/// cannot even read an index's mapping, which every tool does before it measures.
const ROLES: &str = "\
_meta:
  type: \"roles\"
  config_version: 2
searchbench_reader:
  reserved: false
  description: \"searchbench: read, search and monitor; write nothing\"
  cluster_permissions:
    - \"cluster_composite_ops_ro\"
    - \"cluster_monitor\"
  index_permissions:
    - index_patterns: [\"*\"]
      allowed_actions:
        - \"read\"
        - \"indices_monitor\"
        - \"indices:admin/get\"
        - \"indices:admin/mappings/get\"
";

/// TLS on transport (the plugin demands it) and HTTP with our PEM files, the users and roles
/// above loaded on the first start. As YAML: the DNs hold commas, which `-E` would split.
fn settings_yaml() -> String {
    format!(
        "\n# searchbench --security\n\
         plugins.security.disabled: false\n\
         plugins.security.ssl.transport.pemcert_filepath: node.pem\n\
         plugins.security.ssl.transport.pemkey_filepath: node-key.pem\n\
         plugins.security.ssl.transport.pemtrustedcas_filepath: {CA_FILE}\n\
         plugins.security.ssl.transport.enforce_hostname_verification: false\n\
         plugins.security.ssl.http.enabled: true\n\
         plugins.security.ssl.http.pemcert_filepath: node.pem\n\
         plugins.security.ssl.http.pemkey_filepath: node-key.pem\n\
         plugins.security.ssl.http.pemtrustedcas_filepath: {CA_FILE}\n\
         plugins.security.allow_default_init_securityindex: true\n\
         plugins.security.authcz.admin_dn:\n  - \"{ADMIN_DN}\"\n\
         plugins.security.nodes_dn:\n  - \"{NODE_DN}\"\n\
         plugins.security.restapi.roles_enabled: [\"all_access\"]\n"
    )
}

/// The CA and the node certificate (PEM; the key as PKCS#8, which the plugin requires).
struct Pki {
    ca_pem: String,
    node_pem: String,
    node_key_pem: String,
}

impl Pki {
    fn generate() -> Result<Pki, EngineError> {
        use rcgen::{
            BasicConstraints, CertificateParams, DistinguishedName, DnType,
            ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, SanType,
        };
        let bad = |e: rcgen::Error| EngineError::BadOption {
            what: "the cluster's certificates".into(),
            reason: format!("cannot make them: {e}"),
        };
        let ca_key = KeyPair::generate().map_err(bad)?;
        let mut ca = CertificateParams::default();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name = DistinguishedName::new();
        ca.distinguished_name
            .push(DnType::OrganizationName, "searchbench");
        ca.distinguished_name
            .push(DnType::CommonName, "searchbench local CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).map_err(bad)?;

        let node_key = KeyPair::generate().map_err(bad)?;
        let mut node = CertificateParams::new(vec!["localhost".to_string()]).map_err(bad)?;
        node.subject_alt_names
            .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        // Pushed most general first: RFC 2253 writes it back to front, as NODE_DN.
        node.distinguished_name = DistinguishedName::new();
        node.distinguished_name
            .push(DnType::OrganizationName, "searchbench");
        node.distinguished_name
            .push(DnType::OrganizationalUnitName, "node");
        node.distinguished_name
            .push(DnType::CommonName, "localhost");
        node.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        // The same certificate serves HTTP and both ends of transport.
        node.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let node_cert = node.signed_by(&node_key, &ca_cert, &ca_key).map_err(bad)?;
        Ok(Pki {
            ca_pem: ca_cert.pem(),
            node_pem: node_cert.pem(),
            node_key_pem: node_key.serialize_pem(),
        })
    }
}

/// 24 letters and digits from the kernel's random source.
fn password() -> Result<String, EngineError> {
    use std::io::Read;
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let path = Path::new("/dev/urandom");
    let mut bytes = [0u8; 64];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| EngineError::io(path, e))?;
    // Rejection sampling keeps every letter equally likely.
    let limit = 256 - 256 % ALPHABET.len();
    let word: String = bytes
        .iter()
        .filter(|b| usize::from(**b) < limit)
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .take(24)
        .collect();
    if word.len() < 24 {
        return password();
    }
    Ok(word)
}

/// Writes `security`'s files into a node's config folder, each readable only by whom its
/// [`Reach`] says (a private file's folder too, when it has its own), and appends the
/// settings to the node's `opensearch.yml`. The node's folder is then given to the node's
/// user (`launch::prepare_node_dir`); modes stay.
pub fn write_node_files(config: &Path, security: &NodeSecurity) -> Result<(), EngineError> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    for (relative, text, reach) in &security.files {
        let path = config.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EngineError::io(parent, e))?;
            if *reach == Reach::Private && parent != config {
                std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| EngineError::io(parent, e))?;
            }
        }
        // Created with its mode, so the text is never readable by others, not even for a
        // moment; a file left by an earlier start is made private as well.
        let _ = std::fs::remove_file(&path);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(reach.mode())
            .open(&path)
            .and_then(|mut f| {
                f.set_permissions(std::fs::Permissions::from_mode(reach.mode()))?;
                f.write_all(text.as_bytes())
            })
            .map_err(|e| EngineError::io(&path, e))?;
    }
    let yml = config.join("opensearch.yml");
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&yml)
        .and_then(|mut f| f.write_all(security.settings_yaml.as_bytes()))
        .map_err(|e| EngineError::io(&yml, e))
}

/// The keystores the engines write into a node's config folder.
pub const KEYSTORES: [&str; 2] = ["opensearch.keystore", "elasticsearch.keystore"];

/// Makes each keystore of the node's config folder readable and writable by its owner alone:
/// the engines create it 0660, for a group that may hold other users. (The folder stays open:
/// clients read the CA certificate in it.)
pub fn keep_keystore_private(config: &Path) -> Result<(), EngineError> {
    use std::os::unix::fs::PermissionsExt;
    for name in KEYSTORES {
        let path = config.join(name);
        if path.is_file() {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| EngineError::io(&path, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keystore_left_for_its_group_is_made_the_nodes_alone() {
        use std::os::unix::fs::PermissionsExt;
        let config = tempfile::tempdir().unwrap();
        let keystore = config.path().join("opensearch.keystore");
        std::fs::write(&keystore, "k").unwrap();
        std::fs::set_permissions(&keystore, std::fs::Permissions::from_mode(0o660)).unwrap();
        keep_keystore_private(config.path()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&keystore), 0o600);
        // No keystore (an engine without one): nothing to do, no error.
        let empty = tempfile::tempdir().unwrap();
        keep_keystore_private(empty.path()).unwrap();
    }

    #[test]
    fn passwords_are_long_random_and_plain() {
        let a = password().unwrap();
        let b = password().unwrap();
        assert_eq!(a.len(), 24);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()), "{a}");
    }

    #[test]
    fn a_prepared_cluster_has_its_files_and_only_hashes() {
        let options = SecurityOptions {
            admin_password: Some(Secret::new("chosen-admin-pw")),
        };
        let (node, credentials) = prepare(&options, ca_file(Path::new("/n"))).unwrap();
        assert_eq!(credentials.ca_cert, Path::new("/n/config/root-ca.pem"));
        assert!(!credentials.admin_generated);
        assert_eq!(credentials.admin_password.expose(), "chosen-admin-pw");
        let all: String = node.files.iter().map(|(_, t, _)| t.as_str()).collect();
        assert!(!all.contains("chosen-admin-pw"));
        assert!(!all.contains(credentials.reader_password.expose()));
        let users = &node
            .files
            .iter()
            .find(|(p, _, _)| p.ends_with("internal_users.yml"))
            .unwrap()
            .1;
        let hashes: Vec<&str> = users
            .lines()
            .filter_map(|l| l.trim().strip_prefix("hash: \""))
            .map(|h| h.trim_end_matches('"'))
            .collect();
        assert_eq!(hashes.len(), 2);
        assert!(bcrypt::verify("chosen-admin-pw", hashes[0]).unwrap());
        assert!(bcrypt::verify(credentials.reader_password.expose(), hashes[1]).unwrap());
        let key = &node
            .files
            .iter()
            .find(|(p, _, _)| p.ends_with("node-key.pem"))
            .unwrap()
            .1;
        assert!(
            key.starts_with("-----BEGIN PRIVATE KEY-----"),
            "PKCS#8: {key}"
        );
        assert!(node.settings_yaml.contains(NODE_DN));
    }

    #[test]
    fn the_key_and_the_users_are_written_for_the_node_alone() {
        use std::os::unix::fs::PermissionsExt;
        let (node, _) = prepare(&SecurityOptions::default(), ca_file(Path::new("/n"))).unwrap();
        let config = tempfile::tempdir().unwrap();
        // An earlier start's key, left readable by all, is made private too.
        std::fs::write(config.path().join("node-key.pem"), "old").unwrap();
        std::fs::set_permissions(
            config.path().join("node-key.pem"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        write_node_files(config.path(), &node).unwrap();
        let mode = |p: &str| {
            std::fs::metadata(config.path().join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("node-key.pem"), 0o600);
        assert_eq!(mode("opensearch-security/internal_users.yml"), 0o600);
        assert_eq!(mode("opensearch-security"), 0o700);
        assert_eq!(mode("root-ca.pem"), 0o644, "clients need the CA");
        let users =
            std::fs::read_to_string(config.path().join("opensearch-security/internal_users.yml"))
                .unwrap();
        assert!(users.contains("\"$2b$12$"), "cost 12: {users}");
    }
}
