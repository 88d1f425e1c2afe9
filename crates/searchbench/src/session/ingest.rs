//! The ingest phase: index setup, the load, the result, recorded as it goes.

use std::path::PathBuf;

use serde_json::Value;

use super::attach::{Attach, Identity, Kit, Scope};
use super::lifecycle;
use super::profile::PROFILE;
use super::record::Keep;
use super::telemetry::TELEMETRY;
use super::warm::WarmSpec;
use super::{ClusterSpec, Connected, Event, Job, Observer, SessionError};
use crate::cluster::Target;
use crate::ingest::{
    self, Cancel, Controls, DriverConfig, IngestReport, LoadSettings, Plan, Progress,
};
use crate::store::Kind;
use std::sync::Arc;

/// How to load: the driver's configuration and the index settings held during the load.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub driver: DriverConfig,
    /// The failure file; default `./<index>-failures.ndjson`.
    pub failures: Option<PathBuf>,
    /// Delete an existing index even if searchbench did not create it.
    pub replace: bool,
    /// Load into an existing index without deleting it.
    pub append: bool,
    pub load_settings: LoadSettings,
    /// Tell the observer how far the load has got ([`Event::Progress`]).
    pub progress: bool,
    /// Stops the load (Ctrl-C): what was done is kept and reported as interrupted.
    pub cancel: Option<Cancel>,
    /// Documents allowed to fail before the load counts as failed; `None`: not checked.
    pub max_failures: Option<ingest::MaxFailures>,
    /// The user's index template and ingest pipeline, put for the load and removed after.
    pub extras: super::setup::Extras,
    /// Searches to run beside the load (`--search-clients`): a phase of their own in the
    /// load's step (see [`load_step`]); a bare [`load`] runs none.
    pub beside: Option<super::beside::BesideSpec>,
    /// How soon the acknowledged documents are searchable, measured beside the load; `None`:
    /// not measured (the CLI's loads and a track's bulks measure it unless `--no-freshness`;
    /// a query's own load and a warm-up slice do not).
    pub freshness: Option<ingest::freshness::FreshnessSpec>,
}

impl LoadSpec {
    /// The defaults of the driver for `index`, with nothing held during the load.
    pub fn new(index: impl Into<String>) -> Self {
        LoadSpec {
            driver: DriverConfig::new(index),
            failures: None,
            replace: false,
            append: false,
            load_settings: LoadSettings::default(),
            progress: false,
            cancel: None,
            max_failures: None,
            extras: super::setup::Extras::default(),
            beside: None,
            freshness: None,
        }
    }
}

/// `value`, or a mark in its place when `key` names a secret (stored runs keep no secrets).
fn unless_secret<'a>(key: &str, value: &'a str) -> &'a str {
    if crate::store::secrets::names_a_secret(key) {
        "<redacted>"
    } else {
        value
    }
}

