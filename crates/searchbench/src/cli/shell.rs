//! Shell integration: `searchbench completions SHELL` and `searchbench man`, both generated
//! from the command-line definition itself, so they never drift from it.

use std::path::PathBuf;

use clap::{Args, CommandFactory};

use super::{CliError, CliResult};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench completions bash > ~/.local/share/bash-completion/completions/searchbench\n  \
    searchbench completions zsh > ~/.zfunc/_searchbench\n  \
    searchbench completions fish > ~/.config/fish/completions/searchbench.fish")]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench man > searchbench.1 && man ./searchbench.1\n  \
    searchbench man --dir /usr/local/share/man/man1")]
pub struct ManArgs {
    /// Write one page per command (searchbench.1, searchbench-run.1, …) into this folder
    /// instead of the main page to stdout.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(args: CompletionsArgs) -> CliResult {
    let mut cmd = super::Cli::command();
    // Into a buffer first: the generator panics on a write error such as a closed pipe.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "searchbench", &mut script);
    to_stdout(&script, "the completions")
}

/// Writes `bytes` to stdout; a closed pipe (`| head`) is a normal end, not an error.
fn to_stdout(bytes: &[u8], what: &str) -> CliResult {
    match std::io::Write::write_all(&mut std::io::stdout().lock(), bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::anyhow!("writing {what}: {e}").into())
        }
        _ => Ok(()),
    }
}

pub fn man(args: ManArgs) -> CliResult {
    let cmd = super::Cli::command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .map_err(|e| anyhow::anyhow!("writing man pages into {}: {e}", dir.display()))?;
            errln!("man pages written to {}", dir.display());
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut page)
                .map_err(|e| CliError::from(anyhow::anyhow!("rendering the man page: {e}")))?;
            to_stdout(&page, "the man page")?;
        }
    }
    Ok(())
}
