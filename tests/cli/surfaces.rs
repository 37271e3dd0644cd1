//! What a reviewer reads, in full: the gate's terminal text, comment, job
//! summary and JUnit for pass, worse, could-not-be-judged (one case per
//! cause category), no baseline and refused, in English and German, as
//! `insta` snapshots of the whole text (`tests/cli/snapshots/`). Every
//! Markdown surface is rendered through Debian's `cmark-gfm` (the GFM
//! reference renderer) in the test: the report link must come out as an
//! `<a>`. A hostile store (bidi, zero-width, `@org/team`, `#1`,
//! `owner/repo#1`, ESC and BEL, `::error::` in ids and names) must leave no
//! mention or reference syntax, no control character and no workflow
//! command outside the stop-commands fence on any surface; a JUnit file is
//! read as GitLab reads it (the case in the name, a body in every failure
//! and error), validated against a Jenkins-style XSD, and stays under
//! GitLab's 30 MB at 100,000 cases. Rows are in suite order everywhere.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::forges::{fake_github, Mode};
use crate::gate::{actions_env, digline_env, read, validate_junit};
use crate::util::golden;

const REPORT_URL: &str = "https://example.test/o/r/actions/runs/1/artifacts/2";

/// A store in `root` holding the golden scenario's run (changed by `edit`)
/// and, with `baseline`, its promoted baseline; returns the run's key.
fn store(root: &Path, scenario: &str, baseline: bool, edit: impl Fn(&mut Value)) -> String {
    let s = golden("headlines").join(scenario);
    std::fs::copy(s.join("run-suite.toml"), root.join("suite.toml")).unwrap();
    std::fs::copy(s.join("run-cases.json"), root.join("cases.json")).unwrap();
    let keys: Value = serde_json::from_str(&read(s.join("keys.json"))).unwrap();
    let key = keys["run_key"].as_str().unwrap().to_string();
    let runs = root.join(".digline/gold/runs/support");
    std::fs::create_dir_all(&runs).unwrap();
    let mut run: Value = serde_json::from_str(&read(s.join("run.json"))).unwrap();
    edit(&mut run);
    std::fs::write(
        runs.join(format!("{key}.json")),
        serde_json::to_string_pretty(&run).unwrap(),
    )
    .unwrap();
    if baseline {
        let b = root.join(".digline/gold/baselines");
        std::fs::create_dir_all(&b).unwrap();
        std::fs::copy(s.join("baseline.json"), b.join("support.json")).unwrap();
    }
    key
}

/// One errored verdict with the reason a client writes.
fn errored(v: &mut Value, reason: &str) {
    v["status"] = json!("error");
    v["score"] = Value::Null;
    v["reason"] = json!(reason);
    v["metadata"] = json!({});
}

/// Reasons as the clients write them, one per cause category; each quotes
/// something only the system produced (`LEAK`), which must never surface.
const CAUSES: [(&str, &str, bool); 9] = [
    ("http-404", "target raised ValueError: 127.0.0.1:18950 could not be called: HTTP Error 404: Not Found (LEAK-a)", true),
    ("slow", "target raised ValueError: 127.0.0.1:18950 could not be called: timed out", true),
    ("refused", "target raised ValueError: 127.0.0.1:18950 could not be called: <urlopen error [Errno 111] Connection refused>", true),
    ("no-such-host", "target raised ValueError: nowhere.invalid could not be called: <urlopen error [Errno -2] Name or service not known>", true),
    ("not-json", "target raised ValueError: 127.0.0.1:18950 answered something that is not JSON: '<html>LEAK-b</html>'", true),
    ("no-answer-path", "target raised ValueError: cannot read 'data.answer': no 'answer' in LEAK-c, error", true),
    ("judge-garbled", "the judge's reply could not be read: the judge replied with no JSON object: 'LEAK-d'", false),
    ("judge-busy", "the judge could not be called: 127.0.0.1:9 could not be called: HTTP Error 429: Too Many Requests", false),
    ("check-itself", "expected is missing: equals cannot judge without an expected value", false),
];

/// The run of `01-nothing-changed` with one case per cause category (its
/// four cases, then five new ones).
fn unjudged(run: &mut Value) {
    let template = run["results"][0].clone();
    let results = run["results"].as_array_mut().unwrap();
    while results.len() < CAUSES.len() {
        results.push(template.clone());
    }
    // The first cases keep their ids (they pair with the baseline); the
    // others are new here.
    for (i, (result, (id, reason, whole_case))) in results.iter_mut().zip(CAUSES).enumerate() {
        if i >= 4 {
            result["case_id"] = json!(id);
        }
        let verdicts = result["verdicts"].as_array_mut().unwrap();
        let n = if whole_case { verdicts.len() } else { 1 };
        for v in verdicts.iter_mut().take(n) {
            errored(v, reason);
        }
    }
}

