//! The query side of `logs`: typical log-search requests over the `logs` corpus, each with
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

use bytes::Bytes;
use serde::Deserialize;

use crate::corpus::text::parse_start;
use crate::corpus::{DocSource, Item, Logs, LogsSpec};
use crate::query::beside::BesideSearch;
use crate::query::{
    Answer, Check, Checker, Described, Progress, QueryError, QueryPlan, Variant, VariantAccuracy,
};

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

/// The shape of a `logs` query (each runs with `size: 0` and `size: 10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogsQuery {
    /// `bool.filter`: range on `@timestamp` + `terms` on `process.name`.
    RangeTerms,
    /// range + `date_histogram` on `@timestamp`, one bucket per minute.
    Histogram,
    /// `match` on `message` + range filter.
    Match,
    /// range + `terms` aggregation on `host.name`, top 10 by count.
    TopHosts,
}

impl LogsQuery {
    /// The name of the bucket aggregation it asks for.
    pub fn agg_name(self) -> Option<&'static str> {
        match self {
            LogsQuery::Histogram => Some("per_minute"),
            LogsQuery::TopHosts => Some("top_hosts"),
            LogsQuery::RangeTerms | LogsQuery::Match => None,
        }
    }
}

/// The variants: name, query shape, `size`; in the order results list them.
pub const SHAPES: [(&str, LogsQuery, u32); 8] = [
    ("range_terms_s0", LogsQuery::RangeTerms, 0),
    ("range_terms_s10", LogsQuery::RangeTerms, 10),
    ("histogram_s0", LogsQuery::Histogram, 0),
    ("histogram_s10", LogsQuery::Histogram, 10),
    ("match_s0", LogsQuery::Match, 0),
    ("match_s10", LogsQuery::Match, 10),
    ("top_hosts_s0", LogsQuery::TopHosts, 0),
    ("top_hosts_s10", LogsQuery::TopHosts, 10),
];

/// Every variant, as names.
pub fn variants() -> Vec<Variant> {
    SHAPES.iter().map(|(n, ..)| Variant::new(n)).collect()
}

/// The query shape and `size` of the variant called `name`.
pub fn shape(name: &str) -> Option<(LogsQuery, u32)> {
    SHAPES
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|&(_, q, size)| (q, size))
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

