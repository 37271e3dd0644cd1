//! Nothing a pull request can write excuses a regression (issue 31): the
//! gate's own files in the workspace — memo entries, re-ask records,
//! `latest`, shard runs — are believed only when the workspace vouches for
//! them (not tracked by git in the repository that holds them, no link
//! out of their folder) and, for the evidence that makes a verdict more
//! lenient, only when they carry the gate's seal (`DIGLINE_EVIDENCE_KEY`,
//! or the same process). Each attack is driven as a hostile pull request
//! would, against the release behaviour of the previous version.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::cost::{harsh, judge_calls, promote, read_json, run, steady, suite};
use crate::util::{digline_env, git, Ran};

/// A key that seals evidence across processes (as a CI secret would).
const KEY: &str = "0123456789abcdef0123456789abcdef";

/// Every memo entry file of tenant `t`.
fn memo_entries(root: &Path) -> Vec<PathBuf> {
    let memo = root.join(".digline/t/memo");
    let mut out = Vec::new();
    for shard in std::fs::read_dir(&memo).unwrap().flatten() {
        if shard.path().is_dir() {
            for file in std::fs::read_dir(shard.path()).unwrap().flatten() {
                out.push(file.path());
            }
        }
    }
    out.sort();
    out
}

/// Rewrite every entry whose judge said "poor" into a perfect score,
/// keeping (or dropping) the seal it carried.
fn forge(root: &Path, keep_seal: bool) -> usize {
    let mut forged = 0;
    for path in memo_entries(root) {
        let mut entry = read_json(&path);
        if !entry["reply"].as_str().unwrap_or("").contains("poor") {
            continue;
        }
        entry["reply"] = json!("{\"score\": 1.0, \"reason\": \"forged\"}");
        if !keep_seal {
            entry.as_object_mut().unwrap().remove("seal");
        }
        std::fs::write(&path, entry.to_string()).unwrap();
        forged += 1;
    }
    forged
}

/// `gate` against the fake with `vars` added to its environment.
fn gate_with(
    root: &Path,
    fake: &crate::fake_llm::Fake,
    out: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> Ran {
    let mut args = vec![
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        out,
        "--publish",
        "none",
    ];
    args.extend_from_slice(extra);
    let base = crate::cost::env(fake);
    let mut all: Vec<(&str, &str)> = base.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(vars);
    digline_env(root, &args, &all)
}

/// A reference every judge passed, then a gate where the judge fails every
/// answer (a real regression: exit 1), its replies kept in the memo.
fn regressed(root: &Path, vars: &[(&str, &str)]) -> crate::fake_llm::Fake {
    suite(root, 2, &["Polite."]);
    let fair = steady();
    let (key, ran) = run(root, &fair, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    promote(root, &fair, &key);
    let poor = harsh();
    let gated = gate_with(root, &poor, "first", &[], vars);
    assert_eq!(gated.code, 1, "{}{}", gated.stdout, gated.stderr);
    poor
}

#[test]
fn an_untracked_forged_memo_entry_never_turns_a_regression_green() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let poor = regressed(root, &[]);
    assert!(forge(root, false) > 0);
    let calls = judge_calls(&poor);
    // Replay only from the memo: a forged reply is not one of the gate's,
    // so nothing is replayed and the run cannot be judged (2, never 0).
    let gated = gate_with(root, &poor, "replay", &["--judge-memo", "replay"], &[]);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    assert_eq!(judge_calls(&poor), calls, "replay never calls a judge");
    assert!(
        gated
            .stderr
            .contains("judge memo (replay): 0 reply(ies) reused"),
        "{}",
        gated.stderr
    );
    // With the memo on, the judge is asked again: worse.
    let gated = gate_with(root, &poor, "on", &[], &[]);
    assert_eq!(gated.code, 1, "{}{}", gated.stdout, gated.stderr);
    assert!(judge_calls(&poor) > calls);
}

#[test]
fn with_the_evidence_key_the_memo_serves_later_gates_and_an_edited_entry_is_not_believed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let keyed = [("DIGLINE_EVIDENCE_KEY", KEY)];
    let poor = regressed(root, &keyed);
    assert!(read_json(&memo_entries(root)[0])["seal"].is_string());
    // The gate's own sealed replies serve the next gate: no judge call
    // (the re-asks, fresh judgings, are never the memo's: not judged, 2).
    let calls = judge_calls(&poor);
    let reused = |gated: &Ran, n: usize| {
        assert!(
            gated
                .stderr
                .contains(&format!("judge memo (replay): {n} reply(ies) reused")),
            "{}",
            gated.stderr
        );
    };
    let gated = gate_with(root, &poor, "again", &["--judge-memo", "replay"], &keyed);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    reused(&gated, 2);
    assert_eq!(judge_calls(&poor), calls);
    // Another key does not read them.
    let other = [("DIGLINE_EVIDENCE_KEY", "fedcba9876543210fedcba9876543210")];
    let gated = gate_with(root, &poor, "other", &["--judge-memo", "replay"], &other);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    reused(&gated, 0);
    // An entry edited under its old seal is not believed: never green.
    assert!(forge(root, true) > 0);
    let gated = gate_with(root, &poor, "forged", &["--judge-memo", "replay"], &keyed);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    reused(&gated, 0);
    assert_eq!(judge_calls(&poor), calls);
    // With the memo on, the judge is asked again: worse.
    let gated = gate_with(root, &poor, "on", &[], &keyed);
    assert_eq!(gated.code, 1, "{}{}", gated.stdout, gated.stderr);
}

