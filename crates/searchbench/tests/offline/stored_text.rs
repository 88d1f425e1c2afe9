//! What a store holds is shown, never obeyed: run names, tags and errors read back may hold
//! terminal escape sequences (a results cluster anyone can write to, a tag from a CI
//! variable), and `results list`, `results show` and `history` print them escaped.

use crate::common::bin;
use crate::common::results::{ingest_result, save};
use searchbench::store::Store;

#[test]
fn escape_sequences_in_names_and_tags_are_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let mut ids = Vec::new();
    for seed in 0..3 {
        let result = ingest_result(5, 10_000.0, 0.02, 4.0, seed);
        ids.push(save(
            &store,
            &result,
            &[
                ("build", "\u{1b}]0;pwned\u{7}"),
                ("commit", "\u{1b}[2J\u{9b}31m"),
            ],
        ));
    }
    drop(store);
    for args in [
        &["results", "list"][..],
        &["results", "show", &ids[0]],
        &["history", "--workload", "logs", "--by", "time"],
        &["history", "--workload", "logs"],
    ] {
        let out = bin().args(args).arg("--store").arg(&db).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "{args:?} printed an escape raw: {text:?}"
        );
    }
    let out = bin()
        .args(["results", "list", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\\u{1b}]0;pwned"), "{text}");
}
