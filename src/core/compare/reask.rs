//! Re-asked pairs: which checks the gate asks again, what their re-asks
//! showed, and the verdict the family of them reaches (`core::stats`).
//!
//! A pair is *triggered* when the run's answer fails where the reference
//! passed (or a score fell beyond tolerance and noise): a case-scope
//! `regressed` delta that is not a canary (a canary moving is its own
//! rule). The run layer re-asks the triggered cases; each re-ask is
//! compared with the reference's verdict by the same rule as the run's
//! answer was ([`fails_again`]). The evidence is kept beside the run
//! ([`ReaskRecord`], `store::reasks`), and [`Comparison::apply_reasks`]
//! turns it into verdicts, so the gate, `compare` and MCP decide alike.
//!
//! A reference verdict's own measurement is read from schema-10 fields: a
//! sampled verdict's `samples` (its judged scores) and threshold give its
//! pass count of N; a verdict of one sample is 1/1 or 0/1 (no noise
//! measured).

use serde::{Deserialize, Serialize};

use super::{pair, Comparison, KeyRef, Outcome, PairKey, Scope};
use crate::core::document::RunDocument;
use crate::core::name::Name;
use crate::core::stats::{decide, Decision, Evidence, Pair, Plan};
use crate::core::verdict::{meets, Status, Verdict};

pub use crate::core::stats::PairVerdict;

/// One re-asked pair's evidence, as kept beside the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reasked {
    /// The case.
    pub case_id: String,
    /// The check's identity.
    pub assertion_id: String,
    /// Which verdict of that id in the case (0 for the first).
    pub occurrence: usize,
    /// Each re-ask in call order: `true` when it failed again. A re-ask
    /// that could not be judged is not listed.
    pub failed: Vec<bool>,
}

/// Every re-ask of one gate, and what it was compared with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReaskRecord {
    /// The reference's `created_at`: the evidence is read only against it.
    pub reference_created_at: String,
    /// The reference's `config_hash`.
    pub reference_config_hash: String,
    /// The declared false-alarm rate the family was tested at.
    pub false_alarm_rate: f64,
    /// How many measured pairs' first answers failed, whatever their
    /// reference: the reference's bounds are held jointly over them
    /// (`core::stats::bound`). Read as at least the number of pairs; a
    /// reader that holds the run counts again and takes the larger.
    #[serde(default)]
    pub exposed: usize,
    /// The pairs, in key order.
    pub pairs: Vec<Reasked>,
}

impl ReaskRecord {
    /// True when this record was made against `reference`.
    pub fn belongs_to(&self, reference: &RunDocument) -> bool {
        self.reference_created_at == reference.created_at
            && self.reference_config_hash == reference.config_hash
    }

    /// Re-asks made (calls beyond one per case, per pair).
    pub fn calls(&self) -> usize {
        self.pairs.iter().map(|p| p.failed.len()).sum()
    }
}

/// A re-asked pair's evidence and verdict, as a reader sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PairDecision {
    /// The pair.
    pub key: PairKey,
    /// The check's reported name.
    pub assertion: Name,
    /// Reference k/N, now j/m.
    pub evidence: Evidence,
    /// Worse, within noise, undecided — or open when the gate's re-asks
    /// ran out of answers that could be judged (the pair is then errored).
    pub decision: Decision,
}

/// The most reference samples a re-asked check is tested against: its
/// first ones. The bound's cost grows with the count, and a forged
/// reference of a million samples must not cost a gate seconds; 1,000
/// samples that all passed bound a failure rate near 1 %. A fixed subset
/// chosen before any re-ask keeps the bound exact.
pub const MOST_TESTED: usize = 1000;

/// The pass count of N a reference verdict measured: `(passed, samples)`,
/// of its first [`MOST_TESTED`] samples.
pub fn measured(verdict: &Verdict) -> (u64, u64) {
    match verdict.samples.as_deref() {
        Some(scores) if scores.len() > 1 => {
            let scores = &scores[..scores.len().min(MOST_TESTED)];
            let passed = scores
                .iter()
                .filter(|s| meets(**s, *verdict.threshold))
                .count();
            (passed as u64, scores.len() as u64)
        }
        _ => (u64::from(verdict.status == Status::Pass), 1),
    }
}

/// The pairs to re-ask, in key order: case-scope `regressed` deltas that
/// are not canaries.
pub fn triggered(comparison: &Comparison) -> Vec<PairKey> {
    comparison
        .deltas
        .iter()
        .filter(|d| d.key.scope == Scope::Case && d.outcome == Outcome::Regressed && !d.canary)
        .map(|d| d.key.clone())
        .collect()
}

/// The triggered pairs (`triggered`) whose reference measured its noise
/// (more than one sample): what a gate re-asks when the target may not be
/// reachable (`gate --shards`, `gate --run`), where a pair of a
/// one-sample reference keeps 0.10.0's rule without a call.
pub fn triggered_measured(comparison: &Comparison, reference: &RunDocument) -> Vec<PairKey> {
    let index = super::index_verdicts(reference);
    triggered(comparison)
        .into_iter()
        .filter(|key| index.get(&key.as_ref()).is_some_and(|v| measured(v).1 > 1))
        .collect()
}

