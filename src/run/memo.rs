//! The judge memo in a run (`--judge-memo on|off|replay`): the driver asks
//! it before every judge call.
//!
//! - `on` (the default): a reply kept under the call's key
//!   (`core::memo`) is used instead of calling; a call that is made is
//!   kept. The same answer graded by the same judge set up the same way
//!   gets the same verdict, and the judge is paid once.
//! - `off`: the memo is neither read nor written.
//! - `replay`: the memo is read and never written, and no judge is ever
//!   called: a miss is a check that could not be judged (so the gate says
//!   2), its reason naming the fields the nearest entry differs in.
//!
//! Hits, misses and what the hits would have cost are counted
//! ([`MemoTally`]) for the plan line, the spend record, `outcome.json`, the
//! comment and the report. A failed write of an entry is not the run's
//! failure: the reply is used, the next run asks again.

use std::sync::Mutex;

use crate::core::memo::{MemoEntry, MemoFields, MemoPlace, MemoTally};
use crate::store::memo::MemoReader;

/// `--judge-memo`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MemoMode {
    /// Reuse and record.
    #[default]
    On,
    /// Neither read nor write.
    Off,
    /// Reuse only; a miss is not judged (never a call).
    Replay,
}

impl MemoMode {
    /// `on`, `off`, `replay`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoMode::On => "on",
            MemoMode::Off => "off",
            MemoMode::Replay => "replay",
        }
    }
}

/// What the memo says before a judge call.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    /// Kept: use this reply.
    Hit(Box<MemoEntry>),
    /// Not kept: ask the judge (and [`JudgeMemo::keep`] the reply).
    Ask,
    /// Not kept, and no judge may be asked: the reason the check records.
    Refused(String),
}

/// The memo of one run.
#[derive(Debug)]
pub struct JudgeMemo {
    mode: MemoMode,
    reader: Option<MemoReader>,
    tally: Mutex<MemoTally>,
}

/// The reason a `replay` miss records; `cause::classify` reads its prefix.
pub const REPLAY_MISS: &str = "the judge was not asked: --judge-memo replay holds no reply for it";

/// The reason a re-ask under `replay` records: a re-ask is a fresh
/// judging, and replay calls no judge.
pub const REPLAY_REASK: &str =
    "the judge was not asked: --judge-memo replay holds no reply for it; a re-ask is a fresh judging, never a kept reply";

impl JudgeMemo {
    /// A memo in `mode` read from (and, with `on`, written to) `reader`.
    pub fn new(mode: MemoMode, reader: MemoReader) -> JudgeMemo {
        JudgeMemo {
            mode,
            reader: (mode != MemoMode::Off).then_some(reader),
            tally: Mutex::new(MemoTally::default()),
        }
    }

    /// No memo (`off`; tests and callers without a store).
    pub fn off() -> JudgeMemo {
        JudgeMemo {
            mode: MemoMode::Off,
            reader: None,
            tally: Mutex::new(MemoTally::default()),
        }
    }

    /// The mode.
    pub fn mode(&self) -> MemoMode {
        self.mode
    }

    /// The memo a gate's re-asks use: none under `on` and `off` (each
    /// re-ask is judged live and nothing it gets is kept — a kept reply for
    /// the same answer is the earlier judging, and replaying it would count
    /// one unlucky judging once per re-ask); under `replay`, one that
    /// refuses every call ([`REPLAY_REASK`]), since replay calls no judge.
    pub fn for_reasks(&self) -> Option<std::sync::Arc<JudgeMemo>> {
        (self.mode == MemoMode::Replay).then(|| {
            std::sync::Arc::new(JudgeMemo {
                mode: MemoMode::Replay,
                reader: None,
                tally: Mutex::new(MemoTally::default()),
            })
        })
    }

    fn tally_mut(&self) -> std::sync::MutexGuard<'_, MemoTally> {
        self.tally.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the memo did so far.
    pub fn tally(&self) -> MemoTally {
        *self.tally_mut()
    }

    /// True under `--judge-memo replay`: no judge is ever called.
    pub fn replays(&self) -> bool {
        self.mode == MemoMode::Replay
    }

