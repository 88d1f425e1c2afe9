//! `--part I/N` and `--group ID`: one run split over several driver processes or hosts, each
//! taking a disjoint share of the documents, the clients and the rate, with no coordinator.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;

use crate::cli::CliError;
use crate::corpus::part::{Part, PartSource};
use crate::session::ingest::LoadSpec;
use crate::session::Job;

#[derive(Debug, Clone, Default, Args)]
pub struct PartArgs {
    /// Run part I of N of one run (e.g. 2/4), started on each driver host with the same
    /// arguments: part I loads its share of the documents (a generator's at positions
    /// [(I-1)*D/N, I*D/N), under the ids a single run gives them; of plain NDJSON files, the
    /// lines that start in its share of their bytes, each line read by one part; compressed
    /// and CSV files are read through once to count their documents, then split by
    /// position), with its share of --clients and of --rate. The parts share the index: the
    /// first to get there makes it, none replaces it. `query`: its share of each variant's
    /// coverages, of --search-clients and of --rate; `run --url`: its share of the load, then
    /// of the queries once the index holds every part's documents; `run --workload-file
    /// track.json`: part 1 runs the track's administrative tasks, every part its share of each
    /// task's clients (and of a bulk's documents), the parts waiting for each other before
    /// each step (marks in the hidden `searchbench-parts` index of the cluster); `run
    /// many-shards|snapshots`: its share of the indices and of the logs, part 1 taking the
    /// snapshots and cleaning up. Needs --group. Merge the parts with `results merge ID`.
    #[arg(long, value_name = "I/N", value_parser = parse_part, requires = "group")]
    pub part: Option<Part>,
    /// The run the parts belong to, the same in every part (letters, digits, `.`, `_`, `-`):
    /// stored with each part, so that they can be found and merged.
    #[arg(long, value_name = "ID", value_parser = parse_group)]
    pub group: Option<String>,
    /// Start the load at this wall-clock time (UTC unless it says otherwise, e.g.
    /// 2026-11-26T15:00:00Z), so that parts started one by one load together; at most 24 h
    /// ahead. Ctrl-C while waiting stops without loading.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<SystemTime>,
}

/// The most a run waits for `--start-at`.
pub const MAX_WAIT: Duration = Duration::from_secs(24 * 3600);

pub fn parse_start_at(text: &str) -> Result<SystemTime, String> {
    let at = isodate::parse_strict_date_optional_time(text.as_bytes())
        .map_err(|e| format!("{text:?} is not a date and time (2026-11-26T15:00:00Z): {e}"))?;
    let secs = u64::try_from(at.epoch_second).map_err(|_| format!("{text:?} is before 1970"))?;
    Ok(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_nanos(u64::from(at.nano)))
}

fn parse_part(text: &str) -> Result<Part, String> {
    Part::parse(text)
}

fn parse_group(text: &str) -> Result<String, String> {
    crate::corpus::part::check_group(text).map(|()| text.to_string())
}

impl PartArgs {
    /// Waits for `--start-at`, if given; `false` when Ctrl-C came first (nothing is loaded).
    pub async fn wait_for_start(
        &self,
        cancel: &crate::cancel::Cancel,
        quiet: bool,
    ) -> Result<bool, CliError> {
        let Some(at) = self.start_at else {
            return Ok(true);
        };
        let Ok(wait) = at.duration_since(SystemTime::now()) else {
            if !quiet {
                errln!("--start-at is past: starting now");
            }
            return Ok(true);
        };
        if wait > MAX_WAIT {
            return Err(CliError::usage(anyhow::anyhow!(
                "--start-at is {} h ahead; at most 24 h",
                wait.as_secs() / 3600
            )));
        }
        if !quiet {
            errln!("waiting {:.1} s for --start-at", wait.as_secs_f64());
        }
        tokio::select! {
            () = tokio::time::sleep(wait) => Ok(true),
            () = cancel.cancelled() => Ok(false),
        }
    }

