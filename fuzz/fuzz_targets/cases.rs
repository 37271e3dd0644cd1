//! Fuzz target: `cases.json` bytes through the cases loader.
//!
//! Any input is either a list of cases or a located refusal; a panic is a
//! finding (`docs/reliability.md`, "Fuzzing").

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match digline::host::suite::cases::parse_cases(data, "cases.json") {
        Ok(cases) => assert!(!cases.is_empty(), "an empty list is refused"),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
