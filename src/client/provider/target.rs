//! `[target] type = "provider"`: a hosted model asked with a prompt template.
//!
//! Each case renders the user prompt (`prompt_file`) and the system prompt
//! (`system` / `system_file`) from its `vars`, asks the model once per
//! attempt and answers with the reply text as a text output, the rendered
//! user prompt as the input a judge is shown, the wall time of the call in
//! ms and its cost in USD from the reported usage. The first model the
//! provider says answered is recorded as `resolved_model`; a later answer
//! from another model errors that case, as a changed configuration does on
//! the HTTP target.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Number, Value};

use super::{ChatRequest, Client, Endpoint, ProviderKind};
use crate::client::failure::Failure;
use crate::client::http::{endpoint_host, Response};
use crate::client::pricing::{price_of, unpriced, Price};
use crate::client::template::PromptTemplate;
use crate::core::identity::sha16;
use crate::core::suite::Case;

/// OpenAI: the name the output cap is sent under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenParam {
    /// `max_completion_tokens` at OpenAI's own endpoint, `max_tokens` at a
    /// declared `base_url` (what compatible servers read).
    Auto,
    /// Always `max_tokens`.
    MaxTokens,
    /// Always `max_completion_tokens`.
    MaxCompletionTokens,
}

/// `[target] type = "provider"`, validated by the loader.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderSpec {
    /// Which API.
    pub kind: ProviderKind,
    /// The model half of the coordinate.
    pub model: String,
    /// The user prompt template (`prompt_file`, read at load).
    pub prompt: PromptTemplate,
    /// The system prompt template (`system` or `system_file`), if any.
    pub system: Option<PromptTemplate>,
    /// The output cap, tokens (≥ 1).
    pub max_tokens: u64,
    /// Sampling temperature as declared (integer or float kept), if any.
    pub temperature: Option<Number>,
    /// Anthropic: the start of the assistant's reply, prepended to the answer.
    pub prefill: Option<String>,
    /// OpenAI: an OpenAI-compatible endpoint (`http://localhost:11434/v1`).
    pub base_url: Option<String>,
    /// OpenAI: `response_format` as declared (`{type = "json_object"}`).
    pub response_format: Option<Value>,
    /// OpenAI: how the cap is named.
    pub token_param: TokenParam,
    /// OpenAI: extra request keys (never recorded: they may hold account data).
    pub extra_body: Option<Map<String, Value>>,
    /// `[target.pricing]`: the declared price, USD per million tokens.
    pub pricing: Option<Price>,
    /// Per-call timeout, seconds.
    pub timeout_s: f64,
}

impl ProviderSpec {
    /// `provider/model`.
    pub fn coordinate(&self) -> String {
        format!("{}/{}", self.kind.name(), self.model)
    }
}

/// A provider target ready to call (shared by the workers).
pub struct ProviderTarget {
    spec: ProviderSpec,
    client: Client,
    endpoint_is_custom: bool,
    has_key: bool,
    price: Option<Price>,
    resolved: Mutex<Option<String>>,
}

impl fmt::Debug for ProviderTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderTarget")
            .field("coordinate", &self.spec.coordinate())
            .field("endpoint", &self.client.endpoint())
            .finish_non_exhaustive()
    }
}

impl ProviderTarget {
    /// The values masked in what is kept or shown of this target's answers
    /// (the API key, when it can be a secret).
    pub fn secrets(&self) -> Vec<String> {
        self.client.secrets()
    }

    /// Build the target. `endpoint` comes from `host`: the suite's
    /// `base_url` if declared, else `ANTHROPIC_BASE_URL`/`OPENAI_BASE_URL`,
    /// else the official endpoint; the key from the provider's variable.
    ///
    /// # Errors
    /// The endpoint names no host.
    pub fn new(spec: ProviderSpec, endpoint: &Endpoint) -> Result<ProviderTarget, String> {
        let timeout =
            Duration::try_from_secs_f64(spec.timeout_s).unwrap_or(Duration::from_secs(60));
        let client = Client::new(spec.kind, endpoint, timeout)?;
        let price = price_of(spec.kind.name(), &spec.model, spec.pricing);
        Ok(ProviderTarget {
            endpoint_is_custom: endpoint.base_url.trim_end_matches('/')
                != spec.kind.default_base_url(),
            has_key: endpoint.key.is_some(),
            spec,
            client,
            price,
            resolved: Mutex::new(None),
        })
    }

    /// The spec this target was built from.
    pub fn spec(&self) -> &ProviderSpec {
        &self.spec
    }

