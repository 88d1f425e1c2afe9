//! Who made a run, where, and on which build: the host's name, the OS user, searchbench's own
//! commit, and the CI system's job, pipeline and commit when its variables are set (GitHub
//! Actions, GitLab CI, Buildkite, Jenkins, or `SEARCHBENCH_CI_*` for any other). Kept with
//! the run's machine, so it travels wherever the run does (a store copied in, a publish, a
//! run read back `--from` a results cluster), and asked for by name (`--where host=ci-7`).
//!
//! It says who and where, never what was measured: no view sets runs apart by it (the machine
//! class does that), and nothing of it is a secret: a URL keeps no user, password nor query,
//! and every value is cut to [`LONGEST`] characters of printable text.

use serde::{Deserialize, Serialize};

/// The longest value kept (a variable can hold anything; a name or an id is short).
pub const LONGEST: usize = 200;

/// The names `--where` takes, with what each is.
pub const KEYS: &[(&str, &str)] = &[
    ("host", "the host's name"),
    ("user", "the OS user"),
    ("commit", "searchbench's own commit"),
    (
        "ci",
        "the CI system (github-actions, gitlab-ci, buildkite, jenkins, or SEARCHBENCH_CI_SYSTEM)",
    ),
    ("ci.job", "the CI job"),
    ("ci.pipeline", "the CI pipeline (or workflow run, or build)"),
    ("ci.commit", "the commit the CI job built"),
    ("engine.build", "the engine's build hash"),
    (
        "engine.flavor",
        "the engine's build flavor (default, oss, tar, docker)",
    ),
    ("engine.jvm", "the JVM the engine ran on"),
];

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// searchbench's own commit (`unknown` for a build from a tree without git).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub commit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci: Option<Ci>,
    /// The engine build that answered, as the cluster said it when the run reached it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
}

/// The engine build a run measured, read from the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Engine {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
    /// `vendor version (VM, collectors)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jvm: Option<String>,
    /// The heap the node reached has (its JVM's maximum), read from it: what a cluster not
    /// started by us runs with, never the unused `--heap` flag's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap_max_bytes: Option<u64>,
    /// How many nodes the cluster had as the run began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

/// The CI job a run was made in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ci {
    pub system: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Where the job's page is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Provenance {
    /// This process's: the host, the user, this build's commit, the CI job from the
    /// environment.
    pub fn detect() -> Provenance {
        let env = |k: &str| std::env::var(k).ok();
        let host = ["/proc/sys/kernel/hostname", "/etc/hostname"]
            .iter()
            .find_map(|f| std::fs::read_to_string(f).ok())
            .or_else(|| env("HOSTNAME"))
            .unwrap_or_default();
        let user = env("USER")
            .or_else(|| env("LOGNAME"))
            .or_else(uid)
            .unwrap_or_default();
        Provenance {
            host: clean(&host),
            user: clean(&user),
            commit: clean(env!("SEARCHBENCH_COMMIT")),
            ci: Ci::from_env(env),
            engine: None,
        }
    }

    /// A stored run's, as it was written (inside its machine); what does not read is unknown.
    pub fn read(machine: &serde_json::Value) -> Provenance {
        machine
            .get("provenance")
            .and_then(|p| Provenance::deserialize(p).ok())
            .unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        *self == Provenance::default()
    }

    /// The value of `key` (one of [`KEYS`]); `None` when the run does not say.
    pub fn get(&self, key: &str) -> Option<&str> {
        let ci = self.ci.as_ref();
        match key {
            "host" => some(&self.host),
            "user" => some(&self.user),
            "commit" => some(&self.commit),
            "ci" => ci.map(|c| c.system.as_str()),
            "ci.job" => ci?.job.as_deref(),
            "ci.pipeline" => ci?.pipeline.as_deref(),
            "ci.commit" => ci?.commit.as_deref(),
            "engine.build" => self.engine.as_ref()?.build.as_deref(),
            "engine.flavor" => self.engine.as_ref()?.flavor.as_deref(),
            "engine.jvm" => self.engine.as_ref()?.jvm.as_deref(),
            _ => None,
        }
    }

    /// One line: `user@host, searchbench <commit>, <ci> job <job> (pipeline <p>, commit <c>)`.
    pub fn described(&self) -> String {
        let mut out = match (self.user.as_str(), self.host.as_str()) {
            ("", "") => "?".to_string(),
            ("", h) => h.to_string(),
            (u, "") => format!("{u}@?"),
            (u, h) => format!("{u}@{h}"),
        };
        if !self.commit.is_empty() {
            out.push_str(&format!(", searchbench {}", self.commit));
        }
        if let Some(ci) = &self.ci {
            out.push_str(&format!(", {}", ci.system));
            let said: Vec<String> = [
                ("job", &ci.job),
                ("pipeline", &ci.pipeline),
                ("commit", &ci.commit),
            ]
            .iter()
            .filter_map(|(what, v)| Some(format!("{what} {}", v.as_ref()?)))
            .collect();
            if !said.is_empty() {
                out.push_str(&format!(" {}", said.join(", ")));
            }
        }
        out
    }

    /// The engine build in one line: `build 2f1c0e8 (tar), Eclipse Adoptium 21.0.5 (G1)`.
    pub fn engine_described(&self) -> Option<String> {
        let e = self.engine.as_ref()?;
        let mut out = match (&e.build, &e.flavor) {
            (Some(b), Some(f)) => format!("build {} ({f})", short(b)),
            (Some(b), None) => format!("build {}", short(b)),
            (None, Some(f)) => format!("({f})"),
            (None, None) => e.version.clone(),
        };
        if let Some(jvm) = &e.jvm {
            out.push_str(&format!(", {jvm}"));
        }
        if let Some(heap) = e.heap_max_bytes {
            // A JVM's maximum heap is whole MiB (`-Xmx512m` reads 512 MiB, give or take the
            // collector's reserve).
            out.push_str(&format!(", heap {} MiB", (heap + (1 << 19)) >> 20));
        }
        if let Some(n) = e.nodes {
            out.push_str(&format!(", {n} node{}", if n == 1 { "" } else { "s" }));
        }
        Some(out)
    }
}

