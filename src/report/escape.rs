//! Escaping for the HTML report: every string that comes from a suite, a
//! case, an answer or a document goes through [`html`] before it reaches the
//! page.
//!
//! Three steps, in one pass: the five HTML metacharacters become entities;
//! C0 controls (but tab and newline), DEL and C1 controls become numeric
//! character references (`&#x1b;`); the characters that silently reorder or
//! hide text — bidi embeddings and overrides (U+202A–U+202E), bidi isolates
//! (U+2066–U+2069) and the invisible tag characters (U+E0000–U+E007F) — are
//! shown as text (`<U+202E>`), never obeyed. Bidi *marks* (U+200E, U+200F,
//! U+061C) are left alone: they are language, not tricks.

use std::fmt::Write;

/// True for the characters that are shown as `<U+XXXX>` instead of obeyed.
pub fn is_never_language(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{E0000}'..='\u{E007F}')
}

/// True for the control characters written as numeric references.
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{7f}'
}

/// `text`, safe to place in HTML element content or a quoted attribute.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    push_html(&mut out, text);
    out
}

/// Appends [`html`]`(text)` to `out`.
pub fn push_html(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c if is_control(c) => {
                let _ = write!(out, "&#x{:x};", u32::from(c));
            }
            c if is_never_language(c) => {
                let _ = write!(out, "&lt;U+{:04X}&gt;", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metacharacters_become_entities() {
        assert_eq!(
            html(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;y&#x27;"
        );
        assert_eq!(html("</details>"), "&lt;/details&gt;");
        assert_eq!(
            html("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
    }

    #[test]
    fn controls_become_numeric_references() {
        assert_eq!(html("a\u{1b}[31mb"), "a&#x1b;[31mb");
        assert_eq!(
            html("\u{0}\u{7f}\u{85}\u{9f}\r"),
            "&#x0;&#x7f;&#x85;&#x9f;&#xd;"
        );
        assert_eq!(html("line\nnext\tcell"), "line\nnext\tcell");
    }

    #[test]
    fn bidi_overrides_and_tags_are_shown_not_obeyed() {
        assert_eq!(html("a\u{202E}b"), "a&lt;U+202E&gt;b");
        assert_eq!(
            html("\u{202A}\u{2066}\u{2069}"),
            "&lt;U+202A&gt;&lt;U+2066&gt;&lt;U+2069&gt;"
        );
        assert_eq!(html("\u{E0041}\u{E007F}"), "&lt;U+E0041&gt;&lt;U+E007F&gt;");
        // Marks are language: left alone.
        assert_eq!(html("\u{200E}\u{200F}\u{061C}"), "\u{200E}\u{200F}\u{061C}");
        assert_eq!(html("café — 東京"), "café — 東京");
    }

    #[test]
    fn escaped_text_never_holds_a_tag_or_a_hidden_character() {
        let nasty: String = (0u32..0x3000)
            .chain(0xE0000..0xE0080)
            .filter_map(char::from_u32)
            .collect();
        let out = html(&nasty);
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('"'));
        assert!(!out.chars().any(|c| is_never_language(c) || is_control(c)));
    }
}
