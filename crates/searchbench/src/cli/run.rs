//! `searchbench run`.

use clap::Args;

use super::CliResult;

#[derive(Debug, Args)]
pub struct RunArgs {}

pub async fn run(_args: RunArgs) -> CliResult {
    Err(anyhow::anyhow!("`searchbench run` is not built yet").into())
}
