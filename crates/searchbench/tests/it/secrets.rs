//! Secrets never shown: every credential, given in every way searchbench takes one (flags,
//! environment, URL user info plain and percent-encoded, API key, bearer token), is looked for
//! in every channel it could leak through: stdout and stderr of every command (errors and
//! `--help` included), `--json`, the failure file, the store (its raw bytes and `results
//! show`), the HTML, Markdown and CSV reports, and an engine node we start: its command line,
//! its environment and its log.

use std::path::Path;
use std::process::{Command, Output};

use base64::Engine as _;
use serde_json::Value;

use crate::common::{self, bin, dead_url, node_url};

const USER: &str = "benchuser";

/// One way of giving a credential: the flags or environment, and the secret text itself.
struct Way {
    name: &'static str,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    secret: &'static str,
    /// Sent as HTTP basic auth (its base64 form is a secret too).
    basic: bool,
}

/// `http://user:password@host:port` of the shared node, with the password written as given.
fn node_with(password: &str) -> String {
    node_url().replacen("http://", &format!("http://{USER}:{password}@"), 1)
}

fn ways() -> Vec<Way> {
    // A password with `@`, `#` and `?` unencoded: the parts after each must stay hidden too.
    const PLAIN_URL: &str = "Lk7Qpz@Xw3Rtq#9ZnMw?Vb4Kdf";
    const ENCODED_URL: &str = "Enc5Tr@Pw8Hjq";
    vec![
        Way {
            name: "--password",
            args: vec![
                "--user".into(),
                USER.into(),
                "--password".into(),
                "FlagPw-71xqZ".into(),
            ],
            env: vec![],
            secret: "FlagPw-71xqZ",
            basic: true,
        },
        Way {
            name: "SEARCHBENCH_PASSWORD",
            args: vec![],
            env: vec![
                ("SEARCHBENCH_USER", USER.into()),
                ("SEARCHBENCH_PASSWORD", "EnvPw-52kzQ".into()),
            ],
            secret: "EnvPw-52kzQ",
            basic: true,
        },
        Way {
            name: "URL user info, unencoded",
            args: vec!["--url".into(), node_with(PLAIN_URL)],
            env: vec![],
            secret: PLAIN_URL,
            basic: true,
        },
        Way {
            name: "URL user info, percent-encoded",
            args: vec!["--url".into(), node_with(&ENCODED_URL.replace('@', "%40"))],
            env: vec![],
            secret: ENCODED_URL,
            basic: true,
        },
        Way {
            name: "SEARCHBENCH_URL",
            args: vec![],
            env: vec![("SEARCHBENCH_URL", node_with("EnvUrlPw-28hG"))],
            secret: "EnvUrlPw-28hG",
            basic: true,
        },
        Way {
            name: "--api-key",
            args: vec!["--api-key".into(), "ApiKeySecret-88Wm".into()],
            env: vec![],
            secret: "ApiKeySecret-88Wm",
            basic: false,
        },
        Way {
            name: "SEARCHBENCH_API_KEY",
            args: vec![],
            env: vec![("SEARCHBENCH_API_KEY", "EnvApiSecret-47Lp".into())],
            secret: "EnvApiSecret-47Lp",
            basic: false,
        },
        Way {
            name: "--bearer",
            args: vec!["--bearer".into(), "BearerSecret-19Tn".into()],
            env: vec![],
            secret: "BearerSecret-19Tn",
            basic: false,
        },
        Way {
            name: "SEARCHBENCH_BEARER",
            args: vec![],
            env: vec![("SEARCHBENCH_BEARER", "EnvBearerSecret-64Rd".into())],
            secret: "EnvBearerSecret-64Rd",
            basic: false,
        },
    ]
}

