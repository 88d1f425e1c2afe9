//! `logs`: CloudWatch-style syslog documents shaped like the sample of the date-parsing profile (docs/architecture.md) (the
//! corpus Elastic's OpenSearch comparison used), about 1 KB each.
//!
//! Cardinalities are chosen to look like a real fleet: 25 regions, 7 processes, 10 agents,
//! 300 hosts and 600 log streams (each stream belongs to one host and one log group), with
//! skewed popularity. `@timestamp` spreads evenly over the window, mostly increasing, with
//! about one document in five arriving up to three seconds late; the CloudWatch ingestion
//! time and `event.ingested` follow it by a few seconds.
//!
//! Everything that does not change per document is rendered once into byte fragments, so a
//! document is a handful of copies, three timestamps (calendar math only when the second
//! changes) and a run of words.

use super::text::{push_padded, push_u64, TsCache};
use super::words::{LOG_GROUPS, MESSAGE, NAMES, PROCESSES, REGIONS};
use super::{CorpusError, DocSource, Item};
use crate::rng::Rng;

/// 2023-01-01T00:00:00Z, the default start (a fixed instant, never the clock).
pub const DEFAULT_START_MS: i64 = 1_672_531_200_000;
/// One day.
pub const DEFAULT_WINDOW_MS: u64 = 86_400_000;

const HOSTS: usize = 300;
/// Most words in a message.
const MAX_WORDS: usize = 53;
/// A message word (at most 15 bytes) and its leading space fit in one padded slot.
const SLOT: usize = 16;
const STREAMS: usize = 600;
const AGENTS: usize = 10;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsSpec {
    pub seed: u64,
    pub docs: u64,
    /// Epoch milliseconds of the first `@timestamp`.
    pub start_ms: i64,
    /// `@timestamp`s spread over `[start, start + window)`.
    pub window_ms: u64,
}

impl LogsSpec {
    pub fn new(seed: u64, docs: u64) -> Self {
        LogsSpec {
            seed,
            docs,
            start_ms: DEFAULT_START_MS,
            window_ms: DEFAULT_WINDOW_MS,
        }
    }
}

#[derive(Debug)]
struct Stream {
    /// `","aws.cloudwatch":{"log_stream":"S","ingestion_time":"`
    head: Vec<u8>,
    /// `","log_group":"G"},"cloud":{"region":"R"},"log.file.path":"G/S","input":...,"process":{"name":"`
    tail: Vec<u8>,
    host: usize,
}

#[derive(Debug)]
struct Host {
    /// `ip-a-b-c-d `
    ip: Vec<u8>,
    /// `","dataset":"generic"},"host":{"name":"H"},"metrics":{"size":`
    frag: Vec<u8>,
    agent: usize,
}

/// The `logs` generator.
#[derive(Debug)]
pub struct Logs {
    spec: LogsSpec,
    produced: u64,
    rng: Rng,
    streams: Vec<Stream>,
    hosts: Vec<Host>,
    /// `,"agent":{...},"tags":["preserve_original_event"]}` per agent.
    agents: Vec<Vec<u8>>,
    ts: TsCache,
    ingest_ts: TsCache,
    event_ts: TsCache,
    /// ` word` for each message word, zero-padded to [`SLOT`] bytes so that appending one is
    /// a single fixed-size copy, with its length.
    words: Vec<([u8; SLOT], usize)>,
    /// Where the message's words are assembled before one copy into the body.
    scratch: Box<[u8; MAX_WORDS * SLOT + SLOT]>,
    /// `floor(produced × window / docs)`, the next document's offset in the window, kept
    /// as quotient and remainder and stepped by `window / docs` (exact, no 128-bit division
    /// per document).
    base: u64,
    base_rem: u128,
    step: u64,
    step_rem: u128,
}

/// `n` distinct two-word names, in a seed-dependent order.
fn names(rng: &mut Rng, n: usize, skip: usize) -> Vec<String> {
    let w = NAMES.len();
    let mut combos: Vec<u32> = (0..(w * w) as u32).collect();
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while out.len() < n {
        let j = i + rng.below((combos.len() - i) as u64) as usize;
        combos.swap(i, j);
        let c = combos[i] as usize;
        i += 1;
        let (a, b) = (c / w, c % w);
        if a == b || (a + b) % 3 == skip {
            continue; // keep host, stream and agent names from colliding
        }
        out.push(format!("{}{}", NAMES[a], NAMES[b]));
    }
    out
}

