//! The exit codes: the contract a CI job obeys.
//!
//! `1` outranks `2` outranks `0`. `run`, `promote` and `list` are never
//! gates: 0 on success, 64/70 otherwise. Spec `00-product.md`.

/// Proceed: nothing got worse.
pub const OK: i32 = 0;
/// Stop and report: something got worse (or a canary moved).
pub const WORSE: i32 = 1;
/// Could not be judged: a case errored, so nothing downstream is meaningful.
pub const UNJUDGED: i32 = 2;
/// Refused: bad flags, bad suite or cases file, tenant mismatch, no
/// baseline, unreadable document. Never 2, which would read as a verdict.
pub const REFUSED: i32 = 64;
/// An internal failure nobody anticipated (a panic): a bug, not a verdict.
pub const INTERNAL: i32 = 70;
