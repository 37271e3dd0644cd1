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
fn holm_hochberg_and_benjamini_hochberg_match_statsmodels() {
    for row in rows("family") {
        let p: Vec<f64> = row["p"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        for (name, ours) in [
            ("holm", holm(&p)),
            ("hochberg", hochberg(&p)),
            ("fdr_bh", benjamini_hochberg(&p)),
        ] {
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
fn reference_bounds_match_scipys_beta() {
    for row in rows("bound") {
        let ours = lower_bound(u(&row, "passed"), u(&row, "samples"), f(&row, "delta"));
        close(&format!("bound {row}"), ours, f(&row, "lower"));
    }
}

#[test]
fn sequential_p_values_match_the_python_design_on_scipy() {
    for row in rows("sequential") {
        let path: Vec<bool> = row["path"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| c == 'F')
            .collect();
        let plan = Plan::new(0.05, u(&row, "exposed") as usize);
        let ceiling = failure_ceiling(
            u(&row, "passed"),
            u(&row, "samples"),
            plan.reference_level(),
            plan.exposed,
        );
        close(&format!("ceiling {row}"), ceiling, f(&row, "ceiling"));
        let cap = cap_for(ceiling, u(&row, "family") as usize, plan.test_level());
        assert_eq!(cap, u(&row, "cap"), "{row}");
        let ours = sequential_p(ceiling, cap, Path::of(&path));
        close(&format!("sequential {row}"), ours, f(&row, "p"));
    }
}

#[test]
fn rule_power_matches_the_python_rule_on_scipy() {
    for row in rows("case_power") {
        let plan = Plan::new(f(&row, "alpha"), 0);
        let ours = case_power(
            u(&row, "samples"),
            f(&row, "q"),
            plan,
            u(&row, "family") as usize,
        );
        close(&format!("power {row}"), ours, f(&row, "power"));
    }
}

/// A pair of a reference's `passed` of `samples` and re-asks written as
/// `F` (failed again) and `P` (passed), in call order.
fn pair(passed: u64, samples: u64, path: &str) -> Pair {
    let outcomes: Vec<bool> = path.chars().map(|c| c == 'F').collect();
    Pair::after(passed, samples, &outcomes)
}

#[test]
fn a_case_that_keeps_failing_after_thirty_of_thirty_is_worse_after_two_re_asks_alone() {
    let plan = Plan::default();
    // Alone: two failing re-asks (a deterministic system's broken case
    // costs two extra calls); one is not yet enough.
    let alone = decide(&[pair(30, 30, "FF")], plan);
    assert_eq!(alone[0].verdict, Verdict::Worse, "{alone:?}");
    assert_eq!(decide(&[pair(30, 30, "F")], plan)[0].verdict, Verdict::Open);
    // Beside another re-asked pair that wobbled back, it needs a third.
    let two = decide(&[pair(30, 30, "FF"), pair(30, 30, "P")], plan);
    assert_eq!(two[0].verdict, Verdict::Open, "{two:?}");
    let family = decide(&[pair(30, 30, "FFF"), pair(30, 30, "P")], plan);
    assert_eq!(family[0].verdict, Verdict::Worse, "{family:?}");
    // Four pairs that failed three times share the rate, and each is worse
    // (the step-up lets them through together).
    let four = decide(&[pair(30, 30, "FFF"); 4], plan);
    assert!(four.iter().all(|d| d.verdict == Verdict::Worse), "{four:?}");
    // One of eight failing three times among quiet others is not yet worse.
    let mut one = vec![pair(30, 30, "P"); 8];
    one[0] = pair(30, 30, "FFF");
    assert_eq!(decide(&one, plan)[0].verdict, Verdict::Open, "{one:?}");
}

#[test]
fn a_one_sample_reference_asks_for_three_failures_in_a_row() {
    let plan = Plan::default();
    assert_eq!(decide(&[pair(1, 1, "F")], plan)[0].verdict, Verdict::Open);
    assert_eq!(decide(&[pair(1, 1, "FF")], plan)[0].verdict, Verdict::Worse);
    assert_eq!(
        decide(&[pair(1, 1, "FP")], plan)[0].verdict,
        Verdict::Undecided
    );
}

#[test]
fn a_re_ask_that_passes_ends_in_noise_and_the_cap_in_undecided_or_noise() {
    let plan = Plan::default();
    // 30/30, then three passes: not even the remaining failures could make it.
    let wobble = decide(
        &[pair(30, 30, "PPPP"), pair(30, 30, ""), pair(30, 30, "")],
        plan,
    );
    assert_eq!(wobble[0].verdict, Verdict::Noise, "{wobble:?}");
    // At the cap, a p below the test level the family does not let
    // through is undecided.
    let capped: Vec<Pair> = std::iter::once(pair(30, 30, "FPFPFFP"))
        .chain(std::iter::repeat_n(pair(30, 30, "PPPPPPP"), 9))
        .collect();
    let d = decide(&capped, plan);
    assert!(d[0].p.unwrap() <= plan.test_level(), "{d:?}");
    assert_eq!(d[0].verdict, Verdict::Undecided, "{d:?}");
    assert!(d
        .iter()
        .all(|x| x.verdict != Verdict::Worse && x.verdict != Verdict::Open));
    // A borderline reference (3/5) is never worse, whatever its re-asks.
    assert_ne!(
        decide(&[pair(3, 5, "FFFFFFFFFFFF")], plan)[0].verdict,
        Verdict::Worse
    );
}

#[test]
fn the_smallest_detectable_drop_shrinks_with_reference_samples() {
    let plan = Plan::default();
    // Five samples cannot see even a case that now always fails among five.
    assert_eq!(mde_case(5, plan, 5, 0.8), None);
    let twenty = mde_case(20, plan, 5, 0.8).unwrap();
    let forty = mde_case(40, plan, 5, 0.8).unwrap();
    assert!(forty < twenty, "{forty} {twenty}");
    assert!((case_power(40, forty, plan, 5) - 0.8).abs() < 1e-6);
    // One reference sample: three failures in a row, q³ ≥ 0.8.
    let one = mde_case(1, plan, 5, 0.8).unwrap();
    assert!((one - 0.8_f64.cbrt()).abs() < 1e-9, "{one}");
}
