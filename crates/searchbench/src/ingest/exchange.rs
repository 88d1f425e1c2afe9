//! One bulk round trip, raced against the cancel: after a cancel, a request in flight gets
//! [`GRACE`] to be answered; a backoff sleep ends at once.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE};

use super::control::{Cancel, GRACE};
use super::response;
use super::shared::Shared;

/// What came of sending one request.
pub(super) enum Exchange {
    Answer {
        status: u16,
        reply: Bytes,
        retry_after: Option<Duration>,
    },
    Failed(reqwest::Error),
    /// Cancelled, and no answer within the grace period.
    Interrupted,
}

pub(super) async fn exchange(shared: &Shared, url: &str, wire: Bytes) -> Exchange {
    let mut request = shared
        .target
        .client()
        .post(url)
        .header(CONTENT_TYPE, "application/x-ndjson");
    if shared.cfg.gzip {
        request = request.header(CONTENT_ENCODING, "gzip");
    }
    let send = async {
        let response = request.body(wire).send().await?;
        let status = response.status().as_u16();
        let retry_after = response::retry_after(response.headers());
        Ok::<_, reqwest::Error>((status, response.bytes().await?, retry_after))
    };
    tokio::select! {
        r = send => match r {
            Ok((status, reply, retry_after)) => Exchange::Answer { status, reply, retry_after },
            Err(e) => Exchange::Failed(e),
        },
        () = grace_over(&shared.cancel) => Exchange::Interrupted,
    }
}

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
