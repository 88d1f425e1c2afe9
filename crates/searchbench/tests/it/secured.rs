//! A secured OpenSearch (`--security`): the distribution with the security plugin from Maven
//! Central, TLS with its own CA, an admin and a read-only user. One shared secured node
//! (`common::secured`) takes the load, the queries, the sweep, the refusals and the secrets
//! test the way a user with a secured cluster gives them (`--url`, `--ca-cert`, `--user`,
//! `SEARCHBENCH_PASSWORD`); `engine start --security` and `run --security` start their own,
//! since starting is what they test.

use serde_json::Value;

use crate::common::{bin, secured, streams, succeeded, Secured, SECURED_PASSWORD};

/// Stops a node the test started when the test ends, however it ends.
struct Stop(u16);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = bin()
            .args(["engine", "stop", "--port", &self.0.to_string()])
            .args(["--grace", "10"])
            .output();
    }
}

/// A command-line way of giving the admin's password: its name, flags and environment.
type Way = (&'static str, Vec<String>, Vec<(&'static str, String)>);

/// The CLI as `user` with `password` (in `SEARCHBENCH_PASSWORD`) on the shared secured node.
fn as_user(node: &Secured, user: &str, password: &str, args: &[&str]) -> std::process::Output {
    bin()
        .args(args)
        .args(["--url", &node.url, "--user", user])
        .env("SEARCHBENCH_PASSWORD", password)
        .output()
        .expect("searchbench")
}

