//! The run list as a machine reads it (the MCP `list_runs` tool): every
//! readable run of a suite, newest first, the baseline named, and what was
//! left out as fields rather than a stderr aside.
//!
//! Keys, as digline 0.10.0's `runs_json` builds them: `output_version`,
//! `tenant`, `suite`, `baseline_key` (or null), `runs[]` (`key`,
//! `created_at`, `environment`, `git_commit`, `cases`, `digline_version`),
//! `note` (`""` when nothing was left out), `advice` (what to do about runs
//! skipped for their schema), `skipped` (`{"<schema>": count}`),
//! `unreadable` (a count, never paths: a path under `.digline/` is this
//! machine's fact). **Added here**: `baseline_unreadable`, so that a
//! `baseline_key` of null never reads as *no baseline yet* about a baseline
//! that is there and could not be read; `lucky` (the baseline's checks the
//! base branch's history shows to be lucky: case, check, the reference's
//! count, the history's failures of its answers, Fisher's p).

use serde_json::{json, Map, Value};

use crate::core::history::Lucky;
use crate::store::repo::Listing;

use super::OUTPUT_VERSION;

/// Which baseline the listing marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaselineMark<'a> {
    /// No baseline has been promoted for the suite.
    None,
    /// The baseline's run key.
    Key(&'a str),
    /// A baseline file exists and could not be read.
    Unreadable,
}

/// The `list_runs` object for `listing` (runs already newest first).
pub fn runs_json(
    tenant: &str,
    suite: &str,
    baseline: BaselineMark,
    listing: &Listing,
    lucky: &[Lucky],
) -> Value {
    let lucky: Vec<Value> = lucky
        .iter()
        .map(|l| {
            json!({
                "case": l.case, "check": l.check,
                "reference_passed": l.passed, "reference_samples": l.samples,
                "history_failed": l.failed, "history_asked": l.asked, "p": l.p,
            })
        })
        .collect();
    let runs: Vec<Value> = listing
        .runs
        .iter()
        .map(|run| {
            json!({
                "key": run.key,
                "created_at": run.doc.created_at,
                "environment": run.doc.environment,
                "git_commit": run.doc.git_commit,
                "cases": run.cases,
                "digline_version": run.doc.digline_version,
            })
        })
        .collect();
    let skipped: Map<String, Value> = listing
        .skipped
        .iter()
        .map(|(version, count)| (version.to_string(), json!(count)))
        .collect();
    let baseline_key = match baseline {
        BaselineMark::Key(key) => Value::String(key.to_string()),
        BaselineMark::None | BaselineMark::Unreadable => Value::Null,
    };
    json!({
        "output_version": OUTPUT_VERSION,
        "tenant": tenant,
        "suite": suite,
        "baseline_key": baseline_key,
        "baseline_unreadable": baseline == BaselineMark::Unreadable,
        "runs": runs,
        "note": listing.note().unwrap_or_default(),
        "advice": listing.advice(),
        "skipped": skipped,
        "unreadable": listing.unreadable.len(),
        "lucky": lucky,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn what_was_left_out_is_a_field() {
        let mut listing = Listing::default();
        listing.skipped.insert(9, 2);
        listing
            .unreadable
            .push((PathBuf::from("/somewhere/x.json"), "broken".into()));
        let v = runs_json("t", "s", BaselineMark::Unreadable, &listing, &[]);
        assert_eq!(v["skipped"], json!({"9": 2}));
        assert_eq!(v["unreadable"], json!(1));
        assert_eq!(
            v["note"],
            json!("ignored: 2 run(s) at schema 9, 1 unreadable file(s)")
        );
        assert_eq!(v["advice"].as_array().unwrap().len(), 1);
        assert_eq!(v["baseline_key"], Value::Null);
        assert_eq!(v["baseline_unreadable"], json!(true));
        assert!(!v.to_string().contains("/somewhere"), "no paths: {v}");
    }

    #[test]
    fn nothing_left_out_is_an_empty_note() {
        let lucky = Lucky {
            case: "c".into(),
            check: "answer".into(),
            passed: 5,
            samples: 5,
            failed: 9,
            asked: 12,
            p: 0.009,
        };
        let v = runs_json(
            "t",
            "s",
            BaselineMark::Key("k"),
            &Listing::default(),
            &[lucky],
        );
        assert_eq!(
            v["lucky"],
            json!([{"case": "c", "check": "answer", "reference_passed": 5, "reference_samples": 5,
                    "history_failed": 9, "history_asked": 12, "p": 0.009}])
        );
        assert_eq!(v["note"], json!(""));
        assert_eq!(v["skipped"], json!({}));
        assert_eq!(v["unreadable"], json!(0));
        assert_eq!(v["baseline_key"], json!("k"));
        assert_eq!(v["runs"], json!([]));
    }
}
