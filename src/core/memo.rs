//! The judge memo's key: everything that decides a judge's reply, and the
//! entry a reply is kept in.
//!
//! A judge asked the same question gives — for the gate's purposes — the
//! same reply: so a reply is kept under a key over every input of the call
//! ([`MemoFields`]: provider, model, endpoint, the sampling parameters, the
//! full system and user text — the rubric and the answer's bytes in it —,
//! the answer's bytes on their own, which sample of the case and which draw
//! of a `repeated` check it grades, and [`PROTOCOL`], digline's way of
//! asking). Texts enter as their sha256, so an entry holds no prompt; the
//! key is the sha256 of the fields' canonical JSON, so an entry whose name
//! does not match its fields is not one digline wrote ([`MemoEntry::fits`]).
//! [`MemoFields::differences`] names the fields two keys differ in (what
//! `--judge-memo replay` says about the nearest entry on a miss).
//!
//! Pure.

use serde::{Deserialize, Serialize};

use super::identity::sha256_hex;
use super::python::dumps::dumps_canonical;

/// digline's judge protocol: how a judge is asked and its reply read. A
/// release that changes either bumps it, and every entry misses.
pub const PROTOCOL: u32 = 1;

/// Every input that decides a judge's reply; texts as sha256 hex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoFields {
    /// [`PROTOCOL`] when recorded.
    pub protocol: u32,
    /// `anthropic`, `openai`, …
    pub provider: String,
    /// The model half of the coordinate.
    pub model: String,
    /// The endpoint as messages name it (`host[:port]`).
    pub endpoint: String,
    /// sha256 of the whole base URL (its path and port included).
    pub endpoint_sha: String,
    /// sha256 of the sampling parameters' canonical JSON (`max_tokens`,
    /// `temperature`, the reply format).
    pub params_sha: String,
    /// sha256 of the system prompt.
    pub system_sha: String,
    /// sha256 of the user message: the rubric, the case's sections and the
    /// answer.
    pub prompt_sha: String,
    /// sha256 of the answer's bytes (a text as is, anything else as JSON).
    pub answer_sha: String,
    /// Which of the case's samples the answer is (0-based).
    pub sample: u32,
    /// Which draw of a `repeated` check (0 otherwise).
    pub draw: u32,
}

/// The texts and numbers a key is made of, before hashing.
#[derive(Clone, Copy, Debug)]
pub struct MemoInputs<'a> {
    /// `anthropic`, `openai`, …
    pub provider: &'a str,
    /// The model.
    pub model: &'a str,
    /// `host[:port]`.
    pub endpoint: &'a str,
    /// The whole base URL.
    pub base_url: &'a str,
    /// The sampling parameters' canonical JSON.
    pub params: &'a str,
    /// The system prompt.
    pub system: &'a str,
    /// The user message.
    pub prompt: &'a str,
    /// The answer's bytes.
    pub answer: &'a [u8],
    /// The sample index.
    pub sample: u32,
    /// The draw index.
    pub draw: u32,
}

fn sha(data: &[u8]) -> String {
    sha256_hex(data, 32)
}

impl MemoFields {
    /// The fields of one judge call.
    pub fn of(inputs: &MemoInputs) -> MemoFields {
        MemoFields {
            protocol: PROTOCOL,
            provider: inputs.provider.to_string(),
            model: inputs.model.to_string(),
            endpoint: inputs.endpoint.to_string(),
            endpoint_sha: sha(inputs.base_url.trim_end_matches('/').as_bytes()),
            params_sha: sha(inputs.params.as_bytes()),
            system_sha: sha(inputs.system.as_bytes()),
            prompt_sha: sha(inputs.prompt.as_bytes()),
            answer_sha: sha(inputs.answer),
            sample: inputs.sample,
            draw: inputs.draw,
        }
    }

    /// The key: sha256 hex of the fields' canonical JSON.
    pub fn key(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        sha(dumps_canonical(&value).as_bytes())
    }

    /// The names of the fields `other` differs in, in a reader's order:
    /// the answer before the prompt (an answer that moved moves the
    /// prompt too, so the prompt is named only when the answer is the same).
    pub fn differences(&self, other: &MemoFields) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut differs = |same: bool, name: &'static str| {
            if !same {
                out.push(name);
            }
        };
        differs(self.protocol == other.protocol, "protocol");
        differs(self.provider == other.provider, "provider");
        differs(self.model == other.model, "model");
        differs(
            self.endpoint == other.endpoint && self.endpoint_sha == other.endpoint_sha,
            "endpoint",
        );
        differs(self.params_sha == other.params_sha, "sampling parameters");
        differs(self.system_sha == other.system_sha, "system prompt");
        differs(self.answer_sha == other.answer_sha, "answer");
        differs(
            self.prompt_sha == other.prompt_sha || self.answer_sha != other.answer_sha,
            "rubric or prompt",
        );
        differs(self.sample == other.sample, "sample");
        differs(self.draw == other.draw, "draw");
        out
    }
}

