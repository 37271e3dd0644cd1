//! The fault matrix: every way a system under test fails in production,
//! served on loopback by [`FaultServer`], through the real binary. Each
//! fault errors the cases with a one-line cause: `run` stores the run
//! (exit 0), `compare` cannot judge it (exit 2) — never 0 or 1, never a
//! panic or 70 — and everything ends in bounded time.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fault_server::{Fault, FaultServer};
use crate::util::digline;

/// Two cases, one `contains` check, answers read by path, a 1 s timeout.
pub fn write_suite(root: &Path, scheme: &str, port: u16, cases: usize) {
    let suite = format!(
        "[suite]\ntenant = \"faults\"\nenvironment = \"local\"\nname = \"faults\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
         [target]\ntype = \"http\"\nurl = \"{scheme}://127.0.0.1:{port}/answer\"\noutput_path = \"data.answer\"\n\
         cost_path = \"usage.cost_usd\"\nconfig_path = \"config\"\nlatency_from_response = \"usage.elapsed_ms\"\ntimeout = 1\n\n\
         [target.body]\nid = \"case.id\"\n\n[[assertions]]\ntype = \"contains\"\nneedle = \"Northwind\"\n"
    );
    std::fs::write(root.join("suite.toml"), suite).unwrap();
    let cases: Vec<Value> = (0..cases)
        .map(|i| serde_json::json!({"id": format!("c{i:02}"), "vars": {}}))
        .collect();
    std::fs::write(
        root.join("cases.json"),
        serde_json::to_string_pretty(&cases).unwrap(),
    )
    .unwrap();
}

