//! Telemetry: per-second series of what the engine (and the driver) was doing beside a run,
//! derived from readings of `_nodes/stats` and `/proc`.
//!
//! Pure computation: a reading goes in, a [`Row`] comes out (gauges as read, counters as
//! read, rates and per-interval counts from the previous reading of the same node). Any field
//! a release does not report is simply absent. [`summarize`] gives the figures a run keeps
//! in its result, and [`bounds`] says what bounded the run when the data shows it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::os::ProcStats;

/// The node name of the driver's own row (this process).
pub const DRIVER: &str = "driver";

/// One reading of one node.
#[derive(Debug, Clone)]
pub struct NodeReading {
    /// The second it is filed under (from the scheduled time of the reading).
    pub second: u64,
    /// When it was read, since the telemetry origin (rates are over these).
    pub at: Duration,
    pub node: String,
    /// The node's entry of `_nodes/stats`.
    pub stats: Value,
    /// `/proc` figures of the node's processes, when they are local and known.
    pub proc: Option<ProcStats>,
}

/// One reading of the driver: cumulative CPU of this process and of the sampler's thread,
/// and the worst lateness of the driver's scheduler since the last reading.
#[derive(Debug, Clone, Copy)]
pub struct DriverReading {
    pub second: u64,
    pub at: Duration,
    pub process_cpu: Duration,
    pub sampler_cpu: Duration,
    pub lag_max: Duration,
    /// Readings that got no answer so far.
    pub missed: u64,
}

macro_rules! row {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// One sample of one node (or of the driver, node [`DRIVER`]): stored per second.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        pub struct Row {
            /// Whole seconds since the telemetry origin.
            pub second: u64,
            pub node: String,
            /// `ingest` or `query`.
            pub phase: String,
            $(
                $(#[$doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $name: Option<f64>,
            )*
        }
    };
}

row! {
    /// Seconds since the node's previous sample (rates are over this).
    dt,
    heap_used_bytes, heap_committed_bytes, heap_max_bytes,
    /// Collections and their time, as the node counts them since it started.
    young_gc_count, young_gc_ms, old_gc_count, old_gc_ms,
    /// Collections and their time within this sample's interval.
    young_gcs, young_gc_time_ms, old_gcs, old_gc_time_ms,
    /// GC time per second of wall (young + old).
    gc_ms_per_s,
    /// CPU seconds per second (1.0 = one core busy): from `/proc` when local, else `_nodes`.
    cpu_cores, cpu_user_cores, cpu_sys_cores,
    /// The host's CPU use as the node reports it, in percent.
    host_cpu_pct,
    rss_bytes, open_fds, context_switches_per_s,
    write_active, write_queue, write_rejected, write_rejections,
    search_active, search_queue, search_rejected, search_rejections,
    indexing_current, indexing_total, indexing_per_s,
    search_current, queries_per_s,
    merges_current, merges_total, merge_ms_per_s, merge_throttled_ms_per_s,
    refresh_total, refreshes_per_s, refresh_ms_per_s,
    segments, segments_memory_bytes, translog_bytes,
    breaker_tripped, breaker_trips,
    disk_read_bytes_per_s, disk_write_bytes_per_s,
    /// Share of wall the node's devices were busy, in percent (where the node reports it).
    disk_busy_pct,
    /// The driver's CPU (all its threads but the sampler's), in cores.
    driver_cpu_cores,
    /// The sampler's own CPU, in milliseconds per second.
    sampler_cpu_ms_per_s,
    /// The worst lateness of the driver's scheduler in this interval.
    schedule_lag_ms,
    /// Readings without an answer so far.
    missed,
}

/// A number of a node's stats, finite: a server (or a proxy) saying `"NaN"`, `"Infinity"` or
/// `"1e999"` says nothing (a non-finite figure would be stored as `null`, and the phase's
/// telemetry would no longer read back).
fn num(v: &Value, pointer: &str) -> Option<f64> {
    let x = v.pointer(pointer)?;
    let n = x.as_f64().or_else(|| x.as_str()?.parse().ok())?;
    n.is_finite().then_some(n)
}

