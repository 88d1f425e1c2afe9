//! The engine modules a track's challenge needs, found in what it sends: the mapping types
//! of its index and template bodies (`match_only_text`, `scaled_float`: mapper-extras), its
//! aggregations (`auto_date_histogram`: aggregations), its scripts (painless), its queries and
//! its ingest pipelines. Elasticsearch's distribution on Maven Central (the integ-test-zip
//! searchbench starts) holds only a handful of modules, and nothing on Maven Central carries
//! the others for Elasticsearch 8: a track that needs one is told before anything runs, by
//! `workload check` (what each step needs) and by `run` (what the node lacks, asked of it).
//!
//! What is looked for is what Rally's and OSB's tracks use; a module not listed here (the
//! analysis components of `analysis-common`, for one) is not foreseen, and the engine's own
//! error names it when the step runs.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::workload::track::model::{Procedure, Resolved};
use crate::workload::track::Definition;

/// One module the challenge needs: what in the track needs it and the tasks that send it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Need {
    /// The module, as Elasticsearch's `_nodes/plugins` names it (`mapper-extras`).
    pub module: String,
    /// What needs it (`match_only_text`, `auto_date_histogram`, `a painless script`).
    pub features: Vec<String>,
    /// The tasks that send it.
    pub tasks: Vec<String>,
    /// Whether a task that makes what the others use needs it (an index, a template, a data
    /// stream, a pipeline): without the module nothing after it means anything.
    pub setup: bool,
}

/// The operation types that make what the later tasks use.
const SETUP: &[&str] = &[
    "create-index",
    "create-index-template",
    "create-composable-template",
    "create-component-template",
    "create-data-stream",
    "put-pipeline",
];

/// Field types and where Elasticsearch keeps them.
const FIELD_TYPES: &[(&str, &str)] = &[
    ("match_only_text", "mapper-extras"),
    ("scaled_float", "mapper-extras"),
    ("rank_feature", "mapper-extras"),
    ("rank_features", "mapper-extras"),
    ("search_as_you_type", "mapper-extras"),
    ("token_count", "mapper-extras"),
    ("wildcard", "x-pack-wildcard"),
    ("constant_keyword", "constant-keyword"),
    ("unsigned_long", "unsigned-long"),
    ("aggregate_metric_double", "x-pack-aggregate-metric"),
    ("histogram", "x-pack-analytics"),
    ("join", "parent-join"),
    ("percolator", "percolator"),
];

/// Aggregations, queries and request keys, and where Elasticsearch keeps them.
const KEYS: &[(&str, &str)] = &[
    ("auto_date_histogram", "aggregations"),
    ("adjacency_matrix", "aggregations"),
    ("matrix_stats", "aggregations"),
    ("time_series", "aggregations"),
    ("bucket_script", "aggregations"),
    ("bucket_selector", "aggregations"),
    ("percolate", "percolator"),
    ("has_child", "parent-join"),
    ("has_parent", "parent-join"),
    ("parent_id", "parent-join"),
    ("rank_feature", "mapper-extras"),
];

/// Paths of requests, and where Elasticsearch keeps them.
const PATHS: &[(&str, &str)] = &[
    ("_reindex", "reindex"),
    ("_update_by_query", "reindex"),
    ("_delete_by_query", "reindex"),
    ("_rank_eval", "rank-eval"),
    ("_search/template", "lang-mustache"),
    ("_msearch/template", "lang-mustache"),
    ("_eql", "x-pack-eql"),
    ("_sql", "x-pack-sql"),
    ("_query", "x-pack-esql"),
];

/// Operation types, and where Elasticsearch keeps what they call.
const OPERATION_TYPES: &[(&str, &str)] = &[
    ("eql", "x-pack-eql"),
    ("sql", "x-pack-sql"),
    ("esql", "x-pack-esql"),
    ("create-ilm-policy", "x-pack-ilm"),
    ("create-transform", "x-pack-transform"),
    ("start-transform", "x-pack-transform"),
    ("wait-for-transform", "x-pack-transform"),
    ("delete-transform", "x-pack-transform"),
    ("delete-ilm-policy", "x-pack-ilm"),
];

