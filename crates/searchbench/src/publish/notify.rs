//! A regression said where the team talks (`--notify URL`): the verdict's message POSTed to
//! an incoming webhook (Slack, Teams, or a receiver of one's own). Its URL is a secret (a
//! Slack webhook's path is its token): only its host is ever said.

use std::time::Duration;

use serde_json::Value;

/// How long one POST may take, and how many are tried.
const TIMEOUT: Duration = Duration::from_secs(10);
const TRIES: u32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    #[error("--notify: {0:?} is not an http(s) URL")]
    BadUrl(String),
    #[error("notifying {host}: {why} (tried {TRIES} times)")]
    Failed { host: String, why: String },
}

/// The webhook at `url`, checked: http or https, with a host.
pub fn checked(url: &str) -> Result<reqwest::Url, NotifyError> {
    // Said without its path or query: a webhook's token is its path.
    let shown = || {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let head = if scheme.is_empty() {
            host.to_string()
        } else {
            format!("{scheme}://{host}")
        };
        format!("{}/...", crate::cluster::redact_url(&head))
    };
    let parsed = reqwest::Url::parse(url).map_err(|_| NotifyError::BadUrl(shown()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(NotifyError::BadUrl(shown()));
    }
    Ok(parsed)
}

/// POSTs `message` to `url` as JSON, trying again after a failure or an answer other than
/// 2xx (a second, then two).
pub async fn send(url: &reqwest::Url, message: &Value) -> Result<(), NotifyError> {
    let host = url.host_str().unwrap_or("?").to_string();
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| NotifyError::Failed {
            host: host.clone(),
            why: e.to_string(),
        })?;
    let mut why = String::new();
    for attempt in 0..TRIES {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
        }
        match client.post(url.clone()).json(message).send().await {
            Ok(r) if r.status().is_success() => return Ok(()),
            Ok(r) => why = format!("answered {}", r.status()),
            // The error names the URL: said without it.
            Err(e) => why = e.without_url().to_string(),
        }
    }
    Err(NotifyError::Failed { host, why })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_refused_webhook_is_said_without_its_token() {
        for bad in [
            "ftp://hooks.example/services/T0/B0/tok3n",
            "hooks.example/services/tok3n",
            "https://u:pw@/tok3n",
        ] {
            let said = super::checked(bad).unwrap_err().to_string();
            assert!(!said.contains("tok3n") && !said.contains("pw"), "{said}");
        }
        assert!(super::checked("https://hooks.example/services/T0/B0/tok3n").is_ok());
    }
}