    /// Cuts `job` and `load` to this part's share; says what it took, unless `quiet`. `files`
    /// counts the documents of the user's files (a first pass through them), when they are
    /// the corpus.
    pub fn apply(
        &self,
        job: &mut Job,
        load: &mut LoadSpec,
        quiet: bool,
        files: Option<&dyn Fn() -> Result<u64, CliError>>,
    ) -> Result<(), CliError> {
        let usage = |e: String| CliError::usage(anyhow::anyhow!(e));
        load.driver.group = self.group.clone();
        let Some(part) = self.part else {
            return Ok(());
        };
        if part.is_whole() {
            return Ok(());
        }
        if load.replace {
            return Err(usage(
                "--part with --replace: a part never deletes the index the other parts load".into(),
            ));
        }
        if !load.load_settings.is_empty() {
            return Err(usage(
                "--part with --refresh-interval/--replicas/--translog-durability: each part \
                 would restore the settings under the others; set them on the index before the \
                 parts start"
                    .into(),
            ));
        }
        let clients = part
            .clients(load.driver.clients as u64, "--clients")
            .map_err(usage)? as usize;
        // Plain NDJSON files were cut by bytes when the job was made: nothing to count.
        if let Some(share) = job.byte_share {
            load.driver.clients = clients;
            load.driver.rate = load.driver.rate.map(|r| r / f64::from(part.of));
            load.driver.part = part;
            load.driver.first_ordinal = share.from;
            if !quiet {
                errln!(
                    "part {part} of group {}: the lines that start in bytes {}..{} of {} \
                     (each line read by one part only), {clients} client(s)",
                    self.group.as_deref().unwrap_or(""),
                    share.from,
                    share.to,
                    share.total
                );
            }
            return Ok(());
        }
        // Files are counted whatever a reader guesses of its length.
        let total = match (files, job.source.len_hint()) {
            (Some(count), _) => count()?,
            (None, Some(total)) => total,
            (None, None) => {
                return Err(usage(
                    "--part needs a corpus whose size is known (--docs)".into(),
                ))
            }
        };
        load.driver.clients = clients;
        load.driver.rate = load.driver.rate.map(|r| r / f64::from(part.of));
        let source = std::mem::replace(
            &mut job.source,
            Box::new(crate::corpus::Counter { n: 0, at: 0 }),
        );
        let source = PartSource::new(source, part, total);
        load.driver.first_ordinal = source.first_ordinal();
        load.driver.part = part;
        let (first, last) = part.share(total);
        if !quiet {
            errln!(
                "part {part} of group {}: documents {first}..{last} of {total}, {clients} \
                 client(s){}",
                self.group.as_deref().unwrap_or(""),
                load.driver
                    .rate
                    .map(|r| format!(", {r:.0} docs/s"))
                    .unwrap_or_default()
            );
        }
        job.source = Box::new(source);
        Ok(())
    }
}

impl PartArgs {
    /// Cuts a query run to this part's share: its share of each variant's coverages (the
    /// other parts measure the rest), of the search clients and of the rate.
    pub fn apply_query(
        &self,
        options: &mut crate::query::QueryOptions,
        load: bool,
        quiet: bool,
    ) -> Result<(), CliError> {
        let usage = |e: String| CliError::usage(anyhow::anyhow!(e));
        options.group = self.group.clone();
        let Some(part) = self.part.filter(|p| !p.is_whole()) else {
            return Ok(());
        };
        if load {
            return Err(usage(
                "--part with --load: every part would load the index; load it once (`ingest \
                 --part` on each host, or one `ingest`), then query in parts"
                    .into(),
            ));
        }
        let clients = part
            .clients(options.clients as u64, "--search-clients")
            .map_err(usage)? as usize;
        options.clients = clients;
        options.rate = options.rate.map(|r| r / f64::from(part.of));
        options.part = part;
        if !quiet {
            errln!(
                "part {part} of group {}: its share of each variant's coverages, {clients} \
                 search client(s){}",
                self.group.as_deref().unwrap_or(""),
                options
                    .rate
                    .map(|r| format!(", {r:.2} coverages/s"))
                    .unwrap_or_default()
            );
        }
        Ok(())
    }
}
