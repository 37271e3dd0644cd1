//! No secret ever shows (`80-quality.md`, Secrets; `00-product.md`
//! decision 6): marker values for `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
//! `GITHUB_TOKEN`, `DIGLINE_GITLAB_TOKEN`, a `${NAME}` header value and a
//! target URL's userinfo are set, and digline is driven through `run`,
//! `promote`, `compare`, `list`, `gate` (publishing to the fake GitHub and
//! GitLab), `publish`, `report`, `rejudge` and `mcp` at `-vvv` with
//! `DIGLINE_LOG=trace` — with a target and a judge that fail and echo the
//! credentials they received back in their error bodies and answers. Every
//! byte produced is searched for every marker: stdout, stderr, every file
//! under the root (documents, reports, the out dirs, the Actions files),
//! but the suite files (the user's input), and the requests the fake
//! servers received (except the one header each is meant to receive the
//! credential in).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::fake_llm::{self, error, ok, Seen};
use crate::forges::{fake_github, fake_gitlab, Mode};
use crate::gate::{actions_env, digline_env, GH_TOKEN, GL_TOKEN};
use crate::mcp::Session;
use crate::util::Ran;

const ANTHROPIC: &str = "sk-ant-SECRETMARK-anth-7e3d";
const OPENAI: &str = "sk-proj-SECRETMARK-oai-91ac";
const HEADER: &str = "hdr-SECRETMARK-tok-5b20";
const USER: &str = "uSECRETMARKuser";
const PASSWORD: &str = "S3CRETMARKpw";

/// Every form a secret could leak in: the values, a distinctive part of
/// each (a half-masked key still leaks), and the userinfo's Basic form.
fn needles() -> Vec<(&'static str, String)> {
    let basic = base64(&format!("{USER}:{PASSWORD}"));
    vec![
        ("ANTHROPIC_API_KEY", ANTHROPIC.into()),
        ("OPENAI_API_KEY", OPENAI.into()),
        ("GITHUB_TOKEN", GH_TOKEN.into()),
        ("DIGLINE_GITLAB_TOKEN", GL_TOKEN.into()),
        ("the header value", HEADER.into()),
        ("the userinfo user", USER.into()),
        ("the userinfo password", PASSWORD.into()),
        ("the userinfo as Basic auth", basic),
        ("part of a key", "SECRETMARK".into()),
        ("part of the GitHub token", "SECRET_token".into()),
        ("part of the GitLab token", "SECRET-5678".into()),
    ]
}

