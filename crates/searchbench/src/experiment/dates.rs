//! The date-cost experiment: the same `logs` corpus loaded into fresh indices under four
//! ways of handling its two `date` fields (`@timestamp`, `event.ingested`), measured side by
//! side: throughput, engine CPU per document and the `_stats` indexing time per document.
//!
//! | variant | documents carry | mapping `format` |
//! |---|---|---|
//! | a | ISO strings (`2023-01-01T00:00:00.000Z`) | default (`strict_date_optional_time\|\|epoch_millis`) |
//! | b | epoch-millis numbers (converted on the client, [`ConvertDates`]) | default |
//! | c | epoch-millis numbers | `epoch_millis` |
//! | d | ISO strings | `strict_date_time` |
//!
//! The generator's `@timestamp` has milliseconds and `Z`, and `event.ingested` nanoseconds
//! and `Z`: both are `strict_date_time` shapes, so variant d needs no generator option.
//! Each measurement creates its index afresh and deletes it afterwards; an unmeasured warm-up
//! round of all four variants comes first (JIT, caches), and the measured rounds go
//! a b c d a b c d ... so that drift on a noisy machine hits every variant alike.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::cluster::{Target, TargetError};
use crate::corpus::convert::{ConvertDates, DateFields};
use crate::corpus::{CorpusError, DocSource, Logs, LogsSpec};
use crate::ingest::{
    self, index, Cancel, Controls, DriverConfig, IngestError, IngestReport, LoadSettings, Plan,
};
use crate::workload;

/// The `date` fields of the logs mapping.
pub const DATE_FIELDS: [&str; 2] = ["@timestamp", "event.ingested"];

#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("interrupted")]
    Interrupted,
    #[error("{0}")]
    Config(String),
}

/// One way of handling the dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// `a`, `b`, `c`, `d`.
    pub id: &'static str,
    /// What the documents carry and how the mapping reads it, in a few words.
    pub what: &'static str,
    /// Dates sent as epoch-millis numbers (converted on the client) rather than ISO strings.
    pub millis: bool,
    /// The mapping's `format` for both date fields; `None` for the default.
    pub format: Option<&'static str>,
}

/// The four variants, in the order they are run.
pub const VARIANTS: [Variant; 4] = [
    Variant {
        id: "a",
        what: "ISO strings, default format",
        millis: false,
        format: None,
    },
    Variant {
        id: "b",
        what: "epoch millis, default format",
        millis: true,
        format: None,
    },
    Variant {
        id: "c",
        what: "epoch millis, format epoch_millis",
        millis: true,
        format: Some("epoch_millis"),
    },
    Variant {
        id: "d",
        what: "ISO strings, format strict_date_time",
        millis: false,
        format: Some("strict_date_time"),
    },
];

impl Variant {
    /// `searchbench-dates-a`, ...
    pub fn index(&self) -> String {
        format!("searchbench-dates-{}", self.id)
    }

    /// The logs workload's settings and mappings, with this variant's format on both date
    /// fields.
    pub fn index_body(&self) -> Result<Value, ExperimentError> {
        let logs = workload::find("logs")
            .ok_or_else(|| ExperimentError::Config("the logs workload is missing".into()))?;
        let mut body = logs.index_body();
        if let Some(format) = self.format {
            for pointer in [
                "/mappings/properties/@timestamp",
                "/mappings/properties/event/properties/ingested",
            ] {
                let field = body
                    .pointer_mut(pointer)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| {
                        ExperimentError::Config(format!("the logs mapping has no {pointer}"))
                    })?;
                field.insert("format".into(), Value::String(format.into()));
            }
        }
        Ok(body)
    }

    /// The logs generator, with the date fields converted to epoch millis when the variant
    /// says so.
    pub fn source(&self, seed: u64, docs: u64) -> Result<Box<dyn DocSource>, ExperimentError> {
        let logs: Box<dyn DocSource> = Box::new(Logs::new(LogsSpec::new(seed, docs))?);
        Ok(if self.millis {
            Box::new(ConvertDates::generated(
                logs,
                DateFields::parse(&DATE_FIELDS)?,
            ))
        } else {
            logs
        })
    }
}

/// How to run the experiment.
#[derive(Debug, Clone)]
pub struct Config {
    pub docs: u64,
    pub repeats: u32,
    /// Documents per variant in the unmeasured warm-up round (0: none).
    pub warmup_docs: u64,
    pub seed: u64,
    pub clients: usize,
    pub bulk_size: usize,
    /// Where failure files go (written only when something failed).
    pub failures_dir: PathBuf,
    /// Stops the load under way (it is reported as interrupted) and the experiment.
    pub cancel: Option<Cancel>,
}