/// The configuration a run is stored with: what was loaded, where, and how. One shape, the
/// driver's own field names, for every command that loads.
pub fn record_config(job: &Job, cluster: &ClusterSpec, load: &LoadSpec) -> Value {
    let mut config = serde_json::json!({
        "workload": job.workload,
        "corpus": job.source.describe(),
        "index": job.index,
        "seed": job.seed,
        "engine": cluster.engine_name(),
        "urls": crate::cluster::redact_urls(&cluster.urls),
        // A cluster given by URL has the heap it has: `--heap` sizes only a node we start.
        "heap": cluster.given.is_none().then_some(&cluster.start.heap),
    });
    if let (Some(map), Some(rtt)) = (config.as_object_mut(), &cluster.rtt) {
        map.insert("rtt_ms".into(), rtt.rtt_ms.into());
        map.insert("jitter_ms".into(), rtt.jitter_ms.into());
    }
    if let (Some(dir), Some(map)) = (&cluster.start.engine_dir, config.as_object_mut()) {
        map.insert("engine_dir".into(), dir.display().to_string().into());
    }
    if cluster.given.is_none() {
        if let Some(map) = config.as_object_mut() {
            map.insert("nodes".into(), cluster.start.nodes.into());
            let settings: serde_json::Map<String, Value> = cluster
                .start
                .settings
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(unless_secret(k, v))))
                .collect();
            map.insert("node_settings".into(), Value::Object(settings));
            // What the nodes got, the machine's SEARCHBENCH_JVM_OPTS included (the start
            // refused them if they were unreadable).
            let jvm_opts: Vec<String> = cluster
                .start
                .node_jvm_opts()
                .unwrap_or_else(|_| cluster.start.jvm_opts.clone())
                .iter()
                .map(|opt| match opt.split_once('=') {
                    Some((k, v)) => format!("{k}={}", unless_secret(k, v)),
                    None => opt.clone(),
                })
                .collect();
            map.insert("jvm_opts".into(), serde_json::json!(jvm_opts));
        }
    }
    if let (Some(map), Ok(Value::Object(driver))) =
        (config.as_object_mut(), serde_json::to_value(&load.driver))
    {
        for (k, v) in driver {
            if k != "index" {
                map.insert(k, v);
            }
        }
        map.insert("append".into(), load.append.into());
        if let Some(b) = &load.beside {
            map.insert("search_clients".into(), b.clients.into());
        }
        map.insert(
            "warmup_secs".into(),
            load.driver.warmup.as_secs_f64().into(),
        );
        if let Ok(settings) = serde_json::to_value(&load.load_settings) {
            map.insert("load_settings".into(), settings);
        }
    }
    config
}

/// The identity of a load of `job` as a run of `kind`, its configuration [`record_config`].
pub fn load_identity(
    kind: Kind,
    job: &Job,
    cluster: &ClusterSpec,
    load: &LoadSpec,
    attach: &Attach,
) -> Identity {
    let config = record_config(job, cluster, load);
    attach.identity(kind, &job.workload, job.seed, cluster.engine_name(), config)
}

/// `searchbench ingest`: the load (with the searches during it, `--search-clients`) through
/// the run's lifecycle (connect or provision, load with the run's instruments around it, stop
/// what we started), its rows streamed into the store as they come, the result kept.
pub async fn ingest(
    job: Job,
    cluster: &ClusterSpec,
    load_spec: LoadSpec,
    attach: &Attach,
    observer: &dyn Observer,
) -> Result<IngestReport, SessionError> {
    preflight(&job.index, &load_spec)?;
    let identity = load_identity(Kind::Ingest, &job, cluster, &load_spec, attach);
    let kit = attach.kit(&identity, Scope::EVERY, observer);
    let plan = load_plan(identity, job, load_spec, kit, Own::Run);
    lifecycle::run(cluster, plan, observer, load_report)
        .await
        .result
}

/// Whose load a plan is: a run of its own (`ingest`: its report told as the load ends, its
/// HTML page written), or a part of a study (a sweep's cell, a saturate step), which says
/// and draws its loads itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Own {
    Run,
    Part,
}

/// One load on a cluster already reached, kept as a run of its own (a sweep's cell, a
/// saturate step, a calibration run): the plan of [`ingest`], on `connected`, without its
/// HTML page. Returns the report, and the id of the run it is stored as.
pub async fn stored_load(
    connected: &Connected,
    job: Job,
    cluster: &ClusterSpec,
    load_spec: LoadSpec,
    attach: &Attach,
    observer: &dyn Observer,
) -> (Result<IngestReport, SessionError>, Option<String>) {
    let identity = load_identity(Kind::Ingest, &job, cluster, &load_spec, attach);
    let scope = Scope {
        report: false,
        ..Scope::EVERY
    };
    let kit = attach.kit(&identity, scope, observer);
    let id = kit.run_id().map(str::to_string);
    let plan = load_plan(identity, job, load_spec, kit, Own::Part);
    let ran = lifecycle::run_on(connected, plan, observer, load_report).await;
    (ran.result, id)
}

/// The plan of one stored load: its step with what the run attaches; a run of its own tells
/// its report as the load ends.
fn load_plan<'p>(
    identity: Identity,
    job: Job,
    load_spec: LoadSpec,
    kit: Kit<'p>,
    own: Own,
) -> lifecycle::Plan<'p> {
    let mut load = LoadPhase::new(job, load_spec);
    load.tell = own == Own::Run;
    lifecycle::Plan::new(identity, vec![load_step(load, None)]).attach(kit)
}

