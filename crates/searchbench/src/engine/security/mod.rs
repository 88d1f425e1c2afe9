//! A secured OpenSearch cluster on the loopback: the distribution with the security plugin
//! from Maven Central, our own CA and a node certificate for 127.0.0.1, an admin and a
//! read-only user. What most clusters people benchmark look like (TLS, users, roles), started
//! as easily as a plain node.
//!
//! Elasticsearch's security (x-pack) is in no artifact Maven Central carries, so it is
//! refused with what to do instead (point `--url`, `--ca-cert`, `--user` at such a cluster).
//!
//! The plugin reads its users and roles from `config/opensearch-security/` on the first
//! start (`allow_default_init_securityindex`) into its index in the node's data. A node made
//! afresh gets a new CA and new users at every start. A node that lasts (`--data DIR`) keeps
//! its CA and its users' hashes ([`kept`]); its users live on in the plugin's index, and a
//! restart needs the admin's password. Only bcrypt hashes reach the disk; the passwords live
//! in memory and are printed once, at the start that made them.

pub mod kept;
mod pki;

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use super::catalog::EngineSpec;
use super::EngineError;
use crate::cluster::{Auth, Secret, Security};

/// The user with every permission (`all_access`).
pub const ADMIN: &str = "admin";
/// The user who may read, search and monitor, and write nothing (`searchbench_reader`).
pub const READER: &str = "reader";
/// The user who may publish runs into the `searchbench-*` indices and read them back, and
/// touch nothing else (`searchbench_publisher`): what a nightly job is given.
pub const PUBLISHER: &str = "publisher";

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
    /// The CA that signed the node certificates (in the first node's config folder, or in
    /// the kept folder of a node that lasts).
    pub ca_cert: PathBuf,
    pub admin_password: Secret,
    /// Whether the admin's password was made here (then it is printed once).
    pub admin_generated: bool,
    /// The other users' passwords, made at this start; `None` on a restart of a node that
    /// lasts (they were said at its first start, and only their hashes were kept).
    pub reader_password: Option<Secret>,
    pub publisher_password: Option<Secret>,
    /// Where a node that lasts keeps its CA and users (`DIR/searchbench-security`).
    pub kept: Option<PathBuf>,
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

/// The file of the CA certificate, relative to a node's config folder (and to the kept
/// folder of a node that lasts).
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

/// Where the cluster's CA and users come from, and what its node certificate names.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// The first node's CA file (see [`ca_file`]), used when nothing is kept.
    pub ca_cert: PathBuf,
    /// The kept folder of a node that lasts (see [`kept::folder`]): read when an earlier
    /// start filled it, filled otherwise.
    pub keep: Option<PathBuf>,
    /// Addresses the node is reached at besides localhost and 127.0.0.1 (`--bind`).
    pub addresses: Vec<IpAddr>,
}

