use std::io::Write as _;

use serde_json::json;

use super::*;
use crate::workload::track::{read, TrackParams};

/// A track in a folder of its own: one index `logs` of `mapping`, one corpus `logs` whose
/// file `documents.json.bz2` declares `count` documents, and a bulk task.
fn track(mapping: Value, count: Option<u64>) -> (tempfile::TempDir, Definition) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.json"),
        json!({ "mappings": mapping }).to_string(),
    )
    .unwrap();
    let mut documents = json!({ "source-file": "documents.json.bz2" });
    if let Some(n) = count {
        documents["document-count"] = n.into();
    }
    let track = json!({
        "indices": [{ "name": "logs", "body": "index.json" }],
        "corpora": [{ "name": "logs", "documents": [documents] }],
        "schedule": [{ "operation": { "operation-type": "bulk", "bulk-size": 100 } }]
    });
    let path = dir.path().join("track.json");
    std::fs::write(&path, track.to_string()).unwrap();
    let d = read(&path, &TrackParams::new()).unwrap();
    (dir, d)
}

fn mapping() -> Value {
    json!({ "properties": {
        "@timestamp": { "type": "date", "format": "epoch_second" },
        "status": { "type": "integer" },
        "host": { "type": "keyword" }
    }})
}

fn absent() -> Vec<(String, String)> {
    vec![("logs".into(), "documents.json.bz2".into())]
}

fn wanted_of(
    d: &Definition,
    test_mode: bool,
    seed: u64,
    cache: &Path,
) -> Result<Vec<Wanted>, SynthError> {
    let spec = PlanSpec {
        test_mode,
        ..PlanSpec::default()
    };
    wanted(d, &spec, &absent(), seed, cache)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn bz2(text: &str) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

fn sample_docs(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"@timestamp\": {}, \"status\": {}, \"host\": \"web-{}\"}}\n",
                1_700_000_000 + i * 10,
                if i % 5 == 0 { 404 } else { 200 },
                i % 3
            )
        })
        .collect()
}

#[test]
fn the_plan_names_what_is_absent_and_a_stand_in_takes_its_place() {
    let (_dir, d) = track(mapping(), Some(5000));
    let procedure = crate::workload::track::runnable::procedure(&d, None).unwrap();
    let mut spec = PlanSpec::default();
    let planned = plan::plan(&d, procedure, &spec).unwrap();
    assert_eq!(planned.absent, absent());
    assert_eq!(planned.missing.len(), 1, "{:?}", planned.missing);
    let cache = tempfile::tempdir().unwrap();
    let w = wanted(&d, &spec, &planned.absent, 7, cache.path()).unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].documents, 5000);
    assert_eq!(w[0].target, "logs");
    assert!(w[0].path.starts_with(cache.path().join("synthesized")));
    // Plain NDJSON, whatever the real file's compression.
    assert_eq!(w[0].path.file_name().unwrap(), "documents.json");
    spec.stand_ins = w.iter().map(Wanted::stand_in).collect();
    let planned = plan::plan(&d, procedure, &spec).unwrap();
    assert!(planned.missing.is_empty() && planned.absent.is_empty());
    let plan::TaskPlan::Bulk(bulk) = &planned.steps[0][0].0 else {
        panic!("a bulk");
    };
    let file = &bulk.loads[0].files[0];
    assert_eq!(file.path, w[0].path.display().to_string());
    assert_eq!(file.declared, Some(5000));
    assert!(!file.with_meta);
}

#[test]
fn made_files_hold_the_declared_documents_of_the_mapping_deterministically() {
    let (_dir, d) = track(mapping(), Some(2500));
    let cache = tempfile::tempdir().unwrap();
    let w = &wanted_of(&d, false, 3, cache.path()).unwrap()[0];
    let (_keep, never) = Cancel::new();
    let seen = std::cell::Cell::new(0);
    assert_eq!(make(w, &never, &|n| seen.set(n)).unwrap(), Made::Written);
    assert_eq!(seen.get(), 2500, "the progress ends at the documents made");
    let docs = lines(&w.path);
    assert_eq!(docs.len(), 2500);
    for doc in &docs {
        assert!(doc["status"].is_i64() && doc["host"].is_string(), "{doc}");
        assert!(doc["@timestamp"].is_i64(), "epoch_second: {doc}");
    }
    let first = std::fs::read(&w.path).unwrap();
    // Found made, not made again; the same inputs elsewhere give the same bytes.
    assert_eq!(make(w, &never, &|_| {}).unwrap(), Made::Reused);
    let other = tempfile::tempdir().unwrap();
    let again = &wanted_of(&d, false, 3, other.path()).unwrap()[0];
    assert_eq!(
        again.path.strip_prefix(other.path()),
        w.path.strip_prefix(cache.path())
    );
    make(again, &never, &|_| {}).unwrap();
    assert_eq!(std::fs::read(&again.path).unwrap(), first);
    // Another seed is another file, of other documents.
    let seeded = &wanted_of(&d, false, 4, cache.path()).unwrap()[0];
    assert_ne!(seeded.path, w.path);
    make(seeded, &never, &|_| {}).unwrap();
    assert_ne!(std::fs::read(&seeded.path).unwrap(), first);
    // Nothing but the file is left beside it.
    let left: Vec<_> = std::fs::read_dir(w.path.parent().unwrap())
        .unwrap()
        .collect();
    assert_eq!(left.len(), 1);
}

