//! `digline gate` and `digline publish` end to end: the quickstart's exit
//! codes through the gate, no baseline → 64, the files in `--out`, the
//! comment edited in place on a fake GitHub across pages, two suites two
//! comments, 403/422/rate limits as warnings that never change the code,
//! GitLab notes, injection made inert, the payload boundary, and the token
//! never printed.

use std::path::Path;
use std::process::Command;

use crate::forges::{fake_github, fake_gitlab, Fake, Mode};
use crate::util::{copy_files, repo, set_port, stub, Ran};

pub(crate) const GH_TOKEN: &str = "ghs_SECRET_token_1234";
pub(crate) const GL_TOKEN: &str = "glpat-SECRET-5678";

/// A copy of `examples/quickstart` with its committed baseline (or none).
pub(crate) fn quickstart(root: &Path, baseline: bool) {
    let src = repo().join("examples/quickstart");
    copy_files(&src, root);
    if baseline {
        let b = root.join(".digline/quickstart/baselines");
        std::fs::create_dir_all(&b).unwrap();
        copy_files(&src.join(".digline/quickstart/baselines"), &b);
    }
}

/// Run digline in `dir` with a clean CI environment plus `vars`.
pub(crate) fn digline_env(dir: &Path, args: &[&str], vars: &[(&str, String)]) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_digline"));
    cmd.args(args).current_dir(dir).env_remove("DIGLINE_LOG");
    for name in crate::util::CI_VARIABLES {
        cmd.env_remove(name);
    }
    for (k, _) in std::env::vars() {
        if k.starts_with("GITHUB_")
            || k.starts_with("CI_")
            || k.starts_with("GITLAB")
            || k == "RUNNER_TEMP"
            || k.starts_with("DIGLINE_")
        {
            cmd.env_remove(k);
        }
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("digline runs").into()
}

/// A GitHub Actions environment for PR 7 of o/r against `fake`.
pub(crate) fn actions_env(root: &Path, fake: &Fake) -> Vec<(&'static str, String)> {
    let event = root.join("event.json");
    std::fs::write(
        &event,
        r#"{"action":"synchronize","pull_request":{"number":7}}"#,
    )
    .unwrap();
    vec![
        ("GITHUB_ACTIONS", "true".into()),
        ("GITHUB_REPOSITORY", "o/r".into()),
        ("GITHUB_EVENT_PATH", event.display().to_string()),
        ("GITHUB_TOKEN", GH_TOKEN.into()),
        ("GITHUB_API_URL", fake.url()),
        (
            "GITHUB_OUTPUT",
            root.join("gh-output").display().to_string(),
        ),
        (
            "GITHUB_STEP_SUMMARY",
            root.join("gh-summary").display().to_string(),
        ),
        (
            "RUNNER_TEMP",
            root.join("runner-temp").display().to_string(),
        ),
    ]
}

fn break_return_answer(root: &Path) {
    let answers = std::fs::read_to_string(root.join("answers.json")).unwrap();
    let line = answers
        .lines()
        .find(|l| l.contains("\"how-do-i-return\""))
        .unwrap();
    let changed = answers.replace(line, &line.replace(" — Northwind Support", ""));
    std::fs::write(root.join("answers.json"), changed).unwrap();
}

/// Validate a JUnit file against `tests/schemas/junit.xsd` (the shape
/// GitLab and other CI servers read) with `xmllint`. `.ci/run` installs it;
/// elsewhere a missing `xmllint` skips loudly, and under `CI=true` fails.
pub(crate) fn validate_junit(path: &Path) {
    let schema = repo().join("tests/schemas/junit.xsd");
    match Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(path)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "junit.xml does not validate: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("xmllint is missing in CI: .ci/run installs libxml2-utils")
        }
        Err(_) => eprintln!("SKIPPED: xmllint is not installed; junit.xml was not schema-checked"),
    }
}

