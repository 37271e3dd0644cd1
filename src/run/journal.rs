//! What a run writes to its journal and how a resumed run reads it back
//! (the files themselves: `store::journal`).
//!
//! Records, one compact JSON object a line:
//!
//! - `{"kind": "header", "journal_version", "leg", "tenant", "environment",
//!   "suite", "config_hash", "cases_digest", "created_at", "git_commit",
//!   "digline_version", "metadata", "artifacts"}` — first in every leg;
//! - `{"kind": "answer", "case_id", "sample", "response": {...}}` — every
//!   answer as it arrives, as it is kept (secrets masked), so a resume never
//!   asks for it again; `"masked": true` when masking changed it: a resume
//!   cannot grade such an answer and asks again for it;
//! - `{"kind": "case", "case_id", "verdicts": [...]}` — a case graded (a
//!   case whose call failed is not recorded: nobody has its answer, so a
//!   resume asks again); `"masked": {...}` (a `core::masked::MaskedCase`)
//!   when its kept answers had a secret masked;
//! - `{"kind": "observed", "target_config": {...}}` — the configuration the
//!   target reported, when it changes.
//!
//! A resume takes the first leg's `created_at`, commit, version, metadata
//! and artifacts, so the resumed run has the key and the document the
//! uninterrupted run would have had (answers and verdicts are the recorded
//! ones, byte for byte). It refuses a journal of another journal version, or
//! whose suite (`config_hash`), cases (`cases_digest`) or artifacts changed.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::client::http::Response;
use crate::core::masked::MaskedCase;
use crate::core::python::dumps::dumps_request_body;
use crate::core::suite::Suite;
use crate::core::verdict::Verdict;
use crate::store::journal::Leg;

use super::driver::RunContext;
use super::notice::Notifier;

/// The journal format this binary writes and resumes.
pub const JOURNAL_VERSION: i64 = 1;

/// A digest of the cases as loaded (ids, variables, expectations, context,
/// metadata, suspension, label, group, canary): 16 hex characters.
pub fn cases_digest(suite: &Suite) -> String {
    let cases: Vec<Value> = suite
        .cases
        .iter()
        .map(|c| {
            json!({
                "id": c.id, "vars": c.vars, "expected": c.expected, "context": c.context,
                "metadata": c.metadata, "suspended": c.suspended, "label": c.label,
                "group": c.group, "canary": c.canary,
            })
        })
        .collect();
    crate::core::identity::sha16(&dumps_request_body(&Value::Array(cases)))
}

/// The header line of leg `leg` of a run of `suite` started with `ctx`.
pub fn header(suite: &Suite, ctx: &RunContext, leg: u32) -> Value {
    json!({
        "kind": "header",
        "journal_version": JOURNAL_VERSION,
        "leg": leg,
        "tenant": suite.tenant,
        "environment": suite.environment,
        "suite": suite.name,
        "config_hash": suite.config_hash(),
        "cases_digest": cases_digest(suite),
        "created_at": ctx.created_at,
        "git_commit": ctx.git_commit,
        "digline_version": ctx.digline_version,
        "metadata": ctx.metadata,
        "artifacts": ctx.artifacts,
    })
}

/// What the journal of an unfinished run already holds.
#[derive(Clone, Debug, Default)]
pub struct Prior {
    /// Answers by case id, by sample number, and whether masking changed
    /// them when they were kept.
    answers: HashMap<String, BTreeMap<u64, (Response, bool)>>,
    /// Graded cases whose kept answers had a secret masked.
    masked: HashMap<String, MaskedCase>,
    /// Verdicts of graded cases, by case id.
    graded: HashMap<String, Vec<Verdict>>,
    /// The last configuration the target reported.
    target_config: Option<Map<String, Value>>,
}

impl Prior {
    /// Nothing known: a fresh run.
    pub fn none() -> Prior {
        Prior::default()
    }

