//! `searchbench saturate`: the highest ingest rate a cluster sustains within a latency and an
//! error-rate limit. Open-loop steps (`--rate`) double the offered rate until one fails (p99
//! latency from the due time over the limit, too many failed documents, or achieved short of
//! offered), then bisect between the last good and the first bad rate until they are within
//! the precision asked. Each step is a stored run tagged `saturate=<id>`, on a fresh index,
//! over one connection to the cluster (an engine we start is started once).

use super::attach::Attach;
use super::ingest::{stored_load, LoadSpec};
use super::{ClusterSpec, Event, Job, Observer, SessionError};
pub use crate::analysis::saturate::{SaturateResult, Step};
use crate::ingest::pace::{Limit, KEPT_UP};
use crate::ingest::IngestReport;
use crate::workload::WorkloadSpec;

/// What to search for and how.
#[derive(Debug, Clone)]
pub struct SaturateSpec {
    pub workload: String,
    /// The corpus of each step (its `docs` is set per step: rate × step length).
    pub corpus: WorkloadSpec,
    pub index: Option<String>,
    /// A step fails when its p99 latency (from the due time) is above this, ms.
    pub p99_ms: f64,
    /// A step fails when more than this share of its documents failed (0.001 = 0.1 %).
    pub max_error_rate: f64,
    /// The first offered rate, documents per second.
    pub start_rate: f64,
    pub step_secs: f64,
    /// Stop bisecting when the bad rate is within this share above the good one.
    pub precision: f64,
    pub max_steps: usize,
    /// Each step lasts long enough for this many bulk requests (a p99 needs 100).
    pub min_requests: usize,
}

/// The next rate to try after the steps so far, or `None` when the search is done.
pub fn next_rate(good: Option<f64>, bad: Option<f64>, start: f64, precision: f64) -> Option<f64> {
    match (good, bad) {
        (None, None) => Some(start),
        (Some(g), None) => Some(g * 2.0),
        // Nothing sustained yet: halve, down to a thousandth of the start.
        (None, Some(b)) => (b / 2.0 >= start / 1024.0).then_some(b / 2.0),
        (Some(g), Some(b)) => ((b - g) / g > precision).then_some((g + b) / 2.0),
    }
}

/// Judges one step against the limits.
pub fn judge(report: &IngestReport, spec: &SaturateSpec) -> Step {
    let rate = report.rate.as_ref();
    let latency = rate.map(|r| &r.latency);
    let (p99, p99_is_max) = match latency {
        Some(l) if l.p99_ms.is_some() => (l.p99_ms, false),
        Some(l) => (l.max_ms, true),
        None => (None, false),
    };
    let offered = rate.map_or(0.0, |r| r.offered_docs_per_sec);
    let achieved = rate.and_then(|r| r.achieved_docs_per_sec);
    let error_rate = report.counts.failed as f64 / report.counts.read.max(1) as f64;
    let mut why = Vec::new();
    if let Some(e) = &report.error {
        why.push(format!("the load stopped: {e}"));
    }
    if let Some(p) = p99.filter(|p| *p > spec.p99_ms) {
        let what = if p99_is_max { "max" } else { "p99" };
        why.push(format!("{what} latency {p:.0} ms > {:.0} ms", spec.p99_ms));
    }
    if error_rate > spec.max_error_rate {
        why.push(format!(
            "{:.3}% of documents failed > {:.3}%",
            error_rate * 100.0,
            spec.max_error_rate * 100.0
        ));
    }
    if let Some(a) = achieved.filter(|a| *a < KEPT_UP * offered) {
        why.push(format!(
            "achieved {a:.0} docs/s < {:.0}% of offered",
            KEPT_UP * 100.0
        ));
    }
    Step {
        offered_docs_per_sec: offered,
        achieved_docs_per_sec: achieved,
        p50_ms: latency.and_then(|l| l.p50_ms),
        p99_ms: p99,
        p99_is_max,
        requests: rate.map_or(0, |r| r.requests),
        error_rate,
        limit: rate.map_or(Limit::None, |r| r.limit),
        sustained: why.is_empty(),
        why: (!why.is_empty()).then(|| why.join("; ")),
        run_id: None,
    }
}

