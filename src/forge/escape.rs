//! Making user-supplied names inert: in Markdown (the comment, the job
//! summary), on a terminal, and in GitHub workflow commands (annotations,
//! `$GITHUB_OUTPUT`).
//!
//! Case ids and check names come from the suite's authors — and, on a fork
//! pull request, from a stranger. Nothing in them may become a link, an
//! image, a mention (`@org/team`), an issue reference (`#1`,
//! `owner/repo#1`), HTML, a table cell border, a closed comment marker, a
//! workflow command or a terminal escape; bidi controls, zero-width
//! characters, the line and paragraph separators (U+2028, U+2029, which
//! some renderers and parsers take for line breaks) and the two
//! noncharacters XML 1.0 cannot carry (U+FFFE, U+FFFF) are shown as
//! `<U+202E>`, never obeyed.

/// Characters shown as `<U+XXXX>`: one set for every surface, the HTML
/// report's (`report::escape`).
pub use crate::report::escape::is_invisible;

/// `<U+202E>`: how an invisible character is shown.
pub fn shown(c: char) -> String {
    format!("<U+{:04X}>", u32::from(c))
}

/// The zero-width joiner put after `@` and `#`, as dependency bots do: GitHub
/// links mentions and references after rendering, so an entity or a
/// backslash does not stop them; a joiner between the sign and the name does.
pub const JOINER: char = '\u{200D}';

/// Text for a terminal or a log line: line breaks kept, every other control
/// character (ESC, BEL, CR…) U+FFFD, invisible characters shown.
pub fn terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            c if c.is_control() => out.push('\u{FFFD}'),
            c if is_invisible(c) => out.push_str(&shown(c)),
            c => out.push(c),
        }
    }
    out
}

/// Escape `text` for Markdown inline and table-cell context (GitHub and
/// GitLab flavours): every ASCII punctuation character is backslash-escaped
/// or written as an HTML entity (`& < >`), `@` and `#` are followed by a
/// zero-width joiner, line breaks become spaces, other control characters
/// U+FFFD, and invisible characters `<U+XXXX>`. The result renders as the
/// same visible characters and never as markup, a mention or a reference.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' | '\n' | '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' | '#' => {
                out.push('\\');
                out.push(c);
                out.push(JOINER);
            }
            c if c.is_control() => out.push('\u{FFFD}'),
            c if is_invisible(c) => out.push_str(&markdown(&shown(c))),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Escape the message (data) of a workflow command as `@actions/core` does:
/// `%` → `%25`, CR → `%0D`, LF → `%0A`. A value so escaped stays on its
/// command's one line, so a `::` inside it can never start a command.
pub fn command_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control() => out.push('\u{FFFD}'),
            c if is_invisible(c) => out.push_str(&shown(c)),
            c => out.push(c),
        }
    }
    out
}

/// Escape a workflow-command property value (e.g. `title=`): as
/// [`command_data`], plus `:` → `%3A` and `,` → `%2C`.
pub fn command_property(text: &str) -> String {
    command_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One visible line: CR, LF and tab become spaces, other control characters
/// U+FFFD, invisible characters `<U+XXXX>` (code spans, plain lines).
pub fn visible_line(text: &str) -> String {
    terminal(&one_line(text).replace('\t', " "))
}

/// One line of text: CR and LF become spaces (for `$GITHUB_OUTPUT` values
/// and the comment's headline).
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\r' || c == '\n' { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_inert() {
        let id = "x](javascript:alert(1)) <img src=x> | @octocat *b* `c` <!-- -->\n# h";
        let got = markdown(id);
        for bad in [
            "](", "<img", " | ", "@octocat", "*b*", "`c`", "<!--", "-->", "\n",
        ] {
            assert!(!got.contains(bad), "{bad} in {got}");
        }
        assert_eq!(markdown("plain-id_1"), "plain\\-id\\_1");
        assert_eq!(
            markdown("@org/team #1 o/r#2"),
            "\\@\u{200D}org\\/team \\#\u{200D}1 o\\/r\\#\u{200D}2"
        );
        assert_eq!(markdown("a\u{202E}b"), "a&lt;U\\+202E&gt;b");
        assert_eq!(
            terminal("a\u{1b}[31m\u{7}\u{200B}\nb"),
            "a\u{FFFD}[31m\u{FFFD}<U+200B>\nb"
        );
        assert_eq!(visible_line("a\nb\u{2066}"), "a b<U+2066>");
    }

    #[test]
    fn separators_and_xml_noncharacters_are_shown_not_carried() {
        for c in ['\u{2028}', '\u{2029}', '\u{FFFE}', '\u{FFFF}'] {
            let text = format!("a{c}b");
            for out in [terminal(&text), markdown(&text), visible_line(&text)] {
                assert!(!out.contains(c), "{out:?}");
            }
        }
        assert_eq!(visible_line("a\u{2028}b"), "a<U+2028>b");
    }

    #[test]
    fn workflow_commands_stay_on_their_line() {
        let id = "a%0A\n::error::owned\r::set-output name=x::y";
        let data = command_data(id);
        assert!(!data.contains('\n') && !data.contains('\r'));
        assert!(data.starts_with("a%250A%0A::error"));
        assert_eq!(command_property("a:b,c"), "a%3Ab%2Cc");
    }
}
