//! What a run spent, as its document records it: the target's cost in USD,
//! summed over the recorded answers (`record_responses`) or, failing those,
//! over the measurements of a `cost_budget` check. A run that recorded
//! neither has no known spend, and nothing is guessed.
//!
//! Judges' spend and token counts are not in a schema-10 document (0.10.0
//! stores neither, and its documents are kept byte for byte): a run made by
//! this release records them beside its document ([`Spend`], kept by
//! `store::spend` and carried to the reference on promote), and they are
//! shown where such a record exists. The target's USD comes from that
//! record when it has one, else from the document as above.
//!
//! Pure.

use serde_json::Value;

use crate::core::document::RunDocument;
use crate::core::spend::{PartySpend, Spend};

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

/// The spend records of a run and of its reference, when recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spends {
    /// The run's.
    pub run: Option<Spend>,
    /// The reference's.
    pub reference: Option<Spend>,
}

/// The target's spend in USD: the run's spend record, else its document.
pub fn target_usd_of(run: &RunDocument, record: Option<&Spend>) -> Option<f64> {
    record
        .and_then(|s| s.target.usd)
        .or_else(|| target_usd(run))
}

fn party(key: &str, spent: Option<f64>, p: Option<&PartySpend>, locale: Locale) -> Option<String> {
    let tokens = p.and_then(|p| match (p.input_tokens, p.output_tokens) {
        (Some(i), Some(o)) => Some(fill(
            locale.text("gate.cost_tokens"),
            &[("input", &i.to_string()), ("output", &o.to_string())],
        )),
        _ => None,
    });
    let money = spent.map(usd);
    if money.is_none() && tokens.is_none() {
        return None;
    }
    let mut text = match money {
        Some(money) => fill(locale.text(key), &[("usd", &money)]),
        None => locale.text(&format!("{key}_unpriced")).to_string(),
    };
    if let Some(tokens) = tokens {
        text.push_str(&format!(" ({tokens})"));
    }
    Some(text)
}

fn spend(run: &RunDocument, record: Option<&Spend>, locale: Locale) -> Option<String> {
    let parts: Vec<String> = [
        party(
            "gate.cost_target",
            target_usd_of(run, record),
            record.map(|s| &s.target),
            locale,
        ),
        party(
            "gate.cost_judges",
            record.and_then(|s| s.judges.usd),
            record.map(|s| &s.judges),
            locale,
        ),
        record.filter(|s| s.memo.hits > 0).map(|s| {
            fill(
                locale.text("gate.cost_memo"),
                &[
                    ("hits", &s.memo.hits.to_string()),
                    ("saved", &usd(s.memo.saved_usd)),
                ],
            )
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// One sentence: what the run spent (the system and the judges, USD and
/// tokens), next to what the reference spent; a side with no known spend
/// (no record, an unreadable one, nothing in the document) is "not
/// recorded"; empty when neither side's spend is known.
pub fn sentence(
    run: &RunDocument,
    baseline: Option<&RunDocument>,
    spends: Spends,
    locale: Locale,
) -> String {
    let unknown = || locale.text("gate.cost_unknown").to_string();
    let this = spend(run, spends.run.as_ref(), locale);
    match baseline {
        Some(b) => {
            let reference = spend(b, spends.reference.as_ref(), locale);
            if this.is_none() && reference.is_none() {
                return String::new();
            }
            fill(
                locale.text("gate.cost_compared"),
                &[
                    ("this", &this.unwrap_or_else(unknown)),
                    ("reference", &reference.unwrap_or_else(unknown)),
                ],
            )
        }
        None => this.map_or_else(String::new, |this| {
            fill(locale.text("gate.cost"), &[("this", &this)])
        }),
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
            sentence(&run, None, Spends::default(), Locale::En),
            "Spent: 0.032000 USD on the system under test."
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
        assert_eq!(
            sentence(&bare, Some(&run), Spends::default(), Locale::En),
            "Spent: not recorded; the reference: 0.032000 USD on the system under test."
        );
        assert_eq!(
            sentence(&bare, Some(&bare), Spends::default(), Locale::En),
            ""
        );
        assert_eq!(sentence(&bare, None, Spends::default(), Locale::En), "");
        assert_eq!(
            sentence(&run, Some(&bare), Spends::default(), Locale::De),
            "Ausgegeben: das System 0.032000 USD; die Referenz: nicht festgehalten."
        );
        // Recorded answers win over the budget's measurement.
        let mut recorded = run.clone();
        recorded.results[0].responses = Some(vec![serde_json::json!({"cost_usd": 0.5})]);
        let with_recorded = target_usd(&recorded).unwrap();
        assert!((with_recorded - 0.531).abs() < 1e-9, "{with_recorded}");
    }

    #[test]
    fn a_spend_record_adds_the_judges_and_tokens_next_to_the_reference() {
        let run = doc("tests/goldens/documents/05-errors/run.json");
        let mut record = Spend::default();
        record.target.add(Some(0.01), Some((1200, 300)));
        record.target.add(Some(0.02), Some((800, 100)));
        record.judges.add(Some(0.0009), Some((500, 20)));
        record.judges.add(None, None);
        let mut reference = Spend::default();
        reference.judges.add(None, Some((400, 10)));
        let spends = Spends {
            run: Some(record),
            reference: Some(reference),
        };
        assert_eq!(
            sentence(&run, Some(&run), spends, Locale::En),
            "Spent: 0.030000 USD on the system under test (2000 tokens in, 400 out), 0.000900 USD on judges \
             (500 tokens in, 20 out); the reference: 0.032000 USD on the system under test, judges, not priced \
             (400 tokens in, 10 out)."
        );
        assert_eq!(
            sentence(
                &run,
                None,
                Spends {
                    run: Some(record),
                    reference: None
                },
                Locale::De
            ),
            "Ausgegeben: das System 0.030000 USD (2000 Tokens rein, 400 raus), die Bewerter \
             0.000900 USD (500 Tokens rein, 20 raus)."
        );
        assert_eq!(target_usd_of(&run, Some(&record)), Some(0.03));
        assert_eq!(target_usd_of(&run, Some(&reference)), target_usd(&run));
    }

    #[test]
    fn replies_reused_from_the_judge_memo_are_named_with_what_they_saved() {
        let run = doc("tests/goldens/documents/05-errors/run.json");
        let mut record = Spend::default();
        record.target.add(Some(0.01), None);
        record.memo = crate::core::memo::MemoTally {
            hits: 5,
            misses: 0,
            saved_usd: 0.0025,
        };
        let spends = Spends {
            run: Some(record),
            reference: None,
        };
        assert_eq!(
            sentence(&run, None, spends, Locale::En),
            "Spent: 0.010000 USD on the system under test, 5 judge reply(ies) reused from the memo, 0.002500 USD saved."
        );
    }
}
