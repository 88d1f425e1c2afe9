//! `searchbench gate --a ARGS --b ARGS -- COMMAND...`: the nightly or pull-request recipe in
//! one command. It starts an engine (or reuses the cluster at `--url`), warms it with
//! unmeasured runs, runs `ab`'s rounds until the sequential verdict is known or the budget is
//! spent, stores every run (and publishes it where publishing is configured), and exits 0 (no
//! regression), 3 (worse) or 125 (cannot tell: `git bisect run`'s "skip").

use clap::Args;

use super::rounds::{self, BudgetArgs, SideArgs};
use crate::analysis::compare;
use crate::analysis::sequential::rounds::leaning;
use crate::cli::args::{PublishArgs, StoreArgs};
use crate::cli::{exit, output, CliError, CliResult};
use crate::engine::{self, StartOptions, DEFAULT_ENGINE};
use crate::session::rounds::{deadline_in, sequential::sequential, Ran};

#[derive(Debug, Args)]
#[command(
    long_about = "The nightly or pull-request gate: two configurations of one command compared \
        round by round until the verdict is known, on an engine started and warmed for them, \
        with an exit code a scheduler or `git bisect run` acts on.\n\n\
        Unless --url is given (or the command or a side names --url, --engine or \
        --engine-dir, and so reaches or starts its own), the gate starts one node of --engine \
        (or --engine-dir, the build under test) for the rounds, warms it with --warm-runs \
        unmeasured runs of the command (the sides taking turns: a fresh JVM's first loads \
        measure its compiler), and stops it at the end. Then it runs `ab`'s rounds (A B, B A, \
        ...), each run stored (and published, with --publish or SEARCHBENCH_PUBLISH), and \
        after each round the safe t test's always-valid verdict: worse, better, no change as \
        large as --threshold, or another round, within --max-rounds and --max-minutes. Before \
        the first round it says how long a verdict should take, from --spread (calibrate's \
        paired-rounds spread) or the last gate of the same command in the store.\n\n\
        Exit codes: 0 B is not worse (better, or no change as large as the threshold); 3 B is \
        worse; 125 cannot tell (the budget was spent first, or the engine or a run could not \
        work); 2 bad usage; 130 interrupted.",
    after_help = "Examples:\n  \
        git bisect run searchbench gate --a '--engine-dir ../good' --b '--engine-dir dist' -- run logs\n  \
        searchbench gate --a '--bulk-size 1000' --b '--bulk-size 5000' -- ingest logs --docs 200k\n  \
        searchbench gate --url http://127.0.0.1:9200 --b '--clients 4' -- ingest logs\n  \
        searchbench gate --a '--engine-dir old' --b '--engine-dir new' -- run logs"
)]
pub struct GateArgs {
    /// The engine to start for the rounds: one node, stopped at the end.
    #[arg(long = "engine", default_value = DEFAULT_ENGINE, value_name = "NAME")]
    pub gate_engine: String,
    /// Start this local, unpacked distribution folder instead (the build under test).
    #[arg(long = "engine-dir", value_name = "DIR", conflicts_with = "gate_url")]
    pub gate_engine_dir: Option<std::path::PathBuf>,
    /// The started node's JVM heap.
    #[arg(long = "heap", default_value = "1g", value_name = "SIZE")]
    pub gate_heap: String,
    /// Reuse this cluster instead of starting one: each run is given --url URL.
    #[arg(long = "url", value_name = "URL", conflicts_with = "gate_engine_dir")]
    pub gate_url: Option<String>,
    /// Unmeasured runs of the command before the first round, the sides taking turns
    /// (default 3 on a node the gate started, 0 on a cluster it did not).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub warm_runs: Option<u32>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub sides: SideArgs,
    /// The smallest change worth seeing: a change shown smaller than this either way passes.
    #[arg(long, default_value = "5%", value_parser = crate::cli::args::parse_percent)]
    pub threshold: f64,
    /// Print the verdict and the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub publish: PublishArgs,
    #[command(flatten)]
    pub plumbing: crate::cli::args::PlumbingArgs,
    /// The command both sides run (after --), e.g. `ingest logs --docs 200k`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The gate's budget of rounds and minutes unless told: a night's verdict within about a
/// quarter of an hour on this machine's spread (BENCHMARKS "Minutes to a verdict").
pub const MAX_ROUNDS: u32 = 40;
pub const MAX_MINUTES: f64 = 30.0;

/// Flags by which the command reaches or starts its own engine: the gate starts none then.
const OWN_ENGINE: [&str; 3] = ["--url", "--engine", "--engine-dir"];

fn names_own_engine(words: &[String]) -> Option<&'static str> {
    words.iter().find_map(|w| {
        OWN_ENGINE
            .iter()
            .find(|f| w == *f || w.starts_with(&format!("{f}=")))
            .copied()
    })
}

