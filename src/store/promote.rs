//! Promotion: making a run the baseline, only when it is safe to.
//!
//! A baseline changes only by a person's deliberate, checked command. The
//! run must belong to the same tenant and suite, carry the suite's current
//! `config_hash`, and have no errored case (a whole-run measure that could
//! not be computed does not block it); with `replacing`, the current
//! baseline must be the one named. The baseline is the run without recorded
//! responses plus `promoted_at` (the caller's clock). Spec `30-documents.md`.

use crate::core::document::{run_key, RunDocument};
use crate::core::verdict::Status;

use super::StoreError;

/// What the person asked for and what the suite says now.
#[derive(Clone, Debug)]
pub struct PromotionRequest<'a> {
    /// The run to promote.
    pub run: &'a RunDocument,
    /// The run's key (for messages).
    pub run_key: &'a str,
    /// The suite's tenant.
    pub tenant: &'a str,
    /// The suite's name.
    pub suite: &'a str,
    /// The suite file as the person named it (`--suite`), for the commands
    /// a refusal suggests.
    pub suite_arg: &'a str,
    /// The suite's current `config_hash`.
    pub config_hash: &'a str,
    /// `Some(None)`: "there must be no baseline yet"; `Some(Some(key))`: the
    /// current baseline must be this run; `None`: not checked.
    pub replacing: Option<Option<&'a str>>,
    /// The current baseline, if any.
    pub current: Option<&'a RunDocument>,
    /// When the promotion happens (`isoformat()` UTC, read by `host::clock`
    /// and passed in: the store reads no clock).
    pub promoted_at: &'a str,
}

