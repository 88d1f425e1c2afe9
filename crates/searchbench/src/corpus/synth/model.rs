//! What each field's values look like, learned from a sample (or the type's defaults when
//! there is none), and how a document's value is drawn from it.
//!
//! Per field: how often it is there, whether it is a scalar or an array and how long, and its
//! values:
//! - **terms** (keyword, ip, and numbers with few distinct values) by their frequency in the
//!   sample, with new terms of the same shape at the rate the sample's vocabulary still grows
//!   (Chao1's estimate of the terms the sample has not seen), so a corpus larger than its sample has the
//!   cardinality that size would have;
//! - **text** as a count of words and words by position (the first three positions each their
//!   own vocabulary, the rest one), each a vocabulary of terms as above;
//! - **numbers and dates** of many values by their quantiles (a value between two sampled
//!   neighbours), kept to the type (whole, scaled, in range);
//! - geo points by their latitudes' and longitudes' quantiles, booleans by their share,
//!   vectors by each dimension's mean and spread, objects and nested objects field by field.

use serde_json::{Map, Value};
use std::sync::Arc;

use super::dates::DateFormat;
use super::mapping::{Field, Kind};
use crate::rng::Rng;

/// How many sampled values a field keeps for its quantiles and shapes (a reservoir beyond).
const KEEP: usize = 65_536;
/// Numbers with at most this many distinct values in the sample are drawn as terms.
const FEW: usize = 256;
/// Text positions with a vocabulary of their own.
const POSITIONS: usize = 3;

/// One field's model.
#[derive(Debug, Clone)]
pub struct FieldModel {
    /// Its key in its object, as JSON (quoted, escaped) followed by `:`.
    key: Vec<u8>,
    pub path: String,
    /// The share of the objects holding it.
    pub present: f64,
    /// The shapes seen: 0 a scalar, n an array of n (drawn uniformly from what was seen).
    pub shapes: Vec<u32>,
    pub values: Values,
}

/// A field's values.
#[derive(Debug, Clone)]
pub enum Values {
    Terms(Terms),
    Text {
        counts: Vec<u32>,
        words: Vec<Terms>,
    },
    Numbers {
        sorted: Vec<f64>,
        kind: Kind,
    },
    /// Written in the format of the list most of the sample's values were in.
    Dates {
        /// Millis since the epoch (exact as f64 to the year 285,000).
        sorted: Vec<f64>,
        format: DateFormat,
        written_as: usize,
        /// A sample whose instants follow their order (a line fitted to them explains 90 %
        /// of their variance): document `i` is where the line puts it, give or take one of
        /// the sample's own deviations from the line, so a corpus larger than the sample
        /// spans more time, as the real one would.
        series: Option<Series>,
    },
    Bool(f64),
    Geo {
        lat: Vec<f64>,
        lon: Vec<f64>,
    },
    Vector {
        mean: Vec<f32>,
        spread: Vec<f32>,
    },
    Object(Vec<FieldModel>),
}

/// Instants along a line: `start + step × value's position + a deviation`.
#[derive(Debug, Clone)]
pub struct Series {
    start: f64,
    step: f64,
    /// The field's values a document, to turn a document's number into a position.
    per_doc: f64,
    /// The sample's deviations from the line, sorted.
    deviations: Vec<f64>,
}

impl Series {
    /// The least-squares line through `values` by position, when it explains nine tenths of
    /// their variance and rises.
    fn fit(values: &[f64], docs: usize) -> Option<Series> {
        let n = values.len();
        if n < 16 {
            return None;
        }
        let mean_i = (n - 1) as f64 / 2.0;
        let mean_v = values.iter().sum::<f64>() / n as f64;
        let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
        for (i, v) in values.iter().enumerate() {
            let (dx, dy) = (i as f64 - mean_i, v - mean_v);
            sxy += dx * dy;
            sxx += dx * dx;
            syy += dy * dy;
        }
        if syy == 0.0 || sxy <= 0.0 || sxy * sxy / (sxx * syy) < 0.9 {
            return None;
        }
        let step = sxy / sxx;
        let start = mean_v - step * mean_i;
        let mut deviations: Vec<f64> = thin(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| v - (start + step * i as f64))
                .collect(),
        );
        deviations.sort_by(f64::total_cmp);
        Some(Series {
            start,
            step,
            per_doc: n as f64 / docs.max(1) as f64,
            deviations,
        })
    }

    fn at(&self, doc: u64, u: f64) -> f64 {
        self.start + self.step * doc as f64 * self.per_doc + between(&self.deviations, u)
    }
}

