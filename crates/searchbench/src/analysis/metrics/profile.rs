//! The engine profile of a result (`--profile`), read back as the `measure::profile::Profile`
//! it was written as: each category's share of CPU samples and of allocated bytes, the
//! allocation rate and the GC pauses per second.

use serde_json::Value;

use super::{point, read, Direction::*, Metric};
use crate::measure::profile::Profile;

pub(super) fn metrics(result: &Value, out: &mut Vec<Metric>) {
    let Some(p) = result.get("profile").filter(|p| p.is_object()) else {
        return;
    };
    let Some(p) = read::<Profile>("profile", p, out) else {
        return;
    };
    for c in &p.categories {
        let (key, name) = (c.category.key(), c.category.name());
        out.extend(point(
            &format!("profile.cpu.{key}"),
            &format!("profile: engine CPU in {name}"),
            "%",
            Info,
            Some(c.cpu_pct),
        ));
        out.extend(point(
            &format!("profile.alloc.{key}"),
            &format!("profile: bytes allocated in {name}"),
            "%",
            Info,
            Some(c.alloc_pct),
        ));
    }
    out.extend(point(
        "profile.alloc_mb_per_sec",
        "profile: engine allocation rate",
        "MB/s",
        LowerBetter,
        p.alloc_bytes_per_sec.map(|b| b / 1e6),
    ));
    out.extend(point(
        "profile.gc_pause_ms_per_s",
        "profile: GC pauses per second of the window",
        "ms/s",
        LowerBetter,
        (p.window_secs > 0.0).then(|| p.gc_pause_secs * 1000.0 / p.window_secs),
    ));
}
