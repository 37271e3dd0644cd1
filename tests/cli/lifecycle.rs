//! The document lifecycle through the command line: every promotion and
//! migration refusal with its sentence, `list`'s advice, the
//! installed-behind warning, and `diff`'s refusals.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{digline, golden};

/// A repository holding the quickstart suite and the two runs our binary
/// made of it (`interop/ours-read-by-0.10`), no baseline: the older run
/// passes everything, the latest fails `contains` on `how-do-i-return`.
/// Returns the temp dir and the two keys (older, latest).
fn repo() -> (tempfile::TempDir, String, String) {
    let src = golden("interop/ours-read-by-0.10");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(src.join("suite.toml"), root.join("suite.toml")).unwrap();
    std::fs::copy(src.join("cases.json"), root.join("cases.json")).unwrap();
    let runs = runs_dir(root);
    std::fs::create_dir_all(&runs).unwrap();
    let mut keys = Vec::new();
    for entry in std::fs::read_dir(src.join("store/quickstart/runs/support")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, runs.join(path.file_name().unwrap())).unwrap();
        keys.push(path.file_stem().unwrap().to_string_lossy().into_owned());
    }
    keys.sort();
    (dir, keys[0].clone(), keys[1].clone())
}

fn runs_dir(root: &Path) -> std::path::PathBuf {
    root.join(".digline/quickstart/runs/support")
}

fn baseline(root: &Path) -> std::path::PathBuf {
    root.join(".digline/quickstart/baselines/support.json")
}

/// Rewrite a stored run after `edit` (and refile it under its key).
fn edit_run(root: &Path, key: &str, edit: impl FnOnce(&mut Value)) -> String {
    let path = runs_dir(root).join(format!("{key}.json"));
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut doc);
    std::fs::remove_file(&path).unwrap();
    let new_key = digline::core::document::run_key(
        doc["created_at"].as_str().unwrap(),
        doc["config_hash"].as_str().unwrap(),
    );
    std::fs::write(
        runs_dir(root).join(format!("{new_key}.json")),
        digline::core::python::dumps::dumps_document(&doc),
    )
    .unwrap();
    new_key
}

#[test]
fn every_promotion_refusal_says_which_condition_and_the_fix() {
    type Setup = fn(&Path, &str, &str) -> Vec<String>;
    let rows: Vec<(&str, Setup, &str)> = vec![
        ("other rules", |root, bk, _| {
            let k = edit_run(root, bk, |d| d["config_hash"] = json!("00000000000000aa"));
            vec!["--run".into(), k]
        }, "was produced with config_hash 00000000000000aa, and the suite's current configuration is 6e5b342bc846889a"),
        ("a replay", |root, bk, _| {
            let k = edit_run(root, bk, |d| d["rejudged_from"] = json!("2026-01-01T00-00-00-00-00-6e5b342bc846889a"));
            vec!["--run".into(), k]
        }, "judged again from the recorded answers"),
        ("an errored case", |root, bk, _| {
            let k = edit_run(root, bk, |d| {
                let v = &mut d["results"][1]["verdicts"][0];
                v["status"] = json!("error");
                v["score"] = Value::Null;
            });
            vec!["--run".into(), k]
        }, "could not judge 1 case(s) (how-do-i-return)"),
        ("--replacing none over a baseline", |root, bk, rk| {
            assert_eq!(digline(root, &["promote", "--suite", "suite.toml", "--run", bk]).code, 0);
            vec!["--run".into(), rk.into(), "--replacing".into(), "none".into()]
        }, "--replacing none expects no baseline yet, and the current baseline is 2026-11-30T05-56-49-292469-00-00-6e5b342bc846889a"),
        ("--replacing a key when none", |_, bk, _| {
            vec!["--run".into(), "latest".into(), "--replacing".into(), bk.into()]
        }, "to be the current baseline, and there is none"),
        ("--replacing not a key", |_, _, _| {
            vec!["--run".into(), "latest".into(), "--replacing".into(), "../x".into()]
        }, "--replacing '../x' is neither a run key nor none"),
        ("an unknown run", |_, _, _| vec!["--run".into(), "2020-01-01T00-00-00-00-00-6e5b342bc846889a".into()], "no run '2020-01-01T00-00-00-00-00-6e5b342bc846889a' is stored"),
        ("an unsafe key", |_, _, _| vec!["--run".into(), "../../etc".into()], "invalid run key name"),
    ];
    for (name, setup, want) in rows {
        let (dir, bk, rk) = repo();
        let root = dir.path();
        let extra = setup(root, &bk, &rk);
        let before = std::fs::read(baseline(root)).ok();
        let mut args = vec!["promote", "--suite", "suite.toml"];
        args.extend(extra.iter().map(String::as_str));
        let ran = digline(root, &args);
        assert_eq!(ran.code, 64, "{name}: {}", ran.stderr);
        assert!(ran.stderr.contains(want), "{name}: {}", ran.stderr);
        assert!(
            name == "an unsafe key" || ran.stderr.contains("digline "),
            "{name}: no command in {}",
            ran.stderr
        );
        assert_eq!(
            std::fs::read(baseline(root)).ok(),
            before,
            "{name}: the baseline moved"
        );
    }
}

