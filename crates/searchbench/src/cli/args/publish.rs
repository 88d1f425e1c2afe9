//! Where runs are published: the team's results cluster (`--publish URL`), reached with its
//! own credentials, so the cluster under test and the results cluster differ.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Args;

use crate::cli::CliError;
use crate::cluster::{Auth, Target, TargetConfig};
use crate::publish::ledger::Ledger;
use crate::publish::{Publisher, DEFAULT_PREFIX};

/// The results cluster and how to reach it. Its secrets can come from the environment, so
/// they stay out of shell history and process lists.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Publishing")]
pub struct PublishArgs {
    /// The team's results cluster (Elasticsearch or OpenSearch), e.g. https://results:9200:
    /// runs go into its PREFIX-runs, -metrics, -timeline, -telemetry and -tasks indices,
    /// their configurations' change points into PREFIX-changes, the store's notes into
    /// PREFIX-annotations.
    /// (The environment's value is never shown in help: a URL may carry a password.)
    #[arg(
        long = "publish",
        value_name = "URL",
        env = "SEARCHBENCH_PUBLISH",
        hide_env_values = true
    )]
    pub publish_url: Option<String>,
    /// User for the results cluster (its password from SEARCHBENCH_PUBLISH_PASSWORD).
    #[arg(
        long = "publish-user",
        value_name = "USER",
        env = "SEARCHBENCH_PUBLISH_USER"
    )]
    pub publish_user: Option<String>,
    /// Password for --publish-user. Prefer the SEARCHBENCH_PUBLISH_PASSWORD variable.
    #[arg(
        long = "publish-password",
        value_name = "PASSWORD",
        env = "SEARCHBENCH_PUBLISH_PASSWORD",
        hide_env_values = true,
        requires = "publish_user"
    )]
    pub publish_password: Option<String>,
    /// API key for the results cluster (the base64 `id:key` form).
    #[arg(
        long = "publish-api-key",
        value_name = "KEY",
        env = "SEARCHBENCH_PUBLISH_API_KEY",
        hide_env_values = true,
        conflicts_with = "publish_user"
    )]
    pub publish_api_key: Option<String>,
    /// PEM file with a CA certificate the results cluster's TLS is trusted by.
    #[arg(
        long = "publish-ca-cert",
        value_name = "FILE",
        env = "SEARCHBENCH_PUBLISH_CA_CERT",
        value_parser = super::input_file
    )]
    pub publish_ca_cert: Option<PathBuf>,
    /// The indices' prefix: PREFIX-runs, PREFIX-metrics, ... (lowercase letters, digits, '-'
    /// and '_'); one per team or project sharing a cluster.
    #[arg(
        long = "publish-prefix",
        value_name = "PREFIX",
        env = "SEARCHBENCH_PUBLISH_PREFIX",
        default_value = DEFAULT_PREFIX
    )]
    pub publish_prefix: String,
    /// Per-request timeout for the results cluster, in seconds (at least 1).
    #[arg(long = "publish-timeout", default_value_t = 30, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub publish_timeout: u64,
    /// Exit 4 when the work was done but a run could not be published (it stays pending in
    /// the store either way, and the command's last lines say so). Without it a failed
    /// publish leaves the command's own exit code.
    #[arg(
        long = "publish-required",
        env = "SEARCHBENCH_PUBLISH_REQUIRED",
        value_parser = clap::builder::BoolishValueParser::new(),
        action = clap::ArgAction::SetTrue
    )]
    pub publish_required: bool,
}

impl PublishArgs {
    /// The publisher the flags name, `None` without `--publish`.
    pub fn publisher(&self) -> Result<Option<Publisher>, CliError> {
        let Some(url) = &self.publish_url else {
            if self.publish_required {
                return Err(CliError::usage(anyhow::anyhow!(
                    "--publish-required: say where to publish (--publish URL or \
                     SEARCHBENCH_PUBLISH)"
                )));
            }
            return Ok(None);
        };
        if self.publish_required {
            REQUIRED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        results_cluster(
            url,
            Auth::chosen(
                self.publish_api_key.as_deref(),
                None,
                self.publish_user.as_deref(),
                self.publish_password.as_deref(),
            ),
            self.publish_ca_cert.clone(),
            &self.publish_prefix,
            self.publish_timeout,
        )
        .map(Some)
    }
}

/// What every publisher of this command could not publish: the command's ending says it
/// (`cli::main`).
pub fn ledger() -> &'static Arc<Ledger> {
    static LEDGER: OnceLock<Arc<Ledger>> = OnceLock::new();
    LEDGER.get_or_init(Default::default)
}

/// `--publish-required` was given: the ending exits 4 when a run is not published.
static REQUIRED: AtomicBool = AtomicBool::new(false);

