//! A verdict nobody can quietly loosen (issue 15): a deleted case, a
//! parameter edit, a loosened threshold, a replaced baseline, a forged or
//! committed run, someone else's marker comment and a stale comment — each
//! driven through `digline gate` as a hostile pull request would.

use std::path::Path;
use std::process::Command;

use crate::forges::{fake_github, fake_gitlab, Mode};
use crate::gate::{actions_env, digline_env, quickstart, read, GL_TOKEN};
use crate::util::{git, repo, set_port, stub};

pub(crate) const GATE: [&str; 7] = [
    "gate",
    "--suite",
    "suite.toml",
    "--out",
    "out",
    "--publish",
    "none",
];

/// A quickstart copy with its baseline, its stub started and the port set.
pub(crate) fn project(root: &Path) -> crate::util::Stub {
    quickstart(root, true);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    server
}

pub(crate) fn edit(path: &Path, from: &str, to: &str) {
    let text = read(path);
    assert!(text.contains(from), "{from:?} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Drop one case from `cases.json`.
fn delete_case(root: &Path, id: &str) {
    let mut cases: serde_json::Value =
        serde_json::from_str(&read(root.join("cases.json"))).unwrap();
    cases
        .as_array_mut()
        .unwrap()
        .retain(|c| c["id"].as_str() != Some(id));
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
}

pub(crate) fn break_return_answer(root: &Path) {
    edit(
        &root.join("answers.json"),
        "drop it at any post office. — Northwind Support",
        "drop it at any post office.",
    );
}

/// A merge-request pipeline's variables, against the fake GitLab `lab`.
fn gitlab_vars(lab: &crate::forges::Fake) -> [(&'static str, String); 5] {
    [
        ("GITLAB_CI", "true".to_string()),
        ("CI_API_V4_URL", format!("{}/api/v4", lab.url())),
        ("CI_PROJECT_ID", "group/proj".into()),
        ("CI_MERGE_REQUEST_IID", "5".into()),
        ("DIGLINE_GITLAB_TOKEN", GL_TOKEN.into()),
    ]
}

/// A project whose answer got worse, gated once: its stub and its marker.
fn red_project(root: &Path) -> (crate::util::Stub, String) {
    let server = project(root);
    break_return_answer(root);
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let marker = outcome(root)["marker"].as_str().unwrap().to_string();
    (server, marker)
}

pub(crate) fn outcome(root: &Path) -> serde_json::Value {
    serde_json::from_str(&read(root.join("out/outcome.json"))).unwrap()
}

#[test]
fn a_deleted_case_is_named_and_could_not_be_judged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    delete_case(root, "opening-hours");
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    let first = ran.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(
            "6 checks that passed in the reference are not in this run, so the reference could not be judged in full. Nothing got worse compared with the reference."
        ),
        "{first}"
    );
    assert!(
        first.contains("The cases or checks differ from the reference (6 missing, 0 new)."),
        "{first}"
    );
    assert!(!first.contains("unchanged from the reference"), "{first}");
    assert!(
        ran.stdout.contains("\n\nNot in this run:\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("\nopening-hours · contains · in the reference, not in this run\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stderr.contains("(hint: an intended suite change is accepted by promoting a new baseline in the same pull request; a case paused on purpose is marked suspended with a reason)"),
        "{}",
        ran.stderr
    );
    let comment = read(root.join("out/comment.md"));
    assert!(comment.contains("#### Not in this run"), "{comment}");
    assert!(
        comment.contains(
            "| opening\\-hours | contains | in the reference\\, not in this run \\(pass 1\\.000000\\) |"
        ),
        "{comment}"
    );
    assert_eq!(outcome(root)["exit_code"], 2);

    // --json names them too.
    let ran = digline_env(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--json",
        ],
        &[],
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["uncovered_passes"], 6);
    assert_eq!(json["coverage_changed"], true);
    assert_eq!(json["exit_code"], 2);
    assert_eq!(json["not_in_run"].as_array().unwrap().len(), 6);
    assert_eq!(json["not_in_run"][0]["case_id"], "opening-hours");
    assert_eq!(json["not_in_run"][0]["before"], "pass");

    // The way out a person takes: the case suspended with a reason.
    let mut cases: serde_json::Value =
        serde_json::from_str(&read(repo().join("examples/quickstart/cases.json"))).unwrap();
    for case in cases.as_array_mut().unwrap() {
        if case["id"] == "opening-hours" {
            case["suspended"] = serde_json::json!("the hours change next month");
        }
    }
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(" 2 cases are suspended. "),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_parameter_edit_without_a_new_baseline_is_itemized_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    edit(&root.join("suite.toml"), "maximum = 40", "maximum = 50");
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with(
            "3 checks that passed in the reference are not in this run, so the reference could not be judged in full."
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "\nRules changed in this pull request:\n  length · parameters changed (check id c2d7c80333b6c0ad → "
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("where-is-my-order · length · in this run, not in the reference\n"),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("#### Rules changed in this pull request\n\n- length · parameters changed \\(check id c2d7c80333b6c0ad → "),
        "{comment}"
    );
    assert!(comment.contains("#### New in this run"), "{comment}");
}

#[test]
fn a_loosened_threshold_with_a_score_drop_is_listed_as_loosened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    edit(
        &root.join("suite.toml"),
        "max_usd = 0.01\n",
        "max_usd = 0.01\nthreshold = 0.3\n",
    );
    edit(
        &root.join("answers.json"),
        "\"cost_usd\": 0.0004",
        "\"cost_usd\": 0.008",
    );
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(
            "\nRules changed in this pull request:\n  cost_budget · threshold 0.500000 → 0.300000 · loosened\n"
        ),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("- cost\\_budget · threshold 0\\.500000 → 0\\.300000 · loosened"),
        "{comment}"
    );
    let ran = digline_env(
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
        &[],
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        json["rule_changes"],
        serde_json::json!([{"check": "cost_budget", "field": "threshold", "before": "0.500000",
            "after": "0.300000", "direction": "loosened", "pairs": 3}])
    );
}

