//! `run`: the driver — asks the target for every case, grades the answers
//! and assembles the run document.
//!
//! May import `target`, `report`, `wire`, `store`, `core`; reads no clock
//! or environment (the caller passes `created_at`, the commit and the
//! version). Spec `25-targets.md` (the driver).

pub mod driver;
pub mod plan;

pub use driver::{execute, Ask, RunContext, RunError};
pub use plan::Plan;
