//! `run --workload-file track.json`: a Rally track or an opensearch-benchmark workload run as
//! written: its challenge (test procedure) task by task, each a phase of the run, with what
//! does not run said before anything runs, one row per task at the end, kept in the store.

use std::path::Path;

use super::RunArgs;
use crate::cli::ending;
use crate::cli::output::{self, Terminal};
use crate::cli::{CliError, CliResult};
use crate::session::join::PartOf;
use crate::session::track_run::{self, TrackRunSpec};
use crate::tasks::plan;
use crate::tasks::synthesize::Synthesized;
use crate::workload::track::{read, runnable};

/// Flags of `run` a track sets for itself: given with a track, they are refused rather than
/// ignored.
fn refuse_flags(args: &RunArgs) -> Result<(), CliError> {
    let mut given = Vec::new();
    if args.index.is_some() {
        given.push("--index (the track names its indices)");
    }
    if args.search_clients.is_some() {
        given.push("--search-clients (the track's parallel blocks say what runs together)");
    }
    if args.no_query {
        given.push("--no-query (the track's challenge says what runs)");
    }
    if args.load.clients != 2 || args.load.bulk_size != 1000 {
        given.push("--clients/--bulk-size (each task of the track sets its own)");
    }
    if given.is_empty() {
        return Ok(());
    }
    Err(CliError::usage(anyhow::anyhow!(
        "with a track, these flags have no meaning: {}",
        given.join("; ")
    )))
}

pub async fn run_track(path: &Path, args: &RunArgs) -> CliResult {
    let usage = |e: String| CliError::usage(anyhow::anyhow!(e));
    refuse_flags(args)?;
    if let Some(f) = &args.load.failures {
        crate::ingest::failures::check_path(f).map_err(usage)?;
    }
    let params = args.track.params()?;
    let d = read(path, &params).map_err(|e| usage(e.to_string()))?;
    for warning in &d.warnings {
        errln!("warning: {warning}");
    }
    let procedure = runnable::procedure(&d, args.track.challenge.as_deref()).map_err(usage)?;
    // Ctrl-C is heard from here: making the Python environment or synthesizing a corpus may
    // take minutes.
    let begun = ending::listen();
    let mut terminal = Terminal::for_output(&args.out);
    terminal.detail = output::detail(args.verbose);
    // Each task's profile as it ends: the track's result keeps none, its record does.
    terminal.step_profiles = true;
    // The challenge as the track's own processors leave it, as the tool runs it.
    let loading = track_run::Loading {
        params: &params,
        test_mode: args.track.test_mode,
        interrupt: &begun.cancel,
    };
    let (processed, by_processors) = track_run::processed(&d, procedure, &loading, &terminal)
        .await
        .map_err(CliError::session)?
        .unwrap_or_else(|| (procedure.clone(), Vec::new()));
    let procedure = &processed;
    let mut spec = args.track.plan_spec()?;
    let planned = plan::plan(&d, procedure, &spec).map_err(|e| usage(e.to_string()))?;
    let (mut planned, synthesized) = if args.track.synthesize {
        synthesize(
            &d,
            procedure,
            &mut spec,
            planned,
            args.corpus.seed,
            &begun.cancel,
            args.out.quiet,
        )?
    } else {
        (planned, Vec::new())
    };
    if !planned.convert.is_empty() {
        planned = convert_hdf5(
            &d,
            procedure,
            &mut spec,
            planned,
            &begun.cancel,
            args.out.quiet,
        )
        .await?;
    }
    planned.not_run.extend(by_processors);
    let part = args.part.part.filter(|p| !p.is_whole()).map(|part| PartOf {
        part,
        group: args.part.group.clone().unwrap_or_default(),
        wait: crate::session::run::PARTS_WAIT,
    });
    if !planned.missing.is_empty() {
        return Err(usage(format!(
            "{}: documents are not here:\n  {}\n(`searchbench workload check {}` lists every \
             corpus file)",
            path.display(),
            planned.missing.join("\n  "),
            path.display()
        )));
    }
    let planned = match &part {
        Some(p) => {
            crate::tasks::part::for_part(planned, p.part).map_err(|e| usage(e.to_string()))?
        }
        None => planned,
    };
    output::byo::track_plan(path, procedure, &planned);
    if let Some(p) = &part {
        if !args.out.quiet {
            errln!(
                "part {} of group {}: part 1 runs the administrative tasks, every part its share \
                 of each task's clients (and of a bulk's documents); the parts wait for each \
                 other before each step",
                p.part,
                p.group
            );
        }
    }
    let mut cluster = args.cluster.spec()?;
    cluster.start.knn |= planned.searches_vectors();
    cluster.start.stop = begun.cancel.clone();
    // The first Ctrl-C stops the task running and keeps what ran; a second quits at once.
    begun.start_at(&args.part, args.out.quiet).await?;
    let interrupt = begun.cancel.clone();
    // A node we start is warmed with the track's first bulk task's documents.
    if let Some(make) = track_run::warm_load(&planned) {
        let cancel = interrupt.clone();
        cluster.warm = args.warm.spec(move |index, docs| {
            let (job, mut load) = make(index, docs)?;
            load.cancel = Some(cancel.clone());
            Ok((job, load))
        });
    }
    let profile = args.profile.spec(&cluster)?;
    let attach = args.out.attach(Some(&args.load.telemetry), profile)?;
    let spec = TrackRunSpec {
        params: &params,
        attach: &attach,
        interrupt,
        test_mode: args.track.test_mode,
        part,
        failures: args.load.failures.clone(),
        synthesized,
        freshness: args.load.freshness(),
    };
    let result = track_run::run(&d, procedure, planned, &cluster, &spec, &terminal)
        .await
        .map_err(CliError::session)?;
    // `--json -` keeps stdout for the JSON alone.
    if !args.out.json_on_stdout() {
        output::track::print(&result);
    }
    ending::end(&args.out.json, &terminal, &result)
}

