//! Built-in generators and file readers, in process: determinism, document shape, ground
//! truth against a brute-force recomputation, CSV round trip, bad-line reporting.

use std::collections::BTreeMap;
use std::io::Write;

use searchbench::corpus::cluster_metrics::{percentile_sorted, stored_f32};
use searchbench::corpus::files::{CsvReader, NdjsonReader};
use searchbench::corpus::{DocSource, Item};
use searchbench::workload::{self, WorkloadSpec};
use serde_json::Value;

/// All documents of a source, newline-separated, as the CLI writes them.
fn drain(source: &mut dyn DocSource) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(item) = source.next_into(&mut out).expect("generator error") {
        assert_eq!(item, Item::Doc);
        out.push(b'\n');
    }
    out
}

fn generate(name: &str, seed: u64, docs: u64) -> Vec<u8> {
    let mut spec = WorkloadSpec::new(seed);
    spec.docs = Some(docs);
    if name == "cluster-metrics" {
        spec.params.rows_per_epoch = Some(1000);
    }
    let mut opened = workload::find(name)
        .expect("workload")
        .open(&spec)
        .expect("open");
    drain(opened.source.as_mut())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn parse_lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("every generated line is JSON"))
        .collect()
}

#[test]
fn same_seed_same_bytes_different_seed_different_bytes() {
    for name in workload::names() {
        let a = generate(name, 7, 3000);
        let b = generate(name, 7, 3000);
        let c = generate(name, 8, 3000);
        assert!(!a.is_empty(), "{name}");
        assert_eq!(a, b, "{name}: same seed must give the same bytes");
        assert_ne!(a, c, "{name}: another seed must give other bytes");
        assert_eq!(parse_lines(&a).len(), 3000, "{name}: one document per line");
    }
}

/// Pins the bytes themselves, so a change in the PRNG, a table or a formatter (or a platform
/// difference) shows up as a failure rather than as silently different benchmarks.
#[test]
fn golden_hashes_pin_the_corpus() {
    let got: Vec<(&str, u64)> = workload::names()
        .into_iter()
        .map(|n| (n, fnv1a(&generate(n, 1, 500))))
        .collect();
    let want = [
        ("logs", GOLDEN_LOGS),
        ("cluster-metrics", GOLDEN_METRICS),
        ("transactions", GOLDEN_TRANSACTIONS),
        ("many-shards", GOLDEN_AUDITBEAT),
        ("snapshots", GOLDEN_AUDITBEAT),
        ("numbers", GOLDEN_NUMBERS),
        ("vectors", GOLDEN_VECTORS),
    ];
    assert_eq!(got, want);
}

const GOLDEN_LOGS: u64 = 11159736876112906667;
const GOLDEN_METRICS: u64 = 7238352078838786805;
const GOLDEN_TRANSACTIONS: u64 = 7745091498843816750;
const GOLDEN_AUDITBEAT: u64 = 15210255941997297721;
const GOLDEN_NUMBERS: u64 = 13062183013560015604;
const GOLDEN_VECTORS: u64 = 8695329494451056693;

fn get<'a>(doc: &'a Value, path: &[&str]) -> &'a Value {
    let mut v = doc;
    for key in path {
        v = v
            .get(key)
            .unwrap_or_else(|| panic!("missing {path:?} in {doc}"));
    }
    v
}

fn is_iso_ms(s: &str) -> bool {
    // 2023-01-01T05:09:40.000Z
    let b = s.as_bytes();
    b.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z'
}

