//! A network namespace of its own for a process the suite starts, as another driver host would
//! have: its own loopback, its own interface and address (10.213.K.2), reaching the shared
//! node only through a veth pair to the host side (10.213.K.1), where a plain TCP forwarder
//! passes each connection on to the node on 127.0.0.1. Made only when the suite may make them
//! (root, `ip` present, the kernel allowing it); [`Netns::make`] says `None` otherwise, and
//! the caller runs plain processes. Removed when dropped (the veth pair goes with it).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

pub struct Netns {
    name: String,
    host_if: String,
    /// The URL of the node as seen from inside: the forwarder on the host side of the veth.
    pub url: String,
    stop: Arc<AtomicBool>,
}

fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Copies one direction of a connection until either side ends.
fn pump(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = [0u8; 64 << 10];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

impl Netns {
    /// Namespace number `k` (1..=250) reaching `node` (`127.0.0.1:PORT`), or `None` when the
    /// suite may not make one here.
    pub fn make(k: u8, node: &str) -> Option<Netns> {
        let pid = std::process::id() % 100_000;
        let name = format!("sbpart{pid}-{k}");
        let (host_if, part_if) = (format!("sbh{pid}-{k}"), format!("sbp{pid}-{k}"));
        let (host_ip, part_ip) = (format!("10.213.{k}.1"), format!("10.213.{k}.2"));
        // Left over from a test that was killed: gone first.
        let _ = ip(&["netns", "del", &name]);
        let _ = ip(&["link", "del", &host_if]);
        let made = ip(&["netns", "add", &name])
            && ip(&[
                "link", "add", &host_if, "type", "veth", "peer", "name", &part_if,
            ])
            && ip(&["link", "set", &part_if, "netns", &name])
            && ip(&["addr", "add", &format!("{host_ip}/24"), "dev", &host_if])
            && ip(&["link", "set", &host_if, "up"])
            && ip(&[
                "netns",
                "exec",
                &name,
                "ip",
                "addr",
                "add",
                &format!("{part_ip}/24"),
                "dev",
                &part_if,
            ])
            && ip(&["netns", "exec", &name, "ip", "link", "set", &part_if, "up"])
            && ip(&["netns", "exec", &name, "ip", "link", "set", "lo", "up"]);
        if !made {
            let _ = ip(&["netns", "del", &name]);
            let _ = ip(&["link", "del", &host_if]);
            return None;
        }
        let Ok(listener) = TcpListener::bind(format!("{host_ip}:0")) else {
            let _ = ip(&["netns", "del", &name]);
            return None;
        };
        let port = listener.local_addr().ok()?.port();
        listener.set_nonblocking(true).ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let (node, stopping) = (node.to_string(), stop.clone());
        thread::spawn(move || {
            while !stopping.load(Relaxed) {
                match listener.accept() {
                    Ok((inside, _)) => {
                        let _ = inside.set_nonblocking(false);
                        let Ok(outside) = TcpStream::connect(&node) else {
                            continue;
                        };
                        let (a, b) = (inside.try_clone(), outside.try_clone());
                        if let (Ok(a), Ok(b)) = (a, b) {
                            thread::spawn(move || pump(inside, outside));
                            thread::spawn(move || pump(b, a));
                        }
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Some(Netns {
            name,
            host_if,
            url: format!("http://{host_ip}:{port}"),
            stop,
        })
    }

    /// `program` run inside the namespace.
    pub fn command(&self, program: &std::path::Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name]).arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        let _ = ip(&["netns", "del", &self.name]);
        let _ = ip(&["link", "del", &self.host_if]);
    }
}
