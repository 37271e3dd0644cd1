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
    /// Which gate of this head against this reference it is (1 for the
    /// first): its new pairs are tested at [`rerun_weight`] of the declared
    /// rate, so all the gates of one head together stay within it.
    #[serde(default = "first_attempt")]
    pub attempt: u32,
    /// The pairs, in key order.
    pub pairs: Vec<Reasked>,
    /// Pairs an earlier gate of the same head decided, carried as they
    /// were decided (never re-asked, never decided again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<Carried>,
}

fn first_attempt() -> u32 {
    1
}

/// The share of the declared false-alarm rate the `attempt`-th gate of one
/// head against one reference spends on the pairs no earlier gate decided:
/// 0.8 for the first, then `0.2 / (r (r − 1))` — 0.1, 0.033, 0.017 … — which
/// add up to 1. However often a head is gated, an unchanged one is found
/// worse at most at the declared rate in all (a union bound over the
/// gates; each gate's family is Simes' test at its share).
pub fn rerun_weight(attempt: u32) -> f64 {
    match attempt {
        0 | 1 => 0.8,
        r => 0.2 / (f64::from(r) * f64::from(r - 1)),
    }
}

/// A pair an earlier gate of the same head decided, and its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Carried {
    /// The case.
    pub case_id: String,
    /// The check's identity.
    pub assertion_id: String,
    /// Which verdict of that id in the case.
    pub occurrence: usize,
    /// `worse`, `noise` or `undecided`.
    pub verdict: String,
    /// The gate of this head that decided it.
    pub attempt: u32,
    /// Its re-asks (`true`: failed again), as that gate asked them.
    pub failed: Vec<bool>,
}

impl Carried {
    fn key(&self) -> PairKey {
        KeyRef {
            scope: Scope::Case,
            case_id: &self.case_id,
            assertion_id: &Name::unshared(&self.assertion_id),
            occurrence: self.occurrence,
        }
        .to_key()
    }

    fn verdict(&self) -> Option<PairVerdict> {
        match self.verdict.as_str() {
            "worse" => Some(PairVerdict::Worse),
            "noise" => Some(PairVerdict::Noise),
            "undecided" => Some(PairVerdict::Undecided),
            _ => None,
        }
    }
}

/// The evidence every gate of one head (its tree) against one reference
/// and suite configuration gathered: how many gates there were and every
/// pair they decided. Read only when sealed by the gate's own key
/// (`host::trust`); a new commit or a new reference starts a new record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RerunRecord {
    /// The tree of the head gated.
    pub head_tree: String,
    /// The reference's `created_at`.
    pub reference_created_at: String,
    /// The reference's `config_hash`.
    pub reference_config_hash: String,
    /// The suite's `config_hash` at the head.
    pub config_hash: String,
    /// Gates of this head so far.
    pub attempts: u32,
    /// Every pair a gate of this head decided, in the order decided.
    pub decided: Vec<Carried>,
}

impl RerunRecord {
    /// The keys already decided: not re-asked again.
    pub fn decided_keys(&self) -> Vec<PairKey> {
        self.decided.iter().map(Carried::key).collect()
    }

    /// This record after the gate whose re-asks `record` holds: one gate
    /// more, and every pair it decided added.
    pub fn after(&self, record: &ReaskRecord, reference: &RunDocument) -> RerunRecord {
        let mut next = self.clone();
        next.attempts = record.attempt.max(self.attempts + 1);
        for (key, pair, decision) in replay(record, reference) {
            if decision.verdict == PairVerdict::Open {
                continue;
            }
            let failed: Vec<bool> = (0..pair.path.asked)
                .map(|i| (pair.path.fails >> i) & 1 == 1)
                .collect();
            next.decided.push(Carried {
                case_id: key.case_id.to_string(),
                assertion_id: key.assertion_id.to_string(),
                occurrence: key.occurrence,
                verdict: decision.verdict.as_str().to_string(),
                attempt: record.attempt,
                failed,
            });
        }
        next
    }
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
    let plan = Plan::new(
        record.false_alarm_rate * rerun_weight(record.attempt),
        record.exposed.max(rows.len()),
    );
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
        self.apply_carried(&record.carried, reference);
    }

    /// Pairs an earlier gate of this head decided keep that verdict: one
    /// found worse stays worse whatever this gate's answer did (a rerun
    /// never launders it); one found within noise or undecided is not
    /// worse again for failing again.
    fn apply_carried(&mut self, carried: &[Carried], reference: &RunDocument) {
        let index = super::index_verdicts(reference);
        for pair in carried {
            let (Some(verdict), key) = (pair.verdict(), pair.key()) else {
                continue;
            };
            let Some(before) = index.get(&key.as_ref()) else {
                continue;
            };
            let Some(delta) = self.deltas.iter_mut().find(|d| d.key == key) else {
                continue;
            };
            match verdict {
                PairVerdict::Worse => {
                    if matches!(delta.outcome, Outcome::Unchanged | Outcome::Improved) {
                        delta.outcome = Outcome::Regressed;
                        delta.within_noise = false;
                    }
                }
                PairVerdict::Noise if delta.outcome == Outcome::Regressed => {
                    delta.outcome = Outcome::Unchanged;
                    delta.within_noise = true;
                }
                PairVerdict::Undecided if delta.outcome == Outcome::Regressed => {
                    delta.outcome = Outcome::Unchanged;
                }
                _ => continue,
            }
            let (passed, samples) = measured(before);
            self.reasked.push(PairDecision {
                key,
                assertion: delta.assertion.clone(),
                evidence: Pair::after(passed, samples, &pair.failed).evidence(),
                decision: Decision {
                    verdict,
                    p: None,
                    adjusted: None,
                },
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
