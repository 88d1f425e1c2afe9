//! `results publish`: the runs given (or every one still pending for the destination) sent in
//! turn, then the change points of the configurations sent. A run that cannot be sent stays
//! pending and is said with its error; nothing stops the others.

use serde::Serialize;

use super::Publisher;
use crate::store::{RunRow, Store};

/// The most runs a store owes that one run's end sends (`results publish` sends the rest).
pub const OWED_AT_A_RUN: usize = 20;

/// What a publish of several runs did, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct Published {
    pub destination: String,
    pub sent: Vec<SentRun>,
    pub failed: Vec<FailedRun>,
    /// Change points of the sent runs' configurations published (none: not sent, said).
    pub change_points: Option<usize>,
    /// Why the change points were not sent (the next publish sends them).
    #[serde(skip)]
    pub change_points_error: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SentRun {
    pub run: String,
    pub documents: usize,
}

#[derive(Debug, Serialize)]
pub struct FailedRun {
    pub run: String,
    pub error: String,
}

impl Publisher {
    /// Sends `rows` from `store` one after the other, then the change points of those sent.
    pub async fn publish_runs(&self, store: &Store, rows: Vec<RunRow>) -> Published {
        self.send(store, rows, false).await
    }

    /// What a store owes this destination, sent at a run's end: at most [`OWED_AT_A_RUN`] of
    /// `rows`, and none after the first that fails (a cluster that stalls would otherwise
    /// hold the run's end for a timeout per owed run). What is not sent stays pending; how
    /// many were not tried is the second value.
    pub async fn publish_owed(&self, store: &Store, mut rows: Vec<RunRow>) -> (Published, usize) {
        let most = rows.len().min(OWED_AT_A_RUN);
        let later = rows.split_off(most).len();
        let before = rows.len();
        let done = self.send(store, rows, true).await;
        let tried = done.sent.len() + done.failed.len();
        (done, later + before.saturating_sub(tried))
    }

    /// Sends `rows`, one after the other; with `first_failure_stops`, none after one fails.
    async fn send(&self, store: &Store, rows: Vec<RunRow>, first_failure_stops: bool) -> Published {
        let mut done = Published {
            destination: self.destination(),
            sent: Vec::new(),
            failed: Vec::new(),
            change_points: None,
            change_points_error: None,
        };
        if rows.is_empty() {
            return done;
        }
        if let Err(e) = self.prepare().await {
            // Nothing can be sent: every run stays pending.
            let error = crate::cluster::error_chain(&e);
            for r in &rows {
                self.note_failed(store, &r.id, &e);
            }
            let failed = |r: &RunRow| FailedRun {
                run: r.id.0.clone(),
                error: error.clone(),
            };
            done.failed = rows.iter().map(failed).collect();
            return done;
        }
        for row in &rows {
            match self.publish(store, &row.id).await {
                Ok(sent) => done.sent.push(SentRun {
                    run: row.id.0.clone(),
                    documents: sent.documents,
                }),
                Err(e) => {
                    done.failed.push(FailedRun {
                        run: row.id.0.clone(),
                        error: crate::cluster::error_chain(&e),
                    });
                    if first_failure_stops {
                        break;
                    }
                }
            }
        }
        // The change points of what was sent, each configuration's history once.
        let sent: Vec<RunRow> = rows
            .into_iter()
            .filter(|r| done.sent.iter().any(|s| s.run == r.id.0))
            .collect();
        if !sent.is_empty() {
            match self.publish_changes(store, &sent).await {
                Ok(n) => done.change_points = Some(n),
                Err(e) => done.change_points_error = Some(crate::cluster::error_chain(&e)),
            }
            // The team's notes go with the runs they are beside (the next publish sends
            // them again when this one fails: said with the change points).
            if let Err(e) = self.publish_annotations(store).await {
                let said = format!("annotations: {}", crate::cluster::error_chain(&e));
                done.change_points_error = Some(match done.change_points_error.take() {
                    Some(before) => format!("{before}; {said}"),
                    None => said,
                });
            }
        }
        done
    }
}
