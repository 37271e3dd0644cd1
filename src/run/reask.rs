//! Re-asking: the pairs a pull request's answers failed where the
//! reference passed are asked again, round by round, until the rule of
//! `core::stats` decides each of them (worse, within noise) or its cap of
//! re-asks is spent (undecided).
//!
//! One round asks every case with an open pair once, through the driver
//! (the same retries, pace and judges as the run; nothing is journaled or
//! stored), and compares each re-asked verdict with the reference's by the
//! rule the run's answer was compared with. Cases run in parallel within a
//! round; a pair's re-asks are sequential, so the rule stops as soon as
//! the evidence decides.

use std::collections::{BTreeSet, HashMap};

use super::driver::{execute_spent, Ask, Judge, RunContext, RunError};
use super::journal::{Prior, Recorder};
use super::memo::JudgeMemo;
use crate::core::compare::reask::{fails_again, replay, PairVerdict, ReaskRecord, Reasked};
use crate::core::compare::{index_verdicts, KeyRef, PairKey, Scope};
use crate::core::document::RunDocument;
use crate::core::name::Name;
use crate::core::spend::Spend;
use crate::core::stats::CAP;
use crate::core::suite::Suite;
use crate::core::verdict::Verdict;

/// Ask each of `case_ids` once more, graded as a run grades; returns each
/// case's verdicts (a case whose call failed has errored verdicts) and what
/// the calls spent.
///
/// # Errors
/// As the driver: the run was stopped, or the suite cannot be run.
pub fn ask_again(
    suite: &Suite,
    case_ids: &BTreeSet<String>,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<(HashMap<String, Vec<Verdict>>, Spend), RunError> {
    let mut again = suite.clone();
    again.cases.retain(|c| case_ids.contains(&c.id));
    again.samples = 1;
    again.declared_sampling = None;
    again.aggregates.clear();
    // A re-ask is an independent judging: the memo never answers it.
    let mut fresh = ctx.clone();
    fresh.cost.memo = ctx.cost.memo.as_deref().and_then(JudgeMemo::for_reasks);
    let recorder = Recorder::new(None, None);
    let (doc, spent, ..) = execute_spent(&again, target, judge, &fresh, &Prior::none(), &recorder)?;
    let verdicts = doc
        .results
        .into_iter()
        .map(|c| (c.case_id, c.verdicts))
        .collect();
    Ok((verdicts, spent))
}

/// Re-asks of one pair that could not be judged and are asked again
/// (spared); one more ends the pair's re-asks (it stays open: the gate
/// answers 2).
pub const SPARE_UNJUDGED: u32 = 1;

/// The record of a gate that had nothing to re-ask.
pub fn nothing_to_reask(reference: &RunDocument, false_alarm_rate: f64) -> ReaskRecord {
    ReaskRecord {
        reference_created_at: reference.created_at.clone(),
        reference_config_hash: reference.config_hash.clone(),
        false_alarm_rate,
        exposed: 0,
        attempt: 1,
        pairs: Vec::new(),
        carried: Vec::new(),
    }
}

/// The record a gate starts its re-asks from: `pairs` to ask (in key
/// order, none asked yet), on `template`'s reference, rate, exposed count,
/// attempt and carried pairs.
pub fn to_ask(template: ReaskRecord, pairs: Vec<PairKey>) -> ReaskRecord {
    ReaskRecord {
        pairs: pairs
            .into_iter()
            .map(|key| Reasked {
                case_id: key.case_id.to_string(),
                assertion_id: key.assertion_id.to_string(),
                occurrence: key.occurrence,
                failed: Vec::new(),
            })
            .collect(),
        ..template
    }
}

/// The re-ask phase of a gate: every pair of `record` (triggered pairs of a
/// run against `reference`, none asked yet: [`to_ask`]) re-asked until
/// decided or capped, at the record's rate and attempt. Returns the
/// evidence and what the re-asks spent (the run's spend record adds it;
/// the context's cap holds them).
///
/// # Errors
/// As [`ask_again`].
pub fn reask(
    suite: &Suite,
    reference: &RunDocument,
    mut record: ReaskRecord,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<(ReaskRecord, Spend), RunError> {
    let mut spent = Spend::default();
    let before = index_verdicts(reference);
    // Re-asks of each pair that could not be judged (the target failed, a
    // judge failed): the first is spared, the second ends the pair's
    // re-asks, so whatever the target answers a pair is asked at most its
    // cap and one spare, and the rounds end.
    let mut unjudged: HashMap<(String, String, usize), u32> = HashMap::new();
    for _ in 0..=CAP {
        let open: Vec<PairKey> = replay(&record, reference)
            .into_iter()
            .filter(|(_, _, d)| d.verdict == PairVerdict::Open)
            .map(|(key, _, _)| key)
            .filter(|key| {
                let id = (
                    key.case_id.to_string(),
                    key.assertion_id.to_string(),
                    key.occurrence,
                );
                unjudged.get(&id).copied().unwrap_or(0) < SPARE_UNJUDGED + 1
            })
            .collect();
        if open.is_empty() {
            break;
        }
        let cases: BTreeSet<String> = open.iter().map(|k| k.case_id.to_string()).collect();
        let (answers, round) = ask_again(suite, &cases, target, judge, ctx)?;
        spent.absorb(&round);
        for key in &open {
            let Some(entry) = record.pairs.iter_mut().find(|p| {
                p.case_id == key.case_id.as_str()
                    && p.assertion_id == key.assertion_id.as_str()
                    && p.occurrence == key.occurrence
            }) else {
                continue;
            };
            let again = answers.get(key.case_id.as_str()).and_then(|verdicts| {
                verdicts
                    .iter()
                    .filter(|v| v.assertion_id == key.assertion_id)
                    .nth(key.occurrence)
            });
            let assertion_id = Name::unshared(key.assertion_id.as_str());
            let reference_verdict = before.get(&KeyRef {
                scope: Scope::Case,
                case_id: key.case_id.as_str(),
                assertion_id: &assertion_id,
                occurrence: key.occurrence,
            });
            let judged = match (again, reference_verdict) {
                (Some(again), Some(reference_verdict)) => {
                    fails_again(key, reference_verdict, again)
                }
                _ => None,
            };
            match judged {
                Some(failed) => entry.failed.push(failed),
                None => {
                    *unjudged
                        .entry((
                            key.case_id.to_string(),
                            key.assertion_id.to_string(),
                            key.occurrence,
                        ))
                        .or_insert(0) += 1;
                }
            }
        }
    }
    Ok((record, spent))
}
