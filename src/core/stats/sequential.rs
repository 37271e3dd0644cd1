//! The p-value of a pair's re-asks *as they were asked*: one at a time,
//! with a look after each.
//!
//! Looking after every re-ask and stopping at the first small p-value is
//! more likely to stop somewhere than one test at the end. So a pair's
//! p-value is not the Boschloo p-value of its last look but the exact
//! probability that the whole design — up to `cap` re-asks, a look after
//! each — would ever have shown a p-value as small as the smallest this
//! pair showed ([`sequential_p`]). "Exact" as Boschloo's test is: the
//! largest such probability over every common failure rate of the
//! reference's samples and the re-asks, the reference's own count random
//! too. Stopping early for any other reason only removes chances to look,
//! so the p-value stays valid for the rule that stops.
//!
//! How many re-asks a pair may get ([`cap_for`]) is fixed before the first
//! one, from the size of the family: the more pairs share the false-alarm
//! rate, the smaller each one's share and the more failing re-asks a pair
//! needs to reach it. The cap is the fewest failing re-asks that reach the
//! family's strictest share for a reference that passed every sample, plus
//! [`SLACK`] for a re-ask that passes by chance.

use std::cell::RefCell;
use std::collections::HashMap;

use statrs::function::factorial::ln_binomial;

use super::{boschloo_worse, maximum};

/// The most re-asks any pair gets.
pub const MAX_CAP: u64 = 8;

/// The fewest re-asks a pair's cap allows.
const MIN_CAP: u64 = 3;

/// Re-asks beyond the fewest that could decide: room for a re-ask that
/// passes by chance.
pub const SLACK: u64 = 2;

/// A pair's re-asks in call order: `asked` of them, bit `i` of `fails` set
/// when re-ask `i` failed again. At most [`MAX_CAP`] are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Path {
    /// Re-asks made.
    pub asked: u64,
    /// Which of them failed (bit `i`: re-ask `i`).
    pub fails: u16,
}

impl Path {
    /// The path of `outcomes` (`true`: failed again), its first
    /// [`MAX_CAP`] only.
    pub fn of(outcomes: &[bool]) -> Path {
        outcomes
            .iter()
            .take(MAX_CAP as usize)
            .fold(Path::default(), |path, &failed| path.then(failed))
    }

    /// This path and one more re-ask.
    pub fn then(self, failed: bool) -> Path {
        if self.asked >= MAX_CAP {
            return self;
        }
        Path {
            asked: self.asked + 1,
            fails: self.fails | (u16::from(failed) << self.asked),
        }
    }

    /// Re-asks that failed again.
    pub fn failed(self) -> u64 {
        u64::from(self.fails.count_ones())
    }

    /// This path with every re-ask up to `cap` failing.
    pub fn failing_to(self, cap: u64) -> Path {
        (self.asked..cap.min(MAX_CAP)).fold(self, |path, _| path.then(true))
    }

    /// The smallest Boschloo p-value of the looks along this path, for a
    /// reference of `passed` of `samples` (1 before any re-ask).
    pub fn smallest_look(self, passed: u64, samples: u64) -> f64 {
        let mut failed = 0;
        let mut smallest: f64 = 1.0;
        for i in 0..self.asked {
            failed += u64::from((self.fails >> i) & 1);
            smallest = smallest.min(boschloo_worse(passed, samples, failed, i + 1));
        }
        smallest
    }
}

/// How many re-asks a pair whose reference has `samples` samples gets in a
/// family of `family` pairs at false-alarm rate `alpha`: the fewest
/// failing re-asks with which a reference that passed all `samples`
/// reaches `alpha / family`, plus [`SLACK`], within
/// `[MIN_CAP, MAX_CAP]`.
pub fn cap_for(samples: u64, family: usize, alpha: f64) -> u64 {
    let share = alpha / family.max(1) as f64;
    let fewest = (1..=MAX_CAP)
        .find(|&r| boschloo_worse(samples, samples, r, r) <= share)
        .unwrap_or(MAX_CAP);
    (fewest + SLACK).clamp(MIN_CAP, MAX_CAP)
}

