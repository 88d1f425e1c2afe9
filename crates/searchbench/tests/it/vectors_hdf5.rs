//! opensearch-benchmark's vectorsearch on an HDF5 data set (its default format; issue 101): the
//! file converted once to bigann files by h5py in opensearch-benchmark's own environment, kept
//! in the cache and reused, the run the same as on the same data written as bigann.

use serde_json::Value;

use crate::common::{self, bin, streams};
use crate::vectors::{three_thousand_vectors, vectorsearch_params};

/// Writes `out` as ann-benchmarks lays an HDF5 data set out (`train`, `test`, `neighbors`,
/// `distances`) from the bigann files given, with numpy and h5py: the test's own script. The
/// vectors it writes as float64, which the conversion takes back to float32 exactly.
const WRITE_HDF5: &str = r#"
import sys
import h5py
import numpy as np

base, queries, truth, out = sys.argv[1:5]

def vectors(path):
    raw = np.fromfile(path, dtype="<u4", count=2)
    rows, width = int(raw[0]), int(raw[1])
    return np.fromfile(path, dtype="<f4", offset=8).reshape(rows, width)

raw = np.fromfile(truth, dtype="<u4", count=2)
rows, k = int(raw[0]), int(raw[1])
ids = np.fromfile(truth, dtype="<i4", offset=8, count=rows * k).reshape(rows, k)
distances = np.fromfile(truth, dtype="<f4", offset=8 + rows * k * 4).reshape(rows, k)
with h5py.File(out, "w") as f:
    f.create_dataset("train", data=vectors(base).astype("<f8"))
    f.create_dataset("test", data=vectors(queries))
    f.create_dataset("neighbors", data=ids)
    f.create_dataset("distances", data=distances)
"#;

