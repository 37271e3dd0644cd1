//! Folding sampled verdicts: N verdicts of one check on one case → one.
//!
//! Used twice: by the driver when `[suite] samples = N` asks the target N
//! times per case, and by `repeated`, which grades the same answer several
//! times. [`fold`] is a pure function of the sample verdicts (in sample
//! order) and the required agreement.
//!
//! The rule (spec `20-checks.md` "Noise"; facts python-input.md §3.3):
//!
//! - one sample: the verdict itself, unchanged (no sample fields);
//! - every sample errored: an error naming the causes, most frequent first;
//! - agreement = max(#pass, #fail) / N — errored samples sit in the
//!   denominator and never form the majority. Below `min_agreement`
//!   (compared at 6 decimals) the fold is an error listing the scores;
//! - otherwise the score is the mean of the judged scores, the status
//!   follows from it, and the verdict records the judged scores as its
//!   interval (`samples`, `sample_min`, `sample_max`) and the folded
//!   metadata (see [`fold_metadata`]).
//!
//! **Where we differ from 0.10.0, on purpose:** 0.10.0 lets `error` be the
//! majority status, so three samples `pass, error, error` agree at 2/3 there
//! and pass on one judged sample; here they agree at 1/3 and the fold is an
//! error (the spec's rule: a sample that could not be judged never vouches
//! for a verdict). Every fold without errored samples agrees with 0.10.0.
//! 0.10.0 never writes `sample_means`, and neither does this fold.

use crate::core::python::eq::python_eq;
use serde_json::{Map, Number, Value};

use super::python::dumps::round6;
use super::verdict::{meets, Status, Verdict};

/// Fold the verdicts of one check's samples into one verdict.
///
/// `samples` are in sample order and share the check's name, id, threshold
/// and tolerance (the first sample's are used). `min_agreement` is the
/// share (0–1) of samples that must agree on pass or fail.
///
/// Returns `None` only when `samples` is empty.
pub fn fold(samples: &[Verdict], min_agreement: f64) -> Option<Verdict> {
    let first = samples.first()?;
    if samples.len() == 1 {
        return Some(first.clone());
    }
    let n = samples.len();
    let error = |reason: String| {
        Verdict::errored(
            &first.assertion,
            &first.assertion_id,
            first.threshold,
            first.tolerance,
            reason,
            Map::new(),
        )
    };
    let judged: Vec<f64> = samples.iter().filter_map(|v| v.score).collect();
    if judged.is_empty() {
        return Some(error(all_errored_reason(samples)));
    }
    let passed = samples.iter().filter(|v| v.status == Status::Pass).count();
    let failed = samples.iter().filter(|v| v.status == Status::Fail).count();
    let agreement = passed.max(failed) as f64 / n as f64;
    if !meets(agreement, min_agreement) {
        return Some(error(format!(
            "the samples did not agree: {agreement:.2} of them share the majority verdict, \
             below the required {min_agreement:.2} (scores: {})",
            rendered(samples)
        )));
    }
    let mean = exact_sum(&judged) / judged.len() as f64;
    let lowest = judged.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = judged.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut metadata = fold_metadata(samples);
    metadata.insert("samples".into(), Value::from(n));
    metadata.insert("agreement".into(), float(agreement));
    metadata.insert("spread".into(), float(highest - lowest));
    metadata.insert("errored_samples".into(), Value::from(n - judged.len()));
    metadata.insert(
        "scores".into(),
        Value::Array(judged.iter().map(|s| float(*s)).collect()),
    );
    let mut verdict = Verdict::scored(
        &first.assertion,
        &first.assertion_id,
        mean,
        first.threshold,
        first.tolerance,
        format!("mean of {n} samples ({})", rendered(samples)),
        metadata,
    );
    verdict.samples = Some(judged.iter().map(|s| round6(*s)).collect());
    verdict.sample_min = Some(round6(lowest));
    verdict.sample_max = Some(round6(highest));
    Some(verdict)
}