/// `engine start --security` with `--data DIR` and `--bind`: a team's results node. The users
/// are said once; a run published into it as the publish-only user is there after a stop and
/// a restart with the same DIR, which needs the admin's password and makes no new one, and
/// every user logs in as before with the CA file the clients were first given.
#[test]
fn a_results_node_restarted_with_its_data_keeps_every_run_and_its_users() {
    // Elasticsearch's security is in no artifact Maven Central carries: refused, with what
    // to do instead, before anything is fetched.
    let out = bin()
        .args(["engine", "start", "elasticsearch-8.17.4", "--security"])
        .output()
        .expect("engine start");
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(streams(&out).contains("--ca-cert"), "{}", streams(&out));
    // A node on the network without TLS and users is refused before anything starts.
    let out = bin()
        .args([
            "engine",
            "start",
            "opensearch-2.19.1",
            "--bind",
            "127.0.0.2",
        ])
        .output()
        .expect("engine start --bind");
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(streams(&out).contains("--security"), "{}", streams(&out));

    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("results-node");
    let data_arg = data.display().to_string();
    let chosen = "Chosen-admin-pw-7";
    // A first start that fails (no time to become healthy) keeps nothing: no CA, no users
    // whose passwords were never said, no data begun with them.
    let out = bin()
        .args(["engine", "start", "opensearch-2.19.1", "--security"])
        .args(["--data", &data_arg, "--timeout", "1", "--heap", "512m"])
        .env_remove("SEARCHBENCH_PASSWORD")
        .output()
        .expect("engine start --timeout 1");
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    let left: Vec<_> = std::fs::read_dir(&data)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    // A team's node keeps its port too: the runs' destination is its URL.
    let start = |password: Option<&str>, port: Option<u16>| {
        let mut command = bin();
        command
            .args(["engine", "start", "opensearch-2.19.1", "--security"])
            .args(["--data", &data_arg, "--bind", "127.0.0.2", "--json"])
            .args(["--heap", "512m", "--timeout", "240"])
            .env_remove("SEARCHBENCH_PASSWORD");
        if let Some(p) = password {
            command.env("SEARCHBENCH_PASSWORD", p);
        }
        if let Some(port) = port {
            command.args(["--port", &port.to_string()]);
        }
        command.output().expect("engine start --security --data")
    };
    let out = start(Some(chosen), None);
    let started: Value = serde_json::from_str(&succeeded(&out)).expect("start --json");
    let port = started["http_port"].as_u64().unwrap_or(0) as u16;
    let stop = Stop(port);
    let url = started["url"].as_str().expect("url").to_string();
    assert!(url.starts_with("https://127.0.0.2:"), "{started}");
    let security = &started["security"];
    let ca = security["ca_cert"].as_str().expect("ca_cert").to_string();
    assert!(
        ca.starts_with(&data_arg),
        "the CA is kept with the data: {ca}"
    );
    assert!(std::fs::read_to_string(&ca)
        .unwrap_or_default()
        .contains("BEGIN CERTIFICATE"));
    // The password the caller chose is not said back; the others, made here, are (once).
    assert!(security.get("admin_password").is_none(), "{started}");
    assert!(!streams(&out).contains(chosen));
    let reader = security["reader_password"]
        .as_str()
        .expect("reader")
        .to_string();
    let publisher = security["publisher_password"]
        .as_str()
        .expect("publisher")
        .to_string();
    assert!(reader.len() >= 20 && publisher.len() >= 20);
    // No password in any file the node keeps.
    for entry in walk(&data) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        for secret in [chosen, reader.as_str(), publisher.as_str()] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds a password",
                entry.display()
            );
        }
    }
    // `engine status` reaches it through its CA; without the admin's password it says so.
    // The table may wrap the message over lines (the other nodes the suite runs beside widen
    // the other columns): its health cells are read whole.
    let out = bin()
        .args(["engine", "status"])
        .env_remove("SEARCHBENCH_PASSWORD")
        .output()
        .expect("status");
    let status = succeeded(&out);
    assert!(
        cells(&status, "health")
            .iter()
            .any(|c| c.starts_with("secured: its health needs")),
        "{status}"
    );
    let out = bin()
        .args(["engine", "status", "--json"])
        .env("SEARCHBENCH_PASSWORD", chosen)
        .output()
        .expect("status");
    let status = succeeded(&out);
    assert!(
        status.contains(&url) && status.contains("green"),
        "{status}"
    );

    // A run measured on the node as the admin, published into it as the publisher.
    let db = dir.path().join("runs.db");
    let out = bin()
        .args(["ingest", "logs", "--docs", "1000", "--index", "kept-logs"])
        .args(["--url", &url, "--ca-cert", &ca, "--user", "admin"])
        .args(["--publish", &url, "--publish-ca-cert", &ca])
        .args(["--publish-user", "publisher", "--publish-required"])
        .arg("--store")
        .arg(&db)
        .env("SEARCHBENCH_PASSWORD", chosen)
        .env("SEARCHBENCH_PUBLISH_PASSWORD", &publisher)
        .output()
        .expect("ingest --publish");
    succeeded(&out);
    // The publisher may touch nothing but the results indices.
    let out = bin()
        .args(["ingest", "logs", "--docs", "100", "--index", "not-results"])
        .args(["--url", &url, "--ca-cert", &ca, "--user", "publisher"])
        .args(["--no-store", "-q"])
        .env("SEARCHBENCH_PASSWORD", &publisher)
        .output()
        .expect("ingest as the publisher");
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));

    drop(stop);
    // Kept data started without --security would serve it to anyone: refused.
    let out = bin()
        .args(["engine", "start", "opensearch-2.19.1", "--data", &data_arg])
        .output()
        .expect("engine start --data");
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(streams(&out).contains("--security"), "{}", streams(&out));
    // A restart without the admin's password, or with another, is refused before it starts.
    for password in [None, Some("Not-the-admin-pw-1")] {
        let out = start(password, Some(port));
        assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
        assert!(
            streams(&out).contains("SEARCHBENCH_PASSWORD"),
            "{}",
            streams(&out)
        );
    }
    let out = start(Some(chosen), Some(port));
    let restarted: Value = serde_json::from_str(&succeeded(&out)).expect("restart --json");
    let _stop = Stop(restarted["http_port"].as_u64().unwrap_or(0) as u16);
    assert_eq!(restarted["url"].as_str(), Some(url.as_str()), "{restarted}");
    let security = &restarted["security"];
    assert_eq!(
        security["ca_cert"].as_str(),
        Some(ca.as_str()),
        "{restarted}"
    );
    for made in ["admin_password", "reader_password", "publisher_password"] {
        assert!(security.get(made).is_none(), "no new {made}: {restarted}");
    }
    let said = streams(&out);
    assert!(!said.contains(&reader) && !said.contains(&publisher) && !said.contains(chosen));
    // Every run is still there, read by each user with the first CA file and password.
    for (user, password) in [("reader", &reader), ("publisher", &publisher)] {
        let out = bin()
            .args([
                "results",
                "verify",
                "--publish",
                &url,
                "--publish-ca-cert",
                &ca,
            ])
            .args(["--publish-user", user, "--json"])
            .arg("--store")
            .arg(&db)
            .env("SEARCHBENCH_PUBLISH_PASSWORD", password)
            .output()
            .expect("results verify");
        let found: Value = serde_json::from_str(&succeeded(&out)).expect("verify --json");
        assert_eq!(found["present"], 1, "{user}: {found}");
        assert_eq!(
            found["missing"].as_array().map(Vec::len),
            Some(0),
            "{found}"
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        match std::fs::read_dir(&path) {
            Ok(entries) => stack.extend(entries.flatten().map(|e| e.path())),
            Err(_) => files.push(path),
        }
    }
    files
}

