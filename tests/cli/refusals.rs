//! Bad input gets a clear sentence and exit 64, before any call — and
//! nothing is written.

use std::path::Path;

use crate::util::{digline, repo};

const GOOD_SUITE: &str = r#"[suite]
tenant = "t"
environment = "local"
name = "s"
cases = "cases.json"

[target]
type = "http"
url = "http://127.0.0.1:9/answer"
output_path = "data.answer"

[target.body]
id = "case.id"

[[assertions]]
type = "contains"
needle = "Northwind"
"#;

const GOOD_CASES: &str = r#"[{"id": "a"}]"#;

fn write(dir: &Path, suite: &str, cases: Option<&str>) {
    std::fs::write(dir.join("suite.toml"), suite).unwrap();
    if let Some(cases) = cases {
        std::fs::write(dir.join("cases.json"), cases).unwrap();
    }
}

/// Each row: what to change, a fragment the one-sentence refusal must contain.
#[test]
fn a_bad_suite_is_refused_with_a_located_sentence() {
    let rows: &[(&str, String, Option<&str>, &[&str])] = &[
        (
            "typo'd key",
            GOOD_SUITE.replace(
                "needle = \"Northwind\"",
                "needle = \"Northwind\"\ntreshold = 0.5",
            ),
            Some(GOOD_CASES),
            &["[[assertions]] #1", "treshold", "threshold"],
        ),
        (
            "unknown check",
            GOOD_SUITE.replace("type = \"contains\"", "type = \"contians\""),
            Some(GOOD_CASES),
            &["[[assertions]] #1", "contians", "contains"],
        ),
        (
            "missing cases file",
            GOOD_SUITE.to_string(),
            None,
            &["cases.json"],
        ),
        (
            "api_key in [target]",
            GOOD_SUITE.replace("output_path", "api_key = \"sk-live-123\"\noutput_path"),
            Some(GOOD_CASES),
            &["api_key"],
        ),
        (
            "a variable in the url",
            GOOD_SUITE.replace("127.0.0.1:9/answer", "127.0.0.1:9/${PATH_SECRET}"),
            Some(GOOD_CASES),
            &["[target]", "`url`", "only [target.headers]"],
        ),
        (
            "a port that is no port",
            GOOD_SUITE.replace("127.0.0.1:9/", "127.0.0.1:99999/"),
            Some(GOOD_CASES),
            &["`url`", "'99999'", "1 to 65535"],
        ),
        (
            "a header name with a space",
            GOOD_SUITE.replace(
                "\n[[assertions]]",
                "\n[target.headers]\n\"X Team\" = \"a\"\n\n[[assertions]]",
            ),
            Some(GOOD_CASES),
            &["[target.headers]", "X Team", "not a valid HTTP header name"],
        ),
        (
            "length that always passes",
            GOOD_SUITE.replace(
                "type = \"contains\"\nneedle = \"Northwind\"",
                "type = \"length\"\nminimum = 0",
            ),
            Some(GOOD_CASES),
            &["[[assertions]] #1", "`minimum` is 0", "always passes"],
        ),
        (
            "a control character in a case id",
            GOOD_SUITE.to_string(),
            Some(r#"[{"id": "a\nNothing got worse."}]"#),
            &["cases.json:1:3 #1:", "control character"],
        ),
        (
            "a body reference a case cannot fill",
            GOOD_SUITE.replace(
                "id = \"case.id\"",
                "id = \"case.id\"\nquestion = \"case.vars.questoin\"",
            ),
            Some(
                r#"[{"id": "a", "vars": {"question": "q"}}, {"id": "b", "vars": {"question": "q"}}]"#,
            ),
            &[
                "cases.json:1:2 #1:",
                "questoin",
                "1 more case(s) too: #2",
                "nothing was sent",
            ],
        ),
        (
            "typo'd suite key",
            GOOD_SUITE.replace("environment", "enviroment"),
            Some(GOOD_CASES),
            &["[suite]", "enviroment", "environment"],
        ),
    ];
    for (what, suite, cases, fragments) in rows {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), suite, *cases);
        let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
        assert_eq!(ran.code, 64, "{what}: {}", ran.stderr);
        assert!(
            ran.stderr.starts_with("digline: "),
            "{what}: {}",
            ran.stderr
        );
        for f in *fragments {
            assert!(ran.stderr.contains(f), "{what}: no {f:?} in {}", ran.stderr);
        }
        assert!(
            !ran.stderr.contains("sk-live-123"),
            "{what}: the secret was printed"
        );
        assert!(ran.stdout.is_empty(), "{what}");
        assert!(
            !dir.path().join(".digline").exists(),
            "{what}: something was written"
        );
    }
}