/// Standard base64 (padded), enough for a Basic credential.
fn base64(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One request the target received: URL, headers (lower-cased), body.
type Received = (String, HashMap<String, String>, String);

/// The HTTP system under test: answers every case, until `hostile` is set;
/// then case `echo` gets a 401 whose body quotes every header it received,
/// and case `mirror` an answer that quotes them.
struct Target {
    port: u16,
    hostile: Arc<AtomicBool>,
    received: Arc<Mutex<Vec<Received>>>,
    server: Arc<tiny_http::Server>,
}

impl Drop for Target {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn target() -> Target {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let hostile = Arc::new(AtomicBool::new(false));
    let received = Arc::new(Mutex::new(Vec::new()));
    let (srv, hostile2, received2) = (server.clone(), hostile.clone(), received.clone());
    std::thread::spawn(move || {
        for mut request in srv.incoming_requests() {
            let mut body = String::new();
            let _ = request.as_reader().read_to_string(&mut body);
            let headers: HashMap<String, String> = request
                .headers()
                .iter()
                .map(|h| {
                    (
                        h.field.as_str().as_str().to_ascii_lowercase(),
                        h.value.as_str().to_string(),
                    )
                })
                .collect();
            let echoed: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let echoed = echoed.join("; ");
            let id = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v["id"].as_str().map(str::to_string))
                .unwrap_or_default();
            received2
                .lock()
                .unwrap()
                .push((request.url().to_string(), headers, body));
            let hostile = hostile2.load(Ordering::SeqCst);
            let (status, text) = match id.as_str() {
                "echo" if hostile => (401, format!("denied; you sent {echoed}")),
                "garble" if hostile => (200, format!("not json; you sent {echoed}")),
                "mirror" if hostile => (
                    200,
                    json!({"data": {"answer": format!("signed; you sent {echoed}")}}).to_string(),
                ),
                _ => (
                    200,
                    json!({"data": {"answer": "Hello, signed"}}).to_string(),
                ),
            };
            let response = tiny_http::Response::from_string(text)
                .with_status_code(status)
                .with_header(
                    tiny_http::Header::from_bytes(&b"content-type"[..], &b"application/json"[..])
                        .unwrap(),
                );
            let _ = request.respond(response);
        }
    });
    Target {
        port,
        hostile,
        received,
        server,
    }
}

/// The fake LLM API: serves the provider target and the judges. Once
/// `hostile`, one case's target call and one case's judge call are refused
/// with a 401 quoting the credentials received, and another judge quotes
/// them in its reason.
fn llm(hostile: Arc<AtomicBool>) -> fake_llm::Fake {
    fake_llm::start(Box::new(move |seen: &Seen, _| {
        let echoed = format!(
            "x-api-key {} authorization {}",
            seen.headers.get("x-api-key").cloned().unwrap_or_default(),
            seen.headers
                .get("authorization")
                .cloned()
                .unwrap_or_default()
        );
        let hostile = hostile.load(Ordering::SeqCst);
        let user = seen.user();
        if seen.is_judge() {
            // An answer quoting a secret is never sent to a judge
            // (`NOT_SENT`), so the mirror case's judge is hostile by its input.
            if hostile && (user.contains("you sent") || user.contains("q-mirror")) {
                error(
                    401,
                    "authentication_error",
                    &format!("invalid {echoed}"),
                    None,
                )
            } else if hostile {
                let reply = json!({"score": 0.9, "reason": format!("fine, {echoed}")});
                ok(seen, &reply.to_string(), 5, 5)
            } else {
                ok(seen, r#"{"score": 0.9, "reason": "fine"}"#, 5, 5)
            }
        } else if hostile && user.contains("q-echo") {
            error(
                401,
                "invalid_api_key",
                &format!("Incorrect API key: {echoed}"),
                None,
            )
        } else {
            ok(seen, "Hello, signed", 5, 5)
        }
    }))
}

const RUBRIC: &str = "[[assertions]]\ntype = \"contains\"\nneedle = \"signed\"\n\n\
    [[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Polite.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.5\ntolerance = 0.1\n";

/// Two suites in `root`: `http.toml` (userinfo URL, `${DIGLINE_TEST_TOKEN}`
/// header) and `prov.toml` (OpenAI target), both judged by Anthropic.
fn project(root: &Path, port: u16) {
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(
        root.join("http.toml"),
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"http\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"http\"\nurl = \"http://{USER}:{PASSWORD}@127.0.0.1:{port}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.headers]\nX-Api-Token = \"${{DIGLINE_TEST_TOKEN}}\"\n\n\
             [target.body]\nid = \"case.id\"\nquestion = \"case.vars.question\"\n\n{RUBRIC}"
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("prov.toml"),
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"prov\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"provider\"\nprovider = \"openai/gpt-4o-mini\"\nprompt_file = \"prompt.txt\"\nmax_tokens = 50\n\n{RUBRIC}"
        ),
    )
    .unwrap();
    let cases = json!([
        {"id": "plain", "vars": {"question": "q-plain"}},
        {"id": "echo", "vars": {"question": "q-echo"}},
        {"id": "mirror", "vars": {"question": "q-mirror"}},
        {"id": "garble", "vars": {"question": "q-garble"}},
    ]);
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
}

/// Every file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_secret_shows_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sut = target();
    let fake = llm(sut.hostile.clone());
    let github = fake_github(Mode::Normal);
    let gitlab = fake_gitlab(Mode::Normal);
    project(root, sut.port);

    let mut vars = vec![
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", ANTHROPIC.to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", fake.base())),
        ("OPENAI_API_KEY", OPENAI.to_string()),
        ("DIGLINE_TEST_TOKEN", HEADER.to_string()),
        ("DIGLINE_LOG", "trace".to_string()),
        ("CI", "true".to_string()),
    ];
    let mut outputs: Vec<(String, Ran)> = Vec::new();
    let mut go = |args: &[&str], vars: &[(&str, String)], codes: &[i32]| {
        let ran = digline_env(root, &[&["-vvv"], args].concat(), vars);
        assert!(
            codes.contains(&ran.code),
            "{args:?} exited {}: {}{}",
            ran.code,
            ran.stdout,
            ran.stderr
        );
        let stdout = ran.stdout.trim().to_string();
        outputs.push((args.join(" "), ran));
        stdout
    };
    let http = ["--suite", "http.toml"];
    let prov = ["--suite", "prov.toml"];

    // A clean reference for each suite.
    let mut references = Vec::new();
    for suite in [&http, &prov] {
        references.push(go(&[&["run"][..], suite].concat(), &vars, &[0]));
        go(
            &[&["promote"][..], suite, &["--run", "latest"]].concat(),
            &vars,
            &[0],
        );
    }

    // Then the target and the judges turn hostile.
    sut.hostile.store(true, Ordering::SeqCst);
    for (suite, reference) in [&http, &prov].into_iter().zip(&references) {
        go(&[&["run"][..], suite].concat(), &vars, &[0]);
        go(&[&["list"][..], suite].concat(), &vars, &[0]);
        go(
            &[&["compare"][..], suite, &["--run", "latest"]].concat(),
            &vars,
            &[1, 2],
        );
        go(
            &[
                &["compare"][..],
                suite,
                &["--run", "latest", "--json", "full"],
            ]
            .concat(),
            &vars,
            &[1, 2],
        );
        go(
            &[&["diff"][..], suite, &[reference.as_str(), "latest"]].concat(),
            &vars,
            &[0],
        );
        go(
            &[
                &["report"][..],
                suite,
                &["--run", "latest", "--locale", "en", "--out", "report.html"],
            ]
            .concat(),
            &vars,
            &[1, 2],
        );
        go(
            &[&["rejudge"][..], suite, &["--run", reference.as_str()]].concat(),
            &vars,
            &[0],
        );
    }
    // A rejudge refused for an unreachable judge names no key either.
    let dead: Vec<(&str, String)> = vars
        .iter()
        .map(|(k, v)| match *k {
            "ANTHROPIC_BASE_URL" => (*k, "http://127.0.0.1:9/".to_string()),
            _ => (*k, v.clone()),
        })
        .collect();
    go(
        &[&["rejudge"][..], &http, &["--run", references[0].as_str()]].concat(),
        &dead,
        &[0, 2, 64],
    );

    // The gate, publishing to GitHub, then to GitLab.
    let mut gh = vars.clone();
    gh.extend(actions_env(root, &github));
    go(
        &[
            &["gate"][..],
            &http,
            &["--out", "gh-out", "--report-payload"],
        ]
        .concat(),
        &gh,
        &[1, 2],
    );
    go(&["publish", "--outcome", "gh-out/outcome.json"], &gh, &[0]);
    let mut gl = vars.clone();
    gl.extend([
        ("GITLAB_CI", "true".to_string()),
        ("CI_API_V4_URL", format!("{}/api/v4", gitlab.url())),
        ("CI_PROJECT_ID", "group/proj".into()),
        ("CI_MERGE_REQUEST_IID", "5".into()),
        ("CI_JOB_URL", "https://gitlab.example/g/p/-/jobs/1".into()),
        ("CI_PROJECT_URL", "https://gitlab.example/g/p".into()),
        ("DIGLINE_GITLAB_TOKEN", GL_TOKEN.into()),
    ]);
    go(
        &[
            &["gate"][..],
            &prov,
            &["--out", "gl-out", "--comment-on-success"],
        ]
        .concat(),
        &gl,
        &[1, 2],
    );
    assert!(
        !github.comments().is_empty() && !gitlab.comments().is_empty(),
        "both forges were published to: {outputs:?}",
        outputs = outputs
            .iter()
            .map(|(a, r)| format!("{a}: {}", r.stderr))
            .collect::<Vec<_>>()
    );

    // MCP at trace level: a run and every reading tool.
    vars.push(("GITHUB_TOKEN", GH_TOKEN.to_string()));
    vars.push(("DIGLINE_GITLAB_TOKEN", GL_TOKEN.to_string()));
    let stderr = root.join("mcp.stderr");
    let mut session = Session::start_with(root, &["-vvv"], &vars, &stderr);
    for (suite, reference) in ["http.toml", "prov.toml"].into_iter().zip(&references) {
        let args = json!({"suite": suite});
        session.ok("run", json!({"suite": suite, "acknowledge_calls": 4}));
        session.ok("list_runs", args.clone());
        session.ok("get_run", args.clone());
        session.ok("get_baseline", args.clone());
        session.ok("compare", args.clone());
        session.ok(
            "diff",
            json!({"suite": suite, "run1": reference, "run2": "latest"}),
        );
        session.refused("get_run", json!({"suite": suite, "run": "missing"}));
    }
    let transcript = session.transcript.join("\n");
    assert_eq!(session.finish(), 0);

    // The credentials did reach the servers meant to receive them.
    let received = sut.received.lock().unwrap().clone();
    assert!(received
        .iter()
        .all(|(_, h, _)| h.get("x-api-token").map(String::as_str) == Some(HEADER)));
    assert!(received.iter().all(|(_, h, _)| h.get("authorization")
        == Some(&format!("Basic {}", base64(&format!("{USER}:{PASSWORD}"))))));
    let requests = fake.requests();
    assert!(requests
        .iter()
        .any(|r| r.headers.get("x-api-key").map(String::as_str) == Some(ANTHROPIC)));
    assert!(requests
        .iter()
        .any(|r| r.headers.get("authorization") == Some(&format!("Bearer {OPENAI}"))));

    // No answer quoting a secret was sent to a judge, not even masked.
    let quoted: Vec<String> = requests
        .iter()
        .filter(|r| r.is_judge() && (r.user().contains("you sent") || r.user().contains("***")))
        .map(Seen::user)
        .collect();
    assert!(quoted.is_empty(), "{quoted:?}");
    assert!(
        requests
            .iter()
            .any(|r| r.is_judge() && r.user().contains("q-mirror")),
        "the provider suite's mirror case reached its judge"
    );

    // Everything produced, searched.
    let mut produced: Vec<(String, String)> = Vec::new();
    for (args, ran) in &outputs {
        produced.push((format!("stdout of {args}"), ran.stdout.clone()));
        produced.push((format!("stderr of {args}"), ran.stderr.clone()));
    }
    produced.push(("the MCP responses".into(), transcript));
    let mut all = Vec::new();
    files(root, &mut all);
    assert!(all.len() > 10, "{all:?}");
    for file in all {
        // The suites are the user's own input (the userinfo is written there).
        if file.extension().is_some_and(|e| e == "toml") {
            continue;
        }
        let bytes = std::fs::read(&file).unwrap();
        produced.push((
            format!("{}", file.display()),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    for (url, headers, body) in received {
        let headers: Vec<String> = headers
            .iter()
            .filter(|(k, _)| *k != "authorization" && *k != "x-api-token")
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        produced.push((
            "a request to the target".into(),
            format!("{url}\n{}\n{body}", headers.join("\n")),
        ));
    }
    for r in requests {
        let headers: Vec<String> = r
            .headers
            .iter()
            .filter(|(k, _)| *k != "authorization" && *k != "x-api-key")
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        produced.push((
            "a request to the LLM API".into(),
            format!("{}\n{}\n{}", r.path, headers.join("\n"), r.body),
        ));
    }
    for s in github.seen().into_iter().chain(gitlab.seen()) {
        produced.push((
            "a request to a forge".into(),
            format!("{} {}", s.url, s.body),
        ));
    }

    let mut leaks = Vec::new();
    for (place, text) in &produced {
        for (what, needle) in needles() {
            if text.contains(&needle) {
                let at = text.find(&needle).unwrap();
                let from = text[..at]
                    .char_indices()
                    .rev()
                    .nth(80)
                    .map_or(0, |(i, _)| i);
                let to = (at + needle.len() + 40).min(text.len());
                let to = (to..=text.len())
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap();
                leaks.push(format!("{what} in {place}: …{}…", &text[from..to]));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leak(s):\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

/// An HTTP target answering each case (by its `id` in the body) with the
/// text `answers` gives it; what it received is kept.
fn answering(answers: HashMap<&'static str, String>) -> Target {
    serving(
        Arc::new(AtomicBool::new(false)),
        Box::new(move |id, _, _| answers.get(id).cloned().unwrap_or_default()),
    )
}

/// What a [`serving`] target answers: from the case id, the
/// `Authorization` it received and whether `hostile` is set.
type Answer = Box<dyn Fn(&str, &str, bool) -> String + Send>;

/// An HTTP target answering `{"data": {"answer": …}}` with what `answer`
/// says; what it received (URL and body) is kept.
fn serving(hostile: Arc<AtomicBool>, answer: Answer) -> Target {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let (srv, received2, hostile2) = (server.clone(), received.clone(), hostile.clone());
    std::thread::spawn(move || {
        for mut request in srv.incoming_requests() {
            let mut body = String::new();
            let _ = request.as_reader().read_to_string(&mut body);
            let id = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v["id"].as_str().map(str::to_string))
                .unwrap_or_default();
            let auth = request
                .headers()
                .iter()
                .find(|h| h.field.equiv("authorization"))
                .map(|h| h.value.as_str().to_string())
                .unwrap_or_default();
            let text = answer(&id, &auth, hostile2.load(Ordering::SeqCst));
            received2
                .lock()
                .unwrap()
                .push((request.url().to_string(), HashMap::new(), body));
            let text = json!({"data": {"answer": text}}).to_string();
            let _ = request.respond(tiny_http::Response::from_string(text));
        }
    });
    Target {
        port,
        hostile,
        received,
        server,
    }
}

/// The verdicts of case `id` in a stored run: (assertion, status).
fn statuses(run: &Value, id: &str) -> Vec<(String, String)> {
    verdicts(run, id)
        .into_iter()
        .map(|(assertion, status, _)| (assertion, status))
        .collect()
}

/// Masking happens where answers are kept, never before the checks: a
/// header value such as `en` or `example.com` cannot change a verdict, and
/// a credential the answer echoes is graded as said but stored as `***`.
#[test]
fn masking_never_changes_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let token = "svc-TOKEN-4e1f9a";
    let sut = answering(HashMap::from([
        ("open", "Please open the door.".to_string()),
        (
            "mail",
            "Write to bob@example.com to open a ticket.".to_string(),
        ),
        ("echo", format!("I open with {token}.")),
    ]));
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"mask\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.headers]\nAccept-Language = \"${{UI_LANG}}\"\nX-Tenant = \"${{TENANT_DOMAIN}}\"\nAuthorization = \"Bearer ${{SVC_TOKEN}}\"\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"open\"\n\n\
             [[assertions]]\ntype = \"pii_absent\"\n",
            sut.port
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "open"}, {"id": "mail"}, {"id": "echo"}]"#,
    )
    .unwrap();
    let ran = crate::util::digline_env(
        root,
        &["run", "--suite", "suite.toml"],
        &[
            ("UI_LANG", "en"),
            ("TENANT_DOMAIN", "example.com"),
            ("SVC_TOKEN", token),
        ],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let key = ran.stdout.trim();
    let text = std::fs::read_to_string(crate::util::run_file(root, key)).unwrap();
    let run: Value = serde_json::from_str(&text).unwrap();
    let both = |contains: &str, pii: &str| {
        vec![
            ("contains".to_string(), contains.to_string()),
            ("pii_absent".to_string(), pii.to_string()),
        ]
    };
    assert_eq!(statuses(&run, "open"), both("pass", "pass"));
    assert_eq!(statuses(&run, "mail"), both("pass", "fail"));
    assert_eq!(statuses(&run, "echo"), both("pass", "pass"));
    // Kept: the ordinary values as they were, the credential masked.
    assert!(text.contains("Please open the door."), "{text}");
    assert!(text.contains("bob@example.com"), "{text}");
    assert!(text.contains("I open with ***."), "{text}");
    assert!(!text.contains(token), "{text}");
}

/// A dummy key for a local OpenAI-compatible server (`n`) is no secret:
/// it is not masked inside the reply, so the reply is read and graded.
#[test]
fn a_dummy_key_is_not_masked_inside_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        ok(seen, "Hello, signed and done", 5, 5)
    }));
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"local\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
         [target]\ntype = \"provider\"\nprovider = \"openai/gpt-4o-mini\"\nprompt_file = \"prompt.txt\"\nmax_tokens = 50\n\n\
         [[assertions]]\ntype = \"contains\"\nneedle = \"signed and done\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "a", "vars": {"question": "q"}}, {"id": "b", "vars": {"question": "r"}}]"#,
    )
    .unwrap();
    let ran = crate::util::digline_env(
        root,
        &["run", "--suite", "suite.toml"],
        &[
            ("OPENAI_BASE_URL", &format!("{}/v1", fake.base())),
            ("OPENAI_API_KEY", "n"),
        ],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let text = std::fs::read_to_string(crate::util::run_file(root, ran.stdout.trim())).unwrap();
    let run: Value = serde_json::from_str(&text).unwrap();
    for id in ["a", "b"] {
        assert_eq!(
            statuses(&run, id),
            vec![("contains".to_string(), "pass".to_string())],
            "{text}"
        );
    }
}

