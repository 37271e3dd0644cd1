//! `digline rejudge` end to end: byte parity with digline 0.10.0's re-judged
//! documents (`goldens/rejudge`), an `llm_rubric` re-judged by the fake
//! judge with zero target calls, `--max-calls`, promotion refused, and
//! every refusal (exit 64, nothing written).

use std::path::Path;

use serde_json::{json, Value};

use crate::fake_llm::{self, ok, Seen};
use crate::util::{copy_files, digline, digline_env, golden, run_file, stub, Ran};

/// A port nothing listens on: bound, then released.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Point a golden suite (made on port 18956) at `port`.
fn point_at(suite: &Path, port: u16) {
    let text = read(suite).replace("127.0.0.1:18956", &format!("127.0.0.1:{port}"));
    std::fs::write(suite, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The stored run files of `tenant`/`suite` under `root`.
fn runs(root: &Path, tenant: &str, suite: &str) -> Vec<String> {
    let dir = root.join(".digline").join(tenant).join("runs").join(suite);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Put `doc` (bytes) in the store as the run it holds.
fn file_run(root: &Path, bytes: &str) -> String {
    let doc: Value = serde_json::from_str(bytes).unwrap();
    let key = key_of(&doc);
    let dir = root
        .join(".digline")
        .join(doc["tenant"].as_str().unwrap())
        .join("runs")
        .join(doc["suite"].as_str().unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{key}.json")), bytes).unwrap();
    key
}

fn key_of(doc: &Value) -> String {
    let created: String = doc["created_at"]
        .as_str()
        .unwrap()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    format!("{created}-{}", doc["config_hash"].as_str().unwrap())
}

/// The document's text with the fields a re-judge stamps now blanked.
fn stamped_out(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("  \"created_at\": ") || l.starts_with("  \"digline_version\": ") {
                l.split(':').next().unwrap().to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn rejudged_documents_match_0_10_0_byte_for_byte_without_calling_the_target() {
    for name in ["01-threshold", "02-sampled-cases-changed"] {
        let gold = golden(&format!("rejudge/{name}"));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        copy_files(&gold, root);
        std::fs::rename(root.join("rejudge-suite.toml"), root.join("suite.toml")).unwrap();
        // Nothing listens there: a call to the target would error its case.
        point_at(&root.join("suite.toml"), dead_port());
        let source_key = file_run(root, &read(&gold.join("source.json")));
        assert_eq!(source_key, read(&gold.join("source.key")).trim());
        let mut args = vec!["rejudge", "--suite", "suite.toml", "--run", &source_key];
        let extra = read(&gold.join("rejudge-args.txt"));
        args.extend(extra.split_whitespace());
        let ran = digline(root, &args);
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        let want_stderr = read(&gold.join("rejudge.stderr"));
        let (plan, rest) = ran.stderr.split_at(want_stderr.len().min(ran.stderr.len()));
        assert_eq!(plan, want_stderr, "{name}");
        // digline adds one line 0.10.0 did not print: how many cases could not be judged.
        assert!(
            rest.is_empty() || (rest.contains("could not be judged") && rest.lines().count() == 1),
            "{name}: {rest}"
        );
        let key = ran.stdout.trim();
        let ours = read(&run_file(root, key));
        let want = read(&gold.join("rejudged.json"));
        assert_eq!(stamped_out(&ours), stamped_out(&want), "{name}");
        let doc: Value = serde_json::from_str(&ours).unwrap();
        let source: Value = serde_json::from_str(&read(&gold.join("source.json"))).unwrap();
        assert_eq!(doc["rejudged_from"], json!(source_key), "{name}");
        assert_ne!(
            doc["config_hash"], source["config_hash"],
            "{name}: the rules moved"
        );
        assert!(
            key.ends_with(doc["config_hash"].as_str().unwrap()),
            "{name}"
        );
    }
}

#[test]
fn new_thresholds_give_new_verdicts() {
    // 01-threshold: length at most 60 → 80 and cost_budget threshold 0.5 → 0.3.
    let gold = golden("rejudge/01-threshold");
    let verdict = |file: &str, case: usize, check: usize| -> Value {
        let doc: Value = serde_json::from_str(&read(&gold.join(file))).unwrap();
        doc["results"][case]["verdicts"][check].clone()
    };
    assert_eq!(verdict("source.json", 1, 1)["status"], "fail");
    assert_eq!(verdict("rejudged.json", 1, 1)["status"], "pass");
    assert_eq!(
        verdict("rejudged.json", 1, 1)["reason"],
        "70 characters, within bounds (at most 80)"
    );
    assert_eq!(verdict("rejudged.json", 0, 2)["threshold"], 0.3);
}

/// A provider suite judged by an `llm_rubric`, recording its answers.
fn rubric_suite(root: &Path, threshold: &str) {
    std::fs::write(root.join("prompt.txt"), "Answer the customer: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"judged\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\nprovider = \"anthropic/claude-haiku-4-5\"\nmax_tokens = 200\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"Hello\"\n\n\
             [[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Polite and on topic.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = {threshold}\ntolerance = 0.1\n"
        ),
    )
    .unwrap();
    let cases: Vec<Value> = (0..3)
        .map(|i| json!({"id": format!("c{i}"), "vars": {"question": format!("q{i}")}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
}

#[test]
fn an_llm_rubric_is_judged_again_and_the_target_is_never_called() {
    // The judge says 0.9 to the first run's three calls, then 0.6.
    let fake = fake_llm::start(Box::new(|seen: &Seen, n| {
        if seen.is_judge() {
            ok(
                seen,
                if n == 0 {
                    r#"{"score": 0.9, "reason": "polite"}"#
                } else {
                    r#"{"score": 0.6, "reason": "curt"}"#
                },
                500,
                50,
            )
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 1000, 100)
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    rubric_suite(root, "0.7");
    let env = [
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", "sk-ant-TEST-0".to_string()),
    ];
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let source_key = ran.stdout.trim().to_string();
    let calls_before = fake.requests().len();
    assert_eq!(calls_before, 6);

    // The rubric's threshold moves and the prompt changes; the same fake
    // serves target and judge, so every call it sees after this is counted.
    rubric_suite(root, "0.5");
    std::fs::write(root.join("prompt.txt"), "Changed since: {question}").unwrap();
    let judge_only = [
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", "sk-ant-TEST-0".to_string()),
    ];
    let vars: Vec<(&str, &str)> = judge_only.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let over = digline_env(
        root,
        &[
            "rejudge",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--max-calls",
            "2",
        ],
        &vars,
    );
    assert_eq!(over.code, 64, "{}", over.stderr);
    assert!(
        over.stderr.contains(
            "the re-judge needs 3 calls to judges (none to the target), more than --max-calls 2"
        ),
        "{}",
        over.stderr
    );
    assert_eq!(
        fake.requests().len(),
        calls_before,
        "refused before any call"
    );

    let ran = digline_env(
        root,
        &[
            "rejudge",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--concurrency",
            "2",
            "--max-retries",
            "0",
            "--max-calls",
            "3",
            // Asked again, not answered from the memo the run left.
            "--judge-memo",
            "off",
        ],
        &vars,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: 3 cases × 1 recorded answer = 3 answers replayed; no call to the target; \
         3 calls to judges (1 per answer × 3 answers)\n"
    );
    let since: Vec<Seen> = fake.requests().into_iter().skip(calls_before).collect();
    assert_eq!(since.len(), 3);
    assert!(since.iter().all(Seen::is_judge), "only judges were called");
    for call in &since {
        // The judge sees the recorded question and answer, not today's prompt.
        assert!(
            call.user().contains("Hello, Answer the customer: q"),
            "{}",
            call.user()
        );
        assert!(!call.user().contains("Changed since"));
    }
    let key = ran.stdout.trim();
    let source: Value = serde_json::from_str(&read(&run_file(root, &source_key))).unwrap();
    let doc: Value = serde_json::from_str(&read(&run_file(root, key))).unwrap();
    assert_eq!(doc["rejudged_from"], json!(source_key));
    assert_eq!(doc["target_config"], source["target_config"]);
    assert_eq!(
        doc["artifacts"], source["artifacts"],
        "the prompt that produced the answers"
    );
    assert_eq!(doc["judge_config"], source["judge_config"]);
    for (i, result) in doc["results"].as_array().unwrap().iter().enumerate() {
        let before = &source["results"][i]["verdicts"][1];
        let now = &result["verdicts"][1];
        assert_eq!(
            (before["score"].clone(), before["status"].clone()),
            (json!(0.9), json!("pass"))
        );
        assert_eq!(now["score"], 0.6, "judged again");
        assert_eq!(now["threshold"], 0.5, "the current rule");
        assert_eq!(now["status"], "pass");
        assert_eq!(now["judged"], true);
        assert_eq!(result["responses"], source["results"][i]["responses"]);
    }

    // Never a baseline.
    let promoted = digline(root, &["promote", "--suite", "suite.toml", "--run", key]);
    assert_eq!(promoted.code, 64, "{}", promoted.stderr);
    assert!(
        promoted.stderr.contains(&format!(
            "judged again from the recorded answers of {source_key}"
        )),
        "{}",
        promoted.stderr
    );
    assert!(!root.join(".digline/t/baselines/judged.json").exists());

    // --json: one line, the replay's sentence.
    let ran = digline_env(
        root,
        &[
            "rejudge",
            "--suite",
            "suite.toml",
            "--run",
            &source_key,
            "--json",
            "-q",
        ],
        &vars,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line: Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(line["suite"], "judged");
    assert!(line["sentence"]
        .as_str()
        .unwrap()
        .contains("no call to the target"));
    assert!(fake
        .requests()
        .iter()
        .skip(calls_before)
        .all(Seen::is_judge));
}

/// A stored 0.10.0-shaped store from the `01-threshold` golden, with a
/// suite pointed at a dead port; returns the source key.
fn threshold_store(root: &Path) -> String {
    let gold = golden("rejudge/01-threshold");
    copy_files(&gold, root);
    point_at(&root.join("suite.toml"), dead_port());
    file_run(root, &read(&gold.join("source.json")))
}

fn refused(root: &Path, args: &[&str], says: &str) -> Ran {
    let before = runs(root, "gold", "rejudge");
    let ran = digline(root, args);
    assert_eq!(ran.code, 64, "{args:?}: {}", ran.stderr);
    assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    assert_eq!(
        ran.stderr.lines().count(),
        1,
        "one sentence: {}",
        ran.stderr
    );
    assert_eq!(runs(root, "gold", "rejudge"), before, "nothing written");
    ran
}

#[test]
fn refusals_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let key = threshold_store(root);
    let rejudge = ["rejudge", "--suite", "suite.toml", "--run", key.as_str()];

    // A run that recorded no answers.
    let mut doc: Value =
        serde_json::from_str(&read(&golden("rejudge/01-threshold/source.json"))).unwrap();
    for r in doc["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("responses");
    }
    doc["created_at"] = json!("2026-11-30T06:00:00.000000+00:00");
    let bare = file_run(root, &(serde_json::to_string_pretty(&doc).unwrap() + "\n"));
    refused(
        root,
        &["rejudge", "--suite", "suite.toml", "--run", &bare],
        &format!("run {bare} recorded no answers, so there is nothing to re-judge: set record_responses = true in [suite] and run again"),
    );

    // A case added since.
    let cases = read(&root.join("cases.json"));
    let mut grown: Value = serde_json::from_str(&cases).unwrap();
    grown
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "new", "vars": {"question": "?"}}));
    std::fs::write(root.join("cases.json"), grown.to_string()).unwrap();
    refused(root, &rejudge, "case 'new' is not in run");
    // A case suspended then, asked now.
    let mut woken: Value = serde_json::from_str(&cases).unwrap();
    woken[2].as_object_mut().unwrap().remove("suspended");
    std::fs::write(root.join("cases.json"), woken.to_string()).unwrap();
    refused(root, &rejudge, "case 'paused' was suspended in run");
    std::fs::write(root.join("cases.json"), &cases).unwrap();

    // Sampled differently since.
    let suite = read(&root.join("suite.toml"));
    std::fs::write(
        root.join("suite.toml"),
        suite.replace(
            "record_responses = true",
            "record_responses = true\nsamples = 3\nmin_agreement = \"2/3\"",
        ),
    )
    .unwrap();
    refused(root, &rejudge, "recorded 1 answer(s) in run");
    std::fs::write(root.join("suite.toml"), &suite).unwrap();

    // A case whose call failed.
    let mut failed: Value =
        serde_json::from_str(&read(&golden("rejudge/01-threshold/source.json"))).unwrap();
    failed["created_at"] = json!("2026-11-30T06:00:01.000000+00:00");
    let case = failed["results"][1].as_object_mut().unwrap();
    case.remove("responses");
    for v in case["verdicts"].as_array_mut().unwrap() {
        v["status"] = json!("error");
        v["score"] = Value::Null;
        v["metadata"] = json!({});
        v["reason"] =
            json!("target raised ValueError: 127.0.0.1:1 could not be called: HTTP Error 500");
    }
    let failed = file_run(
        root,
        &(serde_json::to_string_pretty(&failed).unwrap() + "\n"),
    );
    refused(
        root,
        &["rejudge", "--suite", "suite.toml", "--run", &failed],
        "case 'return' has no recorded answer in run",
    );

    // Another suite's run, copied under this one.
    let other = read(&root.join("suite.toml")).replace("name = \"rejudge\"", "name = \"other\"");
    std::fs::write(root.join("other.toml"), other).unwrap();
    let from = run_file(root, &key);
    let misfiled = root.join(".digline/gold/runs/other");
    std::fs::create_dir_all(&misfiled).unwrap();
    std::fs::copy(&from, misfiled.join(format!("{key}.json"))).unwrap();
    let ran = digline(root, &["rejudge", "--suite", "other.toml", "--run", &key]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("belongs to suite 'rejudge', not to this suite's suite 'other': a re-judge never crosses a tenant or a suite"),
        "{}",
        ran.stderr
    );
    assert_eq!(runs(root, "gold", "other"), [format!("{key}.json")]);

    // And the same run, as it is, re-judges fine.
    let ran = digline(root, &rejudge);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn a_run_made_by_this_binary_rejudges_without_its_target() {
    // Recorded through our own driver (not a golden), then the stub is gone.
    let gold = golden("rejudge/02-sampled-cases-changed");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_files(&gold, root);
    let key = {
        let s = stub(&root.join("answers.json"));
        point_at(&root.join("suite.toml"), s.port);
        let ran = digline(root, &["run", "--suite", "suite.toml"]);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        ran.stdout.trim().to_string()
    };
    let ran = digline(
        root,
        &[
            "rejudge",
            "--suite",
            "rejudge-suite.toml",
            "--run",
            "latest",
            "--meta",
            "why=labels",
            "--meta",
            "by=review",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let ours: Value = serde_json::from_str(&read(&run_file(root, ran.stdout.trim()))).unwrap();
    let want: Value = serde_json::from_str(&read(&gold.join("rejudged.json"))).unwrap();
    assert_eq!(ours["rejudged_from"], json!(key));
    assert_eq!(ours["results"], want["results"]);
    assert_eq!(ours["aggregate"], want["aggregate"]);
    assert_eq!(ours["config_hash"], want["config_hash"]);
}