/// A repository whose base commit holds the quickstart and its approved
/// baseline, and whose HEAD (the pull request) breaks an answer and
/// re-promotes a baseline that contains the regression. Returns the base sha.
fn replaced_baseline_repo(root: &Path) -> (String, crate::util::Stub) {
    let server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    break_return_answer(root);
    crate::verdict_files::promote(root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "the pull request"]);
    (base, server)
}

const REPLACED: &str = "This pull request replaces the approved reference. Against the approved reference it replaces, 1 check got worse.";

#[test]
fn a_replaced_baseline_is_said_first_with_what_it_gives_up() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (base, _server) = replaced_baseline_repo(root);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let mut args = GATE.to_vec();
    args.pop();
    args.pop();
    // Explicit: --base-ref names the base.
    let mut explicit = args.clone();
    explicit.extend(["--base-ref", base.as_str(), "--publish", "none"]);
    let ran = digline_env(root, &explicit, &[]);
    assert_eq!(
        ran.code, 0,
        "exit by the PR's own baseline: {}{}",
        ran.stdout, ran.stderr
    );
    assert!(
        ran.stdout
            .starts_with(&format!("{REPLACED} Nothing got worse")),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "\nWorse than the approved reference this pull request replaces:\nhow-do-i-return · contains · pass 1.000000 → fail 0.000000\n"
        ),
        "{}",
        ran.stdout
    );
    let o = outcome(root);
    assert_eq!(o["baseline_changed"], true);
    assert!(o["headline"].as_str().unwrap().starts_with(REPLACED));
    // By default on GitHub Actions: the first parent of HEAD, published.
    let ran = digline_env(root, &args, &vars);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains(&format!("\n{REPLACED} Nothing got worse")),
        "{}",
        ran.stdout
    );
    assert!(
        read(root.join("gh-output")).contains("baseline-changed<<DIGLINE_EOF\ntrue\n"),
        "{}",
        read(root.join("gh-output"))
    );
    // Exit 0, yet a replaced reference is worth a comment of its own.
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert!(
        comments[0]
            .1
            .contains("This pull request replaces the approved reference\\."),
        "{}",
        comments[0].1
    );
}

#[test]
fn an_unchanged_baseline_says_nothing_of_a_replacement() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    std::fs::write(root.join("README"), "a change that is not the baseline").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "pr"]);
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD^1"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with("Nothing got worse"),
        "{}",
        ran.stdout
    );
    assert_eq!(outcome(root)["baseline_changed"], false);
}

