//! `junit.xml` for GitLab's test widget and any CI (quick-junit).
//!
//! One `<testsuite>` per suite, one `<testcase>` per (case, check), in suite
//! order. The test's name carries the case and the check (`case · check`),
//! since GitLab's widget shows names, not classnames. A fail is a
//! `<failure>`, an error an `<error>`, a suspended case one `<skipped>`
//! testcase; run-level measures are testcases named after the whole run.
//! GitLab ignores `message`, so the element's body says what happened: the
//! sentence, the cause category of an error with its measured facts, and
//! before → after. No `<properties>` inside a testcase (Jenkins-style
//! schemas forbid them); the suite's properties name tenant, environment
//! and configuration hash.
//!
//! Bounded: past [`PASS_LIMIT`] passing checks, the rest of the passes are
//! collapsed into one testcase that counts them; every failure, error and
//! suspension is kept. No payload: bodies are composed from statuses,
//! scores and causes (a category and facts), never from a verdict's reason,
//! an output, vars or metadata. Names are made visible (controls and
//! invisible characters replaced) before they reach the XML.

use std::collections::HashMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::core::compare::{Comparison, Delta, KeyRef, Outcome, Scope};
use crate::core::document::RunDocument;
use crate::core::failed_calls::FailedCalls;
use crate::core::verdict::{Status, Verdict};
use crate::report::cause::{classify, Cause};
use crate::report::gate::side_text;
use crate::report::locale::Locale;
use crate::report::text::{check_line, coincides_text, fill, fmt_score, Strings};

use super::escape;

/// Passing checks written one testcase each; the rest are counted in one.
pub const PASS_LIMIT: usize = 5_000;

/// Render the run (and, when there was a baseline, each check's outcome
/// against it) as JUnit XML, its sentences in `locale`; a check that could
/// not run says its cause, with the failed call's elapsed milliseconds
/// when `failed` (the run's side record) has them.
pub fn render(
    run: &RunDocument,
    comparison: Option<&Comparison>,
    locale: Locale,
    failed: &FailedCalls,
) -> String {
    let s = Strings::of(locale);
    let causes = crate::report::gate::causes(run, failed);
    // The deltas are in key order: each verdict finds its own by binary
    // search, with no index beside them.
    let deltas: &[Delta] = comparison.map_or(&[], |c| &c.deltas);
    let coincides = comparison.map(|c| coincides_text(c, s)).unwrap_or_default();
    let mut suite = TestSuite::new(clean(&run.suite));
    suite.add_property(Property::new("tenant", clean(&run.tenant)));
    suite.add_property(Property::new("environment", clean(&run.environment)));
    suite.add_property(Property::new("config_hash", clean(&run.config_hash)));
    let mut passes = 0usize;
    let mut collapsed = 0usize;
    let mut add = |suite: &mut TestSuite, case: &str, key: KeyRef<'_>, v: &Verdict| {
        let delta = deltas
            .binary_search_by(|d| d.key.as_ref().cmp(&key))
            .ok()
            .map(|i| &deltas[i]);
        let regressed = delta.is_some_and(|d| d.outcome == Outcome::Regressed);
        if v.status == Status::Pass && !regressed {
            passes += 1;
            if passes > PASS_LIMIT {
                collapsed += 1;
                return;
            }
        }
        // Only an error says its cause (a category and facts).
        let cause = if v.status == Status::Error {
            causes
                .get(&(
                    key.scope,
                    key.case_id.to_string(),
                    key.assertion_id.to_string(),
                    key.occurrence,
                ))
                .cloned()
                .unwrap_or_else(|| classify(&v.reason))
        } else {
            Cause::unknown()
        };
        let mut tc = testcase(
            case,
            v,
            delta,
            comparison.is_some(),
            &coincides,
            locale,
            &cause,
        );
        tc.set_classname(clean(&run.suite));
        suite.add_test_case(tc);
    };
    for case in &run.results {
        if case.suspended {
            let mut tc = TestCase::new(clean(&case.case_id), TestCaseStatus::skipped());
            tc.set_classname(clean(&run.suite));
            suite.add_test_case(tc);
            continue;
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for v in &case.verdicts {
            let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
            let key = KeyRef {
                scope: Scope::Case,
                case_id: &case.case_id,
                assertion_id: &v.assertion_id,
                occurrence: *n,
            };
            *n += 1;
            add(&mut suite, &case.case_id, key, v);
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for v in &run.aggregate {
        let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
        let key = KeyRef {
            scope: Scope::Run,
            case_id: "",
            assertion_id: &v.assertion_id,
            occurrence: *n,
        };
        *n += 1;
        add(&mut suite, s.scope_run, key, v);
    }
    if collapsed > 0 {
        let mut tc = TestCase::new(
            clean(&fill(
                locale.text("junit.collapsed"),
                &[("count", &collapsed.to_string())],
            )),
            TestCaseStatus::success(),
        );
        tc.set_classname(clean(&run.suite));
        suite.add_test_case(tc);
    }
    let mut report = Report::new("digline");
    report.add_test_suite(suite);
    report
        .to_string()
        .unwrap_or_else(|_| "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites/>\n".into())
}

fn testcase(
    case: &str,
    v: &Verdict,
    delta: Option<&Delta>,
    compared: bool,
    coincides: &str,
    locale: Locale,
    cause: &Cause,
) -> TestCase {
    let s = Strings::of(locale);
    let before = delta
        .and_then(|d| d.before.as_ref())
        .map_or_else(|| "—".to_string(), |b| side_text(b.status, b.score));
    let after = side_text(v.status, v.score);
    let vs = fill(
        locale.text("junit.before_after"),
        &[("before", &before), ("after", &after)],
    );
    let regressed = delta.is_some_and(|d| d.outcome == Outcome::Regressed);
    let status = match v.status {
        Status::Pass if !regressed => TestCaseStatus::success(),
        Status::Pass | Status::Fail => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let happened = match delta {
                Some(d) if compared => check_line(d, coincides, s),
                _ => fill(
                    locale.text("report.single_scored"),
                    &[
                        ("score", &v.score.map(fmt_score).unwrap_or_default()),
                        ("threshold", &fmt_score(*v.threshold)),
                    ],
                ),
            };
            let outcome = delta.map_or("no_baseline", |d| d.outcome.as_str());
            st.set_message(clean(&happened));
            st.set_type(outcome);
            st.set_description(escape::terminal(&format!("{happened}\n{vs}")));
            st
        }
        Status::Error => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            let sentence = format!("{} {}", s.detail_errored, cause.sentence(locale));
            st.set_message(clean(&sentence));
            st.set_type(cause.label());
            st.set_description(escape::terminal(&format!(
                "{sentence}\n{}\n{vs}",
                fill(
                    locale.text("junit.category"),
                    &[("category", cause.category.as_str())]
                )
            )));
            st
        }
    };
    TestCase::new(clean(&format!("{case} · {}", v.assertion)), status)
}

/// Names made visible, and nothing XML 1.0 cannot carry.
fn clean(text: &str) -> String {
    escape::visible_line(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_invisible_characters_never_reach_the_xml() {
        assert_eq!(clean("a\u{1}b\tc\u{202E}"), "a\u{FFFD}b c<U+202E>");
    }
}
