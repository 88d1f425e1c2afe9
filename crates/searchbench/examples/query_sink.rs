//! A search sink: answers every `_search` and `_msearch` at once with a fixed, valid answer
//! (`took: 0`), to measure the query driver's own overhead (client wall − server took). It
//! names itself as OpenSearch 2.19.1 (`GET /`) and holds 15,000 documents (`_count`), so the
//! checks `query` makes before measuring pass.
//!
//! `cargo run --release --example query_sink -- [PORT]` prints `http://127.0.0.1:PORT` and
//! serves until killed. HTTP/1.1 keep-alive, one task per connection, no parsing beyond the
//! request line and `content-length`.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

const SEARCH: &str = "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\
    \"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\
    \"max_score\":null,\"hits\":[]}}";

const ROOT: &str = "{\"name\":\"sink\",\"cluster_name\":\"sink\",\"version\":{\"number\":\"2.19.1\",\
    \"distribution\":\"opensearch\"},\"tagline\":\"The OpenSearch Project: https://opensearch.org/\"}";

fn reply(path: &str, body: &[u8]) -> Vec<u8> {
    let answer = if path == "/" {
        ROOT.to_string()
    } else if path.contains("_count") {
        "{\"count\":15000}".to_string()
    } else if path.contains("_msearch") {
        let n = body.iter().filter(|&&c| c == b'\n').count() / 2;
        let items = vec![SEARCH; n.max(1)].join(",");
        format!("{{\"took\":0,\"responses\":[{items}]}}")
    } else {
        SEARCH.to_string()
    };
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
        answer.len()
    )
    .into_bytes()
}

async fn serve(stream: TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    let mut body = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut length = 0usize;
        loop {
            line.clear();
            if reader.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            if line.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body).await?;
        write.write_all(&reply(&path, &body)).await?;
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    println!("http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let _ = serve(stream).await;
        });
    }
}
