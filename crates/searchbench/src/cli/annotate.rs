//! `searchbench annotate`: a note beside the runs, marked on every chart of their history
//! (`history --html`, the site): what changed that the runs' settings do not say.

use std::collections::BTreeMap;

use clap::Args;

use super::args::{tag_arg, StoreArgs};
use super::{output, CliError, CliResult};
use crate::store::{NewAnnotation, Store};

/// `searchbench annotate`.
#[derive(Debug, Args)]
#[command(
    after_help = "A note is on the runs with all its tags (--tag build=n05: the first \
    point of a history holding such a run), or from a moment on (--at: the first point with a run \
    started then or later), or both. Every chart of a history and of the site marks it with a \
    solid line where that point begins, titled with the note; the page lists the notes.\n\n\
    Examples:\n  \
    searchbench annotate \"JDK 21.0.5\" --tag build=n05\n  \
    searchbench annotate \"new merge policy\" --at 2026-11-30\n  \
    searchbench annotate --list\n  \
    searchbench annotate --delete 3"
)]
pub struct AnnotateArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The note, one line ("JDK 21.0.5", "new merge policy"), at most 200 characters.
    #[arg(required_unless_present_any = ["list", "delete"])]
    pub text: Option<String>,
    /// On the runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
    /// From this moment on: a date (2026-11-30, midnight UTC) or a time (2026-11-30T06:00:00Z).
    #[arg(long, value_name = "WHEN", value_parser = parse_when)]
    pub at: Option<i64>,
    /// List the notes instead.
    #[arg(long, conflicts_with_all = ["text", "tags", "at", "delete"])]
    pub list: bool,
    /// Forget the note with this id (as --list shows it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["text", "tags", "at"])]
    pub delete: Option<i64>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// A moment as a user writes it, in seconds since the epoch.
fn parse_when(s: &str) -> Result<i64, String> {
    isodate::parse_strict_date_optional_time(s.as_bytes())
        .map(|i| i.epoch_second)
        .map_err(|e| {
            format!("{s:?} is not a date (2026-11-30) or a time (2026-11-30T06:00:00Z): {e}")
        })
}

pub async fn run(a: AnnotateArgs) -> CliResult {
    if a.list {
        let store = a.store.open()?;
        let notes = store.annotations()?;
        if a.json {
            return Ok(output::json(&notes)?);
        }
        if notes.is_empty() {
            errln!("no annotations in {}", store.path().display());
        }
        for n in &notes {
            let on = crate::analysis::history::tag_text(&n.tags);
            let from = n
                .at_unix
                .map(|t| format!("from {}", crate::report::utc(t.max(0) as u64)))
                .unwrap_or_default();
            outln!("{:>4}  {}  [{}]", n.id, n.text, [on, from].join(" ").trim());
        }
        return Ok(());
    }
    let store = Store::open(a.store.path()?)?;
    if let Some(id) = a.delete {
        if !store.delete_annotation(id)? {
            return Err(CliError::usage(anyhow::anyhow!(
                "no annotation {id} in {} (`searchbench annotate --list`)",
                store.path().display()
            )));
        }
        errln!("annotation {id} deleted");
        return Ok(());
    }
    let note = NewAnnotation {
        text: a.text.unwrap_or_default(),
        tags: a.tags.into_iter().collect::<BTreeMap<_, _>>(),
        at_unix: a.at,
    }
    .checked()
    .map_err(CliError::usage)?;
    let id = store.annotate(&note)?;
    if a.json {
        return Ok(output::json(
            &serde_json::json!({"id": id, "text": note.text}),
        )?);
    }
    errln!(
        "annotation {id} kept in {}: charts of a history with these runs mark it",
        store.path().display()
    );
    Ok(())
}
