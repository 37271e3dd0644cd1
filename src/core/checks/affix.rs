//! `affix`: the text output starts (`at = "start"`, reported as
//! `starts_with`) or ends (`at = "end"`, `ends_with`) with a declared affix.
//!
//! With `case_sensitive = false` both sides are Unicode-casefolded first,
//! as `contains` does. The reason quotes the affix exactly as declared and
//! keeps digline 0.10.0's grammar (`the output does not starts with 'x'`);
//! the output is never quoted.

use super::outcome::Outcome;
use super::text::casefold;

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
