//! The merge's check of each result against its case's declaration.

use serde_json::Map;

use super::{recorded_as_declared, Case, CaseResult};

fn case(suspended: Option<&str>, canary: bool) -> Case {
    Case {
        id: "c".to_string(),
        vars: Map::new(),
        expected: None,
        context: Vec::new(),
        metadata: Map::new(),
        suspended: suspended.map(str::to_string),
        label: None,
        group: None,
        canary,
    }
}

fn result(reason: Option<&str>, canary: Option<bool>) -> CaseResult {
    CaseResult {
        case_id: "c".to_string(),
        suspended: reason.is_some(),
        suspended_reason: reason.map(str::to_string),
        canary,
        verdicts: Vec::new(),
        responses: None,
    }
}

#[test]
fn a_case_recorded_as_the_suite_declares_it_passes() {
    assert_eq!(
        recorded_as_declared(&case(None, false), &result(None, None)),
        Ok(())
    );
    assert_eq!(
        recorded_as_declared(&case(None, true), &result(None, Some(true))),
        Ok(())
    );
    let why = Some("the queue moves");
    assert_eq!(
        recorded_as_declared(&case(why, false), &result(why, None)),
        Ok(())
    );
}

#[test]
fn a_forged_suspension_or_canary_flag_is_named() {
    let why = Some("the queue moves");
    for (declared, recorded, what) in [
        (
            case(None, false),
            result(Some("flaky, ticket 99"), None),
            "as suspended, but the suite does not suspend it",
        ),
        (
            case(why, false),
            result(None, None),
            "as run, but the suite suspends it",
        ),
        (
            case(why, false),
            result(Some("flaky, ticket 99"), None),
            "as suspended for another reason than the suite gives",
        ),
        (
            case(None, false),
            result(None, Some(true)),
            "as a canary, but the suite does not declare it one",
        ),
        (
            case(None, true),
            result(None, None),
            "as no canary, but the suite declares it one",
        ),
        (
            case(None, false),
            result(None, Some(false)),
            "with `canary: false`, which no run records",
        ),
    ] {
        assert_eq!(recorded_as_declared(&declared, &recorded), Err(what));
    }
    let mut reason_only = result(None, None);
    reason_only.suspended_reason = Some("x".to_string());
    assert_eq!(
        recorded_as_declared(&case(None, false), &reason_only),
        Err("with a suspension reason, but the suite does not suspend it")
    );
}
