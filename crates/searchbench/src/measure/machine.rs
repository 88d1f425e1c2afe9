//! What machine a result was measured on: CPU model, cores, memory.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub os: String,
    /// Kernel release (`uname -r`), where the OS says it.
    #[serde(default)]
    pub kernel: String,
    pub arch: String,
}

impl Machine {
    pub fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let memory_bytes = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        });
        Machine {
            cpu_model,
            cores: cores(),
            memory_bytes,
            os: std::env::consts::OS.to_string(),
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|k| k.trim().to_string())
                .unwrap_or_default(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

/// Logical cores available to us.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
