//! The verdict-only projection of one stored run: what the MCP `get_run`
//! and `get_baseline` tools return (ADR 0011 §5).
//!
//! An MCP response goes into a model's context, commonly hosted by somebody
//! else, and from there into transcripts nobody here controls. So this shape
//! is **chosen, not inherited** from the storage document: it is under
//! [`OUTPUT_VERSION`], not the schema, and a key is added here only by a
//! decision (the test below lists them).
//!
//! What crosses: `output_version`, `key`, `tenant`, `suite`, `environment`,
//! `config_hash`, `created_at`, `git_commit`, `digline_version`,
//! `promoted_at`, `results[]` (`case_id`, `suspended` as a boolean,
//! `canary`, `verdicts[]`), `aggregate[]`, each verdict as `name`,
//! `assertion_id`, `status`, `score`, `threshold`, `tolerance`, `samples`,
//! `sample_min`, `sample_max` and the `metadata` keys the suite discloses;
//! `target_config`/`judge_config` as `{values, withheld, identities}` with
//! the perimeter fields (`base_url`, `fingerprint`) moved from `values` to
//! `withheld`; `artifacts` as `{path: {withheld: true}}` (text *and* digest
//! only under a disclosure); the run `metadata` the suite discloses; and
//! `disclosure` itself, so a reader can tell what the document was allowed
//! to carry.
//!
//! What never crosses, absent rather than emptied: verdict reasons (a judge
//! quotes the output), recorded responses, the sentence a case was
//! suspended with, undisclosed metadata, artifact text and digests (a digest
//! is a verifier of a guessable prompt), perimeter configuration values, and
//! the cases' vars and metadata (never in a run document to begin with).
//!
//! `canary` is **added here** beyond digline 0.10.0's projection: a canary's
//! score fingerprints which model answered, and `compare` already carries
//! the flag on its deltas. A data suite cannot declare a disclosure, so it
//! always passes [`Disclosure::default`] (nothing beyond the verdict).

use serde_json::{json, Map, Value};

use crate::core::document::RunDocument;
use crate::core::strict_json::strings;
use crate::core::verdict::Verdict;

use super::OUTPUT_VERSION;

/// Configuration fields that describe the client's perimeter rather than the
/// model: they leave as a name in `withheld`, never as a value (ADR 0005 §2).
pub const PERIMETER_FIELDS: [&str; 2] = ["base_url", "fingerprint"];

/// What a suite declares may cross beyond the verdict. The default is the
/// empty one, so a caller that does not know the suite's policy discloses
/// less, never more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Disclosure {
    /// Verdict `metadata` keys that may cross.
    pub score_metadata: Vec<String>,
    /// Run `metadata` keys that may cross.
    pub run_metadata: Vec<String>,
    /// Whether the declared artifacts (text and digest) may cross.
    pub artifacts: bool,
}