/// Cumulative counters of a reading, by name: rates come from their differences.
fn counters(r: &NodeReading) -> BTreeMap<&'static str, f64> {
    let s = &r.stats;
    let mut c = BTreeMap::new();
    let mut put = |k: &'static str, v: Option<f64>| {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            c.insert(k, v);
        }
    };
    put(
        "young_gc_count",
        num(s, "/jvm/gc/collectors/young/collection_count"),
    );
    put(
        "young_gc_ms",
        num(s, "/jvm/gc/collectors/young/collection_time_in_millis"),
    );
    put(
        "old_gc_count",
        num(s, "/jvm/gc/collectors/old/collection_count"),
    );
    put(
        "old_gc_ms",
        num(s, "/jvm/gc/collectors/old/collection_time_in_millis"),
    );
    put("write_rejected", write_pool(s, "rejected"));
    put("search_rejected", num(s, "/thread_pool/search/rejected"));
    put("indexing_total", num(s, "/indices/indexing/index_total"));
    put("query_total", num(s, "/indices/search/query_total"));
    put("merges_total", num(s, "/indices/merges/total"));
    put("merge_ms", num(s, "/indices/merges/total_time_in_millis"));
    put(
        "merge_throttled_ms",
        num(s, "/indices/merges/total_throttled_time_in_millis"),
    );
    put("refresh_total", num(s, "/indices/refresh/total"));
    put(
        "refresh_ms",
        num(s, "/indices/refresh/total_time_in_millis"),
    );
    put("breaker_tripped", breakers_tripped(s));
    put("io_ms", num(s, "/fs/io_stats/total/io_time_in_millis"));
    if let Some(p) = &r.proc {
        put("cpu_user_secs", Some(p.user.as_secs_f64()));
        put("cpu_sys_secs", Some(p.sys.as_secs_f64()));
        put("read_bytes", p.read_bytes.map(|b| b as f64));
        put("write_bytes", p.write_bytes.map(|b| b as f64));
        put("context_switches", p.context_switches.map(|n| n as f64));
    } else {
        put(
            "cpu_secs",
            num(s, "/process/cpu/total_in_millis").map(|ms| ms / 1000.0),
        );
        // When the engine refreshed those process stats (see `Series::node`).
        put("process_ms", num(s, "/process/timestamp"));
        put(
            "read_bytes",
            num(s, "/fs/io_stats/total/read_kilobytes").map(|kb| kb * 1024.0),
        );
        put(
            "write_bytes",
            num(s, "/fs/io_stats/total/write_kilobytes").map(|kb| kb * 1024.0),
        );
    }
    c
}

/// The write pool: `write` since Elasticsearch 6.3, `bulk` before.
fn write_pool(s: &Value, field: &str) -> Option<f64> {
    num(s, &format!("/thread_pool/write/{field}"))
        .or_else(|| num(s, &format!("/thread_pool/bulk/{field}")))
}

fn breakers_tripped(s: &Value) -> Option<f64> {
    let breakers = s.get("breakers")?.as_object()?;
    Some(
        breakers
            .values()
            .filter_map(|b| b.get("tripped")?.as_f64())
            .sum(),
    )
}

/// Turns readings into rows, remembering each node's previous reading.
#[derive(Debug, Default)]
pub struct Series {
    previous: BTreeMap<String, (Duration, BTreeMap<&'static str, f64>)>,
    driver: Option<DriverReading>,
}

impl Series {
    pub fn new() -> Self {
        Series::default()
    }

    /// The row of a node's reading. The first reading of a node has gauges and totals only.
    pub fn node(&mut self, r: &NodeReading, phase: &str) -> Row {
        let s = &r.stats;
        let now = counters(r);
        let mut row = Row {
            second: r.second,
            node: r.node.clone(),
            phase: phase.to_string(),
            heap_used_bytes: num(s, "/jvm/mem/heap_used_in_bytes"),
            heap_committed_bytes: num(s, "/jvm/mem/heap_committed_in_bytes"),
            heap_max_bytes: num(s, "/jvm/mem/heap_max_in_bytes"),
            young_gc_count: now.get("young_gc_count").copied(),
            young_gc_ms: now.get("young_gc_ms").copied(),
            old_gc_count: now.get("old_gc_count").copied(),
            old_gc_ms: now.get("old_gc_ms").copied(),
            host_cpu_pct: num(s, "/os/cpu/percent"),
            rss_bytes: r.proc.and_then(|p| p.rss_bytes).map(|b| b as f64),
            open_fds: num(s, "/process/open_file_descriptors"),
            write_active: write_pool(s, "active"),
            write_queue: write_pool(s, "queue"),
            write_rejected: now.get("write_rejected").copied(),
            search_active: num(s, "/thread_pool/search/active"),
            search_queue: num(s, "/thread_pool/search/queue"),
            search_rejected: now.get("search_rejected").copied(),
            indexing_current: num(s, "/indices/indexing/index_current"),
            indexing_total: now.get("indexing_total").copied(),
            search_current: num(s, "/indices/search/query_current"),
            merges_current: num(s, "/indices/merges/current"),
            merges_total: now.get("merges_total").copied(),
            refresh_total: now.get("refresh_total").copied(),
            segments: num(s, "/indices/segments/count"),
            segments_memory_bytes: num(s, "/indices/segments/memory_in_bytes"),
            translog_bytes: num(s, "/indices/translog/size_in_bytes"),
            breaker_tripped: now.get("breaker_tripped").copied(),
            ..Row::default()
        };
        if let Some((at, before)) = self.previous.get(&r.node) {
            let dt = r.at.saturating_sub(*at).as_secs_f64();
            if dt > 0.0 {
                // A counter that went down (a node restarted) gives no figure.
                let delta = |k: &str| {
                    let d = now.get(k)? - before.get(k)?;
                    (d >= 0.0).then_some(d)
                };
                let rate = |k: &str| delta(k).map(|d| d / dt);
                row.dt = Some(dt);
                row.young_gcs = delta("young_gc_count");
                row.young_gc_time_ms = delta("young_gc_ms");
                row.old_gcs = delta("old_gc_count");
                row.old_gc_time_ms = delta("old_gc_ms");
                row.gc_ms_per_s = match (rate("young_gc_ms"), rate("old_gc_ms")) {
                    (None, None) => None,
                    (y, o) => Some(y.unwrap_or(0.0) + o.unwrap_or(0.0)),
                };
                row.cpu_user_cores = rate("cpu_user_secs");
                row.cpu_sys_cores = rate("cpu_sys_secs");
                // The engine caches its process stats for a second and answers from the
                // cache in between: over our clock, one interval would hold two refreshes
                // and the next none (peaks of twice the real CPU). Over the engine's own
                // timestamp, an interval with no refresh has no figure.
                let engine_rate = |k: &str, clock: &str| match (now.get(clock), before.get(clock)) {
                    (Some(t1), Some(t0)) if t1 > t0 => delta(k).map(|d| d / ((t1 - t0) / 1000.0)),
                    (Some(_), Some(_)) => None,
                    _ => rate(k),
                };
                row.cpu_cores = match (row.cpu_user_cores, row.cpu_sys_cores) {
                    (Some(u), Some(s)) => Some(u + s),
                    _ => engine_rate("cpu_secs", "process_ms"),
                };
                row.context_switches_per_s = rate("context_switches");
                row.write_rejections = delta("write_rejected");
                row.search_rejections = delta("search_rejected");
                row.indexing_per_s = rate("indexing_total");
                row.queries_per_s = rate("query_total");
                row.merge_ms_per_s = rate("merge_ms");
                row.merge_throttled_ms_per_s = rate("merge_throttled_ms");
                row.refreshes_per_s = rate("refresh_total");
                row.refresh_ms_per_s = rate("refresh_ms");
                row.breaker_trips = delta("breaker_tripped");
                row.disk_read_bytes_per_s = rate("read_bytes");
                row.disk_write_bytes_per_s = rate("write_bytes");
                row.disk_busy_pct = rate("io_ms").map(|ms| (ms / 10.0).min(100.0));
            }
        }
        self.previous.insert(r.node.clone(), (r.at, now));
        row
    }

