//! Test doubles for conditions no real engine produces on demand (docs/architecture.md, "Principles"):
//! a fault-injecting HTTP proxy in front of the real node, and servers that answer garbage or
//! never answer. Loopback only; every fault schedule is bounded by the test that uses it.
#![allow(dead_code)]

pub mod proxy;

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server on 127.0.0.1 that reads a request and answers `reply` (raw bytes) on every
/// connection; `None` never answers (holds the connection for `hold`).
pub async fn raw_server(reply: Option<&'static [u8]>, hold: Duration) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await;
                match reply {
                    Some(bytes) => {
                        let _ = stream.write_all(bytes).await;
                        let _ = stream.shutdown().await;
                    }
                    None => tokio::time::sleep(hold).await,
                }
            });
        }
    });
    format!("http://{addr}")
}