/// The `_search` body of a `logs` query of `size` for one slice, compact, on one line.
/// `track_total_hits: true` makes every count exact and checkable.
pub fn search_body(query: LogsQuery, size: u32, slice: &Slice, profile: bool) -> Vec<u8> {
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
    let corpus = |e: crate::corpus::CorpusError| QueryError::Invalid(e.to_string());
    let slices = slices(spec, n_slices);
    let mut truth = vec![SliceTruth::default(); slices.len()];
    let mut hosts: Vec<HashMap<String, u64>> = vec![HashMap::new(); slices.len()];
    let mut generator = Logs::new(spec.clone()).map_err(corpus)?;
    let mut buf = Vec::with_capacity(2048);
    let mut n = 0u64;
    loop {
        buf.clear();
        match generator.next_into(&mut buf).map_err(corpus)? {
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

/// The `logs` queries on an index holding the corpus of `spec`, one search per slice.
#[derive(Debug, Clone)]
pub struct LogsQueries {
    pub spec: LogsSpec,
    pub slices: Vec<Slice>,
}

impl LogsQueries {
    pub fn new(spec: LogsSpec, slices: usize) -> Self {
        LogsQueries {
            slices: self::slices(&spec, slices),
            spec,
        }
    }

    /// Every variant's search of every slice, for searches beside a load.
    pub fn beside(&self) -> Vec<BesideSearch> {
        self.slices
            .iter()
            .flat_map(|slice| {
                SHAPES.iter().map(move |&(name, query, size)| BesideSearch {
                    variant: Variant::new(name),
                    body: Bytes::from(search_body(query, size, slice, false)),
                })
            })
            .collect()
    }
}

impl QueryPlan for LogsQueries {
    fn workload(&self) -> &str {
        "logs"
    }

    fn variants(&self) -> Vec<Variant> {
        variants()
    }

    fn coverages(&self) -> usize {
        self.slices.len()
    }

    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>> {
        match (shape(variant.name()), self.slices.get(coverage)) {
            (Some((query, size)), Some(slice)) => vec![search_body(query, size, slice, profile)],
            _ => Vec::new(),
        }
    }

    fn checker(
        &self,
        variants: &[Variant],
        check: bool,
        progress: &Progress,
    ) -> Result<Box<dyn Checker + '_>, QueryError> {
        let rows = variants
            .iter()
            .map(|v| {
                let (query, size) = shape(v.name())
                    .ok_or_else(|| QueryError::Invalid(format!("{v} is not a logs variant")))?;
                let mut checks = vec![Check::Count];
                if size > 0 {
                    checks.push(Check::NewestHits);
                }
                if query.agg_name().is_some() {
                    checks.push(Check::Buckets);
                }
                Ok((query, size, VariantAccuracy::new(v.clone(), checks)))
            })
            .collect::<Result<_, QueryError>>()?;
        let truth = if check {
            progress.say(&format!(
                "computing the ground truth of {} logs documents …",
                self.spec.docs
            ));
            Some(compute_truth(&self.spec, self.slices.len())?)
        } else {
            None
        };
        Ok(Box::new(LogsChecker { truth, rows }))
    }

    fn described(&self) -> Described {
        Described {
            unit: "search".into(),
            per_unit: "Per search (one time slice of the corpus window): server took and \
                       client wall, in ms"
                .into(),
            checked_against: "Accuracy against the truth recomputed from the generator spec \
                              (hit counts, the 10 newest hits, per-minute buckets, top 10 \
                              hosts: all exact)"
                .into(),
            all_right: "All hit counts, newest hits and buckets exact; no failed request.".into(),
        }
    }
}

struct LogsChecker {
    truth: Option<LogsTruth>,
    rows: Vec<(LogsQuery, u32, VariantAccuracy)>,
}

impl Checker for LogsChecker {
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    ) {
        let (Some(truth), Some((query, size, acc))) = (&self.truth, self.rows.get_mut(variant))
        else {
            return;
        };
        for (_, answer) in answers {
            check(acc, (*query, *size), truth, coverage, answer, failures);
        }
    }

    fn rows(self: Box<Self>) -> Vec<VariantAccuracy> {
        self.rows.into_iter().map(|(.., r)| r).collect()
    }
}

/// Checks one answer of a `(query, size)` variant for slice `i`; failures are appended as
/// sentences. An answer without the hits or buckets its variant asks for is wrong.
pub fn check(
    acc: &mut VariantAccuracy,
    (query, size): (LogsQuery, u32),
    truth: &LogsTruth,
    i: usize,
    answer: &Answer,
    failures: &mut Vec<String>,
) {
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
    if let Some(why) = answer.count_differs(count) {
        acc.count_wrong += 1;
        failures.push(format!("{who}: {why}"));
    }
    if size > 0 {
        match answer.sort_values() {
            Ok(hits) if hits == newest.0 => {}
            Ok(hits) => {
                acc.hits_wrong += 1;
                failures.push(format!(
                    "{who}: newest hits at {hits:?}, expected {:?}",
                    newest.0
                ));
            }
            Err(e) => {
                acc.hits_wrong += 1;
                failures.push(format!(
                    "{who}: {e}, expected newest hits at {:?}",
                    newest.0
                ));
            }
        }
    }
    let expected: Option<Vec<(String, u64)>> = match query {
        LogsQuery::Histogram => Some(t.minutes.iter().map(|(k, c)| (k.to_string(), *c)).collect()),
        LogsQuery::TopHosts => Some(t.top_hosts.clone()),
        LogsQuery::RangeTerms | LogsQuery::Match => None,
    };
    if let (Some(expected), Some(name)) = (expected, query.agg_name()) {
        // Empty minute buckets inside the range carry no information: compare the others.
        let got = answer
            .buckets(name)
            .map(|b| b.into_iter().filter(|(_, c)| *c > 0).collect::<Vec<_>>());
        match got {
            Ok(got) if got == expected => {}
            Ok(got) => {
                acc.buckets_wrong += 1;
                let first = got
                    .iter()
                    .zip(&expected)
                    .find(|(g, e)| g != e)
                    .map(|(g, e)| format!("first difference {g:?} vs {e:?}"))
                    .unwrap_or_else(|| {
                        format!("{} buckets, expected {}", got.len(), expected.len())
                    });
                failures.push(format!("{who}: wrong buckets: {first}"));
            }
            Err(e) => {
                acc.buckets_wrong += 1;
                failures.push(format!("{who}: wrong buckets: {e}"));
            }
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
        for (_, query, size) in SHAPES {
            let b = search_body(query, size, &s[1], true);
            let j: serde_json::Value = serde_json::from_slice(&b).expect("json");
            assert_eq!(j["size"], size);
            assert_eq!(j["sort"].is_array(), size > 0);
            assert_eq!(j["profile"], true);
            assert_eq!(j["aggs"].is_object(), query.agg_name().is_some());
        }
        let plan = LogsQueries::new(spec, 4);
        assert!(plan.bodies(&Variant::new("A"), 0, false).is_empty());
        assert_eq!(plan.beside().len(), 4 * SHAPES.len());
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
