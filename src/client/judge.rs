//! LLM judges named by coordinate (`anthropic/<model>`, `openai/<model>`):
//! the provider clients set up the way a judge is asked.
//!
//! A judge is asked with the provider's defaults for judging: a 400-token
//! cap, no temperature; Anthropic's reply is prefilled with `{` so it opens
//! a JSON object, OpenAI's is asked for `response_format = json_object`.
//! Judges reach their provider through the same endpoint rules as a target
//! (`ANTHROPIC_BASE_URL`/`OPENAI_BASE_URL`, keys from the environment,
//! passed in by `host`), but never a target's `base_url`. What a judge is
//! asked and how its reply is read is `core::checks::judged`'s business.
//!
//! Spend: each call is priced from its usage with the shipped price table;
//! an unpriced judge model still judges, its spend unknown (reported so).
//! Judge spend is kept apart from the target's and never meets a budget.

use std::fmt;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::failure::Failure;
use super::pricing::{price_of, Price};
use super::provider::{parse_coordinate, ChatRequest, Client, Endpoint, ProviderKind};

/// The output cap of a judging call, tokens.
pub const JUDGE_MAX_TOKENS: u64 = 400;

/// The per-call timeout of a judging call.
pub const JUDGE_TIMEOUT: Duration = Duration::from_secs(60);

/// One judge, ready to ask.
pub struct JudgeClient {
    coordinate: String,
    base_url: String,
    kind: ProviderKind,
    model: String,
    client: Client,
    price: Option<Price>,
    has_key: bool,
    custom_endpoint: bool,
}

impl fmt::Debug for JudgeClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JudgeClient")
            .field("coordinate", &self.coordinate)
            .field("endpoint", &self.client.endpoint())
            .finish_non_exhaustive()
    }
}

/// What one judging call gave back.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeAnswer {
    /// (input, output) tokens, when the provider reported them.
    pub tokens: Option<(u64, u64)>,
    /// The reply text (read by `core::checks::judged`).
    pub text: String,
    /// USD, when the model is priced.
    pub cost_usd: Option<f64>,
    /// Wall time of the call, ms.
    pub latency_ms: f64,
    /// The model the provider says answered (its reply's `model`), when
    /// it says one: the judge's `answered_model`.
    pub model: Option<String>,
}

impl JudgeClient {
    /// The values masked in what is kept or shown of this judge's replies.
    pub fn secrets(&self) -> Vec<String> {
        self.client.secrets()
    }

    /// A judge for `coordinate` reached at `endpoint`.
    ///
    /// # Errors
    /// A coordinate digline does not speak, or an endpoint with no host.
    pub fn new(coordinate: &str, endpoint: &Endpoint) -> Result<JudgeClient, String> {
        let (kind, model) = parse_coordinate(coordinate)?;
        let client = Client::new(kind, endpoint, JUDGE_TIMEOUT)?;
        Ok(JudgeClient {
            coordinate: coordinate.to_string(),
            base_url: endpoint.base_url.trim_end_matches('/').to_string(),
            price: price_of(kind.name(), &model, None),
            kind,
            model,
            client,
            has_key: endpoint.key.is_some(),
            custom_endpoint: endpoint.base_url.trim_end_matches('/') != kind.default_base_url(),
        })
    }

    /// What this judge's calls report to the pacer.
    pub fn meter(&self) -> &std::sync::Arc<crate::client::rate_limits::Meter> {
        self.client.meter()
    }

    /// `provider/model`.
    pub fn coordinate(&self) -> &str {
        &self.coordinate
    }

    /// True when the model has a price in the shipped table.
    pub fn is_priced(&self) -> bool {
        self.price.is_some()
    }

    /// What stops this judge before the first call: a missing key for the
    /// official endpoint.
    pub fn preflight_problem(&self) -> Option<String> {
        (!self.has_key && !self.custom_endpoint).then(|| {
            format!(
                "the judge {} needs {}, which is not set; it is read from the environment only",
                self.coordinate,
                self.kind.key_variable()
            )
        })
    }

    /// Ask once.
    ///
    /// # Errors
    /// The call's [`Failure`] (transient for 429/5xx/resets/timeouts).
    pub fn ask(&self, system: &str, prompt: &str) -> Result<JudgeAnswer, Failure> {
        let request = self.request(system, prompt);
        let started = std::time::Instant::now();
        let completion = self.client.complete(&request)?;
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cost_usd = self
            .price
            .and_then(|p| p.cost(&self.model, completion.usage).ok());
        Ok(JudgeAnswer {
            tokens: Some(completion.usage.recorded()),
            text: completion.text,
            cost_usd,
            latency_ms,
            model: answered_model(completion.resolved_model, completion.fingerprint),
        })
    }