/// The step of a load: the load alone, or with the searches during it when its spec asks
/// for them (`--search-clients`), in one step and linked (they start on its first
/// acknowledged documents and stop when it ends). `cancel`: the searches are not wanted once
/// it fired, nor the load (a scenario's load, skipped on Ctrl-C).
pub fn load_step<'p>(mut load: LoadPhase, cancel: Option<Cancel>) -> lifecycle::Step<'p> {
    load.unless.clone_from(&cancel);
    let Some((job, spec)) = &mut load.work else {
        return lifecycle::Step::One(Box::new(load));
    };
    let Some(beside) = spec.beside.take() else {
        return lifecycle::Step::One(Box::new(load));
    };
    let (load_side, search_side) = super::beside::link();
    let searches = super::beside::SearchesPhase {
        spec: beside,
        index: job.index.clone(),
        cancel: spec.cancel.clone().unwrap_or_else(Cancel::never),
        unless: cancel,
        side: Some(search_side),
        searched: None,
    };
    load.link = Some(load_side);
    // The load first: the step is watched as the load.
    lifecycle::Step::Together(vec![Box::new(load), Box::new(searches)])
}

/// The report the load handed on, taken from the run's outcome: a command's result.
pub fn load_report(outcome: &mut lifecycle::Outcome) -> Result<IngestReport, SessionError> {
    outcome
        .take(&LOADED)
        .ok_or_else(|| SessionError::Other("the load phase handed on no report".into()))
}

/// The phase a load's telemetry and timeline are kept under.
pub const LOAD: &str = crate::store::LOAD;

/// What the load hands on: its report.
pub const LOADED: lifecycle::Hand<IngestReport> = lifecycle::Hand::new(LOAD);

/// The bulk load as a phase of the run's lifecycle: [`load`] into the stage's cluster, its
/// rows streamed to the run's sinks. Its typed report is what it hands on (see
/// [`load_report`]), with the telemetry summary of the phase when the run samples and what
/// the searches during it measured; its measurements are what the report's figures are
/// derived from (`ingest::figures`).
pub struct LoadPhase {
    /// What to load and how; taken when the phase runs (a phase runs once).
    pub work: Option<(Job, LoadSpec)>,
    /// Tell the observer the report as soon as the phase ends ([`Event::Ingested`]).
    pub tell: bool,
    /// The load's report, from its end until it is handed on.
    report: Option<IngestReport>,
    /// When the load's second 0 was (its first progress report).
    pub started: Option<std::time::Instant>,
    /// The searches during the load, when it has them (see [`load_step`]).
    pub link: Option<super::beside::LoadSide>,
    /// Not wanted once this fired (a scenario's load after Ctrl-C).
    pub unless: Option<Cancel>,
}

impl LoadPhase {
    /// The load of `job` as `spec` says.
    pub fn new(job: Job, spec: LoadSpec) -> Self {
        LoadPhase {
            work: Some((job, spec)),
            tell: false,
            report: None,
            started: None,
            link: None,
            unless: None,
        }
    }
}

impl lifecycle::Phase for LoadPhase {
    fn name(&self) -> String {
        LOAD.into()
    }

    fn wanted(&self, _: &lifecycle::Outcome) -> bool {
        !self.unless.as_ref().is_some_and(Cancel::is_cancelled)
    }