#[cfg(unix)]
#[test]
fn a_memo_folder_linked_out_of_the_memo_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    suite(root, 1, &["Polite."]);
    let fair = steady();
    let (_, ran) = run(root, &fair, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The pull request moves the memo's folder to `forged/`, writes a
    // perfect score there and commits `memo/da -> ../forged/da`.
    let entry = memo_entries(root).remove(0);
    let folder = entry.parent().unwrap().to_path_buf();
    let name = folder.file_name().unwrap().to_str().unwrap().to_string();
    let forged = root.join(".digline/t/forged").join(&name);
    std::fs::create_dir_all(forged.parent().unwrap()).unwrap();
    std::fs::rename(&folder, &forged).unwrap();
    let moved = forged.join(entry.file_name().unwrap());
    let mut text = read_json(&moved);
    text["reply"] = json!("{\"score\": 1.0, \"reason\": \"forged\"}");
    std::fs::write(&moved, text.to_string()).unwrap();
    std::os::unix::fs::symlink(format!("../forged/{name}"), &folder).unwrap();
    git(
        root,
        &[
            "add",
            "-f",
            ".digline/t/forged",
            &format!(".digline/t/memo/{name}"),
        ],
    );
    let calls = judge_calls(&fair);
    let runs = root.join(".digline/t/runs/s");
    let listed = || -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&runs)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        v.sort();
        v
    };
    let before = listed();
    // Not quiet: the refusal is a warning on stderr.
    let ran = crate::cost::go(
        root,
        &fair,
        &["run", "--suite", "suite.toml", "--judge-memo", "replay"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(judge_calls(&fair), calls);
    let made: Vec<PathBuf> = listed()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    let doc = read_json(&made[0]);
    let verdict = &doc["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "error", "{verdict}");
    assert_ne!(verdict["reason"], "forged");
    // Named on stderr, with the reason.
    let link = format!(".digline/t/memo/{name}");
    assert!(
        ran.stderr.contains(&format!(
            "a judge memo entry is not read: ./{link} is tracked by git"
        )) || ran
            .stderr
            .contains(&format!("{link} is a symbolic link that leads out of")),
        "{}",
        ran.stderr
    );
}

/// The noisy project with a reference of 5 samples, and a run where the
/// `broken` case fails every time; its key.
fn broken_run(root: &Path) -> String {
    crate::noisy::measured_baseline(root);
    crate::noisy::answers(
        root,
        &[
            ("steady", &["yes"; 6]),
            ("broken", &["no"; 6]),
            ("wobbly", &["yes"; 6]),
        ],
    );
    let ran = crate::noisy::run(root, &["run", "--suite", "suite.toml", "-q"]);
    ran.stdout.trim().to_string()
}

/// A re-ask record for run `key` saying `broken` passed every re-ask, at a
/// false-alarm rate no evidence reaches.
fn forged_reasks(root: &Path, key: &str) -> PathBuf {
    let baseline: Value = read_json(root.join(".digline/noisy/baselines/support.json"));
    let forged = json!({
        "reference_created_at": baseline["created_at"],
        "reference_config_hash": baseline["config_hash"],
        "false_alarm_rate": 1e-9,
        "pairs": [{"case_id": "broken", "assertion_id": baseline["results"][0]["verdicts"][0]["assertion_id"],
                   "occurrence": 0, "failed": [false, false, false, false]}],
    });
    let folder = root.join(".digline/noisy/reasks/runs/support");
    std::fs::create_dir_all(&folder).unwrap();
    let record = folder.join(format!("{key}.json"));
    std::fs::write(&record, forged.to_string()).unwrap();
    record
}

#[test]
fn an_untracked_forged_re_ask_record_is_not_believed_and_the_failure_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = crate::noisy::setup(root);
    let key = broken_run(root);
    forged_reasks(root, &key);
    let ran = crate::noisy::run(root, &["compare", "--suite", "suite.toml", "--run", &key]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let ran = crate::noisy::run(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--out",
            "out",
            "--publish",
            "none",
        ],
    );
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("the re-ask record carries no valid seal of this gate"),
        "{}",
        ran.stderr
    );
    // A warning into a pipe carries no colour codes.
    assert!(!ran.stderr.contains('\u{1b}'), "{:?}", ran.stderr);
    // The gate asked the failure again (its own record now replaces it).
    assert!(ran.stderr.contains("asked again"), "{}", ran.stderr);
}

