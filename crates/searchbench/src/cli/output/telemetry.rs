//! The telemetry lines after a phase: GC, heap, thread pools, merges, CPU, and what bounded
//! the run when the data shows it.

use super::Detail;
use crate::measure::telemetry::{self, Summary};

fn mib(bytes: f64) -> String {
    super::bytes(bytes.max(0.0) as u64)
}

/// The lines, without a trailing newline; empty when nothing was sampled.
pub fn lines(s: &Summary) -> Vec<String> {
    let mut out = Vec::new();
    let nodes = if s.nodes == 1 {
        "1 node".to_string()
    } else {
        format!("{} nodes", s.nodes)
    };
    let cost = s
        .sampler_cpu_ms_per_s
        .map(|ms| format!("; sampler CPU {ms:.1} ms/s"))
        .unwrap_or_default();
    out.push(format!(
        "telemetry: {} sample(s) every {} s over {:.0} s ({} missed), {nodes}{cost}",
        s.samples, s.interval_secs, s.span_secs, s.missed
    ));
    if s.samples == 0 {
        return out;
    }
    let gc = match (s.gc_share, s.gc_secs) {
        (Some(share), Some(secs)) => {
            let on = s
                .gc_share_node
                .as_deref()
                .map(|n| format!(" on {n}"))
                .unwrap_or_default();
            format!(
                "GC {:.1} % of wall{on} ({secs:.1} s; {:.0} young, {:.0} old collection(s))",
                share * 100.0,
                s.young_gcs.unwrap_or(0.0),
                s.old_gcs.unwrap_or(0.0)
            )
        }
        _ => "GC not reported".into(),
    };
    let heap = match (s.heap_peak_bytes, s.heap_max_bytes) {
        (Some(peak), Some(max)) => format!("heap peak {} of {}", mib(peak), mib(max)),
        (Some(peak), None) => format!("heap peak {}", mib(peak)),
        _ => "heap not reported".into(),
    };
    out.push(format!("  {gc}; {heap}"));
    let pools = format!(
        "  write queue up to {:.0}, {:.0} rejection(s); search queue up to {:.0}, {:.0} rejection(s)",
        s.max_write_queue.unwrap_or(0.0),
        s.write_rejections.unwrap_or(0.0),
        s.max_search_queue.unwrap_or(0.0),
        s.search_rejections.unwrap_or(0.0)
    );
    out.push(pools);
    if let Some(merge) = s.merge_secs {
        out.push(format!(
            "  merges {merge:.1} s, throttled {:.1} s; breakers tripped {:.0} time(s)",
            s.merge_throttled_secs.unwrap_or(0.0),
            s.breaker_trips.unwrap_or(0.0)
        ));
    }
    let mut cpu = Vec::new();
    if let (Some(mean), Some(peak)) = (s.engine_cpu_cores_mean, s.engine_cpu_cores_peak) {
        // "Of" what the engine may use when we can read it; else the driver's machine,
        // said as such (a remote engine's machine is not ours to read).
        let of = match &s.engine_cpu_limit {
            Some(l) => format!("of {}: {}", telemetry::trim(l.cores), l.source),
            None => format!("the driver's machine has {}", s.cores),
        };
        cpu.push(format!(
            "engine CPU {mean:.2} cores mean, {peak:.2} peak ({of})"
        ));
    }
    if let Some(d) = s.driver_cpu_cores_mean {
        cpu.push(format!("driver {d:.2} cores"));
    }
    if let Some(lag) = s.schedule_lag_ms_max {
        cpu.push(format!("scheduler lag up to {lag:.0} ms"));
    }
    if !cpu.is_empty() {
        out.push(format!("  {}", cpu.join("; ")));
    }
    if let Some(note) = &s.engine_cpu_peak_note {
        out.push(format!("  note: {note}"));
    }
    if let (Some(r), Some(w)) = (s.disk_read_bytes, s.disk_write_bytes) {
        out.push(format!("  disk read {}, written {}", mib(r), mib(w)));
    }
    if !s.bounds.is_empty() {
        out.push(format!("bounded by: {}", s.bounds.join("; ")));
    }
    out
}

/// What bounded a phase, when its telemetry shows it: `{phase}bounded by: …`.
pub fn print_bounds(summary: Option<&Summary>, phase: &str) {
    if let Some(s) = summary.filter(|s| !s.bounds.is_empty()) {
        sayln!("{phase}bounded by: {}", s.bounds.join("; "));
    }
}

/// Prints the telemetry lines of a phase, if it was sampled: all of them, or with
/// [`Detail::Brief`] what bounded the phase.
pub fn print(summary: Option<&Summary>, detail: Detail) {
    let Some(s) = summary else { return };
    if detail == Detail::Brief {
        print_bounds(Some(s), "");
        return;
    }
    outln!();
    for line in lines(s) {
        sayln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_say_gc_heap_pools_and_bounds() {
        let s = Summary {
            interval_secs: 1.0,
            samples: 30,
            missed: 1,
            nodes: 1,
            span_secs: 29.0,
            cores: 2,
            gc_secs: Some(1.5),
            gc_share: Some(0.05),
            young_gcs: Some(40.0),
            old_gcs: Some(1.0),
            heap_peak_bytes: Some(300.0 * 1024.0 * 1024.0),
            heap_max_bytes: Some(512.0 * 1024.0 * 1024.0),
            max_write_queue: Some(12.0),
            write_rejections: Some(7.0),
            merge_secs: Some(4.0),
            merge_throttled_secs: Some(0.5),
            engine_cpu_cores_mean: Some(1.2),
            engine_cpu_cores_peak: Some(1.9),
            sampler_cpu_ms_per_s: Some(1.25),
            bounds: vec!["thread pool queue full: 7 rejection(s)".into()],
            ..Summary::default()
        };
        let text = lines(&s).join("\n");
        for needle in [
            "30 sample(s) every 1 s over 29 s (1 missed), 1 node; sampler CPU 1.2 ms/s",
            "GC 5.0 % of wall (1.5 s; 40 young, 1 old collection(s)); heap peak 300.0 MiB of 512.0 MiB",
            "write queue up to 12, 7 rejection(s)",
            "merges 4.0 s, throttled 0.5 s",
            "engine CPU 1.20 cores mean, 1.90 peak (the driver's machine has 2)",
            "bounded by: thread pool queue full: 7 rejection(s)",
        ] {
            assert!(text.contains(needle), "no {needle:?} in\n{text}");
        }
        // With the engine's own limit, and a peak above it: said, with why.
        let s = Summary {
            engine_cpu_limit: Some(crate::measure::cpu_limit::CpuLimit {
                cores: 2.0,
                source: "affinity 0-1".into(),
            }),
            engine_cpu_peak_note: Some("the 2.30 peak is above ...".into()),
            ..s
        };
        let text = lines(&s).join("\n");
        assert!(text.contains("1.90 peak (of 2: affinity 0-1)"), "{text}");
        assert!(text.contains("note: the 2.30 peak is above"), "{text}");
    }
}
