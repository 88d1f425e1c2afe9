//! What a command could not publish, so that its ending says it whatever the command (a run,
//! a sweep's cells, a merge): the store keeps each failure too (the run is pending there),
//! the ledger is the one tally the exit code reads (`--publish-required`). A run that failed
//! and was sent later by the same command (the next publish sends what is owed) is taken off.

use std::sync::Mutex;

use serde::Serialize;

/// A run this process could not publish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotPublished {
    pub run: String,
    /// The cluster's address without credentials, and the indices' prefix.
    pub destination: String,
    pub error: String,
}

/// The runs a command's publishers could not publish and did not send later (shared by
/// every publisher the command makes: [`super::Publisher::with_ledger`]).
#[derive(Debug, Default)]
pub struct Ledger {
    not_published: Mutex<Vec<NotPublished>>,
}

impl Ledger {
    fn held(&self) -> std::sync::MutexGuard<'_, Vec<NotPublished>> {
        self.not_published.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that `run` could not be published at `destination`.
    pub fn failed(&self, run: &str, destination: &str, error: &str) {
        let mut l = self.held();
        l.retain(|n| !(n.run == run && n.destination == destination));
        l.push(NotPublished {
            run: run.to_string(),
            destination: destination.to_string(),
            error: error.to_string(),
        });
    }

    /// Notes that `run` is published at `destination` (an earlier failure of it is mended).
    pub fn sent(&self, run: &str, destination: &str) {
        self.held()
            .retain(|n| !(n.run == run && n.destination == destination));
    }

    /// What is not published, and forgets it (the caller says so).
    pub fn take(&self) -> Vec<NotPublished> {
        std::mem::take(&mut *self.held())
    }

    /// Notes every run `keep` selects that `store` owes `destination` (a command whose runs
    /// were published by other processes, as a gate's rounds are, says what they left
    /// pending).
    pub fn owed_from(
        &self,
        store: &crate::store::Store,
        destination: &str,
        keep: impl Fn(&crate::store::RunRow) -> bool,
    ) -> Result<(), crate::store::StoreError> {
        for row in store.owed(destination)?.into_iter().filter(|r| keep(r)) {
            let error = store
                .publish_states(&row.id)?
                .into_iter()
                .find(|p| p.destination == destination)
                .and_then(|p| p.error)
                .unwrap_or_else(|| "it changed after it was published".into());
            self.failed(&row.id.0, destination, &error);
        }
        Ok(())
    }
}

/// The ending's words for what was not published, `None` when everything was: how many, where,
/// which runs, and the command that sends them (`destination` is `URL PREFIX`); why each
/// failed was said as it failed.
pub fn said(not: &[NotPublished]) -> Option<String> {
    let first = not.first()?;
    let mut destinations: Vec<&str> = not.iter().map(|n| n.destination.as_str()).collect();
    destinations.dedup();
    let runs: Vec<&str> = not.iter().map(|n| n.run.as_str()).collect();
    Some(format!(
        "{} run(s) NOT PUBLISHED to {} ({}), kept in the store and pending there: {}",
        not.len(),
        destinations.join(", "),
        runs.join(", "),
        how_to_send(&first.destination)
    ))
}

/// How what is pending at `destination` (`URL PREFIX`) gets there: the next run published
/// there, or the command that sends it now (its URL without credentials: give them as the
/// run was given them).
pub fn how_to_send(destination: &str) -> String {
    let (url, prefix) = destination
        .rsplit_once(' ')
        .unwrap_or((destination, super::DEFAULT_PREFIX));
    let prefix_flag = if prefix == super::DEFAULT_PREFIX {
        String::new()
    } else {
        format!(" --publish-prefix {prefix}")
    };
    format!(
        "the next run published there sends what is pending, or `searchbench results publish \
         --pending --publish {url}{prefix_flag}` now"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_sent_after_it_failed_is_off_the_ledger_and_the_words_name_the_way_to_send() {
        let at = "http://results:9200 nightly";
        let ledger = Ledger::default();
        ledger.failed("aaaa1111", at, "connection refused");
        ledger.failed("bbbb2222", at, "connection refused");
        ledger.failed("aaaa1111", at, "timed out");
        ledger.sent("bbbb2222", at);
        let not = ledger.take();
        assert_eq!(not.len(), 1, "{not:?}");
        assert_eq!(not[0].error, "timed out");
        let words = said(&not).unwrap();
        assert!(words.contains("aaaa1111"), "{words}");
        assert!(
            words.contains(
                "results publish --pending --publish http://results:9200 --publish-prefix nightly"
            ),
            "{words}"
        );
        assert!(ledger.take().is_empty());
        assert_eq!(said(&[]), None);
    }
}
