//! Where a load error is: `line:column` in the suite or cases file.
//!
//! In the suite file a refusal is placed by the span of what it blames,
//! which the spanned tree keeps for every key and value
//! (`super::fields`): [`line_column`] turns the span's start into a
//! line and column. The cases file is valid JSON by the time a case is
//! refused, so its entries are found by a small scan for the N-th element
//! of the top-level array and the key inside it ([`in_cases`]). Spec
//! `10-suite.md` "Errors are the feature".

/// A 1-based line and column (columns count characters, not bytes).
pub type LineColumn = (usize, usize);

/// The 1-based line and column of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> LineColumn {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Locate an error of the cases file whose (valid JSON) text is `text`:
/// entry `entry` (1-based) of its array, and `key` inside it when one is
/// named; the file's start without an entry.
pub fn in_cases(text: &str, entry: Option<usize>, key: Option<&str>) -> LineColumn {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_error_is_found_by_its_entry_and_key() {
        let text = "[\n  {\"id\": \"a\"},\n  {\"id\": \"b,]\", \"vars\": {\"id\": 1},\n   \"expectd\": \"x\"}\n]";
        assert_eq!(in_cases(text, Some(1), None), (2, 3));
        assert_eq!(in_cases(text, Some(2), Some("expectd")), (4, 4));
        assert_eq!(in_cases(text, Some(2), Some("id")), (3, 4));
        assert_eq!(in_cases(text, Some(2), Some("absent")), (3, 3));
        assert_eq!(in_cases(text, Some(9), None), (1, 1));
        assert_eq!(in_cases(text, None, None), (1, 1));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_column("ab\ncé x", 7), (2, 4));
        assert_eq!(line_column("", 0), (1, 1));
    }
}