/// Makes (or, for a node that lasts, reads back) the cluster's CA and users, and signs the
/// node certificate. A CA made for a node made afresh signs once and its key is dropped:
/// nothing can sign another certificate for that cluster afterwards.
pub fn prepare(
    options: &SecurityOptions,
    placement: &Placement,
) -> Result<(NodeSecurity, Access), EngineError> {
    let kept = match &placement.keep {
        Some(dir) => kept::Kept::load(dir)?,
        None => None,
    };
    let (ca, users, access) = match kept {
        Some(kept) => {
            let admin_password = kept.check_admin(options.admin_password.as_ref())?;
            let access = Access {
                ca_cert: kept.ca_cert(),
                admin_password,
                admin_generated: false,
                reader_password: None,
                publisher_password: None,
                kept: Some(kept.dir.clone()),
            };
            (kept.ca, kept.users, access)
        }
        None => {
            let ca = pki::Ca::generate()?;
            let (admin_password, admin_generated) = match &options.admin_password {
                Some(p) => (p.clone(), false),
                None => (Secret::new(password()?), true),
            };
            let reader_password = Secret::new(password()?);
            let publisher_password = Secret::new(password()?);
            let users = users_yml(&admin_password, &reader_password, &publisher_password)?;
            let ca_cert = match &placement.keep {
                Some(dir) => {
                    kept::Kept::save(dir, &ca, &users)?;
                    dir.join(CA_FILE)
                }
                None => placement.ca_cert.clone(),
            };
            let access = Access {
                ca_cert,
                admin_password,
                admin_generated,
                reader_password: Some(reader_password),
                publisher_password: Some(publisher_password),
                kept: placement.keep.clone(),
            };
            (ca, users, access)
        }
    };
    let node = ca.sign_node(&placement.addresses)?;
    let dir = Path::new("opensearch-security");
    let files = vec![
        (PathBuf::from(CA_FILE), ca.cert_pem, Reach::Public),
        (PathBuf::from("node.pem"), node.cert_pem, Reach::Public),
        (PathBuf::from("node-key.pem"), node.key_pem, Reach::Private),
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
        access,
    ))
}

/// The plugin's `internal_users.yml`: each user's bcrypt hash and backend role.
fn users_yml(admin: &Secret, reader: &Secret, publisher: &Secret) -> Result<String, EngineError> {
    let hash = |p: &Secret| {
        bcrypt::hash(p.expose(), BCRYPT_COST).map_err(|e| EngineError::BadOption {
            what: "the users' passwords".into(),
            reason: format!("cannot hash: {e}"),
        })
    };
    Ok(format!(
        "_meta:\n  type: \"internalusers\"\n  config_version: 2\n\
         {ADMIN}:\n  hash: \"{}\"\n  backend_roles: [\"admin\"]\n  description: \"searchbench: all access\"\n\
         {READER}:\n  hash: \"{}\"\n  backend_roles: [\"readonly\"]\n  description: \"searchbench: read and search only\"\n\
         {PUBLISHER}:\n  hash: \"{}\"\n  backend_roles: [\"publisher\"]\n  description: \"searchbench: publish runs only\"\n",
        hash(admin)?,
        hash(reader)?,
        hash(publisher)?,
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
searchbench_publisher:
  reserved: false
  backend_roles: [\"publisher\"]
";

/// The read-only role: what a monitoring or search-only account of a real cluster has. Read
/// and search every index, see its mapping, settings and stats, and the cluster's health;
/// write nothing (a bulk request is refused whole, 403). The plugin's built-in `readall`
/// cannot even read an index's mapping, which every tool does before it measures.
///
/// The publisher: everything `results publish` and its read-back do in the results indices
/// of the default prefix (create them, write, replace and delete documents by id, read back,
/// check the schema's version), and nothing anywhere else. A team publishing under another
/// prefix gives its own user the same role over its pattern (the README's recipe).
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
searchbench_publisher:
  reserved: false
  description: \"searchbench: publish runs into searchbench-* and read them back; nothing else\"
  cluster_permissions:
    - \"cluster_composite_ops\"
  index_permissions:
    - index_patterns: [\"searchbench-*\"]
      allowed_actions:
        - \"crud\"
        - \"create_index\"
        - \"indices:admin/get\"
        - \"indices:admin/mappings/get\"
        - \"indices:admin/mapping/put\"
        - \"indices:admin/refresh*\"
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
    use std::os::unix::fs::PermissionsExt;
    for (relative, text, reach) in &security.files {
        let path = config.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EngineError::io(parent, e))?;
            if *reach == Reach::Private && parent != config {
                std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| EngineError::io(parent, e))?;
            }
        }
        write_file(&path, text, *reach)?;
    }
    let yml = config.join("opensearch.yml");
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&yml)
        .and_then(|mut f| f.write_all(security.settings_yaml.as_bytes()))
        .map_err(|e| EngineError::io(&yml, e))
}

