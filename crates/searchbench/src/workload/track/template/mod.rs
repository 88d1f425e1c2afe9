//! Rendering a track or a benchmark workload as esrally and opensearch-benchmark do: first
//! their textual assembly (each `{{ rally.collect(parts="...") }}`, or `benchmark.collect`,
//! replaced by the files it names, each assembled the same way from its own folder), then the
//! whole through `minijinja`, a Jinja2-compatible engine, with the tools' helpers and globals:
//! the `rally.helpers` / `benchmark.helpers` macros (`collect`, `exists_set_param`), `glob`,
//! `now`, `build_flavor`, `serverless_operator`, the `days_ago`, `get_start_date`,
//! `get_end_date` (Rally) and `version_between` (OSB) filters, Python's string methods
//! (`"2.11.0".split('.')`), and the track
//! parameters as globals. A parameter the track never reads is an error, as in both tools.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minijinja::{Environment, ErrorKind, UndefinedBehavior, Value};

use crate::workload::folder::{Folder, Outside};

use crate::corpus::text::{civil_from_days, days_from_civil};

mod assembly;
mod literals;
mod python;
mod strings;

use assembly::{relative_glob, Assembly};

/// The macros both tools put under `rally.helpers` (Rally) and `benchmark.helpers` (OSB),
/// written as theirs are: `collect` includes the files a pattern names, comma-separated;
/// `exists_set_param` writes `, "name": value` when the value (or a default) is there.
pub const HELPERS: &str = r#"{% macro collect(parts) -%}
{% for part in glob(parts) %}{% if not loop.first %},{% endif %}{% include part %}{% endfor %}
{%- endmacro %}
{% macro exists_set_param(setting_name, value, default_value=none, comma=true) -%}
{% if value is defined or default_value is not none %}{% if comma %} , {% endif %}{% if default_value is not none %}"{{ setting_name }}": {{ value | default(default_value) | tojson }}{% else %}"{{ setting_name }}": {{ value | tojson }}{% endif %}{% endif %}
{%- endmacro %}
"#;

/// The most a track's file may render to (and be assembled to, its `collect`s included): real
/// tracks render to a few hundred KiB; a loop without end reaches gigabytes in seconds.
pub const MAX_RENDER_BYTES: usize = 64 << 20;

/// The most the files of one track may render to together (the track, each index's body,
/// each template; a file named again counts again): a body rendered for each of thousands of
/// indices is kept once per index, so one file's bound is not the track's.
pub const MAX_TRACK_RENDER_BYTES: usize = 2 * MAX_RENDER_BYTES;

/// The most files deep `collect` may go (a part collecting a part…): real tracks go two or
/// three; a chain of thousands would end the process on its stack.
pub const MAX_COLLECT_DEPTH: usize = 64;

/// A file of the track read, whole, if it is a file and no larger than [`MAX_RENDER_BYTES`]:
/// looked at before it is opened (a FIFO would block the open for ever) and read no further
/// than the bound (a sparse file of gigabytes costs nothing to make).
pub fn read_track_file(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let meta = std::fs::metadata(file)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let too_large = || {
        std::io::Error::other(format!(
            "it is larger than {} MiB; real tracks' files are far smaller",
            MAX_RENDER_BYTES >> 20
        ))
    };
    if meta.len() > MAX_RENDER_BYTES as u64 {
        return Err(too_large());
    }
    let mut text = String::new();
    std::fs::File::open(file)?
        .take(MAX_RENDER_BYTES as u64 + 1)
        .read_to_string(&mut text)?;
    if text.len() > MAX_RENDER_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

/// The most work a render may do, in minijinja's fuel (about one unit an instruction, and one
/// for every 64 bytes a value holds): real tracks use well under a hundredth of it; a
/// recursive macro or nested loops without end stop here within a few seconds, not minutes.
pub const MAX_RENDER_FUEL: u64 = 2_000_000;

/// Track parameters (`--track-params k:v,...` or a JSON file), as globals of the template.
pub type TrackParams = BTreeMap<String, serde_json::Value>;

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read {}: {why}", file.display())]
    Read { file: PathBuf, why: String },
    #[error("include cycle: {}", chain.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" → "))]
    Cycle { chain: Vec<PathBuf> },
    #[error("{}{}: {why}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Template {
        file: PathBuf,
        line: Option<usize>,
        why: String,
    },
    #[error("{}: track parameter(s) the track does not use: {}", file.display(), names.join(", "))]
    UnusedParams { file: PathBuf, names: Vec<String> },
    #[error(transparent)]
    Outside(#[from] Outside),
}