#[test]
fn a_secured_node_takes_tls_and_users_and_refuses_the_rest() {
    let node = secured();
    let ca = node.ca_cert.as_str();
    // TLS with the CA, as the admin.
    let out = as_user(
        node,
        "admin",
        SECURED_PASSWORD,
        &["target", "--ca-cert", ca],
    );
    let text = succeeded(&out);
    assert!(text.contains("OpenSearch 2.19.1"), "{text}");
    // --insecure: no CA, the certificate not checked, and a warning says so.
    let out = as_user(node, "admin", SECURED_PASSWORD, &["target", "--insecure"]);
    succeeded(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--insecure"));
    // Neither: the certificate is refused, and the error says what to give (the query
    // with -q, quiet as on every other command).
    for args in [
        &["target"][..],
        &[
            "query",
            "logs",
            "-q",
            "--docs",
            "1000",
            "--index",
            "secured-none",
        ],
    ] {
        let out = as_user(node, "admin", SECURED_PASSWORD, args);
        assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
        assert!(err.contains("certificate"), "{args:?}: {err}");
        assert!(
            err.contains("--ca-cert") && err.contains("--insecure"),
            "{args:?}: {err}"
        );
    }
    // A wrong password: the server's 401, and no password in what is shown.
    let out = as_user(node, "admin", "Wrong-pw-123", &["target", "--ca-cert", ca]);
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    let shown = streams(&out);
    assert!(shown.contains("401"), "{shown}");
    assert!(
        !shown.contains("Wrong-pw-123") && !shown.contains(SECURED_PASSWORD),
        "{shown}"
    );

    // The admin loads over TLS; every document counted.
    let index = "secured-logs";
    let out = as_user(
        node,
        "admin",
        SECURED_PASSWORD,
        &[
            "ingest",
            "logs",
            "--docs",
            "2000",
            "--index",
            index,
            "--ca-cert",
            ca,
            "--no-store",
            "--json",
        ],
    );
    let loaded: Value = serde_json::from_str(&succeeded(&out)).expect("ingest --json");
    assert_eq!(loaded["counts"]["indexed"], 2000, "{loaded}");
    // The reader may search it …
    let out = as_user(
        node,
        "reader",
        &node.reader_password,
        &[
            "query",
            "logs",
            "--docs",
            "2000",
            "--index",
            index,
            "--ca-cert",
            ca,
            "--passes",
            "1",
            "--no-store",
        ],
    );
    succeeded(&out);
    // … and may not write: each bulk request is refused (403), every document is refused and
    // in the failure file, none counted as indexed, and the count check fails (exit 3).
    let dir = tempfile::tempdir().expect("tempdir");
    let failures = dir.path().join("refused.ndjson");
    let failures_arg = failures.display().to_string();
    let out = as_user(
        node,
        "reader",
        &node.reader_password,
        &[
            "ingest",
            "logs",
            "--docs",
            "500",
            "--seed",
            "2",
            "--bulk-size",
            "100",
            "--index",
            index,
            "--append",
            "--ca-cert",
            ca,
            "--no-store",
            "--json",
            "--failures",
            &failures_arg,
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", streams(&out));
    let refused: Value =
        serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).expect("ingest --json");
    assert_eq!(refused["counts"]["indexed"], 0, "{refused}");
    assert_eq!(refused["counts"]["refused"], 500, "{refused}");
    let lines = std::fs::read_to_string(&failures).expect("the failure file");
    assert_eq!(lines.lines().count(), 500);
    assert!(
        lines.contains("403") && lines.contains("may not write"),
        "{lines:.400}"
    );
}
#[test]
fn a_run_on_a_secured_node_loads_queries_and_samples_over_tls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = dir.path().join("run.json");
    let out = bin()
        .args([
            "run",
            "logs",
            "--security",
            "--docs",
            "3000",
            "--warmup",
            "0",
            "--warm-node-max",
            "3s",
        ])
        .args(["--heap", "512m", "--no-store"])
        .arg("--export-json")
        .arg(&result)
        .output()
        .expect("run --security");
    let text = succeeded(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("https://127.0.0.1:"), "{stderr}");
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(&result).expect("the result")).expect("json");
    assert_eq!(run["counts"]["indexed"], 3000, "{text}");
    // The secured node was warmed over TLS as the admin before the measured load.
    assert!(
        run["warm_up"]["slices"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{}",
        run["warm_up"]
    );
    assert!(
        run["target_url"]
            .as_str()
            .unwrap_or("")
            .starts_with("https://"),
        "{run}"
    );
    assert_eq!(run["query"]["failures_total"], 0, "{text}");
    assert!(
        run["query"]["accuracy_checked"].as_bool().unwrap_or(false),
        "{text}"
    );
    // The sampler read the node's stats over TLS as the admin: samples, a heap.
    let samples = run["telemetry"]["samples"].as_u64().unwrap_or(0);
    assert!(samples > 0, "{}", run["telemetry"]);
    assert!(run["telemetry"]["heap_peak_bytes"].as_f64().unwrap_or(0.0) > 0.0);
    // No password (made for the run, never shown) in what the run wrote or printed.
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("password"),
        "{text}"
    );
}

