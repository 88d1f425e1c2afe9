//! `--engine-dir`: a local, unpacked distribution folder (a user's own build) starts like a
//! catalogue distribution, and the run records the folder and the version read from it.

use crate::common::{bin, scratch_store, streams};
use searchbench::engine;
use searchbench::store::Store;

/// The elasticsearch-8.17.4 distribution, unpacked in the shared cache (fetched once if the
/// cache lacks it): a real distribution folder to point --engine-dir at.
fn unpacked_distribution() -> std::path::PathBuf {
    let spec = engine::resolve("elasticsearch-8.17.4").expect("in the catalogue");
    let jdk = engine::jdk_for(&spec).expect("a JDK for elasticsearch 8.17");
    engine::provision(&searchbench::cancel::Cancel::never(), &spec, &jdk)
        .expect("unpacked")
        .dir
}

#[test]
fn a_distribution_folder_runs_a_workload_and_the_run_records_it() {
    let dir = unpacked_distribution();
    let store = scratch_store();
    let out = bin()
        .args([
            "run",
            "logs",
            "--docs",
            "2000",
            "--no-query",
            "--warmup",
            "0",
            "--no-warm-node",
        ])
        .args(["--heap", "512m", "-q", "--engine-dir"])
        .arg(&dir)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let runs = Store::open(&store)
        .unwrap()
        .list(&Default::default())
        .unwrap();
    let run = &runs[0];
    assert_eq!(run.engine.as_deref(), Some("elasticsearch-8.17.4"));
    assert_eq!(
        run.config["engine_dir"].as_str(),
        Some(dir.canonicalize().unwrap().to_str().unwrap())
    );
    let result = run.result.as_ref().unwrap();
    assert_eq!(result["engine_version"], "8.17.4", "{result:#}");
    assert_eq!(result["counts"]["indexed"], 2000);
    // --no-warm-node: measured as it came up, and the result says no warm-up.
    assert!(result.get("warm_up").is_none(), "{result:#}");
}

#[test]
fn a_folder_that_is_not_a_distribution_is_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    let out = bin()
        .args(["run", "logs", "--docs", "100", "--engine-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--engine-dir")
            && err.contains("not an unpacked Elasticsearch or OpenSearch distribution"),
        "{err}"
    );
    // Not with a catalogue engine at once.
    let out = bin()
        .args(["engine", "start", "opensearch-2.19.1", "--engine-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}
