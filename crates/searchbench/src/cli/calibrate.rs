//! `searchbench calibrate WORKLOAD`: one ingest configuration run N times on one target, to
//! measure the run-to-run noise and say how many runs a side a comparison needs.

use clap::Args;
use serde::Serialize;

use super::generate::GeneratorArgs;
use super::ingest::{begin_recording, connect, load, save_outcome, stop, ClusterArgs, Job, Tuning};
use super::{output, CliError, CliResult};
use crate::engine::Node;
use crate::report::stats::{cv_pct, mean, min_detectable_for};
use crate::store::Kind;

#[derive(Debug, Args)]
#[command(
    long_about = "Run one ingest configuration several times on one target and measure the \
        noise: each run's headline docs/s (documents acknowledged after the warm-up ÷ the \
        steady window), their mean, standard deviation and coefficient of variation (CV), \
        and the smallest change a comparison of k runs a side could detect (k = 2..5; 95 % \
        confidence, 80 % power, Welch's t with 2(k-1) degrees of freedom): \
        (t_0.975 + t_0.80) × CV × sqrt(2/k).\n\n\
        Every run is kept in the results store like an ingest (use --tag to group them).",
    after_help = "Examples:\n  \
        searchbench calibrate logs --docs 100000 --runs 6\n  \
        searchbench calibrate logs --docs 50000 --runs 5 --url http://127.0.0.1:9200 --tag cal=1"
)]
pub struct CalibrateArgs {
    /// Built-in workload whose generator to use: logs, cluster-metrics, transactions.
    pub workload: String,
    /// Documents per run.
    #[arg(long, default_value_t = 100_000)]
    pub docs: u64,
    /// Runs of the configuration (2 at least).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub runs: u64,
    /// Generator seed (the same documents every run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub tuning: Tuning,
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
}

impl Calibration {
    fn new(workload: &str, docs: u64, values: Vec<f64>, run_ids: Vec<String>) -> Calibration {
        let cv = cv_pct(&values).unwrap_or(0.0);
        Calibration {
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

pub async fn run(a: CalibrateArgs) -> CliResult {
    let spec = a.generator.spec(a.seed, Some(a.docs), false);
    // Resolve the workload before anything starts (a bad name is bad usage).
    Job::generated(&a.workload, &spec, a.index.clone())?;
    let (target, node) = connect(&a.cluster).await?;
    let engine_pid = node.as_ref().map(Node::pid).or(a.cluster.engine_pid);
    let measured = async {
        let mut values = Vec::new();
        let mut ids = Vec::new();
        for i in 1..=a.runs {
            let job = Job::generated(&a.workload, &spec, a.index.clone())?;
            let recording = begin_recording(Kind::Ingest, &job, &a.cluster, &a.tuning);
            let id = recording.as_ref().map(|r| r.id().0.clone());
            let outcome = load(&target, job, &a.tuning, engine_pid, recording.as_ref()).await;
            let report = save_outcome(recording, outcome, false)?;
            super::ingest::verdict(&report)?;
            eprintln!(
                "run {i}/{}: {:.0} docs/s ({})",
                a.runs, report.docs_per_sec, report.headline.definition
            );
            values.push(report.docs_per_sec);
            ids.extend(id);
        }
        Ok::<_, CliError>((values, ids))
    }
    .await;
    stop(node).await;
    let (values, ids) = measured?;
    let c = Calibration::new(&a.workload, a.docs, values, ids);
    if let Some(path) = &a.tuning.json {
        super::ingest::write_json(&c, &a.tuning)?;
        if path.as_os_str() == "-" {
            return Ok(());
        }
    }
    print(&c);
    Ok(())
}

fn print(c: &Calibration) {
    let mut t = output::table(["run", "headline docs/s"]);
    for (i, v) in c.docs_per_sec.iter().enumerate() {
        t.add_row([(i + 1).to_string(), format!("{v:.0}")]);
    }
    println!("{t}");
    println!(
        "{} runs of {} ({} docs): mean {:.0} docs/s, run-to-run CV {:.1} %",
        c.docs_per_sec.len(),
        c.workload,
        c.docs,
        c.mean,
        c.cv_pct
    );
    let mut t = output::table(["runs a side", "smallest detectable change"]);
    for (k, d) in &c.detectable_pct {
        t.add_row([k.to_string(), format!("±{d:.1} %")]);
    }
    println!("{t}");
    println!("(95 % confidence, 80 % power, Welch's t; a smaller change comes out \"no significant change\")");
}