/// A sweep on the shared secured node over https with `--ca-cert`: every cell's runs load
/// as the admin, none fails.
#[test]
fn a_sweep_on_a_secured_node_runs_every_cell_over_tls() {
    let node = secured();
    let out = as_user(
        node,
        "admin",
        SECURED_PASSWORD,
        &[
            "sweep",
            "logs",
            "--ca-cert",
            &node.ca_cert,
            "--index",
            "secured-sweep",
            "--no-store",
            "--json",
            "--bulk-size",
            "100",
            "--clients",
            "1,2",
            "--docs",
            "1000",
            "--warmup",
            "0",
            "--min-repeats",
            "2",
            "--max-repeats",
            "2",
            "--ci",
            "99%",
        ],
    );
    // An answer (0) or intervals too wide to give one (125): both measured every cell.
    assert!(
        matches!(out.status.code(), Some(0 | 125)),
        "{}",
        streams(&out)
    );
    let sweep: Value =
        serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).expect("sweep --json");
    assert!(
        sweep["target_url"]
            .as_str()
            .unwrap_or("")
            .starts_with("https://"),
        "{sweep}"
    );
    let cells = sweep["cells"].as_array().cloned().unwrap_or_default();
    assert_eq!(cells.len(), 2, "{sweep}");
    for cell in &cells {
        assert_eq!(cell["failed_runs"], 0, "{cell}");
        assert_eq!(cell["failed_docs"], 0, "{cell}");
        assert_eq!(cell["runs"].as_array().map(Vec::len), Some(2), "{cell}");
    }
}

