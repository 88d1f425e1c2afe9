//! An index's mapping read as the fields a synthesized document holds: each field's path and
//! what kind of value it takes. A type no synthesizer writes is refused, naming the field,
//! rather than left out of every document.

use serde_json::{Map, Value};

use super::dates::DateFormat;

/// What a field holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// keyword, wildcard, version: one term.
    Keyword,
    /// constant_keyword: its `value`, when the mapping gives one.
    Constant(Option<String>),
    /// text, match_only_text, search_as_you_type: words.
    Text,
    /// long, integer, short, byte, unsigned_long: whole numbers in the type's range.
    Whole {
        min: i64,
        max: i64,
    },
    /// double, float, half_float.
    Real,
    /// scaled_float: a real kept to `1 / factor`.
    Scaled {
        factor: f64,
    },
    Date(DateFormat),
    Boolean,
    Ip,
    GeoPoint,
    /// dense_vector (`dims`), knn_vector (`dimension`).
    Vector {
        dims: usize,
    },
    Object(Vec<Field>),
    Nested(Vec<Field>),
}

/// One field of the mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its name in its object.
    pub name: String,
    /// Its dotted path from the document's root (`geo.location`).
    pub path: String,
    pub kind: Kind,
}

/// Why a mapping cannot be synthesized.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MappingError(pub String);

/// The types written, for the refusal's message.
const SUPPORTED: &str = "keyword, constant_keyword, wildcard, text, match_only_text, long, \
                         integer, short, byte, unsigned_long, double, float, half_float, \
                         scaled_float, date, date_nanos, boolean, ip, geo_point, object, \
                         nested, dense_vector, knn_vector";

/// The fields of the mapping in the file `path` (as [`fields`] reads its body); an error names
/// the file.
pub fn read(path: &std::path::Path) -> Result<Vec<Field>, String> {
    let shown = path.display();
    let text = crate::user_file::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let body: Value = serde_json::from_slice(&text).map_err(|e| format!("{shown}: {e}"))?;
    fields(&body).map_err(|e| format!("{shown}: {e}"))
}

/// The fields of `body`: an index body (`{"settings", "mappings": {"properties"}}`), a
/// mapping (`{"properties"}`), or an old typed mapping (`{"mappings": {"_doc": {...}}}`).
pub fn fields(body: &Value) -> Result<Vec<Field>, MappingError> {
    let mappings = body.get("mappings").unwrap_or(body);
    let properties = match mappings.get("properties") {
        Some(p) => p,
        None => match mappings.as_object().map(|m| m.values().collect::<Vec<_>>()) {
            // One type's mapping under its name.
            Some(types) if types.len() == 1 && types[0].get("properties").is_some() => {
                &types[0]["properties"]
            }
            _ => {
                return Err(MappingError(
                    "no mappings.properties: give an index body or its mapping".into(),
                ))
            }
        },
    };
    let fields = object(properties, "")?;
    if fields.is_empty() {
        return Err(MappingError("the mapping has no fields".into()));
    }
    Ok(fields)
}

fn object(properties: &Value, prefix: &str) -> Result<Vec<Field>, MappingError> {
    let properties = properties
        .as_object()
        .ok_or_else(|| MappingError(format!("{prefix}properties is not an object")))?;
    let mut out = Vec::with_capacity(properties.len());
    for (name, spec) in properties {
        // The engines refuse an empty name, or an empty part between dots: refused here,
        // before a corpus is made for a mapping the engine would not take.
        if name.trim().is_empty() || name.split('.').any(str::is_empty) {
            let within = match prefix.trim_end_matches('.') {
                "" => "the root's properties".to_string(),
                object => object.to_string(),
            };
            return Err(MappingError(format!(
                "field {name:?} in {within}: an empty field name, or an empty part between dots"
            )));
        }
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}{name}")
        };
        if let Some(kind) = kind(spec, &path)? {
            out.push(Field {
                name: name.clone(),
                path,
                kind,
            });
        }
    }
    Ok(out)
}

