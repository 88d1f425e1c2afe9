//! Shell integration and help texts: completions, the man page, `--version` naming the
//! commit and the build profile, a help text for every flag, and examples that fit in 100
//! columns.

use std::process::Output;

use clap::CommandFactory;
use searchbench::cli::Cli;

use crate::common::{bin, succeeded};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run searchbench")
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _searchbench"),
        ("zsh", "#compdef searchbench"),
        ("fish", "complete -c searchbench"),
    ] {
        let script = succeeded(&run(&["completions", shell]));
        assert!(script.contains(marker), "{shell}: {script:.300}");
        // Subcommands and their flags are in it.
        assert!(script.contains("max-failures"), "{shell}");
        // And the values worth completing: the catalogue's engines and the workloads.
        for value in [
            "opensearch-2.19.1",
            "elasticsearch-7.10.2",
            "cluster-metrics",
            "numbers",
        ] {
            assert!(script.contains(value), "{shell}: no {value}");
        }
    }
    // Completing is not limiting: a value the catalogue does not know still reaches the
    // command, which says what is wrong in its own words (not clap's list of 117 engines).
    let out = run(&["engine", "start", "opensearch-9.99.0", "--timeout", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Maven Central has no such release"), "{err}");
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_man_page_from_the_cli_definition() {
    let page = succeeded(&run(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH searchbench 1"),
        "{page:.200}"
    );
    assert!(page.contains(".TH searchbench 1"), "{page:.300}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "no {section}");
    }
    assert!(page.contains("searchbench\\-run"), "run is listed");
    let dir = tempfile::tempdir().expect("temp dir");
    succeeded(&run(&["man", "--dir", &dir.path().display().to_string()]));
    for page in [
        "searchbench.1",
        "searchbench-run.1",
        "searchbench-results-list.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page)).expect(page);
        assert!(text.contains(".SH OPTIONS"), "{page}");
    }
}

#[test]
fn version_names_the_commit_and_the_build_profile() {
    let text = succeeded(&run(&["--version"]));
    let line = text.trim();
    assert!(line.starts_with("searchbench 0."), "{line}");
    let commit = line
        .split("(commit ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("no commit in {line:?}"));
    assert!(
        commit == "unknown" || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{line}"
    );
    assert!(line.ends_with(" build)"), "{line}");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    assert!(line.contains(profile), "{line}");
}

/// Every command of the tree with its path (`searchbench results list`).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(path: String, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        out.push((path.clone(), cmd.clone()));
        for sub in cmd.get_subcommands() {
            walk(format!("{path} {}", sub.get_name()), sub, out);
        }
    }
    let mut root = Cli::command();
    root.build();
    let mut out = Vec::new();
    walk("searchbench".into(), &root, &mut out);
    out
}

#[test]
fn every_flag_and_argument_has_a_help_text() {
    let mut missing = Vec::new();
    for (path, cmd) in commands() {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            let help = arg
                .get_help()
                .or(arg.get_long_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            if help.trim().is_empty() {
                missing.push(format!("{path}: {id}"));
            }
        }
    }
    assert!(missing.is_empty(), "arguments without help: {missing:#?}");
}

#[test]
fn help_examples_fit_in_100_columns_and_commands_describe_themselves() {
    let mut wrapped = Vec::new();
    let mut undescribed = Vec::new();
    for (path, mut cmd) in commands() {
        if cmd.get_about().is_none() && path != "searchbench" {
            undescribed.push(path.clone());
        }
        // What the user sees at 100 columns: an example line wider than that is wrapped by
        // clap in the middle of the command.
        cmd = cmd.term_width(100).max_term_width(100);
        let help = cmd.render_long_help().to_string();
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let example = line.starts_with("  ") && line.trim_start().starts_with("searchbench ");
            if example && line.chars().count() > 100 {
                wrapped.push(format!("{path}: {line}"));
            }
            // A wrapped example leaves its tail on the next line: examples stand one per
            // line, followed by another example or a blank line.
            if example {
                if let Some(next) = lines.get(i + 1) {
                    if !next.trim().is_empty() && !next.trim_start().starts_with("searchbench ") {
                        wrapped.push(format!("{path}: {line} / {next}"));
                    }
                }
            }
        }
    }
    assert!(
        wrapped.is_empty(),
        "examples wrapped at 100 columns: {wrapped:#?}"
    );
    assert!(
        undescribed.is_empty(),
        "commands without about: {undescribed:#?}"
    );
}

#[test]
fn the_commands_that_do_work_show_examples_the_same_way() {
    let wanted = [
        "searchbench ingest",
        "searchbench query",
        "searchbench run",
        "searchbench generate",
        "searchbench compare",
        "searchbench report",
        "searchbench calibrate",
        "searchbench dates cost",
        "searchbench target",
        "searchbench completions",
        "searchbench man",
    ];
    for (path, mut cmd) in commands() {
        if !wanted.contains(&path.as_str()) {
            continue;
        }
        let help = cmd.render_long_help().to_string();
        let at = help
            .find("\nExamples:\n")
            .unwrap_or_else(|| panic!("{path}: no Examples section"));
        let examples: Vec<&str> = help[at..]
            .lines()
            .skip(2)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        assert!(!examples.is_empty(), "{path}: empty Examples");
        for line in examples {
            assert!(
                line.starts_with(&format!("  {path}")),
                "{path}: an example not indented by two spaces or of another command: {line:?}"
            );
        }
    }
}

#[test]
fn dash_h_is_short_and_dash_dash_help_has_every_flag_under_its_heading() {
    for command in ["run", "ingest", "query", "sweep", "saturate", "matrix"] {
        let short = succeeded(&run(&[command, "-h"]));
        let long = succeeded(&run(&[command, "--help"]));
        let (s, l) = (short.lines().count(), long.lines().count());
        assert!(s <= 60, "{command} -h is {s} lines:\n{short}");
        assert!(l > 2 * s, "{command}: --help {l} lines, -h {s}");
        assert!(short.contains("--help all"), "{command}: {short}");
    }
    let short = succeeded(&run(&["run", "-h"]));
    for flag in [
        "--docs",
        "--engine",
        "--url",
        "--clients",
        "--bulk-size",
        "--json",
    ] {
        assert!(short.contains(flag), "run -h lacks {flag}:\n{short}");
    }
    assert!(!short.contains("--max-retries"), "{short}");
    // Each flag under its own heading, not the heading of the group before it.
    let long = succeeded(&run(&["run", "--help"]));
    let heading_of = |flag: &str| {
        let at = long
            .find(&format!("      {flag} "))
            .unwrap_or_else(|| panic!("{flag}"));
        long[..at]
            .lines()
            .rev()
            .find(|l| !l.starts_with(' ') && l.ends_with(':'))
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(heading_of("--mapping"), "Index setup:");
    assert_eq!(heading_of("--clients"), "Load:");
    assert_eq!(heading_of("--store"), "Output and results:");
    assert_eq!(heading_of("--heap"), "Engine we start:");
    assert_eq!(heading_of("--indices"), "many-shards / snapshots:");
}

/// A flag name means one thing on every command: it needs a value everywhere or nowhere
/// (`--json` is the switch that prints JSON on stdout, `--export-json FILE` the file; so for
/// `--markdown`). Hidden old spellings live in `cli::args::legacy`, not in the definition.
#[test]
fn every_flag_name_needs_a_value_everywhere_or_nowhere() {
    use std::collections::BTreeMap;
    let mut seen: BTreeMap<String, BTreeMap<bool, Vec<String>>> = BTreeMap::new();
    for (path, cmd) in commands() {
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            // What matters to a user is whether the flag alone is right: a switch, or an
            // optional value (`sweep --gzip` alone is on; `--gzip off,on` an axis).
            let takes_value = arg.get_action().takes_values()
                && arg.get_num_args().is_none_or(|n| n.min_values() > 0);
            seen.entry(long.to_string())
                .or_default()
                .entry(takes_value)
                .or_default()
                .push(path.clone());
        }
    }
    let two: Vec<String> = seen
        .iter()
        .filter(|(_, kinds)| kinds.len() > 1)
        .map(|(flag, kinds)| format!("--{flag}: {kinds:?}"))
        .collect();
    assert!(
        two.is_empty(),
        "flags with two meanings:\n{}",
        two.join("\n")
    );
    for flag in ["json", "markdown"] {
        assert_eq!(seen[flag].keys().collect::<Vec<_>>(), [&false], "--{flag}");
    }
    assert_eq!(seen["export-json"].keys().collect::<Vec<_>>(), [&true]);
}

/// The old spellings still reach the same command: `target info`, `experiment dates`, and
/// `--json -`/`--json FILE` where `--json` took a file (see `cli::args::legacy` for which
/// words are read as the old FILE).
#[test]
fn old_spellings_still_work() {
    // Nothing listens on port 1: both spellings reach the cluster and fail there (exit 1),
    // not at the command line (exit 2).
    for line in [
        &["target", "--url", "http://127.0.0.1:1"][..],
        &["target", "--url", "http://127.0.0.1:1"],
    ] {
        let out = run(line);
        assert_eq!(out.status.code(), Some(1), "{line:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("127.0.0.1:1"), "{err}");
    }
    for line in [
        &["dates", "cost", "--help"][..],
        &["experiment", "dates", "--help"],
    ] {
        let help = succeeded(&run(line));
        assert!(help.contains("--export-json <FILE>"), "{line:?}: {help}");
    }
    let top = succeeded(&run(&["--help"]));
    assert!(!top.contains("experiment"), "{top}");
    // The old FILE and the new switch: the same bad corpus refused the same way, and the file
    // named after the old --json not made (a run that fails before its result writes none).
    let dir = tempfile::tempdir().expect("tempdir");
    let out_file = dir.path().join("out.json");
    let missing = dir.path().join("missing.ndjson");
    for json in [
        vec!["--json".to_string(), out_file.display().to_string()],
        vec!["--json".to_string(), "-".to_string()],
        vec!["--json".to_string()],
    ] {
        let mut args = vec!["ingest".to_string(), "--file".to_string()];
        args.push(missing.display().to_string());
        args.extend(["--url".to_string(), "http://127.0.0.1:1".to_string()]);
        args.extend(json.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{json:?}: {err}");
        assert!(err.contains("missing.ndjson"), "{json:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{json:?}: {err}");
    }
}

/// Every flag that reads a file refuses one that is missing or a folder as bad usage (exit 2),
/// naming the flag and the path, before anything starts (`query --truth` exited 1).
#[test]
fn every_input_file_flag_refuses_a_missing_file_or_a_folder_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let folder = dir.path().to_str().unwrap().to_string();
    let missing = missing.to_str().unwrap().to_string();
    let url = ["--url", "http://127.0.0.1:9"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["query", "logs", "--docs", "10", "--truth"], "--truth"),
        (vec!["query", "--queries"], "--queries"),
        (
            vec!["query", "logs", "--docs", "10", "--baseline"],
            "--baseline",
        ),
        (
            vec!["ingest", "logs", "--docs", "10", "--mapping"],
            "--mapping",
        ),
        (
            vec!["ingest", "logs", "--docs", "10", "--settings"],
            "--settings",
        ),
        (
            vec!["ingest", "logs", "--docs", "10", "--index-body"],
            "--index-body",
        ),
        (
            vec!["ingest", "logs", "--docs", "10", "--template"],
            "--template",
        ),
        (
            vec!["ingest", "logs", "--docs", "10", "--pipeline"],
            "--pipeline",
        ),
        (vec!["target", "--ca-cert"], "--ca-cert"),
        (vec!["dates", "parse", "--input"], "--input"),
        (vec!["results", "import", "--no-store"], "FILE"),
    ];
    for (args, flag) in &cases {
        for (path, why) in [
            (&missing, "No such file"),
            (&folder, "is a folder, not a file"),
        ] {
            let out = bin()
                .args(args)
                .arg(path)
                .args(if args[0] == "dates" || args[0] == "results" {
                    &[][..]
                } else {
                    &url[..]
                })
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} {path}: {err}");
            for needle in [*flag, path.as_str(), why] {
                assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
            }
        }
    }
}

