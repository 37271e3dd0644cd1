//! What a reference's count lets the gate assume about a case: a lower
//! confidence bound on its pass rate, held jointly over every pair that
//! could be tested.
//!
//! A pair is tested because its reference passed and the pull request's
//! first answer failed. The reference's count is then not an unselected
//! draw: among many borderline cases, some passed every sample by luck,
//! and those are exactly the ones the gate tests. So the gate never treats
//! the count as the case's rate. It takes the one-sided Clopper–Pearson
//! lower bound of the pass rate at level `γ / exposed` ([`lower_bound`]),
//! where `exposed` is the number of measured pairs whose first answer
//! failed: a set chosen by the pull request's first answers alone, which
//! are independent of the reference. By Bonferroni, with probability at
//! least `1 − γ` over the reference every tested pair's true rate is at or
//! above its bound, whichever pairs were selected. The re-asks are then
//! tested against the bound (`super::sequential`), at the rest of the
//! declared rate.
//!
//! `γ` is [`REFERENCE_SHARE`] of the declared false-alarm rate.

use super::binomial_upper;

/// The share of the declared false-alarm rate spent on the reference's
/// bounds; the rest tests the re-asks.
pub const REFERENCE_SHARE: f64 = 0.3;

/// The one-sided Clopper–Pearson lower bound of a pass rate at level
/// `delta`, from `passed` of `samples`: the rate `p` at which passing
/// `passed` or more times has probability exactly `delta` (scipy's
/// `beta.ppf(delta, passed, samples − passed + 1)`); 0 when nothing
/// passed. A true rate below it shows `passed` or more with probability
/// below `delta`.
pub fn lower_bound(passed: u64, samples: u64, delta: f64) -> f64 {
    if passed == 0 || samples == 0 {
        return 0.0;
    }
    let passed = passed.min(samples);
    if passed == samples {
        // P(all pass) = pⁿ: closed form.
        return delta.clamp(0.0, 1.0).powf(1.0 / samples as f64);
    }
    // The upper tail grows with the rate: bisect to the last bit.
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let middle = (low + high) / 2.0;
        if middle <= low || middle >= high {
            break;
        }
        if binomial_upper(passed, samples, middle) < delta {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

/// The highest failure rate a reference of `passed` of `samples` leaves
/// plausible for a pair among `exposed` at total reference level `gamma`:
/// one minus [`lower_bound`] at `gamma / exposed`.
pub fn failure_ceiling(passed: u64, samples: u64, gamma: f64, exposed: usize) -> f64 {
    1.0 - lower_bound(passed, samples, gamma / exposed.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_where_the_count_becomes_improbable() {
        let l = lower_bound(29, 30, 0.01);
        assert!((binomial_upper(29, 30, l) - 0.01).abs() < 1e-12, "{l}");
        assert!((lower_bound(5, 5, 0.05) - 0.05_f64.powf(0.2)).abs() < 1e-15);
        assert_eq!(lower_bound(0, 5, 0.05), 0.0);
    }

    #[test]
    fn more_pairs_exposed_lower_every_bound() {
        assert!(failure_ceiling(30, 30, 0.015, 1) < failure_ceiling(30, 30, 0.015, 100));
        // A lucky 5 of 5 among many failures says little about the case.
        assert!(failure_ceiling(5, 5, 0.015, 200) > 0.8);
    }
}
