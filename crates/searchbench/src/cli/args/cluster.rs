//! Which cluster: a given URL, or an engine to start (nodes, heap, settings), and the network between.

use std::path::PathBuf;

use clap::Args;

use super::parse_duration;
use crate::cli::{CliError, TargetArgs};
use crate::engine;
use crate::session::ingest::LoadSpec;
use crate::session::warm::WarmSpec;
use crate::session::{ClusterSpec, Job, SessionError};

/// How to start an engine's nodes: shared by `engine start` and every command that can
/// start an engine for its run.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Engine we start")]
pub struct NodeArgs {
    /// Nodes in the cluster, each its own process and heap (one cluster over the loopback).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=9))]
    pub nodes: u16,
    /// HTTP port of the first node (the next nodes count up) [default: free ports].
    #[arg(long)]
    pub port: Option<u16>,
    /// Transport port of the first node (the next nodes count up) [default: --port + 100
    /// when free, as 9200 goes with 9300; else free ports].
    #[arg(long)]
    pub transport_port: Option<u16>,
    /// JVM heap of each node (-Xms and -Xmx), e.g. 512m, 1g, 4g.
    #[arg(long, default_value = "1g", value_parser = parse_heap)]
    pub heap: String,
    /// Node setting KEY=VALUE, applied after searchbench's own (repeat for more), e.g.
    /// --setting indices.memory.index_buffer_size=20%.
    #[arg(long = "setting", value_name = "KEY=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
    /// Extra JVM option of each node (repeat for more), e.g. --jvm-opt=-XX:+UseParallelGC.
    /// SEARCHBENCH_JVM_OPTS (space-separated) gives every node its options first, for a
    /// machine or a CI job; the run records both.
    #[arg(long = "jvm-opt", value_name = "OPTION", allow_hyphen_values = true)]
    pub jvm_opts: Vec<String>,
    /// A secured OpenSearch: the release's distribution with the security plugin from
    /// Maven Central, TLS with a CA of its own, an admin user (password from
    /// SEARCHBENCH_PASSWORD, else made) and a read-only user `reader`; requests go over https
    /// as the admin. Not for Elasticsearch: its security is in no artifact Maven Central
    /// carries (point --url/--ca-cert/--user at your own).
    #[arg(long)]
    pub security: bool,
    /// A node that searches vectors: OpenSearch's distribution with its k-NN plugin from
    /// Maven Central (its Lucene engine; faiss and nmslib need native libraries Maven Central
    /// does not carry). Elasticsearch has dense_vector in its core and is started as it is,
    /// and so is a folder of your own (--engine-dir). Implied by the vectors workload.
    #[arg(long)]
    pub knn: bool,
}

impl NodeArgs {
    /// Start options for `engine` with these knobs.
    pub fn options(&self, engine: &str) -> engine::StartOptions {
        let mut options = engine::StartOptions::new(engine);
        options.nodes = self.nodes;
        options.port = self.port;
        options.transport_port = self.transport_port;
        options.heap = self.heap.clone();
        options.settings = self.settings.clone();
        options.jvm_opts = self.jvm_opts.clone();
        options.knn = self.knn;
        options.security = self.security.then(|| engine::security::SecurityOptions {
            admin_password: std::env::var("SEARCHBENCH_PASSWORD")
                .ok()
                .filter(|p| !p.is_empty())
                .map(crate::cluster::Secret::new),
        });
        options
    }

    /// [`NodeArgs::options`] for `engine`, or for the distribution in `dir` when one is
    /// given (its name read from the folder; a folder that is not one is bad usage).
    pub fn options_for(
        &self,
        engine: &str,
        dir: Option<&std::path::Path>,
    ) -> Result<engine::StartOptions, CliError> {
        let Some(dir) = dir else {
            return Ok(self.options(engine));
        };
        let (spec, home) = engine::inspect_dir(dir).map_err(CliError::usage)?;
        let mut options = self.options(&spec.name);
        options.engine_dir = Some(home);
        Ok(options)
    }
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    engine::parse_setting(s).map_err(|e| e.to_string())
}

pub fn parse_heap(s: &str) -> Result<String, String> {
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let ok_unit = matches!(unit, "m" | "M" | "g" | "G");
    match digits.parse::<u32>() {
        Ok(n) if n > 0 && ok_unit => Ok(s.to_string()),
        _ => Err(format!("{s:?} is not a heap size; use e.g. 512m or 2g")),
    }
}

/// Whether and how long to warm a node we start before the measured load.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Cluster")]
pub struct WarmArgs {
    /// Measure a node we start as it comes up. By default it is first given the run's own
    /// workload, in slices into a throwaway index, until the slices' rate stops rising (a
    /// fresh JVM's first tens of seconds measure its JIT warming up, not the node's speed);
    /// the run says what the warm-up saw. A cluster given by --url is never warmed.
    #[arg(long)]
    pub no_warm_node: bool,
    /// The longest the warm-up may take, e.g. 30s, 3m [default: 90s]; a node whose rate still
    /// rises then is measured anyway, and the run says so.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_warm_max, conflicts_with = "no_warm_node")]
    pub warm_node_max: Option<std::time::Duration>,
}

/// The warm-up's bound: a positive duration of at most a day.
fn parse_warm_max(s: &str) -> Result<std::time::Duration, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "{s:?}: a warm-up's bound cannot be negative; give e.g. 60s"
        ));
    }
    let d = crate::units::parse_duration(s)?;
    if d.is_zero() {
        return Err(format!(
            "{s:?}: a warm-up of no time is none; give --no-warm-node to skip it"
        ));
    }
    if d > std::time::Duration::from_secs(86_400) {
        return Err(format!("{s:?}: a warm-up is bounded by a day at most"));
    }
    Ok(d)
}

