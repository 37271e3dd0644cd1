//! The delivery files agree with the crate: one version (`Cargo.toml`'s)
//! named everywhere a user copies it from — the Dockerfile, `action.yml`,
//! the README, the docs, the GitHub and GitLab examples, the workflows —
//! and the documented GitLab template is the one the examples include.
//!
//! The image, the GitLab job, arm64 and the Action's runner harness are
//! exercised with real tools by `.ci/run` (see `docs/gate.md`).

use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::util::repo;

/// Every versioned reference to a digline release in `text`, with the
/// version it names, as (line, reference, version).
fn references(text: &str) -> Vec<(usize, String, String)> {
    let patterns = [
        // the image, any variant tag, optionally pinned by digest
        r"ghcr\.io/digline/digline:([0-9][0-9A-Za-z.]*(?:-(?:rc|alpha|beta)[0-9.]*)?)",
        // the Action
        r"digline/digline@v([0-9][0-9A-Za-z.\-]*)",
        // the GitLab template by URL
        r"raw\.githubusercontent\.com/digline/digline/v([0-9][0-9A-Za-z.\-]*)/",
        // the Dockerfile's version argument
        r"ARG VERSION=([0-9][0-9A-Za-z.\-]*)",
    ];
    let patterns: Vec<Regex> = patterns.iter().map(|p| Regex::new(p).unwrap()).collect();
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for re in &patterns {
            for c in re.captures_iter(line) {
                found.push((n + 1, c[0].to_string(), c[1].to_string()));
            }
        }
    }
    found
}

/// The references in `text` naming another version, as located sentences.
fn disagreements(path: &str, text: &str, version: &str) -> Vec<String> {
    references(text)
        .into_iter()
        .filter(|(_, _, v)| v != version)
        .map(|(line, r, v)| {
            format!("{path}:{line}: `{r}` names {v}, but Cargo.toml's version is {version}")
        })
        .collect()
}

/// The files a user copies a version from.
fn delivery_files() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![
        root.join("Dockerfile"),
        root.join("action.yml"),
        root.join("README.md"),
    ];
    let mut dirs = vec![
        root.join("docs"),
        root.join("examples"),
        root.join(".github"),
    ];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if name != ".digline" {
                    dirs.push(p);
                }
            } else if [".md", ".yml", ".yaml", ".sh", ".toml"]
                .iter()
                .any(|s| name.ends_with(s))
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap().display().to_string()
}

#[test]
fn every_delivery_file_names_cargo_tomls_version() {
    let version = env!("CARGO_PKG_VERSION");
    let mut problems = Vec::new();
    let mut named = 0;
    for f in delivery_files() {
        let text = fs::read_to_string(&f).unwrap();
        named += references(&text).len();
        problems.extend(disagreements(&rel(&f), &text, version));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The places that must name it do.
    for (file, wanted) in [
        ("Dockerfile", format!("ARG VERSION={version}")),
        (
            "action.yml",
            format!("default: ghcr.io/digline/digline:{version}"),
        ),
        ("README.md", format!("digline/digline@v{version}")),
        (
            "docs/gate.md",
            format!("ghcr.io/digline/digline:{version}-gitlab"),
        ),
        (
            "examples/github/workflow.yml",
            format!("digline/digline@v{version}"),
        ),
        (
            "examples/gitlab/digline.yml",
            format!("ghcr.io/digline/digline:{version}-gitlab"),
        ),
        (
            "examples/gitlab/.gitlab-ci.yml",
            format!(
                "raw.githubusercontent.com/digline/digline/v{version}/examples/gitlab/digline.yml"
            ),
        ),
    ] {
        let text = fs::read_to_string(repo().join(file)).unwrap();
        assert!(text.contains(&wanted), "{file} does not contain `{wanted}`");
    }
    assert!(named >= 10, "only {named} versioned references found");
}

#[test]
fn a_stale_version_is_named_with_its_line() {
    let text = "# docs\n  image: { name: ghcr.io/digline/digline:0.10.9-gitlab }\n  - uses: digline/digline@v0.11.0\nARG VERSION=0.11.1\n";
    assert_eq!(
        disagreements("x.yml", text, "0.11.0"),
        vec![
            "x.yml:2: `ghcr.io/digline/digline:0.10.9` names 0.10.9, but Cargo.toml's version is 0.11.0"
                .to_string(),
            "x.yml:4: `ARG VERSION=0.11.1` names 0.11.1, but Cargo.toml's version is 0.11.0"
                .to_string(),
        ]
    );
    // A release's action.yml pins the image by digest: still this version.
    let pinned = format!(
        "    default: ghcr.io/digline/digline:0.11.0@sha256:{}\n",
        "a".repeat(64)
    );
    assert!(disagreements("action.yml", &pinned, "0.11.0").is_empty());
}

#[test]
fn the_gitlab_docs_show_the_template_the_examples_include() {
    let template = fs::read_to_string(repo().join("examples/gitlab/digline.yml")).unwrap();
    let example = fs::read_to_string(repo().join("examples/gitlab/.gitlab-ci.yml")).unwrap();
    for doc in ["README.md", "docs/gate.md"] {
        let text = fs::read_to_string(repo().join(doc)).unwrap();
        let include = example
            .lines()
            .skip_while(|l| !l.starts_with("include:"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            text.contains(include.trim_end()),
            "{doc} does not show examples/gitlab/.gitlab-ci.yml's include:\n{include}"
        );
    }
    for input in [
        "suite:",
        "root:",
        "locale:",
        "out:",
        "comment-on-success:",
        "job-name:",
    ] {
        assert!(
            template.contains(&format!("    {input}\n")),
            "the template has no input {input}"
        );
    }
}
