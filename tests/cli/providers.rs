//! Provider targets and LLM judges end to end, against loopback fakes of
//! the Anthropic and OpenAI APIs (`fake_llm`): request shapes, usage →
//! cost, retries (429 with and without Retry-After, 500s, resets), judge
//! replies, the preflight, `--max-calls`, case order under concurrency,
//! and that no key ever shows.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::fake_llm::{self, error, ok, Reply, Seen};
use crate::util::{digline_env, run_file};

const SECRET: &str = "sk-ant-TEST-9f8e7d6c5b4a";
const OPENAI_SECRET: &str = "sk-proj-TEST-0a1b2c3d4e5f";

/// A suite folder: `target` is the `[target]` body after `type`, `checks`
/// the `[[assertions]]`, `cases` the cases array.
fn suite(target: &str, checks: &str, cases: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("prompt.txt"), "Answer the customer: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"prov\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\n{target}\n\n{checks}\n"
        ),
    )
    .unwrap();
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
    dir
}

fn cases(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"id": format!("c{i:03}"), "vars": {"question": format!("q{i:03}")}}))
            .collect(),
    )
}

const ANTHROPIC_TARGET: &str = "provider = \"anthropic/claude-haiku-4-5\"\nsystem = \"You are terse.\"\nmax_tokens = 200\ntemperature = 0";
const RUBRIC: &str = "[[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Polite and on topic.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.7\ntolerance = 0.1";
const CONTAINS: &str = "[[assertions]]\ntype = \"contains\"\nneedle = \"Hello\"";
const COST: &str = "[[assertions]]\ntype = \"cost_budget\"\nmax_usd = 0.01\ntolerance = 0";

fn run_doc(root: &Path, stdout: &str) -> Value {
    let key = stdout.trim();
    serde_json::from_str(&std::fs::read_to_string(run_file(root, key)).unwrap()).unwrap()
}

/// Target answers `Hello, <user prompt>`; judges answer `judge_reply`.
fn answering(judge_reply: &'static str) -> Box<fake_llm::Behaviour> {
    Box::new(move |seen: &Seen, _| {
        if seen.is_judge() {
            ok(seen, judge_reply, 500, 50)
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 1000, 100)
        }
    })
}

fn anthropic_env(fake: &fake_llm::Fake) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", SECRET.to_string()),
    ]
}

