//! `digline mcp` as an agent's client meets it: the binary spawned as a
//! subprocess, JSON-RPC over its stdio (initialize, tools/list, tools/call).
//!
//! The surface is exactly six tools with their rules; `compare`/`diff`/`run`
//! answer with the CLI's `--json` objects field for field; `run` calls
//! nothing until the planned count is stated; no payload crosses; refusals
//! are tool errors in digline's words; the module cannot reach promotion;
//! the documented client configuration starts the server.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use digline::mcp::rules::{ALL, CARRIED_BY};

use crate::util::{copy_files, digline, repo, set_port, stub};

const SIX: [&str; 6] = [
    "list_runs",
    "get_run",
    "get_baseline",
    "compare",
    "diff",
    "run",
];

/// One server process and the lines it wrote.
pub(crate) struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// Every response line, raw, in order.
    pub(crate) transcript: Vec<String>,
}

impl Session {
    /// `digline mcp --root ROOT extra…`, initialized.
    pub(crate) fn start(root: &Path, extra: &[&str]) -> Session {
        Session::launch(
            Path::new(env!("CARGO_BIN_EXE_digline")),
            &[&["mcp", "--root", root.to_str().unwrap()], extra].concat(),
        )
    }

    /// `digline mcp --root ROOT extra…` with `vars` set and stderr written
    /// to `stderr`, initialized.
    pub(crate) fn start_with(
        root: &Path,
        extra: &[&str],
        vars: &[(&str, String)],
        stderr: &Path,
    ) -> Session {
        let log = std::fs::File::create(stderr).expect("the stderr file");
        Session::spawn(
            Path::new(env!("CARGO_BIN_EXE_digline")),
            &[&["mcp", "--root", root.to_str().unwrap()], extra].concat(),
            vars,
            log.into(),
        )
    }

    /// `command args…`, initialized.
    fn launch(command: &Path, args: &[&str]) -> Session {
        Session::spawn(command, args, &[], Stdio::null())
    }

    fn spawn(command: &Path, args: &[&str], vars: &[(&str, String)], stderr: Stdio) -> Session {
        let mut child = Command::new(command)
            .args(args)
            .env_remove("DIGLINE_LOG")
            .env_remove("DIGLINE_ALLOW_HOSTS")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITLAB_CI")
            .env_remove("TF_BUILD")
            .env_remove("JENKINS_URL")
            .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("digline mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut session = Session {
            child,
            stdin,
            lines,
            next_id: 0,
            transcript: Vec::new(),
        };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "digline-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "digline", "{init}");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Send one request and wait for its response (the whole JSON-RPC object).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no answer to {method} #{id}"));
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC ({e}): {line}"));
            if value["id"] == json!(id) {
                self.transcript.push(line);
                return value;
            }
        }
    }

    /// `tools/call`: the result object (success or tool error).
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(response.get("error").is_none(), "{tool}: {response}");
        response["result"].clone()
    }

    /// A successful call's structured content, checked against its text.
    pub(crate) fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_ne!(result["isError"], json!(true), "{tool}: {result}");
        let structured = result["structuredContent"].clone();
        let text = result["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            structured,
            "{tool}: the text block is the same object"
        );
        structured
    }

    /// A refused call's sentence.
    pub(crate) fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], json!(true), "{tool}: {result}");
        assert!(result.get("structuredContent").is_none(), "{result}");
        result["content"][0]["text"].as_str().unwrap().to_string()
    }

    /// Close stdin and wait for the exit code.
    pub(crate) fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        status.code().unwrap_or(-1)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if let Ok(None) = self.child.try_wait() {
            std::thread::sleep(Duration::from_millis(200));
            if let Ok(None) = self.child.try_wait() {
                let _ = self.child.kill();
            }
            let _ = self.child.wait();
        }
    }
}

/// A copy of `examples/quickstart` with its committed baseline.
pub(crate) fn quickstart_copy(root: &Path) {
    let src = repo().join("examples/quickstart");
    copy_files(&src, root);
    let baselines = root.join(".digline/quickstart/baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    copy_files(&src.join(".digline/quickstart/baselines"), &baselines);
}

/// The run files stored under `root` for `tenant`/`suite`.
fn stored_runs(root: &Path, tenant: &str, suite: &str) -> Vec<PathBuf> {
    let dir = root.join(".digline").join(tenant).join("runs").join(suite);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries.map(|e| e.unwrap().path()).collect()
}

/// Whitespace folded, so a rule wrapped in Markdown still matches.
fn folded(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// True when `needle` is a key anywhere in `value`.
fn has_key(value: &Value, needle: &str) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| k == needle || has_key(v, needle)),
        Value::Array(items) => items.iter().any(|v| has_key(v, needle)),
        _ => false,
    }
}

