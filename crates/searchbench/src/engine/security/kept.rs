//! What a secured node that lasts (`engine start --security --data DIR`) keeps between its
//! starts, in `DIR/searchbench-security/` (mode 0700): the CA certificate (the file its
//! clients are given, so `--ca-cert` stays the same path), the CA's key (to sign each start's
//! node certificate for the addresses it is bound to), and the users' hashes as first
//! written (to check the admin's password before a restart waits on a node that would refuse
//! it). No password is kept; the plugin's users live in its index, in the node's data.

use std::path::{Path, PathBuf};

use super::pki::Ca;
use super::{write_file, Reach, ADMIN, CA_FILE};
use crate::cluster::Secret;
use crate::engine::EngineError;

/// The folder, inside the data folder the user gave.
pub const FOLDER: &str = "searchbench-security";
const CA_KEY: &str = "root-ca-key.pem";
const USERS: &str = "internal_users.yml";

/// Where a node whose data is `data` keeps its security.
pub fn folder(data: &Path) -> PathBuf {
    data.join(FOLDER)
}

/// What an earlier start kept.
pub struct Kept {
    pub dir: PathBuf,
    pub ca: Ca,
    /// `internal_users.yml` as first written: hashes only.
    pub users: String,
}

impl Kept {
    /// What `dir` holds: `None` when it does not exist (the node's first secured start). A
    /// folder missing one of its files is refused, naming it: a CA without its key cannot
    /// sign, and a new one would not be the CA the clients trust.
    pub fn load(dir: &Path) -> Result<Option<Kept>, EngineError> {
        if !dir.exists() {
            return Ok(None);
        }
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read_to_string(&path).map_err(|e| EngineError::io(&path, e))
        };
        Ok(Some(Kept {
            dir: dir.to_path_buf(),
            ca: Ca {
                cert_pem: read(CA_FILE)?,
                key_pem: read(CA_KEY)?,
            },
            users: read(USERS)?,
        }))
    }

    /// Keeps a first start's CA and users in `dir` (made 0700; the key and the users 0600).
    pub fn save(dir: &Path, ca: &Ca, users: &str) -> Result<(), EngineError> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir).map_err(|e| EngineError::io(dir, e))?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| EngineError::io(dir, e))?;
        write_file(&dir.join(CA_KEY), &ca.key_pem, Reach::Private)?;
        write_file(&dir.join(USERS), users, Reach::Private)?;
        // The certificate last: its presence is what says the folder is whole.
        write_file(&dir.join(CA_FILE), &ca.cert_pem, Reach::Public)
    }

    /// The CA certificate's path: what clients give as `--ca-cert`, the same at every start.
    pub fn ca_cert(&self) -> PathBuf {
        self.dir.join(CA_FILE)
    }

    /// The admin's password, checked: a restart without it, or with another, is refused (the
    /// node would refuse every request, and the start would wait its whole timeout to say so).
    pub fn check_admin(&self, password: Option<&Secret>) -> Result<Secret, EngineError> {
        let users = self.dir.join(USERS);
        let refused = |reason: String| EngineError::BadOption {
            what: format!(
                "--security --data {}",
                self.dir.parent().unwrap_or(&self.dir).display()
            ),
            reason,
        };
        let Some(password) = password else {
            return Err(refused(format!(
                "this node's users are kept from its first start ({}): give the admin's \
                 password in SEARCHBENCH_PASSWORD",
                users.display()
            )));
        };
        let hash = admin_hash(&self.users).ok_or_else(|| {
            refused(format!(
                "{} holds no hash for the user `{ADMIN}`",
                users.display()
            ))
        })?;
        match bcrypt::verify(password.expose(), hash) {
            Ok(true) => Ok(password.clone()),
            Ok(false) => Err(refused(format!(
                "SEARCHBENCH_PASSWORD is not the password `{ADMIN}` was given at this node's \
                 first start (its hash is kept in {})",
                users.display()
            ))),
            Err(e) => Err(refused(format!(
                "the hash of `{ADMIN}` in {} cannot be read: {e}",
                users.display()
            ))),
        }
    }
}

/// The admin's hash in an `internal_users.yml` as [`super::users_yml`] writes it.
fn admin_hash(users: &str) -> Option<&str> {
    let mut lines = users.lines().skip_while(|l| *l != format!("{ADMIN}:"));
    lines.next()?;
    lines
        .take_while(|l| l.starts_with(' '))
        .find_map(|l| l.trim().strip_prefix("hash: \""))
        .map(|h| h.trim_end_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_node_lets_in_its_admin_alone() {
        use std::os::unix::fs::PermissionsExt;
        let data = tempfile::tempdir().unwrap();
        let dir = folder(data.path());
        assert!(Kept::load(&dir).unwrap().is_none(), "nothing kept yet");
        let hash = bcrypt::hash("first-admin-pw", 4).unwrap();
        let users = format!(
            "_meta:\n  type: \"internalusers\"\n{ADMIN}:\n  hash: \"{hash}\"\nreader:\n  hash: \"x\"\n"
        );
        let ca = Ca::generate().unwrap();
        Kept::save(&dir, &ca, &users).unwrap();
        let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(dir.clone()), 0o700);
        assert_eq!(mode(dir.join(CA_KEY)), 0o600);
        assert_eq!(mode(dir.join(USERS)), 0o600);
        assert_eq!(mode(dir.join(CA_FILE)), 0o644);

        let kept = Kept::load(&dir).unwrap().expect("kept");
        assert_eq!(kept.ca.cert_pem, ca.cert_pem);
        assert_eq!(kept.ca_cert(), dir.join(CA_FILE));
        kept.check_admin(Some(&Secret::new("first-admin-pw")))
            .unwrap();
        for wrong in [None, Some(Secret::new("another")), Some(Secret::new(""))] {
            let e = kept.check_admin(wrong.as_ref()).unwrap_err().to_string();
            assert!(e.contains("SEARCHBENCH_PASSWORD"), "{e}");
            assert!(!e.contains("first-admin-pw") && !e.contains(&hash), "{e}");
        }
        // A folder missing its key is refused, naming the file.
        std::fs::remove_file(dir.join(CA_KEY)).unwrap();
        let Err(e) = Kept::load(&dir) else {
            panic!("a folder without its key is refused")
        };
        let e = e.to_string();
        assert!(e.contains(CA_KEY), "{e}");
    }
}