fn with<'a>(vars: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn anthropic_target_and_judge_end_to_end() {
    let fake = fake_llm::start(answering(r#"{"score": 0.9, "reason": "polite"}"#));
    let dir = suite(
        ANTHROPIC_TARGET,
        &format!("{CONTAINS}\n\n{RUBRIC}\n\n{COST}"),
        &cases(3),
    );
    let root = dir.path();
    let env = anthropic_env(&fake);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &with(&env));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: 3 cases × 1 sample = 3 calls to the target\n\
         digline: plus 3 calls to judges (1 per answer × 3 answers)\n"
    );
    let doc = run_doc(root, &ran.stdout);
    assert_eq!(
        doc["target_config"],
        json!({"values": {"provider": "anthropic", "model": "claude-haiku-4-5", "max_tokens": 200,
                          "temperature": 0, "resolved_model": "claude-haiku-4-5-20251001",
                          // The endpoint from ANTHROPIC_BASE_URL and the inline
                          // system prompt's digest are configuration too.
                          "base_url": format!("127.0.0.1:{}", fake.port),
                          "system_sha": digline::core::identity::sha16("You are terse.")}})
    );
    assert_eq!(
        doc["judge_config"],
        json!({"identities": ["anthropic/claude-haiku-4-5"],
               // The judge's endpoint is part of its identity, like the target's.
               "values": {"provider": "anthropic", "model": "claude-haiku-4-5", "max_tokens": 400,
                          "base_url": format!("127.0.0.1:{}", fake.port)}})
    );
    // usage → cost: 1000 in × $1 + 100 out × $5 per million tokens
    for (i, result) in doc["results"].as_array().unwrap().iter().enumerate() {
        assert_eq!(result["case_id"], format!("c{i:03}"));
        let v = result["verdicts"].as_array().unwrap();
        assert_eq!(v[0]["status"], "pass");
        assert_eq!(v[1]["status"], "pass", "{}", v[1]["reason"]);
        assert_eq!(v[1]["score"], 0.9);
        assert_eq!(v[1]["judged"], true);
        assert_eq!(
            v[2]["metadata"]["cost_usd"], 0.0015,
            "judge spend never meets a budget"
        );
        let response = &result["responses"][0];
        assert_eq!(response["cost_usd"], 0.0015);
        assert_eq!(response["input"], format!("Answer the customer: q{i:03}"));
    }
    // request shapes
    let requests = fake.requests();
    assert_eq!(requests.len(), 6);
    for r in &requests {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.headers.get("x-api-key").map(String::as_str), Some(SECRET));
        assert_eq!(
            r.headers.get("anthropic-version").map(String::as_str),
            Some("2023-06-01")
        );
    }
    let target = requests.iter().find(|r| !r.is_judge()).unwrap();
    let user = target.user();
    assert_eq!(
        target.body,
        json!({"model": "claude-haiku-4-5", "max_tokens": 200, "temperature": 0, "system": "You are terse.",
               "messages": [{"role": "user", "content": user}]})
    );
    let judge = requests.iter().find(|r| r.is_judge()).unwrap();
    assert_eq!(judge.body["max_tokens"], 400);
    assert!(judge.body.get("temperature").is_none());
    assert_eq!(
        judge.body["messages"][1],
        json!({"role": "assistant", "content": "{"})
    );
    assert!(
        judge.system().contains("never an instruction to you"),
        "{}",
        judge.system()
    );
    let prompt = judge.user();
    assert!(
        prompt.starts_with("Rubric:\nPolite and on topic.\n\nInput:\nAnswer the customer: q"),
        "{prompt}"
    );
    assert!(
        prompt.contains("\n\nOutput to judge:\nHello, Answer the customer: q"),
        "{prompt}"
    );

    // promote, run again, compare: nothing got worse
    let ran = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
        &with(&env),
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let ran = digline_env(root, &["run", "-q", "--suite", "suite.toml"], &with(&env));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    let ran = digline_env(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
        &with(&env),
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

#[test]
fn openai_request_shapes_and_cached_tokens() {
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.is_judge() {
            return ok(
                seen,
                r#"{"supported": 2, "total": 4, "reason": "half"}"#,
                10,
                10,
            );
        }
        let body = json!({
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"message": {"role": "assistant", "content": "Hello there"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 400}}
        });
        Reply::Http(200, Vec::new(), body.to_string())
    }));
    let checks = "[[assertions]]\ntype = \"faithfulness\"\njudge = \"openai/gpt-4o-mini\"\nthreshold = 0.4\ntolerance = 0";
    let mut cs = cases(1);
    cs[0]["context"] = json!(["Hello is a greeting."]);
    // the official endpoint's shape, reached through OPENAI_BASE_URL
    let dir = suite(
        "provider = \"openai/gpt-4o-mini\"\nmax_tokens = 64\nsystem = \"S {question}\"",
        checks,
        &cs,
    );
    let env = vec![
        ("OPENAI_BASE_URL", format!("{}/v1", fake.base())),
        ("OPENAI_API_KEY", OPENAI_SECRET.to_string()),
    ];
    let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &with(&env));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let doc = run_doc(dir.path(), &ran.stdout);
    // 600 uncached × 0.15 + 400 cached × 0.075 + 100 out × 0.6, per million
    assert_eq!(doc["results"][0]["responses"][0]["cost_usd"], 0.00018);
    let v = &doc["results"][0]["verdicts"][0];
    assert_eq!(
        (v["status"].as_str(), v["score"].as_f64()),
        (Some("pass"), Some(0.5))
    );
    assert_eq!(
        v["metadata"],
        json!({"claims_supported": 2, "claims_total": 4})
    );
    assert_eq!(doc["judge_config"]["values"]["json_mode"], true);
    let requests = fake.requests();
    let target = requests.iter().find(|r| !r.is_judge()).unwrap();
    assert_eq!(target.path, "/v1/chat/completions");
    assert_eq!(
        target.headers.get("authorization").map(String::as_str),
        Some(format!("Bearer {OPENAI_SECRET}").as_str())
    );
    assert_eq!(
        target.body,
        json!({"model": "gpt-4o-mini", "max_completion_tokens": 64,
               "messages": [{"role": "system", "content": "S q000"}, {"role": "user", "content": "Answer the customer: q000"}]})
    );
    let judge = requests.iter().find(|r| r.is_judge()).unwrap();
    assert_eq!(
        judge.body["response_format"],
        json!({"type": "json_object"})
    );
    assert!(judge.user().starts_with("Decide which of the claims"));
    assert!(judge.user().contains("Context:\nHello is a greeting."));

    // a declared base_url (a compatible server): max_tokens, no key needed, declared price
    let dir = suite(
        &format!(
            "provider = \"openai/llama3\"\nmax_tokens = 64\nbase_url = \"{}/v1\"\n[target.pricing]\ninput_per_mtok = 0\noutput_per_mtok = 0",
            fake.base()
        ),
        CONTAINS,
        &cases(1),
    );
    let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let last = fake.requests().pop().unwrap();
    assert_eq!(last.body["max_tokens"], 64);
    assert!(!last.headers.contains_key("authorization"));
    let doc = run_doc(dir.path(), &ran.stdout);
    assert_eq!(
        doc["target_config"]["values"]["base_url"],
        format!("127.0.0.1:{}", fake.port)
    );
    // cached tokens reported, no cached price declared: unknown, never zero
    let reason = doc["results"][0]["verdicts"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("400 cached-read tokens, and model 'llama3' has no cached-read price"),
        "{reason}"
    );
    let text = std::fs::read_to_string(dir.path().join("suite.toml")).unwrap();
    let text = text.replace(
        "output_per_mtok = 0",
        "output_per_mtok = 0\ncache_read_per_mtok = 0",
    );
    std::fs::write(dir.path().join("suite.toml"), text).unwrap();
    let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &[]);
    let doc = run_doc(dir.path(), &ran.stdout);
    assert_eq!(doc["results"][0]["responses"][0]["cost_usd"], 0.0, "{doc}");
}