#[test]
fn the_surface_is_six_tools_with_their_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &[]);
    let listed = session.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, SIX, "exactly these six, in this order");
    for absent in ["promote", "migrate", "report", "view"] {
        assert!(!names.contains(&absent), "{absent} is on the surface");
        let response = session.request(
            "tools/call",
            json!({"name": absent, "arguments": {"suite": "suite.toml"}}),
        );
        assert_eq!(response["error"]["code"], json!(-32602), "{response}");
    }
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let a = &tool["annotations"];
        let reads = name != "run";
        assert_eq!(a["readOnlyHint"], json!(reads), "{name}");
        assert_eq!(a["idempotentHint"], json!(reads), "{name}");
        assert_eq!(a["openWorldHint"], json!(!reads), "{name}");
        assert_eq!(a["destructiveHint"], json!(false), "{name}");
        assert_eq!(tool["inputSchema"]["required"][0], "suite", "{name}");
    }
    let run = &tools[5]["inputSchema"];
    assert_eq!(run["properties"]["acknowledge_calls"]["type"], "integer");
    assert_eq!(session.finish(), 0, "closing stdin ends the server with 0");
}

#[test]
fn agents_md_and_the_tool_descriptions_state_the_same_rules() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &[]);
    let listed = session.request("tools/list", json!({}));
    let agents = folded(&std::fs::read_to_string(repo().join("AGENTS.md")).unwrap());
    for rule in ALL {
        assert!(
            agents.contains(&folded(rule)),
            "AGENTS.md does not state, word for word: {rule}"
        );
    }
    for (tool, rules) in CARRIED_BY {
        let description = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .and_then(|t| t["description"].as_str())
            .unwrap_or_else(|| panic!("{tool} is not listed"));
        for rule in rules {
            assert!(
                folded(description).contains(&folded(rule)),
                "{tool}'s description does not carry: {rule}"
            );
        }
    }
    // Every numbered rule of AGENTS.md is one of the shared sentences: a
    // section added to the file alone fails here.
    let text = std::fs::read_to_string(repo().join("AGENTS.md")).unwrap();
    let sections = text.lines().filter(|l| l.starts_with("## ")).count();
    assert_eq!(sections, ALL.len() + 1, "rules + the payload section");
}

/// Calls in `src/mcp/` that would put promotion, migration, the report or
/// the viewer within the module's reach (or the other front end).
fn reaches(code: &str) -> Vec<&'static str> {
    const FORBIDDEN: [&str; 13] = [
        "promote(",
        "promote::",
        "promote_",
        "migrate(",
        "migrate::",
        "migrate_",
        "report(",
        "report::html",
        "render_html",
        "html::",
        "view(",
        "serve_view",
        "crate::cli",
    ];
    FORBIDDEN
        .into_iter()
        .filter(|word| code.contains(word))
        .collect()
}

#[test]
fn the_mcp_module_cannot_reach_promotion_migration_report_or_view() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo().join("src/mcp")).unwrap() {
        files.push(entry.unwrap().path());
    }
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        let code = std::fs::read_to_string(&file).unwrap();
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(reaches(&code), Vec::<&str>::new(), "{}", file.display());
    }
    // The scan finds what it looks for.
    assert_eq!(
        reaches("use crate::store::promote::promote;"),
        ["promote::"]
    );
    assert!(!reaches("crate::store::migrate::migrate_paths(&x)").is_empty());
    assert!(!reaches("crate::report::html::render_html(&c)").is_empty());
    assert_eq!(
        reaches("use crate::report::{diff, html::render};"),
        ["html::"]
    );
}

