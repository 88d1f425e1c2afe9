//! Network distance on a laptop (`--rtt`): a TCP proxy on 127.0.0.1 between the driver and
//! the cluster that holds every chunk of bytes for half the round trip in each direction (plus
//! a seeded jitter), so loopback behaves like a link with that latency. Bytes keep their
//! order: a chunk never leaves before the one read ahead of it.
//!
//! Timing: tokio's timer ticks in whole milliseconds, which would add up to a millisecond to
//! each direction; the last stretch of each wait is slept on a blocking thread instead
//! (nanosecond sleep, tens of microseconds late), so `--rtt 2ms` adds about 2 ms, not 3 to 4.
//!
//! The proxy lives as long as its [`DelayProxy`]: dropping it stops the listener and every
//! connection through it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::{Target, TargetError};
use crate::rng::Rng;

/// The delay asked for: a round trip, a jitter, and the seed of the jitter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rtt {
    pub rtt_ms: f64,
    /// Each round trip is `rtt ± jitter` (uniform; each direction draws half).
    pub jitter_ms: f64,
    pub seed: u64,
}

impl Rtt {
    /// Checks the values a user gave: finite, not negative, jitter not above the rtt.
    pub fn new(rtt: f64, jitter: f64, seed: u64) -> Result<Rtt, String> {
        if !(rtt.is_finite() && rtt >= 0.0) {
            return Err(format!(
                "--rtt {rtt} ms is not a round-trip time; give e.g. 2ms"
            ));
        }
        if !(jitter.is_finite() && (0.0..=rtt).contains(&jitter)) {
            return Err(format!(
                "--jitter {jitter} ms must be between 0 and the --rtt ({rtt} ms)"
            ));
        }
        Ok(Rtt {
            rtt_ms: rtt,
            jitter_ms: jitter,
            seed,
        })
    }

    /// One direction's delay for a uniform draw `u` in [0, 1).
    fn one_way(&self, u: f64) -> Duration {
        let ms = self.rtt_ms / 2.0 + (2.0 * u - 1.0) * self.jitter_ms / 2.0;
        Duration::from_secs_f64(ms.max(0.0) / 1e3)
    }
}

/// How long one direction of a connection goes on once the other has ended: a client that
/// gave up on a frozen server closes its side, and the server's side, read for ever, would
/// hold the connection (and two descriptors) until the run ended.
const GRACE: Duration = Duration::from_secs(5);
/// How long reaching the upstream may take.
const CONNECT: Duration = Duration::from_secs(30);
/// How long the listener rests after a failed accept (descriptors used up): it would
/// otherwise fail again at once, a core spinning beside the measurement.
const ACCEPT_REST: Duration = Duration::from_millis(50);

/// A running delay proxy; dropping it stops it.
#[derive(Debug)]
pub struct DelayProxy {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
    /// Connections being relayed.
    live: Arc<AtomicUsize>,
}

/// Counts a connection live while it is held.
struct Live(Arc<AtomicUsize>);

