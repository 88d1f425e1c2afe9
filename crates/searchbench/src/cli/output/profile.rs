//! Terminal rendering of an engine profile: a line (the categories that took CPU) or, with
//! `--verbose`, the table of every category.

use super::{table, Detail};
use crate::measure::profile::Profile;

/// `1.2 GB/s`.
fn rate(bytes_per_sec: f64) -> String {
    format!("{}/s", super::bytes(bytes_per_sec.max(0.0) as u64))
}

pub fn print(p: &Profile, detail: Detail) {
    let shown: Vec<_> = p.categories.iter().filter(|c| c.cpu_pct >= 0.5).collect();
    let after = if p.warmup_secs > 0.0 {
        format!(" after {:.1} s of set-up and warm-up", p.warmup_secs)
    } else {
        String::new()
    };
    let mut head = format!(
        "engine profile ({} CPU sample(s) over {:.1} s{after}, {} node(s))",
        p.cpu_samples,
        p.window_secs,
        p.pids.len()
    );
    if let Some(r) = p.alloc_bytes_per_sec {
        head.push_str(&format!("; allocating {}", rate(r)));
    }
    head.push_str(&format!(
        "; GC paused {:.2} s in {} collection(s)",
        p.gc_pause_secs, p.gcs
    ));
    if detail == Detail::Brief {
        let mut cats = shown.clone();
        cats.sort_by(|a, b| b.cpu_pct.total_cmp(&a.cpu_pct));
        sayln!(
            "{head}: CPU {}",
            cats.iter()
                .map(|c| format!("{} {:.0} %", c.category.name(), c.cpu_pct))
                .collect::<Vec<_>>()
                .join(", ")
        );
        first_recording_note(p);
        return;
    }
    sayln!("\n{head}");
    let mut t = table(["category", "CPU [95 %]", "allocated", "top method"]);
    for c in &p.categories {
        if c.cpu_pct == 0.0 && c.alloc_pct == 0.0 {
            continue;
        }
        t.add_row([
            c.category.name().to_string(),
            format!(
                "{:.1} % [{:.1}, {:.1}]",
                c.cpu_pct, c.cpu_low_pct, c.cpu_high_pct
            ),
            format!("{:.1} %", c.alloc_pct),
            c.top_methods
                .first()
                .map(|(m, share)| format!("{m} ({share:.1} %)"))
                .unwrap_or_default(),
        ]);
    }
    outln!("{t}");
    for f in &p.recordings {
        sayln!("recording: {}", f.display());
    }
    first_recording_note(p);
}

/// A node that was running before its first Flight Recorder start ran this phase slower.
fn first_recording_note(p: &Profile) {
    if !p.first_recording_pids.is_empty() {
        let pids: Vec<String> = p.first_recording_pids.iter().map(u32::to_string).collect();
        sayln!(
            "note: this was the first Flight Recorder start in pid {}: the JIT compiles again \
             what inlined the file and socket classes it instruments, so this phase ran slower \
             (about half the docs/s of a load on a warm node); a second profiled run costs \
             under 3 %",
            pids.join(", ")
        );
    }
}

/// The date-cost experiment's variants side by side (`dates cost --profile`): where each
/// variant's CPU and allocations went, the categories dates touch.
pub fn print_variants(result: &crate::experiment::dates::EngineResult) {
    use crate::measure::profile::Category;
    // Short names: the table fits beside the variants' own words.
    let shown = [
        (Category::DateParsing, "date parsing"),
        (Category::JsonParsing, "JSON"),
        (Category::DocumentParsing, "mapping"),
        (Category::LuceneIndexing, "Lucene"),
    ];
    let profiled: Vec<_> = result
        .variants
        .iter()
        .filter_map(|v| Some((v, v.profile.as_ref()?)))
        .collect();
    if profiled.is_empty() {
        return;
    }
    sayln!("\nengine profile by variant (CPU % / allocated %)");
    let mut head = vec!["variant".to_string(), "CPU samples".to_string()];
    head.extend(shown.iter().map(|(_, name)| name.to_string()));
    head.push("allocating".into());
    let mut t = table(head);
    for (v, p) in profiled {
        let share = |c: Category| {
            p.categories.iter().find(|s| s.category == c).map_or_else(
                || "-".into(),
                |s| format!("{:.1} / {:.1}", s.cpu_pct, s.alloc_pct),
            )
        };
        let mut row = vec![
            format!("({}) {}", v.variant.id, v.variant.what),
            p.cpu_samples.to_string(),
        ];
        row.extend(shown.iter().map(|&(c, _)| share(c)));
        row.push(p.alloc_bytes_per_sec.map_or_else(|| "-".into(), rate));
        t.add_row(row);
    }
    outln!("{t}");
    // The first load recorded is the first variant's: a note there holds for the run.
    if let Some(p) = result.variants.first().and_then(|v| v.profile.as_ref()) {
        first_recording_note(p);
    }
}
