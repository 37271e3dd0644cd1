//! `length`: is the text output's length within the declared bounds?
//!
//! `characters` counts Unicode code points (not bytes, not graphemes);
//! `words` counts what Python's `str.split()` returns: runs of characters
//! separated by Python whitespace (`str.isspace`, which unlike Rust's
//! `char::is_whitespace` also counts U+001C–U+001F). Bounds are inclusive
//! and keep their declared type: `minimum = 2` is reported as `2`,
//! `minimum = 2.0` as `2.0`, in the reason and in the metadata alike.

use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::{BuildError, Problems};
use super::judge::{verdict, with_text};
use super::kinds::LengthUnit;
use super::outcome::Outcome;
use crate::core::python::dumps::float_repr;
use crate::core::ratio::describe;
use crate::core::verdict::Verdict;

/// True for the 29 code points Python's `str.isspace()` accepts: U+0009–U+000D,
/// U+001C–U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
/// U+202F, U+205F, U+3000.
pub(super) fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// How many items Python's `text.split()` (no arguments) returns.
pub(super) fn word_count(text: &str) -> usize {
    text.split(is_python_space)
        .filter(|word| !word.is_empty())
        .count()
}

/// The length of `text` in `unit` (code points or words).
pub(super) fn measure(text: &str, unit: LengthUnit) -> usize {
    match unit {
        LengthUnit::Characters => text.chars().count(),
        LengthUnit::Words => word_count(text),
    }
}

/// The unit's word in reasons and metadata (`characters`, `words`).
fn unit_word(unit: LengthUnit) -> &'static str {
    match unit {
        LengthUnit::Characters => "characters",
        LengthUnit::Words => "words",
    }
}

/// A declared bound as Python's `str()` writes it (`2`, `2.0`, `1e+16`, `inf`).
fn bound_text(bound: &Number) -> String {
    match bound.as_f64() {
        Some(x) if bound.is_f64() => match float_repr(x).as_str() {
            "Infinity" => "inf".to_string(),
            "-Infinity" => "-inf".to_string(),
            "NaN" => "nan".to_string(),
            other => other.to_string(),
        },
        _ => bound.to_string(),
    }
}

/// `length < bound` with Python's exact int/float comparison (a NaN bound
/// compares false either way, as in Python).
fn below(length: usize, bound: &Number) -> bool {
    let length = length as u64;
    if let Some(b) = bound.as_u64() {
        length < b
    } else if bound.as_i64().is_some() {
        false
    } else {
        bound.as_f64().is_some_and(|b| (length as f64) < b)
    }
}

/// `length > bound`, as [`below`].
fn above(length: usize, bound: &Number) -> bool {
    let length = length as u64;
    if let Some(b) = bound.as_u64() {
        length > b
    } else if bound.as_i64().is_some() {
        true
    } else {
        bound.as_f64().is_some_and(|b| (length as f64) > b)
    }
}

/// Judge `text` against inclusive bounds. Score 1.0 within, 0.0 outside.
///
/// Metadata: `length` (integer), `unit`, and `minimum`/`maximum` as
/// declared when declared. Reasons: `<n> <unit>, below the minimum of
/// <min>`, `…, above the maximum of <max>`, `…, within bounds (between
/// <min> and <max>)` / `(at least <min>)` / `(at most <max>)`. The loader
/// guarantees at least one bound; with none the text is within bounds.
pub(super) fn judge(
    minimum: Option<&Number>,
    maximum: Option<&Number>,
    unit: LengthUnit,
    text: &str,
) -> Outcome {
    let length = measure(text, unit);
    let unit = unit_word(unit);
    let mut metadata = Map::new();
    metadata.insert("length".to_string(), Value::from(length));
    metadata.insert("unit".to_string(), Value::from(unit));
    if let Some(min) = minimum {
        metadata.insert("minimum".to_string(), Value::Number(min.clone()));
    }
    if let Some(max) = maximum {
        metadata.insert("maximum".to_string(), Value::Number(max.clone()));
    }
    let (passed, detail) = match (minimum, maximum) {
        (Some(min), _) if below(length, min) => {
            (false, format!("below the minimum of {}", bound_text(min)))
        }
        (_, Some(max)) if above(length, max) => {
            (false, format!("above the maximum of {}", bound_text(max)))
        }
        (Some(min), Some(max)) => (
            true,
            format!(
                "within bounds (between {} and {})",
                bound_text(min),
                bound_text(max)
            ),
        ),
        (Some(min), None) => (
            true,
            format!("within bounds (at least {})", bound_text(min)),
        ),
        (None, Some(max)) => (true, format!("within bounds (at most {})", bound_text(max))),
        (None, None) => (true, "within bounds".to_string()),
    };
    Outcome::Scored {
        score: if passed { 1.0 } else { 0.0 },
        reason: format!("{length} {unit}, {detail}"),
        metadata,
    }
}

