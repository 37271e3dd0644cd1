//! Nothing lost: a run stopped part way (SIGINT, SIGTERM, SIGKILL) leaves a
//! journal, `run --resume` finishes it asking only for the cases nobody has
//! an answer to, and a run document, baseline or migrated file is never
//! seen half-written however often `run`, `promote` and `migrate` are
//! killed. Every wait is bounded; the kill points come from a seed printed
//! on failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fault_server::{Fault, FaultServer};
use crate::faults::{read_run, write_suite};
use crate::util::{digline, golden};

fn pending_dir(root: &Path) -> PathBuf {
    root.join(".digline/faults/runs/faults/.pending")
}

fn spawn(root: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_digline"))
        .args(args)
        .current_dir(root)
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .env_remove("DIGLINE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("digline starts")
}

/// Wait for `child` at most `limit`; kill it if it is still running.
fn finish(mut child: Child, limit: Duration) -> (Option<i32>, String) {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Ok(Some(_)) = child.try_wait() {
            let out = child.wait_with_output().expect("output");
            return (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    panic!("digline did not end within {limit:?}");
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// The journal's records (whole lines of every leg) and its key.
fn journal(root: &Path) -> Option<(String, Vec<Value>)> {
    // Legs only: a kill while a leg is being started can leave a
    // `.tmp-leg-…` file, which is never read as a journal.
    let mut legs: Vec<PathBuf> = std::fs::read_dir(pending_dir(root))
        .ok()?
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    legs.sort();
    let first = legs.first()?;
    let name = first.file_name()?.to_string_lossy().into_owned();
    let key = name.split('.').next()?.to_string();
    let mut records = Vec::new();
    for leg in &legs {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(leg).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", leg.display());
        }
        let text = std::fs::read_to_string(leg).unwrap_or_default();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            match serde_json::from_str::<Value>(line) {
                Ok(v) if line.ends_with('\n') => records.push(v),
                _ => assert_eq!(
                    i + 1,
                    lines.len(),
                    "only the last line of {} may be torn",
                    leg.display()
                ),
            }
        }
    }
    Some((key, records))
}

fn answered_ids(records: &[Value]) -> BTreeSet<String> {
    records
        .iter()
        .filter(|r| r["kind"] == "case")
        .map(|r| r["case_id"].as_str().unwrap().to_string())
        .collect()
}

/// Start a run of 16 slow cases, stop it with `how` once 3 are graded.
fn stopped_run(server: &FaultServer, how: &str) -> (tempfile::TempDir, String, BTreeSet<String>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_suite(root, "http", server.port, 16);
    let child = spawn(
        root,
        &["run", "--suite", "suite.toml", "--concurrency", "2"],
    );
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the journal never filled"
        );
        if journal(root).is_some_and(|(_, r)| answered_ids(&r).len() >= 3) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let code = if how == "KILL" {
        let mut child = child;
        child.kill().unwrap();
        let _ = child.wait();
        None
    } else {
        signal(&child, how);
        let (code, stderr) = finish(child, Duration::from_secs(10));
        assert!(stderr.contains("--resume"), "says how to resume: {stderr}");
        assert_eq!(
            stderr.lines().filter(|l| l.contains("--resume")).count(),
            1,
            "{stderr}"
        );
        code
    };
    if how != "KILL" {
        assert_eq!(
            code,
            Some(64),
            "stopped is neither fine, worse nor unjudged"
        );
    }
    let runs = root.join(".digline/faults/runs/faults");
    let stored: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
        .collect();
    assert!(
        stored.is_empty(),
        "no run document before the run is complete: {stored:?}"
    );
    let (key, records) = journal(root).expect("a journal is left");
    (dir, key, answered_ids(&records))
}

fn without_created_at(mut doc: Value) -> Value {
    doc.as_object_mut().unwrap().remove("created_at");
    doc
}

fn stop_and_resume(how: &str) {
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 40 }, false);
    let (dir, key, answered) = stopped_run(&server, how);
    let root = dir.path();
    // A journal is not a document: list and migrate step over it.
    assert_eq!(digline(root, &["list", "--suite", "suite.toml"]).code, 0);
    let dry = digline(root, &["migrate", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let before = server.calls();
    let resumed = digline(root, &["-q", "run", "--suite", "suite.toml", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(resumed.stdout.trim(), key, "the resumed run keeps its key");
    let after = server.calls();
    for id in &answered {
        assert_eq!(
            after[id], 1,
            "{id} was answered before the stop: never asked again"
        );
    }
    let asked_again: usize = after.values().sum::<usize>() - before.values().sum::<usize>();
    assert_eq!(
        asked_again,
        16 - answered.len(),
        "only the unanswered cases: {after:?}"
    );
    assert!(
        !pending_dir(root).exists(),
        "the journal goes once the document is written"
    );
    // The same document as a run that was never stopped, created_at aside.
    let whole = digline(root, &["-q", "run", "--suite", "suite.toml"]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert_eq!(
        without_created_at(read_run(root, &key)),
        without_created_at(read_run(root, whole.stdout.trim()))
    );
}

#[test]
fn sigint_keeps_the_journal_and_resume_asks_only_the_rest() {
    stop_and_resume("INT");
}

#[test]
fn sigterm_keeps_the_journal_and_resume_asks_only_the_rest() {
    stop_and_resume("TERM");
}

#[test]
fn sigkill_keeps_the_journal_and_resume_asks_only_the_rest() {
    stop_and_resume("KILL");
}

#[test]
fn a_resume_of_a_changed_suite_is_refused_with_a_sentence() {
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 40 }, false);
    let (dir, key, _) = stopped_run(&server, "INT");
    let root = dir.path();
    write_suite(root, "http", server.port, 17);
    let refused = digline(root, &["run", "--suite", "suite.toml", "--resume", &key]);
    assert_eq!(refused.code, 64, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("cases file changed since the run started"),
        "{}",
        refused.stderr
    );
    write_suite(root, "http", server.port, 16);
    std::fs::write(
        root.join("suite.toml"),
        std::fs::read_to_string(root.join("suite.toml"))
            .unwrap()
            .replace("Northwind", "Southwind"),
    )
    .unwrap();
    let refused = digline(root, &["run", "--suite", "suite.toml", "--resume"]);
    assert_eq!(refused.code, 64, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("configuration changed since the run started"),
        "{}",
        refused.stderr
    );
    assert!(
        pending_dir(root).exists(),
        "a refused resume leaves the journal"
    );
    let none = digline(
        tempfile::tempdir().unwrap().path(),
        &["run", "--suite", "suite.toml", "--resume"],
    );
    assert_eq!(none.code, 64);
}

/// A small deterministic generator for kill points (seeded from the clock,
/// the seed printed so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

fn seed() -> Lcg {
    let seed = std::env::var("DIGLINE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64)
        });
    eprintln!("kill stress seed: DIGLINE_KILL_SEED={seed}");
    Lcg(seed)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

/// Every file under `.digline/` is whole: documents parse, journal legs are
/// whole but for their last line; a temporary file of an interrupted
/// atomic write is the only other thing allowed.
fn all_whole(root: &Path) {
    let mut all = Vec::new();
    files(&root.join(".digline"), &mut all);
    for path in all {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with(".tmp-") || name.starts_with(".probe-") || name == ".gitignore" {
            continue;
        }
        if name.ends_with(".jsonl") {
            continue; // checked by `journal`
        }
        if name.ends_with(".lock") {
            continue; // a run's lock: a process id, or empty
        }
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{} is not whole: {e}", path.display()));
        if path.components().any(|c| c.as_os_str() == "spend") {
            // A spend record (`store::spend`), not a document.
            assert!(
                doc["target"].is_object() && doc["judges"].is_object(),
                "{}",
                path.display()
            );
            continue;
        }
        assert!(
            doc["schema_version"].as_i64().is_some(),
            "{}",
            path.display()
        );
    }
    let _ = journal(root);
}

#[test]
fn killing_run_at_random_points_never_leaves_a_torn_file_and_resume_completes() {
    let mut rng = seed();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 15 }, false);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_suite(root, "http", server.port, 12);
    let started = Instant::now();
    let mut complete = 0;
    for _ in 0..30 {
        let mut child = spawn(
            root,
            &["-q", "run", "--suite", "suite.toml", "--concurrency", "2"],
        );
        std::thread::sleep(Duration::from_millis(rng.below(150)));
        let _ = child.kill();
        let _ = child.wait();
        all_whole(root);
        if journal(root).is_some() {
            let resumed = digline(root, &["-q", "run", "--suite", "suite.toml", "--resume"]);
            assert_eq!(resumed.code, 0, "{}", resumed.stderr);
            let doc = read_run(root, resumed.stdout.trim());
            assert_eq!(doc["results"].as_array().unwrap().len(), 12);
            assert!(
                doc["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|r| r["verdicts"][0]["status"] == "pass"),
                "{doc}"
            );
            complete += 1;
        }
        assert!(!pending_dir(root).exists() || journal(root).is_none());
    }
    assert!(complete > 0, "some kills landed mid-run");
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn killing_promote_leaves_the_old_or_the_new_baseline() {
    let mut rng = seed();
    let server = FaultServer::start(|_, _| Fault::Answer { delay_ms: 0 }, false);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_suite(root, "http", server.port, 40);
    let keys: Vec<String> = (0..2)
        .map(|_| {
            digline(root, &["-q", "run", "--suite", "suite.toml"])
                .stdout
                .trim()
                .to_string()
        })
        .collect();
    let baseline = root.join(".digline/faults/baselines/faults.json");
    let mut versions = BTreeSet::new();
    for key in &keys {
        assert_eq!(
            digline(root, &["promote", "--suite", "suite.toml", "--run", key]).code,
            0
        );
        versions.insert(
            read_run(root, key)["created_at"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    for i in 0..30 {
        let mut child = spawn(
            root,
            &["promote", "--suite", "suite.toml", "--run", &keys[i % 2]],
        );
        std::thread::sleep(Duration::from_micros(rng.below(20_000)));
        let _ = child.kill();
        let _ = child.wait();
        all_whole(root);
        // Whole (it parses) and one of the two promoted runs (each
        // promotion stamps its own promoted_at, so bytes are not compared).
        let now: Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
        assert!(
            versions.contains(now["created_at"].as_str().unwrap()),
            "the baseline is the old or the new one"
        );
        assert_eq!(now["results"].as_array().unwrap().len(), 40);
    }
}

#[test]
fn killing_migrate_leaves_each_file_old_or_new() {
    let mut rng = seed();
    let before = golden("migrate/before");
    let after = golden("migrate/after");
    let mut originals = Vec::new();
    files(&before.join(".digline"), &mut originals);
    let mut expected: BTreeMap<PathBuf, BTreeSet<Vec<u8>>> = BTreeMap::new();
    for path in &originals {
        let rel = path.strip_prefix(&before).unwrap().to_path_buf();
        let mut ok = BTreeSet::from([std::fs::read(path).unwrap()]);
        if let Ok(new) = std::fs::read(after.join(&rel)) {
            ok.insert(new);
        }
        expected.insert(rel, ok);
    }
    for _ in 0..30 {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in expected.keys() {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(before.join(rel), root.join(rel)).unwrap();
        }
        let mut child = spawn(root, &["migrate"]);
        std::thread::sleep(Duration::from_micros(rng.below(15_000)));
        let _ = child.kill();
        let _ = child.wait();
        for (rel, ok) in &expected {
            let now = std::fs::read(root.join(rel)).unwrap();
            assert!(
                ok.contains(&now),
                "{} is neither the old nor the migrated file",
                rel.display()
            );
        }
    }
}
