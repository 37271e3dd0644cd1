//! What one check decided about one answer, before it becomes a verdict.
//!
//! Every check file's judging makes an [`Outcome`]; `judge::verdict` turns
//! it into a [`crate::core::verdict::Verdict`] with the declared threshold
//! and tolerance. Kept in its own module so the check files import this
//! small type and nothing that lists them: no import cycle.

use serde_json::{Map, Value};

/// What one check decided about one answer, before it becomes a verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The check judged: a 0–1 score, why, and measured facts.
    Scored {
        /// 0–1 (rounded to 6 decimals when the verdict is built).
        score: f64,
        /// Why; may quote declared parameters, never the answer.
        reason: String,
        /// Measured facts (lengths, costs); never the answer.
        metadata: Map<String, Value>,
    },
    /// The check could not judge, for this one-line reason.
    Errored(String),
}

impl Outcome {
    /// A binary outcome: score 1.0 when `passed`, else 0.0, no metadata.
    pub fn binary(passed: bool, reason: String) -> Outcome {
        Outcome::Scored {
            score: if passed { 1.0 } else { 0.0 },
            reason,
            metadata: Map::new(),
        }
    }

    /// The score, reason and metadata of a scored outcome, for the tests;
    /// panics naming `what` when the check errored.
    #[cfg(test)]
    pub fn expect_scored(self, what: &str) -> (f64, String, Map<String, Value>) {
        match self {
            Outcome::Scored {
                score,
                reason,
                metadata,
            } => (score, reason, metadata),
            Outcome::Errored(_) => panic!("{what}: errored"),
        }
    }
}
