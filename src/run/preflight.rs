//! The preflight: everything that would stop a run, found before the first
//! call and said at once.
//!
//! A provider target contributes a missing key, an unpriced model and every
//! case's missing template variables; judges contribute missing keys; the
//! plan contributes `--max-calls`. All of them are listed together under
//! one sentence, so a suite is fixed in one pass rather than one problem
//! per paid run. An unpriced judge model is a warning, not a refusal: its
//! spend is reported as not counted.

/// Refuse when there are problems: one sentence and every problem on its
/// own line.
///
/// # Errors
/// `digline cannot run this suite (N problems), and nothing was sent:` then
/// `  - <problem>` lines.
pub fn refuse_if_any(problems: &[String]) -> Result<(), String> {
    if problems.is_empty() {
        return Ok(());
    }
    let count = if problems.len() == 1 {
        "1 problem".to_string()
    } else {
        format!("{} problems", problems.len())
    };
    let mut text = format!("digline cannot run this suite ({count}), and nothing was sent:");
    for p in problems {
        text.push_str("\n  - ");
        text.push_str(p);
    }
    Err(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_problem() {
        assert_eq!(refuse_if_any(&[]), Ok(()));
        let e = refuse_if_any(&["a".into(), "b".into()]).unwrap_err();
        assert_eq!(
            e,
            "digline cannot run this suite (2 problems), and nothing was sent:\n  - a\n  - b"
        );
        let e = refuse_if_any(&["a".into()]).unwrap_err();
        assert!(e.contains("(1 problem)"));
    }
}
