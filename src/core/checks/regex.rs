//! `regex`: does the pattern match somewhere in the text output?
//!
//! The pattern was translated and compiled at load by
//! [`super::pattern::compile`], so this is Python's `re.search`: an
//! unanchored search. Reasons quote the declared pattern between slashes
//! (`pattern /\d{3}/ matched`, `pattern /\d{3}/ did not match`), never the
//! text. A search that runs out of its budget (time, or the engine's
//! backtrack limit; see [`super::search`]) is an `error`, never a miss.

use std::sync::Arc;

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use super::search::{self, Budget};
use super::{params, pattern};
use crate::core::verdict::Verdict;

/// Search `text` for `compiled` (declared as `pattern`). Score 1.0 on a
/// match, 0.0 without one.
pub(super) fn search(pattern: &str, compiled: &fancy_regex::Regex, text: &str) -> Outcome {
    match search::is_match(compiled, text, Budget::default()) {
        Ok(true) => Outcome::binary(true, format!("pattern /{pattern}/ matched")),
        Ok(false) => Outcome::binary(false, format!("pattern /{pattern}/ did not match")),
        Err(e) => Outcome::Errored(format!(
            "pattern /{pattern}/ could not be searched to the end: {e}"
        )),
    }
}

/// The catalogue row of `regex`.
pub const KIND: Kind = per_case(
    "regex",
    "Regex",
    per_case_fields!([field("pattern", Def::Mandatory),], "regex", 1.0, TEXT),
    Build::Grader(build),
);

/// `regex` parameters.
#[derive(Clone, Debug)]
pub struct Regex {
    /// The pattern as declared (quoted in reasons).
    pub pattern: String,
    /// The compiled pattern.
    pub compiled: fancy_regex::Regex,
}

fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let token = "regex";
    let pattern = params::non_empty(
        token,
        params,
        "pattern",
        "an empty pattern matches every output",
    )?;
    let compiled = pattern::compile(&pattern).map_err(|why| {
        BuildError::invalid(
            token,
            "pattern",
            format!("`pattern` does not compile: {why}"),
        )
    })?;
    Ok(Arc::new(Regex { pattern, compiled }))
}

impl Grader for Regex {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| {
            search(&self.pattern, &self.compiled, t)
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checks::pattern::compile;

    #[test]
    fn match_miss_and_give_up() {
        // (pattern, text, outcome)
        let rows: Vec<(&str, String, Outcome)> = vec![
            (
                r"\d{3}",
                "Bestellung 482".into(),
                Outcome::binary(true, r"pattern /\d{3}/ matched".into()),
            ),
            (
                r"\d{3}",
                "grüße ٣٤٥".into(),
                Outcome::binary(true, r"pattern /\d{3}/ matched".into()),
            ),
            (
                r"\d{3}",
                "no digits".into(),
                Outcome::binary(false, r"pattern /\d{3}/ did not match".into()),
            ),
            (
                "done$",
                "done\n".into(),
                Outcome::binary(true, "pattern /done$/ matched".into()),
            ),
        ];
        for (pattern, text, expected) in rows {
            let compiled = compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
            assert_eq!(
                search(pattern, &compiled, &text),
                expected,
                "{pattern} on {text:?}"
            );
        }
    }

    #[test]
    fn catastrophic_backtracking_is_an_error() {
        let pattern = r"^(a|a)*(?=b)\1c";
        let compiled = compile(pattern).unwrap_or_else(|e| panic!("{e}"));
        let text = "a".repeat(40);
        match search(pattern, &compiled, &text) {
            Outcome::Errored(reason) => {
                assert!(
                    reason.starts_with("pattern /^(a|a)*(?=b)\\1c/ could not be searched"),
                    "{reason}"
                );
                assert!(!reason.contains("aaaa"), "the text is never quoted");
            }
            other => panic!("expected an error, got {other:?}"),
        }
    }

    /// `(?=.*x)y` over 200,000 characters: seconds per thousand start
    /// positions, with almost no backtracking. The search gives up at its
    /// time budget with an error, where it used to run on and call it a miss.
    #[test]
    fn a_search_is_bounded_in_time_and_gives_up_as_an_error() {
        crate::core::checks::search::use_clock(std::time::Instant::now);
        let pattern = r"(?=.*x)y";
        let compiled = compile(pattern).unwrap_or_else(|e| panic!("{e}"));
        let text = "y".repeat(200_000);
        let started = std::time::Instant::now();
        let outcome = search(pattern, &compiled, &text);
        let took = started.elapsed();
        let budget = crate::core::checks::search::PATTERN_TIME;
        assert!(took < budget * 2, "{took:?}");
        match outcome {
            Outcome::Errored(reason) => assert!(
                reason.starts_with(
                    "pattern /(?=.*x)y/ could not be searched to the end: the search ran out of \
                     its 5 s budget at character "
                ),
                "{reason}"
            ),
            other => panic!("expected an error, got {other:?}"),
        }
    }
}
