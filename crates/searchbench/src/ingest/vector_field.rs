//! The vector field in each product's words. The built-in workloads write their index bodies
//! in Elasticsearch's (`dense_vector` with HNSW `index_options`); OpenSearch's k-NN plugin
//! calls the same field `knn_vector` with a `method` (its Lucene engine: the one whose code
//! the plugin's zip carries), and wants `index.knn` on. The graph's parameters (`m`,
//! `ef_construction`) and the distance carry over, so both engines build the same graph.
//!
//! Only bodies searchbench wrote are rewritten; a user's own mapping is sent as given.

use serde_json::{json, Map, Value};

use crate::cluster::{Product, Vectors};

/// `body` as `product` reads it: unchanged unless its vectors are a plugin's (OpenSearch),
/// then every `dense_vector` field rewritten; a field the plugin cannot hold the same way (a
/// quantized graph, a distance it lacks) is an error naming it.
pub fn in_words_of(body: &Value, product: Product) -> Result<Value, String> {
    if !matches!(product.traits().vectors, Vectors::Plugin(_)) {
        return Ok(body.clone());
    }
    let mut body = body.clone();
    let mut rewritten = 0;
    if let Some(properties) = body
        .pointer_mut("/mappings/properties")
        .and_then(Value::as_object_mut)
    {
        rewrite_properties(properties, "", &mut rewritten)?;
    }
    if rewritten > 0 {
        turn_knn_on(&mut body);
    }
    Ok(body)
}

fn rewrite_properties(
    properties: &mut Map<String, Value>,
    path: &str,
    rewritten: &mut usize,
) -> Result<(), String> {
    for (name, field) in properties.iter_mut() {
        let at = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        if field.get("type").and_then(Value::as_str) == Some("dense_vector") {
            let graph = field.get("index").and_then(Value::as_bool) != Some(false);
            *field = knn_vector(field, &at)?;
            // A field kept without its graph needs no index.knn (doc values alone).
            *rewritten += usize::from(graph);
        } else if let Some(inner) = field.get_mut("properties").and_then(Value::as_object_mut) {
            rewrite_properties(inner, &at, rewritten)?;
        }
    }
    Ok(())
}

/// A `dense_vector` field as a `knn_vector` of the Lucene engine; one kept without its graph
/// (`index: false`) as a `knn_vector` without a method.
fn knn_vector(field: &Value, at: &str) -> Result<Value, String> {
    let dims = field
        .get("dims")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("vector field {at}: no dims"))?;
    if field.get("index").and_then(Value::as_bool) == Some(false) {
        return Ok(json!({"type": "knn_vector", "dimension": dims}));
    }
    let similarity = field
        .get("similarity")
        .and_then(Value::as_str)
        .unwrap_or("cosine");
    let space_type = match similarity {
        "l2_norm" => "l2",
        "cosine" => "cosinesimil",
        "dot_product" | "max_inner_product" => "innerproduct",
        other => {
            return Err(format!(
                "vector field {at}: no OpenSearch space for {other:?}"
            ))
        }
    };
    let options = field.get("index_options").cloned().unwrap_or(json!({}));
    let kind = options
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("hnsw");
    if kind != "hnsw" {
        return Err(format!(
            "vector field {at}: {kind} is Elasticsearch's; OpenSearch's Lucene engine builds \
             plain hnsw"
        ));
    }
    let mut parameters = Map::new();
    for key in ["m", "ef_construction"] {
        if let Some(v) = options.get(key) {
            parameters.insert(key.into(), v.clone());
        }
    }
    Ok(json!({
        "type": "knn_vector",
        "dimension": dims,
        "method": {
            "name": "hnsw",
            "engine": "lucene",
            "space_type": space_type,
            "parameters": parameters,
        }
    }))
}

/// Sets `index.knn: true` in the body's settings, nested or flat as they are written.
fn turn_knn_on(body: &mut Value) {
    let Some(root) = body.as_object_mut() else {
        return;
    };
    let settings = root.entry("settings").or_insert_with(|| json!({}));
    match settings.get_mut("index").and_then(Value::as_object_mut) {
        Some(index) => {
            index.insert("knn".into(), Value::Bool(true));
        }
        None => {
            if let Some(flat) = settings.as_object_mut() {
                flat.insert("index.knn".into(), Value::Bool(true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(options: Value) -> Value {
        json!({
            "settings": {"index": {"number_of_shards": 1}},
            "mappings": {"properties": {
                "id": {"type": "long"},
                "inner": {"properties": {"v": {
                    "type": "dense_vector", "dims": 8, "similarity": "l2_norm",
                    "index_options": options
                }}}
            }}
        })
    }

    #[test]
    fn opensearch_gets_a_knn_vector_of_the_same_graph() {
        let given = body(json!({"type": "hnsw", "m": 16, "ef_construction": 100}));
        let es = in_words_of(&given, Product::Elasticsearch).unwrap();
        assert_eq!(es, given);
        let os = in_words_of(&given, Product::OpenSearch).unwrap();
        assert_eq!(os["settings"]["index"]["knn"], true);
        assert_eq!(os["settings"]["index"]["number_of_shards"], 1);
        let v = &os["mappings"]["properties"]["inner"]["properties"]["v"];
        assert_eq!(
            v,
            &json!({"type": "knn_vector", "dimension": 8, "method": {
                "name": "hnsw", "engine": "lucene", "space_type": "l2",
                "parameters": {"m": 16, "ef_construction": 100}
            }})
        );
        assert_eq!(os["mappings"]["properties"]["id"], json!({"type": "long"}));
        // A body without vectors is left as it is.
        let plain = json!({"settings": {"index": {}}, "mappings": {"properties": {"id": {"type": "long"}}}});
        assert_eq!(in_words_of(&plain, Product::OpenSearch).unwrap(), plain);
    }

    #[test]
    fn what_opensearch_cannot_build_the_same_way_is_refused_by_name() {
        let quantized = body(json!({"type": "int8_hnsw"}));
        let e = in_words_of(&quantized, Product::OpenSearch).unwrap_err();
        assert!(e.contains("inner.v") && e.contains("int8_hnsw"), "{e}");
        let mut odd = body(json!({"type": "hnsw"}));
        odd["mappings"]["properties"]["inner"]["properties"]["v"]["similarity"] = json!("hamming");
        let e = in_words_of(&odd, Product::OpenSearch).unwrap_err();
        assert!(e.contains("hamming"), "{e}");
    }

    #[test]
    fn a_field_without_its_graph_stays_without_one() {
        let mut kept = body(json!(null));
        kept["mappings"]["properties"]["inner"]["properties"]["v"] =
            json!({"type": "dense_vector", "dims": 8, "index": false});
        let os = in_words_of(&kept, Product::OpenSearch).unwrap();
        assert_eq!(
            os["mappings"]["properties"]["inner"]["properties"]["v"],
            json!({"type": "knn_vector", "dimension": 8})
        );
        assert!(os["settings"]["index"].get("knn").is_none(), "{os}");
    }
}
