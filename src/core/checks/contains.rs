//! `contains` and `not_contains`: substring checks on the text output.
//!
//! With `case_sensitive = false` both sides are compared after Unicode
//! **full case folding**, as Python's `str.casefold` does (`ß` → `ss`,
//! `ﬁ` → `fi`, `ς` → `σ`); no normalisation is applied (`é` and `e` +
//! U+0301 stay different). Folding uses the `caseless` crate's
//! CaseFolding table (status C and F), which agrees with Python 3.13's
//! `casefold` on every code point except 27 letters first assigned in
//! Unicode 16 (Python 3.13 knows Unicode 15.1 and leaves them as they
//! are). The needle is quoted in reasons between plain single quotes,
//! exactly as declared (digline 0.10.0 does not escape it); the answer is
//! never quoted.
//!
//! Both checks take `needle` (non-empty) and `case_sensitive` (default
//! true), threshold 1.0 and text only.

use std::sync::Arc;

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::{BuildError, Problems};
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use super::params;
use crate::core::verdict::Verdict;

/// The catalogue row of `contains`.
pub const CONTAINS: Kind = per_case(
    "contains",
    "Contains",
    per_case_fields!(
        [
            field("needle", Def::Mandatory),
            field("case_sensitive", Def::Bool(true)),
        ],
        "contains",
        1.0,
        TEXT
    ),
    Build::Grader(|p| build(p, false)),
);

/// The catalogue row of `not_contains`.
pub const NOT_CONTAINS: Kind = per_case(
    "not_contains",
    "NotContains",
    per_case_fields!(
        [
            field("needle", Def::Mandatory),
            field("case_sensitive", Def::Bool(true)),
        ],
        "not_contains",
        1.0,
        TEXT
    ),
    Build::Grader(|p| build(p, true)),
);

/// `contains` (or `not_contains`) parameters.
#[derive(Clone, Debug)]
pub struct Substring {
    /// Non-empty substring.
    pub needle: String,
    /// `false` compares Unicode-casefolded text.
    pub case_sensitive: bool,
    /// `not_contains`: pass iff the needle does not occur.
    pub absent: bool,
}

fn build(params: &Params, absent: bool) -> Result<Arc<dyn Grader>, BuildError> {
    let token = if absent { "not_contains" } else { "contains" };
    let mut problems = Problems::default();
    let needle = problems.note(params::non_empty(
        token,
        params,
        "needle",
        "searching for nothing always passes",
    ));
    let case_sensitive = problems.note(params::boolean(token, params, "case_sensitive", true));
    let (needle, case_sensitive) = problems.give(params, needle.zip(case_sensitive))?;
    Ok(Arc::new(Substring {
        needle,
        case_sensitive,
        absent,
    }))
}

impl Grader for Substring {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| {
            if self.absent {
                not_contains(&self.needle, self.case_sensitive, t)
            } else {
                contains(&self.needle, self.case_sensitive, t)
            }
        });
        verdict(check, outcome)
    }
}

/// Unicode full case folding of `s`, as Python's `str.casefold()`.
pub(super) fn casefold(s: &str) -> String {
    caseless::default_case_fold_str(s)
}

/// True when `needle` occurs in `text` (after casefolding both when not
/// `case_sensitive`). An empty needle always occurs.
fn occurs(needle: &str, case_sensitive: bool, text: &str) -> bool {
    if case_sensitive {
        text.contains(needle)
    } else {
        casefold(text).contains(&casefold(needle))
    }
}

/// `contains`: score 1.0 when `needle` occurs in `text`, else 0.0.
/// Reasons: `'<needle>' found in the output` / `'<needle>' not found in the output`.
pub(super) fn contains(needle: &str, case_sensitive: bool, text: &str) -> Outcome {
    if occurs(needle, case_sensitive, text) {
        Outcome::binary(true, format!("'{needle}' found in the output"))
    } else {
        Outcome::binary(false, format!("'{needle}' not found in the output"))
    }
}

