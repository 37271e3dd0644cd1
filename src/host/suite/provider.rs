//! `[target] type = "provider"` in `suite.toml`, and where a provider is
//! reached (the environment's base URLs and API keys).
//!
//! Keys (python-input.md §4.2): `provider` (`anthropic/<model>`,
//! `openai/<model>`), `prompt_file`, `max_tokens` (≥ 1) mandatory;
//! `system` or `system_file` (not both), `temperature`, `timeout`
//! (seconds, default 60; an extension), `base_url` (an extension for
//! Anthropic; `host::endpoints`) and `[target.pricing]` for both;
//! Anthropic also `prefill`; OpenAI also `response_format`,
//! `token_param` (`auto`, `max_tokens`, `max_completion_tokens`) and
//! `extra_body`. Template files are read (UTF-8) at load, relative to the
//! suite file and inside the root. No key is read at load: a suite loads
//! without credentials; [`endpoint`] is asked before the run.

use std::path::Path;

use serde_json::{Map, Number, Value};

use super::errors::{LoadError, LoadErrorKind};
use super::paths::inside_root;
use super::toml_values::{toml_to_json, toml_type};
use super::{err, missing_keys, noted, unknown_keys};
use crate::client::pricing::Price;
use crate::client::provider::{
    parse_coordinate, ApiKey, Endpoint, ProviderKind, ProviderSpec, TokenParam,
};
use crate::client::template::PromptTemplate;
use crate::host::near_miss::did_you_mean;

const AT: Option<&str> = Some("[target]");

/// Keys every provider takes.
const COMMON_KEYS: &[&str] = &[
    "base_url",
    "max_tokens",
    "pricing",
    "prompt_file",
    "provider",
    "system",
    "system_file",
    "temperature",
    "timeout",
];

/// The keys `kind` takes, sorted (`type` aside).
fn keys_of(kind: Option<ProviderKind>) -> Vec<&'static str> {
    let mut keys: Vec<&str> = COMMON_KEYS.to_vec();
    match kind {
        Some(ProviderKind::Anthropic) => keys.push("prefill"),
        Some(ProviderKind::OpenAi) => keys.extend(["extra_body", "response_format", "token_param"]),
        None => {}
    }
    keys.sort_unstable();
    keys
}

fn invalid(key: &str, sentence: String) -> LoadError {
    err(LoadErrorKind::Invalid, AT, Some(key), &sentence)
}

fn string(table: &toml::Table, key: &str) -> Result<Option<String>, LoadError> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(toml::Value::String(_)) => Err(invalid(key, format!("`{key}` is empty"))),
        Some(other) => Err(invalid(
            key,
            format!("`{key}` is {}, and it has to be a string", toml_type(other)),
        )),
    }
}

fn number(table: &toml::Table, key: &str) -> Option<f64> {
    match table.get(key) {
        Some(toml::Value::Integer(n)) => Some(*n as f64),
        Some(toml::Value::Float(x)) => Some(*x),
        _ => None,
    }
}

fn json_table(table: &toml::Table, key: &str) -> Result<Option<Map<String, Value>>, LoadError> {
    match table.get(key) {
        None => Ok(None),
        Some(value @ toml::Value::Table(_)) => match toml_to_json(value) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            Ok(_) => Ok(None),
            Err(why) => Err(invalid(key, format!("`{key}` holds {why}"))),
        },
        Some(other) => Err(invalid(
            key,
            format!("`{key}` is {}, and it has to be a table", toml_type(other)),
        )),
    }
}