/// The track at `path` rendered with `params`: its JSON text, as the tools would send it on.
/// A parameter it does not read is an error.
pub fn render_file(path: &Path, params: &TrackParams) -> Result<String, TemplateError> {
    render_file_at(path, params, None)
}

/// [`render_file`] with the templates' `now` (unix seconds) fixed instead of the clock's: what
/// a track renders to on a given day (Rally's http_logs puts `days_ago(now)` in its queries).
pub fn render_file_at(
    path: &Path,
    params: &TrackParams,
    now_unix: Option<f64>,
) -> Result<String, TemplateError> {
    let mut renderer = Renderer::new(params);
    renderer.now_unix = now_unix;
    let text = renderer.render(path)?;
    renderer.all_used(path)?;
    Ok(text)
}

/// Renders the files of one track (the track, its index bodies, its templates) with one set of
/// parameters, noting which of them the files read.
pub struct Renderer<'p> {
    params: &'p TrackParams,
    used: std::collections::BTreeSet<String>,
    /// Each file's render, kept: a body named by many indices is rendered once.
    rendered: BTreeMap<PathBuf, String>,
    /// What the renders handed out so far, bytes (see [`MAX_TRACK_RENDER_BYTES`]).
    handed_out: usize,
    /// Where the track's files may be: set by the first file rendered, the track itself.
    bound: Option<Folder>,
    /// The templates' `now`, unix seconds: the clock's when `None`.
    pub now_unix: Option<f64>,
}

impl<'p> Renderer<'p> {
    pub fn new(params: &'p TrackParams) -> Self {
        Renderer {
            params,
            used: Default::default(),
            rendered: BTreeMap::new(),
            handed_out: 0,
            bound: None,
            now_unix: None,
        }
    }

    /// The parameters none of the files rendered read: an error naming them, as in the tools.
    pub fn all_used(&self, track: &Path) -> Result<(), TemplateError> {
        let unused: Vec<String> = self
            .params
            .keys()
            .filter(|k| !self.used.contains(k.as_str()))
            .cloned()
            .collect();
        if unused.is_empty() {
            Ok(())
        } else {
            Err(TemplateError::UnusedParams {
                file: track.to_path_buf(),
                names: unused,
            })
        }
    }

    /// One file of the track rendered: the track first, then the files it names. Each file
    /// is rendered once; what all renders hand out together is bounded by
    /// [`MAX_TRACK_RENDER_BYTES`].
    pub fn render(&mut self, path: &Path) -> Result<String, TemplateError> {
        let text = match self.rendered.get(path) {
            Some(text) => text.clone(),
            None => {
                let text = self.render_once(path)?;
                self.rendered.insert(path.to_path_buf(), text.clone());
                text
            }
        };
        self.handed_out = self.handed_out.saturating_add(text.len());
        if self.handed_out > MAX_TRACK_RENDER_BYTES {
            return Err(TemplateError::Template {
                file: path.to_path_buf(),
                line: None,
                why: format!(
                    "the track's files render to more than {} MiB together (a large body \
                     named by many indices?); real tracks render to far less",
                    MAX_TRACK_RENDER_BYTES >> 20
                ),
            });
        }
        Ok(text)
    }

