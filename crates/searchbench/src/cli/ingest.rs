//! `searchbench ingest`: load a built-in workload's generator or the user's files into a
//! cluster (given by `--url`, or started for the run with `--engine`) and say where the time
//! went.

use clap::{Args, ValueEnum};

use super::args::{ClusterArgs, CorpusArgs, LoadArgs, OutputArgs};
use super::ending;
use super::output::{self, Terminal};
use super::{CliError, CliResult};
use crate::corpus::csv_types::CsvTypes;
use crate::corpus::LineCheck;
use crate::session::{self, FileFormat, FilesSpec, Job};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  \
        searchbench ingest logs --docs 200000 --url http://127.0.0.1:9200\n  \
        searchbench ingest --file events.ndjson.gz --index events --clients 4\n  \
        searchbench ingest transactions --file dvf.csv --max-failures 0.1%",
    after_long_help = AFTER_HELP
)]
pub struct IngestArgs {
    /// Built-in workload whose generator (or, with --file, whose index setup) to use:
    /// logs, cluster-metrics, transactions.
    pub workload: Option<String>,
    /// Input file(s) instead of the generator: NDJSON (one JSON object per line) or CSV with a
    /// header; gzip, bzip2 and zstd files (by content or by .gz/.bz2/.zst) are decompressed as
    /// they are read; `-` is stdin. Repeat for several.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// Format of the input files (by default from the extension: .csv, compressed or not, is
    /// CSV, else NDJSON).
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Index to load into (default: the workload's, or searchbench-<first file name>).
    #[arg(long)]
    pub index: Option<String>,
    /// Rewrite these date fields (dotted paths, e.g. @timestamp,event.ingested) from strings
    /// to epoch-millisecond numbers on the client, parsed exactly as the default `date` format
    /// does; a value it rejects sends the document to the failure file. See --help.
    #[arg(long, value_name = "FIELD,...", value_delimiter = ',')]
    pub convert_dates: Vec<String>,
    /// Check that each NDJSON line is one JSON object before sending it. By default only its
    /// brackets and UTF-8 are checked here and the JSON is left to the engine's parser (a line
    /// it refuses is still a bad line, with its file:line): the full check costs about half of
    /// the driver's CPU on 1 KB documents. See --help.
    #[arg(long)]
    pub check_lines: bool,
    /// What the default now does (kept so that scripts using it still run).
    #[arg(long, hide = true, conflicts_with = "check_lines")]
    pub trust_lines: bool,
    /// Longest NDJSON line taken as a document, e.g. 100mb (the engines' default
    /// http.max_content_length, so a longer one could never be indexed). A longer line is a
    /// bad line with its file:line and length, read past without being held in memory. A CSV
    /// record longer than this ends the load with an error naming its line.
    #[arg(long, value_name = "SIZE", default_value = "100mb", value_parser = super::args::parse_size)]
    pub max_line: usize,
    /// CSV column types, e.g. price:float,day:date,open:boolean (integer, float, boolean,
    /// date, keyword); the other columns' types are inferred from the first 1000 records
    /// (`strings` alone: every column a string). The mapping they give is printed and used
    /// unless --mapping or a workload gives one. A cell that does not fit its type sends its
    /// record to the failure file (file, line, column).
    #[arg(long, value_name = "COL:TYPE,...", value_delimiter = ',')]
    pub csv_types: Vec<String>,
    #[command(flatten)]
    pub setup: super::args::SetupArgs,
    /// Run the workload's searches from N clients in a loop while the load goes on (logs);
    /// their latency is reported beside the docs/s (answers are not checked: the index grows).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub search_clients: Option<u64>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub warm: super::args::WarmArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub part: super::args::PartArgs,
    #[command(flatten)]
    pub profile: super::args::ProfileArgs,
    /// Every table on the terminal (the measures, where the wall time went, the telemetry),
    /// not only what the load came to.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Auto,
    Ndjson,
    Csv,
}

const AFTER_HELP: &str = "\
Ids: --ids sequential (the default) gives each document the _id of its position in the corpus \
(0, 1, 2, ...): a request that is sent again because its answer was lost (timeout, reset) \
overwrites the same documents, so nothing is duplicated and the final count is exact. \
--ids auto lets the server pick ids: a little less work for the server, but such a retry can \
index the same documents twice, and the count check then fails.

Nothing is lost: every document is either acknowledged by the cluster or written to the \
failure file (--failures) with its status and reason; input lines that are not documents go \
there too, with file and line. Lines: before an NDJSON line is sent, searchbench checks that it \
starts with '{', ends with '}' and is UTF-8; whether it is JSON is left to the engine's parser, \
which refuses any line that is not one JSON object (checked on OpenSearch 2.19 and 3.8, \
Elasticsearch 7.10 and 8.19). A line it refuses is judged here once more and counted as a bad \
line, with the same reason and file:line as the full check gives. The one difference: engines \
take JSON with comments (/* */ and //) and index it without them. --check-lines checks every line \
fully before sending it (so a bad line never reaches the engine; about half of the driver's CPU \
on 1 KB documents); --fail-fast implies it, so the load stops at the bad line itself.

