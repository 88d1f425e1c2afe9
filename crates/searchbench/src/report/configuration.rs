//! "The same configuration": runs that measured the same thing, whatever engine ran it.

use serde_json::Value;

use crate::store::RunRow;

/// Stored configuration keys that name the engine or the seed rather than what was measured.
const NOT_CONFIGURATION: [&str; 3] = ["engine", "engine_dir", "seed"];

/// The same kind, workload and stored configuration apart from the engine (its name or
/// folder) and the seed; tags are labels, not configuration.
pub fn same(a: &RunRow, b: &RunRow) -> bool {
    a.kind == b.kind && a.workload == b.workload && essential(&a.config) == essential(&b.config)
}

fn essential(config: &Value) -> Value {
    let mut config = config.clone();
    if let Some(map) = config.as_object_mut() {
        for key in NOT_CONFIGURATION {
            map.remove(key);
        }
    }
    config
}
