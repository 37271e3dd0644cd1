//! `cli`: the command-line front end — clap definitions, printing, exit codes.
//!
//! (Skeleton.)

/// Run the command line and return the process exit code.
pub fn main() -> i32 {
    0
}
