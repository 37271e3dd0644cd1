//! The strict reader against 0.10.0's documents and against every way a
//! document can be wrong.

use super::*;
use crate::core::python::dumps::dumps_document;
use serde_json::json;

fn golden_bytes(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens")
        .join(name);
    std::fs::read(path).unwrap()
}

fn golden_value(name: &str) -> Value {
    serde_json::from_slice(&golden_bytes(name)).unwrap()
}

#[test]
fn golden_documents_round_trip_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens");
    let mut n = 0;
    for group in ["documents", "headlines", "slice"] {
        for entry in std::fs::read_dir(dir.join(group)).unwrap() {
            let entry = entry.unwrap();
            for file in ["run.json", "baseline.json", "baseline-run.json"] {
                let path = entry.path().join(file);
                if !path.exists() {
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                let doc =
                    from_bytes(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(
                    String::from_utf8(to_bytes(&doc)).unwrap(),
                    String::from_utf8(bytes).unwrap(),
                    "{}",
                    path.display()
                );
                n += 1;
            }
        }
    }
    assert!(n > 50, "only {n} documents checked");
}

#[test]
fn bytes_that_are_not_a_schema_10_object_are_refused_with_the_file_named() {
    let rows: &[(&[u8], &str)] = &[
        (b"[]", "not a run object"),
        (b"{}", "no `schema_version`"),
        (b"{\"schema_version\": null}", "not an integer"),
        (b"{\"schema_version\": true}", "not an integer"),
        (b"{\"schema_version\": 10.0}", "not an integer"),
        (b"{\"schema_version\": \"10\"}", "not an integer"),
        (b"{\"schema_version\": 11}", "upgrade digline"),
        (b"{\"schema_version\": 9}", "run `digline migrate`"),
        (b"{\"schema_version\": 4}", "run `digline migrate`"),
        (b"not json", "not JSON"),
        (
            b"{\"schema_version\": 10, \"schema_version\": 10}",
            "`schema_version` appears twice",
        ),
        (&[0xff, 0xfe], "not UTF-8"),
    ];
    for (bytes, want) in rows {
        let msg = from_bytes(Path::new("x/run.json"), bytes)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(want) && msg.contains("x/run.json"),
            "{}: {msg}",
            String::from_utf8_lossy(bytes)
        );
    }
}

/// A key written twice anywhere in a valid document — at the top, in a
/// case, in a verdict, deep in free-form metadata or a configuration — is
/// refused by the one-pass typed read as by the JSON-tree read.
#[test]
fn a_key_written_twice_at_any_depth_is_refused() {
    let text = String::from_utf8(golden_bytes("documents/01-unicode-text/run.json")).unwrap();
    assert!(from_bytes(Path::new("t/run.json"), text.as_bytes()).is_ok());
    let rows: &[(&str, &str)] = &[
        ("\"suite\": ", "\"suite\": \"x\", \"suite\": "),
        ("\"case_id\": ", "\"case_id\": \"x\", \"case_id\": "),
        ("\"reason\": ", "\"reason\": \"x\", \"reason\": "),
        (
            "\"metadata\": {",
            "\"metadata\": {\"k\": 1, \"k\": 2, \"n\": {\"a\": 1, \"a\": 1}, ",
        ),
        (
            "\"target_config\": {",
            "\"target_config\": {\"k\": [{\"a\": 1, \"a\": 2}], ",
        ),
    ];
    for (find, replace) in rows {
        assert!(text.contains(find), "{find}");
        let bad = text.replacen(find, replace, 1);
        let err = from_bytes(Path::new("t/run.json"), bad.as_bytes())
            .expect_err(&format!("{replace}: accepted"))
            .to_string();
        assert!(
            err.contains("appears twice") && err.contains("t/run.json"),
            "{err}"
        );
    }
}

type Edit = fn(&mut Value);

