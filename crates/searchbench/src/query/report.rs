//! The result of a query run, its derived figures (transport savings, subtractive attribution,
//! drift, profile overhead) and its terminal rendering.

use comfy_table::{Cell, Color};
use serde::{Deserialize, Serialize};

use super::accuracy::VariantAccuracy;
use super::plan::{Transport, Variant};
use super::stats::CellResult;
use super::{Measured, QueryError, QueryOptions};
use crate::cli::output;
use crate::measure::SerializedHistogram;

/// Serial → msearch, per variant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Saving {
    pub variant: Variant,
    pub serial_wall_ms: f64,
    pub msearch_wall_ms: f64,
    pub saving_pct: f64,
    pub serial_took_ms: f64,
    pub msearch_took_ms: f64,
    /// msearch: sum of took ÷ wall.
    pub parallelism: f64,
}

/// One line of the subtractive attribution (serial took per coverage).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Component {
    pub component: String,
    pub ms: f64,
    /// Share of the production query's took.
    pub share_pct: f64,
}

/// Production cell vs a previous result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Drift {
    pub baseline_file: String,
    pub baseline_took_ms: f64,
    pub took_ms: f64,
    pub drift_pct: f64,
}

/// Profile-on vs profile-off took per cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileOverhead {
    pub variant: Variant,
    pub transport: Transport,
    pub took_off_ms: f64,
    pub took_on_ms: f64,
    pub overhead_pct: f64,
}

/// Everything a query run produced; `--json` writes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryResult {
    pub workload: String,
    pub index: String,
    pub passes: u32,
    pub warmup_coverages: u64,
    pub coverages: usize,
    pub partitions: usize,
    pub shuffle_seed: u64,
    pub rate: Option<f64>,
    pub measured_secs: f64,
    pub cells: Vec<CellResult>,
    pub savings: Vec<Saving>,
    pub attribution: Vec<Component>,
    pub profile_cells: Vec<CellResult>,
    pub profile_overhead: Vec<ProfileOverhead>,
    pub accuracy: Vec<VariantAccuracy>,
    pub accuracy_checked: bool,
    /// Total accuracy failures (only the first 50 are in `failures`).
    pub failures_total: u64,
    pub failures: Vec<String>,
    pub drift: Option<Drift>,
}

impl QueryResult {
    /// Every measured cell's histograms, named `query:<variant>:<transport>:<histogram>`.
    pub fn histograms(&self) -> Vec<SerializedHistogram> {
        self.cells
            .iter()
            .flat_map(|c| {
                c.histograms.iter().map(move |h| SerializedHistogram {
                    name: format!(
                        "query:{}:{}:{}",
                        c.variant.name(),
                        c.transport.name(),
                        h.name
                    ),
                    ..h.clone()
                })
            })
            .collect()
    }

    pub fn cell(&self, v: Variant, t: Transport) -> Option<&CellResult> {
        self.cells
            .iter()
            .find(|c| c.variant == v && c.transport == t)
    }

    /// Searches that failed, over all measured cells.
    pub fn request_errors(&self) -> u64 {
        self.cells.iter().map(|c| c.errors).sum::<u64>()
            + self.profile_cells.iter().map(|c| c.errors).sum::<u64>()
    }

    /// True when every answer was right and every request answered.
    pub fn passed(&self) -> bool {
        self.failures_total == 0 && self.request_errors() == 0
    }

    /// Sets `drift` from a previous `--json` result (its production serial cell).
    pub fn compare_baseline(&mut self, path: &std::path::Path) -> Result<(), QueryError> {
        let bad = |reason: String| QueryError::File {
            path: path.display().to_string(),
            reason,
        };
        let text = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        let base: QueryResult =
            serde_json::from_slice(&text).map_err(|e| bad(format!("not a query result: {e}")))?;
        let pick = |r: &QueryResult| {
            r.cell(Variant::PRODUCTION, Transport::Serial)
                .or_else(|| r.cell(Variant::PRODUCTION, Transport::Msearch))
                .map(|c| c.took_ms.mean)
        };
        let (Some(before), Some(now)) = (pick(&base), pick(self)) else {
            return Err(bad("no D_td cell in both results to compare".into()));
        };
        self.drift = Some(Drift {
            baseline_file: path.display().to_string(),
            baseline_took_ms: before,
            took_ms: now,
            drift_pct: if before > 0.0 {
                (now - before) / before * 100.0
            } else {
                0.0
            },
        });
        Ok(())
    }
}