#[test]
fn every_command_refuses_a_bad_suite_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &GOOD_SUITE.replace("needle", "neddle"),
        Some(GOOD_CASES),
    );
    for args in [
        vec!["run", "--suite", "suite.toml"],
        vec!["compare", "--suite", "suite.toml", "--run", "latest"],
        vec!["promote", "--suite", "suite.toml", "--run", "latest"],
        vec!["list", "--suite", "suite.toml"],
    ] {
        let ran = digline(dir.path(), &args);
        assert_eq!(ran.code, 64, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("neddle"), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn flags_are_refused_with_64_not_clap_s_2() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["run"],
        vec!["frobnicate"],
        vec!["compare", "--suite", "s.toml"],
        vec![
            "compare",
            "--suite",
            "s.toml",
            "--run",
            "latest",
            "--json",
            "everything",
        ],
        vec!["run", "--suite", "s.toml", "--concurrency", "0"],
    ] {
        let ran = digline(dir.path(), &args);
        assert_eq!(ran.code, 64, "{args:?}: {}", ran.stderr);
    }
    let ran = digline(
        dir.path(),
        &["run", "--suite", "suite.toml", "--target", "x"],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("--target does not apply") && ran.stderr.contains("[target]"),
        "{}",
        ran.stderr
    );
    let ran = digline(dir.path(), &["--version"]);
    assert_eq!(
        (ran.code, ran.stdout.trim()),
        (0, concat!("digline ", env!("CARGO_PKG_VERSION")))
    );
    let ran = digline(dir.path(), &["--help"]);
    assert_eq!(ran.code, 0);
    for word in ["run", "compare", "promote", "list", "Exit codes"] {
        assert!(ran.stdout.contains(word), "--help lacks {word}");
    }
}

#[test]
fn tenant_and_env_flags_verify_and_never_override() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), GOOD_SUITE, Some(GOOD_CASES));
    for (flag, value, declared) in [("--tenant", "other", "'t'"), ("--env", "ci", "'local'")] {
        let ran = digline(dir.path(), &["list", "--suite", "suite.toml", flag, value]);
        assert_eq!(ran.code, 64, "{}", ran.stderr);
        assert!(
            ran.stderr.contains(declared) && ran.stderr.contains(value),
            "{}",
            ran.stderr
        );
    }
    let ran = digline(
        dir.path(),
        &[
            "list",
            "--suite",
            "suite.toml",
            "--tenant",
            "t",
            "--env",
            "local",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn compare_without_runs_or_baseline_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), GOOD_SUITE, Some(GOOD_CASES));
    let ran = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 64);
    assert!(ran.stderr.contains("no runs stored"), "{}", ran.stderr);
    // A stored run but no baseline: never green without a comparison.
    let src = repo().join("tests/goldens/headlines/01-nothing-changed/run.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let mut doc = doc;
    doc["tenant"] = "t".into();
    doc["suite"] = "s".into();
    let key = digline::core::document::run_key(
        doc["created_at"].as_str().unwrap(),
        doc["config_hash"].as_str().unwrap(),
    );
    let runs = dir.path().join(".digline/t/runs/s");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::write(runs.join(format!("{key}.json")), doc.to_string()).unwrap();
    let ran = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(ran.stderr.contains("no baseline"), "{}", ran.stderr);
    assert!(ran.stderr.contains("digline promote"), "{}", ran.stderr);
    let ran = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "nope"],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
}

#[test]
fn bare_digline_is_not_a_green_light() {
    let dir = tempfile::tempdir().unwrap();
    let ran = digline(dir.path(), &[]);
    assert_eq!(ran.code, 64);
    assert!(ran.stderr.contains("Usage"), "{}", ran.stderr);
}