pub(crate) fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn gate_exits_0_then_1_then_2_on_the_quickstart() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let args = [
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        "out",
        "--publish",
        "none",
    ];

    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with("Nothing got worse"),
        "{}",
        ran.stdout
    );
    let outcome: serde_json::Value =
        serde_json::from_str(&read(root.join("out/outcome.json"))).unwrap();
    assert_eq!(outcome["exit_code"], 0);
    assert_eq!(outcome["outcome"], "nothing_got_worse");
    assert!(outcome["baseline_key"].is_string());
    assert!(outcome["paths"]["report"]
        .as_str()
        .unwrap()
        .ends_with("report.html"));
    for f in ["comment.md", "summary.md", "junit.xml", "report.html"] {
        assert!(root.join("out").join(f).exists(), "{f}");
    }

    break_return_answer(root);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let comment = read(root.join("out/comment.md"));
    assert!(comment.starts_with("<!-- digline-gate "), "{comment}");
    assert!(
        comment.contains("**1 check got worse compared with the reference\\.**"),
        "{comment}"
    );
    assert!(
        comment.contains("| how\\-do\\-i\\-return | contains | pass 1.000000 → fail 0.000000 |"),
        "{comment}"
    );
    let junit = read(root.join("out/junit.xml"));
    assert!(junit.contains("<failure"), "{junit}");
    assert!(junit.contains("regressed"), "{junit}");
    let report = quick_junit::Report::deserialize_from_str(&junit).expect("junit.xml parses");
    assert_eq!(report.test_suites.len(), 1);
    assert_eq!(report.test_suites[0].failures, 1);
    assert!(junit.contains("<skipped"), "the suspended case: {junit}");
    validate_junit(&root.join("out/junit.xml"));

    // A case the target cannot answer: could not be judged (the regression
    // fixed first, so 2 is not outranked by 1).
    let mut answers: serde_json::Value =
        serde_json::from_str(&read(repo().join("examples/quickstart/answers.json"))).unwrap();
    answers["opening-hours"]["status"] = serde_json::json!(500);
    std::fs::write(root.join("answers.json"), answers.to_string()).unwrap();
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    let comment = read(root.join("out/comment.md"));
    assert!(
        comment.contains("#### What could not be judged"),
        "{comment}"
    );
    assert!(
        comment.contains("The target at 127\\.0\\.0\\.1\\:"),
        "the cause names the endpoint: {comment}"
    );
    assert!(
        ran.stdout
            .starts_with("1 case could not be judged, so this run has no verdict."),
        "exit 2 never reads green: {}",
        ran.stdout
    );
    assert!(read(root.join("out/junit.xml")).contains("<error"));
    validate_junit(&root.join("out/junit.xml"));
}

#[test]
fn no_baseline_renders_the_run_and_exits_64() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, false);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("digline promote --suite suite.toml"),
        "{}",
        ran.stderr
    );
    let out = root.join("runner-temp/digline");
    let outcome: serde_json::Value = serde_json::from_str(&read(out.join("outcome.json"))).unwrap();
    assert_eq!(outcome["no_baseline"], true);
    assert_eq!(outcome["outcome"], "refused");
    assert!(outcome["baseline_key"].is_null());
    // Published on its own: the comment names the path looked for and the command.
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0].1.contains("**There is no baseline to compare with\\, so there is no verdict\\.** digline looked for it at `"),
        "{}",
        comments[0].1
    );
    assert!(comments[0].1.contains("digline promote"));
    assert!(
        ran.stdout
            .contains("::error title=digline refused the request (exit 64)::"),
        "{}",
        ran.stdout
    );
    assert!(read(root.join("gh-output")).contains("exit-code<<DIGLINE_EOF\n64\n"));
}

