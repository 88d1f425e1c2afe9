//! The `logs` query workload: typical log-search requests over the `logs` corpus, each with
//! `size: 0` and with `size: 10` (sorted by `@timestamp` descending, as a log viewer asks).
//!
//! The corpus window is cut into `slices` equal time ranges; slice `i` is one search per
//! variant (one *coverage* of one request, so per-cell statistics are per search):
//!
//! * `range_terms`: `bool.filter` range on `@timestamp` + `terms` on two `process.name`s;
//! * `histogram`: range + `date_histogram` per minute (`fixed_interval: 1m`);
//! * `match`: `match` on `message` for one word of the generator's vocabulary + range;
//! * `top_hosts`: range + `terms` aggregation on `host.name`, top 10 by count.
//!
//! Ground truth is computed in-process by regenerating the corpus from its spec (seed, docs,
//! start, window) and reading every document: exact hit counts, the `@timestamp`s of the 10
//! newest matches, the non-empty per-minute buckets and the top 10 hosts (count descending,
//! then key ascending, the engines' order; exact on a single-shard index).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::accuracy::VariantAccuracy;
use super::answer::Answer;
use super::plan::{LogsQuery, Variant};
use super::{QueryError, QueryOptions};
use crate::corpus::text::parse_start;
use crate::corpus::{DocSource, Item, Logs, LogsSpec};

/// Time slices of the window queried by default (one search per variant and slice).
pub const DEFAULT_SLICES: usize = 8;
/// Process names the `range_terms` queries ask for (two per slice, rotating). The generator
/// draws from these (a unit test checks each occurs).
pub const PROCESSES: [&str; 7] = [
    "systemd", "sshd", "kernel", "CRON", "dhclient", "rsyslogd", "auditd",
];
/// Message words the `match` queries ask for (one per slice, rotating); lower-case words of
/// the generator's message vocabulary that no other part of a message contains.
pub const WORDS: [&str; 4] = ["failed", "session", "accepted", "connection"];
/// Hits asked for by the `size: 10` variants.
pub const TOP: usize = 10;

/// How to run the `logs` query workload.
#[derive(Debug, Clone)]
pub struct LogsQueryOptions {
    /// Variants, transports, passes, warm-up, shuffle, profile, rate, check, progress.
    pub query: QueryOptions,
    /// Time slices of the corpus window (one search per variant and slice).
    pub slices: usize,
}

impl LogsQueryOptions {
    /// All eight `logs` variants, serial transport, 3 passes, [`DEFAULT_SLICES`].
    pub fn new(index: impl Into<String>) -> Self {
        let mut query = QueryOptions::new(index);
        query.variants = Variant::LOGS.to_vec();
        query.transports = vec![super::Transport::Serial];
        LogsQueryOptions {
            query,
            slices: DEFAULT_SLICES,
        }
    }
}

/// One time slice of the corpus window and the parameters its searches use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// `[from_ms, to_ms)`, epoch milliseconds.
    pub from_ms: i64,
    pub to_ms: i64,
    pub processes: [&'static str; 2],
    pub word: &'static str,
}

/// The `slices` equal time ranges of `spec`'s window, with their parameters.
pub fn slices(spec: &LogsSpec, slices: usize) -> Vec<Slice> {
    let n = slices.max(1) as i128;
    let w = spec.window_ms as i128;
    let at = |i: i128| spec.start_ms + (i * w / n) as i64;
    (0..slices.max(1))
        .map(|i| Slice {
            from_ms: at(i as i128),
            to_ms: at(i as i128 + 1),
            processes: [
                PROCESSES[(2 * i) % PROCESSES.len()],
                PROCESSES[(2 * i + 1) % PROCESSES.len()],
            ],
            word: WORDS[i % WORDS.len()],
        })
        .collect()
}

