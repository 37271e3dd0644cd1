//! `levenshtein`: similarity of the text output to a string `expected`.
//!
//! similarity = 1 − distance / max(len(output), len(expected)), lengths and
//! edits counted in Unicode code points (so `é` precomposed and `e` +
//! U+0301 are 2 edits apart, and an emoji is one character); two empty
//! strings are similarity 1.0 (`both empty`). Metadata `distance` and
//! `length` (the longer length). The default threshold is 0.9.
//!
//! The distance is computed with Myers' bit-parallel algorithm in Hyyrö's
//! multi-word form after stripping the common prefix and suffix: memory is
//! O(min(m, n)) (one pair of bit vectors per 64 characters of the shorter
//! string) and time O(n·⌈m/64⌉), so two 50,000-character answers take
//! milliseconds.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalogue::{per_case, per_case_fields, Build, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use crate::core::verdict::Verdict;

/// Judge `text` against `expected`. The reasons say `levenshtein` whatever
/// the check's declared name, as 0.10.0's do.
pub(super) fn judge(text: &str, expected: Option<&Value>) -> Outcome {
    let name = "levenshtein";
    let expected = match expected {
        None => {
            return Outcome::Errored(format!(
                "expected is missing: {name} cannot judge without an expected value"
            ))
        }
        Some(Value::String(s)) => s,
        Some(Value::Object(_)) => {
            return Outcome::Errored(format!("expected is 'structured' but {name} compares text"))
        }
        Some(_) => {
            return Outcome::Errored(format!("expected is not text, and {name} compares text"))
        }
    };
    let a: Vec<char> = text.chars().collect();
    let b: Vec<char> = expected.chars().collect();
    let length = a.len().max(b.len());
    let d = distance(&a, &b);
    let mut metadata = Map::new();
    metadata.insert("distance".to_string(), Value::from(d));
    metadata.insert("length".to_string(), Value::from(length));
    if length == 0 {
        return Outcome::Scored {
            score: 1.0,
            reason: "both empty".to_string(),
            metadata,
        };
    }
    let similarity = 1.0 - d as f64 / length as f64;
    Outcome::Scored {
        score: similarity,
        reason: format!("{d} edit(s) over {length} characters (similarity {similarity:.6})"),
        metadata,
    }
}

/// The Levenshtein distance between two code-point sequences.
pub(super) fn distance(a: &[char], b: &[char]) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if pattern.is_empty() {
        return text.len();
    }
    bit_parallel(pattern, text)
}

/// Hyyrö's block version of Myers' algorithm: the edit distance between
/// `pattern` (non-empty) and `text`.
fn bit_parallel(pattern: &[char], text: &[char]) -> usize {
    let m = pattern.len();
    let blocks = m.div_ceil(64);
    let mut peq: HashMap<char, Vec<u64>> = HashMap::new();
    for (i, c) in pattern.iter().enumerate() {
        peq.entry(*c).or_insert_with(|| vec![0; blocks])[i / 64] |= 1 << (i % 64);
    }
    let mut pv = vec![u64::MAX; blocks];
    let mut mv = vec![0u64; blocks];
    let last_bit = 1u64 << ((m - 1) % 64);
    let mut score = m;
    let none = vec![0u64; blocks];
    for c in text {
        let eq = peq.get(c).unwrap_or(&none);
        // The top row of the matrix is 0, 1, 2…: each column enters with +1.
        let mut carry: i8 = 1;
        for b in 0..blocks {
            let high = if b + 1 == blocks { last_bit } else { 1 << 63 };
            carry = advance(&mut pv[b], &mut mv[b], eq[b], carry, high);
        }
        match carry {
            1 => score += 1,
            -1 => score -= 1,
            _ => {}
        }
    }
    score
}

