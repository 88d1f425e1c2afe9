//! The flags every command that talks to a cluster shares: URLs, credentials, TLS, timeouts.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::parse_size;
use crate::cli::CliError;
use crate::cluster::{Auth, Target, TargetConfig};

/// How to reach a cluster. Secrets can come from the environment so they stay out of shell history.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Cluster")]
pub struct TargetArgs {
    /// Cluster URL(s), e.g. http://127.0.0.1:9200; repeat or comma-separate for several nodes.
    /// (The environment's value is never shown in help: a URL may carry a password.)
    #[arg(
        long = "url",
        env = "SEARCHBENCH_URL",
        hide_env_values = true,
        value_delimiter = ','
    )]
    pub urls: Vec<String>,
    /// User for HTTP basic auth (the password comes from --password or SEARCHBENCH_PASSWORD).
    #[arg(long, env = "SEARCHBENCH_USER")]
    pub user: Option<String>,
    /// Password for basic auth. Prefer the SEARCHBENCH_PASSWORD environment variable.
    #[arg(
        long,
        env = "SEARCHBENCH_PASSWORD",
        hide_env_values = true,
        requires = "user"
    )]
    pub password: Option<String>,
    /// Elasticsearch API key (the base64 `id:key` form).
    #[arg(long, env = "SEARCHBENCH_API_KEY", hide_env_values = true, conflicts_with_all = ["user", "bearer"])]
    pub api_key: Option<String>,
    /// Bearer token.
    #[arg(
        long,
        env = "SEARCHBENCH_BEARER",
        hide_env_values = true,
        conflicts_with = "user"
    )]
    pub bearer: Option<String>,
    /// PEM file with a CA certificate to trust (for self-signed clusters).
    #[arg(long, value_name = "FILE", value_parser = super::input_file)]
    pub ca_cert: Option<PathBuf>,
    /// Do not verify TLS certificates. Unsafe; for throwaway test clusters only.
    #[arg(long)]
    pub insecure: bool,
    /// Per-request timeout in seconds (at least 1).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Largest answer read for a search or an API call, e.g. 64mb, 1gb: a larger one is
    /// refused with the request named. A bulk answer's bound follows from its documents.
    #[arg(long, value_name = "SIZE", default_value = "64mb", value_parser = parse_size)]
    pub max_answer: usize,
}

impl TargetArgs {
    pub fn config(&self) -> TargetConfig {
        let auth = Auth::chosen(
            self.api_key.as_deref(),
            self.bearer.as_deref(),
            self.user.as_deref(),
            self.password.as_deref(),
        );
        TargetConfig {
            urls: self.urls.clone(),
            auth,
            ca_cert: self.ca_cert.clone(),
            insecure: self.insecure,
            timeout: Duration::from_secs(self.timeout.max(1)),
            max_answer: self.max_answer as u64,
        }
    }

    pub fn connect(&self) -> Result<Target, CliError> {
        if self.insecure {
            errln!("warning: --insecure: TLS certificates are not verified");
        }
        Target::new(&self.config()).map_err(CliError::usage)
    }
}
