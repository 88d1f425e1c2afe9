//! `searchbench run many-shards|snapshots`: the multi-phase scenarios over many small
//! indices; their flags, the one session call, the verdict.

use clap::Args;

use super::RunArgs;
use crate::cli::ending;
use crate::cli::output::Terminal;
use crate::cli::{CliError, CliResult};
use crate::corpus::part::Part;
use crate::session::join::PartOf;
use crate::session::scenario::{self, ScenarioSpec};
use crate::workload::Scenario;

/// The scenarios' own flags.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "many-shards / snapshots")]
pub struct ScenarioArgs {
    /// Indices to create, each filled with --docs-per-index auditbeat documents [default:
    /// 500; a real cluster: the 50000 (many-shards) and 25000 (snapshots) of the nightly runs].
    #[arg(long, value_name = "N")]
    pub indices: Option<u64>,
    /// Documents per index [default: 100].
    #[arg(long, value_name = "N")]
    pub docs_per_index: Option<u64>,
    /// snapshots: sequential create-snapshot requests [default: 20; the nightly runs: 100].
    #[arg(long, value_name = "N")]
    pub snapshots: Option<u64>,
    /// snapshots: a snapshot repository you registered (needed with --url when the nodes
    /// have no path.repo); by default we register an `fs` one under path.repo and remove it.
    #[arg(long, value_name = "NAME")]
    pub repository: Option<String>,
    /// many-shards: `_field_caps` requests over all the indices, from 2 clients [default: 50].
    #[arg(long, value_name = "N")]
    pub field_caps_requests: Option<u64>,
}

impl ScenarioArgs {
    /// Whether any scenario flag was given (they mean nothing to other workloads).
    pub fn any(&self) -> bool {
        self.indices.is_some()
            || self.docs_per_index.is_some()
            || self.snapshots.is_some()
            || self.repository.is_some()
            || self.field_caps_requests.is_some()
    }
}

fn usage(message: &str) -> CliError {
    CliError::usage(anyhow::anyhow!("{message}"))
}

/// The scenario's spec from the `run` flags.
fn spec(kind: Scenario, args: &RunArgs) -> Result<ScenarioSpec, CliError> {
    let s = &args.scenario;
    if args.index.is_some() {
        return Err(usage(
            "--index does not apply to a scenario: its indices are named searchbench-shards-<run>-N",
        ));
    }
    let mut spec = ScenarioSpec::new(kind);
    let snapshots_only = s.snapshots.is_some() || s.repository.is_some();
    let many_shards_only = s.field_caps_requests.is_some()
        || args.search_clients.is_some()
        || args.corpus.docs.is_some();
    match kind {
        Scenario::ManyShards if snapshots_only => {
            return Err(usage(
                "--snapshots and --repository are for the snapshots scenario",
            ))
        }
        Scenario::Snapshots if many_shards_only => return Err(usage(
            "--docs, --search-clients and --field-caps-requests are for the many-shards scenario",
        )),
        _ => {}
    }
    spec.seed = args.corpus.seed;
    spec.indices = s.indices.unwrap_or(spec.indices);
    spec.docs_per_index = s.docs_per_index.unwrap_or(spec.docs_per_index);
    spec.clients = usize::try_from(args.load.clients).unwrap_or(1);
    spec.logs_docs = args.corpus.docs.unwrap_or(spec.logs_docs);
    spec.logs_bulk = usize::try_from(args.load.bulk_size).unwrap_or(usize::MAX);
    spec.search_clients = args
        .search_clients
        .map_or(spec.search_clients, |n| n as usize);
    spec.field_caps_requests = s.field_caps_requests.unwrap_or(spec.field_caps_requests);
    spec.snapshots = s.snapshots.unwrap_or(spec.snapshots);
    spec.repository = s.repository.clone();
    Ok(spec)
}

/// Cuts `spec` to part `part` of `group`: its share of the clients, of the search clients and
/// of the field-caps clients and requests (the indices and the logs are cut by the session,
/// which knows the whole).
fn for_part(spec: &mut ScenarioSpec, part: Part, group: &str) -> Result<(), CliError> {
    let clients = part
        .clients(spec.clients as u64, "--clients")
        .map_err(|e| usage(&e))?;
    let search_clients = if spec.scenario == Scenario::ManyShards {
        part.clients(spec.search_clients as u64, "--search-clients")
            .map_err(|e| usage(&e))?
    } else {
        let (from, to) = part.share(spec.search_clients as u64);
        to - from
    };
    // The field-caps requests go with the clients: part I sends those of its clients.
    let (c0, c1) = part.share(spec.field_caps_clients as u64);
    let at = |c: u64| spec.field_caps_requests * c / spec.field_caps_clients.max(1) as u64;
    spec.field_caps_requests = at(c1) - at(c0);
    spec.field_caps_clients = (c1 - c0) as usize;
    spec.clients = clients as usize;
    spec.search_clients = search_clients as usize;
    spec.part = Some(PartOf {
        part,
        group: group.to_string(),
        wait: crate::session::run::PARTS_WAIT,
    });
    Ok(())
}

pub async fn run(kind: Scenario, args: RunArgs) -> CliResult {
    let mut spec = spec(kind, &args)?;
    if let Some(part) = args.part.part.filter(|p| !p.is_whole()) {
        for_part(
            &mut spec,
            part,
            args.part.group.as_deref().unwrap_or_default(),
        )?;
        if !args.out.quiet {
            errln!(
                "part {part} of group {}: indices {}..{} of {}, {} client(s); part 1 {}; the \
                 parts wait for each other between the phases",
                args.part.group.as_deref().unwrap_or_default(),
                spec.index_range().0,
                spec.index_range().1,
                spec.indices,
                spec.clients,
                match kind {
                    Scenario::ManyShards => "cleans up",
                    Scenario::Snapshots => "takes the snapshots and cleans up",
                }
            );
        }
    }
    let mut cluster = args.cluster.spec()?;
    let attach = args
        .out
        .attach(Some(&args.load.telemetry), args.profile.spec(&cluster)?)?;
    let begun = ending::begin(Some(&args.part), args.out.quiet).await?;
    spec.cancel = Some(begun.cancel.clone());
    cluster.start.stop = begun.cancel.clone();
    let terminal = Terminal::for_output(&args.out);
    let result = scenario::run(spec, &cluster, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    if !args.out.json_on_stdout() {
        crate::cli::output::scenario::print(&result);
        if let Some(p) = &result.profile {
            crate::cli::output::profile::print(p, crate::cli::output::Detail::Full);
        }
    }
    ending::end(&args.out.json, &terminal, &result)
}
