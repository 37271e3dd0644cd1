//! Sampling, `repeated`, aggregates and canaries end to end against digline
//! 0.10.0: our binary and our stub replay 0.10.0's golden documents and
//! compare scenarios, and must produce the same bytes (but for
//! `created_at`, `digline_version`, `git_commit`, the key and
//! `promoted_at`), the same plan line, compare text, JSON and exit code.
//!
//! - `documents/04-aggregates`: byte-identical now.
//! - `sampled/01-sampled-3`, `sampled/02-sampled-5`: suites of our own with
//!   only the checks this branch builds, run by 0.10.0 (`generate.sh`):
//!   baseline run, promotion by hand (0.10.0 and digline both refuse to
//!   promote a run with an errored case), second run, compare.
//! - `documents/03-sampled-3`, `documents/06-sampled-5-repeated` and the
//!   headline B scenarios (06, 07, 15, 16, 16b, 17, 18), which also need
//!   `levenshtein`.

use std::path::Path;

use serde_json::Value;

use crate::util::{digline, golden, run_file, stub};

/// Point every target URL in `file` (the goldens' ports 18950/18952) at `port`.
fn set_golden_port(file: &Path, port: u16) {
    let text = std::fs::read_to_string(file).unwrap();
    let text = text
        .replace("127.0.0.1:18950", &format!("127.0.0.1:{port}"))
        .replace("127.0.0.1:18952", &format!("127.0.0.1:{port}"));
    std::fs::write(file, text).unwrap();
}

/// Our document's bytes with the run-specific fields set to 0.10.0's, and
/// the golden's ports swapped for ours.
fn comparable(ours: &str, golden: &str, port: u16) -> (String, String) {
    let theirs: Value = serde_json::from_str(golden).unwrap();
    let mut mine: Value = serde_json::from_str(ours).unwrap();
    for key in ["created_at", "digline_version", "git_commit", "promoted_at"] {
        if let Some(v) = theirs.get(key) {
            mine[key] = v.clone();
        }
    }
    let mine = digline::core::python::dumps::dumps_document(&mine);
    let golden = golden
        .replace("127.0.0.1:18950", &format!("127.0.0.1:{port}"))
        .replace("127.0.0.1:18952", &format!("127.0.0.1:{port}"));
    (mine, golden)
}

/// Equal texts, or a panic showing the first differing line with context.
fn assert_same(ours: &str, want: &str, what: &str) {
    if ours == want {
        return;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), want.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(12);
    panic!(
        "{what} differs at line {}:\n--- ours\n{}\n--- 0.10.0\n{}",
        at + 1,
        a[from..(at + 3).min(a.len())].join("\n"),
        b[from..(at + 3).min(b.len())].join("\n")
    );
}

/// The headline without the sentence naming whole-run measures that could
/// not be computed: digline adds it (spec `40-compare.md`), 0.10.0 does not
/// say it (its `--json` counterparts are `wire::compare::ADDED_KEYS`).
fn without_uncomputed(text: &str) -> String {
    let mut out = text.to_string();
    for start in [
        " The whole-run measure ",
        " 2 whole-run measures ",
        " 3 whole-run measures ",
    ] {
        if let Some(at) = out.find(start) {
            let end = out[at + 1..]
                .find(". ")
                .map_or(out.len(), |e| at + 1 + e + 1);
            out.replace_range(at..end, "");
        }
    }
    out
}

/// Run `digline run` in `root` and return the stored document's text.
fn run_once(root: &Path, what: &str, want_stderr: Option<&str>) -> String {
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{what}: {}", ran.stderr);
    if let Some(want) = want_stderr {
        // digline adds a line when cases could not be judged; 0.10.0 does not.
        assert!(
            ran.stderr.starts_with(want),
            "{what}: the plan line\n{}",
            ran.stderr
        );
    }
    std::fs::read_to_string(run_file(root, ran.stdout.trim())).unwrap()
}

