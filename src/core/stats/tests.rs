//! The statistics against scipy / statsmodels (`tests/stats/reference.json`,
//! written by `tests/stats/reference.py`), to 1e-9; and the re-ask rule's
//! promises (worse after two failing re-asks, a deterministic system's
//! strictness, undecided never worse).

use super::decide::Verdict;
use super::*;
use serde_json::Value;

const TOLERANCE: f64 = 1e-9;

fn reference() -> Value {
    let text = include_str!("../../../tests/stats/reference.json");
    serde_json::from_str(text).expect("reference.json is JSON")
}

fn rows(section: &str) -> Vec<Value> {
    let rows = reference()[section].as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty(), "no reference rows for {section}");
    rows
}

fn f(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

fn u(row: &Value, key: &str) -> u64 {
    row[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

fn close(what: &str, ours: f64, theirs: f64) {
    assert!(
        (ours - theirs).abs() <= TOLERANCE,
        "{what}: ours {ours:e}, reference {theirs:e}"
    );
}

#[test]
fn binomial_tails_match_scipy() {
    for row in rows("binomial") {
        let (k, n, p) = (u(&row, "k"), u(&row, "n"), f(&row, "p"));
        close(&format!("pmf {row}"), binomial_pmf(k, n, p), f(&row, "pmf"));
        close(
            &format!("upper {row}"),
            binomial_upper(k, n, p),
            f(&row, "upper"),
        );
        close(
            &format!("lower {row}"),
            binomial_lower(k, n, p),
            f(&row, "lower"),
        );
    }
}

#[test]
fn fisher_and_boschloo_match_scipy() {
    for row in rows("fisher") {
        let ours = fisher_worse(
            u(&row, "passed"),
            u(&row, "samples"),
            u(&row, "failed"),
            u(&row, "asked"),
        );
        close(&format!("fisher {row}"), ours, f(&row, "p"));
    }
    for row in rows("boschloo") {
        let ours = boschloo_worse(
            u(&row, "passed"),
            u(&row, "samples"),
            u(&row, "failed"),
            u(&row, "asked"),
        );
        close(&format!("boschloo {row}"), ours, f(&row, "p"));
    }
}

#[test]
fn mcnemar_matches_statsmodels() {
    for row in rows("mcnemar") {
        let (b, c) = (u(&row, "b"), u(&row, "c"));
        close(
            &format!("exact {row}"),
            mcnemar_exact(b, c),
            f(&row, "exact"),
        );
        close(
            &format!("mid-p {row}"),
            mcnemar_mid_p(b, c),
            f(&row, "mid_p"),
        );
        close(
            &format!("worse {row}"),
            mcnemar_worse(b, c),
            f(&row, "worse"),
        );
    }
}

#[test]
fn holm_and_hochberg_match_statsmodels() {
    for row in rows("family") {
        let p: Vec<f64> = row["p"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        for (name, ours) in [("holm", holm(&p)), ("hochberg", hochberg(&p))] {
            let theirs = row[name].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len());
            for (a, b) in ours.iter().zip(theirs) {
                close(&format!("{name} {row}"), *a, b.as_f64().unwrap());
            }
        }
    }
}

#[test]
fn wilson_and_normal_quantiles_match() {
    for row in rows("wilson") {
        let (low, high) = wilson(u(&row, "k"), u(&row, "n"), f(&row, "alpha"));
        close(&format!("low {row}"), low, f(&row, "low"));
        close(&format!("high {row}"), high, f(&row, "high"));
    }
    for row in rows("quantile") {
        close(
            &format!("z {row}"),
            normal_quantile(f(&row, "p")),
            f(&row, "z"),
        );
    }
    for row in rows("mde_normal") {
        let ours = mde_normal(
            f(&row, "sd"),
            u(&row, "n"),
            f(&row, "alpha"),
            f(&row, "power"),
        );
        close(&format!("mde {row}"), ours, f(&row, "mde"));
    }
}

#[test]
fn exact_bootstrap_matches_enumeration() {
    for row in rows("bootstrap") {
        let values = |key: &str| -> Vec<f64> {
            row[key]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .collect()
        };
        let (before, after) = (values("before"), values("after"));
        let n = before.len();
        let dist = paired_bootstrap(n, 0, 0, 6, |idx| {
            idx.iter().map(|&i| after[i] - before[i]).sum::<f64>() / idx.len() as f64
        });
        assert_eq!(dist.len() as u64, u(&row, "count"));
        let mean = dist.iter().sum::<f64>() / dist.len() as f64;
        close(&format!("mean {row}"), mean, f(&row, "mean"));
        let (low, high) = percentile_interval(&dist, 0.05);
        close(&format!("low {row}"), low, f(&row, "low"));
        close(&format!("high {row}"), high, f(&row, "high"));
    }
}

#[test]
fn seeded_bootstrap_is_reproducible_and_seed_dependent() {
    let before = [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0];
    let after = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0];
    let stat = |idx: &[usize]| idx.iter().map(|&i| after[i] - before[i]).sum::<f64>() / 10.0;
    let a = paired_bootstrap(10, 2000, 7, 6, stat);
    let b = paired_bootstrap(10, 2000, 7, 6, stat);
    let c = paired_bootstrap(10, 2000, 8, 6, stat);
    assert_eq!(a, b);
    assert_ne!(a, c);
    let (low, high) = percentile_interval(&a, 0.05);
    assert!(low < -0.3 && -0.3 < high && high <= 0.0, "{low} {high}");
}

#[test]
fn rule_power_matches_the_python_rule_on_scipy() {
    for row in rows("case_power") {
        let plan = Plan {
            alpha: f(&row, "alpha"),
            cap: u(&row, "cap"),
        };
        let ours = case_power(
            u(&row, "samples"),
            f(&row, "q"),
            plan,
            u(&row, "family") as usize,
        );
        close(&format!("power {row}"), ours, f(&row, "power"));
    }
}

fn pair(passed: u64, samples: u64, failed: u64, asked: u64) -> Pair {
    Pair {
        passed,
        samples,
        failed,
        asked,
    }
}

#[test]
fn a_case_that_keeps_failing_after_five_of_five_is_worse_after_two_re_asks() {
    let plan = Plan::default();
    // Alone, and among two other re-asked pairs that wobbled back.
    let alone = decide(&[pair(5, 5, 2, 2)], plan);
    assert_eq!(alone[0].verdict, Verdict::Worse, "{alone:?}");
    let family = decide(
        &[pair(5, 5, 2, 2), pair(5, 5, 0, 1), pair(5, 5, 0, 1)],
        plan,
    );
    assert_eq!(family[0].verdict, Verdict::Worse, "{family:?}");
    // One failing re-ask is not yet enough.
    assert_eq!(decide(&[pair(5, 5, 1, 1)], plan)[0].verdict, Verdict::Open);
}

#[test]
fn a_one_sample_reference_keeps_todays_strictness() {
    let plan = Plan::default();
    assert_eq!(decide(&[pair(1, 1, 1, 1)], plan)[0].verdict, Verdict::Open);
    assert_eq!(decide(&[pair(1, 1, 2, 2)], plan)[0].verdict, Verdict::Worse);
    assert_eq!(
        decide(&[pair(1, 1, 1, 2)], plan)[0].verdict,
        Verdict::Undecided
    );
}

#[test]
fn a_re_ask_that_passes_ends_in_noise_and_the_cap_in_undecided_or_noise() {
    let plan = Plan::default();
    // 5/5, then two passes: not even two more failures could make it.
    let wobble = decide(
        &[pair(5, 5, 0, 2), pair(5, 5, 0, 0), pair(5, 5, 0, 0)],
        plan,
    );
    assert_eq!(wobble[0].verdict, Verdict::Noise, "{wobble:?}");
    // At the cap, a p below alpha the family does not let through is undecided.
    let capped: Vec<Pair> = std::iter::once(pair(5, 5, 3, 4))
        .chain(std::iter::repeat_n(pair(5, 5, 0, 4), 9))
        .collect();
    let d = decide(&capped, plan);
    assert!(d[0].p.unwrap() <= 0.05, "{d:?}");
    assert_eq!(d[0].verdict, Verdict::Undecided, "{d:?}");
    assert!(d
        .iter()
        .all(|x| x.verdict != Verdict::Worse && x.verdict != Verdict::Open));
    // A borderline reference (3/5) failing every re-ask is never significant.
    assert_ne!(decide(&[pair(3, 5, 2, 2)], plan)[0].verdict, Verdict::Worse);
    assert_eq!(decide(&[pair(3, 5, 2, 4)], plan)[0].verdict, Verdict::Noise);
}

#[test]
fn the_smallest_detectable_drop_shrinks_with_reference_samples() {
    let plan = Plan::default();
    let five = mde_case(5, plan, 5, 0.8).unwrap();
    let ten = mde_case(10, plan, 5, 0.8).unwrap();
    assert!(ten < five, "{ten} {five}");
    assert!((case_power(5, five, plan, 5) - 0.8).abs() < 1e-6);
    // One reference sample: three failures in a row, q³ ≥ 0.8.
    let one = mde_case(1, plan, 5, 0.8).unwrap();
    assert!((one - 0.8_f64.cbrt()).abs() < 1e-9, "{one}");
}
