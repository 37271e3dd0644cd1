//! digline: a regression gate for LLM applications.
//!
//! A team commits an approved reference (the baseline); on every pull
//! request digline asks the system under test again, grades each answer
//! with declared checks, compares with the baseline within declared
//! tolerances and exits with a contract code (0 fine, 1 worse, 2 could not
//! be judged, 64 refused, 70 bug).
//!
//! One crate, layered; arrows point down only:
//! `cli` → `host` → `run` → `client` → `report`/`wire` → `store` → `core`.
//! `tests/cli/layering.rs` enforces the direction.

#![warn(missing_docs)]
// Nothing prints by macro: the layers below the front ends hand notices to
// a sink the front end owns (`run::notice`), and the command line writes
// through `cli::output`, which knows what a closed pipe or a full disk
// means. `println!` would panic on either, and exit 70 would call it a bug.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cli;
pub mod client;
pub mod core;
pub mod forge;
pub mod host;
pub mod mcp;
pub mod report;
pub mod run;
pub mod store;
pub mod wire;