fn uuid(rng: &mut Rng) -> String {
    let hi = rng.next_u64();
    let lo = rng.next_u64();
    let hi = (hi & !0xF000) | 0x4000; // version 4
    let lo = (lo & !(0xC << 60)) | (0x8 << 60); // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}

impl Logs {
    pub fn new(spec: LogsSpec) -> Result<Self, CorpusError> {
        if spec.docs == 0 {
            return Err(CorpusError::Invalid("--docs must be at least 1".into()));
        }
        if spec.window_ms == 0 {
            return Err(CorpusError::Invalid("--window must be positive".into()));
        }
        let mut t = Rng::new(spec.seed, 11);
        let agent_names = names(&mut t, AGENTS, 0);
        let agents = agent_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let version = if i < 2 { "8.7.1" } else { "8.8.0" };
                format!(
                    ",\"agent\":{{\"id\":\"{}\",\"name\":\"{}\",\"type\":\"filebeat\",\
                     \"version\":\"{}\",\"ephemeral_id\":\"{}\"}},\
                     \"tags\":[\"preserve_original_event\"]}}",
                    uuid(&mut t),
                    name,
                    version,
                    uuid(&mut t)
                )
                .into_bytes()
            })
            .collect();
        let host_names = names(&mut t, HOSTS, 1);
        let hosts: Vec<Host> = host_names
            .iter()
            .map(|name| {
                let ip = format!(
                    "ip-{}-{}-{}-{} ",
                    t.range(3, 223),
                    t.below(256),
                    t.below(256),
                    t.range(1, 254)
                )
                .into_bytes();
                Host {
                    ip,
                    frag: format!(
                        "\",\"dataset\":\"generic\"}},\"host\":{{\"name\":\"{name}\"}},\
                         \"metrics\":{{\"size\":"
                    )
                    .into_bytes(),
                    agent: t.below(AGENTS as u64) as usize,
                }
            })
            .collect();
        let host_region: Vec<usize> = (0..HOSTS).map(|_| t.skewed(REGIONS.len())).collect();
        let stream_names = names(&mut t, STREAMS, 2);
        let streams = stream_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                // Every host has at least one stream; the rest go to popular hosts.
                let host = if i < HOSTS { i } else { t.skewed(HOSTS) };
                let group = LOG_GROUPS[t.skewed(LOG_GROUPS.len())];
                let region = REGIONS[host_region[host]];
                Stream {
                    head: format!(
                        "\",\"aws.cloudwatch\":{{\"log_stream\":\"{name}\",\"ingestion_time\":\""
                    )
                    .into_bytes(),
                    tail: format!(
                        "\",\"log_group\":\"{group}\"}},\"cloud\":{{\"region\":\"{region}\"}},\
                         \"log.file.path\":\"{group}/{name}\",\"input\":{{\"type\":\"aws-cloudwatch\"}},\
                         \"data_stream\":{{\"namespace\":\"default\",\"type\":\"logs\",\"dataset\":\"generic\"}},\
                         \"process\":{{\"name\":\""
                    )
                    .into_bytes(),
                    host,
                }
            })
            .collect();
        let words = MESSAGE
            .iter()
            .map(|w| {
                let mut slot = [0u8; SLOT];
                slot[0] = b' ';
                slot[1..=w.len()].copy_from_slice(w.as_bytes());
                (slot, w.len() + 1)
            })
            .collect();
        let (docs, window) = (spec.docs as u128, spec.window_ms as u128);
        Ok(Logs {
            rng: Rng::new(spec.seed, 12),
            words,
            scratch: Box::new([0; MAX_WORDS * SLOT + SLOT]),
            base: 0,
            base_rem: 0,
            // window / docs ≤ window: fits in u64.
            step: (window / docs) as u64,
            step_rem: window % docs,
            spec,
            produced: 0,
            streams,
            hosts,
            agents,
            ts: TsCache::default(),
            ingest_ts: TsCache::default(),
            event_ts: TsCache::default(),
        })
    }

    pub fn spec(&self) -> &LogsSpec {
        &self.spec
    }

    /// Appends one document.
    #[inline]
    fn write_doc(&mut self, out: &mut Vec<u8>) {
        let r = &mut self.rng;
        // Even spread over the window (floor(i × window / docs), stepped exactly) plus late
        // arrivals, never before the start.
        let base = self.base as i64;
        self.base += self.step;
        self.base_rem += self.step_rem;
        if self.base_rem >= self.spec.docs as u128 {
            self.base_rem -= self.spec.docs as u128;
            self.base += 1;
        }
        let x = r.next_u64();
        let late = if x & 0xF < 3 {
            ((x >> 4) & 0xFFF) as i64 % 3000
        } else {
            0
        };
        let ts = self.spec.start_ms + (base - late).max(0);
        let ingest = ts + 200 + ((x >> 16) & 0xFFF) as i64; // +0.2 .. 4.3 s
        let event = ingest + 10 + ((x >> 28) & 0x7FF) as i64; // +10 ms .. 2 s
        let event_ns = ((x >> 39) & 0xF_FFFF) as u32 % 1_000_000;

        let stream = &self.streams[r.skewed(STREAMS)];
        let host = &self.hosts[stream.host];
        let process = PROCESSES[r.skewed(PROCESSES.len())].as_bytes();

        out.extend_from_slice(b"{\"@timestamp\":\"");
        self.ts.push_iso_ms(out, ts);
        out.extend_from_slice(&stream.head);
        self.ingest_ts.push_iso_ms(out, ingest);
        out.extend_from_slice(&stream.tail);
        out.extend_from_slice(process);
        out.extend_from_slice(b"\"},\"message\":\"");
        let msg_start = out.len();
        self.ts.push_iso_ms(out, ts);
        out.push(b' ');
        self.ts.push_syslog(out, ts);
        out.push(b' ');
        out.extend_from_slice(&host.ip);
        out.extend_from_slice(process);
        out.extend_from_slice(b":");
        // 22..=53 words (documents of ~1 KB), four per random draw.
        let y = r.next_u64();
        let words = 22 + (y & 31) as usize;
        let mut bits = 0u64;
        let mut pos = 0;
        let scratch = &mut self.scratch;
        for w in 0..words {
            if w % 4 == 0 {
                bits = r.next_u64();
            }
            let idx = ((bits & 0xFFFF) * MESSAGE.len() as u64) >> 16;
            bits >>= 16;
            let (slot, len) = &self.words[idx as usize];
            scratch[pos..pos + SLOT].copy_from_slice(slot);
            pos += len;
        }
        out.extend_from_slice(&scratch[..pos]);
        let msg_len = out.len() - msg_start;
        out.extend_from_slice(b"\",\"event\":{\"id\":\"");
        let z = r.next_u64();
        let n = NAMES.len() as u64;
        out.extend_from_slice(NAMES[(((z & 0xFFFF) * n) >> 16) as usize].as_bytes());
        out.extend_from_slice(NAMES[((((z >> 16) & 0xFFFF) * n) >> 16) as usize].as_bytes());
        out.extend_from_slice(b"\",\"ingested\":\"");
        self.event_ts.push_iso_ns(out, event, event_ns);
        out.extend_from_slice(&host.frag);
        // metrics.size: the raw event size in bytes (message plus framing); tmin: 0..=15.
        push_u64(out, msg_len as u64 + ((z >> 32) & 0x7FF));
        out.extend_from_slice(b",\"tmin\":");
        let tmin = ((z >> 48) & 0xF) * ((z >> 52) & 0x3) / 3;
        push_padded(out, tmin, if tmin >= 10 { 2 } else { 1 });
        out.push(b'}');
        out.extend_from_slice(&self.agents[host.agent]);
    }
}

impl DocSource for Logs {
    #[inline]
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.produced >= self.spec.docs {
            return Ok(None);
        }
        self.write_doc(out);
        self.produced += 1;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.spec.docs - self.produced)
    }

    fn describe(&self) -> String {
        format!("logs (seed {}, {} docs)", self.spec.seed, self.spec.docs)
    }
}