#[test]
fn the_reference_spend_comes_from_the_base_when_the_baseline_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    let record = root.join(".digline/quickstart/spend/baselines/support.json");
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    let spend = |usd: &str| {
        format!(
            "{{\"target\": {{\"calls\": 3, \"usd\": {usd}, \"input_tokens\": 30, \"output_tokens\": 60}}, \"judges\": {{\"calls\": 0, \"usd\": 0.0}}}}\n"
        )
    };
    std::fs::write(&record, spend("0.0012")).unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "base"]);
    // The pull request restates what the reference spent, tenfold, and
    // leaves the baseline alone.
    std::fs::write(&record, spend("0.012")).unwrap();
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "pr"]);
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD^1"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let outcome = outcome(root);
    assert_eq!(outcome["baseline_changed"], false);
    assert_eq!(outcome["spent_usd"]["reference_target"], 0.0012);
    assert_eq!(outcome["reference_spent"]["target"]["usd"], 0.0012);
    // Without a base, the working copy's record is all there is.
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        crate::integrity::outcome(root)["spent_usd"]["reference_target"],
        0.012
    );
}

#[test]
fn a_shallow_clone_without_the_base_says_what_to_fetch() {
    let dir = tempfile::tempdir().unwrap();
    let origin = dir.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    let (_base, server) = replaced_baseline_repo(&origin);
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
    set_port(&clone.join("suite.toml"), server.port);
    let sentence = "the base commit HEAD^1 is not in this clone, so the approved reference it holds could not be read: fetch it (on GitHub, actions/checkout with `fetch-depth: 2`; on GitLab, a `GIT_DEPTH` that reaches the merge request's base)";
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD^1"]);
    let ran = digline_env(&clone, &args, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains(sentence), "{}", ran.stderr);
    assert!(
        !clone.join(".digline/quickstart/runs").exists(),
        "refused before anything was spent"
    );
    // Found by default (GitHub Actions): a warning, and the verdict stands.
    let fake = fake_github(Mode::Normal);
    let mut vars = actions_env(&clone, &fake);
    vars.retain(|(k, _)| *k != "GITHUB_TOKEN");
    let ran = digline_env(&clone, &GATE, &vars);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains(&format!("digline: warning: {sentence}\n")),
        "{}{}",
        ran.stdout,
        ran.stderr
    ); // Not read is unknown (null), never false.
    assert_eq!(outcome(&clone)["baseline_changed"], serde_json::Value::Null);
}

#[test]
fn the_base_ref_is_read_without_a_git_binary() {
    let dir = tempfile::tempdir().unwrap();
    let origin = dir.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    let (_base, _server) = replaced_baseline_repo(&origin);
    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            &format!("file://{}", origin.display()),
            "clone",
        ],
    );
    // Runs stay out of git: bring the stored runs along by hand.
    let runs = origin.join(".digline/quickstart/runs/support");
    let into = clone.join(".digline/quickstart/runs/support");
    std::fs::create_dir_all(&into).unwrap();
    crate::util::copy_files(&runs, &into);
    let ran = {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_digline"));
        cmd.args([
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--base-ref",
            "HEAD^1",
            "--out",
            "out",
            "--publish",
            "none",
        ])
        .current_dir(&clone)
        .env_clear()
        .env("PATH", "");
        crate::util::Ran::from(cmd.output().unwrap())
    };
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .starts_with(&format!("{REPLACED} Nothing got worse")),
        "{}",
        ran.stdout
    );
    assert_eq!(outcome(&clone)["baseline_changed"], true);
}

