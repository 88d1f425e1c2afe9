//! One run in parts (`--part I/N --group ID`, see `session::join` and `analysis::merge`)
//! started on many hosts by what teams already run, with no daemon of ours: a Kubernetes
//! Indexed Job ([`kubernetes`]), or the commands to give `ssh` or `pdsh` ([`ssh`]). Both
//! start the same command line on every host, with its part, the group, one start time and
//! its own results store added; the parts' stores are then imported into one and merged.

pub mod kubernetes;
pub mod run_flags;
pub mod ssh;
pub mod steps;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The most parts a deployment starts (as `--part` takes).
pub const MAX_PARTS: u32 = crate::corpus::part::MAX_PARTS;

/// What every part runs, and how they find each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Deployment {
    /// The parts' group (`--group`): letters, digits, `.`, `_`, `-`.
    pub group: String,
    pub parts: u32,
    /// When every part starts (`--start-at`), RFC 3339 in UTC.
    pub start_at: String,
    /// The run's command line after `searchbench` (`run ... --url URL`), its files' paths as
    /// the hosts see them.
    pub args: Vec<String>,
    /// Files the run reads that travel with it (a workload or track file, a CA certificate).
    pub files: Vec<ShippedFile>,
}

/// A file the parts read, where they find it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShippedFile {
    /// Where the parts find it, relative to the folder the files are put in.
    pub path: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DeployError {
    #[error("{0}")]
    Invalid(String),
}

impl Deployment {
    /// The flags each part adds to the run's: its part (`part` is how the host writes its
    /// number: `3`, or a shell expression), the group, the start, its store.
    pub fn part_flags(&self, part: &str, store: &str) -> Vec<String> {
        vec![
            "--part".into(),
            format!("{part}/{}", self.parts),
            "--group".into(),
            self.group.clone(),
            "--start-at".into(),
            self.start_at.clone(),
            "--store".into(),
            store.into(),
        ]
    }

    /// Checks what the parts need: a group `--group` takes, 2 to [`MAX_PARTS`] parts.
    pub fn check(&self) -> Result<(), DeployError> {
        crate::corpus::part::check_group(&self.group).map_err(DeployError::Invalid)?;
        if !(2..=MAX_PARTS).contains(&self.parts) {
            return Err(DeployError::Invalid(format!(
                "{} parts: a deployment has 2 to {MAX_PARTS} parts",
                self.parts
            )));
        }
        Ok(())
    }
}

/// `at` as RFC 3339 in UTC, to the second (what `--start-at` reads).
pub fn rfc3339(at: SystemTime) -> String {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let (y, m, d) = crate::corpus::text::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A group name for a deployment started at `at`: `parts-20261126-151000`.
pub fn default_group(at: SystemTime) -> String {
    let t = rfc3339(at);
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    match t.split_once('T') {
        Some((day, time)) => format!("parts-{}-{}", digits(day), digits(time)),
        None => format!("parts-{}", digits(&t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc_and_groups_name_them() {
        let at = UNIX_EPOCH + Duration::from_secs(1_795_712_400);
        assert_eq!(rfc3339(at), "2026-11-26T17:00:00Z");
        assert_eq!(default_group(at), "parts-20261126-170000");
        // What --start-at reads back is the same second.
        let parsed = isodate::parse_strict_date_optional_time(rfc3339(at).as_bytes()).unwrap();
        assert_eq!(parsed.epoch_second, 1_795_712_400);
    }
}
