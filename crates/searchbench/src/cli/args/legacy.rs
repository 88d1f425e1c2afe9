//! Old spellings, still taken: the command line is rewritten before clap reads it.
//!
//! `--json` is a switch on every command (JSON on stdout instead of the tables) and
//! `--export-json FILE` writes a file; `--markdown` is a switch (Markdown on stdout) and
//! `report --export-markdown FILE` writes one. Earlier releases took a FILE after `--json` on
//! the measuring commands and after `report --markdown`, so scripts still say
//! `run logs --json out.json` or `--json -`. Those keep working.
//!
//! The old form is ambiguous with the new one followed by a positional argument
//! (`ingest --json corpus.json` may mean "JSON on stdout, ingest corpus.json"), so a value is
//! read as the old FILE only where that cannot destroy anything: `-`, a file that does not
//! exist yet, or one that holds an earlier result (pretty-printed JSON, which a corpus of one
//! document per line is not). A built-in workload's name stays the workload. Everything else
//! is left to clap in the new meaning.

use std::ffi::OsString;
use std::path::Path;

/// Commands whose `--json` took a FILE (`experiment` is `experiment dates`, now `dates cost`).
const JSON_TOOK_A_FILE: [&str; 7] = [
    "run",
    "ingest",
    "query",
    "sweep",
    "saturate",
    "calibrate",
    "experiment",
];

/// Options of the top-level command that take a value (they may come before the command).
const ROOT_VALUED: [&str; 1] = ["--color"];

/// `args` (the program name first) with old spellings in today's form.
pub fn rewrite(args: Vec<OsString>) -> Vec<OsString> {
    let Some(command) = command_of(&args) else {
        return args;
    };
    let (flag, export) = if JSON_TOOK_A_FILE.contains(&command.as_str()) {
        ("--json", "--export-json")
    } else if command == "report" {
        ("--markdown", "--export-markdown")
    } else {
        return args;
    };
    let is_file = if flag == "--json" {
        old_json_file
    } else {
        old_markdown_file
    };
    let mut out = Vec::with_capacity(args.len());
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            out.push(arg);
            out.extend(rest);
            break;
        }
        let text = arg.to_string_lossy();
        if let Some(value) = text.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
            // `--json=FILE` was never a switch: always the old form.
            out.push(if value == "-" {
                OsString::from(flag)
            } else {
                OsString::from(format!("{export}={value}"))
            });
            continue;
        }
        if text != flag {
            out.push(arg);
            continue;
        }
        let mut peek = rest.clone();
        match peek.next() {
            Some(value) if value == "-" => {
                out.push(arg);
                rest = peek;
            }
            Some(value) if is_file(&value) => {
                out.push(OsString::from(export));
                out.push(value);
                rest = peek;
            }
            _ => out.push(arg),
        }
    }
    out
}

/// The command's name: the first word that is neither an option nor a root option's value.
fn command_of(args: &[OsString]) -> Option<String> {
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if ROOT_VALUED.contains(&word.as_ref()) {
            words.next();
        } else if !word.starts_with('-') {
            return Some(word.into_owned());
        }
    }
    None
}

/// Whether the word after `--json` is the old FILE.
fn old_json_file(value: &OsString) -> bool {
    let text = value.to_string_lossy();
    if text.starts_with('-') || crate::workload::names().contains(&text.as_ref()) {
        return false;
    }
    let path = Path::new(value);
    match std::fs::File::open(path) {
        Err(_) => !path.exists(),
        Ok(file) => {
            use std::io::Read;
            let mut head = [0u8; 2];
            let read = file.take(2).read(&mut head).unwrap_or(0);
            // Results are written pretty: `{` and a line break. A corpus line is `{"…`.
            read == 2 && head == *b"{\n"
        }
    }
}

/// Whether the word after `report --markdown` is the old FILE, not a run: a run is an id
/// (hex) or a tag selector (`key=value`); a file has a dot or a slash in its name.
fn old_markdown_file(value: &OsString) -> bool {
    let text = value.to_string_lossy();
    !text.starts_with('-') && !text.contains('=') && (text.contains('.') || text.contains('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    fn rewritten(line: &str) -> String {
        rewrite(words(line))
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_old_json_file_is_exported_and_a_dash_is_the_switch() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("out.json");
        let new = new.display();
        assert_eq!(
            rewritten(&format!("sb run logs --json {new} --docs 5")),
            format!("sb run logs --export-json {new} --docs 5")
        );
        assert_eq!(
            rewritten("sb --color never ingest --json - a.ndjson"),
            "sb --color never ingest --json a.ndjson"
        );
        assert_eq!(
            rewritten(&format!("sb query --json={new}")),
            format!("sb query --export-json={new}")
        );
        assert_eq!(rewritten("sb sweep --json=-"), "sb sweep --json");
        assert_eq!(
            rewritten(&format!("sb experiment dates --json {new}")),
            format!("sb experiment dates --export-json {new}")
        );
    }

    #[test]
    fn the_new_switch_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        // A corpus (one document per line) is never overwritten as an old --json FILE.
        let corpus = dir.path().join("docs.json");
        std::fs::write(&corpus, "{\"a\":1}\n").unwrap();
        let corpus = corpus.display();
        for line in [
            format!("sb ingest --json {corpus}"),
            "sb run --json logs".to_string(),
            "sb run logs --json --docs 5".to_string(),
            "sb run logs --json".to_string(),
            // Commands whose --json was always a switch.
            "sb compare --json a1b2 c3d4".to_string(),
            "sb results list --json".to_string(),
            // After `--`, words are values.
            "sb run -- --json x.json".to_string(),
        ] {
            assert_eq!(rewritten(&line), line);
        }
        // An earlier result (pretty JSON) is the old FILE again, as on the run that wrote it.
        let old = dir.path().join("result.json");
        std::fs::write(&old, "{\n  \"tool\": \"searchbench\"\n}\n").unwrap();
        let old = old.display();
        assert_eq!(
            rewritten(&format!("sb ingest --json {old} a.ndjson")),
            format!("sb ingest --export-json {old} a.ndjson")
        );
    }

    #[test]
    fn report_markdown_takes_a_file_or_is_the_switch() {
        assert_eq!(
            rewritten("sb report a1b2 --markdown out.md"),
            "sb report a1b2 --export-markdown out.md"
        );
        assert_eq!(
            rewritten("sb report --markdown a1b2 build=new"),
            "sb report --markdown a1b2 build=new"
        );
        assert_eq!(
            rewritten("sb report a1 --markdown -"),
            "sb report a1 --markdown"
        );
        assert_eq!(
            rewritten("sb compare a --markdown x.md"),
            "sb compare a --markdown x.md"
        );
    }
}