/// The `_search` body of a `logs` variant for one slice, compact, on one line.
/// `track_total_hits: true` makes every count exact and checkable.
pub fn search_body(variant: Variant, slice: &Slice, profile: bool) -> Vec<u8> {
    let Some((query, size)) = variant.logs() else {
        return Vec::new();
    };
    let range = format!(
        "{{\"range\":{{\"@timestamp\":{{\"gte\":{},\"lt\":{},\"format\":\"epoch_millis\"}}}}}}",
        slice.from_ms, slice.to_ms
    );
    let q = match query {
        LogsQuery::RangeTerms => format!(
            "{{\"bool\":{{\"filter\":[{range},{{\"terms\":{{\"process.name\":[{},{}]}}}}]}}}}",
            json_str(slice.processes[0]),
            json_str(slice.processes[1])
        ),
        LogsQuery::Match => format!(
            "{{\"bool\":{{\"must\":[{{\"match\":{{\"message\":{}}}}}],\"filter\":[{range}]}}}}",
            json_str(slice.word)
        ),
        LogsQuery::Histogram | LogsQuery::TopHosts => {
            format!("{{\"bool\":{{\"filter\":[{range}]}}}}")
        }
    };
    let mut s = format!("{{\"size\":{size},\"track_total_hits\":true,\"query\":{q}");
    if size > 0 {
        s.push_str(",\"sort\":[{\"@timestamp\":{\"order\":\"desc\"}}]");
    }
    match query {
        LogsQuery::Histogram => s.push_str(
            ",\"aggs\":{\"per_minute\":{\"date_histogram\":{\"field\":\"@timestamp\",\
             \"fixed_interval\":\"1m\"}}}",
        ),
        LogsQuery::TopHosts => s.push_str(
            ",\"aggs\":{\"top_hosts\":{\"terms\":{\"field\":\"host.name\",\"size\":10}}}",
        ),
        LogsQuery::RangeTerms | LogsQuery::Match => {}
    }
    if profile {
        s.push_str(",\"profile\":true");
    }
    s.push('}');
    s.into_bytes()
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The newest `TOP` timestamps seen, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Newest(pub Vec<i64>);

impl Newest {
    fn add(&mut self, ts: i64) {
        let v = &mut self.0;
        if v.len() == TOP && v.last().is_some_and(|&m| ts <= m) {
            return;
        }
        let at = v.partition_point(|&x| x >= ts);
        v.insert(at, ts);
        v.truncate(TOP);
    }
}

/// What every search of one slice must answer.
#[derive(Debug, Clone, Default)]
pub struct SliceTruth {
    /// Documents in the time range.
    pub in_range: u64,
    pub in_range_newest: Newest,
    /// ... of which one of the two processes.
    pub range_terms: u64,
    pub range_terms_newest: Newest,
    /// ... of which the message contains the word.
    pub matched: u64,
    pub matched_newest: Newest,
    /// Non-empty minute buckets: epoch-ms key → documents.
    pub minutes: BTreeMap<i64, u64>,
    /// Top 10 hosts: count descending, then name ascending.
    pub top_hosts: Vec<(String, u64)>,
}

/// The exact answers of the `logs` queries on the corpus of one spec.
#[derive(Debug, Clone)]
pub struct LogsTruth {
    pub spec: LogsSpec,
    pub slices: Vec<Slice>,
    pub truth: Vec<SliceTruth>,
}

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(rename = "@timestamp")]
    ts: &'a str,
    #[serde(borrow)]
    process: Named<'a>,
    #[serde(borrow)]
    host: Named<'a>,
    message: &'a str,
}

#[derive(Deserialize)]
struct Named<'a> {
    name: &'a str,
}

/// Regenerates the corpus of `spec` and computes the truth of every slice's searches.
pub fn compute_truth(spec: &LogsSpec, n_slices: usize) -> Result<LogsTruth, QueryError> {
    let slices = slices(spec, n_slices);
    let mut truth = vec![SliceTruth::default(); slices.len()];
    let mut hosts: Vec<HashMap<String, u64>> = vec![HashMap::new(); slices.len()];
    let mut generator = Logs::new(spec.clone())?;
    let mut buf = Vec::with_capacity(2048);
    let mut n = 0u64;
    loop {
        buf.clear();
        match generator.next_into(&mut buf)? {
            None => break,
            Some(Item::Bad(b)) => return Err(QueryError::Invalid(b.reason)),
            Some(Item::Doc) => {}
        }
        n += 1;
        let bad = |reason: String| {
            QueryError::Invalid(format!("logs document {n} of the generator: {reason}"))
        };
        let doc: Doc = serde_json::from_slice(&buf).map_err(|e| bad(e.to_string()))?;
        let ts = parse_start(doc.ts).map_err(|e| bad(e.to_string()))?;
        // Slices are sorted and adjacent: the one holding `ts`, if any.
        let i = slices.partition_point(|s| s.to_ms <= ts);
        let Some(slice) = slices.get(i).filter(|s| s.from_ms <= ts) else {
            continue;
        };
        let t = &mut truth[i];
        t.in_range += 1;
        t.in_range_newest.add(ts);
        if slice.processes.contains(&doc.process.name) {
            t.range_terms += 1;
            t.range_terms_newest.add(ts);
        }
        if doc.message.split(' ').any(|w| w == slice.word) {
            t.matched += 1;
            t.matched_newest.add(ts);
        }
        *t.minutes.entry(ts.div_euclid(60_000) * 60_000).or_insert(0) += 1;
        match hosts[i].get_mut(doc.host.name) {
            Some(c) => *c += 1,
            None => {
                hosts[i].insert(doc.host.name.to_string(), 1);
            }
        }
    }
    for (t, h) in truth.iter_mut().zip(hosts) {
        let mut all: Vec<(String, u64)> = h.into_iter().collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(10);
        t.top_hosts = all;
    }
    Ok(LogsTruth {
        spec: spec.clone(),
        slices,
        truth,
    })
}

