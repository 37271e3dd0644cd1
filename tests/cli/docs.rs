//! Every command in the README and `docs/` is run, as a reader would type it.
//!
//! Each fenced block must name its language. A `bash`/`sh` block is a
//! command: it runs under `bash -euo pipefail` in a fresh copy of the
//! quickstart laid out like a user's repository (one copy per page, the
//! page's blocks in order, so a `compare --run latest` sees the `run` above
//! it), with the loopback stub answering, `digline` on `PATH` and `HOME` in
//! the copy. It must exit 0, or the code an `<!-- exit N -->` comment right
//! before it declares. A block that cannot run here (a forge, a credential,
//! a container engine, the test suite itself) carries `<!-- not run: why -->`
//! right before it. A block neither run nor marked fails, and so does a
//! command hiding in a `text` block.
//!
//! The copy (`T`): `T/suite.toml` + `cases.json` + `answers.json` with the
//! committed baseline under `T/.digline/`; the same suite as `T/eval/`
//! (the docs' `--suite eval/suite.toml`); `T/examples/quickstart/` with its
//! own `.digline/`; `target/release/digline`. Every suite points at the stub,
//! and so does `localhost:8080` in a block (the reader's own service in
//! `docs/getting-started.md`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{copy_files, repo, set_port, stub, Stub};

/// What the comment before a block says about it.
#[derive(Debug, PartialEq)]
enum Mark {
    /// Nothing: a command block must then run and exit 0.
    None,
    /// `<!-- not run: why -->`.
    NotRun(String),
    /// `<!-- exit N -->`: run it, and it must exit N.
    Exit(i32),
}

/// One fenced block of a Markdown page.
#[derive(Debug)]
struct Block {
    line: usize,
    lang: String,
    text: String,
    mark: Mark,
}

/// The fenced blocks of `markdown`, each with the comment right before it.
fn blocks(markdown: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let indent = lines[i].len() - trimmed.len();
        if indent <= 3 && trimmed.starts_with("```") {
            let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
            let fence = &trimmed[..ticks];
            let lang = trimmed[ticks..].trim().to_string();
            let previous = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim())
                .unwrap_or("");
            let mark = if let Some(why) = previous
                .strip_prefix("<!-- not run:")
                .and_then(|r| r.strip_suffix("-->"))
            {
                Mark::NotRun(why.trim().to_string())
            } else if let Some(code) = previous
                .strip_prefix("<!-- exit ")
                .and_then(|r| r.strip_suffix("-->"))
            {
                Mark::Exit(
                    code.trim()
                        .parse()
                        .map_err(|_| format!("line {}: `<!-- exit N -->` wants a number", i))?,
                )
            } else {
                Mark::None
            };
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end].trim() != fence {
                end += 1;
            }
            if end == lines.len() {
                return Err(format!("line {}: the block is never closed", i + 1));
            }
            out.push(Block {
                line: i + 1,
                lang,
                text: lines[start..end].join("\n"),
                mark,
            });
            i = end + 1;
        } else {
            i += 1;
        }
    }
    Ok(out)
}

/// Does this block of another language look like a command to type?
fn looks_like_a_command(block: &Block) -> bool {
    block.text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("$ ") || l.starts_with("digline ") || l.starts_with("./examples/")
    })
}

/// Where a page's commands run, with the stub answering.
struct Place {
    dir: tempfile::TempDir,
    bin: PathBuf,
    stub: Stub,
}

/// Lay out a copy of the quickstart as a user's repository (see the module doc).
fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    let src = repo().join("examples/quickstart");
    let baselines = src.join(".digline/quickstart/baselines");
    for suite_dir in [
        t.to_path_buf(),
        t.join("eval"),
        t.join("examples/quickstart"),
    ] {
        std::fs::create_dir_all(&suite_dir).unwrap();
        copy_files(&src, &suite_dir);
    }
    for root in [t.to_path_buf(), t.join("examples/quickstart")] {
        let dest = root.join(".digline/quickstart/baselines");
        std::fs::create_dir_all(&dest).unwrap();
        copy_files(&baselines, &dest);
    }
    let server = stub(&t.join("answers.json"));
    for suite_dir in [
        t.to_path_buf(),
        t.join("eval"),
        t.join("examples/quickstart"),
    ] {
        set_port(&suite_dir.join("suite.toml"), server.port);
    }
    let bin = t.join("target/release");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_digline"), bin.join("digline")).unwrap();
    std::fs::create_dir_all(t.join("home")).unwrap();
    Place {
        dir,
        bin,
        stub: server,
    }
}