/// One column step of one 64-row block; `hin` is the horizontal delta
/// entering at its top row, the result the delta leaving at row `high`.
fn advance(pv: &mut u64, mv: &mut u64, eq: u64, hin: i8, high: u64) -> i8 {
    let hin_neg = u64::from(hin < 0);
    let xv = eq | *mv;
    let eq = eq | hin_neg;
    let xh = ((eq & *pv).wrapping_add(*pv) ^ *pv) | eq;
    let mut ph = *mv | !(xh | *pv);
    let mut mh = *pv & xh;
    let hout = if ph & high != 0 {
        1
    } else if mh & high != 0 {
        -1
    } else {
        0
    };
    ph <<= 1;
    mh <<= 1;
    mh |= hin_neg;
    ph |= u64::from(hin > 0);
    *pv = mh | !(xv | ph);
    *mv = ph & xv;
    hout
}

/// The catalogue row of `levenshtein`.
pub const KIND: Kind = per_case(
    "levenshtein",
    "Levenshtein",
    per_case_fields!([], "levenshtein", 0.9, TEXT),
    Build::Grader(build),
);

/// `levenshtein` takes no parameters of its own: it compares with the case's `expected`.
#[derive(Clone, Copy, Debug)]
pub struct Levenshtein;

fn build(_: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    Ok(Arc::new(Levenshtein))
}

impl Grader for Levenshtein {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| judge(t, inputs.expected));
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The textbook two-row dynamic programme, for comparison.
    fn reference(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, x) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                cur[j + 1] = (prev[j] + usize::from(x != y))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn agrees_with_the_textbook_on_random_strings() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<char> = "abcé😀\u{301}".chars().collect();
        for _ in 0..400 {
            let la = (next() % 200) as usize;
            let lb = (next() % 200) as usize;
            let mut gen = |n: usize| -> Vec<char> {
                (0..n)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            };
            let (a, b) = (gen(la), gen(lb));
            assert_eq!(distance(&a, &b), reference(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn verdicts_as_0_10_0() {
        let rows: &[(&str, Option<Value>, Option<f64>, &str)] = &[
            (
                "kitten",
                Some(json!("sitting")),
                Some(1.0 - 3.0 / 7.0),
                "3 edit(s) over 7 characters (similarity 0.571429)",
            ),
            ("", Some(json!("")), Some(1.0), "both empty"),
            (
                "a",
                Some(json!("")),
                Some(0.0),
                "1 edit(s) over 1 characters (similarity 0.000000)",
            ),
            (
                "😀a",
                Some(json!("a")),
                Some(0.5),
                "1 edit(s) over 2 characters (similarity 0.500000)",
            ),
            (
                "e\u{301}",
                Some(json!("é")),
                Some(0.0),
                "2 edit(s) over 2 characters (similarity 0.000000)",
            ),
            (
                "abcdefghij",
                Some(json!("abcdefghik")),
                Some(0.9),
                "1 edit(s) over 10 characters (similarity 0.900000)",
            ),
            (
                "abc",
                None,
                None,
                "expected is missing: levenshtein cannot judge without an expected value",
            ),
            (
                "abc",
                Some(json!({"a": 1})),
                None,
                "expected is 'structured' but levenshtein compares text",
            ),
        ];
        for (text, expected, score, want) in rows {
            match judge(text, expected.as_ref()) {
                Outcome::Scored {
                    score: s, reason, ..
                } => {
                    assert_eq!((Some(s), reason.as_str()), (*score, *want), "{text:?}")
                }
                Outcome::Errored(reason) => assert_eq!((None, reason.as_str()), (*score, *want)),
            }
        }
    }

    #[test]
    fn long_answers_with_few_edits() {
        let a: Vec<char> = "the quick brown fox jumps over the lazy dog 😀 "
            .chars()
            .cycle()
            .take(50_000)
            .collect();
        let mut b = a.clone();
        b[10] = 'x';
        b.remove(25_000);
        b.insert(40_000, 'é');
        assert_eq!(distance(&a, &b), 3);
        let short: Vec<char> = a[..130].to_vec();
        let mut other = short.clone();
        other.reverse();
        assert_eq!(distance(&short, &other), reference(&short, &other));
    }
}