fn now_unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A short id for the search's tag: seconds and process, in hex.
fn search_id() -> String {
    format!("{:x}{:x}", now_unix_secs(), std::process::id() & 0xfff)
}

/// Runs the search on one connection to the cluster.
pub async fn saturate(
    spec: &SaturateSpec,
    cluster: &ClusterSpec,
    load: LoadSpec,
    attach: &Attach,
    observer: &dyn Observer,
) -> Result<SaturateResult, SessionError> {
    if !(spec.p99_ms.is_finite() && spec.p99_ms > 0.0) {
        return Err(SessionError::usage("--p99 must be a positive duration"));
    }
    if !(spec.start_rate.is_finite() && spec.start_rate > 0.0) {
        return Err(SessionError::usage(
            "--start-rate must be a positive number",
        ));
    }
    if !(spec.step_secs.is_finite() && spec.step_secs > 0.0) {
        return Err(SessionError::usage("--step-seconds must be positive"));
    }
    // The index name and the workload are checked once, before anything starts.
    let probe = make_job(spec, 1.0, load.driver.bulk_docs)?;
    super::ingest::preflight(&probe.index, &load)?;
    drop(probe);
    let id = search_id();
    let mut attach = attach.clone();
    attach.save.tags.push(("saturate".into(), id.clone()));
    let cancel = load.cancel.clone();
    let result = super::lifecycle::with_cluster(cluster, observer, async |connected| {
        let mut result = SaturateResult {
            id,
            started_unix: now_unix_secs(),
            workload: spec.workload.clone(),
            p99_limit_ms: spec.p99_ms,
            max_error_rate: spec.max_error_rate,
            step_secs: spec.step_secs,
            clients: load.driver.clients,
            bulk_size: load.driver.bulk_docs,
            rtt_ms: cluster.rtt.map(|r| r.rtt_ms),
            max_sustainable_docs_per_sec: None,
            first_failing_docs_per_sec: None,
            steps: Vec::new(),
            driver_limited: false,
            warnings: Vec::new(),
            interrupted: false,
        };
        let outcome = async {
            // A cold JVM's first seconds (class loading, JIT) would fail any latency limit and
            // send the search down; one unjudged, unstored step warms it first.
            let warm = make_job(spec, spec.start_rate, load.driver.bulk_docs)?;
            observer.event(Event::Stage(format!(
                "saturate: warming the engine with one unjudged step of {} docs at {:.0} docs/s",
                step_docs(spec, spec.start_rate, load.driver.bulk_docs),
                spec.start_rate
            )));
            let mut warm_load = load.clone();
            warm_load.driver.rate = Some(spec.start_rate);
            warm_load.driver.index = warm.index.clone();
            warm_load.replace = true;
            warm_load.max_failures = None;
            let warmed = super::ingest::load_on(connected, warm, warm_load, observer).await?;
            if warmed.interrupted || cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
                result.interrupted = true;
                return Ok(());
            }
            let (mut good, mut bad) = (None::<f64>, None::<f64>);
            while result.steps.len() < spec.max_steps {
                let Some(rate) = next_rate(good, bad, spec.start_rate, spec.precision) else {
                    break;
                };
                let job = make_job(spec, rate, load.driver.bulk_docs)?;
                observer.event(Event::Stage(format!(
                    "saturate step {}: offering {rate:.0} docs/s for {:.0} s",
                    result.steps.len() + 1,
                    step_docs(spec, rate, load.driver.bulk_docs) as f64 / rate
                )));
                let mut step_load = load.clone();
                step_load.driver.rate = Some(rate);
                step_load.driver.index = job.index.clone();
                step_load.replace = true;
                step_load.max_failures = None;
                let (report, run_id) =
                    stored_load(connected, job, cluster, step_load, &attach, observer).await;
                let report = report?;
                if report.interrupted || cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
                    result.interrupted = true;
                    break;
                }
                let mut step = judge(&report, spec);
                step.run_id = run_id;
                if step.sustained {
                    good = Some(good.map_or(rate, |g: f64| g.max(rate)));
                } else {
                    bad = Some(bad.map_or(rate, |b: f64| b.min(rate)));
                    if step.limit == Limit::Driver {
                        result.driver_limited = true;
                    }
                }
                result.steps.push(step);
            }
            result.max_sustainable_docs_per_sec = good;
            result.first_failing_docs_per_sec = bad;
            Ok::<_, SessionError>(())
        }
        .await;
        outcome?;
        Ok::<_, SessionError>(result)
    })
    .await?;
    let mut result = result;
    if result.driver_limited {
        result.warnings.push(
            "the driver, not the cluster, limited at least one failing step (see its warnings): the figure is a floor of what the cluster sustains"
                .into(),
        );
    }
    if result.steps.len() >= spec.max_steps
        && next_rate(
            result.max_sustainable_docs_per_sec,
            result.first_failing_docs_per_sec,
            spec.start_rate,
            spec.precision,
        )
        .is_some()
    {
        result.warnings.push(format!(
            "stopped after --max-steps {} before the search closed in",
            spec.max_steps
        ));
    }
    Ok(result)
}

