//! Why a plain-HTTP request to a TLS port fails: the server reads our request as a broken
//! TLS record and closes the connection, and all the client sees is "connection closed
//! before message completed". Only after such a failure, one TLS handshake to the same port,
//! without credentials, tells whether it speaks HTTPS.

use std::time::Duration;

use super::TargetError;

/// `error` (from a request to `url`), with the hint to use `https://` when the port turns
/// out to speak TLS.
pub async fn explain(error: TargetError, url: &str) -> TargetError {
    let (TargetError::Transport { request, reason } | TargetError::Connect { request, reason }) =
        &error
    else {
        return error;
    };
    let Some(https) = url
        .strip_prefix("http://")
        .map(|rest| format!("https://{rest}"))
    else {
        return error;
    };
    if !speaks_tls(&https).await {
        return error;
    }
    TargetError::Transport {
        request: request.clone(),
        reason: format!(
            "{reason}; the server speaks HTTPS on this port: use https:// instead of http://"
        ),
    }
}

/// Whether a TLS handshake (certificates not checked: only the protocol is in question) and
/// an HTTP exchange succeed at `https_url`. No credentials are sent.
async fn speaks_tls(https_url: &str) -> bool {
    let Ok(client) = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .timeout(Duration::from_secs(3))
        .build()
    else {
        return false;
    };
    client.get(https_url).send().await.is_ok()
}
