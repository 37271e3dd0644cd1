//! Cost as a contract, end to end against a loopback provider: the judge
//! memo (an unchanged rerun pays no judge, a rubric edit re-asks only its
//! pairs, `replay` never calls and a miss is exit 2, a committed entry is
//! never trusted), the spending cap (`--max-usd`: exit 2 naming the budget,
//! spend under the cap, shards sharing it) and a gateway's budget refusal
//! (named, never retried).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::fake_llm::{self, ok, Fake, Reply, Seen};
use crate::util::{digline_env, git, Ran};

const JUDGE: &str = "anthropic/claude-haiku-4-5";

/// A provider that answers `Hello, <prompt>` with honest usage (no more
/// tokens than bytes), and a judge whose score moves with every call, so a
/// reply reused from the memo shows.
fn wobbly() -> Fake {
    let calls = Arc::new(AtomicUsize::new(0));
    fake_llm::start(Box::new(move |seen: &Seen, _| {
        if seen.is_judge() {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            let score = (n % 9 + 1) as f64 / 10.0;
            ok(
                seen,
                &format!("{{\"score\": {score}, \"reason\": \"r{n}\"}}"),
                300,
                30,
            )
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 10, 50)
        }
    }))
}

/// The same provider with a judge that always scores 0.9: what is judged
/// never gets worse, so only the cap decides the gate.
pub(crate) fn steady() -> Fake {
    fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.is_judge() {
            ok(seen, "{\"score\": 0.9, \"reason\": \"fine\"}", 300, 30)
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 10, 50)
        }
    }))
}

pub(crate) fn suite(root: &Path, cases: usize, rubrics: &[&str]) {
    let mut text = format!(
        "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"s\"\ncases = \"cases.json\"\n\n\
         [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\nprovider = \"{JUDGE}\"\nmax_tokens = 200\n"
    );
    if rubrics.is_empty() {
        text.push_str("\n[[assertions]]\ntype = \"contains\"\nneedle = \"Hello\"\n");
    }
    for rubric in rubrics {
        text.push_str(&format!(
            "\n[[assertions]]\ntype = \"llm_rubric\"\nrubric = \"{rubric}\"\njudge = \"{JUDGE}\"\nthreshold = 0.5\ntolerance = 1\n"
        ));
    }
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(root.join("suite.toml"), text).unwrap();
    let cases: Vec<Value> = (0..cases)
        .map(|i| json!({"id": format!("c{i}"), "vars": {"question": format!("q{i}")}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
}

pub(crate) fn env(fake: &Fake) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", "sk-ant-TEST-cost".to_string()),
        // The key a CI secret gives the gate: a memo kept by one process
        // serves the next (`trust.rs` shows what happens without it).
        (
            "DIGLINE_EVIDENCE_KEY",
            "cost-tests-evidence-key-0123456789".to_string(),
        ),
    ]
}

pub(crate) fn go(root: &Path, fake: &Fake, args: &[&str]) -> Ran {
    let vars = env(fake);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    digline_env(root, args, &vars)
}

pub(crate) fn judge_calls(fake: &Fake) -> usize {
    fake.requests().iter().filter(|s| s.is_judge()).count()
}

pub(crate) fn read_json(path: impl AsRef<Path>) -> Value {
    let text = std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()));
    serde_json::from_str(&text).unwrap()
}

fn spend_of(root: &Path, key: &str) -> Value {
    read_json(root.join(format!(".digline/t/spend/runs/s/{key}.json")))
}

fn verdicts(root: &Path, key: &str) -> Vec<(Value, Value)> {
    let doc = read_json(root.join(format!(".digline/t/runs/s/{key}.json")));
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["verdicts"].as_array().unwrap().clone())
        .map(|v| (v["status"].clone(), v["score"].clone()))
        .collect()
}

pub(crate) fn run(root: &Path, fake: &Fake, extra: &[&str]) -> (String, Ran) {
    let mut args = vec!["run", "-q", "--suite", "suite.toml"];
    args.extend_from_slice(extra);
    let ran = go(root, fake, &args);
    (ran.stdout.trim().to_string(), ran)
}