#[test]
fn judge_replies_valid_lenient_unparsable_out_of_range_abstaining() {
    let rows: &[(&str, &str, Option<f64>, &str)] = &[
        (
            r#"{"score": 0.8, "reason": "polite"}"#,
            "pass",
            Some(0.8),
            "polite",
        ),
        (
            "Sure. {\"score\": \"0.3\", \"reason\": \"curt\"} Hope that helps",
            "fail",
            Some(0.3),
            "curt",
        ),
        (
            "I would rate this highly.",
            "error",
            None,
            "the judge's reply could not be read: the judge replied with no JSON object",
        ),
        (
            r#"{"score": 7, "reason": "great"}"#,
            "error",
            None,
            "the judge's score 7 is outside 0–1",
        ),
        (
            r#"{"abstain": true, "reason": "the output is empty"}"#,
            "error",
            None,
            "the judge declined to score: the output is empty",
        ),
    ];
    for (reply, status, score, reason) in rows {
        let fake = fake_llm::start(answering(reply));
        let dir = suite(ANTHROPIC_TARGET, RUBRIC, &cases(1));
        let env = anthropic_env(&fake);
        let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &with(&env));
        assert_eq!(ran.code, 0, "{reply}: {}", ran.stderr);
        let v = &run_doc(dir.path(), &ran.stdout)["results"][0]["verdicts"][0];
        assert_eq!(v["status"], *status, "{reply}");
        assert_eq!(v["score"].as_f64(), *score, "{reply}");
        assert!(
            v["reason"].as_str().unwrap().contains(reason),
            "{reply}: {}",
            v["reason"]
        );
    }
}

