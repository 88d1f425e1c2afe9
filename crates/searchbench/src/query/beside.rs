//! Searches beside a load: N clients send a workload's searches in a loop while documents are
//! being indexed, so the load's docs/s comes with the query latency it leaves. The index is
//! still growing, so answers are not checked against a truth; only failures count.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::cells::{count_error_kinds, ErrorKind, HdrSummary};
use super::dialect::Dialect;
use super::variant::Variant;
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::measure::SerializedHistogram;

/// What the result says about its answers.
pub const UNCHECKED: &str =
    "answers not checked against the truth: the index was still growing while they ran";

/// One search the clients cycle through.
#[derive(Debug, Clone)]
pub struct BesideSearch {
    pub variant: Variant,
    pub body: Bytes,
}

/// Latency of one variant's searches beside the load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantBeside {
    pub variant: Variant,
    pub requests: u64,
    pub errors: u64,
    /// Client wall time per search, µs.
    pub latency: HdrSummary,
}

/// The query side of a load with searches beside it.
/// Read back by `analysis::metrics` (a field missing from an older result reads as empty).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchesBeside {
    pub clients: usize,
    #[serde(skip_deserializing)]
    pub note: &'static str,
    /// Searches sent (answered or failed).
    pub requests: u64,
    pub errors: u64,
    pub error_kinds: Vec<ErrorKind>,
    /// From the first search to the end of the load.
    pub secs: f64,
    pub searches_per_sec: f64,
    /// Client wall time per successful search, µs.
    pub latency: HdrSummary,
    pub variants: Vec<VariantBeside>,
    /// `beside_latency` (µs), for the results store.
    #[serde(skip)]
    pub histograms: Vec<SerializedHistogram>,
}

fn histogram() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds")
}

/// What one client measured.
struct ClientTally {
    per_variant: Vec<(Histogram<u64>, u64, u64)>,
    error_kinds: Vec<ErrorKind>,
}

/// Sends `searches` round robin from `clients` clients on `index` until `stop` (the load is
/// over) or `cancel` (the user's Ctrl-C) fires. Each client starts at its own offset so the
/// variants interleave across clients.
pub async fn run(
    target: &Target,
    index: &str,
    searches: Arc<Vec<BesideSearch>>,
    clients: usize,
    stop: &Cancel,
    cancel: &Cancel,
) -> SearchesBeside {
    // Searches beside a `_bulk` load: the search engines' dialect (a workload's searches
    // beside are written in it).
    let url = target.endpoint(0, &super::dialect::SEARCH.search_path(index));
    // Each variant once, in the order the searches first name it.
    let variants: Vec<Variant> = searches.iter().fold(Vec::new(), |mut seen, s| {
        if !seen.contains(&s.variant) {
            seen.push(s.variant.clone());
        }
        seen
    });
    let started = Instant::now();
    let client_loop = |c: usize| {
        let url = url.clone();
        let variants = variants.clone();
        let target = target.clone();
        let searches = searches.clone();
        let (stop, cancel) = (stop.clone(), cancel.clone());
        async move {
            let mut tally = ClientTally {
                per_variant: variants.iter().map(|_| (histogram(), 0, 0)).collect(),
                error_kinds: Vec::new(),
            };
            if searches.is_empty() {
                return tally;
            }
            let mut i = c * searches.len() / clients.max(1);
            loop {
                if stop.is_cancelled() || cancel.is_cancelled() {
                    break;
                }
                let search = &searches[i % searches.len()];
                i += 1;
                let t0 = Instant::now();
                let send =
                    super::send::post(&target, &url, "application/json", search.body.clone());
                let result = tokio::select! {
                    r = send => r,
                    () = stop.cancelled() => break,
                    () = cancel.cancelled() => break,
                };
                let wall = t0.elapsed();
                let slot = variants
                    .iter()
                    .position(|v| *v == search.variant)
                    .unwrap_or(0);
                let cell = &mut tally.per_variant[slot];
                cell.1 += 1;
                match result {
                    Ok(_) => {
                        let _ = cell.0.record((wall.as_micros() as u64).max(1));
                    }
                    Err(e) => {
                        cell.2 += 1;
                        count_error_kinds(&mut tally.error_kinds, &[e]);
                    }
                }
            }
            tally
        }
    };
    let handles: Vec<_> = (0..clients).map(|c| tokio::spawn(client_loop(c))).collect();
    let mut tallies = Vec::with_capacity(clients);
    for h in handles {
        // A client that panicked measured nothing we can trust; the others still count.
        if let Ok(t) = h.await {
            tallies.push(t);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let mut all = histogram();
    let mut per: Vec<(Histogram<u64>, u64, u64)> =
        variants.iter().map(|_| (histogram(), 0, 0)).collect();
    let mut error_kinds = Vec::new();
    for t in tallies {
        for (slot, (h, n, e)) in t.per_variant.into_iter().enumerate() {
            let _ = all.add(&h);
            let _ = per[slot].0.add(&h);
            per[slot].1 += n;
            per[slot].2 += e;
        }
        for k in t.error_kinds {
            let errors = vec![k.message.clone(); k.count as usize];
            count_error_kinds(&mut error_kinds, &errors);
        }
    }
    let requests: u64 = per.iter().map(|p| p.1).sum();
    let errors: u64 = per.iter().map(|p| p.2).sum();
    SearchesBeside {
        clients,
        note: UNCHECKED,
        requests,
        errors,
        error_kinds,
        secs,
        searches_per_sec: if secs > 0.0 {
            requests as f64 / secs
        } else {
            0.0
        },
        latency: HdrSummary::of(&all),
        variants: variants
            .iter()
            .zip(&per)
            .map(|(v, (h, n, e))| VariantBeside {
                variant: v.clone(),
                requests: *n,
                errors: *e,
                latency: HdrSummary::of(h),
            })
            .collect(),
        histograms: (!all.is_empty())
            .then(|| SerializedHistogram::encode("beside_latency", "us", &all))
            .flatten()
            .into_iter()
            .collect(),
    }
}
