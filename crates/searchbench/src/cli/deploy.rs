//! `searchbench deploy kubernetes|ssh -- <the run's flags>`: one run in parts started on many
//! hosts by Kubernetes (an Indexed Job written to a file) or by ssh (the commands printed).
//! The run's flags are checked here by the same parser that reads them on the hosts; its
//! files travel with it; a secret on the command line is refused (it would land in the
//! manifest or in shell histories): it goes in a Kubernetes Secret or the hosts' environment.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use clap::{Args, Parser, Subcommand};

use crate::cli::{CliError, CliResult};
use crate::deploy::kubernetes::{self, KubernetesSpec, FILES_DIR};
use crate::deploy::{self, ssh, Deployment, ShippedFile};

#[derive(Debug, Subcommand)]
pub enum DeployCommand {
    /// Write a Kubernetes Indexed Job that runs the parts, one pod a part on nodes of their
    /// own: `kubectl apply -f` it, then collect the stores and merge (the steps are printed).
    Kubernetes(Box<KubernetesArgs>),
    /// Print the command each host runs for its part, and how to collect the stores (nothing
    /// is run here: give the lines to ssh, pdsh or your own tool).
    Ssh(SshArgs),
}

/// What every deployment takes.
#[derive(Debug, Args)]
pub struct PartsArgs {
    /// The group of the parts (default: parts-<date>-<time>).
    #[arg(long, value_name = "ID")]
    pub group: Option<String>,
    /// When every part starts, e.g. 2026-11-26T15:00:00Z (default: now + --start-in).
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// How long from now the parts start, when --start-at is not given: time to pull the
    /// image and schedule every pod.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = crate::cli::args::parse_duration)]
    pub start_in: Duration,
    /// The run, after `--`: `run WORKLOAD --url URL ...`, `run --workload-file track.json
    /// --url URL`, `ingest ...` or `query ...`, as on one host (its --part, --group,
    /// --start-at and --store are added per part; its password goes in the Secret or the
    /// hosts' environment: SEARCHBENCH_PASSWORD, SEARCHBENCH_API_KEY, SEARCHBENCH_BEARER).
    #[arg(
        last = true,
        required = true,
        value_name = "RUN",
        allow_hyphen_values = true
    )]
    pub run: Vec<String>,
}

#[derive(Debug, Args)]
pub struct KubernetesArgs {
    /// Parts (pods), each on a node of its own.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=i64::from(deploy::MAX_PARTS)))]
    pub parts: u32,
    /// The image the pods run (built from the repository's Dockerfile and pushed where the
    /// cluster pulls from).
    #[arg(long, value_name = "IMG", default_value = concat!("searchbench:", env!("CARGO_PKG_VERSION")))]
    pub image: String,
    /// The namespace of the Job and its ConfigMap (default: kubectl's).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
    /// The Job's name (default: searchbench-<group>).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The Secret whose keys become each pod's environment (SEARCHBENCH_PASSWORD,
    /// SEARCHBENCH_PUBLISH_PASSWORD, ...). Required: pods do not start without it, and the
    /// printed apply step checks it is there first.
    #[arg(long, value_name = "NAME", default_value = "searchbench-credentials")]
    pub secret: String,
    /// No Secret: the cluster under test and the results cluster need no credentials.
    #[arg(long)]
    pub no_secret: bool,
    /// Each part publishes its run to the team's results cluster as it ends, then exits: no
    /// store to collect (one the results cluster did not take is published again, then
    /// waits to be collected). Merge with `results merge GROUP --from URL`.
    #[arg(long = "publish", value_name = "URL")]
    pub publish_to: Option<String>,
    /// User for --publish (its password in the Secret: SEARCHBENCH_PUBLISH_PASSWORD).
    #[arg(long = "publish-user", value_name = "USER", requires = "publish_to")]
    pub publish_to_user: Option<String>,
    /// The results indices' prefix for --publish.
    #[arg(long = "publish-prefix", value_name = "PREFIX", default_value = crate::publish::DEFAULT_PREFIX)]
    pub publish_to_prefix: String,
    /// A CA certificate the results cluster's TLS is trusted by (shipped to the pods).
    #[arg(long = "publish-ca-cert", value_name = "FILE", requires = "publish_to", value_parser = crate::cli::args::input_file)]
    pub publish_to_ca_cert: Option<PathBuf>,
    /// Run the parts on this cron schedule (a CronJob: one run a night, e.g. "0 2 * * *"),
    /// each night's group its Job's name (NAME-<scheduled minute>), its parts starting
    /// --start-in after the scheduled minute. Wants --publish: no one collects stores at 2 am.
    #[arg(
        long,
        value_name = "CRON",
        requires = "publish_to",
        conflicts_with = "start_at"
    )]
    pub schedule: Option<String>,
    /// How long a finished Job stays (its pods and their logs) before Kubernetes deletes it.
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = crate::cli::args::parse_duration)]
    pub ttl: Duration,
    /// CPU each pod requests.
    #[arg(long, default_value = "2")]
    pub cpu: String,
    /// Memory each pod requests and is held to.
    #[arg(long, default_value = "2Gi")]
    pub memory: String,
    /// A ReadWriteMany volume claim every pod mounts at /results: the stores land there
    /// side by side. Without one, each pod keeps its store until `kubectl cp` takes it.
    #[arg(long, value_name = "CLAIM")]
    pub results_claim: Option<String>,
    /// A volume claim mounted read-only at PATH in every pod (corpus files, --corpus-dir).
    #[arg(long, value_name = "CLAIM:PATH", value_parser = parse_claim)]
    pub data_claim: Option<(String, String)>,
    /// How long a pod without --results-claim waits to be collected after its part.
    #[arg(long, value_name = "DURATION", default_value = "60m", value_parser = crate::cli::args::parse_duration)]
    pub keep: Duration,
    /// Let parts share a node when the cluster has too few (their numbers then share its
    /// cores and network).
    #[arg(long)]
    pub same_node_ok: bool,
    /// Where the manifest goes (default: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub common: PartsArgs,
}