    /// The driver's row: its CPU without the sampler's, the sampler's, the scheduler's lag.
    pub fn driver(&mut self, r: DriverReading, phase: &str) -> Row {
        let mut row = Row {
            second: r.second,
            node: DRIVER.to_string(),
            phase: phase.to_string(),
            schedule_lag_ms: Some(r.lag_max.as_secs_f64() * 1000.0),
            missed: Some(r.missed as f64),
            ..Row::default()
        };
        if let Some(before) = self.driver {
            let dt = r.at.saturating_sub(before.at).as_secs_f64();
            if dt > 0.0 {
                let process = r.process_cpu.saturating_sub(before.process_cpu);
                let sampler = r.sampler_cpu.saturating_sub(before.sampler_cpu);
                row.dt = Some(dt);
                row.driver_cpu_cores = Some(process.saturating_sub(sampler).as_secs_f64() / dt);
                row.sampler_cpu_ms_per_s = Some(sampler.as_secs_f64() * 1000.0 / dt);
            }
        }
        self.driver = Some(r);
        row
    }
}

/// Per-second values a comparison can put an interval on (summed over the nodes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PerSecond {
    pub gc_ms: Vec<f64>,
    pub heap_used_mb: Vec<f64>,
}

/// What a phase's telemetry comes to: kept in the result, shown after the run, compared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    pub interval_secs: f64,
    /// Readings that got an answer, and readings that got none (timeout, error).
    pub samples: u64,
    pub missed: u64,
    pub nodes: usize,
    /// From the first to the last reading.
    pub span_secs: f64,
    /// Where the load's second 0 lies on the telemetry clock (the throughput timeline
    /// starts there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline_offset_secs: Option<f64>,
    pub cores: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_secs: Option<f64>,
    /// GC time ÷ wall on the node where it was highest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_share_node: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub young_gcs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_gcs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_gc_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_peak_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_max_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_write_queue: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_rejections: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_search_queue: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_rejections: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_throttled_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breaker_trips: Option<f64>,
    /// The engine's CPU in cores (all nodes together): mean and busiest second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cpu_cores_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cpu_cores_peak: Option<f64>,
    /// The cores the engine's processes may use (affinity, cgroup quota), when they are ours
    /// to read; a remote engine's are unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cpu_limit: Option<crate::measure::cpu_limit::CpuLimit>,
    /// Why the peak is above that limit, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cpu_peak_note: Option<String>,
    /// The host's CPU use as the nodes report it (everything on the machine), in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu_pct_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_read_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_write_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_busy_pct_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_cpu_cores_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms_max: Option<f64>,
    /// The sampler's own CPU, in milliseconds per second of wall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_cpu_ms_per_s: Option<f64>,
    pub per_second: PerSecond,
    /// What bounded the phase, when the data shows it (see [`bounds`]).
    pub bounds: Vec<String>,
}

