//! Where results go: terminal, `--json`, the store.

use std::path::{Path, PathBuf};

use clap::Args;

use super::SaveArgs;
use crate::session::SaveSpec;

/// What a measuring command writes besides the terminal: the store, a JSON file, progress.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output and results")]
pub struct OutputArgs {
    #[command(flatten)]
    pub json: JsonArgs,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub save: SaveArgs,
}

impl OutputArgs {
    /// Whether to draw progress: not with --quiet, and only on a terminal.
    pub fn progress(&self) -> bool {
        !self.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
    }

    /// The JSON goes to stdout, so the terminal report does not.
    pub fn json_on_stdout(&self) -> bool {
        self.json.on_stdout()
    }

    pub fn save_spec(&self) -> Result<SaveSpec, crate::cli::CliError> {
        self.save.spec()
    }

    /// What the flags attach to every run of the command (see [`SaveArgs::attach`]).
    pub fn attach(
        &self,
        telemetry: Option<&super::TelemetryArgs>,
        profile: Option<crate::session::profile::ProfileSpec>,
    ) -> Result<crate::session::Attach, crate::cli::CliError> {
        self.save.attach(telemetry, profile)
    }

    /// Writes `result` as JSON where --json (stdout) or --export-json FILE says.
    pub fn write_json<T: serde::Serialize>(&self, result: &T) -> crate::cli::CliResult {
        Ok(crate::cli::output::json_to(result, self.json.target())?)
    }
}

/// `--json` and `--export-json FILE`: the one meaning both flags have on every command.
/// `--json` prints the JSON on stdout instead of the tables (a switch everywhere);
/// `--export-json FILE` writes it to FILE and keeps the report on the terminal. The old
/// `--json FILE` and `--json -` still work (see `cli::args::legacy`).
#[derive(Debug, Clone, Default, Args)]
pub struct JsonArgs {
    /// Print the whole result (config, versions, machine, samples summary, timeline,
    /// attribution) as JSON on stdout instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Write the whole result as JSON to FILE and show the report as usual (`-`: stdout, as
    /// --json).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
}

impl JsonArgs {
    /// Where the JSON goes: `-` for stdout, a file, or nowhere.
    pub fn target(&self) -> Option<&Path> {
        if self.json {
            Some(Path::new("-"))
        } else {
            self.export_json.as_deref()
        }
    }

    pub fn on_stdout(&self) -> bool {
        self.target() == Some(Path::new("-"))
    }
}