    /// Everything that would stop the run, found before the first call and
    /// listed together: a missing API key (for the official endpoint), an
    /// unpriced model, and per unsuspended case the template variables its
    /// `vars` lack (`case 'c3' does not provide city, day for prompt.txt`).
    pub fn preflight_problems(&self, cases: &[Case]) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.has_key && !self.endpoint_is_custom {
            problems.push(format!(
                "{} is not set, and {} needs a key; it is read from the environment only",
                self.spec.kind.key_variable(),
                self.client.endpoint()
            ));
        }
        if self.price.is_none() {
            problems.push(unpriced(self.spec.kind.name(), &self.spec.model));
        }
        let templates = std::iter::once(&self.spec.prompt).chain(self.spec.system.as_ref());
        for template in templates {
            for case in cases.iter().filter(|c| c.suspended.is_none()) {
                let missing = template.missing_for(&case.vars);
                if !missing.is_empty() {
                    problems.push(format!(
                        "case '{}' does not provide {} for {}",
                        case.id,
                        missing.join(", "),
                        template.describe()
                    ));
                }
            }
        }
        problems
    }

    /// The request for `case`.
    fn request(&self, case: &Case) -> Result<ChatRequest, Failure> {
        let user = self
            .spec
            .prompt
            .render(&case.vars)
            .map_err(Failure::permanent)?;
        let system = match &self.spec.system {
            Some(t) => Some(t.render(&case.vars).map_err(Failure::permanent)?),
            None => None,
        };
        let token_param = match (self.spec.token_param, self.spec.base_url.is_some()) {
            (TokenParam::MaxTokens, _) | (TokenParam::Auto, true) => "max_tokens",
            _ => "max_completion_tokens",
        };
        Ok(ChatRequest {
            model: self.spec.model.clone(),
            system,
            user,
            prefill: self.spec.prefill.clone(),
            max_tokens: self.spec.max_tokens,
            temperature: self.spec.temperature.clone(),
            response_format: self.spec.response_format.clone(),
            token_param,
            extra_body: self.spec.extra_body.clone(),
        })
    }

    /// The most one call for `case` can cost (`--max-usd` reserves it):
    /// `None` for an unpriced model or a case whose prompt does not render.
    pub fn worst_case_usd(&self, case: &Case) -> Option<f64> {
        let price = self.price?;
        let request = self.request(case).ok()?;
        let bytes = request.user.len()
            + request.system.as_ref().map_or(0, String::len)
            + request.prefill.as_ref().map_or(0, String::len)
            + request
                .extra_body
                .as_ref()
                .map_or(0, |b| serde_json::to_string(b).map_or(0, |t| t.len()));
        Some(price.worst_case(bytes, request.max_tokens))
    }

    /// The endpoint as messages name it (`host[:port]`).
    pub fn endpoint(&self) -> &str {
        self.client.endpoint()
    }

    /// What this target's calls report to the pacer.
    pub fn meter(&self) -> &std::sync::Arc<crate::client::rate_limits::Meter> {
        self.client.meter()
    }

    /// One attempt at one case.
    ///
    /// # Errors
    /// A [`Failure`]: a missing variable (permanent), the call failed
    /// (transient or not), an unreadable reply, a cost that cannot be
    /// computed, a model other than the first that answered.
    pub fn attempt(&self, case: &Case) -> Result<Response, Failure> {
        let request = self.request(case)?;
        let started = Instant::now();
        let completion = self.client.complete(&request)?;
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cost_usd = match &self.price {
            Some(price) => Some(
                price
                    .cost(&self.spec.model, completion.usage)
                    .map_err(Failure::permanent)?,
            ),
            None => None,
        };
        if let Some(model) = &completion.resolved_model {
            let mut first = self.resolved.lock().unwrap_or_else(|p| p.into_inner());
            match first.as_ref() {
                None => *first = Some(model.clone()),
                Some(seen) if seen != model => {
                    return Err(Failure::permanent(format!(
                        "{} answered under a different configuration part way through the run: \
                         resolved_model was '{seen}' and is now '{model}'",
                        self.client.endpoint()
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(Response {
            tokens: Some(completion.usage.recorded()),
            output: Value::String(completion.text),
            input: request.user,
            cost_usd,
            latency_ms,
            config: None,
        })
    }

    /// The run's `target_config`: `{"values": {provider, model, max_tokens,
    /// temperature?, base_url? (host:port), response_format? (its type),
    /// resolved_model? (what the provider said answered)}}`. Unset is
    /// absent, never null.
    pub fn target_config(&self) -> Map<String, Value> {
        let spec = &self.spec;
        let mut values = Map::new();
        values.insert("provider".into(), Value::String(spec.kind.name().into()));
        values.insert("model".into(), Value::String(spec.model.clone()));
        values.insert("max_tokens".into(), Value::from(spec.max_tokens));
        if let Some(t) = &spec.temperature {
            values.insert("temperature".into(), Value::Number(t.clone()));
        }
        // The endpoint counts as configuration also when it came from the
        // environment (OPENAI_BASE_URL / ANTHROPIC_BASE_URL): host:port only.
        let endpoint = spec
            .base_url
            .as_deref()
            .or(self.endpoint_is_custom.then(|| self.client.endpoint()));
        if let Some(host) = endpoint.and_then(endpoint_host) {
            values.insert("base_url".into(), Value::String(host));
        }
        // An inline system prompt and a prefill are what the system under
        // test is: recorded as a digest (the text is payload), so a change
        // shows as a configuration change. A system prompt from a file is
        // an artifact instead.
        if let Some(system) = spec.system.as_ref().filter(|t| t.origin.is_none()) {
            values.insert("system_sha".into(), Value::String(sha16(&system.text)));
        }
        if let Some(prefill) = &spec.prefill {
            values.insert("prefill_sha".into(), Value::String(sha16(prefill)));
        }
        if let Some(kind) = spec
            .response_format
            .as_ref()
            .and_then(|f| f.get("type"))
            .and_then(Value::as_str)
        {
            values.insert("response_format".into(), Value::String(kind.into()));
        }
        if let Some(model) = self
            .resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            values.insert("resolved_model".into(), Value::String(model));
        }
        let mut out = Map::new();
        out.insert("values".into(), Value::Object(values));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(kind: ProviderKind, model: &str) -> ProviderSpec {
        ProviderSpec {
            kind,
            model: model.into(),
            prompt: PromptTemplate {
                text: "Q: {question} ({lang})".into(),
                origin: Some("prompt.txt".into()),
            },
            system: Some(PromptTemplate::inline("You answer in {lang}.")),
            max_tokens: 100,
            temperature: None,
            prefill: None,
            base_url: None,
            response_format: None,
            token_param: TokenParam::Auto,
            extra_body: None,
            pricing: None,
            timeout_s: 5.0,
        }
    }

    fn case(id: &str, vars: Value) -> Case {
        Case {
            id: id.into(),
            vars: vars.as_object().cloned().unwrap_or_default(),
            ..Case::default()
        }
    }

    #[test]
    fn preflight_lists_every_problem() {
        let official = Endpoint {
            base_url: ProviderKind::OpenAi.default_base_url().into(),
            key: None,
        };
        let t = ProviderTarget::new(spec(ProviderKind::OpenAi, "llama3"), &official).unwrap();
        let mut suspended = case("s", json!({}));
        suspended.suspended = Some("why".into());
        let cases = [
            case("ok", json!({"question": "q", "lang": "it"})),
            case("c2", json!({"question": "q"})),
            case("c3", json!({})),
            suspended,
        ];
        let problems = t.preflight_problems(&cases);
        assert_eq!(problems.len(), 6, "{problems:#?}");
        assert!(problems[0].starts_with("OPENAI_API_KEY is not set"));
        assert!(problems[1].starts_with("model 'llama3' has no price"));
        assert_eq!(
            problems[2],
            "case 'c2' does not provide lang for prompt.txt"
        );
        assert_eq!(
            problems[3],
            "case 'c3' does not provide lang, question for prompt.txt"
        );
        assert_eq!(
            problems[5],
            "case 'c3' does not provide lang for the inline system prompt"
        );
        let custom = Endpoint {
            base_url: "http://127.0.0.1:1/v1".into(),
            key: None,
        };
        let mut priced = spec(ProviderKind::OpenAi, "llama3");
        priced.pricing = Some(Price {
            input_per_mtok: 0.0,
            output_per_mtok: 0.0,
            cache_read_per_mtok: None,
            cache_write_per_mtok: None,
            cache_write_1h_per_mtok: None,
        });
        let t = ProviderTarget::new(priced, &custom).unwrap();
        assert!(t.preflight_problems(&cases[..1]).is_empty());
    }

    #[test]
    fn target_config_records_what_was_sent() {
        let endpoint = Endpoint {
            base_url: "http://127.0.0.1:1".into(),
            key: None,
        };
        let mut s = spec(ProviderKind::OpenAi, "gpt-4o-mini");
        s.temperature = Some(Number::from_f64(0.2).unwrap());
        s.base_url = Some("http://user:pw@llm.internal:8000/v1".into());
        s.response_format = Some(json!({"type": "json_object"}));
        let t = ProviderTarget::new(s, &endpoint).unwrap();
        assert_eq!(
            Value::Object(t.target_config()),
            json!({"values": {
                "provider": "openai", "model": "gpt-4o-mini", "max_tokens": 100,
                "temperature": 0.2, "base_url": "llm.internal:8000", "response_format": "json_object",
                "system_sha": sha16("You answer in {lang}.")
            }})
        );
        let r = t
            .request(&case("c", json!({"question": "q", "lang": "it"})))
            .unwrap();
        assert_eq!(r.token_param, "max_tokens");
        assert_eq!(r.user, "Q: q (it)");
        assert_eq!(r.system.as_deref(), Some("You answer in it."));
        let missing = t.request(&case("c", json!({}))).unwrap_err();
        assert!(missing.transient.is_none());
    }
}
