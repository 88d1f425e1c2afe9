//! `searchbench generate`: write a built-in workload's corpus to a file or stdout. The
//! progress bar is drawn only when stderr is a terminal and is updated per 4 MiB buffer, not
//! per document.

use std::io::IsTerminal;

use super::args::GeneratorArgs;
use clap::{Args, ValueEnum};

use super::{CliError, CliResult};
use crate::session::generate::{write_corpus, Compression};
use crate::workload;
use crate::workload::FileShape;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON document per line.
    Ndjson,
    /// CSV with a header (transactions, cluster-metrics).
    Csv,
    /// vectors: the ANN benchmarks' binary files into the folder --out, as
    /// opensearch-benchmark's vectorsearch reads them (base.fbin, queries.fbin, and the
    /// exact 100 nearest of each query in neighbors.bin).
    Bigann,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compress {
    Gzip,
    Zstd,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench generate logs --docs 1000000 --out logs.ndjson\n  \
    searchbench generate cluster-metrics --epochs 5 --truth t.ndjson --out m.zst --compress zstd\n  \
    searchbench generate transactions --docs 100000 --out dvf.csv\n  \
    searchbench generate vectors --docs 1m --format bigann --out sift-like/\n\n\
    The same workload, seed and flags always give the same bytes.")]
pub struct GenerateArgs {
    /// Workload: logs, cluster-metrics or transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// Number of documents (rows), e.g. 200000, 200k, 1.5m. cluster-metrics default: rows per
    /// epoch × epochs.
    #[arg(long, value_name = "N", value_parser = crate::cli::args::units::parse_count)]
    pub docs: Option<u64>,
    /// Seed: the same seed gives the same bytes on any machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file, or `-` for stdout.
    #[arg(long, default_value = "-")]
    pub out: String,
    /// Output format (default: csv for transactions, ndjson otherwise).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Compress the output.
    #[arg(long, value_enum)]
    pub compress: Option<Compress>,
    /// cluster-metrics: write the exact per-(epoch, node) count, percentiles and sums here (NDJSON).
    #[arg(long, help_heading = "cluster-metrics")]
    pub truth: Option<String>,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    /// Never draw a progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

pub async fn run(args: GenerateArgs) -> CliResult {
    tokio::task::spawn_blocking(move || generate(args))
        .await
        .map_err(|e| anyhow::anyhow!("generator thread failed: {e}"))?
}

fn generate(args: GenerateArgs) -> CliResult {
    let Some(w) = workload::find(&args.workload) else {
        return Err(CliError::usage(anyhow::anyhow!(workload::unknown(
            &args.workload
        ))));
    };
    let usage = |e: crate::corpus::CorpusError| CliError::usage(e);
    let spec = args
        .generator
        .spec(args.seed, args.docs, args.truth.is_some());
    let shape = match args.format {
        Some(Format::Csv) => FileShape::Csv,
        Some(Format::Ndjson) => FileShape::Ndjson,
        Some(Format::Bigann) => return bigann(&args, &spec),
        None => w.default_shape(),
    };
    // Validate everything before creating any file.
    let writer = w.writer(&spec, shape).map_err(usage)?;
    let total = writer.len_hint.unwrap_or(0);
    let compression = args.compress.map(|c| match c {
        Compress::Gzip => Compression::Gzip,
        Compress::Zstd => Compression::Zstd,
    });
    let bar = if !args.no_progress && std::io::stderr().is_terminal() && total >= 1_000_000 {
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} {wide_bar} {human_pos}/{human_len} docs {per_sec} eta {eta}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let written = write_corpus(
        writer,
        &args.out,
        compression,
        args.truth.as_deref(),
        &|docs| bar.set_position(docs),
    )
    .map_err(CliError::session)?;
    bar.finish_and_clear();
    let secs = written.elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "{}: {} docs, {:.1} MB (uncompressed) in {secs:.2} s: {:.0} docs/s, {:.1} MB/s",
        w.name(),
        written.docs,
        written.bytes as f64 / 1e6,
        written.docs as f64 / secs,
        written.bytes as f64 / 1e6 / secs
    );
    Ok(())
}

/// `--format bigann`: the vectors corpus as the ANN benchmarks' files in the folder `--out`.
fn bigann(args: &GenerateArgs, spec: &workload::WorkloadSpec) -> CliResult {
    let usage = |why: String| CliError::usage(anyhow::anyhow!(why));
    if args.workload != "vectors" {
        return Err(usage(format!(
            "--format bigann is for the vectors workload, not {}",
            args.workload
        )));
    }
    if args.out == "-" {
        return Err(usage(
            "--format bigann writes three files: give --out a folder".into(),
        ));
    }
    if args.compress.is_some() || args.truth.is_some() {
        return Err(usage(
            "--format bigann writes its files plain, its truth in neighbors.bin: no \
             --compress, no --truth"
                .into(),
        ));
    }
    let dir = std::path::Path::new(&args.out);
    if dir.exists() && !dir.is_dir() {
        return Err(usage(format!(
            "--out {}: a file; --format bigann writes into a folder",
            dir.display()
        )));
    }
    let (space, docs) = workload::vectors::space_of(spec).map_err(CliError::usage)?;
    let started = std::time::Instant::now();
    let set = workload::vectors::bigann::write(dir, &space, docs, workload::vectors::QUERIES)
        .map_err(|e| {
            let why = format!("--out {}: {e}", dir.display());
            match e.kind() {
                std::io::ErrorKind::InvalidInput => CliError::usage(anyhow::anyhow!(why)),
                _ => CliError {
                    code: super::exit::FAILURE,
                    error: anyhow::anyhow!(why),
                },
            }
        })?;
    eprintln!(
        "vectors: {} docs of {} dims, {} queries and their {} nearest as bigann files in {} \
         ({:.1} MB, {:.2} s): {}, {}, {}",
        set.docs,
        space.dims,
        set.query_count,
        set.k,
        dir.display(),
        set.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        set.base.display(),
        set.queries.display(),
        set.neighbors.display()
    );
    Ok(())
}