/// The projection of the run stored under `key`.
pub fn run_document(key: &str, doc: &RunDocument, disclosure: &Disclosure) -> Value {
    let results: Vec<Value> = doc
        .results
        .iter()
        .map(|case| {
            json!({
                "case_id": case.case_id,
                "suspended": case.suspended,
                "canary": case.is_canary(),
                "verdicts": case.verdicts.iter().map(|v| verdict(v, disclosure)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let artifacts: Map<String, Value> = doc
        .artifacts
        .iter()
        .map(|(path, artifact)| {
            let shown = if disclosure.artifacts {
                json!({"sha": artifact.get("sha"), "text": artifact.get("text")})
            } else {
                json!({"withheld": true})
            };
            (path.clone(), shown)
        })
        .collect();
    let mut score_keys = disclosure.score_metadata.clone();
    score_keys.sort();
    let mut run_keys = disclosure.run_metadata.clone();
    run_keys.sort();
    json!({
        "output_version": OUTPUT_VERSION,
        "key": key,
        "tenant": doc.tenant,
        "suite": doc.suite,
        "environment": doc.environment,
        "config_hash": doc.config_hash,
        "created_at": doc.created_at,
        "git_commit": doc.git_commit,
        "digline_version": doc.digline_version,
        "promoted_at": doc.promoted_at,
        "results": results,
        "aggregate": doc.aggregate.iter().map(|v| verdict(v, disclosure)).collect::<Vec<_>>(),
        "target_config": config(&doc.target_config),
        "judge_config": config(&doc.judge_config),
        "artifacts": artifacts,
        "metadata": disclosed(&doc.metadata, &disclosure.run_metadata),
        "disclosure": {
            "score_metadata": score_keys,
            "run_metadata": run_keys,
            "artifacts": disclosure.artifacts,
        },
    })
}

/// What a verdict is, and nothing it merely carried: never its reason.
fn verdict(v: &Verdict, disclosure: &Disclosure) -> Value {
    json!({
        "name": v.assertion,
        "assertion_id": v.assertion_id,
        "status": v.status.as_str(),
        "score": v.score,
        "threshold": v.threshold,
        "tolerance": v.tolerance,
        "samples": v.samples.clone().unwrap_or_default(),
        "sample_min": v.sample_min,
        "sample_max": v.sample_max,
        "metadata": disclosed(&v.metadata.to_map(), &disclosure.score_metadata),
    })
}

/// The keys of `values` that `allowed` names; nothing travels on its own merit.
fn disclosed(values: &Map<String, Value>, allowed: &[String]) -> Map<String, Value> {
    values
        .iter()
        .filter(|(k, _)| allowed.iter().any(|a| a == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// One system's configuration (`{values, withheld, identities}`), the
/// perimeter fields moved from `values` to `withheld`.
fn config(raw: &Map<String, Value>) -> Value {
    let mut values = raw
        .get("values")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut withheld: Vec<String> = strings(raw.get("withheld"));
    for field in PERIMETER_FIELDS {
        if values.remove(field).is_some() && !withheld.iter().any(|w| w == field) {
            withheld.push(field.to_string());
        }
    }
    withheld.sort();
    json!({
        "values": values,
        "withheld": withheld,
        "identities": strings::<Vec<String>>(raw.get("identities")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked() -> RunDocument {
        let doc = json!({
            "aggregate": [],
            "artifacts": {"prompt.txt": {"sha": "SHA-MARK", "text": "TEXT-MARK"}},
            "config_hash": "0123456789abcdef",
            "created_at": "2026-11-30T04:16:02.573852+00:00",
            "digline_version": "0.11.0",
            "environment": "local",
            "git_commit": null,
            "judge_config": {},
            "metadata": {"build": "RUN-META-MARK"},
            "redacted": false,
            "results": [
                {"case_id": "a", "suspended": false, "verdicts": [{
                    "assertion": "contains", "assertion_id": "0011223344556677",
                    "metadata": {"length": 3, "quoted": "SCORE-META-MARK"},
                    "reason": "REASON-MARK", "score": 1.0, "status": "pass",
                    "threshold": 1.0, "tolerance": 0.0,
                    "samples": [1.0, 1.0], "sample_min": 1.0, "sample_max": 1.0
                }], "responses": ["OUTPUT-MARK"]},
                {"case_id": "b", "suspended": true, "suspended_reason": "SUSPENDED-MARK", "verdicts": []}
            ],
            "schema_version": 10,
            "suite": "s",
            "target_config": {"values": {"model": "m", "base_url": "BASE-URL-MARK"}},
            "tenant": "t"
        });
        serde_json::from_value(doc).unwrap()
    }

    const MARKS: [&str; 8] = [
        "SHA-MARK",
        "TEXT-MARK",
        "RUN-META-MARK",
        "SCORE-META-MARK",
        "REASON-MARK",
        "OUTPUT-MARK",
        "SUSPENDED-MARK",
        "BASE-URL-MARK",
    ];

    #[test]
    fn no_payload_crosses_by_default() {
        let v = run_document("k", &marked(), &Disclosure::default());
        let text = v.to_string();
        for mark in MARKS {
            assert!(!text.contains(mark), "{mark} crossed: {text}");
        }
        assert_eq!(v["results"][1]["suspended"], json!(true));
        assert_eq!(v["results"][0]["verdicts"][0]["metadata"], json!({}));
        assert_eq!(v["artifacts"], json!({"prompt.txt": {"withheld": true}}));
        assert_eq!(
            v["target_config"],
            json!({"values": {"model": "m"}, "withheld": ["base_url"], "identities": []})
        );
        assert_eq!(v["metadata"], json!({}));
    }

    #[test]
    fn a_disclosure_lets_through_what_it_names_and_only_that() {
        let disclosure = Disclosure {
            score_metadata: vec!["length".into()],
            run_metadata: vec!["build".into()],
            artifacts: true,
        };
        let v = run_document("k", &marked(), &disclosure);
        assert_eq!(
            v["results"][0]["verdicts"][0]["metadata"],
            json!({"length": 3})
        );
        assert_eq!(v["metadata"], json!({"build": "RUN-META-MARK"}));
        assert_eq!(
            v["artifacts"],
            json!({"prompt.txt": {"sha": "SHA-MARK", "text": "TEXT-MARK"}})
        );
        let text = v.to_string();
        for mark in [
            "REASON-MARK",
            "OUTPUT-MARK",
            "SUSPENDED-MARK",
            "BASE-URL-MARK",
        ] {
            assert!(!text.contains(mark), "{mark} crossed: {text}");
        }
    }

    /// A key added to the projection without a decision fails here.
    #[test]
    fn the_keys_are_the_chosen_ones() {
        let v = run_document("k", &marked(), &Disclosure::default());
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(
            keys(&v),
            [
                "aggregate",
                "artifacts",
                "config_hash",
                "created_at",
                "digline_version",
                "disclosure",
                "environment",
                "git_commit",
                "judge_config",
                "key",
                "metadata",
                "output_version",
                "promoted_at",
                "results",
                "suite",
                "target_config",
                "tenant"
            ]
        );
        assert_eq!(
            keys(&v["results"][0]),
            ["canary", "case_id", "suspended", "verdicts"]
        );
        assert_eq!(
            keys(&v["results"][0]["verdicts"][0]),
            [
                "assertion_id",
                "metadata",
                "name",
                "sample_max",
                "sample_min",
                "samples",
                "score",
                "status",
                "threshold",
                "tolerance"
            ]
        );
    }
}
