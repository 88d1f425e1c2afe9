//! What to do once a deployment's manifest is written, a line each: apply it (the Secret
//! first), follow the parts' logs, gather their stores (or let them publish), merge them.

use super::kubernetes::KubernetesSpec;
use super::{ssh, Deployment};

/// The steps after `deploy kubernetes` wrote `file` for `d` as `spec` says; `run_url` is the
/// cluster the parts load (redacted), for the merge's count.
pub fn kubernetes(d: &Deployment, spec: &KubernetesSpec, file: &str, run_url: &str) -> Vec<String> {
    let ns = spec
        .namespace
        .as_ref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    let (group, when) = match &spec.schedule {
        Some(s) => (
            format!("{}-<scheduled minute>", spec.name),
            format!(
                "on the schedule {:?}, each run {} s after its minute",
                s.cron,
                s.start_in.as_secs()
            ),
        ),
        None => (d.group.clone(), format!("starting at {}", d.start_at)),
    };
    let apply = match &spec.secret {
        None => format!("  kubectl{ns} apply -f {file}"),
        Some(secret) => format!(
            "  kubectl{ns} get secret {secret} -o name && kubectl{ns} apply -f {file}    \
             # the Secret first: kubectl{ns} create secret generic {secret} \
             --from-literal=SEARCHBENCH_PASSWORD=...{}",
            if spec.publish.is_some() {
                " --from-literal=SEARCHBENCH_PUBLISH_PASSWORD=..."
            } else {
                ""
            }
        ),
    };
    let mut steps = vec![
        format!(
            "{} parts of group {group}, {when} (image {}):",
            d.parts, spec.image
        ),
        apply,
        match &spec.schedule {
            // Each night's pods carry its Job's name, the night's group.
            Some(_) => format!(
                "  kubectl{ns} logs -f --prefix --max-log-requests {} -l job-name={group}",
                d.parts
            ),
            None => format!(
                "  kubectl{ns} logs -f --prefix --max-log-requests {} -l {}={}",
                d.parts,
                super::kubernetes::GROUP_LABEL,
                d.group
            ),
        },
    ];
    match (&spec.publish, &spec.results_claim) {
        (Some(p), _) => steps.push(format!(
            "  the parts publish to {} (prefix {}) and exit; finished Jobs go after {} s",
            crate::cluster::redact_url(&p.url),
            p.prefix,
            spec.ttl.as_secs()
        )),
        (None, Some(claim)) => steps.push(format!(
            "  the stores land in {claim} under {}/: import each into one store",
            d.group
        )),
        (None, None) => {
            steps.push(format!(
                "  for k in $(seq 0 {}); do pod=$(kubectl{ns} get pod -l job-name={},\
                 batch.kubernetes.io/job-completion-index=$k -o name); kubectl{ns} cp \
                 \"${{pod#pod/}}:{}/part-$((k + 1)).db\" part-$((k + 1)).db && kubectl{ns} \
                 exec \"${{pod#pod/}}\" -- touch {}/{}; done",
                d.parts - 1,
                spec.name,
                super::kubernetes::RESULTS_DIR,
                super::kubernetes::RESULTS_DIR,
                super::kubernetes::COLLECTED
            ));
            steps.push("  for f in part-*.db; do searchbench results import \"$f\"; done".into());
        }
    }
    let from = spec
        .publish
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
    if let Some(at) = spec.schedule.as_ref().and_then(|s| s.merge_at.as_ref()) {
        steps.push(format!(
            "  each morning ({at:?}) {}-merge merges the newest night and publishes it: \
             kubectl{ns} logs -l job-name={}-merge-<scheduled minute>",
            spec.name, spec.name
        ));
        return steps;
    }
    steps.push(format!(
        "  searchbench results merge {} --url {}{from}",
        ssh::quote(&group),
        ssh::quote(run_url)
    ));
    steps
}
