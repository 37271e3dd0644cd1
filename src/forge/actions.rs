//! GitHub Actions' file and workflow-command interfaces: the job summary
//! (`$GITHUB_STEP_SUMMARY`), step outputs (`$GITHUB_OUTPUT`), the one
//! annotation, and `::stop-commands::` around text that quotes case ids.
//!
//! Everything user-supplied that reaches a workflow command is escaped
//! ([`super::escape`]); multi-line values never reach `$GITHUB_OUTPUT`.

use std::io::Write;
use std::path::Path;

use super::escape;
use super::outcome::Kind;

/// The one annotation: `::notice` for 0, `::error` otherwise, titled with
/// the outcome, carrying the headline.
pub fn annotation(kind: Kind, headline: &str) -> String {
    let level = if kind.is_error() { "error" } else { "notice" };
    format!(
        "::{level} title={}::{}",
        escape::command_property(kind.title()),
        escape::command_data(headline)
    )
}

/// A warning workflow command.
pub fn warning(title: &str, message: &str) -> String {
    format!(
        "::warning title={}::{}",
        escape::command_property(title),
        escape::command_data(message)
    )
}

/// The line that pauses workflow-command processing until [`resume`].
pub fn stop_commands(token: &str) -> String {
    format!("::stop-commands::{token}")
}

/// The line that resumes workflow-command processing.
pub fn resume(token: &str) -> String {
    format!("::{token}::")
}

/// Append `name<<DELIM … DELIM` blocks for each output to `$GITHUB_OUTPUT`.
/// Values are made one line; the delimiter never occurs in a value.
///
/// # Errors
/// The I/O error's sentence.
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> Result<(), String> {
    let mut text = String::new();
    for (name, value) in outputs {
        let value = escape::one_line(value);
        let mut delim = "DIGLINE_EOF".to_string();
        while value.contains(&delim) {
            delim.push('_');
        }
        text.push_str(&format!("{name}<<{delim}\n{value}\n{delim}\n"));
    }
    append(path, &text)
}

/// Append the job summary.
///
/// # Errors
/// The I/O error's sentence.
pub fn append_summary(path: &Path, summary: &str) -> Result<(), String> {
    let mut text = summary.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    append(path, &text)
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_annotation_names_the_outcome_and_stays_one_line() {
        let line = annotation(Kind::SomethingGotWorse, "x\n::error::y%");
        assert_eq!(
            line,
            "::error title=digline%3A something got worse::x%0A::error::y%25"
        );
    }

    #[test]
    fn outputs_are_heredocs_with_a_delimiter_not_in_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        write_outputs(&p, &[("headline", "a\nDIGLINE_EOF".into())]).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "headline<<DIGLINE_EOF_\na DIGLINE_EOF\nDIGLINE_EOF_\n"
        );
    }
}