    fn render_once(&mut self, path: &Path) -> Result<String, TemplateError> {
        let params = self.params;
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let bound = match &self.bound {
            Some(b) => b.clone(),
            None => self.bound.insert(Folder::of_track(path)).clone(),
        };
        let assembly = Assembly::of(path, &bound)?;
        let assembled = literals::wrapped(&assembly.text);
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Lenient);
        // Tracks are Jinja2 templates run by Python: `"2.11.0".split('.')` and the like.
        // Dicts and lists change in place and keep their order, as Python's ([`python`]).
        env.set_unknown_method_callback(python::unknown_method);
        env.add_function(literals::DICT, python::dict_literal);
        env.add_function(literals::LIST, python::list_literal);
        env.add_function("dict", python::dict);
        env.add_function("joiner", python::joiner);
        env.add_function("cycler", python::cycler);
        env.add_filter("list", python::list_filter);
        env.add_filter("tojson", python::tojson);
        // The output is JSON, but written by the template: no escaping of what it writes (by its
        // name, track.json, minijinja would escape strings as JSON).
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_fuel(Some(MAX_RENDER_FUEL));
        let root = dir.clone();
        let glob_bound = bound.clone();
        env.set_loader(move |name| match name {
            "rally.helpers" | "benchmark.helpers" => Ok(Some(HELPERS.to_string())),
            other => {
                let file = bound.resolve(&root, other, "include").map_err(|e| {
                    minijinja::Error::new(ErrorKind::InvalidOperation, e.to_string())
                })?;
                match read_track_file(&file) {
                    Ok(text) => Ok(Some(literals::wrapped(&text))),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        format!("cannot read {}: {e}", file.display()),
                    )),
                }
            }
        });
        let glob_dir = dir.clone();
        env.add_function(
            "glob",
            move |pattern: String| -> Result<Vec<String>, minijinja::Error> {
                relative_glob(&glob_bound, &glob_dir, &pattern)
                    .map_err(|e| minijinja::Error::new(ErrorKind::InvalidOperation, e.to_string()))
            },
        );
        env.add_filter("days_ago", days_ago);
        env.add_filter("get_start_date", get_start_date);
        env.add_filter("get_end_date", get_end_date);
        env.add_filter("version_between", version_between);
        let now = self.now_unix.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        });
        env.add_global("now", now);
        env.add_global("build_flavor", "default");
        env.add_global("serverless_operator", false);
        for (k, v) in params {
            env.add_global(k.clone(), python::from_json(v));
        }
        let name = path.display().to_string();
        let template = env
            .template_from_named_str(&name, &assembled)
            .map_err(|e| template_error(path, &assembly, &e))?;
        self.used.extend(
            template
                .undeclared_variables(true)
                .into_iter()
                // `settings.copy()` reads `settings`.
                .map(|v| v.split('.').next().unwrap_or_default().to_string())
                .filter(|v| params.contains_key(v)),
        );
        let mut out = Capped::default();
        let rendered = template
            .render_captured_to(minijinja::context! {}, &mut out)
            .map(drop);
        match rendered {
            Ok(()) => String::from_utf8(out.bytes).map_err(|e| TemplateError::Template {
                file: path.to_path_buf(),
                line: None,
                why: format!("renders to text that is not UTF-8: {e}"),
            }),
            Err(_) if out.over => Err(too_large(path)),
            Err(e) if e.kind() == ErrorKind::OutOfFuel => {
                let (file, line) = located(path, &assembly, &e);
                Err(TemplateError::Template {
                    file,
                    line,
                    why: format!(
                        "the render did not end within {MAX_RENDER_FUEL} steps (a loop or a \
                         recursion without end?); real tracks take far fewer"
                    ),
                })
            }
            Err(e) => Err(template_error(path, &assembly, &e)),
        }
    }
}

/// A render's output, refused past [`MAX_RENDER_BYTES`].
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    over: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_RENDER_BYTES {
            self.over = true;
            return Err(std::io::Error::other(
                "the render's output is over its bound",
            ));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn too_large(path: &Path) -> TemplateError {
    TemplateError::Template {
        file: path.to_path_buf(),
        line: None,
        why: format!(
            "renders to more than {} MiB (a loop without end?); real tracks render to far less",
            MAX_RENDER_BYTES >> 20
        ),
    }
}

/// A minijinja error, named by the file and line its author wrote.
fn template_error(path: &Path, assembly: &Assembly, e: &minijinja::Error) -> TemplateError {
    let mut why = e
        .detail()
        .map_or_else(|| e.kind().to_string(), str::to_string);
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        why.push_str(&format!(": {s}"));
        source = s.source();
    }
    let (file, line) = located(path, assembly, e);
    TemplateError::Template { file, line, why }
}

/// Where an error is: a line of the assembled track is the line of the part it came from; an
/// error in a file the track includes (`{% include %}`, `{% import %}`) is that file's.
fn located(path: &Path, assembly: &Assembly, e: &minijinja::Error) -> (PathBuf, Option<usize>) {
    let top = path.display().to_string();
    match (e.name(), e.line()) {
        (Some(name), line) if name != top => {
            let dir = path.parent().unwrap_or(Path::new("."));
            (dir.join(name), line)
        }
        (_, Some(line)) => match assembly.source(line) {
            Some((file, line)) => (file.to_path_buf(), Some(line)),
            None => (path.to_path_buf(), Some(line)),
        },
        (_, None) => (path.to_path_buf(), None),
    }
}

/// Rally's `days_ago` filter: whole days from `start` to `end`, each a unix timestamp (as the
/// `now` global is) or a date string of `format` (`%d-%m-%Y` unless given; only `%d`, `%m`,
/// `%Y` and separators are read), in UTC.
fn days_ago(start: Value, end: Value, format: Option<String>) -> Result<i64, minijinja::Error> {
    let format = format.unwrap_or_else(|| "%d-%m-%Y".into());
    let secs = |v: &Value| -> Result<f64, minijinja::Error> {
        if let Ok(n) = f64::try_from(v.clone()) {
            return Ok(n);
        }
        let s = v.as_str().ok_or_else(|| bad(&v.to_string()))?;
        date_secs(s, &format)
    };
    Ok(((secs(&end)? - secs(&start)?) / 86_400.0).floor() as i64)
}