/// `not_contains`: score 1.0 when `needle` does not occur in `text`, else 0.0.
/// Reasons: `'<needle>' absent from the output` / `'<needle>' present in the output`.
pub(super) fn not_contains(needle: &str, case_sensitive: bool, text: &str) -> Outcome {
    if occurs(needle, case_sensitive, text) {
        Outcome::binary(false, format!("'{needle}' present in the output"))
    } else {
        Outcome::binary(true, format!("'{needle}' absent from the output"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(outcome: &Outcome) -> Option<f64> {
        match outcome {
            Outcome::Scored { score, .. } => Some(*score),
            Outcome::Errored(_) => None,
        }
    }

    fn reason(outcome: &Outcome) -> &str {
        match outcome {
            Outcome::Scored { reason, .. } | Outcome::Errored(reason) => reason,
        }
    }

    #[test]
    fn substring_with_and_without_case() {
        // (needle, case_sensitive, text, found)
        let rows: &[(&str, bool, &str, bool)] = &[
            ("Grüße", false, "GRÜSSE aus Köln", true),
            ("Grüße", true, "GRÜSSE aus Köln", false),
            ("STRASSE", false, "Die Straße", true),
            ("STRASSE", true, "Die Straße", false),
            ("ﬁle", false, "FILE", true),
            ("σ", false, "ΣΑΣ", true),
            ("ς", false, "σ", true),
            ("É", false, "e\u{301}", false),
            ("A", true, "a", false),
            ("a", true, "", false),
            ("😀", true, "end 😀", true),
        ];
        for &(needle, case_sensitive, text, found) in rows {
            let yes = contains(needle, case_sensitive, text);
            let no = not_contains(needle, case_sensitive, text);
            assert_eq!(
                score(&yes),
                Some(if found { 1.0 } else { 0.0 }),
                "{needle:?} in {text:?}"
            );
            assert_eq!(
                score(&no),
                Some(if found { 0.0 } else { 1.0 }),
                "{needle:?} in {text:?}"
            );
        }
    }

    #[test]
    fn reasons_quote_the_needle_as_declared() {
        let rows: &[(Outcome, &str)] = &[
            (
                contains("it's", true, "x"),
                "'it's' not found in the output",
            ),
            (contains("a\nb", true, "a\nb"), "'a\nb' found in the output"),
            (
                not_contains("say \"hi\"", true, "x"),
                "'say \"hi\"' absent from the output",
            ),
            (not_contains("x", true, "x"), "'x' present in the output"),
        ];
        for (outcome, expected) in rows {
            assert_eq!(reason(outcome), *expected);
        }
    }

    #[test]
    fn casefold_is_full_folding() {
        let rows: &[(&str, &str)] = &[
            ("ß", "ss"),
            ("ﬁ", "fi"),
            ("ẞ", "ss"),
            ("İ", "i\u{307}"),
            ("ΣΑΣ", "σασ"),
        ];
        for (input, folded) in rows {
            assert_eq!(casefold(input), *folded, "{input:?}");
        }
        assert_ne!(casefold("ß"), "ß".to_lowercase());
    }

    /// Code points the `caseless` table (Unicode 16) folds but Python 3.13
    /// (Unicode 15.1) leaves alone: letters new in Unicode 16.
    const NEW_IN_UNICODE_16: &[u32] = &[0x1C89, 0xA7CB, 0xA7CC, 0xA7DA, 0xA7DC];

    #[test]
    fn casefold_agrees_with_python_3_13() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/goldens/checks/casefold-python-3.13.txt"
        );
        let table = std::fs::read_to_string(path).unwrap_or_default();
        let mut python = std::collections::HashMap::new();
        for line in table.lines() {
            let mut fields = line
                .split(' ')
                .map(|h| u32::from_str_radix(h, 16).ok().and_then(char::from_u32));
            let Some(Some(from)) = fields.next() else {
                continue;
            };
            let folded: Option<String> = fields.collect();
            python.insert(from, folded.unwrap_or_default());
        }
        assert_eq!(python.len(), 1530);
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let ours = casefold(c.encode_utf8(&mut [0; 4]));
            let code = u32::from(c);
            let new_letter =
                NEW_IN_UNICODE_16.contains(&code) || (0x10D50..=0x10D65).contains(&code);
            match python.get(&c) {
                Some(folded) => assert_eq!(&ours, folded, "U+{code:04X}"),
                None if new_letter => assert_ne!(ours, c.to_string(), "U+{code:04X}"),
                None => assert_eq!(ours, c.to_string(), "U+{code:04X}"),
            }
        }
    }
}