/// Documents of one step: `rate × step`, and at least `min_requests` requests' worth (two at
/// least).
fn step_docs(spec: &SaturateSpec, rate: f64, bulk: usize) -> u64 {
    let docs = (rate * spec.step_secs).ceil() as u64;
    docs.max(spec.min_requests.max(2) as u64 * bulk as u64)
}

/// The job of one step (see [`step_docs`]).
fn make_job(spec: &SaturateSpec, rate: f64, bulk: usize) -> Result<Job, SessionError> {
    let mut corpus = spec.corpus.clone();
    corpus.docs = Some(step_docs(spec, rate, bulk));
    Job::generated(&spec.workload, &corpus, spec.index.clone(), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_lasts_long_enough_for_its_p99() {
        let spec = SaturateSpec {
            workload: "logs".into(),
            corpus: WorkloadSpec::new(1),
            index: None,
            p99_ms: 500.0,
            max_error_rate: 0.001,
            start_rate: 2000.0,
            step_secs: 10.0,
            precision: 0.05,
            max_steps: 16,
            min_requests: 100,
        };
        // 2,000 docs/s at bulk 1000 for 10 s is 20 requests: lengthened to 100 (50 s).
        assert_eq!(step_docs(&spec, 2000.0, 1000), 100_000);
        // 32,000 docs/s for 10 s is 320 requests already.
        assert_eq!(step_docs(&spec, 32_000.0, 1000), 320_000);
        let few = SaturateSpec {
            min_requests: 1,
            ..spec
        };
        assert_eq!(step_docs(&few, 10.0, 1000), 2000, "two requests at least");
    }

    #[test]
    fn the_search_doubles_then_bisects_to_the_precision() {
        assert_eq!(next_rate(None, None, 1000.0, 0.05), Some(1000.0));
        assert_eq!(next_rate(Some(1000.0), None, 1000.0, 0.05), Some(2000.0));
        assert_eq!(
            next_rate(Some(4000.0), Some(8000.0), 1000.0, 0.05),
            Some(6000.0)
        );
        assert_eq!(next_rate(Some(6000.0), Some(6200.0), 1000.0, 0.05), None);
        assert_eq!(next_rate(None, Some(1000.0), 1000.0, 0.05), Some(500.0));
        assert_eq!(next_rate(None, Some(0.5), 1000.0, 0.05), None);
        // A cluster of capacity 5300: the search ends within 5 % below it.
        let capacity = 5300.0;
        let (mut good, mut bad) = (None, None);
        while let Some(r) = next_rate(good, bad, 1000.0, 0.05) {
            if r <= capacity {
                good = Some(r);
            } else {
                bad = Some(r);
            }
        }
        let g = good.unwrap();
        assert!(g <= capacity && g >= 0.95 * capacity, "{g}");
    }
}
