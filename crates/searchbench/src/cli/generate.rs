//! `searchbench generate`: write a built-in workload's corpus to a file or stdout. The
//! progress bar is drawn only when stderr is a terminal and is updated per 4 MiB buffer, not
//! per document.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};

use super::args::GeneratorArgs;
use super::{CliError, CliResult};
use crate::session::generate::{write_corpus, Compression};
use crate::workload::{self, FileShape};

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
    searchbench generate vectors --docs 1m --format bigann --out sift-like/\n  \
    searchbench generate --mapping index.json --sample docs.ndjson --docs 1m --out big.ndjson\n\n\
    The same workload (or mapping and sample), seed and flags always give the same bytes.")]
pub struct GenerateArgs {
    /// Workload: logs, cluster-metrics or transactions (or --mapping instead).
    #[arg(
        value_parser = crate::cli::args::suggest::workloads(),
        hide_possible_values = true,
        required_unless_present = "mapping",
        conflicts_with = "mapping"
    )]
    pub workload: Option<String>,
    /// Synthesize a corpus for this index body or mapping (JSON) instead of a workload's: every
    /// field it maps, with the statistics of --sample when given, else each type's defaults.
    #[arg(long, value_name = "FILE", help_heading = "Synthesized corpora")]
    pub mapping: Option<std::path::PathBuf>,
    /// With --mapping: NDJSON documents of the index (at most 200,000 read) whose statistics
    /// the corpus reproduces: how often each field is there, arrays, terms' frequencies and how
    /// fast new ones come, text lengths and words, numbers' and dates' quantiles.
    #[arg(long, value_name = "FILE", help_heading = "Synthesized corpora")]
    pub sample: Option<std::path::PathBuf>,
    /// With --mapping: write how close the corpus is to the real one, field by field, to this
    /// JSON file (and a table on stderr): missing rate, cardinality, top term's share, value
    /// or length quantiles, each within its tolerance or not. Compared with --sample, or with
    /// --fidelity-against, over as many documents as it holds.
    #[arg(long, value_name = "FILE", help_heading = "Synthesized corpora")]
    pub fidelity: Option<std::path::PathBuf>,
    /// With --fidelity: the real corpus (NDJSON) to compare with instead of the sample: a
    /// larger one shows whether the cardinality grows as the real one did.
    #[arg(
        long,
        value_name = "FILE",
        requires = "fidelity",
        help_heading = "Synthesized corpora"
    )]
    pub fidelity_against: Option<std::path::PathBuf>,
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
    if let Some(mapping) = &args.mapping {
        return synthesize(&args, mapping);
    }
    if args.sample.is_some() || args.fidelity.is_some() {
        return Err(CliError::usage(anyhow::anyhow!(
            "--sample and --fidelity are for --mapping: a built-in workload makes its own \
             documents"
        )));
    }
    let name = args.workload.clone().unwrap_or_default();
    let Some(w) = workload::find(&name) else {
        return Err(CliError::usage(anyhow::anyhow!(workload::unknown(&name))));
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
    write_out(writer, &args, w.name())
}

/// Writes `writer`'s corpus to `--out`, compressed as asked, with a progress bar on a
/// terminal, and says how fast.
fn write_out(writer: workload::CorpusWriter, args: &GenerateArgs, name: &str) -> CliResult {
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
    errln!(
        "{}: {} docs, {:.1} MB (uncompressed) in {secs:.2} s: {:.0} docs/s, {:.1} MB/s",
        name,
        written.docs,
        written.bytes as f64 / 1e6,
        written.docs as f64 / secs,
        written.bytes as f64 / 1e6 / secs
    );
    Ok(())
}

/// `--mapping`: a corpus synthesized from an index's mapping and a sample of its documents.
fn synthesize(args: &GenerateArgs, mapping: &std::path::Path) -> CliResult {
    use crate::corpus::synth;
    let usage = |why: String| CliError::usage(anyhow::anyhow!(why));
    if matches!(args.format, Some(Format::Csv | Format::Bigann)) || args.truth.is_some() {
        return Err(usage(
            "--mapping writes NDJSON documents: no --format csv or bigann, no --truth".into(),
        ));
    }
    let docs = args
        .docs
        .ok_or_else(|| usage("--mapping needs --docs: how many documents to make".into()))?;
    let shown = mapping.display();
    let fields = synth::mapping::read(mapping).map_err(usage)?;
    let (sample, about) = match &args.sample {
        Some(path) => {
            let sample = synth::read_sample(path).map_err(CliError::usage)?;
            if sample.is_empty() {
                return Err(usage(format!("{}: no documents", path.display())));
            }
            let about = format!(
                "{shown} and {} documents of {}",
                sample.len(),
                path.display()
            );
            (sample, about)
        }
        None => (Vec::new(), format!("{shown} alone")),
    };
    let against = args.fidelity_against.clone().or(args.sample.clone());
    if args.fidelity.is_some() && against.is_none() {
        return Err(usage(
            "--fidelity compares with --sample or --fidelity-against: give one".into(),
        ));
    }
    let model = synth::Model::learn(&fields, &sample);
    // Refused before the file is made when the disk cannot hold it (as `run --synthesize`).
    // Compressed, the uncompressed estimate says nothing of what the disk takes.
    if args.out != "-" && args.compress.is_none() {
        let dir = match std::path::Path::new(&args.out).parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        model
            .room_for(args.seed, docs, dir)
            .map_err(|why| usage(format!("--out {}: {why}", args.out)))?;
    }
    let kept = args.fidelity.as_ref().map(|_| model.clone());
    let mut source = synth::Synthesized::new(model, args.seed, docs, about);
    let writer = workload::CorpusWriter {
        header: Vec::new(),
        len_hint: Some(docs),
        next: Box::new(move |out| {
            use crate::corpus::DocSource;
            Ok(source.next_into(out)?.is_some())
        }),
        truth: None,
    };
    write_out(writer, args, "synthesized")?;
    if let (Some(report), Some(model), Some(real)) = (&args.fidelity, kept, against) {
        let rows =
            synth::fidelity(&model, &fields, args.seed, docs, &real).map_err(CliError::usage)?;
        let json = serde_json::to_vec_pretty(&rows).map_err(|e| anyhow::anyhow!("{e}"))?;
        crate::out_folder::write_file(report, &json)
            .map_err(|e| usage(format!("--fidelity {e}")))?;
        errln!("{}", super::output::fidelity::table(&rows, &real));
    }
    Ok(())
}

/// `--format bigann`: the vectors corpus as the ANN benchmarks' files in the folder `--out`.
fn bigann(args: &GenerateArgs, spec: &workload::WorkloadSpec) -> CliResult {
    let usage = |why: String| CliError::usage(anyhow::anyhow!(why));
    if args.workload.as_deref() != Some("vectors") {
        return Err(usage(format!(
            "--format bigann is for the vectors workload, not {}",
            args.workload.as_deref().unwrap_or_default()
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
    errln!(
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
