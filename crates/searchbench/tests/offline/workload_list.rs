//! `searchbench workloads` (`workload list`, `workload info`): what is built in, every one of
//! them, as the library's registry has it.

use serde_json::Value;

use crate::common::run;

#[test]
fn workloads_lists_every_built_in_and_info_describes_one() {
    let out = run(&["workloads"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in searchbench::workload::names() {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    let out = run(&["workload", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, searchbench::workload::names());

    let out = run(&["workload", "info", "numbers", "--json"]);
    assert!(out.status.success());
    let numbers: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        numbers["query_variants"],
        serde_json::json!(["group_count", "group_sum"])
    );
    assert_eq!(numbers["example"], "searchbench run numbers");
    let out = run(&["workload", "info", "many-shards"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("scenario"));

    let out = run(&["workload", "info", "nope"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nope") && err.contains("logs"), "{err}");
}
