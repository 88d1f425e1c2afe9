//! `results merge GROUP`: a group's parts merged into one run (`analysis::merge`), counted
//! again on the cluster when one is given.

use anyhow::Context as _;
use clap::Args;

use crate::analysis::merge;
use crate::cli::args::SaveArgs;
use crate::cli::{output, CliError, CliResult};
use crate::store;

/// `results merge GROUP`.
#[derive(Debug, Args)]
#[command(
    after_help = "The parts of a group are the runs started with `--part I/N --group ID`; \
    copy other hosts' stores in first (`results import THEIR_STORE`), or merge the parts as \
    they published themselves (`--from URL`: nothing to copy). Counts add, histograms \
    add (lossless), timelines line up by wall-clock second; every rate and percentile is \
    derived after. A part missing or unfinished makes the group `incomplete`, a failed part \
    `failed`. Merging again replaces the earlier merge. compare, report, history and check \
    merge the groups they meet the same way (`compare group=a group=b`).\n\n\
    Exit codes: 0 the group is complete, 2 bad usage (no such group, runs that are not \
    parts of one run), 3 the group is not complete (a part missing, unfinished, failed or \
    interrupted, or counts that do not reconcile)."
)]
pub struct MergeArgs {
    #[command(flatten)]
    pub save: SaveArgs,
    /// The group (`--group` of the parts).
    #[arg(required_unless_present = "newest")]
    pub group: Option<String>,
    /// Merge the newest group whose name starts with PREFIX (the one whose part began last):
    /// a nightly CronJob's morning merge, its nights named `NAME-<scheduled minute>`.
    #[arg(long, value_name = "PREFIX", conflicts_with = "group")]
    pub newest: Option<String>,
    /// Count the index now, at this cluster, to reconcile the parts' documents against it
    /// (without it, the count the last part to end took is used).
    #[command(flatten)]
    pub target: crate::cli::args::TargetArgs,
    /// Merge the parts as published to the team's cluster (each part run with --publish)
    /// rather than as stored here; the merged run is stored here all the same.
    #[command(flatten)]
    pub from: crate::cli::args::FromArgs,
    /// Print the merged run as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub async fn merge(a: MergeArgs) -> CliResult {
    let store = a.save.store.open_or_create()?;
    // The parts as the team's cluster holds them (each part published itself), or here.
    let read_back = a.from.read(store.path().to_path_buf()).await?;
    let parts = read_back.as_ref().unwrap_or(&store);
    let group = match (&a.group, &a.newest) {
        (Some(group), _) => group.clone(),
        (None, Some(prefix)) => {
            let group = merge::newest_group(parts, prefix)
                .map_err(CliError::from)?
                .ok_or_else(|| {
                    CliError::usage(anyhow::anyhow!(
                        "--newest {prefix}: no part of a group whose name starts with {prefix:?}"
                    ))
                })?;
            errln!("merging group {group}, the newest of {prefix}*");
            group
        }
        (None, None) => return Err(CliError::usage(anyhow::anyhow!("say the group"))),
    };
    let usage = |e: merge::MergeError| {
        if e.is_usage() {
            CliError::usage(anyhow::Error::new(e))
        } else {
            CliError::from(e)
        }
    };
    // The index the parts loaded, counted now when a cluster is given.
    let counted = if a.target.urls.is_empty() {
        None
    } else {
        let index = merge::index_of(parts, &group)
            .map_err(|e| usage(merge::MergeError::Store(e)))?
            .ok_or_else(|| {
                CliError::usage(anyhow::anyhow!(
                    "group {group}: no part of it is here, or none says which index it loaded"
                ))
            })?;
        let target = a.target.connect()?;
        let n = crate::ingest::count(&target, &index)
            .await
            .with_context(|| format!("counting index {index}"))?;
        Some(n)
    };
    let mut merged = merge::merge(parts, &group, counted).map_err(usage)?;
    for (k, v) in a.save.tags {
        merged.run.tags.insert(k, v);
    }
    let id = merge::store_merged(&store, &merged).map_err(usage)?;
    let state = merged.run.state;
    if a.json {
        let mut v = serde_json::to_value(merged.row())?;
        v["id"] = id.0.clone().into();
        output::json(&v)?;
    } else {
        output::results::merged(&id, &merged);
    }
    errln!("saved as run {id} in {}", store.path().display());
    // Published as every stored run is, when asked: a failure leaves it pending.
    if let Some(publisher) = a.save.publish.publisher()? {
        if let Err(e) = publisher.prepare_and_publish(&store, &id).await {
            // The command's ending says how to send it (and exits 4 with
            // --publish-required).
            errln!(
                "warning: run {id} not published: {}; it is kept in the store and stays \
                 pending there",
                crate::cluster::error_chain(&e)
            );
        }
    }
    if state == store::State::Complete {
        Ok(())
    } else {
        Err(CliError::check(anyhow::anyhow!(
            "group {group} is {}: {}",
            state.name(),
            merged.run.error.as_deref().unwrap_or("see the parts")
        )))
    }
}
