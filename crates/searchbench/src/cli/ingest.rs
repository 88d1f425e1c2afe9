//! `searchbench ingest`.

use clap::Args;

use super::CliResult;

#[derive(Debug, Args)]
pub struct IngestArgs {}

pub async fn run(_args: IngestArgs) -> CliResult {
    Err(anyhow::anyhow!("`searchbench ingest` is not built yet").into())
}
