//! Differential test against the engine's own code: builds `launcher/dateoracle` (OpenSearch
//! 2.19.1's `DateFormatter` + `DateFormatters.from`) with Maven, generates 100k strings,
//! runs both and requires 100% agreement, apart from differences listed, with a reason, in
//! `isodate::testgen::EXCLUSIONS` (tz database version differences).
//!
//! Skipped, with a message, only when `mvn` or `java` is not installed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../launcher/dateoracle")
}

/// The oracle's class path, built; `None` (after saying so) without `mvn` or `java`.
fn oracle() -> Option<String> {
    if !have("java") || !have("mvn") {
        eprintln!("SKIPPED differential test: `mvn` and/or `java` not found on PATH (CI has both)");
        return None;
    }
    Some(build_oracle())
}

/// Builds the oracle once per test binary: the tests run in parallel threads, and two Maven
/// builds of one folder at once trip over each other's files.
fn build_oracle() -> String {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_oracle_now).clone()
}

fn build_oracle_now() -> String {
    let dir = oracle_dir();
    let out = Command::new("mvn")
        .args(["-B", "-q", "-Dstyle.color=never", "package", "-DskipTests"])
        .current_dir(&dir)
        .output()
        .expect("run mvn");
    assert!(
        out.status.success(),
        "mvn package failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    format!(
        "{}/target/classes:{}/target/lib/*",
        dir.display(),
        dir.display()
    )
}

fn run_oracle(classpath: &str, args: &[&str], input: &[u8]) -> String {
    let mut cmd = Command::new("java");
    cmd.args(["-cp", classpath, "dev.searchbench.dateoracle.DateOracle"]);
    cmd.args(args);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start java");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // Feed from another thread so a full stdout pipe cannot deadlock us.
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("oracle output");
    feeder
        .join()
        .expect("feeder thread")
        .expect("write oracle stdin");
    assert!(out.status.success(), "oracle failed");
    String::from_utf8(out.stdout).expect("oracle prints UTF-8")
}

fn check(classpath: &str, format: isodate::Format, seed: u64, count: u64) {
    let mut input = Vec::new();
    isodate::testgen::generate(seed, count, &mut input).expect("generate");
    let arg = (format != isodate::Format::default()).then(|| format.as_str());
    let oracle = run_oracle(classpath, &Vec::from_iter(arg), &input);
    let c = isodate::testgen::compare(format, &input, &oracle);
    println!("[{format}] {}", c.report());
    assert_agrees(&c, count, format.as_str());
}

fn assert_agrees(c: &isodate::testgen::Comparison, count: u64, what: &str) {
    assert_eq!(c.total, count);
    assert_eq!(
        c.difference_count,
        0,
        "unexplained differences with the oracle ({what}):\n{}",
        c.report()
    );
}

#[test]
fn agrees_with_opensearch_on_100k_strings() {
    let Some(cp) = oracle() else { return };
    check(
        &cp,
        isodate::Format::StrictDateOptionalTimeOrEpochMillis,
        1,
        100_000,
    );
    check(&cp, isodate::Format::StrictDateOptionalTime, 2, 20_000);
    check(&cp, isodate::Format::EpochMillis, 3, 20_000);
}

/// Years near and beyond ±292 million: the parse is exact, and what a `date` field stores
/// (the instant clamped to the range of `i64` milliseconds) is what the engine stores, through
/// its own `DateFieldMapper.Resolution.MILLISECONDS.convert`.
#[test]
fn agrees_with_opensearch_on_what_a_date_field_stores_at_extreme_years() {
    let Some(cp) = oracle() else { return };
    let count = 20_000;
    let mut input = Vec::new();
    isodate::testgen::generate_extreme_years(4, count, &mut input).expect("generate");
    let format = isodate::Format::default();
    let exact = run_oracle(&cp, &[], &input);
    let c = isodate::testgen::compare(format, &input, &exact);
    println!("[extreme years, exact] {}", c.report());
    assert_agrees(&c, count, "extreme years, exact");
    let stored = run_oracle(&cp, &["field-millis"], &input);
    let c = isodate::testgen::compare_field_millis(format, &input, &stored);
    println!("[extreme years, field millis] {}", c.report());
    assert_agrees(&c, count, "extreme years, field millis");
    // The clamp is exercised, not just allowed.
    let ends = [i64::MIN.to_string(), i64::MAX.to_string()];
    let clamped = stored
        .lines()
        .filter(|l| ends.iter().any(|e| e == l))
        .count();
    assert!(clamped > count as usize / 10, "{clamped} clamped lines");
}