/// A build hash as its first 12 characters, as git shows a commit.
fn short(hash: &str) -> &str {
    hash.char_indices()
        .nth(12)
        .map_or(hash, |(i, _)| &hash[..i])
}

impl Engine {
    /// Cleaned as every value kept is (a lying server's text is not trusted either).
    pub fn new(
        version: &str,
        build: Option<&str>,
        flavor: Option<&str>,
        jvm: Option<&str>,
    ) -> Engine {
        let kept = |v: Option<&str>| v.map(clean).filter(|v| !v.is_empty());
        Engine {
            version: clean(version),
            build: kept(build),
            flavor: kept(flavor),
            jvm: kept(jvm),
            heap_max_bytes: None,
            nodes: None,
        }
    }
}

fn some(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

/// Checks a `--where KEY=VALUE` key: one of [`KEYS`], or why not.
pub fn check_key(key: &str) -> Result<(), String> {
    if KEYS.iter().any(|(k, _)| *k == key) {
        return Ok(());
    }
    let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
    Err(format!(
        "--where {key}=…: a run's provenance has no {key:?}; it has {}",
        known.join(", ")
    ))
}

impl Ci {
    /// The CI job the variables `env` describe: `SEARCHBENCH_CI_*` first (set by a team for
    /// any system), then the systems' own, each recognised by the variable it always sets.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Option<Ci> {
        let get = |k: &str| env(k).map(|v| clean(&v)).filter(|v| !v.is_empty());
        let url = |k: &str| {
            env(k)
                .map(|v| clean(&without_secrets(&v)))
                .filter(|v| !v.is_empty())
        };
        let ci = |system: &str, job: &str, pipeline: Option<String>, commit: &str, link| Ci {
            system: system.to_string(),
            job: get(job),
            pipeline,
            commit: get(commit),
            url: link,
        };
        if let Some(system) = get("SEARCHBENCH_CI_SYSTEM") {
            let mut c = ci(
                &system,
                "SEARCHBENCH_CI_JOB",
                get("SEARCHBENCH_CI_PIPELINE"),
                "SEARCHBENCH_CI_COMMIT",
                url("SEARCHBENCH_CI_URL"),
            );
            c.system = system;
            return Some(c);
        }
        if env("GITHUB_ACTIONS").as_deref() == Some("true") {
            let run = get("GITHUB_RUN_ID");
            let link = match (get("GITHUB_SERVER_URL"), get("GITHUB_REPOSITORY"), &run) {
                (Some(server), Some(repo), Some(run)) => Some(clean(&without_secrets(&format!(
                    "{server}/{repo}/actions/runs/{run}"
                )))),
                _ => None,
            };
            return Some(ci("github-actions", "GITHUB_JOB", run, "GITHUB_SHA", link));
        }
        if env("GITLAB_CI").as_deref() == Some("true") {
            let pipeline = get("CI_PIPELINE_ID");
            return Some(ci(
                "gitlab-ci",
                "CI_JOB_ID",
                pipeline,
                "CI_COMMIT_SHA",
                url("CI_JOB_URL"),
            ));
        }
        if env("BUILDKITE").as_deref() == Some("true") {
            let pipeline = match (
                get("BUILDKITE_PIPELINE_SLUG"),
                get("BUILDKITE_BUILD_NUMBER"),
            ) {
                (Some(slug), Some(n)) => Some(format!("{slug}#{n}")),
                (slug, n) => slug.or(n),
            };
            let link = url("BUILDKITE_BUILD_URL");
            return Some(ci(
                "buildkite",
                "BUILDKITE_JOB_ID",
                pipeline,
                "BUILDKITE_COMMIT",
                link,
            ));
        }
        if env("JENKINS_URL").is_some() {
            let pipeline = get("BUILD_TAG").or_else(|| get("BUILD_NUMBER"));
            return Some(ci(
                "jenkins",
                "JOB_NAME",
                pipeline,
                "GIT_COMMIT",
                url("BUILD_URL"),
            ));
        }
        None
    }
}

