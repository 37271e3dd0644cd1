//! The front end's printing: every byte digline writes to stdout or stderr
//! goes through here, and here is what a failed write means.
//!
//! - **A closed stdout** (`digline compare … | head`, a reader that went
//!   away): not an error and not a bug. The rest of the output is dropped
//!   and the command ends quietly with its own code — the verdict's, for a
//!   gate — as a shell pipeline expects.
//! - **stdout on a full disk** (`ENOSPC`, `EDQUOT`) or any other failed
//!   write: a refusal (64) with one sentence, since the answer was not
//!   delivered. Never 70: that is a bug in digline.
//! - **stderr**: a failed write there is ignored; there is nobody left to
//!   tell.
//!
//! The layers below print nothing (clippy's `print_stdout`/`print_stderr`
//! are denied crate-wide, `src/lib.rs`); they hand notices to
//! [`StderrNotices`], which prints them as `digline: …` and keeps only
//! [`Notice::Stopped`] under `-q`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::run::{Notice, Notices};
use crate::store::error::io_cause;

use super::CliError;

/// Set once stdout's reader has gone: nothing more is written there.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// `-q`, set once by [`super::main`].
static QUIET: AtomicBool = AtomicBool::new(false);

/// Remember `-q` for the whole command.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// True with `-q`: stderr carries errors only.
pub fn quiet() -> bool {
    QUIET.load(Ordering::SeqCst)
}

/// Write `text` to stdout as it is.
///
/// # Errors
/// [`CliError::Refused`] when stdout cannot take it (a full disk, a quota,
/// an I/O error); a reader that went away (a broken pipe) is not an error.
pub fn out(text: &str) -> Result<(), CliError> {
    out_bytes(text.as_bytes())
}

/// Write `bytes` to stdout as they are ([`out`]).
///
/// # Errors
/// As [`out`].
pub fn out_bytes(bytes: &[u8]) -> Result<(), CliError> {
    write_to(&mut io::stdout().lock(), bytes, &STDOUT_CLOSED)
}

/// Write `line` and a newline to stdout ([`out`]).
///
/// # Errors
/// As [`out`].
pub fn outln(line: &str) -> Result<(), CliError> {
    out(&format!("{line}\n"))
}

/// Write `text` to stderr as it is; a failed write is ignored.
pub fn err(text: &str) {
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Write `line` and a newline to stderr ([`err`]).
pub fn errln(line: &str) {
    err(&format!("{line}\n"));
}

/// The sentence for standard output that cannot be written.
pub fn stdout_refusal(e: &io::Error) -> CliError {
    CliError::Refused(format!(
        "the answer could not be written to standard output, so this command refuses rather than report a verdict nobody received: {}",
        io_cause(e)
    ))
}

/// Write `bytes` to `to` and flush; a broken pipe sets `closed` and drops
/// this and every later write.
fn write_to(to: &mut impl Write, bytes: &[u8], closed: &AtomicBool) -> Result<(), CliError> {
    if closed.load(Ordering::SeqCst) {
        return Ok(());
    }
    match to.write_all(bytes).and_then(|()| to.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            closed.store(true, Ordering::SeqCst);
            Ok(())
        }
        Err(e) => Err(stdout_refusal(&e)),
    }
}

/// The command line's sink for the notices of the layers below: each one
/// a `digline: …` line on stderr (`digline: warning: …` for a warning).
/// With `-q` only a stop is printed: no plan line, no progress, no
/// warning.
#[derive(Clone, Copy, Debug)]
pub struct StderrNotices {
    /// `-q`.
    pub quiet: bool,
}

impl Notices for StderrNotices {
    fn notice(&self, notice: Notice) {
        match notice {
            Notice::Stopped(text) => errln(&format!("digline: {text}")),
            _ if self.quiet => {}
            Notice::Plan(text) | Notice::Progress(text) => errln(&format!("digline: {text}")),
            Notice::Warning(text) => errln(&format!("digline: warning: {text}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with `kind`.
    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_reader_drops_the_rest_and_a_full_disk_refuses() {
        let closed = AtomicBool::new(false);
        let pipe = &mut Failing(io::ErrorKind::BrokenPipe);
        assert!(write_to(pipe, b"x", &closed).is_ok());
        assert!(closed.load(Ordering::SeqCst));
        let full = &mut Failing(io::ErrorKind::StorageFull);
        assert!(
            write_to(full, b"x", &closed).is_ok(),
            "nothing is written once the reader has gone"
        );
        let open = AtomicBool::new(false);
        let refusal = write_to(full, b"x", &open).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "the answer could not be written to standard output, so this command refuses rather than report a verdict nobody received: no space is left on the device (no storage space): free some space and run again"
        );
        assert_eq!(
            super::super::Words::exit_status(&refusal),
            super::super::exit::ExitStatus::Refused
        );
    }
}
