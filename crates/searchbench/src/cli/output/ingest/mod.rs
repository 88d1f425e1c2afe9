//! Terminal rendering of an ingest result: the summary, the reconciliation, the measures and
//! where the wall time went.

use super::{table, Detail};

use crate::ingest::IngestReport;

mod lines;
pub use lines::*;

/// Prints an ingest's result: with [`Detail::Brief`], what it came to on one screen (the
/// figures, the counts, service time and where the wall time went in a line each); with
/// [`Detail::Full`], every table.
pub fn print(r: &IngestReport, detail: Detail) {
    let c = &r.counts;
    if let Some(line) = existing_line(r) {
        sayln!("{line}");
    }
    sayln!(
        "\n{} docs into {} on {} {} in {:.1} s: {:.0} docs/s, {:.1} MB/s",
        c.indexed,
        r.index,
        r.product,
        r.engine_version,
        r.wall_secs,
        r.docs_per_sec,
        r.mb_per_sec
    );
    if let Some(jvm) = r.engine_jvm.as_ref().filter(|_| detail == Detail::Full) {
        sayln!(
            "engine JVM: {} {} ({}), GC {}, heap {}; machine: {}, {} cores, kernel {}",
            jvm.vendor,
            jvm.version,
            jvm.vm,
            jvm.gc.join(" + "),
            jvm.heap_max_bytes
                .map(super::bytes)
                .unwrap_or_else(|| "?".into()),
            r.machine.cpu_model,
            r.machine.cores,
            r.machine.kernel
        );
    }
    sayln!(
        "counts: {} {}",
        reconcile_line(r),
        match (c.reconciled, r.config.part.is_whole()) {
            (true, true) => "- reconciled".to_string(),
            // The index's count is the whole group's: what a part reconciles is its own.
            (true, false) => format!(
                "- part {}: its own read = indexed + failed adds up; the index's count is the \
                 group's, reconciled by `results merge`",
                r.config.part
            ),
            (false, _) => "- NOT reconciled".to_string(),
        }
    );
    if r.interrupted {
        sayln!(
            "interrupted: documents read but never sent are not counted; documents in flight \
             without an answer are in the failure file as interrupted"
        );
    }
    if c.failed > 0 {
        sayln!(
            "failures: {} refused, {} unacknowledged, {} not sent, {} bad input lines -> {}",
            c.refused,
            c.unacknowledged,
            c.not_sent,
            c.bad_lines,
            r.failures_file
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.display().to_string())
        );
    } else if r.previous_failures_file.is_some() {
        sayln!("failures: none");
    }
    if let Some(limit) = r.failure_limit.as_ref().filter(|l| l.failed > 0) {
        sayln!("{}", failure_limit_line(limit));
    }
    if let Some(p) = &r.previous_failures_file {
        sayln!(
            "(the failure file of an earlier run was moved to {})",
            p.display()
        );
    }
    sayln!(
        "headline: {:.0} docs/s = {}",
        r.docs_per_sec,
        r.headline.definition
    );
    // Judged only where the run's levelling was (enough whole measured seconds).
    if let Some(words) = r
        .headline
        .levelled
        .and_then(|_| crate::measure::recorder::level_words(r.headline.rise_pct))
    {
        sayln!("{words}");
    }
    if let Some(up) = &r.warm_up {
        sayln!("before it, {}", up.line());
    }
    if let Some(f) = &r.freshness {
        sayln!("{}", f.line());
    }
    if let Some(why) = &r.freshness_not_measured {
        sayln!("{why}");
    }
    if detail == Detail::Brief {
        print_brief(r);
        return;
    }
    let mut t = table(["measure", "value"]);
    t.add_row(["wall time".to_string(), format!("{:.2} s", r.wall_secs)]);
    t.add_row(["docs/s".to_string(), format!("{:.0}", r.docs_per_sec)]);
    t.add_row([
        "MB/s (body / wire)".to_string(),
        format!("{:.1} / {:.1}", r.mb_per_sec, r.wire_mb_per_sec),
    ]);
    t.add_row([
        "requests (retries, failed attempts)".to_string(),
        format!(
            "{} ({}, {})",
            r.requests.attempts, r.requests.retries, r.requests.failed_attempts
        ),
    ]);
    t.add_row([
        "service time p50 / p90 / p99 / max".to_string(),
        format!(
            "{} / {} / {} / {} ms (n={})",
            ms(r.service.p50_ms),
            ms(r.service.p90_ms),
            ms(r.service.p99_ms),
            ms(r.service.max_ms),
            r.service.count
        ),
    ]);
    t.add_row([
        "server took p50 / p99".to_string(),
        match r.took_clock_ms {
            Some(step) => format!("in {step} ms steps (the engine's cached clock): not shown"),
            None => format!("{} / {} ms", ms(r.took.p50_ms), ms(r.took.p99_ms)),
        },
    ]);
    outln!("{t}");
    super::rate::print_ingest(r);

    let a = &r.attribution;
    sayln!(
        "Where the wall time went ({} client(s): client-seconds / {}, rows add up to the wall time)",
        a.clients, a.clients
    );
    let mut t = table(["segment", "time (s)", "share"]);
    for s in &a.budget {
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.0}%", s.share * 100.0),
        ]);
    }
    outln!("{t}");
    let merge_mb = r
        .server_stats
        .map(|s| s.merge_size_bytes as f64 / 1e6)
        .unwrap_or(0.0);
    let mut t = table(["server background / CPU", "time (s)", "share"]);
    for s in &a.background {
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.0}% of wall", s.share * 100.0),
        ]);
    }
    for s in &a.cpu {
        t.add_row([
            s.name.to_string(),
            format!("{:.2}", s.secs),
            format!("{:.1}% of machine", s.share * 100.0),
        ]);
    }
    outln!("{t}");
    // What each row is, once, below the tables (a column of it repeated and wrapped on every
    // row, three words wide, at 80 columns).
    super::legend(a.budget.iter().chain(&a.background).chain(&a.cpu).map(|s| {
        let what = if s.name == "server: merge" {
            format!("{} ({merge_mb:.1} MB merged)", s.what)
        } else {
            s.what.to_string()
        };
        (s.name.as_ref(), what)
    }));
    if let Some(per_m) = r.cpu.driver_secs_per_million_docs {
        sayln!(
            "driver CPU: {per_m:.2} s per million documents; buffers: {} allocated, {} reused",
            r.buffers.allocated,
            r.buffers.reused
        );
    }
    if let Some(b) = &r.background {
        sayln!("{}", super::machine::background_line(b, "the load"));
    }
    if a.clamped {
        sayln!("note: server index time exceeded took (several shards index in parallel); clamped to took");
    }
    if let Some(b) = &r.searches_beside {
        super::beside::print(b);
    }
    if let Some(p) = &r.profile {
        super::profile::print(p, Detail::Full);
    }
    for w in &r.warnings {
        sayln!("warning: {w}");
    }
}

/// The brief rest of an ingest's result: service time and where the wall time went, a line
/// each, then what must never be left out (searches beside the load, warnings).
fn print_brief(r: &IngestReport) {
    sayln!(
        "service time p50 / p99 / max {} / {} / {} ms ({} requests, {} retried, {} failed attempts)",
        ms(r.service.p50_ms),
        ms(r.service.p99_ms),
        ms(r.service.max_ms),
        r.requests.attempts,
        r.requests.retries,
        r.requests.failed_attempts
    );
    super::rate::print_ingest(r);
    let mut parts: Vec<_> = r
        .attribution
        .budget
        .iter()
        .filter(|s| s.share >= 0.005)
        .collect();
    parts.sort_by(|a, b| b.share.total_cmp(&a.share));
    if !parts.is_empty() {
        sayln!(
            "wall time: {}",
            parts
                .iter()
                .map(|s| format!("{} {:.0} %", s.name, s.share * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(b) = &r.searches_beside {
        super::beside::print(b);
    }
    if let Some(p) = &r.profile {
        super::profile::print(p, Detail::Brief);
    }
    for w in &r.warnings {
        sayln!("warning: {w}");
    }
}