#[test]
fn the_comment_is_found_across_pages_and_edited_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    break_return_answer(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let fake = fake_github(Mode::Normal);
    fake.fill(4);
    let vars = actions_env(root, &fake);

    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    fake.fill(5); // ours is now on page 2 of 4
    let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let ours: Vec<_> = fake
        .comments()
        .into_iter()
        .filter(|(_, b)| b.starts_with("<!-- digline-gate"))
        .collect();
    assert_eq!(ours.len(), 1, "a second push edits the same comment");
    let seen = fake.seen();
    assert!(
        seen.iter().any(|s| s.url.contains("page=3")),
        "every page was read: {seen:?}"
    );
    assert_eq!(
        seen.iter()
            .filter(|s| s.method == "POST" && s.url.ends_with("/issues/7/comments"))
            .count(),
        1
    );
    assert!(seen
        .iter()
        .any(|s| s.url.starts_with("/repos/o/r/issues/comments/")));

    // A second suite in the same PR keeps its own comment.
    let other = read(root.join("suite.toml")).replace("name = \"support\"", "name = \"billing\"");
    std::fs::write(root.join("billing.toml"), other).unwrap();
    let ran = digline_env(
        root,
        &["gate", "--suite", "billing.toml", "--publish", "github"],
        &vars,
    );
    assert_eq!(ran.code, 64, "no baseline for billing: {}", ran.stderr);
    let ours = fake
        .comments()
        .into_iter()
        .filter(|(_, b)| b.starts_with("<!-- digline-gate"))
        .count();
    assert_eq!(ours, 2);

    // Actions outputs, summary and the one annotation.
    let outputs = read(root.join("gh-output"));
    for name in ["exit-code", "headline", "run-key", "report", "comment-url"] {
        assert!(outputs.contains(&format!("{name}<<")), "{name}: {outputs}");
    }
    assert!(outputs.contains("https://github.com/o/r/pull/7#issuecomment-"));
    assert!(read(root.join("gh-summary"))
        .contains("**1 check got worse compared with the reference\\.**"));
    assert_eq!(
        ran.stdout.matches("::error title=").count(),
        1,
        "{}",
        ran.stdout
    );

    // The token is sent, never printed.
    assert!(seen
        .iter()
        .all(|s| s.auth.as_deref() == Some(&format!("Bearer {GH_TOKEN}")[..])));
    for text in [
        ran.stdout,
        ran.stderr,
        outputs,
        read(root.join("gh-summary")),
    ] {
        assert!(!text.contains(GH_TOKEN));
    }
}

#[test]
fn a_403_is_one_warning_and_the_exit_code_stands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    break_return_answer(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    for (mode, says) in [
        (Mode::Forbidden, "pull-requests: write"),
        (Mode::Unprocessable, "refused the body (422"),
    ] {
        let fake = fake_github(mode);
        let vars = actions_env(root, &fake);
        let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        let warnings: Vec<_> = ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("::warning"))
            .collect();
        assert_eq!(warnings.len(), 1, "{}", ran.stdout);
        assert!(warnings[0].contains(says), "{}", warnings[0]);
        assert!(!ran.stdout.contains(GH_TOKEN) && !ran.stderr.contains(GH_TOKEN));
    }
    // A secondary rate limit: waited out, then posted.
    let fake = fake_github(Mode::RateLimitedOnce);
    let vars = actions_env(root, &fake);
    let ran = digline_env(
        root,
        &["gate", "--suite", "suite.toml", "--run", "latest"],
        &vars,
    );
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(!ran.stdout.contains("::warning"), "{}", ran.stdout);
    assert_eq!(fake.comments().len(), 1);
}

#[test]
fn publish_posts_from_the_outcome_file_with_the_report_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    break_return_answer(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let ran = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--out",
            "o",
            "--publish",
            "none",
        ],
        &[],
    );
    assert_eq!(ran.code, 1);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(
        root,
        &[
            "publish",
            "--outcome",
            "o/outcome.json",
            "--report-url",
            "https://github.com/o/r/actions/runs/1/artifacts/9",
        ],
        &vars,
    );
    assert_eq!(
        ran.code, 0,
        "publishing is never a verdict: {}{}",
        ran.stdout, ran.stderr
    );
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0]
            .1
            .contains("(https://github.com/o/r/actions/runs/1/artifacts/9)"),
        "{}",
        comments[0].1
    );
    assert!(
        ran.stdout
            .contains("::error title=digline%3A something got worse::"),
        "{}",
        ran.stdout
    );
}

