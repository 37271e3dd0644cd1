//! What a run spent, as its document records it: the target's cost in USD,
//! summed over the recorded answers (`record_responses`) or, failing those,
//! over the measurements of a `cost_budget` check. A run that recorded
//! neither has no known spend, and nothing is guessed.
//!
//! Judges' spend and token counts are not in a schema-10 document (0.10.0
//! stores neither, and its documents are kept byte for byte), so they are
//! shown only where a run recorded them.
//!
//! Pure.

use serde_json::Value;

use crate::core::document::RunDocument;

use super::locale::Locale;
use super::text::fill;

/// The target's recorded spend in USD, `None` when no case recorded one.
pub fn target_usd(run: &RunDocument) -> Option<f64> {
    let mut total = 0.0;
    let mut known = false;
    for case in &run.results {
        let recorded: Vec<f64> = case
            .responses
            .iter()
            .flatten()
            .filter_map(|r| r.get("cost_usd").and_then(Value::as_f64))
            .collect();
        if !recorded.is_empty() {
            total += recorded.iter().sum::<f64>();
            known = true;
            continue;
        }
        let measured = case.verdicts.iter().find_map(|v| {
            v.metadata
                .get("max_usd")
                .and(v.metadata.get("cost_usd"))
                .and_then(Value::as_f64)
        });
        if let Some(cost) = measured {
            total += cost;
            known = true;
        }
    }
    known.then_some(total)
}

/// `0.012000 USD`: six decimals and a dot in every locale.
pub fn usd(value: f64) -> String {
    format!("{value:.6}")
}

fn spend(run: &RunDocument, locale: Locale) -> Option<String> {
    target_usd(run).map(|v| fill(locale.text("gate.cost_target"), &[("usd", &usd(v))]))
}

/// One sentence: what the run spent, next to what the reference spent;
/// empty when the run recorded no spend.
pub fn sentence(run: &RunDocument, baseline: Option<&RunDocument>, locale: Locale) -> String {
    let Some(this) = spend(run, locale) else {
        return String::new();
    };
    match baseline {
        Some(b) => {
            let reference =
                spend(b, locale).unwrap_or_else(|| locale.text("gate.cost_unknown").to_string());
            fill(
                locale.text("gate.cost_compared"),
                &[("this", &this), ("reference", &reference)],
            )
        }
        None => fill(locale.text("gate.cost"), &[("this", &this)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str) -> RunDocument {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
                .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn spend_is_read_from_recorded_answers_or_a_cost_budget_and_never_guessed() {
        // 05-errors records cost_budget measurements on its three answered
        // cases: 0.001 + 0.001 + 0.03 USD.
        let run = doc("tests/goldens/documents/05-errors/run.json");
        let spent = target_usd(&run).unwrap();
        assert!((spent - 0.032).abs() < 1e-9, "{spent}");
        assert_eq!(
            sentence(&run, None, Locale::En),
            "Spent: the system 0.032000 USD."
        );
        // A run that recorded nothing has no known spend.
        let mut bare = run.clone();
        for case in &mut bare.results {
            case.responses = None;
            for v in &mut case.verdicts {
                v.metadata.clear();
            }
        }
        assert_eq!(target_usd(&bare), None);
        assert_eq!(sentence(&bare, Some(&run), Locale::En), "");
        assert_eq!(
            sentence(&run, Some(&bare), Locale::De),
            "Ausgegeben: das System 0.032000 USD; die Referenz: nicht festgehalten."
        );
        // Recorded answers win over the budget's measurement.
        let mut recorded = run.clone();
        recorded.results[0].responses = Some(vec![serde_json::json!({"cost_usd": 0.5})]);
        let with_recorded = target_usd(&recorded).unwrap();
        assert!((with_recorded - 0.531).abs() < 1e-9, "{with_recorded}");
    }
}
