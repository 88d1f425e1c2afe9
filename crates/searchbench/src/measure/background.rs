//! What else the machine did while a load ran, so that a comparison can see noise instead of
//! guessing at it: the CPU the machine spent beyond the driver and the engine (other
//! processes, a co-tenant), the hypervisor's steal, CPU pressure (the share of the time some
//! task waited for a core, Linux's pressure stall information) and the load average.
//!
//! Read from `/proc/stat`, `/proc/pressure/cpu` and `/proc/loadavg` at the start and the end
//! of the load; a figure the kernel does not give is left out, never guessed.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The machine's counters at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    at: Instant,
    ticks: Option<Ticks>,
    /// `/proc/pressure/cpu`'s `some total=` (microseconds some task waited for a CPU).
    pressure_us: Option<u64>,
}

/// The aggregate `cpu` line of `/proc/stat` (every CPU together), in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ticks {
    busy: u64,
    steal: u64,
    total: u64,
}

/// The machine while a load ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Background {
    /// Percent of the machine's CPUs (all of them, as `/proc/stat` counts) busy.
    pub machine_busy_pct: f64,
    /// Percent of the machine's CPUs busy with anything but the driver and the engine's
    /// nodes: other processes. Only when the engine's CPU was measured (a node on this
    /// machine); a remote engine's would be the driver's host alone, and is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_cpu_pct: Option<f64>,
    /// Percent of the machine's CPU time the hypervisor gave to other guests.
    pub steal_pct: f64,
    /// Percent of the wall time some task waited for a CPU (PSI `some`), where the kernel
    /// has pressure stall information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pressure_pct: Option<f64>,
    /// The one-minute load average at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_1m: Option<f64>,
}

/// The machine, this process's CPU and the engine's local nodes' CPU, read as a phase starts.
pub struct Around {
    machine: Snapshot,
    engine: Option<Duration>,
    driver: Duration,
}

/// What was spent from [`Around::start`] to [`Around::stop`].
pub struct Spent {
    /// This process's CPU: the driver's.
    pub driver_cpu: Duration,
    /// The engine's nodes' CPU, when their processes are known and readable.
    pub engine_cpu: Option<Duration>,
    /// What else the machine did meanwhile.
    pub background: Option<Background>,
}

impl Around {
    pub fn start(engine_pids: &[u32]) -> Around {
        Around {
            engine: crate::os::groups_cpu_time(engine_pids),
            driver: crate::os::self_cpu(),
            machine: Snapshot::take(),
        }
    }

    pub fn stop(self, engine_pids: &[u32]) -> Spent {
        let machine = Snapshot::take();
        let driver_cpu = crate::os::self_cpu().saturating_sub(self.driver);
        let engine_cpu = match (self.engine, crate::os::groups_cpu_time(engine_pids)) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b)),
            _ => None,
        };
        Spent {
            driver_cpu,
            engine_cpu,
            background: self
                .machine
                .until(&machine, engine_cpu.map(|e| e + driver_cpu)),
        }
    }
}

impl Snapshot {
    pub fn take() -> Snapshot {
        Snapshot {
            at: Instant::now(),
            ticks: std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|s| parse_stat(&s)),
            pressure_us: std::fs::read_to_string("/proc/pressure/cpu")
                .ok()
                .and_then(|s| parse_pressure(&s)),
        }
    }

    /// The machine from `self` to `after`; `ours` is the CPU the driver and the engine spent
    /// meanwhile, when the engine's was measured. `None` without `/proc/stat`.
    pub fn until(&self, after: &Snapshot, ours: Option<Duration>) -> Option<Background> {
        let (a, b) = (self.ticks?, after.ticks?);
        let wall = after.at.saturating_duration_since(self.at).as_secs_f64();
        let pressure = match (self.pressure_us, after.pressure_us) {
            (Some(x), Some(y)) if wall > 0.0 => {
                Some(((y.saturating_sub(x)) as f64 / 1e6 / wall * 100.0).min(100.0))
            }
            _ => None,
        };
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok());
        between(a, b, ours, clock_ticks_per_sec(), pressure, load)
    }
}

