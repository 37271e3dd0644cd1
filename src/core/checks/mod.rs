//! Per-case checks: declarations and their pure evaluation.
//!
//! A check is declared in `suite.toml` as one `[[assertions]]` entry. The
//! loader (`host::suite`) hands the entry's keys to [`build`], which
//! validates them and returns a [`DeclaredCheck`]: the check's parameters,
//! its reported name, threshold, tolerance, accepted output kinds and its
//! `assertion_id` (what a baseline pairs on, equal to digline 0.10.0's).
//! [`DeclaredCheck::evaluate`] is a pure function of the case's
//! [`Inputs`] → [`Verdict`]. No I/O here.
//!
//! Spec `20-checks.md`; design record ADR 0007 §1 (`shared/seeds/004_*`).

use serde_json::{Map, Number, Value};

use super::level::Level;
use super::verdict::Verdict;

mod affix;
mod budget;
pub mod build;
mod equals;
mod eval;
pub mod is_json;
pub mod json_schema;
pub mod judged;
mod kinds;
mod length;
mod levenshtein;
mod outcome;
pub mod pattern;
pub mod pii;
pub mod pydecode;
mod regex;
pub mod search;
mod text;
mod tools;

pub use build::{build, BuildError, BuildErrorKind};
pub use kinds::{output_kind, LengthUnit, OutputKind};

/// A check's parameters, one variant per check type.
///
/// Numbers keep the integer/float distinction of the suite file
/// ([`Number`]): `max_ms = 800` and `max_ms = 800.0` are different
/// identities in digline 0.10.0 and are written back as declared.
#[derive(Clone, Debug)]
pub enum Check {
    /// Pass iff `needle` occurs in the text output.
    Contains {
        /// Non-empty substring.
        needle: String,
        /// `false` compares Unicode-casefolded text.
        case_sensitive: bool,
    },
    /// Pass iff `needle` does not occur in the text output.
    NotContains {
        /// Non-empty substring.
        needle: String,
        /// `false` compares Unicode-casefolded text.
        case_sensitive: bool,
    },
    /// Pass iff `pattern` matches somewhere in the text output (unanchored search).
    Regex {
        /// The pattern as declared (quoted in reasons).
        pattern: String,
        /// The compiled pattern.
        compiled: fancy_regex::Regex,
    },
    /// Pass iff the length is within the declared bounds.
    Length {
        /// Inclusive lower bound, if declared.
        minimum: Option<Number>,
        /// Inclusive upper bound, if declared.
        maximum: Option<Number>,
        /// What is counted.
        unit: LengthUnit,
    },
    /// Graded score `cap / (cap + cost)`: exactly 0.5 at the cap (USD).
    CostBudget {
        /// The cap in USD, > 0.
        max_usd: Number,
    },
    /// Graded score `cap / (cap + latency)`: exactly 0.5 at the cap (ms).
    LatencyBudget {
        /// The cap in milliseconds, > 0.
        max_ms: Number,
    },
    /// A judge scores the output 0–1 against `rubric` (see [`judged`]).
    LlmRubric {
        /// What a good output is, in words (non-empty).
        rubric: String,
        /// The judge's `provider/model` coordinate.
        judge: String,
    },
    /// A judge counts the output's claims the case's context supports;
    /// score = supported / total (see [`judged`]).
    Faithfulness {
        /// The judge's `provider/model` coordinate.
        judge: String,
    },
    /// Pass iff the output equals the case's `expected` (Python `==` on
    /// structured values); no `expected` is an error.
    Equals,
    /// Pass iff the text output starts (or ends) with `affix`; reported as
    /// `starts_with` / `ends_with`.
    Affix {
        /// Non-empty prefix or suffix.
        affix: String,
        /// `at = "end"`: a suffix; otherwise a prefix.
        at_end: bool,
        /// `false` compares Unicode-casefolded text.
        case_sensitive: bool,
    },
    /// Pass iff the text output decodes as JSON (Python's decoder) with the
    /// required top level; undecodable is a fail.
    IsJson {
        /// What the top level must be.
        top_level: is_json::TopLevel,
    },
    /// Pass iff the output (text decoded as JSON, or structured) conforms
    /// to a Draft 2020-12 schema; undecodable text is an error.
    JsonSchema {
        /// The schema, checked at load, and its validator.
        schema: json_schema::CompiledSchema,
    },
    /// Similarity 1 − distance / max length (code points) to a string
    /// `expected`.
    Levenshtein,
    /// Pass iff no shipped PII pattern finds a (checksum-verified) identifier.
    PiiAbsent,
    /// Pass iff the tools the target reported equal `expected`, in order.
    ToolsCalled {
        /// Tool names, in the order they must be called.
        expected: Vec<String>,
    },
    /// `repeated`: the inner check graded `samples` times on the same answer,
    /// the verdicts folded as sampled verdicts are (`core::sampling`).
    Repeated {
        /// The wrapped check (its threshold, tolerance and accepts are the Repeated's).
        inner: Box<DeclaredCheck>,
        /// How many times it grades (≥ 2).
        samples: u32,
        /// The share of gradings that must agree (0–1, reachable as k/samples).
        min_agreement: f64,
    },
}

/// One `[[assertions]]` entry, validated and ready to evaluate.
#[derive(Clone, Debug)]
pub struct DeclaredCheck {
    /// The `type` token as written (`contains`, `affix`).
    pub token: String,
    /// The reported name (`contains`, `starts_with`, or the declared `name`).
    pub name: String,
    /// The parameters.
    pub check: Check,
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
        eval::evaluate(self, inputs)
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
}
