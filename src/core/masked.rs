//! Which cases of a run kept their answers with a secret masked.
//!
//! A target may echo a secret (a URL's user info, a credential header's
//! value, an API key) in its answer. The run grades the answer as the
//! target gave it and keeps it with each secret replaced by `***`
//! (`client::mask`). The kept answer is then no longer the one that was
//! graded, so `rejudge` must not grade it as if it were: this record says
//! which cases that concerns. It is a fact about the run, not payload (case
//! ids and a digest, never an answer), and it is kept beside the run
//! (`store::masked`), not in the document, whose schema-10 bytes are
//! digline 0.10.0's.
//!
//! Each case carries the digest of what its checks graded the answer
//! against ([`graded_against`]: the case's `expected` and `context`, and
//! the agreement its samples needed), so a re-judge knows whether a
//! verdict of the run still holds for the case as it is now.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::suite::Case;

/// The cases of one run whose kept answers had a secret masked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskedRecord {
    /// In case order, each case once.
    pub cases: Vec<MaskedCase>,
}

/// One case whose kept answers had a secret masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskedCase {
    /// The case's id.
    pub case_id: String,
    /// [`graded_against`] of the case when its answers were graded.
    pub graded_against: String,
}

impl MaskedRecord {
    /// The entry of case `id`, if its kept answers had a secret masked.
    pub fn case(&self, id: &str) -> Option<&MaskedCase> {
        self.cases.iter().find(|c| c.case_id == id)
    }

    /// True when no case's answers were masked.
    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }
}

/// 16 hex characters fingerprinting what a case's checks grade an answer
/// against besides the answer, the recorded input and the check itself:
/// the case's `expected` and `context`, and the share of samples that must
/// agree (`min_agreement`).
pub fn graded_against(case: &Case, min_agreement: f64) -> String {
    super::identity::digest(&json!({
        "expected": case.expected,
        "context": case.context,
        "min_agreement": min_agreement,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_moves_with_expected_context_and_agreement_only() {
        let case = |expected: Option<serde_json::Value>, context: Vec<String>, id: &str| Case {
            id: id.to_string(),
            expected,
            context,
            ..Case::default()
        };
        let a = graded_against(&case(Some(json!("x")), vec!["c".into()], "a"), 1.0);
        assert_eq!(a.len(), 16);
        assert_eq!(
            a,
            graded_against(&case(Some(json!("x")), vec!["c".into()], "b"), 1.0)
        );
        assert_ne!(
            a,
            graded_against(&case(Some(json!("y")), vec!["c".into()], "a"), 1.0)
        );
        assert_ne!(a, graded_against(&case(Some(json!("x")), vec![], "a"), 1.0));
        assert_ne!(
            a,
            graded_against(&case(Some(json!("x")), vec!["c".into()], "a"), 0.5)
        );
        let record = MaskedRecord {
            cases: vec![MaskedCase {
                case_id: "a".into(),
                graded_against: a.clone(),
            }],
        };
        assert_eq!(
            record.case("a").map(|c| c.graded_against.as_str()),
            Some(a.as_str())
        );
        assert!(record.case("b").is_none() && !record.is_empty());
    }
}
