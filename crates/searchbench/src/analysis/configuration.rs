//! What makes two stored runs "the same configuration": the same kind of run, the same
//! workload, the same stored configuration apart from the engine, the seed and the tags, and
//! the same class of machine (its CPU model, cores and memory): the same flags on a 64-core
//! server and on a 2-core laptop measure two different things. A history, a matrix and a
//! change point only make sense within one configuration; a view pools machine classes only
//! when asked (`--any-machine`, [`Machines::Any`]), and says so.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::store::RunRow;

/// Keys of a run's stored configuration that name the engine (its name or local folder), the
/// seed, or the group of a run split in parts (each night's group has its own id) rather than
/// what was measured: they do not make it another configuration.
const IGNORED: [&str; 4] = ["engine", "engine_dir", "seed", "group"];

/// The identity of a run's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Configuration {
    /// A short, stable name: the first 8 hex digits of a hash of the rest.
    pub id: String,
    pub kind: String,
    pub workload: String,
    /// The stored configuration without the ignored keys, the corpus seed masked.
    pub config: Value,
}

/// Whether machine classes are configurations apart (the default) or pooled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Machines {
    #[default]
    Apart,
    /// `--any-machine`: runs of one configuration on any machine are one configuration.
    Any,
}

/// The configuration key of the machine class a run was made on.
pub const MACHINE_KEY: &str = "machine";

/// A machine's class: its CPU model, cores and memory (to the GiB: the kernel's share of it
/// moves between boots); `None` for a run that does not say (stored without a machine).
pub fn machine_class(machine: &Value) -> Option<String> {
    let m = crate::measure::machine::Machine::read(machine);
    if m.cores == 0 && m.cpu_model.is_empty() {
        return None;
    }
    let memory = m.memory_bytes.map_or_else(
        || "memory ?".into(),
        // Rounded to the nearest GiB, without adding (a made-up machine may say 2^64 - 1).
        |b| format!("{} GiB", (b >> 30) + ((b >> 29) & 1)),
    );
    Some(format!("{}, {} cores, {memory}", m.cpu_model, m.cores))
}

impl Configuration {
    /// The configuration of `row`, machine classes apart.
    pub fn of(row: &RunRow) -> Configuration {
        Configuration::with(row, Machines::Apart)
    }

    /// The configuration of `row`, its machine class in it unless `machines` pools them.
    pub fn with(row: &RunRow, machines: Machines) -> Configuration {
        let mut config = row.config.clone();
        if let Some(map) = config.as_object_mut() {
            for key in IGNORED {
                map.remove(key);
            }
            if let Some(Value::String(corpus)) = map.get_mut("corpus") {
                *corpus = mask_seed(corpus);
            }
            // A synthesized file's seed, like a generated corpus's, is not what was measured.
            if let Some(Value::Array(files)) = map.get_mut(crate::store::SYNTHESIZED) {
                for file in files.iter_mut().filter_map(Value::as_object_mut) {
                    file.remove("seed");
                }
            }
            // A run too short for its warm-up is still a run of what was asked: a property of
            // the run, never another configuration (the same command twice on a busy machine
            // would otherwise give one of each). Verdicts and change points leave it out where
            // steady runs stand for the configuration, and say so ([`judged`]).
            // A node warmed before the load measures its steady speed; one measured as it
            // came up (or a cluster given by URL, in whatever state) measures something else:
            // a group never pools the two (a warmed night against a cold one would read the
            // JIT's warm-up as a speed-up).
            if warmed_node(row) {
                map.insert(WARM_KEY.into(), WARMED.into());
            }
            if let (Machines::Apart, Some(class)) = (machines, machine_class(&row.machine)) {
                map.insert(MACHINE_KEY.into(), class.into());
            }
        }
        let canonical = format!("{}\n{}\n{}", row.kind, row.workload, canonical(&config));
        Configuration {
            id: format!("{:08x}", crate::rng::fnv1a([canonical.as_bytes()]) as u32),
            kind: row.kind.clone(),
            workload: row.workload.clone(),
            config,
        }
    }

