//! Searches beside a load: N clients send a workload's searches in a loop while documents are
//! being indexed, so the load's docs/s comes with the query latency it leaves. The index is
//! still growing, so answers are not checked against a truth; only failures count.

use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::cells::{add_error_kinds, count_error_kinds, ErrorKind, HdrSummary};
use super::dialect::Dialect;
use super::variant::Variant;
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::measure::{Measurements, SerializedHistogram};

/// The phase the searches beside a load are measured in, and what its record keeps (what
/// adds up over the parts of a run split in processes): the clients, the searches sent and
/// failed, the latency of those answered (µs), each also per variant (`requests:<variant>`,
/// `errors:<variant>`, `beside_latency:<variant>`), each reason of failure
/// (`error:<reason>`), and when they began and ended (Unix µs). Every figure of
/// [`SearchesBeside`] is derived from it ([`SearchesBeside::of`]), live and merged alike.
pub const PHASE: &str = "searches";
const CLIENTS: &str = "clients";
const REQUESTS: &str = "requests";
const ERRORS: &str = "errors";
const REASON: &str = "error:";
/// The latency of every answered search, also kept with the run's histograms.
pub const LATENCY: &str = "beside_latency";
const BEGAN: &str = "began_unix_us";
const ENDED: &str = "ended_unix_us";

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
    /// What they are derived from: their phase's record (see [`PHASE`]).
    #[serde(skip)]
    pub record: Measurements,
}

impl SearchesBeside {
    /// The searches beside a load as their phase's record `m` says (one process's, or the
    /// parts' added); `None` when it holds none (a phase kept before it kept its counts).
    pub fn of(m: &Measurements) -> Option<SearchesBeside> {
        let count = |name: &str| m.counts.get(name).copied().unwrap_or(0);
        let requests = *m.counts.get(REQUESTS)?;
        let span_us = m
            .bounds
            .most
            .get(ENDED)?
            .saturating_sub(*m.bounds.least.get(BEGAN)?);
        let secs = span_us as f64 / 1e6;
        let empty = histogram();
        let latency = |name: &str| HdrSummary::of(m.histograms.get(name).map_or(&empty, |h| &h.1));
        let reasons: Vec<ErrorKind> = m
            .counts
            .iter()
            .filter_map(|(k, n)| Some((k.strip_prefix(REASON)?, *n)))
            .map(|(message, count)| ErrorKind {
                message: message.to_string(),
                count,
            })
            .collect();
        let mut error_kinds = Vec::new();
        add_error_kinds(&mut error_kinds, &reasons);
        let variants = m.counts.keys();
        let variants = variants.filter_map(|k| k.strip_prefix(REQUESTS)?.strip_prefix(':'));
        Some(SearchesBeside {
            clients: usize::try_from(count(CLIENTS)).unwrap_or(usize::MAX),
            note: UNCHECKED,
            requests,
            errors: count(ERRORS),
            error_kinds,
            secs,
            searches_per_sec: if secs > 0.0 {
                requests as f64 / secs
            } else {
                0.0
            },
            latency: latency(LATENCY),
            variants: variants
                .map(|v| VariantBeside {
                    variant: Variant::new(v),
                    requests: count(&format!("{REQUESTS}:{v}")),
                    errors: count(&format!("{ERRORS}:{v}")),
                    latency: latency(&format!("{LATENCY}:{v}")),
                })
                .collect(),
            record: m.clone(),
        })
    }

    /// The latency of every answered search (`beside_latency`, µs), kept with the run's
    /// histograms; none when no search was answered.
    pub fn histograms(&self) -> Vec<SerializedHistogram> {
        let latency = self.record.histograms.get(LATENCY);
        let latency = latency.filter(|(_, h)| !h.is_empty());
        let encoded = latency.and_then(|(unit, h)| SerializedHistogram::encode(LATENCY, unit, h));
        encoded.into_iter().collect()
    }

    /// The record of searches beside a load kept before their phase kept one, from what its
    /// result said (`began_unix_us`: when its load began; they began with its first
    /// documents): the counts, and the span they ran. Its histograms are the ones it stored.
    pub fn recorded(&self, began_unix_us: u64) -> Measurements {
        let mut m = Measurements::default();
        m.count(CLIENTS, self.clients as u64);
        m.count(REQUESTS, self.requests);
        m.count(ERRORS, self.errors);
        for v in &self.variants {
            m.count(&format!("{REQUESTS}:{}", v.variant), v.requests);
            m.count(&format!("{ERRORS}:{}", v.variant), v.errors);
        }
        for k in &self.error_kinds {
            m.count(&format!("{REASON}{}", k.message), k.count);
        }
        m.least(BEGAN, began_unix_us);
        let secs_us = (self.secs.max(0.0) * 1e6).round() as u64;
        m.most(ENDED, began_unix_us.saturating_add(secs_us));
        m
    }
}