    /// Read a journal's records for `suite` and the context `now` (its
    /// artifacts as they are now). Returns the context the run started
    /// with (created_at, commit, version, metadata, artifacts from the
    /// first header; the rest from `now`) and what is known.
    ///
    /// # Errors
    /// One sentence: no header, another journal version, or a suite,
    /// cases or artifacts that changed since the run started.
    pub fn read(
        records: &[Value],
        suite: &Suite,
        now: &RunContext,
    ) -> Result<(RunContext, Prior), String> {
        let header = records
            .first()
            .filter(|r| r["kind"] == "header")
            .ok_or("the journal does not start with its header, so it cannot be resumed; delete it and run the suite again")?;
        if header["journal_version"] != json!(JOURNAL_VERSION) {
            return Err(format!(
                "the journal is at version {}, and this digline resumes version {JOURNAL_VERSION}: finish it with the digline that started it, or delete it and run the suite again",
                header["journal_version"]
            ));
        }
        let changed = |what: &str, field: &str, now_value: &Value| -> Result<(), String> {
            if &header[field] == now_value {
                Ok(())
            } else {
                Err(format!(
                    "the {what} changed since the run started ({field} {} then, {} now), so its answers would not be the ones this suite asks for: run the suite again without --resume",
                    header[field], now_value
                ))
            }
        };
        changed("suite", "tenant", &json!(suite.tenant))?;
        changed("suite", "suite", &json!(suite.name))?;
        changed("suite", "environment", &json!(suite.environment))?;
        changed(
            "suite's configuration",
            "config_hash",
            &json!(suite.config_hash()),
        )?;
        changed("cases file", "cases_digest", &json!(cases_digest(suite)))?;
        if header["artifacts"] != Value::Object(now.artifacts.clone()) {
            return Err("an artifact of the suite changed since the run started, so its answers would not be the ones this suite asks for: run the suite again without --resume".to_string());
        }
        let text = |field: &str| header[field].as_str().map(str::to_string);
        let ctx = RunContext {
            created_at: text("created_at").ok_or("the journal's header has no created_at")?,
            git_commit: text("git_commit"),
            digline_version: text("digline_version").unwrap_or_else(|| now.digline_version.clone()),
            metadata: header["metadata"].as_object().cloned().unwrap_or_default(),
            artifacts: now.artifacts.clone(),
            ..now.clone()
        };
        let mut prior = Prior::default();
        for record in &records[1..] {
            let id = record["case_id"].as_str().map(str::to_string);
            match (record["kind"].as_str(), id) {
                (Some("answer"), Some(id)) => {
                    if let (Some(k), Some(r)) =
                        (record["sample"].as_u64(), response_of(&record["response"]))
                    {
                        let masked = record["masked"] == Value::Bool(true);
                        prior.answers.entry(id).or_default().insert(k, (r, masked));
                    }
                }
                (Some("case"), Some(id)) => {
                    if let Ok(v) =
                        serde_json::from_value::<Vec<Verdict>>(record["verdicts"].clone())
                    {
                        if let Ok(entry) =
                            serde_json::from_value::<MaskedCase>(record["masked"].clone())
                        {
                            prior.masked.insert(id.clone(), entry);
                        }
                        prior.graded.insert(id, v);
                    }
                }
                (Some("observed"), _) => {
                    prior.target_config = record["target_config"].as_object().cloned();
                }
                _ => {}
            }
        }
        Ok((ctx, prior))
    }

    /// The answers recorded for case `id`, samples 0, 1, … without a gap.
    pub fn answers(&self, id: &str) -> Vec<Response> {
        let Some(by_sample) = self.answers.get(id) else {
            return Vec::new();
        };
        (0u64..)
            .map_while(|k| by_sample.get(&k).map(|(r, _)| r.clone()))
            .collect()
    }

    /// [`Prior::answers`] up to the first one kept with a secret masked:
    /// the answers that can still be graded as the target gave them.
    pub fn answers_as_given(&self, id: &str) -> Vec<Response> {
        let Some(by_sample) = self.answers.get(id) else {
            return Vec::new();
        };
        (0u64..)
            .map_while(|k| match by_sample.get(&k) {
                Some((r, false)) => Some(r.clone()),
                _ => None,
            })
            .collect()
    }

    /// Whether graded case `id`'s kept answers had a secret masked.
    pub fn masked(&self, id: &str) -> Option<MaskedCase> {
        self.masked.get(id).cloned()
    }

    /// The verdicts and answers of a case graded before, if all its
    /// `samples` answers are recorded.
    pub fn graded(&self, id: &str, samples: usize) -> Option<(Vec<Verdict>, Vec<Response>)> {
        let verdicts = self.graded.get(id)?;
        let answers = self.answers(id);
        (answers.len() >= samples).then(|| (verdicts.clone(), answers[..samples].to_vec()))
    }

    /// The configuration the target last reported, if any.
    pub fn target_config(&self) -> Option<&Map<String, Value>> {
        self.target_config.as_ref()
    }
}

/// Where a run writes what it learns, and when it must stop.
pub struct Recorder<'a> {
    leg: Option<&'a Leg>,
    stop: Option<&'a std::sync::atomic::AtomicBool>,
    last_config: Mutex<Option<Map<String, Value>>>,
    /// Set by the first write that failed: the leg is written no more.
    broken: AtomicBool,
    notices: Notifier,
}

