//! Paths a suite names (`cases`, `artifacts`, template files): resolved
//! against the suite file's directory, and refused outside the root.

use std::path::{Component, Path, PathBuf};

use super::err;
use super::errors::{LoadError, LoadErrorKind};

/// Resolve `written` against the suite directory and refuse it outside `root`.
pub(super) fn inside_root(
    key: &str,
    written: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<PathBuf, LoadError> {
    let joined = suite_dir.join(written);
    let resolved = std::fs::canonicalize(&joined).unwrap_or_else(|_| normalize(&joined));
    if resolved.starts_with(root) {
        Ok(resolved)
    } else {
        Err(err(
            LoadErrorKind::Perimeter,
            Some("[suite]"),
            Some(key),
            &format!(
                "`{key}` names {}, which is outside {}. A suite that is data reads only inside \
                 its own repository; move the file in, or pass the right --root",
                resolved.display(),
                root.display()
            ),
        ))
    }
}

/// Lexically drop `.` and resolve `..` (for a path that does not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
