//! `searchbench workload render`: a real Rally track rendered as esrally renders it, its track
//! parameters, and what is refused (a parameter the track does not read, an include cycle).

use serde_json::Value;

use crate::common::run;

fn geonames() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tracks/rally/geonames/track.json")
        .display()
        .to_string()
}

#[test]
fn a_real_track_renders_to_its_json_with_the_params_it_reads() {
    let out = run(&["workload", "render", &geonames()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let track: Value = serde_json::from_slice(&out.stdout).expect("the rendered track is JSON");
    assert_eq!(track["indices"][0]["name"], "geonames");
    // geonames reads include_force_merge: false leaves the force-merge task out.
    let with = String::from_utf8_lossy(&out.stdout)
        .matches("force-merge")
        .count();
    let out = run(&[
        "workload",
        "render",
        &geonames(),
        "--track-params",
        "include_force_merge:false",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let without = String::from_utf8_lossy(&out.stdout)
        .matches("force-merge")
        .count();
    assert!(
        without < with,
        "{without} force-merge mentions, {with} by default"
    );
}

#[test]
fn an_unused_param_and_an_include_cycle_are_usage_errors_naming_them() {
    let out = run(&[
        "workload",
        "render",
        &geonames(),
        "--track-params",
        "no_such:1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no_such") && err.contains("does not use"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let track = dir.path().join("track.json");
    std::fs::write(&track, r#"{"ops": [{{ rally.collect(parts="*.json") }}]}"#).unwrap();
    let out = run(&["workload", "render", &track.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("include cycle") && err.contains("track.json"),
        "{err}"
    );
}