/// A keyword whose sampled values are all ISO instants following their order (an ingestion
/// time, a time-ordered id), each written back exactly as the sample wrote it: a series of
/// instants, as a date field's, so a corpus larger than the sample spans more time. As terms,
/// a few repeats in the sample would have its vocabulary stop growing (the logs corpus's
/// `aws.cloudwatch.ingestion_time` came out with half its cardinality at 1 M documents).
fn instants_in_keyword(values: &[&Value], docs: usize) -> Option<Values> {
    if values.len() < 16 {
        return None;
    }
    let format = DateFormat::of(Some("strict_date_optional_time")).ok()?;
    let mut millis = Vec::with_capacity(values.len());
    let mut written = Vec::new();
    for v in values {
        let text = v.as_str()?;
        let m = format.read(v)?;
        written.clear();
        format.write(m, &mut written);
        // Quoted as JSON: the text itself between the quotes.
        if written.get(1..written.len().saturating_sub(1)) != Some(text.as_bytes()) {
            return None;
        }
        millis.push(m as f64);
    }
    let series = Series::fit(&millis, docs)?;
    let mut sorted = thin(millis);
    sorted.sort_by(f64::total_cmp);
    Some(Values::Dates {
        sorted,
        format,
        written_as: 0,
        series: Some(series),
    })
}

/// Terms by frequency, and how fast new ones come. The lists are shared: a type's default
/// vocabulary is made once per model and given to each of its fields (a mapping of 100,000
/// keywords held 100,000 copies, 10 GB).
#[derive(Debug, Clone)]
pub struct Terms {
    /// Each term as written (JSON: quoted strings, bare numbers).
    rendered: Arc<[Vec<u8>]>,
    /// The raw text each new term is shaped after.
    raw: Arc<[String]>,
    /// Cumulative counts.
    cumulative: Arc<[u64]>,
    quoted: bool,
    /// How a new term is made from a seen one.
    shape: Shape,
    /// The sample's terms seen once (Good-Turing: their share of the values is the chance
    /// that the next value is new), its values, and how many terms it has not seen (Chao1:
    /// `f1² / 2 f2`), which sets how fast new terms keep coming beyond the sample's size: a
    /// vocabulary nearly all seen stops growing, one of ids keeps growing.
    singletons: f64,
    values: f64,
    unseen: f64,
    /// The cumulative count up to the last term seen more than once: a seen term is drawn
    /// from those, the singletons' share going to new terms instead (all of them when every
    /// term was seen once).
    repeated: u64,
    /// Values per document of the sample, to place a document's values on the growth curve.
    per_doc: f64,
}

/// How a new term is shaped after a seen one.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// Its last letters and digits replaced, class for class.
    Chars,
    /// An IPv4 address with a new last octet (an IPv6 one, a new last group).
    Ip,
    /// None: the sample's terms are all there is (a number, a constant).
    Closed,
}