    /// Whether its runs loaded a synthesized corpus ([`RunRow::synthesized`]).
    pub fn synthesized(&self) -> bool {
        self.config
            .get(crate::store::SYNTHESIZED)
            .and_then(Value::as_array)
            .is_some_and(|files| !files.is_empty())
    }

    /// A one-line description for a table: kind, workload and the usual knobs.
    pub fn summary(&self) -> String {
        let get = |k: &str| self.config.get(k).filter(|v| !v.is_null());
        let mut parts = vec![format!("{} {}", self.kind, self.workload)];
        if self.synthesized() {
            parts.push(crate::store::SYNTHESIZED_CORPUS.into());
        }
        if let Some(c) = get("corpus").and_then(Value::as_str) {
            parts.push(c.to_string());
        }
        for (key, label) in [
            ("clients", "clients"),
            ("bulk_docs", "bulk"),
            ("heap", "heap"),
            ("nodes", "nodes"),
        ] {
            if let Some(v) = get(key) {
                parts.push(format!("{label} {}", v.to_string().trim_matches('"')));
            }
        }
        parts.join(", ")
    }
}

/// The configuration key that says the node was warmed before the run's load.
pub const WARM_KEY: &str = "warm_node";

const WARMED: &str = "warmed before the load";

/// Whether the run measured a node at its steady speed from its first document: one warmed
/// before its load (its result says how), or a node that is no JVM (the sketch store), with
/// no JIT to warm (a matrix of an engine beside it is one configuration, as before).
pub fn warmed_node(row: &RunRow) -> bool {
    let warmed = super::said::Said::of(row)
        .warm_up
        .is_some_and(|w| w.is_object());
    let no_jit = || {
        let engine = row.engine.as_deref().unwrap_or_default();
        let word = engine.split_once('-').map_or(engine, |(word, _)| word);
        crate::cluster::Product::from_word(word).is_some_and(|p| !p.traits().jvm)
    };
    warmed || no_jit()
}

/// Why a run's headline is the whole run's rather than a steady window's: it asked for a
/// warm-up and was too short to leave one out. `None` for a steady headline, or a run with
/// no warm-up asked (`--warmup 0`: the whole run is what was asked for).
pub fn whole_run_headline(row: &RunRow) -> Option<String> {
    let h = super::said::Said::of(row).headline?;
    let asked = h.warmup_secs;
    (asked > 0.0 && !h.warmup_applied)
        .then(|| format!("whole run, too short for its {asked:.0} s warm-up (no steady headline)"))
}

/// The runs of one configuration a verdict or a change point leans on, and those it leaves
/// out, named (`id (whole run, too short for its 10 s warm-up (no steady headline): left out
/// of verdicts)`). A run too short for its warm-up measured its whole run, warm-up included:
/// beside runs with a steady headline it stands for nothing they measured, so it is left out;
/// runs that are all short are one measure, kept (a side of them is judged on its whole-run
/// figures, and said so: [`whole_run_headline`]).
pub fn judged<T>(runs: Vec<T>, row: impl Fn(&T) -> &RunRow) -> (Vec<T>, Vec<String>) {
    if runs.iter().all(|r| whole_run_headline(row(r)).is_some()) {
        return (runs, Vec::new());
    }
    let mut left_out = Vec::new();
    let mut kept = Vec::new();
    for r in runs {
        match whole_run_headline(row(&r)) {
            Some(why) => left_out.push(format!("{} ({why}: {LEFT_OUT})", row(&r).id)),
            None => kept.push(r),
        }
    }
    (kept, left_out)
}

/// What a view says of a run [`judged`] leaves out.
pub const LEFT_OUT: &str = "left out of verdicts";

/// Whether two runs are one configuration.
pub fn same(a: &RunRow, b: &RunRow) -> bool {
    same_with(a, b, Machines::Apart)
}

