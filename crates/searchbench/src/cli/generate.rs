//! `searchbench generate`: write a built-in workload's corpus to a file or stdout.
//!
//! Documents are appended into one 4 MiB buffer that is handed to the sink when full, so the
//! number of `write` calls is bytes / 4 MiB, never per document; compression (gzip, zstd)
//! sits between that buffer and the file. The progress bar is drawn only when stderr is a
//! terminal and is updated per buffer, not per document.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::args::GeneratorArgs;
use clap::{Args, ValueEnum};

use super::{CliError, CliResult};
use crate::corpus::metrics;
use crate::workload;
use crate::workload::FileShape;

const CHUNK: usize = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON document per line.
    Ndjson,
    /// CSV with a header (transactions, cluster-metrics).
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compress {
    Gzip,
    Zstd,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench generate logs --docs 1000000 --out logs.ndjson\n  \
    searchbench generate cluster-metrics --epochs 5 --truth truth.ndjson --out metrics.ndjson.zst --compress zstd\n  \
    searchbench generate transactions --docs 100000 --out dvf.csv\n\n\
    The same workload, seed and flags always give the same bytes.")]
pub struct GenerateArgs {
    /// Workload: logs, cluster-metrics or transactions.
    pub workload: String,
    /// Number of documents (rows). cluster-metrics default: rows per epoch × epochs.
    #[arg(long)]
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

/// Where the bytes go, with compression if asked.
enum Sink {
    Plain(Box<dyn Write + Send>),
    Gzip(flate2::write::GzEncoder<Box<dyn Write + Send>>),
    Zstd(zstd::stream::write::Encoder<'static, Box<dyn Write + Send>>),
}

impl Sink {
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(buf),
            Sink::Gzip(w) => w.write_all(buf),
            Sink::Zstd(w) => w.write_all(buf),
        }
    }

    fn finish(self) -> std::io::Result<()> {
        let mut inner = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
            Sink::Zstd(w) => w.finish()?,
        };
        inner.flush()
    }
}

/// Set when the reader of our stdout went away (`generate ... | head`): not an error, the
/// run just stops early.
static PIPE_CLOSED: AtomicBool = AtomicBool::new(false);

/// Stdout that turns "broken pipe" into a quiet stop.
struct QuietPipe(std::io::Stdout);

impl Write for QuietPipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if PIPE_CLOSED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        match self.0.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                PIPE_CLOSED.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.0.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                PIPE_CLOSED.store(true, Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }
}

fn open_out(path: &str, compress: Option<Compress>) -> Result<Sink, CliError> {
    let raw: Box<dyn Write + Send> = if path == "-" {
        Box::new(QuietPipe(std::io::stdout()))
    } else {
        let file = File::create(path)
            .map_err(|e| CliError::usage(anyhow::anyhow!("cannot create {path}: {e}")))?;
        Box::new(file)
    };
    Ok(match compress {
        None => Sink::Plain(raw),
        Some(Compress::Gzip) => Sink::Gzip(flate2::write::GzEncoder::new(
            raw,
            flate2::Compression::fast(),
        )),
        Some(Compress::Zstd) => Sink::Zstd(
            zstd::stream::write::Encoder::new(raw, 3)
                .map_err(|e| anyhow::anyhow!("zstd encoder: {e}"))?,
        ),
    })
}

/// Output writer with the truth file alongside; flushes per chunk.
struct Output {
    sink: Sink,
    buf: Vec<u8>,
    out_name: String,
    truth: Option<(File, String, metrics::TruthHandle)>,
    progress: indicatif::ProgressBar,
    docs: u64,
    bytes: u64,
}

impl Output {
    fn flush_chunk(&mut self) -> CliResult {
        self.sink
            .write_all(&self.buf)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", self.out_name))?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        self.progress.set_position(self.docs);
        self.flush_truth()
    }

    fn flush_truth(&mut self) -> CliResult {
        if let Some((file, name, handle)) = &mut self.truth {
            let parts = handle.take();
            if parts.is_empty() {
                return Ok(());
            }
            let mut text = Vec::new();
            for p in &parts {
                serde_json::to_writer(&mut text, p)?;
                text.push(b'\n');
            }
            file.write_all(&text)
                .map_err(|e| anyhow::anyhow!("writing {name}: {e}"))?;
        }
        Ok(())
    }

    /// Runs `next` (append one record to the buffer, `false` at the end) to exhaustion.
    #[inline]
    fn pump(&mut self, mut next: impl FnMut(&mut Vec<u8>) -> bool) -> CliResult {
        loop {
            if !next(&mut self.buf) {
                break;
            }
            self.buf.push(b'\n');
            self.docs += 1;
            if self.buf.len() >= CHUNK {
                self.flush_chunk()?;
                if PIPE_CLOSED.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
        self.flush_chunk()
    }
}

fn generate(args: GenerateArgs) -> CliResult {
    let Some(w) = workload::find(&args.workload) else {
        return Err(CliError::usage(anyhow::anyhow!(
            "unknown workload {:?}; built in: {}",
            args.workload,
            workload::names().join(", ")
        )));
    };
    let usage = |e: crate::corpus::CorpusError| CliError::usage(e);
    let spec = args
        .generator
        .spec(args.seed, args.docs, args.truth.is_some());
    let shape = match args.format {
        Some(Format::Csv) => FileShape::Csv,
        Some(Format::Ndjson) => FileShape::Ndjson,
        None => w.default_shape(),
    };
    // Validate everything before creating any file.
    let writer = w.writer(&spec, shape).map_err(usage)?;
    let total = writer.len_hint.unwrap_or(0);
    let truth = match (&args.truth, writer.truth) {
        (Some(path), Some((header, handle))) => {
            let mut file = File::create(path)
                .map_err(|e| CliError::usage(anyhow::anyhow!("cannot create {path}: {e}")))?;
            let mut header = serde_json::to_vec(&header)?;
            header.push(b'\n');
            file.write_all(&header)
                .map_err(|e| anyhow::anyhow!("writing {path}: {e}"))?;
            Some((file, path.clone(), handle))
        }
        _ => None,
    };
    let sink = open_out(&args.out, args.compress)?;
    let progress = if !args.no_progress && std::io::stderr().is_terminal() && total >= 1_000_000 {
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
    let mut out = Output {
        sink,
        buf: Vec::with_capacity(CHUNK + (64 << 10)),
        out_name: args.out.clone(),
        truth,
        progress,
        docs: 0,
        bytes: 0,
    };
    let started = Instant::now();
    out.buf.extend_from_slice(&writer.header);
    let mut next = writer.next;
    let mut failure = None;
    out.pump(|b| match next(b) {
        Ok(more) => more,
        Err(e) => {
            failure = Some(e);
            false
        }
    })?;
    if let Some(e) = failure {
        // The generators make their own documents; a failure here is a bug, said plainly.
        return Err(anyhow::anyhow!("{e}").into());
    }
    out.progress.finish_and_clear();
    let Output {
        sink,
        docs,
        bytes,
        out_name,
        ..
    } = out;
    sink.finish()
        .map_err(|e| anyhow::anyhow!("writing {out_name}: {e}"))?;
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    eprintln!(
        "{}: {docs} docs, {:.1} MB (uncompressed) in {secs:.2} s: {:.0} docs/s, {:.1} MB/s",
        w.name(),
        bytes as f64 / 1e6,
        docs as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    Ok(())
}