/// How many measured pairs of `comparison` failed their first answer,
/// whatever their reference did: the set the reference's bounds are held
/// over (`ReaskRecord::exposed`). Chosen by the pull request's answers
/// alone, so it cannot select lucky references.
pub fn exposed(comparison: &Comparison, reference: &RunDocument) -> usize {
    let index = super::index_verdicts(reference);
    comparison
        .deltas
        .iter()
        .filter(|d| d.key.scope == Scope::Case)
        .filter(|d| d.after.as_ref().is_some_and(|a| a.status == Status::Fail))
        .filter(|d| {
            index
                .get(&d.key.as_ref())
                .is_some_and(|v| measured(v).1 > 1)
        })
        .count()
}

/// Whether a re-ask's verdict `again` is worse than the reference's
/// `before` by the rule the run's answer was (`Some(true)`: it failed
/// again); `None` when the re-ask could not be judged.
pub fn fails_again(key: &PairKey, before: &Verdict, again: &Verdict) -> Option<bool> {
    if again.status == Status::Error {
        return None;
    }
    let delta = pair(
        key.as_ref(),
        key.case_id.clone(),
        Some(again),
        Some(before),
        false,
    )?;
    match delta.outcome {
        Outcome::Errored => None,
        outcome => Some(outcome == Outcome::Regressed),
    }
}

/// Every pair of `record` against `reference`, replayed round by round as
/// the gate asked them: at round `r` each pair holds its first `r`
/// re-asks, the family is decided (`core::stats::decide`), and a pair keeps
/// the first verdict it reaches (worse, within noise, undecided) — the gate
/// stopped asking it there. A pair still open after its last re-ask stays
/// `Open`. Returns each pair's key, its full evidence and its verdict, in
/// the record's order (a pair the reference has no verdict for is left
/// out). The gate's loop and every later reading of the record agree,
/// because both take the verdicts from here.
pub fn replay(record: &ReaskRecord, reference: &RunDocument) -> Vec<(PairKey, Pair, Decision)> {
    let index = super::index_verdicts(reference);
    let rows: Vec<(PairKey, u64, u64, &[bool])> = record
        .pairs
        .iter()
        .filter_map(|p| {
            let assertion_id = Name::unshared(&p.assertion_id);
            let key = KeyRef {
                scope: Scope::Case,
                case_id: &p.case_id,
                assertion_id: &assertion_id,
                occurrence: p.occurrence,
            };
            let (passed, samples) = measured(index.get(&key)?);
            Some((key.to_key(), passed, samples, p.failed.as_slice()))
        })
        .collect();
    let plan = Plan::new(record.false_alarm_rate, record.exposed.max(rows.len()));
    let at = |round: usize| -> Vec<Pair> {
        rows.iter()
            .map(|(_, passed, samples, failed)| {
                Pair::after(*passed, *samples, &failed[..round.min(failed.len())])
            })
            .collect()
    };
    // A pair never holds more re-asks than the largest cap: a record with
    // more is read no further.
    let most = rows
        .iter()
        .map(|r| r.3.len())
        .max()
        .unwrap_or(0)
        .min(crate::core::stats::CAP as usize);
    let mut settled: Vec<Option<Decision>> = vec![None; rows.len()];
    let mut last = Vec::new();
    for round in 0..=most {
        last = decide(&at(round), plan);
        for (slot, d) in settled.iter_mut().zip(&last) {
            if slot.is_none() && d.verdict != PairVerdict::Open {
                *slot = Some(*d);
            }
        }
    }
    let full = at(most);
    rows.into_iter()
        .zip(full)
        .zip(settled.into_iter().zip(last))
        .map(|(((key, ..), pair), (settled, last))| (key, pair, settled.unwrap_or(last)))
        .collect()
}

impl Comparison {
    /// Turn re-asks into verdicts: a pair found worse stays `regressed`;
    /// one within noise, or undecided, no longer counts as worse
    /// (`unchanged`, with `within_noise` when it wobbled within the
    /// reference's measured noise); one whose re-asks could not be judged
    /// is `errored` (the gate answers 2). A record made against another
    /// reference changes nothing. Without a record the comparison keeps
    /// 0.10.0's rule.
    pub fn apply_reasks(&mut self, record: &ReaskRecord, reference: &RunDocument) {
        if !record.belongs_to(reference) {
            return;
        }
        // The record's count of exposed pairs is never believed below what
        // this comparison shows.
        let record = ReaskRecord {
            exposed: record.exposed.max(exposed(self, reference)),
            ..record.clone()
        };
        for (key, pair, decision) in replay(&record, reference) {
            let Some(delta) = self.deltas.iter_mut().find(|d| d.key == key) else {
                continue;
            };
            if delta.outcome != Outcome::Regressed {
                continue;
            }
            match decision.verdict {
                PairVerdict::Worse => {}
                PairVerdict::Noise => {
                    delta.outcome = Outcome::Unchanged;
                    delta.within_noise = true;
                }
                PairVerdict::Undecided => {
                    delta.outcome = Outcome::Unchanged;
                }
                // Still open after the gate's last round: its re-asks could
                // not be judged (the target failed, the cap on spend was
                // reached), so neither the failure nor a wobble was shown.
                // Not judged is 2, never a quiet 0.
                PairVerdict::Open => {
                    delta.outcome = Outcome::Errored;
                    delta.unreasked = true;
                }
            }
            self.reasked.push(PairDecision {
                key,
                assertion: delta.assertion.clone(),
                evidence: pair.evidence(),
                decision,
            });
        }
    }

    /// The re-asked pairs with `verdict`, in key order.
    pub fn reasked_as(&self, verdict: PairVerdict) -> impl Iterator<Item = &PairDecision> {
        self.reasked
            .iter()
            .filter(move |d| d.decision.verdict == verdict)
    }
}
