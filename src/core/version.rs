//! Which digline wrote a document, and whether that one is ahead of us.
//!
//! A document records the release that made its run (`digline_version`,
//! stamped by `run`, never by `migrate` or `promote`). When a document read
//! by a command was written by a *newer* release, the command says so once
//! on stderr: the schema matched, so the file parsed, but fields written
//! under rules this binary does not have are being read by rules it does.
//! It is a warning, never an exit code. Releases compare as numeric tuples
//! (`0.10.0` > `0.9.0`, which a string comparison gets wrong), suffixes are
//! ignored (`1.2.0rc1` reads as `1.2.0`), and an empty or non-numeric
//! version is *not recorded*, which is never ahead. Design record: ADR 0014
//! §3–§4 (`shared/seeds/001_*`).

/// This binary's release, as `run` stamps it into documents.
pub const INSTALLED: &str = env!("CARGO_PKG_VERSION");

/// The leading numeric release segment of `version`: each dot-separated
/// chunk's leading digits, stopping at the first chunk with none.
/// `"0.10.0"` → `[0, 10, 0]`; `"1.2.0rc1"` → `[1, 2, 0]`; `""` → `[]`
/// (which sorts below every release). Chunks too large for a `u64` saturate.
pub fn release_tuple(version: &str) -> Vec<u64> {
    let mut parts = Vec::new();
    for chunk in version.split('.') {
        let digits: String = chunk.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        parts.push(digits.parse().unwrap_or(u64::MAX));
    }
    parts
}

/// True when `written_by` is a newer release than `installed`.
pub fn writer_ahead(written_by: &str, installed: &str) -> bool {
    release_tuple(written_by) > release_tuple(installed)
}

/// The warning for the documents a command read (their `digline_version`s),
/// naming the newest writer ahead of `installed`; `None` when none is ahead.
pub fn ahead_note<'a>(
    written_by: impl IntoIterator<Item = &'a str>,
    installed: &str,
) -> Option<String> {
    let newest = written_by
        .into_iter()
        .filter(|v| writer_ahead(v, installed))
        .max_by_key(|v| release_tuple(v))?;
    Some(format!(
        "written by digline {newest}, running {installed}: a newer digline wrote this document, and what that version added is being read here by older rules. Upgrade digline — a newer document is never rewritten backwards."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_tuples_compare_numerically() {
        // (document, installed, ahead?) — the first row is the reason this exists.
        let rows: &[(&str, &str, bool)] = &[
            ("0.10.0", "0.9.0", true),
            ("0.9.0", "0.10.0", false),
            ("0.11.0", "0.11.0", false),
            ("0.11.1", "0.11.0", true),
            ("1.2.0rc1", "1.2.0", false),
            ("1.2.1.post3", "1.2.0", true),
            ("0.12.0-dev", "0.11.0", true),
            ("", "0.11.0", false),
            ("unknown", "0.11.0", false),
            ("99.0.0", "0.11.0", true),
            ("0.11", "0.11.0", false),
            ("99999999999999999999999.0", "0.11.0", true),
        ];
        for (doc, installed, ahead) in rows {
            assert_eq!(writer_ahead(doc, installed), *ahead, "{doc} vs {installed}");
        }
        assert_eq!(release_tuple("0.10.0"), vec![0, 10, 0]);
        assert_eq!(release_tuple("1.2.0rc1"), vec![1, 2, 0]);
        assert!(release_tuple("").is_empty());
    }

    #[test]
    fn the_note_names_the_newest_writer_once() {
        assert_eq!(ahead_note(["0.10.0", "", "0.11.0"], "0.11.0"), None);
        let note = ahead_note(["0.12.0", "99.0.0", "0.13.1"], "0.11.0").unwrap();
        assert!(
            note.starts_with("written by digline 99.0.0, running 0.11.0:"),
            "{note}"
        );
        assert!(note.contains("Upgrade digline"));
    }
}