pub(super) fn assemble(
    options: &QueryOptions,
    workload: &str,
    coverages: usize,
    partitions: usize,
    m: Measured,
    accuracy: Vec<VariantAccuracy>,
) -> QueryResult {
    let Measured {
        cells,
        profile_cells,
        failures,
        failures_total,
        warmup_coverages,
        measured,
    } = m;
    let find = |v: Variant, t: Transport| {
        cells
            .iter()
            .find(|c| c.variant == v && c.transport == t && c.took_ms.n > 0)
    };
    let savings = options
        .variants
        .iter()
        .filter_map(|&v| {
            let s = find(v, Transport::Serial)?;
            let m = find(v, Transport::Msearch)?;
            Some(Saving {
                variant: v,
                serial_wall_ms: s.wall_ms.mean,
                msearch_wall_ms: m.wall_ms.mean,
                saving_pct: pct_change(s.wall_ms.mean, m.wall_ms.mean),
                serial_took_ms: s.took_ms.mean,
                msearch_took_ms: m.took_ms.mean,
                parallelism: if m.wall_ms.mean > 0.0 {
                    m.took_ms.mean / m.wall_ms.mean
                } else {
                    0.0
                },
            })
        })
        .collect();
    // Attribution on serial took (falls back to msearch when serial was not run).
    let took = |v: Variant| {
        find(v, Transport::Serial)
            .or_else(|| find(v, Transport::Msearch))
            .map(|c| c.took_ms.mean)
    };
    let mut attribution = Vec::new();
    if let (Some(a), Some(d)) = (took(Variant::A), took(Variant::PRODUCTION)) {
        let share = |ms: f64| if d > 0.0 { ms / d * 100.0 } else { 0.0 };
        let mut push = |name: &str, ms: f64| {
            attribution.push(Component {
                component: name.to_string(),
                ms,
                share_pct: share(ms),
            })
        };
        push("filter + framework (A)", a);
        if let Some(b) = took(Variant::B) {
            push("3× sum (B − A)", b - a);
        }
        if let Some(c) = took(Variant::CTd) {
            push("3× percentiles t-digest (C_td − A)", c - a);
        }
        if let Some(c) = took(Variant::CHdr) {
            push("3× percentiles HDR (C_hdr − A)", c - a);
        }
        push("production query (D_td)", d);
    }
    let profile_overhead = profile_cells
        .iter()
        .filter_map(|p| {
            let off = find(p.variant, p.transport)?;
            Some(ProfileOverhead {
                variant: p.variant,
                transport: p.transport,
                took_off_ms: off.took_ms.mean,
                took_on_ms: p.took_ms.mean,
                overhead_pct: -pct_change(off.took_ms.mean, p.took_ms.mean),
            })
        })
        .collect();
    QueryResult {
        workload: workload.to_string(),
        index: options.index.clone(),
        passes: options.passes,
        warmup_coverages,
        coverages,
        partitions,
        shuffle_seed: options.shuffle_seed,
        rate: options.rate,
        measured_secs: measured.as_secs_f64(),
        cells,
        savings,
        attribution,
        profile_cells,
        profile_overhead,
        accuracy,
        accuracy_checked: options.check,
        failures_total,
        failures,
        drift: None,
    }
}

/// `(before − after) / before` in percent: the saving of going from `before` to `after`.
fn pct_change(before: f64, after: f64) -> f64 {
    if before > 0.0 {
        (before - after) / before * 100.0
    } else {
        0.0
    }
}

fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn red(text: String) -> Cell {
    Cell::new(text).fg(Color::Red)
}

