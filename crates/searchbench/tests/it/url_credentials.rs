//! Credentials in a URL (`http://user:password@host`) are used for the requests and never
//! printed, logged, or stored: not in output, results, the store, reports or failure files.

use crate::common::{node_url, run, streams as text, write_docs};

use std::path::{Path, PathBuf};

use searchbench::store::{Filter, Store};

/// A port nothing listens on.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

const PASSWORD: &str = "Sup3rS3cretPW";

#[test]
fn credentials_in_a_url_are_used_but_never_printed_or_stored() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let store = d("results.db");
    let docs = d("docs.ndjson");
    write_docs(Path::new(&docs), 20);
    let node = node_url()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let good = format!("http://elastic:{PASSWORD}@{node}");
    let dead = format!("http://elastic:{PASSWORD}@127.0.0.1:{}", dead_port());
    let mut outputs = Vec::new();

    // A failed run (nothing listens) and a complete one (the node needs no auth: the header
    // is ignored).
    let ingest = |url: &str, extra: &[&str]| {
        let mut args = vec!["ingest", "--url", url, "--file", &docs, "--quiet"];
        args.extend(["--index", "reliability-creds", "--store", &store]);
        args.extend(extra);
        run(&args)
    };
    let dead_failures = d("dead-failures.ndjson");
    let failed = ingest(
        &dead,
        &[
            "--timeout",
            "2",
            "--max-retries",
            "0",
            "--failures",
            &dead_failures,
        ],
    );
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
    outputs.push(failed);
    let (json_out, failures) = (d("result.json"), d("failures.ndjson"));
    let complete = ingest(&good, &["--json", &json_out, "--failures", &failures]);
    assert_eq!(complete.status.code(), Some(0), "{}", text(&complete));
    outputs.push(complete);
    let info = run(&["target", "--url", &good]);
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    outputs.push(info);
    let info_json = run(&["target", "--url", &good, "--json"]);
    outputs.push(info_json);
    outputs.push(run(&["target", "--url", &dead, "--timeout", "2"]));
    // A URL that does not even parse must not echo its password either.
    outputs.push(run(&[
        "target",
        "info",
        "--url",
        &format!("htp://elastic:{PASSWORD}@x:bad"),
    ]));

    let runs = Store::open(&store)
        .unwrap()
        .list(&Filter::default())
        .unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        outputs.push(run(&["results", "show", &r.id.0, "--store", &store]));
        outputs.push(run(&[
            "results", "show", &r.id.0, "--store", &store, "--json",
        ]));
    }
    outputs.push(run(&["results", "list", "--store", &store]));
    let ids: Vec<&str> = runs.iter().map(|r| r.id.0.as_str()).collect();
    let mut report = vec!["report", "--store", &store];
    report.extend(&ids);
    let (html, md, csv) = (d("r.html"), d("r.md"), d("r.csv"));
    report.extend(["--html", &html, "--markdown", &md, "--csv", &csv]);
    let rendered = run(&report);
    assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered));
    outputs.push(rendered);
    for r in &runs {
        outputs.push(run(&["report", "--store", &store, &r.id.0]));
    }

    for o in &outputs {
        assert!(!contains(&o.stdout, PASSWORD.as_bytes()), "{}", text(o));
        assert!(!contains(&o.stderr, PASSWORD.as_bytes()), "{}", text(o));
    }
    let written = files_under(dir.path());
    assert!(written.iter().any(|p| p.ends_with("r.html")));
    for path in written {
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !contains(&bytes, PASSWORD.as_bytes()),
            "{} holds the password",
            path.display()
        );
    }
    // The failed run says why, with the URL in its redacted form.
    let failed = runs
        .iter()
        .find(|r| r.error.is_some())
        .expect("the failed run");
    assert!(failed.config["urls"][0]
        .as_str()
        .unwrap()
        .contains("elastic:***@"));
}
