//! Whether a stored run may be gated as `latest`: never one dated after now
//! (a few minutes of clock skew allowed), never one tracked by git under
//! `runs/` (a committed run is written by the pull request being judged);
//! and a warning when the run was made at another commit than the checkout's.
//!
//! The host reads the clock and git here, so the front ends (`gate`,
//! `compare`, MCP) only pass what they resolved.

use std::path::Path;

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::git_objects;
use crate::core::document::RunDocument;

/// How far in the future a run may be dated (clock skew between machines).
pub const SKEW_SECONDS: i64 = 300;

/// Refuses a run resolved from `latest` that is dated after now (beyond
/// [`SKEW_SECONDS`]) or whose file is tracked by git. `which` is what the
/// user asked for: a run named by its key is a person's explicit choice
/// and is not refused. `run_file` is where the store keeps the run.
///
/// # Errors
/// The refusal sentence (the caller exits 64).
pub fn refuse_untrusted_latest(
    which: &str,
    key: &str,
    doc: &RunDocument,
    run_file: &Path,
) -> Result<(), String> {
    if which != crate::store::repo::LATEST {
        return Ok(());
    }
    refuse_future(key, &doc.created_at, OffsetDateTime::now_utc())?;
    if run_file.exists() && git_objects::is_tracked(Path::new("."), run_file) {
        return Err(format!(
            "the newest run {key} is tracked by git ({}), so it is not gated as latest: a committed run can be written by the pull request being judged; runs stay out of git (.digline/.gitignore) — remove it from the index, run the suite again, or name a run by its key",
            run_file.display()
        ));
    }
    Ok(())
}

/// The re-asks a gate kept for run `key` (`store::reasks`), `None` when
/// there are none or when the record is tracked by git: a committed record
/// is written by the pull request being judged, and could excuse any
/// failure as a wobble. Without a record the comparison keeps 0.10.0's
/// rule, the stricter one.
pub fn gated_reasks(
    store: &crate::store::Store,
    tenant: &str,
    suite: &str,
    key: &str,
) -> Option<crate::core::compare::reask::ReaskRecord> {
    let path = store.run_reasks_path(tenant, suite, key).ok()?;
    if path.exists() && git_objects::is_tracked(Path::new("."), &path) {
        tracing::warn!(
            record = %path.display(),
            "re-asks tracked by git are never read: the pull request being judged can write them"
        );
        return None;
    }
    store.read_run_reasks(tenant, suite, key)
}

/// The future-date refusal alone, against `now` (tests pass their own).
///
/// # Errors
/// The refusal sentence.
pub fn refuse_future(key: &str, created_at: &str, now: OffsetDateTime) -> Result<(), String> {
    let Ok(when) = OffsetDateTime::parse(created_at, &Rfc3339) else {
        return Err(format!(
            "the newest run {key} has a creation date that is not a date ({created_at:?}), so it is not gated as latest; run the suite again, or name a run by its key"
        ));
    };
    if (when - now).whole_seconds() > SKEW_SECONDS {
        return Err(format!(
            "the newest run {key} is dated {created_at}, after now ({}), so it is not gated as latest: a run from the future was written by hand or on a machine with a wrong clock; run the suite again, or name a run by its key",
            super::clock::iso(now)
        ));
    }
    Ok(())
}

/// A warning when the run records a commit other than the checkout's HEAD
/// (the run may not be the run of this change); `None` when they agree or
/// either is unknown.
pub fn commit_warning(key: &str, doc: &RunDocument, dir: &Path) -> Option<String> {
    let recorded = doc.git_commit.as_deref()?;
    let recorded_sha = recorded.trim_end_matches("-dirty");
    let head = git_objects::head_commit(dir)?;
    (recorded_sha != head).then(|| {
        format!(
            "the run {key} was made at commit {recorded}, but the checkout is at {head}: it may not be the run of this change"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_from_the_future_is_refused_and_skew_is_allowed() {
        let now = OffsetDateTime::parse("2026-12-01T12:00:00+00:00", &Rfc3339).unwrap();
        assert!(refuse_future("k", "2026-12-01T12:04:59+00:00", now).is_ok());
        assert!(refuse_future("k", "2026-11-30T12:00:00.5+00:00", now).is_ok());
        assert_eq!(
            refuse_future("k", "2026-12-01T12:10:00+00:00", now).unwrap_err(),
            "the newest run k is dated 2026-12-01T12:10:00+00:00, after now (2026-12-01T12:00:00+00:00), so it is not gated as latest: a run from the future was written by hand or on a machine with a wrong clock; run the suite again, or name a run by its key"
        );
        // An offset does not hide the future.
        assert!(refuse_future("k", "2026-12-02T01:00:00+12:00", now).is_err());
        assert!(refuse_future("k", "tomorrow", now).is_err());
    }
}
