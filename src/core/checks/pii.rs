//! `pii_absent`: no Italian personal identifier in the text output.
//!
//! The shipped pattern set of digline 0.10.0 ([`PATTERNS`], fixed order),
//! each a Python regular expression run with [`super::pattern::compile`]
//! (Unicode `\d` and `\b`), counted as non-overlapping matches like Python's
//! `findall`. Three patterns verify each candidate with its checksum and
//! count only those that pass:
//!
//! - `iban`: ISO 13616 mod-97 (rotate four, letters to 10–35, remainder 1),
//!   15–34 characters, two letters first;
//! - `codice_fiscale`: the check letter from the odd/even position tables;
//! - `partita_iva`: Luhn over eleven digits (an `IT` prefix is dropped).
//!
//! `email` and `phone_it` have no checksum and over-report by design.
//! Spaces inside a candidate are removed before verifying; a digit from
//! another script (`٣`, which `\d` matches) counts with its decimal value,
//! as Python's `int()` reads it, except in a codice fiscale, whose tables
//! know ASCII only.
//!
//! The verdict passes iff nothing was counted; metadata has `pii_<name>` for
//! every pattern and `pii_total`. **What matched is never recorded**: not in
//! the reason, not in the metadata, not in a log.

use std::sync::Arc;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::{BuildError, BuildErrorKind};
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use super::pattern;
use super::search::{self, Budget};
use crate::core::verdict::Verdict;

/// A checksum that separates a real identifier from a coincidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// ISO 13616 mod-97.
    Iban,
    /// The codice fiscale check letter.
    CodiceFiscale,
    /// Luhn over the partita IVA's eleven digits.
    PartitaIva,
}

/// One shipped pattern: name, Python regular expression, checksum.
#[derive(Clone, Copy, Debug)]
pub struct PiiPattern {
    /// Reported as `pii_<name>`.
    pub name: &'static str,
    /// The Python pattern, as 0.10.0 ships it (part of the identity).
    pub pattern: &'static str,
    /// The checksum, if the pattern has one.
    pub verify: Option<Verify>,
}

/// digline 0.10.0's `ITALIAN_PII`, in its order.
pub const PATTERNS: [PiiPattern; 5] = [
    PiiPattern {
        name: "iban",
        pattern: r"\b[A-Z]{2}[ ]?\d{2}(?:[ ]?[A-Z0-9]){11,30}\b",
        verify: Some(Verify::Iban),
    },
    PiiPattern {
        name: "codice_fiscale",
        pattern: r"\b[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z]\b",
        verify: Some(Verify::CodiceFiscale),
    },
    PiiPattern {
        name: "partita_iva",
        pattern: r"\b(?:IT[ ]?)?\d{4}[ ]?\d{3}[ ]?\d{4}\b",
        verify: Some(Verify::PartitaIva),
    },
    PiiPattern {
        name: "email",
        pattern: r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b",
        verify: None,
    },
    PiiPattern {
        name: "phone_it",
        pattern: r"(?:\+39[ .-]?)?\b(?:3\d{2}|0\d{1,3})[ .-]?\d{6,8}\b",
        verify: None,
    },
];

fn compiled() -> &'static [Option<fancy_regex::Regex>] {
    static COMPILED: OnceLock<Vec<Option<fancy_regex::Regex>>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| pattern::compile(p.pattern).ok())
            .collect()
    })
}

/// Judge `text`.
pub(super) fn judge(text: &str) -> Outcome {
    let mut metadata = Map::new();
    let mut found: Vec<(&str, usize)> = Vec::new();
    let mut total = 0;
    for (spec, regex) in PATTERNS.iter().zip(compiled()) {
        let Some(regex) = regex else {
            return Outcome::Errored(format!("the {} pattern does not compile", spec.name));
        };
        let mut count = 0;
        let found_here = match search::find_all(regex, text, Budget::default()) {
            Ok(found) => found,
            Err(e) => {
                return Outcome::Errored(format!(
                    "the {} pattern gave up on this output: {e}",
                    spec.name
                ))
            }
        };
        for (start, end) in found_here {
            if spec.verify.is_none_or(|v| verify(v, &text[start..end])) {
                count += 1;
            }
        }
        metadata.insert(format!("pii_{}", spec.name), Value::from(count));
        total += count;
        if count > 0 {
            found.push((spec.name, count));
        }
    }
    metadata.insert("pii_total".to_string(), Value::from(total));
    if total == 0 {
        let mut names: Vec<&str> = PATTERNS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        return Outcome::Scored {
            score: 1.0,
            reason: format!("no identifier found (checked: {})", names.join(", ")),
            metadata,
        };
    }
    found.sort_unstable();
    let parts: Vec<String> = found.iter().map(|(n, c)| format!("{c} {n}")).collect();
    Outcome::Scored {
        score: 0.0,
        reason: format!("{total} identifier(s) found: {}", parts.join(", ")),
        metadata,
    }
}

