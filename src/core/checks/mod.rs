//! Per-case checks: declarations and their pure evaluation.
//!
//! A check is declared in `suite.toml` as one `[[assertions]]` entry. The
//! loader (`host::suite`) hands the entry's keys to [`build`], which
//! validates them and returns a [`DeclaredCheck`]: the check's parameters
//! (its [`Grader`]), its reported name, threshold, tolerance, accepted
//! output kinds and its `assertion_id` (what a baseline pairs on, equal to
//! digline 0.10.0's). [`DeclaredCheck::evaluate`] is a pure function of the
//! case's [`Inputs`] → [`Verdict`]. No I/O here.
//!
//! **One file per check.** Each check file (`contains.rs`, `length.rs`,
//! `judged.rs` …) holds its catalogue row ([`catalogue::Kind`]: 0.10.0's
//! class and fields with defaults), its parameter validation, its identity
//! hooks and its judging (a [`Grader`]). [`registry::KINDS`] lists them
//! all; the registry and the judging code call through them and never
//! match on a check type. Adding a check is one new file and one line in
//! the registry. Files shared by several checks: `judge.rs` (the output
//! kind checks, outcome → verdict), `params.rs` (parameter readers),
//! `outcome.rs`, `error.rs`, `pattern.rs`/`search.rs` (Python regular
//! expressions under a budget), `core::python` (Python's JSON decoder, `repr` and `==`).
//!
//! Spec `20-checks.md`; design record ADR 0007 §1 (`shared/seeds/004_*`).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::level::Level;
use super::verdict::Verdict;

mod affix;
mod aggregates;
mod budget;
pub mod catalogue;
mod contains;
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
mod regex;
pub mod registry;
mod repeated;
pub mod search;
mod tools;

pub use catalogue::Grader;
pub use error::{BuildError, BuildErrorKind};
pub use kinds::{output_kind, LengthUnit, OutputKind};
pub use registry::{
    build, default_threshold, group_copy_payload, identity_payload, is_aggregate, is_built,
    per_case_types, per_run_types, rule_entry,
};

/// One `[[assertions]]` entry, validated and ready to evaluate.
#[derive(Clone, Debug)]
pub struct DeclaredCheck {
    /// The `type` token as written (`contains`, `affix`).
    pub token: String,
    /// The reported name (`contains`, `starts_with`, or the declared `name`).
    pub name: String,
    /// The parameters, and how they judge an answer.
    pub grader: Arc<dyn Grader>,
    /// 0–1; the score must reach it to pass.
    pub threshold: Level,
    /// ≥ 0; how far the score may move against the baseline before it counts.
    pub tolerance: Level,
    /// The output kinds this check judges; any other kind is an `error`.
    pub accepts: Vec<OutputKind>,
    /// 16 hex chars, equal to digline 0.10.0's for the same declaration.
    pub assertion_id: String,
    /// The value hashed into `assertion_id` (Python's identity payload), kept
    /// for tests and for `config_hash`.
    pub identity_payload: Value,
}

/// What a check sees of one answer to one case.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// The answer: a string (text), an object (structured) or an array (conversation).
    pub output: &'a Value,
    /// What the system under test was asked (the request body for HTTP targets).
    pub input: Option<&'a str>,
    /// The case's `expected`, if any.
    pub expected: Option<&'a Value>,
    /// The case's retrieval `context`.
    pub context: &'a [String],
    /// What the call cost, in USD, if the target reported it.
    pub cost_usd: Option<f64>,
    /// How long the call took, in milliseconds.
    pub latency_ms: Option<f64>,
    /// What the target reported beside the answer (`tools`, `tool_calls`).
    pub response_metadata: &'a Map<String, Value>,
}

impl DeclaredCheck {
    /// Judge one answer. Never panics; anything that prevents judging is an
    /// `error` verdict with a one-line cause.
    pub fn evaluate(&self, inputs: &Inputs) -> Verdict {
        self.grader.evaluate(self, inputs)
    }

    /// An `error` verdict for this check, e.g. when the target could not be
    /// called (marked `judged` for a judged check).
    pub fn errored(&self, reason: String) -> Verdict {
        let mut verdict = Verdict::errored(
            &self.name,
            &self.assertion_id,
            self.threshold,
            self.tolerance,
            reason,
            Map::new(),
        );
        if self.judge_coordinate().is_some() {
            verdict.judged = Some(true);
        }
        verdict
    }

    /// The wrapped check, how many times it grades and how it folds, for
    /// a `repeated` check.
    pub fn repetition(&self) -> Option<catalogue::Repetition<'_>> {
        self.grader.repetition()
    }
}