/// Whether two runs are one configuration, machine classes apart or pooled.
pub fn same_with(a: &RunRow, b: &RunRow, machines: Machines) -> bool {
    let (a, b) = (
        Configuration::with(a, machines),
        Configuration::with(b, machines),
    );
    a.kind == b.kind && a.workload == b.workload && a.config == b.config
}

/// The configuration keys (dotted paths) whose values differ between `a` and `b`, with both
/// values: `clients: 2 vs 4`. Kind and workload first.
pub fn differences(a: &Configuration, b: &Configuration) -> Vec<String> {
    let mut out = Vec::new();
    if a.kind != b.kind {
        out.push(format!("kind: {} vs {}", a.kind, b.kind));
    }
    if a.workload != b.workload {
        out.push(format!("workload: {} vs {}", a.workload, b.workload));
    }
    let too_large = |c: &Value| flattened_len(c, 0) > MOST_FLATTENED;
    if too_large(&a.config) || too_large(&b.config) {
        if a.config != b.config {
            out.push("configuration: differs (too large to list key by key)".into());
        }
        return out;
    }
    let (fa, fb) = (flatten(&a.config), flatten(&b.config));
    let keys: std::collections::BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    for k in keys {
        let (va, vb) = (fa.get(k), fb.get(k));
        if va != vb {
            let show = |v: Option<&String>| v.cloned().unwrap_or_else(|| "-".into());
            out.push(format!("{k}: {} vs {}", show(va), show(vb)));
        }
    }
    out
}