/// Does the matched `candidate` pass its checksum?
pub(super) fn verify(kind: Verify, candidate: &str) -> bool {
    // Python's `"".join(s.split()).upper()`: the matches hold only ASCII
    // letters, digits and spaces, so ASCII upper-casing is the same.
    let compact: Vec<char> = candidate
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    match kind {
        Verify::Iban => iban(&compact),
        Verify::CodiceFiscale => codice_fiscale(&compact),
        Verify::PartitaIva => partita_iva(&compact),
    }
}

/// The decimal value of a Unicode decimal digit (`Nd`), as Python's `int()`
/// reads it: Unicode lays every `Nd` digit out in runs of ten, 0 first.
fn digit_value(c: char) -> Option<u32> {
    if let Some(d) = c.to_digit(10) {
        return Some(d);
    }
    static ND: OnceLock<Option<regex::Regex>> = OnceLock::new();
    let nd = ND.get_or_init(|| regex::Regex::new(r"^\p{Nd}$").ok());
    let nd = nd.as_ref()?;
    let is_nd = |n: u32| char::from_u32(n).is_some_and(|c| nd.is_match(c.encode_utf8(&mut [0; 4])));
    let n = u32::from(c);
    if !is_nd(n) {
        return None;
    }
    let mut start = n;
    while start > 0 && is_nd(start - 1) && n - (start - 1) < 400 {
        start -= 1;
    }
    Some((n - start) % 10)
}

fn iban(value: &[char]) -> bool {
    if !(15..=34).contains(&value.len()) || !value[..2].iter().all(|c| c.is_alphabetic()) {
        return false;
    }
    let rotated = value[4..].iter().chain(&value[..4]);
    let mut remainder: u32 = 0;
    for &c in rotated {
        if let Some(d) = digit_value(c) {
            remainder = (remainder * 10 + d) % 97;
        } else if c.is_ascii_uppercase() {
            let v = u32::from(c) - u32::from('A') + 10;
            remainder = (remainder * 100 + v) % 97;
        } else {
            return false;
        }
    }
    remainder == 1
}

const CF_ODD_DIGITS: [u32; 10] = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21];
const CF_ODD_LETTERS: [u32; 26] = [
    1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23,
];

fn codice_fiscale(value: &[char]) -> bool {
    if value.len() != 16 {
        return false;
    }
    let mut total = 0;
    for (i, &c) in value[..15].iter().enumerate() {
        let odd_position = i % 2 == 0; // positions counted from one
        let v = match c {
            '0'..='9' => {
                let d = u32::from(c) - u32::from('0');
                if odd_position {
                    CF_ODD_DIGITS[d as usize]
                } else {
                    d
                }
            }
            'A'..='Z' => {
                let l = u32::from(c) - u32::from('A');
                if odd_position {
                    CF_ODD_LETTERS[l as usize]
                } else {
                    l
                }
            }
            _ => return false,
        };
        total += v;
    }
    char::from_u32(u32::from('A') + total % 26) == Some(value[15])
}

fn partita_iva(value: &[char]) -> bool {
    let digits = if value.starts_with(&['I', 'T']) {
        &value[2..]
    } else {
        value
    };
    let values: Option<Vec<u32>> = digits.iter().map(|&c| digit_value(c)).collect();
    let Some(values) = values else {
        return false;
    };
    if values.len() != 11 {
        return false;
    }
    let mut total = 0;
    for (i, d) in values[..10].iter().enumerate() {
        if i % 2 == 0 {
            total += d;
        } else {
            let doubled = d * 2;
            total += if doubled > 9 { doubled - 9 } else { doubled };
        }
    }
    values[10] == (10 - total % 10) % 10
}

