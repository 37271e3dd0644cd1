//! Exits that tell the truth (issue 17): a closed stdout ends quietly with
//! the command's own code; a full disk is a refusal (64) in one sentence; a
//! journal that cannot be written warns once; `-q` leaves stderr to
//! errors; the examples' scripts refuse (64) when the build fails or a port
//! is taken; the MCP server answers every line a client can wait on. 70 is
//! only ever a bug in digline. Listed in `docs/reliability.md`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::fault_server::{Fault, FaultServer};
use crate::faults::write_suite;
use crate::util::{digline, golden, repo};

/// The binary, with the variables the tests never inherit removed.
fn bin(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_digline"));
    command.args(args).current_dir(dir);
    for name in ["DIGLINE_LOG", "CI", "GITHUB_ACTIONS", "GITLAB_CI"] {
        command.env_remove(name);
    }
    command
}

/// A repository holding golden scenario 02 (one flip: `compare` says 1).
fn one_flip() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let scenario = golden("headlines/02-one-flip");
    std::fs::copy(scenario.join("run-suite.toml"), root.join("suite.toml")).unwrap();
    std::fs::copy(scenario.join("run-cases.json"), root.join("cases.json")).unwrap();
    let keys: Value =
        serde_json::from_slice(&std::fs::read(scenario.join("keys.json")).unwrap()).unwrap();
    let runs = root.join(".digline/gold/runs/support");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::create_dir_all(root.join(".digline/gold/baselines")).unwrap();
    std::fs::copy(
        scenario.join("run.json"),
        runs.join(format!("{}.json", keys["run_key"].as_str().unwrap())),
    )
    .unwrap();
    std::fs::copy(
        scenario.join("baseline.json"),
        root.join(".digline/gold/baselines/support.json"),
    )
    .unwrap();
    dir
}

/// Run with stdout on a pipe whose reader is already gone.
fn into_closed_pipe(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    bin(dir, args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Run with stdout on `/dev/full`: every write fails with ENOSPC.
fn into_full_disk(dir: &Path, args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux)");
    bin(dir, args)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

const FULL_STDOUT: &str = "digline: the answer could not be written to standard output, so this command refuses rather than report a verdict nobody received: no space is left on the device (No space left on device (os error 28)): free some space and run again\n";

#[test]
fn a_closed_stdout_ends_quietly_with_the_commands_own_code() {
    let dir = one_flip();
    let root = dir.path();
    let gate_out = root.join("gate-out");
    let gate_out = gate_out.to_str().unwrap();
    let cases: [(&[&str], i32); 7] = [
        (&["compare", "--suite", "suite.toml", "--run", "latest"], 1),
        (
            &[
                "compare",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--json",
                "full",
            ],
            1,
        ),
        (
            &[
                "gate",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--publish",
                "none",
                "--out",
                gate_out,
            ],
            1,
        ),
        (&["list", "--suite", "suite.toml"], 0),
        (
            &[
                "report",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--locale",
                "en",
            ],
            1,
        ),
        (&["completions", "bash"], 0),
        (&["manpage"], 0),
    ];
    for (args, code) in cases {
        let ran = into_closed_pipe(root, args);
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert_eq!(ran.status.code(), Some(code), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}: a closed pipe is not worth a word");
    }
}

#[test]
fn stdout_on_a_full_disk_is_a_refusal_in_one_sentence() {
    let dir = one_flip();
    let root = dir.path();
    for args in [
        &["compare", "--suite", "suite.toml", "--run", "latest"][..],
        &["list", "--suite", "suite.toml"][..],
        &["completions", "bash"][..],
    ] {
        let ran = into_full_disk(root, args);
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert_eq!(ran.status.code(), Some(64), "{args:?}: {stderr}");
        assert_eq!(stderr, FULL_STDOUT, "{args:?}");
    }
}

/// A tmpfs of one page mounted on `at`, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A real full disk: the store on a 4 KiB tmpfs fills during the run. The
/// journal warns once (not once per case) and the run document that does
/// not fit is a refusal naming the full disk. Mounting needs root (CI runs
/// as root in its container); elsewhere this says so and checks nothing
/// more — the `/dev/full` tests above and the journal's unit test
/// (`run::journal`) still cover both paths.
#[test]
fn a_full_disk_under_the_store_warns_once_and_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    write_suite(root, "http", server.port, 40);
    let Some(_disk) = Tmpfs::mount(&root.join(".digline"), "256k") else {
        eprintln!("skipped: mounting a tmpfs needs root; /dev/full covers stdout");
        return;
    };
    leave_free(&root.join(".digline/filler"), 8192);
    let ran = digline(
        root,
        &["run", "--suite", "suite.toml", "--concurrency", "1"],
    );
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    let warnings: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("digline: warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", ran.stderr);
    assert!(
        warnings[0].starts_with("digline: warning: the run goes on without its journal (a resume after a stop would ask the unrecorded cases again): "),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].ends_with(": no space is left on the device (No space left on device (os error 28)): free some space and run again"),
        "{}",
        warnings[0]
    );
    let last = ran.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("digline: ")
            && last.ends_with(": no space is left on the device (No space left on device (os error 28)): free some space and run again"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("internal error"), "{}", ran.stderr);
}

