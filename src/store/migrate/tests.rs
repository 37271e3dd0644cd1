//! Migration against what digline 0.10.0's `migrate` wrote for the same
//! files (`tests/goldens/migrate/`), and every refusal.

use super::*;
use serde_json::json;

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens/migrate")
}

/// Copy `before/.digline` into a fresh directory; returns (dir, store dir).
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(".digline");
    copy_tree(&golden().join("before/.digline"), &store);
    (dir, store)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn files(store: &Path) -> Vec<PathBuf> {
    crate::store::Store::new(store.parent().unwrap())
        .document_paths()
        .unwrap()
}

#[test]
fn the_result_is_byte_for_byte_what_0_10_0_migrate_wrote() {
    let (_dir, store) = scratch();
    let paths = files(&store);
    assert_eq!(paths.len(), 9);
    let report = migrate_paths(&paths, false);
    let mut froms: Vec<i64> = report.migrated.iter().map(|(_, v)| *v).collect();
    froms.sort_unstable();
    assert_eq!(froms, vec![4, 5, 6, 7, 8, 9, 9]);
    assert_eq!(report.current, 0);
    assert_eq!(report.refused.len(), 2, "{:?}", report.refused);
    for path in &paths {
        let rel = path.strip_prefix(&store).unwrap();
        let want = std::fs::read(golden().join("after/.digline").join(rel)).unwrap();
        let got = std::fs::read(path).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want).unwrap(),
            "{}",
            rel.display()
        );
    }
    // Every migrated file now reads; nothing stamped a version on it.
    for (path, _) in &report.migrated {
        let doc = crate::store::document::read(path).unwrap();
        assert!(doc.digline_version.is_empty(), "{}", path.display());
        assert!(doc.promoted_at.is_none());
        assert!(doc
            .results
            .iter()
            .all(|c| c.canary.is_none() && c.responses.is_none()));
    }
    // A second pass finds them current and changes nothing.
    let again = migrate_paths(&paths, false);
    assert_eq!((again.migrated.len(), again.current), (0, 7));
}

#[test]
fn a_dry_run_reports_the_same_and_writes_nothing() {
    let (_dir, store) = scratch();
    let paths = files(&store);
    let before: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let report = migrate_paths(&paths, true);
    assert_eq!(report.migrated.len(), 7);
    assert_eq!(report.refused.len(), 2);
    let after: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before, after);
}

#[test]
fn refusals_say_why_and_leave_the_file_alone() {
    let rows: &[(&str, &str)] = &[
        (r#"{"schema_version": 11, "x": 1}"#, "upgrade digline"),
        (
            r#"{"schema_version": 3}"#,
            "schema 4 introduced `environment`",
        ),
        (
            r#"{"schema_version": 2}"#,
            "schema 3 introduced `tenant` and `redacted`",
        ),
        (
            r#"{"schema_version": 1}"#,
            "`assertion_id` on every verdict",
        ),
        (
            r#"{"schema_version": 0}"#,
            "no answer in the older document",
        ),
        (
            r#"{"schema_version": -3}"#,
            "no answer in the older document",
        ),
        (r#"{}"#, "no `schema_version`"),
        (r#"{"schema_version": "9"}"#, "not an integer"),
        (r#"{"schema_version": true}"#, "not an integer"),
        (r#"[]"#, "not a run object"),
        (r#"{"schema_version": 9}"#, "missing field"),
        (
            r#"{"schema_version": 9, "results": {}}"#,
            "expected a sequence",
        ),
        ("nope", "not JSON"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (text, want) in rows {
        let path = dir.path().join("d.json");
        std::fs::write(&path, text).unwrap();
        let err = migrate_file(&path, false).expect_err(text).to_string();
        assert!(
            err.contains(want) && err.contains("d.json"),
            "{text}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), *text);
    }
}

#[test]
fn scores_that_are_not_numbers_are_refused_not_guessed() {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(golden().join("source-schema-9.json")).unwrap())
            .unwrap();
    doc["schema_version"] = json!(8);
    doc["results"][0]["verdicts"][0]["metadata"] = json!({"scores": ["high"]});
    let Value::Object(map) = doc else { panic!() };
    let err = upgrade(Path::new("d.json"), map, 8)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a number"), "{err}");
}

#[test]
fn each_step_writes_only_what_the_old_document_justifies() {
    let empty = |v: i64| {
        let Value::Object(map) = json!({"schema_version": v}) else {
            panic!()
        };
        upgrade(Path::new("d"), map, v).unwrap()
    };
    let rows: &[(i64, Value)] = &[
        (9, json!({"schema_version": 10})),
        (8, json!({"schema_version": 10})),
        (
            7,
            json!({"schema_version": 10, "target_config": {}, "judge_config": {}}),
        ),
        (
            6,
            json!({"schema_version": 10, "artifacts": {}, "target_config": {}, "judge_config": {}}),
        ),
        (
            5,
            json!({"schema_version": 10, "aggregate": [], "artifacts": {}, "target_config": {}, "judge_config": {}}),
        ),
        (
            4,
            json!({"schema_version": 10, "results": [], "aggregate": [], "artifacts": {}, "target_config": {}, "judge_config": {}}),
        ),
    ];
    for (from, want) in rows {
        assert_eq!(&Value::Object(empty(*from)), want, "from {from}");
    }
    // An existing `suspended` is kept, a missing one is false.
    let Value::Object(map) = json!({"schema_version": 4, "results": [{"case_id": "a", "suspended": true}, {"case_id": "b"}]})
    else {
        panic!()
    };
    let up = upgrade(Path::new("d"), map, 4).unwrap();
    assert_eq!(
        up["results"],
        json!([{"case_id": "a", "suspended": true}, {"case_id": "b", "suspended": false}])
    );
}
