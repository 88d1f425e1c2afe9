//! `results publish [RUN...]`: the runs given, or every one pending, sent to the team's
//! cluster (`publish::Publisher::publish_runs`).

use clap::Args;

use crate::cli::args::{tag_arg, StoreArgs};
use crate::cli::{output, CliError, CliResult};
use crate::store::Filter;

/// `results publish [RUN...]`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each run goes whole into PREFIX-runs (one document, the stored run \
    kept whole under `row`), PREFIX-metrics (one document per figure compare and history read), \
    PREFIX-timeline, PREFIX-telemetry and PREFIX-tasks, under ids made of the run's, then the \
    change points of their configurations into PREFIX-changes and the store's annotations into \
    PREFIX-annotations: \
    publishing again replaces, never doubles. The store notes where each run went, in which \
    state; without RUN, what is not there as it now is is sent (a run still going waits until \
    it has ended). What is sent is what the store holds, and the store holds no secret.\n\n\
    Exit codes: 0 every run sent, 1 a run could not be sent (it stays pending: run again), \
    2 bad usage (no --publish, no such run)."
)]
pub struct PublishCmd {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Runs to send (ids or unique prefixes), whether or not they were sent before. Without
    /// any: every run not yet published there as it now is.
    pub runs: Vec<String>,
    /// Send the runs not yet published there (what happens without RUN; say it to be plain).
    #[arg(long, conflicts_with = "runs")]
    pub pending: bool,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg, conflicts_with = "runs")]
    pub tags: Vec<(String, String)>,
    /// Only runs made where and by whom this says (repeatable: all must match): host, user,
    /// commit (searchbench's own), ci (the CI system), ci.job, ci.pipeline, ci.commit, as
    /// `results show RUN` shows a run's provenance.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = crate::cli::args::where_arg, conflicts_with = "runs")]
    pub provenance: Vec<(String, String)>,
    #[command(flatten)]
    pub publish: crate::cli::args::PublishArgs,
    /// Print what was sent as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn publish(a: PublishCmd) -> CliResult {
    let Some(publisher) = a.publish.publisher()? else {
        return Err(CliError::usage(anyhow::anyhow!(
            "say where to publish: --publish URL (or SEARCHBENCH_PUBLISH)"
        )));
    };
    let store = a.store.open_existing()?;
    let destination = publisher.destination();
    let rows = if a.runs.is_empty() {
        let filter = Filter {
            tags: crate::cli::args::selected_tags(a.tags),
            provenance: a.provenance,
            ..Default::default()
        };
        store.pending(&destination, &filter)?
    } else {
        a.runs
            .iter()
            .map(|id| store.get(id).map_err(CliError::usage))
            .collect::<Result<Vec<_>, _>>()?
    };
    let done = publisher.publish_runs(&store, rows).await;
    // Said here, run by run, and by this command's exit code: not again at its ending.
    crate::cli::args::publish_ledger().take();
    if let Some(e) = &done.change_points_error {
        errln!("warning: change points not published: {e}; the next publish sends them");
    }
    if a.json {
        output::json(&done)?;
    } else {
        for s in &done.sent {
            errln!("published run {} ({} documents)", s.run, s.documents);
        }
        for f in &done.failed {
            errln!("not published: run {}: {}", f.run, f.error);
        }
        errln!(
            "{} run(s) published to {destination}; {} still pending",
            done.sent.len(),
            done.failed.len()
        );
    }
    if done.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError {
            code: crate::cli::exit::FAILURE,
            error: anyhow::anyhow!(
                "{} run(s) not published to {destination}; they stay pending: run \
                 `searchbench results publish --pending` again",
                done.failed.len()
            ),
        })
    }
}
