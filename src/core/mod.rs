//! `core`: checks, comparison, identity and the document model — pure.
//!
//! Owns everything digline decides: how an answer is graded, how two runs
//! pair and compare, how a declaration is identified. Imports nothing else
//! of the crate and does no I/O (no files, clock, network or environment);
//! a test (`tests/cli/layering.rs`) enforces it.

pub mod aggregate;
pub mod checks;
pub mod compare;
pub mod diff;
pub mod document;
pub mod evaluation;
pub mod exit;
pub mod failed_calls;
pub mod history;
pub mod identity;
pub mod level;
pub mod masked;
pub mod memo;
pub mod name;
pub mod python;
pub mod ratio;
pub mod sampling;
pub mod seal;
pub mod shard;
pub mod spend;
pub mod stats;
pub mod strict_json;
pub mod suite;
pub mod verdict;
pub mod version;
