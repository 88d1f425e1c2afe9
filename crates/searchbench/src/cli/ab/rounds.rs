//! The rounds of `ab` and `gate`: each side's run is this very binary run again (`COMMAND`
//! with the side's arguments, `--round N` and the tags `ab=ID`, `ab_side=a|b`,
//! `ab_command=KEY`), in the order A B, B A, ...; after each round the sequential test
//! ([`crate::analysis::sequential`]) reads what is stored and says whether to go on.

use std::process::{Output, Stdio};
use std::time::Duration;

use clap::Args;
use tokio::process::Command;

use crate::analysis::compare;
use crate::analysis::history::HEADLINE;
use crate::analysis::metrics::{Direction, THROUGHPUT};
use crate::analysis::sequential::{self, DecidedBy, Decision, Look, Paired, Sequence, ALPHA};
use crate::analysis::steadier::{COST, COST_SHORT, STEADIER_BY};
use crate::cancel::Cancel;
use crate::cli::args::StoreArgs;
use crate::cli::{exit, CliError};
use crate::store::Store;

#[derive(Debug, Args, Clone)]
/// The two sides' arguments.
pub struct SideArgs {
    /// The arguments side A adds to COMMAND, as one shell-quoted string.
    #[arg(
        long = "a",
        value_name = "ARGS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub a: String,
    /// The arguments side B adds to COMMAND, as one shell-quoted string.
    #[arg(
        long = "b",
        value_name = "ARGS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub b: String,
}

/// How long the rounds may go on before the verdict is "cannot tell".
#[derive(Debug, Args, Clone)]
pub struct BudgetArgs {
    /// The most rounds before the verdict is "cannot tell" (no verdict comes before the 4th or
    /// 5th: with the spread unknown, the first rounds cannot exclude anything).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub max_rounds: Option<u32>,
    /// No round starts that would end past this many minutes from the first (a round's time
    /// is the slowest so far).
    #[arg(long, value_name = "MINUTES", value_parser = parse_minutes)]
    pub max_minutes: Option<f64>,
    /// The chance of a false verdict (worse or better when nothing changed), held however
    /// many rounds are looked at.
    #[arg(long, default_value = "5%", value_parser = parse_alpha)]
    pub alpha: f64,
    /// The spread of a round's B/A ratio for this command (`calibrate`'s "paired rounds"
    /// spread), to say before the start how long a verdict should take; by default the last
    /// `ab` of the same command in the store says it.
    #[arg(long, value_name = "PCT", value_parser = crate::cli::args::parse_percent)]
    pub spread: Option<f64>,
}

/// `ab`'s default budget of rounds without `--rounds`.
pub const MAX_ROUNDS: u32 = 30;

fn parse_minutes(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 && m <= 7.0 * 24.0 * 60.0 => Ok(m),
        _ => Err(format!(
            "{s:?} is not a number of minutes (more than 0, at most a week's 10080)"
        )),
    }
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    let pct = crate::cli::args::parse_percent(s)?;
    if pct > 0.0 && pct <= 50.0 {
        Ok(pct / 100.0)
    } else {
        Err(format!(
            "{s:?}: the chance of a false verdict is more than 0 % and at most 50 %, e.g. 5%"
        ))
    }
}

/// Flags `ab` sets on every run itself: a command that names them would fight it.
const OURS: [&str; 4] = ["--store", "--no-store", "--round", "--json"];

