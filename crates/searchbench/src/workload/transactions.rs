//! `transactions`: French property sales shaped like DVF open data, as CSV or as mapped
//! documents (`geo_point` from longitude/latitude). No query phase.

use serde_json::{json, Value};

use super::{
    ndjson_writer, plain, reject, required_docs, settings, CorpusWriter, FileShape, Opened,
    Workload, WorkloadSpec,
};
use crate::corpus::{transactions, CorpusError, DocSource, Transactions, TransactionsSpec};

#[derive(Debug)]
pub struct TransactionsWorkload;

impl Workload for TransactionsWorkload {
    fn name(&self) -> &'static str {
        "transactions"
    }

    fn about(&self) -> &'static str {
        "French property sales shaped like DVF open data, CSV or mapped documents"
    }

    fn default_index(&self) -> &'static str {
        "searchbench-transactions"
    }

    fn index_body(&self) -> Value {
        transactions_body()
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        Ok(plain(Box::new(Transactions::new(transactions_spec(
            spec,
        )?)?)))
    }

    fn default_shape(&self) -> FileShape {
        FileShape::Csv
    }

    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError> {
        let mut g = Transactions::new(transactions_spec(spec)?)?;
        Ok(match shape {
            FileShape::Ndjson => ndjson_writer(Box::new(g)),
            FileShape::Csv => CorpusWriter {
                header: format!("{}\n", transactions::csv_header()).into_bytes(),
                len_hint: g.len_hint(),
                next: Box::new(move |out| Ok(g.next_csv_into(out))),
                truth: None,
            },
        })
    }
}

/// The `transactions` generator spec for `spec`.
pub fn transactions_spec(spec: &WorkloadSpec) -> Result<TransactionsSpec, CorpusError> {
    let p = &spec.params;
    reject(
        "transactions",
        "--rows-per-epoch",
        p.rows_per_epoch.is_some(),
    )?;
    reject("transactions", "--epochs", p.epochs.is_some())?;
    reject("transactions", "--dims", p.dims.is_some())?;
    reject("transactions", "--vector-index", p.vector_index.is_some())?;
    reject("transactions", "--truth", p.truth)?;
    reject("transactions", "--start", p.start.is_some())?;
    reject("transactions", "--window", p.window.is_some())?;
    let mut s = TransactionsSpec::new(spec.seed, required_docs("transactions", spec)?);
    if let Some(y) = p.year {
        s.year = y;
    }
    Ok(s)
}

fn transactions_body() -> Value {
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": crate::corpus::transactions::MAPPING.properties()
        }
    })
}
