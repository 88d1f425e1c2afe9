//! Pages looked at like a person would: headless Chromium lays the page out, and the page's
//! own check (see `report::page`) says what it saw: how many charts, how many show data marks
//! inside their frame, script errors.
//!
//! Chromium comes from `bench/install-chromium.sh` (Debian package `chromium`). Without it the
//! browser tests are skipped locally and fail in CI (`CI=true`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SEARCHBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium, or `None` to skip (only outside CI).
pub fn chromium_or_skip() -> Option<PathBuf> {
    match chromium() {
        Some(p) => Some(p),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => panic!(
            "chromium is not installed, and CI=true: run bench/install-chromium.sh \
             (apt-get install -y chromium) before the tests"
        ),
        None => {
            eprintln!("SKIPPED: chromium not found (install: bench/install-chromium.sh)");
            None
        }
    }
}

/// Runs headless Chromium with `extra` args on `page`; returns stdout. Kills it after 90 s.
pub fn headless(chrome: &Path, page: &Path, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", chrome.display()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap()
}

pub fn attr<'a>(dom: &'a str, element_id: &str, name: &str) -> Option<&'a str> {
    let at = dom.find(&format!("id=\"{element_id}\""))?;
    let tag_start = dom[..at].rfind('<')?;
    let tag_end = at + dom[at..].find('>')?;
    let tag = &dom[tag_start..tag_end];
    let key = format!("{name}=\"");
    let v = tag.find(&key)? + key.len();
    Some(&tag[v..v + tag[v..].find('"')?])
}

/// The chart descriptions the page's check leaves in the DOM once the browser laid it out.
pub fn chart_info(dom: &str) -> Vec<serde_json::Value> {
    let start = dom
        .find("id=\"chart-info\">")
        .expect("no chart-info in the DOM")
        + "id=\"chart-info\">".len();
    let end = start + dom[start..].find("</script>").unwrap();
    serde_json::from_str(&dom[start..end]).unwrap()
}

/// Opens `page` in headless Chromium and asserts that it has `charts` charts (at least, when
/// `exactly` is false), each with visible data marks inside its frame, and no script error.
/// Returns the charts' descriptions; `None` when Chromium is missing outside CI.
pub fn assert_charts_drawn(
    page: &Path,
    charts: usize,
    exactly: bool,
) -> Option<Vec<serde_json::Value>> {
    let chrome = chromium_or_skip()?;
    let dom = headless(&chrome, page, &["--dump-dom".to_string()]);
    let status = dom
        .find("id=\"render-status\"")
        .map(|i| &dom[i..(i + 300).min(dom.len())])
        .unwrap_or("(no render-status element)");
    let name = page.display();
    assert_eq!(
        attr(&dom, "render-status", "data-errors"),
        Some("0"),
        "script errors in {name}: {status}"
    );
    let total: usize = attr(&dom, "render-status", "data-charts")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name}: {status}"));
    if exactly {
        assert_eq!(total, charts, "{name}: {status}");
    } else {
        assert!(
            total >= charts,
            "{name}: {total} charts, expected at least {charts}"
        );
    }
    assert_eq!(
        attr(&dom, "render-status", "data-drawn"),
        Some(total.to_string().as_str()),
        "a chart without visible data in {name}: {status}"
    );
    let info = chart_info(&dom);
    assert_eq!(info.len(), total, "{info:?}");
    for c in &info {
        assert!(c["marks"].as_u64().unwrap_or(0) > 0, "{name}: {c}");
        assert!(c["width"].as_u64().unwrap_or(0) > 200, "{name}: {c}");
    }
    // A screenshot 1280 px wide, kept for a person to look at.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pages");
    let _ = std::fs::create_dir_all(&shots);
    let stem = page.file_stem().and_then(|s| s.to_str()).unwrap_or("page");
    headless(
        &chrome,
        page,
        &[
            format!(
                "--screenshot={}",
                shots.join(format!("{stem}.png")).display()
            ),
            "--window-size=1280,2000".into(),
        ],
    );
    Some(info)
}

/// The flame graphs of `page` searched for `term` (the page opened at `#search=TERM`, as a
/// person typing it in the search box): each icicle's view, the percent of its whole the
/// matching frames hold, and how many frames matched. `None` when Chromium is missing
/// outside CI.
pub fn flame_search(page: &Path, term: &str) -> Option<Vec<(String, f64, u64)>> {
    let chrome = chromium_or_skip()?;
    let at = PathBuf::from(format!("{}#search={term}", page.display()));
    let dom = headless(&chrome, &at, &["--dump-dom".to_string()]);
    assert_eq!(
        attr(&dom, "render-status", "data-errors"),
        Some("0"),
        "script errors in {}",
        page.display()
    );
    let mut out = Vec::new();
    for figure in dom.split("<figure").skip(1) {
        let tag = &figure[..figure.find('>').unwrap_or(0)];
        let value = |text: &str, name: &str| -> Option<String> {
            let key = format!("{name}=\"");
            let v = text.find(&key)? + key.len();
            Some(text[v..v + text[v..].find('"')?].to_string())
        };
        let Some(view) = value(figure, "data-view") else {
            continue;
        };
        let matched = value(tag, "data-matched")
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1.0);
        let frames = value(tag, "data-matched-frames")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        out.push((view, matched, frames));
    }
    Some(out)
}