    /// The most asking once can cost (`--max-usd` reserves it), `None`
    /// for an unpriced model.
    pub fn worst_case_usd(&self, system: &str, prompt: &str) -> Option<f64> {
        self.price
            .map(|p| p.worst_case(system.len() + prompt.len(), JUDGE_MAX_TOKENS))
    }

    /// Who this judge is, as far as its replies go: what the memo keys
    /// and a run records.
    pub fn identity(&self) -> JudgeIdentity {
        let request = self.request("", "");
        let params = json!({
            "max_tokens": request.max_tokens,
            "prefill": request.prefill,
            "response_format": request.response_format,
            "temperature": request.temperature,
            "token_param": request.token_param,
        });
        JudgeIdentity {
            provider: self.kind.name().to_string(),
            model: self.model.clone(),
            endpoint: self.client.endpoint().to_string(),
            base_url: self.base_url.clone(),
            params: crate::core::python::dumps::dumps_canonical(&params),
        }
    }

    fn request(&self, system: &str, prompt: &str) -> ChatRequest {
        ChatRequest {
            model: self.model.clone(),
            system: Some(system.to_string()),
            user: prompt.to_string(),
            prefill: (self.kind == ProviderKind::Anthropic).then(|| "{".to_string()),
            max_tokens: JUDGE_MAX_TOKENS,
            temperature: None,
            response_format: (self.kind == ProviderKind::OpenAi)
                .then(|| json!({"type": "json_object"})),
            token_param: "max_completion_tokens",
            extra_body: None,
        }
    }

    /// How this judge is set up, as `judge_config.values` records it:
    /// `provider`, `model`, `max_tokens` (and `json_mode` for OpenAI), and
    /// — like a target's — `base_url` (`host:port` only) when the judge is
    /// reached anywhere but its provider's own endpoint, so a judge moved
    /// to another gateway is a configuration change.
    pub fn config(&self) -> Map<String, Value> {
        let mut values = Map::new();
        values.insert("provider".into(), Value::String(self.kind.name().into()));
        values.insert("model".into(), Value::String(self.model.clone()));
        values.insert("max_tokens".into(), Value::from(JUDGE_MAX_TOKENS));
        if self.custom_endpoint {
            values.insert(
                "base_url".into(),
                Value::String(self.client.endpoint().to_string()),
            );
        }
        if self.kind == ProviderKind::OpenAi {
            values.insert("json_mode".into(), Value::Bool(true));
        }
        values
    }
}

/// The judge's `answered_model`: the model the reply names, with OpenAI's
/// `system_fingerprint` when it gives one (`gpt-4o-2024-08-06 fp_abc`),
/// so a backend that changed under the same name is a changed identity.
fn answered_model(model: Option<String>, fingerprint: Option<String>) -> Option<String> {
    match (model, fingerprint) {
        (Some(model), Some(fp)) => Some(format!("{model} {fp}")),
        (model, None) => model,
        (None, fp) => fp,
    }
}

/// Who a judge is, as far as its replies go: provider, model, where it is
/// reached and how it is asked (the judge memo's key, `core::memo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeIdentity {
    /// `anthropic`, `openai`.
    pub provider: String,
    /// The model.
    pub model: String,
    /// `host[:port]`.
    pub endpoint: String,
    /// The whole base URL (never printed: it may hold a secret).
    pub base_url: String,
    /// The sampling parameters, canonical JSON.
    pub params: String,
}

impl JudgeIdentity {
    /// The identity of a judge known by its coordinate only (a fake).
    pub fn of_coordinate(coordinate: &str) -> JudgeIdentity {
        let (provider, model) = coordinate.split_once('/').unwrap_or(("", coordinate));
        JudgeIdentity {
            provider: provider.to_string(),
            model: model.to_string(),
            endpoint: String::new(),
            base_url: String::new(),
            params: "{}".to_string(),
        }
    }
}

/// Every judge a suite names, by coordinate.
#[derive(Debug, Default)]
pub struct Judges {
    clients: Vec<JudgeClient>,
}

impl Judges {
    /// The values masked in what is kept or shown of every judge's replies.
    pub fn secrets(&self) -> Vec<String> {
        self.clients()
            .iter()
            .flat_map(JudgeClient::secrets)
            .collect()
    }

    /// One client per distinct coordinate; `endpoint` gives where each
    /// provider is reached (from `host`).
    ///
    /// # Errors
    /// A coordinate digline does not speak, or an endpoint with no host.
    pub fn new<'a>(
        coordinates: impl IntoIterator<Item = &'a str>,
        endpoint: impl Fn(ProviderKind) -> Endpoint,
    ) -> Result<Judges, String> {
        let mut clients: Vec<JudgeClient> = Vec::new();
        for coordinate in coordinates {
            if clients.iter().any(|c| c.coordinate == coordinate) {
                continue;
            }
            let (kind, _) = parse_coordinate(coordinate)?;
            clients.push(JudgeClient::new(coordinate, &endpoint(kind))?);
        }
        Ok(Judges { clients })
    }

    /// The judges, in the order first named.
    pub fn clients(&self) -> &[JudgeClient] {
        &self.clients
    }

    /// The judge for `coordinate`, if the suite names it.
    pub fn get(&self, coordinate: &str) -> Option<&JudgeClient> {
        self.clients.iter().find(|c| c.coordinate == coordinate)
    }

    /// The run's `judge_config` (see [`judge_config`]).
    pub fn config(&self) -> Map<String, Value> {
        judge_config(&self.clients.iter().collect::<Vec<_>>())
    }
}

