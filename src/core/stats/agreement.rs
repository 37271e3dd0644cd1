//! How far a judge agrees with people, and how far its verdicts on fixed
//! answers moved: Clopper–Pearson intervals for the true-pass and
//! true-fail rates, Cohen's κ with its asymptotic interval, and the
//! smallest shift an exact McNemar test can see — pure.
//!
//! Checked against statsmodels (`proportion_confint(method="beta")`,
//! `inter_rater.cohens_kappa`) and scikit-learn (`cohen_kappa_score`) to
//! 1e-9 by `tests.rs`.

use statrs::function::beta::beta_reg;

use super::{mcnemar_exact, normal_quantile};

/// The exact (Clopper–Pearson) interval for `successes` of `n` at
/// `1 − alpha`: the beta quantiles, `(0, 1)` for `n = 0`.
pub fn clopper_pearson(successes: u64, n: u64, alpha: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, nf) = (successes as f64, n as f64);
    let low = if successes == 0 {
        0.0
    } else {
        beta_quantile(alpha / 2.0, k, nf - k + 1.0)
    };
    let high = if successes == n {
        1.0
    } else {
        beta_quantile(1.0 - alpha / 2.0, k + 1.0, nf - k)
    };
    (low, high)
}

/// The `q` quantile of Beta(a, b), by bisection on the regularized
/// incomplete beta function (monotone, so the bisection cannot miss).
fn beta_quantile(q: f64, a: f64, b: f64) -> f64 {
    super::crossing(|x| beta_reg(a, b, x), q)
}

/// Cohen's κ between a judge and people on a 2 × 2 table
/// `[[both pass, judge fail · people pass], [judge pass · people fail,
/// both fail]]` (any fixed orientation: κ is symmetric), with the
/// asymptotic standard error of Fleiss, Cohen and Everitt (1969) and the
/// normal interval statsmodels' `cohens_kappa` reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kappa {
    /// κ itself: agreement beyond chance, 1 for perfect, 0 for chance.
    pub kappa: f64,
    /// Its asymptotic standard error.
    pub std_error: f64,
    /// The interval's lower end, `κ − z·se`.
    pub low: f64,
    /// The interval's upper end, `κ + z·se`.
    pub high: f64,
}

/// κ and its interval at `1 − alpha`; `None` when the table is empty or
/// chance agreement is already total (every rating the same: κ undefined).
pub fn cohen_kappa(table: [[u64; 2]; 2], alpha: f64) -> Option<Kappa> {
    let n: u64 = table.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let p = |i: usize, j: usize| table[i][j] as f64 / nf;
    let row = [p(0, 0) + p(0, 1), p(1, 0) + p(1, 1)];
    let col = [p(0, 0) + p(1, 0), p(0, 1) + p(1, 1)];
    let expected = row[0] * col[0] + row[1] * col[1];
    if (1.0 - expected).abs() < 1e-15 {
        return None;
    }
    let observed = p(0, 0) + p(1, 1);
    let kappa = (observed - expected) / (1.0 - expected);
    let diagonal: f64 = (0..2)
        .map(|i| p(i, i) * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2))
        .sum();
    let off: f64 = [(0, 1), (1, 0)]
        .iter()
        .map(|&(i, j)| p(i, j) * (col[i] + row[j]).powi(2))
        .sum::<f64>()
        * (1.0 - kappa).powi(2);
    let chance = (kappa - expected * (1.0 - kappa)).powi(2);
    let variance = ((diagonal + off - chance) / (1.0 - expected).powi(2) / nf).max(0.0);
    let std_error = variance.sqrt();
    let z = normal_quantile(1.0 - alpha / 2.0);
    Some(Kappa {
        kappa,
        std_error,
        low: kappa - z * std_error,
        high: kappa + z * std_error,
    })
}

/// How many labelled anchors in all would put κ's lower bound at or above
/// `floor`, were κ and the spread of the table to stay as they are (the
/// standard error shrinks as `1/√n`): `None` when κ itself is at or under
/// the floor, where no number of labels can lift the bound over it.
pub fn labels_to_decide(kappa: &Kappa, n: u64, floor: f64, alpha: f64) -> Option<u64> {
    if kappa.kappa <= floor {
        return None;
    }
    if kappa.low >= floor {
        return Some(n);
    }
    let z = normal_quantile(1.0 - alpha / 2.0);
    let per_label = kappa.std_error * (n as f64).sqrt();
    let needed = (z * per_label / (kappa.kappa - floor)).powi(2);
    Some((needed.ceil() as u64).max(n))
}

/// The smallest shift, as a share of `n` anchors, that the exact McNemar
/// test detects at `alpha` when every moved anchor moved the same way:
/// what a judge that did not move could have been seen to move by.
/// `None` when even all `n` moving together would not be significant.
pub fn detectable_shift(n: u64, alpha: f64) -> Option<f64> {
    (1..=n)
        .find(|&k| mcnemar_exact(k, 0) < alpha)
        .map(|k| k as f64 / n as f64)
}
