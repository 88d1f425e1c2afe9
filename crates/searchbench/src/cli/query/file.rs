//! `searchbench query --queries FILE --index NAME`: the user's named queries, measured with
//! the query method and checked against their expected answers.

use super::{cold, finish, method, transports, QueryArgs};
use crate::cli::ending::Begun;
use crate::cli::output::Terminal;
use crate::cli::{CliError, CliResult};
use crate::session::user_queries::{query_file, FileQuerySpec};

pub async fn run(args: QueryArgs, begun: &Begun) -> CliResult {
    let cancel = begun.cancel.clone();
    let Some(file) = args.queries.clone() else {
        return Err(CliError::usage(anyhow::anyhow!("--queries FILE is needed")));
    };
    let Some(index) = args.index.clone() else {
        return Err(CliError::usage(anyhow::anyhow!(
            "--queries needs --index: the index the queries run on"
        )));
    };
    let target = args.target.connect()?;
    let mut options = method(&args, &index, cancel.clone());
    options.cold = cold(&args, &index, &target)?;
    args.part.apply_query(&mut options, false, args.quiet)?;
    options.transports = match &args.transports {
        Some(list) => transports(list)?,
        None => Vec::new(),
    };
    let spec = FileQuerySpec {
        file,
        options,
        only: args.variants.clone().unwrap_or_default(),
        rtt: args.network.rtt()?,
    };
    let attach = args.save.attach(
        Some(&args.telemetry),
        crate::cli::args::profile::of_pids(&args.profile_pids)?,
    )?;
    begun.start_at(&args.part, args.quiet).await?;
    let terminal = Terminal::new(args.quiet);
    let result = query_file(spec, target, &args.target.urls, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    finish(&result, &args, &terminal)
}
