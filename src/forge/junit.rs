//! `junit.xml` for GitLab's test widget and any CI (quick-junit).
//!
//! One `<testsuite>` per suite, one `<testcase>` per (case, check): a fail
//! is a `<failure>`, an error an `<error>`, a suspended case one
//! `<skipped>` testcase; run-level measures are testcases of classname
//! `run`. Score, threshold, tolerance and the outcome against the baseline
//! ride as properties. No payload: messages are composed from statuses and
//! scores, never from a verdict's reason, an output, vars or metadata.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::core::compare::{Comparison, Outcome, PairKey, Scope};
use crate::core::document::RunDocument;
use crate::core::verdict::{Status, Verdict};
use crate::report::text::fmt_score;

/// Render the run (and, when there was a baseline, each check's outcome
/// against it) as JUnit XML.
pub fn render(run: &RunDocument, comparison: Option<&Comparison>) -> String {
    let outcomes: BTreeMap<&PairKey, Outcome> = comparison
        .map(|c| c.deltas.iter().map(|d| (&d.key, d.outcome)).collect())
        .unwrap_or_default();
    let vs_baseline = |key: &PairKey| -> String {
        match (comparison, outcomes.get(key)) {
            (None, _) => "no baseline".to_string(),
            (Some(_), Some(o)) => o.as_str().to_string(),
            (Some(_), None) => "new".to_string(),
        }
    };
    let mut suite = TestSuite::new(clean(&run.suite));
    suite.add_property(Property::new("tenant", clean(&run.tenant)));
    suite.add_property(Property::new("environment", clean(&run.environment)));
    suite.add_property(Property::new("config_hash", clean(&run.config_hash)));
    for case in &run.results {
        if case.suspended {
            let mut tc = TestCase::new("suspended", TestCaseStatus::skipped());
            tc.set_classname(clean(&case.case_id));
            suite.add_test_case(tc);
            continue;
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for v in &case.verdicts {
            let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
            let key = PairKey {
                scope: Scope::Case,
                case_id: case.case_id.clone(),
                assertion_id: v.assertion_id.clone(),
                occurrence: *n,
            };
            *n += 1;
            suite.add_test_case(testcase(&case.case_id, v, &vs_baseline(&key)));
        }
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for v in &run.aggregate {
        let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
        let key = PairKey {
            scope: Scope::Run,
            case_id: String::new(),
            assertion_id: v.assertion_id.clone(),
            occurrence: *n,
        };
        *n += 1;
        suite.add_test_case(testcase("run", v, &vs_baseline(&key)));
    }
    let mut report = Report::new("digline");
    report.add_test_suite(suite);
    report
        .to_string()
        .unwrap_or_else(|_| "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites/>\n".into())
}

fn testcase(classname: &str, v: &Verdict, vs_baseline: &str) -> TestCase {
    let score = v.score.map(fmt_score);
    let threshold = fmt_score(v.threshold.get());
    let status = match v.status {
        Status::Pass => TestCaseStatus::success(),
        Status::Fail => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!(
                "score {} is below the threshold {threshold}; against the baseline: {vs_baseline}",
                score.as_deref().unwrap_or("none")
            ));
            s.set_type("fail");
            s
        }
        Status::Error => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(format!(
                "the check could not judge this case; against the baseline: {vs_baseline}"
            ));
            s.set_type("error");
            s
        }
    };
    let mut tc = TestCase::new(clean(&v.assertion), status);
    tc.set_classname(clean(classname));
    tc.add_property(Property::new("status", v.status.as_str()));
    if let Some(score) = score {
        tc.add_property(Property::new("score", score));
    }
    tc.add_property(Property::new("threshold", threshold));
    tc.add_property(Property::new("tolerance", fmt_score(v.tolerance.get())));
    tc.add_property(Property::new("vs_baseline", vs_baseline));
    tc
}

/// XML 1.0 cannot carry most control characters: replace them.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_xml() {
        assert_eq!(clean("a\u{1}b\tc"), "a\u{FFFD}b\tc");
    }
}
