//! `--profile` and `--profile-pid`: where the engine's CPU and allocations go during a load.

use clap::Args;

use crate::cli::CliError;
use crate::session::profile::ProfileSpec;
use crate::session::ClusterSpec;

#[derive(Debug, Clone, Default, Args)]
pub struct ProfileArgs {
    /// Profile the engine's nodes during the load with Java Flight Recorder: the share of
    /// CPU samples and of allocated bytes per category (JSON parsing, date parsing, Lucene
    /// indexing, merges, ...), the allocation rate and GC pauses. Kept with the run
    /// (`profile.cpu.*`, `profile.alloc.*` in compare and history), each node's recording
    /// under profiles/<run id>/ beside the store. With a track, each task is profiled on its
    /// own (`<task>.profile.*`). Needs the nodes on this machine.
    #[arg(long)]
    pub profile: bool,
    /// Profile this local Java process (repeatable): a node searchbench did not start, e.g.
    /// behind --url. Implies --profile.
    #[arg(long = "profile-pid", value_name = "PID")]
    pub pids: Vec<u32>,
}

impl ProfileArgs {
    /// The profile asked for; refused (bad usage) for a cluster given by URL without a local
    /// process named: Flight Recorder attaches to a JVM on this machine.
    pub fn spec(&self, cluster: &ClusterSpec) -> Result<Option<ProfileSpec>, CliError> {
        if !self.profile && self.pids.is_empty() {
            return Ok(None);
        }
        checked(&self.pids)?;
        let mut pids = self.pids.clone();
        if cluster.given.is_some() && pids.is_empty() {
            match cluster.engine_pid {
                Some(pid) => pids.push(pid),
                None => {
                    return Err(CliError::usage(anyhow::anyhow!(
                        "--profile records the engine's JVM with Java Flight Recorder, which \
                         attaches to a process on this machine; a cluster given by --url may \
                         not be one: name its node's local process with --profile-pid PID"
                    )))
                }
            }
        }
        Ok(Some(ProfileSpec { pids }))
    }
}

/// The engine profile of `--profile-pid` alone (`query`, whose `--profile` is the search
/// profile API's pass): these processes, or none.
pub fn of_pids(pids: &[u32]) -> Result<Option<ProfileSpec>, CliError> {
    checked(pids)?;
    Ok((!pids.is_empty()).then(|| ProfileSpec {
        pids: pids.to_vec(),
    }))
}

/// A process that is not a JVM with its JDK's tools, or that does not take an attach, is bad
/// input, said before anything runs (not a warning after the load).
fn checked(pids: &[u32]) -> Result<(), CliError> {
    for &pid in pids {
        crate::measure::profile::jfr::Node::of_pid(pid)
            .and_then(|node| node.probe())
            .map_err(|e| CliError::usage(anyhow::anyhow!("--profile-pid: {e}")))?;
    }
    Ok(())
}
