//! Shards: `run --shard K/N`, `merge --shards`, `gate --shards`.
//!
//! A classifier suite of 30 tickets (two samples each, one canary, one
//! suspended case, precision/recall-by-group/f1 aggregates) run whole and
//! in shards against the loopback stub: the partition is stable and
//! complete, the merged run is byte for byte the unsharded one (the
//! `created_at` line aside: each run reads the clock), every refusal of
//! the merge is its sentence and exit 64, a regression in one shard makes
//! the gate exit 1 naming it, and a missing shard never yields a green gate.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{digline, digline_env, git, stub, Ran, Stub};

const SUITE: &str = r#"[suite]
tenant = "triage"
environment = "local"
name = "urgency"
cases = "cases.json"
samples = 2
min_agreement = "2/2"

[target]
type = "http"
url = "http://127.0.0.1:PORT/classify"
output_path = "data.answer"

[target.body]
id = "case.id"
subject = "case.vars.subject"

[[assertions]]
name = "label"
type = "equals"

[[assertions]]
type = "precision"
over = "label"
threshold = "1/2"
tolerance = 0.0

[[assertions]]
type = "recall"
over = "label"
threshold = "1/2"
tolerance = 0.0
by_group = true

[[assertions]]
type = "f1"
over = "label"
threshold = "1/2"
tolerance = 0.05
"#;

/// The ids of the fixture's cases, in `cases.json` order.
fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("ticket-{i:02}")).collect()
}

fn cases(n: usize) -> Value {
    let groups = ["billing", "shipping", "account"];
    let list: Vec<Value> = ids(n)
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let urgent = i % 4 == 0;
            let mut case = json!({
                "id": id,
                "group": groups[i % 3],
                "label": if urgent { "positive" } else { "negative" },
                "expected": if urgent { "urgent" } else { "routine" },
                "vars": {"subject": format!("ticket {i}")},
            });
            if i == 4 {
                // A canary is counted in no aggregate: no group, no label.
                case["canary"] = json!(true);
                let fields = case.as_object_mut().unwrap();
                fields.remove("group");
                fields.remove("label");
            }
            if i == 7 {
                case["suspended"] = json!("the queue is being reorganised");
            }
            case
        })
        .collect();
    Value::Array(list)
}

/// Answers: right, except two routine tickets escalated.
fn answers(n: usize) -> Value {
    let mut table = serde_json::Map::new();
    for (i, id) in ids(n).iter().enumerate() {
        let urgent = i % 4 == 0 || i == 5 || i == 11;
        table.insert(id.clone(), json!(if urgent { "urgent" } else { "routine" }));
    }
    Value::Object(table)
}

/// A fixture: the suite, its cases and answers in `root`, and a stub.
struct Fixture {
    root: PathBuf,
    stub: Stub,
    _dir: tempfile::TempDir,
}

fn fixture(n: usize) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("cases.json"), cases(n).to_string()).unwrap();
    std::fs::write(root.join("answers.json"), answers(n).to_string()).unwrap();
    let stub = stub(&root.join("answers.json"));
    std::fs::write(
        root.join("suite.toml"),
        SUITE.replace("PORT", &stub.port.to_string()),
    )
    .unwrap();
    Fixture {
        root,
        stub,
        _dir: dir,
    }
}

fn ok(ran: &Ran) -> String {
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    ran.stdout.trim().to_string()
}

fn runs_dir(root: &Path) -> PathBuf {
    root.join(".digline/triage/runs/urgency")
}

fn run_path(root: &Path, key: &str) -> PathBuf {
    runs_dir(root).join(format!("{key}.json"))
}

/// `run --shard K/N`: the stored run's key.
fn shard(f: &Fixture, spec: &str) -> String {
    ok(&digline(
        &f.root,
        &["run", "--suite", "suite.toml", "--shard", spec, "-q"],
    ))
}

/// All N shards of the suite, in order: their file paths.
fn all_shards(f: &Fixture, total: u32) -> Vec<PathBuf> {
    (1..=total)
        .map(|k| run_path(&f.root, &shard(f, &format!("{k}/{total}"))))
        .collect()
}

fn merge(f: &Fixture, paths: &[&Path]) -> Ran {
    let mut args = vec!["merge", "--suite", "suite.toml", "--shards"];
    let texts: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    args.extend(texts.iter().map(String::as_str));
    digline(&f.root, &args)
}

fn doc(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case_ids(doc: &Value) -> Vec<String> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["case_id"].as_str().unwrap().to_string())
        .collect()
}