/// How long the failed calls of the `unjudged` run took, recorded beside it
/// as `run` records them (`.digline/<tenant>/timings/`): a target's failure
/// is said with its time; a judge's time (`judge-busy`) is not the target's
/// and is never said; `lost-password` has no record and is said without.
fn record_timings(root: &Path, key: &str) {
    let dir = root.join(".digline/gold/timings/runs/support");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{key}.json")),
        json!({"elapsed_ms": {
            "where-is-my-order": 12,
            "how-do-i-return": 30001,
            "opening-hours": 2,
            "not-json": 48,
            "no-answer-path": 51,
            "judge-busy": 7,
        }})
        .to_string(),
    )
    .unwrap();
}

/// Render Markdown as GitHub does (GFM: tables, autolinks), no raw HTML.
/// `None` (skipped loudly) when cmark-gfm is missing, a failure under
/// `CI=true` (`.ci/run` installs it).
pub(crate) fn gfm(markdown: &str) -> Option<String> {
    use std::io::Write;
    let child = Command::new("cmark-gfm")
        .args(["-e", "table", "-e", "autolink", "-e", "strikethrough"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("cmark-gfm is missing in CI: .ci/run installs it (apt-get install cmark-gfm)")
        }
        Err(_) => {
            eprintln!("SKIPPED: cmark-gfm is not installed; the Markdown was not rendered");
            return None;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    Some(String::from_utf8(out.stdout).unwrap())
}

/// Gate the stored run in `locale` (no publishing) and snapshot every
/// surface; returns (exit code, comment, stdout).
fn gate_and_snapshot(root: &Path, key: &str, name: &str, locale: &str) -> (i32, String, String) {
    let ran = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            key,
            "--out",
            "out",
            "--publish",
            "none",
            "--locale",
            locale,
            "--report-url",
            REPORT_URL,
        ],
        &[],
    );
    let out = root.join("out");
    let terminal = format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        ran.code, ran.stdout, ran.stderr
    );
    insta::assert_snapshot!(format!("{name}-{locale}-terminal"), terminal);
    let comment = read(out.join("comment.md"));
    let summary = read(out.join("summary.md"));
    let junit = read(out.join("junit.xml"));
    insta::assert_snapshot!(format!("{name}-{locale}-comment"), comment);
    insta::assert_snapshot!(format!("{name}-{locale}-summary"), summary);
    insta::assert_snapshot!(format!("{name}-{locale}-junit"), junit);
    validate_junit(&out.join("junit.xml"));
    gitlab_reads(&junit);
    // The comment written by the gate links the report when --report-url
    // says where it is; rendered as GitHub renders it, that is an <a>.
    if let Some(html) = gfm(&comment) {
        insta::assert_snapshot!(format!("{name}-{locale}-comment-html"), html);
        assert!(
            html.contains(&format!("<a href=\"{REPORT_URL}\">")),
            "the report link renders: {html}"
        );
        assert!(!html.contains("]("), "no literal link syntax: {html}");
        assert!(html.contains("<strong>"), "the lead is bold: {html}");
    }
    for text in [&comment, &summary, &junit, &ran.stdout, &ran.stderr] {
        assert!(!text.contains("LEAK"), "a raw body surfaced: {text}");
        assert!(
            !text.contains("raised ValueError"),
            "Python's voice: {text}"
        );
        assert!(!text.contains("urlopen"), "Python's voice: {text}");
    }
    (ran.code, comment, ran.stdout)
}

/// GitLab's reading of a JUnit file: the test's name says the case (not
/// only the check), and every failure and error has a body.
fn gitlab_reads(junit: &str) {
    let report = quick_junit::Report::deserialize_from_str(junit).expect("junit.xml parses");
    for suite in &report.test_suites {
        for case in &suite.test_cases {
            let name = case.name.as_str();
            assert!(
                name.contains(" · ")
                    || matches!(case.status, quick_junit::TestCaseStatus::Skipped { .. })
                    || name.starts_with('…'),
                "the case is in the test's name: {name}"
            );
            if let quick_junit::TestCaseStatus::NonSuccess { description, .. } = &case.status {
                let body = description.as_ref().map(|d| d.as_str()).unwrap_or("");
                assert!(!body.trim().is_empty(), "{name} has an empty body");
                assert!(body.contains('→'), "{name}: before → after: {body}");
            }
        }
    }
}