#[test]
fn a_future_dated_or_committed_run_is_not_gated_as_latest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let runs = root.join(".digline/quickstart/runs/support");
    let real = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut doc: serde_json::Value = serde_json::from_str(&read(&real)).unwrap();
    let hash = doc["config_hash"].as_str().unwrap().to_string();

    // A run from the future, forged and committed with `git add -f`.
    doc["created_at"] = serde_json::json!("2099-01-01T00:00:00.000001+00:00");
    let forged = runs.join(format!("2099-01-01T00-00-00-000001-00-00-{hash}.json"));
    std::fs::write(&forged, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    git(root, &["add", "-f", forged.to_str().unwrap()]);
    let mut args = GATE.to_vec();
    args.extend(["--run", "latest"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "the newest run 2099-01-01T00-00-00-000001-00-00-{hash} is dated 2099-01-01T00:00:00.000001+00:00, after now ("
        )),
        "{}",
        ran.stderr
    );
    let ran = digline_env(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is not gated as latest"),
        "{}",
        ran.stderr
    );

    // Dated now, but committed: refused too.
    git(root, &["rm", "-q", "--cached", forged.to_str().unwrap()]);
    std::fs::remove_file(&forged).unwrap();
    let created = doc_created(&real);
    let later = bump_seconds(&created);
    doc["created_at"] = serde_json::json!(later);
    let key = format!(
        "{}-{hash}",
        later
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("-")
    );
    let committed = runs.join(format!("{key}.json"));
    std::fs::write(
        &committed,
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    git(root, &["add", "-f", committed.to_str().unwrap()]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains(&format!("the newest run {key} (latest) is not read: ./.digline/quickstart/runs/support/{key}.json is tracked by git")),
        "{}",
        ran.stderr
    );
    // Named by its key, the real run is a person's choice, and gated.
    let real_key = real.file_stem().unwrap().to_str().unwrap().to_string();
    let mut named = GATE.to_vec();
    named.extend(["--run", real_key.as_str()]);
    let ran = digline_env(root, &named, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

fn doc_created(path: &Path) -> String {
    let doc: serde_json::Value = serde_json::from_str(&read(path)).unwrap();
    doc["created_at"].as_str().unwrap().to_string()
}

/// `created_at` a little later within the same second (the microseconds
/// set to 999999; a real run's are below that).
fn bump_seconds(created: &str) -> String {
    let (head, tail) = created
        .split_once('.')
        .expect("a run's time has microseconds");
    let offset = &tail[6..];
    format!("{head}.999999{offset}")
}

#[test]
fn the_gate_warns_when_the_run_was_made_at_another_commit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let mut args = GATE.to_vec();
    args.extend(["--run", "latest"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(!ran.stderr.contains("was made at commit"), "{}", ran.stderr);
    std::fs::write(root.join("README"), "next").unwrap();
    git(root, &["add", "README"]);
    git(root, &["commit", "-q", "-m", "next"]);
    let head = git(root, &["rev-parse", "HEAD"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "but the checkout is at {head}: it may not be the run of this change"
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn someone_elses_marker_comment_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_server, marker) = red_project(root);
    let theirs = format!("{marker}\nLooks fine to me, merge it.");

    let fake = fake_github(Mode::Normal);
    let planted = fake.add_by(Some("mallory"), &theirs);
    let vars = actions_env(root, &fake);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let comments = fake.comments();
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!(comments[0], (planted, theirs.clone()));
    assert!(
        comments[1]
            .1
            .contains("**1 check got worse compared with the reference\\.**"),
        "{}",
        comments[1].1
    );

    let lab = fake_gitlab(Mode::Normal);
    let planted = lab.add_by(Some("mallory"), &theirs);
    let vars = gitlab_vars(&lab);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(!ran.stderr.contains("warning"), "{}", ran.stderr);
    let notes = lab.comments();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0], (planted, theirs));
    assert!(
        notes[1]
            .1
            .contains("**1 check got worse compared with the reference\\.**"),
        "{}",
        notes[1].1
    );
}

#[test]
fn a_red_comment_turns_green_on_the_next_passing_push() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let good = read(root.join("answers.json"));
    break_return_answer(root);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.comments().len(), 1);
    std::fs::write(root.join("answers.json"), good).unwrap();
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert!(
        comments[0]
            .1
            .contains("\n**Nothing got worse compared with the reference\\.**"),
        "{}",
        comments[0].1
    );
    // And with nothing of ours there, a passing push still creates nothing.
    let quiet = fake_github(Mode::Normal);
    let vars = actions_env(root, &quiet);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 0);
    assert!(quiet.comments().is_empty());
}

#[test]
fn an_older_run_does_not_overwrite_a_newer_one_and_duplicates_converge() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let older = std::fs::read_dir(root.join(".digline/quickstart/runs/support"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let older_key = older.file_stem().unwrap().to_str().unwrap().to_string();
    break_return_answer(root);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let newer = fake.comments();
    assert_eq!(newer.len(), 1);
    // A slower job gating the older run finishes last: the comment stays.
    let ran = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            &older_key,
            "--comment-on-success",
        ],
        &vars,
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.comments(), newer);

    // Two jobs raced and each created one: the next run leaves one.
    let copy = fake.add_by(None, &newer[0].1);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1);
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_ne!(comments[0].0, copy, "the oldest stays");
}

#[test]
fn mcp_compare_refuses_a_future_dated_latest_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let runs = root.join(".digline/quickstart/runs/support");
    let real = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut doc: serde_json::Value = serde_json::from_str(&read(&real)).unwrap();
    let hash = doc["config_hash"].as_str().unwrap().to_string();
    doc["created_at"] = serde_json::json!("2099-01-01T00:00:00.000001+00:00");
    let key = format!("2099-01-01T00-00-00-000001-00-00-{hash}");
    std::fs::write(
        runs.join(format!("{key}.json")),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    let mut session = crate::mcp::Session::start(root, &[]);
    let refused = session.refused("compare", serde_json::json!({"suite": "suite.toml"}));
    assert!(
        refused.starts_with(&format!(
            "the newest run {key} is dated 2099-01-01T00:00:00.000001+00:00, after now ("
        )),
        "{refused}"
    );
    // Named by its key, the real run is compared.
    let real_key = real.file_stem().unwrap().to_str().unwrap();
    let compared = session.ok(
        "compare",
        serde_json::json!({"suite": "suite.toml", "run": real_key}),
    );
    assert_eq!(compared["exit_code"], 0, "{compared}");
}

