//! The machine a phase ran on, in one line under its tables.

use crate::measure::background::Background;

/// What else the machine did `during` a phase, in one line: `machine during the load: 63 %
/// busy, other processes 28 % of its CPU, stolen 0 %, a task waiting for a CPU 41 % of the
/// time, load 2.3`.
pub fn background_line(b: &Background, during: &str) -> String {
    let mut s = format!("machine during {during}: {:.0} % busy", b.machine_busy_pct);
    if let Some(o) = b.other_cpu_pct {
        s.push_str(&format!(", other processes {o:.0} % of its CPU"));
    }
    s.push_str(&format!(", stolen {:.0} %", b.steal_pct));
    if let Some(p) = b.cpu_pressure_pct {
        s.push_str(&format!(", a task waiting for a CPU {p:.0} % of the time"));
    }
    if let Some(l) = b.load_1m {
        s.push_str(&format!(", load {l:.1}"));
    }
    s
}
