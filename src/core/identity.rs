//! Identity: `assertion_id` and `config_hash`, equal to digline 0.10.0's.
//!
//! `assertion_id` = first 16 hex chars of sha256 over the canonical dump of
//! the check's identity payload; `config_hash` = first 16 hex of sha256 over
//! `[sorted [id, threshold, tolerance]…, samples, min_agreement, sorted
//! aggregates]`. Spec `20-checks.md`, `30-documents.md`.

use serde_json::{json, Number, Value};
use sha2::{Digest, Sha256};

use super::python::dumps::{dumps_canonical, round6};

/// The first `bytes` bytes of sha256 over `data`, as lower-case hex
/// (`bytes` ≥ 32: the whole digest). Every hex digest digline writes
/// (identities, journal and marker hashes, artifact shas) is this one.
pub fn sha256_hex(data: &[u8], bytes: usize) -> String {
    Sha256::digest(data)
        .iter()
        .take(bytes)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// First 16 hex chars of sha256 over `text`'s UTF-8 bytes.
pub fn sha16(text: &str) -> String {
    sha256_hex(text.as_bytes(), 8)
}

/// The 16-hex identity of a payload (its canonical dump hashed).
pub fn digest(payload: &Value) -> String {
    sha16(&dumps_canonical(payload))
}

/// One rule's entry in the config hash: (assertion_id, threshold, tolerance).
///
/// Threshold and tolerance keep the integer/float distinction of the suite
/// file, as 0.10.0 hashes them: `tolerance = 0` and `tolerance = 0.0` give
/// different hashes (floats are rounded to 6 decimals, integers kept).
/// Aggregates pass floats (0.10.0 converts theirs with `float()` first).
#[derive(Clone, Debug, PartialEq)]
pub struct RuleEntry {
    /// The check's assertion id.
    pub assertion_id: String,
    /// 0–1, as declared (int or float).
    pub threshold: Number,
    /// ≥ 0, as declared (int or float).
    pub tolerance: Number,
}

impl RuleEntry {
    /// A rule with float threshold and tolerance (what defaults and ratio
    /// strings give).
    pub fn floats(assertion_id: &str, threshold: f64, tolerance: f64) -> RuleEntry {
        let num = |x: f64| Number::from_f64(x).unwrap_or_else(|| Number::from(0));
        RuleEntry {
            assertion_id: assertion_id.to_string(),
            threshold: num(threshold),
            tolerance: num(tolerance),
        }
    }
}

/// Python's `round(x, 6)` on an int or float: ints stay ints.
fn num6(n: &Number) -> Value {
    if n.is_f64() {
        json!(round6(n.as_f64().unwrap_or(f64::NAN)))
    } else {
        Value::Number(n.clone())
    }
}

/// `config_hash` over the per-case rules, samples, min_agreement and the
/// (group-expanded) aggregates. `min_agreement` is hashed unrounded, as
/// 0.10.0 does (`"2/3"` → `0.6666666666666666`; `"4/6"` is the same value).
pub fn config_hash(
    checks: &[RuleEntry],
    samples: u32,
    min_agreement: Option<f64>,
    aggregates: &[RuleEntry],
) -> String {
    fn value(n: &Number) -> f64 {
        n.as_f64().unwrap_or(f64::NAN)
    }
    fn sorted(entries: &[RuleEntry]) -> Value {
        let mut rows: Vec<&RuleEntry> = entries.iter().collect();
        rows.sort_by(|a, b| {
            a.assertion_id
                .cmp(&b.assertion_id)
                .then(value(&a.threshold).total_cmp(&value(&b.threshold)))
                .then(value(&a.tolerance).total_cmp(&value(&b.tolerance)))
        });
        Value::Array(
            rows.into_iter()
                .map(|r| json!([r.assertion_id, num6(&r.threshold), num6(&r.tolerance)]))
                .collect(),
        )
    }
    let body = json!([sorted(checks), samples, min_agreement, sorted(aggregates)]);
    digest(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hex_digest_serves_every_length() {
        let whole = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_hex(b"abc", 32), whole);
        assert_eq!(sha256_hex(b"abc", 64), whole);
        assert_eq!(sha256_hex(b"abc", 16), whole[..32]);
        assert_eq!(sha16("abc"), whole[..16]);
    }

    fn rule(id: &str, threshold: f64, tolerance: f64) -> RuleEntry {
        RuleEntry::floats(id, threshold, tolerance)
    }

    #[test]
    fn config_hash_matches_worked_example() {
        let checks = [
            rule("d697b44c72db127b", 1.0, 0.0),
            rule("79515b4664d3c45a", 1.0, 0.0),
        ];
        assert_eq!(config_hash(&checks, 1, None, &[]), "f104e032c0d0a966");
    }

    #[test]
    fn an_integer_tolerance_hashes_apart_from_a_float_one() {
        // 0.10.0: contains needle "x" with tolerance = 0 vs tolerance = 0.0.
        let id = "a6a105ba13c25e9a";
        let int = RuleEntry {
            assertion_id: id.into(),
            threshold: Number::from_f64(1.0).unwrap_or_else(|| Number::from(1)),
            tolerance: Number::from(0),
        };
        assert_eq!(config_hash(&[int], 1, None, &[]), "eacf8d598dee1ecb");
        assert_eq!(
            config_hash(&[rule(id, 1.0, 0.0)], 1, None, &[]),
            "7de78bcc423874e1"
        );
    }

    #[test]
    fn min_agreement_is_hashed_unrounded() {
        let checks = [
            rule("88a931f8f1842070", 1.0, 0.0),
            rule("ff325ab83dcbebdf", 1.0, 0.0),
        ];
        assert_ne!(
            config_hash(&checks, 3, Some(2.0 / 3.0), &[]),
            config_hash(&checks, 3, Some(0.666667), &[])
        );
    }
}
