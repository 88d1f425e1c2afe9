//! Where the wall time of an ingest went: driver, network + queueing, server indexing, the
//! rest of the server's in-request work, and background refresh/merge/flush.
//!
//! # How the rows are normalised (read this before quoting a number)
//!
//! With `C` clients the driver has a budget of `wall × C` client-seconds: at every instant each
//! client either has a bulk request in flight or not. We split that budget and then divide
//! every row by `C`, so the rows are "seconds of wall time for the average client" and add up
//! to the wall time:
//!
//! * **driver: client idle** = `wall − Σservice / C`: a client had nothing in flight. It was
//!   waiting for the batcher (generating/reading documents, writing action lines), doing its
//!   own bookkeeping, or sleeping in a retry backoff. With one client this is the classic
//!   "client time"; with many clients, a large value means the batcher cannot feed them.
//! * **network + queueing** = `(Σservice − Σtook) / C`: in flight but not inside the server's
//!   `took`: body transfer, HTTP parsing, waiting in the server's queues before `took` starts,
//!   the response's way back, and our runtime's scheduling delay.
//! * **server: indexing** = `min(Σindex_time, Σtook) / C`: the `_stats`
//!   `indexing.index_time_in_millis` delta. On a one-shard index a bulk request runs on one
//!   write thread so this is a part of `took`; on many shards the shard requests run in
//!   parallel and the sum can exceed `took`, so it is clamped (and `clamped` is set).
//! * **server: other in-request** = `(Σtook − indexing) / C`: parsing the body, translog
//!   writes and fsync (`request` durability), building the response.
//!
//! Refresh, merge and flush mostly run on background threads, concurrently with the above;
//! they are not part of the budget. They are reported as server thread-seconds and as a share
//! of the wall time (shares can overlap each other and the budget rows). The driver's own CPU
//! (getrusage, all threads) and the engine's (when we started it) are reported next to them,
//! as seconds and as a share of the machine (`cpu / (wall × cores)`).

use std::time::Duration;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::cluster::IndexStats;

#[derive(Debug, Clone)]
pub struct AttributionInput {
    pub wall: Duration,
    pub clients: usize,
    /// Σ service time of all attempts.
    pub service_sum: Duration,
    /// Σ server `took`.
    pub took_sum: Duration,
    pub stats: IndexStats,
    pub driver_cpu: Duration,
    pub engine_cpu: Option<Duration>,
    pub cores: usize,
}

/// Read back by `analysis::metrics` (its words owned then, hence `Cow`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Segment {
    pub name: Cow<'static, str>,
    pub secs: f64,
    /// Share of the wall time (budget rows add up to 1.0).
    pub share: f64,
    pub what: Cow<'static, str>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Attribution {
    pub wall_secs: f64,
    pub clients: usize,
    pub normalisation: Cow<'static, str>,
    /// Rows that add up to the wall time.
    pub budget: Vec<Segment>,
    /// Server background work, thread-seconds; overlaps the budget rows.
    pub background: Vec<Segment>,
    /// CPU time of the driver and of the engine; `share` is of the whole machine.
    pub cpu: Vec<Segment>,
    /// The index time exceeded took and was clamped.
    pub clamped: bool,
}

pub const NORMALISATION: &str = "budget = wall x clients client-seconds, each row divided by clients; background rows are server thread-seconds as a share of wall; cpu rows are a share of wall x cores";

