//! The p-value of a pair's re-asks *as they were asked*: one at a time,
//! with a look after each, against the failure rate its reference leaves
//! plausible (`super::bound`).
//!
//! Under the null hypothesis the case fails at most `ceiling` of the time
//! (its reference's bound). At each look `t` with `f` failures so far the
//! evidence is the binomial tail `P(Bin(t, ceiling) ≥ f)`. Looking after
//! every re-ask and stopping at the first small tail is more likely to
//! stop somewhere than one test at the end, so a pair's p-value is the
//! exact probability, at the ceiling, that the whole design — up to `cap`
//! re-asks, a look after each — would *ever* show a tail as small as the
//! smallest this pair showed ([`sequential_p`], a first-passage sum over
//! the design's paths). A case failing less often than the ceiling shows
//! such a tail even less often, so the p-value is valid for every rate the
//! null allows. Stopping early for any other reason only removes chances to
//! look.
//!
//! How many re-asks a pair may get ([`cap_for`]) is fixed before the first
//! one, from the size of the family and the pair's ceiling: the fewest
//! failing re-asks that reach the family's strictest share, plus [`SLACK`]
//! for a re-ask that passes by chance.

use super::binomial_upper;

/// The most re-asks any pair gets.
pub const MAX_CAP: u64 = 12;

/// Re-asks beyond the fewest that could decide: room for re-asks that
/// pass by chance.
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

    /// The smallest binomial tail of the looks along this path against a
    /// failure rate of `ceiling` (1 before any re-ask).
    pub fn smallest_look(self, ceiling: f64) -> f64 {
        let mut failed = 0;
        let mut smallest: f64 = 1.0;
        for i in 0..self.asked {
            failed += u64::from((self.fails >> i) & 1);
            smallest = smallest.min(tail(failed, i + 1, ceiling));
        }
        smallest
    }
}

/// The evidence of one look: `P(Bin(asked, ceiling) ≥ failed)`, 1 without
/// a failure.
fn tail(failed: u64, asked: u64, ceiling: f64) -> f64 {
    if failed == 0 {
        1.0
    } else {
        binomial_upper(failed, asked, ceiling)
    }
}

/// How many re-asks a pair whose failure rate may be up to `ceiling` gets
/// in a family of `family` pairs tested at `level`: the fewest failing
/// re-asks whose tail reaches `level / family`, plus [`SLACK`], at most
/// [`MAX_CAP`] (`MAX_CAP` when none within it would).
pub fn cap_for(ceiling: f64, family: usize, level: f64) -> u64 {
    let share = level / family.max(1) as f64;
    let fewest = (1..=MAX_CAP)
        .find(|&r| tail(r, r, ceiling) <= share)
        .unwrap_or(MAX_CAP);
    (fewest + SLACK).min(MAX_CAP)
}

/// The p-value of `path` against a failure rate of `ceiling`, under a
/// design of at most `cap` re-asks with a look after each: the probability
/// that some look of the design shows a tail at most the smallest `path`
/// showed.
pub fn sequential_p(ceiling: f64, cap: u64, path: Path) -> f64 {
    let seen = path.smallest_look(ceiling);
    if seen >= 1.0 {
        return 1.0;
    }
    let bar = seen * (1.0 + 1e-9);
    let cap = cap.clamp(path.asked.max(1), MAX_CAP);
    // alive[f]: the probability of f failures after t re-asks without
    // having shown a tail as small; hit: the probability that has.
    let mut alive = vec![1.0_f64];
    let mut hit = 0.0_f64;
    for t in 1..=cap {
        let mut next = vec![0.0_f64; t as usize + 1];
        for (f, &p) in alive.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            for (failed, weight) in [(f + 1, ceiling), (f, 1.0 - ceiling)] {
                if tail(failed as u64, t, ceiling) <= bar {
                    hit += p * weight;
                } else {
                    next[failed] += p * weight;
                }
            }
        }
        alive = next;
    }
    hit.min(1.0)
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
        // Failing every re-ask: the last look's tail (0.2² = 0.04), and the
        // chance that a later look of the design reaches as far (3 of 4, 3
        // of 5, 4 of 6 …): 0.05792 over the 64 paths of six re-asks.
        let ff = sequential_p(0.2, 6, path("FF"));
        assert!((ff - 0.05792).abs() < 1e-12, "{ff}");
        // A pass between failures: the design could have stopped at other
        // paths as extreme, so the p-value grows past the last look's.
        let fpf = sequential_p(0.2, 6, path("FPF"));
        assert!(fpf > binomial_upper(2, 3, 0.2), "{fpf}");
        // Never a p-value above 1, and no failure is no evidence.
        assert_eq!(sequential_p(0.2, 6, path("PP")), 1.0);
        assert!(sequential_p(0.9, 12, path("FFFFFFFF")) <= 1.0);
    }

    #[test]
    fn the_cap_grows_with_the_family_and_the_ceiling() {
        assert_eq!(cap_for(0.1, 1, 0.035), 4);
        assert_eq!(cap_for(0.1, 100, 0.035), 6);
        assert_eq!(cap_for(0.3, 1, 0.035), 5);
        assert_eq!(cap_for(0.9, 1, 0.035), MAX_CAP);
        assert_eq!(cap_for(0.001, 1, 0.035), 1 + SLACK);
    }
}