#[test]
fn promotion_writes_the_baseline_whole_and_replacing_the_current_works() {
    let (dir, bk, rk) = repo();
    let root = dir.path();
    let ran = digline(
        root,
        &[
            "promote",
            "--suite",
            "suite.toml",
            "--run",
            &bk,
            "--replacing",
            "none",
        ],
    );
    assert_eq!(
        (ran.code, ran.stdout.trim()),
        (0, format!("support baseline set to {bk}").as_str()),
        "{}",
        ran.stderr
    );
    let ran = digline(
        root,
        &[
            "promote",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--replacing",
            &bk,
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let doc: Value = serde_json::from_slice(&std::fs::read(baseline(root)).unwrap()).unwrap();
    assert_eq!(
        digline::core::document::run_key(doc["created_at"].as_str().unwrap(), "6e5b342bc846889a"),
        rk
    );
    assert!(doc["promoted_at"].is_string());
    assert_eq!(
        doc["digline_version"],
        json!("0.11.0"),
        "the version the run stamped; promotion stamps none"
    );
    let leftovers: Vec<_> = std::fs::read_dir(baseline(root).parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn migrate_brings_every_tenant_forward_and_refuses_in_the_right_direction() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    };
    let src = golden("migrate/before/.digline/acme");
    for entry in walk(&src) {
        copy(
            &entry,
            &root
                .join(".digline/acme")
                .join(entry.strip_prefix(&src).unwrap()),
        );
    }
    // A second tenant, to show the walk is store-wide.
    let nine = golden("migrate/source-schema-9.json");
    copy(&nine, &root.join(".digline/beta/baselines/other.json"));

    let dry = digline(root, &["migrate", "--dry-run"]);
    assert_eq!(dry.code, 64, "{}", dry.stderr);
    assert!(
        dry.stdout
            .contains("would migrate .digline/beta/baselines/other.json from schema 9"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("8 would migrate, 0 already current, 2 refused"),
        "{}",
        dry.stdout
    );
    assert!(dry.stderr.contains("upgrade digline"), "{}", dry.stderr);
    assert!(
        dry.stderr.contains("schema 4 introduced `environment`"),
        "{}",
        dry.stderr
    );
    assert_eq!(
        std::fs::read(root.join(".digline/beta/baselines/other.json")).unwrap(),
        std::fs::read(&nine).unwrap()
    );

    // Reads never migrate: list says what it left out, and which way to go.
    std::fs::copy(golden("migrate/suite.toml"), root.join("suite.toml")).unwrap();
    std::fs::copy(golden("migrate/cases.json"), root.join("cases.json")).unwrap();
    let listed = digline(root, &["list", "--suite", "suite.toml"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed
            .stdout
            .starts_with("no runs for suite 'gate' in tenant 'acme'"),
        "{}",
        listed.stdout
    );
    for want in [
        "ignored: 1 run(s) at schema 3, 1 run(s) at schema 4, 1 run(s) at schema 5, 1 run(s) at schema 6, 1 run(s) at schema 7, 1 run(s) at schema 8, 1 run(s) at schema 9, 1 run(s) at schema 11",
        "run `digline migrate` to bring them up to date",
        "upgrade digline to read them",
    ] {
        assert!(listed.stdout.contains(want), "{want}: {}", listed.stdout);
    }
    let compared = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(compared.code, 64);
    assert!(
        compared.stderr.contains("no readable latest run"),
        "{}",
        compared.stderr
    );

    let ran = digline(root, &["migrate"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("8 migrated, 0 already current, 2 refused"),
        "{}",
        ran.stdout
    );
    let after = digline(root, &["list", "--suite", "suite.toml"]);
    assert!(
        after.stdout.contains("  2026-09-10T15-45-42-828590"),
        "{}",
        after.stdout
    );
    assert!(
        after
            .stdout
            .contains("ignored: 1 run(s) at schema 3, 1 run(s) at schema 11"),
        "{}",
        after.stdout
    );
    let compared = digline(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            "2026-09-10T15-45-42-828590-00-00-f104e032c0d0a966",
        ],
    );
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    // One suite only, as 0.10.0 takes it: everything is current or refused now.
    let again = digline(root, &["migrate", "--suite", "suite.toml"]);
    assert!(
        again
            .stdout
            .contains("0 migrated, 7 already current, 2 refused"),
        "{}",
        again.stdout
    );
    let empty = tempfile::tempdir().unwrap();
    let none = digline(empty.path(), &["migrate"]);
    assert_eq!(none.code, 0);
    assert!(
        none.stdout.starts_with("nothing stored under"),
        "{}",
        none.stdout
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_newer_writer_is_warned_about_once_and_the_exit_code_stands() {
    let (dir, bk, rk) = repo();
    let root = dir.path();
    assert_eq!(
        digline(root, &["promote", "--suite", "suite.toml", "--run", &bk]).code,
        0
    );
    edit_run(root, &rk, |d| d["digline_version"] = json!("99.0.0"));
    let base = baseline(root);
    let mut b: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    b["digline_version"] = json!("98.0.0");
    std::fs::write(&base, digline::core::python::dumps::dumps_document(&b)).unwrap();
    let warning = "warning: written by digline 99.0.0, running 0.11.0";
    for (args, code) in [
        (
            vec!["compare", "--suite", "suite.toml", "--run", "latest"],
            1,
        ),
        (
            vec![
                "compare",
                "--suite",
                "suite.toml",
                "--run",
                "latest",
                "--json",
            ],
            1,
        ),
        (vec!["list", "--suite", "suite.toml"], 0),
        (
            vec!["diff", "--suite", "suite.toml", bk.as_str(), rk.as_str()],
            0,
        ),
    ] {
        let ran = digline(root, &args);
        assert_eq!(ran.code, code, "{args:?}: {}", ran.stderr);
        assert_eq!(
            ran.stderr.matches("warning: ").count(),
            1,
            "{args:?}: {}",
            ran.stderr
        );
        assert!(ran.stderr.contains(warning), "{args:?}: {}", ran.stderr);
        assert!(!ran.stdout.contains("warning"), "{args:?}");
    }
    // Written by 0.10.0 (older) or not recorded: silent.
    edit_run(root, &rk, |d| d["digline_version"] = json!("0.10.0"));
    b["digline_version"] = json!("0.9.0");
    std::fs::write(&base, digline::core::python::dumps::dumps_document(&b)).unwrap();
    let ran = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(
        (ran.code, ran.stderr.contains("warning")),
        (1, false),
        "{}",
        ran.stderr
    );
}

#[test]
fn diff_refuses_the_same_run_twice_and_runs_of_other_rules() {
    let (dir, bk, rk) = repo();
    let root = dir.path();
    let ran = digline(root, &["diff", "--suite", "suite.toml", &rk, "latest"]);
    assert_eq!(ran.code, 64);
    assert!(
        ran.stderr
            .contains("a run diffed with itself has nothing to report"),
        "{}",
        ran.stderr
    );
    let ran = digline(root, &["diff", "--suite", "suite.toml", &bk, &rk, "--json"]);
    assert_eq!(ran.code, 64, "--json needs counts|full");
    let other = edit_run(root, &bk, |d| d["config_hash"] = json!("00000000000000aa"));
    let ran = digline(root, &["diff", "--suite", "suite.toml", &other, &rk]);
    assert_eq!(ran.code, 64);
    assert!(
        ran.stderr
            .contains("different suites (config_hash 00000000000000aa against 6e5b342bc846889a)"),
        "{}",
        ran.stderr
    );
    let ran = digline(
        root,
        &[
            "diff",
            "--suite",
            "suite.toml",
            &other,
            "2020-01-01T00-00-00-00-00-6e5b342bc846889a",
        ],
    );
    assert_eq!(ran.code, 64);
}

#[test]
fn a_malformed_or_misfiled_run_is_refused_with_its_file_named() {
    let (dir, _bk, rk) = repo();
    let root = dir.path();
    let path = runs_dir(root).join(format!("{rk}.json"));
    let good = std::fs::read_to_string(&path).unwrap();
    let rows: &[(&str, &str)] = &[
        (
            "\"git_commit\": null",
            "\"git_commit\": null, \"promoted_at\": null",
        ),
        ("\"status\": \"pass\"", "\"status\": \"fail\""),
        ("\"schema_version\": 10", "\"schema_version\": 11"),
        ("\"schema_version\": 10", "\"schema_version\": 9"),
        (
            "\"tenant\": \"quickstart\"",
            "\"tenant\": \"../quickstart\"",
        ),
        ("\"created_at\": \"2026", "\"created_at\": \"2027"),
    ];
    let wants = [
        "`promoted_at` is null",
        "contradict",
        "upgrade digline",
        "run `digline migrate`",
        "not a safe name",
        "Rename it to 2027",
    ];
    for ((from, to), want) in rows.iter().zip(wants) {
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let ran = digline(root, &["compare", "--suite", "suite.toml", "--run", &rk]);
        assert_eq!(ran.code, 64, "{to}");
        assert!(
            ran.stderr.contains(want) && ran.stderr.contains(&rk),
            "{to}: {}",
            ran.stderr
        );
    }
}