/// Ingest processors that are not in `ingest-common`.
const PROCESSORS: &[(&str, &str)] = &[
    ("geoip", "ingest-geoip"),
    ("user_agent", "ingest-user-agent"),
    ("attachment", "ingest-attachment"),
    ("enrich", "x-pack-enrich"),
    ("inference", "x-pack-ml"),
    ("pipeline", ""),
];

/// What the tasks of `procedure` need, module by module (in the order first needed).
pub fn needs(d: &Definition, procedure: &Procedure) -> Vec<Need> {
    let mut found: BTreeMap<String, (usize, BTreeSet<String>, Vec<String>, bool)> = BTreeMap::new();
    let mut order = 0;
    for step in &procedure.steps {
        for t in step.tasks() {
            let mut features: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            of_task(d, t, &mut features);
            for (module, feats) in features {
                let entry = found.entry(module).or_insert_with(|| {
                    order += 1;
                    (order, BTreeSet::new(), Vec::new(), false)
                });
                entry.1.extend(feats);
                if !entry.2.contains(&t.name) {
                    entry.2.push(t.name.clone());
                }
                entry.3 |= SETUP.contains(&t.operation_type.as_str());
            }
        }
    }
    let mut out: Vec<(usize, Need)> = found
        .into_iter()
        .map(|(module, (at, features, tasks, setup))| {
            (
                at,
                Need {
                    module,
                    features: features.into_iter().collect(),
                    tasks,
                    setup,
                },
            )
        })
        .collect();
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, n)| n).collect()
}

/// The needs of `needs` that a node with `modules` (its modules and plugins, by name) lacks.
/// An x-pack module is known by either name (`x-pack-wildcard`, `wildcard`).
pub fn lacking<'n>(needs: &'n [Need], modules: &BTreeSet<String>) -> Vec<&'n Need> {
    needs
        .iter()
        .filter(|n| {
            let bare = n.module.strip_prefix("x-pack-").unwrap_or(&n.module);
            ![n.module.clone(), bare.to_string(), format!("x-pack-{bare}")]
                .iter()
                .any(|m| modules.contains(m))
        })
        .collect()
}

/// Whether a node of `product` at `version` keeps what [`needs`] looks for in the modules
/// named there: Elasticsearch from 8 on. OpenSearch and Elasticsearch 7 keep some of it in
/// the server (`auto_date_histogram`), so a module's absence says nothing there.
pub fn applies(product: crate::cluster::Product, version: &str) -> bool {
    let major: u32 = version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    product == crate::cluster::Product::Elasticsearch && major >= 8
}

/// What `needs` says, one module a line: `mapper-extras (match_only_text, scaled_float): tasks
/// create-index, ...`.
pub fn describe(needs: &[&Need]) -> Vec<String> {
    needs
        .iter()
        .map(|n| {
            format!(
                "{} ({}): task{} {}",
                n.module,
                n.features.join(", "),
                if n.tasks.len() == 1 { "" } else { "s" },
                n.tasks.join(", ")
            )
        })
        .collect()
}

type Found = BTreeMap<String, BTreeSet<String>>;

fn add(found: &mut Found, module: &str, feature: &str) {
    if !module.is_empty() {
        found
            .entry(module.to_string())
            .or_default()
            .insert(feature.to_string());
    }
}

