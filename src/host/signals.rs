//! Ctrl-C and SIGTERM while a run is asking: the process's signals, read
//! here (the host's job) and handed to the caller as a callback.
//!
//! Once [`on_stop`] is called, SIGINT and SIGTERM no longer end the process
//! by themselves: a watcher thread calls the callback with the signal's
//! name, and the callback decides (stop asking, flush the journal, say how
//! to resume, exit). SIGKILL cannot be caught; the journal is what survives
//! it.

use std::io;

/// Call `stop` on the first SIGINT or SIGTERM, on a thread of its own
/// (later signals are passed to it too: a second Ctrl-C while the first is
/// being handled changes nothing).
///
/// # Errors
/// The handlers could not be installed.
pub fn on_stop(stop: impl Fn(&'static str) + Send + 'static) -> io::Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        std::thread::Builder::new()
            .name("digline-signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    stop(if signal == SIGINT {
                        "SIGINT"
                    } else {
                        "SIGTERM"
                    });
                }
            })?;
    }
    #[cfg(not(unix))]
    {
        let _ = stop;
    }
    Ok(())
}
