//! The architecture, enforced: arrows point down only.
//!
//! `cli`/`mcp` → `app` → `forge` → `host` → `run` → `client` → `report`/`wire` →
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
        "app",
        &[
            "forge", "host", "run", "client", "report", "wire", "store", "core",
        ],
    ),
    (
        "cli",
        &[
            "app", "forge", "host", "run", "client", "report", "wire", "store", "core",
        ],
    ),
    (
        "mcp",
        &[
            "app", "forge", "host", "run", "client", "report", "wire", "store", "core",
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

/// Every function (signature to closing brace) longer than `limit` lines
/// in the `.rs` files under `dirs`: `file:line name (N lines)`.
fn long_functions(dirs: &[PathBuf], limit: usize) -> Vec<String> {
    let mut long = Vec::new();
    for dir in dirs {
        let mut files = Vec::new();
        rust_files(dir, &mut files);
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut offset = 0;
            for line in text.split_inclusive('\n') {
                let start = offset;
                offset += line.len();
                let Some(name) = fn_name(line) else {
                    continue;
                };
                let rest = &text[start..];
                // The body: from the first `{` after the signature (a
                // declaration ending in `;` has none) to its match.
                let Some(open) = rest
                    .find(['{', ';'])
                    .filter(|&i| rest.as_bytes()[i] == b'{')
                else {
                    continue;
                };
                let end = open + item_end(&rest[open..]);
                let lines = rest[..end].lines().count();
                if lines > limit {
                    let at = text[..start].lines().count() + 1;
                    long.push(format!("{}:{at} {name} ({lines} lines)", file.display()));
                }
            }
        }
    }
    long
}

/// The function a line declares, if it declares one.
fn fn_name(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "pub" | "async" | "const" | "unsafe" | "extern" => continue,
            w if w.starts_with("pub(") => continue,
            "fn" => {
                let name = words.next()?;
                return name.split(['(', '<']).next();
            }
            _ => return None,
        }
    }
    None
}

#[test]
fn no_function_in_the_front_ends_is_longer_than_80_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long = long_functions(&[src.join("cli"), src.join("mcp")], 80);
    assert!(
        long.is_empty(),
        "a front end parses and renders; the work is a use case in src/app/:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_catches_a_long_function() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..85)
        .map(|i| format!("    let _x{i} = \"{{\";\n"))
        .collect();
    std::fs::write(
        dir.path().join("long.rs"),
        format!("//! x\n\npub(crate) fn short() {{}}\n\nfn long() {{\n{body}}}\n\nfn decl();\n"),
    )
    .unwrap();
    let long = long_functions(&[dir.path().to_path_buf()], 80);
    assert_eq!(long.len(), 1, "{long:?}");
    assert!(long[0].ends_with(":5 long (87 lines)"), "{long:?}");
}

/// Every file under `dir` (no `target/`, no `.git/`) named `name`.
fn named_anywhere(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        let base = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            !matches!(base.as_str(), "target" | ".git") && named_anywhere(&path, name)
        } else {
            base == name
        }
    })
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// What a named path is, resolved in the repository: `src/…`, a layer's
/// `run/retry.rs`, a root file, or a bare file name found anywhere.
fn resolve(repo: &Path, named: &str) -> Option<PathBuf> {
    let candidates = [repo.join(named), repo.join("src").join(named)];
    if let Some(found) = candidates.into_iter().find(|p| p.exists()) {
        return Some(found);
    }
    (!named.contains('/') && named_anywhere(repo, named)).then(|| repo.join(named))
}