/// The catalogue row of `length`.
pub const KIND: Kind = per_case(
    "length",
    "Length",
    per_case_fields!(
        [
            field("minimum", Def::Null),
            field("maximum", Def::Null),
            field("unit", Def::Str("characters")),
        ],
        "length",
        1.0,
        TEXT
    ),
    Build::Grader(build),
);

/// `length` parameters.
#[derive(Clone, Debug)]
pub struct Length {
    /// Inclusive lower bound, if declared.
    pub minimum: Option<Number>,
    /// Inclusive upper bound, if declared.
    pub maximum: Option<Number>,
    /// What is counted.
    pub unit: LengthUnit,
}

fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let bound = |key: &str| -> Result<Option<Number>, BuildError> {
        match params.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x >= 0.0) => Ok(Some(n.clone())),
            Some(Value::Number(n)) => Err(BuildError::invalid(
                "length",
                key,
                format!("`{key}` is {n}, and a length cannot be negative"),
            )),
            Some(other) => Err(BuildError::invalid(
                "length",
                key,
                format!("`{key}` is {}, and it has to be a number", describe(other)),
            )),
        }
    };
    let mut problems = Problems::default();
    let minimum = problems.note(bound("minimum"));
    let maximum = problems.note(bound("maximum"));
    let unit = match params.get("unit") {
        None => Some(LengthUnit::Characters),
        Some(Value::String(s)) if s == "characters" => Some(LengthUnit::Characters),
        Some(Value::String(s)) if s == "words" => Some(LengthUnit::Words),
        Some(other) => {
            problems.push(BuildError::invalid(
                "length",
                "unit",
                format!(
                    "`unit` is {}, and it has to be \"characters\" or \"words\"",
                    describe(other)
                ),
            ));
            None
        }
    };
    // The bounds together, once each is readable.
    let ((minimum, maximum), unit) = problems.give(params, minimum.zip(maximum).zip(unit))?;
    if minimum.is_none() && maximum.is_none() {
        return Err(BuildError::invalid(
            "length",
            "minimum",
            "it needs `minimum`, `maximum` or both: with neither, every output passes".to_string(),
        ));
    }
    if maximum.is_none() && minimum.as_ref().is_some_and(|lo| lo.as_f64() == Some(0.0)) {
        return Err(BuildError::invalid(
            "length",
            "minimum",
            "`minimum` is 0 and there is no `maximum`: every output is at least 0 long, so \
             this check always passes. Give a minimum above 0, or a maximum"
                .to_string(),
        ));
    }
    if let (Some(lo), Some(hi)) = (&minimum, &maximum) {
        if lo.as_f64() > hi.as_f64() {
            return Err(BuildError::invalid(
                "length",
                "minimum",
                format!("`minimum` ({lo}) is above `maximum` ({hi}): no output can meet both"),
            ));
        }
    }
    Ok(Arc::new(Length {
        minimum,
        maximum,
        unit,
    }))
}

impl Grader for Length {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| {
            judge(self.minimum.as_ref(), self.maximum.as_ref(), self.unit, t)
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_python() {
        // (text, Python's len(text.split()))
        let rows: &[(&str, usize)] = &[
            ("", 0),
            ("   ", 0),
            ("one", 1),
            (" one  two\tthree\n", 3),
            ("Grüße\u{1f}tab\tend 😀", 4),
            ("a\u{1c}b\u{1d}c\u{1e}d\u{1f}f\u{85}g\u{a0}h\u{200b}i\u{2028}j\u{3000}k\u{feff}l\u{180e}m", 9),
        ];
        for (text, words) in rows {
            assert_eq!(word_count(text), *words, "{text:?}");
        }
    }

