//! `deploy kubernetes`: the parts as one Kubernetes **Indexed Job** (`completionMode:
//! Indexed`, as many completions and pods at once as parts): pod K runs part K+1
//! (`JOB_COMPLETION_INDEX`), every pod with the same group and start time, the run's files
//! from a ConfigMap, credentials from a Secret (never inline), on nodes of their own
//! (anti-affinity on the group's label). Each part keeps its store on a volume claim all the
//! pods share, or on its pod until collected with `kubectl cp`. Built from the Kubernetes
//! API's own types (`k8s-openapi`), written as a `v1` `List` that `kubectl apply -f` takes.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::batch::v1::{CronJob, CronJobSpec, Job, JobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{
    Affinity, ConfigMap, ConfigMapVolumeSource, Container, EmptyDirVolumeSource, EnvFromSource,
    EnvVar, EnvVarSource, KeyToPath, ObjectFieldSelector, PersistentVolumeClaimVolumeSource,
    PodAffinityTerm, PodAntiAffinity, PodSecurityContext, PodSpec, PodTemplateSpec,
    ResourceRequirements, SecretEnvSource, Volume, VolumeMount, WeightedPodAffinityTerm,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::{json, Value};

use super::{DeployError, Deployment};

/// Where a pod finds the run's files.
pub const FILES_DIR: &str = "/searchbench/files";
/// Where a pod keeps its part's store.
pub const RESULTS_DIR: &str = "/results";
/// The label every pod of a group carries (its value: the group). Each night of a schedule
/// is told apart by the label Kubernetes gives a Job's pods, `job-name` (the night's group).
pub const GROUP_LABEL: &str = "searchbench.io/group";
/// The label every object of a schedule carries, every night's and the morning merge's
/// (its value: the CronJob's name).
pub const SCHEDULE_LABEL: &str = "searchbench.io/schedule";
/// The label telling a schedule's morning merge from its nights (its value: `merge`).
pub const ROLE_LABEL: &str = "searchbench.io/role";
/// What a ConfigMap holds at most (Kubernetes refuses more than 1 MiB; room for its keys).
pub const MAX_FILES_BYTES: usize = 1_000_000;
/// The user the repository's image runs as: the volumes are made its group's.
pub const IMAGE_UID: i64 = 10001;
/// The file whose presence in `/results` ends a pod's wait to be collected.
pub const COLLECTED: &str = "collected";

/// How the parts run on Kubernetes.
#[derive(Debug, Clone, PartialEq)]
pub struct KubernetesSpec {
    /// The Job's name (and its pods' prefix).
    pub name: String,
    pub namespace: Option<String>,
    /// An image with `searchbench` on its PATH and `/bin/sh` (the repository's Dockerfile).
    pub image: String,
    /// The Secret whose keys become the pods' environment (`SEARCHBENCH_PASSWORD`,
    /// `SEARCHBENCH_PUBLISH_PASSWORD`, ...): required, so a missing one stops the pods from
    /// starting rather than letting each part meet 401s. `None`: a cluster without
    /// credentials.
    pub secret: Option<String>,
    /// Each pod's CPU and memory (requested; memory is its limit too).
    pub cpu: String,
    pub memory: String,
    /// A volume claim every pod mounts at [`RESULTS_DIR`] (ReadWriteMany): the parts' stores
    /// land there, side by side. Without one, each pod keeps its store until collected.
    pub results_claim: Option<String>,
    /// A volume claim mounted read-only at a path (corpus files, a track's data).
    pub data_claim: Option<(String, String)>,
    /// How long a pod without a results claim waits to be collected after its part.
    pub keep: Duration,
    /// Parts on different nodes, required (else only preferred).
    pub spread_required: bool,
    /// Where each part publishes its run when it has ended (`--publish`): the part then
    /// exits, its store needs no collecting (unless the results cluster never took it).
    pub publish: Option<PublishTo>,
    /// A CronJob running the parts on this schedule instead of one Job now.
    pub schedule: Option<Schedule>,
    /// How long a finished Job (and its pods, their logs) stays before Kubernetes deletes it.
    pub ttl: Duration,
}

/// The team's results cluster, as each pod's environment names it (its password or API
/// key in the Secret: `SEARCHBENCH_PUBLISH_PASSWORD`, `SEARCHBENCH_PUBLISH_API_KEY`).
#[derive(Debug, Clone, PartialEq)]
pub struct PublishTo {
    pub url: String,
    pub user: Option<String>,
    pub prefix: String,
    /// The CA certificate's path in the pod (a shipped file).
    pub ca_cert: Option<String>,
}

/// A nightly form: a CronJob whose every Job is one run in parts. Each night's group is its
/// Job's name (`NAME-<scheduled minute>`, unique), and its parts start at the scheduled
/// minute plus `start_in`.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The cron expression, e.g. `0 2 * * *`.
    pub cron: String,
    pub start_in: Duration,
    /// When the morning merge runs (a CronJob of its own, e.g. `0 7 * * *`): the newest
    /// night's parts, read from the results cluster, merged into one run published there.
    pub merge_at: Option<String>,
}

/// Times a part's store is published again when the results cluster did not take it, and the
/// wait between.
const REPUBLISH_TRIES: u32 = 5;
const REPUBLISH_WAIT_SECS: u32 = 30;

/// The objects `deploy kubernetes` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub config_map: Option<ConfigMap>,
    /// The Job of one run (with a schedule, the one each night's run is made from).
    pub job: Job,
    /// The CronJob that makes a Job like `job` on a schedule (written instead of it).
    pub cron_job: Option<CronJob>,
    /// The schedule's morning merge, a CronJob of its own.
    pub merge_job: Option<CronJob>,
}

impl Manifest {
    /// The objects as one `v1` `List`, the form `kubectl apply -f` takes in one file.
    pub fn to_value(&self) -> Result<Value, DeployError> {
        let mut items = Vec::new();
        let json = |e: serde_json::Error| DeployError::Invalid(e.to_string());
        if let Some(c) = &self.config_map {
            items.push(serde_json::to_value(c).map_err(json)?);
        }
        match &self.cron_job {
            Some(c) => items.push(serde_json::to_value(c).map_err(json)?),
            None => items.push(serde_json::to_value(&self.job).map_err(json)?),
        }
        if let Some(m) = &self.merge_job {
            items.push(serde_json::to_value(m).map_err(json)?);
        }
        Ok(json!({ "apiVersion": "v1", "kind": "List", "items": items }))
    }