/// The p-value of `path` for a reference of `passed` of `samples`, under a
/// design of at most `cap` re-asks with a look after each: the largest
/// probability, over the common failure rate, that some look of the
/// design shows a Boschloo p-value at most the smallest `path` showed.
pub fn sequential_p(passed: u64, samples: u64, cap: u64, path: Path) -> f64 {
    let seen = path.smallest_look(passed, samples);
    if seen >= 1.0 {
        return 1.0;
    }
    let cap = cap.clamp(path.asked.max(1), MAX_CAP);
    let key = (samples, cap, seen.to_bits());
    if let Some(p) = SEQUENTIAL.with(|memo| memo.borrow().get(&key).copied()) {
        return p;
    }
    let bar = seen * (1.0 + 1e-9);
    let total = samples + cap;
    // ln of the summed weight of every (reference count, full path) whose
    // smallest look is at most `bar`, by its number of failures.
    let mut weight = vec![0.0_f64; total as usize + 1];
    DESIGNS.with(|designs| {
        let mut designs = designs.borrow_mut();
        let rows = designs
            .entry((samples, cap))
            .or_insert_with(|| design(samples, cap));
        for row in rows.iter().filter(|r| r.smallest <= bar) {
            weight[row.failures as usize] += row.count;
        }
    });
    let probability = |q: f64| -> f64 {
        weight
            .iter()
            .enumerate()
            .filter(|(_, w)| **w > 0.0)
            .map(|(a, w)| {
                let (a, b) = (a as f64, (total as usize - a) as f64);
                let ln = w.ln() + ln_power(q, a) + ln_power(1.0 - q, b);
                ln.exp()
            })
            .sum()
    };
    let p = maximum(probability).min(1.0);
    SEQUENTIAL.with(|memo| memo.borrow_mut().insert(key, p));
    p
}

/// `a · ln x`, with `0 · ln 0 = 0`.
fn ln_power(x: f64, a: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else if x <= 0.0 {
        f64::NEG_INFINITY
    } else {
        a * x.ln()
    }
}

/// One (reference count, full path) of a design, by what the sum needs.
struct Row {
    smallest: f64,
    failures: u64,
    count: f64,
}

/// Every reference count of `samples` and every path of `cap` re-asks:
/// its smallest look, its failures (the reference's and the path's) and
/// how many ways the reference count arises.
fn design(samples: u64, cap: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for passed in 0..=samples {
        let count = ln_binomial(samples, passed).exp();
        for fails in 0..(1u32 << cap) {
            let path = Path {
                asked: cap,
                fails: fails as u16,
            };
            rows.push(Row {
                smallest: path.smallest_look(passed, samples),
                failures: samples - passed + path.failed(),
                count,
            });
        }
    }
    rows
}

thread_local! {
    /// Designs already enumerated, by (samples, cap).
    static DESIGNS: RefCell<HashMap<(u64, u64), Vec<Row>>> = RefCell::default();
    /// Sequential p-values already computed, by (samples, cap, smallest look).
    static SEQUENTIAL: RefCell<HashMap<(u64, u64, u64), f64>> = RefCell::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> Path {
        Path::of(&text.chars().map(|c| c == 'F').collect::<Vec<_>>())
    }

    #[test]
    fn a_path_keeps_its_order_and_at_most_the_largest_cap() {
        let p = path("FPF");
        assert_eq!((p.asked, p.failed(), p.fails), (3, 2, 0b101));
        assert_eq!(path(&"F".repeat(20)).asked, MAX_CAP);
        assert_eq!(path("P").failing_to(4), path("PFFF"));
    }

    #[test]
    fn looking_after_each_re_ask_costs_what_the_extra_looks_could_have_found() {
        // Failing every re-ask: the first look that reaches a p-value is the
        // one that counts, so the sequential p is close to the last look's.
        let ff = sequential_p(5, 5, 4, path("FF"));
        assert!((ff - boschloo_worse(5, 5, 2, 2)).abs() < 0.005, "{ff}");
        // A pass between failures: the design could have stopped at other
        // paths as extreme, so the p-value grows.
        let fpf = sequential_p(5, 5, 4, path("FPF"));
        assert!(fpf > boschloo_worse(5, 5, 2, 3), "{fpf}");
        // Never a p-value above 1, and no failure is no evidence.
        assert_eq!(sequential_p(5, 5, 4, path("PP")), 1.0);
        assert!(sequential_p(1, 2, 8, path("FFFFFFFF")) <= 1.0);
    }

    #[test]
    fn the_cap_grows_with_the_family() {
        assert_eq!(cap_for(5, 1, 0.05), 4);
        assert_eq!(cap_for(5, 5, 0.05), 5);
        assert_eq!(cap_for(5, 12, 0.05), 6);
        assert_eq!(cap_for(5, 10_000, 0.05), MAX_CAP);
        assert_eq!(cap_for(20, 1, 0.05), MIN_CAP);
    }
}