impl Terms {
    /// Terms from `values` (the sample's, in order), written quoted or not.
    fn learn(values: &[String], quoted: bool, shape: Shape, docs: usize) -> Terms {
        let mut counts: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
        for v in values {
            *counts.entry(v.as_str()).or_default() += 1;
        }
        let mut by_count: Vec<(&str, u64)> = counts.into_iter().collect();
        // Most frequent first, ties by text: the same sample gives the same model.
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let distinct = by_count.len();
        let f1 = by_count.iter().filter(|(_, n)| *n == 1).count() as f64;
        let f2 = by_count.iter().filter(|(_, n)| *n == 2).count() as f64;
        // Chao1, bias-corrected when no term was seen twice.
        let unseen = if f2 > 0.0 {
            f1 * f1 / (2.0 * f2)
        } else {
            f1 * (f1 - 1.0).max(0.0) / 2.0
        };
        let singletons = by_count.iter().filter(|(_, n)| *n == 1).count();
        let repeated: u64 = by_count.iter().map(|(_, n)| *n).filter(|n| *n > 1).sum();
        let mut total = 0;
        let mut cumulative = Vec::with_capacity(distinct);
        let mut rendered = Vec::with_capacity(distinct);
        let mut raw = Vec::with_capacity(distinct);
        for (term, n) in by_count {
            total += n;
            cumulative.push(total);
            rendered.push(render(term, quoted));
            raw.push(term.to_string());
        }
        Terms {
            rendered: rendered.into(),
            raw: raw.into(),
            cumulative: cumulative.into(),
            quoted,
            shape,
            singletons: singletons as f64,
            repeated,
            values: values.len() as f64,
            unseen: if shape == Shape::Closed { 0.0 } else { unseen },
            per_doc: values.len() as f64 / docs.max(1) as f64,
        }
    }

    /// `n` made-up terms, the first the most frequent (density ~ 1/sqrt of the rank).
    fn made_up(n: usize, prefix: &str) -> Terms {
        let values: Vec<String> = (0..n).map(|i| format!("{prefix}{i}")).collect();
        let mut t = Terms::learn(&values, true, Shape::Closed, n);
        t.cumulative = (1..=n as u64)
            .scan(0u64, |sum, rank| {
                *sum += 1_000_000 / (rank as f64).sqrt() as u64;
                Some(*sum)
            })
            .collect::<Vec<u64>>()
            .into();
        t
    }

    /// The share of new terms among the values of document `doc`: Good-Turing's (the
    /// sample's share of terms seen once) up to the sample's size, so a corpus of the sample's
    /// size has its cardinality; beyond, the slope of Chao et al.'s extrapolation of
    /// richness, `d + f0 (1 - (1 - f1 / (n f0 + f1))^m)`, which falls as the unseen terms
    /// (`f0`) are used up.
    fn new_share(&self, doc: u64) -> f64 {
        if self.unseen == 0.0 || self.values == 0.0 {
            return 0.0;
        }
        let n = self.values;
        let beyond = doc as f64 * self.per_doc - n;
        if beyond <= 0.0 {
            return (self.singletons / n).clamp(0.0, 1.0);
        }
        let q = self.singletons / (n * self.unseen + self.singletons);
        let slope = self.unseen * -(1.0 - q).ln() * (beyond * (1.0 - q).ln()).exp();
        slope.clamp(0.0, 1.0)
    }

    fn write(&self, rng: &mut Rng, doc: u64, out: &mut Vec<u8>) {
        let Some(&total) = self.cumulative.last() else {
            out.extend_from_slice(b"null");
            return;
        };
        let new = rng.chance(self.new_share(doc));
        // A seen term comes from those seen more than once; a new one is shaped after one
        // seen once (the kind of term that keeps coming new), or any when none was.
        let at = match (new, self.repeated) {
            (true, r) if r < total => r + rng.below(total - r),
            (false, r) if r > 0 && self.unseen > 0.0 => rng.below(r),
            _ => rng.below(total),
        };
        let i = self.cumulative.partition_point(|&c| c <= at);
        if new {
            let made = reshape(&self.raw[i], self.shape, rng);
            out.extend_from_slice(&render(&made, self.quoted));
        } else {
            out.extend_from_slice(&self.rendered[i]);
        }
    }
}

/// `term` as JSON.
fn render(term: &str, quoted: bool) -> Vec<u8> {
    if quoted {
        let mut out = Vec::with_capacity(term.len() + 2);
        crate::corpus::text::push_json_str(&mut out, term.as_bytes());
        out
    } else {
        term.as_bytes().to_vec()
    }
}

