//! `numbers`: small numbered documents (`n` from the seed on, `group` = `n mod 10` as a
//! keyword), whose
//! counts and sums per group are known by construction: a quick smoke test of a cluster,
//! and the smallest built-in workload with checked queries ([`queries`]). This folder and its
//! line in `workload::all()` are all it takes.

pub mod queries;

use serde_json::{json, Value};

use super::{
    ndjson_writer, plain, reject, required_docs, settings, CorpusWriter, FileShape, Opened,
    PartitionTruth, Workload, WorkloadSpec,
};
use crate::corpus::{CorpusError, DocSource, Item};
use crate::query::{dialect, Answerer, Dialect, QueryPlan, Variant};

/// Groups the documents fall into (`n mod GROUPS`).
pub const GROUPS: u64 = 10;

#[derive(Debug)]
pub struct NumbersWorkload;

impl Workload for NumbersWorkload {
    fn name(&self) -> &'static str {
        "numbers"
    }

    fn about(&self) -> &'static str {
        "numbered documents in 10 groups, exact counts and sums: a quick smoke test"
    }

    fn default_index(&self) -> &'static str {
        "searchbench-numbers"
    }

    fn index_body(&self) -> Value {
        json!({
            "settings": settings(),
            "mappings": {
                "dynamic": "strict",
                "properties": {
                    "n": { "type": "long" },
                    "group": { "type": "keyword" }
                }
            }
        })
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        Ok(plain(Box::new(Numbers::new(spec.seed, docs(spec)?))))
    }

    fn query_plan(
        &self,
        dialect: &dyn Dialect,
        _answerer: Option<&Answerer>,
        spec: &WorkloadSpec,
        _truth: Option<Vec<PartitionTruth>>,
    ) -> Result<Option<Box<dyn QueryPlan>>, CorpusError> {
        if !dialect.is(&dialect::SEARCH) {
            return Ok(None);
        }
        Ok(Some(Box::new(queries::NumbersQueries {
            first: spec.seed,
            docs: docs(spec)?,
        })))
    }

    fn query_variants(&self) -> Vec<Variant> {
        queries::variants()
    }

    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError> {
        if shape == FileShape::Csv {
            return Err(CorpusError::Invalid(
                "numbers writes NDJSON only; --format csv is for cluster-metrics and transactions"
                    .into(),
            ));
        }
        Ok(ndjson_writer(Box::new(Numbers::new(
            spec.seed,
            docs(spec)?,
        ))))
    }
}

/// The document count of `spec`, after refusing the parameters of other workloads.
fn docs(spec: &WorkloadSpec) -> Result<u64, CorpusError> {
    let p = &spec.params;
    for (flag, given) in [
        ("--rows-per-epoch", p.rows_per_epoch.is_some()),
        ("--epochs", p.epochs.is_some()),
        ("--truth", p.truth),
        ("--start", p.start.is_some()),
        ("--window", p.window.is_some()),
        ("--year", p.year.is_some()),
        ("--first-epoch", p.first_epoch.is_some()),
        ("--slices", p.slices.is_some()),
        ("--dims", p.dims.is_some()),
        ("--vector-index", p.vector_index.is_some()),
    ] {
        reject("numbers", flag, given)?;
    }
    let docs = required_docs("numbers", spec)?;
    // Sums come back as doubles: the numbers stay well inside their exact range.
    if spec
        .seed
        .checked_add(docs)
        .is_none_or(|end| end > MAX_NUMBER)
    {
        return Err(CorpusError::Invalid(format!(
            "numbers: --seed (the first number) + --docs must stay below {MAX_NUMBER}"
        )));
    }
    Ok(docs)
}

/// The numbers stay below this (2^40), so that sums of millions of them stay exact doubles.
pub const MAX_NUMBER: u64 = 1 << 40;

/// Documents `{"n": n, "group": "g<n mod 10>"}` for n in `first..first + docs` (the seed is
/// the first number).
#[derive(Debug, Clone)]
pub struct Numbers {
    first: u64,
    docs: u64,
    at: u64,
}

impl Numbers {
    pub fn new(first: u64, docs: u64) -> Self {
        Numbers { first, docs, at: 0 }
    }
}

impl DocSource for Numbers {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.at >= self.docs {
            return Ok(None);
        }
        let n = self.first + self.at;
        out.extend_from_slice(format!("{{\"n\":{n},\"group\":\"g{}\"}}", n % GROUPS).as_bytes());
        self.at += 1;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.docs)
    }

    fn describe(&self) -> String {
        format!("numbers ({} docs from {})", self.docs, self.first)
    }
}