/// Replay one golden run document (`documents/<name>`) byte for byte.
fn replay_document(name: &str) {
    let src = golden(&format!("documents/{name}"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in ["suite.toml", "cases.json", "answers.json", "prompt.txt"] {
        if src.join(file).exists() {
            std::fs::copy(src.join(file), root.join(file)).unwrap();
        }
    }
    let server = stub(&root.join("answers.json"));
    set_golden_port(&root.join("suite.toml"), server.port);
    let want_stderr = std::fs::read_to_string(src.join("run.stderr")).unwrap();
    let ours = run_once(root, name, Some(&want_stderr));
    let want = std::fs::read_to_string(src.join("run.json")).unwrap();
    let (ours, want) = comparable(&ours, &want, server.port);
    assert_same(&ours, &want, &format!("{name}: the run document"));
}

/// Write `run` (a stored run's text) as the suite's baseline, promoted by
/// hand as the goldens were: `promoted_at` added.
fn promote_by_hand(root: &Path, run: &str) -> String {
    let mut doc: Value = serde_json::from_str(run).unwrap();
    doc["promoted_at"] = doc["created_at"].clone();
    let tenant = doc["tenant"].as_str().unwrap().to_string();
    let suite = doc["suite"].as_str().unwrap().to_string();
    let dir = root.join(".digline").join(tenant).join("baselines");
    std::fs::create_dir_all(&dir).unwrap();
    let text = digline::core::python::dumps::dumps_document(&doc);
    std::fs::write(dir.join(format!("{suite}.json")), &text).unwrap();
    text
}

/// What the two sides of a compare scenario are called in its folder.
struct Layout {
    /// Golden folder under `tests/goldens`.
    folder: String,
    /// (suite, cases, answers) of the baseline side.
    baseline: [&'static str; 3],
    /// (suite, cases, answers) of the run side.
    run: [&'static str; 3],
    /// The plan lines, when the folder records them.
    stderr: Option<[&'static str; 2]>,
}

/// Baseline run, promotion (by hand if digline refuses an errored run),
/// second run, compare: every document and output as the golden's.
fn replay_scenario(layout: &Layout) {
    let src = golden(&layout.folder);
    let name = layout.folder.as_str();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let place = |files: &[&str; 3]| {
        for (from, to) in files
            .iter()
            .zip(["suite.toml", "cases.json", "answers.json"])
        {
            std::fs::copy(src.join(from), root.join(to)).unwrap();
        }
    };
    place(&layout.baseline);
    let server = stub(&root.join("answers.json"));
    set_golden_port(&root.join("suite.toml"), server.port);
    let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap();
    let stderr = layout.stderr.map(|[b, _]| read(b));

    let ours = run_once(root, name, stderr.as_deref());
    let (mine, want) = comparable(&ours, &read("baseline-run.json"), server.port);
    assert_same(&mine, &want, &format!("{name}: the baseline run document"));

    let promoted = digline(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
    );
    let baseline = if promoted.code == 0 {
        let tenant = serde_json::from_str::<Value>(&ours).unwrap()["tenant"]
            .as_str()
            .unwrap()
            .to_string();
        let dir = root.join(".digline").join(tenant).join("baselines");
        let file = std::fs::read_dir(dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::read_to_string(file).unwrap()
    } else {
        assert_eq!(promoted.code, 64, "{name} promote: {}", promoted.stderr);
        promote_by_hand(root, &ours)
    };
    let (mine, want) = comparable(&baseline, &read("baseline.json"), server.port);
    assert_same(&mine, &want, &format!("{name}: the baseline"));

    place(&layout.run);
    set_golden_port(&root.join("suite.toml"), server.port);
    let stderr = layout.stderr.map(|[_, r]| read(r));
    let ours = run_once(root, name, stderr.as_deref());
    let (mine, want) = comparable(&ours, &read("run.json"), server.port);
    assert_same(&mine, &want, &format!("{name}: the run document"));

    let ran = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    // Where this product is deliberately stricter than 0.10.0 (a passing
    // reference check missing from the run, rules that changed), the
    // scenario holds our own `strict.*` beside 0.10.0's `compare.*`.
    let strict = src.join("strict.exit").exists();
    let want_code: i32 = if strict {
        read("strict.exit")
    } else {
        read("compare.exit")
    }
    .trim()
    .parse()
    .unwrap();
    assert_eq!(ran.code, want_code, "{name}: compare exit\n{}", ran.stderr);
    // 0.10.0's lines (or our `strict.*`) with the rows in suite order
    // (`compare_in_suite_order`), plus digline's cause sentences
    // (`plus_causes`).
    let documents: [Value; 2] = [
        serde_json::from_str(&ours).unwrap(),
        serde_json::from_str(&baseline).unwrap(),
    ];
    let in_order =
        |text: &str| crate::util::compare_in_suite_order(text, &[&documents[0], &documents[1]]);
    if strict {
        assert_same(
            &ran.stdout,
            &crate::util::plus_causes(&ran.stdout, &in_order(&read("strict.stdout"))),
            &format!("{name}: compare text"),
        );
    } else {
        let mine = without_uncomputed(&ran.stdout);
        assert_same(
            &mine,
            &crate::util::plus_causes(&mine, &in_order(&read("compare.stdout"))),
            &format!("{name}: compare text"),
        );
    }

    let ran = digline(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--json",
            "full",
        ],
    );
    assert_eq!(ran.code, want_code, "{name}: compare --json exit");
    let mut ours: Value = serde_json::from_str(&ran.stdout).unwrap();
    let mut theirs: Value = serde_json::from_str(&read("compare-json-full.stdout")).unwrap();
    for added in digline::wire::compare::ADDED_KEYS {
        ours.as_object_mut().unwrap().remove(added);
    }
    if strict {
        let text = read("strict.stdout");
        theirs["sentence"] = Value::String(text.lines().next().unwrap().to_string());
        theirs["exit_code"] = Value::from(want_code);
    } else if let Some(sentence) = ours["sentence"].as_str() {
        ours["sentence"] = Value::String(without_uncomputed(sentence));
    }
    assert!(ours == theirs, "{name}: compare --json full differs");
    drop(server);
}

fn sampled(name: &str) -> Layout {
    Layout {
        folder: format!("sampled/{name}"),
        baseline: ["suite.toml", "cases.json", "baseline-answers.json"],
        run: ["suite.toml", "cases.json", "run-answers.json"],
        stderr: Some(["baseline-run.stderr", "run.stderr"]),
    }
}

fn headline(name: &str) -> Layout {
    Layout {
        folder: format!("headlines/{name}"),
        baseline: [
            "baseline-suite.toml",
            "baseline-cases.json",
            "baseline-answers.json",
        ],
        run: ["run-suite.toml", "run-cases.json", "run-answers.json"],
        stderr: None,
    }
}

#[test]
fn aggregates_document_matches_0_10_0() {
    replay_document("04-aggregates");
}

#[test]
fn three_samples_repeated_aggregates_and_canary_match_0_10_0() {
    replay_scenario(&sampled("01-sampled-3"));
}

#[test]
fn five_samples_with_disagreement_match_0_10_0() {
    replay_scenario(&sampled("02-sampled-5"));
}

#[test]
fn every_sampled_scenario_has_a_test() {
    let n = std::fs::read_dir(golden("sampled"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(n, 2);
}

#[test]
fn sampled_document_matches_0_10_0() {
    replay_document("03-sampled-3");
}

#[test]
fn five_samples_repeated_document_matches_0_10_0() {
    replay_document("06-sampled-5-repeated");
}

#[test]
fn headline_b_scenarios_match_0_10_0() {
    for name in [
        "06-drop-within-noise",
        "07-drop-beyond-noise",
        "15-canary-moved",
        "16-aggregate-moved",
        "16b-aggregate-improved-by-a-flip",
        "17-everything-at-once",
        "18-everything-at-once-same-config",
    ] {
        replay_scenario(&headline(name));
    }
}