/// One row per fault: a name, the edit that introduces it, and a fragment
/// of the refusal. Each starts from a valid 0.10.0 document.
#[test]
fn every_kind_of_malformed_document_is_refused() {
    let rows: &[(&str, &str, Edit, &str)] = &[
        (
            "unknown key",
            "documents/01-unicode-text/run.json",
            |d| d["extra"] = json!(1),
            "extra",
        ),
        (
            "missing key",
            "documents/01-unicode-text/run.json",
            |d| {
                d.as_object_mut().unwrap().remove("metadata");
            },
            "metadata",
        ),
        (
            "wrong type: redacted",
            "documents/01-unicode-text/run.json",
            |d| d["redacted"] = json!("false"),
            "expected a boolean",
        ),
        (
            "wrong type: results",
            "documents/01-unicode-text/run.json",
            |d| d["results"] = json!({}),
            "expected a sequence",
        ),
        (
            "wrong type: suspended",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["suspended"] = json!(0),
            "expected a boolean",
        ),
        (
            "wrong type: score",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["score"] = json!("1.0"),
            "f64",
        ),
        (
            "null environment",
            "documents/01-unicode-text/run.json",
            |d| d["environment"] = Value::Null,
            "`environment` is null",
        ),
        (
            "null digline_version",
            "documents/01-unicode-text/run.json",
            |d| d["digline_version"] = Value::Null,
            "never writes null",
        ),
        (
            "empty digline_version",
            "documents/01-unicode-text/run.json",
            |d| d["digline_version"] = json!(""),
            "never writes \"\"",
        ),
        (
            "null promoted_at",
            "headlines/01-nothing-changed/baseline.json",
            |d| d["promoted_at"] = Value::Null,
            "`promoted_at` is null",
        ),
        (
            "empty promoted_at",
            "headlines/01-nothing-changed/baseline.json",
            |d| d["promoted_at"] = json!(""),
            "`promoted_at` is empty",
        ),
        (
            "null judge_anchors",
            "documents/01-unicode-text/run.json",
            |d| d["judge_anchors"] = Value::Null,
            "`judge_anchors` is null",
        ),
        (
            "judge_anchors: a verdict of another word",
            "documents/01-unicode-text/run.json",
            |d| d["judge_anchors"] = json!({"anchors": [{"check": "c", "key": "0123456789abcdef", "verdict": "maybe"}], "judges": []}),
            "maybe",
        ),
        (
            "null rejudged_from",
            "documents/01-unicode-text/run.json",
            |d| d["rejudged_from"] = Value::Null,
            "`rejudged_from` is null",
        ),
        (
            "null canary",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["canary"] = Value::Null,
            "`canary` null",
        ),
        (
            "null responses",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["responses"] = Value::Null,
            "`responses` null",
        ),
        (
            "null samples",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["samples"] = Value::Null,
            "`samples` null",
        ),
        (
            "null reason",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["reason"] = Value::Null,
            "`reason` null",
        ),
        (
            "status contradicts score",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["status"] = json!("fail"),
            "contradict",
        ),
        (
            "error with a score",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["status"] = json!("error"),
            "contradict",
        ),
        (
            "pass without a score",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["score"] = Value::Null,
            "contradict",
        ),
        (
            "unknown status",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["status"] = json!("skipped"),
            "unknown variant",
        ),
        (
            "threshold above 1",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["threshold"] = json!(1.5),
            "contradict",
        ),
        (
            "negative tolerance",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["tolerance"] = json!(-0.1),
            "negative tolerance",
        ),
        (
            "empty assertion_id",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["verdicts"][0]["assertion_id"] = json!(""),
            "empty `assertion_id`",
        ),
        (
            "half an interval",
            "documents/03-sampled-3/run.json",
            |d| {
                d["results"][0]["verdicts"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("sample_max");
            },
            "the three go together",
        ),
        (
            "interval not its samples'",
            "documents/03-sampled-3/run.json",
            |d| d["results"][0]["verdicts"][0]["sample_min"] = json!(0.5),
            "not its samples'",
        ),
        (
            "unsafe tenant",
            "documents/01-unicode-text/run.json",
            |d| d["tenant"] = json!("../other"),
            "tenant '../other' is not a safe name",
        ),
        (
            "unsafe suite",
            "documents/01-unicode-text/run.json",
            |d| d["suite"] = json!("a/b"),
            "suite 'a/b' is not a safe name",
        ),
        (
            "empty tenant",
            "documents/01-unicode-text/run.json",
            |d| d["tenant"] = json!(""),
            "tenant '' is not a safe name",
        ),
        (
            "config hash not hex",
            "documents/01-unicode-text/run.json",
            |d| d["config_hash"] = json!("../../x"),
            "not 16 lowercase hex",
        ),
        (
            "created_at empty",
            "documents/01-unicode-text/run.json",
            |d| d["created_at"] = json!(""),
            "`created_at` is empty",
        ),
        (
            "created_at without a key",
            "documents/01-unicode-text/run.json",
            |d| d["created_at"] = json!("::"),
            "no usable run key",
        ),
        (
            "rejudged_from not a key",
            "documents/01-unicode-text/run.json",
            |d| d["rejudged_from"] = json!("../x"),
            "not a run key",
        ),
        (
            "duplicate case",
            "documents/01-unicode-text/run.json",
            |d| {
                let first = d["results"][0].clone();
                d["results"].as_array_mut().unwrap().push(first);
            },
            "appears twice",
        ),
        (
            "suspended without reason",
            "documents/01-unicode-text/run.json",
            |d| {
                d["results"][0]["suspended"] = json!(true);
                d["results"][0]["verdicts"] = json!([]);
            },
            "without a reason",
        ),
        (
            "reason without suspension",
            "documents/01-unicode-text/run.json",
            |d| d["results"][0]["suspended_reason"] = json!("why"),
            "not suspended",
        ),
        (
            "suspended with verdicts",
            "documents/01-unicode-text/run.json",
            |d| {
                d["results"][0]["suspended"] = json!(true);
                d["results"][0]["suspended_reason"] = json!("why");
            },
            "carries verdicts",
        ),
    ];
    for (name, source, edit, want) in rows {
        let mut doc = golden_value(source);
        edit(&mut doc);
        let bytes = serde_json::to_vec(&doc).unwrap();
        let err = from_bytes(Path::new("t/run.json"), &bytes)
            .expect_err(&format!("{name}: accepted"))
            .to_string();
        assert!(
            err.contains(want) && err.contains("t/run.json"),
            "{name}: {err}"
        );
    }
}

#[test]
fn what_0_10_0_may_write_is_read_and_absent_stays_absent() {
    let rows: &[(&str, Edit, &str)] = &[
        (
            "git_commit null",
            |d| d["git_commit"] = Value::Null,
            "\"git_commit\": null",
        ),
        (
            "git_commit a sha",
            |d| d["git_commit"] = json!("abc1234-dirty"),
            "abc1234-dirty",
        ),
        (
            "no digline_version (migrated)",
            |d| {
                d.as_object_mut().unwrap().remove("digline_version");
            },
            "",
        ),
        (
            "a replay",
            |d| d["rejudged_from"] = json!("2026-01-01T00-00-00-00-00-0123456789abcdef"),
            "\"rejudged_from\"",
        ),
        (
            "a canary",
            |d| d["results"][0]["canary"] = json!(true),
            "\"canary\": true",
        ),
        (
            "an errored verdict",
            |d| {
                d["results"][0]["verdicts"][0]["status"] = json!("error");
                d["results"][0]["verdicts"][0]["score"] = Value::Null;
            },
            "\"score\": null",
        ),
    ];
    for (name, edit, want) in rows {
        let mut doc = golden_value("documents/01-unicode-text/run.json");
        edit(&mut doc);
        let bytes = dumps_document(&doc).into_bytes();
        let read =
            from_bytes(Path::new("t.json"), &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = String::from_utf8(to_bytes(&read)).unwrap();
        assert_eq!(again.as_bytes(), bytes.as_slice(), "{name}");
        assert!(again.contains(want), "{name}");
    }
    let mut doc = golden_value("documents/01-unicode-text/run.json");
    doc.as_object_mut().unwrap().remove("digline_version");
    let read = from_bytes(Path::new("t.json"), &dumps_document(&doc).into_bytes()).unwrap();
    assert!(read.digline_version.is_empty());
    assert!(!String::from_utf8(to_bytes(&read))
        .unwrap()
        .contains("digline_version"));
}

#[test]
fn a_document_with_judge_anchors_round_trips_and_one_without_keeps_its_bytes() {
    let name = "documents/01-unicode-text/run.json";
    let plain = golden_bytes(name);
    let mut value = golden_value(name);
    assert!(value.get("judge_anchors").is_none());
    value["judge_anchors"] = json!({
        "anchors": [{"check": "polite", "key": "0123456789abcdef", "verdict": "pass"}],
        "judges": [{
            "check": "polite",
            "coordinate": "openai/gpt-4o",
            "identity": {
                "provider": "openai", "requested_model": "gpt-4o", "answered_model": null,
                "endpoint": "127.0.0.1:1", "base_url_hash": "aa", "prompt_hash": "bb",
                "protocol": "score-v1+cc"
            },
            "live": 1
        }]
    });
    let bytes = dumps_document(&value).into_bytes();
    let path = Path::new(name);
    let doc = from_bytes(path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(to_bytes(&doc), bytes);
    let record = doc.judge_anchors.clone().expect("recorded");
    assert_eq!(record.judges[0].identity.answered_model, None);
    let mut without = doc;
    without.judge_anchors = None;
    assert_eq!(to_bytes(&without), plain);
}