#[derive(Debug, Args)]
pub struct SshArgs {
    /// The hosts, one a part, in order: host I runs part I.
    #[arg(long, value_name = "HOST,...", value_delimiter = ',', required = true)]
    pub hosts: Vec<String>,
    /// The program on the hosts.
    #[arg(long, value_name = "PATH", default_value = "searchbench")]
    pub bin: String,
    #[command(flatten)]
    pub common: PartsArgs,
}

fn parse_claim(s: &str) -> Result<(String, String), String> {
    match s.split_once(':') {
        Some((claim, path)) if !claim.is_empty() && path.starts_with('/') => {
            Ok((claim.to_string(), path.to_string()))
        }
        _ => Err(format!(
            "{s:?}: give CLAIM:PATH, an absolute path, e.g. corpora:/data"
        )),
    }
}

fn usage(message: String) -> CliError {
    CliError::usage(anyhow::anyhow!(message))
}

/// Flags whose value is a file the run reads, shipped with it.
const FILE_FLAGS: [&str; 3] = ["--workload-file", "--ca-cert", "--queries"];
/// Flags the deployment sets per part.
const SET_HERE: [&str; 5] = ["--part", "--group", "--start-at", "--store", "--no-store"];
/// Flags that carry a secret.
const SECRETS: [&str; 3] = ["--password", "--api-key", "--bearer"];

/// The flag a token is (`--flag` or `--flag=value`), and its inline value.
fn flag_of(token: &str) -> (&str, Option<&str>) {
    match token.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f, Some(v)),
        _ => (token, None),
    }
}