/// Rally's `get_start_date` filter: the unix timestamp `when` (UTC) written as `format`
/// (`%Y-%m-%d` unless given).
fn get_start_date(when: f64, format: Option<String>) -> Result<String, minijinja::Error> {
    strftime(when, format.as_deref().unwrap_or("%Y-%m-%d"))
}

/// Rally's `get_end_date` filter: `days` (1 unless given) after the unix timestamp `start`,
/// written as `format` (`%Y-%m-%d` unless given).
fn get_end_date(
    start: f64,
    days: Option<f64>,
    format: Option<String>,
) -> Result<String, minijinja::Error> {
    let end = start + days.unwrap_or(1.0) * 86_400.0;
    strftime(end, format.as_deref().unwrap_or("%Y-%m-%d"))
}

/// opensearch-benchmark's `version_between` filter: `from <= version <= to`, each compared
/// as a list of whole numbers (`"2.11.0"` is `[2, 11, 0]`), as its Python does.
fn version_between(version: String, from: String, to: String) -> Result<bool, minijinja::Error> {
    let parts = |v: &str| -> Result<Vec<u64>, minijinja::Error> {
        v.split('.')
            .map(|p| {
                p.parse().map_err(|_| {
                    minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        format!("version_between: {v:?} is not a version of whole numbers"),
                    )
                })
            })
            .collect()
    };
    let v = parts(&version)?;
    Ok(parts(&from)? <= v && v <= parts(&to)?)
}

