//! Per-case checks: declarations and their pure evaluation.
//!
//! A check is declared in `suite.toml` as one `[[assertions]]` entry. The
//! loader (`host::suite`) hands the entry's keys to [`build`], which
//! validates them and returns a [`DeclaredCheck`]: the check's parameters
//! (its [`Grader`]), its reported name, threshold, tolerance, accepted
//! output kinds and its `assertion_id` (what a baseline pairs on, equal to
//! digline 0.10.0's). [`DeclaredCheck::evaluate`] is a pure function of the
//! case's [`Inputs`] → [`crate::core::verdict::Verdict`]. No I/O here.
//!
//! **One file per check.** Each check file (`contains.rs`, `length.rs`,
//! `judged.rs` …) holds its catalogue row ([`catalogue::Kind`]: 0.10.0's
//! class and fields with defaults), its parameter validation, its identity
//! hooks and its judging (a [`Grader`]). [`registry::KINDS`] lists them
//! all; the registry and the judging code call through them and never
//! match on a check type. Adding a check is one new file and one line in
//! the registry.
//!
//! **No loops.** `declared.rs` holds [`DeclaredCheck`], [`Inputs`] and the
//! [`Grader`] trait and imports no check file, so no check file imports
//! anything that lists it back. The one remaining loop is `repeated` ↔
//! `registry`: the recursion of a check that wraps any other.
//!
//! Files shared by several checks: `judge.rs` (the output kind checks,
//! outcome → verdict), `params.rs` (parameter readers), `outcome.rs`,
//! `error.rs`, `pattern.rs`/`search.rs` (Python regular expressions under
//! a budget); Python's JSON decoder, `repr` and `==` are in `core::python`.
//!
//! Spec `20-checks.md`; design record ADR 0007 §1 (`shared/seeds/004_*`).

mod affix;
mod aggregates;
mod budget;
pub mod catalogue;
mod contains;
mod declared;
mod equals;
mod error;
pub mod is_json;
pub mod json_schema;
mod judge;
pub mod judged;
mod kinds;
mod length;
mod levenshtein;
mod outcome;
mod params;
pub mod pattern;
pub mod pii;
mod property_names;
mod regex;
pub mod registry;
mod repeated;
pub mod search;
mod tools;

pub use declared::{DeclaredCheck, Grader, Inputs};
pub(crate) use error::Problems;
pub use error::{BuildError, BuildErrorKind};
pub use kinds::{output_kind, LengthUnit, OutputKind};
pub use registry::{
    build, default_threshold, group_copy_payload, identity_payload, is_aggregate, is_built,
    per_case_types, per_run_types, rule_entry,
};