/// The catalogue row of `pii_absent`.
pub const KIND: Kind = Kind {
    walls,
    ..per_case(
        "pii_absent",
        "PiiAbsent",
        per_case_fields!(
            [field("patterns", Def::PiiPatterns),],
            "pii_absent",
            1.0,
            TEXT
        ),
        Build::Grader(build),
    )
};

/// `patterns` is a set of pattern objects with checksum functions: code,
/// which a suite that is data cannot hold.
fn walls(params: &Params) -> Result<(), BuildError> {
    if params.contains_key("patterns") {
        return Err(BuildError::new(BuildErrorKind::PythonOnly {
            key: Some("patterns".to_string()),
            message: "`pii_absent` takes `patterns` as PII patterns, and each carries a \
                      checksum function, which is code: a suite that is data uses the shipped \
                      set. Custom PII patterns need a suite.py."
                .to_string(),
        }));
    }
    Ok(())
}

/// The shipped pattern set as Python's `canonical` renders it (the
/// identity payload's `patterns`).
pub(super) fn canonical_patterns() -> Value {
    Value::Array(
        PATTERNS
            .iter()
            .map(|p| {
                serde_json::json!({
                    "compiled": "<Pattern>",
                    "name": p.name,
                    "pattern": p.pattern,
                    "verify": if p.verify.is_some() { Value::String("<function>".into()) } else { Value::Null },
                })
            })
            .collect(),
    )
}

/// `pii_absent` takes no parameters of its own: it runs the shipped set.
#[derive(Clone, Copy, Debug)]
pub struct PiiAbsent;

fn build(_: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    Ok(Arc::new(PiiAbsent))
}

impl Grader for PiiAbsent {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        verdict(check, with_text(check, inputs.output, judge))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_accept_real_identifiers_and_reject_near_misses() {
        let rows: &[(Verify, &str, bool)] = &[
            (Verify::Iban, "IT60 X054 2811 1010 0000 0123 456", true),
            (Verify::Iban, "IT60X0542811101000000123456", true),
            (Verify::Iban, "IT61X0542811101000000123456", false),
            (Verify::Iban, "GB82WEST12345698765432", true),
            (Verify::Iban, "GB82WEST12345698765433", false),
            (Verify::Iban, "DE89370400440532013000", true),
            (Verify::CodiceFiscale, "RSSMRA85T10A562S", true),
            (Verify::CodiceFiscale, "rssmra85t10a562s", true),
            (Verify::CodiceFiscale, "RSSMRA85T10A562T", false),
            (Verify::CodiceFiscale, "RSSMRA85T10A5٦2S", false),
            (Verify::PartitaIva, "01114601006", true),
            (Verify::PartitaIva, "IT 0111 460 1006", true),
            (Verify::PartitaIva, "01114601007", false),
            (Verify::PartitaIva, "٠١١١٤٦٠١٠٠٦", true),
        ];
        for &(kind, candidate, ok) in rows {
            assert_eq!(verify(kind, candidate), ok, "{kind:?} {candidate}");
        }
    }

    #[test]
    fn counts_and_never_quotes() {
        let rows: &[(&str, &str, i64)] = &[
            (
                "nothing here",
                "no identifier found (checked: codice_fiscale, email, iban, partita_iva, phone_it)",
                0,
            ),
            (
                "write to mario.rossi@example.it",
                "1 identifier(s) found: 1 email",
                1,
            ),
            (
                "IBAN IT60 X054 2811 1010 0000 0123 456, CF RSSMRA85T10A562S",
                "2 identifier(s) found: 1 codice_fiscale, 1 iban",
                2,
            ),
            (
                "IBAN IT61 X054 2811 1010 0000 0123 456, CF RSSMRA85T10A562T",
                "no identifier found (checked: codice_fiscale, email, iban, partita_iva, phone_it)",
                0,
            ),
            (
                "P.IVA 01114601006 and 01114601007",
                "3 identifier(s) found: 1 partita_iva, 2 phone_it",
                3,
            ),
            (
                "call +39 347 1234567",
                "1 identifier(s) found: 1 phone_it",
                1,
            ),
        ];
        for (text, want, total) in rows {
            let (_, reason, metadata) = judge(text).expect_scored(text);
            assert_eq!(reason, *want, "{text}");
            assert_eq!(metadata["pii_total"], Value::from(*total), "{text}");
            assert_eq!(metadata.len(), 6);
            for word in text.split(' ').filter(|w| w.len() > 5) {
                assert!(!reason.contains(word), "{text}: quoted {word}");
            }
        }
    }
}
