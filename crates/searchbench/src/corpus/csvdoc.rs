//! Turning CSV records into JSON documents: typed by a [`CsvMapping`] when one is known for
//! the file's header (the `transactions` mapping), else every column as a string.
//!
//! The same converter renders the `transactions` generator's documents, so a generated CSV
//! read back through the CSV reader yields exactly the documents `--format ndjson` writes.

use super::text::{push_json_str, push_u64};

/// How a column becomes a JSON value. Empty cells are left out of the document (real DVF
/// files have many, and a missing field is what the engine should see, not `""` or `0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// JSON string.
    Keyword,
    /// JSON integer (leading zeros allowed in the cell).
    Long,
    /// JSON number (shortest text that round-trips the `f64`).
    Double,
    /// JSON string; the engine's `date` mapping parses it.
    Date,
    /// JSON `true`/`false` (the cell in any case).
    Boolean,
    /// JSON string, checked on the client to be a date the default `date` format reads
    /// (inferred or given types of a user's CSV).
    CheckedDate,
}

impl ColumnType {
    /// The engine mapping type for this column.
    pub fn es_type(self) -> &'static str {
        match self {
            ColumnType::Keyword => "keyword",
            ColumnType::Long => "long",
            ColumnType::Double => "double",
            ColumnType::Date | ColumnType::CheckedDate => "date",
            ColumnType::Boolean => "boolean",
        }
    }
}

/// A CSV header with types, plus an optional `geo_point` built from two columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvMapping {
    pub columns: &'static [(&'static str, ColumnType)],
    /// (longitude column, latitude column, geo_point field name).
    pub geo: Option<(&'static str, &'static str, &'static str)>,
}

impl CsvMapping {
    /// True when `header` names exactly these columns, in this order.
    pub fn matches<'a>(&self, header: impl IntoIterator<Item = &'a [u8]>) -> bool {
        let mut it = header.into_iter();
        for (name, _) in self.columns {
            match it.next() {
                Some(h) if h.trim_ascii() == name.as_bytes() => {}
                _ => return false,
            }
        }
        it.next().is_none()
    }

    /// `properties` for the engine mapping: one field per column, plus the geo_point.
    pub fn properties(&self) -> serde_json::Value {
        let mut props = serde_json::Map::new();
        for (name, ty) in self.columns {
            let mut field = serde_json::json!({ "type": ty.es_type() });
            if *ty == ColumnType::Date {
                field["format"] = "strict_date_optional_time||yyyy-MM-dd".into();
            }
            props.insert((*name).to_string(), field);
        }
        if let Some((_, _, geo)) = self.geo {
            props.insert(geo.to_string(), serde_json::json!({ "type": "geo_point" }));
        }
        serde_json::Value::Object(props)
    }

    fn index_of(&self, column: &str) -> Option<usize> {
        self.columns.iter().position(|(n, _)| *n == column)
    }
}

/// Renders records of one CSV layout as JSON objects, reusing its scratch space.
#[derive(Debug, Clone)]
pub struct CsvToJson {
    /// JSON key fragments `"name":` per column (pre-escaped).
    keys: Vec<Vec<u8>>,
    types: Vec<ColumnType>,
    geo: Option<(usize, usize, Vec<u8>)>,
}

impl CsvToJson {
    /// Typed by `mapping`.
    pub fn typed(mapping: &CsvMapping) -> Self {
        let keys = mapping
            .columns
            .iter()
            .map(|(n, _)| key(n.as_bytes()))
            .collect();
        let types = mapping.columns.iter().map(|(_, t)| *t).collect();
        let geo = mapping.geo.and_then(|(lon, lat, name)| {
            Some((
                mapping.index_of(lon)?,
                mapping.index_of(lat)?,
                key(name.as_bytes()),
            ))
        });
        CsvToJson { keys, types, geo }
    }

    /// Typed by the columns of a user's file (inferred or given).
    pub fn columns_typed(columns: &super::csv_types::TypedColumns) -> Self {
        CsvToJson {
            keys: columns.names.iter().map(|n| key(n.as_bytes())).collect(),
            types: columns.types.clone(),
            geo: columns
                .geo
                .as_ref()
                .map(|(lon, lat, name)| (*lon, *lat, key(name.as_bytes()))),
        }
    }

