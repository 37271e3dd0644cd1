//! Atomic writes: a file is either absent, the old bytes, or the new bytes —
//! never half-written.
//!
//! A temporary file in the same directory is written, fsynced and renamed
//! over the target; the directory is fsynced after. Documents are mode
//! 0600 like digline 0.10.0 writes them.
//!
//! Nothing is ever written *through* a symbolic link: the rename replaces a
//! link at the file's own place (its target is untouched), and
//! [`write_output`] — every file digline writes outside the store (the
//! gate's `--out` files, `report --out`) — refuses a directory that is a
//! link, or, for a relative path, lies under one
//! ([`StoreError::OutputThroughLink`]). The store applies its own
//! inside-the-store rule before writing (`Store::place_inside`).

use std::io::Write;
use std::path::Path;

use super::StoreError;

/// Write `bytes` to `path` atomically with the given Unix mode (0600 for
/// documents, 0644 for `.gitignore`).
///
/// # Errors
/// [`StoreError::Io`] naming `path` when any step fails; the target is then
/// untouched and the temporary file removed.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), StoreError> {
    write_atomic_with(path, mode, &mut |w| w.write_all(bytes))
}

/// As [`write_atomic`], the content written by `fill` (through a buffer)
/// instead of taken from one slice: a large document is streamed.
///
/// # Errors
/// As [`write_atomic`]; also the first error `fill` returns.
pub fn write_atomic_with(
    path: &Path,
    mode: u32,
    fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .suffix(".json")
        .tempfile_in(dir)
        .map_err(|e| StoreError::io(dir, e))?;
    set_mode(tmp.as_file(), mode).map_err(|e| StoreError::io(path, e))?;
    {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        fill(&mut buffered)
            .and_then(|()| buffered.flush())
            .map_err(|e| StoreError::io(path, e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| StoreError::io(path, e))?;
    tmp.persist(path)
        .map_err(|e| StoreError::io(path, e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Write an output file (a gate's comment, summary, JUnit, report or
/// outcome; `report --out`) atomically, mode 0644, never through a
/// symbolic link: a link at `path` itself is replaced, not followed; a
/// directory that is a link (any existing component of a relative path,
/// or the last one of an absolute path) is refused. The directory must
/// exist ([`prepare_output_dir`] makes one).
///
/// # Errors
/// [`StoreError::OutputThroughLink`] naming the link; [`StoreError::Io`]
/// (a missing directory included).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new(""));
    refuse_linked_dir(dir)?;
    if !dir.as_os_str().is_empty() && !dir.is_dir() {
        return Err(StoreError::io(
            path,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    write_atomic(path, bytes, 0o644)
}

/// Create the directory `dir` for output files, refusing a symbolic link
/// on the way (see [`write_output`]).
///
/// # Errors
/// As [`write_output`].
pub fn prepare_output_dir(dir: &Path) -> Result<(), StoreError> {
    refuse_linked_dir(dir)?;
    if !dir.as_os_str().is_empty() {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    }
    Ok(())
}

/// Refuse an output directory that is a symbolic link (for a relative
/// path: any of its existing components).
fn refuse_linked_dir(dir: &Path) -> Result<(), StoreError> {
    let linked = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if dir.is_relative() {
        let mut at = std::path::PathBuf::new();
        for part in dir.components() {
            at.push(part);
            if linked(&at) {
                return Err(StoreError::OutputThroughLink { path: at });
            }
        }
    } else if linked(dir) {
        return Err(StoreError::OutputThroughLink {
            path: dir.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_sets_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("a.json");
        write_atomic(&path, b"one", 0o600).unwrap();
        write_atomic(&path, b"two", 0o600).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
    }

    /// A committed `out/comment.md -> ../victim.txt` is replaced, never
    /// written through; a linked directory is refused before writing.
    #[cfg(unix)]
    #[test]
    fn outputs_are_never_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink("../victim.txt", out.join("comment.md")).unwrap();
        write_output(&out.join("comment.md"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            std::fs::read_to_string(out.join("comment.md")).unwrap(),
            "new"
        );
        assert!(!std::fs::symlink_metadata(out.join("comment.md"))
            .unwrap()
            .file_type()
            .is_symlink());

        let elsewhere = tempfile::tempdir().unwrap();
        let linked = dir.path().join("linked");
        std::os::unix::fs::symlink(elsewhere.path(), &linked).unwrap();
        let err = write_output(&linked.join("comment.md"), b"x").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a symbolic link: digline does not write its output through one (a link \
                 committed in a pull request could point anywhere), so nothing was written; \
                 remove the link or choose another place",
                linked.display()
            )
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_in_the_way_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("x"), "x").unwrap();
        let err = write_atomic(&path, b"x", 0o600).unwrap_err();
        assert!(err.to_string().contains("taken"), "{err}");
    }
}
