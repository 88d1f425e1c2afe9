//! `searchbench dates parse`.

use clap::Subcommand;

use super::CliResult;

#[derive(Debug, Subcommand)]
pub enum DatesCommand {
    /// Not built yet.
    Parse {},
}

pub async fn run(_cmd: DatesCommand) -> CliResult {
    Err(anyhow::anyhow!("`searchbench dates parse` is not built yet").into())
}