fn between(
    a: Ticks,
    b: Ticks,
    ours: Option<Duration>,
    ticks_per_sec: f64,
    cpu_pressure_pct: Option<f64>,
    load_1m: Option<f64>,
) -> Option<Background> {
    let total = b.total.checked_sub(a.total).filter(|t| *t > 0)? as f64;
    let busy = b.busy.saturating_sub(a.busy) as f64;
    let steal = b.steal.saturating_sub(a.steal) as f64;
    let other_cpu_pct = ours.map(|d| {
        let ours_ticks = d.as_secs_f64() * ticks_per_sec;
        ((busy - ours_ticks) / total * 100.0).clamp(0.0, 100.0)
    });
    Some(Background {
        machine_busy_pct: busy / total * 100.0,
        other_cpu_pct,
        steal_pct: steal / total * 100.0,
        cpu_pressure_pct,
        load_1m,
    })
}

/// The aggregate `cpu` line: user nice system idle iowait irq softirq steal (guest time is
/// already in user). Busy is everything but idle and iowait.
fn parse_stat(text: &str) -> Option<Ticks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 4 {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    let total: u64 = v.iter().sum();
    let idle = at(3) + at(4);
    Some(Ticks {
        busy: total - idle,
        steal: at(7),
        total,
    })
}

/// `some avg10=0.79 avg60=4.10 avg300=5.94 total=16965028319` → its total.
fn parse_pressure(text: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with("some "))?
        .split_whitespace()
        .find_map(|w| w.strip_prefix("total="))?
        .parse()
        .ok()
}

fn clock_ticks_per_sec() -> f64 {
    // SAFETY: sysconf reads a constant of the system; no memory is passed.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  7788550 12975 929156 4842640 97746 0 22457 4518 0 0\n\
                        cpu0 3894275 6487 464578 2421320 48873 0 11228 2259 0 0\n\
                        cpu1 3894275 6488 464578 2421320 48873 0 11229 2259 0 0\n\
                        intr 1 2 3\n";

    #[test]
    fn the_stat_line_reads_as_busy_steal_and_total() {
        let t = parse_stat(STAT).unwrap();
        assert_eq!(t.steal, 4518);
        assert_eq!(
            t.total,
            7788550 + 12975 + 929156 + 4842640 + 97746 + 22457 + 4518
        );
        assert_eq!(t.busy, t.total - 4842640 - 97746);
        assert_eq!(
            parse_pressure("some avg10=0.79 avg60=4.10 avg300=5.94 total=16965028319\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
            Some(16965028319)
        );
        assert_eq!(parse_stat("nothing here"), None);
        assert_eq!(parse_pressure("some avg10=1"), None);
    }

    /// Two cores over 10 s at 100 ticks a second: 2,000 ticks. The machine busy 1,500 of
    /// them, the driver and the engine 12 s of CPU (1,200 ticks): other processes 300 ticks,
    /// 15 % of the machine.
    #[test]
    fn other_processes_are_what_the_machine_did_beyond_the_driver_and_the_engine() {
        let a = Ticks {
            busy: 10_000,
            steal: 100,
            total: 50_000,
        };
        let b = Ticks {
            busy: 11_500,
            steal: 140,
            total: 52_000,
        };
        let bg = between(
            a,
            b,
            Some(Duration::from_secs(12)),
            100.0,
            Some(3.0),
            Some(1.5),
        )
        .unwrap();
        assert!((bg.machine_busy_pct - 75.0).abs() < 1e-9, "{bg:?}");
        assert!((bg.other_cpu_pct.unwrap() - 15.0).abs() < 1e-9, "{bg:?}");
        assert!((bg.steal_pct - 2.0).abs() < 1e-9, "{bg:?}");
        // No engine CPU measured: no figure for other processes.
        let bg = between(a, b, None, 100.0, None, None).unwrap();
        assert_eq!(bg.other_cpu_pct, None);
        // Counters that did not move (or went back): no figures.
        assert!(between(a, a, None, 100.0, None, None).is_none());
    }

    #[test]
    fn a_snapshot_of_this_machine_has_figures_in_range() {
        let before = Snapshot::take();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        std::thread::sleep(Duration::from_millis(30));
        let after = Snapshot::take();
        if let Some(bg) = before.until(&after, Some(Duration::ZERO)) {
            assert!((0.0..=100.0).contains(&bg.machine_busy_pct), "{bg:?}");
            assert!((0.0..=100.0).contains(&bg.steal_pct), "{bg:?}");
        }
    }
}