pub async fn run(g: GateArgs) -> CliResult {
    let code = match gate(g).await {
        Ok(code) => code,
        // Anything that kept the gate from a verdict (an engine that would not start, a run
        // that crashed, an unreachable store) is "cannot tell", not "worse": a bisect skips
        // such a commit rather than blaming it.
        Err(e) if e.code == exit::FAILURE => {
            return Err(CliError {
                code: exit::CANNOT_TELL,
                error: e.error.context("the gate cannot tell"),
            })
        }
        Err(e) => return Err(e),
    };
    match code {
        exit::OK => Ok(()),
        exit::CHECK_FAILED => Err(CliError::check(anyhow::anyhow!("B is worse than A"))),
        _ => Err(CliError {
            code: exit::CANNOT_TELL,
            error: anyhow::anyhow!("no verdict within the budget: cannot tell"),
        }),
    }
}

async fn gate(g: GateArgs) -> Result<i32, CliError> {
    let mut budget = g.budget.budget(MAX_ROUNDS, g.threshold)?;
    budget.max_minutes = Some(budget.max_minutes.unwrap_or(MAX_MINUTES));
    let mut rounds = rounds::rounds(&g.command, &g.sides, &g.store)?;
    let id = rounds.id.clone();
    let own = names_own_engine(&g.command).or_else(|| names_own_engine(&rounds.sides.concat()));
    if let (Some(flag), Some(_)) = (own, &g.gate_url) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--url is the gate's, and the command names {flag} too: give the cluster once"
        )));
    }
    rounds.env = publish_env(&g.publish);
    rounds.judged = Some((budget.threshold_pct, budget.alpha));
    let begun = crate::cli::ending::listen();
    let cancel = begun.cancel.clone();

    // The engine: reused, the runs' own, or one started for the rounds.
    let mut node = None;
    let mut pid = None;
    let (url, started) = match (&g.gate_url, own) {
        (Some(url), _) => (Some(url.clone()), false),
        (None, Some(flag)) => {
            errln!("gate {id}: the runs reach or start their own engine ({flag})");
            (None, false)
        }
        (None, None) => {
            let mut options = StartOptions::new(&g.gate_engine);
            options.engine_dir = g.gate_engine_dir.clone();
            options.heap = g.gate_heap.clone();
            options.attached = true;
            options.stop = cancel.clone();
            errln!(
                "gate {id}: starting {} for the rounds",
                g.gate_engine_dir
                    .as_ref()
                    .map(|d| d.display().to_string())
                    .unwrap_or_else(|| g.gate_engine.clone())
            );
            let n = engine::start(&options).await.map_err(|e| {
                if e.is_usage() {
                    CliError::usage(e)
                } else {
                    CliError::from(anyhow::Error::new(e))
                }
            })?;
            errln!("  {} at {} (pid {})", n.spec.name, n.url(), n.pid());
            let url = n.url().to_string();
            pid = Some(n.pid());
            node = Some(n);
            (Some(url), true)
        }
    };
    if let Some(url) = &url {
        rounds.extra = vec!["--url".into(), url.clone()];
    }
    // The budget is the gate's from here, warm-ups included: a run still going when it is
    // spent is stopped, and the gate cannot tell (125).
    rounds.deadline = deadline_in(budget.max_minutes);
    let result = async {
        let warm = g.warm_runs.unwrap_or(if started { 3 } else { 0 });
        if warm > 0 {
            errln!("gate {id}: {warm} unmeasured run(s) to warm the engine");
            if rounds.warm(warm, &cancel).await? == Ran::OutOfTime {
                return Err(CliError::from(anyhow::anyhow!(
                    "gate {id}: the budget (--max-minutes) was spent warming the engine"
                )));
            }
        }
        Ok(sequential(&rounds, "gate", &budget, &g.store.path()?, &cancel).await?)
    }
    .await;
    if let Some(n) = node.take() {
        let stop = tokio::task::spawn_blocking(move || n.stop()).await;
        if let Err(e) = stop {
            errln!("warning: stopping the gate's engine: {e}");
        }
    }
    let verdict = result?;
    let store = g.store.open()?;
    // The rounds' runs published themselves: what they left pending is the gate's to say.
    if let Some(p) = g.publish.publisher()? {
        let of_gate = crate::store::Filter {
            tags: vec![("ab".into(), id.clone())],
            ..Default::default()
        };
        let ours: std::collections::BTreeSet<_> =
            store.list(&of_gate)?.into_iter().map(|r| r.id).collect();
        crate::cli::args::publish_ledger()
            .owed_from(&store, &p.destination(), |r| ours.contains(&r.id))?;
    }
    let (a, b) = rounds.load(&store)?;
    let mut c = compare::compare_at(a, vec![b], g.threshold);
    if let Some(why) = leaning(&verdict.look, verdict.metric.as_deref(), &c) {
        c.notes.insert(0, why);
    }
    let code = verdict.exit_code();
    let plumbed = crate::report::verdicts::Verdicts::of_comparison(
        "gate",
        &c,
        Some((
            crate::report::verdicts::Outcome::of(verdict.look.decision),
            verdict.line(),
        )),
    );
    if g.json {
        output::json(&serde_json::json!({
            "gate": id,
            // The node the gate started and stopped, when it started one.
            "url": if started { url } else { None },
            "pid": pid,
            "exit_code": code,
            "sequential": verdict,
            // The command that makes this verdict again from the stored rounds.
            "again": rounds.again(),
            "comparison": c,
        }))?;
    } else {
        output::compare::print(c, false, false, false)?;
        outln!("gate {id}: {}", verdict.line());
        outln!("again with: {}", rounds.again());
    }
    // The JUnit file and the webhook after the verdict is printed; a file that cannot be
    // written fails a gate that passed, and is said beside one that did not.
    match (g.plumbing.deliver(&plumbed).await, code) {
        (Err(e), exit::OK) => Err(e),
        (Err(e), _) => {
            errln!("error: {}", crate::cluster::error_chain(&*e.error));
            Ok(code)
        }
        (Ok(()), _) => Ok(code),
    }
}

