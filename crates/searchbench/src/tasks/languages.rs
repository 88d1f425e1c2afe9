//! The query languages beside the search DSL that Rally runs as operations of their own:
//! ES|QL (`esql`: `POST /_query`) and SQL (`sql`: `POST /_sql`, its further pages by cursor),
//! with the parameters and outcomes of Rally's own runners (`esrally/driver/runner.py`,
//! `Esql` and `Sql`):
//!
//! - `esql` takes `query` (required), `filter`, and `body` (more of the request, such as
//!   `params`, `columnar` or `locale`, sent as the track writes it); `request-params` go on the
//!   query string, and no `format` is added. An answer that says `is_partial` is a failed
//!   operation, as Rally counts it.
//! - `sql` takes `body` with its `query` (required) and `pages` (1 unless said): each page
//!   after the first is asked for by the cursor the one before gave, and a result set used up
//!   before the pages are is a failed operation.
//!
//! Both live in Elasticsearch's x-pack (`x-pack-esql`, `x-pack-sql`): a node without the module
//! is told apart before the task runs (`super::needs`).

use reqwest::Method;
use serde_json::{Map, Value};

use super::operation::{Done, Failed};
use super::plan::Unplanned;
use crate::cluster::Target;

/// One operation in a query language.
#[derive(Debug, Clone, PartialEq)]
pub enum LanguageOp {
    /// `POST /_query{query string}` with `body` (its `query` and `filter` laid in).
    Esql { path: String, body: Value },
    /// `POST /_sql` with `body`, then `pages - 1` pages more by cursor.
    Sql { body: Value, pages: u64 },
}

/// The most pages a `sql` task may ask for: a track asking for more is mistaken.
const MOST_PAGES: u64 = 1_000_000;

/// The `esql` operation of parameters `p`, with `request-params` as `query_string`.
pub fn esql(p: &Map<String, Value>, query_string: &str) -> Result<LanguageOp, Unplanned> {
    let query = p.get("query").ok_or("esql needs its query")?;
    let mut body = match p.get("body") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(b)) => b.clone(),
        Some(other) => return Err(format!("esql: body {other} is not an object").into()),
    };
    body.insert("query".into(), query.clone());
    if let Some(filter) = p.get("filter").filter(|f| !f.is_null()) {
        body.insert("filter".into(), filter.clone());
    }
    Ok(LanguageOp::Esql {
        path: format!("/_query{query_string}"),
        body: Value::Object(body),
    })
}

/// The `sql` operation of parameters `p`.
pub fn sql(p: &Map<String, Value>) -> Result<LanguageOp, Unplanned> {
    let body = p.get("body").ok_or("sql needs its body")?;
    if !body.is_object() {
        return Err(format!("sql: body {body} is not an object").into());
    }
    if body.get("query").is_none_or(Value::is_null) {
        return Err("sql needs its body.query".into());
    }
    let pages = match p.get("pages") {
        None => 1,
        Some(v) => v
            .as_u64()
            .filter(|n| (1..=MOST_PAGES).contains(n))
            .ok_or_else(|| {
                format!(
                    "sql: pages {} is not a whole number from 1 to {MOST_PAGES}",
                    crate::shown::Shown(v)
                )
            })?,
    };
    Ok(LanguageOp::Sql {
        body: body.clone(),
        pages,
    })
}

impl LanguageOp {
    /// One execution from client `client`: what it did and its (last) answer.
    pub async fn once(&self, t: &Target, client: usize) -> Result<(Done, Value), Failed> {
        match self {
            LanguageOp::Esql { path, body } => {
                let answer = post(t, client, path, body).await?;
                if answer["is_partial"] == Value::Bool(true) {
                    return Err(Failed("ES|QL query returned partial results".into()));
                }
                Ok((pages(1), answer))
            }
            LanguageOp::Sql { body, pages: asked } => {
                let mut answer = post(t, client, "/_sql", body).await?;
                let mut done = 1;
                while done < *asked {
                    let Some(cursor) = answer["cursor"].as_str().filter(|c| !c.is_empty()) else {
                        return Err(Failed(format!(
                            "the result set was used up before all pages were fetched: {} \
                             page(s) of {asked} remaining",
                            asked - done
                        )));
                    };
                    let next = serde_json::json!({ "cursor": cursor });
                    answer = post(t, client, "/_sql", &next).await?;
                    done += 1;
                }
                Ok((pages(done), answer))
            }
        }
    }
}

fn pages(units: u64) -> Done {
    Done {
        units,
        ..Done::default()
    }
}