/// The stored run `key` of the fault suite.
pub fn read_run(root: &Path, key: &str) -> Value {
    let path = root.join(format!(".digline/faults/runs/faults/{key}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A repository with a promoted baseline from a well-behaved server.
fn with_baseline() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let good = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    write_suite(dir.path(), "http", good.port, 2);
    let ran = digline(dir.path(), &["-q", "run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let promoted = digline(
        dir.path(),
        &["promote", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    dir
}

/// Run against `server` with `retries`, then compare: every verdict an
/// error whose one-line reason holds `cause`, run 0, compare 2.
fn errors_with(server: &FaultServer, scheme: &str, retries: &str, cause: &str) -> Value {
    let dir = with_baseline();
    let root = dir.path();
    write_suite(root, scheme, server.port, 2);
    let started = Instant::now();
    let ran = digline(
        root,
        &["run", "--suite", "suite.toml", "--max-retries", retries],
    );
    assert_eq!(ran.code, 0, "run is never a gate: {}", ran.stderr);
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    let doc = read_run(root, ran.stdout.trim());
    for result in doc["results"].as_array().unwrap() {
        for verdict in result["verdicts"].as_array().unwrap() {
            assert_eq!(verdict["status"], "error", "{verdict}");
            let reason = verdict["reason"].as_str().unwrap();
            assert!(!reason.contains('\n'), "one line: {reason:?}");
            assert!(reason.contains(cause), "{cause:?} in {reason:?}");
            assert!(
                reason.contains(&format!("127.0.0.1:{}", server.port)) || !reason.contains("http"),
                "{reason}"
            );
        }
    }
    let compared = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(
        compared.code, 2,
        "an outage is never green nor red: {}{}",
        compared.stdout, compared.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "bounded: {:?}",
        started.elapsed()
    );
    doc
}

fn always(fault: Fault) -> FaultServer {
    FaultServer::start(move |_, _| fault.clone(), false)
}

#[test]
fn a_slow_body_past_the_timeout_errors() {
    errors_with(&always(Fault::Slow), "http", "0", "timed out");
}

#[test]
fn a_hanging_server_errors_at_the_timeout() {
    errors_with(&always(Fault::Hang), "http", "0", "timed out");
}

#[test]
fn a_reset_mid_body_errors() {
    errors_with(
        &always(Fault::ResetMidBody),
        "http",
        "0",
        "could not be called",
    );
}

#[test]
fn too_many_requests_with_and_without_retry_after_error() {
    errors_with(
        &always(Fault::TooMany(Some(1))),
        "http",
        "0",
        "HTTP Error 429",
    );
    errors_with(&always(Fault::TooMany(None)), "http", "0", "HTTP Error 429");
}

#[test]
fn server_errors_error() {
    for code in [500, 502, 503] {
        errors_with(
            &always(Fault::Status(code)),
            "http",
            "0",
            &format!("HTTP Error {code}"),
        );
    }
}

#[test]
fn invalid_json_errors() {
    errors_with(&always(Fault::InvalidJson), "http", "0", "not JSON");
}

#[test]
fn a_50_mb_body_errors_at_the_cap() {
    errors_with(&always(Fault::Huge), "http", "0", "larger than 16 MiB");
}

#[test]
fn the_wrong_content_type_errors() {
    errors_with(&always(Fault::WrongType), "http", "0", "not JSON");
}

#[test]
fn a_redirect_loop_errors() {
    errors_with(&always(Fault::RedirectLoop), "http", "0", "infinite loop");
}

#[test]
fn tls_to_a_plain_port_errors() {
    let plain = always(Fault::Answer { delay_ms: 0 });
    errors_with(&plain, "https", "0", "the TLS handshake failed");
}

#[test]
fn a_port_closed_after_the_preflight_errors() {
    let gone = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, true);
    errors_with(&gone, "http", "0", "could not be called");
}

#[test]
fn retries_give_up_with_an_error_and_recover_from_a_blip() {
    // Always 503: retried, then an error naming the cause.
    let down = always(Fault::Status(503));
    errors_with(&down, "http", "2", "HTTP Error 503");
    assert!(down.calls().values().all(|n| *n == 3), "{:?}", down.calls());
    // 429 (Retry-After: 0) then 502 then an answer: the case passes.
    let blip = FaultServer::start(
        |_, nth| match nth {
            1 => Fault::TooMany(Some(0)),
            2 => Fault::Status(502),
            _ => Fault::Answer { delay_ms: 0 },
        },
        false,
    );
    let dir = with_baseline();
    write_suite(dir.path(), "http", blip.port, 2);
    let ran = digline(
        dir.path(),
        &["-q", "run", "--suite", "suite.toml", "--max-retries", "2"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let compared = digline(
        dir.path(),
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(compared.code, 0, "{}{}", compared.stdout, compared.stderr);
    assert!(blip.calls().values().all(|n| *n == 3), "{:?}", blip.calls());
}

/// A suite whose answers come from the stub's table `answers` and whose
/// one check is `check` (TOML), in a fresh directory.
fn pattern_project(answers: &Value, check: &str) -> (tempfile::TempDir, crate::util::Stub) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("answers.json"), answers.to_string()).unwrap();
    let server = crate::util::stub(&root.join("answers.json"));
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"ci\"\nname = \"patterns\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.body]\nid = \"case.id\"\n\n{check}",
            server.port
        ),
    )
    .unwrap();
    std::fs::write(root.join("cases.json"), r#"[{"id": "a"}]"#).unwrap();
    (dir, server)
}

/// A `json_schema` pattern the engine gives up on is an error, not a
/// violation: the gate says 2 (could not judge), never 1 (worse).
#[test]
fn a_schema_pattern_that_gives_up_cannot_judge() {
    let good = serde_json::json!({"*": {"answer": "{\"code\": \"abc\"}"}});
    let check = "[[assertions]]\ntype = \"json_schema\"\nschema = { type = \"object\", properties = { code = { type = \"string\", pattern = '^(a|a)*(?=b)\\1c' } } }\n";
    let (dir, _server) = pattern_project(&good, check);
    let root = dir.path();
    // The baseline: a short code, judged (it does not match: a violation).
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        digline(
            root,
            &["promote", "--suite", "suite.toml", "--run", "latest"]
        )
        .code,
        0
    );
    let hostile =
        serde_json::json!({"*": {"answer": format!("{{\"code\": \"{}\"}}", "a".repeat(40))}});
    std::fs::write(root.join("answers.json"), hostile.to_string()).unwrap();
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let run = crate::util::run_file(root, ran.stdout.trim());
    let run: Value = serde_json::from_slice(&std::fs::read(run).unwrap()).unwrap();
    let verdict = &run["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "error", "{verdict}");
    assert!(
        verdict["reason"]
            .as_str()
            .unwrap()
            .starts_with(r"pattern '^(a|a)*(?=b)\\1c' could not be searched to the end: "),
        "{verdict}"
    );
    let ran = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
}

/// `(?=.*x)y` over a 300,000-character answer: quadratic work with almost
/// no backtracking. The search gives up at its time budget (5 s) with an
/// error; the run ends in bounded time.
#[test]
fn a_regex_over_a_long_answer_is_bounded_in_time() {
    let answers = serde_json::json!({"*": {"answer": "y".repeat(300_000)}});
    let check = "[[assertions]]\ntype = \"regex\"\npattern = '(?=.*x)y'\n";
    let (dir, _server) = pattern_project(&answers, check);
    let root = dir.path();
    let started = Instant::now();
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    let took = started.elapsed();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(took < Duration::from_secs(60), "{took:?}");
    let run = crate::util::run_file(root, ran.stdout.trim());
    let run: Value = serde_json::from_slice(&std::fs::read(run).unwrap()).unwrap();
    let verdict = &run["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "error", "{verdict}");
    assert!(
        verdict["reason"].as_str().unwrap().starts_with(
            "pattern /(?=.*x)y/ could not be searched to the end: the search ran out of its 5 s budget at character "
        ),
        "{verdict}"
    );
}

/// The cause categories the gate shows are derived from the reasons the
/// real clients store: every fault above, classified.
#[test]
fn every_fault_the_http_client_meets_has_its_cause_category() {
    use digline::report::cause::{classify, Category};
    let gone = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, true);
    let plain = always(Fault::Answer { delay_ms: 0 });
    let table: Vec<(FaultServer, &str, &str, Category)> = vec![
        (always(Fault::Hang), "http", "timed out", Category::Timeout),
        (
            always(Fault::ResetMidBody),
            "http",
            "could not be called",
            Category::ConnectionFailed,
        ),
        (
            always(Fault::TooMany(None)),
            "http",
            "HTTP Error 429",
            Category::HttpStatus,
        ),
        (
            always(Fault::Status(404)),
            "http",
            "HTTP Error 404",
            Category::HttpStatus,
        ),
        (
            always(Fault::InvalidJson),
            "http",
            "not JSON",
            Category::NotJson,
        ),
        (
            always(Fault::WrongType),
            "http",
            "not JSON",
            Category::NotJson,
        ),
        (
            always(Fault::Huge),
            "http",
            "larger than 16 MiB",
            Category::TooLarge,
        ),
        (
            gone,
            "http",
            "could not be called",
            Category::ConnectionRefused,
        ),
        (
            plain,
            "https",
            "the TLS handshake failed",
            Category::ConnectionFailed,
        ),
    ];
    for (server, scheme, cause, category) in &table {
        let doc = errors_with(server, scheme, "0", cause);
        for result in doc["results"].as_array().unwrap() {
            for verdict in result["verdicts"].as_array().unwrap() {
                let reason = verdict["reason"].as_str().unwrap();
                let got = classify(reason);
                assert_eq!(got.category, *category, "{reason}");
                assert_eq!(
                    got.endpoint.as_deref(),
                    Some(format!("127.0.0.1:{}", server.port).as_str()),
                    "{reason}"
                );
                if *category == Category::HttpStatus {
                    assert!(got.status.is_some(), "{reason}");
                }
            }
        }
    }
}

/// A call that failed is timed: the milliseconds its last attempt took are
/// recorded beside the run (`.digline/<tenant>/timings/`), never in the
/// run document (0.10.0's bytes: the verdicts keep `metadata: {}` and the
/// reason), and the gate says them after the cause. A case that answered
/// has no time recorded.
#[test]
fn a_failed_call_s_elapsed_time_is_recorded_beside_the_run_and_said() {
    let dir = with_baseline();
    let root = dir.path();
    let server = FaultServer::start(
        |id, _| match id {
            "c00" => Fault::Hang,
            _ => Fault::Answer { delay_ms: 0 },
        },
        false,
    );
    write_suite(root, "http", server.port, 2);
    let ran = digline(
        root,
        &["-q", "run", "--suite", "suite.toml", "--max-retries", "0"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let key = ran.stdout.trim();
    let record = root.join(format!(".digline/faults/timings/runs/faults/{key}.json"));
    let timings: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let ms = timings["elapsed_ms"]["c00"].as_u64().unwrap();
    assert!((900..10_000).contains(&ms), "the 1 s timeout: {timings}");
    assert_eq!(
        timings,
        serde_json::json!({
            "elapsed_ms": {"c00": ms},
            "endpoint": format!("127.0.0.1:{}", server.port)
        }),
        "only the failed case, and the endpoint called"
    );
    let doc = read_run(root, key);
    let errored = &doc["results"][0]["verdicts"][0];
    assert_eq!(errored["metadata"], serde_json::json!({}), "{errored}");

    let gated = digline(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--run",
            key,
            "--publish",
            "none",
            "--out",
            "out",
        ],
    );
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    let line = format!(
        "c00 · contains · The check could not run. The target at 127.0.0.1:{} did not answer \
         in time. It took {ms} ms.",
        server.port
    );
    assert!(
        gated.stdout.lines().any(|l| l == line),
        "{line}\nin\n{}",
        gated.stdout
    );
    for file in ["comment.md", "summary.md", "junit.xml", "report.html"] {
        let text = std::fs::read_to_string(root.join("out").join(file)).unwrap();
        assert!(
            text.contains(&format!("{ms} ms")),
            "{file} says the elapsed time: {text}"
        );
    }
}

/// Issue 17: every path a pull request's pattern runs on has a bound.
/// Property names (`patternProperties`, and `additionalProperties` through
/// it) are matched on the linear engine: a pattern needing lookaround is
/// refused when the suite loads (0.10.0 accepted `(?=.*x)y` and then ran
/// for as long as a long name made it), and a linear one over a
/// 1,000,000-character name is judged at once; a `pattern` under
/// `propertyNames` runs within the search budget, and running out is an
/// error, never a fail.
#[test]
fn every_schema_pattern_path_is_bounded_in_time() {
    let long_name = "y".repeat(1_000_000);
    let answers = serde_json::json!({"*": {"answer": format!("{{\"{long_name}\": 1}}")}});
    let hostile = "[[assertions]]\ntype = \"json_schema\"\nschema = { type = \"object\", patternProperties = { '(?=.*x)y' = { type = \"integer\" } } }\n";
    let (dir, _server) = pattern_project(&answers, hostile);
    let root = dir.path();
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: suite.toml:17:1, [[assertions]] #1, `json_schema`: `schema` is not a valid \
         Draft 2020-12 schema: at /patternProperties/(?=.*x)y: the patternProperties pattern \
         '(?=.*x)y' is not one property names can be matched with here: a regular expression \
         without lookaround, backreferences, atomic groups or possessive quantifiers, the \
         patterns whose time is bounded\n"
    );

    let linear = "[[assertions]]\ntype = \"json_schema\"\nschema = { type = \"object\", patternProperties = { '^y+$' = { type = \"string\" } }, additionalProperties = false }\n";
    let (dir, _server) = pattern_project(&answers, linear);
    let root = dir.path();
    let started = Instant::now();
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let run = crate::util::run_file(root, ran.stdout.trim());
    let run: Value = serde_json::from_slice(&std::fs::read(run).unwrap()).unwrap();
    let verdict = &run["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "fail");
    assert_eq!(
        verdict["reason"],
        format!("1 violation(s), first at {long_name}: 1 is not of type 'string'")
    );

    let names = "[[assertions]]\ntype = \"json_schema\"\nschema = { type = \"object\", propertyNames = { pattern = '(?=.*x)y' } }\n";
    let (dir, _server) = pattern_project(&answers, names);
    let root = dir.path();
    let started = Instant::now();
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let run = crate::util::run_file(root, ran.stdout.trim());
    let run: Value = serde_json::from_slice(&std::fs::read(run).unwrap()).unwrap();
    let verdict = &run["results"][0]["verdicts"][0];
    assert_eq!(verdict["status"], "error", "{verdict}");
    // Where the budget ran out depends on the machine: the number aside,
    // the sentence is the whole reason.
    let reason = verdict["reason"].as_str().unwrap();
    let at = reason
        .rsplit_once("at character ")
        .and_then(|(_, tail)| tail.split_once(' '))
        .map_or("", |(n, _)| n);
    assert!(at.parse::<u32>().is_ok(), "{reason}");
    assert_eq!(
        reason,
        format!(
            "pattern '(?=.*x)y' could not be searched to the end: the search ran out of its 5 s \
             budget at character {at} of 1000000"
        ),
        "{verdict}"
    );
}

/// A 200 carrying an error, or a null answer: 0.10.0's reason stays in the
/// run document; every surface a reader sees says it as a sentence naming
/// the endpoint called, never Python's type names.
#[test]
fn a_success_status_without_an_answer_names_the_endpoint_in_every_surface() {
    let cases = [
        (
            r#"{"error": {"message": "rate limited", "type": "requests"}}"#,
            "target raised ValueError: cannot read 'data.answer': no 'data' in error",
            "answered with a success status, but the answer has nothing at data.answer, where the suite reads it (an error reported inside a successful answer reads this way).",
        ),
        (
            r#"{"data": {"answer": null}}"#,
            "target raised ValueError: 'data.answer' holds a NoneType, which is not an Output",
            "answered with a success status, but data.answer holds no text, object or list: it is null, a number or true/false.",
        ),
    ];
    for (body, stored, sentence) in cases {
        let server = always(Fault::Body(body));
        let doc = errors_with(&server, "http", "0", "target raised ValueError: ");
        let reason = doc["results"][0]["verdicts"][0]["reason"].as_str().unwrap();
        assert_eq!(reason, stored, "the document keeps 0.10.0's bytes");
        let dir = with_baseline();
        let root = dir.path();
        write_suite(root, "http", server.port, 2);
        let gate = digline(
            root,
            &[
                "gate",
                "--suite",
                "suite.toml",
                "--out",
                "out",
                "--publish",
                "none",
            ],
        );
        assert_eq!(gate.code, 2, "{}{}", gate.stdout, gate.stderr);
        let said = format!("The target at 127.0.0.1:{} {sentence}", server.port);
        assert!(gate.stdout.contains(&said), "{said}\n{}", gate.stdout);
        let escaped = |s: &str| s.replace(['.', ',', '(', ')', ':', '/'], "");
        let read = |name: &str| std::fs::read_to_string(root.join("out").join(name)).unwrap();
        for name in ["comment.md", "summary.md", "junit.xml", "report.html"] {
            let text = read(name);
            assert!(
                escaped(&text.replace('\\', "")).contains(&escaped(&said)),
                "{name}: {said}\n{text}"
            );
        }
        let json = digline(
            root,
            &[
                "compare",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--json",
            ],
        );
        let everything = [
            gate.stdout.as_str(),
            gate.stderr.as_str(),
            json.stdout.as_str(),
            &read("comment.md"),
            &read("summary.md"),
            &read("junit.xml"),
            &read("report.html"),
            &read("outcome.json"),
        ]
        .concat();
        for internal in ["NoneType", "an Output", "ValueError", "rate limited"] {
            assert!(
                !everything.contains(internal),
                "{internal} reached a reader"
            );
        }
    }
}
