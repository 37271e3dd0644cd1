//! Pattern searches whose time is bounded.
//!
//! A backtracking engine's step limit does not bound time: `(?=.*x)y` over
//! 100,000 characters takes seconds with few backtracks, because each step
//! hands a whole-text scan to the linear engine underneath. So every search
//! digline runs (the `regex` check, `pii_absent`, a `json_schema`
//! `pattern`) goes through [`find_at`]:
//!
//! - a pattern with no lookaround, backreference, atomic group or
//!   conditional runs on the linear `regex` crate (time proportional to
//!   pattern × text, never exponential);
//! - any other pattern is tried **one start position at a time**, anchored
//!   there (lookbehind and `^` still see the whole text), and the budget is
//!   checked between start positions: once [`PATTERN_TIME`] has passed, the
//!   search stops and says so ([`Exhausted`]). Each attempt is also held to
//!   the engine's backtrack limit.
//!
//! Running out of budget is never a miss: callers turn [`Exhausted`] into an
//! `error` verdict with its sentence. `core` reads no clock: the driver
//! hands one in once ([`use_clock`]); without a clock only the attempt
//! count ([`PATTERN_ATTEMPTS`]) bounds a search.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The time one search may take before it gives up.
pub const PATTERN_TIME: Duration = Duration::from_secs(5);

/// Start positions one search may try when no clock was handed in.
pub const PATTERN_ATTEMPTS: u64 = 64 * 1024 * 1024;

/// The clock searches measure their budget with (set once by the driver).
static CLOCK: OnceLock<fn() -> Instant> = OnceLock::new();

/// Hand searches the clock to measure their budget with (the first call wins).
pub fn use_clock(clock: fn() -> Instant) {
    let _ = CLOCK.set(clock);
}

/// A search gave up: the budget ran out, or the engine refused to go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exhausted(pub String);

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How long a search may run: a time (when a clock is set) and a number
/// of start positions.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Wall time, measured with the clock from [`use_clock`].
    pub time: Duration,
    /// Start positions tried at most.
    pub attempts: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            time: PATTERN_TIME,
            attempts: PATTERN_ATTEMPTS,
        }
    }
}

/// The linear twin of a compiled pattern, or `None` when it needs a
/// backtracking feature. Kept per pattern text.
fn linear(compiled: &fancy_regex::Regex) -> Option<Arc<regex::Regex>> {
    static LINEAR: OnceLock<Mutex<HashMap<String, Option<Arc<regex::Regex>>>>> = OnceLock::new();
    let cache = LINEAR.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() > 4096 {
        cache.clear();
    }
    if let Some(known) = cache.get(compiled.as_str()) {
        return known.clone();
    }
    let built = regex::Regex::new(compiled.as_str()).ok().map(Arc::new);
    cache.insert(compiled.as_str().to_string(), built.clone());
    built
}

/// The first match of `compiled` in `text` starting at byte `from` or
/// later (`from` is a char boundary), as a byte range, within `budget`.
///
/// # Errors
/// [`Exhausted`] with a sentence (no leading capital, no text quoted) when
/// the budget runs out or the engine gives up.
pub fn find_at(
    compiled: &fancy_regex::Regex,
    text: &str,
    from: usize,
    budget: Budget,
) -> Result<Option<(usize, usize)>, Exhausted> {
    Search::new(compiled, budget).find_at(text, from)
}

/// One search (or a run of them, for [`find_all`]) and its spending.
struct Search<'r> {
    compiled: &'r fancy_regex::Regex,
    linear: Option<Arc<regex::Regex>>,
    budget: Budget,
    clock: Option<fn() -> Instant>,
    started: Option<Instant>,
    tried: u64,
}

