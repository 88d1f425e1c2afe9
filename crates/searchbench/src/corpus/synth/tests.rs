use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::mapping::fields;
use super::Model;
use crate::rng::Rng;

fn docs(model: &Model, seed: u64, n: u64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let mut out = Vec::new();
            model.write(seed, i, &mut out);
            serde_json::from_slice(&out)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
        })
        .collect()
}

fn every_type() -> Value {
    json!({"mappings": {"properties": {
        "@timestamp": {"type": "date", "format": "epoch_second"},
        "when": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss"},
        "iso": {"type": "date"},
        "host": {"type": "keyword"},
        "kind": {"type": "constant_keyword", "value": "logs"},
        "message": {"type": "text"},
        "status": {"type": "integer"},
        "small": {"type": "byte"},
        "size": {"type": "long"},
        "ratio": {"type": "float"},
        "price": {"type": "scaled_float", "scaling_factor": 100},
        "ok": {"type": "boolean"},
        "clientip": {"type": "ip"},
        "loc": {"type": "geo_point"},
        "emb": {"type": "dense_vector", "dims": 4},
        "geo": {"properties": {"city": {"type": "keyword"}, "pop": {"type": "long"}}},
        "items": {"type": "nested", "properties": {"name": {"type": "keyword"}, "qty": {"type": "short"}}}
    }}})
}

#[test]
fn every_type_is_written_as_its_field_takes_it_without_a_sample() {
    let f = fields(&every_type()).unwrap_or_else(|e| panic!("{e}"));
    let model = Model::learn(&f, &[]);
    for d in docs(&model, 7, 300) {
        assert!(d["@timestamp"].is_i64(), "{d}");
        let when = d["when"].as_str().unwrap_or_default();
        assert_eq!(when.len(), 19, "{d}");
        assert!(d["iso"].as_str().is_some_and(|s| s.ends_with('Z')), "{d}");
        assert!(d["host"].is_string(), "{d}");
        assert_eq!(d["kind"], "logs");
        assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{d}");
        let small = d["small"].as_i64().unwrap_or(1000);
        assert!((-128..=127).contains(&small), "{d}");
        assert!(d["size"].is_i64() && d["status"].is_i64(), "{d}");
        assert!(d["ratio"].is_f64(), "{d}");
        let cents = d["price"].as_f64().unwrap_or(0.5) * 100.0;
        assert!((cents - cents.round()).abs() < 1e-6, "{d}");
        assert!(d["ok"].is_boolean(), "{d}");
        let ip = d["clientip"].as_str().unwrap_or_default();
        assert!(ip.parse::<std::net::IpAddr>().is_ok(), "{d}");
        let lat = d["loc"]["lat"].as_f64().unwrap_or(100.0);
        let lon = d["loc"]["lon"].as_f64().unwrap_or(200.0);
        assert!(lat.abs() <= 90.0 && lon.abs() <= 180.0, "{d}");
        assert_eq!(d["emb"].as_array().map(Vec::len), Some(4), "{d}");
        assert!(
            d["geo"]["city"].is_string() && d["geo"]["pop"].is_i64(),
            "{d}"
        );
        let items = d["items"].as_array().cloned().unwrap_or_default();
        assert!((1..=3).contains(&items.len()), "{d}");
        assert!(
            items
                .iter()
                .all(|i| i["name"].is_string() && i["qty"].is_i64()),
            "{d}"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_any_document_is_made_alone() {
    let f = fields(&every_type()).unwrap_or_else(|e| panic!("{e}"));
    let model = Model::learn(&f, &[]);
    let write = |seed, i| {
        let mut out = Vec::new();
        model.write(seed, i, &mut out);
        out
    };
    let all: Vec<Vec<u8>> = (0..50).map(|i| write(3, i)).collect();
    assert_eq!(all, (0..50).map(|i| write(3, i)).collect::<Vec<_>>());
    // Document 37 alone is document 37 of the run.
    assert_eq!(write(3, 37), all[37]);
    assert_ne!(write(4, 37), all[37]);
    // The model learned twice from one sample is the same model.
    let sample = sample(500);
    let f = fields(&sample_mapping()).unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (Model::learn(&f, &sample), Model::learn(&f, &sample));
    let bytes = |m: &Model| {
        let mut out = Vec::new();
        for i in 0..200 {
            m.write(1, i, &mut out);
        }
        out
    };
    assert_eq!(bytes(&a), bytes(&b));
}

fn sample_mapping() -> Value {
    json!({"properties": {
        "status": {"type": "integer"},
        "size": {"type": "long"},
        "user": {"type": "keyword"},
        "country": {"type": "keyword"},
        "referrer": {"type": "keyword"},
        "tags": {"type": "keyword"},
        "request": {"type": "text"},
        "ts": {"type": "date", "format": "epoch_millis"}
    }})
}

/// A sample with known statistics: status 200/404/500 at 80/15/5 %, size uniform up to
/// 100,000, a new user in every document, 12 countries, a referrer 30 % of the time, two tags,
/// requests of three words with the verb first, timestamps over one day.
fn sample(n: u64) -> Vec<Map<String, Value>> {
    let mut rng = Rng::new(99, 0);
    (0..n)
        .map(|i| {
            let status = match rng.below(100) {
                0..=79 => 200,
                80..=94 => 404,
                _ => 500,
            };
            let mut d = json!({
                "status": status,
                "size": rng.below(100_001),
                "user": format!("u{i:06}"),
                "country": format!("c{}", rng.below(12)),
                "tags": [format!("t{}", rng.below(5)), format!("t{}", rng.below(5))],
                "request": format!("{} /p/{} HTTP/1.1", ["GET", "POST"][rng.below(2) as usize], rng.below(50)),
                "ts": 1_700_000_000_000u64 + rng.below(86_400_000)
            });
            if rng.chance(0.3) {
                d["referrer"] = json!(format!("r{}", rng.below(40)));
            }
            d.as_object().cloned().unwrap_or_default()
        })
        .collect()
}

fn share(docs: &[Value], wanted: impl Fn(&Value) -> bool) -> f64 {
    docs.iter().filter(|d| wanted(d)).count() as f64 / docs.len() as f64
}

fn quantile(mut xs: Vec<f64>, q: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() - 1) as f64 * q) as usize]
}

