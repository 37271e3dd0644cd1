//! The base branch's history (issue 33): gates on the base branch record
//! one compact line each; a pull request's gate reads it, shows each
//! flagged check's strip in the comment and draws it in the report, and
//! never writes it. The history never changes an exit code; a forged line,
//! a line of another reference and a history tracked by git are skipped
//! and said; a reference the history contradicts is named before it
//! blocks anyone.

use std::path::Path;

use serde_json::Value;

use crate::noisy::{answers, measured_baseline_of, setup, stable, GATE};
use crate::util::digline_env;

const HISTORY: &str = ".digline/noisy/history/support.jsonl";

fn gate(root: &Path, extra: &[&str]) -> crate::util::Ran {
    let mut args = GATE.to_vec();
    args.extend(extra);
    digline_env(root, &args, &[])
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The comment with keys, markers and dates made stable.
fn comment(root: &Path) -> String {
    let dates = regex::Regex::new(r"\d{4}\\?-\d\d\\?-\d\d").unwrap();
    dates
        .replace_all(&stable(&read(root, "out/comment.md")), "DATE")
        .into_owned()
}

/// Four gates on the base branch: `wobbly` fails its first answer in the
/// second and fourth (its re-asks pass), everything else passes.
fn base_branch_gates(root: &Path) {
    for i in 0..4 {
        let wobbly: &[&str] = if i % 2 == 1 {
            &["no", "yes", "yes", "yes", "yes", "yes"]
        } else {
            &["yes"]
        };
        answers(
            root,
            &[
                ("steady", &["yes"]),
                ("broken", &["yes"]),
                ("wobbly", wobbly),
            ],
        );
        let ran = gate(root, &["--history", "record"]);
        assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    }
}

#[test]
fn a_history_recorded_on_the_base_branch_is_shown_by_a_pull_request_and_changes_no_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    measured_baseline_of(root, 5);
    base_branch_gates(root);
    let history = read(root, HISTORY);
    assert_eq!(history.lines().count(), 4, "{history}");
    for line in history.lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["v"], 1);
        assert_eq!(value["checks"][0][1], 3, "{line}");
    }
    // Only what did not pass is listed, and no answer, var or reason.
    assert!(!history.contains("\"yes\"") && !history.contains("reason"));
    assert_eq!(
        serde_json::from_str::<Value>(history.lines().nth(1).unwrap()).unwrap()["flagged"],
        serde_json::json!([["wobbly", "contains", "f", 1, 0]])
    );
    // The pull request breaks `broken` and wobbles `wobbly` once more.
    answers(
        root,
        &[
            ("steady", &["yes"]),
            ("broken", &["no"]),
            ("wobbly", &["no", "yes", "yes", "yes", "yes", "yes"]),
        ],
    );
    let ran = gate(root, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        read(root, HISTORY),
        history,
        "a pull request never writes it"
    );
    let shown = comment(root);
    insta::assert_snapshot!("history_pull_request_comment", shown);
    assert!(
        shown.contains("| broken | contains | pass 1.000000 → fail 0.000000 | ▇▇▇▇ passed in 4 of the last 4 gates on the base branch |"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "▇▁▇▁ passed in 2 of the last 4 gates on the base branch\\; first failed DATE"
        ),
        "{shown}"
    );
    if let Some(html) = crate::surfaces::gfm(&read(root, "out/comment.md")) {
        assert!(html.contains("<th>Base-branch history</th>"), "{html}");
        assert!(
            html.contains("<td>▇▇▇▇ passed in 4 of the last 4 gates on the base branch</td>"),
            "{html}"
        );
    }
    let report = read(root, "out/report.html");
    // Pass rates per check and the flagged checks; the stub reports no price, so no spend.
    assert_eq!(report.matches("<svg ").count(), 2, "{report}");
    assert!(report.contains("id=\"chart-flagged\"") && !report.contains("id=\"chart-spend\""));
    assert!(report.contains(
        "<title id=\"chart-checks\">Pass rate per check, gate by gate on the base branch</title>"
    ));
    assert!(!report.contains("<script"));
    // The same gate without the history: the same exit code, no history column.
    let off = gate(root, &["--history", "off"]);
    assert_eq!(off.code, ran.code);
    let without = comment(root);
    assert!(!without.contains("Base-branch history"), "{without}");
    assert!(!read(root, "out/report.html").contains("<svg"));
    // And a green pull request stays green whatever the history says.
    answers(
        root,
        &[
            ("steady", &["yes"]),
            ("broken", &["yes"]),
            ("wobbly", &["yes"]),
        ],
    );
    assert_eq!(gate(root, &["--history", "read"]).code, 0);
    assert_eq!(read(root, HISTORY), history);
}