/// Fill the disk holding `filler` until it is full, then give back
/// `bytes`: the run finds that much room and no more.
fn leave_free(filler: &Path, bytes: u64) {
    let mut file = std::fs::File::create(filler).unwrap();
    let block = [0u8; 1024];
    let mut written = 0u64;
    while file
        .write_all(&block)
        .and_then(|()| file.sync_all())
        .is_ok()
    {
        written += block.len() as u64;
    }
    drop(file);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(filler)
        .unwrap();
    file.set_len(written.saturating_sub(bytes)).unwrap();
    file.sync_all().unwrap();
}

#[test]
fn gate_quiet_prints_no_plan_line_and_no_hint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    write_suite(root, "http", server.port, 2);
    let out = root.join("gate-out");
    let out = out.to_str().unwrap();
    let gate = [
        "-q",
        "gate",
        "--suite",
        "suite.toml",
        "--publish",
        "none",
        "--out",
        out,
    ];
    // No baseline yet: the refusal's sentence alone, no plan, no hint.
    let ran = digline(root, &gate);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    // stdout's headline says there is no baseline and where it was looked
    // for; stderr does not say it again.
    assert_eq!(
        ran.stderr,
        "digline: exit 64: suite 'faults' (tenant 'faults') is not gated until a reference is committed\n"
    );
    assert!(
        ran.stdout.starts_with("There is no baseline to compare with, so there is no verdict. digline looked for it at "),
        "{}",
        ran.stdout
    );
    // Without -q the same gate says its plan and the hint.
    let loud = digline(root, &gate[1..]);
    assert_eq!(loud.code, 64, "{}", loud.stderr);
    let key = std::fs::read_dir(root.join(".digline/faults/runs/faults"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .max()
        .unwrap();
    assert_eq!(
        loud.stderr,
        format!(
            "digline: 2 cases × 1 sample = 2 calls to the target\n\
             digline: exit 64: suite 'faults' (tenant 'faults') is not gated until a reference is committed\n\
             (hint: look at the run, then make it the reference: digline promote --suite suite.toml --root . --run {key})\n"
        )
    );
    // In the reader's locale, stdout and stderr alike: the plan line too.
    let mut german = gate[1..].to_vec();
    german.extend(["--locale", "de"]);
    let de = digline(root, &german);
    assert_eq!(de.code, 64, "{}", de.stderr);
    let de_key = std::fs::read_dir(root.join(".digline/faults/runs/faults"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .max()
        .unwrap();
    assert_eq!(
        de.stderr,
        format!(
            "digline: 2 Fälle × 1 Stichprobe = 2 Aufrufe an das System\n\
             digline: Exit 64: Suite 'faults' (Kunde 'faults') wird erst geprüft, wenn eine Referenz committet ist\n\
             (Hinweis: den Lauf ansehen, dann zur Referenz machen: digline promote --suite suite.toml --root . --run {de_key})\n"
        )
    );
    assert!(
        de.stdout
            .starts_with("Es gibt keine Referenz zum Vergleich, daher gibt es kein Urteil."),
        "{}",
        de.stdout
    );
    assert!(loud.stderr.lines().count() > ran.stderr.lines().count());
    let promoted = digline(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    // With a baseline: the verdict on stdout, nothing at all on stderr.
    let ran = digline(root, &gate);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    assert!(
        ran.stdout.starts_with("Nothing got worse"),
        "{}",
        ran.stdout
    );
}

/// A directory whose `cargo` exits with `code`, first on PATH.
fn cargo_shim(code: i32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cargo = dir.path().join("cargo");
    std::fs::write(&cargo, format!("#!/bin/sh\nexit {code}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn path_with(shim: &Path) -> String {
    format!(
        "{}:{}",
        shim.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Every example's `gate.sh`, with what it builds.
const GATES: [(&str, &str); 5] = [
    ("classifier", "--bin digline --example quickstart-stub"),
    ("quickstart", "--bin digline --example quickstart-stub"),
    (
        "rag",
        "--bin digline --example quickstart-stub --example rag-mock-judge",
    ),
    ("sampled-canary", "--bin digline --example quickstart-stub"),
    ("spring-http", "--bin digline --example spring-stub"),
];

#[test]
fn an_examples_gate_refuses_with_64_when_the_build_fails() {
    let shim = cargo_shim(101);
    for (example, builds) in GATES {
        let ran = Command::new("bash")
            .arg(repo().join("examples").join(example).join("gate.sh"))
            .env("PATH", path_with(shim.path()))
            .output()
            .unwrap();
        assert_eq!(ran.status.code(), Some(64), "{example}");
        assert_eq!(
            String::from_utf8_lossy(&ran.stderr),
            format!("{example}/gate.sh: the build failed (cargo build --profile dev {builds} exited 101), so there is no verdict: fix the build and run this again\n"),
        );
    }
}

#[test]
fn an_examples_gate_refuses_with_64_when_its_port_is_taken() {
    let shim = cargo_shim(0);
    let target = tempfile::tempdir().unwrap();
    let helpers = target.path().join("debug/examples");
    std::fs::create_dir_all(&helpers).unwrap();
    for helper in ["quickstart-stub", "spring-stub", "rag-mock-judge"] {
        let path = helpers.join(helper);
        std::fs::write(
            &path,
            "#!/bin/sh\necho \"error: the port is already in use\" >&2\nexit 1\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let first = [
        ("classifier", "quickstart-stub", 8733),
        ("quickstart", "quickstart-stub", 8731),
        ("rag", "rag-mock-judge", 8734),
        ("sampled-canary", "quickstart-stub", 8736),
        ("spring-http", "spring-stub", 8732),
    ];
    for (example, helper, port) in first {
        let ran = Command::new("bash")
            .arg(repo().join("examples").join(example).join("gate.sh"))
            .env("PATH", path_with(shim.path()))
            .env("CARGO_TARGET_DIR", target.path())
            .output()
            .unwrap();
        assert_eq!(ran.status.code(), Some(64), "{example}");
        assert_eq!(
            String::from_utf8_lossy(&ran.stderr),
            format!("error: the port is already in use\n{example}/gate.sh: {helper} stopped before it listened (its output is above): is port {port} already taken? Free it and run this again\n"),
        );
    }
}

/// A bare MCP session: the raw lines it writes, and its stdin.
struct Raw {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: Receiver<String>,
}

impl Raw {
    fn start(root: &Path) -> Raw {
        let mut child = bin(root, &["mcp", "--root", "."])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
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
        let stdin = child.stdin.take().unwrap();
        let mut raw = Raw {
            child,
            stdin,
            lines,
        };
        raw.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n");
        assert_eq!(raw.next()["id"], json!(1));
        raw.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        raw
    }

    fn write(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the server wrote (10 s at most: a silent server fails).
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(10))
            .expect("the server answers every line");
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_answers_a_malformed_line_with_a_parse_error_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut raw = Raw::start(dir.path());
    raw.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"\n");
    let answer = raw.next();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
    assert_eq!(answer["jsonrpc"], json!("2.0"));
    raw.write(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n");
    let listed = raw.next();
    assert_eq!(listed["id"], json!(3), "{listed}");
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 6);
}

#[test]
fn mcp_refuses_a_200_mb_line_before_reading_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut raw = Raw::start(dir.path());
    // 2 MiB of one line, no newline yet: the refusal must come now, while
    // the line is still being written — so it was never read whole.
    let chunk = vec![b'a'; 1 << 20];
    raw.write(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"");
    raw.write(&chunk);
    raw.write(&chunk);
    let answer = raw.next();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!("Parse error: the message is longer than 1048576 bytes, the most this server reads; it was skipped unread")
    );
    // The rest of the 200 MB line, then a request: the server is still there.
    for _ in 2..200 {
        raw.write(&chunk);
    }
    raw.write(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n");
    let pong = raw.next();
    assert_eq!(pong["id"], json!(5), "{pong}");
    assert!(pong.get("result").is_some(), "{pong}");
}

#[test]
fn mcp_answers_a_clients_last_malformed_line_before_the_session_ends() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = bin(dir.path(), &["mcp", "--root", "."])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\nhello\n")
        .unwrap();
    drop(stdin);
    let ran = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(
        stdout.lines().last(),
        Some(
            r#"{"error":{"code":-32700,"message":"Parse error: the line is not JSON (expected value at line 1 column 1)"},"id":null,"jsonrpc":"2.0"}"#
        ),
        "{stdout}"
    );
}