/// A new term of the same shape as `term`.
fn reshape(term: &str, shape: Shape, rng: &mut Rng) -> String {
    match shape {
        Shape::Closed => term.to_string(),
        Shape::Ip => match term.rsplit_once(['.', ':']) {
            Some((head, _)) if term.contains(':') => format!("{head}:{:x}", rng.below(65_536)),
            Some((head, _)) => format!("{head}.{}", rng.below(256)),
            None => term.to_string(),
        },
        Shape::Chars => {
            // The last digits (up to six) where it has digits, so `/news/744.htm` stays a
            // page of the same kind; else its last letters.
            let mut chars: Vec<char> = term.chars().collect();
            let digits = chars.iter().any(char::is_ascii_digit);
            let mut changed = 0;
            for c in chars.iter_mut().rev() {
                if changed == 6 {
                    break;
                }
                let pick = |from: &[u8], rng: &mut Rng| {
                    from[rng.below(from.len() as u64) as usize] as char
                };
                let new = match *c {
                    '0'..='9' => pick(b"0123456789", rng),
                    'a'..='z' if !digits => pick(b"abcdefghijklmnopqrstuvwxyz", rng),
                    'A'..='Z' if !digits => pick(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", rng),
                    _ => continue,
                };
                *c = new;
                changed += 1;
            }
            let mut out: String = chars.into_iter().collect();
            if changed == 0 {
                out.push_str(&format!("{:x}", rng.below(1 << 24)));
            }
            out
        }
    }
}

/// What the sample holds of one field: whether each object has it, and its values.
struct Seen<'a> {
    objects: usize,
    present: usize,
    shapes: Vec<u32>,
    values: Vec<&'a Value>,
}

fn seen<'a>(field: &Field, parents: &[&'a Map<String, Value>], geo: bool) -> Seen<'a> {
    let mut s = Seen {
        objects: parents.len(),
        present: 0,
        shapes: Vec::new(),
        values: Vec::new(),
    };
    for p in parents {
        let Some(v) = p.get(&field.name).filter(|v| !v.is_null()) else {
            continue;
        };
        s.present += 1;
        match v {
            // A geo point may be [lon, lat]: one value, not an array of two.
            Value::Array(a) if !(geo && a.len() == 2 && a.iter().all(Value::is_number)) => {
                s.shapes.push(a.len() as u32);
                s.values.extend(a.iter().filter(|v| !v.is_null()));
            }
            v => {
                s.shapes.push(0);
                s.values.push(v);
            }
        }
    }
    s
}

/// Keeps at most [`KEEP`] of `items`, spread evenly (deterministic).
fn thin<T: Clone>(items: Vec<T>) -> Vec<T> {
    if items.len() <= KEEP {
        return items;
    }
    let step = items.len() as f64 / KEEP as f64;
    (0..KEEP)
        .map(|i| items[(i as f64 * step) as usize].clone())
        .collect()
}

/// The types' default vocabularies, for fields the sample does not show: made once per model
/// and shared by every field that takes one.
#[derive(Debug, Clone)]
pub struct Defaults {
    keyword: Terms,
    constant: Terms,
    ip: Terms,
    words: Terms,
}

impl Defaults {
    pub fn new() -> Defaults {
        let addresses: Vec<String> = (0..1024)
            .map(|i| format!("10.0.{}.{}", i / 256, i % 256))
            .collect();
        Defaults {
            keyword: Terms::made_up(1000, "term-"),
            constant: Terms::made_up(1, "constant-"),
            ip: Terms::learn(&addresses, true, Shape::Ip, 1024),
            words: Terms::made_up(5000, "word"),
        }
    }
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults::new()
    }
}

impl FieldModel {
    /// The model of `field` from its parents' objects in the sample (`docs` documents; none:
    /// the type's defaults).
    pub fn learn(field: &Field, parents: &[&Map<String, Value>], docs: usize) -> FieldModel {
        FieldModel::learn_with(field, parents, docs, &Defaults::new())
    }

