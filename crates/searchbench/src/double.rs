//! A cluster that answers what a test tells it to, for what no engine here does on demand (a
//! results cluster that lies, a module no distribution on Maven Central carries): every
//! request's method, path and body are kept, and the answer is the test's function of them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A request the double received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Vec<u8>,
}

type Answer = dyn Fn(&Request) -> (u16, String) + Send + Sync;

/// The double's URL and the requests it received so far.
pub struct Double {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    /// Connections accepted so far (each kept alive as long as its client keeps it).
    connections: Arc<AtomicUsize>,
}

impl Double {
    /// Answers every request `200 OK` with the body `answer` gives.
    pub fn serve(answer: impl Fn(&Request) -> String + Send + Sync + 'static) -> Double {
        Double::serve_status(move |r| (200, answer(r)))
    }

    /// Answers every request with the status and body `answer` gives.
    pub fn serve_status(
        answer: impl Fn(&Request) -> (u16, String) + Send + Sync + 'static,
    ) -> Double {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let kept = requests.clone();
        let connections = Arc::new(AtomicUsize::new(0));
        let accepted = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                accepted.fetch_add(1, Ordering::SeqCst);
                let (answer, kept) = (answer.clone(), kept.clone());
                std::thread::spawn(move || handle(stream, &*answer, &kept));
            }
        });
        Double {
            url,
            requests,
            connections,
        }
    }

    /// How many connections the double has accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// A target on the double.
    pub fn target(&self) -> crate::cluster::Target {
        crate::cluster::Target::new(&crate::cluster::TargetConfig::local(self.url.clone()))
            .expect("a target on the double")
    }
}

/// `work` run to its end on a runtime of its own, within 20 s.
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(20), work)
                .await
                .expect("the double's exchange ends in time")
        })
}

/// A JSON object's members (a test's parameters).
pub fn object(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn handle(stream: TcpStream, answer: &Answer, kept: &Mutex<Vec<Request>>) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = line.split_whitespace();
        let method = words.next().unwrap_or("").to_string();
        let path = words.next().unwrap_or("").to_string();
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request = Request { method, path, body };
        let (status, text) = answer(&request);
        if let Ok(mut k) = kept.lock() {
            k.push(request.clone());
        }
        let text = if request.method == "HEAD" {
            String::new()
        } else {
            text
        };
        let reply = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            if status < 300 { "OK" } else { "Error" },
            text.len()
        );
        if stream.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_with_its_own_pool_never_sends_on_the_connections_of_the_one_it_came_from() {
        let double = Double::serve(|_| r#"{"status":"green"}"#.into());
        let shared = double.target();
        // A pooled connection is a task of the runtime that opened it: a request from another
        // runtime waits on that one (forever, were it idle) or fails as it shuts down.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            shared.get_json::<serde_json::Value>("/").await.unwrap();
            shared.get_json::<serde_json::Value>("/").await.unwrap();
        });
        assert_eq!(double.connections(), 1, "one kept-alive connection, reused");
        let own = shared.with_own_pool().unwrap();
        runtime.block_on(async { own.get_json::<serde_json::Value>("/").await.unwrap() });
        assert_eq!(
            double.connections(),
            2,
            "the own pool opens its own connection"
        );
        runtime.block_on(async { shared.get_json::<serde_json::Value>("/").await.unwrap() });
        assert_eq!(
            double.connections(),
            2,
            "the shared pool's connection is still its own"
        );
        assert_eq!(own.url(), shared.url());
    }

    /// A server's version and cluster name are shown, stored and published: kept printable
    /// (see `cluster::error::said`).
    #[test]
    fn a_servers_version_and_name_are_kept_printable() {
        let double = Double::serve(|_| {
            serde_json::json!({
                "cluster_name": "c\u{9b}2J",
                "version": {"number": "8.15.0\u{1b}[2J", "distribution": "elasticsearch"}
            })
            .to_string()
        });
        let (_, version, cluster) = block_on(double.target().product()).expect("product");
        assert_eq!(version, "8.15.0\\u{1b}[2J");
        assert_eq!(cluster, "c\\u{9b}2J");
        let build = block_on(double.target().build()).expect("build");
        assert_eq!(build.version, version);
    }
}
