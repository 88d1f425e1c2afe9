//! Where a session sends its load: a cluster the user gave, or an engine we start for the
//! run and stop when it ends.

use crate::cluster::delay::{delayed, DelayProxy, Rtt};
use crate::cluster::Target;
use crate::engine::{self, Node, StartOptions};

use super::warm::{WarmSpec, WarmUp};
use super::{Event, Observer, SessionError};

/// The cluster of a session.
#[derive(Debug, Clone)]
pub struct ClusterSpec {
    /// The user's cluster (`--url`); `None` starts [`ClusterSpec::engine`].
    pub given: Option<Target>,
    /// The URLs as given, for the record (credentials are not kept here).
    pub urls: Vec<String>,
    /// The engine to start when no cluster is given, and how.
    pub start: StartOptions,
    /// Pid of a local engine given by URL, to report its CPU time.
    pub engine_pid: Option<u32>,
    /// Delay added between the driver and the cluster (`--rtt`) by a proxy on 127.0.0.1.
    pub rtt: Option<Rtt>,
    /// How to warm the engine we start before the measured load (see [`super::warm`]);
    /// `None`: not warmed (`--no-warm-node`, or a command with no load of its own).
    pub warm: Option<WarmSpec>,
}

impl ClusterSpec {
    /// An engine we start, with these options, reached directly.
    pub fn local(start: StartOptions) -> Self {
        ClusterSpec {
            given: None,
            urls: Vec::new(),
            start,
            engine_pid: None,
            rtt: None,
            warm: None,
        }
    }

    /// The user's cluster, reached at `target` (`urls` as given, for the record), through a
    /// delay proxy with `rtt`.
    pub fn given(target: Target, urls: &[String], rtt: Option<Rtt>) -> Self {
        ClusterSpec {
            given: Some(target),
            urls: urls.to_vec(),
            start: StartOptions::new(engine::DEFAULT_ENGINE),
            engine_pid: None,
            rtt,
            warm: None,
        }
    }

    /// Asks the engine we start for what `workload` needs of it: a node that searches
    /// vectors for one whose index holds them. A name that is no built-in workload (a
    /// track, the user's files) asks nothing.
    pub fn serve(&mut self, workload: &str) {
        if let Ok(w) = super::job::find_workload(workload) {
            self.start.knn |= w.searches_vectors();
        }
    }

    /// The engine name for the record: the one we start, or none for a given cluster.
    pub fn engine_name(&self) -> Option<&str> {
        self.given.is_none().then_some(self.start.engine.as_str())
    }

    /// Connects to the given cluster, or starts the engine (attached: it dies with us); with
    /// [`ClusterSpec::rtt`], through a delay proxy.
    pub async fn connect(&self, observer: &dyn Observer) -> Result<Connected, SessionError> {
        let mut connected = self.connect_direct(observer).await?;
        if let Some(rtt) = self.rtt {
            match delayed(&connected.target, rtt).await {
                Ok((target, proxies)) => {
                    connected.target = target;
                    connected.delay = Some((rtt, proxies));
                }
                Err(e) => {
                    connected.stop().await;
                    return Err(e.into());
                }
            }
        }
        Ok(connected)
    }

    async fn connect_direct(&self, observer: &dyn Observer) -> Result<Connected, SessionError> {
        if let Some(target) = &self.given {
            return Ok(Connected {
                target: target.clone(),
                node: None,
                engine_pids: self.engine_pid.into_iter().collect(),
                delay: None,
                warmed: None,
            });
        }
        let mut options = self.start.clone();
        options.attached = true;
        observer.event(Event::EngineStarting {
            engine: &options.engine,
            nodes: options.nodes,
        });
        let node = engine::start(&options)
            .await
            .map_err(|source| match source {
                // Asked to stop while it started: the run is interrupted, nothing in it ran.
                engine::EngineError::Interrupted(what) => {
                    SessionError::Interrupted(format!("{what}; nothing was run"))
                }
                source => SessionError::EngineStart {
                    engine: options.engine.clone(),
                    source: Box::new(source),
                },
            })?;
        observer.event(Event::EngineUp {
            engine: &node.spec.name,
            url: node.url(),
            pid: node.pid(),
            nodes: node.records.len(),
            boot: node.boot,
        });
        let target = node.target()?;
        // Warmed directly, before any delay proxy: the JIT's warm-up is the node's. A node
        // that is not a JVM (the sketch store) has no JIT to warm.
        let jvm = node.spec.product.traits().jvm;
        let mut connected = Connected {
            target,
            engine_pids: node.pids(),
            node: Some(node),
            delay: None,
            warmed: None,
        };
        if let Some(warm) = self.warm.as_ref().filter(|_| jvm) {
            match super::warm::warm(&connected.target, warm, observer).await {
                Ok(up) => connected.warmed = Some(up),
                Err(e) => {
                    connected.stop().await;
                    return Err(e);
                }
            }
        }
        Ok(connected)
    }
}

/// A connected cluster; [`Connected::stop`] stops the engine if we started one.
#[derive(Debug)]
pub struct Connected {
    pub target: Target,
    pub node: Option<Node>,
    /// The engine's processes when they are local and known (for their CPU time): every
    /// node of a cluster we started.
    pub engine_pids: Vec<u32>,
    /// The delay proxies in front of the cluster (`--rtt`); they stop when this is dropped.
    pub delay: Option<(Rtt, Vec<DelayProxy>)>,
    /// What warming the node we started did, when it was warmed.
    pub warmed: Option<WarmUp>,
}

impl Connected {
    /// Stops the engine we started for the session, if any.
    pub async fn stop(self) {
        if let Some(node) = self.node {
            let _ = tokio::task::spawn_blocking(move || node.stop()).await;
        }
    }
}
