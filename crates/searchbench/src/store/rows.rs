//! A `runs` row as SQLite returns it, and its conversion to a [`RunRow`](super::RunRow).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{workload_name, Result, RunId, RunRow, State};

/// A row as read, before its JSON columns are parsed.
pub(super) struct RawRow {
    pub(super) id: String,
    kind: String,
    workload: String,
    engine: Option<String>,
    status: String,
    started_unix: i64,
    finished_unix: Option<i64>,
    tool_version: String,
    seed: Option<i64>,
    pid: Option<i64>,
    machine: String,
    config: String,
    error: Option<String>,
    result: Option<String>,
}

pub(super) fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        workload: r.get(2)?,
        engine: r.get(3)?,
        status: r.get(4)?,
        started_unix: r.get(5)?,
        finished_unix: r.get(6)?,
        tool_version: r.get(7)?,
        seed: r.get(8)?,
        pid: r.get(9)?,
        machine: r.get(10)?,
        config: r.get(11)?,
        error: r.get(12)?,
        result: r.get(13)?,
    })
}

impl RawRow {
    /// The row as the views read it. A JSON column that does not read (bad bytes, a file
    /// edited by hand) does not hide the store's other runs: the run is read as `failed`,
    /// its error naming the column and where it stops reading, the column read as none.
    pub(super) fn into_row(self) -> Result<RunRow> {
        let pid = self.pid.and_then(|p| u32::try_from(p).ok());
        let mut damaged = Vec::new();
        let mut read = |what: &str, text: &str| -> Option<Value> {
            let mut v = serde_json::from_str(text)
                .map_err(|e| damaged.push(format!("its stored {what} does not read ({e})")))
                .ok()?;
            super::secrets::redact(&mut v);
            Some(v)
        };
        let mut config = read("configuration", &self.config).unwrap_or_default();
        super::upgrade::run_config(&mut config);
        let machine = read("machine", &self.machine).unwrap_or_default();
        let result = self.result.as_deref().and_then(|r| read("result", r));
        let result = result.map(|mut result| {
            if let Some(config) = result.get_mut("config") {
                super::upgrade::driver_config(config);
            }
            result
        });
        // A run killed before its result names the engine: the one it was started with.
        let engine = self.engine.or_else(|| {
            config
                .get("engine")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let mut state = State::of_stored(&self.status, pid);
        let mut error = self.error.as_deref().map(super::secrets::redacted_text);
        if !damaged.is_empty() {
            state = State::Failed;
            damaged.extend(error.take());
            error = Some(damaged.join("; "));
        }
        Ok(RunRow {
            id: RunId(self.id),
            kind: self.kind,
            workload: workload_name(&self.workload).to_string(),
            engine,
            status: self.status,
            state,
            started_unix: self.started_unix.max(0) as u64,
            finished_unix: self.finished_unix.map(|t| t.max(0) as u64),
            tool_version: self.tool_version,
            seed: self.seed.map(|s| s as u64),
            // Only a run still going has a process: once it has ended, or read on another
            // host (`--from`), a pid would name nothing, or another process.
            pid: pid.filter(|_| state == State::Running),
            machine,
            config,
            tags: BTreeMap::new(),
            error,
            result,
        })
    }
}