/// The run's flags checked: a run, ingest or query against --url, with no secret and nothing
/// the deployment sets; parsed by the very parser the hosts use.
fn check_run(run: &[String], group: &str, parts: u32, start_at: &str) -> Result<(), CliError> {
    let what = run.first().map(String::as_str).unwrap_or("");
    if !matches!(what, "run" | "ingest" | "query") {
        return Err(usage(format!(
            "after --, give the run: `run ...`, `ingest ...` or `query ...` (not {what:?})"
        )));
    }
    let mut url = false;
    let mut tokens = run.iter().peekable();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if SECRETS.contains(&flag) {
            return Err(usage(format!(
                "{flag} would be written into every host's command line: put it in the \
                 Secret (Kubernetes) or the hosts' environment (SEARCHBENCH_PASSWORD, \
                 SEARCHBENCH_API_KEY, SEARCHBENCH_BEARER)"
            )));
        }
        if SET_HERE.contains(&flag) {
            return Err(usage(format!(
                "{flag}: each part's --part, --group, --start-at and --store are set by the \
                 deployment (give --group and --start-at to `deploy`)"
            )));
        }
        if flag == "--url" {
            url = true;
            let value = inline.or_else(|| tokens.peek().map(|v| v.as_str()));
            // The client's own reading of user info: a password holding `/` (or `#`, `?`,
            // `,`) is user info to it, so it is here too.
            if value.is_some_and(crate::cluster::url_has_credentials) {
                return Err(usage(
                    "--url carries credentials (user:password@): give the URL without them \
                     and the password in the Secret or the hosts' environment"
                        .into(),
                ));
            }
        }
    }
    if !url {
        return Err(usage(
            "the parts share one cluster: give it with --url in the run's flags".into(),
        ));
    }
    let with_part: Vec<String> = std::iter::once("searchbench".to_string())
        .chain(run.iter().cloned())
        .chain([
            "--part".into(),
            format!("1/{parts}"),
            "--group".into(),
            group.into(),
            "--start-at".into(),
            start_at.into(),
            "--store".into(),
            std::env::temp_dir()
                .join("searchbench-deploy-check.db")
                .display()
                .to_string(),
        ])
        .collect();
    crate::cli::Cli::try_parse_from(with_part)
        .map(|_| ())
        .map_err(|e| {
            usage(format!(
                "the run's flags: {}",
                e.render().to_string().trim()
            ))
        })
}

/// The cluster the run names (`--url URL` or `--url=URL`), for the merge's count: redacted,
/// though [`check_run`] refused credentials already (a printed line is never a secret's
/// way out).
fn run_url(run: &[String]) -> String {
    let mut tokens = run.iter();
    while let Some(t) = tokens.next() {
        match flag_of(t) {
            ("--url", Some(v)) => return crate::cluster::redact_url(v),
            ("--url", None) => {
                return tokens
                    .next()
                    .map(|v| crate::cluster::redact_url(v))
                    .unwrap_or_default()
            }
            _ => {}
        }
    }
    "URL".into()
}

/// The files the run reads (a workload file, and beside a track every file of its folder;
/// a CA certificate; a queries file), and the run's flags with their paths under `into`.
fn ship_files(run: &[String], into: &str) -> Result<(Vec<String>, Vec<ShippedFile>), CliError> {
    let mut args = Vec::new();
    let mut files: Vec<ShippedFile> = Vec::new();
    let mut shipped = 0;
    let mut tokens = run.iter();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if !FILE_FLAGS.contains(&flag) {
            args.push(t.clone());
            continue;
        }
        let Some(local) = inline
            .map(str::to_string)
            .or_else(|| tokens.next().cloned())
        else {
            args.push(t.clone());
            continue;
        };
        let local = PathBuf::from(local);
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| usage(format!("cannot read {}: {e}", p.display())))
        };
        let bytes = read(&local)?;
        let name = local
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".into());
        // Each flag's files in a folder of their own (numbered in the order of the flags):
        // two files of one name never meet.
        let dir = shipped.to_string();
        shipped += 1;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let is_track = flag == "--workload-file" && crate::workload::track::is_track(&local, &text);
        if is_track {
            let folder = local.parent().unwrap_or(Path::new("."));
            let bound = crate::workload::folder::Folder::of(folder);
            for (rel, path) in folder_files(&bound, folder, 3)? {
                files.push(ShippedFile {
                    path: format!("{dir}/{rel}"),
                    bytes: read(&path)?,
                });
            }
            // An OSB workload reads the common_operations beside its folder: it travels
            // beside the track's folder too (held to its own folder, links resolved).
            let shared = crate::workload::folder::shared_beside(folder)
                .filter(|p| p.is_dir() && !p.is_symlink());
            if let Some(shared) = shared {
                let bound = crate::workload::folder::Folder::of(&shared);
                for (rel, path) in folder_files(&bound, &shared, 3)? {
                    files.push(ShippedFile {
                        path: format!("{}/{rel}", crate::workload::folder::SHARED),
                        bytes: read(&path)?,
                    });
                }
            }
        } else {
            files.push(ShippedFile {
                path: format!("{dir}/{name}"),
                bytes,
            });
        }
        args.push(flag.to_string());
        args.push(format!("{into}/{dir}/{name}"));
    }
    Ok((args, files))
}

