//! The schema-10 run document as data: a run, its case results, and a
//! baseline (a run plus `promoted_at`).
//!
//! Pure types; reading, validating and writing files is `store`'s job.
//! Field names, presence and absence follow what digline 0.10.0 writes
//! (absent and empty mean different things). Design record: ADR 0014
//! (`shared/seeds/001_*`); spec `30-documents.md`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::verdict::{Status, Verdict};

/// The schema version this binary reads and writes.
pub const SCHEMA_VERSION: i64 = 10;

/// One case's outcome in a run (`results[]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    /// The case's id from `cases.json`: what pairing uses, with the assertion id.
    pub case_id: String,
    /// True when the case was not run (its reason is in `suspended_reason`).
    pub suspended: bool,
    /// Why the case is suspended; payload, present only on suspended cases.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub suspended_reason: Option<String>,
    /// `true` on canary cases; absent otherwise.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub canary: Option<bool>,
    /// One verdict per declared check, in declaration order (empty when suspended).
    #[serde(deserialize_with = "verdicts")]
    pub verdicts: Vec<Verdict>,
    /// The recorded answers (`record_responses = true`), one per sample; payload.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present_values",
        skip_serializing_if = "Option::is_none"
    )]
    pub responses: Option<Vec<Value>>,
}

/// A case's verdicts, held in no more room than they take.
fn verdicts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Verdict>, D::Error> {
    let mut verdicts = Vec::<Verdict>::deserialize(deserializer)?;
    verdicts.shrink_to_fit();
    Ok(verdicts)
}

/// Drop the reasons of every verdict in `verdicts` that did not error.
fn drop_reasons(verdicts: &mut [Verdict]) {
    for v in verdicts.iter_mut().filter(|v| v.status != Status::Error) {
        v.reason = String::new();
    }
}

impl CaseResult {
    /// True when this case is a canary.
    pub fn is_canary(&self) -> bool {
        self.canary == Some(true)
    }
}

/// A run document (`runs/<suite>/<key>.json`) or, with `promoted_at`, a
/// baseline (`baselines/<suite>.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDocument {
    /// Run-level verdicts (precision, recall, accuracy, f1), in declaration order.
    pub aggregate: Vec<Verdict>,
    /// Declared artifacts by path: `{sha, text}` as 0.10.0 records them.
    #[serde(deserialize_with = "crate::core::strict_json::deserialize_object")]
    pub artifacts: Map<String, Value>,
    /// 16 hex chars fingerprinting the rules (checks, thresholds, tolerances, samples).
    pub config_hash: String,
    /// When the run was made: `datetime.now(UTC).isoformat()`.
    pub created_at: String,
    /// The release that stamped the document when its run was made
    /// (`0.11.0`). Empty means *not recorded* (a migrated document, one built
    /// by hand) and is then written absent, never as `""`: absence is the only
    /// honest value for a document no run of ours produced (ADR 0014 §2–§3).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::non_empty",
        skip_serializing_if = "String::is_empty"
    )]
    pub digline_version: String,
    /// The suite's `environment`.
    pub environment: String,
    /// The repository's commit when the run was made, if known.
    pub git_commit: Option<String>,
    /// What the judges reported about themselves (empty without judges).
    #[serde(deserialize_with = "crate::core::strict_json::deserialize_object")]
    pub judge_config: Map<String, Value>,
    /// `--meta K=V` pairs given to `run`; payload.
    #[serde(deserialize_with = "crate::core::strict_json::deserialize_object")]
    pub metadata: Map<String, Value>,
    /// True when payload fields were dropped from this document.
    pub redacted: bool,
    /// One entry per case, in `cases.json` order.
    pub results: Vec<CaseResult>,
    /// Always [`SCHEMA_VERSION`] for documents this binary writes.
    pub schema_version: i64,
    /// The suite's `name`.
    pub suite: String,
    /// What the target reported about how it answered (`{"values": {...}}`), or `{}`.
    #[serde(deserialize_with = "crate::core::strict_json::deserialize_object")]
    pub target_config: Map<String, Value>,
    /// The suite's `tenant`: the perimeter a comparison never crosses.
    pub tenant: String,
    /// Set on a replay: the key of the run whose recorded answers were judged
    /// again (digline 0.10.0's `rejudge`). Such a run never becomes a baseline.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub rejudged_from: Option<String>,
    /// Set on a baseline: when a person promoted it.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub promoted_at: Option<String>,
    /// How the judges graded the suite's judge anchors, and who they were
    /// (issue 32): absent for a suite without anchors, so such documents
    /// keep 0.10.0's bytes. Outside `results`: no part of `config_hash`
    /// or of any case count.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub judge_anchors: Option<super::anchors::AnchorsRecord>,
}