/// One measured load. Read back by `analysis::metrics` (a field an older result lacks takes
/// its default).
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Measure {
    pub repeat: u32,
    pub index: String,
    pub read: u64,
    pub indexed: u64,
    pub failed: u64,
    pub reconciled: bool,
    pub wall_secs: f64,
    pub docs_per_sec: f64,
    /// Engine process CPU (user + system) per indexed document, µs; needs the engine's pid.
    pub engine_cpu_us_per_doc: Option<f64>,
    /// `_stats` `indexing.index_time_in_millis` delta per indexed document, µs.
    pub index_time_us_per_doc: Option<f64>,
    /// The driver's own CPU per indexed document (generator, conversion, HTTP), µs.
    pub client_cpu_us_per_doc: Option<f64>,
    pub failures_file: Option<PathBuf>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
}

impl Measure {
    fn from_report(repeat: u32, r: &IngestReport) -> Self {
        let n = r.counts.indexed;
        let per_doc = |secs: f64| (n > 0).then(|| secs * 1e6 / n as f64);
        Measure {
            repeat,
            index: r.index.clone(),
            read: r.counts.read,
            indexed: n,
            failed: r.counts.failed,
            reconciled: r.counts.reconciled,
            wall_secs: r.wall_secs,
            docs_per_sec: r.docs_per_sec,
            engine_cpu_us_per_doc: r.cpu.engine_secs.and_then(per_doc),
            index_time_us_per_doc: r
                .server_stats
                .and_then(|s| per_doc(s.index_time_ms as f64 / 1e3)),
            client_cpu_us_per_doc: per_doc(r.cpu.driver_secs),
            failures_file: r.failures_file.clone(),
            error: r.error.clone(),
            warnings: r.warnings.clone(),
        }
    }

    /// Every document read was indexed and the counts reconcile.
    pub fn complete(&self) -> bool {
        self.error.is_none() && self.reconciled && self.failed == 0
    }
}

/// Median and range of one metric over the repeats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Spread {
    /// `None` when there is no value.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = crate::stats::median_sorted(&v)?;
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
            n,
        })
    }
}

/// A variant's measurements and their spread.
#[derive(Debug, Clone, Serialize)]
pub struct VariantResult {
    #[serde(flatten)]
    pub variant: Variant,
    pub index: String,
    pub runs: Vec<Measure>,
    pub docs_per_sec: Option<Spread>,
    pub engine_cpu_us_per_doc: Option<Spread>,
    pub index_time_us_per_doc: Option<Spread>,
    pub client_cpu_us_per_doc: Option<Spread>,
    /// Engine CPU per document relative to variant (a) in the same round (paired, so drift
    /// between rounds cancels out), as a fraction: -0.1 is 10% less CPU than (a).
    pub engine_cpu_vs_a: Option<Spread>,
    /// The same for the `_stats` indexing time per document.
    pub index_time_vs_a: Option<Spread>,
    /// Every run indexed every document and reconciled.
    pub complete: bool,
    /// Where the engine's CPU and allocations went over this variant's measured loads
    /// (`--profile`), when it was profiled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::Profile>,
}

impl VariantResult {
    fn new(variant: Variant) -> Self {
        VariantResult {
            variant,
            index: variant.index(),
            runs: Vec::new(),
            docs_per_sec: None,
            engine_cpu_us_per_doc: None,
            index_time_us_per_doc: None,
            client_cpu_us_per_doc: None,
            engine_cpu_vs_a: None,
            index_time_vs_a: None,
            complete: false,
            profile: None,
        }
    }

    /// Per-round ratios to the baseline's runs of the same round, minus one.
    fn paired(&mut self, base: &[Measure]) {
        let ratio = |pick: fn(&Measure) -> Option<f64>| {
            Spread::of(self.runs.iter().filter_map(|m| {
                let b = base.iter().find(|b| b.repeat == m.repeat)?;
                match (pick(m), pick(b)) {
                    (Some(x), Some(y)) if y > 0.0 => Some(x / y - 1.0),
                    _ => None,
                }
            }))
        };
        self.engine_cpu_vs_a = ratio(|m| m.engine_cpu_us_per_doc);
        self.index_time_vs_a = ratio(|m| m.index_time_us_per_doc);
    }

    fn summarise(&mut self) {
        let r = &self.runs;
        self.docs_per_sec = Spread::of(r.iter().map(|m| m.docs_per_sec));
        self.engine_cpu_us_per_doc = Spread::of(r.iter().filter_map(|m| m.engine_cpu_us_per_doc));
        self.index_time_us_per_doc = Spread::of(r.iter().filter_map(|m| m.index_time_us_per_doc));
        self.client_cpu_us_per_doc = Spread::of(r.iter().filter_map(|m| m.client_cpu_us_per_doc));
        self.complete = !r.is_empty() && r.iter().all(Measure::complete);
    }
}

