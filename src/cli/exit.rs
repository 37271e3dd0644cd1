//! The exit codes: the contract a CI job obeys.
//!
//! One type, [`ExitStatus`] (defined in `core`, so that `--json`, the
//! gate's `outcome.json` and MCP's `exit_code` share it), returned by every
//! command; [`ExitStatus::code`] is the one mapping to the process code,
//! applied once, in [`super::main`]. `1` outranks `2` outranks `0`. `run`,
//! `promote` and `list` are never gates: 0 on success, 64/70 otherwise.
//! Spec `00-product.md`; `docs/exit-codes.md`.

pub use crate::core::exit::ExitStatus;
