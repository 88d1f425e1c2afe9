//! Column types of a user's CSV file: inferred from a sample of its records (integer, float,
//! boolean, date as the default `date` format reads it, else keyword) or given per column,
//! with a `geo_point` made of latitude/longitude columns; and the mapping they imply.

use serde_json::{json, Map, Value};

use super::csvdoc::ColumnType;
use super::CorpusError;

/// Records read to infer the column types.
pub const SAMPLE: usize = 1000;

/// How the columns of the user's CSV files get their types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvTypes {
    /// Given types, by column name; they win over inference.
    pub given: Vec<(String, ColumnType)>,
    /// Infer the other columns' types from a sample (else they are strings).
    pub infer: bool,
}

impl Default for CsvTypes {
    fn default() -> Self {
        CsvTypes {
            given: Vec::new(),
            infer: true,
        }
    }
}

impl CsvTypes {
    /// `col:type,...` (types: integer, float, boolean, date, keyword); `strings` alone keeps
    /// every column a string, as without inference.
    pub fn parse(items: &[String]) -> Result<CsvTypes, String> {
        let mut out = CsvTypes::default();
        for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            if item == "strings" {
                out.infer = false;
                continue;
            }
            let Some((col, ty)) = item.rsplit_once(':') else {
                return Err(format!(
                    "{item:?}: expected column:type (e.g. price:float), or strings"
                ));
            };
            let ty = type_named(ty.trim()).ok_or_else(|| {
                crate::suggest::unknown(
                    &format!("CSV type for column {col:?}"),
                    ty.trim(),
                    TYPE_NAMES.iter().copied(),
                )
            })?;
            out.given.push((col.trim().to_string(), ty));
        }
        Ok(out)
    }
}

const TYPE_NAMES: [&str; 5] = ["integer", "float", "boolean", "date", "keyword"];

fn type_named(name: &str) -> Option<ColumnType> {
    Some(match name.to_ascii_lowercase().as_str() {
        "integer" | "long" | "int" => ColumnType::Long,
        "float" | "double" | "number" => ColumnType::Double,
        "boolean" | "bool" => ColumnType::Boolean,
        "date" => ColumnType::CheckedDate,
        "keyword" | "string" | "text" => ColumnType::Keyword,
        _ => return None,
    })
}

/// The type every non-empty cell of a column fits, the narrowest first.
pub fn infer_column<'a>(cells: impl IntoIterator<Item = &'a [u8]>) -> ColumnType {
    let mut candidates = [true; 4]; // integer, float, boolean, date
    let mut seen = false;
    for cell in cells {
        let cell = cell.trim_ascii();
        if cell.is_empty() {
            continue;
        }
        seen = true;
        let text = std::str::from_utf8(cell).unwrap_or("");
        // A leading zero (a postal code, an id) is text, not a number that loses it.
        let leading_zero = cell.len() > 1 && cell[0] == b'0' && cell[1].is_ascii_digit()
            || cell.starts_with(b"-0");
        candidates[0] &= !leading_zero && text.parse::<i64>().is_ok();
        candidates[1] &= !leading_zero
            && text.parse::<f64>().is_ok_and(f64::is_finite)
            && cell
                .iter()
                .all(|c| c.is_ascii_digit() || b"+-.eE".contains(c));
        candidates[2] &= matches!(text.to_ascii_lowercase().as_str(), "true" | "false");
        candidates[3] &= looks_like_date(cell);
        if !candidates.iter().any(|c| *c) {
            return ColumnType::Keyword;
        }
    }
    if !seen {
        return ColumnType::Keyword;
    }
    [
        ColumnType::Long,
        ColumnType::Double,
        ColumnType::Boolean,
        ColumnType::CheckedDate,
    ]
    .into_iter()
    .zip(candidates)
    .find_map(|(t, ok)| ok.then_some(t))
    .unwrap_or(ColumnType::Keyword)
}

/// A date string the engine's default `date` format reads (numbers are numbers, not dates).
pub fn looks_like_date(cell: &[u8]) -> bool {
    cell.contains(&b'-')
        && cell.first().is_some_and(u8::is_ascii_digit)
        && isodate::parse(cell).is_ok()
}

/// The columns of one CSV file with their types, and the `geo_point` built from two of them.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedColumns {
    pub names: Vec<String>,
    pub types: Vec<ColumnType>,
    /// (longitude column, latitude column, geo_point field).
    pub geo: Option<(usize, usize, String)>,
}

