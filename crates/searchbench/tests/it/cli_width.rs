//! A whole `run` read at 80 columns (`COLUMNS=80`, as a terminal that narrow gives): every
//! line fits, the attribution's "what it is" is said once below its tables rather than in a
//! column three words wide on every row, and each query cell has its ops/s. By default a run
//! fits one screen; `--verbose` has every table.

use crate::common::{self, bin, node_url, succeeded};

const INDEX: &str = "it-cli-width";

#[test]
fn a_run_fits_80_columns_and_explains_its_rows_once() {
    common::fresh_index(INDEX, None);
    let out = bin()
        .args([
            "run",
            "logs",
            "--docs",
            "3000",
            "--warmup",
            "0",
            "--url",
            node_url(),
        ])
        .args(["--index", INDEX, "--no-store", "--quiet", "--verbose"])
        .env("COLUMNS", "80")
        .output()
        .expect("run logs");
    let text = succeeded(&out);
    let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(
        wide.is_empty(),
        "lines over 80 columns:\n{}",
        wide.join("\n")
    );
    assert!(!text.contains("what it is"), "{text}");
    // The legend: each segment's name, then what it is, once.
    let legend = text
        .lines()
        .find(|l| l.trim_start().starts_with("driver: client idle "))
        .unwrap_or_else(|| panic!("no legend line for the client idle segment:\n{text}"));
    assert!(legend.contains("no request in flight"), "{legend}");
    assert_eq!(text.matches("no request in flight").count(), 1, "{text}");
    // The cell table: ops/s per cell, the columns every cell shares said once above it.
    let header = text
        .lines()
        .find(|l| l.contains("took mean"))
        .unwrap_or_else(|| panic!("no cell table:\n{text}"));
    assert!(header.contains("ops/s"), "{header}");
    assert!(text.contains("n = 24 per cell, transport serial"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("│ match_s0 "))
        .unwrap_or_else(|| panic!("no match_s0 row:\n{text}"));
    // variant, took mean, took p90, wall mean, wall p90, ops/s: one client, measured, so
    // ops/s is at most 1000 ÷ wall mean (both as shown, rounded): less by the time the client
    // spent between searches.
    let cells: Vec<f64> = row
        .split(['│', '┆'])
        .map(str::trim)
        .filter_map(|c| c.parse().ok())
        .collect();
    let [_, _, wall_mean, _, ops] = cells[..] else {
        panic!("five figures in {row}");
    };
    let ceiling = 1000.0 / wall_mean;
    assert!(
        ops <= 1.02 * ceiling && ops >= 0.3 * ceiling,
        "{ops} ops/s vs wall mean {wall_mean} ms: {row}"
    );
    assert!(
        text.contains("ops/s: completed ") && text.contains("÷ elapsed time, measured"),
        "{text}"
    );
    common::fresh_index(INDEX, None);
}

/// A run once printed about 90 lines; by default it fits one screen (what it came to, what
/// bounded it, the verdicts, where the report is), and `--verbose` has every table.
#[test]
fn a_run_fits_one_screen_unless_told_verbose() {
    const BRIEF: &str = "it-cli-brief";
    common::fresh_index(BRIEF, None);
    let store = common::scratch_store();
    let out = bin()
        .args(["run", "logs", "--docs", "3000", "--warmup", "0"])
        .args(["--url", node_url(), "--index", BRIEF, "--quiet", "--store"])
        .arg(&store)
        .env("COLUMNS", "120")
        .output()
        .expect("run logs");
    let text = succeeded(&out);
    let all = common::streams(&out);
    assert!(
        all.lines().count() <= 40,
        "{} lines:\n{all}",
        all.lines().count()
    );
    for line in [
        "docs/s",
        "counts: ",
        "headline: ",
        "wall time: ",
        "ops/s",
        "report: ",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    for table in ["Where the wall time went", "Accuracy against", "engine JVM"] {
        assert!(
            !text.contains(table),
            "{table:?} without --verbose:\n{text}"
        );
    }
    assert!(
        text.contains("--verbose"),
        "says how to see every table: {text}"
    );
    common::fresh_index(BRIEF, None);
}