    fn run<'a>(
        &'a mut self,
        stage: &'a lifecycle::Stage<'a>,
    ) -> lifecycle::Work<'a, Result<lifecycle::Measurements, SessionError>> {
        Box::pin(async move {
            let (job, spec) = self
                .work
                .take()
                .ok_or_else(|| SessionError::Other("the load phase ran twice".into()))?;
            let pids = stage.engine_pids.to_vec();
            let watched = Watched {
                keep: Some(&stage.feed),
                // Where the load's second 0 lies on the run's clock, for its telemetry.
                started: true,
                link: self.link.take(),
            };
            let (mut report, started) =
                load_watched(stage.target, job, spec, pids, watched, stage.observer).await?;
            report.rtt = stage.rtt;
            report.warm_up = stage.warmed.cloned();
            self.started = started;
            stage.measured_from.set(report.measured_from);
            let measurements = report.measurements.clone();
            self.report = Some(report);
            Ok(measurements)
        })
    }

    fn ended(
        &mut self,
        stage: &lifecycle::Stage<'_>,
        end: &mut lifecycle::StepEnd,
    ) -> Option<lifecycle::Report> {
        let mut report = self.report.take()?;
        // The searches ran in the same step: they have ended, and handed on what they saw.
        report.searches_beside = end.report(&super::beside::SEARCHES);
        let watched = &mut end.watched;
        if let Some(sampled) = watched.take(&TELEMETRY) {
            // Where the load's second 0 lies on the run's telemetry clock.
            let offset = self
                .started
                .map(|t| t.saturating_duration_since(stage.started));
            report.telemetry = Some(sampled.summary(offset));
        }
        if let Some(p) = watched.take(&PROFILE) {
            report.profile = Some(p);
        }
        if self.tell {
            stage.observer.event(Event::Ingested(&report));
        }
        Some(LOADED.report(report))
    }
}

/// Refuses, before anything starts, what a load into `index` could not do: a bad index name,
/// a failure file that cannot be made.
pub(super) fn preflight(index: &str, spec: &LoadSpec) -> Result<(), SessionError> {
    ingest::index::check_name(index).map_err(|e| SessionError::usage(e.to_string()))?;
    ingest::failures::check_path(&failures_path(index, spec)).map_err(SessionError::usage)
}

/// `name` (an index's, a target's) as a file name: a `/`, `\\` or NUL, or a name of dots
/// alone, would lead the file out of the working folder (index names hold none, but a track
/// from elsewhere may name anything).
pub fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '\0') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if safe.is_empty() || safe.chars().all(|c| c == '.') {
        format!("_{safe}")
    } else {
        safe
    }
}

/// Loads `job` into the cluster `connected` reached, unstored (a study's own warm-up load):
/// [`load`], with the delay in front of the cluster and the node's warm-up in its report.
pub async fn load_on(
    connected: &Connected,
    job: Job,
    spec: LoadSpec,
    observer: &dyn Observer,
) -> Result<IngestReport, SessionError> {
    let pids = connected.engine_pids.clone();
    let mut report = load(&connected.target, job, spec, pids, None, observer).await?;
    report.rtt = connected.delay.as_ref().map(|(rtt, _)| *rtt);
    report.warm_up.clone_from(&connected.warmed);
    Ok(report)
}

/// Makes the run's own load for the warm-up: its workload, `docs` documents, into `index`.
pub type MakeLoad = dyn Fn(&str, u64) -> Result<(Job, LoadSpec), SessionError> + Send + Sync;

impl WarmSpec {
    /// A warm-up whose slices are the run's own load, made by `make` ([`slice_load`] of the
    /// run's load, its first `docs` documents), bounded by [`super::warm::WARM_MAX`].
    pub fn new(
        make: impl Fn(&str, u64) -> Result<(Job, LoadSpec), SessionError> + Send + Sync + 'static,
    ) -> Self {
        let make: Arc<MakeLoad> = Arc::new(make);
        WarmSpec::of_slices(Arc::new(
            move |target: &Target, index: &str, docs: u64, cut: Cancel| {
                let make = make.clone();
                let index = index.to_string();
                Box::pin(async move {
                    let (job, mut load) = make(&index, docs)?;
                    let job = super::warm::first(job, docs);
                    let cancel = load.cancel.clone();
                    // The load stops on the user's Ctrl-C or when the warm-up's time is spent.
                    let (stop, either) = Cancel::new();
                    load.cancel = Some(either);
                    let user = cancel.clone();
                    let cut_seen = cut.clone();
                    let forward = tokio::spawn(async move {
                        let by_user = async {
                            match &user {
                                Some(user) => user.cancelled().await,
                                None => std::future::pending().await,
                            }
                        };
                        tokio::select! {
                            () = by_user => {}
                            () = cut_seen.cancelled() => {}
                        }
                        let _ = stop.send(true);
                    });
                    let report = load_alone(target, job, load).await;
                    forward.abort();
                    let report = report?;
                    if let Some(e) = &report.error {
                        return Err(SessionError::Other(format!("warming the node: {e}")));
                    }
                    // The load's own rate (no warm-up window: every acknowledged document over
                    // the load), not over the wall time: a slice's index set-up and count would
                    // make small slices look slow and the next, larger ones look like a rise.
                    let rate = if report.docs_per_sec.is_finite() && report.docs_per_sec > 0.0 {
                        report.docs_per_sec
                    } else if report.wall_secs > 0.0 {
                        report.counts.indexed as f64 / report.wall_secs
                    } else {
                        0.0
                    };
                    Ok(super::warm::Sliced {
                        indexed: report.counts.indexed,
                        docs_per_sec: rate,
                        interrupted: cancel.as_ref().is_some_and(Cancel::is_cancelled)
                            || (report.interrupted && !cut.is_cancelled()),
                        cut: cut.is_cancelled(),
                    })
                })
            },
        ))
    }
}

