//! The architecture, enforced: arrows point down only.
//!
//! `cli`/`mcp` → `forge` → `host` → `run` → `client` → `report`/`wire` →
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
    ("client", &["report", "wire", "store", "core"]),
    ("run", &["client", "report", "wire", "store", "core"]),
    (
        "host",
        &["run", "client", "report", "wire", "store", "core"],
    ),
    (
        "forge",
        &["host", "run", "client", "report", "wire", "store", "core"],
    ),
    (
        "cli",
        &[
            "forge", "host", "run", "client", "report", "wire", "store", "core",
        ],
    ),
    (
        "mcp",
        &[
            "forge", "host", "run", "client", "report", "wire", "store", "core",
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

/// The file's text without its `#[cfg(test)]` items and without comments.
/// Only the item after each `#[cfg(test)]` is dropped (a `mod tests { … }`,
/// a `mod tests;`, a `use` or a function): code after a test module is
/// still production code and still checked.
fn production_code(text: &str) -> String {
    let mut body = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        body.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        rest = &after[item_end(after)..];
    }
    body.push_str(rest);
    body.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("//")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the item at the start of `text` ends: after its first `;` outside
/// braces, or after the braces of its body. Strings and character literals
/// are skipped, so a `"{"` in a test does not unbalance the count.
fn item_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(text, i),
            b'r' if text[i..].starts_with("r#\"") || text[i..].starts_with("r\"") => {
                let hashes = text[i + 1..].bytes().take_while(|b| *b == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let open = i + 2 + hashes;
                i = text[open..]
                    .find(&close)
                    .map_or(bytes.len(), |j| open + j + close.len());
                continue;
            }
            b'\'' => {
                // A character literal ('{', '\'') or a lifetime ('a).
                let lit = &text[i + 1..];
                if lit.starts_with('\\') {
                    i += lit.find('\'').map_or(1, |j| j + 2);
                    continue;
                }
                let mut chars = lit.chars();
                if let (Some(c), Some('\'')) = (chars.next(), chars.next()) {
                    i += 1 + c.len_utf8() + 1;
                    continue;
                }
            }
            b'/' if text[i..].starts_with("//") => {
                i = text[i..].find('\n').map_or(bytes.len(), |j| i + j);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The index just past the string literal opening at `start`.
fn string_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The layers a file's code names: `crate::store::…`, `crate::store;`, and
/// every branch of a grouped `use crate::{core::x, store::{a, b}}`.
fn layers_named(code: &str, layers: &[&str]) -> Vec<String> {
    let mut named = Vec::new();
    for layer in layers {
        if code.contains(&format!("crate::{layer}::"))
            || code.contains(&format!("crate::{layer};"))
            || code.contains(&format!("crate::{layer}}}"))
            || code.contains(&format!("crate::{layer},"))
            || code.contains(&format!("crate::{layer} as"))
        {
            named.push((*layer).to_string());
        }
    }
    let mut rest = code;
    while let Some(i) = rest.find("crate::{") {
        let group = &rest[i + "crate::".len()..];
        let end = item_end(group);
        let inner = &group[1..end.saturating_sub(1).max(1)];
        for branch in top_level_branches(inner) {
            let head = branch
                .trim()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            if layers.contains(&head) && !named.iter().any(|n| n == head) {
                named.push(head.to_string());
            }
        }
        rest = &group[end..];
    }
    named
}

/// The comma-separated branches of a `use` group, nested groups kept whole.
fn top_level_branches(inner: &str) -> Vec<&str> {
    let mut branches = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                branches.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    branches.push(&inner[start..]);
    branches
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
            let layers: Vec<&str> = ALLOWED.iter().map(|(name, _)| *name).collect();
            for other in layers_named(&code, &layers) {
                if other == *layer || allowed.contains(&other.as_str()) {
                    continue;
                }
                problems.push(format!("{} ({layer}) imports {other}", file.display()));
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
fn the_check_catches_grouped_imports_and_code_after_the_test_module() {
    let dir = tempfile::tempdir().unwrap();
    let core = dir.path().join("core");
    std::fs::create_dir_all(&core).unwrap();
    // A grouped import of a higher layer, on one line and over several.
    std::fs::write(core.join("grouped.rs"), "use crate::{core::x, run};\n").unwrap();
    std::fs::write(
        core.join("nested.rs"),
        "use crate::{\n    core::{a, b},\n    host::suite::load,\n};\n",
    )
    .unwrap();
    // Production code after a test module (with a brace in a string).
    std::fs::write(
        core.join("after.rs"),
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    fn g() { let _ = \"{\"; let _ = '}'; }\n}\n\
         fn h() { std::fs::read(\"x\"); }\nuse crate::client::http;\n",
    )
    .unwrap();
    // Allowed: a grouped import of core only, and I/O inside the test module.
    std::fs::write(
        core.join("fine.rs"),
        "use crate::core::{a, b};\n#[cfg(test)]\nmod tests { fn g() { std::fs::read(\"x\"); } }\n",
    )
    .unwrap();
    let mut problems = layer_violations(dir.path());
    problems.sort();
    let names: Vec<String> = problems
        .iter()
        .map(|p| {
            let file = Path::new(p.split(' ').next().unwrap());
            let rest = p.split_once(") ").unwrap().1;
            format!("{}: {rest}", file.file_name().unwrap().to_string_lossy())
        })
        .collect();
    assert_eq!(
        names,
        [
            "after.rs: does I/O: std::fs",
            "after.rs: imports client",
            "grouped.rs: imports run",
            "nested.rs: imports host",
        ],
        "{problems:?}"
    );
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
