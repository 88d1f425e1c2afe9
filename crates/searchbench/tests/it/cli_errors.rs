//! Errors that teach: TLS spoken to a plain-HTTP port, a URL without a scheme, an unknown
//! engine (exit 2 in every command), "did you mean" for workloads, variants and transports,
//! an unreachable second URL, and a results store that does not exist.

use std::process::Output;

use std::time::Duration;

use crate::common::{bin, dead_url, node_url, raw_server, scratch_store, streams};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run searchbench")
}

/// Asserts the exit code and that stderr says `message`.
fn says(out: &Output, code: i32, message: &str) {
    let text = streams(out);
    assert_eq!(out.status.code(), Some(code), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(message),
        "expected {message:?} in {text}"
    );
}

#[test]
fn https_on_a_plain_http_port_says_so() {
    let https = node_url().replacen("http://", "https://", 1);
    let out = run(&["target", "--url", &https]);
    says(&out, 1, "the server speaks plain HTTP on this port");
    says(&out, 1, "try http://");
}

#[test]
fn a_url_without_a_scheme_suggests_one() {
    let host_port = node_url().trim_start_matches("http://").to_string();
    for cmd in [
        vec!["target", "--url", &host_port],
        vec!["query", "cluster-metrics", "--url", "localhost:9200"],
    ] {
        let out = run(&cmd);
        says(&out, 2, "no scheme: write it as http://HOST:PORT");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("relative URL without a base"),
            "{}",
            streams(&out)
        );
    }
}

#[test]
fn an_unknown_engine_is_bad_usage_in_every_command() {
    let typo = "opensaerch-2.19.1";
    let out = run(&["engine", "start", typo]);
    says(&out, 2, "unknown engine \"opensaerch-2.19.1\"");
    for cmd in ["ingest", "run", "calibrate"] {
        let out = run(&[cmd, "logs", "--docs", "10", "--engine", typo]);
        says(&out, 2, "unknown engine \"opensaerch-2.19.1\"");
    }
    let out = run(&["experiment", "dates", "--engine", typo]);
    says(&out, 2, "unknown engine \"opensaerch-2.19.1\"");
}

#[test]
fn unknown_names_get_a_did_you_mean() {
    for (cmd, guess) in [
        (vec!["run", "lgos"], "did you mean \"logs\"?"),
        (
            vec!["ingest", "transaction"],
            "did you mean \"transactions\"?",
        ),
        (
            vec!["generate", "cluster_metrics", "--docs", "1"],
            "did you mean \"cluster-metrics\"?",
        ),
        (
            vec!["query", "cluster-metric", "--url", "http://127.0.0.1:9"],
            "did you mean \"cluster-metrics\"?",
        ),
        (
            vec![
                "query",
                "cluster-metrics",
                "--url",
                "http://127.0.0.1:9",
                "--variants",
                "D-td",
            ],
            "did you mean \"D_td\"?",
        ),
        (
            vec![
                "query",
                "logs",
                "--docs",
                "10",
                "--url",
                "http://127.0.0.1:9",
                "--transports",
                "msearh",
            ],
            "did you mean \"msearch\"?",
        ),
    ] {
        let out = run(&cmd);
        says(&out, 2, guess);
        says(&out, 2, "known: ");
    }
    // Nothing close: the list alone.
    let out = run(&["run", "banana"]);
    says(&out, 2, "unknown workload \"banana\"; known: logs");
}

#[test]
fn target_info_reports_a_url_that_does_not_answer() {
    let dead = dead_url();
    let urls = format!("{},{dead}", node_url());
    let out = run(&["target", "--url", &urls]);
    says(&out, 1, "1 of 2 URLs did not answer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&dead), "{}", streams(&out));
    let out = run(&["target", "--url", &urls, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["endpoints"][0]["reachable"], true);
    assert_eq!(v["endpoints"][1]["reachable"], false);
}

#[test]
fn reading_commands_refuse_a_store_that_does_not_exist() {
    let dir = tempfile::tempdir().expect("temp dir");
    let typo = dir.path().join("typo.db");
    let typo_text = typo.display().to_string();
    for cmd in [
        vec!["results", "list"],
        vec!["results", "show", "abcd1234"],
        vec!["compare", "abcd1234", "bcde2345"],
        vec!["report", "abcd1234"],
    ] {
        let out = bin()
            .args(&cmd)
            .args(["--store", &typo_text])
            .output()
            .expect("run");
        says(&out, 1, &format!("no results store at {typo_text}"));
        assert!(!typo.exists(), "{cmd:?} created {typo_text}");
    }
    // Through the environment too.
    let missing = scratch_store();
    let out = bin()
        .env("SEARCHBENCH_STORE", &missing)
        .args(["results", "list"])
        .output()
        .expect("run");
    says(&out, 1, "no results store at");
    assert!(!missing.exists());
}

#[test]
fn a_user_without_a_password_is_told_where_the_password_comes_from() {
    let unauthorized = raw_server(
        Some(b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 98\r\nconnection: close\r\n\r\n{\"error\":{\"type\":\"security_exception\",\"reason\":\"missing authentication credentials\"},\"status\":401}"),
        Duration::ZERO,
    );
    let out = bin()
        .env_remove("SEARCHBENCH_PASSWORD")
        .args(["target", "--url", &unauthorized, "--user", "admin"])
        .output()
        .expect("run");
    says(&out, 1, "HTTP 401");
    says(&out, 1, "--user admin came without a password");
    says(&out, 1, "SEARCHBENCH_PASSWORD");
}

#[test]
fn a_ca_cert_file_without_a_certificate_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content, expect) in [
        ("empty.pem", "", "the file is empty"),
        (
            "garbage.pem",
            "not a certificate at all\n",
            "holds no PEM block but no certificate",
        ),
        (
            "key.pem",
            "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
            "holds a private key but no certificate",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let out = run(&[
            "target",
            "info",
            "--url",
            "https://127.0.0.1:9",
            "--ca-cert",
            path.to_str().unwrap(),
        ]);
        let text = streams(&out);
        assert_ne!(out.status.code(), Some(0), "{text}");
        assert!(text.contains(name) && text.contains(expect), "{text}");
        assert!(!text.contains("UnknownIssuer"), "{text}");
    }
}

/// A TLS server (`openssl s_server`, a self-signed certificate) on a free loopback port;
/// killed when dropped.
struct TlsServer {
    child: std::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tls_server() -> TlsServer {
    let dir = tempfile::tempdir().unwrap();
    let (key, cert) = (dir.path().join("key.pem"), dir.path().join("cert.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (a prerequisite of this test)");
    assert!(made.status.success(), "{}", streams(&made));
    let port = dead_url().rsplit(':').next().unwrap().to_string();
    let child = std::process::Command::new("openssl")
        .args(["s_server", "-quiet", "-www", "-accept", &port, "-cert"])
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("openssl s_server");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "openssl s_server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    TlsServer {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _dir: dir,
    }
}

#[test]
fn plain_http_to_a_tls_port_says_to_use_https() {
    let server = tls_server();
    let out = run(&["target", "--url", &server.url, "--timeout", "5"]);
    says(
        &out,
        1,
        "the server speaks HTTPS on this port: use https://",
    );
}

#[test]
fn a_zero_timeout_is_bad_usage() {
    let out = run(&[
        "target",
        "info",
        "--url",
        "http://127.0.0.1:9",
        "--timeout",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        crate::common::streams(&out)
    );
}
