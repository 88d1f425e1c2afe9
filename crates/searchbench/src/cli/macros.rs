//! The CLI's printing: every line it writes goes through `output::write_stdout` or
//! `output::write_stderr`.

/// `println!` for the CLI: a closed stdout (`searchbench check … | head -1`) drops the rest of
/// the output quietly and the command goes on to exit with its own code, so a verdict survives
/// the pipe (`set -o pipefail` then sees it). Any other write error fails as `println!` does.
macro_rules! outln {
    () => {
        $crate::cli::output::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `outln!` for prose: wrapped between words at the terminal's width (see
/// [`super::output::say`]).
macro_rules! sayln {
    ($($arg:tt)*) => {
        $crate::cli::output::say(format_args!($($arg)*))
    };
}

/// `print!` for the CLI; see [`outln`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*))
    };
}

/// `eprintln!` for the CLI: what it quotes (a track's names, a server's reasons, a store's
/// tags) reaches the terminal shown, never acted on (see [`super::output::write_stderr`]).
macro_rules! errln {
    () => {
        $crate::cli::output::write_stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` for the CLI; see [`errln`].
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stderr(format_args!($($arg)*))
    };
}