/// Whether a failed publish fails the command (`--publish-required`).
pub fn required() -> bool {
    REQUIRED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The team's results cluster at `url`, its indices under `prefix`.
fn results_cluster(
    url: &str,
    auth: Auth,
    ca_cert: Option<PathBuf>,
    prefix: &str,
    timeout_secs: u64,
) -> Result<Publisher, CliError> {
    let config = TargetConfig {
        urls: vec![url.to_string()],
        auth,
        ca_cert,
        insecure: false,
        timeout: Duration::from_secs(timeout_secs.max(1)),
        max_answer: 64 << 20,
    };
    let target = Target::new(&config).map_err(CliError::usage)?;
    Publisher::new(target, prefix)
        .map(|p| p.with_ledger(ledger().clone()))
        .map_err(CliError::usage)
}

/// Where a view reads runs from instead of the store: the team's results cluster the runs
/// were published to (`--from URL`). Its credentials come from the same variables as
/// `--publish`'s, so a team sets them once.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Reading from the team's cluster")]
pub struct FromArgs {
    /// Read the runs published to this results cluster (`--publish`) instead of the store,
    /// e.g. https://results:9200. Every run under --from-prefix is read back whole.
    #[arg(long = "from", value_name = "URL")]
    pub from_url: Option<String>,
    /// User for --from (its password from SEARCHBENCH_PUBLISH_PASSWORD).
    #[arg(
        long = "from-user",
        value_name = "USER",
        env = "SEARCHBENCH_PUBLISH_USER"
    )]
    pub from_user: Option<String>,
    /// Password for --from-user. Prefer the SEARCHBENCH_PUBLISH_PASSWORD variable.
    #[arg(
        long = "from-password",
        value_name = "PASSWORD",
        env = "SEARCHBENCH_PUBLISH_PASSWORD",
        hide_env_values = true,
        requires = "from_user"
    )]
    pub from_password: Option<String>,
    /// API key for --from (the base64 `id:key` form).
    #[arg(
        long = "from-api-key",
        value_name = "KEY",
        env = "SEARCHBENCH_PUBLISH_API_KEY",
        hide_env_values = true,
        conflicts_with = "from_user"
    )]
    pub from_api_key: Option<String>,
    /// PEM file with a CA certificate --from's TLS is trusted by.
    #[arg(
        long = "from-ca-cert",
        value_name = "FILE",
        env = "SEARCHBENCH_PUBLISH_CA_CERT",
        value_parser = super::input_file
    )]
    pub from_ca_cert: Option<PathBuf>,
    /// The prefix the runs were published under (--publish-prefix).
    #[arg(
        long = "from-prefix",
        value_name = "PREFIX",
        env = "SEARCHBENCH_PUBLISH_PREFIX",
        default_value = DEFAULT_PREFIX
    )]
    pub from_prefix: String,
    /// Per-request timeout for --from, in seconds (at least 1).
    #[arg(long = "from-timeout", default_value_t = 30, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub from_timeout: u64,
}

impl FromArgs {
    /// Every run published to `--from`, read back into a store in memory that stands in for
    /// the store at `home` (what a view writes beside its store goes there); `None` without
    /// `--from`.
    pub async fn read(&self, home: PathBuf) -> Result<Option<crate::store::Store>, CliError> {
        self.read_some(home, crate::publish::Reading::Every).await
    }

    /// The runs `reading` names, read back from `--from` into a store in memory as
    /// [`FromArgs::read`]; `None` without `--from`. A document a publish would never write
    /// is skipped with a warning naming it, the rest read.
    pub async fn read_some(
        &self,
        home: PathBuf,
        reading: crate::publish::Reading<'_>,
    ) -> Result<Option<crate::store::Store>, CliError> {
        let Some(source) = self.source()? else {
            return Ok(None);
        };
        let store = crate::store::Store::in_memory(home)?;
        let read = source.read(&store, reading).await?;
        // The team's notes, so a history or a site read from here marks them as the
        // store's would.
        source.read_annotations(&store).await?;
        for skipped in &read.skipped {
            errln!("warning: skipped {skipped}");
        }
        Ok(Some(store))
    }

    /// The results cluster to read from, `None` without `--from`.
    pub fn source(&self) -> Result<Option<Publisher>, CliError> {
        let Some(url) = &self.from_url else {
            return Ok(None);
        };
        results_cluster(
            url,
            Auth::chosen(
                self.from_api_key.as_deref(),
                None,
                self.from_user.as_deref(),
                self.from_password.as_deref(),
            ),
            self.from_ca_cert.clone(),
            &self.from_prefix,
            self.from_timeout,
        )
        .map(Some)
    }
}
