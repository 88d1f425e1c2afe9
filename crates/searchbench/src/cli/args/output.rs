//! Where results go: terminal, `--json`, the store.

use std::path::PathBuf;

use clap::Args;

use crate::cli::results::SaveArgs;
use crate::session::SaveSpec;

/// What a measuring command writes besides the terminal: the store, a JSON file, progress.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output and results")]
pub struct OutputArgs {
    /// Write the whole result (config, versions, machine, samples summary, timeline,
    /// attribution) as JSON to this file (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
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
        self.json.as_deref() == Some(std::path::Path::new("-"))
    }

    pub fn save_spec(&self) -> Result<SaveSpec, crate::cli::CliError> {
        self.save.spec()
    }
}
