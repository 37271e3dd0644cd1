//! The fuzz corpus replayed as an ordinary test: every seed and every
//! regression input kept under `fuzz/` goes through the three parsers the
//! fuzz targets drive (`fuzz/fuzz_targets/*.rs`), so a finding fixed once
//! stays fixed without libFuzzer (see `docs/reliability.md`, "Fuzzing").

use std::path::{Path, PathBuf};

use crate::util::repo;

/// The committed inputs of one target: `fuzz/corpus/<target>/seed-*` and
/// `fuzz/regressions/<target>/*`.
fn inputs(target: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(repo().join("fuzz").join(dir).join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if dir == "regressions" || name.starts_with("seed-") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_cases_corpus_parses_or_is_refused() {
    let all = inputs("cases");
    assert!(all.len() >= 10, "{all:?}");
    for path in all {
        let bytes = std::fs::read(&path).unwrap();
        if let Err(e) = digline::host::suite::cases::parse_cases(&bytes, "cases.json") {
            assert!(!e.to_string().is_empty(), "{}", path.display());
        }
    }
}

#[test]
fn the_document_corpus_parses_or_is_refused() {
    let all = inputs("document");
    assert!(all.len() >= 10, "{all:?}");
    let name = Path::new(".digline/t/runs/s/fuzz.json");
    let mut read = 0;
    for path in all {
        let bytes = std::fs::read(&path).unwrap();
        match digline::store::document::from_bytes(name, &bytes) {
            Ok(doc) => {
                read += 1;
                let again = digline::store::document::to_bytes(&doc);
                assert!(
                    digline::store::document::from_bytes(name, &again).is_ok(),
                    "{} reads back",
                    path.display()
                );
            }
            Err(e) => assert!(!e.to_string().is_empty(), "{}", path.display()),
        }
    }
    assert!(read > 0, "some seeds are valid documents");
}

#[test]
fn the_suite_corpus_loads_or_is_refused() {
    let all = inputs("suite");
    assert!(all.len() >= 10, "{all:?}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "a", "vars": {"question": "q"}, "expected": "x"}]"#,
    )
    .unwrap();
    std::fs::write(root.join("prompt.txt"), "You are polite.\n").unwrap();
    for path in all {
        let suite = root.join("suite.toml");
        std::fs::copy(&path, &suite).unwrap();
        if let Err(e) = digline::host::suite::load(&suite, root) {
            assert!(!e.to_string().is_empty(), "{}", path.display());
        }
    }
}

/// The `pattern` target's inputs: every pattern is refused with a sentence
/// or searched within its budget (generously: the budget plus 5 s), over
/// its text repeated to 64 KiB, as the fuzz target does.
#[test]
fn the_pattern_corpus_is_searched_within_its_budget() {
    use digline::core::checks::search::{find_all, use_clock, Budget, PATTERN_ATTEMPTS};
    use std::time::{Duration, Instant};
    use_clock(Instant::now);
    let all = inputs("pattern");
    assert!(all.len() >= 10, "{all:?}");
    let budget = Budget {
        time: Duration::from_millis(200),
        attempts: PATTERN_ATTEMPTS,
    };
    let mut gave_up = 0;
    for path in all {
        let input = std::fs::read_to_string(&path).unwrap();
        let (pattern, seed) = input.split_once('\n').unwrap_or((&input, "a"));
        let compiled = match digline::core::checks::pattern::compile(pattern) {
            Ok(c) => c,
            Err(e) => {
                assert!(!e.is_empty(), "{}", path.display());
                continue;
            }
        };
        let mut text = seed.to_string();
        while !seed.is_empty() && text.len() < 64 * 1024 {
            text.push_str(seed);
        }
        let started = Instant::now();
        if find_all(&compiled, &text, budget).is_err() {
            gave_up += 1;
        }
        let took = started.elapsed();
        assert!(
            took < budget.time + Duration::from_secs(5),
            "{}: {took:?}",
            path.display()
        );
    }
    assert!(gave_up >= 1, "some seeds are hostile enough to give up");
}