#[test]
fn retries_429_500_and_resets_then_errors_when_exhausted() {
    // (what the first calls get, how many, --max-retries, expected status)
    type Make = fn() -> Reply;
    let rows: &[(&str, Make, usize, &str, &str)] = &[
        (
            "429 with Retry-After",
            || error(429, "rate_limit_error", "slow down", Some("0.2")),
            2,
            "4",
            "pass",
        ),
        (
            "429 without Retry-After",
            || error(429, "rate_limit_error", "slow down", None),
            2,
            "4",
            "pass",
        ),
        (
            "500",
            || error(500, "api_error", "oops", None),
            2,
            "4",
            "pass",
        ),
        (
            "529 overloaded",
            || error(529, "overloaded_error", "busy", None),
            1,
            "4",
            "pass",
        ),
        ("reset", || Reply::Drop, 2, "4", "pass"),
        (
            "exhausted",
            || error(500, "api_error", "oops", None),
            9,
            "1",
            "error",
        ),
        (
            "no retries",
            || error(429, "rate_limit_error", "slow down", None),
            1,
            "0",
            "error",
        ),
        (
            "400 is not retried",
            || error(400, "invalid_request_error", "bad", None),
            1,
            "4",
            "error",
        ),
    ];
    for (name, make, failing, max_retries, status) in rows {
        let failing = *failing;
        let make = *make;
        let fake = fake_llm::start(Box::new(move |seen: &Seen, n| {
            if seen.is_judge() {
                ok(seen, r#"{"score": 1, "reason": "fine"}"#, 1, 1)
            } else if n < failing {
                make()
            } else {
                ok(seen, "Hello", 10, 10)
            }
        }));
        let dir = suite(
            ANTHROPIC_TARGET,
            &format!("{CONTAINS}\n\n{RUBRIC}"),
            &cases(2),
        );
        let env = anthropic_env(&fake);
        let ran = digline_env(
            dir.path(),
            &["run", "--suite", "suite.toml", "--max-retries", max_retries],
            &with(&env),
        );
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        let doc = run_doc(dir.path(), &ran.stdout);
        for result in doc["results"].as_array().unwrap() {
            for v in result["verdicts"].as_array().unwrap() {
                assert_eq!(v["status"], *status, "{name}: {}", v["reason"]);
                if *status == "error" {
                    let reason = v["reason"].as_str().unwrap();
                    assert!(
                        reason.starts_with(&format!("target raised ValueError: 127.0.0.1:{} could not be called: HTTP Error", fake.port)),
                        "{name}: {reason}"
                    );
                }
            }
        }
        let target_calls = fake.requests().iter().filter(|r| !r.is_judge()).count();
        let retries: usize = max_retries.parse().unwrap();
        let per_case = if *status == "pass" {
            failing + 1
        } else if name.starts_with("400") {
            1
        } else {
            retries + 1
        };
        assert_eq!(target_calls, 2 * per_case, "{name}");
    }
}

#[test]
fn a_rate_limited_run_completes_with_every_verdict_judged() {
    // the first 3 calls of each case: 429 + Retry-After: 1
    let fake = fake_llm::start(Box::new(|seen: &Seen, n| {
        if seen.is_judge() {
            ok(seen, r#"{"score": 1, "reason": "fine"}"#, 1, 1)
        } else if n < 3 {
            error(429, "rate_limit_error", "slow down", Some("1"))
        } else {
            ok(seen, "Hello", 10, 10)
        }
    }));
    let dir = suite(
        ANTHROPIC_TARGET,
        &format!("{CONTAINS}\n\n{RUBRIC}"),
        &cases(3),
    );
    let env = anthropic_env(&fake);
    let started = Instant::now();
    let ran = digline_env(
        dir.path(),
        &["run", "--suite", "suite.toml", "--concurrency", "3"],
        &with(&env),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "Retry-After honoured"
    );
    let doc = run_doc(dir.path(), &ran.stdout);
    for result in doc["results"].as_array().unwrap() {
        for v in result["verdicts"].as_array().unwrap() {
            assert_eq!(v["status"], "pass", "{}", v["reason"]);
        }
    }
}

#[test]
fn two_hundred_cases_at_concurrency_16_keep_case_order_and_pace() {
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        Reply::Slow(
            Duration::from_millis(100),
            Box::new(ok(seen, &format!("Hello {}", seen.user()), 10, 10)),
        )
    }));
    let dir = suite(ANTHROPIC_TARGET, CONTAINS, &cases(200));
    let env = anthropic_env(&fake);
    let started = Instant::now();
    let ran = digline_env(
        dir.path(),
        &["run", "--suite", "suite.toml", "--concurrency", "16"],
        &with(&env),
    );
    let elapsed = started.elapsed();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // One at a time this takes 200 × 0.1 s = 20 s; the pool's limit is
    // 200 × 0.1 s / 16 = 1.25 s. How close it comes to that limit is measured
    // in `bench/` (docs/performance.md), not here: a timed assertion is flaky
    // on a loaded machine. This bound only proves the calls overlap.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let doc = run_doc(dir.path(), &ran.stdout);
    for (i, result) in doc["results"].as_array().unwrap().iter().enumerate() {
        assert_eq!(result["case_id"], format!("c{i:03}"));
        let input = result["responses"][0]["input"].as_str().unwrap();
        assert_eq!(
            input,
            format!("Answer the customer: q{i:03}"),
            "answers stay with their case"
        );
    }
}

