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