#[test]
fn latest_never_skips_a_broken_newest_run() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), GOOD_SUITE, Some(GOOD_CASES));
    let runs = dir.path().join(".digline/t/runs/s");
    std::fs::create_dir_all(&runs).unwrap();
    let src = repo().join("tests/goldens/headlines/01-nothing-changed/run.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    doc["tenant"] = "t".into();
    doc["suite"] = "s".into();
    let key = digline::core::document::run_key(
        doc["created_at"].as_str().unwrap(),
        doc["config_hash"].as_str().unwrap(),
    );
    std::fs::write(runs.join(format!("{key}.json")), doc.to_string()).unwrap();
    std::fs::create_dir_all(dir.path().join(".digline/t/baselines")).unwrap();
    std::fs::write(
        dir.path().join(".digline/t/baselines/s.json"),
        doc.to_string(),
    )
    .unwrap();
    let ran = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // A newer run, truncated by a crash: `latest` must not fall back to the older one.
    std::fs::write(
        runs.join("2099-01-01T00-00-00-00-00-aaaaaaaaaaaaaaaa.json"),
        "{\"aggre",
    )
    .unwrap();
    let ran = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 64, "{}", ran.stdout);
    assert!(
        ran.stderr.contains("cannot tell which run is the latest"),
        "{}",
        ran.stderr
    );
}

#[test]
fn an_unwritable_store_is_refused_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), GOOD_SUITE, Some(GOOD_CASES));
    std::fs::write(dir.path().join(".digline"), "a file in the way").unwrap();
    // The target (port 9) is dead: refusing on the store first proves the order.
    let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("a run cannot be stored"),
        "{}",
        ran.stderr
    );
}

#[test]
fn errors_name_the_suite_file_as_it_is_called() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("support.toml"),
        GOOD_SUITE.replace("needle", "neddle"),
    )
    .unwrap();
    std::fs::write(dir.path().join("cases.json"), GOOD_CASES).unwrap();
    let ran = digline(dir.path(), &["list", "--suite", "support.toml"]);
    assert_eq!(ran.code, 64);
    assert!(
        ran.stderr
            .starts_with("digline: support.toml:17:1, [[assertions]] #1"),
        "{}",
        ran.stderr
    );
}

#[test]
fn header_secrets_must_be_set_and_single_line() {
    let dir = tempfile::tempdir().unwrap();
    let suite = GOOD_SUITE.replace(
        "\n[[assertions]]",
        "\n[target.headers]\nAuthorization = \"Bearer ${DIGLINE_TEST_TOKEN}\"\n\n[[assertions]]",
    );
    write(dir.path(), &suite, Some(GOOD_CASES));
    for (value, want) in [("", "set but empty"), ("abc\r\nX-Evil: 1", "line break")] {
        let ran: crate::util::Ran = std::process::Command::new(env!("CARGO_BIN_EXE_digline"))
            .args(["run", "--suite", "suite.toml"])
            .current_dir(dir.path())
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITLAB_CI")
            .env_remove("TF_BUILD")
            .env_remove("JENKINS_URL")
            .env("DIGLINE_TEST_TOKEN", value)
            .output()
            .unwrap()
            .into();
        assert_eq!(ran.code, 64, "{}", ran.stderr);
        assert!(ran.stderr.contains(want), "{}", ran.stderr);
        assert!(!ran.stderr.contains("X-Evil"), "the value was printed");
    }
}

/// A refusal found after the load (a `${NAME}` the environment does not
/// set, an artifact gone) is placed at `file:line:column` of the suite
/// file under its own name, like a refusal of the load itself.
#[test]
fn a_refusal_after_the_load_is_placed_in_the_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    let suite = GOOD_SUITE.replace(
        "\n[[assertions]]",
        "\n[target.headers]\n  Authorization = \"Bearer ${DIGLINE_UNSET_TOKEN}\"\n\n[[assertions]]",
    );
    std::fs::write(dir.path().join("support.toml"), suite).unwrap();
    std::fs::write(dir.path().join("cases.json"), GOOD_CASES).unwrap();
    let ran = digline(dir.path(), &["run", "--suite", "support.toml"]);
    assert_eq!(
        ran.stderr,
        "digline: support.toml:16:3, [target.headers]: `Authorization` takes \
         ${DIGLINE_UNSET_TOKEN} from the environment, and DIGLINE_UNSET_TOKEN is not set. Set it \
         before the run; nothing was sent\n"
    );
    assert_eq!(ran.code, 64);

    let suite = GOOD_SUITE.replace(
        "cases = \"cases.json\"",
        "cases = \"cases.json\"\nartifacts = [\"prompt.md\"]",
    );
    write(dir.path(), &suite, Some(GOOD_CASES));
    std::fs::write(dir.path().join("prompt.md"), "p").unwrap();
    // Readable at the load, gone (unreadable) by the time it is recorded.
    std::fs::create_dir(dir.path().join("gone")).unwrap();
    std::fs::remove_file(dir.path().join("prompt.md")).unwrap();
    std::os::unix::fs::symlink("gone", dir.path().join("prompt.md")).unwrap();
    let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.starts_with(
            "digline: suite.toml:6:1, [suite]: `artifacts` names prompt.md, which cannot be read ("
        ),
        "{}",
        ran.stderr
    );
}

