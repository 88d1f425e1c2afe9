//! One bulk round trip, raced against the cancel: after a cancel, a request in flight gets
//! [`GRACE`] to be answered; a backoff sleep ends at once.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE};

use super::control::{Cancel, GRACE};
use super::response;
use super::shared::Shared;
use crate::cluster::body;
use crate::cluster::TargetError;

/// What came of sending one request.
pub(super) enum Exchange {
    Answer {
        status: u16,
        reply: Bytes,
        retry_after: Option<Duration>,
        /// Where a 3xx answer points (never followed: see `cluster::redirect_reason`).
        location: Option<String>,
    },
    /// No usable answer: no connection, a timeout (body included), an answer too large.
    Failed(TargetError),
    /// Cancelled, and no answer within the grace period.
    Interrupted,
}

/// Sends `wire` and reads the answer, at most `bound` bytes of it (see
/// [`super::bulk_answer::bound`]), all within the target's timeout; `what` names the request
/// in errors.
pub(super) async fn exchange(
    shared: &Shared,
    url: &str,
    wire: Bytes,
    bound: u64,
    what: &(dyn Fn() -> String + Sync),
) -> Exchange {
    let mut request = shared
        .target
        .client()
        .post(url)
        .header(CONTENT_TYPE, "application/x-ndjson");
    if shared.cfg.gzip {
        request = request.header(CONTENT_ENCODING, "gzip");
    }
    let send = async {
        let response = request
            .body(wire)
            .send()
            .await
            .map_err(|e| TargetError::from_send(what(), e))?;
        let status = response.status().as_u16();
        let retry_after = response::retry_after(response.headers());
        let location = crate::cluster::redirect_location(&response);
        let reply = body::read_bounded(response, bound)
            .await
            .map_err(|e| e.into_target_error(what(), BOUND_HINT))?;
        Ok((status, reply, retry_after, location))
    };
    let send = body::within(shared.target.timeout(), what, send);
    tokio::select! {
        r = send => match r {
            Ok((status, reply, retry_after, location)) => {
                Exchange::Answer { status, reply, retry_after, location }
            }
            Err(e) => Exchange::Failed(e),
        },
        () = grace_over(&shared.cancel) => Exchange::Interrupted,
    }
}

/// A bulk answer over its bound is the server's fault, not a setting to raise.
const BOUND_HINT: &str =
    "more than a bulk answer for these documents can be (a broken server or proxy)";

async fn grace_over(cancel: &Cancel) {
    cancel.cancelled().await;
    tokio::time::sleep(GRACE).await;
}

/// Waits `wait` before a retry; `false` if the load was cancelled meanwhile.
pub(super) async fn pause(cancel: &Cancel, wait: Duration) -> bool {
    tokio::select! {
        () = tokio::time::sleep(wait) => !cancel.is_cancelled(),
        () = cancel.cancelled() => false,
    }
}
