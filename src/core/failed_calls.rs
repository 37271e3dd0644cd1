//! How long each failed call to the target took: a measured fact (elapsed
//! milliseconds), shown next to the cause of the checks it left unjudged.
//!
//! digline 0.10.0 records no time for a call that failed (its run document
//! keeps only the reason, and documents keep its bytes), so this is a side
//! record beside the store's documents (`store::timings`), written with the
//! run. A case id and a number per failed case, and the endpoint called
//! (`host[:port]`, as every cause names it): never payload.
//!
//! Pure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The failed target calls of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailedCalls {
    /// Case id → milliseconds the case's failing call took (its last
    /// attempt, when it was retried).
    pub elapsed_ms: BTreeMap<String, u64>,
    /// The endpoint those calls went to (`host[:port]`), so a cause whose
    /// reason does not name it (an answer without the output) still does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

impl FailedCalls {
    /// No failed call recorded.
    pub fn none() -> &'static FailedCalls {
        static NONE: FailedCalls = FailedCalls {
            elapsed_ms: BTreeMap::new(),
            endpoint: None,
        };
        &NONE
    }

    /// How long case `case_id`'s failing call took, when recorded.
    pub fn elapsed_ms(&self, case_id: &str) -> Option<u64> {
        self.elapsed_ms.get(case_id).copied()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.elapsed_ms.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_it_wrote_and_refuses_unknown_fields() {
        let mut f = FailedCalls::default();
        assert!(f.is_empty() && FailedCalls::none().is_empty());
        f.elapsed_ms.insert("c1".into(), 1503);
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(text, r#"{"elapsed_ms":{"c1":1503}}"#);
        let back: FailedCalls = serde_json::from_str(&text).unwrap();
        assert_eq!(back.elapsed_ms("c1"), Some(1503));
        assert_eq!(back.elapsed_ms("c2"), None);
        assert!(serde_json::from_str::<FailedCalls>(r#"{"elapsed":{}}"#).is_err());
        assert!(serde_json::from_str::<FailedCalls>(r#"{"elapsed_ms":{"c":-1}}"#).is_err());
    }
}