    #[test]
    fn python_space_is_white_space_plus_information_separators() {
        let mut count = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let expected = c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
            assert_eq!(is_python_space(c), expected, "U+{:04X}", u32::from(c));
            count += usize::from(expected);
        }
        assert_eq!(count, 29);
    }

    #[test]
    fn characters_are_code_points() {
        assert_eq!(measure("é😀", LengthUnit::Characters), 2);
        assert_eq!(measure("e\u{301}", LengthUnit::Characters), 2);
        assert_eq!(measure("", LengthUnit::Characters), 0);
    }

    #[test]
    fn bounds_reasons_and_metadata() {
        let int = |n: u64| Number::from(n);
        let float = |x: f64| Number::from_f64(x).unwrap_or_else(|| Number::from(0));
        // (min, max, unit, text, score, reason)
        type Row = (
            Option<Number>,
            Option<Number>,
            LengthUnit,
            &'static str,
            f64,
            &'static str,
        );
        let rows: Vec<Row> = vec![
            (
                Some(int(2)),
                None,
                LengthUnit::Characters,
                "",
                0.0,
                "0 characters, below the minimum of 2",
            ),
            (
                Some(int(2)),
                None,
                LengthUnit::Words,
                "one",
                0.0,
                "1 words, below the minimum of 2",
            ),
            (
                Some(int(2)),
                None,
                LengthUnit::Characters,
                "one",
                1.0,
                "3 characters, within bounds (at least 2)",
            ),
            (
                None,
                Some(int(2)),
                LengthUnit::Characters,
                "one",
                0.0,
                "3 characters, above the maximum of 2",
            ),
            (
                None,
                Some(int(2)),
                LengthUnit::Words,
                "",
                1.0,
                "0 words, within bounds (at most 2)",
            ),
            (
                Some(int(2)),
                Some(int(4)),
                LengthUnit::Words,
                "one two three",
                1.0,
                "3 words, within bounds (between 2 and 4)",
            ),
            (
                Some(int(2)),
                Some(int(4)),
                LengthUnit::Characters,
                "one two three",
                0.0,
                "13 characters, above the maximum of 4",
            ),
            (
                Some(float(2.0)),
                Some(float(4.5)),
                LengthUnit::Characters,
                "one",
                1.0,
                "3 characters, within bounds (between 2.0 and 4.5)",
            ),
            (
                Some(float(2.0)),
                Some(float(4.5)),
                LengthUnit::Words,
                "",
                0.0,
                "0 words, below the minimum of 2.0",
            ),
            (
                None,
                Some(int(0)),
                LengthUnit::Words,
                "",
                1.0,
                "0 words, within bounds (at most 0)",
            ),
            (
                None,
                Some(float(1e16)),
                LengthUnit::Words,
                "",
                1.0,
                "0 words, within bounds (at most 1e+16)",
            ),
        ];
        for (min, max, unit, text, score, reason) in rows {
            let (got, why, metadata) =
                judge(min.as_ref(), max.as_ref(), unit, text).expect_scored(reason);
            assert_eq!((got, why.as_str()), (score, reason));
            assert_eq!(metadata.get("minimum"), min.map(Value::Number).as_ref());
            assert_eq!(metadata.get("maximum"), max.map(Value::Number).as_ref());
            assert!(
                metadata["length"].is_u64(),
                "{reason}: length stays an integer"
            );
        }
    }

    #[test]
    fn comparisons_cross_int_and_float() {
        let f = |x: f64| Number::from_f64(x).unwrap_or_else(|| Number::from(0));
        assert!(below(2, &f(2.5)));
        assert!(!below(3, &f(2.5)));
        assert!(above(3, &f(2.5)));
        assert!(!above(2, &Number::from(2)));
        assert!(above(0, &Number::from(-1)));
        assert!(!below(0, &Number::from(-1)));
    }
}