/// `1.000000, 0.000000, error`: each sample's score at 6 decimals, or `error`.
fn rendered(samples: &[Verdict]) -> String {
    samples
        .iter()
        .map(|v| {
            v.score
                .map_or_else(|| "error".to_string(), |s| format!("{s:.6}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `no sample could be judged over N attempts: <cause>` when every sample
/// failed for one cause; otherwise each distinct cause with its count,
/// most frequent first (ties in order of first appearance).
fn all_errored_reason(samples: &[Verdict]) -> String {
    let n = samples.len();
    let mut causes: Vec<(&str, usize)> = Vec::new();
    for v in samples {
        match causes.iter_mut().find(|(r, _)| *r == v.reason) {
            Some((_, count)) => *count += 1,
            None => causes.push((&v.reason, 1)),
        }
    }
    if let [(cause, _)] = causes.as_slice() {
        return format!("no sample could be judged over {n} attempts: {cause}");
    }
    causes.sort_by_key(|(_, count)| std::cmp::Reverse(*count)); // stable: ties keep first appearance
    let listed: Vec<String> = causes
        .iter()
        .map(|(cause, count)| format!("{count} of {n}: {cause}"))
        .collect();
    format!(
        "no sample could be judged over {n} attempts, for {} different reasons — {}",
        causes.len(),
        listed.join("; ")
    )
}

/// The samples' metadata folded into one map.
///
/// A key survives only when every sample (errored ones included) has it.
/// When every value is a number (booleans are not numbers here) the key
/// holds their mean, always as a float (`46` → `46.0`); otherwise it keeps
/// the first value if all values are equal, and is dropped if not. When
/// every sample reports a numeric `cost_usd`, `total_cost_usd` holds their
/// sum. Keys the fold itself writes (`samples`, `agreement`, …) are
/// overwritten by [`fold`].
pub fn fold_metadata(samples: &[Verdict]) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(first) = samples.first() else {
        return out;
    };
    for (key, value) in first.metadata.iter() {
        let values: Option<Vec<&Value>> = samples.iter().map(|v| v.metadata.get(key)).collect();
        let Some(values) = values else {
            continue;
        };
        let numbers: Option<Vec<f64>> = values.iter().map(|v| number(v)).collect();
        if let Some(numbers) = numbers {
            out.insert(
                key.to_string(),
                float(exact_sum(&numbers) / numbers.len() as f64),
            );
        } else if values.iter().all(|v| python_eq(v, value)) {
            out.insert(key.to_string(), value.clone());
        }
    }
    let costs: Option<Vec<f64>> = samples
        .iter()
        .map(|v| v.metadata.get("cost_usd").and_then(number))
        .collect();
    if let Some(costs) = costs {
        out.insert("total_cost_usd".into(), float(exact_sum(&costs)));
    }
    out
}

/// A JSON number as f64 (booleans and everything else: `None`).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

fn float(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The correctly rounded sum of `values` (as Python's `math.fsum` gives it):
/// Shewchuk's exact partial sums, so `0.1` ten times sums to `1.0`, and a
/// mean of equal values is that value.
pub fn exact_sum(values: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &value in values {
        let mut x = value;
        let mut kept = 0;
        for i in 0..partials.len() {
            let mut y = partials[i];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let high = x + y;
            let low = y - (high - x);
            if low != 0.0 {
                partials[kept] = low;
                kept += 1;
            }
            x = high;
        }
        partials.truncate(kept);
        partials.push(x);
    }
    // Add the partials from the top, then correct the last rounding.
    let Some(mut high) = partials.pop() else {
        return 0.0;
    };
    let mut low = 0.0;
    while let Some(y) = partials.pop() {
        let x = high;
        high = x + y;
        let y_part = high - x;
        low = y - y_part;
        if low != 0.0 {
            break;
        }
    }
    if let Some(&next) = partials.last() {
        if (low < 0.0 && next < 0.0) || (low > 0.0 && next > 0.0) {
            let y = low * 2.0;
            let x = high + y;
            if y == x - high {
                high = x;
            }
        }
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::python::dumps::dumps_canonical;
    use serde_json::json;

    fn sample(score: Option<f64>, threshold: f64, metadata: Value) -> Verdict {
        let metadata = metadata.as_object().cloned().unwrap_or_default();
        match score {
            Some(s) => Verdict::scored("c", "id", s, threshold, 0.0, "r".into(), metadata),
            None => Verdict::errored("c", "id", threshold, 0.0, "boom".into(), metadata),
        }
    }

    fn binary(scores: &[Option<f64>]) -> Vec<Verdict> {
        scores.iter().map(|s| sample(*s, 1.0, json!({}))).collect()
    }

    const P: Option<f64> = Some(1.0);
    const F: Option<f64> = Some(0.0);
    const E: Option<f64> = None;

    #[test]
    fn agreement_thresholds_at_3_and_5_samples() {
        // (scores, min_agreement, status, score or reason start)
        let rows: &[(&[Option<f64>], f64, &str, &str)] = &[
            (&[P, P, P], 2.0 / 3.0, "pass", "1.0"),
            (&[P, F, P], 2.0 / 3.0, "fail", "0.666667"),
            (&[P, F, P], 1.0, "error", "the samples did not agree: 0.67"),
            (&[P, P, E], 2.0 / 3.0, "pass", "1.0"),
            (
                &[P, F, E],
                2.0 / 3.0,
                "error",
                "the samples did not agree: 0.33",
            ),
            // 0.10.0 passes this one (error may be its majority); the spec does not.
            (
                &[P, E, E],
                2.0 / 3.0,
                "error",
                "the samples did not agree: 0.33",
            ),
            (&[P, E, E], 1.0 / 3.0, "pass", "1.0"),
            (&[P, P, P, F, F], 0.6, "fail", "0.6"),
            (
                &[P, P, P, F, F],
                0.8,
                "error",
                "the samples did not agree: 0.60",
            ),
            (&[P, P, P, P, F], 0.8, "fail", "0.8"),
            (
                &[P, P, P, P, F],
                1.0,
                "error",
                "the samples did not agree: 0.80",
            ),
            (
                &[P, F, P, F, E],
                0.6,
                "error",
                "the samples did not agree: 0.40",
            ),
            (&[P, F, P, E, E], 0.4, "fail", "0.666667"),
            (&[P, P, P, E, E], 0.6, "pass", "1.0"),
            (
                &[P, P, E, E, E],
                0.6,
                "error",
                "the samples did not agree: 0.40",
            ),
        ];
        for (scores, min, status, want) in rows {
            let got = fold(&binary(scores), *min).unwrap();
            assert_eq!(got.status.as_str(), *status, "{scores:?} at {min}");
            assert!(got.is_consistent(), "{got:?}");
            match got.score {
                Some(s) => assert_eq!(format!("{s:?}"), *want, "{scores:?}"),
                None => assert!(got.reason.starts_with(want), "{}", got.reason),
            }
        }
    }

    #[test]
    fn disagreement_lists_every_score() {
        let got = fold(&binary(&[P, F, P, F, E]), 0.6).unwrap();
        assert_eq!(
            got.reason,
            "the samples did not agree: 0.40 of them share the majority verdict, below the \
             required 0.60 (scores: 1.000000, 0.000000, 1.000000, 0.000000, error)"
        );
        assert!(got.metadata.is_empty());
        assert_eq!(got.samples, None);
    }

    #[test]
    fn all_errored_names_the_causes() {
        let with = |reasons: &[&str]| -> String {
            let samples: Vec<Verdict> = reasons
                .iter()
                .map(|r| Verdict::errored("c", "id", 1.0, 0.0, (*r).into(), Map::new()))
                .collect();
            fold(&samples, 2.0 / 3.0).unwrap().reason
        };
        assert_eq!(
            with(&["a", "a", "a"]),
            "no sample could be judged over 3 attempts: a"
        );
        assert_eq!(
            with(&["b", "a", "a"]),
            "no sample could be judged over 3 attempts, for 2 different reasons — 2 of 3: a; 1 of 3: b"
        );
        assert_eq!(
            with(&["b", "c", "a"]),
            "no sample could be judged over 3 attempts, for 3 different reasons — 1 of 3: b; 1 of 3: c; 1 of 3: a"
        );
    }

    #[test]
    fn one_sample_is_the_verdict_itself() {
        let one = binary(&[F]);
        assert_eq!(fold(&one, 1.0), Some(one[0].clone()));
        assert_eq!(fold(&[], 1.0), None);
    }

    #[test]
    fn a_mean_records_interval_and_metadata() {
        // 0.10.0, document 03: levenshtein on the `split` case.
        let samples = vec![
            sample(Some(1.0), 0.8, json!({"distance": 0, "length": 46})),
            sample(Some(0.434783), 0.8, json!({"distance": 26, "length": 46})),
            sample(Some(0.621622), 0.8, json!({"distance": 28, "length": 74})),
        ];
        let got = fold(&samples, 2.0 / 3.0).unwrap().at_storage_precision();
        assert_eq!(got.score, Some(0.685468));
        assert_eq!(got.status, Status::Fail);
        assert_eq!(got.samples, Some(vec![1.0, 0.434783, 0.621622]));
        assert_eq!(
            (got.sample_min, got.sample_max),
            (Some(0.434783), Some(1.0))
        );
        assert_eq!(
            got.reason,
            "mean of 3 samples (1.000000, 0.434783, 0.621622)"
        );
        assert_eq!(
            dumps_canonical(&Value::Object(got.metadata.into_map())),
            r#"{"agreement":0.666667,"distance":18.0,"errored_samples":0,"length":55.333333,"samples":3,"scores":[1.0,0.434783,0.621622],"spread":0.565217}"#
        );
    }

    #[test]
    fn metadata_folding_rules() {
        let samples = vec![
            sample(
                Some(1.0),
                0.5,
                json!({"i": 1, "s": "x", "b": true, "l": [1], "o": {"k": 1}, "d": "a", "cost_usd": 0.1, "only": 1}),
            ),
            sample(
                Some(0.5),
                0.5,
                json!({"i": 2, "s": "x", "b": true, "l": [1.0], "o": {"k": 1}, "d": "b", "cost_usd": 0.2}),
            ),
            sample(
                None,
                0.5,
                json!({"i": 3, "s": "x", "b": true, "l": [1], "o": {"k": 1}, "d": "a", "cost_usd": 0.2}),
            ),
        ];
        let got = fold_metadata(&samples);
        assert_eq!(
            dumps_canonical(&Value::Object(got)),
            r#"{"b":true,"cost_usd":0.16666666666666666,"i":2.0,"l":[1],"o":{"k":1},"s":"x","total_cost_usd":0.5}"#
        );
        // A non-numeric cost gives no total (and 1 == true keeps the first, as in Python).
        let samples = vec![
            sample(Some(1.0), 0.5, json!({"cost_usd": 1})),
            sample(Some(1.0), 0.5, json!({"cost_usd": true})),
        ];
        assert_eq!(
            dumps_canonical(&Value::Object(fold_metadata(&samples))),
            r#"{"cost_usd":1}"#
        );
        let samples = vec![
            sample(Some(1.0), 0.5, json!({"cost_usd": 1, "s": "a"})),
            sample(Some(1.0), 0.5, json!({"cost_usd": "x", "s": "b"})),
        ];
        assert_eq!(
            dumps_canonical(&Value::Object(fold_metadata(&samples))),
            "{}"
        );
    }

    #[test]
    fn budget_folds_like_document_06() {
        let meta = json!({"cost_usd": 0.001, "max_usd": 0.002, "ratio": 0.5});
        let samples: Vec<Verdict> = (0..5)
            .map(|_| sample(Some(2.0 / 3.0), 0.5, meta.clone()))
            .collect();
        let got = fold(&samples, 0.6).unwrap().at_storage_precision();
        assert_eq!(got.score, Some(0.666667));
        assert_eq!(got.metadata["total_cost_usd"], json!(0.005));
        assert_eq!(got.metadata["agreement"], json!(1.0));
        assert_eq!(got.metadata["spread"], json!(0.0));
    }

    #[test]
    fn exact_sums() {
        let rows: &[(&[f64], f64)] = &[
            (&[], 0.0),
            (&[0.1; 10], 1.0),
            (&[1e100, 1.0, -1e100], 1.0),
            (&[0.3, 0.3, 0.3], 0.8999999999999999),
            (&[1.0, 0.938776, 0.978261], 2.917037),
        ];
        for (values, want) in rows {
            assert_eq!(exact_sum(values), *want, "{values:?}");
        }
    }
}