/// A provider answering 200 with a body that is not JSON, quoting the key
/// just before the 120-character cut: the key is masked first, then the
/// head is cut, so no part of the key is kept in the reason.
#[test]
fn a_quoted_head_is_masked_before_it_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fake = fake_llm::start(Box::new(|_: &Seen, _| {
        let body = format!("<html>{} key {OPENAI} rejected</html>", "x".repeat(100));
        fake_llm::Reply::Http(200, Vec::new(), body)
    }));
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(
        root.join("suite.toml"),
        "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"cut\"\ncases = \"cases.json\"\n\n\
         [target]\ntype = \"provider\"\nprovider = \"openai/gpt-4o-mini\"\nprompt_file = \"prompt.txt\"\nmax_tokens = 50\n\n\
         [[assertions]]\ntype = \"contains\"\nneedle = \"x\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "a", "vars": {"question": "q"}}]"#,
    )
    .unwrap();
    let ran = crate::util::digline_env(
        root,
        &["run", "--suite", "suite.toml"],
        &[
            ("OPENAI_BASE_URL", &format!("{}/v1", fake.base())),
            ("OPENAI_API_KEY", OPENAI),
        ],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let text = std::fs::read_to_string(crate::util::run_file(root, ran.stdout.trim())).unwrap();
    let run: Value = serde_json::from_str(&text).unwrap();
    let reason = run["results"][0]["verdicts"][0]["reason"].as_str().unwrap();
    assert_eq!(
        reason,
        format!(
            "target raised ValueError: 127.0.0.1:{} answered something that is not JSON: \"<html>{} key *** rejec\"",
            fake.port,
            "x".repeat(100)
        )
    );
    assert!(!text.contains("sk-proj"), "{text}");
}