/// The unix timestamp `secs` in UTC, written with `%Y %m %d %H %M %S %%`; any other code is
/// an error naming it rather than a date written wrong.
fn strftime(secs: f64, format: &str) -> Result<String, minijinja::Error> {
    let secs = secs.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&format!("{y:04}")),
            Some('m') => out.push_str(&format!("{m:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('H') => out.push_str(&format!("{:02}", rem / 3600)),
            Some('M') => out.push_str(&format!("{:02}", rem / 60 % 60)),
            Some('S') => out.push_str(&format!("{:02}", rem % 60)),
            Some('%') => out.push('%'),
            other => {
                return Err(minijinja::Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "date format {format:?}: %{} is not one of %Y %m %d %H %M %S",
                        other.map(String::from).unwrap_or_default()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// Seconds since the epoch of midnight UTC of the date `s` written as `format`.
fn date_secs(s: &str, format: &str) -> Result<f64, minijinja::Error> {
    let (mut d, mut m, mut y) = (None, None, None);
    let (mut f, mut v) = (format, s);
    while !f.is_empty() {
        if let Some(rest) = f.strip_prefix('%') {
            let (code, rest) = rest.split_at(1.min(rest.len()));
            let width = if code == "Y" { 4 } else { 2 };
            let (digits, after) = v.split_at(width.min(v.len()));
            let n: i64 = digits.parse().map_err(|_| bad(s))?;
            match code {
                "d" => d = Some(n),
                "m" => m = Some(n),
                "Y" => y = Some(n),
                _ => return Err(bad(s)),
            }
            f = rest;
            v = after;
        } else {
            let c = f.chars().next().unwrap_or(' ');
            f = &f[c.len_utf8()..];
            v = v.strip_prefix(c).ok_or_else(|| bad(s))?;
        }
    }
    match (d, m, y) {
        (Some(d), Some(m), Some(y)) if (1..=12).contains(&m) && (1..=31).contains(&d) => {
            Ok(days_from_civil(y, m as u32, d as u32) as f64 * 86_400.0)
        }
        _ => Err(bad(s)),
    }
}

fn bad(date: &str) -> minijinja::Error {
    minijinja::Error::new(
        ErrorKind::InvalidOperation,
        format!("days_ago: {date:?} is not a date of its format"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tracks")
            .join(name)
            .join("track.json")
    }

    fn rendered_json(path: &Path, params: &TrackParams) -> serde_json::Value {
        let text = render_file(path, params).unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"))
    }

    fn track(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn rally_geonames_renders_as_written() {
        let v = rendered_json(&fixture("rally/geonames"), &TrackParams::new());
        assert_eq!(v["indices"][0]["name"], "geonames");
        assert_eq!(
            v["corpora"][0]["documents"][0]["document-count"],
            11_396_503
        );
        assert!(
            v["operations"].as_array().unwrap().len() > 10,
            "{}",
            v["operations"]
        );
        let challenges = v["challenges"].as_array().unwrap();
        assert!(
            challenges.iter().any(|c| c["default"] == true),
            "{challenges:?}"
        );
    }

    #[test]
    fn rally_http_logs_renders_as_written_and_takes_its_params() {
        let path = fixture("rally/http_logs");
        let v = rendered_json(&path, &TrackParams::new());
        let indices = v["indices"].as_array().unwrap();
        assert!(indices.len() >= 3, "{indices:?}");
        assert!(!v["operations"].as_array().unwrap().is_empty());
        // A parameter the track reads changes what it renders to.
        let params = TrackParams::from([("number_of_replicas".to_string(), json!(2))]);
        let text = render_file(&path, &params).unwrap();
        assert!(text.contains("2"), "{text}");
        // One it does not read is an error naming it, as in Rally.
        let params = TrackParams::from([("no_such_param".to_string(), json!(1))]);
        let err = render_file(&path, &params).unwrap_err().to_string();
        assert!(
            err.contains("no_such_param") && err.contains("does not use"),
            "{err}"
        );
    }

    #[test]
    fn collect_includes_the_parts_in_order_from_their_own_folders() {
        let dir = track(&[
            (
                "track.json",
                r#"{"operations": [{{ rally.collect(parts="ops/*.json") }}]}"#,
            ),
            ("ops/b.json", r#"{"name": "b"}"#),
            (
                "ops/a.json",
                r#"{"name": "a", "nested": [{{ benchmark.collect(parts="more/*.json") }}]}"#,
            ),
            ("ops/more/x.json", r#""x""#),
        ]);
        let v = rendered_json(&dir.path().join("track.json"), &TrackParams::new());
        assert_eq!(
            v,
            json!({"operations": [{"name": "a", "nested": ["x"]}, {"name": "b"}]})
        );
    }

    #[test]
    fn the_helpers_macros_render_as_the_tools_do() {
        let dir = track(&[
            (
                "track.json",
                r#"{% import "rally.helpers" as rally with context %}
{"ops": [{{- rally.collect(parts="ops/*.json") -}}],
 "settings": {"a": 1 {{ rally.exists_set_param("index.number_of_shards", shards) }}
   {{ rally.exists_set_param("index.refresh_interval", refresh, "1s") }}},
 "replicas": {{ replicas | default(1) }},
 "tags": {{ tags | tojson }},
 "days": {{ "01-01-2024" | days_ago("31-01-2024") }},
 "flavor": "{{ build_flavor }}"}"#,
            ),
            ("ops/one.json", r#"{"name": "one"}"#),
        ]);
        let params = TrackParams::from([
            ("shards".to_string(), json!(3)),
            ("tags".to_string(), json!(["x", "y"])),
        ]);
        let v = rendered_json(&dir.path().join("track.json"), &params);
        assert_eq!(
            v,
            json!({
                "ops": [{"name": "one"}],
                "settings": {"a": 1, "index.number_of_shards": 3, "index.refresh_interval": "1s"},
                "replicas": 1,
                "tags": ["x", "y"],
                "days": 30,
                "flavor": "default"
            })
        );
    }

    #[test]
    fn the_date_and_version_filters_and_python_string_methods_work_as_in_the_tools() {
        // 1704067200 is 2024-01-01T00:00:00Z.
        let dir = track(&[(
            "track.json",
            r#"{"start": "{{ 1704067200.0 | get_start_date }}",
 "at": "{{ 1704112496.0 | get_start_date("%Y%m%dT%H%M%S") }}",
 "end": "{{ 1704067200.0 | get_end_date(31) }}",
 "next": "{{ 1704067200.0 | get_end_date }}",
 "in": {{ "2.11.0" | version_between("2.0.0", "2.19.1") | tojson }},
 "out": {{ "3.0.0" | version_between("2.0.0", "2.19.1") | tojson }},
 "parts": {{ "2.11.0".split('.') | map('int') | list | tojson }},
 "upper": "{{ "geo".upper() }}"}"#,
        )]);
        let v = rendered_json(&dir.path().join("track.json"), &TrackParams::new());
        assert_eq!(
            v,
            json!({"start": "2024-01-01", "at": "20240101T123456", "end": "2024-02-01",
                   "next": "2024-01-02", "in": true, "out": false, "parts": [2, 11, 0],
                   "upper": "GEO"})
        );
        // A date code we do not write is an error naming it, not a date written wrong.
        let dir = track(&[("track.json", r#"{"a": "{{ 0.0 | get_start_date("%j") }}"}"#)]);
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        assert!(err.to_string().contains("%j"), "{err}");
    }

    #[test]
    fn a_track_that_includes_itself_is_a_cycle_naming_the_path() {
        let dir = track(&[
            (
                "track.json",
                r#"{"ops": [{{ rally.collect(parts="*.json") }}]}"#,
            ),
            ("other.json", r#"{"a": 1}"#),
        ]);
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        assert!(matches!(err, TemplateError::Cycle { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("track.json → ") && text.ends_with("track.json"),
            "{text}"
        );
    }

    /// A chain of parts each collecting the next is stopped at its depth, naming where it
    /// began, not followed until the stack ends the process.
    #[test]
    fn a_chain_of_collected_parts_stops_at_its_depth() {
        let mut files: Vec<(String, String)> = vec![(
            "track.json".into(),
            r#"{"ops": [{{ rally.collect(parts="p0.json") }}]}"#.into(),
        )];
        for i in 0..MAX_COLLECT_DEPTH + 5 {
            let next = format!(r#"{{{{ rally.collect(parts="p{}.json") }}}}"#, i + 1);
            files.push((format!("p{i}.json"), next));
        }
        files.push((format!("p{}.json", MAX_COLLECT_DEPTH + 5), "1".into()));
        let named: Vec<(&str, &str)> = files.iter().map(|(n, t)| (&n[..], &t[..])).collect();
        let dir = track(&named);
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&format!("collected {MAX_COLLECT_DEPTH} files deep")),
            "{text}"
        );
        // Within the depth, the chain assembles.
        let dir = track(&named[..MAX_COLLECT_DEPTH - 2]);
        let last = format!("p{}.json", MAX_COLLECT_DEPTH - 3);
        std::fs::write(dir.path().join(last), "1").unwrap();
        assert_eq!(
            rendered_json(&dir.path().join("track.json"), &TrackParams::new()),
            json!({"ops": [1]})
        );
    }

    /// A part that is no file (a FIFO, which would block the open for ever) or that is larger
    /// than a render may be is refused, named, before it is read.
    #[test]
    fn a_part_that_is_no_file_or_too_large_is_refused_unread() {
        let dir = track(&[
            (
                "track.json",
                r#"{"ops": [{{ rally.collect(parts="p.json") }}]}"#,
            ),
            ("inc.json", r#"{"ops": [{% include "p.json" %}]}"#),
        ]);
        let fifo = dir.path().join("p.json");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for file in ["track.json", "inc.json"] {
            let err = render_file(&dir.path().join(file), &TrackParams::new()).unwrap_err();
            assert!(
                err.to_string().contains("not a regular file"),
                "{file}: {err}"
            );
        }
        std::fs::remove_file(&fifo).unwrap();
        let sparse = std::fs::File::create(&fifo).unwrap();
        sparse.set_len(MAX_RENDER_BYTES as u64 + 1).unwrap();
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        assert!(err.to_string().contains("larger than 64 MiB"), "{err}");
    }

    #[test]
    fn a_part_outside_the_track_and_its_common_operations_is_not_read() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(outer.path().join("secret.json"), r#""secret""#).unwrap();
        let holder = outer.path().join("workloads");
        let files: &[(&str, &str)] = &[
            ("nyc/workload.json", "{}"),
            ("common_operations/op.json", r#"{"name": "op"}"#),
            ("other/op.json", r#"{"name": "other"}"#),
            ("secret.json", r#""one above""#),
        ];
        for (name, text) in files {
            let path = holder.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let track = holder.join("nyc/workload.json");
        let refused = |text: &str, name: &str| {
            std::fs::write(&track, text).unwrap();
            let err = render_file(&track, &TrackParams::new()).unwrap_err();
            let shown = err.to_string();
            assert!(
                shown.contains(name) && shown.contains(crate::workload::folder::RULE),
                "{text}: {shown}"
            );
        };
        // collect, include, glob and a link: each is held to the one rule.
        refused(
            r#"{"not": [{{ benchmark.collect(parts="../../*.json") }}]}"#,
            "../..",
        );
        refused(
            r#"{"not": [{{ benchmark.collect(parts="../other/*.json") }}]}"#,
            "../other",
        );
        refused(
            r#"{"not": [{{ benchmark.collect(parts="../*.json") }}]}"#,
            "..",
        );
        refused(r#"{"x": {% include "../../secret.json" %}}"#, "secret.json");
        refused(r#"{"x": {% include "../secret.json" %}}"#, "secret.json");
        refused(r#"{"x": {% include "/etc/hostname" %}}"#, "/etc/hostname");
        refused(r#"{"x": {{ glob("/etc/*") | tojson }}}"#, "/etc");
        refused(r#"{"x": {{ glob("../../*") | tojson }}}"#, "../..");
        std::os::unix::fs::symlink(outer.path().join("secret.json"), holder.join("nyc/s.json"))
            .unwrap();
        refused(
            r#"{"x": [{{ benchmark.collect(parts="s.json") }}]}"#,
            "s.json",
        );
        refused(r#"{"x": {% include "s.json" %}}"#, "s.json");
        // The folder common_operations beside the track's is read (opensearch-benchmark's).
        std::fs::write(
            &track,
            r#"{"ok": [{{ benchmark.collect(parts="../common_operations/*.json") }}], "g": {{ glob("../common_operations/*.json") | tojson }}}"#,
        )
        .unwrap();
        let v = rendered_json(&track, &TrackParams::new());
        assert_eq!(
            v,
            json!({"ok": [{"name": "op"}], "g": ["../common_operations/op.json"]})
        );
    }

    #[test]
    fn a_render_without_end_is_stopped_naming_the_file() {
        let started = std::time::Instant::now();
        // Nested loops (1.5 GB in seconds before), a recursive macro (minutes before), a
        // string grown without end, files that collect each other as a power of two.
        for (text, says) in [
            (
                "{% for a in range(100000) %}{% for b in range(100000) %}xxxxxxxxxxxxxxxx{% endfor %}{% endfor %}",
                "track.json",
            ),
            (
                "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
                "steps",
            ),
            (
                "{% macro f(n) %}{{ f(n + 1) }}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
                "track.json",
            ),
            (
                "{% set ns = namespace(s='x') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
                "track.json",
            ),
        ] {
            let dir = track(&[("track.json", text)]);
            let err = render_file(&dir.path().join("track.json"), &TrackParams::new())
                .unwrap_err()
                .to_string();
            assert!(err.contains("track.json") && err.contains(says), "{err}");
        }
        let mut files = vec![(
            "track.json".to_string(),
            r#"[{{ rally.collect(parts="l0/*.json") }}]"#.to_string(),
        )];
        for level in 0..40 {
            for copy in ["a", "b"] {
                files.push((
                    format!(
                        "{}{copy}.json",
                        "l0/".repeat(level + 1).trim_end_matches('/').to_string() + "/"
                    ),
                    format!(
                        r#"[{{{{ rally.collect(parts="l0/*.json") }}}}, "{}"]"#,
                        "x".repeat(100_000)
                    ),
                ));
            }
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dir = track(&refs);
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("MiB"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    /// Differential: each template of `tests/fixtures/jinja2/cases.txt` renders to what
    /// Jinja2 rendered it to (`cases.json`, made by Jinja2 itself with `cases.py`): Python's
    /// dict, list and str methods, insertion order, `tojson`, `joiner`, `cycler`, `dict`.
    #[test]
    fn python_methods_and_jinja2_globals_render_as_jinja2_renders_them() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jinja2/cases.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
        let cases = reference["cases"].as_array().unwrap();
        assert!(cases.len() >= 50, "{}", cases.len());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("track.json");
        let mut wrong = Vec::new();
        for case in cases {
            let template = case["template"].as_str().unwrap();
            let expected = case["rendered"].as_str().unwrap();
            std::fs::write(&file, template).unwrap();
            match render_file(&file, &TrackParams::new()) {
                Ok(ours) if ours == expected => {}
                Ok(ours) => wrong.push(format!(
                    "{template}\n  ours:   {ours:?}\n  Jinja2: {expected:?}"
                )),
                Err(e) => wrong.push(format!("{template}\n  error: {e}\n  Jinja2: {expected:?}")),
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {} render differently from Jinja2 {}:\n{}",
            wrong.len(),
            cases.len(),
            reference["jinja2"],
            wrong.join("\n")
        );
    }

    #[test]
    fn an_error_in_a_collected_or_included_part_names_that_file_and_its_line() {
        // Before: the top file and a line of the assembled text (track.json:990 in a
        // 742-line file).
        let files: &[(&str, &str)] = &[
            (
                "track.json",
                "{\n  \"operations\": [\n    {{ rally.collect(parts=\"ops/*.json\") }}\n  ],\n  \"x\": {{ x }}\n}",
            ),
            ("ops/a.json", "{\"name\": \"a\"},\n{\"name\": \"b\"},\n{\"name\": \"c\"}"),
            ("ops/b.json", "{\n  \"name\": \"d\",\n  \"v\": {{ nope(1) }}\n}"),
            ("inc.json", "[1,\n {{ 1 + }}]"),
        ];
        let dir = track(files);
        let path = dir.path().join("track.json");
        let err = render_file(&path, &TrackParams::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("ops/b.json:3:"), "{err}");
        // After the part, the top file's own lines again.
        let top = "{\n  \"operations\": [\n    {{ rally.collect(parts=\"ops/a.json\") }}\n  ],\n  \"x\": {{ 1 + }}\n}";
        std::fs::write(&path, top).unwrap();
        let err = render_file(&path, &TrackParams::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("track.json:5:"), "{err}");
        // An included file's error is that file's.
        std::fs::write(&path, "{\"x\": {% include \"inc.json\" %}}").unwrap();
        let err = render_file(&path, &TrackParams::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("inc.json:2:"), "{err}");
    }

    #[test]
    fn python_methods_refuse_what_python_cannot_do_or_would_loop_on_naming_the_line() {
        let started = std::time::Instant::now();
        for (text, says) in [
            (
                "{% set l = [] %}\n{% set _ = l.append(l) %}{{ l }}",
                "inside itself",
            ),
            (
                "{% set a = [] %}{% set b = [a] %}\n{% set _ = a.append(b) %}",
                "inside itself",
            ),
            (
                "{% set d = {} %}\n{% set _ = d.update({'me': [d]}) %}",
                "inside itself",
            ),
            (
                "{% set l = [] %}\n{% set _ = l.extend([1, [l]]) %}",
                "inside itself",
            ),
            (
                "{% set t = (1, 2) %}\n{% set _ = t.append(3) %}",
                "cannot change",
            ),
            (
                "{{ 1 }}\n{{ range(3).append(1) }}",
                "no method named append",
            ),
            (
                "{{ 1 }}\n{{ 'x'.center(99999999999) }}",
                "more than a track needs",
            ),
            ("{{ 1 }}\n{{ [].pop() }}", "empty"),
            ("{{ 1 }}\n{{ {}.pop('k') }}", "no key"),
            ("{{ 1 }}\n{{ dict(5) }}", "not a dict or a list of pairs"),
            ("{{ 1 }}\n{{ dict([[1, 2, 3]]) }}", "not a pair"),
            ("{{ 1 }}\n{{ [2, 1].sort(key=1) }}", "key function"),
            ("{{ 1 }}\n{{ 'a'.partition('') }}", "empty separator"),
            ("{{ 1 }}\n{{ cycler() }}", "at least one"),
            ("{{ 1 }}\n{{ [1].index(2) }}", "not in the list"),
        ] {
            let dir = track(&[("track.json", text)]);
            let err = render_file(&dir.path().join("track.json"), &TrackParams::new())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("track.json:2:") && err.contains(says),
                "{text}: {err}"
            );
        }
        // Lists shared and nested 40 deep stand for 2^40 values: looking through them for a
        // cycle, or writing them, stops on the render's budget, not after hours.
        for tail in [
            "{% set m = [] %}{% set _ = m.append(ns.l) %}",
            "{{ ns.l | tojson }}",
        ] {
            let text = format!(
                "{{% set ns = namespace(l=[]) %}}{{% for i in range(40) %}}{{% set ns.l = [ns.l, ns.l] %}}{{% endfor %}}{tail}"
            );
            let dir = track(&[("track.json", &text)]);
            let err = render_file(&dir.path().join("track.json"), &TrackParams::new())
                .unwrap_err()
                .to_string();
            assert!(err.contains("steps"), "{tail}: {err}");
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn track_parameters_are_dicts_and_lists_that_keep_their_order_and_change_in_place() {
        let dir = track(&[(
            "track.json",
            r#"{% set s = settings.copy() %}{% set _ = s.update({"index.codec": "best_compression"}) %}{% set _ = names.append("c") %}
{"keys": {{ settings.keys() | list | tojson }}, "s": {{ s | tojson }}, "names": {{ names | tojson }}}"#,
        )]);
        let params = TrackParams::from([
            (
                "settings".to_string(),
                json!({"index.refresh_interval": "30s"}),
            ),
            ("names".to_string(), json!(["a", "b"])),
        ]);
        let v = rendered_json(&dir.path().join("track.json"), &params);
        assert_eq!(
            v,
            json!({"keys": ["index.refresh_interval"],
                   "s": {"index.codec": "best_compression", "index.refresh_interval": "30s"},
                   "names": ["a", "b", "c"]})
        );
    }

    #[test]
    fn a_template_error_names_the_file_and_line() {
        let dir = track(&[("track.json", "{\n  \"a\": {{ 1 + }}\n}")]);
        let err = render_file(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("track.json:2"), "{text}");
    }
}