#[test]
fn forged_lines_are_skipped_and_counted_and_a_tracked_history_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    measured_baseline_of(root, 5);
    base_branch_gates(root);
    let history = read(root, HISTORY);
    let last: Value = serde_json::from_str(history.lines().last().unwrap()).unwrap();
    let mut other = last.clone();
    other["reference"] = "2020-01-01T00:00:00+00:00".into();
    let mut future = last.clone();
    future["at"] = "2999-01-01T00:00:00Z".into();
    // A forged line claiming `broken` passed, against this reference.
    let forged = format!("{history}{other}\n{future}\nnot a line\n");
    std::fs::write(root.join(HISTORY), &forged).unwrap();
    answers(
        root,
        &[
            ("steady", &["yes"]),
            ("broken", &["no"]),
            ("wobbly", &["yes"]),
        ],
    );
    let ran = gate(root, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let shown = comment(root);
    assert!(
        shown.contains("3 history lines were skipped for failing their own checks \\(1 not a history line\\, 1 of another reference\\, 1 dated in the future or before the reference\\)\\."),
        "{shown}"
    );
    assert!(shown.contains("passed in 4 of the last 4 gates"), "{shown}");
    // Tracked by git, it is not read at all, and the comment says why.
    crate::util::git(root, &["init", "-q"]);
    crate::util::git(root, &["add", "-f", HISTORY]);
    let ran = gate(root, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let shown = comment(root);
    assert!(
        shown.contains("history\\/support\\.jsonl is tracked by git\\, so it was not read"),
        "{shown}"
    );
    assert!(!shown.contains("passed in 4 of the last 4"), "{shown}");
    // A base-branch gate does not append to a tracked history either way it reads.
    assert_eq!(read(root, HISTORY), forged);
    // A committed folder where the file should be: what it holds is
    // tracked, so the history is neither read nor recorded, and said.
    crate::util::git(root, &["rm", "-q", "--cached", HISTORY]);
    std::fs::remove_file(root.join(HISTORY)).unwrap();
    std::fs::create_dir(root.join(HISTORY)).unwrap();
    std::fs::write(root.join(HISTORY).join("x"), &forged).unwrap();
    crate::util::git(root, &["add", "-f", &format!("{HISTORY}/x")]);
    let ran = gate(root, &["--history", "record"]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let shown = comment(root);
    assert!(
        shown.contains("history\\/support\\.jsonl is tracked by git\\, so it was not read"),
        "{shown}"
    );
    assert!(!shown.contains("passed in 4 of the last 4"), "{shown}");
    assert_eq!(read(root, &format!("{HISTORY}/x")), forged);
}

#[test]
fn a_reference_the_base_branch_keeps_failing_is_named_lucky_before_a_pull_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    measured_baseline_of(root, 5);
    // `wobbly` passed 5 of 5 in the reference; on the base branch it fails
    // three answers in four. The notice waits for ten gates.
    for i in 0..10 {
        answers(
            root,
            &[
                ("steady", &["yes"]),
                ("broken", &["yes"]),
                ("wobbly", &["no", "no", "no", "yes"]),
            ],
        );
        let ran = gate(root, &["--history", "record"]);
        assert!(ran.code <= 1, "{}{}", ran.stdout, ran.stderr);
        // Gate i reads the i gates before it: fewer than ten.
        assert!(
            !comment(root).contains("A lucky reference"),
            "gate {i}: {}",
            comment(root)
        );
    }
    answers(
        root,
        &[
            ("steady", &["yes"]),
            ("broken", &["yes"]),
            ("wobbly", &["yes"]),
        ],
    );
    let ran = gate(root, &[]);
    assert_eq!(
        ran.code, 0,
        "the notice never decides: {}{}",
        ran.stdout, ran.stderr
    );
    let shown = comment(root);
    assert!(shown.contains("#### A lucky reference"), "{shown}");
    assert!(
        shown.contains("wobbly · contains\\: the reference passed 5 of 5\\, but the base branch\\'s gates failed it in 30 of 40 answers"),
        "{shown}"
    );
    assert!(
        shown.contains("digline run \\-\\-suite suite\\.toml \\-\\-root \\. \\-\\-samples 30 \\-\\-case wobbly"),
        "{shown}"
    );
    let report = read(root, "out/report.html");
    assert!(report.contains("id=\"chart-flagged\""), "{report}");
    // `digline list` (and MCP `list_runs`, from the same facts) names it too.
    let listed = digline_env(root, &["list", "--suite", "suite.toml"], &[]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed.stdout.contains("lucky reference: wobbly · contains: the reference passed 5 of 5, the base branch failed 30 of 40 answers"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("re-measure just these cases, then promote the run: digline run --suite suite.toml --root . --samples 30 --case wobbly\n"),
        "{}",
        listed.stdout
    );
}

/// The Action's steps, run by `.ci/runner-harness.py history` with
/// `docker` running this binary: two pushes of the default branch record
/// the history and save it in the (stubbed) cache, each from a fresh
/// checkout; a pull request restores it, reads both gates and saves
/// nothing. The harness fails with a sentence on any of these.
#[test]
fn the_action_carries_the_history_across_jobs_in_its_cache() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The quickstart's answers, served in this process.
    let server = crate::util::stub(&repo.join("examples/quickstart/answers.json"));
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(repo.join(".ci/runner-harness.py"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_digline"))
        .arg("--action")
        .arg(repo.join("action.yml"))
        .arg("history")
        .arg("--stub-port")
        .arg(server.port.to_string());
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k.starts_with("DIGLINE_") || k == "RUNNER_TEMP" {
            cmd.env_remove(k);
        }
    }
    let ran = crate::util::Ran::from(cmd.output().expect("python3 runs the runner harness"));
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("runner-harness: ok — the history recorded by two pushes, read by the pull request (2 gates), saved by no pull request"),
        "{}",
        ran.stdout
    );
}

/// The document of run `key`.
fn run_doc(root: &Path, key: &str) -> Value {
    serde_json::from_str(&read(
        root,
        &format!(".digline/noisy/runs/support/{key}.json"),
    ))
    .unwrap()
}

#[test]
fn remeasure_just_the_lucky_case_and_keep_the_others_from_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    let reference_key = measured_baseline_of(root, 5);
    let reference = run_doc(root, &reference_key);
    // Every case would now fail: only `wobbly` is asked, 30 times.
    answers(
        root,
        &[
            ("steady", &["no"]),
            ("broken", &["no"]),
            ("wobbly", &["no", "yes", "yes"]),
        ],
    );
    let ran = digline_env(
        root,
        &[
            "run",
            "--suite",
            "suite.toml",
            "--samples",
            "30",
            "--case",
            "wobbly",
            "-q",
        ],
        &[],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let doc = run_doc(root, ran.stdout.trim());
    let ids: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["case_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["steady", "broken", "wobbly"]);
    assert_eq!(doc["results"][0], reference["results"][0]);
    assert_eq!(doc["results"][1], reference["results"][1]);
    let samples = doc["results"][2]["verdicts"][0]["samples"]
        .as_array()
        .unwrap();
    assert_eq!(samples.len(), 30);
    assert_eq!(
        samples.iter().filter(|s| s.as_f64() == Some(1.0)).count(),
        20
    );
    assert_eq!(doc["config_hash"], reference["config_hash"]);
    let promoted = digline_env(
        root,
        &[
            "promote",
            "--suite",
            "suite.toml",
            "--run",
            ran.stdout.trim(),
        ],
        &[],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
}

#[test]
fn a_case_is_not_re_measured_beside_cases_measured_under_another_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    let suite = read(root, "suite.toml");
    std::fs::write(
        root.join("suite.toml"),
        suite.replace(
            "output_path = \"data.answer\"",
            "output_path = \"data.answer\"\nconfig_path = \"config\"",
        ),
    )
    .unwrap();
    measured_baseline_of(root, 5);
    let runs = root.join(".digline/noisy/runs/support");
    let before = std::fs::read_dir(&runs).unwrap().count();
    // The service now answers with another model.
    std::fs::write(
        root.join("answers.json"),
        r#"{"*": {"answers": ["yes"], "model": "stub-2"}}"#,
    )
    .unwrap();
    let ran = digline_env(
        root,
        &[
            "run",
            "--suite",
            "suite.toml",
            "--samples",
            "30",
            "--case",
            "wobbly",
        ],
        &[],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr.lines().filter(|l| l.starts_with("digline: --case") || l.starts_with("(hint")).collect::<Vec<_>>(),
        [
            "digline: --case: the system under test answered under another configuration than the reference (changed: model), so the other cases' results, measured under the reference's, cannot be kept beside them",
            "(hint: run every case (drop --case) and promote that run)",
        ]
    );
    // The half run is not kept.
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), before);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
}