/// The writes beside the searches (`query --rewrite-clients`) refuse, as bad usage before
/// anything is sent, what they cannot do: no clients or too many, a rate without them or one
/// that is no rate, unchecked answers, a file of the user's queries.
#[test]
fn the_writes_beside_the_searches_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("q.json");
    std::fs::write(&queries, r#"{"all": {"query": {"match_all": {}}}}"#).unwrap();
    let queries = queries.to_str().unwrap();
    let base = [
        "query",
        "vectors",
        "--docs",
        "10",
        "--url",
        "http://127.0.0.1:9",
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--rewrite-clients", "0"], "--rewrite-clients"),
        (vec!["--rewrite-clients", "65"], "--rewrite-clients"),
        (
            vec!["--rewrite-clients", "99999999999999999999"],
            "--rewrite-clients",
        ),
        (vec!["--rewrite-rate", "100"], "--rewrite-clients"),
        (
            vec!["--rewrite-clients", "1", "--rewrite-rate", "0"],
            "--rewrite-rate",
        ),
        (
            vec!["--rewrite-clients", "1", "--rewrite-rate", "NaN"],
            "--rewrite-rate",
        ),
        (vec!["--rewrite-clients", "1", "--rewrite-rate", "-5"], "-5"),
        (vec!["--rewrite-clients", "1", "--no-check"], "--no-check"),
        (vec!["--beside-idle"], "--rewrite-clients"),
        (
            vec![
                "--rewrite-clients",
                "1",
                "--beside-idle",
                "--part",
                "1/2",
                "--group",
                "g",
            ],
            "--part",
        ),
    ];
    for (extra, needle) in &cases {
        let out = bin().args(base).args(extra).output().expect("searchbench");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(needle), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
    let out = bin()
        .args(["query", "--queries", queries, "--index", "x"])
        .args(["--url", "http://127.0.0.1:9", "--rewrite-clients", "1"])
        .output()
        .expect("searchbench");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rewrite-clients"));
}

/// `run --rewrite-clients` writes beside a built-in workload's query phase, whole: a run
/// without one, a track or a workload file, a part, is refused before anything starts.
#[test]
fn a_run_writes_beside_its_query_phase_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.json");
    std::fs::write(&file, r#"{"name": "w", "corpus": {"generator": "logs"}}"#).unwrap();
    let file = file.to_str().unwrap();
    let url = ["--url", "http://127.0.0.1:9"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "logs", "--no-query"], "--no-query"),
        (vec!["run", "transactions"], "no query phase"),
        (vec!["run", "many-shards"], "no query phase"),
        (vec!["run", "--workload-file", file], "built-in workload"),
        (
            vec!["run", "logs", "--part", "1/2", "--group", "g"],
            "parts",
        ),
        (vec!["run", "logs", "--beside-idle"], "--rewrite-clients"),
    ];
    for (args, needle) in &cases {
        let mut all = args.clone();
        if !args.contains(&"--beside-idle") {
            all.extend(["--rewrite-clients", "1"]);
        } else {
            all.retain(|a| *a != "--beside-idle");
            all.push("--beside-idle");
        }
        let out = bin().args(&all).args(url).output().expect("searchbench");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(needle), "{all:?}: {err}");
        assert!(out.stdout.is_empty(), "{all:?}");
    }
}

/// `dates parse` reads a line past 1 MiB no further and says `error` for it (no date is that
/// long), then goes on with the next line; a result to import that never ends (`/dev/zero`)
/// is refused, named, once past 256 MiB, not read until memory runs out.
#[test]
fn endless_input_is_read_no_further_than_its_bound() {
    use std::io::Write;
    let mut child = bin()
        .args(["dates", "parse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run searchbench");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(&vec![b'9'; 3 << 20]).unwrap();
        stdin.write_all(b"\n2020-01-02T03:04:05Z\n").unwrap();
    });
    let out = child.wait_with_output().expect("its output");
    writer.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().collect::<Vec<_>>(), ["error", "1577934245 0"]);
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["results", "import", "/dev/zero", "--store"])
        .arg(dir.path().join("r.db"))
        .output()
        .expect("run searchbench");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("larger than 256 MiB"),
        "{err}"
    );
}
