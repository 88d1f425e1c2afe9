//! Where a verdict goes besides the terminal, for CI systems and the team's chat: a JUnit XML
//! file (`--junit FILE`) and a webhook told of a regression (`--notify URL`).

use std::path::PathBuf;

use clap::Args;

use crate::cli::{exit, CliError, CliResult};
use crate::report::verdicts::{Outcome, Verdicts};

#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "CI and chat")]
pub struct PlumbingArgs {
    /// Write the verdict as JUnit XML to FILE (a test case per metric judged: a regression
    /// fails, "cannot tell" is skipped), for the CI system's test report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// POST a regression to this webhook (a Slack or Teams incoming webhook takes the JSON:
    /// `text`, with the verdict's parts under `searchbench`); nothing is sent when nothing
    /// regressed. The URL is a secret: prefer SEARCHBENCH_NOTIFY; only its host is shown.
    #[arg(
        long,
        value_name = "URL",
        env = "SEARCHBENCH_NOTIFY",
        hide_env_values = true,
        value_parser = notify_url
    )]
    pub notify: Option<String>,
}

fn notify_url(s: &str) -> Result<String, String> {
    crate::publish::notify::checked(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

impl PlumbingArgs {
    /// Writes the JUnit file and tells the webhook of a regression. A webhook that cannot be
    /// told is a warning (the verdict stands); a JUnit file that cannot be written is an
    /// error, said after the verdict.
    pub async fn deliver(&self, v: &Verdicts) -> Result<(), CliError> {
        if let (Some(url), Outcome::Worse) = (&self.notify, v.outcome) {
            let sent = match crate::publish::notify::checked(url) {
                Ok(url) => crate::publish::notify::send(&url, &v.webhook()).await,
                Err(e) => Err(e),
            };
            match sent {
                Ok(()) => errln!("notified: {}", v.line),
                Err(e) => errln!("warning: {e}"),
            }
        }
        if let Some(path) = &self.junit {
            crate::report::write_page(path, &v.junit()).map_err(|e| CliError {
                code: exit::FAILURE,
                error: anyhow::anyhow!("writing the JUnit file {}: {e}", path.display()),
            })?;
        }
        Ok(())
    }

    /// The command's own ending `verdict` after [`PlumbingArgs::deliver`]: a delivery that
    /// failed fails a passing command (exit 1), and is said beside any other verdict, whose
    /// code stands.
    pub async fn then(&self, v: &Verdicts, verdict: CliResult) -> CliResult {
        match (self.deliver(v).await, verdict) {
            (Err(e), Ok(())) => Err(e),
            (Err(e), Err(own)) => {
                errln!("error: {}", crate::cluster::error_chain(&*e.error));
                Err(own)
            }
            (Ok(()), verdict) => verdict,
        }
    }
}