#[test]
fn pass_worse_and_unjudged_read_the_same_in_every_surface_in_two_locales() {
    for locale in ["en", "de"] {
        let dir = tempfile::tempdir().unwrap();
        let key = store(dir.path(), "01-nothing-changed", true, |_| {});
        let (code, comment, stdout) = gate_and_snapshot(dir.path(), &key, "pass", locale);
        assert_eq!(code, 0);
        // No stutter: the lead is said once, in bold.
        let lead = stdout
            .lines()
            .next()
            .unwrap()
            .split(". ")
            .next()
            .unwrap()
            .to_string();
        assert_eq!(
            comment.matches(&lead.replace('.', "\\.")).count(),
            1,
            "{comment}"
        );

        let dir = tempfile::tempdir().unwrap();
        let key = store(dir.path(), "02-one-flip", true, |_| {});
        let (code, _, stdout) = gate_and_snapshot(dir.path(), &key, "worse", locale);
        assert_eq!(code, 1);
        // Suite order: how-do-i-return's checks in declaration order.
        let contains = stdout.find("how-do-i-return · contains").unwrap();
        let lev = stdout.find("how-do-i-return · levenshtein").unwrap();
        assert!(contains < lev, "{stdout}");

        let dir = tempfile::tempdir().unwrap();
        let key = store(dir.path(), "01-nothing-changed", true, unjudged);
        record_timings(dir.path(), &key);
        let (code, comment, stdout) = gate_and_snapshot(dir.path(), &key, "unjudged", locale);
        assert_eq!(code, 2);
        // Exit 2 never reads green: the first line says what decides it.
        let first = stdout.lines().next().unwrap();
        assert!(!first.starts_with("Nothing got worse"), "{first}");
        assert!(!first.starts_with("Nichts wurde schlechter"), "{first}");
        // Suite order (the run's case order) in the terminal and comment.
        let mut at = 0;
        let ids = [
            "where-is-my-order",
            "how-do-i-return",
            "opening-hours",
            "lost-password",
        ]
        .into_iter()
        .chain(CAUSES[4..].iter().map(|(id, _, _)| *id));
        for id in ids {
            let here = comment[at..]
                .find(&format!("| {} |", id.replace('-', "\\-")))
                .map(|i| i + at)
                .unwrap_or_else(|| panic!("{id} in order: {comment}"));
            at = here;
        }
        // ... and in the report's section of what could not be judged.
        let report = read(dir.path().join("out/report.html"));
        let section = &report[report.find("class=\"section unjudged").unwrap()..];
        let mut at = 0;
        let ids = [
            "where-is-my-order",
            "how-do-i-return",
            "opening-hours",
            "lost-password",
        ]
        .into_iter()
        .chain(CAUSES[4..].iter().map(|(id, _, _)| *id));
        for id in ids {
            at += section[at..]
                .find(&format!("<td class=\"case\">{id}</td>"))
                .unwrap_or_else(|| panic!("{id} in suite order in the report"));
        }
        // The failed call's elapsed time, beside its cause, in the report.
        let took = if locale == "en" {
            "The target at 127.0.0.1:18950 did not answer in time. It took 30001 ms."
        } else {
            "Das System unter 127.0.0.1:18950 antwortete nicht rechtzeitig. Das dauerte 30001 ms."
        };
        assert!(section.contains(took), "{took} in {section}");
        let outcome: Value =
            serde_json::from_str(&read(dir.path().join("out/outcome.json"))).unwrap();
        assert!(outcome["headline"]
            .as_str()
            .unwrap()
            .starts_with(first.split(". ").next().unwrap()));
        for category in [
            "http_status",
            "timeout",
            "connection_refused",
            "host_not_found",
            "not_json",
            "output_path_missing",
            "judge_reply_unparsable",
            "check_error",
        ] {
            assert!(
                outcome["causes"][category].as_u64().unwrap_or(0) > 0,
                "{category}: {outcome}"
            );
        }
    }
}