/// Three independent mistakes in three sections: three located refusals in
/// one run (the first is the one 0.10.0 named), exit 64, nothing written.
#[test]
fn a_suite_with_three_independent_mistakes_gets_three_located_refusals_in_one_run() {
    let suite = r#"[suite]
tenant = "t"
name = "s"
cases = "cases.json"
samples = 1
# a typo: the one 0.10.0 names, and not also "no `environment`"
enviroment = "local"

[[assertions]]
type = "contains"
needle = "Northwind"

[[assertions]]
type = "contains"
needle = ""

[target]
type = "http"
url = "http://127.0.0.1:9/answer"
output_pth = "data.answer"

[target.body]
id = "case.id"
"#;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), suite, Some(GOOD_CASES));
    let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
    assert_eq!(
        ran.stderr,
        "digline: suite.toml:15:1, [[assertions]] #2, `contains`: `needle` is empty, and searching for nothing always passes\n\
         suite.toml:7:1, [suite]: no such key `enviroment`. Did you mean `environment`?\n\
         suite.toml:20:1, [target]: `http` has no parameter `output_pth`. Did you mean `output_path`?\n"
    );
    assert_eq!(ran.code, 64);
    assert!(ran.stdout.is_empty());
    assert!(!dir.path().join(".digline").exists());
}

/// A problem in the cases file is placed at its entry and key, beside a
/// problem of the suite file.
#[test]
fn a_case_problem_is_placed_at_its_entry_and_key() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        GOOD_SUITE,
        Some("[\n  {\"id\": \"a\"},\n  {\"id\": \"b\",\n   \"expectd\": \"x\"}\n]\n"),
    );
    let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
    assert_eq!(
        ran.stderr,
        "digline: cases.json:4:4 #2: no such field `expectd`. Did you mean `expected`?\n"
    );
    assert_eq!(ran.code, 64);
}

/// A refusal names the suite file as it was called: with several suites in
/// a repository, `ci/support.toml:9:1` says which one.
#[test]
fn a_refusal_names_the_suite_file_as_it_was_called() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("ci");
    std::fs::create_dir_all(&sub).unwrap();
    write(
        &sub,
        &GOOD_SUITE.replace("environment", "enviroment"),
        Some(GOOD_CASES),
    );
    std::fs::rename(sub.join("suite.toml"), sub.join("support.toml")).unwrap();
    let line = GOOD_SUITE
        .lines()
        .position(|l| l.starts_with("environment"))
        .unwrap()
        + 1;
    let ran = digline(
        dir.path(),
        &["run", "--suite", "ci/support.toml", "--root", "."],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        format!("digline: ci/support.toml:{line}:1, [suite]: no such key `enviroment`. Did you mean `environment`?\n")
    );
}

