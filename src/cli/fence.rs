//! Text that quotes names a pull request chose (case ids, check names,
//! groups) is printed so that no name can act: control characters and
//! invisible ones are made visible ([`escape::terminal`]), and on GitHub
//! Actions the whole text sits inside a `::stop-commands::` fence, so a
//! line that starts with `::error::` is printed, not obeyed. The fence is
//! closed again at the end of the text: workflow commands after it (the
//! user's own, later in the step) keep working.

use crate::forge::{actions, escape};
use crate::host::env::{fresh_token, CiEnv};

/// `text` ready to print: visible, and fenced on GitHub Actions.
pub fn fenced(text: &str) -> String {
    fence(&escape::terminal(text), CiEnv::read().github.actions)
}

fn fence(text: &str, on_actions: bool) -> String {
    if !on_actions || text.is_empty() {
        return text.to_string();
    }
    let token = fresh_token();
    let mut out = actions::stop_commands(&token);
    out.push('\n');
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&actions::resume(&token));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_printed_inside_the_fence_on_actions_only() {
        let text = "::error::forged · contains · x\n";
        assert_eq!(fence(text, false), text);
        let fenced = fence(text, true);
        let lines: Vec<&str> = fenced.lines().collect();
        let token = lines[0].strip_prefix("::stop-commands::").unwrap();
        assert_eq!(token.len(), 32);
        assert_eq!(lines[1], "::error::forged · contains · x");
        assert_eq!(lines[2], format!("::{token}::"));
    }
}
