//! `results prune --older-than 90d`: retention, for the store and (with `--publish URL`) the
//! team's results cluster, so a nightly system's history keeps the window it charts.

use std::time::{Duration, SystemTime};

use clap::Args;
use serde::Serialize;

use crate::cli::args::{PublishArgs, StoreArgs};
use crate::cli::{output, CliError, CliResult};
use crate::publish::ClusterPruned;
use crate::store::Pruned;

/// `results prune`.
#[derive(Debug, Args)]
#[command(
    after_help = "Forgets every run that began longer ago than --older-than, with all \
    it owns (timeline, telemetry, histograms, tags, where it was published), and the studies \
    of that age; runs still going are kept whatever their age, and so are the notes \
    (`annotate`). The store's file shrinks by what was forgotten.\n\n\
    With --publish URL the team's results cluster forgets them too: every run document that \
    began before the moment, whichever store published it, with its documents in every \
    index (deleted by id, never _delete_by_query). Prune every store that publishes there \
    with the same age: `results verify` makes a run the cluster lacks pending again.\n\n\
    Examples:\n  \
    searchbench results prune --older-than 90d --dry-run\n  \
    searchbench results prune --older-than 90d --publish https://results:9200\n\n\
    Exit codes: 0 pruned (or nothing to), 1 the store or the cluster could not be \
    changed, 2 bad usage."
)]
pub struct PruneCmd {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub publish: PublishArgs,
    /// Forget what began longer ago than this: 90d, 36h, 30m.
    #[arg(long, value_name = "AGE", value_parser = crate::units::parse_duration)]
    pub older_than: Duration,
    /// Say what would be forgotten, and forget nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print what was pruned as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What a prune did, for `--json`.
#[derive(Debug, Serialize)]
struct Done {
    /// Epoch seconds: what began before this was forgotten.
    before_unix: i64,
    dry_run: bool,
    store: Pruned,
    cluster: Option<ClusterPruned>,
}

pub async fn prune(a: PruneCmd) -> CliResult {
    if a.older_than.is_zero() {
        return Err(CliError::usage(anyhow::anyhow!(
            "--older-than 0 would forget every run: say an age (e.g. 90d); to forget a whole \
             store, delete its file"
        )));
    }
    let before = SystemTime::now()
        .checked_sub(a.older_than)
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .ok_or_else(|| {
            CliError::usage(anyhow::anyhow!(
                "--older-than {:?} reaches before 1970",
                a.older_than
            ))
        })?;
    let before_unix = i64::try_from(before.as_secs()).unwrap_or(i64::MAX);
    let publisher = a.publish.publisher()?;
    // The store first: a cluster that cannot be reached then is pruned by the next prune,
    // while a cluster pruned before a store that failed would have its runs sent again.
    let store = a.store.open_existing()?;
    let pruned = store.prune(before_unix, a.dry_run)?;
    let cluster = match &publisher {
        Some(p) => Some(
            p.prune(
                u64::try_from(before.as_millis()).unwrap_or(u64::MAX),
                a.dry_run,
            )
            .await?,
        ),
        None => None,
    };
    let done = Done {
        before_unix,
        dry_run: a.dry_run,
        store: pruned,
        cluster,
    };
    if a.json {
        return Ok(output::json(&done)?);
    }
    said(&done);
    Ok(())
}

fn said(done: &Done) {
    let verb = if done.dry_run {
        "would forget"
    } else {
        "forgot"
    };
    let at = crate::deploy::rfc3339(
        SystemTime::UNIX_EPOCH + Duration::from_secs(done.before_unix.max(0) as u64),
    );
    errln!(
        "store: {verb} {} run(s) and {} study(ies) begun before {at}{}",
        done.store.runs.len(),
        done.store.studies,
        match done.store.running {
            0 => String::new(),
            n => format!(" ({n} still going, kept)"),
        }
    );
    if let Some(c) = &done.cluster {
        if done.dry_run {
            errln!("{}: would delete {} run(s)", c.destination, c.runs);
        } else {
            errln!(
                "{}: deleted {} run(s), {} document(s) in all",
                c.destination,
                c.runs,
                c.documents
            );
        }
    }
}