#[test]
fn a_samples_statistics_are_reproduced() {
    let f = fields(&sample_mapping()).unwrap_or_else(|e| panic!("{e}"));
    let model = Model::learn(&f, &sample(4000));
    let out = docs(&model, 1, 20_000);
    // Terms by their frequency, and no term the sample does not have for a closed set.
    let s200 = share(&out, |d| d["status"] == 200);
    let s404 = share(&out, |d| d["status"] == 404);
    assert!(
        (s200 - 0.80).abs() < 0.02 && (s404 - 0.15).abs() < 0.02,
        "{s200} {s404}"
    );
    assert!(out
        .iter()
        .all(|d| [200, 404, 500].contains(&d["status"].as_i64().unwrap_or(0))));
    let countries: HashSet<String> = out.iter().map(|d| d["country"].to_string()).collect();
    assert_eq!(countries.len(), 12, "{countries:?}");
    // How often a field is missing.
    let missing = share(&out, |d| d.get("referrer").is_none());
    assert!((missing - 0.70).abs() < 0.02, "{missing}");
    // Arrays keep their length.
    assert!(out
        .iter()
        .all(|d| d["tags"].as_array().map(Vec::len) == Some(2)));
    // Numbers' and dates' quantiles within 5 % (of the range).
    let sizes: Vec<f64> = out.iter().filter_map(|d| d["size"].as_f64()).collect();
    for (q, want) in [(0.1, 10_000.0), (0.5, 50_000.0), (0.9, 90_000.0)] {
        let got = quantile(sizes.clone(), q);
        assert!((got - want).abs() < 5_000.0, "size q{q}: {got}");
    }
    assert!(out.iter().all(|d| d["size"].is_u64()));
    let ts: Vec<f64> = out.iter().filter_map(|d| d["ts"].as_f64()).collect();
    let day = quantile(ts.clone(), 1.0) - quantile(ts, 0.0);
    assert!((80_000_000.0..=86_400_000.0).contains(&day), "{day}");
    // Text: three words, the verb in first place.
    for d in &out {
        let words: Vec<&str> = d["request"]
            .as_str()
            .unwrap_or_default()
            .split(' ')
            .collect();
        assert_eq!(words.len(), 3, "{d}");
        assert!(["GET", "POST"].contains(&words[0]), "{d}");
    }
}

#[test]
fn a_vocabulary_grows_as_the_samples_did_and_a_closed_one_does_not() {
    let f = fields(&sample_mapping()).unwrap_or_else(|e| panic!("{e}"));
    // A new user in every one of 1,000 documents: 4,000 documents have about 4,000 users.
    let model = Model::learn(&f, &sample(1000));
    let out = docs(&model, 1, 4000);
    let users: HashSet<String> = out.iter().map(|d| d["user"].to_string()).collect();
    let ratio = users.len() as f64 / 4000.0;
    assert!((0.9..=1.0).contains(&ratio), "{} users", users.len());
    // New users look like the sample's: u and six digits.
    assert!(
        users.iter().all(|u| u.len() == 9 && u.starts_with("\"u")),
        "{users:?}"
    );
    let referrers: HashSet<String> = out
        .iter()
        .filter_map(|d| d.get("referrer"))
        .map(Value::to_string)
        .collect();
    assert!(
        referrers.len() <= 44,
        "a vocabulary of 40 stays near 40: {}",
        referrers.len()
    );
}