#[test]
fn every_tool_over_the_quickstart_store_matches_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart_copy(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let suite = json!({"suite": "suite.toml"});
    let mut session = Session::start(root, &[]);

    let listed = session.ok("list_runs", suite.clone());
    assert_eq!(listed["runs"], json!([]));
    assert!(listed["baseline_key"].is_string(), "{listed}");
    assert_eq!(listed["note"], "");
    assert_eq!(listed["unreadable"], 0);

    // Without the number, or with a wrong one: refused with the count and
    // the plan sentence, nothing written.
    let sentence = "3 cases × 1 sample = 3 calls to the target";
    let missing = session.refused("run", suite.clone());
    assert!(missing.contains("plans 3 call(s)"), "{missing}");
    assert!(missing.contains(sentence), "{missing}");
    assert!(missing.contains("acknowledge_calls=3"), "{missing}");
    let wrong = session.refused(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": 4}),
    );
    assert!(
        wrong.starts_with("acknowledge_calls=4 does not match"),
        "{wrong}"
    );
    assert!(
        wrong.contains(sentence) && wrong.contains("acknowledge_calls=3"),
        "{wrong}"
    );
    assert!(
        wrong.contains("suspended cases are never called"),
        "the quickstart's suspended case is not counted: {wrong}"
    );
    assert!(stored_runs(root, "quickstart", "support").is_empty());

    // With it: exactly one run, the CLI's `run --json` shape.
    let ran = session.ok(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": 3}),
    );
    let runs = stored_runs(root, "quickstart", "support");
    assert_eq!(runs.len(), 1, "one call, one run");
    let key = ran["key"].as_str().unwrap().to_string();
    assert!(runs[0].ends_with(format!("{key}.json")), "{runs:?}");
    let cli_run = digline(root, &["run", "-q", "--suite", "suite.toml", "--json"]);
    assert_eq!(cli_run.code, 0, "{}", cli_run.stderr);
    let cli_run: Value = serde_json::from_str(&cli_run.stdout).unwrap();
    let mut expected = cli_run.clone();
    expected["key"] = json!(key);
    assert_eq!(ran, expected, "run is `run --json`, field for field");
    let second = cli_run["key"].as_str().unwrap().to_string();

    // compare: `compare --json full`, field for field, and its exact bytes.
    for run in [key.as_str(), second.as_str(), "latest"] {
        let result = session.call("compare", json!({"suite": "suite.toml", "run": run}));
        let cli = digline(
            root,
            &[
                "compare",
                "--suite",
                "suite.toml",
                "--run",
                run,
                "--json",
                "full",
            ],
        );
        assert_eq!(cli.code, 0, "{}", cli.stderr);
        let cli_value: Value = serde_json::from_str(&cli.stdout).unwrap();
        assert_eq!(result["structuredContent"], cli_value, "compare {run}");
        assert_eq!(
            result["content"][0]["text"],
            json!(cli.stdout),
            "compare {run}"
        );
        assert_eq!(result["structuredContent"]["exit_code"], 0);
    }

    // diff: `diff --json full`, and no verdict anywhere in it.
    let diffed = session.ok(
        "diff",
        json!({"suite": "suite.toml", "run1": key, "run2": "latest"}),
    );
    let cli = digline(
        root,
        &[
            "diff",
            "--suite",
            "suite.toml",
            &key,
            "latest",
            "--json",
            "full",
        ],
    );
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    assert_eq!(diffed, serde_json::from_str::<Value>(&cli.stdout).unwrap());
    for verdict in ["worse", "exit_code"] {
        assert!(!has_key(&diffed, verdict), "diff carries {verdict}");
    }
    let same = session.refused(
        "diff",
        json!({"suite": "suite.toml", "run1": second, "run2": "latest"}),
    );
    assert!(same.contains("a run diffed with itself"), "{same}");

    // The reads.
    let got = session.ok("get_run", json!({"suite": "suite.toml", "run": key}));
    assert_eq!(got["key"], json!(key));
    assert_eq!(got["results"].as_array().unwrap().len(), 4);
    assert_eq!(got["results"][3]["suspended"], json!(true));
    let latest = session.ok("get_run", suite.clone());
    assert_eq!(latest["key"], json!(second), "run defaults to latest");
    let baseline = session.ok("get_baseline", suite.clone());
    assert_eq!(baseline["key"], listed["baseline_key"]);
    assert!(baseline["promoted_at"].is_string(), "{baseline}");
    let listed = session.ok("list_runs", suite.clone());
    let keys: Vec<&str> = listed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, [second.as_str(), key.as_str()], "newest first");
    assert_eq!(listed["runs"][0]["cases"], 4);

    // The stub stopped: the acknowledgement is still checked first, so a
    // wrong number is refused for the number, not for the missing target.
    let port = server.port;
    drop(server);
    let wrong = session.refused(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": 2}),
    );
    assert!(
        wrong.starts_with("acknowledge_calls=2 does not match"),
        "{wrong}"
    );
    let down = session.refused(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": 3}),
    );
    assert_eq!(
        down,
        format!(
            "connection refused at 127.0.0.1:{port}: nothing is listening there. Every case \
             would fail the same way, so the run stops before the first one — start the \
             application, or point the target at it"
        )
    );
    assert_eq!(stored_runs(root, "quickstart", "support").len(), 2);
    assert_eq!(session.finish(), 0);
}