/// What must never be seen of a way's secret: itself, its parts between URL delimiters (a
/// half-masked password leaks the rest), its percent-encoded form, and the basic-auth header
/// value it makes.
fn needles(way: &Way) -> Vec<String> {
    let mut out = vec![way.secret.to_string()];
    out.extend(
        way.secret
            .split(['@', '#', '?'])
            .filter(|p| p.len() >= 5 && *p != way.secret)
            .map(str::to_string),
    );
    out.push(
        way.secret
            .replace('@', "%40")
            .replace('#', "%23")
            .replace('?', "%3F"),
    );
    if way.basic {
        out.push(
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{}", way.secret)),
        );
    }
    out.sort();
    out.dedup();
    out
}

fn host_port(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches('/')
}

/// Everything one channel showed.
pub(crate) struct Channel {
    pub(crate) name: String,
    pub(crate) bytes: Vec<u8>,
}

pub(crate) fn output_channels(what: &str, out: &Output) -> [Channel; 2] {
    [
        Channel {
            name: format!("{what}: stdout"),
            bytes: out.stdout.clone(),
        },
        Channel {
            name: format!("{what}: stderr"),
            bytes: out.stderr.clone(),
        },
    ]
}

fn cli(store: &Path, way: &Way) -> Command {
    let mut cmd = bin();
    cmd.env("SEARCHBENCH_STORE", store);
    for name in searchbench::os::SECRET_ENV {
        cmd.env_remove(name);
    }
    for (k, v) in &way.env {
        cmd.env(k, v);
    }
    cmd
}

/// A running node's environment, command line and log (its stdout), each as a channel.
pub(crate) fn node_channels(pid: u64) -> Vec<Channel> {
    let mut out = Vec::new();
    for what in ["environ", "cmdline"] {
        if let Ok(bytes) = std::fs::read(format!("/proc/{pid}/{what}")) {
            out.push(Channel {
                name: format!("the engine node's {what}"),
                bytes,
            });
        }
    }
    if let Ok(log) = std::fs::read_link(format!("/proc/{pid}/fd/1")) {
        if let Ok(bytes) = std::fs::read(&log) {
            out.push(Channel {
                name: format!("the engine node's log {}", log.display()),
                bytes,
            });
        }
    }
    out
}

/// The files under `dir`, each as a channel.
pub(crate) fn file_channels(dir: &Path, into: &mut Vec<Channel>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            file_channels(&path, into);
        } else if let Ok(bytes) = std::fs::read(&path) {
            into.push(Channel {
                name: format!("file {}", path.display()),
                bytes,
            });
        }
    }
}

