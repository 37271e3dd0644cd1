//! Python `re` patterns run in Rust.
//!
//! (Skeleton: filled in by the check evaluation work.)

/// Compile a pattern written for Python's `re.search`.
///
/// # Errors
/// A sentence saying why the pattern cannot run.
pub fn compile(pattern: &str) -> Result<fancy_regex::Regex, String> {
    fancy_regex::Regex::new(pattern).map_err(|e| e.to_string())
}
