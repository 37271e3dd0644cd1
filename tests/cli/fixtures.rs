//! Command-line fixtures and full-text snapshots of digline's own wording.
//!
//! - Every folder under `tests/goldens/refusals/` is a fixture: its
//!   `command.txt` runs in a copy of the folder, and digline's exact stderr
//!   and exit code must equal `digline-stderr.txt` and `digline-exit` (beside
//!   0.10.0's `stderr.txt` and `exit`, which stay as they were made). The
//!   temporary folder's path reads `[ROOT]`.
//! - Every folder under `tests/snapshots/refusals/` is a fixture of the same
//!   shape for a refusal 0.10.0 has no counterpart of (several independent
//!   problems reported in one run).
//! - `--help` of digline and of every command is kept whole under
//!   `tests/snapshots/help/<command>.txt`.
//!
//! A fixture or snapshot that is missing, or a snapshot file no command
//! produces, fails the test: nothing is left unwired. After a deliberate
//! change of wording, `DIGLINE_BLESS=1 cargo test --test cli fixtures`
//! rewrites the files; review the diff like any other.
//!
//! Also here: no file under `tests/cli/` is left out of `main.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::{digline_env, golden, repo};

/// Whether this run rewrites the expected files instead of comparing.
fn blessing() -> bool {
    std::env::var_os("DIGLINE_BLESS").is_some_and(|v| v == "1")
}

/// Compare `got` with the file at `path` (or write it when blessing);
/// `Err` names the file and shows both texts.
fn expect_file(path: &Path, got: &str) -> Result<(), String> {
    if blessing() {
        std::fs::write(path, got).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(());
    }
    let want = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (a fixture nobody wrote: run with DIGLINE_BLESS=1 and review it)",
            path.display()
        )
    })?;
    if want == got {
        Ok(())
    } else {
        Err(format!(
            "{} differs\n--- want\n{want}\n--- got\n{got}\n---",
            path.display()
        ))
    }
}

/// Fail with every problem at once, so one run shows them all.
fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The fixture folders under `parent`, sorted.
fn fixture_dirs(parent: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Run each fixture folder's `command.txt` in a copy of its `suite.toml`
/// and `cases.json`; its stderr and exit code must equal
/// `digline-stderr.txt` and `digline-exit`. Returns every mismatch.
fn run_fixtures(dirs: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    for dir in dirs {
        let command = std::fs::read_to_string(dir.join("command.txt")).unwrap();
        let args: Vec<&str> = command
            .trim()
            .strip_prefix("digline ")
            .expect("a command.txt starts with `digline `")
            .split_whitespace()
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        for name in ["suite.toml", "cases.json"] {
            std::fs::copy(dir.join(name), tmp.path().join(name)).unwrap();
        }
        let ran = digline_env(tmp.path(), &args, &[]);
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let stderr = ran
            .stderr
            .replace(&root.display().to_string(), "[ROOT]")
            .replace(&tmp.path().display().to_string(), "[ROOT]");
        for (file, got) in [
            ("digline-stderr.txt", stderr),
            ("digline-exit", format!("{}\n", ran.code)),
        ] {
            if let Err(why) = expect_file(&dir.join(file), &got) {
                problems.push(why);
            }
        }
    }
    problems
}

#[test]
fn every_refusal_golden_is_a_command_line_fixture_with_digline_s_exact_stderr_and_exit() {
    let dirs = fixture_dirs(&golden("refusals"));
    assert_eq!(dirs.len(), 58, "the refusal goldens");
    report(run_fixtures(&dirs));
}

/// Refusals of digline's own (no 0.10.0 output beside them), e.g. several
/// independent problems of one suite reported together, each at its place.
#[test]
fn every_refusal_snapshot_is_a_command_line_fixture_with_digline_s_exact_stderr_and_exit() {
    let dirs = fixture_dirs(&repo().join("tests/snapshots/refusals"));
    assert!(dirs.len() >= 2, "the refusal snapshots: {dirs:?}");
    report(run_fixtures(&dirs));
}

#[test]
fn the_help_of_digline_and_of_every_command_is_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let snapshots = repo().join("tests/snapshots/help");
    if blessing() {
        std::fs::create_dir_all(&snapshots).unwrap();
    }
    let help = |args: &[&str]| {
        let ran = digline_env(dir.path(), args, &[("COLUMNS", "100")]);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        ran.stdout
    };
    let top = help(&["--help"]);
    let mut problems = Vec::new();
    let mut wired = BTreeSet::from(["digline.txt".to_string()]);
    if let Err(why) = expect_file(&snapshots.join("digline.txt"), &top) {
        problems.push(why);
    }
    for command in crate::help::commands() {
        let file = format!("{command}.txt");
        if let Err(why) = expect_file(&snapshots.join(&file), &help(&[&command, "--help"])) {
            problems.push(why);
        }
        wired.insert(file);
    }
    for entry in std::fs::read_dir(&snapshots).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !wired.contains(&name) {
            problems.push(format!(
                "tests/snapshots/help/{name} is no command's help: remove it or wire it in"
            ));
        }
    }
    report(problems);
}

#[test]
fn every_file_under_tests_cli_is_a_module_of_the_test_binary() {
    let dir = repo().join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let declared: BTreeSet<String> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|stem| stem != "main")
        .collect();
    let left_out: Vec<&String> = on_disk.difference(&declared).collect();
    assert!(
        left_out.is_empty(),
        "tests/cli/main.rs does not declare {left_out:?}: their tests never run"
    );
    let dangling: Vec<&String> = declared.difference(&on_disk).collect();
    assert!(dangling.is_empty(), "main.rs declares {dangling:?}");
}