#[test]
fn test_mode_makes_a_thousand_and_no_count_is_refused_outside_it() {
    let (_dir, d) = track(mapping(), Some(2_000_000));
    let cache = tempfile::tempdir().unwrap();
    assert_eq!(
        wanted_of(&d, true, 1, cache.path()).unwrap()[0].documents,
        1000
    );
    let (_dir, d) = track(mapping(), Some(40));
    assert_eq!(
        wanted_of(&d, true, 1, cache.path()).unwrap()[0].documents,
        40
    );
    let (_dir, d) = track(mapping(), None);
    assert_eq!(
        wanted_of(&d, true, 1, cache.path()).unwrap()[0].documents,
        1000
    );
    let e = wanted_of(&d, false, 1, cache.path())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("corpus logs file documents.json.bz2") && e.contains("document-count"),
        "{e}"
    );
    assert!(e.contains("track.json"), "names the track: {e}");
    let (_dir, d) = track(mapping(), Some(0));
    let e = wanted_of(&d, false, 1, cache.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("document-count is 0"), "{e}");
}

#[test]
fn a_mapping_it_cannot_write_or_no_mapping_is_refused_naming_the_field() {
    let cache = tempfile::tempdir().unwrap();
    let (_dir, d) = track(
        json!({ "properties": { "area": { "type": "geo_shape" } } }),
        Some(10),
    );
    let e = wanted_of(&d, false, 1, cache.path())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("area") && e.contains("geo_shape") && e.contains("logs"),
        "{e}"
    );
    let (_dir, d) = track(json!({}), Some(10));
    let e = wanted_of(&d, false, 1, cache.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no mapping for logs"), "{e}");
}