#[test]
fn an_unchanged_rerun_pays_no_judge_and_a_rubric_edit_re_asks_only_its_pairs() {
    let fake = wobbly();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 3, &["Polite.", "Short."]);
    let (first, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(judge_calls(&fake), 6);
    let expected = verdicts(root, &first);
    // Twenty reruns of byte-identical answers: no judge call, no judge
    // spend, the same verdicts every time.
    for _ in 0..20 {
        let (key, ran) = run(root, &fake, &[]);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert_eq!(verdicts(root, &key), expected);
        let spend = spend_of(root, &key);
        assert_eq!(spend["judges"]["calls"], 0, "{spend}");
        assert_eq!(spend["judges"]["usd"], Value::Null, "{spend}");
        assert_eq!(spend["memo"]["hits"], 6, "{spend}");
        assert_eq!(spend["memo"]["misses"], 0, "{spend}");
        assert!(spend["memo"]["saved_usd"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(judge_calls(&fake), 6, "no judge was asked again");
    // Edit one rubric: exactly its three (case, check) pairs are asked.
    suite(root, 3, &["Polite.", "Short and kind."]);
    let before = fake.requests().len();
    let (key, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let asked: Vec<Seen> = fake.requests()[before..]
        .iter()
        .filter(|s| s.is_judge())
        .cloned()
        .collect();
    assert_eq!(asked.len(), 3);
    assert!(asked.iter().all(|s| s.user().contains("Short and kind.")));
    assert_eq!(
        spend_of(root, &key)["memo"],
        json!({"hits": 3, "misses": 3, "saved_usd": spend_of(root, &key)["memo"]["saved_usd"]})
    );
    // Off: every judge asked, nothing recorded about the memo.
    let before = judge_calls(&fake);
    let (key, ran) = run(root, &fake, &["--judge-memo", "off"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(judge_calls(&fake) - before, 6);
    assert_eq!(spend_of(root, &key).get("memo"), None);
}

pub(crate) fn gate(root: &Path, fake: &Fake, out: &str, extra: &[&str]) -> Ran {
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
    go(root, fake, &args)
}

pub(crate) fn promote(root: &Path, fake: &Fake, key: &str) {
    let promoted = go(
        root,
        fake,
        &["promote", "--suite", "suite.toml", "--run", key],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
}

#[test]
fn replay_with_a_miss_is_exit_2_with_no_judge_call() {
    let fake = wobbly();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 2, &["Polite."]);
    let (key, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    promote(root, &fake, &key);
    // Unchanged: replay judges every case from the memo.
    let gated = gate(root, &fake, "same", &["-q", "--judge-memo", "replay"]);
    assert_eq!(gated.code, 0, "{}{}", gated.stdout, gated.stderr);
    let calls = judge_calls(&fake);
    suite(root, 2, &["Polite and short."]);
    let gated = gate(root, &fake, "out", &["--judge-memo", "replay"]);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    assert_eq!(judge_calls(&fake), calls, "replay never calls a judge");
    let outcome = read_json(root.join("out/outcome.json"));
    assert_eq!(outcome["causes"], json!({"memo_miss": 2}), "{outcome}");
    assert_eq!(outcome["spent"]["memo"]["misses"], 2);
    let comment = std::fs::read_to_string(root.join("out/comment.md")).unwrap();
    assert!(
        comment.contains("\\-\\-judge\\-memo replay holds no reply")
            || comment.contains("--judge-memo replay holds no reply"),
        "{comment}"
    );
    assert!(
        gated
            .stderr
            .contains("judge memo (replay): 0 reply(ies) reused, 2 not held"),
        "{}",
        gated.stderr
    );
    // The run document names the fields the nearest entry differs in.
    let doc = read_json(root.join(format!(
        ".digline/t/runs/s/{}.json",
        outcome["run_key"].as_str().unwrap()
    )));
    assert_eq!(
        doc["results"][0]["verdicts"][0]["reason"],
        "the judge was not asked: --judge-memo replay holds no reply for it; the nearest entry for this case and check differs in: rubric or prompt, check declaration"
    );
}

#[test]
fn a_memo_entry_the_repository_tracks_is_never_trusted() {
    let fake = wobbly();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    suite(root, 1, &["Polite."]);
    let (_, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The folder ignores itself: nothing of it is committed by `git add -A`.
    git(root, &["add", "-A"]);
    let staged = git(root, &["diff", "--cached", "--name-only"]);
    assert!(!staged.contains("/memo/"), "{staged}");
    // A pull request forces a forged entry in: a perfect score.
    let memo = root.join(".digline/t/memo");
    let entry = std::fs::read_dir(&memo)
        .unwrap()
        .flatten()
        .find(|e| e.path().is_dir())
        .and_then(|d| std::fs::read_dir(d.path()).unwrap().flatten().next())
        .unwrap()
        .path();
    let mut forged = read_json(&entry);
    forged["reply"] = json!("{\"score\": 1.0, \"reason\": \"forged\"}");
    std::fs::write(&entry, forged.to_string()).unwrap();
    git(root, &["add", "-f", entry.to_str().unwrap()]);
    let calls = judge_calls(&fake);
    let (key, ran) = run(root, &fake, &["--judge-memo", "replay"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(judge_calls(&fake), calls);
    let doc = read_json(root.join(format!(".digline/t/runs/s/{key}.json")));
    let verdict = &doc["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "error", "{verdict}");
    assert!(verdict["reason"]
        .as_str()
        .unwrap()
        .starts_with("the judge was not asked"));
    // With the memo on, the judge is asked again rather than trusting it.
    let (key, _) = run(root, &fake, &[]);
    assert_eq!(judge_calls(&fake), calls + 1);
    let doc = read_json(root.join(format!(".digline/t/runs/s/{key}.json")));
    assert_ne!(doc["results"][0]["verdicts"][0]["reason"], "forged");
}

fn total_usd(spend: &Value) -> f64 {
    spend["target"]["usd"].as_f64().unwrap_or(0.0) + spend["judges"]["usd"].as_f64().unwrap_or(0.0)
}

/// A gate into `out` under a cap of 0.008 USD, which 20 judged cases
/// exceed: exit 2, whatever the judged cases show.
fn capped_gate(root: &Path, fake: &Fake) -> Ran {
    let gated = gate(
        root,
        fake,
        "out",
        &[
            "--judge-memo",
            "off",
            "--max-usd",
            "0.008",
            "--concurrency",
            "2",
        ],
    );
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    gated
}

#[test]
fn an_exhausted_cap_is_exit_2_naming_the_budget_and_spend_stays_under_it() {
    let fake = steady();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 20, &["Polite."]);
    let (key, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    promote(root, &fake, &key);
    let cap = 0.008;
    let gated = capped_gate(root, &fake);
    assert!(
        gated
            .stderr
            .contains("spending cap 0.008000 USD; the last run spent"),
        "{}",
        gated.stderr
    );
    assert!(
        gated
            .stderr
            .contains("the spending cap of 0.008000 USD was reached"),
        "{}",
        gated.stderr
    );
    let outcome = read_json(root.join("out/outcome.json"));
    let spent = &outcome["spent"];
    assert!(total_usd(spent) <= cap, "{spent}");
    assert_eq!(spent["budget_exhausted"], true);
    assert_eq!(spent["max_usd"], cap);
    assert!(
        outcome["causes"]["budget"].as_u64().unwrap() > 0,
        "{outcome}"
    );
    for file in ["comment.md", "summary.md"] {
        let text = std::fs::read_to_string(root.join("out").join(file)).unwrap();
        assert!(text.contains("spending cap"), "{file}: {text}");
    }
    assert!(gated.stdout.contains("spending cap") || gated.stderr.contains("spending cap"));
}

/// The same provider with a judge that always scores 0.1: every judged
/// check that passed in the reference now fails.
pub(crate) fn harsh() -> Fake {
    fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.is_judge() {
            ok(seen, "{\"score\": 0.1, \"reason\": \"poor\"}", 300, 30)
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 10, 50)
        }
    }))
}

#[test]
fn a_run_its_cap_stopped_is_exit_2_even_when_what_it_asked_got_worse() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 20, &["Polite."]);
    let fair = steady();
    let (key, ran) = run(root, &fair, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    promote(root, &fair, &key);
    let fake = harsh();
    // Without a cap the harsh judge makes the gate exit 1 ...
    let uncapped = gate(root, &fake, "uncapped", &["--judge-memo", "off"]);
    assert_eq!(uncapped.code, 1, "{}{}", uncapped.stdout, uncapped.stderr);
    // ... with a cap reached mid-run, 2: the run was not asked whole.
    let before = fake.requests().len();
    let gated = capped_gate(root, &fake);
    let lead = "The spending cap (--max-usd) was reached before every case was asked, so \
                this run could not be judged whole";
    let outcome = read_json(root.join("out/outcome.json"));
    assert_eq!(outcome["exit_code"], 2, "{outcome}");
    assert_eq!(outcome["spent"]["budget_exhausted"], true, "{outcome}");
    assert!(
        outcome["headline"].as_str().unwrap().starts_with(lead),
        "{outcome}"
    );
    assert!(gated.stdout.starts_with(lead), "{}", gated.stdout);
    // The comment and summary lead with it too (Markdown-escaped there).
    let escaped =
        "**The spending cap \\(\\-\\-max\\-usd\\) was reached before every case was asked";
    for file in ["comment.md", "summary.md"] {
        let text = std::fs::read_to_string(root.join("out").join(file)).unwrap();
        assert!(text.contains(escaped), "{file}: {text}");
    }
    // `compare` of the same run answers as the gate did (one exit rule).
    let key = outcome["run_key"].as_str().unwrap();
    let compared = go(
        root,
        &fake,
        &["compare", "--suite", "suite.toml", "--run", key],
    );
    assert_eq!(compared.code, 2, "{}{}", compared.stdout, compared.stderr);
    // No re-ask is made past the cap: every call the gate made is the run's.
    let spent = &outcome["spent"];
    let recorded =
        spent["target"]["calls"].as_u64().unwrap() + spent["judges"]["calls"].as_u64().unwrap();
    assert_eq!((fake.requests().len() - before) as u64, recorded, "{spent}");
}

#[test]
fn four_shards_under_one_cap_spend_no_more_than_it_together() {
    let fake = wobbly();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 24, &["Polite."]);
    let cap = 0.024;
    let mut total = 0.0;
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let (key, ran) = run(
            root,
            &fake,
            &[
                "--shard",
                &shard,
                "--max-usd",
                "0.024",
                "--judge-memo",
                "off",
                // One call at a time: what fits beside the reservations in
                // flight then does not depend on how the threads interleave.
                "--concurrency",
                "1",
            ],
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let spend = spend_of(root, &key);
        assert_eq!(spend["max_usd"], cap / 4.0, "{spend}");
        total += total_usd(&spend);
    }
    assert!(total <= cap, "{total} > {cap}");
    // Each shard's 0.006 fits a few (target, judge) pairs, not its six.
    assert!(total > cap / 4.0, "{total}: the shards did spend");
}

/// LiteLLM's key form (400, 422, 429 with `type: budget_exceeded`) and its
/// deployment form (a 429 "No deployments available - crossed budget",
/// retried as a rate limit before: 25 requests for 5 cases).
#[test]
fn a_gateway_budget_refusal_is_named_and_never_retried() {
    let key_form = |status: u16| json!({"error": {"message": "Budget has been exceeded! Key=sk-...cost Current cost: 0.0021, Max budget: 0.002", "type": "budget_exceeded", "param": null, "code": status.to_string()}});
    let deployment_form = json!({"error": {"message": "No deployments available - crossed budget for provider: Exceeded budget for provider openai: 0.0021 >= 0.002", "type": "None", "param": "None", "code": "429"}});
    let rows = [
        (400_u16, key_form(400)),
        (422, key_form(422)),
        (429, key_form(429)),
        (429, deployment_form),
    ];
    for (status, body) in rows {
        let body = body.to_string();
        let fake = fake_llm::start(Box::new(move |seen: &Seen, _| {
            if seen.is_judge() {
                Reply::Http(status, vec![], body.clone())
            } else {
                ok(seen, &format!("Hello, {}", seen.user()), 10, 50)
            }
        }));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        suite(root, 3, &["Polite."]);
        let (key, ran) = run(root, &fake, &["--judge-memo", "off"]);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert_eq!(
            judge_calls(&fake),
            3,
            "HTTP {status}: one call a case, no retry"
        );
        let doc = read_json(root.join(format!(".digline/t/runs/s/{key}.json")));
        let reason = doc["results"][0]["verdicts"][0]["reason"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            reason.contains("its budget at the gateway is spent"),
            "{reason}"
        );
        let cause = digline::report::cause::classify(&reason);
        assert_eq!(cause.category.as_str(), "gateway_budget", "{reason}");
    }
}

/// A provider that allows 10 calls a second (a token bucket of a second's
/// worth, as providers meter a minute's; 429 with no wait when empty), and two processes running 30 cases each against it with one key
/// at `--rate 600` (10 a second), their quota buckets in one folder
/// (`shared`) or each in its own. What the provider saw: the calls refused,
/// the times of those answered, and each process's run.
fn two_processes(
    shared: bool,
) -> (
    usize,
    Vec<std::time::Instant>,
    Vec<(tempfile::TempDir, Ran)>,
) {
    use std::sync::Mutex;
    use std::time::Instant;
    struct Bucket {
        level: f64,
        at: Instant,
        refused: usize,
        times: Vec<Instant>,
    }
    let bucket = Arc::new(Mutex::new(Bucket {
        level: 10.0,
        at: Instant::now(),
        refused: 0,
        times: Vec::new(),
    }));
    let seen = Arc::clone(&bucket);
    let fake = fake_llm::start(Box::new(move |request: &Seen, _| {
        let mut b = seen.lock().unwrap();
        let now = Instant::now();
        b.level = (b.level + now.duration_since(b.at).as_secs_f64() * 10.0).min(10.0);
        b.at = now;
        if b.level < 1.0 {
            b.refused += 1;
            return Reply::Http(
                429,
                vec![],
                json!({"error": {"type": "rate_limit_error", "message": "parallel requests"}})
                    .to_string(),
            );
        }
        b.level -= 1.0;
        b.times.push(now);
        ok(request, &format!("Hello, {}", request.user()), 10, 10)
    }));
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    for dir in &dirs {
        suite(dir.path(), 30, &[]);
    }
    let ran: Vec<Ran> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .iter()
            .map(|dir| {
                let fake = &fake;
                // Shared: both in the first suite's folder; else each its own.
                let quota_dir = if shared { &dirs[0] } else { dir };
                let quota_dir = quota_dir.path().to_str().unwrap().to_string();
                scope.spawn(move || {
                    let mut vars = env(fake);
                    vars.push(("DIGLINE_QUOTA_DIR", quota_dir));
                    let vars: Vec<(&str, &str)> =
                        vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
                    digline_env(
                        dir.path(),
                        &[
                            "run",
                            "-q",
                            "--suite",
                            "suite.toml",
                            "--rate",
                            "600",
                            "--max-retries",
                            "0",
                        ],
                        &vars,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let b = bucket.lock().unwrap();
    (
        b.refused,
        b.times.clone(),
        dirs.into_iter().zip(ran).collect(),
    )
}

/// Two processes sharing a key and a rate share one quota: together they
/// use ≥ 75 % of it (two processes splitting it would use 50 %; a loaded
/// CI machine's scheduling costs the rest), waste no 429 and error no case. Each pacing alone
/// (what digline did before) draws twice the rate and is refused.
#[test]
fn two_processes_sharing_a_key_and_a_rate_share_one_quota() {
    let (refused, times, runs) = two_processes(true);
    assert_eq!(refused, 0, "no 429 was wasted");
    assert_eq!(times.len(), 60, "every case answered once");
    let span = times[59].duration_since(times[0]).as_secs_f64();
    // 60 calls at 10 a second: 59 intervals of 0.1 s at full use.
    let used = 5.9 / span;
    assert!(used >= 0.75, "{used:.2} of the quota in {span:.2} s");
    assert!(span >= 5.5, "{span:.2} s: faster than the quota");
    for (dir, r) in &runs {
        assert_eq!(r.code, 0, "{}", r.stderr);
        let doc = read_json(
            dir.path()
                .join(format!(".digline/t/runs/s/{}.json", r.stdout.trim())),
        );
        let errored = doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["verdicts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v["status"] == "error")
            })
            .count();
        assert_eq!(errored, 0);
    }
    let (refused, _, _) = two_processes(false);
    assert!(refused > 5, "each pacing alone: {refused} refused");
}

/// `rejudge` asks the memo too and records what it spent beside the new
/// run, as `run` does: the recorded answers, already judged, cost nothing.
#[test]
fn rejudge_uses_the_memo_and_records_its_spend() {
    let fake = wobbly();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 3, &["Polite."]);
    let text = std::fs::read_to_string(root.join("suite.toml")).unwrap();
    std::fs::write(
        root.join("suite.toml"),
        text.replace(
            "cases = \"cases.json\"\n",
            "cases = \"cases.json\"\nrecord_responses = true\n",
        ),
    )
    .unwrap();
    let (_, ran) = run(root, &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let calls = fake.requests().len();
    let rejudged = go(
        root,
        &fake,
        &["rejudge", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(rejudged.code, 0, "{}", rejudged.stderr);
    assert_eq!(
        fake.requests().len(),
        calls,
        "neither the target nor a judge was called"
    );
    assert!(
        rejudged
            .stderr
            .contains("judge memo (on): 3 reply(ies) reused, 0 not held"),
        "{}",
        rejudged.stderr
    );
    let spend = spend_of(root, rejudged.stdout.trim());
    assert_eq!(spend["target"]["calls"], 0, "{spend}");
    assert_eq!(spend["judges"]["calls"], 0, "{spend}");
    assert_eq!(spend["memo"]["hits"], 3, "{spend}");
    // Off: the judges are asked and paid, and that is recorded.
    let rejudged = go(
        root,
        &fake,
        &[
            "rejudge",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--judge-memo",
            "off",
        ],
    );
    assert_eq!(rejudged.code, 0, "{}", rejudged.stderr);
    let spend = spend_of(root, rejudged.stdout.trim());
    assert_eq!(spend["judges"]["calls"], 3, "{spend}");
    assert!(spend["judges"]["usd"].as_f64().unwrap() > 0.0, "{spend}");
}

/// An HTTP target that reports each call's price (`cost_path`), `cases`
/// cases `c0`… answered from `root/answers.json`: the stub serving it.
fn priced_http_suite(root: &Path, cases: usize) -> crate::util::Stub {
    let server = crate::util::stub(&root.join("answers.json"));
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"s\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n\
             cost_path = \"usage.cost_usd\"\n\n[target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"yes\"\n",
            server.port
        ),
    )
    .unwrap();
    let cases: Vec<Value> = (0..cases)
        .map(|i| json!({"id": format!("c{i}"), "vars": {}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
    server
}

/// An HTTP target reports its price only after it answers. With eight cases
/// asked eight at a time, the cap used to be passed by every call in
/// flight, silently (0.008 USD spent under a cap of 0.005, exit 0). Now a
/// call of unknown price reserves what one cost in the suite's last spend
/// record: five fit, the rest are not asked, and the gate says so (2).
#[test]
fn calls_priced_after_they_answer_reserve_their_last_price_and_keep_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("answers.json"), r#"{"*": "yes"}"#).unwrap();
    let _server = priced_http_suite(root, 8);
    let first = digline_env(root, &["run", "-q", "--suite", "suite.toml"], &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let capped = digline_env(
        root,
        &[
            "run",
            "-q",
            "--suite",
            "suite.toml",
            "--max-usd",
            "0.005",
            "--concurrency",
            "8",
        ],
        &[],
    );
    // `run` records (0); its spend record says the cap was reached, and a
    // gate of it answers 2.
    assert_eq!(capped.code, 0, "{}{}", capped.stdout, capped.stderr);
    let key = capped.stdout.trim();
    let spend = read_json(root.join(format!(".digline/t/spend/runs/s/{key}.json")));
    assert!(total_usd(&spend) <= 0.005 + 1e-12, "{spend}");
    assert_eq!(spend["target"]["calls"], 5, "{spend}");
    assert_eq!(spend["budget_exhausted"], true, "{spend}");
}

/// An HTTP target whose price rose mid-run (cost_path), under `--max-usd
/// 0.02`, eight calls at a time asked for: calls of unknown price go one
/// at a time, so the rise is met by one call; the spend record says that
/// call was billed over its reservation, the next call that could pass the
/// cap is not sent, and the cap is passed by at most that call (before: 0.05
/// spent under 0.02). A negative price is refused (the call is an error),
/// never recorded as negative spend.
#[test]
fn a_price_that_rises_is_met_by_one_call_and_a_negative_price_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut answers = serde_json::Map::new();
    for i in 0..10 {
        let cost = if i < 3 { 0.001 } else { 0.01 };
        answers.insert(format!("c{i}"), json!({"answer": "yes", "cost_usd": cost}));
    }
    std::fs::write(
        root.join("answers.json"),
        Value::Object(answers).to_string(),
    )
    .unwrap();
    let _server = priced_http_suite(root, 10);
    // The reference: every case asked, uncapped.
    let first = digline_env(root, &["run", "-q", "--suite", "suite.toml"], &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let promoted = digline_env(
        root,
        &[
            "promote",
            "-q",
            "--suite",
            "suite.toml",
            "--run",
            first.stdout.trim(),
        ],
        &[],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    let gate = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--out",
            "out",
            "--publish",
            "none",
            "--max-usd",
            "0.02",
            "--concurrency",
            "8",
        ],
        &[],
    );
    assert_eq!(gate.code, 2, "{}{}", gate.stdout, gate.stderr);
    let outcome = read_json(root.join("out/outcome.json"));
    let spend = &outcome["spent"];
    assert_eq!(spend["budget_exhausted"], true, "{spend}");
    // The reference cost 0.0073 a call: the first call at the risen price
    // (0.01) is the one billed over its reservation, by 0.0027; after it
    // every call reserves 0.01, and none is sent that could pass 0.02.
    assert_eq!(spend["overbilled"]["calls"], 1, "{spend}");
    let over = spend["overbilled"]["usd"].as_f64().unwrap();
    assert!((over - 0.0027).abs() < 1e-9, "{spend}");
    assert!(total_usd(spend) <= 0.02 + 1e-12, "{spend}");
    // Every call sent is counted, and the cases asked are those sent.
    assert_eq!(spend["target"]["sent"], spend["target"]["calls"], "{spend}");
    assert_eq!(spend["cases_asked"], spend["target"]["calls"], "{spend}");
    // A case never sent took no time: no surface says "It took 0 ms".
    for file in ["comment.md", "summary.md", "report.html"] {
        let text = std::fs::read_to_string(root.join("out").join(file)).unwrap();
        assert!(!text.contains("took 0 ms"), "{file}: {text}");
        assert!(text.contains("spending cap"), "{file}: {text}");
    }

    // A price of -20 USD: the call is an error naming the path.
    let mut answers = serde_json::Map::new();
    answers.insert("*".into(), json!({"answer": "yes", "cost_usd": -20}));
    std::fs::write(
        root.join("answers.json"),
        Value::Object(answers).to_string(),
    )
    .unwrap();
    let ran = digline_env(root, &["run", "-q", "--suite", "suite.toml"], &[]);
    let key = ran.stdout.trim();
    let doc = read_json(root.join(format!(".digline/t/runs/s/{key}.json")));
    let reason = doc["results"][0]["verdicts"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("'usage.cost_usd' holds -20, which is not a price"),
        "{reason}"
    );
    let spend = read_json(root.join(format!(".digline/t/spend/runs/s/{key}.json")));
    assert!(spend["target"]["usd"].is_null(), "{spend}");
    assert_eq!(spend["target"]["sent"], 10, "{spend}");
}

/// A provider that bills far more tokens than the request's bytes suggest
/// (5,000 input tokens for a prompt of a few dozen bytes: an 0.00505 USD
/// call whose worst case by bytes is about a quarter of that), under
/// `--max-usd`: the first call goes alone and is billed over its
/// reservation; the spend record says `overbilled` (1 call), the cap is
/// passed by at most that call, and no call is sent that could pass it
/// at the price now known: exit 2 (before: 0.015 spent under 0.005).
#[test]
fn a_provider_that_bills_more_tokens_than_the_bytes_is_met_by_one_call_under_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 10, &[]);
    let honest = steady();
    let (key, ran) = run(root, &honest, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    promote(root, &honest, &key);
    let greedy = fake_llm::start(Box::new(|seen: &Seen, _| {
        ok(seen, &format!("Hello, {}", seen.user()), 5_000, 10)
    }));
    // One call's bill: 5,000 input tokens at 1 USD/M, 10 output at 5 USD/M.
    let bill = 5_000.0 * 1e-6 + 10.0 * 5e-6;
    let capped = |out: &str, cap: &str| {
        let before = greedy.requests().len();
        let gated = gate(
            root,
            &greedy,
            out,
            &["--max-usd", cap, "--concurrency", "8"],
        );
        assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
        assert!(
            gated
                .stderr
                .contains(&format!("the spending cap of {cap} USD was reached")),
            "{}",
            gated.stderr
        );
        let spend = read_json(root.join(out).join("outcome.json"))["spent"].clone();
        assert_eq!(spend["budget_exhausted"], true, "{spend}");
        assert_eq!(spend["overbilled"]["calls"], 1, "{spend}");
        // Every request the provider saw is one the record counts.
        let sent = (greedy.requests().len() - before) as u64;
        assert_eq!(spend["target"]["sent"], sent, "{spend}");
        assert_eq!(spend["target"]["calls"], sent, "{spend}");
        assert_eq!(spend["cases_asked"], sent, "{spend}");
        spend
    };
    // A cap below one call's bill: the first call (reserved within the
    // cap) passes it, by less than it was billed over its reservation, and
    // it is the only call sent.
    let spend = capped("under-one-call", "0.003000");
    assert_eq!(spend["target"]["sent"], 1, "{spend}");
    let spent = total_usd(&spend);
    assert!((spent - bill).abs() < 1e-12, "{spend}");
    let over = spend["overbilled"]["usd"].as_f64().unwrap();
    assert!(spent - 0.003 <= over + 1e-12, "{spend}");
    assert!(
        over > 0.003,
        "reserved about a quarter of the bill: {spend}"
    );
    // A cap of a few calls: after the first bill every reservation is
    // scaled to it, so the cap is never passed and no later call is over.
    let spend = capped("a-few-calls", "0.012000");
    assert_eq!(spend["target"]["sent"], 2, "{spend}");
    assert!(total_usd(&spend) <= 0.012, "{spend}");
    assert!((total_usd(&spend) - 2.0 * bill).abs() < 1e-12, "{spend}");
}

/// `--max-retries` bounds every call, judges included: a judge that always
/// answers 429 gets at most one retry a call under `--max-retries 1` (45
/// retries for 20 calls before), and the count is printed.
#[test]
fn a_judge_always_throttled_gets_max_retries_a_call() {
    let fake = fake_llm::start(Box::new(move |seen: &Seen, _| {
        if seen.is_judge() {
            Reply::Http(
                429,
                vec![],
                json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}})
                    .to_string(),
            )
        } else {
            ok(seen, &format!("Hello, {}", seen.user()), 10, 50)
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 6, &["Polite."]);
    let ran = go(
        root,
        &fake,
        &[
            "run",
            "--suite",
            "suite.toml",
            "--judge-memo",
            "off",
            "--max-retries",
            "1",
            "--concurrency",
            "4",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(judge_calls(&fake), 12, "6 judge calls, one retry each");
    assert!(
        ran.stderr
            .contains("6 call(s) were tried again (6 retries: rate_limited 6)"),
        "{}",
        ran.stderr
    );
}