/// A loopback server answering every request with `status`, `headers` and
/// `body`; what it received (URL and lower-cased headers) is kept.
fn answering_raw(
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
) -> (u16, Arc<Mutex<Vec<Received>>>, Arc<tiny_http::Server>) {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let (srv, received2) = (server.clone(), received.clone());
    std::thread::spawn(move || {
        for request in srv.incoming_requests() {
            let seen: HashMap<String, String> = request
                .headers()
                .iter()
                .map(|h| {
                    (
                        h.field.as_str().as_str().to_ascii_lowercase(),
                        h.value.as_str().to_string(),
                    )
                })
                .collect();
            received2
                .lock()
                .unwrap()
                .push((request.url().to_string(), seen, String::new()));
            let mut response =
                tiny_http::Response::from_string(body.clone()).with_status_code(status);
            for (k, v) in &headers {
                response = response.with_header(
                    tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap(),
                );
            }
            let _ = request.respond(response);
        }
    });
    (port, received, server)
}

/// A gate's outcome (exit 1) in `root`'s `o/`, ready to publish.
fn gated(root: &Path) {
    crate::gate::quickstart(root, true);
    let answers = root.join("answers.json");
    let text = std::fs::read_to_string(&answers).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    // Break every answer so the gate says "worse" and a comment is due.
    if let Some(map) = value.as_object_mut() {
        for (_, v) in map.iter_mut() {
            v["answer"] = json!("nothing useful");
        }
    }
    std::fs::write(&answers, value.to_string()).unwrap();
    let server = crate::util::stub(&answers);
    crate::util::set_port(&root.join("suite.toml"), server.port);
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
    assert!(
        ran.code == 1 || ran.code == 2,
        "{}{}",
        ran.stdout,
        ran.stderr
    );
}