/// `value` as printable text of at most [`LONGEST`] characters, trimmed.
fn clean(value: &str) -> String {
    value
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(LONGEST)
        .collect()
}

/// A URL without its user, password and query (where a token would be).
fn without_secrets(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    // Without a scheme (`bot:pw@ci.example/job/3`) the credentials are there all the same.
    let (scheme, rest) = url.split_once("://").map_or(("", url), |(s, r)| (s, r));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match scheme {
        "" => format!("{host}{path}"),
        s => format!("{s}://{host}{path}"),
    }
}

/// The user as a number, where no variable names it (a container's user without a name).
fn uid() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    Some(format!("uid {}", line.split_whitespace().nth(1)?))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn each_ci_system_is_read_from_its_own_variables() {
        let github = Ci::from_env(env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_JOB", "bench"),
            ("GITHUB_RUN_ID", "812"),
            ("GITHUB_SHA", "abc123"),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("GITHUB_REPOSITORY", "team/search"),
        ]))
        .unwrap();
        assert_eq!(github.system, "github-actions");
        assert_eq!(github.job.as_deref(), Some("bench"));
        assert_eq!(github.pipeline.as_deref(), Some("812"));
        assert_eq!(github.commit.as_deref(), Some("abc123"));
        assert_eq!(
            github.url.as_deref(),
            Some("https://github.com/team/search/actions/runs/812")
        );
        let gitlab = Ci::from_env(env(&[
            ("GITLAB_CI", "true"),
            ("CI_JOB_ID", "77"),
            ("CI_PIPELINE_ID", "9"),
            ("CI_COMMIT_SHA", "def"),
            ("CI_JOB_URL", "https://gitlab.example/-/jobs/77"),
        ]))
        .unwrap();
        assert_eq!(
            (
                gitlab.system.as_str(),
                gitlab.job.as_deref(),
                gitlab.pipeline.as_deref()
            ),
            ("gitlab-ci", Some("77"), Some("9"))
        );
        let buildkite = Ci::from_env(env(&[
            ("BUILDKITE", "true"),
            ("BUILDKITE_PIPELINE_SLUG", "nightly"),
            ("BUILDKITE_BUILD_NUMBER", "41"),
            ("BUILDKITE_JOB_ID", "j-1"),
        ]))
        .unwrap();
        assert_eq!(buildkite.pipeline.as_deref(), Some("nightly#41"));
        let jenkins = Ci::from_env(env(&[
            ("JENKINS_URL", "https://ci.example/"),
            ("JOB_NAME", "bench"),
            ("BUILD_TAG", "jenkins-bench-5"),
            ("GIT_COMMIT", "0f0f"),
        ]))
        .unwrap();
        assert_eq!(
            (jenkins.system.as_str(), jenkins.pipeline.as_deref()),
            ("jenkins", Some("jenkins-bench-5"))
        );
        assert_eq!(Ci::from_env(env(&[("CI", "true")])), None);
    }

    /// A team's own variables win over the system's, so a wrapper can say what it runs.
    #[test]
    fn searchbench_ci_variables_come_first() {
        let ci = Ci::from_env(env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_JOB", "bench"),
            ("SEARCHBENCH_CI_SYSTEM", "drone"),
            ("SEARCHBENCH_CI_JOB", "nightly-3"),
        ]))
        .unwrap();
        assert_eq!(
            (ci.system.as_str(), ci.job.as_deref()),
            ("drone", Some("nightly-3"))
        );
    }

    /// Nothing a variable holds leaks a secret or floods a view: a URL loses its user,
    /// password and query; a value is cut to its first characters, without control characters.
    #[test]
    fn no_secret_and_no_flood_survives() {
        let ci = Ci::from_env(env(&[
            ("GITLAB_CI", "true"),
            (
                "CI_JOB_URL",
                "https://bot:s3cret@gitlab.example/-/jobs/77?private_token=t0ken#x",
            ),
            ("CI_JOB_ID", &format!("7\u{1b}[31m{}", "9".repeat(10_000))),
        ]))
        .unwrap();
        let url = ci.url.unwrap();
        assert_eq!(url, "https://gitlab.example/-/jobs/77");
        let job = ci.job.unwrap();
        assert_eq!(job.chars().count(), LONGEST);
        assert!(!job.contains('\u{1b}'));
        assert_eq!(without_secrets("ssh://u@h"), "ssh://h");
        assert_eq!(
            without_secrets("bot:pw@ci.example/job/3"),
            "ci.example/job/3"
        );
        // A lying server's build is cut as any value is.
        let e = Engine::new(&"9".repeat(10_000), Some("\u{7}abc"), None, None);
        assert_eq!(e.version.len(), LONGEST);
        assert_eq!(e.build.as_deref(), Some("abc"));
    }

    #[test]
    fn a_provenance_reads_back_and_answers_every_key() {
        let p = Provenance {
            host: "bench-7".into(),
            user: "ana".into(),
            commit: "0123456789ab".into(),
            ci: Some(Ci {
                system: "gitlab-ci".into(),
                job: Some("77".into()),
                pipeline: Some("9".into()),
                commit: Some("def".into()),
                url: None,
            }),
            engine: Some(Engine {
                heap_max_bytes: Some(536_870_912),
                nodes: Some(1),
                ..Engine::new(
                    "2.19.1",
                    Some("fd9a9d90df25bea1af2c6a85039692e815b894f5"),
                    Some("tar"),
                    Some("Eclipse Adoptium 21.0.5 (OpenJDK 64-Bit Server VM, G1 Young Generation)"),
                )
            }),
        };
        let machine = serde_json::json!({"cores": 2, "provenance": p});
        let back = Provenance::read(&machine);
        assert_eq!(back, p);
        for (key, _) in KEYS {
            assert!(back.get(key).is_some(), "{key}");
            assert!(check_key(key).is_ok());
        }
        assert_eq!(
            back.described(),
            "ana@bench-7, searchbench 0123456789ab, gitlab-ci job 77, pipeline 9, commit def"
        );
        assert_eq!(
            back.engine_described().unwrap(),
            "build fd9a9d90df25 (tar), Eclipse Adoptium 21.0.5 (OpenJDK 64-Bit Server VM, G1 \
             Young Generation), heap 512 MiB, 1 node"
        );
        assert!(check_key("hostname").unwrap_err().contains("host, user"));
        // A machine written before provenance was kept, or one that does not read.
        assert!(Provenance::read(&serde_json::json!({"cores": 2})).is_empty());
        assert!(Provenance::read(&serde_json::json!({"provenance": 7})).is_empty());
    }
}