#[test]
fn the_one_k_sample_beside_the_track_is_what_the_files_are_learned_from() {
    let (dir, d) = track(mapping(), Some(3000));
    std::fs::write(
        dir.path().join("documents-1k.json.bz2"),
        bz2(&sample_docs(1000)),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let w = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    let sample = w.sample.as_ref().expect("the 1k sample");
    assert!(!sample.partial);
    assert_eq!(w.record().sample.as_deref(), Some("documents-1k.json.bz2"));
    assert_eq!(w.record().sample_docs, 1000);
    assert!(w.about().contains("1000 documents of"), "{}", w.about());
    let (_keep, never) = Cancel::new();
    make(w, &never, &|_| {}).unwrap();
    let docs = lines(&w.path);
    let not_found = docs.iter().filter(|d| d["status"] == 404).count() as f64 / docs.len() as f64;
    assert!(
        (0.15..0.25).contains(&not_found),
        "20 % 404s in the sample: {not_found}"
    );
    let hosts: std::collections::BTreeSet<&str> =
        docs.iter().filter_map(|d| d["host"].as_str()).collect();
    assert_eq!(hosts.len(), 3, "a closed vocabulary of 3: {hosts:?}");
    // Another sample is another file.
    std::fs::write(
        dir.path().join("documents-1k.json.bz2"),
        bz2(&sample_docs(999)),
    )
    .unwrap();
    let other = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    assert_ne!(other.path, w.path);
}

#[test]
fn a_download_cut_short_gives_its_whole_documents_only() {
    let (dir, d) = track(mapping(), Some(3000));
    // bzip2 gives nothing of a block until it is whole: blocks of 100 kB, a dozen of them.
    let whole = bz2(&sample_docs(20_000));
    // Cut in the middle of the compressed stream: the last document read is cut too.
    std::fs::write(
        dir.path().join("documents.json.bz2.tmp"),
        &whole[..whole.len() / 2],
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let w = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    let sample = w.sample.as_ref().expect("the partial download");
    assert!(sample.partial);
    let n = w.record().sample_docs;
    assert!(n > 1000 && n < 20_000, "its whole documents: {n}");
    assert!(w.about().contains("a download cut short"), "{}", w.about());
    // A plain one cut inside a line.
    std::fs::remove_file(dir.path().join("documents.json.bz2.tmp")).unwrap();
    let text = sample_docs(10);
    std::fs::write(
        dir.path().join("documents.json.part"),
        &text[..text.len() - 7],
    )
    .unwrap();
    let w = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    assert_eq!(w.record().sample_docs, 9);
}

#[test]
fn a_sample_with_action_lines_is_read_for_its_sources() {
    let (dir, d) = track(mapping(), Some(300));
    let with_meta: String = sample_docs(50)
        .lines()
        .map(|l| format!("{{\"index\": {{\"_index\": \"logs\"}}}}\n{l}\n"))
        .collect();
    std::fs::write(dir.path().join("documents-1k.json"), with_meta).unwrap();
    let mut text = std::fs::read_to_string(dir.path().join("track.json")).unwrap();
    text = text.replace(
        "\"source-file\":\"documents.json.bz2\"",
        "\"source-file\":\"documents.json.bz2\",\"includes-action-and-meta-data\":true",
    );
    std::fs::write(dir.path().join("track.json"), text).unwrap();
    let d2 = read(&dir.path().join("track.json"), &TrackParams::new()).unwrap();
    assert!(d2.track.sources()[0].includes_action_and_meta_data);
    drop(d);
    let cache = tempfile::tempdir().unwrap();
    let w = &wanted_of(&d2, false, 1, cache.path()).unwrap()[0];
    assert_eq!(w.record().sample_docs, 50);
    let (_keep, never) = Cancel::new();
    make(w, &never, &|_| {}).unwrap();
    // Sources alone: the load reads it without action lines.
    assert!(lines(&w.path).iter().all(|d| d.get("index").is_none()));
}

#[test]
fn ctrl_c_leaves_no_file_and_a_disk_too_small_is_refused_before_writing() {
    let (_dir, d) = track(mapping(), Some(1_000_000));
    let cache = tempfile::tempdir().unwrap();
    let w = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    let (stop, cancel) = Cancel::new();
    let _ = stop.send(true);
    match make(w, &cancel, &|_| {}) {
        Err(SynthError::Interrupted(file)) => assert!(file.contains("documents.json")),
        other => panic!("{other:?}"),
    }
    assert!(!w.path.exists());
    let left: Vec<_> = std::fs::read_dir(w.path.parent().unwrap())
        .unwrap()
        .collect();
    assert!(left.is_empty(), "no half-made file: {left:?}");
    let (_dir, d) = track(mapping(), Some(u64::MAX / 2));
    let w = &wanted_of(&d, false, 1, cache.path()).unwrap()[0];
    let (_keep, never) = Cancel::new();
    let e = make(w, &never, &|_| {}).unwrap_err().to_string();
    assert!(
        e.contains("GB free") && e.contains("documents take about"),
        "{e}"
    );
}

#[test]
fn a_data_stream_follows_its_composable_template_and_components() {
    let components = json!({ "template": { "mappings": { "properties": {
        "host": { "type": "keyword" }, "status": { "type": "keyword" } } } } });
    let template = json!({
        "index_patterns": ["logs-*"],
        "composed_of": ["base"],
        "priority": 10,
        "template": { "mappings": { "properties": { "status": { "type": "integer" } } } }
    });
    let mut d = track(json!({}), Some(1)).1;
    d.component_templates.insert("base".into(), components);
    d.composable_templates.insert("logs".into(), template);
    d.composable_templates.insert(
        "other".into(),
        json!({ "index_patterns": ["metrics-*"], "template": {} }),
    );
    let body = body_for(&d, "logs-web", true).unwrap();
    assert_eq!(body["mappings"]["properties"]["host"]["type"], "keyword");
    assert_eq!(
        body["mappings"]["properties"]["status"]["type"], "integer",
        "the template's own wins"
    );
    assert!(body_for(&d, "traces", true).is_none());
    d.templates.insert(
        "legacy".into(),
        json!({ "index_patterns": "traces*", "mappings": { "properties": { "span": { "type": "long" } } } }),
    );
    assert_eq!(
        body_for(&d, "traces-1", false).unwrap()["mappings"]["properties"]["span"]["type"],
        "long"
    );
}

#[test]
fn glob_matches_as_index_patterns_do() {
    assert!(glob("logs-*", "logs-web"));
    assert!(glob("*", "anything"));
    assert!(glob("a*b*c", "aXXbYYc"));
    assert!(!glob("a*b*c", "aXXbYY"));
    assert!(glob("logs", "logs"));
    assert!(!glob("logs", "logs-1"));
    assert!(!glob("ab*ba", "aba"), "the ends may not overlap");
}