impl<'a> Recorder<'a> {
    /// A recorder appending to `leg` (none: a run without journal) that
    /// stops asking once `stop` is set.
    pub fn new(
        leg: Option<&'a Leg>,
        stop: Option<&'a std::sync::atomic::AtomicBool>,
    ) -> Recorder<'a> {
        Recorder {
            leg,
            stop,
            last_config: Mutex::new(None),
            broken: AtomicBool::new(false),
            notices: Notifier::silent(),
        }
    }

    /// The same recorder, warning through `notices` when the journal
    /// cannot be written.
    pub fn with_notices(mut self, notices: Notifier) -> Recorder<'a> {
        self.notices = notices;
        self
    }

    /// True once the run was asked to stop (Ctrl-C, SIGTERM).
    pub fn stopped(&self) -> bool {
        self.stop
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Record sample `sample` of case `id`, as it is kept (`masked`: masking
    /// changed it).
    pub fn answered(&self, id: &str, sample: usize, response: &Response, masked: bool) {
        let mut record = json!({
            "kind": "answer",
            "case_id": id,
            "sample": sample,
            "response": response_json(response),
        });
        if masked {
            record["masked"] = Value::Bool(true);
        }
        self.write(&record);
    }

    /// Record case `id` graded (`masked`: its kept answers had a secret
    /// masked), and the target's configuration if it changed.
    pub fn graded(
        &self,
        id: &str,
        verdicts: &[Verdict],
        target_config: Map<String, Value>,
        masked: Option<&MaskedCase>,
    ) {
        {
            let mut last = self
                .last_config
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if !target_config.is_empty() && last.as_ref() != Some(&target_config) {
                self.write(&json!({"kind": "observed", "target_config": target_config}));
                *last = Some(target_config);
            }
        }
        let mut record = json!({"kind": "case", "case_id": id, "verdicts": verdicts});
        if let Some(entry) = masked {
            record["masked"] = json!(entry);
        }
        self.write(&record);
    }

    /// Remember the configuration a resumed run starts from (not written again).
    pub fn seen_config(&self, target_config: &Map<String, Value>) {
        *self
            .last_config
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(target_config.clone());
    }

    /// Append `record`. The first failure (a full disk, a quota) warns
    /// once and ends the journal: the run goes on and only what a resume
    /// could reuse is lost. Nothing is appended after it, since a line cut
    /// by the failed write may only ever be a leg's last.
    fn write(&self, record: &Value) {
        let Some(leg) = self.leg else { return };
        if self.broken.load(Ordering::SeqCst) {
            return;
        }
        if let Err(e) = leg.append(record) {
            if !self.broken.swap(true, Ordering::SeqCst) {
                self.notices.warn(
                    crate::report::progress::ProgressStrings::of(self.notices.locale())
                        .journal_broken(&e.to_string()),
                );
            }
        }
    }
}

fn response_json(r: &Response) -> Value {
    let mut m = Map::new();
    m.insert("output".into(), r.output.clone());
    m.insert("input".into(), json!(r.input));
    if let Some(c) = r.cost_usd {
        m.insert("cost_usd".into(), json!(c));
    }
    m.insert("latency_ms".into(), json!(r.latency_ms));
    if let Some(c) = &r.config {
        m.insert("config".into(), Value::Object(c.clone()));
    }
    Value::Object(m)
}

fn response_of(v: &Value) -> Option<Response> {
    Some(Response {
        tokens: None,
        output: v.get("output")?.clone(),
        input: v.get("input")?.as_str()?.to_string(),
        cost_usd: match v.get("cost_usd") {
            None => None,
            Some(c) => Some(c.as_f64()?),
        },
        latency_ms: v.get("latency_ms")?.as_f64()?,
        config: match v.get("config") {
            None => None,
            Some(c) => Some(c.as_object()?.clone()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_on_a_full_disk_warns_once_and_is_written_no_more() {
        use crate::run::notice::{Collected, Notice};
        use std::sync::Arc;
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full (Linux)");
        let leg = Leg::on_file("/dev/full".into(), full);
        let sink = Arc::new(Collected::default());
        let recorder = Recorder::new(Some(&leg), None).with_notices(Notifier::new(sink.clone()));
        let r = Response {
            tokens: None,
            output: json!("x"),
            input: String::new(),
            cost_usd: None,
            latency_ms: 1.0,
            config: None,
        };
        for case in ["a", "b", "c", "d"] {
            recorder.answered(case, 0, &r, false);
            recorder.graded(case, &[], Map::new(), None);
        }
        let notices = sink.taken();
        assert_eq!(notices.len(), 1, "{notices:?}");
        let Notice::Warning(text) = &notices[0] else {
            panic!("{notices:?}")
        };
        assert_eq!(
            text,
            "the run goes on without its journal (a resume after a stop would ask the unrecorded cases again): /dev/full: no space is left on the device (No space left on device (os error 28)): free some space and run again"
        );
    }

    #[test]
    fn an_answer_survives_the_journal_exactly() {
        let r = Response {
            tokens: None,
            output: json!({"a": [1, 2.5, "é"]}),
            input: "{\"id\": \"x\"}".into(),
            cost_usd: Some(0.1 + 0.2),
            latency_ms: 12.345_678_901_234,
            config: Some(Map::from_iter([("model".to_string(), json!("m"))])),
        };
        let line = serde_json::to_string(&response_json(&r)).unwrap();
        let back = response_of(&serde_json::from_str(&line).unwrap()).unwrap();
        assert_eq!(back, r);
        let bare = Response {
            tokens: None,
            cost_usd: None,
            config: None,
            ..r
        };
        let back = response_of(&response_json(&bare)).unwrap();
        assert_eq!(back, bare);
        assert!(response_of(&json!({"output": "x"})).is_none());
    }
}