#[test]
fn dotted_keys_are_the_objects_the_engine_reads() {
    let doc =
        json!({"log.file.path": "/x", "log": {"level": "info"}, "a": {"b.c": [1, {"d.e": 2}]}});
    let expanded = super::expand_dots(doc.as_object().cloned().unwrap_or_default());
    assert_eq!(
        Value::Object(expanded),
        json!({"log": {"file": {"path": "/x"}, "level": "info"}, "a": {"b": {"c": [1, {"d": {"e": 2}}]}}})
    );
}

#[test]
fn dates_are_written_in_the_format_the_sample_used() {
    let f = fields(&json!({"properties": {
        "t": {"type": "date", "format": "strict_date_optional_time||epoch_second"}
    }}))
    .unwrap_or_else(|e| panic!("{e}"));
    let sample: Vec<Map<String, Value>> = (0..100)
        .map(|i| {
            json!({"t": 893_964_617 + i})
                .as_object()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let out = docs(&Model::learn(&f, &sample), 1, 50);
    assert!(
        out.iter()
            .all(|d| (893_964_617..893_964_717).contains(&d["t"].as_i64().unwrap_or(0))),
        "{out:?}"
    );
    // No sample: the first format of the list.
    let out = docs(&Model::learn(&f, &[]), 1, 5);
    assert!(out.iter().all(|d| d["t"].is_string()), "{out:?}");
}

#[test]
fn a_keyword_of_instants_in_order_grows_as_a_series_and_keeps_its_text() {
    let f = fields(&json!({ "properties": {
        "ingested": { "type": "keyword" }, "code": { "type": "keyword" } } }))
    .unwrap_or_else(|e| panic!("{e}"));
    // 1,000 instants a few seconds apart, some repeated (two documents ingested at once),
    // beside codes that are no instants.
    let sample: Vec<Map<String, Value>> = (0..1000u64)
        .map(|i| {
            let millis = 1_672_531_200_000 + (i / 4 * 4 + i % 2) * 2_731;
            let (days, rest) = (millis / 86_400_000, millis % 86_400_000);
            let (y, m, d) = crate::corpus::text::civil_from_days(days as i64);
            let text = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
                rest / 3_600_000,
                rest / 60_000 % 60,
                rest / 1000 % 60,
                rest % 1000
            );
            let mut doc = Map::new();
            doc.insert("ingested".into(), text.into());
            doc.insert("code".into(), format!("c{}", i % 50).into());
            doc
        })
        .collect();
    let distinct_in_sample: HashSet<&Value> = sample.iter().map(|d| &d["ingested"]).collect();
    let model = Model::learn(&f, &sample);
    let out = docs(&model, 1, 10_000);
    let ingested: HashSet<&str> = out.iter().filter_map(|d| d["ingested"].as_str()).collect();
    // The sample's share of distinct values, held at ten times its size.
    let share = |n: usize, of: usize| n as f64 / of as f64;
    let (want, got) = (
        share(distinct_in_sample.len(), 1000),
        share(ingested.len(), 10_000),
    );
    assert!(got > want * 0.9, "{got} distinct a document against {want}");
    assert!(
        ingested.iter().all(|t| t.len() == 24 && t.ends_with('Z')),
        "{ingested:?}"
    );
    let last = ingested.iter().max().copied().unwrap_or_default();
    assert!(
        last > "2023-01-01T06:00",
        "ten times the documents span ten times the time: {last}"
    );
    let codes: HashSet<&str> = out.iter().filter_map(|d| d["code"].as_str()).collect();
    assert!(codes.len() <= 55, "codes stay terms: {}", codes.len());
}

#[test]
fn a_sample_line_longer_than_the_bound_is_refused_not_held_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.ndjson");
    let mut text = String::from("{\"k\":\"");
    text.push_str(&"a".repeat(super::SAMPLE_MAX_LINE + 1));
    text.push_str("\"}\n{\"k\":\"b\"}\n");
    std::fs::write(&path, text).unwrap();
    let e = super::read_sample(&path).unwrap_err().to_string();
    assert!(
        e.contains("sample.ndjson:1:") && e.contains("more than 16 MiB"),
        "{e}"
    );
    // A line within the bound is read.
    std::fs::write(&path, "{\"k\":\"b\"}\n").unwrap();
    assert_eq!(super::read_sample(&path).unwrap().len(), 1);
}
