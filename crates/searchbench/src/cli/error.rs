//! The CLI's error: what went wrong and the exit code it maps to ([`crate::exit`]).

use crate::exit;

/// An error at the CLI edge, carrying the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub error: anyhow::Error,
}

impl CliError {
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: exit::USAGE,
            error: error.into(),
        }
    }
    /// A session's error: bad usage or input exits 2, an interruption 130, anything else 1.
    pub fn session(error: crate::session::SessionError) -> Self {
        CliError {
            code: session_code(&error),
            error: error.into(),
        }
    }
    pub fn check(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: exit::CHECK_FAILED,
            error: error.into(),
        }
    }
}

fn session_code(error: &crate::session::SessionError) -> i32 {
    match error {
        e if e.is_usage() => exit::USAGE,
        crate::session::SessionError::Interrupted(_) => exit::INTERRUPTED,
        _ => exit::FAILURE,
    }
}

/// Exit 1, except for a session's error that reaches here through `?`: it keeps the code
/// [`CliError::session`] gives it, so a command cannot exit 1 where another exits 2 (and the
/// rounds' errors theirs).
impl<E: Into<anyhow::Error>> From<E> for CliError {
    fn from(error: E) -> Self {
        let error = error.into();
        let rounds = || {
            error
                .downcast_ref::<crate::session::rounds::RoundsError>()
                .map(|e| e.code())
        };
        let code = error
            .downcast_ref::<crate::session::SessionError>()
            .map(session_code)
            .or_else(rounds)
            .unwrap_or(exit::FAILURE);
        CliError { code, error }
    }
}

pub type CliResult = Result<(), CliError>;