/// The kind of field `spec` at `path`; `None` for an alias (it holds no value of its own).
fn kind(spec: &Value, path: &str) -> Result<Option<Kind>, MappingError> {
    let spec: &Map<String, Value> = spec
        .as_object()
        .ok_or_else(|| MappingError(format!("field {path}: its mapping is not an object")))?;
    let ty = match spec.get("type") {
        None => None,
        Some(Value::String(ty)) => Some(ty.as_str()),
        Some(other) => {
            return Err(MappingError(format!(
                "field {path}: its type {} is not a string (such as \"keyword\")",
                other.to_string().chars().take(80).collect::<String>()
            )))
        }
    };
    let nested = |spec: &Map<String, Value>| match spec.get("properties") {
        Some(p) => object(p, &format!("{path}.")),
        None => Ok(Vec::new()),
    };
    if spec.get("enabled") == Some(&Value::Bool(false)) {
        return Err(MappingError(format!(
            "field {path}: an object the engine does not map (enabled: false) has no shape to \
             synthesize"
        )));
    }
    let number = |min: i64, max: i64| Kind::Whole { min, max };
    Ok(Some(match ty {
        None | Some("object") => Kind::Object(nested(spec)?),
        Some("nested") => Kind::Nested(nested(spec)?),
        Some("alias") => return Ok(None),
        Some("keyword" | "wildcard" | "version") => Kind::Keyword,
        Some("constant_keyword") => Kind::Constant(
            spec.get("value")
                .and_then(Value::as_str)
                .map(str::to_string),
        ),
        Some("text" | "match_only_text" | "search_as_you_type") => Kind::Text,
        Some("long") => number(i64::MIN, i64::MAX),
        Some("unsigned_long") => number(0, i64::MAX),
        Some("integer") => number(i32::MIN.into(), i32::MAX.into()),
        Some("short") => number(i16::MIN.into(), i16::MAX.into()),
        Some("byte") => number(i8::MIN.into(), i8::MAX.into()),
        Some("double" | "float" | "half_float") => Kind::Real,
        Some("scaled_float") => {
            let factor = spec
                .get("scaling_factor")
                .and_then(Value::as_f64)
                .filter(|f| f.is_finite() && *f > 0.0)
                .ok_or_else(|| {
                    MappingError(format!(
                        "field {path}: a scaled_float needs a scaling_factor above 0"
                    ))
                })?;
            Kind::Scaled { factor }
        }
        Some("date" | "date_nanos") => {
            let format = spec.get("format").and_then(Value::as_str);
            Kind::Date(
                DateFormat::of(format).map_err(|e| MappingError(format!("field {path}: {e}")))?,
            )
        }
        Some("boolean") => Kind::Boolean,
        Some("ip") => Kind::Ip,
        Some("geo_point") => Kind::GeoPoint,
        Some("dense_vector" | "knn_vector") => {
            let dims = spec
                .get("dims")
                .or_else(|| spec.get("dimension"))
                .and_then(Value::as_u64)
                .filter(|d| (1..=4096).contains(d))
                .ok_or_else(|| {
                    MappingError(format!(
                        "field {path}: a vector field needs its dims (dimension), 1 to 4096"
                    ))
                })?;
            Kind::Vector {
                dims: dims as usize,
            }
        }
        Some(other) => {
            return Err(MappingError(format!(
                "field {path}: type {other} is not synthesized (these are: {SUPPORTED})"
            )))
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_type_of_the_popular_tracks_is_read_with_its_path() {
        let body = json!({"settings": {}, "mappings": {"dynamic": "strict", "properties": {
            "@timestamp": {"type": "date", "format": "epoch_second"},
            "clientip": {"type": "ip"},
            "request": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
            "status": {"type": "integer"},
            "size": {"type": "long"},
            "small": {"type": "byte"},
            "price": {"type": "scaled_float", "scaling_factor": 100},
            "ratio": {"type": "half_float"},
            "ok": {"type": "boolean"},
            "kind": {"type": "constant_keyword", "value": "logs"},
            "loc": {"type": "geo_point"},
            "emb": {"type": "knn_vector", "dimension": 8},
            "geo": {"properties": {"city": {"type": "keyword"}}},
            "tags": {"type": "nested", "properties": {"name": {"type": "match_only_text"}}},
            "same": {"type": "alias", "path": "status"}
        }}});
        let f = fields(&body).unwrap_or_else(|e| panic!("{e}"));
        let kind = |name: &str| f.iter().find(|f| f.name == name).map(|f| f.kind.clone());
        assert_eq!(f.len(), 14, "the alias holds no value");
        assert_eq!(
            kind("status"),
            Some(Kind::Whole {
                min: i32::MIN.into(),
                max: i32::MAX.into()
            })
        );
        assert_eq!(
            kind("small"),
            Some(Kind::Whole {
                min: -128,
                max: 127
            })
        );
        assert_eq!(kind("price"), Some(Kind::Scaled { factor: 100.0 }));
        assert_eq!(kind("kind"), Some(Kind::Constant(Some("logs".into()))));
        assert_eq!(kind("emb"), Some(Kind::Vector { dims: 8 }));
        let Some(Kind::Object(geo)) = kind("geo") else {
            panic!("geo is an object")
        };
        assert_eq!(geo[0].path, "geo.city");
        let Some(Kind::Nested(tags)) = kind("tags") else {
            panic!("tags is nested")
        };
        assert_eq!(
            (tags[0].path.as_str(), &tags[0].kind),
            ("tags.name", &Kind::Text)
        );
        // A bare mapping and a typed one read the same.
        let bare = fields(&body["mappings"]).unwrap_or_default();
        assert_eq!(bare, f);
        let typed = fields(&json!({"mappings": {"_doc": body["mappings"].clone()}}));
        assert_eq!(typed.unwrap_or_default(), f);
    }

    #[test]
    fn what_cannot_be_synthesized_is_refused_naming_the_field() {
        for (mapping, wanted) in [
            (
                json!({"properties": {"a": {"type": "geo_shape"}}}),
                "field a: type geo_shape",
            ),
            (
                json!({"properties": {"o": {"properties": {"r": {"type": "double_range"}}}}}),
                "field o.r",
            ),
            (
                json!({"properties": {"s": {"type": "scaled_float"}}}),
                "scaling_factor",
            ),
            (
                json!({"properties": {"v": {"type": "dense_vector", "dims": 0}}}),
                "dims",
            ),
            (
                json!({"properties": {"v": {"type": "dense_vector", "dims": 1e9}}}),
                "dims",
            ),
            (
                json!({"properties": {"d": {"type": "date", "format": "week_date"}}}),
                "field d",
            ),
            (
                json!({"properties": {"x": {"type": "object", "enabled": false}}}),
                "enabled: false",
            ),
            (json!({"properties": {}}), "no fields"),
            (json!({"settings": {}}), "no mappings.properties"),
            (json!({"properties": {"a": "keyword"}}), "not an object"),
            (
                json!({"properties": {"a": {"type": 5}}}),
                "field a: its type 5",
            ),
            (
                json!({"properties": {"a": {"type": ["keyword"]}}}),
                "field a: its type",
            ),
            (
                json!({"properties": {"a": {"type": null}}}),
                "field a: its type null",
            ),
            (
                json!({"properties": {"": {"type": "keyword"}}}),
                "an empty field name",
            ),
            (
                json!({"properties": {"o": {"properties": {" ": {"type": "keyword"}}}}}),
                "in o: an empty field name",
            ),
            (
                json!({"properties": {"a..b": {"type": "keyword"}}}),
                "\"a..b\"",
            ),
        ] {
            let e = fields(&mapping).err().map(|e| e.0).unwrap_or_default();
            assert!(e.contains(wanted), "{mapping}: {e}");
        }
    }
}
