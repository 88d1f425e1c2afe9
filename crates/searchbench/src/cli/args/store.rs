//! Where results are kept: the store's path, and how a measuring command saves its run.

use std::path::PathBuf;

use clap::Args;

use crate::cli::CliError;
use crate::store::{self, Filter, Store};

/// Where the results database is.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// Results database (SQLite): commands that save runs create it, commands that only
    /// read it need it to exist. Default: $SEARCHBENCH_STORE, else
    /// $XDG_DATA_HOME/searchbench/results.db, else ~/.local/share/searchbench/results.db.
    // The environment is read where the default is (`store::default_path`), not by clap: an
    // argument clap fills from the environment is listed in every usage line as if typed.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

impl StoreArgs {
    /// Opens the store for reading: a path that does not exist is an error (exit 1), so a
    /// typo in --store does not read as an empty store; nothing in the file or its folder
    /// changes (a read-only folder is fine, another program's database is refused).
    pub fn open(&self) -> anyhow::Result<Store> {
        Ok(Store::open_read(self.path()?)?)
    }

    /// Opens an existing store for writing: a path that does not exist is an error.
    pub fn open_existing(&self) -> anyhow::Result<Store> {
        Ok(Store::open_existing(self.path()?)?)
    }

    /// Opens the store for writing, creating it when missing.
    pub fn open_or_create(&self) -> anyhow::Result<Store> {
        Ok(Store::open(self.path()?)?)
    }

    pub fn path(&self) -> anyhow::Result<PathBuf> {
        Ok(match &self.store {
            Some(p) => p.clone(),
            None => store::default_path()?,
        })
    }
}

/// Where a view reads its runs: the store, or the team's results cluster (`--from URL`),
/// read back into a store in memory so every view gives the same tables and verdicts from
/// either.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub from: super::FromArgs,
}

impl ReadArgs {
    /// The store to read: the file (as [`StoreArgs::open`]), or every run published to
    /// `--from`, read back (telemetry apart: [`ReadArgs::telemetry`]).
    pub async fn open(&self) -> Result<Store, CliError> {
        if self.from.from_url.is_some() && self.store.store.is_some() {
            return Err(CliError::usage(anyhow::anyhow!(
                "--from URL and --store PATH: read from one of them"
            )));
        }
        match self.from.read(self.store.path()?).await? {
            Some(read) => Ok(read),
            None => Ok(self.store.open()?),
        }
    }

    /// The store to read for a list of the newest `limit` runs `filter` matches: from
    /// `--from`, only those are read back (a cluster may hold a million).
    pub async fn open_newest(&self, filter: &Filter, limit: usize) -> Result<Store, CliError> {
        if self.from.from_url.is_some() && self.store.store.is_some() {
            return Err(CliError::usage(anyhow::anyhow!(
                "--from URL and --store PATH: read from one of them"
            )));
        }
        let reading = crate::publish::Reading::Newest { filter, limit };
        match self.from.read_some(self.store.path()?, reading).await? {
            Some(read) => Ok(read),
            None => Ok(self.store.open()?),
        }
    }

    /// Where the runs were read from, as a message names it.
    pub fn place(&self, store: &Store) -> String {
        match self.from.source() {
            Ok(Some(source)) => source.destination(),
            _ => store.path().display().to_string(),
        }
    }

    /// Reads the telemetry of `ids` into `store` when it was read from `--from` (a store
    /// file holds it already).
    pub async fn telemetry(&self, store: &Store, ids: &[store::RunId]) -> Result<(), CliError> {
        if let Some(source) = self.from.source()? {
            source.read_telemetry(store, ids).await?;
        }
        Ok(())
    }
}

/// How a measuring command saves its result (flatten into its arguments).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output and results")]
pub struct SaveArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Label the run, e.g. --tag build=nightly-1234 --tag heap=1g (repeatable). Runs that
    /// share tags can be compared as a group: `searchbench compare build=a build=b`.
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
    /// The round this run was made in, when runs of two configurations are made side by side
    /// by hand (A then B, B then A, ...): the tag round=N. `compare` sets runs of the same
    /// round against each other (a paired test: the machine's drift between rounds cancels).
    /// A matrix and a sweep tag their rounds themselves.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// Do not save this run in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Also write each run's metrics and timeline as CSV to FILE, the lines `report RUN --csv`
    /// writes (run_id,kind,workload,engine,state,metric,unit,second,value): every run the
    /// command makes (a sweep's cells, a matrix's runs) goes into the one file.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    #[command(flatten)]
    pub publish: super::PublishArgs,
}

