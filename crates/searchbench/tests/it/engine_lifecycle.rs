//! Foundation: engines start, answer and stop for real; the target layer reports errors clearly.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Output;
use std::time::{Duration, Instant};

use searchbench::engine::{self, process, NodeRecord};

use crate::common;

fn run(args: &[&str]) -> Output {
    common::bin().args(args).output().expect("run searchbench")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            stderr(out)
        )
    })
}

#[test]
fn shared_node_is_the_real_engine() {
    let url = common::node_url();
    let out = run(&["target", "--url", url, "--json"]);
    assert!(out.status.success(), "target info failed: {}", stderr(&out));
    let info = json(&out);
    let spec = engine::find(&common::test_engine()).expect("catalogue entry");
    assert_eq!(info["version"], spec.version);
    assert_eq!(
        info["product"],
        serde_json::to_value(spec.product).expect("product")
    );
    assert!(matches!(
        info["health"]["status"].as_str(),
        Some("green" | "yellow")
    ));
    let nodes = info["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 1);
    let roles: Vec<&str> = nodes[0]["roles"]
        .as_array()
        .expect("roles")
        .iter()
        .filter_map(|r| r.as_str())
        .collect();
    assert!(
        roles.contains(&"ingest"),
        "the node must have the ingest role: {roles:?}"
    );
}

#[test]
fn start_status_stop_leaves_nothing_behind() {
    // Make sure the engine is provisioned (the shared node does that), so this start is warm.
    common::node_url();
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let port_s = port.to_string();
    let name = common::test_engine();
    let transport_free = port
        .checked_add(100)
        .is_some_and(|t| TcpListener::bind(("127.0.0.1", t)).is_ok());
    let out = run(&[
        "engine",
        "start",
        &name,
        "--port",
        &port_s,
        "--heap",
        "512m",
        "--jvm-opt=-Dsearchbench.given=yes",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "engine start failed: {}",
        stderr(&out)
    );
    let started = json(&out);
    assert_eq!(
        started["fetched"], false,
        "a second start must reuse the cache"
    );
    let pid = started["pid"].as_u64().expect("pid") as u32;
    assert!(process::is_ours(pid, process::LAUNCHER_CLASS));
    if transport_free {
        let record: NodeRecord =
            serde_json::from_slice(&std::fs::read(NodeRecord::path_for(port)).expect("record"))
                .expect("record json");
        assert_eq!(
            record.transport_port,
            port + 100,
            "transport next to --port"
        );
    }

    // The node answers with the right version.
    let body = http_get(port, "/");
    let spec = engine::find(&name).expect("spec");
    assert!(
        body.contains(&format!("\"number\" : \"{}\"", spec.version)),
        "GET / said: {body}"
    );
    // The JVM got SEARCHBENCH_JVM_OPTS's options (the tests' own unless the caller set it),
    // then --jvm-opt's.
    let jvm = http_get(port, "/_nodes/_local/jvm");
    let machine = std::env::var(engine::JVM_OPTS_ENV).unwrap_or(common::TEST_JVM_OPTS.into());
    let mut expected: Vec<&str> = machine.split_whitespace().collect();
    expected.push("-Dsearchbench.given=yes");
    let body = jvm.find('{').zip(jvm.rfind('}')).expect("a JSON body");
    let nodes: serde_json::Value = serde_json::from_str(&jvm[body.0..=body.1]).expect("json");
    let args: Vec<&str> = nodes["nodes"]
        .as_object()
        .and_then(|n| n.values().next())
        .and_then(|n| n["jvm"]["input_arguments"].as_array())
        .expect("input_arguments")
        .iter()
        .filter_map(|a| a.as_str())
        .filter(|a| expected.contains(a))
        .collect();
    assert_eq!(args, expected, "{jvm}");

    // Starting again on the same port fails clearly, with exit code 2.
    let again = run(&["engine", "start", &name, "--port", &port_s]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains(&format!("port {port} on 127.0.0.1 is already in use")),
        "{}",
        stderr(&again)
    );

    let status = run(&["engine", "status", "--json"]);
    assert!(status.status.success());
    let rows = json(&status);
    let row = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["pid"] == pid)
        .expect("our node in status")
        .clone();
    assert!(
        matches!(row["health"].as_str(), Some("green" | "yellow")),
        "{row}"
    );

    let stop = run(&["engine", "stop", "--port", &port_s]);
    assert!(stop.status.success(), "{}", stderr(&stop));
    assert!(String::from_utf8_lossy(&stop.stdout).contains("stopped"));
    assert!(
        !searchbench::os::pid_alive(pid),
        "the java process must be gone after stop"
    );
    assert!(
        !NodeRecord::path_for(port).exists(),
        "the node record must be removed"
    );
    assert!(
        TcpListener::bind(("127.0.0.1", port)).is_ok(),
        "the port must be free again"
    );
}

#[test]
fn port_taken_by_another_process() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port().to_string();
    let out = run(&["engine", "start", "--port", &port]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("already in use by another process"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn no_suitable_jdk_is_named() {
    let empty = tempfile::tempdir().expect("tempdir");
    let out = common::bin()
        .args(["engine", "start", "opensearch-2.19.1"])
        .env_remove("JAVA_HOME")
        .env("SEARCHBENCH_JDK_DIRS", empty.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("runs on JDK 17–21 and none was found"),
        "{err}"
    );
    assert!(err.contains("found: none"), "{err}");
}

#[test]
fn jdk_too_old_for_opensearch_3() {
    // Offer only JDKs older than 21: opensearch-3.8.0 must refuse and say what it found.
    let dir = tempfile::tempdir().expect("tempdir");
    let old: Vec<_> = engine::jdk::discover()
        .into_iter()
        .filter(|j| j.feature < 21)
        .collect();
    let Some(jdk17) = old.first() else {
        eprintln!("skipped: no JDK older than 21 on this machine to offer");
        return;
    };
    std::os::unix::fs::symlink(&jdk17.home, dir.path().join("old-jdk")).expect("symlink");
    let out = common::bin()
        .args(["engine", "start", "opensearch-3.8.0"])
        .env_remove("JAVA_HOME")
        .env("SEARCHBENCH_JDK_DIRS", dir.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("opensearch-3.8.0 runs on JDK 21+"), "{err}");
    assert!(err.contains(&format!("JDK {}", jdk17.feature)), "{err}");
}

#[test]
fn unknown_engine_is_a_usage_error() {
    let out = run(&["engine", "start", "solr-9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown engine \"solr-9\": engine names are opensearch-VERSION"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn stale_record_is_forgotten() {
    // A record whose process is gone (pid of a child that already exited).
    let child = std::process::Command::new("true")
        .spawn()
        .expect("spawn")
        .wait();
    assert!(child.is_ok());
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let record = NodeRecord {
        engine: "opensearch-2.19.1".into(),
        pid: 999_999_999,
        http_port: port,
        transport_port: port,
        url: format!("http://127.0.0.1:{port}"),
        data_dir: std::env::temp_dir().join("searchbench-stale-test"),
        data_is_ours: false,
        log: std::env::temp_dir().join("searchbench-stale-test.log"),
        started_unix: 0,
        heap: "1g".into(),
        cluster: String::new(),
        node_name: String::new(),
        mark: process::LAUNCHER_CLASS.into(),
        node_dir: None,
        repo_dir: None,
        ca_cert: None,
        owner: String::new(),
        process_mark: None,
    };
    record.save().expect("save record");
    let out = run(&["engine", "stop", "--port", &port.to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("stale record"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!NodeRecord::path_for(port).exists());

    // A record that outlived its node (a reboot, a cache restored) naming a pid that is now
    // another process carrying the same mark: stale, and that process is left alone.
    use std::os::unix::process::CommandExt;
    let mut other = std::process::Command::new("sh")
        .args(["-c", "sleep 60", process::LAUNCHER_CLASS])
        .process_group(0)
        .spawn()
        .expect("spawn");
    let record = NodeRecord {
        pid: other.id(),
        process_mark: Some("another-boot:1".into()),
        ..record
    };
    record.save().expect("save record");
    let out = run(&["engine", "stop", "--port", &port.to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("stale record"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        other.try_wait().expect("wait").is_none(),
        "the other process was stopped"
    );
    let _ = other.kill();
    let _ = other.wait();
}

#[test]
fn bad_urls_are_usage_errors() {
    for (url, why) in [
        ("not a url", "no scheme: write it as http://HOST:PORT"),
        ("ftp://127.0.0.1:9200", "scheme must be http or https"),
        // Credentials in a URL are basic auth, but a bad URL never echoes its password.
        (
            "ftp://elastic:changeme@127.0.0.1:9200",
            "scheme must be http or https",
        ),
    ] {
        let out = run(&["target", "--url", url]);
        assert_eq!(out.status.code(), Some(2), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains("bad URL"), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{url}: {}", stderr(&out));
        assert!(!stderr(&out).contains("changeme"), "{}", stderr(&out));
    }
}

#[test]
fn wrong_credentials_show_the_servers_reason_and_no_secret() {
    let url = common::raw_server(
        Some(b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 121\r\n\r\n{\"error\":{\"type\":\"security_exception\",\"reason\":\"unable to authenticate user [bench] for REST request [/]\"},\"status\":401}     "),
        Duration::ZERO,
    );
    let out = common::bin()
        .args(["target", "--url", &url, "--user", "bench"])
        .env("SEARCHBENCH_PASSWORD", "s3cret-pw")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "GET {url}/: HTTP 401: security_exception: unable to authenticate user [bench]"
        )),
        "{err}"
    );
    assert!(
        !err.contains("s3cret-pw") && !String::from_utf8_lossy(&out.stdout).contains("s3cret-pw")
    );
}

#[test]
fn garbage_answer_names_the_request() {
    let url = common::raw_server(
        Some(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nnot json!"),
        Duration::ZERO,
    );
    let out = run(&["target", "--url", &url]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "GET {url}/: the server's answer is not what we expected"
        )),
        "{err}"
    );
    assert!(err.contains("not json!"), "{err}");
}

#[test]
fn silent_server_times_out() {
    // Never answers: holds the connection until the client gives up.
    let url = common::raw_server(None, Duration::from_secs(10));
    let started = Instant::now();
    let out = run(&["target", "--url", &url, "--timeout", "1"]);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("GET {url}/: no answer within the timeout")),
        "{err}"
    );
}

#[test]
fn refused_connection_is_named() {
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = run(&["target", "--url", &url]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("GET {url}/: cannot connect")),
        "{}",
        stderr(&out)
    );
}

fn http_get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut body = String::new();
    let _ = stream.read_to_string(&mut body);
    body
}

/// SIGTERM (a CI job's timeout) while an engine is provisioned stops the provisioning (its
/// Maven is stopped) and ends the run as interrupted within seconds: the download and the
/// node's start went on for minutes, then the job's SIGKILL left Maven orphaned.
#[test]
fn sigterm_while_an_engine_is_provisioned_stops_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a folder");
    let bin_dir = dir.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let started = dir.path().join("mvn-started");
    // A Maven that takes its time: it says its pid, then sleeps.
    std::fs::write(
        bin_dir.join("mvn"),
        format!(
            "#!/bin/sh\necho $$ > {}\nexec sleep 120\n",
            started.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(bin_dir.join("mvn"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = common::bin()
        .args([
            "run",
            "logs",
            "--engine",
            "opensearch-2.19.1",
            "--docs",
            "100",
        ])
        .arg("--no-store")
        .env("SEARCHBENCH_CACHE", dir.path().join("cache"))
        .env("PATH", path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !started.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("ended before Maven started ({status}): {err}");
        }
        assert!(Instant::now() < deadline, "Maven never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mvn: i32 = std::fs::read_to_string(&started)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signals to a process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            // SAFETY: as above.
            unsafe { libc::kill(mvn, libc::SIGKILL) };
            panic!("the run did not end within 20 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted: opensearch-2.19.1 was being provisioned; nothing was run"),
        "{err}"
    );
    // SAFETY: signal 0 only asks whether the process is there.
    assert_ne!(unsafe { libc::kill(mvn, 0) }, 0, "Maven is still running");
}
