//! `searchbench generate`.

use clap::Args;

use super::CliResult;

#[derive(Debug, Args)]
pub struct GenerateArgs {}

pub async fn run(_args: GenerateArgs) -> CliResult {
    Err(anyhow::anyhow!("`searchbench generate` is not built yet").into())
}
