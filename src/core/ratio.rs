//! Ratios: quantities that are really "k out of n", written as numbers or
//! as fractions (`"2/3"`).
//!
//! digline 0.10.0 accepts a ratio as a number or as a string that Python's
//! `fractions.Fraction` parses (`"2/3"`, `" 9 / 10 "`, `"0.5"`, `"3"`,
//! `"1e-3"`, signs and digit underscores allowed). An *agreement* (the
//! share of samples that must agree) must also be reachable as `k/samples`
//! for some `k` in `1..=samples`, compared at 6 decimals: `"2/4"` with three
//! samples is refused because of its value, not its notation.
//! Spec `10-suite.md`; facts `python-input.md` §0.
//!
//! A count of samples (`[suite] samples`, a `repeated` check's `samples`)
//! is read here too, by one rule: a whole number from a floor (1 or 2) up
//! to [`MOST_SAMPLES`]. The bound is digline's own (0.10.0 has none): each
//! sample is one more call or grading per case, and a suite from a pull
//! request must not be able to plan an endless run.

use serde_json::Value;

use super::python::dumps::round6;

/// Parse a string the way Python's `Fraction(text)` does and return its
/// value as the nearest `f64`.
///
/// Accepted shapes: optional surrounding whitespace, an optional sign, then
/// either `N/D` (whitespace allowed around `/`) or a decimal with optional
/// fraction and exponent (`3`, `0.5`, `.5`, `2.`, `1e-3`). Digits may be
/// grouped with single underscores (`1_000`). Returns `None` for anything
/// else, and for a zero denominator.
pub fn parse_fraction(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    let (negative, body) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let value = if let Some((num, den)) = body.split_once('/') {
        let (num, den) = (num.trim_end(), den.trim_start());
        let num = digits(num)?;
        let den = digits(den)?;
        let (n, d) = (num.parse::<f64>().ok()?, den.parse::<f64>().ok()?);
        if d == 0.0 {
            return None;
        }
        n / d
    } else {
        decimal(body)?
    };
    if !value.is_finite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// `\d+(_\d+)*` with the underscores removed, or `None`.
fn digits(text: &str) -> Option<String> {
    if text.is_empty() || text.starts_with('_') || text.ends_with('_') || text.contains("__") {
        return None;
    }
    if !text.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    Some(text.replace('_', ""))
}

/// A decimal with optional fraction and exponent, as `Fraction` reads one.
fn decimal(text: &str) -> Option<f64> {
    // Python requires a digit, or a dot followed by a digit, up front.
    let first = text.chars().next()?;
    let second = text.chars().nth(1);
    if !(first.is_ascii_digit() || (first == '.' && second.is_some_and(|c| c.is_ascii_digit()))) {
        return None;
    }
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let mut clean = if int_part.is_empty() {
        String::new()
    } else {
        digits(int_part)?
    };
    if let Some(frac) = frac_part {
        clean.push('.');
        if !frac.is_empty() {
            clean.push_str(&digits(frac)?);
        }
    }
    if let Some(exp) = exponent {
        let (sign, rest) = match exp.as_bytes().first() {
            Some(b'-') => ("-", &exp[1..]),
            Some(b'+') => ("", &exp[1..]),
            _ => ("", exp),
        };
        clean.push('e');
        clean.push_str(sign);
        clean.push_str(&digits(rest)?);
    }
    if clean.starts_with('.') {
        clean.insert(0, '0');
    }
    clean.parse::<f64>().ok()
}

/// Why a ratio was refused; the text is a full sentence naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatioError {
    /// The sentence, starting with the field as written (`min_agreement is …`).
    pub message: String,
}

/// Read a ratio: a number (int or float, never a bool) or a fraction string.
///
/// `field` is the key as the suite writes it; it starts the error sentence.
///
/// # Errors
/// A string that is no number or fraction, a non-numeric value, or a
/// non-finite number.
pub fn as_ratio(value: &Value, field: &str) -> Result<f64, RatioError> {
    let parsed = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_fraction(s),
        _ => {
            return Err(RatioError {
                message: format!(
                    "`{field}` is {}, which is not a number or a fraction like \"2/3\"",
                    describe(value)
                ),
            })
        }
    };
    match parsed {
        Some(v) if v.is_finite() => Ok(v),
        _ => Err(RatioError {
            message: format!(
                "`{field}` is {}, which is not a number or a fraction like \"2/3\"",
                describe(value)
            ),
        }),
    }
}

/// The most samples a suite or a `repeated` check may ask for. No real
/// suite comes near it (the documented ones sample 2–5 times); above it a
/// run is a hang or an exhausted memory, not a measurement.
pub const MOST_SAMPLES: u32 = 1_000;

/// Why a count of samples was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplesRefused {
    /// Below the floor the caller states (its own sentence says why).
    TooFew,
    /// Above [`MOST_SAMPLES`]; [`too_many_samples`] is the sentence.
    TooMany,
}

