//! No CI job hangs or spends twice: the waits a server asks for (every
//! header form, bounded by `--max-wait`, a zero is no hint), the gate that
//! reads the baseline before paying for a run, one writer per run, and
//! `--rate`. Against loopback fakes sending the real header forms.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::fake_llm::{self, ok, Reply, Seen};
use crate::fault_server::{Fault, FaultServer};
use crate::faults::write_suite;
use crate::util::{digline, digline_env, run_file};

const KEY: &str = "sk-ant-TEST-pace-0001";
const TARGET: &str = "provider = \"anthropic/claude-haiku-4-5\"\nmax_tokens = 50";
const CONTAINS: &str = "[[assertions]]\ntype = \"contains\"\nneedle = \"Hello\"";

/// A provider suite of `n` cases in a temp folder.
fn suite(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("prompt.txt"), "Say hello: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"pace\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\n{TARGET}\n\n{CONTAINS}\n"
        ),
    )
    .unwrap();
    let cases: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("c{i:02}"), "vars": {"question": format!("q{i:02}")}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
    dir
}

fn run(dir: &Path, fake: &fake_llm::Fake, extra: &[&str]) -> crate::util::Ran {
    let mut args = vec!["run", "--suite", "suite.toml"];
    args.extend_from_slice(extra);
    digline_env(
        dir,
        &args,
        &[
            ("ANTHROPIC_BASE_URL", &fake.base()),
            ("ANTHROPIC_API_KEY", KEY),
        ],
    )
}

fn verdicts(dir: &Path, key: &str) -> Vec<Value> {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(run_file(dir, key)).unwrap()).unwrap();
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["verdicts"].as_array().unwrap().clone())
        .collect()
}

fn too_many(headers: &[(&str, String)]) -> Reply {
    let body =
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}});
    Reply::Http(
        429,
        headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        body.to_string(),
    )
}