#[test]
fn logs_documents_have_every_field_with_the_right_type() {
    let docs = parse_lines(&generate("logs", 3, 2000));
    let mut regions = std::collections::BTreeSet::new();
    let mut processes = std::collections::BTreeSet::new();
    let mut agents = std::collections::BTreeSet::new();
    let mut hosts = std::collections::BTreeSet::new();
    let mut streams = std::collections::BTreeSet::new();
    let mut total_len = 0usize;
    let mut previous = String::new();
    let mut decreasing = 0;
    for d in &docs {
        total_len += d.to_string().len();
        let ts = get(d, &["@timestamp"]).as_str().expect("@timestamp string");
        assert!(is_iso_ms(ts), "{ts}");
        if ts < previous.as_str() {
            decreasing += 1;
        }
        previous = ts.to_string();
        let cw = get(d, &["aws.cloudwatch"]);
        let stream = get(cw, &["log_stream"]).as_str().expect("log_stream");
        assert!(is_iso_ms(
            get(cw, &["ingestion_time"])
                .as_str()
                .expect("ingestion_time")
        ));
        let group = get(cw, &["log_group"]).as_str().expect("log_group");
        assert_eq!(
            get(d, &["log.file.path"]).as_str(),
            Some(format!("{group}/{stream}").as_str())
        );
        regions.insert(
            get(d, &["cloud", "region"])
                .as_str()
                .expect("region")
                .to_string(),
        );
        assert_eq!(get(d, &["input", "type"]), "aws-cloudwatch");
        assert_eq!(get(d, &["data_stream", "namespace"]), "default");
        assert_eq!(get(d, &["data_stream", "type"]), "logs");
        assert_eq!(get(d, &["data_stream", "dataset"]), "generic");
        let process = get(d, &["process", "name"]).as_str().expect("process");
        processes.insert(process.to_string());
        let message = get(d, &["message"]).as_str().expect("message");
        // "<own @timestamp> Mon DD HH:MM:SS ip-a-b-c-d process: words"
        assert!(message.starts_with(ts), "{message}");
        let rest = &message[25..];
        assert_eq!(&rest[3..4], " ");
        assert_eq!(&rest[6..7], " ");
        assert_eq!(&rest[7..15], &ts[11..19]);
        assert!(rest[16..].starts_with("ip-"), "{message}");
        assert!(message.contains(&format!(" {process}: ")), "{message}");
        assert!(get(d, &["event", "id"]).is_string());
        let ingested = get(d, &["event", "ingested"]).as_str().expect("ingested");
        assert_eq!(ingested.len(), 30, "9-digit fraction: {ingested}");
        assert!(ingested.ends_with('Z'));
        assert_eq!(get(d, &["event", "dataset"]), "generic");
        let host = get(d, &["host", "name"]).as_str().expect("host");
        hosts.insert(host.to_string());
        assert!(get(d, &["metrics", "size"]).is_u64());
        assert!(get(d, &["metrics", "tmin"]).is_u64());
        let agent = get(d, &["agent"]);
        for k in ["id", "ephemeral_id"] {
            let u = get(agent, &[k]).as_str().expect("uuid");
            assert_eq!(u.len(), 36);
            assert_eq!(&u[14..15], "4", "uuid v4: {u}");
        }
        assert!(get(agent, &["name"]).is_string());
        assert_eq!(get(agent, &["type"]), "filebeat");
        assert!(get(agent, &["version"]).is_string());
        agents.insert(get(agent, &["id"]).as_str().unwrap_or_default().to_string());
        assert_eq!(
            get(d, &["tags"]),
            &serde_json::json!(["preserve_original_event"])
        );
        streams.insert(stream.to_string());
    }
    let avg = total_len / docs.len();
    assert!((850..=1250).contains(&avg), "documents ~1 KB, got {avg}");
    assert!(
        regions.len() >= 15 && regions.len() <= 25,
        "{}",
        regions.len()
    );
    assert_eq!(processes.len(), 7);
    assert_eq!(agents.len(), 10);
    assert!(hosts.len() >= 100, "hundreds of hosts: {}", hosts.len());
    assert!(
        streams.len() >= 150,
        "hundreds of streams: {}",
        streams.len()
    );
    // 2,000 documents over a day are 43 s apart: late arrivals (≤ 3 s) never reorder them.
    assert_eq!(decreasing, 0);
    let first = get(&docs[0], &["@timestamp"]).as_str().unwrap_or_default();
    assert!(first.starts_with("2023-01-01T00:00"), "{first}");
}

#[test]
fn logs_window_and_start_are_honoured() {
    let mut spec = WorkloadSpec::new(1);
    spec.docs = Some(1000);
    spec.params.start = Some("2024-02-29T12:00:00Z".into());
    spec.params.window = Some("1h".into());
    let w = workload::find("logs").expect("logs");
    let docs = parse_lines(&drain(w.open(&spec).expect("open").source.as_mut()));
    for d in &docs {
        let ts = get(d, &["@timestamp"]).as_str().unwrap_or_default();
        assert!(ts.starts_with("2024-02-29T12:"), "{ts}");
    }
    // Dense documents (60 ms apart): mostly increasing, some late arrivals.
    spec.params.window = Some("1m".into());
    let docs = parse_lines(&drain(w.open(&spec).expect("open").source.as_mut()));
    let stamps: Vec<&str> = docs
        .iter()
        .map(|d| d["@timestamp"].as_str().unwrap_or_default())
        .collect();
    let decreasing = stamps.windows(2).filter(|p| p[1] < p[0]).count();
    assert!(
        decreasing > 50 && decreasing < docs.len() / 3,
        "{decreasing}"
    );
    spec.params.window = Some("1 day".into());
    assert!(w.open(&spec).is_err());
}