#[test]
fn no_baseline_and_refused_in_two_locales() {
    for locale in ["en", "de"] {
        let dir = tempfile::tempdir().unwrap();
        let key = store(dir.path(), "02-one-flip", false, |_| {});
        let (code, comment, _) = gate_and_snapshot(dir.path(), &key, "no-baseline", locale);
        assert_eq!(code, 64);
        // The fact is said once.
        assert_eq!(comment.matches("support.json").count(), 1, "{comment}");

        // Refused: a check name with an escape sequence is refused at load.
        let dir = tempfile::tempdir().unwrap();
        let key = store(dir.path(), "02-one-flip", true, |_| {});
        let suite = read(dir.path().join("suite.toml")).replacen(
            "type = \"contains\"",
            "type = \"contains\"\nname = \"sig\\u001b[2J\"",
            1,
        );
        std::fs::write(dir.path().join("suite.toml"), suite).unwrap();
        let ran = digline_env(
            dir.path(),
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
                "--locale",
                locale,
            ],
            &[],
        );
        assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
        assert!(!ran.stderr.contains('\u{1b}'), "{}", ran.stderr);
        insta::assert_snapshot!(
            format!("refused-{locale}-terminal"),
            format!(
                "exit {}\n--- stdout\n{}--- stderr\n{}",
                ran.code, ran.stdout, ran.stderr
            )
        );
    }
}

#[test]
fn one_locale_type_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let key = store(dir.path(), "02-one-flip", true, |_| {});
    let mut refusals = Vec::new();
    for cmd in ["gate", "compare", "report"] {
        let ran = digline_env(
            dir.path(),
            &[
                cmd,
                "--suite",
                "suite.toml",
                "--run",
                &key,
                "--locale",
                "xx",
            ],
            &[],
        );
        assert_eq!(ran.code, 64, "{cmd}: {}", ran.stderr);
        assert!(
            ran.stderr
                .contains("[possible values: en, it, de, fr, es, pt]"),
            "{cmd}: {}",
            ran.stderr
        );
        refusals.push(ran.stderr.lines().take(2).collect::<Vec<_>>().join("\n"));
    }
    assert!(refusals.windows(2).all(|w| w[0] == w[1]), "{refusals:?}");
    // And every command accepts every locale the strings files ship.
    for locale in ["en", "it", "de", "fr", "es", "pt"] {
        for cmd in ["compare", "report"] {
            let ran = digline_env(
                dir.path(),
                &[
                    cmd,
                    "--suite",
                    "suite.toml",
                    "--run",
                    &key,
                    "--locale",
                    locale,
                    "--out",
                    "r.html",
                ][..if cmd == "compare" { 7 } else { 9 }],
                &[],
            );
            assert_eq!(ran.code, 1, "{cmd} {locale}: {}", ran.stderr);
        }
    }
}

/// Names a stranger's pull request could choose.
const HOSTILE: [&str; 4] = [
    "evil\u{202E}txt.exe\u{200B}",
    "@org/team #1 owner/repo#1",
    "esc\u{1b}[31mred\u{7}",
    "::error::forged\n::set-output name=x::y",
];