/// `Retry-After: 86400` fails the call at once with a sentence naming the
/// asked wait and the limit (before: clamped to 120 s and retried 4 times,
/// 480 s of a CI job), and the healthy case is not held back.
#[test]
fn a_wait_over_max_wait_fails_that_call_at_once() {
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        if seen.user().contains("q00") {
            too_many(&[("retry-after", "86400".into())])
        } else {
            ok(seen, "Hello", 5, 5)
        }
    }));
    let dir = suite(2);
    let started = Instant::now();
    let ran = run(dir.path(), &fake, &["--max-retries", "1"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let v = verdicts(dir.path(), ran.stdout.trim());
    assert_eq!(v[0]["status"], "error");
    assert_eq!(
        v[0]["reason"],
        format!(
            "target raised ValueError: 127.0.0.1:{} could not be called: HTTP Error 429: Too Many Requests (rate_limit_error: slow down); the server asked for a wait of 86400 s, longer than the longest wait allowed (--max-wait 120 s), so digline did not wait",
            fake.port
        )
    );
    assert_eq!(v[1]["status"], "pass");
    assert!(
        ran.stderr
            .contains("digline: 1 call(s) failed at once: the asked wait was over --max-wait\n"),
        "{}",
        ran.stderr
    );
    // --max-wait is the limit: 30 s asked, 5 s allowed.
    let fake = fake_llm::start(Box::new(|seen: &Seen, n| {
        if n == 0 {
            too_many(&[("retry-after", "30".into())])
        } else {
            ok(seen, "Hello", 5, 5)
        }
    }));
    let dir = suite(1);
    let ran = run(dir.path(), &fake, &["--max-wait", "5"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = verdicts(dir.path(), ran.stdout.trim());
    assert!(
        v[0]["reason"].as_str().unwrap().ends_with(
            "; the server asked for a wait of 30 s, longer than the longest wait allowed (--max-wait 5 s), so digline did not wait"
        ),
        "{}",
        v[0]["reason"]
    );
}

/// `retry-after: 0` is no hint: the retries back off as usual (before:
/// instant retries, 80 requests in 1.2 s against a real gateway).
#[test]
fn a_zero_retry_after_backs_off_as_usual() {
    let fake = fake_llm::start(Box::new(|seen: &Seen, n| {
        if n < 3 {
            too_many(&[("retry-after", "0".into())])
        } else {
            ok(seen, "Hello", 5, 5)
        }
    }));
    let dir = suite(1);
    let started = Instant::now();
    let ran = run(dir.path(), &fake, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // jittered backoffs of at least 0.25 + 0.5 + 1 s
    assert!(
        started.elapsed() >= Duration::from_millis(1750),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(verdicts(dir.path(), ran.stdout.trim())[0]["status"], "pass");
    assert!(
        ran.stderr
            .contains("digline: 1 call(s) were tried again (3 retries: rate_limited 3)\n"),
        "{}",
        ran.stderr
    );
}

/// Every header form a provider or a gateway uses to ask for a wait is
/// read: each asks for ≈ 2 s, longer than digline's own first backoffs.
#[test]
fn every_header_form_of_a_wait_is_honoured() {
    type Make = fn() -> Vec<(&'static str, String)>;
    let rows: &[(&str, Make)] = &[
        ("LiteLLM", || vec![("llm_provider-retry-after", "2".into())]),
        ("HTTP-date", || {
            let at = SystemTime::now() + Duration::from_secs(3);
            vec![("retry-after", httpdate::fmt_http_date(at))]
        }),
        ("OpenAI reset", || {
            vec![
                ("x-ratelimit-remaining-requests", "0".into()),
                ("x-ratelimit-reset-requests", "2s".into()),
                ("x-ratelimit-remaining-tokens", "1000".into()),
                ("x-ratelimit-reset-tokens", "6m0s".into()),
            ]
        }),
        ("Anthropic reset", || {
            let at = time::OffsetDateTime::now_utc() + time::Duration::seconds(3);
            let at = at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap();
            vec![
                ("anthropic-ratelimit-requests-remaining", "0".into()),
                ("anthropic-ratelimit-requests-reset", at),
            ]
        }),
    ];
    for (name, make) in rows {
        let make = *make;
        let fake = fake_llm::start(Box::new(move |seen: &Seen, n| {
            if n == 0 {
                too_many(&make())
            } else {
                ok(seen, "Hello", 5, 5)
            }
        }));
        let dir = suite(1);
        let started = Instant::now();
        let ran = run(dir.path(), &fake, &["--max-retries", "1"]);
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        assert!(
            started.elapsed() >= Duration::from_millis(1900),
            "{name}: {:?}",
            started.elapsed()
        );
        assert_eq!(
            verdicts(dir.path(), ran.stdout.trim())[0]["status"],
            "pass",
            "{name}"
        );
    }
}

/// Behind a gateway with a per-minute limit that says when to come back
/// (LiteLLM forwards the provider's 429 as `llm_provider-retry-after` and
/// `llm_provider-retry-after-ms`, with `llm_provider-x-ratelimit-*`):
/// `--max-retries` bounds every call, a 429 as much as any failure (before,
/// a 429 while others were answered used up no retry: 45 retries for 20
/// judge calls under `--max-retries 1`), and `--rate` inside the limit
/// finishes every case. The limit here: one call per 1.2 s, no burst.
#[test]
fn a_gateway_limit_is_waited_out() {
    const EVERY: Duration = Duration::from_millis(1200);
    let next_free = Arc::new(Mutex::new(Instant::now()));
    let refused = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(AtomicUsize::new(0));
    let (r, a) = (Arc::clone(&refused), Arc::clone(&asked));
    let fake = fake_llm::start(Box::new(move |seen: &Seen, _| {
        a.fetch_add(1, Ordering::SeqCst);
        let now = Instant::now();
        let mut free = next_free.lock().unwrap();
        if now < *free {
            r.fetch_add(1, Ordering::SeqCst);
            let wait = *free - now;
            return too_many(&[
                (
                    "llm_provider-retry-after",
                    wait.as_secs().max(1).to_string(),
                ),
                ("llm_provider-retry-after-ms", wait.as_millis().to_string()),
                ("llm_provider-x-ratelimit-remaining-requests", "0".into()),
                (
                    "llm_provider-x-ratelimit-reset-requests",
                    format!("{:.3}s", wait.as_secs_f64()),
                ),
                ("x-ratelimit-remaining-requests", "0".into()),
            ]);
        }
        *free = now + EVERY;
        ok(seen, "Hello", 5, 5)
    }));
    // Every call at most twice under `--max-retries 1`, whatever the pool.
    let dir = suite(10);
    let ran = run(
        dir.path(),
        &fake,
        &["--concurrency", "8", "--max-retries", "1"],
    );
    assert!(
        asked.load(Ordering::SeqCst) <= 20,
        "{} requests for 10 calls: {}",
        asked.load(Ordering::SeqCst),
        ran.stderr
    );
    assert!(refused.load(Ordering::SeqCst) > 0, "the limit was reached");
    // Paced inside the limit, every case finishes.
    let dir = suite(10);
    let ran = run(dir.path(), &fake, &["--concurrency", "8", "--rate", "45"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = verdicts(dir.path(), ran.stdout.trim());
    assert!(
        v.iter().all(|v| v["status"] == "pass"),
        "{v:?}\n{}",
        ran.stderr
    );
}

/// `--rate 300` spreads 8 calls 200 ms apart.
#[test]
fn rate_spreads_the_calls() {
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| ok(seen, "Hello", 5, 5)));
    let dir = suite(8);
    let started = Instant::now();
    let ran = run(dir.path(), &fake, &["--rate", "300", "--concurrency", "8"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        started.elapsed() >= Duration::from_millis(1400),
        "{:?}",
        started.elapsed()
    );
    let bad = run(dir.path(), &fake, &["--rate", "fast"]);
    assert_eq!(bad.code, 64);
    assert!(
        bad.stderr.contains("--rate 'fast' is not a rate: write requests per minute (600 or 600rpm), tokens per minute (90000tpm), or both (600rpm,90000tpm), each a number above 0"),
        "{}",
        bad.stderr
    );
}

/// A repository whose committed baseline is corrupt, and a counting server.
fn corrupt_baseline() -> (tempfile::TempDir, FaultServer) {
    let dir = tempfile::tempdir().unwrap();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    write_suite(dir.path(), "http", server.port, 3);
    let ran = digline(dir.path(), &["-q", "run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let promoted = digline(
        dir.path(),
        &["promote", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    let baseline = dir.path().join(".digline/faults/baselines/faults.json");
    std::fs::write(&baseline, "{\"schema_version\": 10, \"results\": [").unwrap();
    (dir, server)
}

/// A corrupt baseline refuses the gate before the first call (before: every
/// case was asked and paid for, then the gate refused).
#[test]
fn gate_reads_the_baseline_before_the_first_call() {
    let (dir, _old) = corrupt_baseline();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    write_suite(dir.path(), "http", server.port, 3);
    let ran = digline(
        dir.path(),
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--publish",
            "none",
            "--out",
            "o",
        ],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("baselines/faults.json is not a readable run document"),
        "{}",
        ran.stderr
    );
    assert!(server.calls().is_empty(), "{:?}", server.calls());
}

/// The gate's outcome file counts the run's retries by reason.
#[test]
fn the_outcome_counts_the_retries() {
    let server = FaultServer::start(
        |_, nth| match nth {
            1 => Fault::TooMany(None),
            2 => Fault::Status(503),
            _ => Fault::Answer { delay_ms: 0 },
        },
        false,
    );
    let dir = tempfile::tempdir().unwrap();
    write_suite(dir.path(), "http", server.port, 2);
    let ran = digline(
        dir.path(),
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--publish",
            "none",
            "--out",
            "o",
        ],
    );
    // no baseline yet: no verdict, but the files are written
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    let outcome: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("o/outcome.json")).unwrap())
            .unwrap();
    assert_eq!(
        outcome["retries"],
        json!({"calls": 2, "connection": 0, "rate_limited": 2, "server_error": 2, "waits_refused": 0})
    );
    assert!(
        ran.stderr.contains(
            "digline: 2 call(s) were tried again (4 retries: rate_limited 2, server_error 2)\n"
        ),
        "{}",
        ran.stderr
    );
    // Gating a stored run: nothing was called, so no retries key at all.
    let again = digline(
        dir.path(),
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--publish",
            "none",
            "--out",
            "p",
        ],
    );
    assert_eq!(again.code, 64, "{}", again.stderr);
    let outcome: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("p/outcome.json")).unwrap())
            .unwrap();
    assert!(outcome.get("retries").is_none(), "{outcome}");
}

/// `run --resume` while the run is still going is refused in one sentence
/// naming the live process (before: it asked the unanswered cases again,
/// in parallel with the first process); once that process is gone, the
/// resume goes ahead.
#[test]
fn a_second_writer_is_refused_while_the_run_goes_on() {
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 300 }, false);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_suite(root, "http", server.port, 20);
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_digline"))
        .args(["-q", "run", "--suite", "suite.toml", "--concurrency", "1"])
        .current_dir(root)
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .env_remove("TF_BUILD")
        .env_remove("JENKINS_URL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pending = root.join(".digline/faults/runs/faults/.pending");
    let deadline = Instant::now() + Duration::from_secs(20);
    let key = loop {
        let leg = std::fs::read_dir(&pending).ok().and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .find_map(|n| n.strip_suffix(".0.jsonl").map(str::to_string))
        });
        // the first run holds its lock once its pid is in the lock file
        if let Some(key) = leg.filter(|key| {
            std::fs::read_to_string(pending.join(format!("{key}.lock")))
                .is_ok_and(|pid| pid.ends_with('\n'))
        }) {
            break key;
        }
        assert!(Instant::now() < deadline, "the first run never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let second = digline(root, &["run", "--suite", "suite.toml", "--resume"]);
    let lock = format!("./.digline/faults/runs/faults/.pending/{key}.lock");
    assert_eq!(second.code, 64, "{}", second.stderr);
    assert_eq!(
        second.stderr,
        format!(
            "digline: run {key} is still going: process {} is writing its journal ({}), and a second writer would ask its cases again; wait for that process to end, or stop it, then resume\n",
            first.id(),
            lock
        )
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let resumed = digline(root, &["-q", "run", "--suite", "suite.toml", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(resumed.stdout.trim(), key);
    assert!(!pending.exists(), "the journal and its lock are gone");
}

/// An Anthropic target's endpoint is set in the suite (as an OpenAI one's
/// is), and the judges have their own (`DIGLINE_JUDGE_ANTHROPIC_BASE_URL`),
/// so the target's gateway and the judges' API are two places.
#[test]
fn the_target_and_the_judges_have_their_own_endpoints() {
    let target = fake_llm::start(Box::new(|seen: &Seen, _| ok(seen, "Hello", 5, 5)));
    let judge = fake_llm::start(Box::new(|seen: &Seen, _| {
        ok(seen, r#"{"score": 1, "reason": "fine"}"#, 5, 5)
    }));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("prompt.txt"), "Say hello: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"pace\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\n{TARGET}\nbase_url = \"{}\"\n\n\
             [[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Polite.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.5\ntolerance = 0\n",
            target.base()
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "c0", "vars": {"question": "q0"}}, {"id": "c1", "vars": {"question": "q1"}}]"#,
    )
    .unwrap();
    let ran = digline_env(
        root,
        &["run", "--suite", "suite.toml"],
        &[
            ("ANTHROPIC_API_KEY", KEY),
            ("DIGLINE_JUDGE_ANTHROPIC_BASE_URL", &judge.base()),
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = verdicts(root, ran.stdout.trim());
    assert!(v.iter().all(|v| v["status"] == "pass"), "{v:?}");
    assert_eq!(target.requests().len(), 2);
    assert!(target.requests().iter().all(|r| !r.is_judge()));
    assert_eq!(judge.requests().len(), 2);
    assert!(judge.requests().iter().all(Seen::is_judge));
}