/// The order of the sides in round `round` (1-based): A B, B A, A B, ...
pub(super) fn order(round: u32) -> [Side; 2] {
    if round % 2 == 1 {
        [Side::A, Side::B]
    } else {
        [Side::B, Side::A]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    A,
    B,
}

impl Side {
    fn tag(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

/// How long a side's run is given to stop and store what it did once interrupted: its
/// requests' grace, then the store's write. Past it the run is killed.
const STOP_WITHIN: Duration = Duration::from_secs(60);

/// How long a run still going when the budget (`--max-minutes`) is spent is given to stop
/// and store itself as interrupted; past it, killed. Short: the budget is a bound.
const STOP_AT_BUDGET_WITHIN: Duration = Duration::from_secs(10);

/// How a side's run ended.
#[derive(Debug)]
enum Ended {
    /// It ended by itself (or on Ctrl-C): its output.
    Done(Output),
    /// The budget was spent while it ran: it was stopped (interrupted, else killed).
    OutOfTime,
}

/// The deadline of a budget of `max_minutes` from now (`None`: no budget, or one too large
/// to be a time).
pub(super) fn deadline_in(max_minutes: Option<f64>) -> Option<tokio::time::Instant> {
    let max = Duration::try_from_secs_f64(max_minutes? * 60.0).ok()?;
    tokio::time::Instant::now().checked_add(max)
}

/// Whether a side's run (or a round, or the warm-ups) finished within the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ran {
    Done,
    OutOfTime,
}

/// Runs one side's command. On Ctrl-C the run is interrupted as a user's Ctrl-C would
/// interrupt it (SIGINT: it stops, stores what it did as `interrupted`, and exits) and is
/// waited for [`STOP_WITHIN`]; at `deadline` (the budget spent) the same, waited for
/// [`STOP_AT_BUDGET_WITHIN`]. It never outlives `ab` (killed when dropped).
async fn run_side(
    mut cmd: Command,
    cancel: &Cancel,
    deadline: Option<tokio::time::Instant>,
) -> std::io::Result<Ended> {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let child = cmd.spawn()?;
    let pid = child.id();
    let done = child.wait_with_output();
    tokio::pin!(done);
    let spent = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    let out_of_time = tokio::select! {
        out = &mut done => return out.map(Ended::Done),
        _ = cancel.cancelled() => false,
        () = spent => true,
    };
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // A terminal's Ctrl-C reached the run too; one more within half a second is the same
        // stop to it (cli::progress::SAME_STOP). A `kill -INT` of ab alone reaches only ab.
        // SAFETY: kill(2) on our own child's pid; it has not been reaped (we still wait on it).
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
    }
    if out_of_time {
        // Stored as interrupted if it stops in time; dropped (killed) when it does not.
        let _ = tokio::time::timeout(STOP_AT_BUDGET_WITHIN, &mut done).await;
        return Ok(Ended::OutOfTime);
    }
    match tokio::time::timeout(STOP_WITHIN, &mut done).await {
        Ok(out) => out.map(Ended::Done),
        Err(_) => Err(std::io::Error::other(format!(
            "the run did not stop within {} s of the interrupt: killed",
            STOP_WITHIN.as_secs()
        ))),
    }
}

/// A side's arguments, split as a shell would; a quote left open is refused.
pub(super) fn split(which: &str, args: &str) -> Result<Vec<String>, CliError> {
    shlex::split(args).ok_or_else(|| {
        CliError::usage(anyhow::anyhow!(
            "--{which} {args:?}: an unclosed quote (give the side's arguments as one shell-quoted string)"
        ))
    })
}

/// The rounds of one `ab` (or `gate`): the command, each side's arguments, where they are
/// stored, and what every run is given besides.
pub(super) struct Rounds {
    pub id: String,
    exe: std::path::PathBuf,
    command: Vec<String>,
    /// Each side's arguments, split as a shell would.
    pub sides: [Vec<String>; 2],
    /// Each side's arguments as printed (see [`shown`]).
    pub shown: [String; 2],
    /// Arguments every run is given after its side's (a gate's `--url`).
    pub extra: Vec<String>,
    /// The environment every measured run is given besides ours (a gate's publishing).
    pub env: Vec<(&'static str, String)>,
    store: Option<std::path::PathBuf>,
    /// When the budget (`--max-minutes`) is spent: a run still going then is stopped.
    pub deadline: Option<tokio::time::Instant>,
    /// The command's key in the store (`ab_command`): what the last ab of the same command is
    /// found by, to say how long a verdict takes before the first round.
    key: String,
}

impl Rounds {
    /// Checks the command and the sides' arguments (exit 2 on what would fight `ab`).
    pub fn new(
        command: &[String],
        sides: &SideArgs,
        store: Option<std::path::PathBuf>,
    ) -> Result<Rounds, CliError> {
        let parsed = [split("a", &sides.a)?, split("b", &sides.b)?];
        if let Some(flag) = command.iter().chain(parsed.iter().flatten()).find(|w| {
            OURS.iter()
                .any(|o| *w == o || w.starts_with(&format!("{o}=")))
        }) {
            return Err(CliError::usage(anyhow::anyhow!(
                "{flag} is set by `ab` itself on every run (give --store to `ab`, before --)"
            )));
        }
        let exe = std::env::current_exe().map_err(|e| {
            CliError::from(anyhow::anyhow!("cannot find this program to run it: {e}"))
        })?;
        let key = command_key(command);
        Ok(Rounds {
            id: crate::session::matrix::new_id(),
            exe,
            command: command.to_vec(),
            sides: parsed,
            shown: [shown(&sides.a), shown(&sides.b)],
            extra: Vec::new(),
            env: Vec::new(),
            store,
            deadline: None,
            key,
        })
    }

    fn selector(&self, side: Side) -> String {
        format!("ab={},ab_side={}", self.id, side.tag())
    }

    /// The command to compare what is done again.
    pub fn again(&self) -> String {
        format!(
            "searchbench compare {} {}",
            self.selector(Side::A),
            self.selector(Side::B)
        )
    }

    /// Runs one side of one round, stored, or (`warm`) unstored and untagged, to warm the
    /// engine. A run that fails is kept; a usage error, an interrupt or a crash stops.
    async fn run(
        &self,
        side: Side,
        round: Option<u32>,
        of: &str,
        cancel: &Cancel,
    ) -> Result<Ran, CliError> {
        let id = &self.id;
        let label = round.map_or_else(|| "warm-up".to_string(), |r| format!("round {r}"));
        let during = round.map_or_else(|| "a warm-up run".to_string(), |r| format!("round {r}"));
        let interrupted = |said: &str| {
            CliError {
            code: exit::INTERRUPTED,
            error: anyhow::anyhow!(
                "ab {id} interrupted in {during} ({}'s run: {said}); what is done is kept; compare it with `{}`",
                side.tag().to_uppercase(),
                self.again()
            ),
        }
        };
        // A Ctrl-C between two runs starts no other.
        if cancel.is_cancelled() {
            return Err(interrupted("not started"));
        }
        let mut cmd = Command::new(&self.exe);
        cmd.args(&self.command).args(&self.sides[side as usize]);
        match round {
            Some(round) => {
                cmd.arg("--round")
                    .arg(round.to_string())
                    .args(["--tag", &format!("ab={id}"), "--tag"])
                    .arg(format!("ab_side={}", side.tag()))
                    .arg("--tag")
                    .arg(format!("ab_command={}", self.key));
                if let Some(store) = &self.store {
                    cmd.arg("--store").arg(store);
                }
                cmd.args(&self.extra).envs(self.env.iter().cloned());
            }
            None => {
                // Not a measurement: nothing stored, nothing published.
                cmd.arg("--no-store")
                    .args(&self.extra)
                    .env_remove("SEARCHBENCH_PUBLISH");
            }
        }
        cmd.arg("--quiet");
        eprintln!("{label}{of}: {} ...", side.tag().to_uppercase());
        let ended = run_side(cmd, cancel, self.deadline).await.map_err(|e| {
            CliError::from(anyhow::anyhow!("cannot run {}: {e}", self.exe.display()))
        })?;
        let out = match ended {
            Ended::Done(out) => out,
            Ended::OutOfTime => {
                eprintln!(
                    "  the budget (--max-minutes) was spent during {during}: {}'s run stopped",
                    side.tag().to_uppercase()
                );
                return Ok(Ran::OutOfTime);
            }
        };
        let said = String::from_utf8_lossy(&out.stderr);
        if cancel.is_cancelled() {
            return Err(interrupted(&format!("stopped: {}", last_line(&said))));
        }
        match out.status.code() {
            Some(exit::OK) => Ok(Ran::Done),
            // A run with failures is stored: its errors are part of the comparison.
            Some(exit::CHECK_FAILED) | Some(exit::FAILURE) => {
                eprintln!(
                    "  the run failed (what it stored is compared with its errors): {}",
                    last_line(&said)
                );
                Ok(Ran::Done)
            }
            Some(exit::USAGE) => Err(CliError::usage(anyhow::anyhow!(
                "side {} cannot run: {}",
                side.tag().to_uppercase(),
                said.trim()
            ))),
            _ => Err(CliError {
                code: exit::INTERRUPTED,
                error: anyhow::anyhow!(
                    "ab {id} stopped in {during} ({}): what is done is kept; compare it with `{}`",
                    last_line(&said),
                    self.again()
                ),
            }),
        }
    }

    /// Runs both sides of a round in the round's order.
    pub(super) async fn round(
        &self,
        round: u32,
        of: &str,
        cancel: &Cancel,
    ) -> Result<Ran, CliError> {
        for side in order(round) {
            if self.run(side, Some(round), of, cancel).await? == Ran::OutOfTime {
                return Ok(Ran::OutOfTime);
            }
        }
        Ok(Ran::Done)
    }

    /// Warm-up runs, unstored, the sides taking turns (A, B, A, ...).
    pub async fn warm(&self, runs: u32, cancel: &Cancel) -> Result<Ran, CliError> {
        for i in 0..runs {
            let side = if i % 2 == 0 { Side::A } else { Side::B };
            let ran = self
                .run(side, None, &format!(" {}/{runs}", i + 1), cancel)
                .await?;
            if ran == Ran::OutOfTime {
                return Ok(Ran::OutOfTime);
            }
        }
        Ok(Ran::Done)
    }

    /// Both sides as stored so far. A side with nothing stored (its runs failed before they
    /// measured anything: an engine nobody answers at) is a failure, not bad usage: the
    /// rounds cannot be judged.
    pub(super) fn load(&self, store: &Store) -> Result<(compare::Side, compare::Side), CliError> {
        let side = |s: Side| {
            compare::Side::load(store, &self.selector(s)).map_err(|e| {
                CliError::from(anyhow::anyhow!(
                    "ab {}: side {}'s runs stored nothing to judge: {e}",
                    self.id,
                    s.tag().to_uppercase()
                ))
            })
        };
        Ok((side(Side::A)?, side(Side::B)?))
    }
}

/// The threshold a sequential verdict can be read against: a change of 100 % or more
/// downwards is no rate at all, so such a band means nothing (refused, not clamped).
pub(super) fn check_threshold(threshold_pct: f64) -> Result<(), CliError> {
    if threshold_pct < 100.0 {
        Ok(())
    } else {
        Err(CliError::usage(anyhow::anyhow!(
            "--threshold {threshold_pct} %: a sequential verdict reads changes under 100 % (B cannot be more than 100 % slower); give e.g. 5%"
        )))
    }
}

/// A time to come, as a reader wants it: seconds under two minutes, else minutes.
fn about(secs: f64) -> String {
    if secs < 120.0 {
        format!("~{secs:.0} s")
    } else {
        format!("~{:.0} min", secs / 60.0)
    }
}

/// A side's arguments as printed: "as given" when none, a URL's password and a secret
/// flag's value (`--password`, `--api-key`, ...) as `***`.
pub(super) fn shown(args: &str) -> String {
    if args.trim().is_empty() {
        return "as given".into();
    }
    let secret = |flag: &str| {
        let f = flag.to_ascii_lowercase();
        ["password", "api-key", "api_key", "secret", "token"]
            .iter()
            .any(|s| f.contains(s))
    };
    let words = shlex::split(args).unwrap_or_else(|| vec![args.to_string()]);
    let mut out: Vec<String> = Vec::new();
    let mut hide = false;
    for w in &words {
        if std::mem::take(&mut hide) {
            out.push("***".into());
            continue;
        }
        match w.split_once('=') {
            Some((flag, _)) if flag.starts_with("--") && secret(flag) => {
                out.push(format!("{flag}=***"));
            }
            _ if w.starts_with("--") && secret(w) => {
                hide = true;
                out.push(w.clone());
            }
            _ => out.push(crate::cluster::redact_url(w)),
        }
    }
    out.join(" ")
}

/// The command's key: its words without its tags, hashed. A nightly's tags name the night
/// (`--tag build=...`); the command it measures is the same, and so is its spread.
pub(super) fn command_key(command: &[String]) -> String {
    let mut words = Vec::new();
    let mut skip = false;
    for w in command {
        if std::mem::take(&mut skip) {
            continue;
        }
        if w == "--tag" {
            skip = true;
            continue;
        }
        if w.starts_with("--tag=") {
            continue;
        }
        words.push(w.as_str());
    }
    format!(
        "{:016x}",
        crate::rng::fnv1a(words.iter().flat_map(|w| [w.as_bytes(), b"\0"]))
    )
}

/// The sides' rounds as the sequential test reads them: the headline metric's pairs (and its
/// label), the CPU per document's, and each side's errors in all.
pub(super) fn rounds_of(
    a: &compare::Side,
    b: &compare::Side,
) -> (Option<String>, Paired, Paired, (f64, f64)) {
    let metric = |s: &compare::Side, key: &str| s.metrics.iter().find(|m| m.key == key).cloned();
    let paired = |key: &str| -> Paired {
        match (metric(a, key), metric(b, key)) {
            (Some(x), Some(y)) => Paired {
                pairs: compare::pairs_of(&x, &y).unwrap_or_default(),
                higher_better: x.direction == Direction::HigherBetter,
            },
            _ => Paired::default(),
        }
    };
    let key = HEADLINE
        .iter()
        .find(|k| metric(a, k).is_some() && metric(b, k).is_some());
    let rate = key.map(|k| paired(k)).unwrap_or_default();
    let headline = key.and_then(|k| metric(a, k)).map(|m| m.label);
    let cost = if key == Some(&THROUGHPUT) {
        paired(COST)
    } else {
        Paired::default()
    };
    let errors = |s: &compare::Side| -> f64 {
        s.metrics
            .iter()
            .filter(|m| m.errors)
            .map(|m| match &m.samples {
                Some((_, v)) => v.iter().sum::<f64>(),
                None => m.value,
            })
            .sum()
    };
    (headline, rate, cost, (errors(a), errors(b)))
}

/// The verdict of a budget of rounds.
#[derive(Debug, serde::Serialize)]
pub(super) struct Sequential {
    /// The headline metric judged.
    pub metric: Option<String>,
    pub threshold_pct: f64,
    pub alpha: f64,
    pub max_rounds: u32,
    pub max_minutes: Option<f64>,
    /// What stopped the rounds: `decided`, `max_rounds` or `max_minutes`.
    pub stopped_by: &'static str,
    pub minutes: f64,
    #[serde(flatten)]
    pub look: Look,
}

impl Sequential {
    /// The gate's exit code: 3 worse, 0 better or no change as large as the threshold, 125
    /// when the budget was spent first.
    pub fn exit_code(&self) -> i32 {
        match self.look.decision {
            Decision::Worse => exit::CHECK_FAILED,
            Decision::Better | Decision::NoChangeAsLarge => exit::OK,
            Decision::Undecided => exit::CANNOT_TELL,
        }
    }

    /// One line: `worse after 7 rounds (4.2 min): throughput -9.8 % [-14.2, -5.1]`.
    pub fn line(&self) -> String {
        let what = match (self.look.decision, self.look.by) {
            (Decision::Undecided, _) => format!(
                "cannot tell after {} rounds ({:.1} min; {} spent)",
                self.look.rounds,
                self.minutes,
                self.stopped_by.replace('_', "-")
            ),
            (d, _) => format!(
                "{} after {} rounds ({:.1} min)",
                match d {
                    Decision::NoChangeAsLarge =>
                        format!("no change as large as {} %", self.threshold_pct),
                    d => d.name().to_string(),
                },
                self.look.rounds,
                self.minutes
            ),
        };
        format!(
            "{what}: {}; safe t test, a false verdict at most {} % however often looked at",
            said(&self.look, self.metric.as_deref()),
            self.alpha * 100.0
        )
    }
}

/// What a look knows, in words: each watched metric's change of B against A and its
/// confidence sequence, and what decided.
fn said(look: &Look, metric: Option<&str>) -> String {
    let seq = |name: &str, s: &Option<Sequence>| -> Option<String> {
        let s = s.as_ref()?;
        Some(match (s.low_pct, s.high_pct) {
            (Some(lo), Some(hi)) => format!("{name} {:+.1} % [{lo:+.1}, {hi:+.1}]", s.change_pct),
            _ => format!("{name} {:+.1} % (unbounded yet)", s.change_pct),
        })
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(r) = seq(metric.unwrap_or("headline"), &look.rate) {
        parts.push(r);
    }
    if let Some(c) = seq(COST_SHORT, &look.cost) {
        parts.push(c);
    }
    match look.by {
        DecidedBy::Cost => parts.push(format!(
            "the rate could not tell: leaning on the engine's {COST_SHORT}, at least {STEADIER_BY}× steadier"
        )),
        DecidedBy::Errors => parts.push("B's errors rose: worse, whatever the speed".into()),
        _ => {}
    }
    if parts.is_empty() {
        "too few rounds to judge (a verdict takes 4 or more)".into()
    } else {
        parts.join("; ")
    }
}

/// Runs rounds until the sequential verdict is known or the budget is spent: says what it
/// will do and how long a verdict should take, then after each round what is known.
pub(super) async fn sequential(
    rounds: &Rounds,
    who: &str,
    budget: &BudgetArgs,
    max_rounds: u32,
    threshold_pct: f64,
    store_args: &StoreArgs,
    cancel: &Cancel,
) -> Result<Sequential, CliError> {
    let id = &rounds.id;
    eprintln!(
        "{who} {id}: A ({}) and B ({}) round by round (A B, B A, ...) until the verdict is known, at most {max_rounds} rounds{}; stored with the tag ab={id}",
        rounds.shown[0],
        rounds.shown[1],
        budget
            .max_minutes
            .map(|m| format!(" or {m} min"))
            .unwrap_or_default()
    );
    // No store yet (the first run makes it): nothing known before.
    let store = store_args.open().ok();
    say_expected(
        prior(rounds, store.as_ref(), budget.spread).as_ref(),
        threshold_pct,
        budget.alpha,
        max_rounds,
    );
    drop(store);
    let begun = std::time::Instant::now();
    // The budget bounds a run already going too (set by the caller from --max-minutes,
    // before any run): a side whose cluster never answers is stopped when it is spent.
    let deadline = rounds.deadline;
    let mut slowest = Duration::ZERO;
    let mut stopped_by = "max_rounds";
    let mut last = None;
    let mut metric = None;
    for round in 1..=max_rounds {
        if let (Some(deadline), Some(_)) = (deadline, last.as_ref()) {
            if tokio::time::Instant::now() + slowest > deadline {
                stopped_by = "max_minutes";
                break;
            }
        }
        let started = std::time::Instant::now();
        let ran = rounds
            .round(round, &format!("/{max_rounds}"), cancel)
            .await?;
        if ran == Ran::OutOfTime {
            stopped_by = "max_minutes";
            break;
        }
        slowest = slowest.max(started.elapsed());
        let store = store_args.open()?;
        let (a, b) = rounds.load(&store)?;
        let (key, rate, cost, errors) = rounds_of(&a, &b);
        metric = key;
        let look = sequential::look(
            &rate,
            &cost,
            errors,
            threshold_pct,
            budget.alpha,
            max_rounds as usize,
        );
        let next = match (look.decision.decided(), look.expect_rounds) {
            (true, _) => look.decision.name().to_string(),
            (false, Some(n)) if n > round as usize => format!(
                "undecided; about {} more round(s) at this spread ({})",
                n - round as usize,
                about((n - round as usize) as f64 * slowest.as_secs_f64())
            ),
            (false, _) if look.rate.is_some_and(|s| s.bounded()) => {
                format!("undecided; not within {max_rounds} rounds at this spread")
            }
            (false, _) => "undecided".to_string(),
        };
        eprintln!(
            "  after round {round}: {}: {next}",
            said(&look, metric.as_deref())
        );
        let decided = look.decision.decided();
        last = Some(look);
        if decided {
            stopped_by = "decided";
            break;
        }
    }
    let look = last.ok_or_else(|| {
        CliError::from(anyhow::anyhow!(
            "ab {}: no round ran within --max-minutes",
            rounds.id
        ))
    })?;
    Ok(Sequential {
        metric,
        threshold_pct,
        alpha: budget.alpha,
        max_rounds,
        max_minutes: budget.max_minutes,
        stopped_by,
        minutes: begun.elapsed().as_secs_f64() / 60.0,
        look,
    })
}

/// What the last `ab` of the same command in the store says of this one before it starts:
/// the spread of its rounds' ratio and a round's time.
struct Prior {
    pub spread: f64,
    pub round_secs: Option<f64>,
    pub from: String,
}

fn prior(rounds: &Rounds, store: Option<&Store>, spread_pct: Option<f64>) -> Option<Prior> {
    let runs = store
        .and_then(|store| {
            store
                .list(&crate::store::Filter {
                    tags: vec![("ab_command".into(), rounds.key.clone())],
                    limit: Some(2000),
                    ..Default::default()
                })
                .ok()
        })
        .unwrap_or_default();
    let last = runs
        .iter()
        .find(|r| r.tags.get("ab").is_some_and(|id| *id != rounds.id))
        .and_then(|r| r.tags.get("ab").cloned());
    let mut secs: Vec<f64> = runs
        .iter()
        .filter(|r| last.is_some() && r.tags.get("ab") == last.as_ref())
        .filter_map(|r| Some(r.finished_unix?.saturating_sub(r.started_unix) as f64))
        .collect();
    secs.sort_by(f64::total_cmp);
    let round_secs = crate::stats::median_sorted(&secs).map(|s| 2.0 * s.max(1.0));
    if let Some(pct) = spread_pct {
        return Some(Prior {
            spread: (1.0 + pct / 100.0).ln(),
            round_secs,
            from: "--spread".into(),
        });
    }
    let (last, store) = (last?, store?);
    let load = |side: &str| compare::Side::load(store, &format!("ab={last},ab_side={side}")).ok();
    let (a, b) = (load("a")?, load("b")?);
    let (_, rate, _, _) = rounds_of(&a, &b);
    let gains = rate.gains();
    let s = sequential::sequence(&gains, ALPHA)?;
    Some(Prior {
        spread: s.spread,
        round_secs,
        from: format!("ab {last}'s {} rounds", gains.len()),
    })
}

/// Before the first round: about how long a verdict takes at the prior's spread.
fn say_expected(prior: Option<&Prior>, threshold_pct: f64, alpha: f64, max_rounds: u32) {
    let Some(p) = prior else {
        eprintln!(
            "expected time to a verdict: not known yet (no earlier ab of this command in the store, no --spread); said after the first rounds"
        );
        return;
    };
    // The cost may take half the error budget: the rate's rounds at α/2.
    let at = |change: f64| {
        sequential::rounds_to_decide(
            change,
            p.spread,
            threshold_pct,
            alpha / 2.0,
            2,
            max_rounds as usize,
        )
    };
    let words = |n: Option<usize>| match (n, p.round_secs) {
        (Some(n), Some(s)) => format!("about {n} rounds ({})", about(n as f64 * s)),
        (Some(n), None) => format!("about {n} rounds"),
        (None, _) => format!("more than {max_rounds} rounds"),
    };
    eprintln!(
        "expected (a round's B/A spread ±{:.1} %, from {}): a change of {} % decided in {}; no change as large as {} % shown in {}",
        (p.spread.exp() - 1.0) * 100.0,
        p.from,
        2.0 * threshold_pct,
        words(at((1.0 - 2.0 * threshold_pct / 100.0).max(0.01).ln())),
        threshold_pct,
        words(at(0.0)),
    );
}

pub(super) fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}