/// Run one block in `place`; `Err` says why it did not do what the page says.
fn run_block(place: &Place, block: &Block, expected: i32) -> Result<(), String> {
    let t = place.dir.path();
    let path = format!(
        "{}:{}",
        place.bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The pages' own service (`localhost:8080`, as in getting-started.md) is the stub here.
    let text = block
        .text
        .replace("localhost:8080", &format!("127.0.0.1:{}", place.stub.port));
    let script = format!("set -euo pipefail\n{text}\n");
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(script)
        .current_dir(t)
        .env("PATH", path)
        .env("HOME", t.join("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars() {
        let forge = ["GITHUB_", "GITLAB_", "CI_", "RUNNER_", "DIGLINE_"]
            .iter()
            .any(|p| name.starts_with(p));
        if forge || name == "CI" || name.ends_with("_API_KEY") || name.ends_with("_BASE_URL") {
            command.env_remove(&name);
        }
    }
    let mut child = command.spawn().map_err(|e| format!("bash: {e}"))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("still running after 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().unwrap();
    let code = status.code().unwrap_or(-1);
    if code == expected {
        Ok(())
    } else {
        Err(format!(
            "exited {code}, the page says {expected}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Check one page: every block has a language, every command block runs or
/// is marked. Returns what is wrong, one entry per block.
fn check_page(name: &str, markdown: &str) -> (Vec<String>, usize) {
    let blocks = match blocks(markdown) {
        Ok(b) => b,
        Err(e) => return (vec![format!("{name}: {e}")], 0),
    };
    let mut wrong = Vec::new();
    let mut ran = 0;
    let mut here: Option<Place> = None;
    for block in &blocks {
        let at = format!("{name}:{}", block.line);
        let command = matches!(block.lang.as_str(), "bash" | "sh");
        if block.lang.is_empty() {
            wrong.push(format!(
                "{at}: a block with no language — say what it is (bash, text, toml, json, yaml)"
            ));
            continue;
        }
        if !command {
            if looks_like_a_command(block) {
                wrong.push(format!(
                    "{at}: a command in a `{}` block — make it `bash` (run, or marked `<!-- not run: why -->`)",
                    block.lang
                ));
            }
            continue;
        }
        let expected = match &block.mark {
            Mark::NotRun(why) if why.is_empty() => {
                wrong.push(format!("{at}: `<!-- not run: -->` without a reason"));
                continue;
            }
            Mark::NotRun(_) => continue,
            Mark::Exit(code) => *code,
            Mark::None => 0,
        };
        let place = here.get_or_insert_with(place);
        ran += 1;
        if let Err(why) = run_block(place, block, expected) {
            wrong.push(format!(
                "{at}: this command block neither runs as written nor is marked `<!-- not run: why -->`: {why}"
            ));
        }
    }
    (wrong, ran)
}

/// The README and every page under `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_command_in_the_readme_and_the_docs_runs_or_says_why_not() {
    let mut wrong = Vec::new();
    let mut ran = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let (w, r) = check_page(&relative(&page), &text);
        wrong.extend(w);
        ran += r;
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n\n"));
    assert!(
        ran >= 20,
        "only {ran} command blocks ran: is the scan blind?"
    );
}

#[test]
fn an_unmarked_failing_block_or_an_unlabelled_one_fails_the_check() {
    let page = "\
intro

```bash
digline list --suite suite.toml
```

<!-- exit 64 -->
```bash
digline list --suite missing.toml
```

```bash
digline compare --suite nowhere.toml --run latest
```

```
digline run --suite suite.toml
```

```text
$ digline gate --suite suite.toml
```

<!-- not run:   -->
```sh
exit 3
```

<!-- not run: needs GITHUB_TOKEN -->
```bash
exit 3
```
";
    let (wrong, ran) = check_page("fake.md", page);
    assert_eq!(ran, 3, "{wrong:#?}");
    assert_eq!(wrong.len(), 4, "{wrong:#?}");
    assert!(wrong[0].starts_with("fake.md:12: this command block neither runs"));
    assert!(wrong[0].contains("exited 64, the page says 0"));
    assert!(wrong[1].starts_with("fake.md:16: a block with no language"));
    assert!(wrong[2].starts_with("fake.md:20: a command in a `text` block"));
    assert!(wrong[3].starts_with("fake.md:25: `<!-- not run: -->` without a reason"));
}
