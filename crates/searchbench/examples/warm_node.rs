//! What warming a fresh node buys and costs (issue 76): on each of NODES fresh nodes, the
//! node is reached as `run` reaches it (started, then warmed unless `cold`), then three loads
//! of DOCS logs documents, each into a fresh index. Prints one JSON line per node: the warm-up
//! (its seconds and slices), the three loads' headline docs/s and the first against the third.
//!
//! `cargo run --release -p searchbench --example warm_node -- warm|cold [DOCS] [NODES] [ENGINE]`
//! (or `bench/warm-node.sh`, which runs both and takes the medians).

use std::time::Instant;

use searchbench::engine::StartOptions;
use searchbench::session::ingest::slice_load;
use searchbench::session::ingest::LoadSpec;
use searchbench::session::warm::WarmSpec;
use searchbench::session::{ClusterSpec, Job, Silent};
use searchbench::workload::WorkloadSpec;

fn logs(docs: u64, index: &str) -> Result<Job, searchbench::session::SessionError> {
    let mut spec = WorkloadSpec::new(1);
    spec.docs = Some(docs);
    Job::generated("logs", &spec, Some(index.to_string()), &[])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "warm".into());
    let warm = match mode.as_str() {
        "warm" => true,
        "cold" => false,
        other => return Err(format!("warm or cold, not {other:?}").into()),
    };
    let docs: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(200_000);
    let nodes: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(3);
    let engine = args.next().unwrap_or_else(|| "opensearch-2.19.1".into());
    let rt = tokio::runtime::Runtime::new()?;
    for node in 0..nodes {
        let mut options = StartOptions::new(&engine);
        options.heap = "1g".into();
        let mut cluster = ClusterSpec::local(options);
        if warm {
            cluster.warm = Some(WarmSpec::new(|index, docs| {
                Ok((logs(docs, index)?, slice_load(&LoadSpec::new(index), index)))
            }));
        }
        rt.block_on(async {
            let reached = Instant::now();
            let connected = cluster.connect(&Silent).await?;
            let ready_secs = reached.elapsed().as_secs_f64();
            let mut rates = Vec::new();
            for run in 0..3 {
                let index = format!("warm-node-{run}");
                let mut load = LoadSpec::new(&index);
                load.replace = true;
                let report = searchbench::session::ingest::load_on(
                    &connected,
                    logs(docs, &index)?,
                    load,
                    &Silent,
                )
                .await?;
                rates.push(report.docs_per_sec);
            }
            let line = serde_json::json!({
                "mode": mode,
                "node": node,
                "engine": engine,
                "docs": docs,
                "start_and_warm_secs": ready_secs,
                "warm_up": connected.warmed,
                "docs_per_sec": rates,
                "first_vs_third_pct": (rates[0] / rates[2] - 1.0) * 100.0,
            });
            connected.stop().await;
            println!("{line}");
            Ok::<_, Box<dyn std::error::Error>>(())
        })?;
    }
    Ok(())
}
