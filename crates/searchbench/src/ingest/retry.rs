//! When to send a bulk request or item again, and how long to wait first: a pure decision
//! from the attempt number and what the server said, so every rule is unit-tested.

use std::time::Duration;

use super::backoff::Backoff;
use super::batch::IdMode;
use super::response;

/// An attempt that did not get a 2xx answer.
#[derive(Debug, Clone, Copy)]
pub enum Failure<'a> {
    /// No usable answer (connection refused or reset, timeout): the error's text.
    NoAnswer(&'a str),
    /// A non-2xx answer.
    Status {
        status: u16,
        body: &'a [u8],
        /// The server's `Retry-After`, if it sent one.
        retry_after: Option<Duration>,
        /// Uncompressed size of the request body.
        request_bytes: usize,
        /// Where a 3xx answer points (`Location`), if it said.
        location: Option<&'a str>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Send again after this wait.
    Retry(Duration),
    /// Stop: the reason goes to the failure file with every document of the request, and
    /// the run stops (the target is unusable).
    GiveUp(String),
    /// The target refused these documents for good (they can never fit): they go to the
    /// failure file as refused, and the run goes on.
    Refuse(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub max_retries: u32,
    pub backoff: Backoff,
}

impl RetryPolicy {
    /// After attempt `attempt` (0-based) failed with `failure`; `draw` is a random `u64` for
    /// the jitter.
    pub fn after_failure(&self, attempt: u32, failure: &Failure<'_>, draw: u64) -> Decision {
        let attempts = attempt + 1;
        let more = attempt < self.max_retries;
        let wait = self.backoff.delay(attempt, draw);
        match *failure {
            Failure::NoAnswer(_) if more => Decision::Retry(wait),
            Failure::NoAnswer(error) => {
                Decision::GiveUp(format!("no answer after {attempts} attempt(s): {error}"))
            }
            Failure::Status {
                status,
                body,
                retry_after,
                request_bytes,
                location,
            } => {
                // A redirect is never followed (it would measure another server) nor retried:
                // every request would be sent the same way.
                if (300..400).contains(&status) {
                    return Decision::GiveUp(format!(
                        "HTTP {status}: {}",
                        crate::cluster::redirect_reason(location)
                    ));
                }
                let said = format!("HTTP {status}: {}", response::body_reason(body));
                if let Some(why) = response::never_fits(status, body, request_bytes) {
                    return Decision::Refuse(format!("{said} (not retried: {why})"));
                }
                // Forbidden (a read-only user, or an index blocked for writes): the server
                // refuses these documents for good, and every other the same way, so each is
                // refused (and in the failure file, with the server's reason) rather than the
                // load stopping with the rest never sent.
                if status == 403 {
                    return Decision::Refuse(format!(
                        "{said} (not retried: forbidden, this user or index may not write here)"
                    ));
                }
                if !response::request_retryable(status) {
                    return Decision::GiveUp(said);
                }
                if !more {
                    return Decision::GiveUp(format!("{said} (after {attempts} attempts)"));
                }
                // The server's own Retry-After wins over a shorter backoff of ours.
                Decision::Retry(wait.max(retry_after.unwrap_or_default()))
            }
        }
    }

    /// Whether an item that failed with `status` in attempt `attempt` is sent again.
    pub fn retry_item(&self, attempt: u32, status: u16) -> bool {
        response::item_retryable(status) && attempt < self.max_retries
    }

    /// Whether documents a 2xx answer of attempt `attempt` had no item for are sent again:
    /// only when that cannot index them twice (sequential ids overwrite, auto ids would
    /// duplicate), and within the budget.
    pub fn retry_missing(&self, attempt: u32, ids: IdMode) -> bool {
        ids == IdMode::Sequential && attempt < self.max_retries
    }

    /// Why documents without an item were not sent again: the tail of their reason.
    pub fn why_not_resent(&self, attempt: u32, ids: IdMode, stopping: bool) -> &'static str {
        if stopping {
            "; not sent again: the run stopped"
        } else if ids != IdMode::Sequential {
            "; not sent again: with --ids auto a resend could index them twice"
        } else if attempt >= self.max_retries {
            "; not sent again: retries used up"
        } else {
            ""
        }
    }

    /// The wait before sending the retried items of attempt `attempt` again.
    pub fn item_wait(&self, attempt: u32, draw: u64) -> Duration {
        self.backoff.delay(attempt, draw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RetryPolicy = RetryPolicy {
        max_retries: 2,
        backoff: Backoff {
            base: Duration::from_millis(100),
            max: Duration::from_secs(10),
        },
    };

    fn status(status: u16, body: &[u8], retry_after: Option<Duration>) -> Failure<'_> {
        Failure::Status {
            status,
            body,
            retry_after,
            request_bytes: 1000,
            location: None,
        }
    }

    #[test]
    fn no_answer_is_retried_until_the_budget_is_spent() {
        let f = Failure::NoAnswer("connection refused");
        assert_eq!(
            POLICY.after_failure(0, &f, 0),
            Decision::Retry(Duration::from_millis(50))
        );
        assert_eq!(
            POLICY.after_failure(1, &f, 0),
            Decision::Retry(Duration::from_millis(100))
        );
        let Decision::GiveUp(reason) = POLICY.after_failure(2, &f, 0) else {
            panic!("retried past the budget")
        };
        assert_eq!(reason, "no answer after 3 attempt(s): connection refused");
    }

    #[test]
    fn busy_statuses_are_retried_and_retry_after_is_honoured() {
        let busy =
            br#"{"error":{"type":"es_rejected_execution_exception","reason":"busy"},"status":429}"#;
        assert_eq!(
            POLICY.after_failure(0, &status(429, busy, Some(Duration::from_secs(2))), 0),
            Decision::Retry(Duration::from_secs(2))
        );
        // A Retry-After shorter than our own backoff does not shorten it.
        assert_eq!(
            POLICY.after_failure(1, &status(503, b"", Some(Duration::from_millis(1))), 0),
            Decision::Retry(Duration::from_millis(100))
        );
        let Decision::GiveUp(reason) = POLICY.after_failure(2, &status(429, busy, None), 0) else {
            panic!("retried past the budget")
        };
        assert!(reason.starts_with("HTTP 429: es_rejected_execution_exception: busy"));
        assert!(reason.ends_with("(after 3 attempts)"), "{reason}");
    }

    #[test]
    fn client_errors_and_requests_that_never_fit_are_not_retried() {
        let Decision::GiveUp(reason) = POLICY.after_failure(0, &status(400, b"bad", None), 0)
        else {
            panic!("a 400 was retried")
        };
        assert_eq!(reason, "HTTP 400: bad");
        let Decision::Refuse(reason) = POLICY.after_failure(0, &status(403, b"no", None), 0) else {
            panic!("a 403 was retried or stopped the load")
        };
        assert!(reason.contains("may not write"), "{reason}");
        let Decision::Refuse(reason) = POLICY.after_failure(0, &status(413, b"", None), 0) else {
            panic!("a 413 was retried")
        };
        assert!(reason.contains("--bulk-bytes"), "{reason}");
        let permanent = br#"{"error":{"type":"circuit_breaking_exception","reason":"[parent] Data too large","bytes_wanted":600,"bytes_limit":5000000,"durability":"PERMANENT"},"status":429}"#;
        let Decision::Refuse(reason) = POLICY.after_failure(0, &status(429, permanent, None), 0)
        else {
            panic!("a permanent breaker trip was retried")
        };
        assert!(reason.contains("circuit_breaking_exception"), "{reason}");
        assert!(reason.contains("PERMANENT"), "{reason}");
        // OpenSearch 2.19's answer to a 2 MiB bulk body with a 1 MiB in-flight limit.
        let alone = br#"{"error":{"root_cause":[],"type":"circuit_breaking_exception","reason":"[in_flight_requests] Data too large, data for [<http_request>] would be [4194352/4mb], which is larger than the limit of [1048576/1mb]","bytes_wanted":4194352,"bytes_limit":1048576,"durability":"TRANSIENT"},"status":429}"#;
        let big = Failure::Status {
            status: 429,
            body: alone,
            retry_after: None,
            request_bytes: 2 << 20,
            location: None,
        };
        let Decision::Refuse(reason) = POLICY.after_failure(0, &big, 0) else {
            panic!("a request above the breaker limit was retried")
        };
        assert!(
            reason.contains("above the circuit breaker's limit"),
            "{reason}"
        );
        // The same trip for a small request is the server being busy: retried.
        let small = Failure::Status {
            status: 429,
            body: alone,
            retry_after: None,
            request_bytes: 1000,
            location: None,
        };
        assert!(matches!(
            POLICY.after_failure(0, &small, 0),
            Decision::Retry(_)
        ));
    }

    #[test]
    fn documents_without_an_item_are_sent_again_only_when_that_is_safe() {
        assert!(POLICY.retry_missing(0, IdMode::Sequential));
        assert!(POLICY.retry_missing(1, IdMode::Sequential));
        assert!(!POLICY.retry_missing(2, IdMode::Sequential));
        assert!(!POLICY.retry_missing(0, IdMode::Auto));
        assert!(POLICY
            .why_not_resent(0, IdMode::Auto, false)
            .contains("--ids auto"));
        assert!(POLICY
            .why_not_resent(2, IdMode::Sequential, false)
            .contains("retries used up"));
        assert!(POLICY
            .why_not_resent(0, IdMode::Sequential, true)
            .contains("run stopped"));
    }

    #[test]
    fn items_are_retried_only_when_busy_and_within_the_budget() {
        assert!(POLICY.retry_item(0, 429));
        assert!(POLICY.retry_item(1, 503));
        assert!(!POLICY.retry_item(2, 429));
        assert!(!POLICY.retry_item(0, 400));
    }

    #[test]
    fn a_redirect_is_given_up_at_once_with_where_it_pointed() {
        let redirected = Failure::Status {
            status: 307,
            body: b"",
            retry_after: None,
            request_bytes: 1000,
            location: Some("http://elsewhere:9200/_bulk"),
        };
        let Decision::GiveUp(reason) = POLICY.after_failure(0, &redirected, 0) else {
            panic!("a redirect is not retried");
        };
        assert!(
            reason.starts_with("HTTP 307: redirected to http://elsewhere:9200/_bulk"),
            "{reason}"
        );
        assert!(matches!(
            super::super::shared::Fate::given_up_after(307),
            super::super::shared::Fate::Refused
        ));
        assert!(matches!(
            super::super::shared::Fate::given_up_after(401),
            super::super::shared::Fate::Refused
        ));
        assert!(matches!(
            super::super::shared::Fate::given_up_after(502),
            super::super::shared::Fate::Unacknowledged
        ));
    }
}
