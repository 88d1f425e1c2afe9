//! `deploy kubernetes` and `deploy ssh`: the run's flags checked by the hosts' own parser,
//! secrets refused, a track's folder shipped whole in the ConfigMap (read back through the
//! Kubernetes API's types and checked by `workload check` where a pod would find it), the
//! ssh lines one host a part.

use std::path::Path;

use searchbench::deploy::kubernetes::{Manifest, FILES_DIR};

use crate::common;

fn deploy(dir: &Path, args: &[&str]) -> std::process::Output {
    common::bin()
        .current_dir(dir)
        .arg("deploy")
        .args(args)
        .output()
        .unwrap()
}

fn refused(out: &std::process::Output, says: &str) {
    let streams = common::streams(out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(streams.contains(says), "wanted {says:?}: {streams}");
}

#[test]
fn a_run_that_cannot_be_deployed_is_refused_naming_why() {
    let dir = tempfile::tempdir().unwrap();
    let k8s = |run: &[&str]| {
        let mut args = vec!["kubernetes", "--parts", "2", "--"];
        args.extend(run);
        deploy(dir.path(), &args)
    };
    let url = "http://es.example:9200";
    refused(
        &k8s(&["run", "logs", "--url", url, "--password", "hunter2"]),
        "--password would be written into every host's command line",
    );
    refused(
        &k8s(&[
            "ingest",
            "logs",
            "--url=https://elastic:hunter2@es.example:9200",
        ]),
        "--url carries credentials",
    );
    // A password holding `/`, `#`, `?` or `,` is user info to the client: refused too, in
    // every form of the flag and for ssh as for Kubernetes, and never shown.
    for bad in [
        "https://elastic:hunt/er2@es.example:9200",
        "https://elastic:hu#nt/er?2@es.example:9200",
        "http://es.example:9200,https://elastic:hunt/er2@es2.example:9200",
        "https://elastic:hunt,er2@es.example:9200",
    ] {
        let inline = format!("--url={bad}");
        for out in [
            k8s(&["run", "logs", "--url", bad]),
            k8s(&["ingest", "logs", &inline]),
            deploy(
                dir.path(),
                &["ssh", "--hosts", "a,b", "--", "run", "logs", "--url", bad],
            ),
        ] {
            refused(&out, "--url carries credentials");
            let streams = common::streams(&out);
            assert!(
                !streams.contains("hunt") && !streams.contains("er2@"),
                "{streams}"
            );
        }
    }
    // The results cluster's secrets too, on the ssh hosts' command lines as on the pods'.
    let ssh = |run: &[&str]| {
        let mut args = vec!["ssh", "--hosts", "a,b", "--"];
        args.extend(run);
        deploy(dir.path(), &args)
    };
    for (flags, says) in [
        (
            vec!["--publish", "https://publisher:s3cret@results:9200"],
            "--publish carries credentials",
        ),
        (
            vec!["--publish=https://publisher:s3cret@results:9200"],
            "--publish carries credentials",
        ),
        (
            vec!["--publish-password", "s3cret"],
            "--publish-password would be written into every host's command line: put it in \
             the Secret (Kubernetes) or the hosts' environment (SEARCHBENCH_PUBLISH_PASSWORD)",
        ),
        (
            vec!["--publish-api-key=s3cret"],
            "--publish-api-key would be written",
        ),
        // A value named as a secret, in the flags that name what they set.
        (
            vec!["--track-params", "bulk_size:10,es_password:s3cret"],
            "--track-params: \"es_password\" names a secret",
        ),
        (
            vec!["--jvm-opt=-Djavax.net.ssl.trustStorePassword=s3cret"],
            "names a secret",
        ),
        (
            vec!["--tag", "api_token=s3cret"],
            "--tag: \"api_token\" names a secret",
        ),
    ] {
        let mut run = vec!["run", "logs", "--url", url];
        run.extend(flags);
        let out = ssh(&run);
        refused(&out, says);
        assert!(!common::streams(&out).contains("s3cret"));
    }
    refused(
        &k8s(&["run", "logs", "--url", url, "--part", "1/2"]),
        "set by the deployment",
    );
    refused(&k8s(&["run", "logs"]), "give it with --url");
    refused(&k8s(&["compare", "a", "b"]), "give the run");
    refused(
        &k8s(&["run", "logs", "--url", url, "--bogus"]),
        "the run's flags",
    );
    // Nothing a refusal names leaks the secret.
    let out = k8s(&["run", "logs", "--url", url, "--api-key=c2VjcmV0"]);
    refused(&out, "--api-key");
    assert!(!common::streams(&out).contains("c2VjcmV0"));
    refused(
        &deploy(
            dir.path(),
            &["ssh", "--hosts", "a", "--", "run", "logs", "--url", url],
        ),
        "2 to 1024 parts",
    );
    let far = [
        "ssh",
        "--hosts",
        "a,b",
        "--start-at",
        "2099-01-01T00:00:00Z",
        "--",
        "run",
        "logs",
        "--url",
        url,
    ];
    refused(&deploy(dir.path(), &far), "more than 24 h ahead");
}

/// A track travels with its folder (its index bodies, its operations), under the paths the
/// run's flags are rewritten to; materialized where a pod mounts it, it reads whole.
#[test]
fn a_tracks_folder_travels_in_the_config_map_and_reads_whole_where_the_pod_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let track_dir = dir.path().join("mytrack");
    std::fs::create_dir_all(track_dir.join("operations")).unwrap();
    std::fs::write(
        track_dir.join("track.json"),
        r#"{"version": 2, "indices": [{"name": "t1", "body": "index.json"}],
            "operations": [{{ rally.collect(parts="operations/*.json") }}],
            "schedule": [{"operation": "drop"}, {"operation": "q", "clients": 1}]}"#
            .replace(
                "{{ rally",
                "{% import \"rally.helpers\" as rally %}{{ rally",
            ),
    )
    .unwrap();
    std::fs::write(track_dir.join("index.json"), r#"{"settings": {}}"#).unwrap();
    std::fs::write(
        track_dir.join("operations").join("ops.json"),
        r#"{"name": "drop", "operation-type": "delete-index"},
           {"name": "q", "operation-type": "search", "body": {"query": {"match_all": {}}}}"#,
    )
    .unwrap();
    let out = deploy(
        dir.path(),
        &[
            "kubernetes",
            "--parts",
            "4",
            "--group",
            "nightly-42",
            "--start-at",
            "2026-11-26T20:00:00Z",
            "--out",
            "m.json",
            "--",
            "run",
            "--workload-file",
            "mytrack/track.json",
            "--url",
            "http://es.example:9200",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("kubectl apply -f m.json"), "{stderr}");
    assert!(
        stderr.contains("searchbench results merge nightly-42"),
        "{stderr}"
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m.json")).unwrap()).unwrap();
    let m = Manifest::read(&written).unwrap();
    let pod = m.job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    let args = pod.containers[0].args.as_ref().unwrap();
    let track = format!("{FILES_DIR}/0/track.json");
    assert_eq!(args[..3], ["run", "--workload-file", track.as_str()]);
    // Where the pod finds its files: every item of the ConfigMap at its path.
    let (mounted, paths) = mounted(&m);
    assert_eq!(
        paths,
        ["0/index.json", "0/operations/ops.json", "0/track.json"]
    );
    let out = common::bin()
        .args(["workload", "check"])
        .arg(mounted.path().join("0/track.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    // A link in the track's folder to a file (or a folder) outside it is refused: its bytes
    // would be copied into the ConfigMap.
    std::fs::write(dir.path().join("secret.txt"), "hunter2").unwrap();
    for (link, to) in [
        ("operations/leak.json", dir.path().join("secret.txt")),
        ("etc", std::path::PathBuf::from("/etc")),
    ] {
        std::os::unix::fs::symlink(&to, track_dir.join(link)).unwrap();
        let out = deploy(
            dir.path(),
            &[
                "kubernetes",
                "--parts",
                "2",
                "--out",
                "m2.json",
                "--",
                "run",
                "--workload-file",
                "mytrack/track.json",
                "--url",
                "http://es.example:9200",
            ],
        );
        refused(&out, link);
        refused(&out, searchbench::workload::folder::RULE);
        assert!(!common::streams(&out).contains("hunter2"));
        assert!(!dir.path().join("m2.json").exists());
        std::fs::remove_file(track_dir.join(link)).unwrap();
    }
}

/// Every file a run reads travels with it (a mapping, a pipeline, a track's parameters in a
/// file), under the pod's files and as the host's copy lines name them: checked here and
/// then missing on every pod, they failed each part with "No such file".
#[test]
fn every_file_a_run_reads_travels_with_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("map.json"), r#"{"properties": {}}"#).unwrap();
    std::fs::write(dir.path().join("pipe.json"), r#"{"processors": []}"#).unwrap();
    let out = deploy(
        dir.path(),
        &[
            "kubernetes",
            "--parts",
            "2",
            "--out",
            "m.json",
            "--",
            "ingest",
            "logs",
            "--url",
            "http://es.example:9200",
            "--mapping",
            "map.json",
            "--pipeline=pipe.json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m.json")).unwrap()).unwrap();
    let m = Manifest::read(&written).unwrap();
    let pod = m.job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    let args = pod.containers[0].args.as_ref().unwrap();
    let (_mounted, paths) = mounted(&m);
    assert_eq!(paths, ["0/map.json", "1/pipe.json"]);
    for want in [
        format!("{FILES_DIR}/0/map.json"),
        format!("{FILES_DIR}/1/pipe.json"),
    ] {
        assert!(args.contains(&want), "{want}: {args:?}");
    }
    let out = deploy(
        dir.path(),
        &[
            "ssh",
            "--hosts",
            "a,b",
            "--",
            "ingest",
            "logs",
            "--url",
            "http://es.example:9200",
            "--mapping",
            "map.json",
        ],
    );
    let stdout = common::succeeded(&out);
    assert!(
        stdout.contains(
            "'mkdir -p searchbench-files/0 && cat > searchbench-files/0/map.json' < map.json"
        ),
        "{stdout}"
    );
}

#[test]
fn ssh_prints_one_command_a_host_and_how_to_collect() {
    let dir = tempfile::tempdir().unwrap();
    let out = deploy(
        dir.path(),
        &[
            "ssh",
            "--hosts",
            "a,b,c",
            "--group",
            "g1",
            "--start-at",
            "2026-11-26T20:00:00Z",
            "--",
            "ingest",
            "logs",
            "--docs",
            "3000000",
            "--url",
            "http://es:9200",
        ],
    );
    let stdout = common::succeeded(&out);
    for (i, host) in ["a", "b", "c"].iter().enumerate() {
        let part = i + 1;
        let options = searchbench::deploy::ssh::SSH_OPTIONS;
        assert!(
            stdout.contains(&format!(
                "ssh -n {options} {host} 'searchbench ingest logs --docs 3000000 --url \
                 http://es:9200 --part {part}/3 --group g1 --start-at 2026-11-26T20:00:00Z \
                 --store searchbench-g1-part{part}.db' &"
            )),
            "{stdout}"
        );
        assert!(stdout.contains(&format!(
            "scp {options} {host}:searchbench-g1-part{part}.db ."
        )));
    }
    assert!(stdout.contains("searchbench results merge g1 --url http://es:9200"));
}

/// The image the manifest runs has the user the manifest makes its volumes writable for.
#[test]
fn the_dockerfiles_user_is_the_one_the_manifest_names() {
    let dockerfile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Dockerfile");
    let text = std::fs::read_to_string(dockerfile).unwrap();
    let uid = searchbench::deploy::kubernetes::IMAGE_UID;
    assert!(text.contains(&format!("--uid {uid}")), "{text}");
    assert!(text.contains(&format!("USER {uid}")), "{text}");
}

/// An OSB workload reads the common_operations beside its folder: it travels beside the
/// track's folder, and the workload checks whole where the pod finds it.
#[test]
fn an_osb_workloads_common_operations_travel_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let workload = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tracks/osb/nyc_taxis/workload.json");
    let out = deploy(
        dir.path(),
        &[
            "kubernetes",
            "--parts",
            "2",
            "--out",
            "m.json",
            "--",
            "run",
            "--workload-file",
            workload.to_str().unwrap(),
            "--url",
            "http://es.example:9200",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m.json")).unwrap()).unwrap();
    let m = Manifest::read(&written).unwrap();
    let (mounted, paths) = mounted(&m);
    assert!(
        paths.iter().any(|p| p.starts_with("common_operations/")),
        "{paths:?}"
    );
    let out = common::bin()
        .args(["workload", "check"])
        .arg(mounted.path().join("0/workload.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
}

/// Every item of the manifest's ConfigMap written where a pod finds it: the folder, and the
/// items' paths, sorted.
fn mounted(m: &Manifest) -> (tempfile::TempDir, Vec<String>) {
    let pod = m.job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    let data = m.config_map.as_ref().unwrap().data.as_ref().unwrap();
    let volume = pod
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .find(|v| v.name == "files")
        .unwrap();
    let items = volume.config_map.as_ref().unwrap().items.as_ref().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for item in items {
        let at = dir.path().join(&item.path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(&at, &data[&item.key]).unwrap();
    }
    let mut paths: Vec<String> = items.iter().map(|i| i.path.clone()).collect();
    paths.sort_unstable();
    (dir, paths)
}

/// `deploy kubernetes --publish`: the parts publish and exit, the CA travels with them, the
/// results cluster's password stays in the Secret; `--schedule` makes the nightly CronJob.
/// What would put a secret in the manifest, or leave nobody to collect, is refused.
#[test]
fn publishing_parts_and_a_nightly_schedule_are_written_and_misuse_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("results-ca.pem"),
        "-----BEGIN CERTIFICATE-----\n",
    )
    .unwrap();
    let run = ["--", "ingest", "logs", "--url", "http://es.example:9200"];
    let k8s = |extra: &[&str]| {
        let mut args = vec!["kubernetes", "--parts", "3", "--out", "m.json"];
        args.extend(extra);
        args.extend(run);
        deploy(dir.path(), &args)
    };
    let out = k8s(&[
        "--publish",
        "https://results.example:9200",
        "--publish-user",
        "bench",
        "--publish-prefix",
        "team-a",
        "--publish-ca-cert",
        "results-ca.pem",
        "--schedule",
        "0 2 * * *",
        "--name",
        "nightly-logs",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("kubectl get secret searchbench-credentials -o name && kubectl apply"),
        "{stderr}"
    );
    assert!(
        stderr.contains("results merge 'nightly-logs-<scheduled minute>'")
            && stderr.contains("--from https://results.example:9200 --from-prefix team-a"),
        "{stderr}"
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m.json")).unwrap()).unwrap();
    let m = Manifest::read(&written).unwrap();
    let cron = m.cron_job.as_ref().expect("a CronJob");
    assert_eq!(cron.metadata.name.as_deref(), Some("nightly-logs"));
    let job = m.job.spec.as_ref().unwrap();
    assert_eq!(job.ttl_seconds_after_finished, Some(86_400));
    let (_mounted, paths) = mounted(&m);
    assert_eq!(paths, ["publish/results-ca.pem"]);
    assert!(!written.to_string().to_lowercase().contains("password"));

    // Misuse, each refused before anything is written.
    std::fs::remove_file(dir.path().join("m.json")).unwrap();
    for (extra, says) in [
        (vec!["--schedule", "0 2 * * *"], "--publish <URL>"),
        (
            vec!["--publish", "http://r:9200", "--schedule", "nightly"],
            "five fields",
        ),
        (
            vec!["--publish", "https://bench:hunter2@r:9200"],
            "--publish carries credentials",
        ),
        (
            vec!["--publish", "http://r:9200", "--publish-prefix", "../x"],
            "prefix",
        ),
    ] {
        refused(&k8s(&extra), says);
        assert!(!dir.path().join("m.json").exists());
    }
    // Publishing set inside the run's flags would bypass the pods' own publishing.
    let out = deploy(
        dir.path(),
        &[
            "kubernetes",
            "--parts",
            "2",
            "--",
            "ingest",
            "logs",
            "--url",
            "http://es:9200",
            "--publish",
            "http://r:9200",
        ],
    );
    refused(&out, "give --publish URL");
    let out = deploy(
        dir.path(),
        &[
            "kubernetes",
            "--parts",
            "2",
            "--",
            "ingest",
            "logs",
            "--url",
            "http://es:9200",
            "--publish-password",
            "hunter2",
        ],
    );
    refused(&out, "give --publish URL");
    assert!(!common::streams(&out).contains("hunter2"));
}
