//! The layering rules of docs/architecture.md, checked on the source: only `cli/` prints or
//! exits, and nothing outside `cli/` depends on it.

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
}