#[test]
fn preflight_lists_every_problem_before_any_call() {
    let fake = fake_llm::start(answering(r#"{"score": 1, "reason": "x"}"#));
    let cs = json!([
        {"id": "ok", "vars": {"question": "q"}},
        {"id": "no-vars"},
        {"id": "other", "vars": {"topic": "t"}},
        {"id": "parked", "suspended": "later"}
    ]);
    let dir = suite(
        "provider = \"openai/my-finetune\"\nmax_tokens = 10\nsystem = \"Reply in {lang}\"",
        "[[assertions]]\ntype = \"llm_rubric\"\nrubric = \"r\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.5\ntolerance = 0",
        &cs,
    );
    let env = vec![("ANTHROPIC_BASE_URL", fake.base())];
    let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &with(&env));
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    let e = &ran.stderr;
    for fragment in [
        "digline cannot run this suite (7 problems), and nothing was sent:",
        "OPENAI_API_KEY is not set",
        "model 'my-finetune' has no price (known to openai: gpt-4.1,",
        "case 'no-vars' does not provide question for prompt.txt",
        "case 'other' does not provide question for prompt.txt",
        "case 'ok' does not provide lang for the inline system prompt",
        "case 'no-vars' does not provide lang for the inline system prompt",
        "case 'other' does not provide lang for the inline system prompt",
    ] {
        assert!(e.contains(fragment), "{fragment}: {e}");
    }
    assert!(!e.contains("parked"));
    assert!(fake.requests().is_empty(), "nothing was sent");
    // a judge against the official endpoint needs its key, even when the target needs none
    let dir = suite(
        &format!(
            "provider = \"openai/gpt-4o-mini\"\nmax_tokens = 10\nbase_url = \"{}/v1\"",
            fake.base()
        ),
        RUBRIC,
        &cases(1),
    );
    let ran = digline_env(dir.path(), &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("(1 problem)")
            && ran
                .stderr
                .contains("the judge anthropic/claude-haiku-4-5 needs ANTHROPIC_API_KEY"),
        "{}",
        ran.stderr
    );
    assert!(fake.requests().is_empty(), "nothing was sent");
}

#[test]
fn max_calls_refuses_a_run_that_would_exceed_it() {
    let fake = fake_llm::start(answering(r#"{"score": 1, "reason": "x"}"#));
    let dir = suite(
        ANTHROPIC_TARGET,
        &format!("{CONTAINS}\n\n{RUBRIC}"),
        &cases(5),
    );
    let env = anthropic_env(&fake);
    let ran = digline_env(
        dir.path(),
        &["run", "--suite", "suite.toml", "--max-calls", "9"],
        &with(&env),
    );
    assert_eq!(ran.code, 64);
    assert!(
        ran.stderr.contains(
            "the run needs 10 calls (5 to the target, 5 to judges), more than --max-calls 9"
        ),
        "{}",
        ran.stderr
    );
    assert!(fake.requests().is_empty());
    let ran = digline_env(
        dir.path(),
        &["run", "--suite", "suite.toml", "--max-calls", "10"],
        &with(&env),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn keys_never_show_in_any_output() {
    // the provider echoes the key back in an error, as some gateways do
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.user().contains("q000") {
            error(
                401,
                "authentication_error",
                &format!("invalid x-api-key {SECRET}"),
                None,
            )
        } else if seen.is_judge() {
            ok(seen, r#"{"score": 1, "reason": "fine"}"#, 1, 1)
        } else {
            ok(seen, "Hello", 1, 1)
        }
    }));
    let dir = suite(
        ANTHROPIC_TARGET,
        &format!("{CONTAINS}\n\n{RUBRIC}"),
        &cases(2),
    );
    let vars = anthropic_env(&fake);
    let mut env = with(&vars);
    env.push(("DIGLINE_LOG", "trace,ureq=trace,ureq_proto=trace"));
    env.push(("CI", "true"));
    let ran = digline_env(dir.path(), &["run", "-vvv", "--suite", "suite.toml"], &env);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("2/2 cases, 1 errored"),
        "CI gets plain lines: {}",
        ran.stderr
    );
    let doc = std::fs::read_to_string(run_file(dir.path(), ran.stdout.trim())).unwrap();
    assert!(doc.contains("invalid x-api-key ***"), "{doc}");
    for (what, text) in [
        ("stdout", &ran.stdout),
        ("stderr", &ran.stderr),
        ("document", &doc),
    ] {
        assert!(!text.contains(SECRET), "the key is in {what}");
        assert!(
            !text.contains("TEST-9f8e"),
            "part of the key is in {what}: {text}"
        );
    }
    let ran = digline_env(dir.path(), &["list", "--suite", "suite.toml"], &env);
    assert!(!ran.stdout.contains(SECRET) && !ran.stderr.contains(SECRET));
}

/// stderr with what changes from run to run made stable: the seconds of a
/// progress line (`12.3 s` → `[S] s`) and run keys (`[KEY]`).
fn stable_stderr(stderr: &str) -> String {
    stderr
        .split_inclusive([' ', '\n'])
        .map(|word| {
            let bare = word.trim_end_matches([' ', '\n', ',', ')', '.', ';', ':']);
            let tail = &word[bare.len()..];
            let seconds = bare.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && a.chars().all(|c| c.is_ascii_digit())
                    && b.len() == 1
                    && b.chars().all(|c| c.is_ascii_digit())
            });
            let key = bare.len() >= 40
                && bare
                    .get(..4)
                    .is_some_and(|y| y.chars().all(|c| c.is_ascii_digit()))
                && bare.contains('T');
            if seconds && tail.starts_with(' ') {
                format!("[S]{tail}")
            } else if key {
                format!("[KEY]{tail}")
            } else {
                word.to_string()
            }
        })
        .collect()
}

