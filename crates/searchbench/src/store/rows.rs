//! A `runs` row as SQLite returns it, and its conversion to a [`RunRow`](super::RunRow).

use std::collections::BTreeMap;

use rusqlite::types::ValueRef;
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
    /// What of the row did not read as its column's type (bad bytes, a file edited by hand).
    damaged: Vec<String>,
}

/// A row, whatever SQLite holds in each column (it keeps any type in any column): a text
/// that is not UTF-8 read with its bad bytes replaced, a number that is not one read as none,
/// each said in [`RawRow::damaged`], so one damaged run hides no other.
pub(super) fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    let mut damaged = Vec::new();
    let mut text = |i: usize, name: &str| -> rusqlite::Result<Option<String>> {
        Ok(match r.get_ref(i)? {
            ValueRef::Null => None,
            ValueRef::Integer(n) => Some(n.to_string()),
            ValueRef::Real(x) => Some(x.to_string()),
            ValueRef::Text(b) | ValueRef::Blob(b) => Some(match std::str::from_utf8(b) {
                Ok(s) => s.to_string(),
                Err(e) => {
                    damaged.push(format!("its stored {name} is not UTF-8 ({e})"));
                    String::from_utf8_lossy(b).into_owned()
                }
            }),
        })
    };
    let (id, kind, workload, engine, status) = (
        text(0, "id")?,
        text(1, "kind")?,
        text(2, "workload")?,
        text(3, "engine")?,
        text(4, "status")?,
    );
    let (tool_version, machine, config, error, result) = (
        text(7, "release")?,
        text(10, "machine")?,
        text(11, "configuration")?,
        text(12, "error")?,
        text(13, "result")?,
    );
    let mut number = |i: usize, name: &str| -> rusqlite::Result<Option<i64>> {
        Ok(match r.get_ref(i)? {
            ValueRef::Null => None,
            ValueRef::Integer(n) => Some(n),
            other => {
                damaged.push(format!("its stored {name} is not a whole number"));
                other.as_f64().ok().map(|x| x as i64)
            }
        })
    };
    let (started_unix, finished_unix) = (number(5, "start")?, number(6, "end")?);
    let (seed, pid) = (number(8, "seed")?, number(9, "pid")?);
    Ok(RawRow {
        id: id.unwrap_or_default(),
        kind: kind.unwrap_or_default(),
        workload: workload.unwrap_or_default(),
        engine,
        status: status.unwrap_or_default(),
        started_unix: started_unix.unwrap_or(0),
        finished_unix,
        tool_version: tool_version.unwrap_or_default(),
        seed,
        pid,
        machine: machine.unwrap_or_else(|| "null".into()),
        config: config.unwrap_or_else(|| "null".into()),
        error,
        result,
        damaged,
    })
}

impl RawRow {
    /// The row as the views read it. A JSON column that does not read (bad bytes, a file
    /// edited by hand) does not hide the store's other runs: the run is read as `failed`,
    /// its error naming the column and where it stops reading, the column read as none.
    pub(super) fn into_row(self) -> Result<RunRow> {
        let pid = self.pid.and_then(|p| u32::try_from(p).ok());
        let mut damaged = self.damaged;
        let mut read = |what: &str, text: &str| -> Option<Value> {
            let mut v = serde_json::from_str(text)
                .map_err(|e| damaged.push(format!("its stored {what} does not read ({e})")))
                .ok()?;
            super::secrets::redact(&mut v);
            Some(v)
        };
        let mut config = read("configuration", &self.config).unwrap_or_default();
        super::upgrade::run_config(&mut config);
        let mut machine: Value = read("machine", &self.machine).unwrap_or_default();
        // The owner's mark is the store's own (whose process the pid names), never a view's.
        let mark = machine
            .as_object_mut()
            .and_then(|m| m.remove(super::OWNER_MARK))
            .and_then(|m| m.as_str().map(str::to_string));
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
        let mut state = State::of_stored(&self.status, pid, mark.as_deref());
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
