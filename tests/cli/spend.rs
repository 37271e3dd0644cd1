//! What a run spent, fully: the target's and the judges' USD and tokens are
//! recorded beside the run document (which keeps schema 10's keys), carried
//! to the reference on promote, and shown next to the reference's in the
//! gate's `outcome.json`, comment and report.

use serde_json::{json, Value};

use crate::fake_llm::{self, ok, Seen};
use crate::util::digline_env;

/// The keys of a schema-10 run document: nothing is added for spend.
const SCHEMA_10_KEYS: [&str; 15] = [
    "aggregate",
    "artifacts",
    "config_hash",
    "created_at",
    "digline_version",
    "environment",
    "git_commit",
    "judge_config",
    "metadata",
    "redacted",
    "results",
    "schema_version",
    "suite",
    "target_config",
    "tenant",
];

fn read(path: impl AsRef<std::path::Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

#[test]
fn target_and_judge_spend_is_recorded_promoted_and_shown_next_to_the_reference() {
    // Target: 1000 tokens in, 100 out ($1 / $5 per million: 0.0015 USD);
    // judge: 500 in, 50 out (0.00075 USD).
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.is_judge() {
            ok(seen, r#"{"score": 0.9, "reason": "polite"}"#, 500, 50)
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 1000, 100)
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"prov\"\ncases = \"cases.json\"\n\n\
         [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\nprovider = \"anthropic/claude-haiku-4-5\"\nmax_tokens = 200\n\n\
         [[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Polite.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.7\ntolerance = 0.1\n",
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        json!([{"id": "a", "vars": {"question": "q1"}}, {"id": "b", "vars": {"question": "q2"}}])
            .to_string(),
    )
    .unwrap();
    let env = [
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", "sk-ant-TEST-spend".to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    // The memo off: both runs ask their judges, and spend alike.
    let ran = digline_env(
        root,
        &["run", "-q", "--suite", "suite.toml", "--judge-memo", "off"],
        &env,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let key = ran.stdout.trim().to_string();
    // The document keeps schema 10's keys; the spend is beside it.
    let doc: Value =
        serde_json::from_str(&read(root.join(format!(".digline/t/runs/prov/{key}.json")))).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, SCHEMA_10_KEYS);
    let spend_path = root.join(format!(".digline/t/spend/runs/prov/{key}.json"));
    let spend: Value = serde_json::from_str(&read(&spend_path)).unwrap();
    assert_eq!(
        spend,
        json!({
            "target": {"calls": 2, "sent": 2, "usd": 0.003, "input_tokens": 2000, "output_tokens": 200},
            "judges": {"calls": 2, "sent": 2, "usd": 0.0015, "input_tokens": 1000, "output_tokens": 100},
            "cases_asked": 2
        })
    );

    // Promote: the reference's spend follows it.
    let promoted = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", &key],
        &env,
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    let reference = root.join(".digline/t/spend/baselines/prov.json");
    assert_eq!(read(&reference), read(&spend_path));
    assert_eq!(
        promoted.stderr,
        "digline: commit ./.digline/t/baselines/prov.json and ./.digline/t/spend/baselines/prov.json so the gate compares against it and shows what it spent\n"
    );

    // Gate a new run: its spend next to the reference's, everywhere.
    let gated = digline_env(
        root,
        &[
            "gate",
            "-q",
            "--suite",
            "suite.toml",
            "--out",
            "out",
            "--publish",
            "none",
            // The judges are asked again (not answered from the memo), so
            // both runs spend alike.
            "--judge-memo",
            "off",
        ],
        &env,
    );
    assert_eq!(gated.code, 0, "{}{}", gated.stdout, gated.stderr);
    let outcome: Value = serde_json::from_str(&read(root.join("out/outcome.json"))).unwrap();
    assert_eq!(outcome["spent"], spend);
    assert_eq!(outcome["reference_spent"], spend);
    assert_eq!(
        outcome["spent_usd"],
        json!({"target": 0.003, "reference_target": 0.003, "judges": 0.0015, "reference_judges": 0.0015})
    );
    let sentence = "Spent: 0.003000 USD on the system under test (2000 tokens in, 200 out), 0.001500 USD on judges \
                    (1000 tokens in, 100 out); the reference: 0.003000 USD on the system under test (2000 tokens in, \
                    200 out), 0.001500 USD on judges (1000 tokens in, 100 out).";
    for file in ["comment.md", "summary.md"] {
        let text = read(root.join("out").join(file));
        // Markdown, escaped as every sentence of the comment is.
        let escaped = digline::forge::escape::markdown(sentence);
        assert!(
            text.contains(&format!("Cases\\: 2 stayed the same\\. {escaped}\n")),
            "{file}: {text}"
        );
    }
    let report = read(root.join("out/report.html"));
    assert!(report.contains(sentence), "the report's cost row");

    // A record that does not read (truncated, or edited by hand) is "not
    // recorded": said so, never gated on, the exit code unchanged.
    std::fs::write(&spend_path, "{\"target\": {\"calls\": 2, \"usd\": ").unwrap();
    let gated = digline_env(
        root,
        &[
            "gate",
            "-q",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--out",
            "broken",
            "--publish",
            "none",
        ],
        &env,
    );
    assert_eq!(gated.code, 0, "{}{}", gated.stdout, gated.stderr);
    let outcome: Value = serde_json::from_str(&read(root.join("broken/outcome.json"))).unwrap();
    assert_eq!(outcome["spent"], Value::Null);
    assert_eq!(outcome["reference_spent"], spend);
    let text = read(root.join("broken/summary.md"));
    let sentence = "Spent: not recorded; the reference: 0.003000 USD on the system under test (2000 tokens in, \
                    200 out), 0.001500 USD on judges (1000 tokens in, 100 out).";
    assert!(
        text.contains(&digline::forge::escape::markdown(sentence)),
        "{text}"
    );
}