/// The secrets test pointed at the shared secured node, where the password must be right to
/// get anywhere: the admin's password, given in every way a password is taken (flag,
/// environment, URL user info plain and percent-encoded, `SEARCHBENCH_URL`), is looked for in
/// every channel: stdout and stderr of each command (TLS errors included), `--export-json`,
/// the failure files, the store (raw and shown), the reports, and the node itself (its config
/// folder, environment, command line and log: only a bcrypt hash of it may be there).
#[test]
fn no_password_of_a_secured_node_shows_in_any_channel() {
    use crate::secrets::{file_channels, node_channels, output_channels, Channel};
    use base64::Engine as _;
    let node = secured();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store.db");
    let data = dir.path().join("data.ndjson");
    std::fs::write(&data, "{\"a\":1}\n[\"not a document\"]\n{\"a\":2}\n").expect("data");
    let clean = || {
        let mut cmd = bin();
        cmd.env("SEARCHBENCH_STORE", &store);
        for name in searchbench::os::SECRET_ENV {
            cmd.env_remove(name);
        }
        cmd
    };
    let mut channels: Vec<Channel> = Vec::new();
    let ca = node.ca_cert.as_str();
    let url = node.url.as_str();
    let with_info =
        |password: &str| url.replacen("https://", &format!("https://admin:{password}@"), 1);
    let encoded = SECURED_PASSWORD
        .replace('@', "%40")
        .replace('#', "%23")
        .replace('?', "%3F");
    let admin = |rest: &[&str]| -> Vec<String> {
        ["--url", url, "--user", "admin"]
            .iter()
            .chain(rest)
            .map(|s| s.to_string())
            .collect()
    };
    let ways: Vec<Way> = vec![
        (
            "--password",
            admin(&["--password", SECURED_PASSWORD]),
            vec![],
        ),
        (
            "SEARCHBENCH_PASSWORD",
            admin(&[]),
            vec![("SEARCHBENCH_PASSWORD", SECURED_PASSWORD.into())],
        ),
        (
            "URL user info",
            vec!["--url".into(), with_info(SECURED_PASSWORD)],
            vec![],
        ),
        (
            "URL user info, percent-encoded",
            vec!["--url".into(), with_info(&encoded)],
            vec![],
        ),
        (
            "SEARCHBENCH_URL",
            vec![],
            vec![("SEARCHBENCH_URL", with_info(SECURED_PASSWORD))],
        ),
    ];
    for (i, (name, args, env)) in ways.iter().enumerate() {
        let with = |cmd: &mut std::process::Command| {
            cmd.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
        };
        let mut cmd = clean();
        with(&mut cmd);
        let out = cmd
            .args(["ingest", "--file"])
            .arg(&data)
            .args(["--index", &format!("secured-secrets-{i}")])
            .args(["--max-failures", "1", "--warmup", "0", "--ca-cert", ca])
            .args(args)
            .arg("--export-json")
            .arg(dir.path().join(format!("ingest-{i}.json")))
            .arg("--failures")
            .arg(dir.path().join(format!("failures-{i}.ndjson")))
            .output()
            .expect("ingest");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", streams(&out));
        channels.extend(output_channels(&format!("ingest with {name}"), &out));
        let mut cmd = clean();
        with(&mut cmd);
        let out = cmd.args(["target", "--ca-cert", ca]).args(args).output();
        let out = out.expect("target");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", streams(&out));
        channels.extend(output_channels(&format!("target with {name}"), &out));
        // The same way without the CA: the TLS error must not show the password either.
        let mut cmd = clean();
        with(&mut cmd);
        let out = cmd.args(["target"]).args(args).output().expect("target");
        assert_ne!(out.status.code(), Some(0), "{name}: {}", streams(&out));
        channels.extend(output_channels(
            &format!("target without the CA, {name}"),
            &out,
        ));
    }
    let out = clean().args(["results", "list", "--json"]).output();
    let out = out.expect("list");
    let ids: Vec<String> = serde_json::from_slice::<Value>(&out.stdout)
        .expect("results list --json")
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(ids.len(), ways.len(), "{}", streams(&out));
    for id in &ids {
        let out = clean().args(["results", "show", id, "--json"]).output();
        channels.extend(output_channels("results show", &out.expect("show")));
    }
    let out = clean()
        .arg("report")
        .args(&ids[..2])
        .arg("--html")
        .arg(dir.path().join("report.html"))
        .arg("--export-markdown")
        .arg(dir.path().join("report.md"))
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    file_channels(dir.path(), &mut channels);
    // The node: its config folder (users, certificates, settings), environment, command
    // line and log.
    if let Some(config) = std::path::Path::new(ca).parent() {
        file_channels(config, &mut channels);
    }
    channels.extend(node_channels(u64::from(node.pid)));
    assert!(channels
        .iter()
        .any(|c| c.name.contains("internal_users.yml")));
    assert!(channels.iter().any(|c| c.name.contains("environ")));

    let mut needles: Vec<String> = vec![SECURED_PASSWORD.into(), encoded.clone()];
    needles.extend(
        SECURED_PASSWORD
            .split(['@', '#', '?'])
            .filter(|p| p.len() >= 4)
            .map(String::from),
    );
    needles.push(
        base64::engine::general_purpose::STANDARD.encode(format!("admin:{SECURED_PASSWORD}")),
    );
    let leaks: Vec<String> = needles
        .iter()
        .flat_map(|needle| {
            channels
                .iter()
                .filter(|c| memchr::memmem::find(&c.bytes, needle.as_bytes()).is_some())
                .map(move |c| format!("{needle} in {}", c.name))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets shown:\n{}", leaks.join("\n"));
}

/// A user of this machine that is neither root nor the node's own (`launch::UNPRIVILEGED`).
const STRANGER: u32 = 4242;

#[test]
fn the_node_key_and_the_users_file_are_refused_to_other_local_users() {
    use std::os::unix::fs::PermissionsExt;
    let node = secured();
    let config = std::path::Path::new(&node.ca_cert)
        .parent()
        .expect("the CA is in the node's config folder");
    let root = unsafe { libc::geteuid() } == 0;
    // The keystore the engine wrote at its start (0660 before) is the node's alone too.
    for private in [
        "node-key.pem",
        "opensearch-security/internal_users.yml",
        "opensearch.keystore",
    ] {
        let path = config.join(private);
        let mode = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{private} is mode {:o}", mode & 0o777);
        if !root {
            continue; // no other user to become; the mode is what refuses them
        }
        let stranger = |path: &std::path::Path| {
            std::process::Command::new("setpriv")
                .args([
                    &format!("--reuid={STRANGER}"),
                    &format!("--regid={STRANGER}"),
                    "--clear-groups",
                    "cat",
                ])
                .arg(path)
                .output()
                .expect("setpriv")
        };
        let out = stranger(&path);
        assert!(
            !out.status.success() && out.stdout.is_empty(),
            "another user read {private}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The node itself still reads them: it answers over TLS as its users.
    let out = bin()
        .args(["target", "--url", &node.url, "--ca-cert", &node.ca_cert])
        .args(["--user", "admin"])
        .env("SEARCHBENCH_PASSWORD", SECURED_PASSWORD)
        .output()
        .unwrap();
    succeeded(&out);
}

/// The cells of column `name` of a table as the CLI draws it, each whole however its text
/// wrapped: a row's continuation lines have an empty first column.
fn cells(table: &str, name: &str) -> Vec<String> {
    let split = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('│')
            .split('┆')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut lines = table.lines().filter(|l| l.trim_start().starts_with('│'));
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let Some(at) = split(header).iter().position(|h| h == name) else {
        return Vec::new();
    };
    let mut cells: Vec<String> = Vec::new();
    for line in lines {
        let row = split(line);
        let part = row.get(at).cloned().unwrap_or_default();
        match cells.last_mut() {
            Some(cell) if row.first().is_some_and(String::is_empty) => {
                if !part.is_empty() {
                    cell.push(' ');
                    cell.push_str(&part);
                }
            }
            _ => cells.push(part),
        }
    }
    cells
}