/// The run's `judge_config` from its judges' set-ups: `{}` without judges;
/// `identities` (sorted distinct coordinates) always; `values` only when
/// there is exactly one identity (the keys every judge agrees on).
pub fn judge_config(judges: &[&JudgeClient]) -> Map<String, Value> {
    let mut out = Map::new();
    if judges.is_empty() {
        return out;
    }
    let mut identities: Vec<&str> = judges.iter().map(|j| j.coordinate()).collect();
    identities.sort_unstable();
    identities.dedup();
    if identities.len() == 1 {
        out.insert("values".into(), Value::Object(judges[0].config()));
    } else {
        // Several judges: each one's gateway, so a judge moved to another
        // gateway is a configuration change whichever judge it is.
        let gateways: Map<String, Value> = judges
            .iter()
            .filter_map(|j| {
                let values = j.config();
                let url = values.get("base_url")?.clone();
                Some((format!("{}.base_url", j.coordinate()), url))
            })
            .collect();
        if !gateways.is_empty() {
            out.insert("values".into(), Value::Object(gateways));
        }
    }
    out.insert(
        "identities".into(),
        Value::Array(
            identities
                .into_iter()
                .map(|s| Value::String(s.into()))
                .collect(),
        ),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answered_model_carries_the_fingerprint_when_there_is_one() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            answered_model(some("gpt-4o-2024-08-06"), some("fp_1")),
            some("gpt-4o-2024-08-06 fp_1")
        );
        assert_eq!(
            answered_model(some("claude-haiku-4-5-20251001"), None),
            some("claude-haiku-4-5-20251001")
        );
        assert_eq!(answered_model(None, some("fp_1")), some("fp_1"));
        assert_eq!(answered_model(None, None), None);
    }

    fn endpoint(key: bool) -> Endpoint {
        Endpoint {
            base_url: "https://api.anthropic.com".into(),
            key: key
                .then(|| super::super::provider::ApiKey::new("k".into()))
                .flatten(),
        }
    }

    #[test]
    fn config_shapes() {
        let a = JudgeClient::new("anthropic/claude-haiku-4-5", &endpoint(true)).unwrap();
        let b = JudgeClient::new("openai/gpt-4o-mini", &endpoint(true)).unwrap();
        assert!(a.is_priced());
        assert_eq!(a.preflight_problem(), None);
        assert!(JudgeClient::new("anthropic/m", &endpoint(false))
            .unwrap()
            .preflight_problem()
            .unwrap()
            .contains("ANTHROPIC_API_KEY"));
        assert_eq!(
            Value::Object(judge_config(&[&a, &a])),
            json!({"identities": ["anthropic/claude-haiku-4-5"], "values": {"provider": "anthropic", "model": "claude-haiku-4-5", "max_tokens": 400}})
        );
        // (`b` is an OpenAI judge at Anthropic's host: not its own endpoint.)
        assert_eq!(
            Value::Object(judge_config(&[&b, &a])),
            json!({"identities": ["anthropic/claude-haiku-4-5", "openai/gpt-4o-mini"],
                   "values": {"openai/gpt-4o-mini.base_url": "api.anthropic.com"}})
        );
        assert!(judge_config(&[]).is_empty());
        // A judge reached through a gateway records where (host:port only).
        let gateway = Endpoint {
            base_url: "http://user:pw@127.0.0.1:4000/v1".into(),
            key: None,
        };
        let moved = JudgeClient::new("openai/gpt-4o-mini", &gateway).unwrap();
        assert_eq!(
            Value::Object(moved.config()),
            json!({"provider": "openai", "model": "gpt-4o-mini", "max_tokens": 400, "json_mode": true, "base_url": "127.0.0.1:4000"})
        );
        assert_eq!(moved.identity().endpoint, "127.0.0.1:4000");
        assert!(JudgeClient::new("nope/m", &endpoint(true)).is_err());
        // Among several judges, each gateway is recorded: every judge, not
        // only the first.
        assert_eq!(
            Value::Object(judge_config(&[&a, &moved])),
            json!({"identities": ["anthropic/claude-haiku-4-5", "openai/gpt-4o-mini"],
                   "values": {"openai/gpt-4o-mini.base_url": "127.0.0.1:4000"}})
        );
    }
}
