//! What machine a result was measured on: CPU model, cores, memory; and who made it there.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub os: String,
    /// Kernel release (`uname -r`), where the OS says it.
    #[serde(default)]
    pub kernel: String,
    pub arch: String,
    /// Who made the run on it, and on which build (see [`super::provenance`]).
    #[serde(skip_serializing_if = "super::provenance::Provenance::is_empty")]
    pub provenance: super::provenance::Provenance,
}

impl Machine {
    /// A stored run's machine, as it was written; what does not read is unknown (empty).
    pub fn read(stored: &serde_json::Value) -> Machine {
        Machine::deserialize(stored).unwrap_or_default()
    }

    /// `CPU model, N cores, memory` with the memory as `memory` writes it; `?` for what is not
    /// known.
    pub fn described(&self, memory: impl Fn(u64) -> String) -> String {
        let model = if self.cpu_model.is_empty() {
            "?"
        } else {
            &self.cpu_model
        };
        let memory = self.memory_bytes.map_or_else(|| "?".into(), memory);
        format!("{model}, {} cores, {memory}", self.cores)
    }

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
            provenance: super::provenance::Provenance::detect(),
        }
    }
}

/// Logical cores available to us.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
