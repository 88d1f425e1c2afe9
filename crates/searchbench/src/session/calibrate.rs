//! `searchbench calibrate`: one ingest configuration run N times on one target, to measure
//! the run-to-run noise and the smallest change k runs a side can detect.

use serde::Serialize;

use super::attach::Attach;
use super::ingest::{stored_load, LoadSpec};
use super::{ClusterSpec, Job, Observer, SessionError};
use crate::analysis::compare::DEFAULT_THRESHOLD_PCT;
use crate::analysis::statistics::{
    cv_pct, mean, min_detectable_for, paired_min_detectable_for, rounds_needed,
    successive_spread_pct,
};
use crate::ingest::IngestReport;
use crate::workload::WorkloadSpec;

/// What to calibrate.
#[derive(Debug, Clone)]
pub struct CalibrateSpec {
    pub workload: String,
    pub workload_spec: WorkloadSpec,
    pub index: Option<String>,
    /// Runs of the configuration (2 at least).
    pub runs: u64,
    /// Runs made first and thrown away: a fresh node's JVM warms up across runs as well as
    /// within one (its first run can be a third of the others).
    pub warmup_runs: u64,
}

/// What calibrate found.
#[derive(Debug, Serialize)]
pub struct Calibration {
    pub workload: String,
    pub docs: u64,
    /// Headline docs/s of each run, in order.
    pub docs_per_sec: Vec<f64>,
    /// Stored run ids (when saved).
    pub run_ids: Vec<String>,
    pub mean: f64,
    pub cv_pct: f64,
    /// (k, smallest detectable change in percent) for k runs a side.
    pub detectable_pct: Vec<(usize, f64)>,
    /// The spread of the ratio of two back-to-back runs (successive differences, see
    /// `statistics::successive_spread_pct`): what a round of a paired comparison would see.
    pub round_spread_pct: Option<f64>,
    /// (k, smallest detectable change in percent) for k paired rounds.
    pub detectable_paired_pct: Vec<(usize, f64)>,
    /// Rounds that would see a change of `compare`'s default threshold, paired.
    pub rounds_needed: Option<usize>,
    /// The machine's level moved during the calibration: the runs' CV is well beyond what
    /// back-to-back runs differ by (pair the runs: `--round`, `ab`, a matrix).
    pub drifted: bool,
}

/// How much wider than back-to-back runs' differences (√2 × CV against the successive
/// spread) the runs must be for a calibration to say the machine drifted.
const DRIFT_FACTOR: f64 = 1.5;

impl Calibration {
    pub fn new(workload: &str, docs: u64, values: Vec<f64>, run_ids: Vec<String>) -> Calibration {
        let cv = cv_pct(&values).unwrap_or(0.0);
        let round_spread = successive_spread_pct(&values);
        Calibration {
            round_spread_pct: round_spread,
            detectable_paired_pct: round_spread
                .map(|s| {
                    [3, 4, 5, 10]
                        .into_iter()
                        .filter_map(|k| Some((k, paired_min_detectable_for(s, k)?)))
                        .collect()
                })
                .unwrap_or_default(),
            rounds_needed: round_spread.and_then(|s| rounds_needed(s, DEFAULT_THRESHOLD_PCT)),
            drifted: round_spread.is_some_and(|s| cv * 2f64.sqrt() > DRIFT_FACTOR * s),
            workload: workload.to_string(),
            docs,
            mean: mean(&values).unwrap_or(0.0),
            cv_pct: cv,
            detectable_pct: (2..=5)
                .filter_map(|k| Some((k, min_detectable_for(cv, k)?)))
                .collect(),
            docs_per_sec: values,
            run_ids,
        }
    }
}

/// Runs the configuration `spec.warmup_runs` times unmeasured, then `spec.runs` times on one
/// cluster, each measured run stored like an ingest; `each` hears every measured run's report
/// (1-based) and may stop the calibration with its error.
pub async fn calibrate<E: From<SessionError>>(
    spec: &CalibrateSpec,
    cluster: &ClusterSpec,
    load_spec: LoadSpec,
    attach: &Attach,
    observer: &dyn Observer,
    mut each: impl FnMut(u64, &IngestReport) -> Result<(), E>,
) -> Result<Calibration, E> {
    let measured = super::lifecycle::with_cluster(cluster, observer, async |connected| {
        for _ in 0..spec.warmup_runs {
            let job = Job::generated(&spec.workload, &spec.workload_spec, spec.index.clone(), &[])?;
            let report =
                super::ingest::load_on(connected, job, load_spec.clone(), observer).await?;
            // A warm-up that did not finish cleanly calibrates nothing: say why, measure nothing.
            if report.interrupted {
                return Err(SessionError::Interrupted("during the warm-up run".into()).into());
            }
            if let Some(error) = &report.error {
                return Err(SessionError::Other(format!("the warm-up run failed: {error}")).into());
            }
        }
        let mut values = Vec::new();
        let mut ids = Vec::new();
        for i in 1..=spec.runs {
            let job = Job::generated(&spec.workload, &spec.workload_spec, spec.index.clone(), &[])?;
            let (outcome, id) =
                stored_load(connected, job, cluster, load_spec.clone(), attach, observer).await;
            let report = outcome?;
            each(i, &report)?;
            values.push(report.docs_per_sec);
            ids.extend(id);
        }
        Ok::<_, E>((values, ids))
    })
    .await;
    let (values, ids) = measured?;
    let docs = spec.workload_spec.docs.unwrap_or(0);
    Ok(Calibration::new(&spec.workload, docs, values, ids))
}
