//! The rounds of `ab` and `gate`: each side's run is this very binary run again (the command
//! with the side's arguments, `--round N` and the tags `ab=ID`, `ab_side=a|b`,
//! `ab_command=KEY`), in the order A B, B A, ...; after each round the sequential test
//! ([`crate::analysis::sequential`], driven by [`sequential`]) reads what is stored and says
//! whether to go on. The CLI gives the flags and prints; the rounds are run here.

pub mod sequential;

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::process::Command;

use crate::analysis::compare;
use crate::cancel::Cancel;
use crate::exit;
use crate::query::Progress;
use crate::store::{Store, StoreError};

/// Why the rounds stopped before their verdict; each is an exit code of its own.
#[derive(Debug, thiserror::Error)]
pub enum RoundsError {
    /// The command or a side cannot run as given (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Stopped by Ctrl-C, or a run that crashed: what is done is kept (exit 130).
    #[error("{0}")]
    Interrupted(String),
    /// The rounds could not go on (exit 1).
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl RoundsError {
    /// The exit code the error stands for.
    pub fn code(&self) -> i32 {
        match self {
            RoundsError::Usage(_) => exit::USAGE,
            RoundsError::Interrupted(_) => exit::INTERRUPTED,
            RoundsError::Failed(_) | RoundsError::Store(_) => exit::FAILURE,
        }
    }
}

/// Flags `ab` sets on every run itself: a command that names them would fight it.
const OURS: [&str; 4] = ["--store", "--no-store", "--round", "--json"];

/// The order of the sides in round `round` (1-based): A B, B A, A B, ...
pub fn order(round: u32) -> [Side; 2] {
    if round % 2 == 1 {
        [Side::A, Side::B]
    } else {
        [Side::B, Side::A]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
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
pub fn deadline_in(max_minutes: Option<f64>) -> Option<tokio::time::Instant> {
    let max = Duration::try_from_secs_f64(max_minutes? * 60.0).ok()?;
    tokio::time::Instant::now().checked_add(max)
}

/// Whether a side's run (or a round, or the warm-ups) finished within the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
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

/// A side's arguments, split as a shell would; a quote left open is refused. The refusal
/// does not quote them: unsplit, a secret flag's value cannot be told from the rest.
pub fn split(which: &str, args: &str) -> Result<Vec<String>, RoundsError> {
    shlex::split(args).ok_or_else(|| {
        RoundsError::Usage(format!(
            "--{which}: its arguments leave a quote unclosed (give the side's arguments as one \
             shell-quoted string)"
        ))
    })
}

/// The rounds of one `ab` (or `gate`): the command, each side's arguments, where they are
/// stored, and what every run is given besides.
pub struct Rounds {
    pub id: String,
    exe: PathBuf,
    command: Vec<String>,
    /// Each side's arguments, split as a shell would.
    pub sides: [Vec<String>; 2],
    /// Each side's arguments as printed (see [`shown`]).
    pub shown: [String; 2],
    /// Arguments every run is given after its side's (a gate's `--url`).
    pub extra: Vec<String>,
    /// The environment every measured run is given besides ours (a gate's publishing).
    pub env: Vec<(&'static str, String)>,
    /// The store every run is given (`--store`); `None`: the runs' own default.
    store: Option<PathBuf>,
    /// When the budget (`--max-minutes`) is spent: a run still going then is stopped.
    pub deadline: Option<tokio::time::Instant>,
    /// The command's key in the store (`ab_command`): what the last ab of the same command is
    /// found by, to say how long a verdict takes before the first round.
    key: String,
    /// Where each run's start, end and failure is said.
    pub progress: Progress,
    /// How the rounds are judged when a sequential test judges them: its threshold (percent)
    /// and α, which the follow-up command ([`Rounds::again`]) gives again, so that it
    /// reproduces the verdict. `None`: a fixed number of rounds, compared as `compare` does.
    pub judged: Option<(f64, f64)>,
}

impl Rounds {
    /// Checks the command and the sides' arguments (`a`, `b`: each one shell-quoted string);
    /// a usage error names what would fight `ab`.
    pub fn new(
        command: &[String],
        [a, b]: [&str; 2],
        store: Option<PathBuf>,
        progress: Progress,
    ) -> Result<Rounds, RoundsError> {
        let parsed = [split("a", a)?, split("b", b)?];
        if let Some(flag) = command.iter().chain(parsed.iter().flatten()).find(|w| {
            OURS.iter()
                .any(|o| *w == o || w.starts_with(&format!("{o}=")))
        }) {
            return Err(RoundsError::Usage(format!(
                "{flag} is set by `ab` itself on every run (give --store to `ab`, before --)"
            )));
        }
        let exe = std::env::current_exe()
            .map_err(|e| RoundsError::Failed(format!("cannot find this program to run it: {e}")))?;
        Ok(Rounds {
            id: crate::session::matrix::new_id(),
            exe,
            command: command.to_vec(),
            sides: parsed,
            shown: [shown(a), shown(b)],
            extra: Vec::new(),
            env: Vec::new(),
            store,
            deadline: None,
            key: command_key(command),
            progress,
            judged: None,
        })
    }

    fn selector(&self, side: Side) -> String {
        format!("ab={},ab_side={}", self.id, side.tag())
    }

    /// The command to compare what is done again: judged as the rounds were (the same
    /// test, threshold and α: the same verdict), from the same store.
    pub fn again(&self) -> String {
        let mut words = vec![
            "searchbench".to_string(),
            "compare".into(),
            self.selector(Side::A),
            self.selector(Side::B),
        ];
        if let Some((threshold_pct, alpha)) = self.judged {
            words.extend([
                "--sequential".into(),
                "--threshold".into(),
                format!("{threshold_pct}%"),
                "--alpha".into(),
                format!("{}%", (alpha * 100.0 * 1e9).round() / 1e9),
            ]);
        }
        if let Some(store) = &self.store {
            let path = store.display().to_string();
            let quoted = shlex::try_quote(&path).map_or(path.clone(), |q| q.into_owned());
            words.extend(["--store".into(), quoted]);
        }
        words.join(" ")
    }

    /// Runs one side of one round, stored, or (`warm`) unstored and untagged, to warm the
    /// engine. A run that fails is kept; a usage error, an interrupt or a crash stops.
    async fn run(
        &self,
        side: Side,
        round: Option<u32>,
        of: &str,
        cancel: &Cancel,
    ) -> Result<Ran, RoundsError> {
        let id = &self.id;
        let label = round.map_or_else(|| "warm-up".to_string(), |r| format!("round {r}"));
        let during = round.map_or_else(|| "a warm-up run".to_string(), |r| format!("round {r}"));
        let side_name = side.tag().to_uppercase();
        let interrupted = |said: &str| {
            RoundsError::Interrupted(format!(
                "ab {id} interrupted in {during} ({side_name}'s run: {said}); what is done is kept; compare it with `{}`",
                self.again()
            ))
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
        // Whether a run must be published is the gate's to judge over all its runs (its
        // ending says what is pending): a round's run that could not be is still measured.
        cmd.arg("--quiet")
            .env_remove("SEARCHBENCH_PUBLISH_REQUIRED");
        self.progress.say(&format!("{label}{of}: {side_name} ..."));
        let ended = run_side(cmd, cancel, self.deadline)
            .await
            .map_err(|e| RoundsError::Failed(format!("cannot run {}: {e}", self.exe.display())))?;
        let out = match ended {
            Ended::Done(out) => out,
            Ended::OutOfTime => {
                self.progress.say(&format!(
                    "  the budget (--max-minutes) was spent during {during}: {side_name}'s run stopped"
                ));
                return Ok(Ran::OutOfTime);
            }
        };
        let said = String::from_utf8_lossy(&out.stderr);
        if cancel.is_cancelled() {
            return Err(interrupted(&format!("stopped: {}", last_line(&said))));
        }
        match out.status.code() {
            // Measured and kept, not published (the command asked `--publish-required`):
            // the gate's ending says what is pending.
            Some(exit::OK) | Some(exit::NOT_PUBLISHED) => Ok(Ran::Done),
            // A run with failures is stored: its errors are part of the comparison.
            Some(exit::CHECK_FAILED) | Some(exit::FAILURE) => {
                self.progress.say(&format!(
                    "  the run failed (what it stored is compared with its errors): {}",
                    last_line(&said)
                ));
                Ok(Ran::Done)
            }
            Some(exit::USAGE) => Err(RoundsError::Usage(format!(
                "side {side_name} cannot run: {}",
                said.trim()
            ))),
            _ => Err(RoundsError::Interrupted(format!(
                "ab {id} stopped in {during} ({}): what is done is kept; compare it with `{}`",
                last_line(&said),
                self.again()
            ))),
        }
    }

    /// Runs both sides of a round in the round's order.
    pub async fn round(&self, round: u32, of: &str, cancel: &Cancel) -> Result<Ran, RoundsError> {
        for side in order(round) {
            if self.run(side, Some(round), of, cancel).await? == Ran::OutOfTime {
                return Ok(Ran::OutOfTime);
            }
        }
        Ok(Ran::Done)
    }

    /// Warm-up runs, unstored, the sides taking turns (A, B, A, ...).
    pub async fn warm(&self, runs: u32, cancel: &Cancel) -> Result<Ran, RoundsError> {
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
    pub fn load(&self, store: &Store) -> Result<(compare::Side, compare::Side), RoundsError> {
        let side = |s: Side| {
            compare::Side::load(store, &self.selector(s)).map_err(|e| {
                RoundsError::Failed(format!(
                    "ab {}: side {}'s runs stored nothing to judge: {e}",
                    self.id,
                    s.tag().to_uppercase()
                ))
            })
        };
        Ok((side(Side::A)?, side(Side::B)?))
    }
}

/// A side's arguments as printed: "as given" when none, a URL's password and a secret
/// flag's value (`--password`, `--api-key`, ...) as `***`.
pub fn shown(args: &str) -> String {
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
pub fn command_key(command: &[String]) -> String {
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

/// The last line of what a run said, trimmed.
pub fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sides_secrets_are_never_shown() {
        let said = shown(
            "--url http://bob:hunter2@h:9200 --password 'hunter2' --api-key=hunter2 --docs 10",
        );
        assert!(!said.contains("hunter2"), "{said}");
        assert!(
            said.contains("bob:***@h:9200") && said.contains("--docs 10"),
            "{said}"
        );
        assert_eq!(shown("  "), "as given");
    }

    #[test]
    fn a_commands_key_ignores_its_tags() {
        let w = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let key = command_key;
        assert_eq!(
            key(&w("ingest logs --tag build=1 --docs 10")),
            key(&w("ingest logs --docs 10 --tag=build=2"))
        );
        assert_ne!(
            key(&w("ingest logs --docs 10")),
            key(&w("ingest logs --docs 20"))
        );
    }

    #[test]
    fn rounds_alternate_which_side_runs_first() {
        let firsts: Vec<Side> = (1..=4).map(|r| order(r)[0]).collect();
        assert_eq!(firsts, [Side::A, Side::B, Side::A, Side::B]);
        assert!((1..=4).all(|r| order(r)[0] != order(r)[1]));
    }

    #[test]
    fn a_sides_arguments_split_as_a_shell_would() {
        assert_eq!(
            split(
                "a",
                "--setting 'index.refresh_interval=30s' --bulk-size 500"
            )
            .unwrap(),
            [
                "--setting",
                "index.refresh_interval=30s",
                "--bulk-size",
                "500"
            ]
        );
        assert!(split("a", "").unwrap().is_empty());
        let e = split("b", "--tag 'open").unwrap_err();
        assert_eq!(e.code(), exit::USAGE);
        assert!(e.to_string().contains("--b"), "{e}");
    }
}