/// The publishing flags as the environment every run reads them from.
fn publish_env(p: &PublishArgs) -> Vec<(&'static str, String)> {
    // Where to publish reaches every run through its environment: no secret on a command
    // line another user's `ps` shows.
    let mut env = Vec::new();
    if let Some(url) = &p.publish_url {
        env.push(("SEARCHBENCH_PUBLISH", url.clone()));
        env.push(("SEARCHBENCH_PUBLISH_PREFIX", p.publish_prefix.clone()));
        if let Some(u) = &p.publish_user {
            env.push(("SEARCHBENCH_PUBLISH_USER", u.clone()));
        }
        if let Some(pw) = &p.publish_password {
            env.push(("SEARCHBENCH_PUBLISH_PASSWORD", pw.clone()));
        }
        if let Some(k) = &p.publish_api_key {
            env.push(("SEARCHBENCH_PUBLISH_API_KEY", k.clone()));
        }
        if let Some(c) = &p.publish_ca_cert {
            env.push(("SEARCHBENCH_PUBLISH_CA_CERT", c.display().to_string()));
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_names_its_engine_is_left_to_start_or_reach_it() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            names_own_engine(&w(&["ingest", "logs", "--url=http://x:9200"])),
            Some("--url")
        );
        assert_eq!(
            names_own_engine(&w(&["run", "logs", "--engine", "opensearch-2.19.1"])),
            Some("--engine")
        );
        assert_eq!(
            names_own_engine(&w(&["ingest", "logs", "--engine-pid", "3"])),
            None
        );
        assert_eq!(names_own_engine(&w(&["ingest", "logs"])), None);
    }
}