/// Prints the tables of field note 002 for `r`.
pub fn print(r: &QueryResult) {
    let logs = r.workload == "logs";
    let unit = if logs { "search" } else { "coverage" };
    println!(
        "{} queries on index {:?}: {} {unit}(s) per cell × {} pass(es) after {} warm-up \
         {unit}(s) (not counted); tasks shuffled per pass (seed {}); request cache off",
        r.workload, r.index, r.coverages, r.passes, r.warmup_coverages, r.shuffle_seed
    );
    if logs {
        println!(
            "Per search (one time slice of the corpus window): server took and client wall, in ms"
        );
    } else {
        println!(
            "Per coverage (all nodes of one epoch): server took summed, and client wall, in ms"
        );
    }
    let paced = r.rate.is_some();
    let mut header = vec![
        "variant",
        "transport",
        "n",
        "took mean",
        "took median",
        "took p90",
        "wall mean",
        "wall median",
        "wall p90",
    ];
    if paced {
        header.extend(["latency p50", "latency p90"]);
    }
    header.push("errors");
    let mut t = output::table(header);
    for c in &r.cells {
        let mut row = vec![
            Cell::new(c.variant.name()),
            Cell::new(c.transport.name()),
            Cell::new(c.took_ms.n),
            Cell::new(ms(c.took_ms.mean)),
            Cell::new(ms(c.took_ms.median)),
            Cell::new(ms(c.took_ms.p90)),
            Cell::new(ms(c.wall_ms.mean)),
            Cell::new(ms(c.wall_ms.median)),
            Cell::new(ms(c.wall_ms.p90)),
        ];
        if let Some(l) = &c.latency_ms {
            row.push(Cell::new(ms(l.median)));
            row.push(Cell::new(ms(l.p90)));
        }
        row.push(if c.errors > 0 {
            red(c.errors.to_string())
        } else {
            Cell::new("0")
        });
        t.add_row(row);
    }
    println!("{t}");
    if paced {
        println!(
            "with --rate {}: latency counts from each coverage's scheduled start (no coordinated \
             omission); wall is service time",
            r.rate.unwrap_or_default()
        );
    }
    for c in r.cells.iter().filter(|c| !c.error_examples.is_empty()) {
        for e in &c.error_examples {
            eprintln!("  {} {}: {e}", c.variant.name(), c.transport.name());
        }
    }

    if !r.savings.is_empty() {
        println!("\nSerial vs _msearch (wall per coverage, ms)");
        let mut t = output::table([
            "variant",
            "serial wall",
            "msearch wall",
            "saving",
            "serial took",
            "msearch took",
            "msearch parallelism",
        ]);
        for s in &r.savings {
            t.add_row([
                s.variant.name().to_string(),
                ms(s.serial_wall_ms),
                ms(s.msearch_wall_ms),
                format!("{:.1}%", s.saving_pct),
                ms(s.serial_took_ms),
                ms(s.msearch_took_ms),
                format!("{:.1}×", s.parallelism),
            ]);
        }
        println!("{t}");
    }
    if !r.attribution.is_empty() {
        println!("\nSubtractive attribution (server took per coverage, mean, ms)");
        let mut t = output::table(["component", "ms", "share of production"]);
        for c in &r.attribution {
            t.add_row([
                c.component.clone(),
                ms(c.ms),
                format!("{:.1}%", c.share_pct),
            ]);
        }
        println!("{t}");
        let total: f64 = r.attribution.iter().map(|c| c.share_pct).sum();
        if total > 100.5 {
            println!(
                "shares add to {total:.1} %: each is the took saved by removing that one component \
                 alone, and components share work (one pass over the documents serves several), \
                 so the savings overlap"
            );
        }
    }
    let overhead: Vec<_> = r
        .cells
        .iter()
        .filter(|c| c.overhead_hdr.count > 0)
        .map(|c| c.overhead_hdr.p50_us)
        .collect();
    if let Some(p50) = overhead.iter().min() {
        println!(
            "\nClient wall − server took per _search (serial), p50: lowest cell {p50} µs \
             (took has 1 ms resolution: only meaningful against a sink)"
        );
    }
    if !r.profile_overhead.is_empty() {
        println!("\nProfile pass (profile: true, one pass, not in the tables above)");
        let mut t = output::table(["variant", "transport", "took off", "took on", "overhead"]);
        for p in &r.profile_overhead {
            t.add_row([
                p.variant.name().to_string(),
                p.transport.name().to_string(),
                ms(p.took_off_ms),
                ms(p.took_on_ms),
                format!("{:+.0}%", p.overhead_pct),
            ]);
        }
        println!("{t}");
    }
    if let Some(d) = &r.drift {
        println!(
            "\nDrift: D_td took per coverage {} ms now vs {} ms in {}: {:+.1}%",
            ms(d.took_ms),
            ms(d.baseline_took_ms),
            d.baseline_file,
            d.drift_pct
        );
    }
    if r.accuracy_checked && logs {
        print_logs_accuracy(r);
    } else if r.accuracy_checked {
        println!("\nAccuracy against the exact ground truth (percentile error = |got − exact| / max(|exact|, 1))");
        let mut t = output::table([
            "variant",
            "answers",
            "wrong counts",
            "wrong sums",
            "pct values",
            "pct max err",
            "pct mean err",
            "max err p0/p50/p90/p100",
            "bound",
            "verdict",
        ]);
        for a in &r.accuracy {
            let has_pct = a.algo.is_some();
            let fmt = |x: f64| format!("{:.4}%", x * 100.0);
            t.add_row([
                Cell::new(a.variant.name()),
                Cell::new(a.answers),
                bad(a.count_wrong),
                if a.variant.has_sums() {
                    bad(a.sum_wrong)
                } else {
                    Cell::new("-")
                },
                Cell::new(if has_pct {
                    a.pct_values.to_string()
                } else {
                    "-".into()
                }),
                Cell::new(if has_pct {
                    fmt(a.pct_max_err)
                } else {
                    "-".into()
                }),
                Cell::new(if has_pct {
                    fmt(a.pct_mean_err)
                } else {
                    "-".into()
                }),
                Cell::new(if has_pct {
                    a.pct_max_err_by_percent
                        .iter()
                        .map(|x| format!("{:.3}", x * 100.0))
                        .collect::<Vec<_>>()
                        .join(" / ")
                } else {
                    "-".into()
                }),
                Cell::new(a.bound.map_or("-".into(), |b| format!("{:.0}%", b * 100.0))),
                if a.failed() {
                    red("FAIL".into())
                } else {
                    Cell::new("ok")
                },
            ]);
        }
        println!("{t}");
    } else {
        println!("\nAccuracy not checked (--no-check)");
    }
    let errors = r.request_errors();
    if r.failures_total > 0 || errors > 0 {
        let mut msg = String::new();
        if r.failures_total > 0 {
            msg.push_str(&format!("{} wrong answer(s)", r.failures_total));
        }
        if errors > 0 {
            if !msg.is_empty() {
                msg.push_str(", ");
            }
            msg.push_str(&format!("{errors} failed request(s)"));
        }
        println!("{}", red_text(&format!("FAILED: {msg}")));
        for f in r.failures.iter().take(10) {
            println!("{}", red_text(&format!("  {f}")));
        }
    } else if r.accuracy_checked && logs {
        println!("All hit counts, newest hits and buckets exact; no failed request.");
    } else if r.accuracy_checked {
        println!("All counts and sums exact; all percentiles within bounds; no failed request.");
    }
}