impl LogsTruth {
    /// Documents the `range_terms` queries match, over all slices (a quick sanity figure).
    pub fn range_terms_total(&self) -> u64 {
        self.truth.iter().map(|t| t.range_terms).sum()
    }
}

/// Checks one answer of `acc.variant` for slice `i`; failures are appended as sentences.
pub fn check(
    acc: &mut VariantAccuracy,
    truth: &LogsTruth,
    i: usize,
    answer: &Answer,
    failures: &mut Vec<String>,
) {
    let Some((query, size)) = acc.variant.logs() else {
        return;
    };
    let (Some(slice), Some(t)) = (truth.slices.get(i), truth.truth.get(i)) else {
        return;
    };
    let who = format!(
        "{} slice {} [{}, {})",
        acc.variant.name(),
        i + 1,
        slice.from_ms,
        slice.to_ms
    );
    acc.answers += 1;
    let (count, newest) = match query {
        LogsQuery::RangeTerms => (t.range_terms, &t.range_terms_newest),
        LogsQuery::Match => (t.matched, &t.matched_newest),
        LogsQuery::Histogram | LogsQuery::TopHosts => (t.in_range, &t.in_range_newest),
    };
    if answer.count != count {
        acc.count_wrong += 1;
        failures.push(format!("{who}: {} hits, expected {count}", answer.count));
    }
    if size > 0 && answer.hits != newest.0 {
        acc.hits_wrong += 1;
        failures.push(format!(
            "{who}: newest hits at {:?}, expected {:?}",
            answer.hits, newest.0
        ));
    }
    let expected: Option<Vec<(String, u64)>> = match query {
        LogsQuery::Histogram => Some(t.minutes.iter().map(|(k, c)| (k.to_string(), *c)).collect()),
        LogsQuery::TopHosts => Some(t.top_hosts.clone()),
        LogsQuery::RangeTerms | LogsQuery::Match => None,
    };
    if let Some(expected) = expected {
        // Empty minute buckets inside the range carry no information: compare the others.
        let got: Vec<(String, u64)> = answer
            .buckets
            .iter()
            .flatten()
            .filter(|(_, c)| *c > 0)
            .cloned()
            .collect();
        if got != expected {
            acc.buckets_wrong += 1;
            let first = got
                .iter()
                .zip(&expected)
                .find(|(g, e)| g != e)
                .map(|(g, e)| format!("first difference {g:?} vs {e:?}"))
                .unwrap_or_else(|| format!("{} buckets, expected {}", got.len(), expected.len()));
            failures.push(format!("{who}: wrong buckets: {first}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_json() {
        let spec = LogsSpec::new(1, 100);
        let s = slices(&spec, 4);
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].from_ms, spec.start_ms);
        assert_eq!(s[3].to_ms, spec.start_ms + spec.window_ms as i64);
        for v in Variant::LOGS {
            let b = search_body(v, &s[1], true);
            let j: serde_json::Value = serde_json::from_slice(&b).expect("json");
            let (_, size) = v.logs().expect("logs variant");
            assert_eq!(j["size"], size);
            assert_eq!(j["sort"].is_array(), size > 0);
            assert_eq!(j["profile"], true);
        }
        assert!(search_body(Variant::A, &s[0], false).is_empty());
    }

    #[test]
    fn the_truth_sees_every_process_and_word() {
        let spec = LogsSpec::new(3, 3000);
        let truth = compute_truth(&spec, 1).expect("truth");
        let t = &truth.truth[0];
        assert_eq!(t.in_range, 3000);
        assert_eq!(t.minutes.values().sum::<u64>(), 3000);
        assert_eq!(t.in_range_newest.0.len(), TOP);
        assert!(t.in_range_newest.0.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(t.top_hosts.len(), 10);
        // Every process and word the queries name occurs in the corpus.
        let mut generator = Logs::new(spec).expect("generator");
        let mut text = Vec::new();
        while generator.next_into(&mut text).expect("doc").is_some() {}
        let text = String::from_utf8(text).expect("utf8");
        for p in PROCESSES {
            assert!(
                text.contains(&format!("\"process\":{{\"name\":\"{p}\"}}")),
                "{p}"
            );
        }
        for w in WORDS {
            assert!(text.contains(&format!(" {w} ")), "{w}");
        }
    }
}
