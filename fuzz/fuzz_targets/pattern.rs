//! Fuzz target: a pattern and a text through the bounded search every
//! pattern check runs (`core::checks::search`).
//!
//! The input's first line is the pattern (Python `re` syntax), the rest is
//! the text, repeated to at least 64 KiB so a pattern that backtracks has
//! room to. Any pattern is either refused with a sentence or searched; the
//! search ends within its time budget (generously: the budget plus two
//! seconds), found, missed or given up. A panic or an overrun is a finding.

#![no_main]

use std::time::{Duration, Instant};

use digline::core::checks::pattern::compile;
use digline::core::checks::search::{find_all, is_match, use_clock, Budget, PATTERN_ATTEMPTS};
use libfuzzer_sys::fuzz_target;

const BUDGET: Duration = Duration::from_millis(200);

fuzz_target!(|data: &[u8]| {
    use_clock(Instant::now);
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, seed) = input.split_once('\n').unwrap_or((input, "a"));
    let Ok(compiled) = compile(pattern) else {
        return;
    };
    let mut text = seed.to_string();
    while !seed.is_empty() && text.len() < 64 * 1024 {
        text.push_str(seed);
    }
    let budget = Budget {
        time: BUDGET,
        attempts: PATTERN_ATTEMPTS,
    };
    for search in [0, 1] {
        let started = Instant::now();
        let _ = if search == 0 {
            is_match(&compiled, &text, budget).map(|_| ())
        } else {
            find_all(&compiled, &text, budget).map(|_| ())
        };
        let took = started.elapsed();
        assert!(
            took < BUDGET + Duration::from_secs(2),
            "{pattern:?} took {took:?} for a {BUDGET:?} budget"
        );
    }
});
