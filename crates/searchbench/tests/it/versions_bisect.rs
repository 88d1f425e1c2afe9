//! `searchbench bisect`: the releases it searches and its refusals. The search itself is
//! tested on doubles in `report::bisect`; a bisection over real engines needs at least six
//! engine starts (three runs of each end), too slow for this suite.

use crate::common::{bin, streams};
use searchbench::session::bisect::releases;

#[test]
fn the_releases_between_good_and_bad_of_one_product_and_kind_in_order() {
    let rt = crate::common::runtime();
    let list = rt
        .block_on(releases("opensearch-2.11.0", "opensearch-2.17.0"))
        .unwrap();
    let names: Vec<&str> = list.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"opensearch-2.11.0"), "{names:?}");
    assert_eq!(names.last(), Some(&"opensearch-2.17.0"), "{names:?}");
    assert!(names.contains(&"opensearch-2.14.0"), "{names:?}");
    assert!(list.iter().all(|s| s.kind == list[0].kind));
    assert!(list
        .windows(2)
        .all(|w| w[0].parsed_version() < w[1].parsed_version()));
    // An improvement can be bisected backwards: the good end comes first.
    let back = rt
        .block_on(releases("opensearch-2.17.0", "opensearch-2.11.0"))
        .unwrap();
    assert_eq!(
        back.first().map(|s| s.name.as_str()),
        Some("opensearch-2.17.0")
    );
    assert_eq!(back.len(), list.len());
}

#[test]
fn ends_that_cannot_be_bisected_are_bad_usage() {
    for (good, bad, says) in [
        ("opensearch-2.11.0", "opensearch-2.11.0", "the same release"),
        (
            "opensearch-2.11.0",
            "elasticsearch-7.10.2",
            "same product and kind",
        ),
        ("opensaerch-2.11.0", "opensearch-2.17.0", "did you mean"),
    ] {
        let out = bin()
            .args(["bisect", "logs", "--good", good, "--bad", bad])
            .args(["--metric", "docs_per_sec"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{}",
            streams(&out)
        );
    }
}