/// What [`summarize`] needs besides the rows.
#[derive(Debug, Clone)]
pub struct Context {
    pub interval: Duration,
    pub samples: u64,
    pub missed: u64,
    /// The driver's machine.
    pub cores: usize,
    /// The cores the engine may use, when known.
    pub engine_cpu_limit: Option<crate::measure::cpu_limit::CpuLimit>,
    pub timeline_offset: Option<Duration>,
}

fn max_of(xs: impl Iterator<Item = f64>) -> Option<f64> {
    xs.fold(None, |m, x| Some(m.map_or(x, |m: f64| m.max(x))))
}

fn sum_of(xs: impl Iterator<Item = f64>) -> Option<f64> {
    xs.fold(None, |s, x| Some(s.unwrap_or(0.0) + x))
}

fn mean_of(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = xs.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| sum / n as f64)
}

/// The figures of a phase from its rows (node rows and driver rows).
pub fn summarize(rows: &[Row], ctx: Context) -> Summary {
    let nodes: Vec<&Row> = rows.iter().filter(|r| r.node != DRIVER).collect();
    let driver: Vec<&Row> = rows.iter().filter(|r| r.node == DRIVER).collect();
    let names: std::collections::BTreeSet<&str> = nodes.iter().map(|r| r.node.as_str()).collect();
    let span = match (
        rows.iter().map(|r| r.second).min(),
        rows.iter().map(|r| r.second).max(),
    ) {
        (Some(a), Some(b)) => (b - a) as f64,
        _ => 0.0,
    };
    // Per-interval figures summed over rows: a total over the phase.
    let total = |f: fn(&Row) -> Option<f64>| sum_of(nodes.iter().filter_map(|r| f(r)));
    let over_time =
        |rate: fn(&Row) -> Option<f64>| sum_of(nodes.iter().filter_map(|r| Some(rate(r)? * r.dt?)));
    // GC time per node, for the worst node's share of wall.
    let mut gc_by_node: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for r in &nodes {
        if let (Some(gc), Some(dt)) = (r.gc_ms_per_s, r.dt) {
            let e = gc_by_node.entry(r.node.as_str()).or_default();
            e.0 += gc * dt / 1000.0;
            e.1 += dt;
        }
    }
    let worst = gc_by_node
        .iter()
        .filter(|(_, (_, wall))| *wall > 0.0)
        .map(|(n, (gc, wall))| (*n, gc / wall))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    // Per second, all nodes together.
    /// One second, all nodes together: GC ms/s, heap MB, CPU cores.
    #[derive(Default)]
    struct Second {
        gc: Option<f64>,
        heap: Option<f64>,
        cpu: Option<f64>,
        /// The shortest reading behind `cpu`.
        cpu_dt: Option<f64>,
    }
    let mut by_second: BTreeMap<u64, Second> = BTreeMap::new();
    for r in &nodes {
        let e = by_second.entry(r.second).or_default();
        let add = |slot: &mut Option<f64>, v: Option<f64>| {
            if let Some(v) = v {
                *slot = Some(slot.unwrap_or(0.0) + v);
            }
        };
        add(&mut e.gc, r.gc_ms_per_s);
        add(&mut e.heap, r.heap_used_bytes.map(|b| b / 1e6));
        add(&mut e.cpu, r.cpu_cores);
        if r.cpu_cores.is_some() {
            e.cpu_dt = r.dt.map(|dt| e.cpu_dt.map_or(dt, |m: f64| m.min(dt)));
        }
    }
    let peak = by_second
        .values()
        .filter_map(|s| Some((s.cpu?, s.cpu_dt)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let peak_note = match (&ctx.engine_cpu_limit, peak) {
        (Some(limit), Some((cores, dt))) if cores > limit.cores * (1.0 + CPU_READING_ERROR) => {
            Some(format!(
                "the {cores:.2} peak is above the {} cores the engine may use ({}): one reading \
                 {}, whose start and end are each off by the sampler's wake-up",
                trim(limit.cores),
                limit.source,
                dt.map_or("of unknown length".into(), |dt| format!("over {dt:.2} s"))
            ))
        }
        _ => None,
    };
    let mut summary = Summary {
        interval_secs: ctx.interval.as_secs_f64(),
        samples: ctx.samples,
        missed: ctx.missed,
        nodes: names.len(),
        span_secs: span,
        timeline_offset_secs: ctx.timeline_offset.map(|d| d.as_secs_f64()),
        cores: ctx.cores,
        gc_secs: over_time(|r| r.gc_ms_per_s).map(|ms| ms / 1000.0),
        gc_share: worst.map(|w| w.1),
        gc_share_node: worst.filter(|_| names.len() > 1).map(|w| w.0.to_string()),
        young_gcs: total(|r| r.young_gcs),
        old_gcs: total(|r| r.old_gcs),
        old_gc_secs: total(|r| r.old_gc_time_ms).map(|ms| ms / 1000.0),
        heap_peak_bytes: max_of(nodes.iter().filter_map(|r| r.heap_used_bytes)),
        heap_max_bytes: max_of(nodes.iter().filter_map(|r| r.heap_max_bytes)),
        max_write_queue: max_of(nodes.iter().filter_map(|r| r.write_queue)),
        write_rejections: total(|r| r.write_rejections),
        max_search_queue: max_of(nodes.iter().filter_map(|r| r.search_queue)),
        search_rejections: total(|r| r.search_rejections),
        merge_secs: over_time(|r| r.merge_ms_per_s).map(|ms| ms / 1000.0),
        merge_throttled_secs: over_time(|r| r.merge_throttled_ms_per_s).map(|ms| ms / 1000.0),
        breaker_trips: total(|r| r.breaker_trips),
        engine_cpu_cores_mean: mean_of(by_second.values().filter_map(|s| s.cpu)),
        engine_cpu_cores_peak: peak.map(|p| p.0),
        engine_cpu_limit: ctx.engine_cpu_limit.clone(),
        engine_cpu_peak_note: peak_note,
        host_cpu_pct_mean: mean_of(nodes.iter().filter_map(|r| r.host_cpu_pct)),
        disk_read_bytes: over_time(|r| r.disk_read_bytes_per_s),
        disk_write_bytes: over_time(|r| r.disk_write_bytes_per_s),
        disk_busy_pct_mean: mean_of(nodes.iter().filter_map(|r| r.disk_busy_pct)),
        driver_cpu_cores_mean: mean_of(driver.iter().filter_map(|r| r.driver_cpu_cores)),
        schedule_lag_ms_max: max_of(driver.iter().filter_map(|r| r.schedule_lag_ms)),
        sampler_cpu_ms_per_s: mean_of(driver.iter().filter_map(|r| r.sampler_cpu_ms_per_s)),
        per_second: PerSecond {
            gc_ms: by_second.values().filter_map(|s| s.gc).collect(),
            heap_used_mb: (by_second.values().filter_map(|s| s.heap))
                .filter(|h| h.is_finite())
                .collect(),
        },
        bounds: Vec::new(),
    };
    summary.bounds = bounds(&summary);
    summary
}

/// A reading of the engine's CPU may be this far above its limit before it needs a word: the
/// two ends of a ~1 s reading are each late by up to a few milliseconds.
pub const CPU_READING_ERROR: f64 = 0.05;

/// `2` for 2.0, `1.5` for 1.5.
pub fn trim(cores: f64) -> String {
    if cores.fract() == 0.0 {
        format!("{cores:.0}")
    } else {
        format!("{cores:.2}")
    }
}

/// Above this share of the machine's cores, the CPU counts as full.
pub const CPU_FULL: f64 = 0.85;
/// Above this share of wall in GC, GC counts as a bound.
pub const GC_HEAVY: f64 = 0.10;
/// Above this share of wall, a disk counts as busy.
pub const DISK_BUSY_PCT: f64 = 80.0;
/// A scheduler late by more than this could not send on time.
pub const LAG_SLOW_MS: f64 = 250.0;

/// What bounded a phase, when its telemetry shows it: one short line per reason, the most
/// telling first; none when nothing stands out.
pub fn bounds(s: &Summary) -> Vec<String> {
    let mut out = Vec::new();
    let cores = s.cores.max(1) as f64;
    let engine = s.engine_cpu_cores_mean.unwrap_or(0.0);
    let driver = s.driver_cpu_cores_mean.unwrap_or(0.0);
    if let Some(limit) = s
        .engine_cpu_limit
        .as_ref()
        .filter(|l| s.engine_cpu_cores_mean.is_some() && engine >= CPU_FULL * l.cores)
    {
        out.push(format!(
            "engine CPU at its limit: {engine:.1} of the {} cores it may use on average ({})",
            trim(limit.cores),
            limit.source
        ));
    } else if s.engine_cpu_cores_mean.is_some() && engine >= CPU_FULL * cores {
        out.push(format!(
            "engine CPU at the machine's limit: {engine:.1} of {} cores on average",
            s.cores
        ));
    } else if s.engine_cpu_cores_mean.is_some() && engine + driver >= CPU_FULL * cores {
        out.push(format!(
            "the machine's CPU is full: engine {engine:.1} + driver {driver:.1} of {} cores on average (they share it)",
            s.cores
        ));
    } else if let Some(host) = s.host_cpu_pct_mean.filter(|h| *h >= CPU_FULL * 100.0) {
        out.push(format!(
            "the machine's CPU is busy with other work: host at {host:.0} % on average, \
             engine {engine:.1} + driver {driver:.1} of {} cores",
            s.cores
        ));
    }
    let rejections = s.write_rejections.unwrap_or(0.0) + s.search_rejections.unwrap_or(0.0);
    if rejections > 0.0 {
        out.push(format!(
            "thread pool queue full: {rejections:.0} rejection(s) (write queue up to {:.0})",
            s.max_write_queue.unwrap_or(0.0)
        ));
    }
    if let Some(share) = s.gc_share.filter(|g| *g >= GC_HEAVY) {
        let on = s
            .gc_share_node
            .as_deref()
            .map(|n| format!(" on {n}"))
            .unwrap_or_default();
        out.push(format!(
            "GC took {:.0} % of wall{on} ({:.0} old-generation collection(s))",
            share * 100.0,
            s.old_gcs.unwrap_or(0.0)
        ));
    }
    if let Some(busy) = s.disk_busy_pct_mean.filter(|b| *b >= DISK_BUSY_PCT) {
        out.push(format!("disk busy: {busy:.0} % of wall on average"));
    }
    if s.breaker_trips.unwrap_or(0.0) > 0.0 {
        out.push(format!(
            "circuit breakers tripped {:.0} time(s)",
            s.breaker_trips.unwrap_or(0.0)
        ));
    }
    if s.span_secs > 0.0 {
        if let Some(t) = s
            .merge_throttled_secs
            .filter(|t| *t >= 0.25 * s.span_secs * s.nodes.max(1) as f64)
        {
            out.push(format!("merges throttled for {t:.0} s"));
        }
    }
    if s.driver_cpu_cores_mean.is_some() && driver >= 0.5 * cores {
        out.push(format!(
            "the driver itself: {driver:.1} of {} cores on average",
            s.cores
        ));
    } else if let Some(lag) = s.schedule_lag_ms_max.filter(|l| *l >= LAG_SLOW_MS) {
        out.push(format!(
            "the driver itself: its scheduler ran up to {lag:.0} ms late"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reading(at: u64, node: &str, young_ms: u64, rejected: u64, cpu_ms: u64) -> NodeReading {
        NodeReading {
            second: at,
            at: Duration::from_secs(at),
            node: node.into(),
            stats: json!({
                "jvm": {"mem": {"heap_used_in_bytes": 100_000_000 + at * 1_000_000,
                                "heap_committed_in_bytes": 512_000_000u64,
                                "heap_max_in_bytes": 512_000_000u64},
                        "gc": {"collectors": {
                            "young": {"collection_count": at * 2, "collection_time_in_millis": young_ms},
                            "old": {"collection_count": 0, "collection_time_in_millis": 0}}}},
                "process": {"cpu": {"total_in_millis": cpu_ms}},
                "thread_pool": {"write": {"active": 2, "queue": at, "rejected": rejected},
                                "search": {"active": 0, "queue": 0, "rejected": 0}},
                "indices": {"indexing": {"index_total": at * 1000, "index_current": 3},
                            "merges": {"current": 1, "total": at, "total_time_in_millis": at * 100,
                                       "total_throttled_time_in_millis": 0},
                            "segments": {"count": 20, "memory_in_bytes": 1000},
                            "translog": {"size_in_bytes": 55}},
                "breakers": {"request": {"tripped": 0}, "parent": {"tripped": 1}},
            }),
            proc: None,
        }
    }

    #[test]
    fn rates_come_from_the_previous_reading_of_the_same_node() {
        let mut s = Series::new();
        let first = s.node(&reading(0, "n1", 0, 0, 0), "ingest");
        assert_eq!(first.heap_used_bytes, Some(100e6));
        assert_eq!(
            first.gc_ms_per_s, None,
            "no rate without a previous reading"
        );
        assert_eq!(first.breaker_tripped, Some(1.0));
        let other = s.node(&reading(1, "n2", 500, 0, 0), "ingest");
        assert_eq!(
            other.gc_ms_per_s, None,
            "another node is not a previous reading"
        );
        let second = s.node(&reading(2, "n1", 300, 4, 3000), "ingest");
        assert_eq!(second.dt, Some(2.0));
        assert_eq!(second.gc_ms_per_s, Some(150.0));
        assert_eq!(second.young_gcs, Some(4.0));
        assert_eq!(second.write_rejections, Some(4.0));
        assert_eq!(second.cpu_cores, Some(1.5));
        assert_eq!(second.indexing_per_s, Some(1000.0));
        assert_eq!(second.write_queue, Some(2.0));
        assert_eq!(second.segments, Some(20.0));
        // A restarted node (counters back to zero) gives no negative rate.
        let restarted = s.node(&reading(3, "n1", 10, 0, 0), "ingest");
        assert_eq!(restarted.young_gc_time_ms, None);
        assert_eq!(restarted.write_rejections, None);
    }

    #[test]
    fn missing_fields_give_missing_figures_and_bulk_is_the_old_write_pool() {
        let mut s = Series::new();
        let old = |at| NodeReading {
            second: at,
            at: Duration::from_secs(at),
            node: "es5".into(),
            stats: json!({"thread_pool": {"bulk": {"queue": 7, "rejected": at}}, "jvm": "odd"}),
            proc: None,
        };
        s.node(&old(1), "ingest");
        let row = s.node(&old(2), "ingest");
        assert_eq!(row.write_queue, Some(7.0));
        assert_eq!(row.write_rejections, Some(1.0));
        assert_eq!(row.heap_used_bytes, None);
        assert_eq!(row.gc_ms_per_s, None);
        let json = serde_json::to_value(&row).unwrap();
        assert!(json.get("heap_used_bytes").is_none(), "absent, not null");
    }

    /// A node saying `"NaN"`, `"Infinity"` or `"1e999"` for a figure says nothing: the
    /// figure is missing, never a non-finite number stored as `null`.
    #[test]
    fn a_figure_that_is_no_finite_number_is_missing() {
        let mut s = Series::new();
        for said in ["NaN", "Infinity", "1e999", "-inf"] {
            let mut r = reading(1, "n1", 0, 0, 0);
            r.stats["jvm"]["mem"]["heap_used_in_bytes"] = json!(said);
            let row = s.node(&r, "ingest");
            assert_eq!(row.heap_used_bytes, None, "{said}");
        }
    }

    #[test]
    fn proc_figures_win_over_the_nodes_own_cpu() {
        let mut s = Series::new();
        let at = |secs, user, rss| NodeReading {
            second: secs,
            at: Duration::from_secs(secs),
            node: "n".into(),
            stats: json!({"process": {"cpu": {"total_in_millis": 999_999}}}),
            proc: Some(ProcStats {
                user: Duration::from_secs(user),
                sys: Duration::from_millis(500 * secs),
                rss_bytes: Some(rss),
                read_bytes: Some(0),
                write_bytes: Some(secs * 1_000_000),
                context_switches: Some(secs * 10),
            }),
        };
        s.node(&at(1, 1, 10), "ingest");
        let row = s.node(&at(2, 2, 20), "ingest");
        assert_eq!(row.cpu_user_cores, Some(1.0));
        assert_eq!(row.cpu_sys_cores, Some(0.5));
        assert_eq!(row.cpu_cores, Some(1.5));
        assert_eq!(row.rss_bytes, Some(20.0));
        assert_eq!(row.disk_write_bytes_per_s, Some(1e6));
        assert_eq!(row.context_switches_per_s, Some(10.0));
    }

    #[test]
    fn the_driver_row_keeps_the_sampler_apart() {
        let mut s = Series::new();
        let r = |at, cpu_ms, sampler_ms| DriverReading {
            second: at,
            at: Duration::from_secs(at),
            process_cpu: Duration::from_millis(cpu_ms),
            sampler_cpu: Duration::from_millis(sampler_ms),
            lag_max: Duration::from_millis(3),
            missed: 0,
        };
        s.driver(r(0, 0, 0), "ingest");
        let row = s.driver(r(1, 800, 2), "ingest");
        assert_eq!(row.node, DRIVER);
        assert!((row.driver_cpu_cores.unwrap() - 0.798).abs() < 1e-9);
        assert!((row.sampler_cpu_ms_per_s.unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(row.schedule_lag_ms, Some(3.0));
    }

    fn ctx() -> Context {
        Context {
            interval: Duration::from_secs(1),
            samples: 3,
            missed: 1,
            cores: 2,
            engine_cpu_limit: None,
            timeline_offset: Some(Duration::from_millis(250)),
        }
    }

    #[test]
    fn the_engines_cached_cpu_is_rated_over_the_engines_own_clock() {
        // An engine at 1.9 cores whose stats refresh every ~1 s and are read from its cache
        // in between: our readings 1 s apart see the refresh of 2 s, then none.
        let mut s = Series::new();
        let reading = |at: u64, stamp_ms: u64, cpu_ms: u64| NodeReading {
            second: at,
            at: Duration::from_secs(at),
            node: "n".into(),
            stats: json!({"process": {"timestamp": stamp_ms, "cpu": {"total_in_millis": cpu_ms}}}),
            proc: None,
        };
        s.node(&reading(1, 10_000, 0), "ingest");
        let stale = s.node(&reading(2, 10_000, 0), "ingest");
        let fresh = s.node(&reading(3, 12_000, 3_800), "ingest");
        // Was: 0 then 3.8 cores, a peak of twice the real figure.
        assert_eq!(stale.cpu_cores, None, "no refresh, no figure");
        assert_eq!(fresh.cpu_cores, Some(1.9));
    }

    #[test]
    fn a_peak_above_the_engines_limit_is_said_with_why() {
        let row = |second: u64, cpu: f64, dt: f64| Row {
            second,
            node: "n".into(),
            cpu_cores: Some(cpu),
            dt: Some(dt),
            ..Row::default()
        };
        let limit = crate::measure::cpu_limit::CpuLimit {
            cores: 2.0,
            source: "affinity 0-1".into(),
        };
        let with_limit = Context {
            engine_cpu_limit: Some(limit.clone()),
            ..ctx()
        };
        let within = summarize(&[row(1, 1.9, 1.0), row(2, 2.05, 1.0)], with_limit.clone());
        assert_eq!(within.engine_cpu_peak_note, None);
        assert_eq!(within.engine_cpu_limit, Some(limit));
        let above = summarize(&[row(1, 1.9, 1.0), row(2, 2.4, 0.61)], with_limit);
        let note = above.engine_cpu_peak_note.expect("a note");
        assert!(
            note.contains("2.40 peak is above the 2 cores") && note.contains("over 0.61 s"),
            "{note}"
        );
        // Without a known limit nothing is claimed.
        assert_eq!(
            summarize(&[row(2, 2.4, 0.61)], ctx()).engine_cpu_peak_note,
            None
        );
    }

    #[test]
    fn a_summary_adds_the_nodes_and_finds_the_worst() {
        let mut s = Series::new();
        let mut rows = Vec::new();
        for at in 0..=2 {
            rows.push(s.node(&reading(at, "a", at * 100, at, at * 500), "ingest"));
            rows.push(s.node(&reading(at, "b", at * 300, 0, at * 500), "ingest"));
        }
        let sum = summarize(&rows, ctx());
        assert_eq!(sum.nodes, 2);
        assert_eq!(sum.span_secs, 2.0);
        assert!((sum.gc_secs.unwrap() - 0.8).abs() < 1e-9);
        assert!((sum.gc_share.unwrap() - 0.3).abs() < 1e-9);
        assert_eq!(sum.gc_share_node.as_deref(), Some("b"));
        assert_eq!(sum.write_rejections, Some(2.0));
        assert_eq!(sum.max_write_queue, Some(2.0));
        assert_eq!(sum.heap_peak_bytes, Some(102e6));
        assert_eq!(sum.engine_cpu_cores_mean, Some(1.0));
        assert_eq!(sum.per_second.gc_ms, vec![400.0, 400.0]);
        assert_eq!(sum.per_second.heap_used_mb.len(), 3);
        assert_eq!(sum.timeline_offset_secs, Some(0.25));
        assert!(
            sum.bounds.iter().any(|b| b.contains("rejection")),
            "{:?}",
            sum.bounds
        );
        assert!(sum
            .bounds
            .iter()
            .any(|b| b.contains("GC took 30 % of wall on b")));
        // Survives the result JSON both ways.
        let back: Summary = serde_json::from_value(serde_json::to_value(&sum).unwrap()).unwrap();
        assert_eq!(back, sum);
    }

    #[test]
    fn bounds_name_what_the_data_shows_and_nothing_else() {
        let quiet = Summary {
            cores: 4,
            span_secs: 60.0,
            nodes: 1,
            engine_cpu_cores_mean: Some(1.0),
            driver_cpu_cores_mean: Some(0.3),
            gc_share: Some(0.02),
            write_rejections: Some(0.0),
            schedule_lag_ms_max: Some(5.0),
            ..Summary::default()
        };
        assert!(bounds(&quiet).is_empty(), "{:?}", bounds(&quiet));
        let cpu = Summary {
            engine_cpu_cores_mean: Some(3.6),
            ..quiet.clone()
        };
        assert_eq!(
            bounds(&cpu),
            vec!["engine CPU at the machine's limit: 3.6 of 4 cores on average"]
        );
        let shared = Summary {
            engine_cpu_cores_mean: Some(2.5),
            driver_cpu_cores_mean: Some(1.0),
            ..quiet.clone()
        };
        assert!(bounds(&shared)[0].starts_with("the machine's CPU is full"));
        let others = Summary {
            host_cpu_pct_mean: Some(97.0),
            ..quiet.clone()
        };
        assert_eq!(
            bounds(&others),
            vec!["the machine's CPU is busy with other work: host at 97 % on average, engine 1.0 + driver 0.3 of 4 cores"]
        );
        let gc = Summary {
            gc_share: Some(0.25),
            old_gcs: Some(3.0),
            ..quiet.clone()
        };
        assert_eq!(
            bounds(&gc),
            vec!["GC took 25 % of wall (3 old-generation collection(s))"]
        );
        let disk = Summary {
            disk_busy_pct_mean: Some(93.0),
            ..quiet.clone()
        };
        assert_eq!(bounds(&disk), vec!["disk busy: 93 % of wall on average"]);
        let driver = Summary {
            driver_cpu_cores_mean: Some(2.2),
            ..quiet.clone()
        };
        assert!(bounds(&driver)[0].starts_with("the driver itself: 2.2 of 4 cores"));
        let lag = Summary {
            schedule_lag_ms_max: Some(400.0),
            ..quiet.clone()
        };
        assert!(bounds(&lag)[0].contains("up to 400 ms late"));
        let throttled = Summary {
            merge_throttled_secs: Some(20.0),
            breaker_trips: Some(2.0),
            ..quiet
        };
        assert_eq!(
            bounds(&throttled),
            vec![
                "circuit breakers tripped 2 time(s)".to_string(),
                "merges throttled for 20 s".to_string()
            ]
        );
    }
}