At the end, read = indexed + failed is checked, and the index is refreshed and counted; the exit \
code is 3 when the numbers do not reconcile, or when more documents failed than --max-failures \
allows (0 by default: any failure is a failed load).

Dates: --convert-dates @timestamp,event.ingested rewrites those fields (dotted paths match \
nested objects and dotted keys alike; every element of an array) from date strings to \
epoch-millisecond numbers before sending, parsed with the isodate crate exactly as a `date` \
field with the default format (strict_date_optional_time||epoch_millis) would. A value it \
rejects makes the document a bad input line (failure file, with file:line and the reason). \
Numbers, null and missing fields are left alone (a number is already read through the \
mapping's format); so is an instant within 10 s of 1970-01-01, which as a 4-digit number the \
default format would read as a year. The fields need a `date` mapping (a workload's, or an \
index template): dynamic mapping would make the numbers `long` fields.

Safety: the index is created with `_meta.created_by: searchbench` in its mapping. An existing \
index without that mark is never deleted unless you pass --replace; one with it is replaced, and \
the output says so (when it was created, how many documents it held). --append loads into an \
existing index as it is, and the count check is on the increase of its count.

Examples:
  searchbench ingest logs --docs 200000 --url http://127.0.0.1:9200
  searchbench ingest --file events.ndjson.gz --index events --clients 4
  searchbench ingest transactions --file dvf.csv --max-failures 0.1%";

