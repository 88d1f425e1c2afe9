//! What the writes beside the query method did (`query --rewrite-clients`; the writes are
//! `session::rewrites`): kept with the result, so a figure measured during an ingest says so.

use serde::{Deserialize, Serialize};

/// What the writes beside the searches did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Rewrites {
    pub clients: usize,
    /// The rate they were offered at (`--rewrite-rate`), docs/s; `None`: as fast as they went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Documents written again and acknowledged.
    pub docs: u64,
    /// Documents the engine refused or never acknowledged.
    pub failed: u64,
    /// Whole rounds over the corpus (the last, cut by the end of the passes, not counted).
    pub rounds: u64,
    /// From the first write to the end of the passes; with `--beside-idle`, the time the
    /// writes ran (the idle halves left out).
    pub secs: f64,
    pub docs_per_sec: f64,
    /// Documents in the index before and after: the same, or the run fails.
    pub index_count: u64,
    /// Paused for the idle half of every pass (`--beside-idle`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside_idle: bool,
}

impl Rewrites {
    /// When the writes ran, as every view says it.
    pub fn beside(&self) -> &'static str {
        if self.beside_idle {
            "half of every pass (paused for the idle half)"
        } else {
            "every pass"
        }
    }
}

/// The writes of a run's parts, each beside its own share of the searches: the clients,
/// documents and rates add up, the time is the longest part's.
pub fn merged<'a>(parts: impl Iterator<Item = Option<&'a Rewrites>>) -> Option<Rewrites> {
    parts.flatten().fold(None, |sum: Option<Rewrites>, r| {
        let mut sum = sum.unwrap_or_default();
        sum.clients += r.clients;
        sum.rate = match (sum.rate, r.rate) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        sum.docs += r.docs;
        sum.failed += r.failed;
        sum.rounds += r.rounds;
        sum.secs = sum.secs.max(r.secs);
        sum.docs_per_sec += r.docs_per_sec;
        sum.index_count = sum.index_count.max(r.index_count);
        sum.beside_idle |= r.beside_idle;
        Some(sum)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_writes_add_up_and_a_run_without_them_has_none() {
        let part = |clients, docs, secs, rate| Rewrites {
            clients,
            rate,
            docs,
            failed: 1,
            rounds: 2,
            secs,
            docs_per_sec: docs as f64 / secs,
            index_count: 500,
            beside_idle: false,
        };
        let a = part(2, 1000, 10.0, Some(100.0));
        let b = part(1, 300, 12.0, None);
        let sum = merged([Some(&a), None, Some(&b)].into_iter()).unwrap();
        assert_eq!(
            (sum.clients, sum.docs, sum.failed, sum.rounds),
            (3, 1300, 2, 4)
        );
        assert_eq!(sum.secs, 12.0);
        assert_eq!(sum.rate, Some(100.0));
        assert!((sum.docs_per_sec - 125.0).abs() < 1e-9);
        assert_eq!(sum.index_count, 500);
        assert_eq!(merged([None, None].into_iter()), None);
    }
}
