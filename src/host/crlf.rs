//! CRLF suite files read as digline 0.10.0 reads them.
//!
//! Python's TOML reader replaces every CR LF of the file's text with LF
//! before parsing (the TOML specification lets a parser normalise
//! newlines), so a triple-quoted needle written in a `suite.toml` saved
//! with Windows line ends holds `\n`, not `\r\n`. [`fold_crlf`] does the
//! same before the suite is parsed. Only the suite file's text is folded:
//! a line break written as an escape (`"\r\n"`) stays what it says, and
//! answers are never folded.

use std::borrow::Cow;

/// `text` with every CR LF replaced by LF (borrowed when there is none).
pub fn fold_crlf(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_crlf_and_nothing_else() {
        assert_eq!(fold_crlf("a\r\nb\r\n"), "a\nb\n");
        assert_eq!(fold_crlf("a\rb\n"), "a\rb\n");
        assert!(matches!(fold_crlf("a\nb"), Cow::Borrowed(_)));
        // An escape written in the file is text, not a line end.
        assert_eq!(fold_crlf(r#"x = "a\r\nb""#), r#"x = "a\r\nb""#);
    }
}