/// A load no one watches (a warm-up slice): nothing streamed, nothing told.
async fn load_alone(
    target: &Target,
    job: Job,
    load: LoadSpec,
) -> Result<IngestReport, SessionError> {
    self::load(target, job, load, Vec::new(), None, &super::Silent).await
}

/// The load a warm-up slice makes of the run's `load`: into `index` (replaced: a fresh
/// index per slice, as the measured load has), no warm-up window of its own (its whole rate
/// is what is judged), nothing beside it, no progress, no failure limit, its failure file
/// (if any) in the temporary folder.
pub fn slice_load(load: &LoadSpec, index: &str) -> LoadSpec {
    let mut slice = load.clone();
    slice.driver.index = index.to_string();
    slice.driver.warmup = std::time::Duration::ZERO;
    slice.replace = true;
    slice.append = false;
    slice.max_failures = None;
    slice.progress = false;
    slice.beside = None;
    // A slice is judged by its rate alone: no wait for its last documents.
    slice.freshness = None;
    slice.failures = Some(super::warm::failures_file());
    slice
}

/// Where the documents the target did not take go: `--failures`, or `<index>-failures.ndjson`.
fn failures_path(index: &str, spec: &LoadSpec) -> PathBuf {
    // Parts of one run started in one folder must not write one file.
    let part = &spec.driver.part;
    let index = file_safe(index);
    spec.failures
        .clone()
        .unwrap_or_else(|| match part.is_whole() {
            true => PathBuf::from(format!("{index}-failures.ndjson")),
            false => PathBuf::from(format!(
                "{index}-part{}of{}-failures.ndjson",
                part.index, part.of
            )),
        })
}

/// Loads `job` into `target`, streaming the timeline into `keep` as it goes. Nothing is
/// sampled here: the telemetry of a stored load is its run's instrument ([`LoadPhase`]).
pub async fn load(
    target: &Target,
    job: Job,
    spec: LoadSpec,
    engine_pids: Vec<u32>,
    keep: Option<&dyn Keep>,
    observer: &dyn Observer,
) -> Result<IngestReport, SessionError> {
    let watched = Watched {
        keep,
        started: false,
        link: None,
    };
    let (report, _) = load_watched(target, job, spec, engine_pids, watched, observer).await?;
    Ok(report)
}

/// Ends the searches during a load: when the load ends, and when it is dropped (a load that
/// returned early), so that they never outlive it.
struct EndSearches(Option<tokio::sync::watch::Sender<bool>>);

impl EndSearches {
    fn end(&self) {
        if let Some(end) = &self.0 {
            let _ = end.send(true);
        }
    }
}

impl Drop for EndSearches {
    fn drop(&mut self) {
        self.end();
    }
}

/// Who watches a load from outside.
struct Watched<'k> {
    /// Where its rows go as it runs.
    keep: Option<&'k dyn Keep>,
    /// Note when its second 0 was (an instrument samples around it).
    started: bool,
    /// The searches during the load, told its progress and its end.
    link: Option<super::beside::LoadSide>,
}