/// Writes `text` to `path` created with `reach`'s mode, so it is never readable by others,
/// not even for a moment; a file left by an earlier start is replaced, and made private too.
fn write_file(path: &Path, text: &str, reach: Reach) -> Result<(), EngineError> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let _ = std::fs::remove_file(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(reach.mode())
        .open(path)
        .and_then(|mut f| {
            f.set_permissions(std::fs::Permissions::from_mode(reach.mode()))?;
            f.write_all(text.as_bytes())
        })
        .map_err(|e| EngineError::io(path, e))
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

    /// A node made afresh, as a first node in `/n`.
    fn fresh() -> Placement {
        Placement {
            ca_cert: ca_file(Path::new("/n")),
            ..Placement::default()
        }
    }

    /// A node that lasts: its first start makes the CA and users and keeps them, printing
    /// the passwords; a restart reads them back, needs the admin's password, makes no new
    /// password, and its CA file (the clients' `--ca-cert`) stays where it was.
    #[test]
    fn a_node_that_lasts_keeps_its_ca_and_users_and_makes_no_new_password() {
        let data = tempfile::tempdir().unwrap();
        let placement = Placement {
            keep: Some(kept::folder(data.path())),
            addresses: vec!["127.0.0.2".parse().unwrap()],
            ..fresh()
        };
        let (first_files, first) = prepare(&SecurityOptions::default(), &placement).unwrap();
        assert!(first.admin_generated && first.reader_password.is_some());
        assert_eq!(
            first.ca_cert,
            data.path().join("searchbench-security/root-ca.pem")
        );
        let file = |files: &NodeSecurity, name: &str| {
            files
                .files
                .iter()
                .find(|(p, _, _)| p.ends_with(name))
                .map(|(_, t, _)| t.clone())
                .unwrap()
        };
        let again = SecurityOptions {
            admin_password: Some(first.admin_password.clone()),
        };
        let (files, restarted) = prepare(&again, &placement).unwrap();
        assert!(!restarted.admin_generated);
        assert!(restarted.reader_password.is_none() && restarted.publisher_password.is_none());
        assert_eq!(restarted.ca_cert, first.ca_cert);
        assert_eq!(restarted.kept.as_deref(), placement.keep.as_deref());
        assert_eq!(file(&files, CA_FILE), file(&first_files, CA_FILE));
        assert_eq!(
            file(&files, "internal_users.yml"),
            file(&first_files, "internal_users.yml")
        );
        assert_ne!(file(&files, "node.pem"), file(&first_files, "node.pem"));
        // Without the admin's password, or with another, a restart is refused.
        for wrong in [None, Some(Secret::new("not-it"))] {
            let options = SecurityOptions {
                admin_password: wrong,
            };
            let e = prepare(&options, &placement).expect_err("refused");
            assert!(e.is_usage(), "{e}");
        }
    }

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
        let (node, credentials) = prepare(&options, &fresh()).unwrap();
        assert_eq!(credentials.ca_cert, Path::new("/n/config/root-ca.pem"));
        assert!(!credentials.admin_generated);
        assert_eq!(credentials.admin_password.expose(), "chosen-admin-pw");
        let reader = credentials.reader_password.clone().expect("made here");
        let publisher = credentials.publisher_password.clone().expect("made here");
        let all: String = node.files.iter().map(|(_, t, _)| t.as_str()).collect();
        for secret in ["chosen-admin-pw", reader.expose(), publisher.expose()] {
            assert!(!all.contains(secret));
        }
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
        assert_eq!(hashes.len(), 3);
        assert!(bcrypt::verify("chosen-admin-pw", hashes[0]).unwrap());
        assert!(bcrypt::verify(reader.expose(), hashes[1]).unwrap());
        assert!(bcrypt::verify(publisher.expose(), hashes[2]).unwrap());
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
        let (node, _) = prepare(&SecurityOptions::default(), &fresh()).unwrap();
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