    /// [`FieldModel::learn`] with the types' defaults made once for the whole model.
    pub fn learn_with(
        field: &Field,
        parents: &[&Map<String, Value>],
        docs: usize,
        defaults: &Defaults,
    ) -> FieldModel {
        let s = seen(field, parents, field.kind == Kind::GeoPoint);
        let key = {
            let mut k = render(&field.name, true);
            k.push(b':');
            k
        };
        let known = s.present > 0;
        let present = if s.objects == 0 {
            1.0
        } else {
            s.present as f64 / s.objects as f64
        };
        let default_shapes = match field.kind {
            Kind::Nested(_) => vec![1, 2, 3],
            _ => vec![0],
        };
        let shapes = if known {
            thin(s.shapes.clone())
        } else {
            default_shapes
        };
        let text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        };
        let strings: Vec<String> = s.values.iter().filter_map(|v| text(v)).collect();
        let values = match &field.kind {
            Kind::Keyword if known => instants_in_keyword(&s.values, docs)
                .unwrap_or_else(|| Values::Terms(Terms::learn(&strings, true, Shape::Chars, docs))),
            Kind::Keyword => Values::Terms(defaults.keyword.clone()),
            Kind::Constant(Some(c)) => Values::Terms(Terms::learn(
                std::slice::from_ref(c),
                true,
                Shape::Closed,
                1,
            )),
            Kind::Constant(None) if known => {
                Values::Terms(Terms::learn(&strings, true, Shape::Closed, docs))
            }
            Kind::Constant(None) => Values::Terms(defaults.constant.clone()),
            Kind::Ip if known => Values::Terms(Terms::learn(&strings, true, Shape::Ip, docs)),
            Kind::Ip => Values::Terms(defaults.ip.clone()),
            Kind::Text => {
                let split: Vec<Vec<&str>> = strings
                    .iter()
                    .map(|t| t.split_whitespace().collect())
                    .collect();
                if split.is_empty() {
                    Values::Text {
                        counts: vec![4, 8, 12],
                        words: vec![defaults.words.clone()],
                    }
                } else {
                    let counts = thin(split.iter().map(|w| w.len() as u32).collect());
                    let mut words = Vec::new();
                    for at in 0..=POSITIONS {
                        let here: Vec<String> = split
                            .iter()
                            .flat_map(|w| {
                                if at < POSITIONS {
                                    w.get(at..=at).unwrap_or(&[])
                                } else {
                                    w.get(POSITIONS..).unwrap_or(&[])
                                }
                            })
                            .map(|w| w.to_string())
                            .collect();
                        let here = if here.is_empty() {
                            vec!["word".to_string()]
                        } else {
                            here
                        };
                        words.push(Terms::learn(&here, true, Shape::Chars, docs));
                    }
                    Values::Text { counts, words }
                }
            }
            Kind::Whole { .. } | Kind::Real | Kind::Scaled { .. } => {
                let numbers: Vec<f64> = s.values.iter().filter_map(|v| number(v)).collect();
                let distinct = {
                    let mut d: Vec<u64> = numbers.iter().map(|f| f.to_bits()).collect();
                    d.sort_unstable();
                    d.dedup();
                    d.len()
                };
                if numbers.is_empty() {
                    Values::Numbers {
                        sorted: vec![0.0, 1000.0, 1_000_000.0],
                        kind: field.kind.clone(),
                    }
                } else if distinct <= FEW {
                    let as_text: Vec<String> = numbers
                        .iter()
                        .map(|f| number_text(*f, &field.kind))
                        .collect();
                    Values::Terms(Terms::learn(&as_text, false, Shape::Closed, docs))
                } else {
                    let mut sorted = thin(numbers);
                    sorted.sort_by(f64::total_cmp);
                    Values::Numbers {
                        sorted,
                        kind: field.kind.clone(),
                    }
                }
            }
            Kind::Date(format) => {
                let read: Vec<(i64, usize)> = s
                    .values
                    .iter()
                    .filter_map(|v| format.read_which(v))
                    .collect();
                let mut used = vec![0usize; format.0.len()];
                for (_, at) in &read {
                    used[*at] += 1;
                }
                // The first of the most used (the first format when the sample has none).
                let written_as = (0..used.len()).rev().max_by_key(|&i| used[i]).unwrap_or(0);
                let in_order: Vec<f64> = read.iter().map(|(m, _)| *m as f64).collect();
                let series = Series::fit(&in_order, docs);
                let mut sorted: Vec<f64> = thin(read.into_iter().map(|(m, _)| m as f64).collect());
                sorted.sort_by(f64::total_cmp);
                if sorted.is_empty() {
                    // A month from 2024-01-01, as no sample says otherwise.
                    sorted = vec![1_704_067_200_000.0, 1_706_745_600_000.0];
                }
                Values::Dates {
                    sorted,
                    format: format.clone(),
                    written_as,
                    series,
                }
            }
            Kind::Boolean => {
                let trues = s
                    .values
                    .iter()
                    .filter(|v| matches!(v, Value::Bool(true)) || v.as_str() == Some("true"))
                    .count();
                Values::Bool(if known {
                    trues as f64 / s.values.len().max(1) as f64
                } else {
                    0.5
                })
            }
            Kind::GeoPoint => {
                let points: Vec<(f64, f64)> = s.values.iter().filter_map(|v| point(v)).collect();
                let (mut lat, mut lon): (Vec<f64>, Vec<f64>) = thin(points).into_iter().unzip();
                if lat.is_empty() {
                    (lat, lon) = (vec![-60.0, 60.0], vec![-180.0, 180.0]);
                }
                lat.sort_by(f64::total_cmp);
                lon.sort_by(f64::total_cmp);
                Values::Geo { lat, lon }
            }
            Kind::Vector { dims } => {
                let mut sum = vec![0f64; *dims];
                let mut squares = vec![0f64; *dims];
                let mut n = 0f64;
                for v in &s.values {
                    let Some(a) = v.as_array().filter(|a| a.len() == *dims) else {
                        continue;
                    };
                    n += 1.0;
                    for (i, x) in a.iter().enumerate() {
                        let x = x.as_f64().unwrap_or(0.0);
                        sum[i] += x;
                        squares[i] += x * x;
                    }
                }
                let (mean, spread) = if n == 0.0 {
                    (vec![0.0; *dims], vec![1.0; *dims])
                } else {
                    (
                        sum.iter().map(|s| (s / n) as f32).collect(),
                        sum.iter()
                            .zip(&squares)
                            .map(|(s, q)| ((q / n - (s / n).powi(2)).max(0.0)).sqrt() as f32)
                            .collect(),
                    )
                };
                Values::Vector { mean, spread }
            }
            Kind::Object(children) | Kind::Nested(children) => {
                let objects: Vec<&Map<String, Value>> =
                    s.values.iter().filter_map(|v| v.as_object()).collect();
                Values::Object(
                    children
                        .iter()
                        .map(|c| FieldModel::learn_with(c, &objects, docs, defaults))
                        .collect(),
                )
            }
        };
        FieldModel {
            key,
            path: field.path.clone(),
            present,
            shapes,
            values,
        }
    }

    /// Writes `"key":value` of document `doc`, or nothing when the draw says it is absent;
    /// says whether it wrote.
    pub fn write(&self, rng: &mut Rng, doc: u64, out: &mut Vec<u8>) -> bool {
        if self.present < 1.0 && !rng.chance(self.present) {
            return false;
        }
        out.extend_from_slice(&self.key);
        let shape = match self.shapes.len() {
            1 => self.shapes[0],
            n => self.shapes[rng.below(n as u64) as usize],
        };
        if shape == 0 {
            self.value(rng, doc, out);
        } else {
            out.push(b'[');
            for i in 0..shape {
                if i > 0 {
                    out.push(b',');
                }
                self.value(rng, doc, out);
            }
            out.push(b']');
        }
        true
    }

    fn value(&self, rng: &mut Rng, doc: u64, out: &mut Vec<u8>) {
        match &self.values {
            Values::Terms(t) => t.write(rng, doc, out),
            Values::Text { counts, words } => {
                let n = counts[rng.below(counts.len() as u64) as usize].max(1) as usize;
                // The words as one JSON string: each rendered word without its quotes.
                out.push(b'"');
                for i in 0..n {
                    if i > 0 {
                        out.push(b' ');
                    }
                    let start = out.len();
                    words[i.min(words.len() - 1)].write(rng, doc, out);
                    // Strip the word's own quotes.
                    out.remove(start);
                    out.pop();
                }
                out.push(b'"');
            }
            Values::Numbers { sorted, kind } => {
                let x = between(sorted, rng.unit());
                out.extend_from_slice(number_text(x, kind).as_bytes());
            }
            Values::Dates {
                sorted,
                format,
                written_as,
                series,
            } => {
                let x = match series {
                    Some(line) => line.at(doc, rng.unit()),
                    None => between(sorted, rng.unit()),
                };
                format.write_as(*written_as, x as i64, out);
            }
            Values::Bool(p) => {
                out.extend_from_slice(if rng.chance(*p) { b"true" } else { b"false" })
            }
            Values::Geo { lat, lon } => {
                let (a, o) = (between(lat, rng.unit()), between(lon, rng.unit()));
                out.extend_from_slice(b"{\"lat\":");
                out.extend_from_slice(
                    ryu::Buffer::new()
                        .format_finite((a * 1e6).round() / 1e6)
                        .as_bytes(),
                );
                out.extend_from_slice(b",\"lon\":");
                out.extend_from_slice(
                    ryu::Buffer::new()
                        .format_finite((o * 1e6).round() / 1e6)
                        .as_bytes(),
                );
                out.push(b'}');
            }
            Values::Vector { mean, spread } => {
                out.push(b'[');
                for (i, (m, s)) in mean.iter().zip(spread).enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let x = m + s * rng.normalish() as f32;
                    out.extend_from_slice(ryu::Buffer::new().format_finite(x).as_bytes());
                }
                out.push(b']');
            }
            Values::Object(children) => {
                out.push(b'{');
                let mut first = true;
                for c in children {
                    let at = out.len();
                    if !first {
                        out.push(b',');
                    }
                    if c.write(rng, doc, out) {
                        first = false;
                    } else {
                        out.truncate(at);
                    }
                }
                out.push(b'}');
            }
        }
    }
}