/// [`load`], and when the load's second 0 was, when it was watched for.
async fn load_watched(
    target: &Target,
    job: Job,
    spec: LoadSpec,
    engine_pids: Vec<u32>,
    watched: Watched<'_>,
    observer: &dyn Observer,
) -> Result<(IngestReport, Option<std::time::Instant>), SessionError> {
    let keep = watched.keep;
    preflight(&job.index, &spec)?;
    let failures = failures_path(&job.index, &spec);
    let put = super::setup::put(target, &job.index, &spec.extras).await?;
    let mut driver = spec.driver;
    // The pipeline this load put, else the one it was given (a track's bulk names its own).
    driver.pipeline = put.pipeline.clone().or(driver.pipeline);
    let watch_start = watched.started;
    let plan = Plan {
        failures,
        driver,
        index_body: job.index_body,
        portable_body: job.portable_body,
        replace: spec.replace,
        append: spec.append,
        load_settings: spec.load_settings,
        engine_pids,
        freshness: spec.freshness,
    };
    let corpus = job.source.describe();
    observer.event(Event::Loading {
        corpus: &corpus,
        index: &job.index,
        url: target.url().as_str(),
        clients: plan.driver.clients,
        bulk_docs: plan.driver.bulk_docs,
        gzip: plan.driver.gzip,
    });
    // Closed seconds go to the store while the load runs: a run killed halfway keeps them.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<crate::measure::TimelineRow>>();
    let stream_in = async {
        while let Some(seconds) = rx.recv().await {
            if let Some(k) = keep {
                k.timeline(&seconds);
            }
        }
    };
    let (progress_tx, searches_end) = match watched.link {
        Some(side) => (side.progress, EndSearches(Some(side.ended))),
        None => (
            tokio::sync::watch::Sender::new(Progress::default()),
            EndSearches(None),
        ),
    };
    let mut progress_rx = progress_tx.subscribe();
    // The first progress report marks the load's second 0: where the throughput timeline
    // starts on the run's telemetry clock.
    let load_started = std::cell::Cell::new(None::<std::time::Instant>);
    let tell_progress = async {
        if !spec.progress && !watch_start {
            return;
        }
        while progress_rx.changed().await.is_ok() {
            if load_started.get().is_none() {
                load_started.set(Some(std::time::Instant::now()));
            }
            let p = *progress_rx.borrow_and_update();
            if spec.progress {
                observer.event(Event::Progress(p));
            }
            if p.done {
                break;
            }
        }
    };
    let controls = Controls {
        progress: (spec.progress || watch_start || searches_end.0.is_some()).then_some(progress_tx),
        cancel: spec.cancel.clone(),
        seconds: keep.map(|_| tx),
        acked: None,
    };
    let loading = async {
        let report = ingest::ingest_streaming(target, job.source, plan, controls).await;
        searches_end.end();
        report
    };
    let (report, (), ()) = tokio::join!(loading, stream_in, tell_progress);
    let removed = super::setup::remove(target, put).await;
    let mut report = report?;
    report.warnings.extend(removed);
    report.failure_limit = spec
        .max_failures
        .map(|max| ingest::FailureLimit::check(max, &report.counts));
    if let Some(k) = keep {
        k.histograms(&report.histograms);
    }
    Ok((report, load_started.get()))
}

#[cfg(test)]
mod secret_tests {
    use super::unless_secret;

    #[test]
    fn settings_that_name_a_secret_are_not_stored() {
        assert_eq!(
            unless_secret("xpack.security.http.ssl.keystore.secure_password", "pw"),
            "<redacted>"
        );
        assert_eq!(unless_secret("-Dmy.API_TOKEN", "t0k"), "<redacted>");
        assert_eq!(unless_secret("-Dsvc.api_key", "XYZ"), "<redacted>");
        assert_eq!(unless_secret("-Dproxy.auth", "u:p"), "<redacted>");
        assert_eq!(
            unless_secret("indices.memory.index_buffer_size", "20%"),
            "20%"
        );
    }
}
