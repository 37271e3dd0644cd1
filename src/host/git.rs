//! git: the commit a run was made at — through the `git` binary when there
//! is one, else by reading `.git` itself (the scratch image has no `git`).

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

/// The commit of the repository holding `dir`, read from `.git` without a
/// `git` binary: `HEAD`, the ref it names (loose or in `packed-refs`),
/// following a worktree's `gitdir:`/`commondir`. No dirty check (that
/// needs the index). `None` when nothing readable is found.
pub fn commit_from_files(dir: &Path) -> Option<String> {
    let start = dir.canonicalize().ok()?;
    let dot_git = start
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|p| p.exists())?;
    let git_dir = if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        let path = std::path::PathBuf::from(target);
        if path.is_absolute() {
            path
        } else {
            dot_git.parent()?.join(path)
        }
    } else {
        dot_git
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir.clone(),
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let sha = match head.strip_prefix("ref:") {
        None => head.to_string(),
        Some(name) => {
            let name = name.trim();
            if name.split('/').any(|seg| seg == ".." || seg.is_empty()) {
                return None;
            }
            let loose = [git_dir.join(name), common.join(name)]
                .iter()
                .find_map(|p| std::fs::read_to_string(p).ok());
            match loose {
                Some(s) => s.trim().to_string(),
                None => {
                    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
                    packed.lines().find_map(|line| {
                        let (sha, r) = line.split_once(' ')?;
                        (r.trim() == name).then(|| sha.to_string())
                    })?
                }
            }
        }
    };
    let hex = sha.len() >= 40 && sha.chars().all(|c| c.is_ascii_hexdigit());
    hex.then_some(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_git_there_is_no_commit() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(commit(dir.path()), None);
    }

    #[test]
    fn the_commit_is_read_without_git() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let sha = "0123456789abcdef0123456789abcdef01234567";
        std::fs::write(
            git.join("packed-refs"),
            format!("# pack\n{sha} refs/heads/main\n"),
        )
        .unwrap();
        let sub = dir.path().join("eval");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(commit_from_files(&sub).as_deref(), Some(sha));
        std::fs::write(
            git.join("refs/heads/main"),
            "fedcba9876543210fedcba9876543210fedcba98\n",
        )
        .unwrap();
        assert_eq!(
            commit_from_files(&sub).as_deref(),
            Some("fedcba9876543210fedcba9876543210fedcba98")
        );
        std::fs::write(git.join("HEAD"), "ref: ../../etc/passwd\n").unwrap();
        assert_eq!(commit_from_files(&sub), None);
    }
}
