//! Exit codes: what a script calling searchbench can rely on (the CLI exits with them; the
//! rounds of `ab` read them from the runs they start).

/// Everything worked and every check passed.
pub const OK: i32 = 0;
/// The work could not be done (engine would not start, target unreachable, I/O error).
pub const FAILURE: i32 = 1;
/// Bad usage or bad input (flags, specs, files).
pub const USAGE: i32 = 2;
/// The work was done but a check failed (counts do not reconcile, wrong answers).
pub const CHECK_FAILED: i32 = 3;
/// The work was done and kept, but a run could not be published to the team's results cluster
/// and `--publish-required` was given (the run stays pending in the store; the next publish
/// sends it). Without `--publish-required` the command's own code stands and its ending says
/// what was not published.
pub const NOT_PUBLISHED: i32 = 4;
/// Stopped by Ctrl-C / SIGINT (128 + 2, the shell's convention) or SIGTERM (asked to stop,
/// as Kubernetes, systemd and `docker stop` ask); the partial run is kept as
/// `interrupted`.
pub const INTERRUPTED: i32 = 130;
/// A check that cannot tell (`git bisect run`'s "cannot test this commit, skip it").
pub const CANNOT_TELL: i32 = 125;
