//! The architecture, enforced: arrows point down only.
//!
//! `cli`/`mcp` → `forge` → `host` → `run` → `target` → `report`/`wire` →
//! `store` → `core`. A file may use `crate::<layer>` only for layers below
//! its own; `core`, `wire` and `report` do no I/O and read no clock or
//! environment (their `#[cfg(test)]` parts may read golden files).

use std::path::{Path, PathBuf};

/// Each layer and the layers it may import.
const ALLOWED: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("store", &["core"]),
    ("wire", &["store", "core"]),
    ("report", &["store", "core"]),
    ("target", &["report", "wire", "store", "core"]),
    ("run", &["target", "report", "wire", "store", "core"]),
    (
        "host",
        &["run", "target", "report", "wire", "store", "core"],
    ),
    (
        "forge",
        &["host", "run", "target", "report", "wire", "store", "core"],
    ),
    (
        "cli",
        &[
            "forge", "host", "run", "target", "report", "wire", "store", "core",
        ],
    ),
    (
        "mcp",
        &[
            "forge", "host", "run", "target", "report", "wire", "store", "core",
        ],
    ),
];

/// What a pure layer must never touch.
const IMPURE: &[&str] = &[
    "std::fs",
    "std::env",
    "std::process",
    "std::net",
    "SystemTime",
    "Instant::now",
    "OffsetDateTime::now",
    "ureq::",
    "File::open",
];
const PURE_LAYERS: &[&str] = &["core", "wire", "report"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // `tests.rs` files are `#[cfg(test)] mod tests;` bodies.
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The file's text without its `#[cfg(test)]` module and without comments.
fn production_code(text: &str) -> String {
    let body = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    body.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("//")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn layer_violations(src: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for (layer, allowed) in ALLOWED {
        let dir = src.join(layer);
        if !dir.exists() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let code = production_code(&std::fs::read_to_string(&file).unwrap());
            for (other, _) in ALLOWED {
                if other == layer || allowed.contains(other) {
                    continue;
                }
                if code.contains(&format!("crate::{other}::"))
                    || code.contains(&format!("crate::{other};"))
                    || code.contains(&format!("crate::{other}}}"))
                {
                    problems.push(format!("{} ({layer}) imports {other}", file.display()));
                }
            }
            if PURE_LAYERS.contains(layer) {
                for word in IMPURE {
                    if code.contains(word) {
                        problems.push(format!("{} ({layer}) does I/O: {word}", file.display()));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = layer_violations(&src);
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_catches_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    let core = dir.path().join("core");
    std::fs::create_dir_all(&core).unwrap();
    std::fs::write(
        core.join("bad.rs"),
        "use crate::store::Store;\nfn f() { std::fs::read(\"x\"); }\n",
    )
    .unwrap();
    let wire = dir.path().join("wire");
    std::fs::create_dir_all(&wire).unwrap();
    std::fs::write(
        wire.join("ok.rs"),
        "use crate::core::x;\n#[cfg(test)]\nmod t { fn g() { std::fs::read(\"x\"); } }\n",
    )
    .unwrap();
    let problems = layer_violations(dir.path());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("imports store"));
    assert!(problems[1].contains("does I/O"));
}

#[test]
fn every_source_file_has_a_module_doc() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .unwrap()
                .trim_start()
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(missing.is_empty(), "no module doc: {missing:?}");
}