pub async fn run(args: IngestArgs) -> CliResult {
    let mut job = job(&args)?;
    let mut cluster = args.cluster.spec()?;
    cluster.serve(&job.workload);
    let mut load = args.load.spec(&job.index, args.out.progress());
    let attach = args
        .out
        .attach(Some(&args.load.telemetry), args.profile.spec(&cluster)?)?;
    let setup = args.setup.spec();
    setup
        .apply(&mut job, &mut load.extras)
        .map_err(CliError::session)?;
    // The user's files are split by their documents' positions: a first pass counts them.
    let count_files = || -> Result<u64, CliError> {
        let mut again = self::job(&args)?;
        let mut scratch = Vec::with_capacity(1 << 16);
        let mut n = 0u64;
        while job_item(&mut again, &mut scratch)? {
            n += 1;
        }
        Ok(n)
    };
    let files: Option<&dyn Fn() -> Result<u64, CliError>> =
        (!args.files.is_empty()).then_some(&count_files as _);
    args.part
        .apply(&mut job, &mut load, args.out.quiet, files)?;
    if let Some(mapping) = &job.csv_mapping {
        output::byo::csv_mapping(mapping, setup.gives_mapping() || args.workload.is_some());
    }
    if let Some(n) = args.search_clients {
        let (Some(name), true) = (&args.workload, args.files.is_empty()) else {
            return Err(CliError::usage(anyhow::anyhow!(
                "--search-clients needs a built-in workload's generator (e.g. logs), not --file"
            )));
        };
        load.beside = Some(
            session::beside::plan(name, &args.corpus.spec(false), n as usize)
                .map_err(CliError::session)?,
        );
    }
    // The first Ctrl-C stops the load and keeps what was done; a second quits at once.
    let begun = ending::begin(Some(&args.part), args.out.quiet).await?;
    load.cancel = Some(begun.cancel.clone());
    cluster.start.stop = begun.cancel.clone();
    cluster.warm = warm(&args, &load);
    // The tables print as the load ends (unless the JSON goes to stdout), then the path of
    // the run's HTML page, as `run` does.
    let mut terminal = Terminal::for_output(&args.out);
    terminal.detail = output::detail(args.verbose);
    let report = session::ingest::ingest(job, &cluster, load, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    ending::end(&args.out.json, &terminal, &report)
}

/// How to warm a node started for the load: with the workload's generator, or the user's
/// files read again from their start (stdin cannot be: then the node is not warmed, and
/// the load says so).
fn warm(args: &IngestArgs, load: &session::ingest::LoadSpec) -> Option<session::warm::WarmSpec> {
    let name = args.workload.as_deref().filter(|_| args.files.is_empty());
    if let Some(name) = name {
        return args.warm.generated(name, &args.corpus.spec(false), load);
    }
    if args.files.iter().any(|f| f == "-") {
        if !args.warm.no_warm_node && args.cluster.target.urls.is_empty() {
            errln!(
                "note: the node is not warmed before the load: stdin cannot be read twice                  (--file FILE can)"
            );
        }
        return None;
    }
    let spec = files_spec(args).ok()?;
    let load = load.clone();
    args.warm.spec(move |index, _docs| {
        let mut spec = spec.clone();
        spec.index = Some(index.to_string());
        let job = Job::files(&spec)?;
        Ok((job, session::ingest::slice_load(&load, index)))
    })
}

/// Reads the next item (document or bad line) of `job` into `scratch`; `false` at the end.
fn job_item(job: &mut Job, scratch: &mut Vec<u8>) -> Result<bool, CliError> {
    scratch.clear();
    job.source
        .next_into(scratch)
        .map(|item| item.is_some())
        .map_err(|e| CliError::session(e.into()))
}

/// What to load, from the arguments.
fn job(args: &IngestArgs) -> Result<Job, CliError> {
    if !args.files.is_empty() {
        if args.corpus.docs.is_some() {
            return Err(CliError::usage(anyhow::anyhow!(
                "--docs applies to generators, not to --file input"
            )));
        }
        return Job::files(&files_spec(args)?).map_err(CliError::session);
    }
    let Some(name) = &args.workload else {
        return Err(CliError::usage(anyhow::anyhow!(
            "what to load? name a workload ({}) or give --file",
            crate::workload::names().join(", ")
        )));
    };
    Job::generated(
        name,
        &args.corpus.spec(false),
        args.index.clone(),
        &args.convert_dates,
    )
    .map_err(CliError::session)
}

/// How to read the user's files, from the arguments.
fn files_spec(args: &IngestArgs) -> Result<FilesSpec, CliError> {
    Ok(FilesSpec {
        files: args.files.clone(),
        format: match args.format {
            Format::Auto => FileFormat::Auto,
            Format::Ndjson => FileFormat::Ndjson,
            Format::Csv => FileFormat::Csv,
        },
        workload: args.workload.clone(),
        index: args.index.clone(),
        convert_dates: args.convert_dates.clone(),
        line_check: if args.check_lines || args.load.fail_fast {
            LineCheck::Full
        } else {
            LineCheck::Engine
        },
        csv_types: CsvTypes::parse(&args.csv_types)
            .map_err(|e| CliError::usage(anyhow::anyhow!("--csv-types: {e}")))?,
        max_line: args.max_line,
        part: args.part.part,
    })
}
