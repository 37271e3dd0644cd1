//! Where a load error is: `line:column` in the suite or cases file.
//!
//! The suite file is parsed once into the toml crate's spanned tree
//! ([`toml::de::DeTable`]), which keeps the span of every key and value
//! (the values the loader validates are deserialized from that same
//! tree, `super::parse_toml`); a [`LoadError`]'s entry (`[suite]`, `[[assertions]] #2, [inner]`,
//! `[target.headers]`) and key then name a place in that tree. The cases
//! file is valid JSON by the time a case is refused, so its entries are
//! found by a small scan for the N-th element of the top-level array and
//! the key inside it. A place that cannot be found (a table that is
//! missing altogether) is the file's first line, where it would go.
//! Spec `10-suite.md` "Errors are the feature".

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::errors::LoadError;

/// A 1-based line and column (columns count characters, not bytes).
pub type LineColumn = (usize, usize);

/// The 1-based line and column of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> LineColumn {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// One step of a path into the suite file: a key, or an array index.
#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The path a locator names: `[[assertions]] #2, [inner], `regex`` is
/// `assertions` → entry 1 → `inner` (the check's name is no step).
fn steps(locator: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in locator.split(", ") {
        if let Some(rest) = part.strip_prefix("[[") {
            if let Some((name, n)) = rest.split_once("]] #") {
                steps.push(Step::Key(name.to_string()));
                if let Ok(n) = n.parse::<usize>() {
                    steps.push(Step::Index(n.saturating_sub(1)));
                }
            }
        } else if let Some(table) = part.strip_prefix('[').and_then(|p| p.strip_suffix(']')) {
            steps.extend(table.split('.').map(|k| Step::Key(k.to_string())));
        }
    }
    steps
}

/// Locate an error of the suite file whose text is `text` and spanned tree
/// `root`: element `element` of the key's array, else the key to blame
/// inside the entry the locator names, else the entry itself.
pub fn in_suite(
    text: &str,
    root: &DeTable<'_>,
    locator: Option<&str>,
    key: Option<&str>,
    element: Option<usize>,
) -> LineColumn {
    let mut table = root;
    // The start of the deepest entry found so far.
    let mut at: Option<usize> = None;
    let mut pending_index = None;
    for step in steps(locator.unwrap_or_default()) {
        match step {
            Step::Key(name) => {
                let Some((k, v)) = table.get_key_value(name.as_str()) else {
                    break;
                };
                at = Some(k.span().start);
                match v.get_ref() {
                    DeValue::Table(inner) => table = inner,
                    DeValue::Array(items) => pending_index = Some(items),
                    _ => break,
                }
            }
            Step::Index(i) => {
                let Some(entry) = pending_index.take().and_then(|items| items.get(i)) else {
                    break;
                };
                at = Some(entry.span().start);
                match entry.get_ref() {
                    DeValue::Table(inner) => table = inner,
                    _ => break,
                }
            }
        }
    }
    let found = key.and_then(|key| find_key(table, key));
    let element_at = found
        .zip(element)
        .and_then(|((_, value), i)| match value.get_ref() {
            DeValue::Array(items) => items.get(i).map(|item| item.span().start),
            _ => None,
        });
    let offset = element_at
        .or(found.map(|(start, _)| start))
        .or(at)
        .unwrap_or(0);
    line_column(text, offset)
}

/// The start of `key` in `table` and its value, or of a dotted path
/// (`headers.api_key`), or of the first key of that name nested anywhere
/// below.
fn find_key<'a, 't>(
    table: &'a DeTable<'t>,
    key: &str,
) -> Option<(usize, &'a Spanned<DeValue<'t>>)> {
    if let Some((k, v)) = table.get_key_value(key) {
        return Some((k.span().start, v));
    }
    if let Some((head, rest)) = key.split_once('.') {
        if let Some(DeValue::Table(inner)) = table.get(head).map(|v| v.get_ref()) {
            if let Some(found) = find_key(inner, rest) {
                return Some(found);
            }
        }
    }
    table.values().find_map(|v| match v.get_ref() {
        DeValue::Table(inner) => find_key(inner, key),
        _ => None,
    })
}

/// Locate an error of the cases file whose (valid JSON) text is `text`:
/// entry `#N` of the locator, and the key inside it when one is named.
pub fn in_cases(text: &str, locator: Option<&str>, key: Option<&str>) -> LineColumn {
    let entry = locator
        .and_then(|l| l.strip_prefix('#'))
        .and_then(|n| n.parse::<usize>().ok());
    let start = text.find(|c: char| !c.is_whitespace() && c != '\u{feff}');
    let offset = match (entry, start) {
        (Some(n), Some(open)) => element_start(text, open, n.saturating_sub(1))
            .map(|at| key.and_then(|k| key_in_object(text, at, k)).unwrap_or(at))
            .unwrap_or(open),
        (None, Some(open)) => open,
        _ => 0,
    };
    line_column(text, offset)
}