impl Live {
    fn new(live: &Arc<AtomicUsize>) -> Live {
        live.fetch_add(1, Ordering::SeqCst);
        Live(live.clone())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl DelayProxy {
    /// Listens on a free port of 127.0.0.1 and forwards every connection to `upstream`
    /// (`host:port`) with `rtt`'s delay.
    pub async fn start(upstream: String, rtt: Rtt) -> std::io::Result<DelayProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let live = Arc::new(AtomicUsize::new(0));
        let counted = live.clone();
        let task = tokio::spawn(async move {
            // Owned here: aborting the accept loop drops the set, which aborts every
            // connection.
            let mut connections = JoinSet::new();
            let mut stream_no = 0u64;
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else {
                            tokio::time::sleep(ACCEPT_REST).await;
                            continue;
                        };
                        stream_no += 1;
                        let held = Live::new(&counted);
                        let relayed = relay(client, upstream.clone(), rtt, stream_no);
                        connections.spawn(async move {
                            relayed.await;
                            drop(held);
                        });
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        Ok(DelayProxy { addr, task, live })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections being relayed now.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }
}

/// `target` reached through one delay proxy per endpoint (same client, auth and TLS; the
/// host becomes 127.0.0.1, so a TLS certificate must be valid for it). The proxies stop when
/// the returned list is dropped.
pub async fn delayed(target: &Target, rtt: Rtt) -> Result<(Target, Vec<DelayProxy>), TargetError> {
    let mut proxies = Vec::new();
    let mut urls = Vec::new();
    for url in target.urls() {
        let upstream = match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            _ => {
                return Err(TargetError::Url {
                    url: crate::cluster::redact_url(url.as_str()),
                    reason: "no host and port to put a delay proxy in front of".into(),
                })
            }
        };
        let proxy = DelayProxy::start(upstream, rtt)
            .await
            .map_err(|e| TargetError::Client {
                reason: format!("starting the delay proxy for --rtt: {e}"),
            })?;
        let mut through = url.clone();
        let set = through
            .set_host(Some("127.0.0.1"))
            .ok()
            .and_then(|()| through.set_port(Some(proxy.addr().port())).ok());
        if set.is_none() {
            return Err(TargetError::Url {
                url: crate::cluster::redact_url(url.as_str()),
                reason: "cannot point this URL at the delay proxy".into(),
            });
        }
        urls.push(through);
        proxies.push(proxy);
    }
    Ok((target.with_urls(urls), proxies))
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One connection: both directions delayed, until both sides close, or one has and the
/// other goes on past [`GRACE`].
async fn relay(client: TcpStream, upstream: String, rtt: Rtt, stream_no: u64) {
    let Ok(Ok(server)) = tokio::time::timeout(CONNECT, TcpStream::connect(&upstream)).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = Rng::new(rtt.seed, stream_no * 2);
    let down = Rng::new(rtt.seed, stream_no * 2 + 1);
    let mut up = std::pin::pin!(direction(client_read, server_write, rtt, up));
    let mut down = std::pin::pin!(direction(server_read, client_write, rtt, down));
    tokio::select! {
        () = &mut up => { let _ = tokio::time::timeout(GRACE, down).await; }
        () = &mut down => { let _ = tokio::time::timeout(GRACE, up).await; }
    }
}

/// Reads chunks from `from`, stamps each with its due time, and writes it to `to` then.
async fn direction(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    rtt: Rtt,
    mut rng: Rng,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let read = async move {
        let mut last_due = Instant::now();
        loop {
            let mut buf = vec![0u8; 256 * 1024];
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            buf.truncate(n);
            let due = (Instant::now() + rtt.one_way(rng.unit())).max(last_due);
            last_due = due;
            if tx.send((due, buf)).is_err() {
                break;
            }
        }
        // Dropping `tx` lets the writer finish what is queued, then close.
    };
    let write = async move {
        while let Some((due, chunk)) = rx.recv().await {
            sleep_until_precisely(due).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(read, write);
}

/// Tokio's timer for all but the last 2 ms, then a blocking thread's sleep for the rest.
async fn sleep_until_precisely(due: Instant) {
    const COARSE: Duration = Duration::from_millis(2);
    if let Some(far) = due.checked_sub(COARSE) {
        if far > Instant::now() {
            tokio::time::sleep_until(far.into()).await;
        }
    }
    let rest = due.saturating_duration_since(Instant::now());
    if !rest.is_zero() {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_refused_and_jitter_stays_in_its_band() {
        assert!(Rtt::new(-1.0, 0.0, 1).is_err());
        assert!(Rtt::new(f64::NAN, 0.0, 1).is_err());
        assert!(Rtt::new(2.0, 3.0, 1).is_err());
        let r = Rtt::new(2.0, 1.0, 1).unwrap();
        assert_eq!(r.one_way(0.5), Duration::from_millis(1));
        assert_eq!(r.one_way(0.0), Duration::from_micros(500));
        assert!(r.one_way(0.999) < Duration::from_micros(1500));
    }

    #[tokio::test]
    async fn bytes_come_back_in_order_after_the_round_trip() {
        let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let echo_addr = echo.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = echo.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let rtt = Rtt::new(20.0, 0.0, 7).unwrap();
        let proxy = DelayProxy::start(echo_addr.to_string(), rtt).await.unwrap();
        let mut c = TcpStream::connect(proxy.addr()).await.unwrap();
        c.set_nodelay(true).unwrap();
        let t = Instant::now();
        c.write_all(b"ping").await.unwrap();
        let mut got = [0u8; 4];
        c.read_exact(&mut got).await.unwrap();
        let took = t.elapsed();
        assert_eq!(&got, b"ping");
        assert!(took >= Duration::from_millis(20), "{took:?}");
        // How close to 20 ms is checked in the integration tests (fastest of many round trips);
        // one round trip on a busy machine can be late by anything.
        assert!(took < Duration::from_secs(2), "{took:?}");
        drop(proxy);
    }

    /// Clients giving up on a server that accepts and never answers (frozen): each
    /// connection is let go within the grace once its client has closed, not held until the
    /// run ends.
    #[tokio::test]
    async fn a_connection_to_a_frozen_server_is_let_go_once_its_client_closes() {
        let frozen = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let frozen_addr = frozen.local_addr().unwrap();
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((s, _)) = frozen.accept().await {
                held.push(s);
            }
        });
        let rtt = Rtt::new(0.0, 0.0, 7).unwrap();
        let proxy = DelayProxy::start(frozen_addr.to_string(), rtt)
            .await
            .unwrap();
        for _ in 0..20 {
            let mut c = TcpStream::connect(proxy.addr()).await.unwrap();
            c.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
            drop(c);
        }
        let began = Instant::now();
        while proxy.live() > 0 {
            assert!(
                began.elapsed() < GRACE + Duration::from_secs(5),
                "{} connections still held",
                proxy.live()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
