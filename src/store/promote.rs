//! Promotion: making a run the baseline, only when it is safe to.
//!
//! A baseline changes only by a person's deliberate, checked command. The
//! run must belong to the same tenant and suite, carry the suite's current
//! `config_hash`, and have no errored verdict; with `replacing`, the current
//! baseline must be the one named. The baseline is the run without recorded
//! responses plus `promoted_at` (the caller's clock). Spec `30-documents.md`.

use crate::core::document::{run_key, RunDocument};
use crate::core::verdict::Status;

use super::StoreError;

/// What the person asked for and what the suite says now.
#[derive(Clone, Debug)]
pub struct PromotionRequest<'a> {
    /// The run to promote and its key.
    pub run: &'a RunDocument,
    /// The run's key (for messages).
    pub run_key: &'a str,
    /// The suite's tenant.
    pub tenant: &'a str,
    /// The suite's name.
    pub suite: &'a str,
    /// The suite's current `config_hash`.
    pub config_hash: &'a str,
    /// `Some(None)`: "there must be no baseline yet"; `Some(Some(key))`: the
    /// current baseline must be this run; `None`: not checked.
    pub replacing: Option<Option<&'a str>>,
    /// The current baseline, if any.
    pub current: Option<&'a RunDocument>,
    /// When the promotion happens (`isoformat()` UTC, from `host::clock`).
    pub promoted_at: &'a str,
}

/// Check every condition and return the baseline document to write.
///
/// # Errors
/// [`StoreError::PromotionRefused`] saying which condition failed and the
/// command that would fix it.
pub fn promote(req: &PromotionRequest) -> Result<RunDocument, StoreError> {
    let refuse = |s: String| Err(StoreError::PromotionRefused(s));
    let run = req.run;
    if run.tenant != req.tenant || run.suite != req.suite {
        return refuse(format!(
            "run {} belongs to tenant '{}', suite '{}', not to tenant '{}', suite '{}': a baseline is promoted only from a run of its own suite",
            req.run_key, run.tenant, run.suite, req.tenant, req.suite
        ));
    }
    if run.config_hash != req.config_hash {
        return refuse(format!(
            "run {} was produced with config_hash {}, and the suite's current configuration is {}: promoting it would record scores obtained under other rules. Run the suite again (digline run --suite <suite.toml>) and promote that run",
            req.run_key, run.config_hash, req.config_hash
        ));
    }
    let errored: Vec<&str> = run
        .results
        .iter()
        .filter(|c| c.verdicts.iter().any(|v| v.status == Status::Error))
        .map(|c| c.case_id.as_str())
        .collect();
    let aggregate_errored = run.aggregate.iter().any(|v| v.status == Status::Error);
    if !errored.is_empty() || aggregate_errored {
        let which = if errored.is_empty() {
            "a run-level measure".to_string()
        } else {
            format!("case(s) {}", errored.join(", "))
        };
        return refuse(format!(
            "run {} could not judge {which}: a reference with errors would hide what it could not measure. Fix the cause, run again and promote a run where every check could judge",
            req.run_key
        ));
    }
    if let Some(expected) = req.replacing {
        let current_key = req.current.map(|b| run_key(&b.created_at, &b.config_hash));
        if current_key.as_deref() != expected {
            let now = current_key.as_deref().unwrap_or("none");
            return refuse(format!(
                "--replacing {} does not name the current baseline, which is {now}: the reference moved since it was reviewed. Look at it, then pass --replacing {now}",
                expected.unwrap_or("none")
            ));
        }
    }
    let mut baseline = run.clone();
    for case in &mut baseline.results {
        case.responses = None;
    }
    baseline.promoted_at = Some(req.promoted_at.to_string());
    Ok(baseline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn doc(name: &str) -> RunDocument {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/goldens")
            .join(name);
        crate::store::document::read(&path).unwrap()
    }

    fn request<'a>(run: &'a RunDocument, hash: &'a str) -> PromotionRequest<'a> {
        PromotionRequest {
            run,
            run_key: "k",
            tenant: &run.tenant,
            suite: &run.suite,
            config_hash: hash,
            replacing: None,
            current: None,
            promoted_at: "2026-11-30T05:00:00+00:00",
        }
    }

    #[test]
    fn golden_promotion_equals_what_0_10_0_wrote() {
        let run = doc("headlines/01-nothing-changed/baseline-run.json");
        let want = doc("headlines/01-nothing-changed/baseline.json");
        let mut req = request(&run, &run.config_hash);
        let at = want.promoted_at.clone().unwrap();
        req.promoted_at = &at;
        assert_eq!(promote(&req).unwrap(), want);
    }

    #[test]
    fn each_condition_refuses() {
        let run = doc("headlines/01-nothing-changed/baseline-run.json");
        let msg = promote(&request(&run, "0000000000000000"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("config_hash"), "{msg}");
        let mut req = request(&run, &run.config_hash);
        req.tenant = "other";
        assert!(promote(&req)
            .unwrap_err()
            .to_string()
            .contains("tenant 'other'"));
        let errored = doc("headlines/08-case-errored-in-run/run.json");
        let msg = promote(&request(&errored, &errored.config_hash))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("could not judge case(s) opening-hours"),
            "{msg}"
        );
        let mut req = request(&run, &run.config_hash);
        req.replacing = Some(Some("2020-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa"));
        let msg = promote(&req).unwrap_err().to_string();
        assert!(msg.contains("--replacing none"), "{msg}");
        req.replacing = Some(None);
        assert!(promote(&req).is_ok());
    }

    #[test]
    fn responses_are_dropped() {
        let run = doc("documents/06-sampled-5-repeated/run.json");
        assert!(run.results.iter().any(|c| c.responses.is_some()));
        let base = promote(&request(&run, &run.config_hash)).unwrap();
        assert!(base.results.iter().all(|c| c.responses.is_none()));
    }
}