/// A forge's error body that quotes the token is printed and annotated
/// with the token masked.
#[test]
fn forge_error_bodies_are_printed_masked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gated(root);
    let (port, _seen, server) = answering_raw(
        500,
        vec![("content-type".into(), "application/json".into())],
        json!({"message": format!("internal error for token {GH_TOKEN}")}).to_string(),
    );
    let api = format!("http://127.0.0.1:{port}");
    let fake = fake_github(Mode::Normal);
    let mut vars = actions_env(root, &fake);
    vars.retain(|(k, _)| *k != "GITHUB_API_URL");
    vars.push(("GITHUB_API_URL", api));
    let ran = digline_env(root, &["publish", "--outcome", "o/outcome.json"], &vars);
    server.unblock();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(!all.contains("SECRET_token"), "{all}");
    // The first call, `GET /user`, already answers 500: the identity is
    // unknown, said with the token masked, and nothing is touched.
    assert!(
        all.contains("(GET /user: 500 internal error for token ***)"),
        "{all}"
    );
}

/// GitLab follows no redirect: `PRIVATE-TOKEN` never reaches the place a
/// `Location` names, and the note is reported not posted.
#[test]
fn the_gitlab_token_never_follows_a_redirect() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gated(root);
    let (thief, stolen, thief_server) = answering_raw(200, Vec::new(), "[]".into());
    let (port, _seen, server) = answering_raw(
        302,
        vec![("location".into(), format!("http://127.0.0.1:{thief}/steal"))],
        String::new(),
    );
    let vars = vec![
        ("GITLAB_CI", "true".to_string()),
        ("CI_API_V4_URL", format!("http://127.0.0.1:{port}/api/v4")),
        ("CI_PROJECT_ID", "group/proj".into()),
        ("CI_MERGE_REQUEST_IID", "5".into()),
        ("DIGLINE_GITLAB_TOKEN", GL_TOKEN.into()),
    ];
    let ran = digline_env(
        root,
        &[
            "publish",
            "--outcome",
            "o/outcome.json",
            "--publish",
            "gitlab",
        ],
        &vars,
    );
    server.unblock();
    thief_server.unblock();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        stolen.lock().unwrap().is_empty(),
        "the redirect was followed: {:?}",
        stolen.lock().unwrap()
    );
    assert!(
        ran.stderr.contains("GitLab answered 302"),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
}

/// A suite's `${NAME}` cannot read the CI's own tokens: refused at load
/// (64, one located sentence, nothing sent) unless the suite allows the
/// name in `[target] allow_ci_tokens`.
#[test]
fn a_suite_cannot_read_the_ci_tokens_unless_it_allows_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sut = answering(HashMap::from([("a", "fine".to_string())]));
    let suite = |allow: &str| {
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"ci\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n{allow}\n\
             [target.headers]\nAuthorization = \"Bearer ${{GITHUB_TOKEN}}\"\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"fine\"\n",
            sut.port
        )
    };
    std::fs::write(root.join("cases.json"), r#"[{"id": "a"}]"#).unwrap();
    std::fs::write(root.join("suite.toml"), suite("")).unwrap();
    let vars = [("GITHUB_TOKEN", GH_TOKEN.to_string())];
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains(
            "`Authorization` takes ${GITHUB_TOKEN}, one of the CI's own tokens, and a suite \
             changed in a pull request could send it to any URL it names, so digline does not \
             read it. Send the target a credential of its own; if it really needs this one, \
             allow the name with allow_ci_tokens = [\"GITHUB_TOKEN\"] in [target]. Nothing was \
             sent"
        ),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("[target.headers]"), "{}", ran.stderr);
    assert!(sut.received.lock().unwrap().is_empty(), "nothing was sent");

    std::fs::write(
        root.join("suite.toml"),
        suite("allow_ci_tokens = [\"GITHUB_TOKEN\"]\n"),
    )
    .unwrap();
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &vars);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

/// A provider suite (OpenAI) whose `[target]` says `base_url` (if any).
fn provider_suite(root: &Path, base_url: Option<&str>) {
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "a", "vars": {"question": "q"}}]"#,
    )
    .unwrap();
    let base_url = base_url.map_or(String::new(), |u| format!("base_url = \"{u}\"\n"));
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"hosts\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"provider\"\nprovider = \"openai/gpt-4o-mini\"\nprompt_file = \"prompt.txt\"\nmax_tokens = 50\n{base_url}\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"signed\"\n"
        ),
    )
    .unwrap();
}