/// The files under `folder` (hidden ones left out), at most `depth` folders down, by their
/// path relative to it. A link whose real location is out of the track's folder (`bound`) is
/// refused: its bytes would be copied into the manifest.
fn folder_files(
    bound: &crate::workload::folder::Folder,
    folder: &Path,
    depth: u32,
) -> Result<Vec<(String, PathBuf)>, CliError> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(folder)
        .map_err(|e| usage(format!("cannot read {}: {e}", folder.display())))?;
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        bound
            .check(&path, "a file of the track's folder")
            .map_err(|e| usage(e.to_string()))?;
        if path.is_dir() && depth > 0 {
            for (rel, p) in folder_files(bound, &path, depth - 1)? {
                out.push((format!("{name}/{rel}"), p));
            }
        } else if path.is_file() {
            out.push((name, path));
        }
    }
    Ok(out)
}

/// The deployment the common flags describe, with its files' paths under `into`.
fn deployment(common: &PartsArgs, parts: u32, into: &str) -> Result<Deployment, CliError> {
    let now = SystemTime::now();
    let group = common
        .group
        .clone()
        .unwrap_or_else(|| deploy::default_group(now));
    let start_at = match &common.start_at {
        Some(t) => {
            let at = crate::cli::args::parse_start_at(t)
                .map_err(|e| usage(format!("--start-at {e}")))?;
            // The parts refuse a start further off than this: say so here, not on every host.
            if at
                .duration_since(now)
                .is_ok_and(|w| w > crate::cli::args::MAX_WAIT)
            {
                return Err(usage(format!(
                    "--start-at {t}: more than {} h ahead; the parts wait at most that long",
                    crate::cli::args::MAX_WAIT.as_secs() / 3600
                )));
            }
            t.clone()
        }
        None => deploy::rfc3339(now + common.start_in),
    };
    check_run(&common.run, &group, parts, &start_at)?;
    let (args, files) = ship_files(&common.run, into)?;
    let d = Deployment {
        group,
        parts,
        start_at,
        args,
        files,
    };
    d.check().map_err(|e| usage(e.to_string()))?;
    Ok(d)
}

pub async fn run(cmd: DeployCommand) -> CliResult {
    match cmd {
        DeployCommand::Kubernetes(args) => kubernetes_run(&args),
        DeployCommand::Ssh(args) => ssh_run(&args),
    }
}