impl Attribution {
    pub fn compute(i: &AttributionInput) -> Attribution {
        let wall = i.wall.as_secs_f64().max(1e-9);
        let c = i.clients.max(1) as f64;
        let service = i.service_sum.as_secs_f64();
        let took = i.took_sum.as_secs_f64().min(service);
        let index_time = i.stats.index_time_ms as f64 / 1000.0;
        let clamped = index_time > took;
        let indexing = index_time.min(took);
        let idle = (wall - service / c).max(0.0);
        let network = (service - took) / c;
        let server_other = (took - indexing) / c;
        let row = |name: &'static str, secs: f64, what: &'static str| Segment {
            name: name.into(),
            secs,
            share: secs / wall,
            what: what.into(),
        };
        let budget = vec![
            row("driver: client idle", idle, "no request in flight: waiting for the batcher (generate/read, action lines), bookkeeping, retry backoff"),
            row("network + queueing", network, "service time minus took: transfer, HTTP, server queues before took starts, our scheduling"),
            row("server: indexing", indexing / c, "_stats indexing.index_time delta: analysis, postings, doc values, points"),
            row("server: other in-request", server_other, "took minus indexing: body parsing, translog write/fsync, response"),
        ];
        let ms = |v: u64| v as f64 / 1000.0;
        let background = vec![
            row(
                "server: refresh",
                ms(i.stats.refresh_time_ms),
                "refresh thread-seconds (background, overlaps)",
            ),
            row(
                "server: merge",
                ms(i.stats.merge_time_ms),
                "merge thread-seconds (background, overlaps)",
            ),
            row(
                "server: flush",
                ms(i.stats.flush_time_ms),
                "flush thread-seconds (background, overlaps)",
            ),
        ];
        let machine = wall * i.cores.max(1) as f64;
        let mut cpu = vec![Segment {
            name: "driver CPU".into(),
            secs: i.driver_cpu.as_secs_f64(),
            share: i.driver_cpu.as_secs_f64() / machine,
            what: "searchbench's own CPU, all threads (getrusage), share of wall x cores".into(),
        }];
        if let Some(e) = i.engine_cpu {
            cpu.push(Segment {
                name: "engine CPU".into(),
                secs: e.as_secs_f64(),
                // Read around setup and refresh too, divided by the load's wall: capped at the
                // whole machine rather than shown as more of it than exists.
                share: (e.as_secs_f64() / machine).min(1.0),
                what: "the node's process CPU (/proc), share of wall x cores (read around setup and refresh too; capped at 100 %)".into(),
            });
        }
        Attribution {
            wall_secs: wall,
            clients: i.clients.max(1),
            normalisation: NORMALISATION.into(),
            budget,
            background,
            cpu,
            clamped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_rows_add_up_to_wall() {
        let a = Attribution::compute(&AttributionInput {
            wall: Duration::from_secs(10),
            clients: 2,
            service_sum: Duration::from_secs(16),
            took_sum: Duration::from_secs(12),
            stats: IndexStats {
                index_time_ms: 9000,
                refresh_time_ms: 500,
                ..Default::default()
            },
            driver_cpu: Duration::from_secs(1),
            engine_cpu: Some(Duration::from_secs(15)),
            cores: 2,
        });
        let total: f64 = a.budget.iter().map(|s| s.secs).sum();
        assert!((total - 10.0).abs() < 1e-9, "{total}");
        assert!((a.budget[0].secs - 2.0).abs() < 1e-9);
        assert!((a.budget[1].secs - 2.0).abs() < 1e-9);
        assert!((a.budget[2].secs - 4.5).abs() < 1e-9);
        assert!((a.budget[3].secs - 1.5).abs() < 1e-9);
        assert!((a.cpu[0].share - 0.05).abs() < 1e-9);
        assert!(!a.clamped);
    }

    #[test]
    fn index_time_beyond_took_is_clamped() {
        let a = Attribution::compute(&AttributionInput {
            wall: Duration::from_secs(1),
            clients: 1,
            service_sum: Duration::from_millis(900),
            took_sum: Duration::from_millis(500),
            stats: IndexStats {
                index_time_ms: 800,
                ..Default::default()
            },
            driver_cpu: Duration::ZERO,
            engine_cpu: None,
            cores: 2,
        });
        assert!(a.clamped);
        assert!((a.budget[2].secs - 0.5).abs() < 1e-9);
        assert!(a.budget[3].secs.abs() < 1e-9);
    }
}
