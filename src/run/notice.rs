//! Notices: what a run tells the person running it — the plan, progress,
//! a warning, a stop — handed to the front end instead of printed.
//!
//! The layers below the front ends never print (clippy's `print_stdout` and
//! `print_stderr` are denied outside `cli/`): they are shared by the
//! command line, whose stderr a person reads, and by the MCP server, whose
//! stdout is the protocol. Each front end owns a [`Notices`] sink and says
//! what becomes of a notice: the command line prints it as `digline: …`
//! (and drops all but [`Notice::Stopped`] with `-q`); the MCP server logs
//! warnings and drops the rest ([`Logged`]). A notice carries counts,
//! names, time and money only — never payload, never a secret.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::report::locale::Locale;

/// One thing a run has to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// What is about to happen: the plan, the judging, a resume.
    Plan(String),
    /// How far the run is (a line every few seconds in CI, and the last one).
    Progress(String),
    /// Something to know that changes no exit code (an unpriced judge, a
    /// journal that cannot be written). Printed as `warning: …`.
    Warning(String),
    /// The run was stopped (Ctrl-C, SIGTERM) and is not stored: how to
    /// resume. The process ends with 64 right after.
    Stopped(String),
}

/// Where notices go: the front end's sink.
pub trait Notices: Send + Sync {
    /// Take one notice.
    fn notice(&self, notice: Notice);
}

/// Notices nobody reads (library callers, tests that do not look).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Notices for Silent {
    fn notice(&self, _notice: Notice) {}
}

/// The MCP server's sink: warnings and stops go to the log (stderr, never
/// the protocol's stdout); the plan and progress are dropped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Logged;

impl Notices for Logged {
    fn notice(&self, notice: Notice) {
        match notice {
            Notice::Warning(text) | Notice::Stopped(text) => tracing::warn!("{text}"),
            Notice::Plan(_) | Notice::Progress(_) => {}
        }
    }
}

/// Every notice, kept in order (tests read them back).
#[derive(Debug, Default)]
pub struct Collected(Mutex<Vec<Notice>>);

impl Collected {
    /// The notices so far, in the order they came.
    pub fn taken(&self) -> Vec<Notice> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Notices for Collected {
    fn notice(&self, notice: Notice) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(notice);
    }
}

/// A shared handle on a sink, carried by the run's context, with the
/// language its reader reads (`--locale`): the layers below the front end
/// word their notices in it ([`crate::report::progress`]).
#[derive(Clone)]
pub struct Notifier {
    sink: Arc<dyn Notices>,
    locale: Locale,
}

impl Notifier {
    /// A handle on `sink`, in English.
    pub fn new(sink: Arc<dyn Notices>) -> Notifier {
        Notifier {
            sink,
            locale: Locale::En,
        }
    }

    /// The same sink, read in `locale`.
    #[must_use]
    pub fn in_locale(mut self, locale: Locale) -> Notifier {
        self.locale = locale;
        self
    }

    /// The language the notices are worded in.
    pub fn locale(&self) -> Locale {
        self.locale
    }

    /// A handle that drops every notice.
    pub fn silent() -> Notifier {
        Notifier::new(Arc::new(Silent))
    }

    /// Hand `notice` to the sink.
    pub fn send(&self, notice: Notice) {
        self.sink.notice(notice);
    }

    /// A [`Notice::Plan`].
    pub fn plan(&self, text: impl Into<String>) {
        self.send(Notice::Plan(text.into()));
    }

    /// A [`Notice::Warning`].
    pub fn warn(&self, text: impl Into<String>) {
        self.send(Notice::Warning(text.into()));
    }
}

impl Default for Notifier {
    fn default() -> Notifier {
        Notifier::silent()
    }
}

impl fmt::Debug for Notifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Notifier")
    }
}
