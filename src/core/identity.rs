//! Identity: `assertion_id` and `config_hash`, equal to digline 0.10.0's.
//!
//! `assertion_id` = first 16 hex chars of sha256 over the canonical dump of
//! the check's identity payload; `config_hash` = first 16 hex of sha256 over
//! `[sorted [id, threshold, tolerance]…, samples, min_agreement, sorted
//! aggregates]`. Spec `20-checks.md`, `30-documents.md`.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::pyjson::{dumps_canonical, round6};

/// First 16 hex chars of sha256 over `text`'s UTF-8 bytes.
pub fn sha16(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The 16-hex identity of a payload (its canonical dump hashed).
pub fn digest(payload: &Value) -> String {
    sha16(&dumps_canonical(payload))
}

/// One rule's entry in the config hash: (assertion_id, threshold, tolerance).
#[derive(Clone, Debug, PartialEq)]
pub struct RuleEntry {
    /// The check's assertion id.
    pub assertion_id: String,
    /// 0–1.
    pub threshold: f64,
    /// ≥ 0.
    pub tolerance: f64,
}

/// `config_hash` over the per-case rules, samples, min_agreement and the
/// (group-expanded) aggregates.
pub fn config_hash(
    checks: &[RuleEntry],
    samples: u32,
    min_agreement: Option<f64>,
    aggregates: &[RuleEntry],
) -> String {
    fn sorted(entries: &[RuleEntry]) -> Value {
        let mut rows: Vec<&RuleEntry> = entries.iter().collect();
        rows.sort_by(|a, b| {
            a.assertion_id
                .cmp(&b.assertion_id)
                .then(a.threshold.total_cmp(&b.threshold))
                .then(a.tolerance.total_cmp(&b.tolerance))
        });
        Value::Array(
            rows.into_iter()
                .map(|r| json!([r.assertion_id, round6(r.threshold), round6(r.tolerance)]))
                .collect(),
        )
    }
    let body = json!([
        sorted(checks),
        samples,
        min_agreement.map(round6),
        sorted(aggregates)
    ]);
    digest(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str, threshold: f64, tolerance: f64) -> RuleEntry {
        RuleEntry {
            assertion_id: id.into(),
            threshold,
            tolerance,
        }
    }

    #[test]
    fn config_hash_matches_worked_example() {
        let checks = [
            rule("d697b44c72db127b", 1.0, 0.0),
            rule("79515b4664d3c45a", 1.0, 0.0),
        ];
        assert_eq!(config_hash(&checks, 1, None, &[]), "f104e032c0d0a966");
    }
}