#[test]
fn committed_runs_records_and_shards_are_refused_when_the_gate_runs_from_outside_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let _server = crate::noisy::setup(&root);
    git(&root, &["init", "-q"]);
    let key = broken_run(&root);
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let suite = root.join("suite.toml");
    let flags = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "gate",
            "--suite",
            suite.to_str().unwrap(),
            "--root",
            root.to_str().unwrap(),
            "--out",
            "out",
            "--publish",
            "none",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let from_outside = |extra: &[&str]| {
        let args = flags(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        digline_env(&outside, &args, &[])
    };
    // The run the pull request committed, gated as `latest`.
    let run_file = root.join(format!(".digline/noisy/runs/support/{key}.json"));
    git(&root, &["add", "-f", run_file.to_str().unwrap()]);
    let ran = from_outside(&["--run", "latest"]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "the newest run {key} (latest) is not read: {} is tracked by git",
            run_file.display()
        )),
        "{}",
        ran.stderr
    );
    // A committed re-ask record: never read, the failure asked again (1).
    let record = forged_reasks(&root, &key);
    git(&root, &["add", "-f", record.to_str().unwrap()]);
    let ran = from_outside(&["--run", &key]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains("is tracked by git"), "{}", ran.stderr);
    // Committed shard files.
    let shards = root.join("committed");
    std::fs::create_dir_all(&shards).unwrap();
    std::fs::copy(&run_file, shards.join("one.json")).unwrap();
    git(&root, &["add", "-f", "committed"]);
    let ran = from_outside(&["--shards", shards.to_str().unwrap()]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "a shard run is not read: {} is tracked by git",
            shards.join("one.json").display()
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_moved_suite_pointing_at_another_server_is_itemized_never_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = crate::integrity::base_then(root, |root| {
        let text = crate::gate::read(root.join("suite.toml"))
            .replacen("http://127.0.0.1:", "http://localhost:", 1)
            .replacen("cases = \"cases.json\"", "cases = \"../cases.json\"", 1);
        std::fs::create_dir_all(root.join("ci")).unwrap();
        std::fs::write(root.join("ci/suite.toml"), text).unwrap();
        std::fs::remove_file(root.join("suite.toml")).unwrap();
    });
    let mut args = crate::integrity::GATE.to_vec();
    args[2] = "ci/suite.toml";
    args.extend(["--base-ref", "HEAD^1"]);
    let ran = crate::gate::digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        !ran.stdout
            .contains("The suite is unchanged from the reference"),
        "{}",
        ran.stdout
    );
    for line in [
        "This pull request changes what is evaluated (3 itemized below).",
        "  suite file: suite.toml → ci/suite.toml\n",
        "  [suite] cases: cases.json → ../cases.json\n",
        "  [target] url changed (the value is withheld)\n",
    ] {
        assert!(ran.stdout.contains(line), "{line:?} in {}", ran.stdout);
    }
    assert_eq!(crate::integrity::outcome(root)["evaluation_changes"], 3);
}