/// The six checks of every quickstart case, as `suite.toml` declares them.
const QUICKSTART_CHECKS: [&str; 6] = [
    "contains",
    "not_contains",
    "length",
    "no_internal_ticket",
    "cost_budget",
    "latency_budget",
];

#[test]
fn coverage_and_rule_lists_come_in_suite_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    // `where-is-my-order` comes first in cases.json, `opening-hours` third:
    // sorted by id they would swap.
    delete_case(root, "where-is-my-order");
    delete_case(root, "opening-hours");
    // Two parameter edits: the rules list follows declaration order.
    edit(&root.join("suite.toml"), "maximum = 40", "maximum = 50");
    edit(&root.join("suite.toml"), r"\bINT-\d+", r"\bINT-\d{3,}");
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);

    // The run's cases in cases.json order, then the cases only the
    // reference has, in the reference's order; checks as declared.
    let expected = not_in_run_order();
    let mut gone = String::from("\n\nNot in this run:\n");
    for (case, check) in &expected {
        gone.push_str(&format!(
            "{case} · {check} · in the reference, not in this run\n"
        ));
    }
    assert!(ran.stdout.contains(&gone), "{}", ran.stdout);
    let mut came = String::from("\n\nNew in this run:\n");
    for (case, check) in &expected[..2] {
        came.push_str(&format!(
            "{case} · {check} · in this run, not in the reference\n"
        ));
    }
    assert!(ran.stdout.contains(&came), "{}", ran.stdout);
    let rules = ran
        .stdout
        .split("\nRules changed in this pull request:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", ran.stdout));
    let names: Vec<&str> = rules
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim_start().split(" · ").next().unwrap())
        .collect();
    assert_eq!(names, ["length", "no_internal_ticket"], "{}", ran.stdout);

    let comment = read(root.join("out/comment.md"));
    let first = comment.find("| where\\-is\\-my\\-order | contains |");
    let third = comment.find("| opening\\-hours | contains |");
    assert!(first.is_some() && first < third, "{comment}");
    let length = comment.find("- length · parameters changed");
    let ticket = comment.find("- no\\_internal\\_ticket · parameters changed");
    assert!(length.is_some() && length < ticket, "{comment}");

    let ran = digline_env(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--json",
        ],
        &[],
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let listed: Vec<(String, String)> = json["not_in_run"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["case_id"].as_str().unwrap().to_string(),
                v["assertion"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(listed, expected);
    let json_rules: Vec<&str> = json["rule_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["check"].as_str().unwrap())
        .collect();
    assert_eq!(json_rules, ["length", "no_internal_ticket"]);
}

/// The missing verdicts of `coverage_and_rule_lists_come_in_suite_order`,
/// in suite order.
fn not_in_run_order() -> Vec<(String, String)> {
    let mut out = Vec::new();
    // `refund-window` is suspended in the quickstart: no verdicts.
    for case in ["how-do-i-return"] {
        for check in ["length", "no_internal_ticket"] {
            out.push((case.to_string(), check.to_string()));
        }
    }
    for case in ["where-is-my-order", "opening-hours"] {
        for check in QUICKSTART_CHECKS {
            out.push((case.to_string(), check.to_string()));
        }
    }
    out
}

#[test]
fn a_parameter_edit_is_spelled_from_the_base_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    edit(&root.join("suite.toml"), "maximum = 40", "maximum = 50");
    edit(&root.join("suite.toml"), "max_ms = 1500", "max_ms = 1000");
    git(root, &["commit", "-q", "-am", "the pull request"]);
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD^1"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(
            "\nRules changed in this pull request:\n  length · maximum 40 → 50 · loosened\n  latency_budget · max_ms 1500 → 1000 · tightened\n\n"
        ),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("- length · maximum 40 → 50 · loosened\n"),
        "{comment}"
    );

    // Without a base ref, the edit is named by its check ids.
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(
            "\nRules changed in this pull request:\n  length · parameters changed (check id c2d7c80333b6c0ad → "
        ),
        "{}",
        ran.stdout
    );
}