/// The document's bytes without its `created_at` line.
fn without_created_at(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("  \"created_at\": "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_partition_is_stable_complete_and_adding_a_case_moves_only_that_case() {
    let f = fixture(30);
    let paths = all_shards(&f, 3);
    let mut seen: Vec<String> = Vec::new();
    let mut per_shard = Vec::new();
    for (k, path) in paths.iter().enumerate() {
        let d = doc(path);
        assert_eq!(
            d["metadata"]["digline_shard"]
                .as_str()
                .unwrap()
                .split(" plan ")
                .next(),
            Some(format!("{}/3", k + 1).as_str())
        );
        let ids = case_ids(&d);
        assert!(!ids.is_empty(), "shard {} is empty", k + 1);
        seen.extend(ids.iter().cloned());
        per_shard.push(ids);
    }
    // Complete and disjoint.
    seen.sort();
    assert_eq!(seen, ids(30));
    // Stable: the same shard again holds the same cases.
    let again = case_ids(&doc(&run_path(&f.root, &shard(&f, "2/3"))));
    assert_eq!(again, per_shard[1]);
    // A new case moves no other case: each shard keeps what it held.
    std::fs::write(f.root.join("cases.json"), cases(31).to_string()).unwrap();
    std::fs::write(f.root.join("answers.json"), answers(31).to_string()).unwrap();
    let mut grown = Vec::new();
    for k in 1..=3 {
        let ids = case_ids(&doc(&run_path(&f.root, &shard(&f, &format!("{k}/3")))));
        let old: Vec<&String> = ids.iter().filter(|id| *id != "ticket-30").collect();
        assert_eq!(old, per_shard[k - 1].iter().collect::<Vec<_>>());
        grown.extend(ids);
    }
    assert_eq!(grown.iter().filter(|id| *id == "ticket-30").count(), 1);
}

#[test]
fn the_merged_run_is_the_unsharded_run_byte_for_byte() {
    let f = fixture(30);
    let whole = ok(&digline(&f.root, &["run", "--suite", "suite.toml", "-q"]));
    let paths = all_shards(&f, 3);
    // Given as they arrive: in any order, as files or a directory.
    let ran = merge(&f, &[&paths[2], &paths[0], &paths[1]]);
    let merged = ok(&ran);
    assert_eq!(
        without_created_at(&run_path(&f.root, &merged)),
        without_created_at(&run_path(&f.root, &whole))
    );
    let d = doc(&run_path(&f.root, &merged));
    assert_eq!(d["metadata"], json!({}));
    assert_eq!(d["results"][4]["canary"], json!(true));
    assert_eq!(d["results"][7]["suspended"], json!(true));
    assert_eq!(d["aggregate"].as_array().unwrap().len(), 6);
    // Four shards, from a directory holding only them.
    let arrived = f.root.join("arrived");
    for (k, p) in all_shards(&f, 4).iter().enumerate() {
        let job = arrived.join(format!("shard-{}", k + 1));
        std::fs::create_dir_all(&job).unwrap();
        std::fs::copy(p, job.join(p.file_name().unwrap())).unwrap();
    }
    let merged = ok(&merge(&f, &[&arrived]));
    assert_eq!(
        without_created_at(&run_path(&f.root, &merged)),
        without_created_at(&run_path(&f.root, &whole))
    );
}

/// The stderr of a refused merge: one sentence, exit 64.
fn refused(ran: &Ran) -> String {
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stdout, "");
    ran.stderr.trim_end().to_string()
}

#[test]
fn each_merge_refusal_is_one_sentence_and_exit_64() {
    let f = fixture(30);
    let p = all_shards(&f, 3);
    let (a, b, c) = (p[0].display(), p[1].display(), p[2].display());
    let plan = doc(&p[0])["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .split(" plan ")
        .nth(1)
        .unwrap()
        .to_string();

    // A missing shard.
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[2]])),
        "digline: merge refused: 1 of 3 shard(s) missing (2/3): a merge never stands in for a shard that did not arrive; wait for every shard job, or run the missing one with --shard"
    );
    // The same shard twice: a copy.
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &p[2], &p[1]])),
        format!(
            "digline: merge refused: {b} is a copy of {b} (the same run, created at {}): give each shard once",
            doc(&p[1])["created_at"].as_str().unwrap()
        )
    );
    // Two runs of the same shard: overlapping.
    let again = run_path(&f.root, &shard(&f, "2/3"));
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &p[2], &again])),
        format!(
            "digline: merge refused: {b} and {} are both shard 2/3: overlapping shards (two runs of the same shard); give one of them",
            again.display()
        )
    );
    // A shard of another split.
    let of_two = run_path(&f.root, &shard(&f, "1/2"));
    assert_eq!(
        refused(&merge(&f, &[&p[0], &of_two])),
        format!(
            "digline: merge refused: {} is shard 1/2 but {a} is shard 1/3: shards of one merge split the suite the same number of ways",
            of_two.display()
        )
    );
    // A run that is not a shard.
    let whole = run_path(
        &f.root,
        &ok(&digline(&f.root, &["run", "--suite", "suite.toml", "-q"])),
    );
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &p[2], &whole])),
        format!(
            "digline: merge refused: {} is not a shard run (it has no digline_shard record in its metadata): only runs made with --shard K/N are merged",
            whole.display()
        )
    );
    // An altered shard: a case moved into another shard's run.
    let mut moved = doc(&p[0]);
    let stolen = doc(&p[1])["results"][0].clone();
    let stolen_id = stolen["case_id"].as_str().unwrap().to_string();
    moved["results"].as_array_mut().unwrap().push(stolen);
    let moved_path = f.root.join("moved.json");
    std::fs::write(&moved_path, serde_json::to_string_pretty(&moved).unwrap()).unwrap();
    assert_eq!(
        refused(&merge(&f, &[&moved_path, &p[1], &p[2]])),
        format!(
            "digline: merge refused: {} (shard 1/3) holds case '{stolen_id}', which belongs to shard 2/3: overlapping or altered shards",
            moved_path.display()
        )
    );
    // An altered shard: a case dropped (a regression hidden by deleting it).
    let mut dropped = doc(&p[2]);
    let gone = dropped["results"].as_array_mut().unwrap().remove(0);
    let dropped_path = f.root.join("dropped.json");
    std::fs::write(
        &dropped_path,
        serde_json::to_string_pretty(&dropped).unwrap(),
    )
    .unwrap();
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &dropped_path])),
        format!(
            "digline: merge refused: {} (shard 3/3) lacks case '{}', which the plan gives it: an altered or incomplete shard is never merged",
            dropped_path.display(),
            gone["case_id"].as_str().unwrap()
        )
    );

    // Another plan: the cases changed after the shards ran.
    std::fs::write(f.root.join("cases.json"), cases(31).to_string()).unwrap();
    let new_plan = doc(&run_path(&f.root, &shard(&f, "1/3")))["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .split(" plan ")
        .nth(1)
        .unwrap()
        .to_string();
    assert_ne!(plan, new_plan);
    // Every shard file is named, each on its line.
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &p[2]])),
        format!(
            "digline: merge refused: {a} is shard 1/3 of another plan ({plan}, this suite's cases and rules make plan {new_plan}): its cases or rules differ from the suite's\n\
             {b} is shard 2/3 of another plan ({plan}, this suite's cases and rules make plan {new_plan}): its cases or rules differ from the suite's\n\
             {c} is shard 3/3 of another plan ({plan}, this suite's cases and rules make plan {new_plan}): its cases or rules differ from the suite's"
        )
    );
    std::fs::write(f.root.join("cases.json"), cases(30).to_string()).unwrap();

    // Other rules: a threshold moved.
    let suite = std::fs::read_to_string(f.root.join("suite.toml")).unwrap();
    std::fs::write(
        f.root.join("suite.toml"),
        suite.replacen("threshold = \"1/2\"", "threshold = \"2/3\"", 1),
    )
    .unwrap();
    let ran = merge(&f, &[&p[0], &p[1], &p[2]]);
    let config = doc(&p[0])["config_hash"].as_str().unwrap().to_string();
    let text = refused(&ran);
    assert!(
        text.starts_with(&format!(
            "digline: merge refused: {a} was run under other rules (config {config}, the suite's is "
        )) && text.ends_with("): every shard must run the suite's current checks"),
        "{text}"
    );
    std::fs::write(f.root.join("suite.toml"), &suite).unwrap();

    // Another suite and another tenant: the same shard, relabelled.
    for (key, value, sentence) in [
        (
            "suite",
            "other",
            format!("{c} is a shard of suite 'other', not of suite 'urgency'"),
        ),
        (
            "tenant",
            "elsewhere",
            format!("{c} is a shard of tenant 'elsewhere', not of this suite's tenant 'triage': runs of different tenants are never merged"),
        ),
    ] {
        let original = std::fs::read_to_string(&p[2]).unwrap();
        let mut d = doc(&p[2]);
        d[key] = json!(value);
        std::fs::write(&p[2], serde_json::to_string_pretty(&d).unwrap()).unwrap();
        assert_eq!(
            refused(&merge(&f, &[&p[0], &p[1], &p[2]])),
            format!("digline: merge refused: {sentence}")
        );
        std::fs::write(&p[2], original).unwrap();
    }
    // Every problem of every shard file in one run, each naming its file:
    // a path that is not there, a file that is no run document, then a
    // run that is not a shard and a shard relabelled to another tenant.
    let missing = f.root.join("no-such-shard.json");
    let garbage = f.root.join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    let text = refused(&merge(&f, &[&p[0], &missing, &garbage]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with(&format!(
            "digline: merge refused: --shards {}: ",
            missing.display()
        )),
        "{text}"
    );
    assert!(lines[1].contains(&garbage.display().to_string()), "{text}");
    let original = std::fs::read_to_string(&p[2]).unwrap();
    let mut d = doc(&p[2]);
    d["tenant"] = json!("elsewhere");
    std::fs::write(&p[2], serde_json::to_string_pretty(&d).unwrap()).unwrap();
    assert_eq!(
        refused(&merge(&f, &[&p[0], &whole, &p[1], &p[2]])),
        format!(
            "digline: merge refused: {} is not a shard run (it has no digline_shard record in its metadata): only runs made with --shard K/N are merged\n\
             {c} is a shard of tenant 'elsewhere', not of this suite's tenant 'triage': runs of different tenants are never merged",
            whole.display()
        )
    );
    std::fs::write(&p[2], original).unwrap();

    // Every problem between the shards in one run, each naming its files,
    // and none that follows from another: a copy is not also an overlap,
    // a shard split otherwise is not also missing shards, and each way a
    // shard ran otherwise is said.
    let original = std::fs::read_to_string(&p[2]).unwrap();
    let mut d = doc(&p[2]);
    d["git_commit"] = json!("0123456789abcdef0123456789abcdef01234567");
    d["environment"] = json!("elsewhere");
    std::fs::write(&p[2], serde_json::to_string_pretty(&d).unwrap()).unwrap();
    let differ = "shards of one run are made from the same commit, digline and configuration";
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[1], &p[2], &p[1], &again, &of_two])),
        format!(
            "digline: merge refused: {b} is a copy of {b} (the same run, created at {}): give each shard once\n\
             {b} and {} are both shard 2/3: overlapping shards (two runs of the same shard); give one of them\n\
             {} is shard 1/2 but {a} is shard 1/3: shards of one merge split the suite the same number of ways\n\
             {a} and {c} differ in their git commit: {differ}\n\
             {a} and {c} differ in their environment: {differ}",
            doc(&p[1])["created_at"].as_str().unwrap(),
            again.display(),
            of_two.display()
        )
    );
    std::fs::write(&p[2], original).unwrap();
    // A copy and a missing shard: both said.
    assert_eq!(
        refused(&merge(&f, &[&p[0], &p[2], &p[2]])),
        format!(
            "digline: merge refused: {c} is a copy of {c} (the same run, created at {}): give each shard once\n\
             1 of 3 shard(s) missing (2/3): a merge never stands in for a shard that did not arrive; wait for every shard job, or run the missing one with --shard",
            doc(&p[2])["created_at"].as_str().unwrap()
        )
    );

    // And the three, untouched, merge.
    ok(&merge(&f, &[&p[0], &p[1], &p[2]]));
}