#[test]
fn a_lower_false_alarm_rate_is_itemized_as_loosened_against_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = crate::integrity::base_then(root, |root| {
        crate::integrity::edit(
            &root.join("suite.toml"),
            "cases = \"cases.json\"",
            "cases = \"cases.json\"\nfalse_alarm_rate = 0.0001",
        );
    });
    let ran = crate::integrity::gate_against_base(root);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("  [suite] false_alarm_rate: — → 0.0001 · loosened\n"),
        "{}",
        ran.stdout
    );
    // The base was read: the knob is a change, not an unverified one.
    assert!(!ran.stdout.contains("not verified"), "{}", ran.stdout);
    let outcome = crate::integrity::outcome(root);
    assert!(outcome.get("unverified_knobs").is_none(), "{outcome}");
}

/// The same lowered `false_alarm_rate` in a shallow clone (the base
/// cannot be read): no surface says "unchanged", and every knob the pull
/// request's suite declares is listed as not verified against the base —
/// the headline (stdout, annotation, `outcome.json`), its own block on the
/// terminal, the comment, the job summary and the HTML report, and
/// `outcome.json`'s `unverified_knobs` — in the gate's locale.
#[test]
fn without_a_readable_base_no_surface_says_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let origin = dir.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    let server = crate::integrity::base_then(&origin, |root| {
        crate::integrity::edit(
            &root.join("suite.toml"),
            "cases = \"cases.json\"",
            "cases = \"cases.json\"\nfalse_alarm_rate = 0.0001",
        );
    });
    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &format!("file://{}", origin.display()),
            "clone",
        ],
    );
    crate::util::set_port(&clone.join("suite.toml"), server.port);
    let fake = crate::forges::fake_github(crate::forges::Mode::Normal);
    let mut vars = crate::gate::actions_env(&clone, &fake);
    vars.retain(|(k, _)| *k != "GITHUB_TOKEN");
    let gate = |locale: &str| {
        let mut args = crate::integrity::GATE.to_vec();
        args.extend(["--locale", locale]);
        let ran = crate::gate::digline_env(&clone, &args, &vars);
        assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
        ran
    };
    let ran = gate("en");
    let stop = regex::Regex::new(r"stop-commands::[0-9a-f]+|::[0-9a-f]{32}::").unwrap();
    insta::assert_snapshot!(
        "unverified_knobs_stdout",
        stop.replace_all(&crate::noisy::stable(&ran.stdout), "TOKEN")
    );
    let knobs = [
        ("[suite] false_alarm_rate", "0.0001"),
        ("[[assertions]] cost_budget tolerance", "0.05"),
        ("[[assertions]] latency_budget tolerance", "0.05"),
    ];
    let outcome = crate::cost::read_json(clone.join("out/outcome.json"));
    let listed: Vec<(String, String)> = outcome["unverified_knobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["knob"].as_str().unwrap().to_string(),
                k["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = knobs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(listed, expected);
    let headline = outcome["headline"].as_str().unwrap();
    assert!(
        headline.contains("unverified ([suite] false_alarm_rate = 0.0001, [[assertions]] cost_budget tolerance = 0.05, [[assertions]] latency_budget tolerance = 0.05)."),
        "{headline}"
    );
    insta::assert_snapshot!(
        "unverified_knobs_comment_en",
        crate::noisy::stable(&crate::gate::read(clone.join("out/comment.md")))
    );
    for file in ["out/comment.md", "out/summary.md", "out/report.html"] {
        let text = crate::gate::read(clone.join(file));
        assert!(
            !text.contains("unchanged from the reference"),
            "{file}: {text}"
        );
        assert!(
            text.contains("not verified against the base"),
            "{file}: {text}"
        );
    }
    let report = crate::gate::read(clone.join("out/report.html"));
    for (knob, value) in knobs {
        let line = format!("{knob} = {value} · not verified against the base");
        assert!(report.contains(&line), "report.html: {line}");
    }
    // Published on GitHub: the annotation is the headline, knobs named,
    // and the job summary lists them.
    let published = crate::gate::digline_env(
        &clone,
        &["gate", "--suite", "suite.toml", "--out", "published"],
        &crate::gate::actions_env(&clone, &fake),
    );
    assert_eq!(
        published.code, 0,
        "{}{}",
        published.stdout, published.stderr
    );
    let annotation = published
        .stdout
        .lines()
        .find(|l| l.starts_with("::notice"))
        .unwrap_or_else(|| panic!("{}", published.stdout));
    assert!(
        annotation.contains("unverified ([suite] false_alarm_rate = 0.0001, [[assertions]] cost_budget tolerance = 0.05, [[assertions]] latency_budget tolerance = 0.05)."),
        "{annotation}"
    );
    let job_summary = crate::gate::read(clone.join("gh-summary"));
    assert!(
        job_summary.contains(
            "- \\[suite\\] false\\_alarm\\_rate \\= 0\\.0001 · not verified against the base\n"
        ),
        "{job_summary}"
    );
    // Another locale says the same, in its words.
    gate("de");
    insta::assert_snapshot!(
        "unverified_knobs_comment_de",
        crate::noisy::stable(&crate::gate::read(clone.join("out/comment.md")))
    );
}

#[cfg(unix)]
#[test]
fn a_cases_file_turned_into_a_link_itemizes_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = crate::integrity::base_then(root, |root| {
        // The pull request moves the cases behind a link and rewords one.
        std::fs::create_dir_all(root.join("data")).unwrap();
        let cases = crate::gate::read(root.join("cases.json")).replacen(
            "When are you open on Saturdays?",
            "When are you open on Sundays?",
            1,
        );
        std::fs::write(root.join("data/cases.json"), cases).unwrap();
        std::fs::remove_file(root.join("cases.json")).unwrap();
        std::os::unix::fs::symlink("data/cases.json", root.join("cases.json")).unwrap();
    });
    let ran = crate::integrity::gate_against_base(root);
    assert!(
        ran.stdout
            .contains("This pull request changes what is evaluated (1 itemized below)."),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
    assert!(
        ran.stdout.contains("  case opening-hours: vars changed"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("added"), "{}", ran.stdout);
}

#[cfg(unix)]
#[test]
fn a_store_turned_into_a_link_keeps_the_comparison_with_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = crate::integrity::base_then(root, |root| {
        std::fs::rename(root.join(".digline"), root.join("store")).unwrap();
        std::os::unix::fs::symlink("store", root.join(".digline")).unwrap();
    });
    let ran = crate::integrity::gate_against_base(root);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    // The base's baseline is read through the base's path: the same file,
    // not replaced, and nothing reads as unchanged for want of a base.
    assert_eq!(
        crate::integrity::outcome(root)["baseline_changed"],
        Value::Bool(false)
    );
    assert!(!ran.stdout.contains("replaces"), "{}", ran.stdout);
    assert!(!ran.stdout.contains("not verified"), "{}", ran.stdout);
}

#[test]
fn removing_samples_is_itemized_as_loosened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let server = crate::integrity::project(root);
    crate::integrity::edit(
        &root.join("suite.toml"),
        "cases = \"cases.json\"",
        "cases = \"cases.json\"\nsamples = 3",
    );
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    crate::integrity::edit(
        &root.join("suite.toml"),
        "cases = \"cases.json\"\nsamples = 3",
        "cases = \"cases.json\"",
    );
    git(root, &["commit", "-q", "-am", "the pull request"]);
    let ran = crate::integrity::gate_against_base(root);
    assert!(
        ran.stdout.contains("  [suite] samples: 3 → — · loosened\n"),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
    let _ = server.port;
}

/// The shared quota's bucket (`--rate`, `DIGLINE_QUOTA_DIR`) is a workspace
/// file too: one the pull request committed in the suite's repository, or
/// a link it planted out of the bucket's folder, is neither read nor
/// written, said with its path, and the run paces alone (before: the
/// committed bucket was rewritten, and a write went through the link to the
/// file it named). Driven from outside the repository (`--root`).
#[cfg(unix)]
#[test]
fn a_committed_or_linked_quota_bucket_is_neither_read_nor_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let quota = root.join("quota");
    std::fs::create_dir_all(&quota).unwrap();
    suite(&root, 2, &[]);
    git(&root, &["init", "-q"]);
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let fake = steady();
    let suite_file = root.join("suite.toml");
    let args = [
        "run",
        "--suite",
        suite_file.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--rate",
        "600",
    ];
    let base = crate::cost::env(&fake);
    let mut vars: Vec<(&str, &str)> = base.iter().map(|(k, v)| (*k, v.as_str())).collect();
    vars.push(("DIGLINE_QUOTA_DIR", quota.to_str().unwrap()));
    let go = || digline_env(&outside, &args, &vars);
    // An honest bucket is made and shared.
    let ran = go();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let buckets: Vec<PathBuf> = std::fs::read_dir(&quota)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(buckets.len(), 1, "{buckets:?}");
    let bucket = &buckets[0];
    assert!(!ran.stderr.contains("bucket"), "{}", ran.stderr);
    // Committed by the pull request: not read, not rewritten, named.
    let committed = "0 0 0 committed by the pull request\n";
    std::fs::write(bucket, committed).unwrap();
    git(&root, &["add", "-f", "quota"]);
    let ran = go();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "the shared quota's bucket is not read: {} is tracked by git, and a committed file can be written by the pull request being judged; this run paces to --rate alone",
            bucket.display()
        )),
        "{}",
        ran.stderr
    );
    assert_eq!(crate::gate::read(bucket), committed);
    git(&root, &["rm", "-q", "--cached", "-r", "quota"]);
    // A link out of the bucket's folder: the file it names keeps its bytes.
    std::fs::remove_file(bucket).unwrap();
    let precious = root.join("precious.txt");
    std::fs::write(&precious, "the pull request's target\n").unwrap();
    std::os::unix::fs::symlink("../precious.txt", bucket).unwrap();
    let ran = go();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "the shared quota's bucket is not read: {} is a symbolic link that leads out of {}",
            bucket.display(),
            quota.display()
        )),
        "{}",
        ran.stderr
    );
    assert_eq!(crate::gate::read(&precious), "the pull request's target\n");
}