fn bad(n: u64) -> Cell {
    if n > 0 {
        red(n.to_string())
    } else {
        Cell::new("0")
    }
}

/// The accuracy table of the `logs` workload.
fn print_logs_accuracy(r: &QueryResult) {
    println!(
        "\nAccuracy against the truth recomputed from the generator spec (hit counts, the 10 \
         newest hits, per-minute buckets, top 10 hosts: all exact)"
    );
    let mut t = output::table([
        "variant",
        "answers",
        "wrong counts",
        "wrong newest hits",
        "wrong buckets",
        "verdict",
    ]);
    for a in &r.accuracy {
        let (query, size) = a
            .variant
            .logs()
            .unwrap_or((super::LogsQuery::RangeTerms, 0));
        let buckets = matches!(
            query,
            super::LogsQuery::Histogram | super::LogsQuery::TopHosts
        );
        t.add_row([
            Cell::new(a.variant.name()),
            Cell::new(a.answers),
            bad(a.count_wrong),
            if size > 0 {
                bad(a.hits_wrong)
            } else {
                Cell::new("-")
            },
            if buckets {
                bad(a.buckets_wrong)
            } else {
                Cell::new("-")
            },
            if a.failed() {
                red("FAIL".into())
            } else {
                Cell::new("ok")
            },
        ]);
    }
    println!("{t}");
}

/// Red on a terminal; plain text when piped (no escape codes in files and pipes).
fn red_text(s: &str) -> String {
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        format!("\x1b[31m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}
