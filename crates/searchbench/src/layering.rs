//! The layering rules of docs/architecture.md, checked on the source: only `cli/` prints or
//! exits, nothing outside `cli/` depends on it, library modules import one another one way
//! only, the query method names no workload, and the library keeps no global mutable state.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Library files (everything under src/ but `cli/`, `main.rs` and this file), with their
    /// text minus comment lines.
    fn library() -> Vec<(String, String)> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        files
            .into_iter()
            .filter_map(|p| {
                let rel = p
                    .strip_prefix(&src)
                    .ok()?
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel.starts_with("cli/") || rel == "main.rs" || rel == "layering.rs" {
                    return None;
                }
                let text = std::fs::read_to_string(&p).ok()?;
                let code: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect();
                Some((rel, code.join("\n")))
            })
            .collect()
    }

    #[test]
    fn the_cli_prints_through_write_stdout_and_write_stderr() {
        // `println!` panics on a closed stdout; `outln!` drops the text and the command
        // goes on to its verdict's exit code (`cli::output::write_stdout`), and shows what it
        // quotes without the terminal acting on it (`shown::for_terminal`).
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
        let mut files = Vec::new();
        sources(&src, &mut files);
        assert!(files.len() > 20, "found only {} cli files", files.len());
        let mut offenders = Vec::new();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                // `eprintln!` too: what the CLI prints goes through `write_stdout` or
                // `write_stderr`, which show a hostile name or reason without acting on it.
                if line.contains("println!") || line.contains("print!(") {
                    offenders.push(format!("{}: {}", p.display(), line.trim()));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "use outln!/out! (stdout), errln!/err! (stderr): {offenders:#?}"
        );
    }

    #[test]
    fn the_library_neither_prints_nor_exits() {
        let files = library();
        assert!(files.len() > 20, "found only {} library files", files.len());
        let banned = [
            "println!",
            "eprintln!",
            "print!(",
            "eprint!(",
            "process::exit",
            "indicatif::",
        ];
        let offenders: Vec<String> = files
            .iter()
            .flat_map(|(file, code)| {
                banned
                    .iter()
                    .filter(|b| code.contains(**b))
                    .map(move |b| format!("{file}: {b}"))
            })
            .collect();
        assert!(
            offenders.is_empty(),
            "library code prints or exits: {offenders:#?}"
        );
    }

    #[test]
    fn nothing_outside_cli_uses_cli() {
        let offenders: Vec<String> = library()
            .into_iter()
            .filter(|(_, code)| code.contains("crate::cli") || code.contains("super::cli"))
            .map(|(file, _)| file)
            .collect();
        assert!(
            offenders.is_empty(),
            "library code depends on cli: {offenders:?}"
        );
    }

    /// The top-level library module of a file (`query` for `query/send.rs`, `os` for `os.rs`).
    fn module(file: &str) -> &str {
        let first = file.split('/').next().unwrap_or(file);
        first.strip_suffix(".rs").unwrap_or(first)
    }

    #[test]
    fn library_modules_import_one_another_one_way() {
        use std::collections::{BTreeMap, BTreeSet};
        // (from, to) -> the files of `from` that name `to`.
        let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for (file, code) in library() {
            let from = module(&file).to_string();
            for (at, _) in code.match_indices("crate::") {
                let to: String = code[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !to.is_empty() && to != from {
                    edges
                        .entry((from.clone(), to))
                        .or_default()
                        .insert(file.clone());
                }
            }
        }
        assert!(
            edges.contains_key(&("workload".into(), "query".into())),
            "the scan sees no import at all: {edges:?}"
        );
        let both_ways: Vec<String> = edges
            .iter()
            .filter(|((a, b), _)| a < b && edges.contains_key(&(b.clone(), a.clone())))
            .map(|((a, b), files)| {
                format!(
                    "{a} -> {b} ({files:?}) and {b} -> {a} ({:?})",
                    edges[&(b.clone(), a.clone())]
                )
            })
            .collect();
        assert!(both_ways.is_empty(), "two-way imports: {both_ways:#?}");
    }

    #[test]
    fn the_query_method_names_no_workload() {
        let files: Vec<(String, String)> = library()
            .into_iter()
            .filter(|(file, _)| module(file) == "query")
            .collect();
        assert!(files.len() >= 8, "found only {} query files", files.len());
        let mut offenders = Vec::new();
        for (file, code) in &files {
            // Tests may use any names; the method itself may not.
            let code = code.split("#[cfg(test)]").next().unwrap_or(code);
            for above in [
                "crate::workload",
                "crate::session",
                "crate::ingest",
                "crate::cli",
            ] {
                if code.contains(above) {
                    offenders.push(format!("{file}: {above}"));
                }
            }
            for name in crate::workload::names() {
                if code.contains(&format!("\"{name}\"")) {
                    offenders.push(format!("{file}: the workload name {name:?}"));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "query/ must stay the generic method (workloads own their queries): {offenders:#?}"
        );
    }

    #[test]
    fn what_phases_hand_on_is_typed_outside_the_lifecycle() {
        // Phases and instruments hand on through a `Hand<T>` (session/lifecycle.rs): the
        // type goes with the name, so a wrong type does not compile. Only the lifecycle
        // holds the values as `dyn Any`.
        let offenders: Vec<String> = library()
            .into_iter()
            .filter(|(file, code)| file != "session/lifecycle.rs" && code.contains("dyn Any"))
            .map(|(file, _)| file)
            .collect();
        assert!(offenders.is_empty(), "untyped hand-over: {offenders:?}");
    }

    #[test]
    fn the_views_read_no_stored_result_by_json_pointer() {
        // A stored result is read back as the types it was written with (`store::Parts`, a
        // merged run's parts; `analysis::said::Said`, what a result says of itself; the
        // metrics' readers), so a renamed field is a compile error, not a silent gap. JSON
        // pointers stay where an engine's answer is read (`query/`, `cluster/`, `ingest/`).
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        for dir in ["analysis", "report", "cli", "publish", "store"] {
            sources(&src.join(dir), &mut files);
        }
        assert!(files.len() > 50, "found only {} view files", files.len());
        let mut offenders = Vec::new();
        for p in &files {
            for line in code_of(p).lines() {
                if line.contains(".pointer(") {
                    offenders.push(format!("{}: {}", p.display(), line.trim()));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "read the result as its type: {offenders:#?}"
        );
    }

    /// `p`'s path under `base`, with `/` between its parts.
    fn relative(p: &Path, base: &Path) -> String {
        let rel = p.strip_prefix(base).unwrap_or(p);
        rel.to_string_lossy().replace('\\', "/")
    }

    /// A file's code without its comment lines and its test module (tests build results by
    /// hand; what they read is theirs).
    fn code_of(p: &Path) -> String {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let code = match text.rfind("#[cfg(test)]\nmod tests") {
            Some(at) => &text[..at],
            None => &text,
        };
        let lines = code.lines().filter(|l| !l.trim_start().starts_with("//"));
        lines.collect::<Vec<_>>().join("\n")
    }

    /// The keyed reads (`.get("…")`) the views keep on purpose, file by file: none of a
    /// stored result. The rows of the timeline and telemetry tables (one column per figure
    /// sampled, schema-free by design), an engine's search hits and mappings, a workload
    /// file's settings, a run's tags (a map by name), a histogram's summary row.
    const KEYED_ON_PURPOSE: [(&str, usize); 10] = [
        ("analysis/compare.rs", 4),
        ("report/csv_file.rs", 1),
        ("report/run_charts.rs", 1),
        ("report/telemetry_charts.rs", 4),
        ("cli/output/byo.rs", 1),
        ("cli/output/results/mod.rs", 1),
        ("cli/run/file.rs", 2),
        ("publish/mod.rs", 3),
        ("publish/read.rs", 4),
        ("publish/whole.rs", 1),
    ];

    #[test]
    fn the_views_read_no_stored_result_by_key() {
        // What a result says of itself is read by `analysis::said::Said`, its metrics by the
        // readers of `analysis::metrics` (and a merge's by `analysis::merge`): every view
        // reads the result through them, never by a key of its own.
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        for dir in ["analysis", "report", "cli", "publish"] {
            sources(&src.join(dir), &mut files);
        }
        let readers = ["analysis/metrics/", "analysis/merge/", "analysis/said.rs"];
        let mut offenders = Vec::new();
        for p in &files {
            let rel = relative(p, &src);
            if readers.iter().any(|r| rel.starts_with(r)) {
                continue;
            }
            let keyed = code_of(p).matches(".get(\"").count();
            let allowed = KEYED_ON_PURPOSE
                .iter()
                .find(|(f, _)| *f == rel)
                .map_or(0, |(_, n)| *n);
            if keyed != allowed {
                offenders.push(format!("{rel}: {keyed} keyed reads, {allowed} on purpose"));
            }
        }
        assert!(
            offenders.is_empty(),
            "a view reads by key what the result's types say (use analysis::said::Said or the \
             metrics; or, for rows that are keyed by design, say so in KEYED_ON_PURPOSE): \
             {offenders:#?}"
        );
    }

    #[test]
    fn the_library_keeps_no_global_mutable_state() {
        // A signal handler can reach nothing but statics: the SIGBUS guard of mapped files.
        const ALLOWED: [(&str, &str); 2] = [
            ("corpus/files/sigbus.rs", "the SIGBUS handler's slots"),
            (
                "store/mod.rs",
                "a counter that keeps run ids unique within a process",
            ),
        ];
        let mutable = ["Mutex", "RwLock", "Atomic", "OnceLock", "Cell<", "Once "];
        let mut offenders = Vec::new();
        for (file, code) in library() {
            if ALLOWED.iter().any(|(f, _)| *f == file) {
                continue;
            }
            for line in code.lines() {
                let t = line.trim_start();
                let is_static = t.starts_with("static ")
                    || t.starts_with("pub static ")
                    || t.starts_with("pub(crate) static ");
                if is_static && mutable.iter().any(|m| t.contains(m)) {
                    offenders.push(format!("{file}: {t}"));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "global mutable state (keep it in the value that owns it): {offenders:#?}"
        );
    }

    /// What every command may use: the dispatcher, the shared flags, printing, and the
    /// controls of long work. Everything else at the top of `cli/` is one command's.
    const CLI_SHARED: [&str; 7] = [
        "mod", "args", "ending", "error", "help", "output", "progress",
    ];

    #[test]
    fn commands_import_no_other_commands_file() {
        let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
        let mut files = Vec::new();
        sources(&cli, &mut files);
        // A command's name: its file's stem, or its folder's name.
        let command = |p: &Path| -> String {
            let rel = p.strip_prefix(&cli).unwrap_or(p);
            let first = rel.components().next().map_or(String::new(), |c| {
                c.as_os_str().to_string_lossy().into_owned()
            });
            first.strip_suffix(".rs").unwrap_or(&first).to_string()
        };
        let commands: std::collections::BTreeSet<String> = files
            .iter()
            .map(|p| command(p))
            .filter(|c| !CLI_SHARED.contains(&c.as_str()))
            .collect();
        assert!(commands.len() > 15, "found only {commands:?}");
        let mut offenders = Vec::new();
        for p in &files {
            let own = command(p);
            let top = p.parent() == Some(cli.as_path());
            let text = std::fs::read_to_string(p).unwrap_or_default();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for other in &commands {
                    if *other == own {
                        continue;
                    }
                    // `super::x` reaches a sibling only from a file at the top of cli/.
                    let by_super = top && line.contains(&format!("super::{other}::"));
                    if by_super || line.contains(&format!("crate::cli::{other}::")) {
                        offenders.push(format!("{}: {}", p.display(), line.trim()));
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "a command uses another command's file (shared flags go in cli/args, printing in \
             cli/output): {offenders:#?}"
        );
    }

    /// The most lines a file of the CLI holds: a command parses its flags, hands the work
    /// to the library and prints what comes back. More is work that belongs below the CLI
    /// (as `ab`'s rounds went to `session::rounds`).
    const THIN: usize = 300;

    #[test]
    fn command_files_stay_thin() {
        let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
        let mut files = Vec::new();
        sources(&cli, &mut files);
        assert!(files.len() > 20, "found only {} cli files", files.len());
        let mut offenders = Vec::new();
        for p in &files {
            let rel = relative(p, &cli);
            let lines = std::fs::read_to_string(p)
                .unwrap_or_default()
                .lines()
                .count();
            if lines > THIN {
                offenders.push(format!("cli/{rel}: {lines} lines (at most {THIN})"));
            }
        }
        assert!(
            offenders.is_empty(),
            "a command file holds more than the CLI's part: move its work below the CLI \
             (a library module the command calls): {offenders:#?}"
        );
    }

    #[test]
    fn the_session_modules_import_one_another_without_a_circle() {
        use std::collections::{BTreeMap, BTreeSet};
        // The session's own modules: its files and folders.
        let session: BTreeMap<String, Vec<String>> =
            library()
                .into_iter()
                .fold(BTreeMap::new(), |mut by, (file, code)| {
                    if let Some(rest) = file.strip_prefix("session/") {
                        by.entry(module(rest).to_string()).or_default().push(code);
                    }
                    by
                });
        let names: BTreeSet<&str> = session.keys().map(String::as_str).collect();
        assert!(
            names.contains("lifecycle") && names.contains("ingest"),
            "{names:?}"
        );
        let word = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        // A module names another as `crate::session::x`, or as `super::x` (also in a
        // `use super::{..}` group) from a file of the session's own floor.
        let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (from, codes) in &session {
            for code in codes {
                let mut named: Vec<String> = Vec::new();
                for prefix in ["crate::session::", "super::"] {
                    for (at, _) in code.match_indices(prefix) {
                        let rest = &code[at + prefix.len()..];
                        match rest.strip_prefix('{') {
                            Some(group) => named.extend(
                                group
                                    .split('}')
                                    .next()
                                    .unwrap_or_default()
                                    .split(',')
                                    .map(|n| word(n.trim())),
                            ),
                            None => named.push(word(rest)),
                        }
                    }
                }
                for to in named {
                    if let Some(to) = names.get(to.as_str()).filter(|to| **to != from.as_str()) {
                        edges.entry(from.as_str()).or_default().insert(to);
                    }
                }
            }
        }
        assert!(
            edges
                .get("ingest")
                .is_some_and(|to| to.contains("lifecycle")),
            "the scan sees no import at all: {edges:?}"
        );
        // A circle: a module that reaches itself by the modules it imports.
        let reaches = |start: &str| -> BTreeSet<&str> {
            let mut seen = BTreeSet::new();
            let mut todo: Vec<&str> = edges.get(start).into_iter().flatten().copied().collect();
            while let Some(m) = todo.pop() {
                if seen.insert(m) {
                    todo.extend(edges.get(m).into_iter().flatten().copied());
                }
            }
            seen
        };
        let circled: Vec<&str> = names
            .iter()
            .copied()
            .filter(|m| reaches(m).contains(m))
            .collect();
        assert!(
            circled.is_empty(),
            "modules in an import circle: {circled:?}; {edges:#?}"
        );
    }

    #[test]
    fn what_a_phase_measured_travels_in_the_outcome_not_beside_it() {
        // A phase hands its report on through the run's outcome (`Phase::ended`, `given`,
        // `Outcome::take`) and an instrument what it saw through `Seen`: no shared cell
        // carries a result from one to the other. The lifecycle alone holds cells, for its
        // own sinks and warnings while the stream and the steps run together.
        let cells: Vec<String> = library()
            .into_iter()
            .filter(|(file, code)| {
                file.starts_with("session/")
                    && file != "session/lifecycle.rs"
                    && code.contains("RefCell")
            })
            .map(|(file, _)| file)
            .collect();
        assert!(cells.is_empty(), "RefCell in {cells:?}");
    }

    #[test]
    fn the_session_reaches_a_cluster_in_one_place() {
        // `ClusterSpec::connect` starts an engine that someone must stop: only the lifecycle
        // calls it, and it always stops what it started (`session::lifecycle::with_cluster`).
        let callers: Vec<String> = library()
            .into_iter()
            .filter(|(file, code)| {
                file != "session/cluster.rs"
                    && code.contains(".connect(")
                    && !file.starts_with("cluster/")
            })
            .map(|(file, _)| file)
            .collect();
        assert_eq!(callers, ["session/lifecycle.rs"], "who connects");
    }

    #[test]
    fn the_median_and_the_shuffle_are_written_once() {
        // A median by hand takes the two middle values; a Fisher–Yates draws `below(i + 1)`.
        let by_hand = [
            ("a median", "/ 2 - 1]", "stats.rs"),
            ("a shuffle", "below(i as u64 + 1)", "rng.rs"),
        ];
        let mut offenders = Vec::new();
        for (file, code) in library() {
            for (what, pattern, home) in by_hand {
                if code.contains(pattern) && file != home {
                    offenders.push(format!("{file}: {what} by hand (use {home})"));
                }
            }
        }
        assert!(offenders.is_empty(), "{offenders:#?}");
    }
}