/// The problems of `ARCHITECTURE.md` (its text given): paths that name no
/// file, symbols that no file named in their row (or, in prose, no file
/// under `src/`) holds.
fn architecture_problems(repo: &Path, text: &str) -> Vec<String> {
    let mut all = Vec::new();
    rust_files(&repo.join("src"), &mut all);
    let read = |files: &[PathBuf]| -> String {
        files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap_or_default())
            .collect()
    };
    let everything = read(&all);
    let mut problems = Vec::new();
    for line in text.lines() {
        let spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        let is_path = |s: &&str| {
            !s.contains(' ')
                && !s.contains(':')
                && !s.starts_with('-')
                && (s.contains('/') || s.ends_with(".rs") || s.ends_with(".md"))
        };
        let mut files = Vec::new();
        for path in spans.iter().copied().filter(is_path) {
            // `.digline/` is the store a run writes; `shared/spec/` lives
            // beside the repository.
            if path.starts_with('.') || path.starts_with("shared/") {
                continue;
            }
            match resolve(repo, path) {
                None => problems.push(format!("no such path: {path}")),
                Some(p) if p.is_dir() => rust_files(&p, &mut files),
                Some(p) if p.extension().is_some_and(|e| e == "rs") => files.push(p),
                Some(_) => {}
            }
        }
        let in_table = line.starts_with('|');
        let haystack = if in_table && !files.is_empty() {
            read(&files)
        } else {
            everything.clone()
        };
        let ident = |s: &&str| {
            s.split("::").all(|seg| {
                seg.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && seg.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
        };
        // In a table row every symbol is checked; in prose, type names.
        let checked = spans.iter().copied().filter(ident).filter(|s| {
            in_table
                || s.split("::")
                    .last()
                    .is_some_and(|l| l.starts_with(char::is_uppercase))
        });
        for symbol in checked {
            for segment in symbol.split("::") {
                if !has_word(&haystack, segment) {
                    problems.push(format!("no such symbol where it is said to be: {symbol}"));
                }
            }
        }
    }
    problems
}

#[test]
fn every_path_and_symbol_architecture_md_names_exists() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("ARCHITECTURE.md")).unwrap();
    let problems = architecture_problems(repo, &text);
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md is stale:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_architecture_check_catches_a_stale_name() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stale =
        "| prices | `src/client/pricing.rs` (`ANTHROPIC`, `price_of`) | `docs/prices.md` |\n\
                 Read `src/target/mod.rs` and `NoSuchType`.\n";
    assert_eq!(
        architecture_problems(repo, stale),
        [
            "no such path: docs/prices.md",
            "no such symbol where it is said to be: ANTHROPIC",
            "no such path: src/target/mod.rs",
            "no such symbol where it is said to be: NoSuchType",
        ]
    );
}

/// Module paths (`client::mask`, `cargo test --lib client::pricing`) named
/// in `text` whose layer and module name no file under `src`.
fn stale_module_paths(src: &Path, text: &str) -> Vec<String> {
    const LAYERS: &[&str] = &[
        "app", "cli", "mcp", "forge", "host", "run", "client", "report", "wire", "store", "core",
        "target",
    ];
    let mut stale = Vec::new();
    let spans = text
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|s| s.split_whitespace());
    for word in spans {
        let segments: Vec<&str> = word.split("::").collect();
        if segments.len() < 2 || !LAYERS.contains(&segments[0]) {
            continue;
        }
        let module = segments[1].trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
        let (file, dir) = (
            src.join(segments[0]).join(format!("{module}.rs")),
            src.join(segments[0]).join(module),
        );
        let symbol_in_mod = std::fs::read_to_string(src.join(segments[0]).join("mod.rs"))
            .is_ok_and(|m| {
                // Declared there, or re-exported (`pub use refusal::Refusal`).
                m.lines().any(|l| {
                    let l = l.trim_start();
                    l.contains(&format!("mod {module}"))
                        || (l.starts_with("pub use") && has_word(l, module))
                })
            });
        if !file.exists() && !dir.exists() && !symbol_in_mod {
            stale.push(word.to_string());
        }
    }
    stale
}

#[test]
fn no_document_names_a_module_that_is_gone() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = repo.join("src");
    let mut texts: Vec<PathBuf> = ["ARCHITECTURE.md", "AGENTS.md", "README.md", "CHANGELOG.md"]
        .iter()
        .map(|f| repo.join(f))
        .collect();
    for entry in std::fs::read_dir(repo.join("docs")).unwrap() {
        texts.push(entry.unwrap().path());
    }
    rust_files(&src, &mut texts);
    let mut stale = Vec::new();
    for file in texts.iter().filter(|f| f.is_file()) {
        let text = std::fs::read_to_string(file).unwrap();
        // In Rust files only doc and comment lines name modules in backticks.
        let prose: String = if file.extension().is_some_and(|e| e == "rs") {
            text.lines()
                .filter(|l| l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            text
        };
        for word in stale_module_paths(&src, &prose) {
            stale.push(format!("{}: {word}", file.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "stale module names:\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_module_check_catches_the_old_target_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let text = "run `cargo test --lib target::pricing`; `client::mask` unit tests; `run::retry::tests::*`; `core::nothing`";
    assert_eq!(
        stale_module_paths(&src, text),
        ["target::pricing", "core::nothing"]
    );
}