/// The experiment on one cluster.
#[derive(Debug, Clone, Serialize)]
pub struct EngineResult {
    /// The catalogue engine we provisioned, if we did.
    pub engine: Option<String>,
    pub product: String,
    pub version: String,
    pub target_url: String,
    pub docs: u64,
    pub repeats: u32,
    pub warmup_docs: u64,
    pub seed: u64,
    pub clients: usize,
    pub bulk_size: usize,
    /// Whether the engine's CPU could be measured (we know its pid).
    pub engine_cpu_measured: bool,
    pub variants: Vec<VariantResult>,
    /// Why the run is not whole (a variant did not index every document), for the store's
    /// verdict: such a run is stored failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the engine was doing meanwhile (the session's sampler), when it was sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::measure::telemetry::Summary>,
}

impl EngineResult {
    /// Every run of every variant indexed every document.
    pub fn complete(&self) -> bool {
        self.variants.iter().all(|v| v.complete)
    }
}

/// Something told just before and just after each measured load (not the warm-up's): the
/// engine profile records each variant's loads.
pub trait LoadWatch {
    fn before<'a>(&'a mut self, variant: &'a Variant, repeat: u32) -> Watching<'a>;
    fn after<'a>(&'a mut self, variant: &'a Variant, repeat: u32) -> Watching<'a>;
}

/// What a [`LoadWatch`] does, borrowing what it was given.
pub type Watching<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>;

/// Runs the warm-up round, then `repeats` interleaved rounds of the four variants on `target`.
/// `engine_pids` (the engine's processes, one per node, when local) give engine CPU per
/// document. `log` gets one line per load; `watch`, when given, is told around each measured
/// load.
pub async fn run(
    target: &Target,
    engine: Option<String>,
    engine_pids: &[u32],
    cfg: &Config,
    log: &(dyn Fn(&str) + Sync),
    mut watch: Option<&mut dyn LoadWatch>,
) -> Result<EngineResult, ExperimentError> {
    if cfg.docs == 0 || cfg.repeats == 0 {
        return Err(ExperimentError::Config(
            "--docs and --repeats must be at least 1".into(),
        ));
    }
    let (product, version, _) = target.product().await?;
    let mut url = target.url().clone();
    url.set_query(None);
    if cfg.warmup_docs > 0 {
        for v in &VARIANTS {
            let m = load(target, engine_pids, cfg, v, cfg.warmup_docs, 0).await?;
            log(&format!(
                "warm-up ({}) {}: {:.0} docs/s (not counted)",
                v.id, v.what, m.docs_per_sec
            ));
        }
    }
    let mut results: Vec<VariantResult> = VARIANTS.iter().map(|v| VariantResult::new(*v)).collect();
    for repeat in 1..=cfg.repeats {
        for result in &mut results {
            let v = result.variant;
            if let Some(w) = watch.as_deref_mut() {
                w.before(&v, repeat).await;
            }
            let m = load(target, engine_pids, cfg, &v, cfg.docs, repeat).await;
            if let Some(w) = watch.as_deref_mut() {
                w.after(&v, repeat).await;
            }
            let m = m?;
            log(&format!(
                "repeat {repeat}/{} ({}) {}: {} docs, {:.0} docs/s, engine CPU {} µs/doc, index time {} µs/doc{}",
                cfg.repeats,
                v.id,
                v.what,
                m.indexed,
                m.docs_per_sec,
                m.engine_cpu_us_per_doc.map_or_else(|| "-".into(), |x| format!("{x:.1}")),
                m.index_time_us_per_doc.map_or_else(|| "-".into(), |x| format!("{x:.1}")),
                if m.complete() { "" } else { " (INCOMPLETE)" }
            ));
            result.runs.push(m);
        }
    }
    let base = results.first().map(|r| r.runs.clone()).unwrap_or_default();
    for r in &mut results {
        r.summarise();
        r.paired(&base);
    }
    let incomplete: Vec<&str> = results
        .iter()
        .filter(|v| !v.complete)
        .map(|v| v.variant.id)
        .collect();
    let error = (!incomplete.is_empty()).then(|| {
        format!(
            "not every document was indexed in variant(s) {} (see the failure files)",
            incomplete.join(", ")
        )
    });
    Ok(EngineResult {
        engine,
        product: product.to_string(),
        version,
        target_url: url.to_string(),
        docs: cfg.docs,
        repeats: cfg.repeats,
        warmup_docs: cfg.warmup_docs,
        seed: cfg.seed,
        clients: cfg.clients,
        bulk_size: cfg.bulk_size,
        engine_cpu_measured: !engine_pids.is_empty(),
        variants: results,
        error,
        telemetry: None,
    })
}

