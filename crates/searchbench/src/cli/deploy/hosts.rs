//! `deploy ssh`: the commands that start the parts on hosts over ssh (or pdsh), printed.

use clap::Args;

use super::{deployment, usage, PartsArgs};
use crate::cli::CliResult;
use crate::deploy::{run_flags, ssh};

#[derive(Debug, Args)]
pub struct SshArgs {
    /// The hosts, one a part, in order: host I runs part I.
    #[arg(long, value_name = "HOST,...", value_delimiter = ',', required = true)]
    pub hosts: Vec<String>,
    /// The program on the hosts.
    #[arg(long, value_name = "PATH", default_value = "searchbench")]
    pub bin: String,
    #[command(flatten)]
    pub common: PartsArgs,
}

pub fn ssh_run(args: &SshArgs) -> CliResult {
    let parts = u32::try_from(args.hosts.len()).unwrap_or(u32::MAX);
    let d = deployment(&args.common, parts, "searchbench-files")?;
    let hosts = ssh::commands(&d, &args.hosts, &args.bin).map_err(|e| usage(e.to_string()))?;
    outln!(
        "# {} parts of group {}, starting at {}; each host needs {} on its PATH and the \
         cluster's password in its environment (SEARCHBENCH_PASSWORD) if it has one",
        d.parts,
        d.group,
        d.start_at,
        args.bin
    );
    if !d.files.is_empty() {
        outln!("# the run's files, to every host:");
        for h in &hosts {
            for f in &d.files {
                let remote = format!("searchbench-files/{}", f.path);
                let local = run_flags::local_path(&args.common.run, f);
                outln!("{}", ssh::copy_line(&h.host, &local, &remote));
            }
        }
    }
    outln!("# start every part (each waits for the start time):");
    for h in &hosts {
        outln!("{} &", h.run);
    }
    outln!("wait");
    outln!("# collect the stores, then merge:");
    for h in &hosts {
        outln!("{}", h.collect);
    }
    for h in &hosts {
        outln!("searchbench results import {}", ssh::quote(&h.store));
    }
    outln!(
        "searchbench results merge {} --url {}",
        d.group,
        ssh::quote(&run_flags::run_url(&args.common.run))
    );
    Ok(())
}
