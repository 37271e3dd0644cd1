//! `cost_budget` and `latency_budget`: graded scores for what a call cost.
//!
//! The score is `cap / (cap + measured)`: 1.0 for a free (or instant) call,
//! exactly 0.5 at the cap, and never 0 however far over. It is stored
//! rounded to 6 decimals and then made to agree with the plain question
//! "is the measurement within the cap?" (`within`, also at 6 decimals):
//! within the cap the score is at least the threshold, over the cap it is
//! at most one storage step (1e-6) below it. So a budget passes iff the
//! measurement is within the cap, whatever threshold was declared.
//!
//! A missing measurement is an `error` (an unverifiable budget is not a
//! budget met), and so is a negative one. Non-finite measurements are an
//! `error` here too: digline 0.10.0 scores an infinite cost 0.0, but a run
//! document cannot carry `inf` in its metadata.

use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::catalogue::{
    derive_nothing, field, no_walls, Build, Def, Grader, Kind, Params, ALL_KINDS,
};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::verdict;
use super::outcome::Outcome;
use super::params;
use crate::core::python::dumps::{float_repr, round6};
use crate::core::verdict::within;
use crate::core::verdict::Verdict;

/// One storage step: the smallest difference a stored score can show.
const STORAGE_STEP: f64 = 1e-6;

/// Which budget is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// USD per call (`cost_usd` against `max_usd`), shown with 6 decimals.
    Cost,
    /// Milliseconds per call (`latency_ms` against `max_ms`), shown with 3 decimals.
    Latency,
}

impl Budget {
    /// (measurement key, cap key, unit word, decimals in reasons).
    fn words(self) -> (&'static str, &'static str, &'static str, usize) {
        match self {
            Budget::Cost => ("cost_usd", "max_usd", "USD", 6),
            Budget::Latency => ("latency_ms", "max_ms", "ms", 3),
        }
    }
}

/// `cap / (cap + measured)`: the unrounded budget score, in [0, 1] for a
/// positive cap and a measurement ≥ 0.
pub(super) fn budget_score(cap: f64, measured: f64) -> f64 {
    cap / (cap + measured)
}

/// The stored score: `round6(budget_score)`, clamped to agree with
/// `within(measured, cap)` given the (0–1) `threshold`.
pub(super) fn clamped_score(cap: f64, measured: f64, threshold: f64) -> f64 {
    let score = round6(budget_score(cap, measured));
    let threshold = round6(threshold);
    if within(measured, cap) {
        score.max(threshold)
    } else {
        score.min((threshold - STORAGE_STEP).max(0.0))
    }
}

/// Judge one measurement (`None` when the target did not report it)
/// against a declared cap (> 0, kept as declared for the metadata).
///
/// Metadata: the measurement (float), the cap as declared, `ratio` =
/// measured / cap (float; the document stores it at 6 decimals). Reasons: `<measured> USD against a <cap> cap
/// (within budget)` with 6 decimals for cost, `… ms …` with 3 decimals for
/// latency, `over budget` past the cap. Errors: `<key> is missing: an
/// unverifiable budget is not a budget met`, `<key> is negative: <value>`,
/// `<key> is not a finite number`.
pub(super) fn judge(
    budget: Budget,
    cap: &Number,
    measured: Option<f64>,
    threshold: f64,
) -> Outcome {
    let (key, cap_key, unit, decimals) = budget.words();
    let Some(measured) = measured else {
        return Outcome::Errored(format!(
            "{key} is missing: an unverifiable budget is not a budget met"
        ));
    };
    if !measured.is_finite() {
        return Outcome::Errored(format!("{key} is not a finite number"));
    }
    if measured < 0.0 {
        return Outcome::Errored(format!("{key} is negative: {}", float_repr(measured)));
    }
    let Some(cap_value) = cap.as_f64().filter(|c| c.is_finite() && *c > 0.0) else {
        return Outcome::Errored(format!("{cap_key} must be a positive number, got {cap}"));
    };
    let verdict = if within(measured, cap_value) {
        "within budget"
    } else {
        "over budget"
    };
    let mut metadata = Map::new();
    metadata.insert(key.to_string(), float_value(measured));
    metadata.insert(cap_key.to_string(), Value::Number(cap.clone()));
    metadata.insert("ratio".to_string(), float_value(measured / cap_value));
    Outcome::Scored {
        score: clamped_score(cap_value, measured, threshold),
        reason: format!(
            "{measured:.decimals$} {unit} against a {cap_value:.decimals$} cap ({verdict})"
        ),
        metadata,
    }
}