impl WarmArgs {
    /// How to warm the node with the load `make` makes (`make(index, docs)`: the run's own
    /// workload, at least `docs` documents of it, into `index`); `None` with --no-warm-node.
    pub fn spec(
        &self,
        make: impl Fn(&str, u64) -> Result<(Job, LoadSpec), SessionError> + Send + Sync + 'static,
    ) -> Option<WarmSpec> {
        if self.no_warm_node {
            return None;
        }
        let mut spec = WarmSpec::new(make);
        if let Some(max) = self.warm_node_max {
            spec.max = max;
        }
        Some(spec)
    }

    /// [`WarmArgs::spec`] for a built-in workload's generator: `workload` made with the
    /// slice's documents into the warm-up index, loaded as `load` says (see
    /// [`crate::session::ingest::slice_load`]).
    pub fn generated(
        &self,
        workload: &str,
        spec: &crate::workload::WorkloadSpec,
        load: &LoadSpec,
    ) -> Option<WarmSpec> {
        let (workload, spec, load) = (workload.to_string(), spec.clone(), load.clone());
        // A slice of a corpus whose size other flags fix is at most that corpus (a fast
        // node's slice of cluster-metrics with --epochs once asked for more rows than exist).
        let most = crate::workload::find(&workload).and_then(|w| w.most_docs(&spec));
        self.spec(move |index, docs| {
            let mut spec = spec.clone();
            spec.docs = Some(most.map_or(docs, |most| docs.min(most)));
            let job = Job::generated(&workload, &spec, Some(index.to_string()), &[])?;
            Ok((job, crate::session::ingest::slice_load(&load, index)))
        })
    }
}

/// Where to load: a cluster at --url, or one we start for the run.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Cluster")]
pub struct ClusterArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Start this engine for the run (attached: it stops when we do), e.g. opensearch-2.11.0,
    /// elasticsearch-8.17.x (the newest 8.17 release), or sketch (the metrics store built into
    /// searchbench: cluster-metrics only, field note 002's baseline); `searchbench engine list
    /// --available` lists them. The default when no --url is given: opensearch-2.19.1.
    #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, long, conflicts_with = "urls")]
    pub engine: Option<String>,
    /// Start a local, unpacked Elasticsearch or OpenSearch distribution folder instead (your
    /// own build, e.g. build/distribution/local/opensearch-3.0.0-SNAPSHOT): product and
    /// version are read from its lib/ jars, the JDK picked for that release; the run records
    /// the folder.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["engine", "urls"])]
    pub engine_dir: Option<PathBuf>,
    #[command(flatten)]
    pub node: NodeArgs,
    /// Pid of a local engine given by --url, to report its CPU time.
    #[arg(long, hide = true)]
    pub engine_pid: Option<u32>,
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// Network distance on the loopback: a delay proxy between the driver and the cluster.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Network distance")]
pub struct NetworkArgs {
    /// Add this round-trip time between the driver and the cluster (e.g. 2ms): a TCP proxy on
    /// 127.0.0.1 holds every chunk half of it in each direction, so a laptop run shows what
    /// client-server distance does to serial and parallel clients.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_delay)]
    pub rtt: Option<std::time::Duration>,
    /// With --rtt: each round trip is rtt ± this (uniform, seeded, order kept), e.g. 0.5ms.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_delay, requires = "rtt")]
    pub jitter: Option<std::time::Duration>,
    /// Seed of the --jitter draws.
    #[arg(long, default_value_t = 1, hide = true)]
    pub jitter_seed: u64,
}

impl NetworkArgs {
    pub fn rtt(&self) -> Result<Option<crate::cluster::delay::Rtt>, CliError> {
        let Some(rtt) = self.rtt else { return Ok(None) };
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        crate::cluster::delay::Rtt::new(ms(rtt), self.jitter.map_or(0.0, ms), self.jitter_seed)
            .map(Some)
            .map_err(|e| CliError::usage(anyhow::anyhow!(e)))
    }
}

/// A delay: a duration that is not negative.
fn parse_delay(s: &str) -> Result<std::time::Duration, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "{s:?}: a delay cannot be negative; give e.g. 2ms or 0.5ms"
        ));
    }
    parse_duration(s)
}

impl ClusterArgs {
    pub fn spec(&self) -> Result<ClusterSpec, CliError> {
        let given = if self.target.urls.is_empty() {
            None
        } else {
            Some(self.target.connect()?)
        };
        let name = self
            .engine
            .clone()
            .unwrap_or_else(|| engine::DEFAULT_ENGINE.to_string());
        // A release line (`elasticsearch-8.17.x`) becomes the release it means, so the run
        // records what ran. Names the cached lists lack are resolved when the engine starts.
        let name = match (given.is_none(), engine::resolve(&name)) {
            (true, Ok(spec)) => spec.name,
            _ => name,
        };
        Ok(ClusterSpec {
            given,
            urls: self.target.urls.clone(),
            start: self.node.options_for(&name, self.engine_dir.as_deref())?,
            engine_pid: self.engine_pid,
            rtt: self.network.rtt()?,
            // The command that knows its load sets how (see `NodeArgs::warm`).
            warm: None,
        })
    }
}