    /// Every column a string, named by `header`.
    pub fn untyped<'a>(header: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let keys: Vec<Vec<u8>> = header.into_iter().map(|h| key(h.trim_ascii())).collect();
        let types = vec![ColumnType::Keyword; keys.len()];
        CsvToJson {
            keys,
            types,
            geo: None,
        }
    }

    pub fn columns(&self) -> usize {
        self.keys.len()
    }

    /// Appends the document for `fields` (one per column). On a cell that does not parse as
    /// its type, returns the reason and leaves `out` as it was.
    pub fn write<'a, I>(&self, fields: I, out: &mut Vec<u8>) -> Result<(), String>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let start = out.len();
        let result = self.write_inner(fields, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn write_inner<'a, I>(&self, fields: I, out: &mut Vec<u8>) -> Result<(), String>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        out.push(b'{');
        let mut first = true;
        let mut lon = None;
        let mut lat = None;
        for (i, cell) in fields.into_iter().enumerate() {
            let (Some(k), Some(&ty)) = (self.keys.get(i), self.types.get(i)) else {
                return Err(format!("more than {} fields", self.keys.len()));
            };
            let cell = cell.trim_ascii();
            if cell.is_empty() {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(k);
            match ty {
                ColumnType::Keyword | ColumnType::Date => push_json_str(out, cell),
                ColumnType::CheckedDate => {
                    if !super::csv_types::looks_like_date(cell) {
                        return Err(bad_cell(k, cell, "a date (yyyy-MM-dd[THH:mm:ss...])"));
                    }
                    push_json_str(out, cell);
                }
                ColumnType::Boolean => {
                    if cell.eq_ignore_ascii_case(b"true") {
                        out.extend_from_slice(b"true");
                    } else if cell.eq_ignore_ascii_case(b"false") {
                        out.extend_from_slice(b"false");
                    } else {
                        return Err(bad_cell(k, cell, "true or false"));
                    }
                }
                ColumnType::Long => {
                    let v = parse_i64(cell).ok_or_else(|| bad_cell(k, cell, "an integer"))?;
                    if v < 0 {
                        out.push(b'-');
                    }
                    push_u64(out, v.unsigned_abs());
                }
                ColumnType::Double => {
                    let v = parse_f64(cell).ok_or_else(|| bad_cell(k, cell, "a number"))?;
                    push_f64(out, v);
                    if let Some((lon_i, lat_i, _)) = &self.geo {
                        if i == *lon_i {
                            lon = Some(v);
                        } else if i == *lat_i {
                            lat = Some(v);
                        }
                    }
                }
            }
        }
        if let (Some((_, _, name)), Some(lon), Some(lat)) = (&self.geo, lon, lat) {
            if (-180.0..=180.0).contains(&lon) && (-90.0..=90.0).contains(&lat) {
                if !first {
                    out.push(b',');
                }
                out.extend_from_slice(name);
                out.extend_from_slice(b"{\"lat\":");
                push_f64(out, lat);
                out.extend_from_slice(b",\"lon\":");
                push_f64(out, lon);
                out.push(b'}');
            }
        }
        out.push(b'}');
        Ok(())
    }
}

fn key(name: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(name.len() + 3);
    push_json_str(&mut k, name);
    k.push(b':');
    k
}

fn bad_cell(key: &[u8], cell: &[u8], what: &str) -> String {
    let name = String::from_utf8_lossy(&key[1..key.len().saturating_sub(2)]).into_owned();
    format!(
        "column {name}: {:?} is not {what}",
        String::from_utf8_lossy(cell)
    )
}

fn parse_i64(cell: &[u8]) -> Option<i64> {
    std::str::from_utf8(cell).ok()?.parse().ok()
}

fn parse_f64(cell: &[u8]) -> Option<f64> {
    let v: f64 = std::str::from_utf8(cell).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Shortest round-trip text of a finite `f64` (JSON has no NaN or infinity).
#[inline]
pub fn push_f64(out: &mut Vec<u8>, v: f64) {
    let mut buf = ryu::Buffer::new();
    out.extend_from_slice(buf.format_finite(v).as_bytes());
}
