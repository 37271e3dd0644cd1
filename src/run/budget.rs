//! A hard spending cap (`--max-usd`, `[suite] max_usd`): what the run may
//! spend on the target and the judges together, in USD.
//!
//! Before a call is sent it reserves its worst case (every input byte as a
//! token at the input rate, plus `max_tokens` at the output rate:
//! `client::pricing::Price::worst_case`); the call is sent only when the
//! reservation fits beside what is spent and reserved already. When it
//! answers, the reservation is settled at the call's real price (or kept
//! whole when the price is unknown), so what the run records never goes
//! over the cap. A call that does not fit is not sent: the budget is then
//! exhausted, no further case is picked, and every case not asked is
//! recorded as not judged with the cause "budget" (`BUDGET_REASON`), which
//! makes the gate's answer 2, never 1.
//!
//! A call whose worst case is unknown (an HTTP target, which reports its
//! own cost after answering) reserves an estimate: the dearest such call
//! seen so far in this run, or, before any answered, the price of one call
//! in the suite's last recorded spend (`Budget::estimating`). It is charged
//! what it reports. Without either (a first run with a cap), the first
//! calls in flight reserve nothing, so the cap holds to within them; the
//! documentation says so.
//!
//! Under `--shard K/N` each shard holds an N-th of the cap
//! ([`share`]), so the shards together stay within it.

use std::sync::Mutex;

use crate::core::spend::Spend;

/// The reason recorded for a check the cap kept from being asked or
/// judged; `report::cause` reads its prefix.
pub const BUDGET_REASON: &str = "the spending cap was reached";

/// Shard `shards`' part of a cap.
pub fn share(cap: f64, shards: u32) -> f64 {
    cap / f64::from(shards.max(1))
}

/// What the plan says a run will cost, from an earlier run's spend record
/// (`spent`, over its `cases`): (USD a case, USD for `to_ask` cases);
/// `None` when that run recorded no money.
pub fn estimate(spent: &Spend, cases: usize, to_ask: usize) -> Option<(f64, f64)> {
    if cases == 0 || (spent.target.usd.is_none() && spent.judges.usd.is_none()) {
        return None;
    }
    let total = spent.target.usd.unwrap_or(0.0) + spent.judges.usd.unwrap_or(0.0);
    let per_case = total / cases as f64;
    Some((per_case, per_case * to_ask as f64))
}

/// USD a run's spend record holds, the target's and the judges' together.
pub fn total(spent: &Spend) -> f64 {
    spent.target.usd.unwrap_or(0.0) + spent.judges.usd.unwrap_or(0.0)
}

#[derive(Debug, Default)]
struct State {
    spent: f64,
    reserved: f64,
    exhausted: bool,
    /// The dearest answered call whose worst case was unknown.
    dearest: f64,
}

/// One run's cap.
#[derive(Debug)]
pub struct Budget {
    cap: f64,
    /// What a call of unknown worst case is expected to cost before one of
    /// them answered (from the suite's last recorded spend).
    expected: f64,
    state: Mutex<State>,
}

/// A reservation made before a call; settle it when the call is done.
#[derive(Debug)]
#[must_use = "a reservation is settled when its call is done"]
pub struct Reservation {
    amount: f64,
    /// True when the call's worst case was unknown (the amount is an
    /// estimate).
    estimated: bool,
}

impl Budget {
    /// A cap of `cap` USD (finite, ≥ 0).
    pub fn new(cap: f64) -> Budget {
        Budget::estimating(cap, None)
    }

    /// A cap of `cap` USD, a call of unknown worst case expected to cost
    /// `per_call` USD until one has answered.
    pub fn estimating(cap: f64, per_call: Option<f64>) -> Budget {
        Budget {
            cap,
            expected: per_call
                .filter(|p| p.is_finite() && *p > 0.0)
                .unwrap_or(0.0),
            state: Mutex::new(State::default()),
        }
    }

    /// A fresh budget of what is left of this cap once `spent` USD went
    /// elsewhere (a gate's re-asks after its run), with the same estimate
    /// for a call of unknown price.
    pub fn after(&self, spent: f64) -> Budget {
        Budget::estimating((self.cap - spent).max(0.0), Some(self.expected))
    }