/// A number, or a string holding one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|f: &f64| f.is_finite())
}

/// `x` written as the field's type keeps it: whole and in range, to the scale, or a real.
fn number_text(x: f64, kind: &Kind) -> String {
    match kind {
        Kind::Whole { min, max } => {
            let r = x.round().clamp(*min as f64, *max as f64);
            itoa::Buffer::new().format(r as i64).to_string()
        }
        Kind::Scaled { factor } => {
            let r = (x * factor).round() / factor;
            ryu::Buffer::new().format_finite(r).to_string()
        }
        _ => ryu::Buffer::new().format_finite(x).to_string(),
    }
}

/// A geo point as (lat, lon): an object, `[lon, lat]`, or `"lat,lon"`.
fn point(v: &Value) -> Option<(f64, f64)> {
    match v {
        Value::Object(o) => Some((number(o.get("lat")?)?, number(o.get("lon")?)?)),
        Value::Array(a) if a.len() == 2 => Some((number(&a[1])?, number(&a[0])?)),
        Value::String(s) => {
            let (lat, lon) = s.split_once(',')?;
            Some((lat.trim().parse().ok()?, lon.trim().parse().ok()?))
        }
        _ => None,
    }
}

/// The value at quantile `u` of `sorted`, between its two neighbours.
fn between(sorted: &[f64], u: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let at = u * (n - 1) as f64;
            let i = (at as usize).min(n - 2);
            sorted[i] + (sorted[i + 1] - sorted[i]) * (at - i as f64)
        }
    }
}
