//! `deploy kubernetes`: the parts as an Indexed Job (or a CronJob's), written as a manifest,
//! then the steps to apply it and gather the parts.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{deployment, usage, PartsArgs};
use crate::cli::{CliError, CliResult};
use crate::deploy::kubernetes::{self, KubernetesSpec, FILES_DIR};
use crate::deploy::{self, run_flags, ShippedFile};

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
    /// With --schedule: the morning merge as a CronJob of its own on this schedule (e.g.
    /// "0 7 * * *"): it merges the newest night from the parts published to --publish and
    /// publishes the merged run there (its Job fails when the night is not complete).
    #[arg(long, value_name = "CRON", requires = "schedule")]
    pub merge_at: Option<String>,
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

pub fn kubernetes_run(args: &KubernetesArgs) -> CliResult {
    // Publishing is the deployment's to set up (the pods then exit rather than wait).
    if let Some(flag) = args
        .common
        .run
        .iter()
        .map(|t| run_flags::flag_of(t).0)
        .find(|f| f.starts_with("--publish"))
    {
        return Err(usage(format!(
            "{flag} in the run's flags: give --publish URL (and --publish-user, \
             --publish-prefix, --publish-ca-cert) to `deploy kubernetes`, before --; the \
             password goes in the Secret (SEARCHBENCH_PUBLISH_PASSWORD)"
        )));
    }
    for (flag, cron) in [
        ("--schedule", &args.schedule),
        ("--merge-at", &args.merge_at),
    ] {
        if let Some(cron) = cron
            .as_deref()
            .filter(|c| c.split_whitespace().count() != 5)
        {
            return Err(usage(format!(
                "{flag} {cron:?}: a cron schedule has five fields, e.g. \"0 2 * * *\""
            )));
        }
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
            merge_at: args.merge_at.clone(),
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
    let run_url = run_flags::run_url(&args.common.run);
    errln!(
        "{}",
        deploy::steps::kubernetes(&d, &spec, &file, &run_url).join("\n")
    );
    Ok(())
}
