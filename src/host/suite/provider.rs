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

use serde_json::{Map, Value};
use toml::de::DeValue;

use super::errors::{LoadError, LoadErrorKind};
use super::fields::{Fields, Num};
use super::paths::inside_root;
use super::toml_values::{kind, to_json};
use super::{finish, noted};
use crate::client::pricing::Price;
use crate::client::provider::{
    parse_coordinate, ApiKey, Endpoint, ProviderKind, ProviderSpec, TokenParam,
};
use crate::client::template::PromptTemplate;

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

/// The keys the `kinds` of provider take, sorted (`type` aside).
fn keys_of(kinds: &[ProviderKind]) -> Vec<&'static str> {
    let mut keys: Vec<&str> = COMMON_KEYS.to_vec();
    for kind in kinds {
        match kind {
            ProviderKind::Anthropic => keys.push("prefill"),
            ProviderKind::OpenAi => keys.extend(["extra_body", "response_format", "token_param"]),
        }
    }
    keys.sort_unstable();
    keys
}

/// A string key, when given: not blank.
fn string(f: &Fields<'_, '_>, key: &str) -> Result<Option<String>, LoadError> {
    match f.optional::<String>(key, "it has to be a string")? {
        Some(s) if s.trim().is_empty() => Err(f.invalid(key, &format!("`{key}` is empty"))),
        s => Ok(s),
    }
}

/// A table key (`response_format`, `extra_body`), when given, as JSON.
fn json_table(f: &Fields<'_, '_>, key: &str) -> Result<Option<Map<String, Value>>, LoadError> {
    match f.get(key).map(|v| v.get_ref()) {
        None => Ok(None),
        Some(table @ DeValue::Table(_)) => match to_json(table) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            Ok(_) => Ok(None),
            Err(why) => Err(f.invalid(key, &format!("`{key}` holds {why}"))),
        },
        Some(other) => Err(f.invalid(
            key,
            &format!("`{key}` is {}, and it has to be a table", kind(other)),
        )),
    }
}