#[test]
fn refusals_are_tool_errors_in_diglines_words() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart_copy(root);
    std::fs::remove_dir_all(root.join(".digline")).unwrap();
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let ran = digline(root, &["run", "-q", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let mut session = Session::start(root, &[]);

    // No baseline: compare says what the CLI says.
    let refused = session.refused("compare", json!({"suite": "suite.toml"}));
    let cli = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(cli.code, 64);
    let cli_sentence = cli
        .stderr
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("digline: ");
    assert_eq!(refused.lines().next().unwrap(), cli_sentence);
    assert!(refused.contains("This server cannot promote"), "{refused}");
    let refused = session.refused("get_baseline", json!({"suite": "suite.toml"}));
    assert!(
        refused.starts_with("suite 'support' has no baseline for tenant 'quickstart' yet"),
        "{refused}"
    );
    assert!(
        refused.contains("a person makes one run the reference"),
        "{refused}"
    );

    // The store's own sentences.
    let refused = session.refused("get_run", json!({"suite": "suite.toml", "run": "nope"}));
    let cli = digline(root, &["compare", "--suite", "suite.toml", "--run", "nope"]);
    assert_eq!(
        refused,
        cli.stderr.trim_end().trim_start_matches("digline: ")
    );
    // The loader's.
    std::fs::write(root.join("bad.toml"), "[suite]\ntenant = \"t\"\n").unwrap();
    let refused = session.refused("list_runs", json!({"suite": "bad.toml"}));
    let cli = digline(root, &["list", "--suite", "bad.toml"]);
    assert_eq!(
        refused,
        cli.stderr.trim_end().trim_start_matches("digline: ")
    );
    // The perimeter: one repository, and the flags verify.
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(root.join("suite.toml"), outside.path().join("suite.toml")).unwrap();
    let elsewhere = outside.path().join("suite.toml");
    let refused = session.refused("list_runs", json!({"suite": elsewhere.to_str().unwrap()}));
    assert!(
        refused.contains("outside the repository this server serves"),
        "{refused}"
    );
    let refused = session.refused("list_runs", json!({"suite": "missing.toml"}));
    assert!(
        refused.contains("names no file in the repository"),
        "{refused}"
    );
    let refused = session.refused("list_runs", json!({"suite": "suite.toml", "run": "x"}));
    assert!(
        refused.contains("list_runs takes no argument 'run'"),
        "{refused}"
    );
    assert_eq!(session.finish(), 0);

    let mut session = Session::start(root, &["--tenant", "northwind"]);
    let refused = session.refused("get_run", json!({"suite": "suite.toml"}));
    assert!(
        refused.starts_with("this server was started with --tenant 'northwind', and the suite 'suite.toml' declares 'quickstart'"),
        "{refused}"
    );
    assert_eq!(session.finish(), 0);

    let ran = digline(root, &["mcp", "--root", "no/such/dir"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("--root no/such/dir is not a directory"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty());
}

/// Distinct strings, one per kind of payload, that no response may carry.
const MARKERS: [(&str, &str); 7] = [
    ("output", "OUTPUT-MARKER-7f3a"),
    ("reason", "REASON-MARKER-19cd"),
    ("case vars", "VARS-MARKER-2b8e"),
    ("case metadata", "CASE-META-MARKER-5d41"),
    ("suspension reason", "SUSPENDED-MARKER-c0de"),
    ("run metadata", "RUN-META-MARKER-a9f2"),
    ("artifact text", "ARTIFACT-MARKER-e6b0"),
];

/// The perimeter value the projection withholds (compare and diff print
/// configuration rows as the CLI's `--json full` does).
const BASE_URL_MARKER: &str = "base-url-marker-31be.example";

#[test]
fn no_payload_crosses_through_any_tool() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let answer = format!("{} — signed", MARKERS[0].1);
    let raw = json!({
        "data": {"answer": answer},
        "config": {"provider": "stub", "model": "m-1",
                   "base_url": format!("https://user:pw@{BASE_URL_MARKER}/v1")}
    });
    std::fs::write(
        root.join("answers.json"),
        json!({"*": {"raw": raw.to_string()}}).to_string(),
    )
    .unwrap();
    let server = stub(&root.join("answers.json"));
    let artifact = format!("You are polite. {}\n", MARKERS[6].1);
    std::fs::write(root.join("prompt.txt"), &artifact).unwrap();
    let digest: String = Sha256::digest(artifact.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            r#"[suite]
tenant = "marker"
environment = "ci"
name = "leak"
cases = "cases.json"
artifacts = ["prompt.txt"]
record_responses = true

[target]
type = "http"
url = "http://127.0.0.1:{port}/answer"
output_path = "data.answer"
config_path = "config"

[target.body]
id = "case.id"
question = "case.vars.question"

[[assertions]]
type = "contains"
needle = "{reason}"

[[assertions]]
type = "contains"
needle = "signed"
"#,
            port = server.port,
            reason = MARKERS[1].1
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("cases.json"),
        json!([
            {"id": "a", "vars": {"question": MARKERS[2].1}, "metadata": {"note": MARKERS[3].1}},
            {"id": "b", "vars": {"question": "b"}},
            {"id": "c", "vars": {"question": "c"}, "suspended": MARKERS[4].1}
        ])
        .to_string(),
    )
    .unwrap();
    let meta = format!("build={}", MARKERS[5].1);
    let ran = digline(
        root,
        &["run", "-q", "--suite", "suite.toml", "--meta", &meta],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let first = ran.stdout.trim().to_string();
    let promoted = digline(root, &["promote", "--suite", "suite.toml", "--run", &first]);
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);

    // The markers are in the store: the gate below proves a boundary, not
    // an empty field.
    let stored = std::fs::read_to_string(
        root.join(".digline/marker/runs/leak")
            .join(format!("{first}.json")),
    )
    .unwrap();
    for (what, marker) in [
        ("output", MARKERS[0].1),
        ("reason", MARKERS[1].1),
        ("suspension reason", MARKERS[4].1),
        ("run metadata", MARKERS[5].1),
        ("artifact text", MARKERS[6].1),
        ("artifact digest", digest.as_str()),
        ("base_url", BASE_URL_MARKER),
    ] {
        assert!(stored.contains(marker), "the run document holds no {what}");
    }

    let mut session = Session::start(root, &[]);
    let suite = json!({"suite": "suite.toml"});
    let refused = session.refused("run", suite.clone());
    assert!(refused.contains("plans 2 call(s)"), "{refused}");
    let ran = session.ok(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": 2}),
    );
    let second = ran["key"].as_str().unwrap().to_string();
    session.ok("list_runs", suite.clone());
    let got = session.ok("get_run", json!({"suite": "suite.toml", "run": first}));
    assert_eq!(got["artifacts"], json!({"prompt.txt": {"withheld": true}}));
    assert_eq!(got["target_config"]["withheld"], json!(["base_url"]));
    assert_eq!(got["target_config"]["values"]["model"], "m-1");
    assert_eq!(got["metadata"], json!({}));
    assert_eq!(got["results"][2]["suspended"], json!(true));
    assert_eq!(got["results"][0]["verdicts"][0]["status"], "fail");
    session.ok("get_run", suite.clone());
    session.ok("get_baseline", suite.clone());
    let projections = session.transcript.clone();
    let compared = session.ok("compare", json!({"suite": "suite.toml", "run": second}));
    assert_eq!(compared["exit_code"], 0);
    session.ok(
        "diff",
        json!({"suite": "suite.toml", "run1": first, "run2": second}),
    );
    session.refused("get_run", json!({"suite": "suite.toml", "run": "missing"}));
    assert_eq!(session.transcript.len(), 10, "initialize and nine calls");

    let everything = session.transcript.join("\n");
    for (what, marker) in MARKERS
        .iter()
        .copied()
        .chain([("artifact digest", digest.as_str())])
    {
        assert!(
            !everything.contains(marker),
            "the {what} crossed: {everything}"
        );
    }
    let projections = projections.join("\n");
    assert!(
        !projections.contains(BASE_URL_MARKER),
        "a perimeter value crossed in a projection: {projections}"
    );
    for key in ["reason", "responses", "suspended_reason", "vars"] {
        for line in &session.transcript {
            let value: Value = serde_json::from_str(line).unwrap();
            assert!(!has_key(&value, key), "{key} crossed: {line}");
        }
    }
    assert_eq!(session.finish(), 0);
}

#[test]
fn the_documented_client_configuration_starts_the_server() {
    let doc = std::fs::read_to_string(repo().join("docs/mcp.md")).unwrap();
    let block = doc
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("docs/mcp.md shows an mcpServers entry");
    let config: Value = serde_json::from_str(block).unwrap();
    let entry = &config["mcpServers"]["digline"];
    assert_eq!(entry["command"], "digline");
    let dir = tempfile::tempdir().unwrap();
    quickstart_copy(dir.path());
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap()
                .replace("/path/to/your/repository", dir.path().to_str().unwrap())
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut session = Session::launch(Path::new(env!("CARGO_BIN_EXE_digline")), &args);
    let listed = session.ok("list_runs", json!({"suite": "suite.toml"}));
    assert_eq!(listed["tenant"], "quickstart");
    assert_eq!(session.finish(), 0);
}
