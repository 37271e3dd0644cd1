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
//! in the suite's last recorded spend (`Budget::estimating`), or nothing
//! on a first run. It is charged what it reports. Nothing proves what such
//! a call costs before it answers, so under a cap they go **one at a
//! time**: a price that rises mid-run is met by one call, never by every
//! call in flight.
//!
//! A call whose worst case is known (a provider's: every input byte as a
//! token) goes alone until the first one has been billed, then side by
//! side: a provider that counts more tokens than the bytes sent is met by
//! that first call, and every later worst case is scaled by the largest
//! bill-to-worst-case ratio seen.
//!
//! What the cap could not prove beforehand is said, never hidden: a call
//! billed more than its reservation is charged what it was billed and
//! counted in the spend record (`overbilled`: how many, and by how much);
//! the next call that could pass the cap at the new price is not sent
//! (exit 2). So the cap is passed by at most what one call was billed over
//! its reservation (for known worst cases: the calls in flight when a
//! provider first billed over them, once it had billed within them). A
//! call that failed is released (a provider bills what it answers); it is
//! counted in the spend record's `sent`.
//!
//! Under `--shard K/N` each shard holds an N-th of the cap
//! ([`share`]), so the shards together stay within it.

use std::sync::{Condvar, Mutex};

use crate::core::spend::{Overbilled, Spend};

/// The reason recorded for a check the cap kept from being asked or
/// judged; `report::cause` reads its prefix.
pub const BUDGET_REASON: &str = "the spending cap was reached";

/// Shard `shards`' part of a cap.
pub fn share(cap: f64, shards: u32) -> f64 {
    cap / f64::from(shards.max(1))
}

