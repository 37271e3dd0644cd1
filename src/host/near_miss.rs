//! "Did you mean …?": the near miss for a mistyped key, type or field.
//!
//! Same choice as digline 0.10.0: first replace `-` and spaces with `_`
//! (`min-agreement` → `min_agreement`); else Python's
//! `difflib.get_close_matches(word, known, n=1, cutoff=0.6)`, whose score is
//! the Ratcliff/Obershelp ratio `2·M/T` over code points; the best score
//! wins and a tie goes to the larger string. Spec `95-parity-traps.md`.

use difflib::sequencematcher::SequenceMatcher;

/// The known word closest to `word`, if one is close enough
/// (ratio ≥ 0.6), else `None`.
pub fn did_you_mean<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let underscored: String = word
        .chars()
        .map(|c| if c == '-' || c == ' ' { '_' } else { c })
        .collect();
    if underscored != word {
        if let Some(hit) = known.iter().find(|k| **k == underscored) {
            return Some(hit);
        }
    }
    let word_chars: Vec<char> = word.chars().collect();
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in known {
        let chars: Vec<char> = candidate.chars().collect();
        let total = chars.len() + word_chars.len();
        if total == 0 {
            continue;
        }
        let mut matcher = SequenceMatcher::new(&chars, &word_chars);
        let matched: usize = matcher.get_matching_blocks().iter().map(|m| m.size).sum();
        let ratio = 2.0 * matched as f64 / total as f64;
        if ratio < 0.6 {
            continue;
        }
        let better = match best {
            None => true,
            Some((score, current)) => ratio > score || (ratio == score && *candidate > current),
        };
        if better {
            best = Some((ratio, candidate));
        }
    }
    best.map(|(_, word)| word)
}

/// `` Did you mean `x`?`` for a near miss, else `None`.
pub fn hint(word: &str, known: &[&str]) -> Option<String> {
    did_you_mean(word, known).map(|hit| format!("Did you mean `{hit}`?"))
}

/// The words backticked, sorted and comma-separated: `` `a`, `b` ``.
pub fn listing(words: &[&str]) -> String {
    let mut sorted: Vec<&str> = words.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_match_python_difflib() {
        let suite = [
            "tenant",
            "environment",
            "name",
            "cases",
            "samples",
            "min_agreement",
            "artifacts",
            "record_responses",
            "disclosure",
        ];
        let check = [
            "needle",
            "case_sensitive",
            "name",
            "threshold",
            "tolerance",
            "accepts",
        ];
        let table: &[(&str, &[&str], Option<&str>)] = &[
            ("min_agrement", &suite, Some("min_agreement")),
            ("min-agreement", &suite, Some("min_agreement")),
            ("min agreement", &suite, Some("min_agreement")),
            ("treshold", &check, Some("threshold")),
            ("neddle", &check, Some("needle")),
            (
                "expectd",
                &["id", "vars", "expected", "context"],
                Some("expected"),
            ),
            ("suites", &["suite", "target", "assertions"], Some("suite")),
            (
                "contain",
                &["contains", "not_contains", "regex"],
                Some("contains"),
            ),
            (
                "group",
                &["over", "threshold", "tolerance", "name", "by_group"],
                Some("by_group"),
            ),
            (
                "question",
                &["id", "vars", "expected", "context", "metadata"],
                None,
            ),
            ("zzz", &check, None),
            ("", &check, None),
        ];
        for (word, known, want) in table {
            assert_eq!(did_you_mean(word, known), *want, "{word}");
        }
    }

    #[test]
    fn a_tie_goes_to_the_larger_string() {
        // "ab" scores 0.8 against both; Python's nlargest keeps the larger string.
        assert_eq!(did_you_mean("ab", &["abc", "abd"]), Some("abd"));
        assert_eq!(did_you_mean("ab", &["abd", "abc"]), Some("abd"));
    }

    #[test]
    fn hint_and_listing_render_backticks() {
        assert_eq!(
            hint("treshold", &["threshold"]).as_deref(),
            Some("Did you mean `threshold`?")
        );
        assert_eq!(hint("xyz", &["threshold"]), None);
        assert_eq!(listing(&["b", "a", "b"]), "`a`, `b`");
    }
}