/// Now on the wall clock, in Unix µs: the parts of a run line up on it.
fn unix_us_now() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH);
    since.map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

fn histogram() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds")
}

/// What one client measured.
struct ClientTally {
    per_variant: Vec<(Histogram<u64>, u64, u64)>,
    error_kinds: Vec<ErrorKind>,
}

/// The phase's record of what every client measured: counts, histograms and reasons added
/// (a reason's count as a count, never one entry per failure), over the searches' span.
fn record(
    variants: &[Variant],
    clients: usize,
    tallies: Vec<ClientTally>,
    began_unix_us: u64,
    ended_unix_us: u64,
) -> Measurements {
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
        // Each reason with its count, as one tally of every client's would hold it.
        add_error_kinds(&mut error_kinds, &t.error_kinds);
    }
    let mut m = Measurements::default();
    m.count(CLIENTS, clients as u64);
    m.count(REQUESTS, per.iter().map(|p| p.1).sum());
    m.count(ERRORS, per.iter().map(|p| p.2).sum());
    for (v, (h, n, e)) in variants.iter().zip(&per) {
        m.count(&format!("{REQUESTS}:{v}"), *n);
        m.count(&format!("{ERRORS}:{v}"), *e);
        let _ = m.add_histogram(&format!("{LATENCY}:{v}"), "us", h);
    }
    let _ = m.add_histogram(LATENCY, "us", &all);
    for k in &error_kinds {
        m.count(&format!("{REASON}{}", k.message), k.count);
    }
    m.least(BEGAN, began_unix_us);
    m.most(ENDED, ended_unix_us.max(began_unix_us));
    m
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
    let began_unix_us = unix_us_now();
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
    let m = record(&variants, clients, tallies, began_unix_us, unix_us_now());
    SearchesBeside::of(&m).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clients' reasons of failure add as counts: a reason a long-dead cluster gave 2^40
    /// times is one count, not 2^40 strings held at once (which would fill memory as the load
    /// ends), and each client's count of it is in the sum.
    #[test]
    fn the_clients_reasons_add_as_counts_however_many_failed() {
        let v = Variant::new("D_td");
        let tally = |n: u64| ClientTally {
            per_variant: vec![(histogram(), n, n)],
            error_kinds: vec![ErrorKind {
                message: "connection refused".into(),
                count: n,
            }],
        };
        let m = record(&[v], 2, vec![tally(1 << 40), tally(3)], 10, 20);
        assert_eq!(m.counts["error:connection refused"], (1 << 40) + 3);
        let b = SearchesBeside::of(&m).unwrap();
        assert_eq!((b.requests, b.errors), ((1 << 40) + 3, (1 << 40) + 3));
        assert_eq!(b.error_kinds.len(), 1);
    }

    /// What a result said, recorded and derived again, says the same: the record holds every
    /// figure the views read.
    #[test]
    fn what_a_result_said_is_derived_again_from_its_record() {
        let said = SearchesBeside {
            clients: 4,
            requests: 1_000,
            errors: 7,
            error_kinds: vec![
                ErrorKind {
                    message: "timeout".into(),
                    count: 5,
                },
                ErrorKind {
                    message: "429 Too Many Requests".into(),
                    count: 2,
                },
            ],
            secs: 12.5,
            variants: ["term", "range: with a colon"]
                .into_iter()
                .map(|v| VariantBeside {
                    variant: v.into(),
                    requests: 500,
                    errors: if v == "term" { 7 } else { 0 },
                    latency: HdrSummary::default(),
                })
                .collect(),
            ..SearchesBeside::default()
        };
        let again = SearchesBeside::of(&said.recorded(1_700_000_000_000_000)).unwrap();
        assert_eq!(
            (again.clients, again.requests, again.errors, again.secs),
            (4, 1_000, 7, 12.5)
        );
        assert_eq!(again.searches_per_sec, 80.0);
        let kinds: Vec<(&str, u64)> = again
            .error_kinds
            .iter()
            .map(|k| (k.message.as_str(), k.count))
            .collect();
        assert_eq!(kinds, [("429 Too Many Requests", 2), ("timeout", 5)]);
        let variants: Vec<(&str, u64, u64)> = again
            .variants
            .iter()
            .map(|v| (v.variant.name(), v.requests, v.errors))
            .collect();
        assert_eq!(
            variants,
            [("range: with a colon", 500, 0), ("term", 500, 7)]
        );
        // A record without counts (a phase kept before it kept them) says nothing.
        assert!(SearchesBeside::of(&Measurements::default()).is_none());
    }
}