    /// A manifest read back from its `List`, through the API's types.
    pub fn read(value: &Value) -> Result<Manifest, String> {
        let items = value
            .get("items")
            .and_then(Value::as_array)
            .ok_or("not a List: no items")?;
        let (mut config_map, mut job, mut cron_job, mut merge_job) = (None, None, None, None);
        for item in items {
            match item.get("kind").and_then(Value::as_str) {
                Some("ConfigMap") => {
                    config_map =
                        Some(serde_json::from_value(item.clone()).map_err(|e| e.to_string())?)
                }
                Some("Job") => {
                    job = Some(serde_json::from_value(item.clone()).map_err(|e| e.to_string())?)
                }
                Some("CronJob") => {
                    let c: CronJob =
                        serde_json::from_value(item.clone()).map_err(|e| e.to_string())?;
                    let role = c.metadata.labels.as_ref().and_then(|l| l.get(ROLE_LABEL));
                    if role.is_some_and(|r| r == "merge") {
                        merge_job = Some(c);
                        continue;
                    }
                    let template = c.spec.as_ref().map(|s| s.job_template.clone());
                    job = template.map(|t| Job {
                        metadata: t.metadata.unwrap_or_default(),
                        spec: t.spec,
                        ..Job::default()
                    });
                    cron_job = Some(c);
                }
                other => return Err(format!("an item of kind {other:?}")),
            }
        }
        Ok(Manifest {
            config_map,
            job: job.ok_or("no Job")?,
            cron_job,
            merge_job,
        })
    }
}

/// A name Kubernetes takes for a Job (a DNS-1123 label of at most 52 characters, so its
/// pods' names fit): `searchbench-<group>` made so.
pub fn job_name(group: &str) -> String {
    let mut name: String = format!("searchbench-{group}")
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.truncate(52);
    name.trim_end_matches('-').to_string()
}

/// Whether `name` is a DNS-1123 label Kubernetes takes for a Job.
fn is_dns_label(name: &str) -> bool {
    (1..=52).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// The names the manifest and the printed `kubectl` lines carry, as Kubernetes takes them:
/// a namespace is a DNS-1123 label, a Secret and a claim a DNS-1123 subdomain, the image a
/// reference. Anything else (a space, `;`, `$(…)`) is refused naming its flag, so nothing
/// lands in a shell line unquoted.
fn check_names(k: &KubernetesSpec) -> Result<(), DeployError> {
    let refuse = |flag: &str, value: &str, what: &str| {
        Err(DeployError::Invalid(format!(
            "{flag} {:?}: {what}",
            value.chars().take(80).collect::<String>()
        )))
    };
    const SUBDOMAIN: &str = "a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at \
                             most 253, a letter or digit at each end of each part";
    if let Some(ns) = &k.namespace {
        if !is_label(ns, 63) {
            return refuse(
                "--namespace",
                ns,
                "a namespace is a DNS-1123 label: lowercase letters, digits and '-', at most \
                 63, a letter or digit at each end",
            );
        }
    }
    for (flag, name) in [
        ("--secret", k.secret.as_deref()),
        ("--results-claim", k.results_claim.as_deref()),
        (
            "--data-claim",
            k.data_claim.as_ref().map(|(c, _)| c.as_str()),
        ),
    ] {
        if let Some(name) = name.filter(|n| !is_subdomain(n)) {
            return refuse(flag, name, SUBDOMAIN);
        }
    }
    if let Some((_, path)) = &k.data_claim {
        if !path.starts_with('/') || path.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return refuse(
                "--data-claim",
                path,
                "its path is absolute, without spaces or control characters",
            );
        }
    }
    if !is_image(&k.image) {
        return refuse(
            "--image",
            &k.image,
            "not an image reference ([registry[:port]/]name[:tag][@digest], the name in \
             lowercase)",
        );
    }
    Ok(())
}

/// A DNS-1123 label of at most `max` characters.
fn is_label(s: &str, max: usize) -> bool {
    (1..=max).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// A DNS-1123 subdomain: labels joined by dots, at most 253 characters.
fn is_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(|label| is_label(label, 63))
}