    /// The cap, USD.
    pub fn cap(&self) -> f64 {
        self.cap
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserve `worst` USD (`None`: unknown, nothing reserved) for one
    /// call; `None` when it does not fit, which exhausts the budget.
    pub fn reserve(&self, worst: Option<f64>) -> Option<Reservation> {
        let mut s = self.state();
        if s.exhausted {
            return None;
        }
        let amount = match worst {
            Some(worst) => worst.max(0.0),
            None => s.dearest.max(self.expected),
        };
        // Sums of prices in floating point carry rounding (five 0.001s can
        // add up to 0.005000000000000001): within a part in a billion, a
        // spend is at the cap, not past it.
        let (past, at) = (self.cap * (1.0 + 1e-9), self.cap * (1.0 - 1e-9));
        if s.spent + s.reserved + amount > past || s.spent >= at && amount == 0.0 {
            s.exhausted = true;
            return None;
        }
        s.reserved += amount;
        Some(Reservation {
            amount,
            estimated: worst.is_none(),
        })
    }

    /// The call is done: charge `actual` USD (`None` when its price is
    /// unknown: the whole reservation is charged).
    pub fn settle(&self, reservation: Reservation, actual: Option<f64>) {
        let mut s = self.state();
        s.reserved = (s.reserved - reservation.amount).max(0.0);
        let charged = actual.unwrap_or(reservation.amount).max(0.0);
        if reservation.estimated {
            s.dearest = s.dearest.max(charged);
        }
        s.spent += charged;
    }

    /// The call never reached the provider (a refused connection): nothing
    /// is charged.
    pub fn release(&self, reservation: Reservation) {
        let mut s = self.state();
        s.reserved = (s.reserved - reservation.amount).max(0.0);
    }

    /// True once a call did not fit: no further case is picked.
    pub fn exhausted(&self) -> bool {
        self.state().exhausted
    }

    /// USD charged so far.
    pub fn spent(&self) -> f64 {
        self.state().spent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_sent_only_when_its_worst_case_fits_and_spend_never_passes_the_cap() {
        let budget = Budget::new(1.0);
        let a = budget.reserve(Some(0.6)).unwrap();
        // 0.6 reserved: another worst case of 0.6 does not fit.
        assert!(budget.reserve(Some(0.6)).is_none());
        assert!(budget.exhausted());
        // Once exhausted, nothing more is reserved, even what would fit.
        assert!(budget.reserve(Some(0.1)).is_none());
        budget.settle(a, Some(0.2));
        assert!((budget.spent() - 0.2).abs() < 1e-12);
        assert!(budget.spent() <= budget.cap());
    }

    #[test]
    fn an_unknown_price_is_charged_its_whole_reservation_and_a_refused_call_nothing() {
        let budget = Budget::new(1.0);
        let a = budget.reserve(Some(0.3)).unwrap();
        budget.settle(a, None);
        let b = budget.reserve(Some(0.3)).unwrap();
        budget.release(b);
        assert!((budget.spent() - 0.3).abs() < 1e-12);
        // An unknown worst case reserves nothing and is charged what it reports.
        let c = budget.reserve(None).unwrap();
        budget.settle(c, Some(0.7));
        assert!((budget.spent() - 1.0).abs() < 1e-12);
        assert!(budget.reserve(None).is_none(), "the cap is spent");
        assert_eq!(share(1.0, 4), 0.25);
        assert_eq!(share(1.0, 0), 1.0);
    }

    #[test]
    fn the_estimate_scales_the_last_runs_spend_a_case() {
        let mut spent = Spend::default();
        assert_eq!(estimate(&spent, 10, 5), None, "no money recorded");
        spent.target.add(Some(0.3), None);
        spent.judges.add(Some(0.1), None);
        let (per_case, total_usd) = estimate(&spent, 10, 5).unwrap();
        assert!((per_case - 0.04).abs() < 1e-12 && (total_usd - 0.2).abs() < 1e-12);
        assert_eq!(estimate(&spent, 0, 5), None);
        assert!((total(&spent) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn a_call_of_unknown_price_reserves_what_such_calls_cost() {
        // Before any answered: the last recorded price of one call.
        let budget = Budget::estimating(0.005, Some(0.001));
        let held: Vec<Reservation> = (0..5).map(|_| budget.reserve(None).unwrap()).collect();
        assert!(budget.reserve(None).is_none(), "a sixth does not fit");
        for r in held {
            budget.settle(r, Some(0.001));
        }
        assert!(budget.spent() <= 0.005 + 1e-12);
        // Without a record, the first reserves nothing; once one answered,
        // the dearest answered price is reserved.
        let budget = Budget::new(0.0025);
        let first = budget.reserve(None).unwrap();
        budget.settle(first, Some(0.001));
        let a = budget.reserve(None).unwrap();
        assert!(
            budget.reserve(None).is_none(),
            "0.001 spent + 0.001 held + 0.001 > 0.0025"
        );
        budget.settle(a, Some(0.001));
        assert!(budget.spent() <= 0.0025);
    }

    #[test]
    fn many_workers_together_stay_within_the_cap() {
        let budget = Budget::new(0.5);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    while let Some(r) = budget.reserve(Some(0.01)) {
                        budget.settle(r, Some(0.007));
                    }
                });
            }
        });
        assert!(budget.exhausted());
        assert!(budget.spent() <= 0.5 + 1e-9, "{}", budget.spent());
        assert!(budget.spent() > 0.4, "{}", budget.spent());
    }
}
