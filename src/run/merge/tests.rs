//! The merge's check of each result against its case's declaration, and
//! its checks between the shards.

use serde_json::Map;

use super::{
    between_shards, differences, recorded_as_declared, Case, CaseResult, Record, RunDocument,
    ShardRun,
};

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

// The checks between the shards: every problem at once, none twice.

fn shard(path: &str, spec: &str, balanced: Option<&str>, created_at: &str) -> (ShardRun, Record) {
    let (index, total) = spec.split_once('/').unwrap();
    let doc = RunDocument {
        aggregate: Vec::new(),
        artifacts: Map::new(),
        config_hash: "c".to_string(),
        created_at: created_at.to_string(),
        digline_version: "1.0.0".to_string(),
        environment: "ci".to_string(),
        git_commit: Some("a".repeat(40)),
        judge_config: Map::new(),
        metadata: Map::new(),
        redacted: false,
        results: Vec::new(),
        schema_version: crate::core::document::SCHEMA_VERSION,
        suite: "s".to_string(),
        target_config: Map::new(),
        tenant: "t".to_string(),
        rejudged_from: None,
        promoted_at: None,
        judge_anchors: None,
    };
    let record = Record {
        shard: crate::core::shard::Shard {
            index: index.parse().unwrap(),
            total: total.parse().unwrap(),
        },
        plan: "p".to_string(),
        balanced: balanced.map(str::to_string),
    };
    let run = ShardRun {
        path: path.into(),
        doc,
    };
    (run, record)
}

fn problems(given: Vec<(ShardRun, Record)>) -> Vec<String> {
    let (shards, records): (Vec<_>, Vec<_>) = given.into_iter().unzip();
    between_shards(&shards, &records).unwrap_err()
}

#[test]
fn every_problem_between_the_shards_is_said_once_and_none_follows_from_another() {
    let (mut c, c_record) = shard("c.json", "2/2", None, "t3");
    c.doc.git_commit = Some("b".repeat(40));
    c.doc.environment = "staging".to_string();
    let said = problems(vec![
        shard("a.json", "1/2", None, "t1"),
        shard("b.json", "2/2", None, "t2"),
        shard("b-again.json", "2/2", None, "t2"),
        (c, c_record),
        shard("d.json", "1/3", None, "t4"),
    ]);
    let differ = "shards of one run are made from the same commit, digline and configuration";
    assert_eq!(
        said,
        [
            "b-again.json is a copy of b.json (the same run, created at t2): give each shard once".to_string(),
            "b.json and c.json are both shard 2/2: overlapping shards (two runs of the same shard); give one of them".to_string(),
            "d.json is shard 1/3 but a.json is shard 1/2: shards of one merge split the suite the same number of ways".to_string(),
            format!("a.json and c.json differ in their git commit: {differ}"),
            format!("a.json and c.json differ in their environment: {differ}"),
        ]
    );
}

#[test]
fn shards_split_two_ways_are_said_once_and_no_shard_is_then_missing() {
    let said = problems(vec![
        shard("a.json", "1/3", Some("p1"), "t1"),
        shard("b.json", "2/3", None, "t2"),
        shard("c.json", "3/3", None, "t3"),
        shard("d.json", "2/3", Some("p2"), "t4"),
        shard("e.json", "3/3", Some("p2"), "t5"),
    ]);
    assert_eq!(
        said,
        [
            "a.json is split by recorded durations (--balance durations) but b.json by the hash of the case id: shards of one merge are split the same way; run every shard with the same --balance",
            "a.json and d.json were balanced from different recorded durations (partitions p1 and p2): run every shard from the same newest full run",
        ]
    );
}

#[test]
fn a_copy_and_a_missing_shard_are_both_said() {
    let said = problems(vec![
        shard("a.json", "1/3", None, "t1"),
        shard("a-again.json", "1/3", None, "t1"),
    ]);
    assert_eq!(
        said,
        [
            "a-again.json is a copy of a.json (the same run, created at t1): give each shard once",
            "2 of 3 shard(s) missing (2/3, 3/3): a merge never stands in for a shard that did not arrive; wait for every shard job, or run the missing one with --shard",
        ]
    );
}

#[test]
fn a_shard_that_asked_nothing_agrees_with_any_configuration() {
    let (a, _) = shard("a.json", "1/2", None, "t1");
    let (mut b, _) = shard("b.json", "2/2", None, "t2");
    let mut target = Map::new();
    target.insert("model".to_string(), serde_json::json!("m"));
    b.doc.target_config = target.clone();
    assert_eq!(differences(&a.doc, &b.doc), Vec::<&str>::new());
    let mut other = target;
    other.insert("model".to_string(), serde_json::json!("n"));
    let mut a = a;
    a.doc.target_config = other;
    b.doc.redacted = true;
    assert_eq!(
        differences(&a.doc, &b.doc),
        ["being redacted", "the target's configuration"]
    );
}

#[test]
fn each_file_holding_another_shards_case_is_named_with_its_first() {
    let of = |k: u32| {
        (0..)
            .map(|n| format!("case-{n}"))
            .find(|id| crate::core::shard::shard_of(id, 2) == k)
            .unwrap()
    };
    let holding = |id: String| CaseResult {
        case_id: id,
        ..result(None, None)
    };
    let (mut a, a_record) = shard("a.json", "1/2", None, "t1");
    let (mut b, b_record) = shard("b.json", "2/2", None, "t2");
    a.doc.results = vec![holding(of(1)), holding(of(2))];
    b.doc.results = vec![holding(of(1)), holding(of(1))];
    assert_eq!(
        problems(vec![(a, a_record), (b, b_record)]),
        [
            format!(
                "a.json (shard 1/2) holds case '{}', which belongs to shard 2/2: overlapping or altered shards",
                of(2)
            ),
            format!(
                "b.json (shard 2/2) holds case '{}', which belongs to shard 1/2: overlapping or altered shards",
                of(1)
            ),
        ]
    );
}