/// A prompt template file named at `key`: inside the root, read as UTF-8.
fn read_template(
    f: &Fields<'_, '_>,
    key: &str,
    written: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<PromptTemplate, LoadError> {
    let path = inside_root(key, written, suite_dir, root).map_err(|mut e| {
        e.locator = AT.map(str::to_string);
        f.place(e, f.at_key(key))
    })?;
    let unread = |why: String| {
        f.refuse(
            LoadErrorKind::Read,
            Some(key),
            f.at_key(key),
            &format!("`{key}` names {written}, which {why}"),
        )
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        unread(format!(
            "cannot be read ({})",
            match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                _ => e.to_string(),
            }
        ))
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        unread(format!(
            "is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(PromptTemplate {
        text: text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
        origin: Some(written.to_string()),
    })
}

/// `[target.pricing]`, when given: the two rates it needs and the
/// cache rates it may name.
fn pricing(target: &Fields<'_, '_>) -> Result<Option<Price>, LoadError> {
    let Some(value) = target.get("pricing") else {
        return Ok(None);
    };
    let Some(f) = target.table("pricing", Some("[target.pricing]")) else {
        return Err(target.invalid(
            "pricing",
            &format!(
                "`pricing` is {}, and it has to be a table ([target.pricing])",
                kind(value.get_ref())
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
    let mut unknown = Vec::new();
    f.known(KEYS, &[], Some("pricing"), "key", &mut unknown);
    if let Some(error) = unknown.pop() {
        return Err(error);
    }
    let rate = |key: &str| {
        f.bounded(
            key,
            "a price is a number of USD per million tokens, at least 0",
            |n: &Num| n.at_least(0.0),
        )
        .map(|n| n.map(|n| n.x))
    };
    let needed = |key: &str| {
        rate(key)?.ok_or_else(|| {
            f.refuse(
                LoadErrorKind::Missing,
                Some(key),
                f.at,
                &format!(
                    "`{key}` is missing: a declared price names both input_per_mtok and \
                     output_per_mtok (USD per million tokens)"
                ),
            )
        })
    };
    Ok(Some(Price {
        input_per_mtok: needed("input_per_mtok")?,
        output_per_mtok: needed("output_per_mtok")?,
        cache_read_per_mtok: rate("cache_read_per_mtok")?,
        cache_write_per_mtok: rate("cache_write_per_mtok")?,
        cache_write_1h_per_mtok: rate("cache_write_1h_per_mtok")?,
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
pub(super) fn provider_target(
    f: &Fields<'_, '_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<ProviderSpec, LoadError> {
    let mut problems = Vec::new();
    let parsed = noted(
        &mut problems,
        string(f, "provider").and_then(|coordinate| {
            coordinate
                .map(|c| {
                    parse_coordinate(&c)
                        .map_err(|why| f.invalid("provider", &format!("`provider`: {why}")))
                })
                .transpose()
        }),
    );
    let kind = parsed.as_ref().and_then(|p| p.as_ref().map(|(k, _)| *k));
    // A refused coordinate says nothing about which keys belong: judge
    // the keys against every provider's, so none is refused for it.
    let owner = kind.map_or("provider", ProviderKind::name);
    let judged_by = match parsed {
        Some(_) => keys_of(kind.as_slice()),
        None => keys_of(&[ProviderKind::Anthropic, ProviderKind::OpenAi]),
    };
    let meant = f.known(
        &judged_by,
        &["type"],
        Some(owner),
        "parameter",
        &mut problems,
    );
    let required = ["provider", "prompt_file", "max_tokens"];
    problems.extend(f.missing(&required, "a provider target", &meant));
    let max_tokens = noted(
        &mut problems,
        f.bounded(
            "max_tokens",
            "it has to be a whole number of tokens, at least 1",
            |n: &i64| *n >= 1,
        ),
    );
    let temperature = noted(
        &mut problems,
        f.bounded(
            "temperature",
            "it has to be a number, at least 0",
            |n: &Num| n.at_least(0.0),
        ),
    );
    let prompt = noted(
        &mut problems,
        string(f, "prompt_file").and_then(|file| {
            file.map(|file| read_template(f, "prompt_file", &file, suite_dir, root))
                .transpose()
        }),
    );
    let system = noted(&mut problems, system(f, suite_dir, root));
    let base_url = noted(
        &mut problems,
        string(f, "base_url").and_then(|url| match (&url, kind) {
            (Some(written), Some(kind)) => {
                crate::host::endpoints::check_base_url(AT, written, kind)
                    .map(|()| url)
                    .map_err(|e| f.place(e, f.at_key("base_url")))
            }
            _ => Ok(url),
        }),
    );
    let response_format = noted(&mut problems, json_table(f, "response_format"));
    let token_param = noted(&mut problems, token_param(f));
    let timeout_s = noted(
        &mut problems,
        f.bounded("timeout", "", |n: &Num| n.above(0.0))
            .map_err(|_| f.invalid("timeout", "`timeout` has to be a number of seconds above 0")),
    );
    let prefill = noted(&mut problems, string(f, "prefill"));
    let extra_body = noted(&mut problems, json_table(f, "extra_body"));
    let pricing = noted(&mut problems, pricing(f));
    finish(problems, || {
        let (kind, model) = parsed??;
        Some(ProviderSpec {
            kind,
            model,
            prompt: prompt??,
            system: system?,
            max_tokens: max_tokens?? as u64,
            temperature: temperature?.and_then(|t| t.json()),
            prefill: prefill?,
            base_url: base_url?,
            response_format: response_format?.map(Value::Object),
            token_param: token_param?,
            extra_body: extra_body?,
            pricing: pricing?,
            timeout_s: timeout_s?.map_or(60.0, |n| n.x),
        })
    })
}

/// `system` or `system_file` (not both), when given.
fn system(
    f: &Fields<'_, '_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<Option<PromptTemplate>, LoadError> {
    match (string(f, "system")?, string(f, "system_file")?) {
        (Some(_), Some(_)) => Err(f.invalid(
            "system_file",
            "`system` and `system_file` are both given, and a target has one system prompt: \
             keep one",
        )),
        (Some(text), None) => Ok(Some(PromptTemplate::inline(&text))),
        (None, Some(file)) => Ok(Some(read_template(
            f,
            "system_file",
            &file,
            suite_dir,
            root,
        )?)),
        (None, None) => Ok(None),
    }
}

/// `token_param`: how the token limit is sent, `auto` when absent.
fn token_param(f: &Fields<'_, '_>) -> Result<TokenParam, LoadError> {
    match string(f, "token_param")?.as_deref() {
        None | Some("auto") => Ok(TokenParam::Auto),
        Some("max_tokens") => Ok(TokenParam::MaxTokens),
        Some("max_completion_tokens") => Ok(TokenParam::MaxCompletionTokens),
        Some(other) => Err(f.invalid(
            "token_param",
            &format!(
                "`token_param` is '{other}', and it is one of \"auto\", \"max_tokens\", \
                 \"max_completion_tokens\""
            ),
        )),
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
        let tree = toml::de::DeTable::parse(snippet).unwrap().into_inner();
        let target = Fields {
            text: snippet,
            locator: AT,
            at: 0,
            table: &tree,
        };
        let root = fs::canonicalize(dir.path()).unwrap();
        provider_target(&target, &root, &root)
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
        assert_eq!(spec.temperature, Some(serde_json::Number::from(0)));
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
                "suite.toml:2:1, [target]: `provider`: there is no provider 'antropic'. The providers \
                 are: anthropic, openai. Any OpenAI-compatible endpoint is \"openai/<model>\" \
                 with base_url",
                "suite.toml:3:1, [target]: `provider` has no parameter `prompt_fil`. Did you mean \
                 `prompt_file`?",
                "suite.toml:4:1, [target]: `max_tokens` is 0, and it has to be a whole number of \
                 tokens, at least 1",
                "suite.toml:5:1, [target]: `temperature` is -1, and it has to be a number, at least 0",
                "suite.toml:7:1, [target]: `token_param` is 'max', and it is one of \"auto\", \
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