/// What one task sends: its operation's parameters, and the bodies it creates from the track
/// (a create-index its indices' bodies, a template creation its templates').
fn of_task(d: &Definition, t: &Resolved, found: &mut Found) {
    let p = &t.operation.params;
    if let Some((_, module)) = OPERATION_TYPES
        .iter()
        .find(|(ty, _)| *ty == t.operation_type)
    {
        add(found, module, &t.operation_type);
    }
    if let Some(path) = p.get("path").and_then(Value::as_str) {
        for (part, module) in PATHS {
            if path.split('?').next().unwrap_or_default().contains(part) {
                add(found, module, part);
            }
        }
    }
    scan(&Value::Object(p.clone()), false, found);
    let named = |key: &str| -> Option<Vec<String>> {
        p.get(key)
            .and_then(Value::as_str)
            .map(|s| s.split(',').map(str::to_string).collect())
    };
    let bodies: Vec<&Value> = match t.operation_type.as_str() {
        "create-index" => {
            let only = named("index");
            d.index_bodies
                .iter()
                .filter(|(name, _)| only.as_ref().is_none_or(|o| o.contains(name)))
                .map(|(_, b)| b)
                .collect()
        }
        "create-index-template" => d.templates.values().collect(),
        "create-composable-template" => d.composable_templates.values().collect(),
        "create-component-template" => d.component_templates.values().collect(),
        // A data stream is made from its composable template (and its components).
        "create-data-stream" => d
            .composable_templates
            .values()
            .chain(d.component_templates.values())
            .collect(),
        _ => Vec::new(),
    };
    for b in bodies {
        scan(b, false, found);
    }
    if t.operation_type == "put-pipeline" {
        if let Some(processors) = p
            .get("body")
            .and_then(|b| b.get("processors"))
            .and_then(Value::as_array)
        {
            processors_of(processors, found);
        }
    }
}

fn processors_of(processors: &[Value], found: &mut Found) {
    for proc in processors.iter().filter_map(Value::as_object) {
        for (name, inner) in proc {
            match PROCESSORS.iter().find(|(n, _)| n == name) {
                Some((_, module)) => add(found, module, &format!("the {name} processor")),
                None => add(found, "ingest-common", &format!("the {name} processor")),
            }
            if let Some(more) = inner.get("on_failure").and_then(Value::as_array) {
                processors_of(more, found);
            }
        }
    }
}

/// Walks a body for what needs a module; `fields` is whether `v` maps field names to their
/// mappings (the inside of `properties`, `runtime`, `runtime_mappings`).
fn scan(v: &Value, fields: bool, found: &mut Found) {
    match v {
        Value::Object(map) => {
            for (k, inner) in map {
                if fields {
                    if let Some(ty) = inner.get("type").and_then(Value::as_str) {
                        if let Some((_, module)) = FIELD_TYPES.iter().find(|(t, _)| *t == ty) {
                            add(found, module, ty);
                        }
                    }
                    scan(inner, false, found);
                    continue;
                }
                match k.as_str() {
                    "properties" | "runtime" | "runtime_mappings" | "fields" => {
                        scan(inner, true, found);
                        continue;
                    }
                    "script" => script(inner, found),
                    _ => {}
                }
                if inner.is_object() {
                    if let Some((_, module)) = KEYS.iter().find(|(key, _)| key == k) {
                        add(found, module, k);
                    }
                }
                scan(inner, false, found);
            }
        }
        Value::Array(items) => {
            for item in items {
                scan(item, fields, found);
            }
        }
        _ => {}
    }
}