/// Where an entry was recorded: names only, for the nearest-entry search
/// and for a person reading the memo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoPlace {
    /// The suite.
    pub suite: String,
    /// The case id.
    pub case: String,
    /// The check's `assertion_id`.
    pub check: String,
}

/// One kept reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoEntry {
    /// What decided the reply.
    pub fields: MemoFields,
    /// Where it was first asked.
    pub place: MemoPlace,
    /// The judge's reply text, secrets masked (payload: stays in `.digline/`).
    pub reply: String,
    /// What the call cost, USD, when priced: the saving of each reuse.
    pub cost_usd: Option<f64>,
    /// (input, output) tokens, when reported.
    pub tokens: Option<(u64, u64)>,
}

impl MemoEntry {
    /// True when the entry is filed under `key` and its fields hash to it,
    /// in this release's protocol.
    pub fn fits(&self, key: &str) -> bool {
        self.fields.protocol == PROTOCOL && self.fields.key() == key
    }
}

/// What the memo did in one run: counts and money, never payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoTally {
    /// Judge calls answered from the memo.
    pub hits: u64,
    /// Judge calls the memo did not hold (asked, or with `replay` not judged).
    pub misses: u64,
    /// USD the hits would have cost (their recorded prices).
    pub saved_usd: f64,
}

impl MemoTally {
    /// True when the memo was never consulted.
    pub fn is_empty(&self) -> bool {
        self.hits == 0 && self.misses == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(prompt: &'a str, answer: &'a [u8]) -> MemoInputs<'a> {
        MemoInputs {
            provider: "openai",
            model: "gpt-4o-mini",
            endpoint: "127.0.0.1:4000",
            base_url: "http://127.0.0.1:4000/v1",
            params: "{\"max_tokens\":400}",
            system: "grade",
            prompt,
            answer,
            sample: 0,
            draw: 0,
        }
    }

    #[test]
    fn every_input_moves_the_key_and_is_named_when_it_differs() {
        let base = MemoFields::of(&inputs("rubric A\nanswer x", b"x"));
        assert_eq!(base.key().len(), 64);
        assert_eq!(
            base.key(),
            MemoFields::of(&inputs("rubric A\nanswer x", b"x")).key()
        );
        let rubric = MemoFields::of(&inputs("rubric B\nanswer x", b"x"));
        assert_ne!(rubric.key(), base.key());
        assert_eq!(base.differences(&rubric), ["rubric or prompt"]);
        let answer = MemoFields::of(&inputs("rubric A\nanswer y", b"y"));
        assert_eq!(base.differences(&answer), ["answer"]);
        let mut other = inputs("rubric A\nanswer x", b"x");
        other.base_url = "http://127.0.0.1:4001/v1";
        other.sample = 1;
        other.draw = 2;
        other.model = "gpt-4o";
        other.params = "{\"max_tokens\":401}";
        let moved = MemoFields::of(&other);
        assert_ne!(moved.key(), base.key());
        assert_eq!(
            base.differences(&moved),
            ["model", "endpoint", "sampling parameters", "sample", "draw"]
        );
        assert!(base.differences(&base).is_empty());
    }

    #[test]
    fn an_entry_fits_only_the_key_its_fields_hash_to() {
        let fields = MemoFields::of(&inputs("p", b"a"));
        let key = fields.key();
        let mut entry = MemoEntry {
            fields,
            place: MemoPlace {
                suite: "s".into(),
                case: "c".into(),
                check: "0123456789abcdef".into(),
            },
            reply: "{\"score\": 1}".into(),
            cost_usd: Some(0.001),
            tokens: Some((10, 5)),
        };
        assert!(entry.fits(&key));
        assert!(!entry.fits(&"0".repeat(64)));
        entry.fields.answer_sha = "f".repeat(64);
        assert!(!entry.fits(&key), "a field edited after the fact");
        entry.fields = MemoFields::of(&inputs("p", b"a"));
        entry.fields.protocol = PROTOCOL + 1;
        assert!(!entry.fits(&entry.fields.key()));
    }
}
