//! The flags of the rounds of `ab` and `gate` (each side's arguments, the budget), turned into
//! what the rounds take; the rounds themselves are run below the CLI
//! ([`crate::session::rounds`]), their errors mapped to exit codes here.

use clap::Args;

use crate::cli::args::StoreArgs;
use crate::cli::CliError;
use crate::session::rounds::{self, sequential::Budget, Rounds};

#[derive(Debug, Args, Clone)]
/// The two sides' arguments.
pub struct SideArgs {
    /// The arguments side A adds to COMMAND, as one shell-quoted string.
    #[arg(
        long = "a",
        value_name = "ARGS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub a: String,
    /// The arguments side B adds to COMMAND, as one shell-quoted string.
    #[arg(
        long = "b",
        value_name = "ARGS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub b: String,
}

/// How long the rounds may go on before the verdict is "cannot tell".
#[derive(Debug, Args, Clone)]
pub struct BudgetArgs {
    /// The most rounds before the verdict is "cannot tell" (no verdict comes before the 4th or
    /// 5th: with the spread unknown, the first rounds cannot exclude anything).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub max_rounds: Option<u32>,
    /// No round starts that would end past this many minutes from the first (a round's time
    /// is the slowest so far).
    #[arg(long, value_name = "MINUTES", value_parser = parse_minutes)]
    pub max_minutes: Option<f64>,
    /// The chance of a false verdict (worse or better when nothing changed), held however
    /// many rounds are looked at.
    #[arg(long, default_value = "5%", value_parser = crate::cli::args::parse_alpha)]
    pub alpha: f64,
    /// The spread of a round's B/A ratio for this command (`calibrate`'s "paired rounds"
    /// spread), to say before the start how long a verdict should take; by default the last
    /// `ab` of the same command in the store says it.
    #[arg(long, value_name = "PCT", value_parser = crate::cli::args::parse_percent)]
    pub spread: Option<f64>,
}

fn parse_minutes(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 && m <= 7.0 * 24.0 * 60.0 => Ok(m),
        _ => Err(format!(
            "{s:?} is not a number of minutes (more than 0, at most a week's 10080)"
        )),
    }
}

impl BudgetArgs {
    /// The budget of a sequential verdict: `max_rounds` unless `--max-rounds` says, the
    /// minutes as given, `threshold_pct` (checked: under 100 %).
    pub fn budget(&self, max_rounds: u32, threshold_pct: f64) -> Result<Budget, CliError> {
        rounds::sequential::check_threshold(threshold_pct)?;
        Ok(Budget {
            max_rounds: self.max_rounds.unwrap_or(max_rounds),
            max_minutes: self.max_minutes,
            alpha: self.alpha,
            spread: self.spread,
            threshold_pct,
        })
    }
}

/// The rounds of `command`, the sides' arguments checked, progress said on stderr.
pub fn rounds(command: &[String], sides: &SideArgs, store: &StoreArgs) -> Result<Rounds, CliError> {
    let progress = crate::query::Progress::new(|line| errln!("{line}"));
    Ok(Rounds::new(
        command,
        [&sides.a, &sides.b],
        store.store.clone(),
        progress,
    )?)
}