    /// Before a judge call with `fields`, graded at `place`.
    pub fn lookup(&self, fields: &MemoFields, place: &MemoPlace) -> Lookup {
        let Some(reader) = &self.reader else {
            // Replay without a reader is the re-asks' memo: no judge.
            return if self.mode == MemoMode::Replay {
                Lookup::Refused(REPLAY_REASK.to_string())
            } else {
                Lookup::Ask
            };
        };
        if let Some(entry) = reader.get(&fields.key()) {
            let mut tally = self.tally_mut();
            tally.hits += 1;
            tally.saved_usd += entry.cost_usd.unwrap_or(0.0);
            return Lookup::Hit(Box::new(entry));
        }
        self.tally_mut().misses += 1;
        if self.mode != MemoMode::Replay {
            return Lookup::Ask;
        }
        let nearest = match reader.nearest(fields, place) {
            Some((_, differs)) if differs.is_empty() => {
                "an entry recorded here has the same fields under another key".to_string()
            }
            Some((_, differs)) => format!(
                "the nearest entry for this case and check differs in: {}",
                differs.join(", ")
            ),
            None => "the memo holds no entry for this case and check".to_string(),
        };
        Lookup::Refused(format!("{REPLAY_MISS}; {nearest}"))
    }

    /// Keep a reply the judge gave (mode `on` only).
    pub fn keep(&self, entry: &MemoEntry) {
        if self.mode != MemoMode::On {
            return;
        }
        if let Some(reader) = &self.reader {
            if let Err(e) = reader.put(entry) {
                tracing::warn!(error = %e, "a judge memo entry could not be written");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::memo::MemoInputs;
    use crate::store::Store;

    fn fields(answer: &str) -> MemoFields {
        MemoFields::of(&MemoInputs {
            provider: "openai",
            model: "m",
            endpoint: "h:1",
            base_url: "http://h:1",
            params: "{}",
            system: "s",
            prompt: answer,
            answer: answer.as_bytes(),
            sample: 0,
            draw: 0,
        })
    }

    fn place() -> MemoPlace {
        MemoPlace {
            suite: "s".into(),
            case: "c".into(),
            check: "0123456789abcdef".into(),
        }
    }

    fn entry(answer: &str) -> MemoEntry {
        MemoEntry {
            fields: fields(answer),
            place: place(),
            reply: "{\"score\": 1}".into(),
            cost_usd: Some(0.5),
            tokens: None,
        }
    }

    #[test]
    fn on_keeps_and_reuses_off_never_reads_replay_refuses_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let reader = || MemoReader::new(Store::new(dir.path()), "t");
        let on = JudgeMemo::new(MemoMode::On, reader());
        assert_eq!(on.lookup(&fields("a"), &place()), Lookup::Ask);
        on.keep(&entry("a"));
        assert_eq!(
            on.lookup(&fields("a"), &place()),
            Lookup::Hit(Box::new(entry("a")))
        );
        assert_eq!(
            on.tally(),
            MemoTally {
                hits: 1,
                misses: 1,
                saved_usd: 0.5
            }
        );
        let off = JudgeMemo::new(MemoMode::Off, reader());
        assert_eq!(off.lookup(&fields("a"), &place()), Lookup::Ask);
        assert!(off.tally().is_empty());
        let replay = JudgeMemo::new(MemoMode::Replay, reader());
        assert_eq!(
            replay.lookup(&fields("a"), &place()),
            Lookup::Hit(Box::new(entry("a")))
        );
        let Lookup::Refused(why) = replay.lookup(&fields("b"), &place()) else {
            panic!("a replay miss is refused");
        };
        assert_eq!(
            why,
            format!("{REPLAY_MISS}; the nearest entry for this case and check differs in: answer")
        );
        // Replay never writes.
        replay.keep(&entry("b"));
        assert!(matches!(
            replay.lookup(&fields("b"), &place()),
            Lookup::Refused(_)
        ));
        // A re-ask is never served from the memo: under on, it asks live;
        // under replay, it is refused (no judge is called).
        assert!(on.for_reasks().is_none());
        let Some(fresh) = replay.for_reasks() else {
            panic!("replay's re-asks are refused, not asked");
        };
        assert_eq!(
            fresh.lookup(&fields("a"), &place()),
            Lookup::Refused(REPLAY_REASK.to_string())
        );
        let elsewhere = MemoPlace {
            case: "d".into(),
            ..place()
        };
        let Lookup::Refused(why) = replay.lookup(&fields("b"), &elsewhere) else {
            panic!("refused");
        };
        assert!(
            why.ends_with("the memo holds no entry for this case and check"),
            "{why}"
        );
    }
}
