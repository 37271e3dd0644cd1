//! A check as declared and ready to judge: [`DeclaredCheck`] (the
//! reported name, threshold, tolerance, accepts and identity, with the
//! check's [`Grader`]), what a check sees of one answer ([`Inputs`]), and
//! the [`Grader`] trait every check file implements. Imports no check
//! file: the check files and the registry import this.

use std::fmt::Debug;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::kinds::OutputKind;
use crate::core::level::Level;
use crate::core::verdict::Verdict;

/// What a judge is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgeKind {
    /// A 0–1 score against a rubric (`llm_rubric`).
    Score,
    /// Claims counted against the context (`faithfulness`).
    Claims,
}

/// What a judged check asks its judge.
#[derive(Clone, Copy, Debug)]
pub struct Judged<'a> {
    /// A score against a rubric, or claims against the context.
    pub kind: JudgeKind,
    /// The rubric (`llm_rubric`).
    pub rubric: Option<&'a str>,
    /// The judge's `provider/model` coordinate.
    pub coordinate: &'a str,
}

/// A `repeated` check's wrapped check and how it folds.
#[derive(Clone, Copy, Debug)]
pub struct Repetition<'a> {
    /// The wrapped check.
    pub inner: &'a DeclaredCheck,
    /// How many times it grades (≥ 2).
    pub samples: u32,
    /// The share of gradings that must agree (0–1).
    pub min_agreement: f64,
}

/// A check's validated parameters, and how they judge one answer.
pub trait Grader: Debug + Send + Sync {
    /// Judge one answer for `check` (whose name, threshold, tolerance and
    /// accepts these parameters belong to). Never panics.
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict;

    /// What the judge is asked, for a judged check.
    fn judged(&self) -> Option<Judged<'_>> {
        None
    }

    /// The wrapped check, for `repeated`.
    fn repetition(&self) -> Option<Repetition<'_>> {
        None
    }
}

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
    pub fn repetition(&self) -> Option<Repetition<'_>> {
        self.grader.repetition()
    }
}
