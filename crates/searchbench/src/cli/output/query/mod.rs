//! Terminal rendering of a query result: the cell tables, transport savings, subtractive
//! attribution, profile overhead and the accuracy against the ground truth.

use std::collections::BTreeSet;

use comfy_table::Cell;

use super::{table, Detail};
use crate::query::QueryResult;

mod accuracy;
mod verdict;
use accuracy::*;
use verdict::*;

fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A measured rate; `-` without one.
fn ops_per_sec(rate: Option<f64>) -> String {
    match rate {
        Some(ops) if ops >= 100.0 => format!("{ops:.0}"),
        Some(ops) => format!("{ops:.1}"),
        None => "-".to_string(),
    }
}

fn red(text: String) -> Cell {
    super::tone_cell(text, super::Tone::Bad)
}

/// Prints the tables of the query method for `r`: with [`Detail::Brief`], the cells and the
/// verdict (the accuracy table only when an answer was wrong); with [`Detail::Full`], every
/// table.
pub fn print(r: &QueryResult, detail: Detail) {
    let words = r.described();
    let unit = words.unit.as_str();
    sayln!(
        "{} queries on index {:?}: {} {unit}(s) per cell × {} pass(es) after {} warm-up \
         {unit}(s) (not counted); tasks shuffled per pass (seed {}); request cache off",
        r.workload,
        r.index,
        r.coverages,
        r.passes,
        r.warmup_coverages,
        r.shuffle_seed
    );
    super::rate::print_rtt(r.rtt.as_ref());
    // Columns that say the same for every cell (one transport, one count, no errors) move to
    // the lines around the table, so it fits 80 columns with the figures that differ.
    let paced = r.rate.is_some();
    let transports: BTreeSet<&str> = r.cells.iter().map(|c| c.transport.name()).collect();
    let counts: BTreeSet<u64> = r.cells.iter().map(|c| c.took_ms.n as u64).collect();
    let errors = r.cells.iter().any(|c| c.errors > 0);
    let mut same = Vec::new();
    if let [n] = counts.iter().collect::<Vec<_>>()[..] {
        same.push(format!("n = {n} per cell"));
    }
    if let [one] = transports.iter().collect::<Vec<_>>()[..] {
        same.push(format!("transport {one}"));
    }
    sayln!(
        "{}{}",
        words.per_unit,
        if same.is_empty() {
            String::new()
        } else {
            format!("; {}", same.join(", "))
        }
    );
    let by_shards = r.cells.iter().any(|c| c.shards.is_some());
    let mut header = vec!["variant"];
    if by_shards {
        header.push("shards");
    }
    if transports.len() > 1 {
        header.push("transport");
    }
    if counts.len() > 1 {
        header.push("n");
    }
    header.extend(["took mean", "took p90", "wall mean", "wall p90"]);
    if paced {
        header.extend(["latency p50", "latency p90"]);
    }
    header.push("ops/s");
    if errors {
        header.push("errors");
    }
    let mut t = table(header);
    let rates = r.cell_rates();
    for (c, rate) in r.cells.iter().zip(rates) {
        let mut row = vec![Cell::new(c.variant.name())];
        if by_shards {
            row.push(Cell::new(c.shards.map_or("-".into(), |n| n.to_string())));
        }
        if transports.len() > 1 {
            row.push(Cell::new(c.transport.name()));
        }
        if counts.len() > 1 {
            row.push(Cell::new(c.took_ms.n));
        }
        row.extend([
            Cell::new(ms(c.took_ms.mean)),
            Cell::new(ms(c.took_ms.p90)),
            Cell::new(ms(c.wall_ms.mean)),
            Cell::new(ms(c.wall_ms.p90)),
        ]);
        if let Some(l) = &c.latency_ms {
            row.push(Cell::new(ms(l.median)));
            row.push(Cell::new(ms(l.p90)));
        }
        row.push(Cell::new(ops_per_sec(rate)));
        if errors {
            row.push(if c.errors > 0 {
                red(c.errors.to_string())
            } else {
                Cell::new("0")
            });
        }
        t.add_row(row);
    }
    outln!("{t}");
    match r.completed_per_sec() {
        Some(all) => sayln!(
            "ops/s: completed {unit}(s) ÷ elapsed time, measured: {} in all over {:.1} s with \
             {} client(s); each cell's over its share of the clients' busy time{}",
            ops_per_sec(Some(all)),
            r.measured_secs,
            r.clients,
            if errors { "" } else { "; no failed request" }
        ),
        None => sayln!("ops/s: not known (a result stored without its elapsed time)"),
    }
    if paced {
        sayln!(
            "with --rate {}: latency counts from each {unit}'s scheduled start (no coordinated \
             omission); wall is service time",
            r.rate.unwrap_or_default()
        );
    }
    if let Some(w) = &r.rewrites {
        sayln!("{}", rewrites_line(w));
    }
    accuracy::print_under_write(r);
    if let Some(b) = &r.background {
        sayln!("{}", super::machine::background_line(b, "the queries"));
    }
    print_errors(r);
    if detail == Detail::Brief {
        print_verdict(r, detail);
        return;
    }

    if !r.savings.is_empty() {
        sayln!("\n{}", crate::query::report::savings_heading(unit));
        let by_shards = r.savings.iter().any(|s| s.shards.is_some());
        let mut header = vec!["variant"];
        if by_shards {
            header.push("shards");
        }
        header.extend([
            "serial wall",
            "msearch wall",
            "saving",
            "serial took",
            "msearch took",
            "msearch parallelism",
        ]);
        let mut t = table(header);
        for s in &r.savings {
            let mut row = vec![s.variant.name().to_string()];
            if by_shards {
                row.push(s.shards.map_or("-".into(), |n| n.to_string()));
            }
            row.extend([
                ms(s.serial_wall_ms),
                ms(s.msearch_wall_ms),
                format!("{:.1}%", s.saving_pct),
                ms(s.serial_took_ms),
                ms(s.msearch_took_ms),
                format!("{:.1}×", s.parallelism),
            ]);
            t.add_row(row);
        }
        outln!("{t}");
    }
    print_shards(r);
    if !r.attribution.is_empty() {
        sayln!("\nSubtractive attribution (server took per {unit}, mean, ms)");
        let mut t = table(["component", "ms", "share of production"]);
        for c in &r.attribution {
            t.add_row([
                c.component.clone(),
                ms(c.ms),
                format!("{:.1}%", c.share_pct),
            ]);
        }
        outln!("{t}");
        let total: f64 = r.attribution.iter().map(|c| c.share_pct).sum();
        if total > 100.5 {
            sayln!(
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
        sayln!(
            "\nClient wall − server took per _search (serial), p50: lowest cell {p50} µs \
             (took has 1 ms resolution: only meaningful against a sink)"
        );
    }
    if !r.profile_overhead.is_empty() {
        sayln!("\nProfile pass (profile: true, one pass, not in the tables above)");
        let mut t = table(["variant", "transport", "took off", "took on", "overhead"]);
        for p in &r.profile_overhead {
            t.add_row([
                p.variant.name().to_string(),
                p.transport.name().to_string(),
                ms(p.took_off_ms),
                ms(p.took_on_ms),
                format!("{:+.0}%", p.overhead_pct),
            ]);
        }
        outln!("{t}");
    }
    print_cold(r);
    if let Some(d) = &r.drift {
        sayln!(
            "\nDrift: {} took per {unit} {} ms now vs {} ms in {}: {:+.1}%",
            d.variant,
            ms(d.took_ms),
            ms(d.baseline_took_ms),
            d.baseline_file,
            d.drift_pct
        );
    }
    print_verdict(r, detail);
}

/// The accuracy (its table in full, when an answer was wrong, or when it holds measured
/// recall) and the verdict line.
/// What the writes beside the searches did: the figures above were measured during them.
pub fn rewrites_line(w: &crate::query::Rewrites) -> String {
    format!(
        "during an ingest: {} client(s){} wrote the corpus over itself beside {}, {} \
         document(s) in {:.1} s ({:.0} docs/s, {} whole round(s){}); the index held {} \
         documents before and after, so every answer was checked against the same truth",
        w.clients,
        w.rate
            .map(|r| format!(" offered {r:.0} docs/s"))
            .unwrap_or_default(),
        w.beside(),
        w.docs,
        w.secs,
        w.docs_per_sec,
        w.rounds,
        if w.failed > 0 {
            format!(", {} refused", w.failed)
        } else {
            String::new()
        },
        w.index_count
    )
}
