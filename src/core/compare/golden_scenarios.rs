//! The 19 comparison scenarios digline 0.10.0 produced, one folder each
//! under `tests/goldens/headlines/`: the one list the golden tests of
//! `compare`'s terminal text, `--json` and the HTML report iterate (test
//! builds only).

/// Every scenario folder under `tests/goldens/headlines/`, in order.
pub(crate) const SCENARIOS: [&str; 19] = [
    "01-nothing-changed",
    "02-one-flip",
    "03-two-flips-one-improvement",
    "04-score-drop-within-tolerance",
    "05-score-drop-beyond-tolerance",
    "06-drop-within-noise",
    "07-drop-beyond-noise",
    "08-case-errored-in-run",
    "09-case-errored-in-baseline-only",
    "10-new-case",
    "11-missing-case",
    "12-suspended-in-run",
    "13-config-change",
    "14-target-config-change",
    "15-canary-moved",
    "16-aggregate-moved",
    "16b-aggregate-improved-by-a-flip",
    "17-everything-at-once",
    "18-everything-at-once-same-config",
];

#[cfg(test)]
#[test]
fn the_list_is_every_scenario_folder() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/goldens/headlines");
    let mut folders: Vec<String> = std::fs::read_dir(dir)
        .expect("the headlines goldens")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    folders.sort();
    assert_eq!(folders, SCENARIOS);
}