/// The Action's steps, run by `.ci/runner-harness.py base` with `docker`
/// running this digline binary, in the clone at `root`; the event names
/// `base_sha` as the pull request's base.
fn action_job(root: &Path, base_sha: &str, extra: &[&str]) -> crate::util::Ran {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new("python3");
    cmd.arg(repo.join(".ci/runner-harness.py"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_digline"))
        .arg("--action")
        .arg(repo.join("action.yml"))
        .arg("base")
        .arg("--workspace")
        .arg(root)
        .args(["--base-sha", base_sha])
        .args(extra)
        .current_dir(root);
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_") || k.starts_with("DIGLINE_") || k == "RUNNER_TEMP" {
            cmd.env_remove(k);
        }
    }
    crate::util::Ran::from(cmd.output().expect("python3 runs the runner harness"))
}

#[test]
fn the_action_reads_the_event_base_and_says_baseline_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (base, _server) = replaced_baseline_repo(root);
    // The event's base: the pull request re-promoted the baseline.
    let ran = action_job(root, &base, &["--expect-changed", "true"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    // A base the clone does not hold reads unknown, never false.
    let absent = "0123456789abcdef0123456789abcdef01234567";
    let ran = action_job(root, absent, &["--expect-changed", "unknown"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains(&format!("`git fetch --depth=1 origin {absent}`")),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
    // The base-ref input names the base: HEAD holds the same baseline.
    let ran = action_job(
        root,
        &base,
        &["--base-ref", "HEAD", "--expect-changed", "false"],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

#[test]
fn a_bare_branch_name_reads_the_remote_tracking_branch_and_refusals_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let origin = dir.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    let (base, server) = replaced_baseline_repo(&origin);
    git(&origin, &["branch", "base-branch", &base]);
    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            &format!("file://{}", origin.display()),
            "clone",
        ],
    );
    set_port(&clone.join("suite.toml"), server.port);
    let runs = origin.join(".digline/quickstart/runs/support");
    let into = clone.join(".digline/quickstart/runs/support");
    std::fs::create_dir_all(&into).unwrap();
    crate::util::copy_files(&runs, &into);
    let gate = |base_ref: &str| {
        let mut args = GATE.to_vec();
        args.extend(["--run", "latest", "--base-ref", base_ref]);
        digline_env(&clone, &args, &[])
    };
    // Only origin/base-branch exists in the clone, as in CI.
    let ran = gate("base-branch");
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.starts_with(REPLACED), "{}", ran.stdout);
    assert_eq!(outcome(&clone)["baseline_changed"], true);
    // A name nowhere in the clone: fetch it, not `fetch-depth: 2`.
    let ran = gate("no-such-branch");
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("the base ref no-such-branch names no commit, branch or tag in this clone, nor origin/no-such-branch: fetch the base branch before the gate (`git fetch --depth=1 origin no-such-branch`), or name the base commit by its sha"),
        "{}",
        ran.stderr
    );
    // A tree is not a commit.
    let ran = gate("HEAD^{tree}");
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("the base ref HEAD^{tree} names a tree, not a commit: name the pull request's base commit (its sha, a branch such as origin/main, or HEAD^1)"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("fetch-depth"), "{}", ran.stderr);
}

#[test]
fn line_ends_written_by_gitattributes_do_not_replace_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitattributes"), "*.json text eol=crlf\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    // A fresh checkout writes CR LF into the working copy.
    let baseline = root.join(".digline/quickstart/baselines/support.json");
    std::fs::remove_file(&baseline).unwrap();
    git(root, &["checkout", "--", "."]);
    assert!(read(&baseline).contains("\r\n"), "the checkout wrote CR LF");
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(!ran.stdout.contains("replaces"), "{}", ran.stdout);
    assert_eq!(outcome(root)["baseline_changed"], false);
}

/// A quickstart repository whose base commit holds the approved baseline;
/// `change` then edits the working copy into the pull request's commit.
pub(crate) fn base_then(root: &Path, change: impl FnOnce(&Path)) -> crate::util::Stub {
    let server = project(root);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    change(root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "the pull request"]);
    server
}

pub(crate) fn gate_against_base(root: &Path) -> crate::util::Ran {
    let mut args = GATE.to_vec();
    args.extend(["--base-ref", "HEAD^1"]);
    digline_env(root, &args, &[])
}

