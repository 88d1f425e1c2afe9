//! A bulk sink: an HTTP/1.1 server that takes `_bulk` requests at wire speed and indexes
//! nothing, to measure the ingest driver's own ceiling. Not a target searchbench offers: a
//! benchmark instrument (see bench/ingest-sink.sh).
//!
//! Written by hand on blocking sockets, one thread per connection, so that one core absorbs
//! well over 1 GB/s: it parses only the request head (`Content-Length` or chunked framing),
//! reads the body into one reused buffer, counts its newlines (documents = newlines / 2) and
//! throws it away. Every `_bulk` is answered like a real engine: `"errors":false` and one item
//! per document (trimmed as OpenSearch trims it for the request's `filter_path`, e.g.
//! `{"index":{"status":201}}` for `items.*.status`), so the client pays for reading real-size
//! answers. Bodies
//! with `Content-Encoding: gzip` are kept whole and gunzipped before counting (slow, but
//! correct). The few other calls `searchbench ingest` makes (`GET /`, index create / exists /
//! delete, settings, stats, refresh, `_count`) are answered just enough for the run to
//! reconcile: `_count` returns the documents received since the last index creation. A
//! `_search` finds nothing (a track's searches against it measure the driver's own cost).
//!
//! ```text
//! cargo run --release --example bulk_sink -- [--port P] [--buffer KIB] [--service-ms MS]
//! ```
//! `--service-ms MS` makes it a server of known capacity: one `_bulk` at a time (first come,
//! first served), each taking MS milliseconds after its body is read (capacity = bulk size ÷
//! MS documents per ms), for `searchbench saturate` to find.
//! `--as-elasticsearch` answers `GET /` as Elasticsearch 8.15.0 and marks every answer with
//! `X-Elastic-Product`, for a client that checks the product (esrally's: bench/python-params.sh).
//! Prints `listening on http://127.0.0.1:PORT` and serves until killed. Loopback only.
//! (`--threads N` is accepted for compatibility and ignored: there is a thread per connection.)

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

#[derive(Default)]
struct Counters {
    docs: AtomicU64,
    bytes: AtomicU64,
    requests: AtomicU64,
    /// With `--service-ms`: bulks are served one at a time, each held this long.
    service: Option<std::time::Duration>,
    /// When the one server is next free. Kept on this clock rather than by holding a lock
    /// while sleeping, so a late wake-up on a busy machine delays an answer but does not
    /// lower the capacity.
    free_at: std::sync::Mutex<Option<std::time::Instant>>,
    /// With `--as-elasticsearch`: `GET /` says Elasticsearch 8.15.0 and every answer carries
    /// `X-Elastic-Product`, so that a client that checks the product (esrally's) talks to it.
    as_elasticsearch: bool,
}

/// The parts of a request head the sink looks at.
struct Head {
    method: String,
    path: String,
    /// After the `?`.
    query: String,
    content_length: Option<u64>,
    chunked: bool,
    gzip: bool,
    close: bool,
    expect_continue: bool,
}