fn kubernetes_run(args: &KubernetesArgs) -> CliResult {
    // Publishing is the deployment's to set up (the pods then exit rather than wait).
    if let Some(flag) = args
        .common
        .run
        .iter()
        .map(|t| flag_of(t).0)
        .find(|f| f.starts_with("--publish"))
    {
        return Err(usage(format!(
            "{flag} in the run's flags: give --publish URL (and --publish-user, \
             --publish-prefix, --publish-ca-cert) to `deploy kubernetes`, before --; the \
             password goes in the Secret (SEARCHBENCH_PUBLISH_PASSWORD)"
        )));
    }
    if args
        .schedule
        .as_deref()
        .is_some_and(|c| c.split_whitespace().count() != 5)
    {
        return Err(usage(format!(
            "--schedule {:?}: a cron schedule has five fields, e.g. \"0 2 * * *\"",
            args.schedule.as_deref().unwrap_or_default()
        )));
    }
    let mut d = deployment(&args.common, args.parts, FILES_DIR)?;
    let publish = match &args.publish_to {
        None => None,
        Some(url) => {
            if crate::cluster::url_has_credentials(url) {
                return Err(usage(
                    "--publish carries credentials (user:password@): give the URL without \
                     them and the password in the Secret (SEARCHBENCH_PUBLISH_PASSWORD)"
                        .into(),
                ));
            }
            crate::publish::Publisher::new(
                crate::cluster::Target::new(&crate::cluster::TargetConfig::local(url.clone()))
                    .map_err(|e| usage(e.to_string()))?,
                &args.publish_to_prefix,
            )
            .map_err(|e| usage(e.to_string()))?;
            let ca_cert = match &args.publish_to_ca_cert {
                None => None,
                Some(local) => {
                    let bytes = std::fs::read(local)
                        .map_err(|e| usage(format!("cannot read {}: {e}", local.display())))?;
                    let name = local
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "ca.pem".into());
                    let path = format!("publish/{name}");
                    d.files.push(ShippedFile {
                        path: path.clone(),
                        bytes,
                    });
                    Some(format!("{FILES_DIR}/{path}"))
                }
            };
            Some(kubernetes::PublishTo {
                url: url.clone(),
                user: args.publish_to_user.clone(),
                prefix: args.publish_to_prefix.clone(),
                ca_cert,
            })
        }
    };
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| kubernetes::job_name(&d.group));
    let spec = KubernetesSpec {
        name: name.clone(),
        namespace: args.namespace.clone(),
        image: args.image.clone(),
        secret: (!args.no_secret).then(|| args.secret.clone()),
        cpu: args.cpu.clone(),
        memory: args.memory.clone(),
        results_claim: args.results_claim.clone(),
        data_claim: args.data_claim.clone(),
        keep: args.keep,
        spread_required: !args.same_node_ok,
        publish: publish.clone(),
        schedule: args.schedule.clone().map(|cron| kubernetes::Schedule {
            cron,
            start_in: args.common.start_in,
        }),
        ttl: args.ttl,
    };
    let manifest = kubernetes::manifest(&d, &spec).map_err(|e| usage(e.to_string()))?;
    let value = manifest.to_value().map_err(|e| usage(e.to_string()))?;
    let text = serde_json::to_string_pretty(&value).map_err(|e| usage(e.to_string()))?;
    match &args.out {
        Some(path) => crate::out_folder::write_file(path, format!("{text}\n").as_bytes())
            .map_err(|e| CliError::usage(anyhow::anyhow!("cannot write {e}")))?,
        None => outln!("{text}"),
    }
    let file = args
        .out
        .as_ref()
        .map_or_else(|| "MANIFEST".to_string(), |p| p.display().to_string());
    let ns = args
        .namespace
        .as_ref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    let (group, when) = match &args.schedule {
        Some(cron) => (
            format!("{name}-<scheduled minute>"),
            format!(
                "on the schedule {cron:?}, each run {} s after its minute",
                args.common.start_in.as_secs()
            ),
        ),
        None => (d.group.clone(), format!("starting at {}", d.start_at)),
    };
    let apply = match (&args.no_secret, &args.secret) {
        (true, _) => format!("  kubectl{ns} apply -f {file}"),
        (false, secret) => format!(
            "  kubectl{ns} get secret {secret} -o name && kubectl{ns} apply -f {file}    \
             # the Secret first: kubectl{ns} create secret generic {secret} \
             --from-literal=SEARCHBENCH_PASSWORD=...{}",
            if publish.is_some() {
                " --from-literal=SEARCHBENCH_PUBLISH_PASSWORD=..."
            } else {
                ""
            }
        ),
    };
    let mut steps = vec![
        format!(
            "{} parts of group {group}, {when} (image {}):",
            d.parts, args.image
        ),
        apply,
        format!(
            "  kubectl{ns} logs -f --prefix --max-log-requests {} -l {}={}",
            d.parts,
            kubernetes::GROUP_LABEL,
            d.group
        ),
    ];
    match (&publish, &args.results_claim) {
        (Some(p), _) => steps.push(format!(
            "  the parts publish to {} (prefix {}) and exit; finished Jobs go after {} s",
            crate::cluster::redact_url(&p.url),
            p.prefix,
            args.ttl.as_secs()
        )),
        (None, Some(claim)) => steps.push(format!(
            "  the stores land in {claim} under {}/: import each into one store",
            d.group
        )),
        (None, None) => {
            steps.push(format!(
                "  for k in $(seq 0 {}); do pod=$(kubectl{ns} get pod -l job-name={name},\
                 batch.kubernetes.io/job-completion-index=$k -o name); kubectl{ns} cp \
                 \"${{pod#pod/}}:{}/part-$((k + 1)).db\" part-$((k + 1)).db && kubectl{ns} \
                 exec \"${{pod#pod/}}\" -- touch {}/{}; done",
                d.parts - 1,
                kubernetes::RESULTS_DIR,
                kubernetes::RESULTS_DIR,
                kubernetes::COLLECTED
            ));
            steps.push("  for f in part-*.db; do searchbench results import \"$f\"; done".into());
        }
    }
    let from = publish
        .as_ref()
        .map(|p| {
            format!(
                " --from {} --from-prefix {} --publish {} --publish-prefix {}",
                ssh::quote(&crate::cluster::redact_url(&p.url)),
                p.prefix,
                ssh::quote(&crate::cluster::redact_url(&p.url)),
                p.prefix
            )
        })
        .unwrap_or_default();
    steps.push(format!(
        "  searchbench results merge {} --url {}{from}",
        ssh::quote(&group),
        ssh::quote(&run_url(&args.common.run))
    ));
    eprintln!("{}", steps.join("\n"));
    Ok(())
}