/// Two judged checks on two judges, both moved to another gateway
/// (`DIGLINE_JUDGE_*_BASE_URL`): each judge's gateway is itemized, not
/// only the first judge's (before: no `base_url` was recorded with more
/// than one judge, and the move read as no change).
#[test]
fn two_judges_moved_to_another_gateway_are_both_itemized() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 2, &["Polite."]);
    let text = crate::gate::read(root.join("suite.toml"))
        + "\n[[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Short.\"\njudge = \"openai/gpt-4o-mini\"\nthreshold = 0.5\ntolerance = 1\n";
    std::fs::write(root.join("suite.toml"), text).unwrap();
    let fake = steady();
    let gateway = steady();
    let with = |judges: &crate::fake_llm::Fake, args: &[&str]| {
        let mut vars = crate::cost::env(&fake);
        vars.push(("OPENAI_API_KEY", "sk-TEST-two-judges".to_string()));
        vars.push(("DIGLINE_JUDGE_ANTHROPIC_BASE_URL", judges.base()));
        vars.push((
            "DIGLINE_JUDGE_OPENAI_BASE_URL",
            format!("{}/v1", judges.base()),
        ));
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        digline_env(root, args, &vars)
    };
    let first = with(&fake, &["run", "-q", "--suite", "suite.toml"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    promote(root, &fake, first.stdout.trim());
    let moved = with(&gateway, &["run", "-q", "--suite", "suite.toml"]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    assert!(
        judge_calls(&gateway) >= 4,
        "both judges asked at the gateway"
    );
    let compared = with(
        &gateway,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    let judging = "The judging changed (anthropic/claude-haiku-4-5.base_url changed (the value is not included), openai/gpt-4o-mini.base_url changed (the value is not included)), so these scores are less comparable with the reference: what moved is the measuring instrument, not only what it measured.";
    assert!(compared.stdout.contains(judging), "{}", compared.stdout);
    assert!(
        compared.stdout.contains("\n  judge · anthropic/claude-haiku-4-5.base_url changed (the value is not included), openai/gpt-4o-mini.base_url changed (the value is not included)\n"),
        "{}",
        compared.stdout
    );
    // The run keeps every judge's gateway (host:port), the reference too.
    let at = |fake: &crate::fake_llm::Fake| format!("127.0.0.1:{}", fake.port);
    let config = |key: &str| {
        read_json(root.join(format!(".digline/t/runs/s/{key}.json")))["judge_config"].clone()
    };
    let gateways = |fake| json!({"anthropic/claude-haiku-4-5.base_url": at(fake), "openai/gpt-4o-mini.base_url": at(fake)});
    assert_eq!(config(moved.stdout.trim())["values"], gateways(&gateway));
    assert_eq!(config(first.stdout.trim())["values"], gateways(&fake));
}
