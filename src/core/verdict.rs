//! The verdict: what one check decided about one case (or one run).
//!
//! Three states only (`pass`, `fail`, `error`); an error means *could not
//! judge* and is never a fail. A verdict is stored with its score,
//! threshold and tolerance rounded to 6 decimals, and passes iff
//! `round6(score) >= round6(threshold)`. Design record: ADR 0006 as carried
//! by ADR 0014 (`shared/seeds/001_*`); spec `20-checks.md`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::level::Level;
use super::python::dumps::round6;

/// The three states of a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The score met the threshold.
    Pass,
    /// The score fell short of the threshold.
    Fail,
    /// The check could not judge (no score).
    Error,
}

impl Status {
    /// The lowercase word written in documents (`pass`, `fail`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// `meets(v, limit)`: `round6(v) >= round6(limit)` (a score meets its threshold).
pub fn meets(value: f64, limit: f64) -> bool {
    round6(value) >= round6(limit)
}

/// `within(v, limit)`: `round6(v) <= round6(limit)` (a measurement stays under a cap).
pub fn within(value: f64, limit: f64) -> bool {
    round6(value) <= round6(limit)
}

/// One verdict as a schema-10 document stores it (`results[].verdicts[]`
/// and `aggregate[]`).
///
/// `score` is a 0–1 value, `None` iff `status` is `error`. `reason` is
/// payload: it may quote parameters but never the output, and it never
/// leaves the document (no comment, JSON or log carries it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// The check's reported name (`contains`, `starts_with`, `precision[group=a]`).
    pub assertion: String,
    /// 16 hex chars identifying the check's declaration: what baselines pair on.
    pub assertion_id: String,
    /// Measured facts (lengths, counts, sampled scores); never the output.
    #[serde(deserialize_with = "crate::core::strict_json::deserialize_object")]
    pub metadata: Map<String, Value>,
    /// Why the check decided as it did; payload.
    pub reason: String,
    /// 0–1, rounded to 6 decimals; `None` iff the check errored.
    pub score: Option<f64>,
    /// pass, fail or error.
    pub status: Status,
    /// 0–1, rounded to 6 decimals; an integer when declared as one.
    pub threshold: Level,
    /// ≥ 0, rounded to 6 decimals: how far the score may move before it
    /// counts; an integer when declared as one.
    pub tolerance: Level,
    /// The per-sample scores when the check was sampled (suite `samples` > 1).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub samples: Option<Vec<f64>>,
    /// The lowest sampled score: the bottom of the measured noise interval.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_min: Option<f64>,
    /// The highest sampled score: the top of the measured noise interval.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_max: Option<f64>,
    /// Set to `true` when the samples were themselves folds (`repeated` under suite samples).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_means: Option<bool>,
    /// Set to `true` on verdicts of judged checks (`llm_rubric`, `faithfulness`).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub judged: Option<bool>,
}

impl Verdict {
    /// A judged verdict: the status follows from `score` and `threshold`.
    /// All three numbers are rounded to 6 decimals.
    pub fn scored(
        name: &str,
        assertion_id: &str,
        score: f64,
        threshold: impl Into<Level>,
        tolerance: impl Into<Level>,
        reason: String,
        metadata: Map<String, Value>,
    ) -> Verdict {
        let (threshold, tolerance) = (threshold.into(), tolerance.into());
        let score = round6(score);
        let status = if meets(score, *threshold) {
            Status::Pass
        } else {
            Status::Fail
        };
        Verdict {
            assertion: name.to_string(),
            assertion_id: assertion_id.to_string(),
            metadata,
            reason,
            score: Some(score),
            status,
            threshold,
            tolerance,
            samples: None,
            sample_min: None,
            sample_max: None,
            sample_means: None,
            judged: None,
        }
    }

    /// An `error` verdict: the check could not judge, for `reason`.
    pub fn errored(
        name: &str,
        assertion_id: &str,
        threshold: impl Into<Level>,
        tolerance: impl Into<Level>,
        reason: String,
        metadata: Map<String, Value>,
    ) -> Verdict {
        let (threshold, tolerance) = (threshold.into(), tolerance.into());
        Verdict {
            assertion: name.to_string(),
            assertion_id: assertion_id.to_string(),
            metadata,
            reason,
            score: None,
            status: Status::Error,
            threshold,
            tolerance,
            samples: None,
            sample_min: None,
            sample_max: None,
            sample_means: None,
            judged: None,
        }
    }

    /// The verdict as a document stores it: every float in `metadata`
    /// (recursively; integers untouched) rounded to 6 decimals, as digline
    /// 0.10.0 writes measured values (`cost_usd` 0.6666666666666666 → 0.666667).
    pub fn at_storage_precision(mut self) -> Verdict {
        for value in self.metadata.values_mut() {
            round_floats(value);
        }
        self
    }

    /// True when status and score agree (`error` ⇔ no score; otherwise the
    /// status is what `meets(score, threshold)` says). A contradictory
    /// verdict is a bug or a tampered document.
    pub fn is_consistent(&self) -> bool {
        match (self.status, self.score) {
            (Status::Error, None) => true,
            (Status::Error, Some(_)) | (_, None) => false,
            (status, Some(score)) => {
                (0.0..=1.0).contains(&score)
                    && (status == Status::Pass) == meets(score, *self.threshold)
            }
        }
    }
}

/// Round every float inside `value` to 6 decimals, leaving integers as integers.
pub fn round_floats(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n
                .as_f64()
                .and_then(|x| serde_json::Number::from_f64(round6(x)))
            {
                *n = x;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(round_floats),
        Value::Object(map) => map.values_mut().for_each(round_floats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_rounded_score() {
        let v = Verdict::scored("x", "id", 0.8999996, 0.9, 0.0, "r".into(), Map::new());
        assert_eq!(v.status, Status::Pass);
        assert_eq!(v.score, Some(0.9));
        let v = Verdict::scored("x", "id", 0.899999, 0.9, 0.0, "r".into(), Map::new());
        assert_eq!(v.status, Status::Fail);
        assert!(v.is_consistent());
    }

    #[test]
    fn storage_precision_rounds_floats_only() {
        let mut metadata = Map::new();
        metadata.insert("ratio".into(), serde_json::json!(0.013333333333333334));
        metadata.insert("length".into(), serde_json::json!(46));
        metadata.insert(
            "nested".into(),
            serde_json::json!({"x": [2.0 / 3.0, 1e-05]}),
        );
        let v =
            Verdict::scored("x", "id", 1.0, 1.0, 0.0, "r".into(), metadata).at_storage_precision();
        assert_eq!(
            crate::core::python::dumps::dumps_canonical(&Value::Object(v.metadata)),
            r#"{"length":46,"nested":{"x":[0.666667,1e-05]},"ratio":0.013333}"#
        );
    }

    #[test]
    fn contradictions_are_detected() {
        let mut v = Verdict::scored("x", "id", 1.0, 1.0, 0.0, "r".into(), Map::new());
        v.status = Status::Fail;
        assert!(!v.is_consistent());
        v.status = Status::Error;
        assert!(!v.is_consistent());
        let e = Verdict::errored("x", "id", 1.0, 0.0, "r".into(), Map::new());
        assert!(e.is_consistent());
    }
}