/// The refusal of a suite naming `at` (host:port) at `key` on `line` of `suite.toml`.
fn not_allowed(at: &str, carried: &str, key: &str, line: usize) -> String {
    format!(
        "suite.toml:{line}:1, [target]: `{key}` names {at}, a host this CI job does not allow, \
         and the request would carry {carried}. The suite comes from the pull request being \
         judged, so nothing was sent: if the host is yours, set DIGLINE_ALLOW_HOSTS={at} in \
         the CI job"
    )
}

/// Issue 17: a pull request's `base_url` cannot take the provider's key to
/// a host of its choosing. In CI (`CI`, `GITHUB_ACTIONS` or `GITLAB_CI`)
/// the key goes only to loopback, the official host, the operator's
/// endpoint variables and `DIGLINE_ALLOW_HOSTS`; `0.0.0.0` reaches the
/// local fake here, so "nothing was sent" is counted, not assumed.
#[test]
fn a_pull_requests_base_url_gets_no_key_from_a_ci_job_that_does_not_allow_its_host() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| ok(seen, "signed", 5, 5)));
    let foreign = format!("http://0.0.0.0:{}/v1", fake.port);
    let at = format!("0.0.0.0:{}", fake.port);
    provider_suite(root, Some(&foreign));
    let run = |vars: &[(&str, &str)]| {
        let mut all = vec![("OPENAI_API_KEY", OPENAI)];
        all.extend_from_slice(vars);
        crate::util::digline_env(root, &["run", "--suite", "suite.toml"], &all)
    };
    for ci in [
        ("CI", "true"),
        ("GITHUB_ACTIONS", "true"),
        ("GITLAB_CI", "true"),
    ] {
        let ran = run(&[ci]);
        assert_eq!(ran.code, 64, "{ci:?}: {}{}", ran.stdout, ran.stderr);
        assert_eq!(
            ran.stderr,
            format!(
                "digline: {}\n",
                not_allowed(&at, "OPENAI_API_KEY", "base_url", 12)
            ),
            "{ci:?}"
        );
        assert!(fake.requests().is_empty(), "{ci:?}: a call was made");
    }
    // The operator allows the host in the CI job: the run goes ahead.
    let ran = run(&[("CI", "true"), ("DIGLINE_ALLOW_HOSTS", &at)]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 1);
    // So does the operator's own endpoint variable.
    let ran = run(&[("CI", "true"), ("OPENAI_BASE_URL", &foreign)]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 2);
    // Outside CI nothing is checked.
    let ran = run(&[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 3);
    // No key, nothing to refuse (a local server needs none).
    let ran = crate::util::digline_env(root, &["run", "--suite", "suite.toml"], &[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 4);
    assert!(!fake.requests()[3].headers.contains_key("authorization"));
    // Loopback is always allowed.
    provider_suite(root, Some(&format!("{}/v1", fake.base())));
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 5);
}