#[test]
fn target_changes_are_itemized_with_endpoints_and_headers_withheld() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = base_then(root, |root| {
        let suite = read(root.join("suite.toml"));
        // Another server that answers well (here: the same stub by another
        // name), a header, and CI tokens allowed.
        let suite = suite
            .replacen("http://127.0.0.1:", "http://localhost:", 1)
            .replacen(
                "timeout = 10\n",
                "timeout = 60\nallow_ci_tokens = [\"GITHUB_TOKEN\"]\nheaders = { X-Grade = \"lenient\" }\n",
                1,
            );
        std::fs::write(root.join("suite.toml"), suite).unwrap();
    });
    let ran = gate_against_base(root);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        !ran.stdout
            .contains("The suite is unchanged from the reference"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("This pull request changes what is evaluated (4 itemized below)."),
        "{}",
        ran.stdout
    );
    for line in [
        "\nWhat this pull request changes about the evaluation:\n",
        "  [target] allow_ci_tokens: — → [\"GITHUB_TOKEN\"] · loosened\n",
        "  [target] headers.X-Grade added\n",
        "  [target] timeout: 10 → 60 · loosened\n",
        "  [target] url changed (the value is withheld)\n",
    ] {
        assert!(ran.stdout.contains(line), "{line:?} in {}", ran.stdout);
    }
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("#### What this pull request changes about the evaluation"),
        "{comment}"
    );
    for file in ["out/comment.md", "out/summary.md", "out/outcome.json"] {
        let text = read(root.join(file));
        assert!(!text.contains("localhost"), "{file}: {text}");
        assert!(!text.contains("lenient"), "{file}: {text}");
    }
    assert_eq!(outcome(root)["evaluation_changes"], 4);
    let report = read(root.join("out/report.html"));
    assert!(
        report.contains("What this pull request changes about the evaluation"),
        "{report}"
    );
    assert!(
        report.contains("[target] url changed (the value is withheld)"),
        "{report}"
    );
}

#[test]
fn a_reworded_case_and_lower_agreement_are_itemized() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let server = project(root);
    edit(
        &root.join("suite.toml"),
        "cases = \"cases.json\"\n",
        "cases = \"cases.json\"\nsamples = 3\nmin_agreement = \"3/3\"\n",
    );
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    edit(&root.join("suite.toml"), "\"3/3\"", "\"1/3\"");
    edit(
        &root.join("cases.json"),
        "How do I return a damaged kettle?",
        "How do I return a kettle I like?",
    );
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "pr"]);
    let _server = server;
    let ran = gate_against_base(root);
    assert!(
        ran.stdout
            .contains("  [suite] min_agreement: 3/3 → 1/3 · loosened\n"),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
    assert!(
        ran.stdout
            .contains("  case how-do-i-return: vars changed\n"),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("- case how\\-do\\-i\\-return\\: vars changed"),
        "{comment}"
    );
}

#[test]
fn a_replaced_baseline_lists_the_loosened_rules_and_dropped_cases_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = base_then(root, |root| {
        edit(
            &root.join("suite.toml"),
            "max_usd = 0.01\n",
            "max_usd = 0.01\nthreshold = 0.3\n",
        );
        delete_case(root, "opening-hours");
        crate::verdict_files::promote(root);
    });
    let ran = gate_against_base(root);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with(
            "This pull request replaces the approved reference. Against the approved reference it replaces, nothing got worse. Against it, this pull request also loosens 1 rule and drops 6 checks."
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "\nLoosened or dropped against the approved reference this pull request replaces:\n— · cost_budget · rule loosened: threshold 0.500000 → 0.300000 · loosened\n"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("opening-hours · contains · in the approved reference, not in this run\n"),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains(
            "| opening\\-hours | contains | in the approved reference\\, not in this run |"
        ),
        "{comment}"
    );
}

#[test]
fn renaming_the_suite_still_compares_with_the_approved_reference() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = base_then(root, |root| {
        edit(
            &root.join("suite.toml"),
            "name = \"support\"",
            "name = \"support2\"",
        );
        let baselines = root.join(".digline/quickstart/baselines");
        std::fs::remove_file(baselines.join("support.json")).unwrap();
        break_return_answer(root);
        crate::verdict_files::promote(root);
    });
    let ran = gate_against_base(root);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.starts_with(REPLACED), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("  [suite] name: support → support2\n"),
        "{}",
        ran.stdout
    );
}

/// Move the suite and its `.digline/` into `sub/` (the gate then runs with
/// `--root sub`).
fn move_into_sub(root: &Path) {
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    for name in ["suite.toml", "cases.json", ".digline"] {
        std::fs::rename(root.join(name), sub.join(name)).unwrap();
    }
}

