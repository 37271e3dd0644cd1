//! `junit.xml` for GitLab's test widget and any CI (quick-junit).
//!
//! One `<testsuite>` per suite, one `<testcase>` per (case, check), in suite
//! order. The test's name carries the case and the check (`case · check`),
//! since GitLab's widget shows names, not classnames; two checks of a case
//! that share a reported name are told apart ([`CheckLabels`]), so every
//! test has its own name.
//!
//! Each test carries the **gate's** verdict, so the widget agrees with the
//! exit code: compared with a baseline, a `<failure>` is what got worse (a
//! regression, or a canary that moved) and nothing else — a check failing
//! in the reference too, or a new check failing, passes the gate and is a
//! passing test whose output says so; a check that could not run is an
//! `<error>`, and so is a check that passed in the reference and is not in
//! the run (it makes the gate exit 2). With no baseline (the gate refuses,
//! 64) a fail is a `<failure>`. A suspended case is one `<skipped>`
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

use crate::core::compare::{
    is_uncovered_pass, keyed_verdicts, CheckLabels, Comparison, Delta, KeyRef, Outcome, Scope,
};
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
    let labels = match comparison {
        Some(c) => CheckLabels::new(c.deltas.iter().map(|d| (d.key.as_ref(), &*d.assertion))),
        None => CheckLabels::new(
            keyed_verdicts(run)
                .into_iter()
                .map(|(k, v)| (k, &*v.assertion)),
        ),
    };
    // A check whose judge moved could not be judged: its regressions are
    // no failures (the judge's own testcase is the error).
    let ungated: std::collections::BTreeSet<&str> = comparison
        .map(|c| {
            c.judges
                .iter()
                .filter(|j| !j.drift.reading.gates())
                .map(|j| j.assertion_id.as_str())
                .collect()
        })
        .unwrap_or_default();
    let mut passes = 0usize;
    let mut collapsed = 0usize;
    let mut add = |suite: &mut TestSuite, case: &str, key: KeyRef<'_>, v: &Verdict| {
        let delta = deltas
            .binary_search_by(|d| d.key.as_ref().cmp(&key))
            .ok()
            .map(|i| &deltas[i]);
        let fails = match comparison {
            Some(_) => delta
                .is_some_and(|d| got_worse(d) && !ungated.contains(d.key.assertion_id.as_str())),
            None => v.status == Status::Fail,
        };
        if v.status != Status::Error && !fails {
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
        let name = format!("{case} · {}", labels.label(key, &v.assertion));
        let mut tc = testcase(&name, v, delta, fails, &coincides, locale, &cause);
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
    // What passed in the reference and is not in the run: the gate could
    // not judge it (exit 2), so neither can the test.
    if let Some(c) = comparison {
        let suspended: std::collections::BTreeSet<&str> = run
            .results
            .iter()
            .filter(|r| r.suspended)
            .map(|r| r.case_id.as_str())
            .collect();
        for d in c.deltas.iter().filter(|d| is_uncovered_pass(d, &suspended)) {
            let case = match d.key.scope {
                Scope::Case => d.key.case_id.as_str(),
                Scope::Run => s.scope_run,
            };
            let name = format!("{case} · {}", labels.label(d.key.as_ref(), &d.assertion));
            let sentence = locale.text("integrity.detail_not_in_run");
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            st.set_message(clean(sentence));
            st.set_type(Outcome::Missing.as_str());
            st.set_description(escape::terminal(&check_line(d, &coincides, s)));
            let mut tc = TestCase::new(clean(&name), st);
            tc.set_classname(clean(&run.suite));
            suite.add_test_case(tc);
        }
    }
    // Each judge read on its anchors: an error when its checks could not
    // be judged, a success that says what it could see otherwise.
    if let Some(c) = comparison {
        for reading in &c.judges {
            let sentence = crate::report::judges::sentence(reading, locale, &c.judge_rerun);
            let name = format!("{} · {}", reading.check, reading.coordinate);
            let mut tc = if reading.drift.reading.gates() {
                let mut tc = TestCase::new(clean(&name), TestCaseStatus::success());
                tc.set_system_out(escape::terminal(&sentence));
                tc
            } else {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
                st.set_message(clean(&sentence));
                st.set_type("judge_changed");
                st.set_description(escape::terminal(&sentence));
                TestCase::new(clean(&name), st)
            };
            tc.set_classname(clean(&run.suite));
            suite.add_test_case(tc);
        }
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

/// True when the gate counts `d` as worse: a regression, or a canary that
/// moved either way (exit 1).
fn got_worse(d: &Delta) -> bool {
    d.outcome == Outcome::Regressed || (d.canary && d.outcome == Outcome::Improved)
}

fn testcase(
    name: &str,
    v: &Verdict,
    delta: Option<&Delta>,
    fails: bool,
    coincides: &str,
    locale: Locale,
    cause: &Cause,
) -> TestCase {
    let s = Strings::of(locale);
    let before = delta
        .and_then(|d| d.before.as_ref())
        .map_or_else(|| "—".to_string(), |b| side_text(b.status, b.score, locale));
    let after = side_text(v.status, v.score, locale);
    let vs = fill(
        locale.text("junit.before_after"),
        &[("before", &before), ("after", &after)],
    );
    let happened = match delta {
        Some(d) => check_line(d, coincides, s),
        None => fill(
            locale.text("report.single_scored"),
            &[
                ("score", &v.score.map(fmt_score).unwrap_or_default()),
                ("threshold", &fmt_score(*v.threshold)),
            ],
        ),
    };
    let status = match v.status {
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
        _ if fails => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let outcome = delta.map_or("no_baseline", |d| d.outcome.as_str());
            st.set_message(clean(&happened));
            st.set_type(outcome);
            st.set_description(escape::terminal(&format!("{happened}\n{vs}")));
            st
        }
        _ => TestCaseStatus::success(),
    };
    let mut tc = TestCase::new(clean(name), status);
    // A check that fails and still passes the gate (as in the reference,
    // or new) says so, without being a failure.
    if v.status == Status::Fail && !fails {
        tc.set_system_out(escape::terminal(&format!("{happened}\n{vs}")));
    }
    tc
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
