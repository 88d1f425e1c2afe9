//! The tools' textual assembly of a track: each `{{ rally.collect(parts="...") }}` (or
//! `benchmark.collect`) replaced by the files it names, each assembled the same way from its
//! own folder, before the whole is rendered; and the map back from a line of the assembled
//! text to the file and line its author wrote, for errors.

use std::path::{Path, PathBuf};

use crate::workload::folder::{Folder, Outside};

use super::{too_large, TemplateError, MAX_COLLECT_DEPTH, MAX_RENDER_BYTES};

/// A track's files put together as the tools do, with where each line came from.
#[derive(Debug, Default)]
pub struct Assembly {
    pub text: String,
    /// Where the text of each file begins or resumes: sorted by `at`.
    pieces: Vec<Piece>,
}

/// From line `at` of the assembled text on, the lines are `file`'s, from its line `line`.
#[derive(Debug)]
struct Piece {
    at: usize,
    file: PathBuf,
    line: usize,
}

impl Assembly {
    /// The track at `file` assembled, its parts held to `bound`.
    pub fn of(file: &Path, bound: &Folder) -> Result<Assembly, TemplateError> {
        let mut assembly = Assembly::default();
        let mut lines = 0;
        assemble(
            file,
            bound,
            &mut Vec::new(),
            &mut 0,
            &mut assembly,
            &mut lines,
        )?;
        Ok(assembly)
    }

    /// The file and line (from 1) that line `line` (from 1) of the assembled text came from.
    pub fn source(&self, line: usize) -> Option<(&Path, usize)> {
        let at = line.checked_sub(1)?;
        let piece = self.pieces.iter().rev().find(|p| p.at <= at)?;
        Some((&piece.file, piece.line + (at - piece.at) + 1))
    }

    fn push(&mut self, lines: &mut usize, file: &Path, from_line: usize, text: &str) {
        if text.is_empty() {
            return;
        }
        // A piece that begins mid-line owns that line from here on: the part's own first line
        // is where an error in a part collected inline is.
        match self.pieces.last() {
            Some(p) if p.file == file && p.line + (*lines - p.at) == from_line => {}
            _ => self.pieces.push(Piece {
                at: *lines,
                file: file.to_path_buf(),
                line: from_line,
            }),
        }
        self.text.push_str(text);
        *lines += text.bytes().filter(|&c| c == b'\n').count();
    }
}

/// Each `collect(parts="...")` expression replaced by the files it names (sorted), each
/// assembled from its own folder, joined by commas. `chain` holds the files being assembled,
/// so that a file that includes itself is a cycle, not a stack overflow.
fn assemble(
    file: &Path,
    bound: &Folder,
    chain: &mut Vec<PathBuf>,
    read: &mut usize,
    out: &mut Assembly,
    lines: &mut usize,
) -> Result<(), TemplateError> {
    let canonical = bound.check(file, "a file of the track")?;
    if chain.contains(&canonical) {
        let mut cycle = chain.clone();
        cycle.push(canonical);
        return Err(TemplateError::Cycle { chain: cycle });
    }
    if chain.len() >= MAX_COLLECT_DEPTH {
        return Err(TemplateError::Template {
            file: file.to_path_buf(),
            line: None,
            why: format!(
                "collected {MAX_COLLECT_DEPTH} files deep (from {}); real tracks go two or three",
                chain
                    .first()
                    .map_or_else(String::new, |f| f.display().to_string())
            ),
        });
    }
    let text = super::read_track_file(file).map_err(|e| TemplateError::Read {
        file: file.to_path_buf(),
        why: e.to_string(),
    })?;
    // Every file read counts, however often it is collected: files that collect each other
    // several times grow as a power, and are stopped once they have read the bound.
    *read += text.len();
    if *read > MAX_RENDER_BYTES {
        return Err(too_large(file));
    }
    chain.push(canonical);
    let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut rest = text.as_str();
    // The line of `file` that `rest` starts on, from 0.
    let mut line = 0;
    while let Some(at) = rest.find("{{") {
        let Some(len) = rest[at..].find("}}") else {
            break;
        };
        let expr = rest[at + 2..at + len].trim();
        let end = at + len + 2;
        match collected(expr) {
            Some(pattern) => {
                out.push(lines, file, line, &rest[..at]);
                line += newlines(&rest[..at]);
                for (i, part) in relative_glob(bound, &dir, pattern)?.iter().enumerate() {
                    if i > 0 {
                        out.push(lines, file, line, ",\n");
                    }
                    assemble(&dir.join(part), bound, chain, read, out, lines)?;
                }
                // The expression's own lines (it may span some) are the file's.
                line += newlines(&rest[at..end]);
            }
            None => {
                out.push(lines, file, line, &rest[..end]);
                line += newlines(&rest[..end]);
            }
        }
        rest = &rest[end..];
    }
    out.push(lines, file, line, rest);
    chain.pop();
    Ok(())
}

fn newlines(s: &str) -> usize {
    s.bytes().filter(|&c| c == b'\n').count()
}

/// The pattern of `rally.collect(parts="...")` / `benchmark.collect(parts="...")`.
fn collected(expr: &str) -> Option<&str> {
    let call = expr
        .strip_prefix("rally.collect(")
        .or_else(|| expr.strip_prefix("benchmark.collect("))?;
    let arg = call
        .strip_suffix(')')?
        .trim()
        .strip_prefix("parts=")?
        .trim();
    arg.strip_prefix('"')?.strip_suffix('"')
}

/// Files under `dir` matching `pattern` (a `*` or `?` in its last part), relative to `dir`,
/// sorted: the tools' `glob`, in an order that does not depend on the file system. The folder
/// it lists is held to the track's bound: a pattern cannot list this machine's folders.
pub fn relative_glob(bound: &Folder, dir: &Path, pattern: &str) -> Result<Vec<String>, Outside> {
    let (folder, name) = match pattern.rsplit_once('/') {
        Some((f, n)) => (f, n),
        None => ("", pattern),
    };
    let listed = bound.resolve(dir, if folder.is_empty() { "." } else { folder }, "glob")?;
    let Ok(entries) = std::fs::read_dir(listed) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| crate::ingest::extras::glob_matches(name, n))
        .map(|n| {
            if folder.is_empty() {
                n
            } else {
                format!("{folder}/{n}")
            }
        })
        .collect();
    found.sort();
    Ok(found)
}