/// A `script`: a stored one by id, or one written inline in its language (painless unless
/// it says otherwise).
fn script(v: &Value, found: &mut Found) {
    let lang = v.get("lang").and_then(Value::as_str).unwrap_or("painless");
    let written = v.is_string() || v.get("source").is_some() || v.get("inline").is_some();
    if !written {
        return;
    }
    match lang {
        "painless" => add(found, "lang-painless", "a painless script"),
        "expression" => add(found, "lang-expression", "an expression script"),
        "mustache" => add(found, "lang-mustache", "a mustache script"),
        other => add(
            found,
            &format!("lang-{other}"),
            &format!("a {other} script"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::track::{read, TrackParams};

    fn fixture(path: &str) -> Definition {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tracks")
            .join(path);
        read(&path, &TrackParams::new()).unwrap()
    }

    fn of(path: &str) -> Vec<Need> {
        let d = fixture(path);
        let procedure = crate::workload::track::runnable::procedure(&d, None).unwrap();
        needs(&d, procedure)
    }

    fn need<'n>(needs: &'n [Need], module: &str) -> &'n Need {
        needs
            .iter()
            .find(|n| n.module == module)
            .unwrap_or_else(|| panic!("no {module} in {needs:?}"))
    }

    #[test]
    fn rallys_http_logs_and_nyc_taxis_need_the_modules_elasticsearchs_maven_distribution_lacks() {
        // http_logs' default challenge: its indices map `message` as match_only_text.
        let http = of("rally/http_logs/track.json");
        assert_eq!(http.len(), 1, "{http:?}");
        let extras = need(&http, "mapper-extras");
        assert_eq!(extras.features, ["match_only_text"]);
        assert_eq!(extras.tasks, ["create-index"]);
        assert!(extras.setup);
        let taxis = of("rally/nyc_taxis/track.json");
        assert_eq!(need(&taxis, "mapper-extras").features, ["scaled_float"]);
        let aggs = need(&taxis, "aggregations");
        assert_eq!(aggs.features, ["auto_date_histogram"]);
        assert!(
            aggs.tasks.iter().all(|t| !t.starts_with("create-index")),
            "{aggs:?}"
        );
        assert!(!aggs.setup);
        // What a node lacks is what it does not name.
        let modules: BTreeSet<String> = ["mapper-extras", "aggregations", "lang-painless"]
            .map(String::from)
            .into();
        let missing: Vec<&str> = lacking(&taxis, &modules)
            .iter()
            .map(|n| n.module.as_str())
            .collect();
        assert!(!missing.contains(&"mapper-extras") && !missing.contains(&"aggregations"));
        let line = describe(&lacking(&taxis, &BTreeSet::new())).join("\n");
        assert!(
            line.contains("mapper-extras (scaled_float): task"),
            "{line}"
        );
    }

    #[test]
    fn a_plain_track_needs_nothing_and_scripts_pipelines_and_paths_are_found() {
        // geonames: keyword, text and geo_point fields; its script searches need their
        // languages.
        let geonames = of("rally/geonames/track.json");
        let modules: Vec<&str> = geonames.iter().map(|n| n.module.as_str()).collect();
        assert_eq!(
            modules,
            ["lang-expression", "lang-painless"],
            "{geonames:?}"
        );
        assert!(
            need(&geonames, "lang-painless")
                .tasks
                .iter()
                .any(|t| t.contains("painless")),
            "{geonames:?}"
        );
        let mut found = Found::new();
        scan(
            &serde_json::json!({"query": {"script_score": {"query": {"match_all": {}},
                "script": {"source": "1"}}}, "aggs": {"a": {"adjacency_matrix": {"filters": {}}}},
                "mappings": {"properties": {"n": {"type": "percolator"}, "o": {"properties":
                    {"s": {"type": "scaled_float", "scaling_factor": 10}}}}}}),
            false,
            &mut found,
        );
        let modules: Vec<&str> = found.keys().map(String::as_str).collect();
        assert_eq!(
            modules,
            [
                "aggregations",
                "lang-painless",
                "mapper-extras",
                "percolator"
            ]
        );
        let mut found = Found::new();
        processors_of(
            &serde_json::json!([{"set": {"field": "a", "value": 1}}, {"geoip": {"field": "ip"}},
                {"pipeline": {"name": "other"}}])
            .as_array()
            .unwrap()
            .clone(),
            &mut found,
        );
        let modules: Vec<&str> = found.keys().map(String::as_str).collect();
        assert_eq!(modules, ["ingest-common", "ingest-geoip"]);
        // A field called "type" or a multi_match's type is not a mapping type.
        let mut found = Found::new();
        scan(
            &serde_json::json!({"query": {"multi_match": {"type": "wildcard"}},
                "properties": {"type": {"type": "keyword"}}}),
            false,
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