fn read_template(
    key: &str,
    written: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<PromptTemplate, LoadError> {
    let path = inside_root(key, written, suite_dir, root).map_err(|mut e| {
        e.locator = AT.map(str::to_string);
        e
    })?;
    let bytes = std::fs::read(&path).map_err(|e| {
        err(
            LoadErrorKind::Read,
            AT,
            Some(key),
            &format!(
                "`{key}` names {written}, which cannot be read ({})",
                match e.kind() {
                    std::io::ErrorKind::NotFound => "no such file".to_string(),
                    _ => e.to_string(),
                }
            ),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        err(
            LoadErrorKind::Read,
            AT,
            Some(key),
            &format!(
                "`{key}` names {written}, which is not UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(PromptTemplate {
        text: text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
        origin: Some(written.to_string()),
    })
}

fn pricing(table: &toml::Table) -> Result<Option<Price>, LoadError> {
    let Some(value) = table.get("pricing") else {
        return Ok(None);
    };
    let toml::Value::Table(p) = value else {
        return Err(invalid(
            "pricing",
            format!(
                "`pricing` is {}, and it has to be a table ([target.pricing])",
                toml_type(value)
            ),
        ));
    };
    const KEYS: &[&str] = &[
        "cache_read_per_mtok",
        "cache_write_1h_per_mtok",
        "cache_write_per_mtok",
        "input_per_mtok",
        "output_per_mtok",
    ];
    let unknown: Vec<&str> = p
        .keys()
        .map(String::as_str)
        .filter(|k| !KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(unknown_keys(
            Some("[target.pricing]"),
            Some("pricing"),
            "key",
            &unknown,
            KEYS,
        ));
    }
    let rate = |key: &str, required: bool| -> Result<Option<f64>, LoadError> {
        match p.get(key) {
            None if required => Err(err(
                LoadErrorKind::Missing,
                Some("[target.pricing]"),
                Some(key),
                &format!("`{key}` is missing: a declared price names both input_per_mtok and output_per_mtok (USD per million tokens)"),
            )),
            None => Ok(None),
            Some(toml::Value::Integer(n)) if *n >= 0 => Ok(Some(*n as f64)),
            Some(toml::Value::Float(x)) if *x >= 0.0 && x.is_finite() => Ok(Some(*x)),
            Some(other) => Err(err(
                LoadErrorKind::Invalid,
                Some("[target.pricing]"),
                Some(key),
                &format!(
                    "`{key}` is {}, and a price is a number of USD per million tokens, at least 0",
                    match other {
                        toml::Value::Integer(n) => n.to_string(),
                        toml::Value::Float(x) => x.to_string(),
                        _ => toml_type(other).to_string(),
                    }
                ),
            )),
        }
    };
    Ok(Some(Price {
        input_per_mtok: rate("input_per_mtok", true)?.unwrap_or(0.0),
        output_per_mtok: rate("output_per_mtok", true)?.unwrap_or(0.0),
        cache_read_per_mtok: rate("cache_read_per_mtok", false)?,
        cache_write_per_mtok: rate("cache_write_per_mtok", false)?,
        cache_write_1h_per_mtok: rate("cache_write_1h_per_mtok", false)?,
    }))
}

/// Validate `[target] type = "provider"`, noting every independent
/// problem: the coordinate, unknown keys (against the keys of every
/// provider when the coordinate was refused, and a near miss of a
/// required key is not also reported missing), missing keys, then each
/// value on its own.
///
/// # Errors
/// A located [`LoadError`] carrying the others: a bad coordinate, unknown
/// keys (with the near miss), a missing `provider`/`prompt_file`/
/// `max_tokens`, `system` beside `system_file`, a template that cannot be
/// read or leaves the root, a value of the wrong type or range.
pub fn provider_target(
    table: &toml::Table,
    suite_dir: &Path,
    root: &Path,
) -> Result<ProviderSpec, LoadError> {
    let mut problems = Vec::new();
    let parsed = noted(
        &mut problems,
        string(table, "provider").and_then(|coordinate| {
            coordinate
                .map(|c| {
                    parse_coordinate(&c)
                        .map_err(|why| invalid("provider", format!("`provider`: {why}")))
                })
                .transpose()
        }),
    );
    let kind = parsed.as_ref().and_then(|p| p.as_ref().map(|(k, _)| *k));
    // A refused coordinate says nothing about which keys belong: judge
    // the keys against every provider's, so none is refused for it.
    let judged_by = match parsed {
        Some(_) => keys_of(kind),
        None => {
            let mut all = keys_of(Some(ProviderKind::Anthropic));
            all.extend(keys_of(Some(ProviderKind::OpenAi)));
            all.sort_unstable();
            all.dedup();
            all
        }
    };
    let unknown: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "type" && !judged_by.contains(k))
        .collect();
    let meant: Vec<&str> = unknown
        .iter()
        .filter_map(|k| did_you_mean(k, &judged_by))
        .collect();
    if !unknown.is_empty() {
        let owner = kind.map_or("provider", ProviderKind::name);
        problems.push(unknown_keys(
            AT,
            Some(owner),
            "parameter",
            &unknown,
            &judged_by,
        ));
    }
    problems.extend(missing_keys(
        table,
        AT,
        "a provider target",
        &["provider", "prompt_file", "max_tokens"],
        &meant,
    ));
    let max_tokens = match table.get("max_tokens") {
        None => None,
        Some(toml::Value::Integer(n)) if *n >= 1 => Some(*n as u64),
        Some(other) => {
            problems.push(invalid(
                "max_tokens",
                format!(
                    "`max_tokens` is {}, and it has to be a whole number of tokens, at least 1",
                    match other {
                        toml::Value::Integer(n) => n.to_string(),
                        v => toml_type(v).to_string(),
                    }
                ),
            ));
            None
        }
    };
    let temperature = noted(&mut problems, temperature(table));
    let prompt = noted(
        &mut problems,
        string(table, "prompt_file").and_then(|file| {
            file.map(|file| read_template("prompt_file", &file, suite_dir, root))
                .transpose()
        }),
    );
    let system = noted(&mut problems, system(table, suite_dir, root));
    let base_url = noted(
        &mut problems,
        string(table, "base_url").and_then(|url| match (&url, kind) {
            (Some(written), Some(kind)) => {
                crate::host::endpoints::check_base_url(AT, written, kind).map(|()| url)
            }
            _ => Ok(url),
        }),
    );
    let response_format = noted(&mut problems, json_table(table, "response_format"));
    let token_param = noted(&mut problems, token_param(table));
    let timeout_s = noted(&mut problems, timeout(table));
    let prefill = noted(&mut problems, string(table, "prefill"));
    let extra_body = noted(&mut problems, json_table(table, "extra_body"));
    let pricing = noted(&mut problems, pricing(table));
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    let (
        Some(Some((kind, model))),
        Some(max_tokens),
        Some(temperature),
        Some(Some(prompt)),
        Some(system),
        Some(base_url),
        Some(response_format),
        Some(token_param),
        Some(timeout_s),
        Some(prefill),
        Some(extra_body),
        Some(pricing),
    ) = (
        parsed,
        max_tokens,
        temperature,
        prompt,
        system,
        base_url,
        response_format,
        token_param,
        timeout_s,
        prefill,
        extra_body,
        pricing,
    )
    else {
        unreachable!("every value that was refused or missing noted a problem");
    };
    Ok(ProviderSpec {
        kind,
        model,
        prompt,
        system,
        max_tokens,
        temperature,
        prefill,
        base_url,
        response_format: response_format.map(Value::Object),
        token_param,
        extra_body,
        pricing,
        timeout_s,
    })
}

/// `temperature`: a number, at least 0, when given.
fn temperature(table: &toml::Table) -> Result<Option<Number>, LoadError> {
    match table.get("temperature") {
        None => Ok(None),
        Some(toml::Value::Integer(n)) if *n >= 0 => Ok(Some(Number::from(*n))),
        Some(toml::Value::Float(x)) if *x >= 0.0 && x.is_finite() => Ok(Number::from_f64(*x)),
        Some(other) => Err(invalid(
            "temperature",
            format!(
                "`temperature` is {}, and it has to be a number, at least 0",
                match other {
                    toml::Value::Integer(n) => n.to_string(),
                    toml::Value::Float(x) => x.to_string(),
                    _ => toml_type(other).to_string(),
                }
            ),
        )),
    }
}

/// `system` or `system_file` (not both), when given.
fn system(
    table: &toml::Table,
    suite_dir: &Path,
    root: &Path,
) -> Result<Option<PromptTemplate>, LoadError> {
    match (string(table, "system")?, string(table, "system_file")?) {
        (Some(_), Some(_)) => Err(invalid(
            "system_file",
            "`system` and `system_file` are both given, and a target has one system prompt: \
             keep one"
                .to_string(),
        )),
        (Some(text), None) => Ok(Some(PromptTemplate::inline(&text))),
        (None, Some(file)) => Ok(Some(read_template("system_file", &file, suite_dir, root)?)),
        (None, None) => Ok(None),
    }
}

/// `token_param`: how the token limit is sent, `auto` when absent.
fn token_param(table: &toml::Table) -> Result<TokenParam, LoadError> {
    match string(table, "token_param")?.as_deref() {
        None | Some("auto") => Ok(TokenParam::Auto),
        Some("max_tokens") => Ok(TokenParam::MaxTokens),
        Some("max_completion_tokens") => Ok(TokenParam::MaxCompletionTokens),
        Some(other) => Err(invalid(
            "token_param",
            format!(
                "`token_param` is '{other}', and it is one of \"auto\", \"max_tokens\", \
                 \"max_completion_tokens\""
            ),
        )),
    }
}

/// `timeout`: seconds above 0, 60 when absent.
fn timeout(table: &toml::Table) -> Result<f64, LoadError> {
    match table.get("timeout") {
        None => Ok(60.0),
        Some(_) => match number(table, "timeout") {
            Some(x) if x > 0.0 && x.is_finite() => Ok(x),
            _ => Err(invalid(
                "timeout",
                "`timeout` has to be a number of seconds above 0".to_string(),
            )),
        },
    }
}

/// Where `kind` is reached, from the suite and the environment: the suite's
/// `base_url` if declared, else `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`,
/// else the official endpoint; the key from `ANTHROPIC_API_KEY` /
/// `OPENAI_API_KEY`. `env` is the environment (`std::env::var(..).ok()`).
/// The key is a secret: never print, log or record it.
pub fn endpoint(
    kind: ProviderKind,
    declared_base_url: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Endpoint {
    let base_url = declared_base_url
        .map(str::to_string)
        .or_else(|| env(kind.base_url_variable()).filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| kind.default_base_url().to_string());
    Endpoint {
        base_url: base_url.trim().to_string(),
        key: env(kind.key_variable()).and_then(ApiKey::new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn load(snippet: &str) -> Result<ProviderSpec, LoadError> {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("prompt.txt"), "Q: {question}").unwrap();
        fs::write(dir.path().join("system.txt"), "S {lang}").unwrap();
        let table: toml::Table = snippet.parse().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        provider_target(&table, &root, &root)
    }

    const BASE: &str = "type = \"provider\"\nprompt_file = \"prompt.txt\"\nmax_tokens = 100\n";

    #[test]
    fn a_full_openai_target_loads() {
        let spec = load(&format!(
            "{BASE}provider = \"openai/llama3\"\nsystem_file = \"system.txt\"\ntemperature = 0\n\
             base_url = \"http://localhost:11434/v1\"\ntoken_param = \"max_tokens\"\n\
             response_format = {{type = \"json_object\"}}\nextra_body = {{seed = 7}}\n\
             [pricing]\ninput_per_mtok = 0\noutput_per_mtok = 0.5\n"
        ))
        .unwrap();
        assert_eq!(spec.kind, ProviderKind::OpenAi);
        assert_eq!(spec.model, "llama3");
        assert_eq!(spec.prompt.text, "Q: {question}");
        assert_eq!(spec.system.unwrap().origin.as_deref(), Some("system.txt"));
        assert_eq!(spec.temperature, Some(Number::from(0)));
        assert_eq!(spec.token_param, TokenParam::MaxTokens);
        assert_eq!(spec.pricing.unwrap().output_per_mtok, 0.5);
        assert_eq!(spec.pricing.unwrap().cache_read_per_mtok, None);
        let a = load(&format!("{BASE}provider = \"anthropic/claude-haiku-4-5\"\nprefill = \"{{\"\nsystem = \"Be {{lang}}\"\n")).unwrap();
        assert_eq!(a.prefill.as_deref(), Some("{"));
        assert_eq!(a.system.unwrap().origin, None);
    }

    /// Every independent problem of a provider target at once, in load
    /// order; a refused coordinate does not make `prefill` unknown, and
    /// a near miss of a required key is not also "missing".
    #[test]
    fn every_independent_problem_of_a_provider_target_is_reported() {
        let e = load(
            "type = \"provider\"\nprovider = \"antropic/m\"\nprompt_fil = \"prompt.txt\"\n\
             max_tokens = 0\ntemperature = -1\nprefill = \"{\"\ntoken_param = \"max\"\n",
        )
        .unwrap_err();
        let sentences: Vec<&str> = e.problems().map(|p| p.message.as_str()).collect();
        assert_eq!(
            sentences,
            [
                "suite.toml, [target]: `provider`: there is no provider 'antropic'. The providers \
                 are: anthropic, openai. Any OpenAI-compatible endpoint is \"openai/<model>\" \
                 with base_url",
                "suite.toml, [target]: `provider` has no parameter `prompt_fil`. Did you mean \
                 `prompt_file`?",
                "suite.toml, [target]: `max_tokens` is 0, and it has to be a whole number of \
                 tokens, at least 1",
                "suite.toml, [target]: `temperature` is -1, and it has to be a number, at least 0",
                "suite.toml, [target]: `token_param` is 'max', and it is one of \"auto\", \
                 \"max_tokens\", \"max_completion_tokens\"",
            ]
        );
        assert_eq!(e.kind, LoadErrorKind::Invalid);
    }

    #[test]
    fn refusals() {
        let rows: &[(&str, LoadErrorKind, &str)] = &[
            (
                "provider = \"anthropic\"",
                LoadErrorKind::Invalid,
                "not a provider/model coordinate",
            ),
            (
                "provider = \"antropic/m\"",
                LoadErrorKind::Invalid,
                "there is no provider 'antropic'",
            ),
            (
                "provider = \"anthropic/m\"\nbase_url = \"http://u:k@x\"",
                LoadErrorKind::Credential,
                "The key comes from ANTHROPIC_API_KEY",
            ),
            (
                "provider = \"openai/m\"\nprefil = \"{\"",
                LoadErrorKind::Unknown,
                "`prefil`",
            ),
            (
                "provider = \"openai/m\"\nsystem = \"a\"\nsystem_file = \"system.txt\"",
                LoadErrorKind::Invalid,
                "both given",
            ),
            (
                "provider = \"openai/m\"\ntemperature = -1",
                LoadErrorKind::Invalid,
                "`temperature` is -1",
            ),
            (
                "provider = \"openai/m\"\ntemperature = true",
                LoadErrorKind::Invalid,
                "`temperature`",
            ),
            (
                "provider = \"openai/m\"\nsystem_file = \"nope.txt\"",
                LoadErrorKind::Read,
                "nope.txt, which cannot be read",
            ),
            (
                "provider = \"openai/m\"\nsystem_file = \"../../../../etc/hostname\"",
                LoadErrorKind::Perimeter,
                "outside",
            ),
            (
                "provider = \"openai/m\"\nbase_url = \"ftp://x\"",
                LoadErrorKind::Invalid,
                "`base_url`",
            ),
            (
                "provider = \"openai/m\"\nbase_url = \"http://u:sk-1@x/v1\"",
                LoadErrorKind::Credential,
                "userinfo",
            ),
            (
                "provider = \"openai/m\"\ntoken_param = \"max\"",
                LoadErrorKind::Invalid,
                "`token_param` is 'max'",
            ),
            (
                "provider = \"openai/m\"\n[pricing]\ninput_per_mtok = 1",
                LoadErrorKind::Missing,
                "`output_per_mtok` is missing",
            ),
            (
                "provider = \"openai/m\"\n[pricing]\ninput_per_mtok = 1\noutput_per_mtok = -2",
                LoadErrorKind::Invalid,
                "`output_per_mtok` is -2",
            ),
            (
                "provider = \"openai/m\"\n[pricing]\ninput = 1",
                LoadErrorKind::Unknown,
                "`input`",
            ),
        ];
        for (extra, kind, fragment) in rows {
            let e = load(&format!("{BASE}{extra}\n")).unwrap_err();
            assert_eq!(&e.kind, kind, "{extra}: {}", e.message);
            assert!(e.message.contains(fragment), "{extra}: {}", e.message);
            assert!(!e.message.contains("sk-1"), "{}", e.message);
        }
        let e = load("type = \"provider\"\nprovider = \"openai/m\"\n").unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::Missing);
        assert!(
            e.message.contains("`prompt_file`, `max_tokens`"),
            "{}",
            e.message
        );
        let e = load(
            &BASE
                .replace("100", "0")
                .replace("type", "provider = \"openai/m\"\ntype"),
        )
        .unwrap_err();
        assert!(e.message.contains("`max_tokens` is 0"), "{}", e.message);
    }

    #[test]
    fn endpoints_from_the_environment() {
        let env = |name: &str| match name {
            "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".to_string()),
            "OPENAI_API_KEY" => Some("sk-x".to_string()),
            "ANTHROPIC_API_KEY" => Some(String::new()),
            _ => None,
        };
        let e = endpoint(ProviderKind::OpenAi, None, &env);
        assert_eq!(e.base_url, "http://127.0.0.1:9/v1");
        assert!(e.key.is_some());
        let e = endpoint(ProviderKind::OpenAi, Some("http://llm:8/v1"), &env);
        assert_eq!(e.base_url, "http://llm:8/v1");
        let e = endpoint(ProviderKind::Anthropic, None, &env);
        assert_eq!(e.base_url, "https://api.anthropic.com");
        assert!(e.key.is_none(), "an empty key is no key");
    }
}