fn ssh_run(args: &SshArgs) -> CliResult {
    let parts = u32::try_from(args.hosts.len()).unwrap_or(u32::MAX);
    let d = deployment(&args.common, parts, "searchbench-files")?;
    let hosts = ssh::commands(&d, &args.hosts, &args.bin).map_err(|e| usage(e.to_string()))?;
    outln!(
        "# {} parts of group {}, starting at {}; each host needs {} on its PATH and the \
         cluster's password in its environment (SEARCHBENCH_PASSWORD) if it has one",
        d.parts,
        d.group,
        d.start_at,
        args.bin
    );
    if !d.files.is_empty() {
        outln!("# the run's files, to every host:");
        for h in &hosts {
            for f in &d.files {
                let remote = format!("searchbench-files/{}", f.path);
                outln!(
                    "ssh {} mkdir -p {} && scp {} {}:{}",
                    ssh::quote(&h.host),
                    ssh::quote(
                        Path::new(&remote)
                            .parent()
                            .map_or("searchbench-files".into(), |p| p.display().to_string())
                            .as_str()
                    ),
                    ssh::quote(&local_path(&args.common.run, f)),
                    ssh::quote(&h.host),
                    ssh::quote(&remote)
                );
            }
        }
    }
    outln!("# start every part (each waits for the start time):");
    for h in &hosts {
        outln!("{} &", h.run);
    }
    outln!("wait");
    outln!("# collect the stores, then merge:");
    for h in &hosts {
        outln!("{}", h.collect);
    }
    for h in &hosts {
        outln!("searchbench results import {}", ssh::quote(&h.store));
    }
    outln!(
        "searchbench results merge {} --url {}",
        d.group,
        ssh::quote(&run_url(&args.common.run))
    );
    Ok(())
}

/// Where a shipped file is on this machine.
fn local_path(run: &[String], f: &ShippedFile) -> String {
    // The file's folder number is the order of the file flags in the run.
    let (n, rel) = f.path.split_once('/').unwrap_or(("0", &f.path));
    // The common_operations beside a track's folder: found beside that folder here too.
    let shared = n == crate::workload::folder::SHARED;
    let n: usize = n.parse().unwrap_or(0);
    let mut seen = 0;
    let mut tokens = run.iter();
    while let Some(t) = tokens.next() {
        let (flag, inline) = flag_of(t);
        if !FILE_FLAGS.contains(&flag) {
            continue;
        }
        let value = inline
            .map(str::to_string)
            .or_else(|| tokens.next().cloned());
        if shared && flag == "--workload-file" {
            let local = PathBuf::from(value.unwrap_or_default());
            let folder = local.parent().unwrap_or(Path::new("."));
            return crate::workload::folder::shared_beside(folder)
                .map_or_else(|| rel.to_string(), |s| s.join(rel).display().to_string());
        }
        if !shared && seen == n {
            let local = PathBuf::from(value.unwrap_or_default());
            let folder = local.parent().unwrap_or(Path::new("."));
            return folder.join(rel).display().to_string();
        }
        seen += 1;
    }
    rel.to_string()
}