#[test]
fn a_hostile_store_is_inert_on_every_surface() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let rename = |doc: &mut Value| {
        for (i, result) in doc["results"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            result["case_id"] = json!(HOSTILE[i % HOSTILE.len()]);
            for v in result["verdicts"].as_array_mut().unwrap() {
                v["assertion"] = json!(format!(
                    "{} {}",
                    v["assertion"].as_str().unwrap(),
                    HOSTILE[(i + 1) % HOSTILE.len()]
                ));
            }
        }
    };
    let key = store(root, "02-one-flip", true, rename);
    let base = root.join(".digline/gold/baselines/support.json");
    let mut b: Value = serde_json::from_str(&read(&base)).unwrap();
    rename(&mut b);
    std::fs::write(&base, serde_json::to_string_pretty(&b).unwrap()).unwrap();
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    let ran = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--out",
            "out",
            "--locale",
            "en",
        ],
        &vars,
    );
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let out = root.join("out");
    let mut surfaces: Vec<(&str, String)> = vec![
        ("stdout", ran.stdout.clone()),
        ("stderr", ran.stderr.clone()),
        ("comment.md", read(out.join("comment.md"))),
        ("summary.md", read(out.join("summary.md"))),
        ("junit.xml", read(out.join("junit.xml"))),
        ("outcome.json", read(out.join("outcome.json"))),
        ("job summary", read(root.join("gh-summary"))),
        ("outputs", read(root.join("gh-output"))),
    ];
    for (_, body) in fake.comments() {
        surfaces.push(("posted comment", body));
    }
    let invisible = |c: char| matches!(c, '\u{200B}' | '\u{200C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}');
    for (label, text) in &surfaces {
        for c in text.chars() {
            assert!(
                !(invisible(c) || c.is_control() && c != '\n'),
                "{label}: U+{:04X} reached it: {text}",
                u32::from(c)
            );
        }
        // Our own joiner only ever follows `@` or `#`.
        let chars: Vec<char> = text.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if *c == '\u{200D}' {
                assert!(
                    i > 0 && matches!(chars[i - 1], '@' | '#'),
                    "{label}: a stray joiner"
                );
            }
        }
    }
    // Rendered as GitHub renders it: no mention, no reference.
    let mention = regex::Regex::new(r"@[A-Za-z0-9]|#[0-9]|[A-Za-z0-9]/[A-Za-z0-9]+#[0-9]").unwrap();
    let tags = regex::Regex::new(r"<[^>]*>").unwrap();
    for label in ["comment.md", "summary.md", "posted comment"] {
        for (l, text) in surfaces.iter().filter(|(l, _)| *l == label) {
            if let Some(html) = gfm(text) {
                let visible = tags.replace_all(&html, "");
                assert!(!mention.is_match(&visible), "{l}: {visible}");
            }
        }
    }
    no_command_outside_the_fence("gate", &ran.stdout, &ran.stderr);
    // compare and diff print the same names: fenced too.
    let keys: Value = serde_json::from_str(&read(
        golden("headlines").join("02-one-flip").join("keys.json"),
    ))
    .unwrap();
    let bkey = keys["baseline_run_key"].as_str().unwrap();
    std::fs::write(
        root.join(format!(".digline/gold/runs/support/{bkey}.json")),
        serde_json::to_string_pretty(&b).unwrap(),
    )
    .unwrap();
    let compared = digline_env(
        root,
        &["compare", "--suite", "suite.toml", "--run", &key],
        &vars,
    );
    assert_eq!(compared.code, 1, "{}", compared.stderr);
    assert!(
        compared.stdout.starts_with("::stop-commands::"),
        "{}",
        compared.stdout
    );
    no_command_outside_the_fence("compare", &compared.stdout, &compared.stderr);
    let diffed = digline_env(root, &["diff", "--suite", "suite.toml", bkey, &key], &vars);
    assert_eq!(diffed.code, 0, "{}", diffed.stderr);
    no_command_outside_the_fence("diff", &diffed.stdout, &diffed.stderr);
    for text in [&compared.stdout, &diffed.stdout] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202E}'),
            "{text}"
        );
    }
    let outputs = read(root.join("gh-output"));
    assert!(!outputs.lines().any(|l| l.starts_with("::")), "{outputs}");
}

/// `compare`'s terminal text says why each check could not run — the cause
/// category and measured facts, in the reader's locale — and `-v` adds no
/// payload: no stored reason, nothing only the system produced (`LEAK`).
#[test]
fn compare_says_why_a_check_could_not_run_in_two_locales() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let key = store(root, "01-nothing-changed", true, unjudged);
    record_timings(root, &key);
    for locale in ["en", "de"] {
        let args = [
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--locale",
            locale,
        ];
        let ran = digline_env(root, &args, &[]);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        insta::assert_snapshot!(format!("compare-causes-{locale}"), ran.stdout);
        let mut verbose = vec!["-v"];
        verbose.extend(args);
        let loud = digline_env(root, &verbose, &[]);
        assert_eq!(loud.stdout, ran.stdout);
        for text in [&loud.stdout, &loud.stderr] {
            assert!(!text.contains("LEAK"), "{text}");
            for (_, reason, _) in CAUSES {
                assert!(!text.contains(reason), "{text}");
            }
            assert!(
                !text.contains("ValueError") && !text.contains("urlopen"),
                "{text}"
            );
        }
    }
}

