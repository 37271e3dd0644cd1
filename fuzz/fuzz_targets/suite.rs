//! Fuzz target: `suite.toml` bytes through the suite loader, from a
//! temporary directory that also holds a valid `cases.json` and a
//! `prompt.txt` artifact (so a suite that parses goes on to load them).
//!
//! Any input is either a loaded suite or a located refusal; a panic is a
//! finding.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// The directory every iteration loads from (kept for the process).
fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("digline-fuzz-suite-")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        std::fs::write(
            dir.join("cases.json"),
            r#"[{"id": "a", "vars": {"question": "q"}, "expected": "x"},
               {"id": "b", "vars": {"question": "r"}, "metadata": {"m": 1}}]"#,
        )
        .expect("cases.json is written");
        std::fs::write(dir.join("prompt.txt"), "You are polite.\n").expect("prompt.txt");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let root = root();
    let suite = root.join("suite.toml");
    if std::fs::write(&suite, data).is_err() {
        return;
    }
    if let Err(e) = digline::host::suite::load(&suite, root) {
        let _ = e.to_string();
    }
});