#[test]
fn opensearch_benchmarks_vectorsearch_runs_on_an_hdf5_data_set_as_on_the_same_bigann_files() {
    let url = common::opensearch_knn_url();
    let _heavy = common::heavy_on(url);
    let dir = tempfile::tempdir().expect("a folder");
    let data = three_thousand_vectors(dir.path());
    let at = |name: &str| data.join(name).display().to_string();
    let python = common::runtime()
        .block_on(searchbench::tasks::python::venv::ensure(
            searchbench::tasks::python::venv::OPENSEARCH_BENCHMARK,
            &|_| {},
        ))
        .expect("opensearch-benchmark's environment");
    let hdf5 = at("set.hdf5");
    let out = std::process::Command::new(&python)
        .args(["-c", WRITE_HDF5])
        .args([
            at("base.fbin"),
            at("queries.fbin"),
            at("neighbors.bin"),
            hdf5.clone(),
        ])
        .output()
        .expect("the test's python");
    assert!(out.status.success(), "{}", streams(&out));

    let index = "it-osb-vectorsearch-hdf5";
    let file = dir.path().join("params.json");
    let params = vectorsearch_params(index, "hdf5", &[hdf5.clone(), hdf5.clone(), hdf5.clone()]);
    std::fs::write(&file, params.to_string()).expect("the params");
    let workload = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tracks/osb/vectorsearch/workload.json");
    let run = |params: &std::path::Path, corpus_dir: &std::path::Path| {
        let out = bin()
            .args(["run", "--url", url, "--no-store"])
            .arg("--workload-file")
            .arg(&workload)
            .arg("--track-params")
            .arg(params)
            .args(["--challenge", "no-train-test", "--corpus-dir"])
            .arg(corpus_dir)
            .args(["--json", "-"])
            .output()
            .expect("run --workload-file");
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
        let result: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", streams(&out)));
        (result, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let task = |r: &Value, name: &str| -> Value {
        r["tasks"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["task"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no task {name} in {r}"))
    };

    let (r, said) = run(&file, dir.path());
    // Each data set converted once, to the very bytes of the bigann file it was made from.
    let converted: Vec<(String, String)> = said
        .lines()
        .filter_map(|l| {
            let (head, path) = l.split_once(": converted to bigann in ")?;
            let path = path.split_once(": ")?.1;
            Some((head.to_string(), path.to_string()))
        })
        .collect();
    let expected = [
        ("train", "base.fbin"),
        ("test", "queries.fbin"),
        ("neighbors", "neighbors.bin"),
    ];
    assert_eq!(converted.len(), 3, "{said}");
    for (dataset, original) in expected {
        let (_, path) = converted
            .iter()
            .find(|(head, _)| head.ends_with(&format!("({dataset})")))
            .unwrap_or_else(|| panic!("no {dataset} converted: {said}"));
        let made = std::fs::read(path).expect("the converted file");
        let from = std::fs::read(data.join(original)).expect("the original");
        assert!(made == from, "{dataset}: {path} differs from {original}");
    }
    let bulk = task(&r, "custom-vector-bulk");
    assert_eq!(
        (&bulk["errors"], &bulk["ops"]),
        (&0.into(), &12.into()),
        "{bulk}"
    );
    let target = common::target_at(url, std::time::Duration::from_secs(60));
    let count: Value = common::runtime()
        .block_on(target.get_json(&format!("/{index}/_count")))
        .expect("the count");
    assert_eq!(count["count"], 3000, "{count}");
    let search = task(&r, "prod-queries");
    assert_eq!(search["errors"], 0, "{search}");
    let recall = &search["recall"];
    assert_eq!(recall["answers"], 200, "{search}");
    assert!(
        recall["mean_at_k"].as_f64().expect("mean_at_k") >= 0.9,
        "{recall}"
    );

    // The next run takes the conversion kept in the cache.
    let (_, said) = run(&file, dir.path());
    assert_eq!(
        said.matches("converted to bigann before, reused").count(),
        3,
        "{said}"
    );
    assert!(!said.contains("converted to bigann in"), "{said}");

    // As opensearch-benchmark's own params name it: a corpus of the workload, its file
    // compressed as the tool downloads it (unpacked once, in the cache), in the tools'
    // layout under --corpus-dir, the neighbours those of the query file.
    let corpora = dir.path().join("corpora");
    std::fs::create_dir_all(corpora.join("cohere")).unwrap();
    let packed = corpora.join("cohere/documents-1k.hdf5.bz2");
    let out = std::process::Command::new(&python)
        .args(["-c", "import bz2, sys; open(sys.argv[2], 'wb').write(bz2.compress(open(sys.argv[1], 'rb').read()))"])
        .arg(&hdf5)
        .arg(&packed)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", streams(&out));
    let index = "it-osb-vectorsearch-hdf5-corpus";
    let mut params = vectorsearch_params(
        index,
        "hdf5",
        &[String::new(), String::new(), String::new()],
    );
    let p = params.as_object_mut().unwrap();
    for named in [
        "target_index_bulk_index_data_set_path",
        "query_data_set_path",
        "neighbors_data_set_path",
        "neighbors_data_set_format",
    ] {
        p.remove(named);
    }
    p.insert(
        "target_index_bulk_index_data_set_corpus".into(),
        "cohere".into(),
    );
    p.insert("query_data_set_corpus".into(), "cohere".into());
    let by_corpus = dir.path().join("by-corpus.json");
    std::fs::write(&by_corpus, params.to_string()).unwrap();
    let (r, said) = run(&by_corpus, &corpora);
    assert_eq!(said.matches("converted to bigann in").count(), 3, "{said}");
    assert!(
        said.contains("corpus cohere file documents-1k.hdf5.bz2 (neighbors)"),
        "{said}"
    );
    let bulk = task(&r, "custom-vector-bulk");
    assert_eq!(
        (&bulk["errors"], &bulk["ops"]),
        (&0.into(), &12.into()),
        "{bulk}"
    );
    let search = task(&r, "prod-queries");
    assert_eq!(search["recall"]["answers"], 200, "{search}");
    assert!(
        search["recall"]["mean_at_k"].as_f64().expect("mean_at_k") >= 0.9,
        "{search}"
    );
}

/// A file that is no HDF5, one without the data set a task reads, or one claiming more than the
/// cache has room for, stops the run before anything is sent (exit 2), naming the file, the
/// data set and what h5py said.
#[test]
fn an_hdf5_file_that_cannot_be_read_stops_the_run_naming_it() {
    let dir = tempfile::tempdir().expect("a folder");
    let track = dir.path().join("v/workload.json");
    std::fs::create_dir_all(track.parent().unwrap()).unwrap();
    std::fs::write(
        &track,
        r#"{"version": 2, "indices": [{"name": "v1"}],
 "schedule": [{"operation": {"operation-type": "bulk-vector-data-set", "index": "v1", "field": "f", "bulk_size": 2, "data_set_format": "hdf5", "data_set_path": "x.hdf5"}}]}"#,
    )
    .unwrap();
    let python = common::runtime()
        .block_on(searchbench::tasks::python::venv::ensure(
            searchbench::tasks::python::venv::OPENSEARCH_BENCHMARK,
            &|_| {},
        ))
        .expect("opensearch-benchmark's environment");
    let no_train = "import h5py, sys\nwith h5py.File(sys.argv[1], 'w') as f:\n    f.create_dataset('test', data=[[1.0, 2.0]])\n";
    // A few bytes claiming 16 TB of vectors (chunks never written read as zeros).
    let claims = "import h5py, sys\nwith h5py.File(sys.argv[1], 'w') as f:\n    f.create_dataset('train', shape=(4_000_000_000, 1000), dtype='f4', chunks=(1024, 1000))\n";
    for (make, says) in [
        (None, "x.hdf5 (train): the conversion failed"),
        (Some(no_train), "holds no data set 'train' (it holds: test)"),
        (
            Some(claims),
            "its data set 'train' (4000000000 rows of 1000 values) needs 16000.0 GB",
        ),
    ] {
        let file = track.parent().unwrap().join("x.hdf5");
        match make {
            None => std::fs::write(&file, b"no HDF5 at all").unwrap(),
            Some(script) => {
                let out = std::process::Command::new(&python)
                    .args(["-c", script])
                    .arg(&file)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", streams(&out));
            }
        }
        // Nothing listens there: the run stops before it would connect.
        let out = bin()
            .args([
                "run",
                "--url",
                "http://127.0.0.1:9",
                "--no-store",
                "--workload-file",
            ])
            .arg(&track)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{says} in {err}");
    }
}