#[test]
fn no_secret_given_in_any_way_shows_in_any_channel() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let data = dir.path().join("data.ndjson");
    // A bad line, so the failure file is written.
    std::fs::write(
        &data,
        "{\"a\":1}\n{\"a\":2}\n[\"not a document\"]\n{\"a\":3}\n",
    )
    .unwrap();
    let ways = ways();
    let mut channels = Vec::new();
    for (i, way) in ways.iter().enumerate() {
        let url_given = way.args.iter().any(|a| a == "--url")
            || way.env.iter().any(|(k, _)| *k == "SEARCHBENCH_URL");
        let url: Vec<&str> = if url_given {
            vec![]
        } else {
            vec!["--url", node_url()]
        };
        let index = format!("searchbench-test-secrets-{i}");
        let out = cli(&store, way)
            .args(["ingest", "--file"])
            .arg(&data)
            .args(["--index", &index, "--max-failures", "1", "--warmup", "0"])
            .args(&url)
            .args(&way.args)
            .arg("--json")
            .arg(dir.path().join(format!("ingest-{i}.json")))
            .arg("--failures")
            .arg(dir.path().join(format!("failures-{i}.ndjson")))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            way.name,
            common::streams(&out)
        );
        channels.extend(output_channels(&format!("ingest with {}", way.name), &out));
        let out = cli(&store, way)
            .args(["target"])
            .args(&url)
            .args(&way.args)
            .output()
            .unwrap();
        channels.extend(output_channels(
            &format!("target info with {}", way.name),
            &out,
        ));
        // Errors name the URL they could not reach; help shows flags and the environment.
        let dead = dead_url();
        let (live_host, dead_host) = (host_port(node_url()), host_port(&dead));
        let args: Vec<String> = way
            .args
            .iter()
            .map(|a| a.replace(live_host, dead_host))
            .collect();
        let mut cmd = cli(&store, way);
        for (k, v) in &way.env {
            cmd.env(k, v.replace(live_host, dead_host));
        }
        let dead_args: Vec<&str> = if url_given {
            vec![]
        } else {
            vec!["--url", &dead]
        };
        let out = cmd
            .args(["target", "--timeout", "2"])
            .args(&dead_args)
            .args(&args)
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0), "{}", way.name);
        channels.extend(output_channels(
            &format!("an unreachable URL with {}", way.name),
            &out,
        ));
        let out = cli(&store, way)
            .args(["ingest", "--help"])
            .output()
            .unwrap();
        channels.extend(output_channels(
            &format!("ingest --help with {}", way.name),
            &out,
        ));
    }
    // A URL that does not parse still hides its password.
    for bad in ["ftp://{USER}:{PW}@host", "http://{USER}:{PW}@host:notaport"] {
        let way = &ways[2];
        let url = bad.replace("{USER}", USER).replace("{PW}", way.secret);
        let out = cli(&store, way)
            .args(["target", "--url", &url])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
        channels.extend(output_channels(&format!("target info --url {bad}"), &out));
    }

    // What the store keeps, as rendered and as raw bytes.
    let none = &Way {
        name: "none",
        args: vec![],
        env: vec![],
        secret: "",
        basic: false,
    };
    let out = cli(&store, none)
        .args(["results", "list", "--json"])
        .output()
        .unwrap();
    let runs: Vec<String> = serde_json::from_slice::<Value>(&out.stdout)
        .expect("results list --json")
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(runs.len(), ways.len(), "{}", common::streams(&out));
    channels.extend(output_channels("results list", &out));
    for id in &runs {
        let out = cli(&store, none)
            .args(["results", "show", id, "--json"])
            .output()
            .unwrap();
        channels.extend(output_channels("results show", &out));
    }
    let out = cli(&store, none)
        .arg("report")
        .args(&runs[..2])
        .arg("--html")
        .arg(dir.path().join("report.html"))
        .arg("--markdown")
        .arg(dir.path().join("report.md"))
        .arg("--csv")
        .arg(dir.path().join("report.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    channels.extend(output_channels("report", &out));
    file_channels(dir.path(), &mut channels);

    // An engine node we start, with every secret in our environment.
    let mut everything = cli(&store, none);
    for way in &ways {
        for (k, v) in &way.env {
            everything.env(k, v);
        }
    }
    let out = everything
        .args([
            "engine",
            "start",
            &common::test_engine(),
            "--heap",
            "256m",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    channels.extend(output_channels("engine start", &out));
    let started: Value = serde_json::from_slice(&out.stdout).expect("engine start --json");
    let pid = started["pid"].as_u64().expect("pid");
    let port = started["http_port"].as_u64().expect("port").to_string();
    channels.extend(node_channels(pid));
    let stopped = bin()
        .args(["engine", "stop", "--port", &port])
        .output()
        .unwrap();
    assert_eq!(
        stopped.status.code(),
        Some(0),
        "{}",
        common::streams(&stopped)
    );
    assert!(
        channels.iter().any(|c| c.name.contains("environ")),
        "the node's environment was not read"
    );

    let mut leaks = Vec::new();
    for way in &ways {
        for needle in needles(way) {
            for channel in &channels {
                if memchr::memmem::find(&channel.bytes, needle.as_bytes()).is_some() {
                    leaks.push(format!("{} ({needle}) in {}", way.name, channel.name));
                }
            }
        }
    }
    assert!(leaks.is_empty(), "secrets shown:\n{}", leaks.join("\n"));
}