/// Read a count of samples: `n` in `least..=MOST_SAMPLES`.
///
/// # Errors
/// [`SamplesRefused::TooFew`] below `least`, [`SamplesRefused::TooMany`]
/// above [`MOST_SAMPLES`].
pub fn sample_count(n: i128, least: u32) -> Result<u32, SamplesRefused> {
    if n < i128::from(least) {
        Err(SamplesRefused::TooFew)
    } else if n > i128::from(MOST_SAMPLES) {
        Err(SamplesRefused::TooMany)
    } else {
        u32::try_from(n).map_err(|_| SamplesRefused::TooMany)
    }
}

/// The sentence refusing `samples = n` above [`MOST_SAMPLES`].
pub fn too_many_samples(n: i128) -> String {
    format!(
        "`samples` is {n}, more than digline takes: at most {MOST_SAMPLES} (each sample is \
         one more call or grading per case)"
    )
}

/// Read an agreement: a ratio in (0, 1] that `samples` samples can produce
/// as `k/samples` (compared at 6 decimals).
///
/// # Errors
/// Not a ratio, outside (0, 1], or unreachable; the unreachable sentence
/// lists every reachable `k/n = 0.xxxxxx` for a few samples, the nearest
/// ones otherwise; the decision takes the same time whatever `samples` is.
pub fn as_agreement(value: &Value, samples: u32, field: &str) -> Result<f64, RatioError> {
    let parsed = as_ratio(value, field)?;
    if !(parsed > 0.0 && parsed <= 1.0) {
        return Err(RatioError {
            message: format!(
                "`{field}` is {}, outside (0, 1]: an agreement is the share of samples that agree",
                super::python::dumps::float_repr(parsed)
            ),
        });
    }
    let rounded = round6(parsed);
    let n = samples.max(1);
    // The k/n nearest the value and its neighbours: the k whose k/n rounds
    // to the value's 6 decimals form one run around the value, so if any
    // does, one of these three does.
    let nearest = (parsed * f64::from(n)).round();
    let candidates = [nearest - 1.0, nearest, nearest + 1.0];
    if candidates
        .iter()
        .any(|&k| k >= 1.0 && k <= f64::from(n) && round6(k / f64::from(n)) == rounded)
    {
        return Ok(parsed);
    }
    let fraction = |k: u32| format!("{k}/{n} = {:.6}", f64::from(k) / f64::from(n));
    let options = if n <= FEW_SAMPLES {
        let all: Vec<String> = (1..=n).map(fraction).collect();
        format!("it is one of {}", all.join(", "))
    } else {
        // `parsed` is in (0, 1]: the k/n at or below it, at least 1/n.
        let below = (parsed * f64::from(n)).floor().clamp(1.0, f64::from(n));
        let below = below as u32; // whole and within 1..=n after the clamp
        let near: Vec<String> = if below < n && f64::from(below) / f64::from(n) < parsed {
            vec![fraction(below), fraction(below + 1)]
        } else {
            vec![fraction(below)]
        };
        format!("the nearest it can be is {}", near.join(" or "))
    };
    let shown = if round6(parsed) == parsed {
        format!("{parsed:.6}")
    } else {
        super::python::dumps::float_repr(parsed)
    };
    Err(RatioError {
        message: format!(
            "`{field}` is {shown}, which {n} sample(s) cannot produce: agreement counts \
             samples, so {options}. Write the fraction you mean, e.g. \"2/3\""
        ),
    })
}

/// Up to this many samples an unreachable agreement's refusal lists every
/// reachable fraction; above it, the nearest ones.
const FEW_SAMPLES: u32 = 10;