/// Check every condition, in this order — same tenant and suite, the
/// suite's current `config_hash`, not a replay (`rejudged_from`), no
/// errored case (a whole-run measure that errored is accepted), and with `replacing` the current baseline is the one
/// named — and return the baseline document to write: the run without
/// recorded responses, plus `promoted_at`. `created_at` and
/// `digline_version` stay the run's (a promotion stamps no version).
///
/// # Errors
/// [`StoreError::PromotionRefused`] saying which condition failed and the
/// command that would fix it.
pub fn promote(req: &PromotionRequest) -> Result<RunDocument, StoreError> {
    let refuse = |s: String| Err(StoreError::PromotionRefused(s));
    let run = req.run;
    let suite = req.suite_arg;
    let again =
        format!("digline run --suite {suite} && digline promote --suite {suite} --run latest");
    if run.tenant != req.tenant || run.suite != req.suite {
        return refuse(format!(
            "run {} belongs to tenant '{}', suite '{}', not to tenant '{}', suite '{}': a baseline is promoted only from a run of its own suite. Pick one of its runs: digline list --suite {suite}",
            req.run_key, run.tenant, run.suite, req.tenant, req.suite
        ));
    }
    if run.config_hash != req.config_hash {
        return refuse(format!(
            "run {} was produced with config_hash {}, and the suite's current configuration is {}: promoting it would record scores obtained under other rules. Measure under the current rules and promote that run: {again}",
            req.run_key, run.config_hash, req.config_hash
        ));
    }
    if let Some(source) = &run.rejudged_from {
        return refuse(format!(
            "run {} was judged again from the recorded answers of {source}, not measured against the target: a reference must come from a run that asked the target. Promote a run that measured: {again}",
            req.run_key
        ));
    }
    // A case that errored hides what the reference should have measured.
    // A whole-run measure that errored (a precision with no positive
    // prediction) is a fact of the suite, not of one run: it may be the
    // reference's state for good, so it never blocks a promotion — the
    // gate says it could not be computed, in the run and in the reference.
    let errored: Vec<&str> = run
        .results
        .iter()
        .filter(|c| c.verdicts.iter().any(|v| v.status == Status::Error))
        .map(|c| c.case_id.as_str())
        .collect();
    if !errored.is_empty() {
        return refuse(format!(
            "run {} could not judge {} case(s) ({}): a reference with errors would hide what it could not measure. Fix the cause, then measure again and promote that run: {again}",
            req.run_key,
            errored.len(),
            errored.join(", ")
        ));
    }
    if let Some(expected) = req.replacing {
        let current_key = req.current.map(|b| run_key(&b.created_at, &b.config_hash));
        if current_key.as_deref() != expected {
            let now = current_key.as_deref().unwrap_or("none");
            let expects = match expected {
                None => "no baseline yet".to_string(),
                Some(k) => format!("{k} to be the current baseline"),
            };
            let found = match &current_key {
                None => "there is none".to_string(),
                Some(k) => format!("the current baseline is {k}"),
            };
            return refuse(format!(
                "--replacing {} expects {expects}, and {found}: the reference moved since it was reviewed. Look at it, then, if this run should still replace it: digline promote --suite {suite} --run {} --replacing {now}",
                expected.unwrap_or("none"),
                req.run_key
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
            suite_arg: "suite.toml",
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
    fn each_condition_refuses_with_its_sentence_and_fix() {
        let run = doc("headlines/01-nothing-changed/baseline-run.json");
        let errored = doc("headlines/08-case-errored-in-run/run.json");
        let mut replay = run.clone();
        replay.rejudged_from = Some("2026-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa".into());
        let mut aggregate_errored = run.clone();
        aggregate_errored.aggregate = errored
            .results
            .iter()
            .flat_map(|c| c.verdicts.iter())
            .filter(|v| v.status == Status::Error)
            .cloned()
            .collect();
        let current = run.clone();
        let here = run_key(&run.created_at, &run.config_hash);
        let other = "2020-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa";
        type Tweak = for<'a> fn(&mut PromotionRequest<'a>, &'a RunDocument);
        let rows: Vec<(&str, &RunDocument, Tweak, String)> = vec![
            ("other tenant", &run, |r, _| r.tenant = "other",
             "not to tenant 'other'".into()),
            ("other suite", &run, |r, _| r.suite = "other",
             "suite 'other': a baseline is promoted only from a run of its own suite. Pick one of its runs: digline list --suite suite.toml".into()),
            ("other rules", &run, |r, _| r.config_hash = "0000000000000000",
             "the suite's current configuration is 0000000000000000".into()),
            ("a replay", &replay, |_, _| {},
             "judged again from the recorded answers of 2020".replace("2020", "2026")),
            ("an errored case", &errored, |_, _| {},
             "could not judge 1 case(s) (opening-hours)".into()),
            ("none while one exists", &run, |r, c| {
                r.replacing = Some(None);
                r.current = Some(c);
            }, format!("--replacing none expects no baseline yet, and the current baseline is {here}")),
            ("a key while none exists", &run, |r, _| r.replacing = Some(Some("2020-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa")),
             format!("expects {other} to be the current baseline, and there is none")),
            ("another key", &run, |r, c| {
                r.replacing = Some(Some("2020-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa"));
                r.current = Some(c);
            }, format!("and the current baseline is {here}: the reference moved")),
        ];
        for (name, subject, tweak, want) in rows {
            let mut req = request(subject, &subject.config_hash);
            tweak(&mut req, &current);
            let msg = promote(&req).expect_err(name).to_string();
            assert!(msg.contains(&want), "{name}: {msg}");
            assert!(msg.contains("digline "), "{name}: no command in {msg}");
        }
        // The fix each refusal names is the command that works.
        let mut req = request(&run, &run.config_hash);
        req.current = Some(&current);
        req.replacing = Some(Some(&here));
        assert!(promote(&req).is_ok());
        req.current = None;
        req.replacing = Some(None);
        assert!(promote(&req).is_ok());
        // A whole-run measure that could not be computed is the suite's
        // state, not the run's fault: it never blocks a promotion.
        let promoted = promote(&request(&aggregate_errored, &aggregate_errored.config_hash))
            .expect("an errored whole-run measure is promoted");
        assert!(promoted.aggregate.iter().any(|v| v.status == Status::Error));
        let msg = promote(&request(&errored, &errored.config_hash))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(
                "digline run --suite suite.toml && digline promote --suite suite.toml --run latest"
            ),
            "{msg}"
        );
    }

    #[test]
    fn promotion_is_a_pure_function_of_its_arguments() {
        let run = doc("documents/01-unicode-text/run.json");
        let once = promote(&request(&run, &run.config_hash)).unwrap();
        let twice = promote(&request(&run, &run.config_hash)).unwrap();
        assert_eq!(
            crate::store::document::to_bytes(&once),
            crate::store::document::to_bytes(&twice)
        );
        assert_eq!(once.created_at, run.created_at);
        assert_eq!(once.digline_version, run.digline_version);
        assert_eq!(
            once.promoted_at.as_deref(),
            Some("2026-11-30T05:00:00+00:00")
        );
    }

    #[test]
    fn responses_are_dropped() {
        let run = doc("documents/06-sampled-5-repeated/run.json");
        assert!(run.results.iter().any(|c| c.responses.is_some()));
        let base = promote(&request(&run, &run.config_hash)).unwrap();
        assert!(base.results.iter().all(|c| c.responses.is_none()));
    }
}