/// The HDF5 data sets the tasks read, converted to bigann files (or found converted before, in
/// the cache), and the challenge planned again reading those.
async fn convert_hdf5(
    d: &crate::workload::track::Definition,
    procedure: &crate::workload::track::model::Procedure,
    spec: &mut plan::PlanSpec,
    planned: plan::Planned,
    cancel: &crate::cancel::Cancel,
    quiet: bool,
) -> Result<plan::Planned, CliError> {
    use crate::tasks::python::hdf5::{self, Hdf5Error};
    let say = |m: String| {
        if !quiet {
            errln!("{m}");
        }
    };
    spec.converted = hdf5::convert(&planned.convert, cancel, &say)
        .await
        .map_err(|e| match e {
            Hdf5Error::Interrupted(file) => ending::interrupted(&format!(
                "nothing was run; {file} was not converted and nothing of it is kept"
            )),
            e @ Hdf5Error::Failed(_) => CliError::usage(anyhow::anyhow!("{e}")),
        })?;
    let planned = plan::plan(d, procedure, spec)
        .map_err(|e| CliError::usage(anyhow::anyhow!(e.to_string())))?;
    match planned.convert.first() {
        None => Ok(planned),
        Some(left) => Err(CliError::usage(anyhow::anyhow!(
            "{} ({}): not converted",
            left.shown,
            left.dataset
        ))),
    }
}

/// `--synthesize`: each corpus file the bulks need that is not here is made (or found made
/// before), with a progress bar and a line each; the challenge is then planned again with
/// them standing in. What was made is what the run keeps of it.
fn synthesize(
    d: &crate::workload::track::Definition,
    procedure: &crate::workload::track::model::Procedure,
    spec: &mut plan::PlanSpec,
    planned: plan::Planned,
    seed: u64,
    cancel: &crate::cancel::Cancel,
    quiet: bool,
) -> Result<(plan::Planned, Vec<Synthesized>), CliError> {
    use crate::tasks::synthesize::{self as synth, Made, SynthError};
    use std::io::IsTerminal;
    if planned.absent.is_empty() {
        return Ok((planned, Vec::new()));
    }
    let cache = crate::engine::paths::cache_root();
    let wanted = synth::wanted(d, spec, &planned.absent, seed, &cache)
        .map_err(|e| CliError::usage(anyhow::anyhow!("--synthesize: {e}")))?;
    for w in &wanted {
        let bar = if !quiet && std::io::stderr().is_terminal() && w.documents >= 100_000 {
            let bar = indicatif::ProgressBar::new(w.documents);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{spinner} synthesizing {msg} {wide_bar} {human_pos}/{human_len} docs eta {eta}",
            ) {
                bar.set_style(style);
            }
            bar.set_message(w.file.clone());
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        let began = std::time::Instant::now();
        let made = synth::make(w, cancel, &|n| bar.set_position(n));
        bar.finish_and_clear();
        let made = match made {
            Ok(made) => made,
            Err(SynthError::Interrupted(file)) => {
                return Err(ending::interrupted(&format!(
                    "nothing was run; {file} was not finished and is not kept"
                )))
            }
            Err(e @ SynthError::Invalid(_)) => {
                return Err(CliError::usage(anyhow::anyhow!("--synthesize: {e}")))
            }
            Err(e @ SynthError::Io { .. }) => {
                return Err(anyhow::anyhow!("--synthesize: {e}").into())
            }
        };
        if !quiet {
            let how = match made {
                Made::Written => format!("made in {:.1} s", began.elapsed().as_secs_f64()),
                Made::Reused => "made before, reused".to_string(),
            };
            errln!(
                "synthesized corpus {} file {}: {} documents from {} ({how}): {}",
                w.corpus,
                w.file,
                w.documents,
                w.about(),
                w.path.display()
            );
        }
    }
    spec.stand_ins = wanted.iter().map(synth::Wanted::stand_in).collect();
    let planned = plan::plan(d, procedure, spec)
        .map_err(|e| CliError::usage(anyhow::anyhow!(e.to_string())))?;
    Ok((planned, wanted.iter().map(synth::Wanted::record).collect()))
}