fn gate(f: &Fixture, extra: &[&str]) -> Ran {
    let mut args = vec![
        "gate",
        "--suite",
        "suite.toml",
        "--publish",
        "none",
        "--out",
        "out",
    ];
    args.extend_from_slice(extra);
    digline_env(&f.root, &args, &[])
}

#[test]
fn a_regression_in_one_shard_fails_the_gate_and_a_missing_shard_is_never_green() {
    let f = fixture(30);
    let whole = ok(&digline(&f.root, &["run", "--suite", "suite.toml", "-q"]));
    ok(&digline(
        &f.root,
        &["promote", "--suite", "suite.toml", "--run", &whole],
    ));
    // Green when nothing changed.
    let arrived = f.root.join("arrived");
    std::fs::create_dir_all(&arrived).unwrap();
    for p in all_shards(&f, 3) {
        std::fs::rename(&p, arrived.join(p.file_name().unwrap())).unwrap();
    }
    let ran = gate(&f, &["--shards", "arrived"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with("Nothing got worse"),
        "{}",
        ran.stdout
    );

    // One routine ticket escalated: it lives in one shard.
    let mut table = answers(30);
    table["ticket-02"] = json!("urgent");
    std::fs::write(f.root.join("answers.json"), table.to_string()).unwrap();
    let arrived = f.root.join("arrived-2");
    std::fs::create_dir_all(&arrived).unwrap();
    let paths = all_shards(&f, 3);
    for p in &paths {
        std::fs::rename(p, arrived.join(p.file_name().unwrap())).unwrap();
    }
    let ran = gate(&f, &["--shards", "arrived-2"]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    // The whole-run measures dropped: worse. The case itself passed both of
    // its two reference samples, too few to bound its rate (the merging
    // job says so, and names it undecided, never silently gone).
    assert!(
        ran.stdout
            .contains("whole run · precision · Score fell from 0.777778 to 0.700000"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("Undecided within the re-asks:\nticket-02 · label · reference 2/2 · now 0/1 · too few reference samples to tell"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("The reference is too thin"),
        "{}",
        ran.stdout
    );
    let junit = std::fs::read_to_string(f.root.join("out/junit.xml")).unwrap();
    assert!(junit.contains("ticket-02"), "{junit}");

    // Without the shard that holds the regression: refused, never green.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&arrived)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let with_regression = files
        .iter()
        .position(|p| case_ids(&doc(p)).contains(&"ticket-02".to_string()))
        .unwrap();
    let rest: Vec<String> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != with_regression)
        .map(|(_, p)| p.display().to_string())
        .collect();
    std::fs::remove_dir_all(f.root.join("out")).unwrap();
    let mut args = vec!["--shards"];
    args.extend(rest.iter().map(String::as_str));
    let ran = gate(&f, &args);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .starts_with("digline: merge refused: 1 of 3 shard(s) missing ("),
        "{}",
        ran.stderr
    );
    assert!(!f.root.join("out/outcome.json").exists());

    // A shard alone is never gated, compared or promoted.
    let one = files[(with_regression + 1) % 3].clone();
    let dest = run_path(&f.root, one.file_stem().unwrap().to_str().unwrap());
    std::fs::copy(&one, &dest).unwrap();
    let key = one.file_stem().unwrap().to_str().unwrap().to_string();
    let shard_no = doc(&one)["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let sentence = format!(
        "digline: run {key} is shard {shard_no} of a sharded run, not the whole suite: a share of the cases is never gated, compared or promoted on its own\n(hint: merge every shard first: digline merge --suite suite.toml --shards <the shard runs>)\n"
    );
    for args in [
        vec![
            "gate",
            "--suite",
            "suite.toml",
            "--publish",
            "none",
            "--run",
            &key,
        ],
        vec!["compare", "--suite", "suite.toml", "--run", &key],
        vec!["promote", "--suite", "suite.toml", "--run", &key],
    ] {
        let ran = digline(&f.root, &args);
        assert_eq!(ran.code, 64, "{args:?}: {}{}", ran.stdout, ran.stderr);
        assert_eq!(ran.stderr, sentence, "{args:?}");
    }
}

#[test]
fn shard_auto_reads_the_ci_node_and_gate_shard_stores_without_a_verdict() {
    let f = fixture(30);
    let ran = digline_env(
        &f.root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--shard",
            "auto",
            "--publish",
            "none",
        ],
        &[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")],
    );
    let key = ok(&ran);
    assert!(
        ran.stderr.ends_with(&format!("digline: shard 2/3 stored as run {key}, with no verdict: a shard is a share of the cases; gate the merged run with digline gate --shards\n")),
        "{}",
        ran.stderr
    );
    let d = doc(&run_path(&f.root, &key));
    assert!(d["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .starts_with("2/3 plan "));
    let ran = digline_env(
        &f.root,
        &["run", "--suite", "suite.toml", "--shard", "auto", "-q"],
        &[("DIGLINE_SHARD_INDEX", "0"), ("DIGLINE_SHARD_TOTAL", "3")],
    );
    let d = doc(&run_path(&f.root, &ok(&ran)));
    assert!(d["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .starts_with("1/3 plan "));
    let ran = digline(
        &f.root,
        &["run", "--suite", "suite.toml", "--shard", "auto"],
    );
    assert_eq!(ran.code, 64);
    assert_eq!(ran.stderr, "digline: --shard auto found no shard in the environment: GitLab sets CI_NODE_INDEX and CI_NODE_TOTAL for a job with parallel: N; on GitHub set DIGLINE_SHARD_INDEX to ${{ strategy.job-index }} and DIGLINE_SHARD_TOTAL to ${{ strategy.job-total }}, or pass --shard K/N\n");
    let ran = digline(
        &f.root,
        &[
            "run",
            "--suite",
            "suite.toml",
            "--meta",
            "digline_shard=1/1",
        ],
    );
    assert_eq!(ran.code, 64);
    assert_eq!(ran.stderr, "digline: --meta 'digline_shard' is reserved: digline records which shard a run is under that key\n(hint: choose another key)\n");
    let _ = f.stub.port;
}

/// Store a full run of the fixture, newer than any other, whose answers
/// recorded these durations (case `ticket-NN` took `(NN + 1) * 100` ms per
/// sample): what `--balance durations` reads.
fn durations_run(f: &Fixture, whole: &str) -> Value {
    let mut d = doc(&run_path(&f.root, whole));
    d["created_at"] = json!("2099-01-01T00:00:00.000001+00:00");
    for r in d["results"].as_array_mut().unwrap() {
        if r["suspended"] == json!(true) {
            continue;
        }
        let n: u64 = r["case_id"].as_str().unwrap()[7..].parse().unwrap();
        let answer = json!({"input": "", "kind": "text", "latency_ms": (n + 1) as f64 * 100.0, "output": ""});
        r["responses"] = json!([answer.clone(), answer]);
    }
    let key = format!(
        "2099-01-01T00-00-00-000001-00-00-{}",
        d["config_hash"].as_str().unwrap()
    );
    std::fs::write(
        run_path(&f.root, &key),
        serde_json::to_string_pretty(&d).unwrap(),
    )
    .unwrap();
    d
}

/// `run --shard K/N --balance durations`: the stored run's path.
fn balanced_shard(f: &Fixture, spec: &str) -> PathBuf {
    run_path(
        &f.root,
        &ok(&digline(
            &f.root,
            &[
                "run",
                "--suite",
                "suite.toml",
                "--shard",
                spec,
                "--balance",
                "durations",
                "-q",
            ],
        )),
    )
}

#[test]
fn shards_balanced_by_recorded_durations_are_complete_even_and_merge_byte_for_byte() {
    let f = fixture(30);
    let whole = ok(&digline(&f.root, &["run", "--suite", "suite.toml", "-q"]));
    let source = durations_run(&f, &whole);
    let took = |id: &str| -> u64 {
        let r = source["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["case_id"] == json!(id))
            .unwrap();
        r["responses"].as_array().map_or(0, |a| {
            a.iter()
                .map(|x| x["latency_ms"].as_f64().unwrap() as u64)
                .sum()
        })
    };
    let paths: Vec<PathBuf> = (1..=3)
        .map(|k| balanced_shard(&f, &format!("{k}/3")))
        .collect();
    let mut seen = Vec::new();
    let mut loads = Vec::new();
    let mut per_shard = Vec::new();
    for (k, p) in paths.iter().enumerate() {
        let d = doc(p);
        let record = d["metadata"]["digline_shard"].as_str().unwrap().to_string();
        assert!(
            record.starts_with(&format!("{}/3 plan ", k + 1)) && record.contains(" balanced "),
            "{record}"
        );
        let ids = case_ids(&d);
        loads.push(ids.iter().map(|id| took(id)).sum::<u64>());
        seen.extend(ids.iter().cloned());
        per_shard.push(ids);
    }
    // Complete and disjoint.
    seen.sort();
    assert_eq!(seen, ids(30));
    // Even by time: within the longest case (ticket-29: 2 × 3,000 ms) of
    // each other (the one case without a duration counts as the mean).
    let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
    assert!(hi - lo <= 6_000 + 3_100, "{loads:?}");
    // Stable: the same shard again holds the same cases.
    assert_eq!(case_ids(&doc(&balanced_shard(&f, "2/3"))), per_shard[1]);

    // Merged in any order: byte for byte the unsharded run.
    let merged = ok(&merge(&f, &[&paths[2], &paths[0], &paths[1]]));
    assert_eq!(
        without_created_at(&run_path(&f.root, &merged)),
        without_created_at(&run_path(&f.root, &whole))
    );

    // Mixed with shards split by the hash of the case id: refused.
    let hashed: Vec<PathBuf> = (2..=3)
        .map(|k| run_path(&f.root, &shard(&f, &format!("{k}/3"))))
        .collect();
    assert_eq!(
        refused(&merge(&f, &[&paths[0], &hashed[0], &hashed[1]])),
        format!(
            "digline: merge refused: {} is split by recorded durations (--balance durations) but {} by the hash of the case id: shards of one merge are split the same way; run every shard with the same --balance",
            paths[0].display(),
            hashed[0].display()
        )
    );

    // A case copied into a second balanced shard: overlapping.
    let mut overlapping = doc(&paths[1]);
    let copied = doc(&paths[0])["results"][0].clone();
    let copied_id = copied["case_id"].as_str().unwrap().to_string();
    overlapping["results"].as_array_mut().unwrap().push(copied);
    let overlapping_path = f.root.join("overlapping.json");
    std::fs::write(
        &overlapping_path,
        serde_json::to_string_pretty(&overlapping).unwrap(),
    )
    .unwrap();
    assert_eq!(
        refused(&merge(&f, &[&paths[0], &overlapping_path, &paths[2]])),
        format!(
            "digline: merge refused: {} holds case '{copied_id}', which another shard holds too: overlapping or altered shards are never merged",
            overlapping_path.display()
        )
    );

    // A case moved from one balanced shard to another: every case is
    // still there once, but not where the recorded partition put it.
    let (mut from, mut to) = (doc(&paths[0]), doc(&paths[1]));
    let moved = from["results"].as_array_mut().unwrap().remove(0);
    to["results"].as_array_mut().unwrap().push(moved);
    let (from_path, to_path) = (f.root.join("from.json"), f.root.join("to.json"));
    std::fs::write(&from_path, serde_json::to_string_pretty(&from).unwrap()).unwrap();
    std::fs::write(&to_path, serde_json::to_string_pretty(&to).unwrap()).unwrap();
    let recorded = from["metadata"]["digline_shard"]
        .as_str()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_string();
    let text = refused(&merge(&f, &[&from_path, &to_path, &paths[2]]));
    let found = text
        .strip_prefix("digline: merge refused: the shards hold their cases as partition ")
        .and_then(|t| t.split_once(','))
        .map(|(found, _)| found.to_string())
        .unwrap_or_default();
    assert_ne!(found, recorded);
    assert_eq!(
        text,
        format!("digline: merge refused: the shards hold their cases as partition {found}, not as the balanced partition {recorded} they record: a case moved between shards, and an altered shard is never merged")
    );
}

/// Rewrite the shard in `dir` that holds `id`, changing that case's result
/// with `alter`; the shard's path.
fn alter_case(dir: &Path, id: &str, alter: impl Fn(&mut Value)) -> PathBuf {
    let path = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| case_ids(&doc(p)).contains(&id.to_string()))
        .unwrap();
    let mut d = doc(&path);
    let result = d["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["case_id"] == json!(id))
        .unwrap();
    alter(result);
    std::fs::write(&path, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    path
}

/// A 30-case suite whose reference passes, and its three shards (in
/// `honest/`) run after ticket-02 regressed: the honest gate fails (1).
fn honest_shards_with_a_regression() -> (Fixture, PathBuf) {
    let f = fixture(30);
    let whole = ok(&digline(&f.root, &["run", "--suite", "suite.toml", "-q"]));
    ok(&digline(
        &f.root,
        &["promote", "--suite", "suite.toml", "--run", &whole],
    ));
    let mut table = answers(30);
    table["ticket-02"] = json!("urgent");
    std::fs::write(f.root.join("answers.json"), table.to_string()).unwrap();
    let honest = f.root.join("honest");
    std::fs::create_dir_all(&honest).unwrap();
    for p in all_shards(&f, 3) {
        std::fs::rename(&p, honest.join(p.file_name().unwrap())).unwrap();
    }
    let ran = gate(&f, &["--shards", "honest"]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    std::fs::remove_dir_all(f.root.join("out")).unwrap();
    (f, honest)
}

/// A copy of the shard files in `honest`, in the folder `name` of `root`.
fn copy_shards(root: &Path, honest: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(honest).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn a_shard_cannot_suspend_a_failing_case_or_make_it_a_canary() {
    let (f, honest) = honest_shards_with_a_regression();
    let copy = |name: &str| copy_shards(&f.root, &honest, name);
    let refused_gate = |dir: &str, path: &Path, what: &str| {
        let ran = gate(&f, &["--shards", dir]);
        assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
        assert_eq!(
            ran.stderr,
            format!(
                "digline: merge refused: {dir}/{} records case {what}: an altered shard is never merged\n",
                path.file_name().unwrap().to_str().unwrap()
            )
        );
        assert!(!f.root.join("out/outcome.json").exists());
    };

    // The failing case suspended by the shard, its verdicts dropped.
    let forged = alter_case(&copy("suspended"), "ticket-02", |r| {
        r["suspended"] = json!(true);
        r["suspended_reason"] = json!("flaky, ticket 99");
        r["verdicts"] = json!([]);
        r.as_object_mut().unwrap().remove("responses");
    });
    refused_gate(
        "suspended",
        &forged,
        "'ticket-02' as suspended, but the suite does not suspend it",
    );
    // The failing case made a canary.
    let forged = alter_case(&copy("canary"), "ticket-02", |r| {
        r["canary"] = json!(true);
    });
    refused_gate(
        "canary",
        &forged,
        "'ticket-02' as a canary, but the suite does not declare it one",
    );
    // The canary made an ordinary case.
    let forged = alter_case(&copy("no-canary"), "ticket-04", |r| {
        r.as_object_mut().unwrap().remove("canary");
    });
    refused_gate(
        "no-canary",
        &forged,
        "'ticket-04' as no canary, but the suite declares it one",
    );
    // The suspended case given another reason.
    let forged = alter_case(&copy("reason"), "ticket-07", |r| {
        r["suspended_reason"] = json!("flaky, ticket 99");
    });
    refused_gate(
        "reason",
        &forged,
        "'ticket-07' as suspended for another reason than the suite gives",
    );
    let _ = f.stub.port;
}

#[test]
fn a_shard_that_lacks_its_cases_verdicts_is_never_merged() {
    let (f, honest) = honest_shards_with_a_regression();
    let copy = |name: &str| copy_shards(&f.root, &honest, name);
    let refused_gate = |dir: &str, path: &Path, what: &str| {
        let ran = gate(&f, &["--shards", dir]);
        assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
        assert_eq!(
            ran.stderr,
            format!(
                "digline: merge refused: {dir}/{} {what}: an altered or incomplete shard is never merged\n",
                path.file_name().unwrap().to_str().unwrap()
            )
        );
        assert!(!f.root.join("out/outcome.json").exists());
        // `merge` refuses the same shard with the same sentence.
        let ran = merge(&f, &[&f.root.join(dir)]);
        assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
        assert!(ran.stderr.ends_with(&format!(
            "{} {what}: an altered or incomplete shard is never merged\n",
            path.display()
        )));
    };

    // The failing case kept, its verdicts dropped: the gate would only
    // have said "could not be judged" (2).
    let forged = alter_case(&copy("no-verdicts"), "ticket-02", |r| {
        r["verdicts"] = json!([]);
    });
    refused_gate(
        "no-verdicts",
        &forged,
        "lacks the verdict of check 'label' on case 'ticket-02'",
    );
    // Its sampled scores dropped: one sample's failure is no longer shown.
    let forged = alter_case(&copy("no-samples"), "ticket-02", |r| {
        let v = r["verdicts"][0].as_object_mut().unwrap();
        for key in ["samples", "sample_min", "sample_max"] {
            v.remove(key);
        }
    });
    refused_gate(
        "no-samples",
        &forged,
        "lacks the sampled scores of check 'label' on case 'ticket-02' (a sampled verdict carries 1 to 2 of them, with their lowest and highest)",
    );
    // A passing verdict of another case added beside the failing one.
    let passing = doc(&honest.join(
        std::fs::read_dir(&honest)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| case_ids(&doc(p)).contains(&"ticket-01".to_string()))
            .unwrap()
            .file_name()
            .unwrap(),
    ))["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["case_id"] == json!("ticket-01"))
        .unwrap()["verdicts"][0]
        .clone();
    let forged = alter_case(&copy("extra"), "ticket-02", |r| {
        r["verdicts"]
            .as_array_mut()
            .unwrap()
            .insert(0, passing.clone());
    });
    refused_gate(
        "extra",
        &forged,
        "records 2 verdicts on case 'ticket-02', but the suite declares 1 check",
    );
    // Its threshold lowered so the failure reads as a pass.
    let forged = alter_case(&copy("threshold"), "ticket-02", |r| {
        r["verdicts"][0]["threshold"] = json!(0.0);
        r["verdicts"][0]["status"] = json!("pass");
    });
    refused_gate(
        "threshold",
        &forged,
        "records the verdict of check 'label' on case 'ticket-02' with another threshold or tolerance than the suite declares",
    );
    // The honest shards still merge.
    ok(&merge(&f, &[&honest]));
    let _ = f.stub.port;
}

#[test]
fn a_broken_case_refuses_every_shard_not_only_its_own() {
    let f = fixture(30);
    // Three shards, one broken case: two shards do not hold it, and each is
    // refused as the whole run is, with the same sentence.
    let holder = digline::core::shard::shard_of("ticket-05", 3);
    assert!((1..=3).any(|k| k != holder));
    type Break = fn(&mut Value);
    let breaks: [(Break, &str); 2] = [
        // A case the loader refuses.
        (
            |c| c["expected"] = json!(""),
            "declares an empty `expected`",
        ),
        // A case the request body cannot be filled from.
        (|c| c["vars"] = json!({}), "has no vars['subject']"),
    ];
    for (break_case, what) in breaks {
        let mut list = cases(30);
        break_case(&mut list[5]);
        std::fs::write(f.root.join("cases.json"), list.to_string()).unwrap();
        let whole = digline(&f.root, &["run", "--suite", "suite.toml", "-q"]);
        assert_eq!(whole.code, 64, "{}{}", whole.stdout, whole.stderr);
        assert!(
            whole.stderr.contains("#6") && whole.stderr.contains(what),
            "{}",
            whole.stderr
        );
        for k in 1..=3 {
            let spec = format!("{k}/3");
            let ran = digline(
                &f.root,
                &["run", "--suite", "suite.toml", "--shard", &spec, "-q"],
            );
            assert_eq!(ran.code, 64, "shard {spec}: {}{}", ran.stdout, ran.stderr);
            assert_eq!(ran.stderr, whole.stderr, "shard {spec}");
        }
    }
    assert!(!runs_dir(&f.root).exists());
    let _ = f.stub.port;
}

#[test]
fn a_shard_committed_to_the_repository_is_never_merged() {
    let (f, honest) = honest_shards_with_a_regression();
    // The pull request commits forged shards into its tree and points the
    // merge at them: whatever they say, a tracked file is not an artifact.
    git(&f.root, &["init", "-q"]);
    let committed = copy_shards(&f.root, &honest, "committed");
    git(&f.root, &["add", "committed"]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&committed)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // Every committed file is named, one per line.
    let lines: Vec<String> = files
        .iter()
        .map(|file| {
            format!(
                "a shard run is not read: committed/{} is tracked by git, and a committed file can be written by the pull request being judged; shard runs come from the pipeline's own jobs (artifacts), never from the repository",
                file.file_name().unwrap().to_str().unwrap()
            )
        })
        .collect();
    assert!(lines.len() > 1, "{lines:?}");
    let expected = format!("digline: merge refused: {}\n", lines.join("\n"));
    let ran = gate(&f, &["--shards", "committed"]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stderr, expected);
    assert!(!f.root.join("out/outcome.json").exists());
    let ran = digline(
        &f.root,
        &["merge", "--suite", "suite.toml", "--shards", "committed"],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stderr, expected);
    // The same files untracked (as artifacts arrive) merge, and gate 1.
    git(&f.root, &["rm", "-q", "-r", "--cached", "committed"]);
    let ran = gate(&f, &["--shards", "committed"]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
}