/// Sample counts a pull request could use to hang the gate or exhaust its
/// memory (each was a hang, a 27 MB line or gigabytes before the bound):
/// every one is refused within seconds, in one short located sentence
/// naming the most digline takes, exit 64.
#[test]
fn hostile_sample_counts_are_refused_at_once_in_one_short_sentence() {
    let rows: &[(&str, &str, &str)] = &[
        ("", "4294967295", "1"),
        ("", "4294967297", "1"),
        ("", "1000000", "0.0000001"),
        ("", "100000000", "\"1/2\""),
        (
            "samples = 100000000\nmin_agreement = \"1/2\"\n",
            "3",
            "\"2/3\"",
        ),
        ("samples = 4294967297\nmin_agreement = 1\n", "3", "\"2/3\""),
    ];
    for (suite_samples, samples, agreement) in rows {
        let suite = format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"e\"\nname = \"s\"\ncases = \"cases.json\"\n\
             {suite_samples}\n[[assertions]]\ntype = \"repeated\"\nsamples = {samples}\n\
             min_agreement = {agreement}\n[assertions.inner]\ntype = \"contains\"\nneedle = \"x\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:9/answer\"\n\
             output_path = \"data.answer\"\n\n[target.body]\nid = \"case.id\"\n"
        );
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &suite, Some(GOOD_CASES));
        let stderr_path = dir.path().join("stderr.txt");
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_digline"));
        for name in crate::util::CI_VARIABLES {
            command.env_remove(name);
        }
        let mut child = command
            .args(["run", "--suite", "suite.toml"])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .spawn()
            .expect("digline starts");
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("{suite_samples:?} / samples = {samples}: still running after 20 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let stderr = std::fs::read_to_string(&stderr_path).unwrap();
        assert_eq!(status.code(), Some(64), "{samples}: {stderr}");
        let line = if suite_samples.is_empty() {
            format!("digline: suite.toml:9:1, [[assertions]] #1, `repeated`: `samples` is {samples}, more than digline takes: at most 1000 (each sample is one more call or grading per case)\n")
        } else {
            let n = suite_samples
                .split_once('\n')
                .map(|(first, _)| first.trim_start_matches("samples = "))
                .unwrap();
            format!("digline: suite.toml:6:1, [suite]: `samples` is {n}, more than digline takes: at most 1000 (each sample is one more call or grading per case)\n")
        };
        assert_eq!(stderr, line, "{suite_samples:?} / samples = {samples}");
    }
}

/// A judge anchors file with a check that is not judged, a bad label or no
/// anchors is refused at its place (64), before any call, and the refusal
/// never repeats an answer.
#[test]
fn a_bad_judge_anchors_file_is_refused_with_a_located_sentence() {
    let suite = GOOD_SUITE.replace(
        "cases = \"cases.json\"",
        "cases = \"cases.json\"\njudge_anchors = \"judge-anchors.json\"",
    )
        + "\n[[assertions]]\ntype = \"llm_rubric\"\nname = \"helpful\"\nrubric = \"Helpful.\"\n\
         judge = \"openai/gpt-4o-mini\"\nthreshold = 0.5\ntolerance = 0.1\n";
    let rows: &[(&str, &[&str])] = &[
        (
            r#"[{"check": "helpfull", "answer": "SECRET-ANSWER", "label": "pass"}]"#,
            &["judge-anchors.json:1:3 #1:", "`helpfull`", "`helpful`"],
        ),
        (
            r#"[{"check": "helpful", "answer": "SECRET-ANSWER", "label": "passed"}]"#,
            &["judge-anchors.json:1:", "\"pass\" or \"fail\""],
        ),
        (
            r#"[{"check": "helpful", "answer": "SECRET-ANSWER", "lable": "pass"}]"#,
            &["judge-anchors.json:1:", "`lable`", "`label`"],
        ),
        ("[]", &["judge-anchors.json:1:1", "no anchors"]),
    ];
    for (anchors, fragments) in rows {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &suite, Some(GOOD_CASES));
        std::fs::write(dir.path().join("judge-anchors.json"), anchors).unwrap();
        let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
        assert_eq!(ran.code, 64, "{anchors}: {}", ran.stderr);
        for fragment in *fragments {
            assert!(ran.stderr.contains(fragment), "{fragment}: {}", ran.stderr);
        }
        assert!(!ran.stderr.contains("SECRET-ANSWER"), "{}", ran.stderr);
        assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    }
    // The same suite with a good file loads past the anchors: what stops it
    // then is the judge's missing key, not the anchors.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &suite, Some(GOOD_CASES));
    std::fs::write(
        dir.path().join("judge-anchors.json"),
        r#"[{"check": "helpful", "answer": "a", "label": "pass"}]"#,
    )
    .unwrap();
    let ran = digline(dir.path(), &["run", "--suite", "suite.toml"]);
    assert!(!ran.stderr.contains("judge-anchors.json"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("judge_anchors"), "{}", ran.stderr);
}