/// Walk JSON from `from`, calling `visit(offset, depth)` at each byte that
/// is not inside a string; stops when `visit` returns `Some`.
fn scan<T>(
    text: &str,
    from: usize,
    mut visit: impl FnMut(usize, u8, usize) -> Option<T>,
) -> Option<T> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(found) = visit(i, b, depth) {
            return Some(found);
        }
        match b {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The start of element `n` (0-based) of the array opening at `open`.
fn element_start(text: &str, open: usize, n: usize) -> Option<usize> {
    let mut seen = 0usize;
    let mut expecting = true;
    scan(text, open, |i, b, depth| {
        if i == open {
            return None;
        }
        if depth == 1 && b == b',' {
            expecting = true;
            return None;
        }
        if depth == 1 && expecting && !b.is_ascii_whitespace() && b != b']' {
            expecting = false;
            if seen == n {
                return Some(i);
            }
            seen += 1;
        }
        None
    })
}

/// The start of `"key"` as a key of the object opening at `open`.
fn key_in_object(text: &str, open: usize, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    scan(text, open, |i, b, depth| {
        if i > open && depth == 0 {
            // Past the object's closing brace.
            return Some(None);
        }
        if depth == 1 && b == b'"' && text[i..].starts_with(&quoted) {
            let after = text[i + quoted.len()..].trim_start();
            if after.starts_with(':') {
                return Some(Some(i));
            }
        }
        None
    })
    .flatten()
}

/// Put `error` and each of its further problems at its place: in the
/// suite file (its text and spanned tree) or in the cases file (its name
/// and text), by the file each names.
pub fn place(
    mut error: LoadError,
    suite: Option<(&str, &DeTable<'_>)>,
    cases: Option<(&str, &str)>,
) -> LoadError {
    let at = |e: &LoadError| -> Option<LineColumn> {
        if e.line_column().is_some() {
            return e.line_column();
        }
        match (suite, cases) {
            (Some((text, tree)), _) if e.file == "suite.toml" => Some(in_suite(
                text,
                tree,
                e.locator.as_deref(),
                e.key.as_deref(),
                e.element(),
            )),
            (_, Some((name, text))) if e.file == name => {
                Some(in_cases(text, e.locator.as_deref(), e.key.as_deref()))
            }
            _ => None,
        }
    };
    if let Some(lc) = at(&error) {
        error = error.at(lc);
    }
    let further = error
        .take_further()
        .into_iter()
        .map(|e| match at(&e) {
            Some(lc) => e.at(lc),
            None => e,
        })
        .collect();
    error.set_further(further);
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "[suite]\ntenant = \"t\"\nname = \"s\"\n\n[[assertions]]\ntype = \"contains\"\nneedle = \"a\"\n\n[[assertions]]\ntype = \"contains\"\n[assertions.inner]\n  neddle = \"b\"\n\n[target]\ntype = \"http\"\n[target.headers]\napi_key = \"x\"\n";

    #[test]
    fn a_suite_error_is_found_by_its_entry_and_key() {
        let table: &[(Option<&str>, Option<&str>, LineColumn)] = &[
            (Some("[suite]"), Some("name"), (3, 1)),
            (Some("[suite]"), Some("cases"), (1, 2)),
            (Some("[[assertions]] #1"), Some("needle"), (7, 1)),
            (Some("[[assertions]] #2"), None, (9, 1)),
            (Some("[[assertions]] #2, [inner]"), Some("neddle"), (12, 3)),
            (Some("[[assertions]] #2, `contains`"), Some("type"), (10, 1)),
            (Some("[target]"), Some("api_key"), (17, 1)),
            (Some("[target.headers]"), Some("api_key"), (17, 1)),
            (Some("top level"), Some("target"), (14, 2)),
            (None, Some("nothing"), (1, 1)),
        ];
        let tree = DeTable::parse(SUITE).unwrap().into_inner();
        for (locator, key, want) in table {
            assert_eq!(
                in_suite(SUITE, &tree, *locator, *key, None),
                *want,
                "{locator:?} {key:?}"
            );
        }
    }

    #[test]
    fn an_element_of_an_array_is_found_at_the_element() {
        let text = "[suite]\nartifacts = [\"a.md\", 7,\n  \"b.md\"]\nname = \"s\"\n";
        let tree = DeTable::parse(text).unwrap().into_inner();
        let at = |key, element| in_suite(text, &tree, Some("[suite]"), Some(key), element);
        assert_eq!(at("artifacts", None), (2, 1));
        assert_eq!(at("artifacts", Some(0)), (2, 14));
        assert_eq!(at("artifacts", Some(1)), (2, 22));
        assert_eq!(at("artifacts", Some(2)), (3, 3));
        // No such element, or a key that holds no array: the key.
        assert_eq!(at("artifacts", Some(3)), (2, 1));
        assert_eq!(at("name", Some(0)), (4, 1));
    }

    #[test]
    fn a_case_error_is_found_by_its_entry_and_key() {
        let text = "[\n  {\"id\": \"a\"},\n  {\"id\": \"b,]\", \"vars\": {\"id\": 1},\n   \"expectd\": \"x\"}\n]";
        assert_eq!(in_cases(text, Some("#1"), None), (2, 3));
        assert_eq!(in_cases(text, Some("#2"), Some("expectd")), (4, 4));
        assert_eq!(in_cases(text, Some("#2"), Some("id")), (3, 4));
        assert_eq!(in_cases(text, Some("#2"), Some("absent")), (3, 3));
        assert_eq!(in_cases(text, Some("#9"), None), (1, 1));
        assert_eq!(in_cases(text, None, None), (1, 1));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_column("ab\ncé x", 7), (2, 4));
        assert_eq!(line_column("", 0), (1, 1));
    }
}
