//! `affix`: the text output starts (`at = "start"`, reported as
//! `starts_with`) or ends (`at = "end"`, `ends_with`) with a declared affix.
//!
//! With `case_sensitive = false` both sides are Unicode-casefolded first,
//! as `contains` does. The reason quotes the affix exactly as declared and
//! keeps digline 0.10.0's grammar (`the output does not starts with 'x'`);
//! the output is never quoted.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::contains::casefold;
use super::declared::{DeclaredCheck, Inputs};
use super::error::{BuildError, Problems};
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use super::params;
use crate::core::ratio::describe;
use crate::core::verdict::Verdict;

/// Judge `text`: does it start (`at_end == false`) or end with `affix`?
pub(super) fn judge(affix: &str, at_end: bool, case_sensitive: bool, text: &str) -> Outcome {
    let found = if case_sensitive {
        if at_end {
            text.ends_with(affix)
        } else {
            text.starts_with(affix)
        }
    } else {
        let (text, affix) = (casefold(text), casefold(affix));
        if at_end {
            text.ends_with(&affix)
        } else {
            text.starts_with(&affix)
        }
    };
    let verb = if at_end { "ends" } else { "starts" };
    if found {
        Outcome::binary(true, format!("the output {verb} with '{affix}'"))
    } else {
        Outcome::binary(false, format!("the output does not {verb} with '{affix}'"))
    }
}

/// The catalogue row of `affix`.
pub const KIND: Kind = Kind {
    derive: derive_name,
    ..per_case(
        "affix",
        "Affix",
        per_case_fields!(
            [
                field("affix", Def::Mandatory),
                field("at", Def::Str("start")),
                field("case_sensitive", Def::Bool(true)),
            ],
            "",
            1.0,
            TEXT
        ),
        Build::Grader(build),
    )
};

/// The identity's `name` when none is declared: `starts_with` or
/// `ends_with` by `at`, which must be one of the two.
fn derive_name(out: &mut Map<String, Value>, _: &Params) -> Result<(), BuildError> {
    let derived = match out.get("at").and_then(Value::as_str) {
        Some("start") => "starts_with",
        Some("end") => "ends_with",
        _ => {
            return Err(BuildError::invalid(
                "affix",
                "at",
                format!(
                    "`at` is {}, and it has to be \"start\" or \"end\"",
                    describe(out.get("at").unwrap_or(&Value::Null))
                ),
            ))
        }
    };
    if out.get("name").and_then(Value::as_str) == Some("") {
        out.insert("name".to_string(), Value::String(derived.to_string()));
    }
    Ok(())
}

/// `affix` parameters.
#[derive(Clone, Debug)]
pub struct Affix {
    /// Non-empty prefix or suffix.
    pub affix: String,
    /// `at = "end"`: a suffix; otherwise a prefix.
    pub at_end: bool,
    /// `false` compares Unicode-casefolded text.
    pub case_sensitive: bool,
}

fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let mut problems = Problems::default();
    let affix = problems.note(params::non_empty(
        "affix",
        params,
        "affix",
        "every output starts and ends with nothing",
    ));
    // `at` was checked when the name was derived (identity payload).
    let at_end = params.get("at").and_then(Value::as_str) == Some("end");
    let case_sensitive = problems.note(params::boolean("affix", params, "case_sensitive", true));
    let (affix, case_sensitive) = problems.give(params, affix.zip(case_sensitive))?;
    Ok(Arc::new(Affix {
        affix,
        at_end,
        case_sensitive,
    }))
}

impl Grader for Affix {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| {
            judge(&self.affix, self.at_end, self.case_sensitive, t)
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_suffixes() {
        // (affix, at_end, case_sensitive, text, passes, reason)
        let rows: &[(&str, bool, bool, &str, bool, &str)] = &[
            (
                "ab",
                false,
                true,
                "abc",
                true,
                "the output starts with 'ab'",
            ),
            (
                "ab",
                false,
                true,
                "cab",
                false,
                "the output does not starts with 'ab'",
            ),
            ("ab", true, true, "cab", true, "the output ends with 'ab'"),
            (
                "ab",
                true,
                true,
                "abc",
                false,
                "the output does not ends with 'ab'",
            ),
            (
                "AB",
                false,
                false,
                "abc",
                true,
                "the output starts with 'AB'",
            ),
            (
                "AB",
                false,
                true,
                "abc",
                false,
                "the output does not starts with 'AB'",
            ),
            (
                "straße",
                false,
                false,
                "STRASSE x",
                true,
                "the output starts with 'straße'",
            ),
            ("😀", true, true, "hi 😀", true, "the output ends with '😀'"),
            (
                "😀",
                true,
                true,
                "",
                false,
                "the output does not ends with '😀'",
            ),
            (
                "it's",
                true,
                true,
                "x",
                false,
                "the output does not ends with 'it's'",
            ),
        ];
        for &(affix, at_end, cs, text, passes, reason) in rows {
            let want = Outcome::binary(passes, reason.to_string());
            assert_eq!(judge(affix, at_end, cs, text), want, "{affix:?} {text:?}");
        }
    }
}