impl SaveArgs {
    /// What the flags attach to every run of the command, built once: the store and tags,
    /// the telemetry (`None`: a command without the telemetry flags samples at the default
    /// interval), the engine profile when asked.
    pub fn attach(
        &self,
        telemetry: Option<&super::TelemetryArgs>,
        profile: Option<crate::session::profile::ProfileSpec>,
    ) -> Result<crate::session::Attach, CliError> {
        Ok(crate::session::Attach {
            save: self.spec()?,
            telemetry: telemetry
                .map(super::TelemetryArgs::spec)
                .unwrap_or_default(),
            profile,
            publish: self.publish.publisher()?.map(std::sync::Arc::new),
            csv: self.csv_file()?,
            ..crate::session::Attach::default()
        })
    }

    /// Where the run is saved, once the store is known to take it: a store that cannot be
    /// written fails the command before anything is measured (unless --no-store).
    pub fn spec(&self) -> Result<crate::session::SaveSpec, CliError> {
        if self.round.is_some() && self.tags.iter().any(|(k, _)| k == "round") {
            return Err(CliError::usage(anyhow::anyhow!(
                "--round N and --tag round=...: give the round once"
            )));
        }
        let spec = crate::session::SaveSpec {
            store: self.store.store.clone(),
            tags: self
                .tags
                .iter()
                .cloned()
                .chain(self.round.map(|n| ("round".to_string(), n.to_string())))
                .collect(),
            skip: self.no_store,
        };
        spec.check().map_err(|e| CliError {
            code: crate::cli::exit::FAILURE,
            error: e.into(),
        })?;
        Ok(spec)
    }
}

impl SaveArgs {
    /// The `--export-csv` file, made now (its header) so that a path that cannot be written
    /// fails before anything is measured; refused beside --no-store, since it is written of
    /// what the store keeps.
    fn csv_file(&self) -> Result<Option<std::sync::Arc<crate::session::csv::CsvFile>>, CliError> {
        let Some(path) = &self.export_csv else {
            return Ok(None);
        };
        if self.no_store {
            return Err(CliError::usage(anyhow::anyhow!(
                "--export-csv writes each run as the results store keeps it: drop --no-store \
                 (or write the CSV later with `searchbench report RUN --csv FILE`)"
            )));
        }
        crate::session::csv::CsvFile::create(path)
            .map(Some)
            .map_err(|e| CliError::usage(anyhow::anyhow!("--export-csv: {e}")))
    }
}

pub fn tag_arg(s: &str) -> Result<(String, String), String> {
    store::parse_tag(s).map_err(|e| e.to_string())
}

/// The tags a filter's `--tag` flags select, read as a selector reads them: `--tag
/// ab=1f,ab_side=b` is the two tags `compare ab=1f,ab_side=b` selects by (it once matched no
/// run in `history` where `compare` found six). A comma starts another tag only where a
/// `key=` follows it: `--tag note=a,b` keeps its value.
pub fn selected_tags(tags: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (key, value) in tags {
        let mut pieces = value.split(',');
        let mut current = (key, pieces.next().unwrap_or_default().to_string());
        for piece in pieces {
            match store::parse_tag(piece) {
                Ok(tag) if piece.contains('=') => {
                    out.push(std::mem::replace(&mut current, tag));
                }
                _ => {
                    current.1.push(',');
                    current.1.push_str(piece);
                }
            }
        }
        out.push(current);
    }
    out
}

/// Parses `--where KEY=VALUE`: a part of a run's provenance (`host`, `user`, `ci.job`, …) and
/// the value it must have.
pub fn where_arg(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not KEY=VALUE (e.g. host=bench-7)"))?;
    crate::measure::provenance::check_key(k.trim())?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filters_tags_read_as_a_selectors() {
        let t = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            selected_tags(vec![t("ab", "1f,ab_side=b"), t("night", "3")]),
            vec![t("ab", "1f"), t("ab_side", "b"), t("night", "3")]
        );
        assert_eq!(
            selected_tags(vec![t("note", "a,b")]),
            vec![t("note", "a,b")]
        );
        assert_eq!(
            selected_tags(vec![t("note", "a,b,k=v")]),
            vec![t("note", "a,b"), t("k", "v")]
        );
    }
}
