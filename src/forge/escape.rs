//! Making user-supplied names inert: in Markdown (the comment, the job
//! summary) and in GitHub workflow commands (annotations, `$GITHUB_OUTPUT`).
//!
//! Case ids and check names come from the suite's authors — and, on a fork
//! pull request, from a stranger. Nothing in them may become a link, an
//! image, a mention, HTML, a table cell border, a closed comment marker or
//! a workflow command.

/// Escape `text` for Markdown inline and table-cell context (GitHub and
/// GitLab flavours): every ASCII punctuation character is backslash-escaped
/// or written as an HTML entity (`& < > @`), line breaks become spaces and
/// other control characters U+FFFD. The result renders as the same
/// characters and never as markup.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' | '\n' | '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("&#64;"),
            c if c.is_control() => out.push('\u{FFFD}'),
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
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property value (e.g. `title=`): as
/// [`command_data`], plus `:` → `%3A` and `,` → `%2C`.
pub fn command_property(text: &str) -> String {
    command_data(text).replace(':', "%3A").replace(',', "%2C")
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
