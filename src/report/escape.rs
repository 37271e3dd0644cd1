//! Escaping for the HTML report: every string that comes from a suite, a
//! case, an answer or a document goes through [`html`] before it reaches the
//! page.
//!
//! Three steps, in one pass: the five HTML metacharacters become entities;
//! C0 controls (but tab and newline), DEL and C1 controls become numeric
//! character references (`&#x1b;`); the characters that change how text is
//! displayed without being seen ([`is_invisible`]: bidi controls and marks,
//! zero-width characters, the BOM, invisible tags, the line and paragraph
//! separators, and the noncharacters U+FFFE and U+FFFF) are shown as text
//! (`<U+202E>`), never obeyed — the same set, shown the same way, as the
//! comment, the job summary, JUnit and the terminal (`forge::escape`).

use std::fmt::Write;

/// Characters that change how text around them is displayed without being
/// seen: bidi controls, zero-width characters, the BOM, invisible tags, and
/// every other Unicode format character; the line and paragraph separators;
/// and U+FFFE/U+FFFF, which no XML document may hold. Shown as `<U+XXXX>`
/// on every surface.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{2028}' | '\u{2029}' | '\u{FFFE}' | '\u{FFFF}' | '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
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
            c if is_invisible(c) => {
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
        // Marks, zero-width characters and noncharacters: shown, as on
        // every other surface.
        assert_eq!(
            html("\u{200E}\u{200B}\u{FFFE}\u{FFFF}"),
            "&lt;U+200E&gt;&lt;U+200B&gt;&lt;U+FFFE&gt;&lt;U+FFFF&gt;"
        );
        assert_eq!(html("café — 東京"), "café — 東京");
    }

    #[test]
    fn escaped_text_never_holds_a_tag_or_a_hidden_character() {
        let nasty: String = (0u32..0x3000)
            .chain(0xFE00..=0xFFFF)
            .chain(0xE0000..0xE0080)
            .filter_map(char::from_u32)
            .collect();
        let out = html(&nasty);
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('"'));
        assert!(!out.chars().any(|c| is_invisible(c) || is_control(c)));
    }
}