#[test]
fn gitlab_notes_are_created_then_updated_and_the_job_token_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    break_return_answer(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let fake = fake_gitlab(Mode::Normal);
    fake.fill(4);
    let vars = vec![
        ("GITLAB_CI", "true".to_string()),
        ("CI_API_V4_URL", format!("{}/api/v4", fake.url())),
        ("CI_PROJECT_ID", "group/proj".into()),
        ("CI_MERGE_REQUEST_IID", "5".into()),
        (
            "CI_JOB_URL",
            "https://gitlab.example/group/proj/-/jobs/42".into(),
        ),
        ("CI_PROJECT_URL", "https://gitlab.example/group/proj".into()),
        ("CI_JOB_TOKEN", "job-token".into()),
        ("GITLAB_TOKEN", GL_TOKEN.into()),
    ];
    for _ in 0..2 {
        let ran = digline_env(root, &["gate", "--suite", "suite.toml"], &vars);
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        assert!(!ran.stderr.contains("warning"), "{}", ran.stderr);
        assert!(!ran.stdout.contains(GL_TOKEN) && !ran.stderr.contains(GL_TOKEN));
    }
    let ours: Vec<_> = fake
        .comments()
        .into_iter()
        .filter(|(_, b)| b.starts_with("<!-- digline-gate"))
        .collect();
    assert_eq!(ours.len(), 1, "{:?}", fake.seen());
    assert!(
        ours[0]
            .1
            .contains("https://gitlab.example/group/proj/-/jobs/42/artifacts/browse/digline-gate"),
        "{}",
        ours[0].1
    );
    let seen = fake.seen();
    assert!(seen.iter().any(|s| s.method == "PUT"));
    assert!(seen.iter().all(|s| s.auth.as_deref() == Some(GL_TOKEN)));

    // Only CI_JOB_TOKEN: the exact sentence, the code unchanged.
    let only_job: Vec<_> = vars
        .iter()
        .filter(|(k, _)| *k != "GITLAB_TOKEN")
        .cloned()
        .collect();
    let ran = digline_env(
        root,
        &["gate", "--suite", "suite.toml", "--run", "latest"],
        &only_job,
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains(&format!(
            "digline: warning: {}",
            digline::forge::JOB_TOKEN_SENTENCE
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn injection_is_inert_and_the_payload_stays_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    // A hostile case id (a line break is refused at load, see refusals.rs), a var, an output and a reason that carry payload markers.
    let evil = "evil](https://x.test) <img src=x> @octocat %0A ::error::pwned |";
    let cases = serde_json::json!([
        {"id": "where-is-my-order", "vars": {"question": "PAYLOAD-VAR-c0ffee"}},
        {"id": evil, "vars": {"question": "PAYLOAD-VAR-c0ffee"}},
    ]);
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
    // The reference: every case passes.
    std::fs::write(
        root.join("answers.json"),
        r#"{"*": {"answer": "Fine. — Northwind Support", "cost_usd": 0.0001}}"#,
    )
    .unwrap();
    assert_eq!(
        digline_env(root, &["run", "--suite", "suite.toml"], &[]).code,
        0
    );
    assert_eq!(
        digline_env(
            root,
            &["promote", "--suite", "suite.toml", "--run", "latest"],
            &[]
        )
        .code,
        0
    );
    let answers = serde_json::json!({
        "where-is-my-order": {"answer": "PAYLOAD-OUTPUT-beef — Northwind Support INT-4242", "cost_usd": 0.0004},
        "*": {"answer": "PAYLOAD-OUTPUT-beef as an AI INT-99", "cost_usd": 0.0001},
    });
    std::fs::write(root.join("answers.json"), answers.to_string()).unwrap();
    let ran = digline_env(
        root,
        &[
            "run",
            "--suite",
            "suite.toml",
            "--meta",
            "build=PAYLOAD-META-feed",
        ],
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(
        root,
        &["gate", "--suite", "suite.toml", "--run", "latest"],
        &vars,
    );
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);

    // Workflow commands: the terminal text is fenced by stop-commands, and
    // every command line we emit is one escaped line.
    let lines: Vec<&str> = ran.stdout.lines().collect();
    let stop = lines
        .iter()
        .position(|l| l.starts_with("::stop-commands::"))
        .unwrap();
    let token = lines[stop].trim_start_matches("::stop-commands::");
    assert!(token.len() >= 32);
    let resume = lines
        .iter()
        .position(|l| *l == format!("::{token}::"))
        .unwrap();
    for l in &lines[..stop] {
        assert!(!l.starts_with("::"), "{l}");
    }
    for l in &lines[resume + 1..] {
        assert!(!l.contains("::error::pwned"), "{l}");
    }
    assert!(!read(root.join("gh-output")).contains("\n::error"));

    // Markdown: the id is escaped in the comment.
    let comment = fake.comments().pop().unwrap().1;
    assert!(
        !comment.contains("](https://x.test)")
            && !comment.contains("<img")
            && !comment.contains("@octocat"),
        "{comment}"
    );
    assert!(comment.contains("evil\\]\\(https\\:"), "{comment}");

    // The payload boundary: nothing of outputs, reasons, vars or metadata.
    let out = root.join("runner-temp/digline");
    let texts = [
        comment,
        read(root.join("gh-summary")),
        read(root.join("gh-output")),
        read(out.join("junit.xml")),
        read(out.join("outcome.json")),
        read(out.join("comment.md")),
        ran.stdout.clone(),
    ];
    for text in &texts {
        for payload in [
            "PAYLOAD-VAR",
            "PAYLOAD-OUTPUT",
            "PAYLOAD-META",
            "INT-4242",
            "INT-99",
            "as an AI",
        ] {
            assert!(!text.contains(payload), "{payload} leaked: {text}");
        }
    }
}

#[test]
fn a_two_thousand_case_regression_stays_under_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, false);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let cases: Vec<_> = (0..2000)
        .map(|i| serde_json::json!({"id": format!("case-{i:04}-<b>|x|</b>"), "vars": {"question": "q"}}))
        .collect();
    std::fs::write(
        root.join("cases.json"),
        serde_json::Value::Array(cases).to_string(),
    )
    .unwrap();
    let ran = digline_env(
        root,
        &["run", "--suite", "suite.toml", "--concurrency", "32"],
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let ran = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    std::fs::write(
        root.join("answers.json"),
        r#"{"*": {"answer": "no signature", "cost_usd": 0.0001}}"#,
    )
    .unwrap();
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(
        root,
        &["gate", "--suite", "suite.toml", "--concurrency", "32"],
        &vars,
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(!ran.stdout.contains("::warning"), "{}", ran.stdout);
    let comment = fake.comments().pop().unwrap().1;
    assert!(comment.chars().count() <= 65_536, "{}", comment.len());
    assert!(
        comment.contains("2000 checks got worse"),
        "{}",
        &comment[..400]
    );
    assert!(comment.contains("more — see the report"));
}

/// Issue 17: a forge's wait is bounded by `--max-wait` from the command
/// line. A fake GitHub or GitLab answering 429 (or GitHub's 403 naming a
/// secondary rate limit) with `Retry-After: 86400` to `publish` and `gate`
/// makes the call fail at once with the sentence naming the asked wait and
/// the limit — the verdict's code unchanged — in bounded time; a wait
/// within the limit is waited out and the comment is written.
#[test]
fn a_forges_wait_is_bounded_by_max_wait_from_the_command_line() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart(root, true);
    break_return_answer(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let out = [
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        "o",
        "--publish",
        "none",
    ];
    assert_eq!(digline_env(root, &out, &[]).code, 1);
    let publish = ["publish", "--outcome", "o/outcome.json"];
    let refused = |forge: &str, asked: u32, limit: u32| {
        format!(
            "{forge}'s rate limit asked for a wait of {asked} s, longer than the longest wait \
             allowed (--max-wait {limit} s), so digline did not wait"
        )
    };
    let day = |status| Mode::Throttled {
        status,
        retry_after: 86_400,
        times: u32::MAX,
    };

    // GitHub, 429 and the secondary-rate-limit 403: `publish` and `gate`.
    for (status, args) in [
        (429, &publish[..]),
        (
            403,
            &["gate", "--suite", "suite.toml", "--run", "latest"][..],
        ),
    ] {
        let fake = fake_github(day(status));
        let vars = actions_env(root, &fake);
        let started = Instant::now();
        let ran = digline_env(root, args, &vars);
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(20),
            "{status} {args:?}: {took:?}"
        );
        // `publish` says 0 (it published what it could), `gate` the verdict.
        let code = if args[0] == "publish" { 0 } else { 1 };
        assert_eq!(
            ran.code, code,
            "{status} {args:?}: {}{}",
            ran.stdout, ran.stderr
        );
        let warnings: Vec<&str> = ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("::warning"))
            .collect();
        assert_eq!(
            warnings,
            [format!(
                "::warning title=digline%3A the comment was not posted::the comment was not \
                 posted: {}; the verdict is unchanged",
                refused("GitHub", 86_400, 120)
            )],
            "{status} {args:?}"
        );
        let seen: Vec<String> = fake
            .seen()
            .iter()
            .map(|s| format!("{} {}", s.method, s.url))
            .collect();
        // The comments were asked for once, never again.
        assert_eq!(
            seen,
            ["GET /user", "GET /repos/o/r/issues/7/comments?per_page=100"],
            "{status} {args:?}"
        );
        assert!(fake.comments().is_empty());
    }

    // GitLab, with a shorter limit from the flag.
    let gitlab = |fake: &Fake| {
        vec![
            ("GITLAB_CI", "true".to_string()),
            ("CI_API_V4_URL", format!("{}/api/v4", fake.url())),
            ("CI_PROJECT_ID", "group/proj".into()),
            ("CI_MERGE_REQUEST_IID", "5".into()),
            ("GITLAB_TOKEN", GL_TOKEN.into()),
        ]
    };
    let fake = fake_gitlab(Mode::Throttled {
        status: 429,
        retry_after: 10,
        times: u32::MAX,
    });
    let started = Instant::now();
    let ran = digline_env(
        root,
        &[&publish[..], &["--publish", "gitlab", "--max-wait", "5"]].concat(),
        &gitlab(&fake),
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "digline: warning: the comment was not posted: {}; the verdict is unchanged\n",
            refused("GitLab", 10, 5)
        )
    );
    assert_eq!(fake.seen().len(), 1, "asked once, never again");
    assert!(fake.comments().is_empty());

    // A short wait is waited out, then the comment is written.
    let fake = fake_github(Mode::Throttled {
        status: 429,
        retry_after: 2,
        times: 1,
    });
    let vars = actions_env(root, &fake);
    let started = Instant::now();
    let ran = digline_env(root, &publish, &vars);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(fake.comments().len(), 1);
    assert!(!ran.stdout.contains("::warning"), "{}", ran.stdout);
    let fake = fake_gitlab(Mode::Throttled {
        status: 429,
        retry_after: 1,
        times: 1,
    });
    let ran = digline_env(
        root,
        &[&publish[..], &["--publish", "gitlab"]].concat(),
        &gitlab(&fake),
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.comments().len(), 1);
}