/// A gate refused on GitHub Actions (here for a run key the pull request
/// chose, with a line break and a workflow command in it) prints its
/// refusal inside the stop-commands fence and closes the fence after it:
/// the refusal cannot act, and the step's later workflow commands are not
/// left paused. stdout and stderr share one pipe here, as on a runner.
#[test]
fn a_refused_gate_on_actions_closes_the_fence_after_its_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    store(root, "02-one-flip", true, |_| {});
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg("\"$0\" \"$@\" 2>&1")
        .arg(env!("CARGO_BIN_EXE_digline"))
        .args([
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            "nope\n::error::forged",
            "--out",
            "out",
            "--publish",
            "none",
        ])
        .current_dir(root)
        .env_remove("CI")
        .env_remove("GITLAB_CI")
        .env_remove("DIGLINE_LOG")
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(64));
    let merged = String::from_utf8(ran.stdout).unwrap();
    let lines: Vec<&str> = merged.lines().collect();
    let token = lines[0]
        .strip_prefix("::stop-commands::")
        .unwrap_or_else(|| panic!("opens the fence: {merged}"));
    assert_eq!(
        lines.last(),
        Some(&format!("::{token}::").as_str()),
        "{merged}"
    );
    assert!(
        lines[1].starts_with("digline: ") && lines.len() >= 3,
        "the refusal, inside the fence: {merged}"
    );
    assert!(merged.contains("\n::error::forged"), "{merged}");
    no_command_outside_the_fence("refused gate", &merged, "");
}

/// Every `::` line outside a `::stop-commands::` fence is one of digline's
/// own annotations or warnings.
fn no_command_outside_the_fence(label: &str, stdout: &str, stderr: &str) {
    let mut fence: Option<String> = None;
    for line in stdout.lines().chain(stderr.lines()) {
        if let Some(token) = line.strip_prefix("::stop-commands::") {
            fence = Some(format!("::{token}::"));
            continue;
        }
        if fence.as_deref() == Some(line) {
            fence = None;
            continue;
        }
        if fence.is_none() && line.starts_with("::") {
            assert!(
                line.starts_with("::error title=digline")
                    || line.starts_with("::notice title=digline")
                    || line.starts_with("::warning title=digline"),
                "{label}: a workflow command outside the fence: {line}"
            );
        }
    }
    assert!(fence.is_none(), "{label}: the fence is closed again");
}

#[test]
fn control_characters_in_names_and_groups_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let key = store(root, "02-one-flip", true, |_| {});
    let suite = read(root.join("suite.toml"));
    for (what, name) in [
        ("line break", "a\\nb"),
        ("ESC", "a\\u001b[31m"),
        ("BEL", "a\\u0007"),
    ] {
        let bad = suite.replacen(
            "type = \"contains\"",
            &format!("type = \"contains\"\nname = \"{name}\""),
            1,
        );
        std::fs::write(root.join("suite.toml"), bad).unwrap();
        let ran = digline_env(
            root,
            &[
                "gate",
                "--suite",
                "suite.toml",
                "--run",
                &key,
                "--publish",
                "none",
            ],
            &[],
        );
        assert_eq!(ran.code, 64, "{what}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("`name` holds a control character"),
            "{what}: {}",
            ran.stderr
        );
    }
    std::fs::write(root.join("suite.toml"), &suite).unwrap();
    let mut cases: Value = serde_json::from_str(&read(root.join("cases.json"))).unwrap();
    cases[0]["group"] = json!("g\u{1b}[2J");
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
    let ran = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--publish",
            "none",
        ],
        &[],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("`group` holds a control character"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_hundred_thousand_case_junit_stays_under_thirty_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let key = store(root, "02-one-flip", true, |run| {
        let template = run["results"][1].clone(); // how-do-i-return: got worse
        let pass = run["results"][0].clone();
        let mut results = Vec::with_capacity(100_000);
        for i in 0..100_000 {
            let mut r = if i % 1_000 == 3 {
                template.clone()
            } else {
                pass.clone()
            };
            r["case_id"] = json!(format!("customer-question-{i:06}"));
            if i % 1_000 == 5 {
                for v in r["verdicts"].as_array_mut().unwrap() {
                    errored(
                        v,
                        "target raised ValueError: 127.0.0.1:18950 could not be called: timed out",
                    );
                }
            }
            results.push(r);
        }
        run["results"] = Value::Array(results);
    });
    let ran = digline_env(
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
        &[],
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let junit = read(root.join("out/junit.xml"));
    assert!(junit.len() < 30_000_000, "{} bytes", junit.len());
    let report = std::fs::metadata(root.join("out/report.html"))
        .unwrap()
        .len();
    assert!(report < 10_000_000, "report: {report} bytes");
    // Every error and every failure is kept; passes are collapsed.
    // (And the reference's 12 passing checks the run does not have: the
    // gate could not judge them either.)
    assert_eq!(
        junit.matches("<error ").count(),
        100 * 3 + 12,
        "errors kept"
    );
    assert_eq!(junit.matches("type=\"missing\"").count(), 12);
    assert!(junit.contains("more checks passed (collapsed; see the report)"));
    validate_junit(&root.join("out/junit.xml"));
}
