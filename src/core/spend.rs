//! What a run spent: the target's and the judges' money (USD) and tokens.
//!
//! A schema-10 run document has no place for it (0.10.0 stores neither
//! judge spend nor tokens, and documents keep its bytes), so it is a side
//! record beside the store's documents (`store::spend`). Counts and money
//! only: measured facts, never payload.
//!
//! Pure.

use serde::{Deserialize, Serialize};

use super::memo::MemoTally;

/// One party's spend: the target, or the judges together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartySpend {
    /// Calls that answered.
    pub calls: u64,
    /// Requests sent: every attempt, answered or not — retries and calls
    /// that failed included (what the provider may bill for).
    #[serde(default)]
    pub sent: u64,
    /// USD over the calls that reported or could be priced; `None` when none could.
    pub usd: Option<f64>,
    /// Input tokens (cache reads and writes included), when reported.
    pub input_tokens: Option<u64>,
    /// Output tokens, when reported.
    pub output_tokens: Option<u64>,
}

impl PartySpend {
    /// Add one call: its price (if known) and tokens (if reported).
    pub fn add(&mut self, usd: Option<f64>, tokens: Option<(u64, u64)>) {
        self.calls += 1;
        if let Some(usd) = usd {
            self.usd = Some(self.usd.unwrap_or(0.0) + usd);
        }
        if let Some((input, output)) = tokens {
            self.input_tokens = Some(self.input_tokens.unwrap_or(0).saturating_add(input));
            self.output_tokens = Some(self.output_tokens.unwrap_or(0).saturating_add(output));
        }
    }

    /// True when nothing was measured.
    pub fn is_unknown(&self) -> bool {
        self.usd.is_none() && self.input_tokens.is_none() && self.output_tokens.is_none()
    }

    /// Add `other`'s calls, money and tokens to these.
    pub fn absorb(&mut self, other: &PartySpend) {
        self.calls += other.calls;
        self.sent += other.sent;
        let sum = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        let count = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        self.usd = sum(self.usd, other.usd);
        self.input_tokens = count(self.input_tokens, other.input_tokens);
        self.output_tokens = count(self.output_tokens, other.output_tokens);
    }
}

/// What one run spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spend {
    /// The system under test.
    pub target: PartySpend,
    /// Every judge call of the run.
    pub judges: PartySpend,
    /// What the judge memo answered instead of a judge.
    #[serde(default, skip_serializing_if = "MemoTally::is_empty")]
    pub memo: MemoTally,
    /// The cap the run was held to (`--max-usd`), USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_usd: Option<f64>,
    /// True when the cap stopped a call: some case was not judged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
    /// Calls billed more than the cap reserved for them (a price that
    /// rose, a provider that counted more tokens than the bytes sent), and
    /// by how much together, USD: what the cap could not prove beforehand.
    #[serde(default, skip_serializing_if = "Overbilled::is_empty")]
    pub overbilled: Overbilled,
    /// Cases whose calls were made (a cap that stopped the run leaves the
    /// rest unasked): what a case costs is the spend over these.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cases_asked: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Calls billed over their reservation under a spending cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overbilled {
    /// How many.
    pub calls: u64,
    /// USD billed beyond what was reserved for them, together.
    pub usd: f64,
}

impl Overbilled {
    /// True when no call was billed over its reservation.
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }
}

impl Spend {
    /// Add what a later phase of the same run spent (the gate's re-asks):
    /// calls, money, tokens and memo tallies; a cap it exhausted is this
    /// run's too.
    pub fn absorb(&mut self, later: &Spend) {
        self.target.absorb(&later.target);
        self.judges.absorb(&later.judges);
        self.memo.hits += later.memo.hits;
        self.memo.misses += later.memo.misses;
        self.memo.saved_usd += later.memo.saved_usd;
        self.budget_exhausted |= later.budget_exhausted;
        self.overbilled.calls += later.overbilled.calls;
        self.overbilled.usd += later.overbilled.usd;
    }

    /// USD spent on the target and the judges together (0 when unknown).
    pub fn usd(&self) -> f64 {
        self.target.usd.unwrap_or(0.0) + self.judges.usd.unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_phase_adds_to_the_run_and_unknown_stays_unknown() {
        let mut run = Spend::default();
        run.target.add(Some(0.01), Some((10, 5)));
        let mut later = Spend::default();
        later.target.add(Some(0.02), None);
        later.target.sent = 5;
        later.judges.add(None, None);
        later.budget_exhausted = true;
        later.overbilled = Overbilled { calls: 1, usd: 0.5 };
        run.absorb(&later);
        assert_eq!(run.target.calls, 2);
        assert_eq!(run.target.sent, 5);
        assert_eq!(run.overbilled.calls, 1);
        assert!((run.target.usd.unwrap() - 0.03).abs() < 1e-12);
        assert_eq!(run.target.input_tokens, Some(10));
        assert_eq!((run.judges.calls, run.judges.usd), (1, None));
        assert!(run.budget_exhausted);
        assert!((run.usd() - 0.03).abs() < 1e-12);
    }

    #[test]
    fn unknown_until_a_call_reports_money_or_tokens() {
        let mut p = PartySpend::default();
        assert!(p.is_unknown());
        p.add(None, None);
        assert!(p.is_unknown());
        assert_eq!(p.calls, 1);
        p.add(Some(0.25), Some((10, 3)));
        p.add(Some(0.5), Some((5, 2)));
        assert_eq!(p.usd, Some(0.75));
        assert_eq!((p.input_tokens, p.output_tokens), (Some(15), Some(5)));
        assert_eq!(p.calls, 3);
    }
}