#[test]
fn cluster_metrics_fields_and_per_node_distributions() {
    let docs = parse_lines(&generate("cluster-metrics", 5, 5000));
    let mut cpu_by_node: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for d in &docs {
        assert!(get(d, &["epoch"]).is_u64());
        let node = get(d, &["node"]).as_str().expect("node");
        assert!(node.len() == 4 && node.starts_with('N'));
        let n: u32 = node[1..].parse().expect("N###");
        assert!((1..=30).contains(&n));
        let task = get(d, &["task"]).as_str().expect("task");
        let t: u32 = task[1..].parse().expect("T###");
        assert!(task.starts_with('T') && (1..=200).contains(&t));
        for f in ["cpu", "mem", "net"] {
            let v = get(d, &[f]);
            assert!(v.is_f64(), "{f} is a float: {v}");
        }
        cpu_by_node
            .entry(node.to_string())
            .or_default()
            .push(get(d, &["cpu"]).as_f64().unwrap_or_default());
    }
    assert_eq!(cpu_by_node.len(), 30);
    let medians: Vec<f64> = cpu_by_node
        .values_mut()
        .map(|v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect();
    let spread = medians.iter().cloned().fold(f64::MIN, f64::max)
        - medians.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread > 20.0, "node medians should differ, spread {spread}");
}

#[test]
fn cluster_metrics_truth_matches_brute_force() {
    let mut spec = WorkloadSpec::new(11);
    spec.params.rows_per_epoch = Some(20_000);
    spec.params.epochs = Some(3);
    spec.docs = Some(55_000); // the last epoch is cut short: truth must cover it too
    spec.params.truth = true;
    let mut opened = workload::find("cluster-metrics")
        .expect("workload")
        .open(&spec)
        .expect("open");
    let handle = opened.truth.take().expect("truth handle");
    let mut out = Vec::new();
    let mut all = Vec::new();
    let mut rows = 0;
    while opened.source.next_into(&mut out).expect("gen").is_some() {
        out.push(b'\n');
        rows += 1;
        if rows == 20_000 {
            // Published as soon as the epoch's last row is produced, not at the end.
            all = handle.take();
            assert!(!all.is_empty() && all.iter().all(|p| p.epoch == 1));
        }
    }
    all.extend(handle.take());
    check_truth(&out, &all);
}