/// What the plan says a run will cost, from an earlier run's spend record
/// (`spent`, over its `cases`): (USD a case, USD for `to_ask` cases);
/// `None` when that run recorded no money. A case costs the spend over the
/// cases whose calls were made (`cases_asked`): a run its cap stopped asked
/// fewer than its cases, and one that does not say how many (an older
/// record) gives no estimate.
pub fn estimate(spent: &Spend, cases: usize, to_ask: usize) -> Option<(f64, f64)> {
    let asked = match (spent.cases_asked, spent.budget_exhausted) {
        (0, true) => return None,
        (0, false) => cases,
        (n, _) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    if asked == 0 || (spent.target.usd.is_none() && spent.judges.usd.is_none()) {
        return None;
    }
    let total = spent.target.usd.unwrap_or(0.0) + spent.judges.usd.unwrap_or(0.0);
    let per_case = total / asked as f64;
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
    /// The largest bill over worst case seen (≥ 1 once a call answered
    /// over it): later worst cases are multiplied by it.
    scale: f64,
    /// Calls billed over their reservation.
    overbilled: Overbilled,
    /// Calls of unknown price in flight (at most one).
    unknown_in_flight: usize,
    /// Calls of known worst case in flight.
    known_in_flight: usize,
    /// A call of known worst case has been billed: such calls may go side
    /// by side.
    known_billed: bool,
}

impl State {
    /// A call of unknown price (or of known worst case) left the flight.
    fn in_flight_done(&mut self, unknown: bool) {
        let count = if unknown {
            &mut self.unknown_in_flight
        } else {
            &mut self.known_in_flight
        };
        *count = count.saturating_sub(1);
    }
}

/// One run's cap.
#[derive(Debug)]
pub struct Budget {
    cap: f64,
    /// What a call of unknown worst case is expected to cost before one of
    /// them answered (from the suite's last recorded spend).
    expected: f64,
    state: Mutex<State>,
    /// Wakes a call of unknown price waiting for the one in flight.
    settled: Condvar,
}

/// A reservation made before a call; settle it when the call is done.
#[derive(Debug)]
#[must_use = "a reservation is settled when its call is done"]
pub struct Reservation {
    amount: f64,
    /// The call's worst case as its price gave it, before scaling (`None`:
    /// unknown, the amount is an estimate).
    worst: Option<f64>,
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
            settled: Condvar::new(),
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

    /// Reserve `worst` USD (`None`: unknown, an estimate) for one call;
    /// `None` when it does not fit, which exhausts the budget. A call of
    /// unknown price waits here while another is in flight; a call of known
    /// worst case waits while another is in flight until one was billed.
    pub fn reserve(&self, worst: Option<f64>) -> Option<Reservation> {
        let mut s = self.state();
        loop {
            if s.exhausted {
                return None;
            }
            let amount = match worst {
                Some(worst) => worst.max(0.0) * s.scale.max(1.0),
                None => s.dearest.max(self.expected),
            };
            // Sums of prices in floating point carry rounding (five 0.001s
            // can add up to 0.005000000000000001): within a part in a
            // billion, a spend is at the cap, not past it.
            let (past, at) = (self.cap * (1.0 + 1e-9), self.cap * (1.0 - 1e-9));
            if s.spent + s.reserved + amount > past || s.spent >= at && amount == 0.0 {
                s.exhausted = true;
                drop(s);
                self.settled.notify_all();
                return None;
            }
            let alone = match worst {
                None => s.unknown_in_flight == 0,
                Some(_) => s.known_billed || s.known_in_flight == 0,
            };
            if alone {
                s.reserved += amount;
                match worst {
                    None => s.unknown_in_flight += 1,
                    Some(_) => s.known_in_flight += 1,
                }
                return Some(Reservation { amount, worst });
            }
            // It fits now; the call in flight may change what it costs.
            s = self.settled.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The call is done: charge `actual` USD (`None` when its price is
    /// unknown: the whole reservation is charged). A bill over the
    /// reservation is counted, and the reservations follow it from now on.
    pub fn settle(&self, reservation: Reservation, actual: Option<f64>) {
        let mut s = self.state();
        s.reserved = (s.reserved - reservation.amount).max(0.0);
        let charged = actual.unwrap_or(reservation.amount).max(0.0);
        let over = charged - reservation.amount;
        // A first call of unknown price reserved nothing: nothing proven,
        // nothing exceeded (it went alone).
        if over > reservation.amount * 1e-9 && reservation.amount > 0.0 {
            s.overbilled.calls += 1;
            s.overbilled.usd += over;
            if let Some(worst) = reservation.worst.filter(|w| *w > 0.0) {
                s.scale = s.scale.max(charged / worst);
            }
        }
        match reservation.worst {
            None => s.dearest = s.dearest.max(charged),
            Some(_) => s.known_billed = true,
        }
        s.in_flight_done(reservation.worst.is_none());
        s.spent += charged;
        drop(s);
        self.settled.notify_all();
    }

    /// The call failed (a refused connection, an error status): nothing is
    /// charged — a provider bills what it answers.
    pub fn release(&self, reservation: Reservation) {
        let mut s = self.state();
        s.reserved = (s.reserved - reservation.amount).max(0.0);
        s.in_flight_done(reservation.worst.is_none());
        drop(s);
        self.settled.notify_all();
    }

    /// The calls billed over their reservation so far.
    pub fn overbilled(&self) -> Overbilled {
        self.state().overbilled
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
        for _ in 0..5 {
            let r = budget.reserve(None).unwrap();
            budget.settle(r, Some(0.001));
        }
        assert!(budget.reserve(None).is_none(), "a sixth does not fit");
        assert!(budget.spent() <= 0.005 + 1e-12);
        // Without a record, the first reserves nothing; once one answered,
        // the dearest answered price is reserved.
        let budget = Budget::new(0.0025);
        let first = budget.reserve(None).unwrap();
        budget.settle(first, Some(0.001));
        let a = budget.reserve(None).unwrap();
        budget.settle(a, Some(0.001));
        assert!(
            budget.reserve(None).is_none(),
            "0.002 spent + 0.001 > 0.0025"
        );
        assert!(budget.spent() <= 0.0025);
    }

    /// An HTTP target whose price rose mid-run: the call that met the rise
    /// is charged its bill and counted; the next call, reserving the new
    /// price, would pass the cap and is not sent.
    #[test]
    fn a_price_that_rises_is_counted_and_the_next_call_that_could_pass_is_not_sent() {
        let budget = Budget::estimating(0.02, Some(0.001));
        for bill in [0.001, 0.001] {
            let r = budget.reserve(None).unwrap();
            budget.settle(r, Some(bill));
        }
        assert!(budget.overbilled().is_empty());
        let risen = budget.reserve(None).unwrap();
        budget.settle(risen, Some(0.01));
        assert_eq!(budget.overbilled().calls, 1);
        assert!((budget.overbilled().usd - 0.009).abs() < 1e-12);
        // 0.012 spent, the next reserves 0.01: 0.022 would pass 0.02.
        assert!(budget.reserve(None).is_none());
        assert!(budget.exhausted());
        assert!(budget.spent() <= 0.02, "{}", budget.spent());
    }

    /// A provider that counted more tokens than the bytes sent: its bill
    /// passes the worst case, and every later worst case is scaled by it.
    #[test]
    fn a_provider_that_counts_more_tokens_scales_every_later_reservation() {
        let budget = Budget::new(0.005);
        let first = budget.reserve(Some(0.001)).unwrap();
        budget.settle(first, Some(0.003));
        assert_eq!(budget.overbilled().calls, 1);
        // The same worst case now reserves 0.003: 0.006 would pass 0.005.
        assert!(budget.reserve(Some(0.001)).is_none());
        assert!(budget.spent() <= 0.005);
    }

    /// Calls of unknown price go one at a time: a price that rises is met
    /// by one call, never by every call in flight. Calls of known worst
    /// case go alone until one was billed, then side by side.
    #[test]
    fn calls_of_unproven_price_go_one_at_a_time() {
        let budget = Budget::estimating(1.0, Some(0.01));
        let first = budget.reserve(None).unwrap();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| budget.reserve(None));
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(!waiting.is_finished(), "it waits for the call in flight");
            budget.settle(first, Some(0.05));
            let second = waiting.join().unwrap().unwrap();
            budget.settle(second, Some(0.01));
        });
        assert_eq!(
            budget.overbilled().calls,
            1,
            "0.05 over an estimate of 0.01"
        );
        let known = budget.reserve(Some(0.001)).unwrap();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| budget.reserve(Some(0.001)));
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(!waiting.is_finished(), "the first known call goes alone");
            budget.settle(known, Some(0.0005));
            let a = waiting.join().unwrap().unwrap();
            let b = budget.reserve(Some(0.001)).unwrap();
            budget.release(a);
            budget.release(b);
        });
    }

    #[test]
    fn the_estimate_comes_from_the_cases_asked() {
        let mut spent = Spend::default();
        spent.target.add(Some(0.03), None);
        spent.cases_asked = 3;
        spent.budget_exhausted = true;
        // A run of 70 cases its cap stopped after 3: 0.01 a case, not 0.03/70.
        let (per_case, _) = estimate(&spent, 70, 10).unwrap();
        assert!((per_case - 0.01).abs() < 1e-12, "{per_case}");
        spent.cases_asked = 0;
        assert_eq!(estimate(&spent, 70, 10), None, "an older stopped record");
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