#[test]
fn a_case_to_re_measure_is_refused_when_the_run_could_not_be_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = setup(root);
    let run = |args: &[&str]| {
        let mut all = vec!["run", "--suite", "suite.toml"];
        all.extend(args);
        digline_env(root, &all, &[])
    };
    // No reference to keep the other cases from.
    let ran = run(&["--case", "wobbly"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: --case asks some cases again and keeps the approved reference's results of the others, and suite support has no reference\n(hint: run every case and promote that run: drop --case)\n"
    );
    measured_baseline_of(root, 5);
    let listing = |root: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(root.join(".digline/noisy/runs/support"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let stored = listing(root);
    // An id that is not a case of the suite: the near miss.
    let ran = run(&["--case", "wobly"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: --case wobly: no case of suite.toml has this id\n(hint: did you mean --case wobbly?)\n"
    );
    // With --shard or --resume: clap refuses the pair.
    let ran = run(&["--case", "wobbly", "--shard", "1/2"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("'--case <ID>' cannot be used with '--shard <K/N|auto>'"),
        "{}",
        ran.stderr
    );
    // A case added since the reference.
    let cases: Vec<Value> = ["steady", "broken", "wobbly", "new"]
        .iter()
        .map(|id| serde_json::json!({"id": id, "vars": {}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
    let ran = run(&["--case", "wobbly"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: --case keeps the reference's results of the other cases, and case new is not in the reference (added since)\n(hint: ask it too: --case new, or run every case)\n"
    );
    // Rules changed since the reference.
    let suite = read(root, "suite.toml");
    std::fs::write(
        root.join("suite.toml"),
        suite.replace("needle = \"yes\"", "needle = \"yes\"\nthreshold = 0.5"),
    )
    .unwrap();
    let ran = run(&["--case", "wobbly", "--case", "new"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.starts_with("digline: --case keeps the reference's results of the other cases, and the suite's rules changed since the reference was made (config hash "),
        "{}",
        ran.stderr
    );
    // Nothing was stored by a refused run.
    assert_eq!(listing(root), stored);
}

/// A store of `cases` cases with a history of `gates` gates (seeded: one
/// case in three fails 6 % of its gates, cases 1 to 5 fail 95 % of them
/// against a 5-of-5 reference, so they are named lucky): a stored run in
/// which `case-00000` fails where its one-sample reference passed (no
/// re-ask: the stored run is gated without a call).
fn long_history(root: &Path, cases: usize, gates: usize) {
    use serde_json::json;
    const HASH: &str = "0123456789abcdef";
    std::fs::write(
        root.join("suite.toml"),
        crate::noisy::SUITE.replace("PORT", "9"),
    )
    .unwrap();
    let ids: Vec<String> = (0..cases).map(|i| format!("case-{i:05}")).collect();
    let list: Vec<Value> = ids.iter().map(|id| json!({"id": id, "vars": {}})).collect();
    std::fs::write(root.join("cases.json"), Value::Array(list).to_string()).unwrap();
    let verdict = |status: &str, samples: bool| {
        let mut v = json!({"assertion": "contains", "assertion_id": "contains-1", "metadata": {},
            "reason": "", "score": if status == "pass" { 1.0 } else { 0.0 }, "status": status,
            "threshold": 1.0, "tolerance": 0.0});
        if samples {
            v["samples"] = json!([1.0, 1.0, 1.0, 1.0, 1.0]);
            v["sample_min"] = json!(1.0);
            v["sample_max"] = json!(1.0);
        }
        v
    };
    let document = |at: &str, results: Vec<Value>| {
        json!({"aggregate": [], "artifacts": {}, "config_hash": HASH, "created_at": at,
            "digline_version": "0.10.0", "environment": "local", "git_commit": null,
            "judge_config": {}, "metadata": {}, "redacted": false, "results": results,
            "schema_version": 10, "suite": "support", "target_config": {}, "tenant": "noisy"})
    };
    let store = root.join(".digline/noisy");
    for folder in ["baselines", "runs/support", "history"] {
        std::fs::create_dir_all(store.join(folder)).unwrap();
    }
    let made = "2025-01-01T00:00:00+00:00";
    let reference: Vec<Value> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| json!({"case_id": id, "suspended": false, "verdicts": [verdict("pass", i > 0)]}))
        .collect();
    std::fs::write(
        store.join("baselines/support.json"),
        document(made, reference).to_string(),
    )
    .unwrap();
    let run: Vec<Value> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            json!({"case_id": id, "suspended": false,
            "verdicts": [verdict(if i == 0 { "fail" } else { "pass" }, false)]})
        })
        .collect();
    std::fs::write(
        store.join(format!(
            "runs/support/2025-03-01T00-00-00-00-00-{HASH}.json"
        )),
        document("2025-03-01T00:00:00+00:00", run).to_string(),
    )
    .unwrap();
    let mut seed: u64 = 33;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 10_000) as f64 / 10_000.0
    };
    let mut text = String::new();
    for g in 0..gates {
        let at = format!(
            "2025-01-{:02}T{:02}:{:02}:00Z",
            1 + g / 1440,
            (g / 60) % 24,
            g % 60
        );
        let flagged: Vec<Value> = ids
            .iter()
            .enumerate()
            .filter(|(i, _)| match i {
                0 => g % 3 == 0,
                1..=5 => next() < 0.95,
                _ => i % 3 == 0 && next() < 0.06,
            })
            // Cases 1 to 5 fail their re-ask too; the others pass it.
            .map(|(i, id)| json!([id, "contains", "f", 1, u8::from((1..=5).contains(&i))]))
            .collect();
        let line = json!({"v": 1, "at": at, "commit": null, "reference": made,
            "reference_config": HASH, "config": HASH, "exit": 0, "usd": 0.4 + next() / 5.0,
            "checks": [["contains", cases, cases - flagged.len()]], "flagged": flagged});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(store.join("history/support.jsonl"), text).unwrap();
}

/// The report's charts at 1,000 gates × 2,000 cases, in English and German,
/// opened by headless Chromium: every chart is an `<svg>` with a `<title>`,
/// a table beside it, nothing runs; the screenshots are kept with the
/// report test's (the user guide's pictures are docs/pictures/).
#[test]
fn in_chromium_the_history_charts_draw_at_a_thousand_gates_of_two_thousand_cases() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    long_history(root, 2_000, 1_000);
    for locale in ["en", "de"] {
        let out = format!("out-{locale}");
        let ran = digline_env(
            root,
            &[
                "gate",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--publish",
                "none",
                "--out",
                &out,
                "--locale",
                locale,
            ],
            &[],
        );
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        let page = root.join(&out).join("report.html");
        let source = read(root, &format!("{out}/report.html"));
        let comment = read(root, &format!("{out}/comment.md"));
        assert_eq!(
            source.matches("<svg ").count(),
            3,
            "checks, flagged, spend: {comment}"
        );
        for id in ["chart-checks", "chart-flagged", "chart-spend"] {
            assert!(
                source.contains(&format!("<title id=\"{id}\">")),
                "{locale}: {id}"
            );
        }
        assert_eq!(
            source.matches("<table class=\"grid chart-table\">").count(),
            3
        );
        assert!(
            source.contains("1000 gates") || source.contains("1000 Gates"),
            "{locale}"
        );
        let Some(browser) = crate::report::chromium() else {
            continue;
        };
        let dom = crate::report::headless(&browser, &page, &["--dump-dom"]);
        for tag in ["svg", "polyline", "table", "caption"] {
            assert_eq!(
                crate::report::elements(&dom, tag),
                crate::report::elements(&source, tag),
                "{locale}: <{tag}> in the DOM and in digline's HTML"
            );
        }
        assert_eq!(crate::report::elements(&dom, "script"), 0);
        let shot = crate::report::artifacts().join(format!("history-{locale}.png"));
        let _ = std::fs::remove_file(&shot);
        crate::report::headless(
            &browser,
            &page,
            &[
                "--window-size=1280,2400",
                &format!("--screenshot={}", shot.display()),
            ],
        );
        assert!(shot.is_file(), "{locale}: the screenshot was written");
    }
}

#[test]
fn a_history_that_keeps_no_gate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ran = digline_env(
        dir.path(),
        &["gate", "--suite", "suite.toml", "--history-keep", "0"],
        &[],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "error: invalid value '0' for '--history-keep <N>': 0 is not in 1..=100000\n\nFor more information, try '--help'.\n"
    );
}