impl<'r> Search<'r> {
    fn new(compiled: &'r fancy_regex::Regex, budget: Budget) -> Search<'r> {
        let clock = CLOCK.get().copied();
        Search {
            compiled,
            linear: linear(compiled),
            budget,
            clock,
            started: clock.map(|now| now()),
            tried: 0,
        }
    }

    fn find_at(&mut self, text: &str, from: usize) -> Result<Option<(usize, usize)>, Exhausted> {
        if let Some(linear) = &self.linear {
            return Ok(linear.find_at(text, from).map(|m| (m.start(), m.end())));
        }
        let starts = text
            .get(from..)
            .unwrap_or("")
            .char_indices()
            .map(|(i, _)| from + i)
            .chain(std::iter::once(text.len()));
        for start in starts {
            if self.tried >= self.budget.attempts {
                return Err(Exhausted(format!(
                    "the search gave up after {} start positions, the most one search may try",
                    self.tried
                )));
            }
            // The clock is read before every attempt: one attempt can scan
            // the whole text (a lookahead), so the overrun is one attempt.
            if let (Some(now), Some(started)) = (self.clock, self.started) {
                if now().duration_since(started) >= self.budget.time {
                    return Err(Exhausted(format!(
                        "the search ran out of its {} s budget at character {} of {}",
                        self.budget.time.as_secs_f64(),
                        text[..start].chars().count(),
                        text.chars().count()
                    )));
                }
            }
            self.tried += 1;
            let input = fancy_regex::RegexInput::new(text)
                .from_pos(start)
                .anchored(true);
            match self.compiled.find_input(input) {
                Ok(Some(m)) => return Ok(Some((m.start(), m.end()))),
                Ok(None) => {}
                Err(e) => {
                    return Err(Exhausted(format!(
                        "the search gave up at character {}: {e}",
                        text[..start].chars().count()
                    )))
                }
            }
        }
        Ok(None)
    }
}

/// Does `compiled` match anywhere in `text`, within `budget`?
///
/// # Errors
/// As [`find_at`].
pub fn is_match(
    compiled: &fancy_regex::Regex,
    text: &str,
    budget: Budget,
) -> Result<bool, Exhausted> {
    find_at(compiled, text, 0, budget).map(|m| m.is_some())
}

/// Every non-overlapping match of `compiled` in `text`, left to right, as
/// byte ranges, within one `budget` for them all (an empty match moves on
/// by one character, as Python's `finditer` does).
///
/// # Errors
/// As [`find_at`].
pub fn find_all(
    compiled: &fancy_regex::Regex,
    text: &str,
    budget: Budget,
) -> Result<Vec<(usize, usize)>, Exhausted> {
    let mut search = Search::new(compiled, budget);
    let mut found = Vec::new();
    let mut at = 0;
    while at <= text.len() {
        let Some((start, end)) = search.find_at(text, at)? else {
            break;
        };
        found.push((start, end));
        at = if end > start {
            end
        } else {
            match text[end..].chars().next() {
                Some(c) => end + c.len_utf8(),
                None => break,
            }
        };
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checks::pattern::compile;

    fn clock() {
        use_clock(Instant::now);
    }

    #[test]
    fn backtracking_patterns_keep_their_meaning_start_by_start() {
        clock();
        // (pattern, text, first match)
        type Row<'a> = (&'a str, &'a str, Option<(usize, usize)>);
        let rows: &[Row] = &[
            (r"(?<=a)b", "ab", Some((1, 2))),
            (r"^b", "ab", None),
            (r"(?=.*x)y", "ayx", Some((1, 2))),
            (r"(?=.*x)y", "yay", None),
            (r"(\w)\1", "abccd", Some((2, 4))),
            (r"done$", "done\n", Some((0, 4))),
            (r"(?!a)\w", "aab", Some((2, 3))),
            (r"\d+", "x 42 y", Some((2, 4))),
            (r"é(?=s)", "aés", Some((1, 3))),
        ];
        for (pattern, text, expected) in rows {
            let re = compile(pattern).unwrap();
            assert_eq!(
                find_at(&re, text, 0, Budget::default()),
                Ok(*expected),
                "{pattern} over {text:?}"
            );
        }
        let re = compile(r"a|(?=b)").unwrap();
        assert_eq!(
            find_all(&re, "xab", Budget::default()),
            Ok(vec![(1, 2), (2, 2)])
        );
    }

    #[test]
    fn a_search_past_its_attempts_is_exhausted_not_a_miss() {
        let re = compile(r"(?=.*x)y").unwrap();
        let text = "a".repeat(1000);
        let budget = Budget {
            time: PATTERN_TIME,
            attempts: 10,
        };
        assert_eq!(
            find_at(&re, &text, 0, budget),
            Err(Exhausted(
                "the search gave up after 10 start positions, the most one search may try".into()
            ))
        );
    }

    /// Ten hostile patterns (lookaround, backreferences, nested
    /// quantifiers) over 1 MB answers: each search ends within its budget,
    /// found or given up, and the ones with nothing to find give up
    /// instead of answering "no match".
    #[test]
    fn hostile_patterns_over_a_megabyte_end_within_their_budget() {
        clock();
        let budget = Budget {
            time: Duration::from_millis(500),
            attempts: PATTERN_ATTEMPTS,
        };
        let a_mb = "a".repeat(1 << 20);
        let ab_mb = "ab".repeat(1 << 19);
        let words = "lorem ipsum dolor ".repeat((1 << 20) / 18);
        // (pattern, text)
        let rows: [(&str, &str); 12] = [
            (r"(?=.*x)y", &a_mb),
            (r"(?=(a+)+b)a", &a_mb),
            (r"(a|a)*(?=b)\1c", &a_mb),
            (r"(a+)\1\1b", &a_mb),
            (r"(?<=a)(?=.*z)a", &a_mb),
            (r"(?!.*b)c", &ab_mb),
            (r"(\w+)\s+\1\s+\1\s+x", &words),
            (r"(?=(\w+ )*z)\w", &words),
            (r"((ab)*)+(?=c)", &ab_mb),
            (r"(?<!x)(?=.*q)", &words),
            (r"(.)\1{3,}(?=y)", &a_mb),
            (r"^(?=.*a)(?=.*b)(?=.*z)", &ab_mb),
        ];
        let mut gave_up = 0;
        for (pattern, text) in rows {
            let re = compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
            assert!(linear(&re).is_none(), "{pattern} needs backtracking");
            let started = Instant::now();
            let result = find_at(&re, text, 0, budget);
            let took = started.elapsed();
            // Generous: the budget is checked every few start positions,
            // each attempt bounded by the engine's backtrack limit.
            assert!(
                took < budget.time + Duration::from_secs(5),
                "{pattern} took {took:?} for a {:?} budget",
                budget.time
            );
            match result {
                Err(Exhausted(why)) => {
                    gave_up += 1;
                    assert!(!why.contains("aaaa"), "the text is never quoted: {why}");
                }
                Ok(found) => assert!(
                    took < budget.time + Duration::from_secs(5),
                    "{pattern}: {found:?}"
                ),
            }
        }
        assert!(gave_up >= 8, "{gave_up} of 12 gave up");
    }
}
