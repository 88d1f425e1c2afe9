//! The numbers a part may hold. A group's merge adds its parts' counts, and a part is only as
//! trustworthy as the store or the file it was copied from (`results import`): a part that
//! says it sent 2^64 requests would overflow the sum, or wrap it into a small lie. So every
//! number a part holds (but a seed) is checked once, at the door: none may pass 2^53, past
//! which a JSON number is no longer exact (the published documents' readers would lose it
//! too). No run's count comes near (a Unix time in microseconds is 2^51), and at most
//! `MAX_PARTS` (2^10) parts of 2^53 add to less than 2^63: no sum over a group's parts can
//! overflow.

use serde_json::Value;

use super::PartRun;
use crate::measure::Measurements;

/// 2^53: the largest number a part may hold.
pub(super) const MOST: u64 = 1 << 53;

/// Why `p` cannot be merged, naming where it holds a number past [`MOST`]: its result, its
/// configuration, its timeline, or a phase's measurements.
pub(super) fn check(p: &PartRun) -> Result<(), String> {
    let held = [
        ("result", p.row.result.as_ref().and_then(past)),
        ("config", past(&p.row.config)),
        ("timeline", p.timeline.iter().enumerate().find_map(at(past))),
    ];
    let phases = p.phases.iter().find_map(|x| {
        let where_ = measured_past(&x.measurements)?;
        Some((format!("phase {}", x.phase), where_))
    });
    let found = held
        .into_iter()
        .find_map(|(what, w)| Some((what.to_string(), w?)))
        .or(phases);
    match found {
        None => Ok(()),
        Some((what, (path, n))) => Err(format!(
            "part {} ({}): its {what}{} is {n}, past 2^53 ({MOST}), where a number stops \
             being exact: no run measures that much, so the part is not merged",
            p.part,
            p.row.id,
            if path.is_empty() {
                path
            } else {
                format!(" `{path}`")
            },
        )),
    }
}

/// Where `v` holds a number past [`MOST`] (as a path: `counts.indexed`, `cells.0.errors`),
/// and the number. A seed (`seed`, `shuffle_seed`, `order_seed`) names a sequence and is
/// never added: any `u64` is one.
fn past(v: &Value) -> Option<(String, String)> {
    match v {
        Value::Number(n) => {
            // Exactly, for a whole number (an f64 would round 2^53 + 1 down to 2^53).
            let past = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => u > MOST,
                (None, Some(i)) => i.unsigned_abs() > MOST,
                (None, None) => n.as_f64().is_some_and(|x| x.abs() > MOST as f64),
            };
            past.then(|| (String::new(), n.to_string()))
        }
        Value::Array(a) => a.iter().enumerate().find_map(at(past)),
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !k.ends_with("seed"))
            .find_map(|(k, x)| Some(joined(k, past(x)?))),
        _ => None,
    }
}

/// `f` of an element of a list, its index put before its path.
fn at<T>(
    f: impl Fn(&T) -> Option<(String, String)>,
) -> impl Fn((usize, &T)) -> Option<(String, String)> {
    move |(i, x)| Some(joined(&i.to_string(), f(x)?))
}

fn joined(key: &str, (path, n): (String, String)) -> (String, String) {
    match path.is_empty() {
        true => (key.to_string(), n),
        false => (format!("{key}.{path}"), n),
    }
}

/// Where a phase's measurements hold a count, bound, moment or timed value past [`MOST`] (its
/// histograms' counts add saturating, inside the histogram library).
fn measured_past(m: &Measurements) -> Option<(String, String)> {
    let timed = m.timed.iter().flat_map(|(name, list)| {
        list.rows.iter().flat_map(move |(at, values)| {
            let moment = (*at > MOST).then(|| (format!("{name} at {at} µs"), at.to_string()));
            let value = values
                .iter()
                .find(|v| v.abs() > MOST as f64 || !v.is_finite());
            let value = value.map(|v| (format!("{name} at {at} µs"), v.to_string()));
            moment.or(value)
        })
    });
    if let Some(found) = timed.into_iter().next() {
        return Some(found);
    }
    let by_second = m.seconds.iter().flat_map(|(s, c)| {
        let second = (format!("second {s}"), *s);
        std::iter::once(second).chain(
            c.iter()
                .map(move |(k, n)| (format!("{k} at second {s}"), *n)),
        )
    });
    let named = m.counts.iter().map(|(k, n)| (k.clone(), *n));
    let bounds = m.bounds.least.iter().chain(&m.bounds.most);
    named
        .chain(bounds.map(|(k, n)| (k.clone(), *n)))
        .chain(by_second)
        .find(|(_, n)| *n > MOST)
        .map(|(k, n)| (k, n.to_string()))
}