async fn post(t: &Target, client: usize, path: &str, body: &Value) -> Result<Value, Failed> {
    let bytes = serde_json::to_vec(body).map_err(|e| Failed(e.to_string()))?;
    let reply = t
        .send_at(
            client,
            Method::POST,
            path,
            Some(("application/json", bytes)),
        )
        .await?;
    Ok(serde_json::from_slice(&reply.body).unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double::{block_on, object as params, Double, Request};
    use serde_json::json;

    fn run(op: &LanguageOp, double: &Double) -> Result<(Done, Value), Failed> {
        block_on(op.once(&double.target(), 0))
    }

    fn body(r: &Request) -> Value {
        serde_json::from_slice(&r.body).expect("a JSON body")
    }

    #[test]
    fn esql_sends_rallys_request_its_query_and_filter_laid_into_the_tracks_body() {
        let p = params(json!({
            "query": "FROM logs | STATS c = COUNT(*) BY status",
            "filter": {"range": {"@timestamp": {"gte": "2020-01-01"}}},
            "body": {"columnar": true, "params": [1], "query": "overwritten"},
            "request-params": {"drop_null_columns": true},
        }));
        let op = esql(&p, "?drop_null_columns=true").expect("planned");
        let double = Double::serve(|_| {
            json!({"columns": [{"name": "c", "type": "long"}], "values": [[3]], "is_partial": false})
                .to_string()
        });
        let (done, answer) = run(&op, &double).expect("an answer");
        assert_eq!(done.units, 1);
        assert_eq!(answer["values"], json!([[3]]));
        let sent = double.requests();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(sent[0].path, "/_query?drop_null_columns=true");
        assert_eq!(
            body(&sent[0]),
            json!({
                "query": "FROM logs | STATS c = COUNT(*) BY status",
                "filter": {"range": {"@timestamp": {"gte": "2020-01-01"}}},
                "columnar": true,
                "params": [1],
            })
        );
    }

    #[test]
    fn a_partial_esql_answer_or_an_error_status_fails_the_operation_and_says_why() {
        let op = esql(&params(json!({"query": "FROM logs"})), "").expect("planned");
        let partial = Double::serve(|_| json!({"values": [], "is_partial": true}).to_string());
        let e = run(&op, &partial).expect_err("partial results fail");
        assert!(e.0.contains("partial results"), "{e}");
        let refused = Double::serve_status(|_| {
            (
                400,
                json!({"error": {"type": "verification_exception", "reason": "Unknown index [logs]"}})
                    .to_string(),
            )
        });
        let e = run(&op, &refused).expect_err("a 400 fails");
        assert!(e.0.contains("400") && e.0.contains("Unknown index"), "{e}");
    }

    #[test]
    fn esql_and_sql_that_the_track_gets_wrong_are_refused_before_anything_runs() {
        let invalid = |r: Result<LanguageOp, Unplanned>| match r {
            Err(Unplanned::Invalid(why)) => why,
            other => panic!("not refused: {other:?}"),
        };
        assert!(invalid(esql(&params(json!({})), "")).contains("needs its query"));
        assert!(invalid(esql(&params(json!({"query": "x", "body": [1]})), "")).contains("body"));
        assert!(invalid(sql(&params(json!({"pages": 2})))).contains("needs its body"));
        assert!(invalid(sql(&params(json!({"body": {"fetch_size": 5}})))).contains("body.query"));
        for pages in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!("2"),
            json!(MOST_PAGES + 1),
        ] {
            let why = invalid(sql(&params(
                json!({"body": {"query": "SELECT 1"}, "pages": pages}),
            )));
            assert!(why.contains("pages"), "{why}");
        }
    }

    #[test]
    fn sql_follows_the_cursor_page_by_page_and_fails_when_the_result_set_ends_early() {
        let p =
            params(json!({"body": {"query": "SELECT * FROM logs", "fetch_size": 2}, "pages": 3}));
        let op = sql(&p).expect("planned");
        let double = Double::serve(|r| {
            let b: Value = serde_json::from_slice(&r.body).unwrap_or_default();
            let next = match b["cursor"].as_str() {
                None => "c1",
                Some("c1") => "c2",
                Some(_) => "c3",
            };
            json!({"rows": [[1], [2]], "cursor": next}).to_string()
        });
        let (done, _) = run(&op, &double).expect("three pages");
        assert_eq!(done.units, 3);
        let sent: Vec<Value> = double.requests().iter().map(body).collect();
        assert_eq!(
            sent,
            vec![
                json!({"query": "SELECT * FROM logs", "fetch_size": 2}),
                json!({"cursor": "c1"}),
                json!({"cursor": "c2"}),
            ]
        );
        assert!(double
            .requests()
            .iter()
            .all(|r| r.method == "POST" && r.path == "/_sql"));

        // The second page is the last: no cursor in it.
        let short = Double::serve(|r| {
            let b: Value = serde_json::from_slice(&r.body).unwrap_or_default();
            match b.get("cursor") {
                None => json!({"rows": [[1]], "cursor": "c1"}).to_string(),
                Some(_) => json!({"rows": [[2]]}).to_string(),
            }
        });
        let e = run(&op, &short).expect_err("the result set ends at page 2 of 3");
        assert!(e.0.contains("1 page(s) of 3 remaining"), "{e}");
    }
}