impl RunDocument {
    /// Cases with at least one errored verdict (`unjudged` in the headline).
    pub fn unjudged_cases(&self) -> usize {
        self.results
            .iter()
            .filter(|c| c.verdicts.iter().any(|v| v.status == Status::Error))
            .count()
    }

    /// Drop the reasons of every case verdict that did not error: for a
    /// document already stored, held by a reader that shows no pass or fail
    /// reason (the gate with a redacted report, whose surfaces say an
    /// error's cause, read from its reason, and no other reason). A document
    /// so held is not the stored one and is never written.
    pub fn drop_case_reasons(&mut self) {
        for case in &mut self.results {
            drop_reasons(&mut case.verdicts);
        }
    }

    /// Suspended cases.
    pub fn suspended_cases(&self) -> usize {
        self.results.iter().filter(|c| c.suspended).count()
    }
}

/// The run key: `created_at` with every run of non-alphanumerics turned into
/// one `-`, trimmed, then `-<config_hash>`.
///
/// `2026-11-30T04:16:02.573852+00:00` + `d4d9fd58fc759255` →
/// `2026-11-30T04-16-02-573852-00-00-d4d9fd58fc759255`.
pub fn run_key(created_at: &str, config_hash: &str) -> String {
    let mut key = String::new();
    let mut in_gap = false;
    for c in created_at.chars() {
        if c.is_ascii_alphanumeric() {
            if in_gap && !key.is_empty() {
                key.push('-');
            }
            in_gap = false;
            key.push(c);
        } else {
            in_gap = true;
        }
    }
    format!("{key}-{config_hash}")
}

/// True for a name shaped like a run key: a `created_at` that starts with
/// a four-digit year, its separators collapsed to `-`, then `-` and a
/// 16-hex `config_hash` (see [`run_key`]): what `latest` trusts a file name for.
pub fn is_run_key(name: &str) -> bool {
    let bytes = name.as_bytes();
    let Some((stamp, hash)) = name.rsplit_once('-') else {
        return false;
    };
    bytes.len() > 21
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && hash.len() == 16
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && stamp
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_VERDICTS: &str = r#"{"aggregate": [], "artifacts": {}, "config_hash": "0000000000000000",
        "created_at": "2026-01-01T00:00:00+00:00", "environment": "local", "git_commit": null,
        "judge_config": {}, "metadata": {}, "redacted": false, "schema_version": 10, "suite": "s",
        "target_config": {}, "tenant": "t", "results": [{"case_id": "c", "suspended": false, "verdicts": [
          {"assertion": "contains", "assertion_id": "a", "metadata": {}, "reason": "found 'x'",
           "score": 1.0, "status": "pass", "threshold": 1, "tolerance": 0},
          {"assertion": "judge", "assertion_id": "b", "metadata": {}, "reason": "target raised TimeoutError: timed out",
           "score": null, "status": "error", "threshold": 1, "tolerance": 0}]}]}"#;

    fn reasons(doc: &RunDocument) -> Vec<&str> {
        doc.results[0]
            .verdicts
            .iter()
            .map(|v| v.reason.as_str())
            .collect()
    }

    #[test]
    fn dropping_reasons_keeps_an_error_s_reason_and_nothing_else() {
        let mut doc: RunDocument = serde_json::from_str(TWO_VERDICTS).unwrap();
        assert_eq!(
            reasons(&doc),
            ["found 'x'", "target raised TimeoutError: timed out"]
        );
        doc.drop_case_reasons();
        assert_eq!(reasons(&doc), ["", "target raised TimeoutError: timed out"]);
    }

    #[test]
    fn run_key_collapses_separators() {
        assert_eq!(
            run_key("2026-11-30T04:16:02.573852+00:00", "d4d9fd58fc759255"),
            "2026-11-30T04-16-02-573852-00-00-d4d9fd58fc759255"
        );
        assert_eq!(run_key("--2026::x--", "ab"), "2026-x-ab");
    }
}