/// A finite float as a JSON float (`null` if it is not finite, which the
/// callers rule out beforehand).
fn float_value(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The catalogue row of `cost_budget`.
pub const COST: Kind = Kind {
    token: "cost_budget",
    class: "CostBudget",
    per_run: false,
    fields: &[
        field("max_usd", Def::Mandatory),
        field("tolerance", Def::Mandatory),
        field("name", Def::Str("cost_budget")),
        field("threshold", Def::Float(0.5)),
        field("accepts", Def::Kinds(ALL_KINDS)),
    ],
    walls: no_walls,
    derive: derive_nothing,
    build: Build::Grader(|p| build(p, Budget::Cost)),
};
/// The catalogue row of `latency_budget`.
pub const LATENCY: Kind = Kind {
    token: "latency_budget",
    class: "LatencyBudget",
    per_run: false,
    fields: &[
        field("max_ms", Def::Mandatory),
        field("tolerance", Def::Mandatory),
        field("name", Def::Str("latency_budget")),
        field("threshold", Def::Float(0.5)),
        field("accepts", Def::Kinds(ALL_KINDS)),
    ],
    walls: no_walls,
    derive: derive_nothing,
    build: Build::Grader(|p| build(p, Budget::Latency)),
};

/// `cost_budget` or `latency_budget` parameters.
#[derive(Clone, Debug)]
pub struct Cap {
    /// Which budget.
    pub budget: Budget,
    /// The cap (USD or ms), > 0, kept as declared.
    pub cap: Number,
}

fn build(params: &Params, budget: Budget) -> Result<Arc<dyn Grader>, BuildError> {
    let (token, key) = match budget {
        Budget::Cost => ("cost_budget", "max_usd"),
        Budget::Latency => ("latency_budget", "max_ms"),
    };
    Ok(Arc::new(Cap {
        budget,
        cap: params::positive(token, params, key)?,
    }))
}

impl Grader for Cap {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let measured = match self.budget {
            Budget::Cost => inputs.cost_usd,
            Budget::Latency => inputs.latency_ms,
        };
        verdict(
            check,
            judge(self.budget, &self.cap, measured, *check.threshold),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: u64) -> Number {
        Number::from(n)
    }

    fn float(x: f64) -> Number {
        Number::from_f64(x).unwrap_or_else(|| Number::from(0))
    }

    #[test]
    fn scores_and_reasons() {
        // (budget, cap, measured, threshold, score, reason); every row checked
        // against digline 0.10.0.
        let rows: Vec<(Budget, Number, f64, f64, f64, &str)> = vec![
            (
                Budget::Cost,
                int(2),
                0.1,
                0.5,
                0.952381,
                "0.100000 USD against a 2.000000 cap (within budget)",
            ),
            (
                Budget::Cost,
                int(2),
                2.0,
                0.5,
                0.5,
                "2.000000 USD against a 2.000000 cap (within budget)",
            ),
            (
                Budget::Cost,
                int(2),
                3.0,
                0.5,
                0.4,
                "3.000000 USD against a 2.000000 cap (over budget)",
            ),
            (
                Budget::Cost,
                int(2),
                3.0,
                0.3,
                0.299999,
                "3.000000 USD against a 2.000000 cap (over budget)",
            ),
            (
                Budget::Cost,
                int(2),
                2.0,
                0.9,
                0.9,
                "2.000000 USD against a 2.000000 cap (within budget)",
            ),
            (
                Budget::Cost,
                float(0.3),
                0.1 + 0.2,
                0.5,
                0.5,
                "0.300000 USD against a 0.300000 cap (within budget)",
            ),
            (
                Budget::Cost,
                int(1),
                0.0,
                0.5,
                1.0,
                "0.000000 USD against a 1.000000 cap (within budget)",
            ),
            (
                Budget::Cost,
                float(0.01),
                0.0078125,
                0.5,
                0.561404,
                "0.007812 USD against a 0.010000 cap (within budget)",
            ),
            (
                Budget::Cost,
                int(1),
                1.0000004,
                0.5,
                0.5,
                "1.000000 USD against a 1.000000 cap (within budget)",
            ),
            (
                Budget::Cost,
                int(1),
                1.000001,
                0.5,
                0.499999,
                "1.000001 USD against a 1.000000 cap (over budget)",
            ),
            (
                Budget::Cost,
                float(1e-7),
                1e-7,
                0.5,
                0.5,
                "0.000000 USD against a 0.000000 cap (within budget)",
            ),
            (
                Budget::Latency,
                int(800),
                5.0,
                0.5,
                0.993789,
                "5.000 ms against a 800.000 cap (within budget)",
            ),
            (
                Budget::Latency,
                int(800),
                0.0,
                0.5,
                1.0,
                "0.000 ms against a 800.000 cap (within budget)",
            ),
            (
                Budget::Latency,
                float(0.5),
                0.0005,
                0.5,
                0.999001,
                "0.001 ms against a 0.500 cap (within budget)",
            ),
            (
                Budget::Latency,
                int(1),
                0.0015,
                0.5,
                0.998502,
                "0.002 ms against a 1.000 cap (within budget)",
            ),
        ];
        for (budget, cap, measured, threshold, score, reason) in rows {
            let (got, why, metadata) =
                judge(budget, &cap, Some(measured), threshold).expect_scored(reason);
            assert_eq!((round6(got), why.as_str()), (score, reason));
            assert_eq!(metadata.len(), 3, "{reason}");
            assert_eq!(metadata.get(budget.words().1), Some(&Value::Number(cap)));
        }
    }

    #[test]
    fn metadata_keeps_the_declared_cap() {
        let Outcome::Scored { metadata, .. } = judge(Budget::Cost, &int(2), Some(3.0), 0.5) else {
            panic!("errored");
        };
        let json = serde_json::to_string(&metadata).unwrap_or_default();
        assert_eq!(json, r#"{"cost_usd":3.0,"max_usd":2,"ratio":1.5}"#);
        let Outcome::Scored { metadata, .. } =
            judge(Budget::Latency, &float(800.0), Some(800.0), 0.5)
        else {
            panic!("errored");
        };
        assert_eq!(metadata["max_ms"], Value::Number(float(800.0)));
        assert_eq!(metadata["ratio"], Value::Number(float(1.0)));
    }

    #[test]
    fn unjudgeable_measurements_are_errors() {
        let rows: Vec<(Budget, Option<f64>, &str)> = vec![
            (
                Budget::Cost,
                None,
                "cost_usd is missing: an unverifiable budget is not a budget met",
            ),
            (
                Budget::Latency,
                None,
                "latency_ms is missing: an unverifiable budget is not a budget met",
            ),
            (Budget::Cost, Some(-0.1), "cost_usd is negative: -0.1"),
            (Budget::Latency, Some(-1.0), "latency_ms is negative: -1.0"),
            (
                Budget::Cost,
                Some(f64::NAN),
                "cost_usd is not a finite number",
            ),
            (
                Budget::Cost,
                Some(f64::INFINITY),
                "cost_usd is not a finite number",
            ),
        ];
        for (budget, measured, reason) in rows {
            assert_eq!(
                judge(budget, &int(1), measured, 0.5),
                Outcome::Errored(reason.to_string())
            );
        }
    }

    #[test]
    fn the_clamp_agrees_with_within() {
        for (cap, measured) in [
            (1.0, 0.9999996),
            (1.0, 1.0000004),
            (1.0, 1.0000006),
            (0.3, 0.1 + 0.2),
        ] {
            for threshold in [0.0, 0.3, 0.5, 0.9, 1.0] {
                let score = clamped_score(cap, measured, threshold);
                let passes = crate::core::verdict::meets(score, threshold);
                assert_eq!(
                    passes,
                    within(measured, cap) || threshold == 0.0,
                    "{cap} {measured} {threshold}"
                );
            }
        }
    }
}