fn check_truth(corpus: &[u8], truth: &[searchbench::workload::PartitionTruth]) {
    // Brute force: parse the text back the way an engine does (to f32), group, sort.
    type Key = (u64, String);
    let mut groups: BTreeMap<Key, [Vec<f64>; 3]> = BTreeMap::new();
    let mut order: BTreeMap<Key, [f64; 3]> = BTreeMap::new();
    for d in parse_lines(corpus) {
        let key = (
            d["epoch"].as_u64().unwrap_or_default(),
            d["node"].as_str().unwrap_or_default().to_string(),
        );
        let g = groups.entry(key.clone()).or_default();
        let s = order.entry(key).or_default();
        for (i, f) in ["cpu", "mem", "net"].iter().enumerate() {
            let text = d[*f].to_string();
            let v = text.parse::<f32>().expect("float text") as f64;
            g[i].push(v);
            s[i] += v;
        }
    }
    assert_eq!(groups.len(), truth.len(), "one truth per (epoch, node)");
    let epochs: std::collections::BTreeSet<u64> = truth.iter().map(|t| t.epoch).collect();
    assert_eq!(epochs.into_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
    let total: u64 = truth.iter().map(|t| t.count).sum();
    assert_eq!(total, 55_000);
    for t in truth {
        let key = (t.epoch, t.node.clone());
        let g = groups
            .get_mut(&key)
            .expect("truth for a partition that exists");
        assert_eq!(t.count, g[0].len() as u64, "{key:?}");
        for (i, ft) in [t.cpu, t.mem, t.net].iter().enumerate() {
            let sorted = &mut g[i];
            sorted.sort_by(f64::total_cmp);
            assert_eq!(ft.p0, sorted[0], "{key:?} p0");
            assert_eq!(ft.p100, sorted[sorted.len() - 1], "{key:?} p100");
            assert_eq!(Some(ft.p50), percentile_sorted(sorted, 50.0), "{key:?} p50");
            assert_eq!(Some(ft.p90), percentile_sorted(sorted, 90.0), "{key:?} p90");
            // Same values, same (generation) order: the same f64 sum, bit for bit.
            assert_eq!(ft.sum, order[&key][i], "{key:?} sum");
        }
    }
    // The f32 view is what an engine stores: 0.1 is not 0.1 as f64.
    assert_eq!(stored_f32(10), 0.1f32 as f64);
}

fn transactions_csv(seed: u64, docs: u64) -> Vec<u8> {
    let mut spec = WorkloadSpec::new(seed);
    spec.docs = Some(docs);
    let mut g =
        searchbench::corpus::Transactions::new(workload::transactions_spec(&spec).expect("spec"))
            .expect("gen");
    let mut out = searchbench::corpus::transactions::csv_header().into_bytes();
    out.push(b'\n');
    while g.next_csv_into(&mut out) {
        out.push(b'\n');
    }
    out
}

#[test]
fn transactions_csv_round_trips_to_the_mapped_documents() {
    let csv = transactions_csv(4, 3000);
    let mut file = tempfile::NamedTempFile::new().expect("tmp");
    file.write_all(&csv).expect("write");
    let path = file.path().to_string_lossy().into_owned();
    let mut reader = CsvReader::open(&path).expect("open csv");
    assert!(
        reader.is_typed(),
        "the DVF header selects the transactions mapping"
    );
    let from_csv = parse_lines(&drain(&mut reader));
    let generated = parse_lines(&generate("transactions", 4, 3000));
    assert_eq!(from_csv.len(), 3000);
    assert_eq!(
        from_csv, generated,
        "CSV → reader → documents == --format ndjson"
    );

    let mut empties = 0;
    let mut types = std::collections::BTreeSet::new();
    let mut multi_row = 0;
    let mut last_id = String::new();
    for d in &from_csv {
        let id = d["id_mutation"].as_str().expect("id_mutation");
        if id == last_id {
            multi_row += 1;
        }
        last_id = id.to_string();
        let date = d["date_mutation"].as_str().expect("date");
        assert!(date.len() == 10 && date.starts_with("2023-"), "{date}");
        assert!(d["numero_disposition"].is_u64());
        assert!(d["nature_mutation"].is_string());
        for k in [
            "code_postal",
            "code_commune",
            "nom_commune",
            "code_departement",
        ] {
            assert!(d[k].is_string(), "{k} is a string (keeps leading zeros)");
        }
        assert!(d["adresse_nom_voie"].is_string());
        if let Some(v) = d.get("valeur_fonciere") {
            assert!(v.as_f64().is_some_and(|v| v > 0.0));
        }
        for k in [
            "adresse_numero",
            "surface_reelle_bati",
            "nombre_pieces_principales",
            "surface_terrain",
        ] {
            match d.get(k) {
                Some(v) => assert!(v.is_u64(), "{k}: {v}"),
                None => empties += 1,
            }
        }
        if let Some(t) = d.get("type_local") {
            types.insert(t.as_str().unwrap_or_default().to_string());
        }
        match (d.get("longitude"), d.get("latitude")) {
            (Some(lon), Some(lat)) => {
                let loc = &d["location"];
                assert_eq!(loc["lon"], *lon);
                assert_eq!(loc["lat"], *lat);
            }
            _ => assert!(d.get("location").is_none()),
        }
        if d["type_local"] == "Appartement" {
            let s = d["surface_reelle_bati"].as_f64().unwrap_or_default();
            let v = d["valeur_fonciere"].as_f64().unwrap_or(s * 3000.0);
            assert!(v / s > 300.0 && v / s < 40_000.0, "price per m² {}", v / s);
        }
    }
    assert!(empties > 1000, "DVF has empty cells: {empties}");
    assert!(multi_row > 100, "mutations spanning two rows: {multi_row}");
    for t in ["Appartement", "Maison", "Dépendance"] {
        assert!(types.contains(t), "{t}");
    }
}

#[test]
fn transactions_prices_correlate_with_surface() {
    let docs = parse_lines(&generate("transactions", 9, 20_000));
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for d in &docs {
        if d["type_local"] == "Appartement" && d["code_departement"] == "75" {
            if let (Some(s), Some(v)) = (
                d["surface_reelle_bati"].as_f64(),
                d["valeur_fonciere"].as_f64(),
            ) {
                xs.push(s);
                ys.push(v);
            }
        }
    }
    let n = xs.len() as f64;
    assert!(n > 200.0);
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let vy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let r = cov / (vx.sqrt() * vy.sqrt());
    assert!(r > 0.7, "price vs surface correlation {r}");
}

#[test]
fn ndjson_reader_reports_bad_lines_and_goes_on() {
    let text = b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\": oops}\n[1,2]\n  \n{\"d\":4}\n{\"e\":5}";
    let mut r = NdjsonReader::from_reader("input.ndjson", Box::new(&text[..]));
    let mut out = Vec::new();
    let mut items = Vec::new();
    while let Some(item) = r.next_into(&mut out).expect("no I/O error") {
        if item == Item::Doc {
            out.push(b'\n');
        }
        items.push(item);
    }
    assert_eq!(out, b"{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n{\"e\":5}\n");
    let bad: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            Item::Bad(b) => Some(b),
            Item::Doc => None,
        })
        .collect();
    assert_eq!(bad.len(), 2);
    assert_eq!(bad[0].source, "input.ndjson");
    assert_eq!(bad[0].line, 4, "1-based, blank lines counted");
    assert_eq!(bad[0].raw, b"{\"c\": oops}");
    assert!(bad[0].reason.contains("invalid JSON"), "{}", bad[0].reason);
    assert_eq!(bad[1].line, 5);
    assert!(
        bad[1].reason.contains("not a JSON object"),
        "{}",
        bad[1].reason
    );
    assert_eq!(items.len(), 6);
}