/// Issue 17: an HTTP target's `${NAME}` values go only to a host the CI
/// job allows; a header without a variable carries no credential and is
/// not refused.
#[test]
fn an_http_targets_environment_values_go_only_to_hosts_the_ci_allows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sut = answering(HashMap::from([("a", "signed".to_string())]));
    let suite = |host: &str, header: &str| {
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"hosts\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://{host}:{}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.headers]\n{header}\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"signed\"\n",
            sut.port
        )
    };
    std::fs::write(root.join("cases.json"), r#"[{"id": "a"}]"#).unwrap();
    let token = "Authorization = \"Bearer ${DIGLINE_TEST_TOKEN}\"";
    std::fs::write(root.join("suite.toml"), suite("0.0.0.0", token)).unwrap();
    let at = format!("0.0.0.0:{}", sut.port);
    let run = |vars: &[(&str, &str)]| {
        let mut all = vec![("DIGLINE_TEST_TOKEN", HEADER)];
        all.extend_from_slice(vars);
        crate::util::digline_env(root, &["run", "--suite", "suite.toml"], &all)
    };
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "digline: {}\n",
            not_allowed(
                &at,
                "${DIGLINE_TEST_TOKEN} (header `Authorization`)",
                "url",
                9
            )
        )
    );
    assert!(!ran.stderr.contains(HEADER));
    assert!(sut.received.lock().unwrap().is_empty(), "a call was made");
    // DIGLINE_ALLOW_HOSTS names the host (any port): the run goes ahead.
    let ran = run(&[
        ("GITHUB_ACTIONS", "true"),
        ("DIGLINE_ALLOW_HOSTS", "0.0.0.0"),
    ]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let sent = sut.received.lock().unwrap().len();
    assert!(sent >= 1, "{sent}");
    // Outside CI nothing is checked.
    let ran = run(&[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    // A header without a variable carries nothing from the environment.
    std::fs::write(
        root.join("suite.toml"),
        suite("0.0.0.0", "Accept-Language = \"en\""),
    )
    .unwrap();
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    // Loopback is always allowed.
    std::fs::write(root.join("suite.toml"), suite("127.0.0.1", token)).unwrap();
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

/// The review of issue 17: the scheme counts. The official host is allowed
/// over `https` only, and an operator's endpoint only over its own scheme,
/// so a pull request's `http://` at the same host and port (the key in
/// cleartext) is refused before any call; `0.0.0.0` reaches the local fake
/// here, so "nothing was sent" is counted.
#[test]
fn a_pull_requests_base_url_cannot_downgrade_the_allowed_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| ok(seen, "signed", 5, 5)));
    let at = format!("0.0.0.0:{}", fake.port);
    let run = |vars: &[(&str, &str)]| {
        let mut all = vec![("OPENAI_API_KEY", OPENAI), ("CI", "true")];
        all.extend_from_slice(vars);
        crate::util::digline_env(root, &["run", "--suite", "suite.toml"], &all)
    };
    let refusal = |at: &str| {
        format!(
            "digline: suite.toml:12:1, [target]: `base_url` names {at} over http, but this CI \
             job allows that host only over https, and the request would carry OPENAI_API_KEY. \
             The suite comes from the pull request being judged, so nothing was sent: write \
             https://{at} in `base_url`\n"
        )
    };
    // The operator's endpoint is https: the same host and port over http is refused.
    provider_suite(root, Some(&format!("http://{at}/v1")));
    let operator = format!("https://{at}/v1");
    let ran = run(&[("OPENAI_BASE_URL", &operator)]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stderr, refusal(&at));
    assert!(!ran.stderr.contains(OPENAI));
    assert!(fake.requests().is_empty(), "a call was made");
    // The operator's endpoint over its own scheme goes ahead.
    let operator = format!("http://{at}/v1");
    let ran = run(&[("OPENAI_BASE_URL", &operator)]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(fake.requests().len(), 1);
    // The official host on its HTTPS port, over http.
    provider_suite(root, Some("http://api.openai.com:443/v1"));
    let ran = run(&[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stderr, refusal("api.openai.com:443"));
}

/// The review of issue 17: a `Host` header names a destination too (a
/// proxy routing by it forwards the request there), so with a `${NAME}`
/// value on board in CI it must name the URL's own host and port: a
/// loopback `url` with `Host = "evil.example.com"` is refused at the header,
/// exit 64, nothing sent.
#[test]
fn a_host_header_cannot_take_a_credential_past_a_loopback_url() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sut = answering(HashMap::from([("a", "signed".to_string())]));
    let suite = |headers: &str| {
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"hosts\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.headers]\n{headers}\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"signed\"\n",
            sut.port
        )
    };
    std::fs::write(root.join("cases.json"), r#"[{"id": "a"}]"#).unwrap();
    let token = "Authorization = \"Bearer ${DIGLINE_TEST_TOKEN}\"";
    let run = |vars: &[(&str, &str)]| {
        let mut all = vec![("DIGLINE_TEST_TOKEN", HEADER)];
        all.extend_from_slice(vars);
        crate::util::digline_env(root, &["run", "--suite", "suite.toml"], &all)
    };
    std::fs::write(
        root.join("suite.toml"),
        suite(&format!("{token}\nhost = \"evil.example.com\"")),
    )
    .unwrap();
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    let url_at = format!("127.0.0.1:{}", sut.port);
    assert_eq!(
        ran.stderr,
        format!(
            "digline: suite.toml:14:1, [target.headers]: The header `host` sends the request \
             on to 'evil.example.com' rather than {url_at}, the host of `url`, and the request \
             would carry ${{DIGLINE_TEST_TOKEN}} (header `Authorization`). A proxy routing by \
             `Host` would take it there, so nothing was sent: remove the header or make it \
             name {url_at}\n"
        )
    );
    assert!(!ran.stderr.contains(HEADER));
    assert!(sut.received.lock().unwrap().is_empty(), "a call was made");
    // A Host header naming the URL's own host and port goes ahead.
    std::fs::write(
        root.join("suite.toml"),
        suite(&format!("{token}\nHost = \"{url_at}\"")),
    )
    .unwrap();
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(!sut.received.lock().unwrap().is_empty(), "no call was made");
    // No credential on board: nothing to refuse.
    std::fs::write(
        root.join("suite.toml"),
        suite("Host = \"evil.example.com\""),
    )
    .unwrap();
    let ran = run(&[("CI", "true")]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

/// What a judged check says when the answer holds a secret (as written).
const NOT_SENT: &str = "not judged: the answer holds a value digline masks (a secret the target echoed back, shown as *** in what is kept), so it was not sent to the judge; a masked copy would not be the answer";

/// (assertion, status, reason) of every verdict of case `id` in `run`.
fn verdicts(run: &Value, id: &str) -> Vec<(String, String, String)> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["case_id"] == id)
        .unwrap()["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["assertion"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
                v["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The Northwind suite: a URL whose user info is `Northwind` (a user name
/// alone), a check for `needle`, a rubric judged by Anthropic.
fn northwind_suite(root: &Path, port: u16, needle: &str) {
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"s\"\nenvironment = \"ci\"\nname = \"northwind\"\ncases = \"cases.json\"\nrecord_responses = true\n\n\
             [target]\ntype = \"http\"\nurl = \"http://Northwind@127.0.0.1:{port}/answer\"\noutput_path = \"data.answer\"\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"{needle}\"\n\n\
             [[assertions]]\ntype = \"llm_rubric\"\nrubric = \"Greets the customer.\"\njudge = \"anthropic/claude-haiku-4-5\"\nthreshold = 0.5\ntolerance = 0.1\n"
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "greet"}, {"id": "plain"}, {"id": "auth"}]"#,
    )
    .unwrap();
}

/// The Northwind support bot: `Support says hello` to every case, until
/// `echo` is set; then it says its name in `greet` and quotes the
/// `Authorization` it received (the Basic form of `Northwind:`) in `auth`.
fn northwind(echo: Arc<AtomicBool>) -> Target {
    serving(
        echo,
        Box::new(|id, auth, echoing| match (id, echoing) {
            ("greet", true) => "Northwind Support says hello".to_string(),
            ("auth", true) => format!("Support says hello; you sent {auth}"),
            _ => "Support says hello".to_string(),
        }),
    )
}

/// Issue 25: the user info `Northwind` is a secret (a user name alone is
/// often a token), and the target says it back. The run grades the real
/// answer (`contains "Northwind"` passes), the judge is never sent it —
/// neither as said nor masked — and the judged check is an error saying
/// why, so the comparison answers 2 with the cause `masked_answer`;
/// `rejudge` does not grade the masked recording: the run's verdict stands
/// while nothing changed, and a changed check is an error.
#[test]
fn a_secret_in_the_answer_is_graded_as_given_and_never_sent_to_a_judge() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sut = northwind(Arc::new(AtomicBool::new(false)));
    let fake = fake_llm::start(Box::new(|seen: &Seen, _| {
        ok(seen, r#"{"score": 0.9, "reason": "greets"}"#, 5, 5)
    }));
    northwind_suite(root, sut.port, "Northwind");
    let env = [
        ("ANTHROPIC_BASE_URL", fake.base()),
        ("ANTHROPIC_API_KEY", ANTHROPIC.to_string()),
        // The gate reads the memo `run` kept: sealed with this key.
        (
            "DIGLINE_EVIDENCE_KEY",
            "secrets-tests-evidence-key-0123".to_string(),
        ),
    ];
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let go = |args: &[&str], code: i32| {
        let ran = crate::util::digline_env(root, args, &vars);
        assert_eq!(ran.code, code, "{args:?}: {}{}", ran.stdout, ran.stderr);
        ran
    };
    // A reference while the bot says nothing secret.
    let reference = go(&["run", "--suite", "suite.toml"], 0);
    go(
        &[
            "promote",
            "--suite",
            "suite.toml",
            "--run",
            reference.stdout.trim(),
        ],
        0,
    );
    assert_eq!(fake.requests().len(), 3);

    sut.hostile.store(true, Ordering::SeqCst);
    let key = go(&["run", "--suite", "suite.toml"], 0)
        .stdout
        .trim()
        .to_string();
    let text = std::fs::read_to_string(crate::util::run_file(root, &key)).unwrap();
    let run: Value = serde_json::from_str(&text).unwrap();
    let row = |a: &str, s: &str, r: &str| (a.to_string(), s.to_string(), r.to_string());
    let greet = verdicts(&run, "greet");
    assert_eq!(greet[0].1, "pass", "graded as said: {greet:?}");
    assert_eq!(greet[1], row("llm_rubric", "error", NOT_SENT));
    assert_eq!(
        verdicts(&run, "auth")[1],
        row("llm_rubric", "error", NOT_SENT)
    );
    let plain = verdicts(&run, "plain");
    assert_eq!((plain[0].1.as_str(), plain[1].1.as_str()), ("fail", "pass"));
    // Kept masked (the name and its Basic form); the judge was sent only
    // the answer without a secret.
    let basic = base64("Northwind:");
    assert!(text.contains("*** Support says hello"), "{text}");
    assert!(text.contains("you sent Basic ***"), "{text}");
    assert!(
        !text.contains("Northwind") && !text.contains(&basic),
        "{text}"
    );
    let judged: Vec<String> = fake.requests().iter().map(Seen::user).collect();
    // `plain` is answered by the judge memo; the others were never sent.
    assert_eq!(judged.len(), 3, "{judged:?}");
    assert!(
        judged
            .iter()
            .all(|u| !u.contains("Northwind") && !u.contains(&basic) && !u.contains("***")),
        "{judged:?}"
    );
    // Which cases were masked is recorded beside the run, not in it.
    let record = root.join(format!(".digline/s/masked/runs/northwind/{key}.json"));
    let record = std::fs::read_to_string(&record).unwrap();
    assert!(
        record.contains("\"greet\"")
            && record.contains("\"auth\"")
            && !record.contains("\"plain\""),
        "{record}"
    );

    // Not judged is 2, never a pass or a fail; the cause names no secret.
    let gated = go(&["gate", "--suite", "suite.toml", "--out", "out"], 2);
    let mut written = Vec::new();
    files(&root.join("out"), &mut written);
    let mut out = gated.stdout.clone() + &gated.stderr;
    for file in written {
        out.push_str(&std::fs::read_to_string(file).unwrap());
    }
    assert!(out.contains("\"masked_answer\""), "{out}");
    assert!(
        out.contains("The answer holds a secret digline masks: it was not sent to a judge, and a masked copy is not graded."),
        "{out}"
    );
    assert!(!out.contains("Northwind") && !out.contains(&basic), "{out}");

    // Re-judged: the masked recording is not graded as the answer.
    let again = go(
        &[
            "rejudge",
            "--suite",
            "suite.toml",
            "--run",
            &key,
            "--judge-memo",
            "off",
        ],
        0,
    );
    let text = std::fs::read_to_string(crate::util::run_file(root, again.stdout.trim())).unwrap();
    let rejudged: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        verdicts(&rejudged, "greet"),
        greet,
        "the run's verdicts stand"
    );
    let plain = verdicts(&rejudged, "plain");
    assert_eq!((plain[0].1.as_str(), plain[1].1.as_str()), ("fail", "pass"));
    assert_eq!(
        fake.requests().len(),
        4,
        "only the plain case is judged again"
    );
    assert!(fake
        .requests()
        .iter()
        .all(|r| !r.user().contains("***") && !r.user().contains("Northwind")));

    // A changed check cannot be graded on a masked recording: an error.
    northwind_suite(root, sut.port, "Northwind Support");
    let changed = go(&["rejudge", "--suite", "suite.toml", "--run", &key], 0);
    let text = std::fs::read_to_string(crate::util::run_file(root, changed.stdout.trim())).unwrap();
    let rejudged: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        verdicts(&rejudged, "greet"),
        vec![
            row(
                "contains",
                "error",
                &format!("not graded again: run {key} kept this answer with a secret masked as ***, so it is not the answer the target gave, and this check or the case's expected, context or min_agreement changed since; run the suite again to grade it")
            ),
            row("llm_rubric", "error", NOT_SENT),
        ]
    );
    assert_eq!(verdicts(&rejudged, "plain")[0].1, "fail");
    assert!(
        changed.stderr.contains(&format!("digline: 2 case(s) of run {key} were kept with a secret masked, so their answers are not graded again: checks that are not judged keep that run's verdicts while nothing they depend on changed, and judged checks are not sent to a judge\n")),
        "{}",
        changed.stderr
    );
    assert!(
        changed
            .stderr
            .contains("2 of 3 case(s) could not be judged"),
        "{}",
        changed.stderr
    );
}