/// The pull request moves the store into `sub/`; `change` runs before the
/// commit.
fn moved_store_then(root: &Path, change: impl FnOnce(&Path)) -> crate::util::Stub {
    base_then(root, |root| {
        move_into_sub(root);
        change(root);
    })
}

/// The gate in `sub/` against `HEAD^1`: exit 0, the move from the top
/// itemized, `baseline_changed` as given.
fn gated_in_sub(root: &Path, replaced: bool) -> crate::util::Ran {
    let ran = digline_env(root, &IN_SUB, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("  store root (the folder holding .digline): . → sub\n"),
        "{}",
        ran.stdout
    );
    assert_eq!(outcome(root)["baseline_changed"], replaced);
    ran
}

const IN_SUB: [&str; 11] = [
    "gate",
    "--suite",
    "sub/suite.toml",
    "--root",
    "sub",
    "--out",
    "out",
    "--publish",
    "none",
    "--base-ref",
    "HEAD^1",
];

#[test]
fn moving_the_store_still_compares_with_the_approved_reference_at_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = moved_store_then(root, |root| {
        break_return_answer(root);
        for args in [
            &["run", "--suite", "sub/suite.toml", "--root", "sub"][..],
            &[
                "promote",
                "--suite",
                "sub/suite.toml",
                "--root",
                "sub",
                "--run",
                "latest",
            ],
        ] {
            let ran = digline_env(root, args, &[]);
            assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
        }
    });
    let ran = gated_in_sub(root, true);
    assert!(ran.stdout.starts_with(REPLACED), "{}", ran.stdout);
    assert!(
        ran.stdout.contains(
            "\nWorse than the approved reference this pull request replaces:\nhow-do-i-return · contains · pass 1.000000 → fail 0.000000\n"
        ),
        "{}",
        ran.stdout
    );
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("store root \\(the folder holding \\.digline\\)\\: \\. → sub"),
        "{comment}"
    );
}

#[test]
fn a_store_moved_whole_is_itemized_and_not_a_replacement() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = moved_store_then(root, |_| {});
    let ran = gated_in_sub(root, false);
    assert!(!ran.stdout.contains("replaces"), "{}", ran.stdout);
}

#[test]
fn among_several_stores_at_the_base_the_one_above_the_suite_is_the_approved_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = project(root);
    // Another project's store at the base, for a suite of the same name.
    let other = root.join("other/.digline/quickstart/baselines");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(
        root.join(".digline/quickstart/baselines/support.json"),
        other.join("support.json"),
    )
    .unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    move_into_sub(root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "the pull request"]);
    gated_in_sub(root, false);
}

#[test]
fn an_edited_order_line_cannot_pin_a_forged_green_comment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_server, marker) = red_project(root);
    for pin in ["9999", "9999-12-31T23:59:59+00:00"] {
        let fake = fake_github(Mode::Normal);
        let forged = format!("{marker}\n<!-- digline-order {pin} -->\n**Nothing got worse.**");
        let id = fake.add_by(None, &forged);
        let vars = actions_env(root, &fake);
        let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        let comments = fake.comments();
        assert_eq!(comments.len(), 1, "{comments:?}");
        assert_eq!(comments[0].0, id);
        assert!(
            comments[0]
                .1
                .contains("**1 check got worse compared with the reference\\.**"),
            "{pin}: {}",
            comments[0].1
        );
    }
}

#[test]
fn a_failing_identity_lookup_touches_no_comment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_server, marker) = red_project(root);
    // Another workflow's comments, written as the Actions bot.
    let theirs = format!("{marker}\nanother workflow's comment");
    let fake = fake_github(Mode::IdentityFails);
    let a = fake.add_by(None, &theirs);
    let b = fake.add_by(None, &theirs);
    let vars = actions_env(root, &fake);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        fake.comments(),
        vec![(a, theirs.clone()), (b, theirs.clone())],
        "nothing edited, deleted or added"
    );
    let said = format!("{}{}", ran.stdout, ran.stderr);
    assert!(
        said.contains("GitHub did not say whose token this is (GET /user: 502"),
        "{said}"
    );
    // GitLab: a 404 on /user is not the token's scope.
    let lab = fake_gitlab(Mode::IdentityFails);
    let planted = lab.add_by(None, &theirs);
    let vars = gitlab_vars(&lab);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(lab.comments(), vec![(planted, theirs)]);
    assert!(
        ran.stderr
            .contains("GitLab did not say whose token this is (GET /user: 404"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("api scope"), "{}", ran.stderr);
}
