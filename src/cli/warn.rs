//! The installed-behind warning, printed by every command that reads documents.
//!
//! Once per command, over every document it read, on stderr (stdout may be
//! JSON; nothing with `-q`), and never changing the exit code: the codes are a contract about
//! the suite, and this is about the tool. Design record: ADR 0014 §4
//! (`shared/seeds/001_*`).

use crate::core::document::RunDocument;
use crate::core::version::{ahead_note, INSTALLED};

/// Print `warning: …` once when any of `docs` was written by a newer
/// digline than this one; print nothing otherwise, or with `-q`.
pub fn warn_if_ahead<'a>(docs: impl IntoIterator<Item = &'a RunDocument>) {
    if super::output::quiet() {
        return;
    }
    if let Some(note) = ahead_note(
        docs.into_iter().map(|d| d.digline_version.as_str()),
        INSTALLED,
    ) {
        warn(&note);
    }
}

/// Print the installed-behind `note` (a use case's fact) as `warning: …`;
/// nothing with `-q`.
pub fn warn(note: &str) {
    if !super::output::quiet() {
        super::output::errln(&format!("warning: {note}"));
    }
}
