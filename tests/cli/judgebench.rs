//! The judge-drift benchmark (`bench/judge/run.py` against its loopback
//! judge, `bench/judge/server.py`) runs one gate of each kind on this
//! binary, and each reads as issue 32 asks: a swapped judge exits 2 naming
//! the judge, never 1; a rename is a rename; an unchanged judge costs one
//! canary call and gates on; a pull request whose answers changed while
//! its judge silently turned strict exits 2, not 1.

use serde_json::Value;

use crate::util::repo;

#[test]
fn the_judge_benchmark_reads_a_swap_a_rename_an_unchanged_judge_and_a_strict_turn() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: no python3 to run bench/judge/run.py");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ran = std::process::Command::new("python3")
        .arg(repo().join("bench/judge/run.py"))
        .arg("swap-named,rename,steady,pr-strict")
        .args(["--trials", "1", "--anchors", "20", "--cases", "6"])
        .args(["--shift", "0.3", "--work"])
        .arg(dir.path().join("work"))
        .arg("--results")
        .arg(dir.path())
        .env("DIGLINE", env!("CARGO_BIN_EXE_digline"))
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let summaries: Vec<Value> = String::from_utf8_lossy(&ran.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of = |scenario: &str| {
        summaries
            .iter()
            .find(|s| s["scenario"] == scenario)
            .unwrap_or_else(|| panic!("no {scenario} in {summaries:?}"))
            .clone()
    };
    // A judge that reports another model and moved its anchors: 2, named.
    let swap = of("swap-named");
    assert_eq!(swap["exit2_naming_judge"]["count"], 1, "{swap}");
    assert_eq!(swap["exit1"]["count"], 0, "{swap}");
    // Another name, the same verdicts: a rename, and the gate passes.
    let rename = of("rename");
    assert_eq!(rename["exits"], serde_json::json!({"0": 1}), "{rename}");
    assert_eq!(rename["renamed"]["count"], 1, "{rename}");
    // Nothing moved: it gates on, at one live canary call.
    let steady = of("steady");
    assert_eq!(steady["exits"], serde_json::json!({"0": 1}), "{steady}");
    assert_eq!(
        steady["readings"],
        serde_json::json!({"steady": 1}),
        "{steady}"
    );
    assert_eq!(steady["judge_calls_per_gate"], 1, "{steady}");
    // The answers changed while the judge turned strict: 2, not 1.
    let strict = of("pr-strict");
    assert_eq!(strict["exit2_naming_judge"]["count"], 1, "{strict}");
    assert_eq!(strict["exit1"]["count"], 0, "{strict}");
}
