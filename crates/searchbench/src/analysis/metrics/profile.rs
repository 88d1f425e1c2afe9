//! The engine profile of a result (`--profile`), read back as the `measure::profile::Profile`
//! it was written as: its figures ([`Profile::figures`]: each category's share of CPU samples
//! and of allocated bytes, the allocation rate and the GC pauses per second) under `profile.`.
//! A run whose record keeps its profiles with its phases (a track run's tasks) has them read
//! there as every instrument's figures are (`<phase>.profile.…`).

use serde_json::Value;

use super::{read, Metric};
use crate::measure::profile::Profile;

pub(super) fn metrics(result: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let Some(p) = result.get("profile").filter(|p| p.is_object()) else {
        return;
    };
    let Some(p) = read::<Profile>("profile", p, out) else {
        return;
    };
    for (key, f) in p.figures() {
        let label = format!("profile: {}", f.label);
        out.extend(Metric::of_figure(format!("profile.{key}"), label, &f));
    }
}
