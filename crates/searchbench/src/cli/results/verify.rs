//! `results verify --publish URL`: whether the team's results cluster still holds every run
//! the store published there (`publish::Publisher::verify`).

use clap::Args;

use crate::cli::args::StoreArgs;
use crate::cli::{exit, output, CliError, CliResult};

/// `results verify`.
#[derive(Debug, Args)]
#[command(
    after_help = "Reads the runs index of the results cluster for every run the store \
    says it published there. A run the cluster lacks (it lost its data, an index was deleted, \
    a retention job ran) or holds in another state is made pending again in the store: the next \
    publish sends it (`results publish --pending`, or the next run with --publish).\n\n\
    Exit codes: 0 every published run is there, 3 some are missing (now pending), 1 the \
    cluster cannot be read, 2 bad usage (no --publish)."
)]
pub struct VerifyCmd {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub publish: crate::cli::args::PublishArgs,
    /// Print what was found as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn verify(a: VerifyCmd) -> CliResult {
    let Some(publisher) = a.publish.publisher()? else {
        return Err(CliError::usage(anyhow::anyhow!(
            "say which results cluster to verify: --publish URL (or SEARCHBENCH_PUBLISH)"
        )));
    };
    let store = a.store.open_existing()?;
    let found = publisher.verify(&store).await?;
    if a.json {
        output::json(&found)?;
    } else {
        for m in &found.missing {
            errln!("missing: run {}: {}", m.run, m.why);
        }
        errln!(
            "{}: {} run(s) there as the store has them, {} missing (pending again), {} not \
             published there yet",
            found.destination,
            found.present,
            found.missing.len(),
            found.pending
        );
    }
    if found.missing.is_empty() {
        return Ok(());
    }
    Err(CliError {
        code: exit::CHECK_FAILED,
        error: anyhow::anyhow!(
            "{} run(s) missing at {}; they are pending again: {}",
            found.missing.len(),
            found.destination,
            crate::publish::ledger::how_to_send(&found.destination)
        ),
    })
}
