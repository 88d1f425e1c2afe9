//! `-h` and `--help`: the short help shows the common flags, the long one every flag.

use super::Cli;

/// The flags `-h` shows: what people use on most runs. `--help` shows every flag, grouped.
const SHORT_HELP_FLAGS: [&str; 12] = [
    "engine",
    "urls",
    "url",
    "docs",
    "clients",
    "bulk_size",
    "index",
    "json",
    "tag",
    "store",
    "workload_file",
    "metric",
];

/// The command line as parsed: [`Cli`], with `-h` kept short (the flags of
/// [`SHORT_HELP_FLAGS`], the arguments, and a pointer to `--help`) on every command.
pub fn command() -> clap::Command {
    fn shorten(cmd: clap::Command) -> clap::Command {
        let hidden: Vec<String> = cmd
            .get_arguments()
            .filter(|a| !a.is_positional() && !SHORT_HELP_FLAGS.contains(&a.get_id().as_str()))
            .map(|a| a.get_id().to_string())
            .collect();
        let mut cmd = cmd;
        for id in &hidden {
            cmd = cmd.mut_arg(id.as_str(), |a| a.hide_short_help(true));
        }
        if !hidden.is_empty() {
            let before = cmd
                .get_after_help()
                .map(|h| format!("{h}\n\n"))
                .unwrap_or_default();
            let all = cmd.get_arguments().filter(|a| !a.is_positional()).count();
            cmd = cmd.after_help(format!(
                "{before}(-h shows the common flags; --help all {all} of them.)"
            ));
        }
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for name in names {
            cmd = cmd.mut_subcommand(name, shorten);
        }
        cmd
    }
    let root = <Cli as clap::CommandFactory>::command();
    let names: Vec<String> = root
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names
        .into_iter()
        .fold(root, |root, name| root.mut_subcommand(name, shorten))
}