#[test]
fn readers_open_gzip_by_magic_bytes_and_report_file_errors() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"x\":1}\n{\"x\":2}\n").expect("gz");
    let bytes = gz.finish().expect("gz");
    // No .gz extension: detected by content.
    let mut file = tempfile::NamedTempFile::new().expect("tmp");
    file.write_all(&bytes).expect("write");
    let mut r = NdjsonReader::open(&file.path().to_string_lossy()).expect("open");
    assert_eq!(drain(&mut r), b"{\"x\":1}\n{\"x\":2}\n");

    let err = NdjsonReader::open("/nonexistent/dir/file.ndjson").expect_err("missing file");
    assert!(
        err.to_string().contains("/nonexistent/dir/file.ndjson"),
        "{err}"
    );
}

#[test]
fn csv_reader_untyped_and_wrong_field_count() {
    let text = b"name,city\nalice,Paris\nbob\ncarol,\"Lyon, 3e\"\n";
    let mut r = CsvReader::from_reader("people.csv", Box::new(&text[..])).expect("csv");
    assert!(!r.is_typed());
    let mut out = Vec::new();
    let mut bad = Vec::new();
    while let Some(item) = r.next_into(&mut out).expect("no I/O error") {
        match item {
            Item::Doc => out.push(b'\n'),
            Item::Bad(b) => bad.push(b),
        }
    }
    assert_eq!(
        String::from_utf8_lossy(&out),
        "{\"name\":\"alice\",\"city\":\"Paris\"}\n{\"name\":\"carol\",\"city\":\"Lyon, 3e\"}\n"
    );
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].line, 3);
    assert_eq!(bad[0].raw, b"bob");
    assert!(
        bad[0].reason.contains("1 fields, the header has 2"),
        "{}",
        bad[0].reason
    );
}

#[test]
fn csv_reader_typed_cell_that_does_not_parse_is_a_bad_line() {
    let mut csv = transactions_csv(2, 3);
    csv.extend_from_slice(b"2023-99,2023-05-01,1,Vente,cher,,RUE X,75001,75101,Paris,75,,,,,,\n");
    let mut r =
        CsvReader::from_reader("dvf.csv", Box::new(std::io::Cursor::new(csv))).expect("csv");
    let mut out = Vec::new();
    let mut items = Vec::new();
    while let Some(item) = r.next_into(&mut out).expect("no I/O error") {
        items.push(item);
    }
    assert_eq!(items.iter().filter(|i| **i == Item::Doc).count(), 3);
    match items.last() {
        Some(Item::Bad(b)) => {
            assert_eq!(b.line, 5);
            assert!(b.reason.contains("valeur_fonciere"), "{}", b.reason);
        }
        other => panic!("expected a bad line, got {other:?}"),
    }
}
