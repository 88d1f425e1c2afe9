//! `searchbench ab --a ARGS --b ARGS -- COMMAND...`: two configurations of one command run
//! round by round in the order A B, B A, A B, ... and compared round by round (paired t): one
//! verdict, the machine's drift between rounds cancelled instead of counted as noise.
//!
//! Each run is this very binary run again (`COMMAND` with the side's arguments, `--round N`
//! and the tags `ab=ID`, `ab_side=a|b`), so a side is anything a stored run can be: another
//! setting, another engine, another build's `--engine-dir`.

use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::process::Command;

use clap::Args;

use super::args::StoreArgs;
use super::{exit, output, CliError, CliResult};
use crate::analysis::compare::{self, format_diff, format_n, format_verdict, Comparison};
use crate::analysis::metrics::THROUGHPUT;
use crate::cancel::Cancel;

#[derive(Debug, Args)]
#[command(
    long_about = "Run two configurations of one command round by round and compare them \
        round by round: one verdict that the machine's drift cannot fake.\n\n\
        COMMAND (after --) is a searchbench command that stores a run (ingest, run, query, ...); \
        --a and --b are the arguments each side adds to it. Round 1 runs A then B, round 2 B \
        then A, and so on (A B B A A B ...), so that neither side always runs first. Each run \
        is stored with --round N and the tags ab=ID and ab_side=a or b; at the end the two \
        sides are compared as `compare` does, each round's B against that round's A (Student's \
        paired t over the rounds' ratios, from 3 rounds), and the headline's verdict is said \
        in one line. A run that fails is kept and compared (errors count in every verdict); a \
        command that cannot start (a usage error) stops at once.",
    after_help = "Examples:\n  \
        searchbench ab --a '--bulk-size 500' --b '--bulk-size 2000' -- ingest logs --url URL\n  \
        searchbench ab --a '--engine opensearch-2.11.0' --b '--engine opensearch-2.19.1' -- run logs\n  \
        searchbench compare ab=ID,ab_side=a ab=ID,ab_side=b      the same comparison again"
)]
pub struct AbArgs {
    /// Rounds: each runs A once and B once (3 or more for a paired verdict).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
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
    /// The smallest change worth seeing.
    #[arg(long, default_value = "5%", value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// Exit 3 when B is significantly worse than A on any metric.
    #[arg(long)]
    pub fail_on_worse: bool,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    /// The command both sides run (after --), e.g. `ingest logs --url URL --docs 200k`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Flags `ab` sets on every run itself: a command that names them would fight it.
const OURS: [&str; 4] = ["--store", "--no-store", "--round", "--json"];

/// The order of the sides in round `round` (1-based): A B, B A, A B, ...
fn order(round: u32) -> [Side; 2] {
    if round % 2 == 1 {
        [Side::A, Side::B]
    } else {
        [Side::B, Side::A]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
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

/// Runs one side's command. On Ctrl-C the run is interrupted as a user's Ctrl-C would
/// interrupt it (SIGINT: it stops, stores what it did as `interrupted`, and exits) and is
/// waited for [`STOP_WITHIN`]; it never outlives `ab` (killed when dropped).
async fn run_side(mut cmd: Command, cancel: &Cancel) -> std::io::Result<Output> {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let child = cmd.spawn()?;
    let pid = child.id();
    let done = child.wait_with_output();
    tokio::pin!(done);
    tokio::select! {
        out = &mut done => return out,
        _ = cancel.cancelled() => {}
    }
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // A terminal's Ctrl-C reached the run too; one more within half a second is the same
        // stop to it (cli::progress::SAME_STOP). A `kill -INT` of ab alone reaches only ab.
        // SAFETY: kill(2) on our own child's pid; it has not been reaped (we still wait on it).
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
    }
    match tokio::time::timeout(STOP_WITHIN, &mut done).await {
        Ok(out) => out,
        Err(_) => Err(std::io::Error::other(format!(
            "the run did not stop within {} s of the interrupt: killed",
            STOP_WITHIN.as_secs()
        ))),
    }
}

/// A side's arguments, split as a shell would; a quote left open is refused.
fn split(which: &str, args: &str) -> Result<Vec<String>, CliError> {
    shlex::split(args).ok_or_else(|| {
        CliError::usage(anyhow::anyhow!(
            "--{which} {args:?}: an unclosed quote (give the side's arguments as one shell-quoted string)"
        ))
    })
}

pub async fn run(a: AbArgs) -> CliResult {
    let sides = [split("a", &a.a)?, split("b", &a.b)?];
    if let Some(flag) = a.command.iter().chain(sides.iter().flatten()).find(|w| {
        OURS.iter()
            .any(|o| w == o || w.starts_with(&format!("{o}=")))
    }) {
        return Err(CliError::usage(anyhow::anyhow!(
            "{flag} is set by `ab` itself on every run (give --store to `ab`, before --)"
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::from(anyhow::anyhow!("cannot find this program to run it: {e}")))?;
    let id = crate::session::matrix::new_id();
    eprintln!(
        "ab {id}: {} rounds of A ({}) and B ({}), in the order A B, B A, ...; stored with the tag ab={id}",
        a.rounds,
        shown(&a.a),
        shown(&a.b)
    );
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    for round in 1..=a.rounds {
        for side in order(round) {
            let interrupted = |said: &str| {
                CliError {
                code: exit::INTERRUPTED,
                error: anyhow::anyhow!(
                    "ab {id} interrupted in round {round} ({}'s run: {said}); what is done is kept; compare it with `searchbench compare ab={id},ab_side=a ab={id},ab_side=b`",
                    side.tag().to_uppercase(),
                ),
            }
            };
            // A Ctrl-C between two runs starts no other.
            if cancel.is_cancelled() {
                return Err(interrupted("not started"));
            }
            let mut cmd = Command::new(&exe);
            cmd.args(&a.command)
                .args(&sides[side as usize])
                .arg("--round")
                .arg(round.to_string())
                .args(["--tag", &format!("ab={id}"), "--tag"])
                .arg(format!("ab_side={}", side.tag()))
                .arg("--quiet");
            if let Some(store) = &a.store.store {
                cmd.arg("--store").arg(store);
            }
            eprintln!(
                "round {round}/{}: {} ...",
                a.rounds,
                side.tag().to_uppercase()
            );
            let out = run_side(cmd, &cancel).await.map_err(|e| {
                CliError::from(anyhow::anyhow!("cannot run {}: {e}", exe.display()))
            })?;
            if cancel.is_cancelled() {
                let said = String::from_utf8_lossy(&out.stderr);
                return Err(interrupted(&format!("stopped: {}", last_line(&said))));
            }
            let code = out.status.code();
            let said = String::from_utf8_lossy(&out.stderr);
            match code {
                Some(exit::OK) => {}
                // A run with failures is stored: its errors are part of the comparison.
                Some(exit::CHECK_FAILED) | Some(exit::FAILURE) => {
                    eprintln!("  the run failed (kept, compared with its errors): {}", last_line(&said));
                }
                Some(exit::USAGE) => {
                    return Err(CliError::usage(anyhow::anyhow!(
                        "side {} cannot run: {}",
                        side.tag().to_uppercase(),
                        said.trim()
                    )))
                }
                _ => {
                    return Err(CliError {
                        code: exit::INTERRUPTED,
                        error: anyhow::anyhow!(
                            "ab {id} stopped in round {round} ({}): what is done is kept; compare it with `searchbench compare ab={id},ab_side=a ab={id},ab_side=b`",
                            last_line(&said)
                        ),
                    })
                }
            }
        }
    }
    // One command, one side's arguments each: the sides differ as asked and are one workload.
    let store = a.store.open()?;
    let side = |s: &str| {
        compare::Side::load(&store, &format!("ab={id},ab_side={s}")).map_err(CliError::usage)
    };
    let c = compare::compare_at(side("a")?, vec![side("b")?], a.threshold);
    let worse = c.any_worse();
    let line = headline(&c);
    output::compare::print(c, a.json, false, false)?;
    if !a.json {
        if let Some(line) = line {
            outln!("ab {id}: {line}");
        }
        outln!("again with: searchbench compare ab={id},ab_side=a ab={id},ab_side=b");
    }
    if a.fail_on_worse && worse {
        return Err(CliError::check(anyhow::anyhow!(
            "B is significantly worse than A"
        )));
    }
    Ok(())
}

/// B against A on the first headline metric the runs have, in one line: `B against A:
/// throughput (headline) -8.1 % [-10.2, -6.0], 5 rounds (paired t), ratio ±1.1 %: worse`.
fn headline(c: &Comparison) -> Option<String> {
    let row = crate::analysis::history::HEADLINE
        .iter()
        .find_map(|key| c.rows.iter().find(|r| r.key == *key))?;
    let cell = row.contenders.first()?.as_ref()?;
    let mut line = format!(
        "B against A: {} {}, {}: {}",
        row.label,
        format_diff(cell),
        format_n(cell),
        format_verdict(cell, c.threshold_pct)
    );
    // The rate could not tell and the engine's CPU per document, far steadier, could: the
    // line says what it leaned on (the whole sentence is among the notes above).
    if let Some(Some(l)) = c.leanings.first().filter(|_| row.key == THROUGHPUT) {
        line.push_str(&format!(
            "; leaning on the engine's CPU per document ({:.1}× steadier): {}{}",
            l.steadier(),
            l.diff_pct
                .map(|d| format!("{d:+.1} %, "))
                .unwrap_or_default(),
            l.verdict.name()
        ));
    }
    Some(line)
}

fn shown(args: &str) -> &str {
    if args.trim().is_empty() {
        "as given"
    } else {
        args
    }
}

fn last_line(text: &str) -> &str {
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
    fn rounds_alternate_which_side_runs_first() {
        let firsts: Vec<Side> = (1..=4).map(|r| order(r)[0]).collect();
        assert_eq!(firsts, [Side::A, Side::B, Side::A, Side::B]);
        assert!((1..=4).all(|r| order(r)[0] != order(r)[1]));
    }

    /// A side of three runs with these rates and engine CPU per document.
    fn side(label: &str, rate: [f64; 3], cost: [f64; 3]) -> compare::Side {
        use crate::analysis::metrics::{Direction, Metric};
        use crate::analysis::statistics::SampleKind;
        let metric = |key: &str, direction, v: [f64; 3]| Metric {
            key: key.into(),
            label: key.into(),
            unit: "",
            direction,
            value: v.iter().sum::<f64>() / 3.0,
            samples: Some((SampleKind::PerRun, v.to_vec())),
            errors: false,
            rounds: Vec::new(),
        };
        compare::Side {
            label: label.into(),
            run_ids: vec!["1".into(), "2".into(), "3".into()],
            engine: None,
            cpu_model: None,
            states: vec![crate::store::State::Complete; 3],
            excluded: Vec::new(),
            metrics: vec![
                metric(THROUGHPUT, Direction::HigherBetter, rate),
                metric(
                    crate::analysis::steadier::COST,
                    Direction::LowerBetter,
                    cost,
                ),
            ],
            configurations: Vec::new(),
        }
    }

    #[test]
    fn the_line_says_when_it_leans_on_the_cpu_per_document() {
        let a = side("a", [10e3, 14e3, 7e3], [100.0, 100.8, 99.4]);
        let b = side("b", [8e3, 15e3, 7e3], [112.0, 112.9, 111.3]);
        let c = compare::compare_at(a.clone(), vec![b], 5.0);
        let line = headline(&c).unwrap();
        assert!(line.contains("cannot tell"), "{line}");
        assert!(
            line.contains("leaning on the engine's CPU per document") && line.ends_with("worse"),
            "{line}"
        );
        // A rate that can tell says so alone.
        let steady = side("b", [9e3, 9.1e3, 8.9e3], [112.0, 112.9, 111.3]);
        let slow = side("a", [10e3, 10.1e3, 9.9e3], [100.0, 100.8, 99.4]);
        let line = headline(&compare::compare_at(slow, vec![steady], 5.0)).unwrap();
        assert!(
            line.ends_with(": worse") && !line.contains("leaning"),
            "{line}"
        );
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
        assert_eq!(e.code, exit::USAGE);
        assert!(e.error.to_string().contains("--b"), "{}", e.error);
    }
}
