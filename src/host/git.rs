//! git: the commit a run was made at.

use std::path::Path;
use std::process::Command;

/// `"<sha>"`, or `"<sha>-dirty"` when tracked files have uncommitted
/// changes, for the repository holding `dir`; `None` outside git or when
/// git is not installed.
pub fn commit(dir: &Path) -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let sha = String::from_utf8(out.stdout).ok()?.trim().to_string();
    if sha.is_empty() {
        return None;
    }
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(dir)
        .output()
        .ok()
        .is_some_and(|o| o.status.success() && !o.stdout.is_empty());
    Some(if dirty { format!("{sha}-dirty") } else { sha })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_git_there_is_no_commit() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(commit(dir.path()), None);
    }
}