/// A short description of a JSON value for messages about parameters
/// (`'abc'`, `true`, `an array`); never used for payload.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "empty".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_fraction_reads_what_python_fraction_reads() {
        let table: &[(&str, Option<f64>)] = &[
            ("2/3", Some(2.0 / 3.0)),
            (" 9 / 10 ", Some(0.9)),
            ("0.5", Some(0.5)),
            (".5", Some(0.5)),
            ("2.", Some(2.0)),
            ("3", Some(3.0)),
            ("1e-3", Some(0.001)),
            ("1E+2", Some(100.0)),
            ("-1/2", Some(-0.5)),
            ("+1/4", Some(0.25)),
            ("1_000/2_000", Some(0.5)),
            ("", None),
            ("abc", None),
            ("1/0", None),
            ("1/", None),
            ("/2", None),
            ("1.5/2", None),
            ("1__0", None),
            ("_1", None),
            (".", None),
            ("nan", None),
            ("inf", None),
            ("2/3/4", None),
        ];
        for (text, want) in table {
            assert_eq!(parse_fraction(text), *want, "{text:?}");
        }
    }

    #[test]
    fn as_ratio_takes_numbers_and_fractions_only() {
        assert_eq!(as_ratio(&json!("9/10"), "threshold"), Ok(0.9));
        assert_eq!(as_ratio(&json!(1), "threshold"), Ok(1.0));
        assert_eq!(as_ratio(&json!(0.25), "threshold"), Ok(0.25));
        for bad in [json!("x"), json!(true), json!([1]), json!(null)] {
            let err = as_ratio(&bad, "threshold").unwrap_err();
            assert!(
                err.message.starts_with("`threshold` is "),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn as_agreement_checks_the_value_against_the_samples() {
        let table: &[(Value, u32, Result<f64, &str>)] = &[
            (json!("2/3"), 3, Ok(2.0 / 3.0)),
            (json!("4/6"), 6, Ok(4.0 / 6.0)),
            (json!("2/3"), 6, Ok(2.0 / 3.0)),
            (json!(1), 1, Ok(1.0)),
            (json!(0.666667), 3, Ok(0.666667)),
            (
                json!("2/4"),
                3,
                Err("1/3 = 0.333333, 2/3 = 0.666667, 3/3 = 1.000000"),
            ),
            (json!("2/5"), 3, Err("is 0.400000, which 3 sample(s)")),
            (json!(0.67), 3, Err("cannot produce")),
            (json!(0), 3, Err("outside (0, 1]")),
            (json!("3/2"), 3, Err("outside (0, 1]")),
            (json!("1/2"), 1, Err("1/1 = 1.000000")),
        ];
        for (value, samples, want) in table {
            let got = as_agreement(value, *samples, "min_agreement");
            match (got, want) {
                (Ok(v), Ok(w)) => assert!((v - w).abs() < 1e-12, "{value}"),
                (Err(e), Err(fragment)) => {
                    assert!(e.message.contains(fragment), "{value}: {}", e.message)
                }
                (got, want) => panic!("{value} with {samples}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn an_agreement_is_decided_at_once_whatever_the_samples() {
        // Trying every k up to u32::MAX took minutes; three candidates end
        // at once (a hang would stop this test, not time it).
        assert_eq!(as_agreement(&json!(1), u32::MAX, "min_agreement"), Ok(1.0));
        let got = as_agreement(&json!("1/3"), u32::MAX, "min_agreement");
        assert!(got.is_ok(), "{got:?}");
        assert!(as_agreement(&json!(1e-7), u32::MAX, "min_agreement").is_ok());
    }

    #[test]
    fn many_samples_name_the_nearest_fractions_and_the_value_exactly() {
        let err = as_agreement(&json!(0.000_000_1), 1_000_000, "min_agreement").unwrap_err();
        assert_eq!(
            err.message,
            "`min_agreement` is 1e-07, which 1000000 sample(s) cannot produce: agreement counts \
             samples, so the nearest it can be is 1/1000000 = 0.000001. Write the fraction you \
             mean, e.g. \"2/3\""
        );
        let err = as_agreement(&json!("1/7"), 20, "min_agreement").unwrap_err();
        assert_eq!(
            err.message,
            "`min_agreement` is 0.14285714285714285, which 20 sample(s) cannot produce: \
             agreement counts samples, so the nearest it can be is 2/20 = 0.100000 or 3/20 = \
             0.150000. Write the fraction you mean, e.g. \"2/3\""
        );
        let err = as_agreement(&json!(0.4), 3, "min_agreement").unwrap_err();
        assert_eq!(
            err.message,
            "`min_agreement` is 0.400000, which 3 sample(s) cannot produce: agreement counts \
             samples, so it is one of 1/3 = 0.333333, 2/3 = 0.666667, 3/3 = 1.000000. Write \
             the fraction you mean, e.g. \"2/3\""
        );
    }

    #[test]
    fn the_nearest_three_decide_as_every_k_would() {
        for n in 1..=60_u32 {
            for step in 0..=1000_u32 {
                let value = f64::from(step) / 1000.0;
                if value == 0.0 {
                    continue;
                }
                let every = (1..=n).any(|k| round6(f64::from(k) / f64::from(n)) == round6(value));
                let got = as_agreement(&json!(value), n, "m").is_ok();
                assert_eq!(got, every, "{value} with {n}");
            }
        }
    }

    #[test]
    fn a_count_of_samples_is_taken_from_the_floor_to_the_most() {
        assert_eq!(sample_count(1, 1), Ok(1));
        assert_eq!(sample_count(0, 1), Err(SamplesRefused::TooFew));
        assert_eq!(sample_count(1, 2), Err(SamplesRefused::TooFew));
        assert_eq!(sample_count(-5, 2), Err(SamplesRefused::TooFew));
        assert_eq!(sample_count(1000, 2), Ok(MOST_SAMPLES));
        for n in [
            1001,
            100_000_000,
            4_294_967_295,
            4_294_967_297,
            i128::from(i64::MAX),
        ] {
            assert_eq!(sample_count(n, 1), Err(SamplesRefused::TooMany), "{n}");
        }
        assert_eq!(
            too_many_samples(4_294_967_297),
            "`samples` is 4294967297, more than digline takes: at most 1000 (each sample is one \
             more call or grading per case)"
        );
    }
}
