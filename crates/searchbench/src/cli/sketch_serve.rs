//! `searchbench sketch-serve --port P` (hidden): the sketch store's process, as `engine start
//! sketch` spawns it. It serves on 127.0.0.1 until SIGTERM or Ctrl-C, or, started attached,
//! until its stdin closes (the process that started it is gone).

use std::net::{Ipv4Addr, SocketAddr};

use clap::Args;

use super::CliResult;

#[derive(Debug, Args)]
pub struct SketchServeArgs {
    /// The HTTP port on 127.0.0.1.
    #[arg(long)]
    pub port: u16,
    /// Stop when stdin closes.
    #[arg(long)]
    pub attached: bool,
}

pub async fn run(args: SketchServeArgs) -> CliResult {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
    let server = crate::sketch::server::serve(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot serve on {addr}: {e}"))?;
    errln!("searchbench sketch store serving on {}", server.url);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| anyhow::anyhow!("cannot listen for SIGTERM: {e}"))?;
    // A thread of its own, never joined: a blocking read the runtime would wait for at exit
    // would hold a SIGTERM'd store up for as long as its parent keeps the pipe open.
    let (closed_tx, closed_rx) = tokio::sync::oneshot::channel::<()>();
    if args.attached {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            let _ = closed_tx.send(());
        });
    }
    let stdin_closed = async {
        if !args.attached || closed_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        _ = term.recv() => errln!("SIGTERM: stopping"),
        _ = tokio::signal::ctrl_c() => errln!("interrupted: stopping"),
        () = stdin_closed => errln!("stdin closed: stopping"),
    }
    drop(server);
    Ok(())
}