fn flatten(v: &Value) -> BTreeMap<String, String> {
    fn walk(prefix: &str, v: &Value, out: &mut BTreeMap<String, String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk("", v, &mut out);
    out
}

/// JSON with object keys sorted (serde_json's map already is a BTreeMap, but say so here
/// rather than rely on a feature flag).
fn canonical(v: &Value) -> String {
    // A configuration read back that no run writes (a long key over many others, from a
    // store or an imported file) would flatten to far more than it holds: it is named by its
    // own text instead (every configuration a run writes flattens to a few KiB).
    if flattened_len(v, 0) > MOST_FLATTENED {
        return v.to_string();
    }
    flatten(v)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The most bytes of keys a configuration flattens to before it is named by its text.
const MOST_FLATTENED: usize = 16 << 20;

/// The bytes of the keys [`flatten`] would make of `v` under a prefix of `prefix` bytes,
/// counted without making them (stopping once past [`MOST_FLATTENED`]).
fn flattened_len(v: &Value, prefix: usize) -> usize {
    match v {
        Value::Object(map) => {
            let mut n = 0usize;
            for (k, v) in map {
                n = n.saturating_add(flattened_len(v, prefix.saturating_add(1 + k.len())));
                if n > MOST_FLATTENED {
                    break;
                }
            }
            n
        }
        _ => prefix,
    }
}

/// `logs (seed 7, 1000 docs)` → `logs (seed *, 1000 docs)`.
fn mask_seed(corpus: &str) -> String {
    let mut out = String::with_capacity(corpus.len());
    let mut rest = corpus;
    while let Some(at) = rest.find("seed ") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('*');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A configuration read back that would flatten to far more than it holds (a 1 MiB key
    /// over 100,000 others: 100 GB of keys) is named by its text and compared whole; one a
    /// run writes is named by its keys as before.
    #[test]
    fn a_configuration_that_would_flatten_past_its_bound_is_named_by_its_text() {
        let inner: serde_json::Map<String, Value> =
            (0..100_000).map(|i| (format!("k{i}"), json!(i))).collect();
        let huge = json!({ "x".repeat(1 << 20): inner });
        assert!(flattened_len(&huge, 0) > MOST_FLATTENED);
        assert_eq!(canonical(&huge), huge.to_string());
        assert_eq!(canonical(&json!({"a": {"b": 1}, "c": 2})), "a.b=1\nc=2");
        let config = |c: Value| Configuration {
            id: String::new(),
            kind: "ingest".into(),
            workload: "logs".into(),
            config: c,
        };
        let said = differences(&config(huge.clone()), &config(json!({})));
        assert_eq!(
            said,
            ["configuration: differs (too large to list key by key)"]
        );
        assert!(differences(&config(huge.clone()), &config(huge)).is_empty());
    }

    #[test]
    fn a_machines_memory_is_rounded_to_the_nearest_gib_whatever_it_says() {
        let class = |bytes: u64| {
            machine_class(&json!({"cores": 2, "cpu_model": "x", "memory_bytes": bytes})).unwrap()
        };
        assert_eq!(class((1 << 30) - 1), "x, 2 cores, 1 GiB");
        assert_eq!(class(3 << 29), "x, 2 cores, 2 GiB");
        assert_eq!(class((1 << 29) - 1), "x, 2 cores, 0 GiB");
        // A made-up machine (a result imported from a file that lies) is named, not a panic.
        assert_eq!(class(u64::MAX), "x, 2 cores, 17179869184 GiB");
    }

    fn row(engine: &str, seed: u64, clients: u64) -> RunRow {
        RunRow {
            id: crate::store::RunId("0000abcd".into()),
            kind: "run".into(),
            workload: "logs".into(),
            engine: Some(engine.into()),
            status: "complete".into(),
            state: crate::store::State::Complete,
            started_unix: 0,
            finished_unix: None,
            tool_version: "0".into(),
            seed: Some(seed),
            pid: None,
            machine: Value::Null,
            config: json!({"engine": engine, "seed": seed, "clients": clients,
                "corpus": format!("logs (seed {seed}, 1000 docs)"),
                "load_settings": {"replicas": null}}),
            tags: Default::default(),
            error: None,
            result: None,
        }
    }

    #[test]
    fn engine_and_seed_do_not_make_another_configuration() {
        let a = Configuration::of(&row("opensearch-2.11.0", 1, 2));
        let b = Configuration::of(&row("opensearch-2.19.1", 7, 2));
        assert_eq!(a, b);
        assert_eq!(a.id.len(), 8);
        let c = Configuration::of(&row("opensearch-2.19.1", 1, 4));
        assert_ne!(a.id, c.id);
        assert_eq!(differences(&a, &c), vec!["clients: 2 vs 4".to_string()]);
        assert!(a.summary().contains("clients 2"), "{}", a.summary());
        assert!(a.summary().contains("seed *"), "{}", a.summary());
    }

    #[test]
    fn a_synthesized_corpus_is_another_configuration_whatever_its_seed() {
        let synthesized = |seed: u64, docs: u64| {
            let mut r = row("opensearch-2.19.1", 1, 2);
            r.config[crate::store::SYNTHESIZED] = json!([{"corpus": "logs", "file": "d.json.bz2", "documents": docs, "sample_docs": 0, "seed": seed}]);
            r
        };
        let real = Configuration::of(&row("opensearch-2.19.1", 1, 2));
        let (a, b) = (
            Configuration::of(&synthesized(1, 1000)),
            Configuration::of(&synthesized(9, 1000)),
        );
        assert_eq!(
            a, b,
            "the seed of a synthesized file is not what was measured"
        );
        assert_ne!(a.id, real.id);
        assert!(a.synthesized() && !real.synthesized());
        assert!(
            a.summary().contains("synthesized corpus"),
            "{}",
            a.summary()
        );
        assert!(!differences(&real, &a).is_empty());
        assert_ne!(
            a.id,
            Configuration::of(&synthesized(1, 2000)).id,
            "its documents are"
        );
        assert!(synthesized(1, 1000)
            .workload_shown()
            .ends_with("(synthesized corpus)"));
        assert_eq!(row("x", 1, 2).workload_shown(), "logs");
    }

    #[test]
    fn seeds_are_masked_in_corpus_descriptions() {
        assert_eq!(mask_seed("logs (seed 12, 5 docs)"), "logs (seed *, 5 docs)");
        assert_eq!(mask_seed("NDJSON file a.json"), "NDJSON file a.json");
        assert_eq!(mask_seed("seed x"), "seed x");
    }
}