/// An image reference as the distribution grammar has it: `[host[:port]/]path[:tag][@digest]`.
fn is_image(s: &str) -> bool {
    let (rest, digest) = match s.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (s, None),
    };
    if let Some(digest) = digest {
        let Some((algorithm, hex)) = digest.split_once(':') else {
            return false;
        };
        let algorithm_ok = !algorithm.is_empty()
            && algorithm.split(['+', '.', '_', '-']).all(|p| {
                !p.is_empty()
                    && p.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if !algorithm_ok || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return false;
        }
    }
    // A tag follows the last ':' after the last '/' (a registry's port is before it).
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (&rest[..last_slash + i], Some(&rest[last_slash + i + 1..])),
        None => (rest, None),
    };
    if let Some(tag) = tag {
        let ok = (1..=128).contains(&tag.len())
            && !tag.starts_with(['.', '-'])
            && tag
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !ok {
            return false;
        }
    }
    if name.is_empty() || name.len() > 255 {
        return false;
    }
    let parts: Vec<&str> = name.split('/').collect();
    let (host, path) = match parts.split_first() {
        Some((first, rest))
            if !rest.is_empty() && (first.contains(['.', ':']) || *first == "localhost") =>
        {
            (Some(*first), rest)
        }
        _ => (None, &parts[..]),
    };
    if let Some(host) = host {
        let (domain, port) = match host.split_once(':') {
            Some((domain, port)) => (domain, Some(port)),
            None => (host, None),
        };
        let domain_ok = domain.split('.').all(|l| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
        let port_ok = port
            .is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
        if !domain_ok || !port_ok {
            return false;
        }
    }
    path.iter().all(|component| is_path_component(component))
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`: one part of an image's name.
fn is_path_component(c: &str) -> bool {
    let b = c.as_bytes();
    let alnum = |x: u8| x.is_ascii_lowercase() || x.is_ascii_digit();
    if b.is_empty() || !alnum(b[0]) || !alnum(b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(b[i]) {
            i += 1;
            continue;
        }
        // A separator: '.', '_' or "__", or one or more '-', between alphanumerics.
        let start = i;
        while i < b.len() && !alnum(b[i]) {
            i += 1;
        }
        let sep = &c[start..i];
        let ok = matches!(sep, "." | "_" | "__") || sep.bytes().all(|x| x == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// How long a pod asked to stop has before it is killed: a run's stop (its requests' grace,
/// its report, its store, owed settings put back, a publish) takes seconds to a minute; the
/// default 30 s cut some short.
const STOP_GRACE_SECS: i64 = 120;

/// The shell each pod runs: its part from the Job's index, the run's flags (`"$@"`); then
/// what its store needs: nothing on a results claim, publishing again what the results
/// cluster did not take, the wait to be collected when its store is still on the pod.
fn script(d: &Deployment, k: &KubernetesSpec) -> String {
    let mut lines = vec!["part=$((JOB_COMPLETION_INDEX + 1))".to_string()];
    // One run a night: its group is its Job's name, its start the scheduled minute (the
    // number a CronJob ends its Jobs' names with) and the time to get every pod going.
    let (group, start) = match &k.schedule {
        None => (d.group.clone(), d.start_at.clone()),
        Some(s) => {
            lines.push("group=\"$JOB_NAME\"".into());
            lines.push(format!(
                "start=$(date -u -d \"@$(( ${{JOB_NAME##*-}} * 60 + {} ))\" \
                 +%Y-%m-%dT%H:%M:%SZ)",
                s.start_in.as_secs()
            ));
            ("\"$group\"".into(), "\"$start\"".into())
        }
    };
    let store = match &k.results_claim {
        Some(_) => format!("{RESULTS_DIR}/{}/part-$part.db", group.trim_matches('"')),
        None => format!("{RESULTS_DIR}/part-$part.db"),
    };
    lines.push(format!("mkdir -p \"$(dirname \"{store}\")\""));
    // The shell is the container's first process: a SIGTERM (a Job deleted, a pod evicted)
    // reaches it alone, and it neither acts on it nor passes it on. The run is its child,
    // handed the signal, and waited for through its own graceful stop (its partial result
    // kept, the index's settings put back).
    lines.push(format!(
        "searchbench \"$@\" --part \"$part/{}\" --group {group} --start-at {start} --store \"{store}\" &",
        d.parts
    ));
    lines.push("child=$!".into());
    lines.push("trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT HUP".into());
    lines.push("wait \"$child\"; rc=$?".into());
    lines.push(
        "while [ \"$rc\" -gt 128 ] && kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; rc=$?; done"
            .into(),
    );
    lines.push("trap - TERM INT HUP".into());
    let collect = |lines: &mut Vec<String>| {
        lines.push(format!(
            "echo \"part $part/{}: exit $rc; its store is {store}: kubectl cp it, then touch \
             {RESULTS_DIR}/{COLLECTED} (or wait {} s)\"",
            d.parts,
            k.keep.as_secs()
        ));
        lines.push(format!(
            "waited=0; while [ ! -e {RESULTS_DIR}/{COLLECTED} ] && [ \"$waited\" -lt {} ]; do \
             sleep 5; waited=$((waited + 5)); done",
            k.keep.as_secs()
        ));
    };
    if k.publish.is_some() {
        // The part published its run as it ended; what the results cluster did not take
        // (down, refused) is sent again, and a store still holding it waits to be collected.
        lines.push(format!(
            "published=1; tries=0; while [ \"$tries\" -lt {REPUBLISH_TRIES} ]; do \
             if searchbench results publish --pending --store \"{store}\"; then published=0; \
             break; fi; tries=$((tries + 1)); sleep {REPUBLISH_WAIT_SECS}; done"
        ));
        if k.results_claim.is_none() {
            let mut wait = Vec::new();
            collect(&mut wait);
            lines.push(format!(
                "if [ \"$published\" -ne 0 ]; then\n{}\nfi",
                wait.join("\n")
            ));
        }
    } else if k.results_claim.is_none() {
        collect(&mut lines);
    }
    lines.push("exit \"$rc\"".into());
    lines.join("\n")
}

/// The Indexed Job (and the ConfigMap of its files) that runs `d` as `k` says.
pub fn manifest(d: &Deployment, k: &KubernetesSpec) -> Result<Manifest, DeployError> {
    d.check()?;
    if !is_dns_label(&k.name) {
        return Err(DeployError::Invalid(format!(
            "{:?}: a Job's name is 1 to 52 lowercase letters, digits or `-`, not at either end",
            k.name
        )));
    }
    check_names(k)?;
    let size: usize = d.files.iter().map(|f| f.bytes.len()).sum();
    if size > MAX_FILES_BYTES {
        return Err(DeployError::Invalid(format!(
            "the run's files are {size} bytes; a ConfigMap holds at most {MAX_FILES_BYTES}: put \
             them on a volume (--data-claim CLAIM:PATH) and give the run their paths there"
        )));
    }
    // One run now: its group. A schedule: every night's pods the schedule's, each night
    // told apart by its Job's name (`job-name`, the night's group), which Kubernetes adds.
    let (group_key, group_value) = match &k.schedule {
        None => (GROUP_LABEL, d.group.clone()),
        Some(_) => (SCHEDULE_LABEL, k.name.clone()),
    };
    let labels: BTreeMap<String, String> = [
        (
            "app.kubernetes.io/name".to_string(),
            "searchbench".to_string(),
        ),
        (group_key.to_string(), group_value.clone()),
    ]
    .into();
    let meta = |name: &str| ObjectMeta {
        name: Some(name.to_string()),
        namespace: k.namespace.clone(),
        labels: Some(labels.clone()),
        ..ObjectMeta::default()
    };
    let files_name = format!("{}-files", k.name);
    let config_map = (!d.files.is_empty()).then(|| {
        let (mut data, mut binary) = (BTreeMap::new(), BTreeMap::new());
        for (i, f) in d.files.iter().enumerate() {
            let key = file_key(i, &f.path);
            // Text as text (readable in `kubectl get -o yaml`), anything else as bytes.
            if let Ok(text) = String::from_utf8(f.bytes.clone()) {
                data.insert(key, text);
            } else {
                binary.insert(key, k8s_openapi::ByteString(f.bytes.clone()));
            }
        }
        ConfigMap {
            metadata: meta(&files_name),
            data: (!data.is_empty()).then_some(data),
            binary_data: (!binary.is_empty()).then_some(binary),
            immutable: Some(true),
        }
    });
    let mut volumes = Vec::new();
    let mut mounts = Vec::new();
    if config_map.is_some() {
        volumes.push(Volume {
            name: "files".into(),
            config_map: Some(ConfigMapVolumeSource {
                name: files_name.clone(),
                items: Some(
                    d.files
                        .iter()
                        .enumerate()
                        .map(|(i, f)| KeyToPath {
                            key: file_key(i, &f.path),
                            path: f.path.clone(),
                            mode: None,
                        })
                        .collect(),
                ),
                ..ConfigMapVolumeSource::default()
            }),
            ..Volume::default()
        });
        mounts.push(VolumeMount {
            name: "files".into(),
            mount_path: FILES_DIR.into(),
            read_only: Some(true),
            ..VolumeMount::default()
        });
    }
    volumes.push(Volume {
        name: "results".into(),
        persistent_volume_claim: k.results_claim.as_ref().map(|claim| {
            PersistentVolumeClaimVolumeSource {
                claim_name: claim.clone(),
                read_only: Some(false),
            }
        }),
        empty_dir: k
            .results_claim
            .is_none()
            .then(EmptyDirVolumeSource::default),
        ..Volume::default()
    });
    mounts.push(VolumeMount {
        name: "results".into(),
        mount_path: RESULTS_DIR.into(),
        ..VolumeMount::default()
    });
    if let Some((claim, path)) = &k.data_claim {
        volumes.push(Volume {
            name: "data".into(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: claim.clone(),
                read_only: Some(true),
            }),
            ..Volume::default()
        });
        mounts.push(VolumeMount {
            name: "data".into(),
            mount_path: path.clone(),
            read_only: Some(true),
            ..VolumeMount::default()
        });
    }
    let term = PodAffinityTerm {
        label_selector: Some(LabelSelector {
            match_labels: Some([(group_key.to_string(), group_value)].into()),
            ..LabelSelector::default()
        }),
        // A night's parts spread among themselves: the pods with this pod's `job-name`.
        match_label_keys: k.schedule.as_ref().map(|_| vec!["job-name".to_string()]),
        topology_key: "kubernetes.io/hostname".into(),
        ..PodAffinityTerm::default()
    };
    let anti_affinity = if k.spread_required {
        PodAntiAffinity {
            required_during_scheduling_ignored_during_execution: Some(vec![term]),
            ..PodAntiAffinity::default()
        }
    } else {
        PodAntiAffinity {
            preferred_during_scheduling_ignored_during_execution: Some(vec![
                WeightedPodAffinityTerm {
                    pod_affinity_term: term,
                    weight: 100,
                },
            ]),
            ..PodAntiAffinity::default()
        }
    };
    let quantity = |q: &str| Quantity(q.to_string());
    let container = Container {
        name: "part".into(),
        image: Some(k.image.clone()),
        command: Some(vec![
            "/bin/sh".into(),
            "-c".into(),
            script(d, k),
            "searchbench".into(),
        ]),
        args: Some(d.args.clone()),
        env: environment(k),
        env_from: k.secret.as_ref().map(|name| {
            vec![EnvFromSource {
                secret_ref: Some(SecretEnvSource {
                    name: name.clone(),
                    optional: Some(false),
                }),
                ..EnvFromSource::default()
            }]
        }),
        resources: Some(ResourceRequirements {
            requests: Some(
                [
                    ("cpu".to_string(), quantity(&k.cpu)),
                    ("memory".to_string(), quantity(&k.memory)),
                ]
                .into(),
            ),
            limits: Some([("memory".to_string(), quantity(&k.memory))].into()),
            ..ResourceRequirements::default()
        }),
        volume_mounts: Some(mounts),
        ..Container::default()
    };
    let parts =
        i32::try_from(d.parts).map_err(|_| DeployError::Invalid("too many parts".into()))?;
    let job = Job {
        metadata: meta(&k.name),
        spec: Some(JobSpec {
            completion_mode: Some("Indexed".into()),
            completions: Some(parts),
            parallelism: Some(parts),
            // A part run again would load its share twice: a failed part fails the group.
            backoff_limit: Some(0),
            ttl_seconds_after_finished: Some(
                i32::try_from(k.ttl.as_secs())
                    .map_err(|_| DeployError::Invalid("--ttl is too long".into()))?,
            ),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels.clone()),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    restart_policy: Some("Never".into()),
                    termination_grace_period_seconds: Some(STOP_GRACE_SECS),
                    // A results claim is written by the image's user.
                    security_context: Some(PodSecurityContext {
                        fs_group: Some(IMAGE_UID),
                        ..PodSecurityContext::default()
                    }),
                    affinity: Some(Affinity {
                        pod_anti_affinity: Some(anti_affinity),
                        ..Affinity::default()
                    }),
                    containers: vec![container],
                    volumes: Some(volumes),
                    ..PodSpec::default()
                }),
            },
            ..JobSpec::default()
        }),
        ..Job::default()
    };
    let mut job = job;
    let cron_job = match &k.schedule {
        None => None,
        Some(s) => Some(CronJob {
            metadata: meta(&k.name),
            spec: Some(CronJobSpec {
                schedule: s.cron.clone(),
                // A night's run still going when the next is due: the next waits its turn
                // (two runs at once would measure each other).
                concurrency_policy: Some("Forbid".into()),
                job_template: JobTemplateSpec {
                    // The CronJob names each Job (NAME-<scheduled minute>), in its namespace.
                    metadata: Some(ObjectMeta {
                        labels: Some(labels.clone()),
                        ..ObjectMeta::default()
                    }),
                    spec: job.spec.clone(),
                },
                ..CronJobSpec::default()
            }),
            ..CronJob::default()
        }),
    };
    if let Some(c) = &cron_job {
        job.metadata = c
            .spec
            .as_ref()
            .and_then(|s| s.job_template.metadata.clone())
            .unwrap_or_default();
    }
    let merge_job = match k.schedule.as_ref().and_then(|s| s.merge_at.as_ref()) {
        Some(at) => Some(merge_cron_job(k, at, &labels, &job)?),
        None => None,
    };
    Ok(Manifest {
        config_map,
        job,
        cron_job,
        merge_job,
    })
}

/// The morning merge of a schedule: a CronJob of its own whose pod merges the newest night
/// (`results merge --newest NAME-`) from the parts published to the results cluster, and
/// publishes the merged run there; it fails (and Kubernetes shows it) when the night is not
/// complete or the merged run could not be published. Merging again replaces the earlier
/// merge, so a retried or repeated morning does no harm.
fn merge_cron_job(
    k: &KubernetesSpec,
    at: &str,
    labels: &BTreeMap<String, String>,
    night: &Job,
) -> Result<CronJob, DeployError> {
    let name = format!("{}-merge", k.name);
    if !is_dns_label(&name) {
        return Err(DeployError::Invalid(format!(
            "{name:?}: with a morning merge the name is at most 46 characters (its CronJob is \
             NAME-merge)"
        )));
    }
    if k.publish.is_none() {
        return Err(DeployError::Invalid(
            "a morning merge reads the night's parts from the results cluster: give --publish"
                .into(),
        ));
    }
    let mut labels = labels.clone();
    labels.insert(ROLE_LABEL.into(), "merge".into());
    let night_pod = night
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.clone())
        .unwrap_or_default();
    let night_container = night_pod.containers.first().cloned().unwrap_or_default();
    // Where the night's files are (a CA certificate for the results cluster), and a place
    // for the merge's own store; nothing else of the night's pod.
    let volumes: Vec<Volume> = night_pod
        .volumes
        .unwrap_or_default()
        .into_iter()
        .filter(|v| v.name == "files")
        .chain(std::iter::once(Volume {
            name: "results".into(),
            empty_dir: Some(EmptyDirVolumeSource::default()),
            ..Volume::default()
        }))
        .collect();
    let mounts: Vec<VolumeMount> = night_container
        .volume_mounts
        .unwrap_or_default()
        .into_iter()
        .filter(|m| m.name == "files" || m.name == "results")
        .collect();
    // The URL, user, prefix and CA are the pods' environment (no value of the user's lands
    // in the shell line); the password is the Secret's.
    let script = format!(
        "exec searchbench results merge --newest {}- --from \"$SEARCHBENCH_PUBLISH\" \
         --store {RESULTS_DIR}/merge.db --publish-required",
        k.name
    );
    let env = environment(k).map(|env| {
        env.into_iter()
            .filter(|e| e.name != "JOB_NAME")
            .collect::<Vec<_>>()
    });
    let container = Container {
        name: "merge".into(),
        image: Some(k.image.clone()),
        command: Some(vec!["/bin/sh".into(), "-c".into(), script]),
        env,
        env_from: night_container.env_from,
        resources: night_container.resources,
        volume_mounts: Some(mounts),
        ..Container::default()
    };
    let meta = |name: &str| ObjectMeta {
        name: Some(name.to_string()),
        namespace: k.namespace.clone(),
        labels: Some(labels.clone()),
        ..ObjectMeta::default()
    };
    Ok(CronJob {
        metadata: meta(&name),
        spec: Some(CronJobSpec {
            schedule: at.to_string(),
            concurrency_policy: Some("Forbid".into()),
            job_template: JobTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels.clone()),
                    ..ObjectMeta::default()
                }),
                spec: Some(JobSpec {
                    // A merge is safe to repeat: a pod lost to its node is tried again.
                    backoff_limit: Some(2),
                    ttl_seconds_after_finished: night
                        .spec
                        .as_ref()
                        .and_then(|s| s.ttl_seconds_after_finished),
                    template: PodTemplateSpec {
                        metadata: Some(ObjectMeta {
                            labels: Some(labels.clone()),
                            ..ObjectMeta::default()
                        }),
                        spec: Some(PodSpec {
                            restart_policy: Some("Never".into()),
                            termination_grace_period_seconds: Some(STOP_GRACE_SECS),
                            security_context: night_pod.security_context,
                            containers: vec![container],
                            volumes: Some(volumes),
                            ..PodSpec::default()
                        }),
                    },
                    ..JobSpec::default()
                }),
            },
            ..CronJobSpec::default()
        }),
        ..CronJob::default()
    })
}

/// The pods' environment beyond the Secret: where to publish (nothing secret), and with a
/// schedule the Job's name (each night's group).
fn environment(k: &KubernetesSpec) -> Option<Vec<EnvVar>> {
    let plain = |name: &str, value: &str| EnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..EnvVar::default()
    };
    let mut env = Vec::new();
    if let Some(p) = &k.publish {
        env.push(plain("SEARCHBENCH_PUBLISH", &p.url));
        env.push(plain("SEARCHBENCH_PUBLISH_PREFIX", &p.prefix));
        if let Some(user) = &p.user {
            env.push(plain("SEARCHBENCH_PUBLISH_USER", user));
        }
        if let Some(ca) = &p.ca_cert {
            env.push(plain("SEARCHBENCH_PUBLISH_CA_CERT", ca));
        }
    }
    if k.schedule.is_some() {
        env.push(EnvVar {
            name: "JOB_NAME".into(),
            value_from: Some(EnvVarSource {
                field_ref: Some(ObjectFieldSelector {
                    field_path: "metadata.labels['job-name']".into(),
                    ..ObjectFieldSelector::default()
                }),
                ..EnvVarSource::default()
            }),
            ..EnvVar::default()
        });
    }
    (!env.is_empty()).then_some(env)
}

/// A ConfigMap key for the `i`th file (keys are letters, digits, `-`, `_`, `.`).
fn file_key(i: usize, path: &str) -> String {
    let plain: String = path
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("f{i}-{plain}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::ShippedFile;

    fn deployment() -> Deployment {
        Deployment {
            group: "nightly-42".into(),
            parts: 4,
            start_at: "2026-11-26T20:00:00Z".into(),
            args: vec![
                "run".into(),
                "--workload-file".into(),
                format!("{FILES_DIR}/0/track.json"),
                "--url".into(),
                "https://es.example:9200".into(),
                "--index".into(),
                "it's mine".into(),
            ],
            files: vec![
                ShippedFile {
                    path: "0/track.json".into(),
                    bytes: br#"{"indices": []}"#.to_vec(),
                },
                ShippedFile {
                    path: "0/operations/default.json".into(),
                    bytes: b"[]".to_vec(),
                },
                ShippedFile {
                    path: "1/ca.der".into(),
                    bytes: vec![0x30, 0x82, 0xff, 0x00],
                },
            ],
        }
    }

    fn spec(results_claim: Option<&str>) -> KubernetesSpec {
        KubernetesSpec {
            name: job_name("nightly-42"),
            namespace: Some("bench".into()),
            image: "registry.example/searchbench:1".into(),
            secret: Some("es-credentials".into()),
            cpu: "4".into(),
            memory: "3Gi".into(),
            results_claim: results_claim.map(str::to_string),
            data_claim: Some(("corpora".into(), "/data".into())),
            keep: Duration::ZERO,
            spread_required: true,
            publish: None,
            schedule: None,
            ttl: Duration::from_secs(86_400),
        }
    }

    /// A folder with a `searchbench` that prints its arguments (and fails `results publish`
    /// when `publish_fails`), and a `sleep` that does not wait: what a pod's shell runs.
    fn fake_path(publish_fails: bool) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fail = if publish_fails {
            "if [ \"$1 $2\" = \"results publish\" ]; then echo republish >&2; exit 1; fi\n"
        } else {
            ""
        };
        for (name, body) in [
            (
                "searchbench",
                format!("#!/bin/sh\n{fail}for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"),
            ),
            ("sleep", "#!/bin/sh\nexit 0\n".to_string()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, body).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    /// The kinds of a written manifest's items, in order.
    fn kinds_of(written: &Value) -> Vec<&str> {
        written["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["kind"].as_str().unwrap())
            .collect()
    }

    /// Runs pod `index`'s shell of `job` as Kubernetes would, with `env`, its results
    /// folder in `dir`.
    fn run_pod(
        job: &Job,
        dir: &std::path::Path,
        index: u32,
        env: &[(&str, &str)],
    ) -> std::process::Output {
        let pod = job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        let c = &pod.containers[0];
        let command = c.command.as_ref().unwrap();
        let script = command[2].replace(RESULTS_DIR, &dir.display().to_string());
        std::process::Command::new(&command[0])
            .arg("-c")
            .arg(&script)
            .arg(&command[3])
            .args(c.args.as_ref().unwrap())
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    /// A SIGTERM to the pod's shell (its first process: a Job deleted, a pod evicted) reaches
    /// the run, which stops as it does on its own, and the pod ends with the run's code.
    #[test]
    fn a_pod_asked_to_stop_passes_it_to_the_run_and_ends_with_its_code() {
        use std::os::unix::fs::PermissionsExt;
        let d = deployment();
        let k = spec(Some("results"));
        let m = manifest(&d, &k).unwrap();
        let job = &m.job;
        let pod = job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        assert_eq!(pod.termination_grace_period_seconds, Some(STOP_GRACE_SECS));
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("searchbench");
        std::fs::write(
            &fake,
            "#!/bin/sh\ntrap 'echo stopped-gracefully; exit 130' TERM\necho started\n\
             while :; do /bin/sleep 0.05; done\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let c = &pod.containers[0];
        let command = c.command.as_ref().unwrap();
        let script = command[2].replace(RESULTS_DIR, &dir.path().display().to_string());
        let mut shell = std::process::Command::new(&command[0])
            .arg("-c")
            .arg(&script)
            .arg(&command[3])
            .args(c.args.as_ref().unwrap())
            .env("JOB_COMPLETION_INDEX", "0")
            .env("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(shell.id() as i32, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let status = loop {
            if let Some(status) = shell.try_wait().unwrap() {
                break status;
            }
            assert!(std::time::Instant::now() < deadline, "the pod did not stop");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut said = String::new();
        std::io::Read::read_to_string(&mut shell.stdout.take().unwrap(), &mut said).unwrap();
        assert!(said.contains("stopped-gracefully"), "{said}");
        assert_eq!(status.code(), Some(130), "{said}");
    }

    /// Publishing parts: where to publish is in each pod's environment (nothing secret in
    /// the manifest), the Secret is required, the part publishes what is still pending and
    /// exits; when the results cluster never takes it, the pod waits to be collected.
    #[test]
    fn publishing_parts_exit_once_published_and_wait_only_when_not() {
        let d = deployment();
        let mut k = spec(None);
        k.publish = Some(PublishTo {
            url: "https://results.example:9200".into(),
            user: Some("bench".into()),
            prefix: "team-a".into(),
            ca_cert: Some(format!("{FILES_DIR}/publish/ca.pem")),
        });
        let m = manifest(&d, &k).unwrap();
        let written = m.to_value().unwrap();
        assert_eq!(Manifest::read(&written).unwrap(), m);
        let spec_ = m.job.spec.as_ref().unwrap();
        assert_eq!(spec_.ttl_seconds_after_finished, Some(86_400));
        let c = &spec_.template.spec.as_ref().unwrap().containers[0];
        let env: BTreeMap<&str, &str> = c
            .env
            .as_ref()
            .unwrap()
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(env["SEARCHBENCH_PUBLISH"], "https://results.example:9200");
        assert_eq!(env["SEARCHBENCH_PUBLISH_USER"], "bench");
        assert_eq!(env["SEARCHBENCH_PUBLISH_PREFIX"], "team-a");
        assert!(env["SEARCHBENCH_PUBLISH_CA_CERT"].ends_with("/publish/ca.pem"));
        let secret = c.env_from.as_ref().unwrap()[0].secret_ref.as_ref().unwrap();
        assert_eq!(
            secret.optional,
            Some(false),
            "a missing Secret stops the pod"
        );
        assert!(!written.to_string().to_lowercase().contains("password"));

        // Published: the pod exits with its part's code, nothing waits.
        let dir = fake_path(false);
        let out = run_pod(&m.job, dir.path(), 1, &[]);
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("results\npublish\n--pending"), "{said}");
        assert!(!said.contains("kubectl cp"), "{said}");
        // Never taken: tried again five times, then the store waits to be collected.
        let dir = fake_path(true);
        let out = run_pod(&m.job, dir.path(), 1, &[]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr)
                .matches("republish")
                .count(),
            5
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("kubectl cp it"));
    }

    /// The nightly form: a CronJob whose Jobs are the run, one at a time; each night's
    /// group is its Job's name and its parts start the scheduled minute plus --start-in.
    #[test]
    fn a_schedule_makes_a_cron_job_whose_every_night_is_its_own_group() {
        let d = deployment();
        let mut k = spec(None);
        k.publish = Some(PublishTo {
            url: "http://results:9200".into(),
            user: None,
            prefix: "searchbench".into(),
            ca_cert: None,
        });
        k.schedule = Some(Schedule {
            cron: "0 2 * * *".into(),
            start_in: Duration::from_secs(120),
            merge_at: None,
        });
        let m = manifest(&d, &k).unwrap();
        let written = m.to_value().unwrap();
        let kinds = kinds_of(&written);
        assert_eq!(kinds, ["ConfigMap", "CronJob"]);
        assert_eq!(Manifest::read(&written).unwrap(), m);
        let cron = m.cron_job.as_ref().unwrap().spec.as_ref().unwrap();
        assert_eq!(cron.schedule, "0 2 * * *");
        assert_eq!(cron.concurrency_policy.as_deref(), Some("Forbid"));
        let c = &m
            .job
            .spec
            .as_ref()
            .unwrap()
            .template
            .spec
            .as_ref()
            .unwrap()
            .containers[0];
        let job_name = c
            .env
            .as_ref()
            .unwrap()
            .iter()
            .find(|e| e.name == "JOB_NAME")
            .unwrap();
        assert_eq!(
            job_name
                .value_from
                .as_ref()
                .unwrap()
                .field_ref
                .as_ref()
                .unwrap()
                .field_path,
            "metadata.labels['job-name']"
        );
        // The night scheduled at 2026-11-28T02:00:00Z (minute 29,930,520 since the epoch).
        let dir = fake_path(false);
        let night = "searchbench-nightly-42-29930520";
        let out = run_pod(&m.job, dir.path(), 0, &[("JOB_NAME", night)]);
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains(&format!(
                "--group\n{night}\n--start-at\n2026-11-28T02:02:00Z\n"
            )),
            "{said}"
        );
    }

    /// A schedule with a morning merge: each night's pods are told apart by their Job's
    /// name (the schedule's label is shared, the group's is not), the parts of a night
    /// spread among themselves, and the merge is a CronJob of its own that merges the
    /// newest night from the results cluster and publishes it, nothing of the user's in its
    /// shell line.
    #[test]
    fn a_schedule_with_a_morning_merge_labels_each_night_and_merges_the_newest() {
        let d = deployment();
        let mut k = spec(None);
        k.publish = Some(PublishTo {
            url: "http://results:9200".into(),
            user: Some("publisher".into()),
            prefix: "team".into(),
            ca_cert: None,
        });
        k.schedule = Some(Schedule {
            cron: "0 2 * * *".into(),
            start_in: Duration::from_secs(120),
            merge_at: Some("0 7 * * *".into()),
        });
        let m = manifest(&d, &k).unwrap();
        let written = m.to_value().unwrap();
        let kinds = kinds_of(&written);
        assert_eq!(kinds, ["ConfigMap", "CronJob", "CronJob"]);
        assert_eq!(Manifest::read(&written).unwrap(), m);
        let night = m.job.spec.as_ref().unwrap().template.clone();
        let labels = night.metadata.as_ref().unwrap().labels.clone().unwrap();
        assert_eq!(labels[SCHEDULE_LABEL], k.name);
        assert!(!labels.contains_key(GROUP_LABEL), "{labels:?}");
        let spread = night
            .spec
            .as_ref()
            .unwrap()
            .affinity
            .as_ref()
            .unwrap()
            .pod_anti_affinity
            .as_ref()
            .unwrap()
            .required_during_scheduling_ignored_during_execution
            .as_ref()
            .unwrap()[0]
            .clone();
        assert_eq!(spread.match_label_keys, Some(vec!["job-name".to_string()]));

        let merge = m.merge_job.as_ref().unwrap();
        assert_eq!(
            merge.metadata.name.as_deref(),
            Some(format!("{}-merge", k.name).as_str())
        );
        let cron = merge.spec.as_ref().unwrap();
        assert_eq!(cron.schedule, "0 7 * * *");
        let merge_job = Job {
            metadata: cron.job_template.metadata.clone().unwrap_or_default(),
            spec: cron.job_template.spec.clone(),
            ..Job::default()
        };
        let pod = merge_job
            .spec
            .as_ref()
            .unwrap()
            .template
            .spec
            .as_ref()
            .unwrap();
        let c = &pod.containers[0];
        let env: Vec<&str> = c.env.iter().flatten().map(|e| e.name.as_str()).collect();
        assert!(env.contains(&"SEARCHBENCH_PUBLISH_USER") && !env.contains(&"JOB_NAME"));
        assert!(c.env_from.is_some(), "the Secret: the publisher's password");
        // Run as a pod would: what the merge is given.
        let dir = fake_path(false);
        let command = c.command.as_ref().unwrap();
        let script = command[2].replace(RESULTS_DIR, &dir.path().display().to_string());
        let out = std::process::Command::new(&command[0])
            .arg("-c")
            .arg(&script)
            .env("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))
            .env("SEARCHBENCH_PUBLISH", "http://results:9200")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains(&format!(
                "results\nmerge\n--newest\n{}-\n--from\nhttp://results:9200\n",
                k.name
            )) && said.contains("--publish-required"),
            "{said}"
        );
        // Without --publish there are no published parts to merge: refused.
        let mut unpublished = k.clone();
        unpublished.publish = None;
        assert!(manifest(&d, &unpublished).is_err());
    }

    /// The manifest read back through the API's types has every field the parts need, and
    /// nothing those types do not know (what they read, they write again the same).
    #[test]
    fn the_indexed_job_read_back_through_the_apis_types_has_every_field() {
        let d = deployment();
        let written = manifest(&d, &spec(None)).unwrap().to_value().unwrap();
        let m = Manifest::read(&written).unwrap();
        assert_eq!(
            m.to_value().unwrap(),
            written,
            "a field the API does not know"
        );
        let job = &m.job;
        assert_eq!(job.metadata.name.as_deref(), Some("searchbench-nightly-42"));
        assert_eq!(job.metadata.namespace.as_deref(), Some("bench"));
        let spec_ = job.spec.as_ref().unwrap();
        assert_eq!(spec_.completion_mode.as_deref(), Some("Indexed"));
        assert_eq!((spec_.completions, spec_.parallelism), (Some(4), Some(4)));
        assert_eq!(spec_.backoff_limit, Some(0));
        let pod = spec_.template.spec.as_ref().unwrap();
        assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
        assert_eq!(
            pod.security_context.as_ref().unwrap().fs_group,
            Some(IMAGE_UID)
        );
        let labels = spec_
            .template
            .metadata
            .as_ref()
            .unwrap()
            .labels
            .as_ref()
            .unwrap();
        assert_eq!(labels[GROUP_LABEL], "nightly-42");
        // One part a node: required anti-affinity on the group's label, per host.
        let anti = pod
            .affinity
            .as_ref()
            .unwrap()
            .pod_anti_affinity
            .as_ref()
            .unwrap();
        let terms = anti
            .required_during_scheduling_ignored_during_execution
            .as_ref()
            .unwrap();
        assert_eq!(terms[0].topology_key, "kubernetes.io/hostname");
        assert_eq!(
            terms[0]
                .label_selector
                .as_ref()
                .unwrap()
                .match_labels
                .as_ref()
                .unwrap()[GROUP_LABEL],
            "nightly-42"
        );
        let c = &pod.containers[0];
        assert_eq!(c.image.as_deref(), Some("registry.example/searchbench:1"));
        assert_eq!(c.args.as_ref().unwrap(), &d.args);
        let command = c.command.as_ref().unwrap();
        assert_eq!(&command[..2], ["/bin/sh", "-c"]);
        assert!(
            command[2].contains("JOB_COMPLETION_INDEX"),
            "{}",
            command[2]
        );
        assert!(command[2].contains("--group nightly-42 --start-at 2026-11-26T20:00:00Z"));
        // Credentials come from the Secret, never inline.
        let from = c.env_from.as_ref().unwrap()[0].secret_ref.as_ref().unwrap();
        assert_eq!(from.name, "es-credentials");
        assert!(c.env.is_none());
        let text = written.to_string();
        assert!(!text.to_lowercase().contains("password"), "{text}");
        let res = c.resources.as_ref().unwrap();
        assert_eq!(res.requests.as_ref().unwrap()["cpu"].0, "4");
        assert_eq!(res.requests.as_ref().unwrap()["memory"].0, "3Gi");
        assert_eq!(res.limits.as_ref().unwrap()["memory"].0, "3Gi");
        // The files from the ConfigMap, each at its path; the store on the pod; the data.
        let mounts: BTreeMap<&str, (&str, Option<bool>)> = c
            .volume_mounts
            .as_ref()
            .unwrap()
            .iter()
            .map(|m| (m.name.as_str(), (m.mount_path.as_str(), m.read_only)))
            .collect();
        assert_eq!(mounts["files"], (FILES_DIR, Some(true)));
        assert_eq!(mounts["results"].0, RESULTS_DIR);
        assert_eq!(mounts["data"], ("/data", Some(true)));
        let volumes = pod.volumes.as_ref().unwrap();
        let files = volumes.iter().find(|v| v.name == "files").unwrap();
        let cm = files.config_map.as_ref().unwrap();
        let paths: Vec<&str> = cm
            .items
            .as_ref()
            .unwrap()
            .iter()
            .map(|i| i.path.as_str())
            .collect();
        assert_eq!(
            paths,
            ["0/track.json", "0/operations/default.json", "1/ca.der"]
        );
        let results = volumes.iter().find(|v| v.name == "results").unwrap();
        assert!(results.empty_dir.is_some() && results.persistent_volume_claim.is_none());
        let config_map = m.config_map.as_ref().unwrap();
        assert_eq!(config_map.metadata.name.as_deref(), Some(cm.name.as_str()));
        let data = config_map.data.as_ref().unwrap();
        let key = &cm.items.as_ref().unwrap()[0].key;
        assert_eq!(data[key], r#"{"indices": []}"#);
        let binary = config_map.binary_data.as_ref().unwrap();
        assert_eq!(
            binary.values().next().unwrap().0,
            vec![0x30, 0x82, 0xff, 0x00]
        );
        // With a claim, the stores land on it side by side and no pod waits.
        let claimed = manifest(&d, &spec(Some("results"))).unwrap();
        let pod = claimed.job.spec.unwrap().template.spec.unwrap();
        let results = pod
            .volumes
            .unwrap()
            .into_iter()
            .find(|v| v.name == "results")
            .unwrap();
        assert_eq!(
            results.persistent_volume_claim.unwrap().claim_name,
            "results"
        );
        let script = &pod.containers[0].command.as_ref().unwrap()[2];
        assert!(
            script.contains("/results/nightly-42/part-$part.db"),
            "{script}"
        );
        // On a results claim, no wait to be collected.
        assert!(!script.contains(COLLECTED), "{script}");
    }

    /// Each pod's shell, run as Kubernetes runs it (`JOB_COMPLETION_INDEX` = 0..3), starts
    /// `searchbench` with the run's flags untouched and part K+1's own flags.
    #[test]
    fn each_pod_runs_its_part_with_the_runs_flags_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("searchbench");
        std::fs::write(
            &bin,
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let d = deployment();
        let mut k = spec(Some("results"));
        k.results_claim = None;
        let m = manifest(&d, &k).unwrap();
        let pod = m.job.spec.unwrap().template.spec.unwrap();
        let c = &pod.containers[0];
        let command = c.command.as_ref().unwrap();
        let script = command[2].replace(RESULTS_DIR, &dir.path().display().to_string());
        for index in 0..4u32 {
            let out = std::process::Command::new(&command[0])
                .arg("-c")
                .arg(&script)
                .arg(&command[3])
                .args(c.args.as_ref().unwrap())
                .env("JOB_COMPLETION_INDEX", index.to_string())
                .env("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            let argv: Vec<&str> = stdout
                .lines()
                .take_while(|l| !l.starts_with("part "))
                .collect();
            let mut expected: Vec<String> = d.args.clone();
            expected.extend(d.part_flags(
                &(index + 1).to_string(),
                &format!("{}/part-{}.db", dir.path().display(), index + 1),
            ));
            assert_eq!(argv, expected, "pod {index}");
        }
    }

    #[test]
    fn what_kubernetes_would_refuse_is_refused_here() {
        let mut d = deployment();
        let mut k = spec(None);
        k.name = "Not_A_Name".into();
        assert!(manifest(&d, &k)
            .unwrap_err()
            .to_string()
            .contains("a Job's name"));
        d.files.push(ShippedFile {
            path: "2/big.json".into(),
            bytes: vec![b'x'; MAX_FILES_BYTES],
        });
        let e = manifest(&d, &spec(None)).unwrap_err().to_string();
        assert!(e.contains("--data-claim"), "{e}");
        assert_eq!(job_name("Nightly_42.x"), "searchbench-nightly-42-x");
        assert!(is_dns_label(&job_name(&"g".repeat(64))));
    }

    #[test]
    fn names_and_an_image_kubernetes_would_refuse_are_refused_naming_the_flag() {
        let d = deployment();
        type Set = fn(&mut KubernetesSpec);
        let cases: [(Set, &str); 10] = [
            (|k| k.secret = Some("x; rm -rf ~".into()), "--secret"),
            (|k| k.secret = Some("$(id)".into()), "--secret"),
            (|k| k.namespace = Some("bench$(id)".into()), "--namespace"),
            (|k| k.namespace = Some("a.b".into()), "--namespace"),
            (|k| k.image = "img`id`".into(), "--image"),
            (|k| k.image = "Team/Img:1".into(), "--image"),
            (|k| k.image = "repo/x:1 && curl evil".into(), "--image"),
            (
                |k| k.results_claim = Some("res ults".into()),
                "--results-claim",
            ),
            (
                |k| k.data_claim = Some(("c|d".into(), "/data".into())),
                "--data-claim",
            ),
            (
                |k| k.data_claim = Some(("c".into(), "/data; id".into())),
                "--data-claim",
            ),
        ];
        for (set, flag) in cases {
            let mut k = spec(None);
            set(&mut k);
            let e = manifest(&d, &k)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains(flag), "{flag}: {e}");
        }
        for image in [
            "searchbench",
            "searchbench:latest",
            "localhost:5000/searchbench",
            "registry.example:5000/team/search_bench__x/a-b--c:1.2.3",
            &format!("ghcr.io/team/searchbench@sha256:{}", "a".repeat(64)),
            &format!("registry.example/searchbench:1@sha256:{}", "0f".repeat(32)),
        ] {
            let mut k = spec(Some("results.claim-1"));
            k.image = image.to_string();
            k.secret = Some("es.credentials-1".into());
            assert!(manifest(&d, &k).is_ok(), "{image}");
        }
    }
}