/// One connection: the socket and a read buffer holding `buf[start..end]` not yet consumed.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Conn {
    /// Reads more bytes after `end`, compacting first; `Ok(0)` is end of stream.
    fn fill(&mut self) -> io::Result<usize> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start == 0 {
                // A head (or chunk-size line) larger than the buffer: grow.
                let len = self.buf.len();
                self.buf.resize(len * 2, 0);
            } else {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
        }
        loop {
            match self.stream.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads up to and including the next `delim` (`\r\n` or `\r\n\r\n`); `None` at a clean
    /// end of stream. Returns the line without the delimiter.
    fn read_until(&mut self, delim: &[u8]) -> io::Result<Option<Vec<u8>>> {
        let mut searched = 0usize;
        loop {
            let avail = &self.buf[self.start..self.end];
            let from = searched.saturating_sub(delim.len() - 1);
            if let Some(at) = memchr::memmem::find(&avail[from..], delim) {
                let line = avail[..from + at].to_vec();
                self.start += from + at + delim.len();
                return Ok(Some(line));
            }
            searched = avail.len();
            if self.fill()? == 0 {
                return if self.start == self.end {
                    Ok(None)
                } else {
                    Err(io::ErrorKind::UnexpectedEof.into())
                };
            }
        }
    }

    /// Passes the next `n` body bytes to `sink`, slice by slice, as they arrive.
    fn body_fixed(&mut self, mut n: u64, sink: &mut impl FnMut(&[u8])) -> io::Result<()> {
        while n > 0 {
            if self.start == self.end && self.fill()? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let take = (self.end - self.start).min(usize::try_from(n).unwrap_or(usize::MAX));
            sink(&self.buf[self.start..self.start + take]);
            self.start += take;
            n -= take as u64;
        }
        Ok(())
    }

    /// Passes a chunked body to `sink`, chunk by chunk, and consumes the trailer.
    fn body_chunked(&mut self, sink: &mut impl FnMut(&[u8])) -> io::Result<()> {
        loop {
            let line = self
                .read_until(b"\r\n")?
                .ok_or(io::ErrorKind::UnexpectedEof)?;
            let hex = line.split(|&b| b == b';').next().unwrap_or(&[]);
            let hex = std::str::from_utf8(hex)
                .map_err(|_| bad("chunk size"))?
                .trim();
            let size = u64::from_str_radix(hex, 16).map_err(|_| bad("chunk size"))?;
            if size == 0 {
                // Trailer fields, then an empty line.
                while !self
                    .read_until(b"\r\n")?
                    .ok_or(io::ErrorKind::UnexpectedEof)?
                    .is_empty()
                {}
                return Ok(());
            }
            self.body_fixed(size, sink)?;
            let crlf = self
                .read_until(b"\r\n")?
                .ok_or(io::ErrorKind::UnexpectedEof)?;
            if !crlf.is_empty() {
                return Err(bad("chunk not followed by CRLF"));
            }
        }
    }

    fn body(&mut self, head: &Head, sink: &mut impl FnMut(&[u8])) -> io::Result<()> {
        if head.chunked {
            self.body_chunked(sink)
        } else {
            self.body_fixed(head.content_length.unwrap_or(0), sink)
        }
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn parse_head(raw: &[u8]) -> io::Result<Head> {
    let text = std::str::from_utf8(raw).map_err(|_| bad("request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let mut request = lines.next().unwrap_or("").split(' ');
    let method = request.next().unwrap_or("").to_string();
    let target = request.next().ok_or_else(|| bad("request line"))?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut head = Head {
        method,
        path: path.to_string(),
        query: query.to_string(),
        content_length: None,
        chunked: false,
        gzip: false,
        close: request.next() == Some("HTTP/1.0"),
        expect_continue: false,
    };
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            head.content_length = Some(value.parse().map_err(|_| bad("content-length"))?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            head.chunked = value.to_ascii_lowercase().contains("chunked");
        } else if name.eq_ignore_ascii_case("content-encoding") {
            head.gzip = value.eq_ignore_ascii_case("gzip");
        } else if name.eq_ignore_ascii_case("connection") {
            head.close = value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("expect") {
            head.expect_continue = value.eq_ignore_ascii_case("100-continue");
        }
    }
    Ok(head)
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// A successful bulk answer for `docs` documents, with items as OpenSearch 2.19 writes them:
/// whole, or only `status` when the request's `filter_path` keeps only `items.*.status` (and
/// `items.*.error`, absent on success).
fn bulk_answer(query: &str, docs: u64) -> String {
    let filtered = query.contains("filter_path=") && query.contains("items.*.status");
    let mut out = String::with_capacity(40 + docs as usize * if filtered { 25 } else { 170 });
    out.push_str("{\"took\":0,\"errors\":false,\"items\":[");
    for n in 0..docs {
        if n > 0 {
            out.push(',');
        }
        if filtered {
            out.push_str("{\"index\":{\"status\":201}}");
        } else {
            use std::fmt::Write as _;
            let _ = write!(
                out,
                "{{\"index\":{{\"_index\":\"sink\",\"_id\":\"{n}\",\"_version\":1,\"result\":\"created\",\
                 \"_shards\":{{\"total\":2,\"successful\":1,\"failed\":0}},\"_seq_no\":{n},\
                 \"_primary_term\":1,\"status\":201}}}}"
            );
        }
    }
    out.push_str("]}");
    out
}

/// Answers one request: `(status line, JSON body)`.
fn route(conn: &mut Conn, head: &Head, counters: &Counters) -> io::Result<(&'static str, String)> {
    let (method, path) = (head.method.as_str(), head.path.as_str());
    if method == "POST" && (path == "/_bulk" || path.ends_with("/_bulk")) {
        let mut bytes = 0u64;
        let newlines = if head.gzip {
            let mut compressed = Vec::new();
            conn.body(head, &mut |s| compressed.extend_from_slice(s))?;
            bytes = compressed.len() as u64;
            let mut plain = Vec::new();
            let mut decoder = flate2::read::GzDecoder::new(&compressed[..]);
            if decoder.read_to_end(&mut plain).is_err() {
                return Ok(("400 Bad Request", "{\"error\":\"gzip\"}".into()));
            }
            count_newlines(&plain)
        } else {
            let mut newlines = 0;
            conn.body(head, &mut |s| {
                bytes += s.len() as u64;
                newlines += count_newlines(s);
            })?;
            newlines
        };
        if let Some(hold) = counters.service {
            let done = {
                let mut free_at = counters.free_at.lock().unwrap_or_else(|p| p.into_inner());
                let now = std::time::Instant::now();
                let done = free_at.map_or(now, |f| f.max(now)) + hold;
                *free_at = Some(done);
                done
            };
            std::thread::sleep(done.saturating_duration_since(std::time::Instant::now()));
        }
        counters.docs.fetch_add(newlines / 2, Relaxed);
        counters.bytes.fetch_add(bytes, Relaxed);
        counters.requests.fetch_add(1, Relaxed);
        return Ok(("200 OK", bulk_answer(&head.query, newlines / 2)));
    }
    // Drain any other body.
    conn.body(head, &mut |_| {})?;
    let ok = "200 OK";
    Ok(match method {
        "GET" | "HEAD" if path == "/" && counters.as_elasticsearch => (
            ok,
            "{\"name\":\"sink\",\"cluster_name\":\"bulk-sink\",\"version\":{\"number\":\"8.15.0\",\"build_flavor\":\"default\",\"build_hash\":\"bulk-sink\"},\"tagline\":\"You Know, for Search\"}".into(),
        ),
        // What esrally's telemetry reads of the nodes: none to read.
        "GET" if path.starts_with("/_nodes") && counters.as_elasticsearch => (
            ok,
            "{\"_nodes\":{\"total\":0,\"successful\":0,\"failed\":0},\"cluster_name\":\"bulk-sink\",\"nodes\":{}}".into(),
        ),
        "GET" | "HEAD" if path == "/" => (
            ok,
            "{\"name\":\"sink\",\"cluster_name\":\"bulk-sink\",\"version\":{\"number\":\"0.0.0\",\"distribution\":\"bulk-sink\"}}".into(),
        ),
        // A search finds nothing: what a driver's own cost per search is measured against.
        "GET" | "POST" if path.ends_with("/_search") => (
            ok,
            "{\"took\":0,\"timed_out\":false,\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\"hits\":[]}}".into(),
        ),
        "GET" if path.starts_with("/_cluster/health") => (
            ok,
            "{\"status\":\"green\",\"number_of_nodes\":1,\"timed_out\":false}".into(),
        ),
        "GET" if path.contains("/_stats") => (ok, "{\"_all\":{\"total\":{}}}".into()),
        "GET" if path.ends_with("/_settings") => (ok, "{}".into()),
        "GET" if path.ends_with("/_count") => (
            ok,
            format!("{{\"count\":{}}}", counters.docs.load(Relaxed)),
        ),
        "GET" | "HEAD" => (
            "404 Not Found",
            "{\"error\":{\"type\":\"index_not_found_exception\",\"reason\":\"no such index (bulk sink)\"},\"status\":404}".into(),
        ),
        "PUT" if !path.contains("/_") => {
            // A new index: start counting afresh.
            counters.docs.store(0, Relaxed);
            (ok, "{\"acknowledged\":true}".into())
        }
        "POST" if path.ends_with("/_refresh") => (ok, "{}".into()),
        _ => (ok, "{\"acknowledged\":true}".into()),
    })
}

fn serve(stream: TcpStream, buffer: usize, counters: &Counters) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut conn = Conn {
        stream,
        buf: vec![0; buffer],
        start: 0,
        end: 0,
    };
    let mut out = Vec::with_capacity(512);
    while let Some(raw) = conn.read_until(b"\r\n\r\n")? {
        let head = parse_head(&raw)?;
        if head.expect_continue {
            conn.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let (status, body) = route(&mut conn, &head, counters)?;
        out.clear();
        write!(
            out,
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{}{}\r\n",
            body.len(),
            if counters.as_elasticsearch {
                "x-elastic-product: Elasticsearch\r\n"
            } else {
                ""
            },
            if head.close {
                "connection: close\r\n"
            } else {
                ""
            }
        )?;
        if head.method != "HEAD" {
            out.extend_from_slice(body.as_bytes());
        }
        conn.stream.write_all(&out)?;
        if head.close {
            break;
        }
    }
    Ok(())
}

/// Serves on a free port of 127.0.0.1 from a background thread (for tests that include this
/// file); returns the URL.
pub fn spawn(service: Option<std::time::Duration>) -> io::Result<String> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let url = format!("http://{}", listener.local_addr()?);
    let counters = Arc::new(Counters {
        service,
        ..Counters::default()
    });
    std::thread::spawn(move || accept(&listener, 256 * 1024, &counters));
    Ok(url)
}

fn accept(listener: &TcpListener, buffer: usize, counters: &Arc<Counters>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let counters = counters.clone();
        std::thread::spawn(move || {
            if let Err(e) = serve(stream, buffer, &counters) {
                if e.kind() != io::ErrorKind::ConnectionReset {
                    eprintln!("bulk sink: connection: {e}");
                }
            }
        });
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut port = 0u16;
    let mut buffer_kib = 256usize;
    let mut service = None;
    let mut as_elasticsearch = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().ok_or("--port needs a value")?.parse()?,
            "--buffer" => buffer_kib = args.next().ok_or("--buffer needs a value")?.parse()?,
            "--service-ms" => {
                let ms: f64 = args.next().ok_or("--service-ms needs a value")?.parse()?;
                service = Some(std::time::Duration::try_from_secs_f64(ms / 1e3)?);
            }
            "--as-elasticsearch" => as_elasticsearch = true,
            "--threads" => {
                let _: usize = args.next().ok_or("--threads needs a value")?.parse()?;
            }
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!("listening on http://{}", listener.local_addr()?);
    io::stdout().flush()?;
    let counters = Arc::new(Counters {
        service,
        as_elasticsearch,
        ..Counters::default()
    });
    accept(&listener, buffer_kib.max(4) * 1024, &counters);
    Ok(())
}