impl TypedColumns {
    /// Types for `header` from `sample` (records of the file) and `spec`. A given type for a
    /// column the header lacks is an error naming the file.
    pub fn resolve(
        file: &str,
        header: &[String],
        sample: &[csv::ByteRecord],
        spec: &CsvTypes,
    ) -> Result<TypedColumns, CorpusError> {
        if let Some((col, _)) = spec.given.iter().find(|(c, _)| !header.contains(c)) {
            return Err(CorpusError::Invalid(format!(
                "--csv-types names column {col:?}, which {file} does not have (its columns: {})",
                header.join(", ")
            )));
        }
        let types: Vec<ColumnType> = header
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if let Some((_, t)) = spec.given.iter().find(|(c, _)| c == name) {
                    *t
                } else if spec.infer {
                    infer_column(sample.iter().filter_map(|r| r.get(i)))
                } else {
                    ColumnType::Keyword
                }
            })
            .collect();
        let find = |names: &[&str]| {
            header.iter().position(|h| {
                let h = h.to_ascii_lowercase();
                names.contains(&h.as_str())
            })
        };
        let geo = match (
            find(&["lon", "lng", "longitude", "long"]),
            find(&["lat", "latitude"]),
        ) {
            (Some(lon), Some(lat))
                if types[lon] == ColumnType::Double && types[lat] == ColumnType::Double =>
            {
                let name = ["location", "geo_location", "searchbench_location"]
                    .into_iter()
                    .find(|n| !header.iter().any(|h| h == n))
                    .unwrap_or("searchbench_location");
                Some((lon, lat, name.to_string()))
            }
            _ => None,
        };
        Ok(TypedColumns {
            names: header.to_vec(),
            types,
            geo,
        })
    }

    /// `{"properties": ...}`: one field per column, plus the geo_point.
    pub fn mapping(&self) -> Value {
        let mut props = Map::new();
        for (name, ty) in self.names.iter().zip(&self.types) {
            props.insert(name.clone(), json!({ "type": ty.es_type() }));
        }
        if let Some((_, _, geo)) = &self.geo {
            props.insert(geo.clone(), json!({ "type": "geo_point" }));
        }
        json!({ "properties": props })
    }
}

/// `b`'s fields merged into `a`'s `properties`; a field typed differently in both becomes
/// `double` (long and double) or `keyword` (anything else).
pub fn merge_mappings(a: &mut Value, b: &Value) {
    let (Some(Value::Object(pa)), Some(Value::Object(pb))) =
        (a.get_mut("properties"), b.get("properties"))
    else {
        return;
    };
    for (name, field) in pb {
        match pa.get(name) {
            None => {
                pa.insert(name.clone(), field.clone());
            }
            Some(existing) if existing == field => {}
            Some(existing) => {
                let types = [existing["type"].as_str(), field["type"].as_str()];
                let wide = if types
                    .iter()
                    .all(|t| matches!(t, Some("long") | Some("double")))
                {
                    "double"
                } else {
                    "keyword"
                };
                pa.insert(name.clone(), json!({ "type": wide }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(cells: &[&str]) -> ColumnType {
        infer_column(cells.iter().map(|c| c.as_bytes()))
    }

    #[test]
    fn columns_are_inferred() {
        assert_eq!(infer(&["1", "-20", ""]), ColumnType::Long);
        assert_eq!(infer(&["1", "2.5"]), ColumnType::Double);
        assert_eq!(infer(&["01234", "75001"]), ColumnType::Keyword);
        assert_eq!(infer(&["true", "FALSE"]), ColumnType::Boolean);
        assert_eq!(
            infer(&["2024-01-02", "2024-01-03T10:00:00Z"]),
            ColumnType::CheckedDate
        );
        assert_eq!(infer(&["2024-13-02"]), ColumnType::Keyword);
        assert_eq!(infer(&["abc", "1"]), ColumnType::Keyword);
        assert_eq!(infer(&["", ""]), ColumnType::Keyword);
        assert_eq!(infer(&["nan"]), ColumnType::Keyword);
    }

    #[test]
    fn given_types_parse_and_unknown_ones_are_named() {
        let t = CsvTypes::parse(&["price:float".into(), "day:date".into()]).unwrap();
        assert_eq!(t.given[0], ("price".into(), ColumnType::Double));
        assert!(t.infer);
        let e = CsvTypes::parse(&["price:flaot".into()]).unwrap_err();
        assert!(e.contains("flaot") && e.contains("float"), "{e}");
        assert!(!CsvTypes::parse(&["strings".into()]).unwrap().infer);
        assert!(CsvTypes::parse(&["price".into()]).is_err());
    }

    #[test]
    fn lat_lon_make_a_geo_point() {
        let header: Vec<String> = ["name", "lat", "lon"].map(String::from).to_vec();
        let mut r = csv::ByteRecord::new();
        for c in ["a", "48.8", "2.3"] {
            r.push_field(c.as_bytes());
        }
        let t = TypedColumns::resolve("f.csv", &header, &[r], &CsvTypes::default()).unwrap();
        assert_eq!(t.geo, Some((2, 1, "location".into())));
        assert_eq!(t.mapping()["properties"]["location"]["type"], "geo_point");
        assert_eq!(t.mapping()["properties"]["lat"]["type"], "double");
        let bad = CsvTypes::parse(&["nope:float".into()]).unwrap();
        assert!(TypedColumns::resolve("f.csv", &header, &[], &bad).is_err());
    }

    #[test]
    fn merged_mappings_widen() {
        let mut a = json!({"properties": {"x": {"type": "long"}, "y": {"type": "long"}}});
        let b = json!({"properties": {"x": {"type": "double"}, "y": {"type": "date"}, "z": {"type": "boolean"}}});
        merge_mappings(&mut a, &b);
        assert_eq!(a["properties"]["x"]["type"], "double");
        assert_eq!(a["properties"]["y"]["type"], "keyword");
        assert_eq!(a["properties"]["z"]["type"], "boolean");
    }
}