/// One load into a fresh index, deleted afterwards whatever happened.
async fn load(
    target: &Target,
    engine_pids: &[u32],
    cfg: &Config,
    variant: &Variant,
    docs: u64,
    repeat: u32,
) -> Result<Measure, ExperimentError> {
    let index = variant.index();
    let mut driver = DriverConfig::new(index.clone());
    driver.clients = cfg.clients.max(1);
    driver.bulk_docs = cfg.bulk_size.max(1);
    let plan = Plan {
        driver,
        index_body: variant.index_body()?,
        portable_body: false,
        replace: false,
        append: false,
        load_settings: LoadSettings::default(),
        freshness: None,
        failures: cfg
            .failures_dir
            .join(format!("{index}-r{repeat}-failures.ndjson")),
        engine_pids: engine_pids.to_vec(),
    };
    let source = variant.source(cfg.seed, docs)?;
    let controls = Controls {
        cancel: cfg.cancel.clone(),
        ..Controls::default()
    };
    let outcome = ingest::ingest_streaming(target, source, plan, controls).await;
    let deleted = index::delete_ours(target, &index).await;
    let report = outcome.map_err(|e| match e {
        // The experiment names its indexes itself and never replaces one it did not create.
        IngestError::Foreign { index } => ExperimentError::Config(format!(
            "index {index:?} already exists and was not created by searchbench; the dates \
             experiment loads into fixed names (searchbench-dates-*) and leaves other indexes \
             alone: delete or rename that index, or use another cluster"
        )),
        other => other.into(),
    })?;
    let mut m = Measure::from_report(repeat, &report);
    if let Err(e) = deleted {
        m.warnings.push(format!("could not delete {index}: {e}"));
    }
    if report.interrupted {
        return Err(ExperimentError::Interrupted);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads() {
        let s = Spread::of([3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (2.0, 1.0, 3.0, 3));
        assert_eq!(Spread::of([4.0, 1.0]).unwrap().median, 2.5);
        assert!(Spread::of([]).is_none());
        assert!(Spread::of([f64::NAN]).is_none());
    }

    #[test]
    fn ratios_are_paired_by_round() {
        let run = |repeat, cpu| Measure {
            repeat,
            index: String::new(),
            read: 1,
            indexed: 1,
            failed: 0,
            reconciled: true,
            wall_secs: 1.0,
            docs_per_sec: 1.0,
            engine_cpu_us_per_doc: Some(cpu),
            index_time_us_per_doc: None,
            client_cpu_us_per_doc: None,
            failures_file: None,
            error: None,
            warnings: Vec::new(),
        };
        let base = vec![run(1, 100.0), run(2, 50.0)];
        let mut v = VariantResult::new(VARIANTS[1]);
        v.runs = vec![run(1, 90.0), run(2, 45.0)];
        v.summarise();
        v.paired(&base);
        let s = v.engine_cpu_vs_a.unwrap();
        assert!((s.median + 0.1).abs() < 1e-9 && s.n == 2, "{s:?}");
        assert!(v.index_time_vs_a.is_none());
        assert!(v.complete);
    }

    #[test]
    fn variants_set_formats_and_sources() {
        for v in &VARIANTS {
            assert!(v.index().starts_with("searchbench-"));
            index::check_name(&v.index()).unwrap();
            let body = v.index_body().unwrap();
            for p in [
                "/mappings/properties/@timestamp/format",
                "/mappings/properties/event/properties/ingested/format",
            ] {
                assert_eq!(body.pointer(p).and_then(Value::as_str), v.format);
            }
            let mut src = v.source(1, 2).unwrap();
            let mut out = Vec::new();
            assert_eq!(
                src.next_into(&mut out).unwrap(),
                Some(crate::corpus::Item::Doc)
            );
            let doc: Value = serde_json::from_slice(&out).unwrap();
            let ts = &doc["@timestamp"];
            let ingested = &doc["event"]["ingested"];
            if v.millis {
                assert!(ts.is_i64() && ingested.is_i64(), "{doc}");
            } else {
                // strict_date_time: yyyy-MM-ddTHH:mm:ss.SSS...Z
                for t in [ts, ingested] {
                    let s = t.as_str().unwrap();
                    assert!(
                        s.len() >= 24 && s.as_bytes()[19] == b'.' && s.ends_with('Z'),
                        "{s}"
                    );
                }
            }
        }
    }
}