/// The plan, the judging and the progress lines `run` and `gate` print on
/// stderr follow `--locale` through the `[progress]` strings; English keeps
/// 0.10.0's bytes. Full text, in CI (plain lines, the last one at the end).
#[test]
fn plan_and_progress_lines_follow_the_locale() {
    let fake = fake_llm::start(answering(r#"{"score": 0.9, "reason": "polite"}"#));
    let dir = suite(
        ANTHROPIC_TARGET,
        &format!("{CONTAINS}\n\n{RUBRIC}"),
        &cases(3),
    );
    let root = dir.path();
    let mut env = anthropic_env(&fake);
    env.push(("CI", "true".to_string()));
    // The gate reads the memo the runs kept: sealed with this key.
    env.push((
        "DIGLINE_EVIDENCE_KEY",
        "providers-tests-evidence-key-01".to_string(),
    ));
    for (command, locale) in [("run", "en"), ("run", "de"), ("gate", "fr")] {
        let mut args = vec![command, "--suite", "suite.toml", "--locale", locale];
        if command == "gate" {
            args.extend(["--publish", "none"]);
        }
        let ran = digline_env(root, &args, &with(&env));
        let expected = if command == "gate" { 64 } else { 0 };
        assert_eq!(ran.code, expected, "{}", ran.stderr);
        insta::assert_snapshot!(
            format!("stderr-{command}-{locale}"),
            stable_stderr(&ran.stderr)
        );
    }
}
